/*  authorizer — CURVE keys, the ZAP handler and the per-request check of
 *  the front end (see the header).
 */
#include "authorizer.h"

#include "dlq_alloc.h"
#include "dlq_audit.h"
#include "dlq_cert.h"
#include "dlq_json.h"
#include "dlq_log.h"
#include "key_table.h"
#include "zap_handler.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dlq_authorizer {
    char               secret [DLQ_CERT_KEY_LEN + 1];
    char              *dir;
    dlq_counters_t    *counters;
    dlq_zap_handler_t *zap;
    dlq_key_table_t   *table;
    uint64_t           signature;
    int64_t            next_check_ms;
};

/* Log each file of the directory that was left out. */
static void
log_problems (const char *dir, const dlq_buf_t *problems)
{
    const char *p = problems->data;
    while (p && *p) {
        const char *end = strchr (p, '\n');
        int len = (int) (end ? end - p : (ptrdiff_t) strlen (p));
        dlq_log (DLQ_LOG_ERROR, "security.curve.clients %s: left out %.*s", dir, len, p);
        p = end ? end + 1 : p + len;
    }
}

/* A new table of the directory, or NULL (logged). */
static dlq_key_table_t *
load_table (const char *dir, char *err, size_t err_len)
{
    dlq_buf_t problems = DLQ_BUF_INIT;
    dlq_key_table_t *table = dlq_key_table_load (dir, &problems, err, err_len);
    log_problems (dir, &problems);
    dlq_buf_free (&problems);
    return table;
}

dlq_authorizer_t *
dlq_authorizer_new (void *zmq_ctx, const dlqd_security_config_t *security, dlq_counters_t *counters,
                    char *err, size_t err_len)
{
    dlq_cert_t *cert = NULL;
    char why [512];
    if (dlq_cert_load (security->server_secret_key, true, &cert, why, sizeof why) != DLQ_CERT_OK) {
        snprintf (err, err_len, "security.curve.server_secret_key: %s", why);
        return NULL;
    }
    dlq_authorizer_t *self = dlq_calloc (1, sizeof *self);
    snprintf (self->secret, sizeof self->secret, "%s", dlq_cert_secret (cert));
    dlq_cert_destroy (&cert);
    self->dir = dlq_strdup (security->clients);
    self->counters = counters;
    dlq_key_table_signature (self->dir, &self->signature);
    self->table = load_table (self->dir, why, sizeof why);
    if (self->table)
        self->zap = dlq_zap_handler_new (zmq_ctx, self->dir, counters, why, sizeof why);
    if (!self->zap) {
        snprintf (err, err_len, "security.curve.clients: %s", why);
        dlq_authorizer_destroy (&self);
        return NULL;
    }
    dlq_counters_secured (counters);
    dlq_log (DLQ_LOG_INFO, "CURVE on: %zu client keys from %s", dlq_key_table_count (self->table), self->dir);
    return self;
}

bool
dlq_authorizer_secure (dlq_authorizer_t *self, void *socket, const char *domain)
{
    return dlq_zap_handler_secure (socket, self->secret, domain);
}

/* Refuse: FORBIDDEN (or UNAUTHENTICATED) with the message, counted for
 * name and logged. */
typedef struct {
    const void *data;
    size_t      len;
} body_t;

static dlq_code_t
refuse_as (dlq_authorizer_t *self, dlq_code_t code, const char *name, const dlq_verb_spec_t *spec, body_t body,
           dlq_error_t *err, const char *fmt, va_list args)
{
    char text [256];
    vsnprintf (text, sizeof text, fmt, args);
    dlq_error_set (err, code, NULL, "%s", text);
    dlq_counters_forbidden (self->counters, name);
    dlq_audit (name, spec->name, body.data, body.len, code, err->message);
    return code;
}

static dlq_code_t
refuse (dlq_authorizer_t *self, const char *name, const dlq_verb_spec_t *spec, body_t body, dlq_error_t *err,
        const char *fmt, ...) __attribute__ ((format (printf, 6, 7)));

static dlq_code_t
refuse (dlq_authorizer_t *self, const char *name, const dlq_verb_spec_t *spec, body_t body, dlq_error_t *err,
        const char *fmt, ...)
{
    va_list args;
    va_start (args, fmt);
    dlq_code_t code = refuse_as (self, DLQ_ERR_FORBIDDEN, name, spec, body, err, fmt, args);
    va_end (args);
    return code;
}

static dlq_code_t
refuse_token (dlq_authorizer_t *self, const dlq_verb_spec_t *spec, body_t body, dlq_error_t *err,
              const char *fmt, ...) __attribute__ ((format (printf, 5, 6)));

static dlq_code_t
refuse_token (dlq_authorizer_t *self, const dlq_verb_spec_t *spec, body_t body, dlq_error_t *err,
              const char *fmt, ...)
{
    va_list args;
    va_start (args, fmt);
    dlq_code_t code = refuse_as (self, DLQ_ERR_UNAUTHENTICATED, DLQ_AUTHORIZER_NO_TOKEN, spec, body, err, fmt,
                                 args);
    va_end (args);
    return code;
}

/* The body's top-level streamName: *stream and *len, false when there is
 * none (or it is not a string, or the body is not JSON: the verb's own
 * checks answer that). */
static bool
named_stream (const void *body, size_t len, dlq_json_doc_t **doc, const char **stream, size_t *stream_len)
{
    if (len == 0 || dlq_json_parse (body, len, doc, NULL) != DLQ_JSON_OK)
        return false;
    const dlq_json_value_t *v = dlq_json_get (dlq_json_root (*doc), "streamName");
    if (!v || v->type != DLQ_JSON_STRING)
        return false;
    *stream = v->str;
    *stream_len = v->len;
    return true;
}

/* The stream part of the check, for a principal limited to some streams. */
static dlq_code_t
check_scope (dlq_authorizer_t *self, const dlq_verb_spec_t *spec, const void *body, size_t len,
             dlq_authorizer_grant_t *grant, dlq_error_t *err)
{
    dlq_principal_t *p = grant->principal;
    const char *name = dlq_principal_name (p);
    body_t b = { body, len };
    switch (spec->scope) {
    case DLQ_SCOPE_NONE:
    case DLQ_SCOPE_EVENT:
    case DLQ_SCOPE_BY_ID:
        return DLQ_OK;
    case DLQ_SCOPE_ALL:
        return refuse (self, name, spec, b, err, "%s looks across every stream; key \"%s\" may use only some",
                       spec->name, name);
    case DLQ_SCOPE_NAMED:
        break;
    }
    dlq_json_doc_t *doc = NULL;
    const char *stream = NULL;
    size_t stream_len = 0;
    dlq_code_t code = DLQ_OK;
    if (!named_stream (body, len, &doc, &stream, &stream_len))
        code = refuse (self, name, spec, b, err, "%s without a streamName covers every stream; key \"%s\" may "
                       "use only some: name one", spec->name, name);
    else
    if (!dlq_principal_may_stream (p, stream, stream_len))
        code = refuse (self, name, spec, b, err, "%s on stream \"%.*s\": key \"%s\" may not use it", spec->name,
                       (int) (stream_len > 128 ? 128 : stream_len), stream, name);
    dlq_json_doc_destroy (&doc);
    return code;
}

dlq_code_t
dlq_authorizer_check (dlq_authorizer_t *self, const dlq_verb_spec_t *spec, zmq_msg_t *verb_frame,
                      zmq_msg_t *token, const void *body, size_t len, dlq_authorizer_grant_t *grant,
                      dlq_error_t *err)
{
    grant->principal = NULL;
    grant->scope = (dlq_buf_t) DLQ_BUF_INIT;
    const char *key = zmq_msg_gets (verb_frame, "User-Id");
    body_t b = { body, len };
    if (!key && !token)
        return refuse_token (self, spec, b, err, "this request has no credentials: send a token "
                             "(Authorization: Bearer, docs/security.md)");
    dlq_principal_t *p = key ? dlq_key_table_find (self->table, key)
                             : dlq_key_table_find_token (self->table, zmq_msg_data (token), zmq_msg_size (token));
    if (!p && !key)
        return refuse_token (self, spec, b, err, "this token is not (or no longer) one that a certificate of "
                             "security.curve.clients names (token_sha256)");
    if (!p) {
        char name [32];
        snprintf (name, sizeof name, "key %.8s...", key ? key : "?");
        return refuse (self, name, spec, b, err, "this client's key is not (or no longer) in "
                       "security.curve.clients");
    }
    grant->principal = p;
    if (!(spec->roles & dlq_principal_role (p))) {
        dlq_buf_t roles = DLQ_BUF_INIT;
        dlq_principal_roles_text (spec->roles, &roles);
        dlq_role_t role = dlq_principal_role (p);
        dlq_code_t code = refuse (self, dlq_principal_name (p), spec, b, err, "%s needs the role %s; key \"%s\" "
                                  "is %s %s", spec->name, roles.data, dlq_principal_name (p),
                                  role == DLQ_ROLE_OPERATOR || role == DLQ_ROLE_ADMIN ? "an" : "a",
                                  dlq_principal_role_name (role));
        dlq_buf_free (&roles);
        return code;
    }
    if (spec->lane != DLQ_LANE_INGEST && spec->lane != DLQ_LANE_FRONT)
        dlq_principal_scope_frame (p, &grant->scope);       /* who, for the thread that answers */
    if (dlq_principal_all_streams (p))
        return DLQ_OK;
    dlq_code_t code = check_scope (self, spec, body, len, grant, err);
    if (code != DLQ_OK)
        dlq_buf_free (&grant->scope);       /* refused: nothing for the caller to free */
    return code;
}

dlq_code_t
dlq_authorizer_check_stream (dlq_authorizer_t *self, dlq_principal_t *principal, const dlq_verb_spec_t *spec,
                             const char *stream, size_t len, dlq_error_t *err)
{
    if (dlq_principal_may_stream (principal, stream, len))
        return DLQ_OK;
    const char *name = dlq_principal_name (principal);
    body_t none = { NULL, 0 };
    return refuse (self, name, spec, none, err, "%s on stream \"%.*s\": key \"%s\" may not use it", spec->name,
                   (int) (len > 128 ? 128 : len), stream, name);
}

void
dlq_authorizer_reload (dlq_authorizer_t *self)
{
    char err [512];
    dlq_key_table_signature (self->dir, &self->signature);
    dlq_key_table_t *table = load_table (self->dir, err, sizeof err);
    char text [700];
    if (!table) {
        snprintf (text, sizeof text, "%s: keeping the %zu keys read before", err, dlq_key_table_count (self->table));
        dlq_log (DLQ_LOG_ERROR, "reload of security.curve.clients failed: %s", text);
        dlq_audit (NULL, "RELOAD", NULL, 0, DLQ_ERR_UNAVAILABLE, text);
        return;
    }
    dlq_key_table_destroy (&self->table);
    self->table = table;
    dlq_zap_handler_reload (self->zap);
    snprintf (text, sizeof text, "%zu client keys from %s", dlq_key_table_count (table), self->dir);
    dlq_log (DLQ_LOG_INFO, "reloaded security.curve.clients: %s", text);
    dlq_audit (NULL, "RELOAD", NULL, 0, DLQ_OK, text);
}

void
dlq_authorizer_tick (dlq_authorizer_t *self, int64_t now_mono_ms)
{
    if (now_mono_ms < self->next_check_ms)
        return;
    self->next_check_ms = now_mono_ms + DLQ_AUTHORIZER_CHECK_MS;
    uint64_t signature = 0;
    if (dlq_key_table_signature (self->dir, &signature) && signature != self->signature)
        dlq_authorizer_reload (self);
}

void
dlq_authorizer_destroy (dlq_authorizer_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_authorizer_t *self = *self_p;
    dlq_zap_handler_destroy (&self->zap);
    dlq_key_table_destroy (&self->table);
    free (self->dir);
    memset (self->secret, 0, sizeof self->secret);
    free (self);
    *self_p = NULL;
}
