/*  api_handler — an API request in, the gateway's answer out. */
#include "api_handler.h"

#include "api_bridge.h"
#include "api_guard.h"
#include "authorizer.h"
#include "dlq_audit.h"
#include "dlq_alloc.h"
#include "dlq_json.h"
#include "verb_table.h"

#include <stdlib.h>
#include <string.h>

#define SEGMENT_MAX 1100          /* a path segment: a stream name of 255 characters of up to 4 bytes */

struct dlq_api_handler {
    dlq_api_bridge_t *bridge;
    dlq_counters_t   *counters;         /* refusals without a usable token, counted as the gateway counts them */
    bool              secured;
};

dlq_api_handler_t *
dlq_api_handler_new (void *zmq_ctx, const char *endpoint, bool secured, dlq_counters_t *counters)
{
    dlq_api_bridge_t *bridge = dlq_api_bridge_new (zmq_ctx, endpoint, DLQ_API_TIMEOUT_MS);
    if (!bridge)
        return NULL;
    dlq_api_handler_t *self = dlq_calloc (1, sizeof *self);
    self->bridge = bridge;
    self->secured = secured;
    self->counters = counters;
    return self;
}

void
dlq_api_handler_close (dlq_api_handler_t *self)
{
    if (self)
        dlq_api_bridge_close (self->bridge);
}

bool dlq_api_handler_closed (dlq_api_handler_t *self) { return dlq_api_bridge_closed (self->bridge); }

void
dlq_api_handler_destroy (dlq_api_handler_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_api_bridge_destroy (&(*self_p)->bridge);
    free (*self_p);
    *self_p = NULL;
}

static unsigned
refuse (dlq_buf_t *out, dlq_code_t code, const char *field, const char *message)
{
    dlq_error_t err;
    dlq_error_set (&err, code, field, "%s", message);
    dlq_buf_reset (out);
    dlq_protocol_error_body (out, &err);
    return dlq_api_route_status (code);
}

/* The code an ERR reply's body names. */
static dlq_code_t
code_of (const dlq_buf_t *reply)
{
    dlq_json_doc_t *doc = NULL;
    dlq_code_t code = DLQ_ERR_INTERNAL;
    if (dlq_json_parse (reply->data, reply->len, &doc, NULL) == DLQ_JSON_OK) {
        const dlq_json_value_t *name = dlq_json_get (dlq_json_root (doc), "code");
        for (int c = 1; name && name->type == DLQ_JSON_STRING && c < DLQ_CODE_COUNT; c++)
            if (strlen (dlq_code_name ((dlq_code_t) c)) == name->len
                && memcmp (dlq_code_name ((dlq_code_t) c), name->str, name->len) == 0)
                code = (dlq_code_t) c;
    }
    dlq_json_doc_destroy (&doc);
    return code;
}

/* 401 for a request without a usable Authorization header (what: "METHOD
 * PATH"), counted and audited as the gateway counts an unknown token. */
static unsigned
refuse_unauthenticated (dlq_api_handler_t *self, const char *authorization, const char *what, dlq_buf_t *out)
{
    unsigned status = refuse (out, DLQ_ERR_UNAUTHENTICATED, NULL, authorization
                              ? "the Authorization header is not \"Bearer TOKEN\" (docs/security.md, HTTP tokens)"
                              : "this gateway authenticates its clients (security.curve): send Authorization: "
                                "Bearer TOKEN (docs/security.md, HTTP tokens)");
    if (self->counters)
        dlq_counters_forbidden (self->counters, DLQ_AUTHORIZER_NO_TOKEN);
    dlq_audit (DLQ_AUTHORIZER_NO_TOKEN, "HTTP", what, strlen (what), DLQ_ERR_UNAUTHENTICATED,
               authorization ? "the Authorization header is not \"Bearer TOKEN\"" : "no Authorization header");
    return status;
}

unsigned
dlq_api_handler_call (dlq_api_handler_t *self, dlq_verb_t verb, const char *body, size_t len,
                      const char *authorization, dlq_buf_t *out)
{
    const char *token = NULL;
    size_t token_len = 0;
    if (self->secured && !dlq_api_guard_bearer (authorization, &token, &token_len))
        return refuse_unauthenticated (self, authorization, dlq_verb_table_get (verb)->name, out);
    bool ok = false;
    dlq_buf_reset (out);
    if (!dlq_api_bridge_call (self->bridge, dlq_verb_table_get (verb)->name, body, len, token, token_len, &ok, out))
        return refuse (out, DLQ_ERR_UNAVAILABLE, NULL, "the gateway did not answer in time; try again");
    return ok ? 200 : dlq_api_route_status (code_of (out));
}

unsigned
dlq_api_handler_authenticate (dlq_api_handler_t *self, const char *authorization, const char *method,
                              const char *url, dlq_buf_t *out)
{
    if (!self->secured)
        return 200;
    const char *token = NULL;
    size_t token_len = 0;
    if (!dlq_api_guard_bearer (authorization, &token, &token_len)) {
        char what [600];
        snprintf (what, sizeof what, "%.16s %.512s", method, url);
        return refuse_unauthenticated (self, authorization, what, out);
    }
    return dlq_api_handler_call (self, DLQ_VERB_PING, "", 0, authorization, out);
}

unsigned
dlq_api_handler_answer (dlq_api_handler_t *self, const char *method, const char *url,
                        const dlq_api_request_t *in, dlq_buf_t *out, char *allow, size_t allow_len)
{
    const dlq_api_route_t *route;
    char segment [SEGMENT_MAX];
    dlq_api_match_t match = dlq_api_route_find (method, url, &route, segment, sizeof segment, allow, allow_len);
    if (match == DLQ_API_NO_PATH)
        return refuse (out, DLQ_ERR_NOT_FOUND, NULL, "no such path in the API (docs/api.md)");
    if (match == DLQ_API_NO_METHOD) {
        refuse (out, DLQ_ERR_INVALID_REQUEST, NULL, "this path does not take this method");
        return 405;
    }
    dlq_buf_t request = DLQ_BUF_INIT;
    dlq_error_t err;
    dlq_code_t code = dlq_api_route_body (route, segment, in->params, in->param_count, in->body, in->body_len,
                                          &request, &err);
    unsigned status;
    if (code != DLQ_OK) {
        dlq_buf_reset (out);
        dlq_protocol_error_body (out, &err);
        status = dlq_api_route_status (code);
    }
    else
        status = dlq_api_handler_call (self, route->verb, request.data, request.len, in->authorization, out);
    dlq_buf_free (&request);
    return status;
}
