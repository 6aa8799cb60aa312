/*  checkpoint — CKPT.* requests and the record's JSON (see the header). */
#include "checkpoint.h"

#include "dlq_alloc.h"
#include "dlq_time.h"
#include "extended_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { OWN_STREAM, OWN_INSTANCE, OWN_SEEN, OWN_PROCESSED, OWN_METADATA };

dlq_sink_checkpoint_t
dlq_checkpoint_empty (const char *stream)
{
    return (dlq_sink_checkpoint_t) {
        .stream_name = stream, .last_seen_at = DLQ_SINK_TIME_NONE,
        .last_processed_at = DLQ_SINK_TIME_NONE, .updated_at = DLQ_SINK_TIME_NONE
    };
}

dlq_sink_checkpoint_t
dlq_checkpoint_with_strings (const dlq_sink_checkpoint_t *times, const char *const strings [DLQ_CHECKPOINT_STRINGS],
                             const size_t lens [DLQ_CHECKPOINT_STRINGS], char **block_out)
{
    size_t total = 0;
    for (int i = 0; i < DLQ_CHECKPOINT_STRINGS; i++)
        total += strings [i] ? lens [i] + 1 : 0;
    char *block = dlq_malloc (total ? total : 1), *at = block;
    const char *copies [DLQ_CHECKPOINT_STRINGS];
    for (int i = 0; i < DLQ_CHECKPOINT_STRINGS; i++) {
        copies [i] = NULL;
        if (!strings [i])
            continue;
        memcpy (at, strings [i], lens [i]);
        at [lens [i]] = '\0';
        copies [i] = at;
        at += lens [i] + 1;
    }
    *block_out = block;
    dlq_sink_checkpoint_t out = *times;
    out.stream_name = copies [0];
    out.instance_id = copies [1];
    out.last_seen_token = copies [2];
    out.last_processed_token = copies [3];
    out.metadata = copies [4];
    return out;
}

dlq_sink_checkpoint_t
dlq_checkpoint_copy (const dlq_sink_checkpoint_t *r, char **block_out)
{
    const char *strings [DLQ_CHECKPOINT_STRINGS] = { r->stream_name, r->instance_id, r->last_seen_token,
                                                     r->last_processed_token, r->metadata };
    size_t lens [DLQ_CHECKPOINT_STRINGS];
    for (int i = 0; i < DLQ_CHECKPOINT_STRINGS; i++)
        lens [i] = strings [i] ? strlen (strings [i]) : 0;
    return dlq_checkpoint_with_strings (r, strings, lens, block_out);
}

void
dlq_checkpoint_clear (dlq_checkpoint_t *c)
{
    for (size_t i = 0; i < sizeof c->owned / sizeof c->owned [0]; i++)
        free (c->owned [i]);
    memset (c, 0, sizeof *c);
    c->record = dlq_checkpoint_empty (NULL);
}

static bool
named (const dlq_json_value_t *m, const char *name)
{
    return m->key_len == strlen (name) && memcmp (m->key, name, m->key_len) == 0;
}

static dlq_code_t
read_stream (const dlq_json_value_t *v, dlq_error_t *err)
{
    if (!v || v->type != DLQ_JSON_STRING || v->len == 0 || v->len > DLQ_CKPT_STREAM_MAX
    ||  memchr (v->str, '\0', v->len))
        return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, "streamName",
                              "streamName must be a string of 1 to %d bytes", DLQ_CKPT_STREAM_MAX);
    return DLQ_OK;
}

/* What a BSON document cannot hold, anywhere in v: a key with a NUL byte,
 * a number no double can hold (1e99999). DLQ_OK or INVALID_REQUEST naming
 * the place. */
static dlq_code_t
check_bson_values (const dlq_json_value_t *v, const char *path, dlq_error_t *err)
{
    if (v->type == DLQ_JSON_NUMBER) {
        char *text = dlq_strndup (v->str, v->len);      /* any length: 300 digits are a double too */
        double d = strtod (text, NULL);
        free (text);
        if (isinf (d))
            return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, path,
                                  "%s: a number past a double's range, which BSON cannot hold", path);
        return DLQ_OK;
    }
    for (const dlq_json_value_t *c = v->child; c; c = c->next) {
        char sub [128];
        if (c->key && memchr (c->key, '\0', c->key_len))
            return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, path, "%s: a key with a NUL character", path);
        if (c->key)
            snprintf (sub, sizeof sub, "%s.%.*s", path, (int) c->key_len, c->key);
        else
            snprintf (sub, sizeof sub, "%s", path);
        dlq_code_t code = check_bson_values (c, sub, err);
        if (code != DLQ_OK)
            return code;
    }
    return DLQ_OK;
}

/* A JSON object member (a token or metadata) as compact text into *out. */
static dlq_code_t
read_object (const dlq_json_value_t *v, const char *name, size_t max, bool bson, char **out, dlq_error_t *err)
{
    if (v->type != DLQ_JSON_OBJECT)
        return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, name, "%s must be a JSON object", name);
    dlq_buf_t text = DLQ_BUF_INIT;
    dlq_json_write (&text, v);          /* the size first: what is checked next is then small */
    dlq_code_t code = text.len > max
                    ? dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, name, "%s is larger than %zu bytes", name, max)
                    : DLQ_OK;
    dlq_error_t why;
    if (code == DLQ_OK && bson && dlq_extjson_check (v, name, &why) != DLQ_OK)
        code = dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, why.field, "%s", why.message);
    if (code == DLQ_OK && bson)
        code = check_bson_values (v, name, err);
    if (code != DLQ_OK) {
        dlq_buf_free (&text);
        return code;
    }
    dlq_buf_putc (&text, '\0');
    *out = dlq_buf_steal (&text, NULL);
    return DLQ_OK;
}

static dlq_code_t
read_time (const dlq_json_value_t *v, const char *name, int64_t *out, dlq_error_t *err)
{
    if (v->type != DLQ_JSON_STRING || !dlq_time_parse_iso (v->str, v->len, out))
        return dlq_error_set (err, DLQ_ERR_INVALID_TIMESTAMP, name,
                              "%s must be an ISO-8601 instant, e.g. 2026-06-09T14:32:13.500Z", name);
    return DLQ_OK;
}

static dlq_code_t
read_instance (const dlq_json_value_t *v, char **out, dlq_error_t *err)
{
    if (v->type != DLQ_JSON_STRING || v->len > DLQ_CKPT_INSTANCE_MAX || memchr (v->str, '\0', v->len))
        return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, "instanceId",
                              "instanceId must be a string of at most %d bytes", DLQ_CKPT_INSTANCE_MAX);
    *out = dlq_strndup (v->str, v->len);
    return DLQ_OK;
}

/* INVALID_REQUEST naming the member m. */
static dlq_code_t
unknown_parameter (const dlq_json_value_t *m, dlq_error_t *err)
{
    char name [101];
    dlq_json_name_text (m->key, m->key_len, name, sizeof name);
    return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, name, "unknown parameter \"%s\"", name);
}

/* A body is an object whose names are unique, in every object it holds. */
static dlq_code_t
check_object (const dlq_json_value_t *root, dlq_error_t *err)
{
    char path [128];
    if (!root || root->type != DLQ_JSON_OBJECT)
        return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, NULL, "the body must be a JSON object");
    if (dlq_json_find_duplicate (root, path, sizeof path))
        return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, path, "parameter \"%s\" appears twice", path);
    return DLQ_OK;
}

/* One member of a CKPT.SAVE body. */
static dlq_code_t
save_member (const dlq_json_value_t *m, dlq_checkpoint_t *c, dlq_error_t *err)
{
    dlq_sink_checkpoint_t *r = &c->record;
    if (named (m, "streamName"))
        return DLQ_OK;
    if (m->type == DLQ_JSON_NULL && (named (m, "instanceId") || named (m, "lastSeenToken")
        || named (m, "lastSeenTimestamp") || named (m, "lastProcessedToken")
        || named (m, "lastProcessedTimestamp") || named (m, "metadata")))
        return DLQ_OK;
    if (named (m, "instanceId"))
        return read_instance (m, &c->owned [OWN_INSTANCE], err);
    if (named (m, "lastSeenToken"))
        return read_object (m, "lastSeenToken", DLQ_CKPT_TOKEN_MAX, true, &c->owned [OWN_SEEN], err);
    if (named (m, "lastProcessedToken"))
        return read_object (m, "lastProcessedToken", DLQ_CKPT_TOKEN_MAX, true, &c->owned [OWN_PROCESSED], err);
    if (named (m, "metadata"))
        return read_object (m, "metadata", DLQ_CKPT_METADATA_MAX, false, &c->owned [OWN_METADATA], err);
    if (named (m, "lastSeenTimestamp"))
        return read_time (m, "lastSeenTimestamp", &r->last_seen_at, err);
    if (named (m, "lastProcessedTimestamp"))
        return read_time (m, "lastProcessedTimestamp", &r->last_processed_at, err);
    return unknown_parameter (m, err);
}

/* The members of a CKPT.SEEN / CKPT.PROCESSED body. */
static dlq_code_t
token_members (const dlq_json_value_t *root, dlq_checkpoint_t *c, dlq_error_t *err)
{
    bool seen = c->kind == DLQ_SINK_CKPT_SEEN;
    for (const dlq_json_value_t *m = root->child; m; m = m->next)
        if (!named (m, "streamName") && !named (m, "token") && !named (m, "timestamp"))
            return unknown_parameter (m, err);
    const dlq_json_value_t *token = dlq_json_get (root, "token"), *at = dlq_json_get (root, "timestamp");
    if (!token)
        return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, "token", "token (a JSON object) is required");
    if (!at)
        return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, "timestamp", "timestamp is required");
    dlq_code_t code = read_object (token, "token", DLQ_CKPT_TOKEN_MAX, true,
                                   &c->owned [seen ? OWN_SEEN : OWN_PROCESSED], err);
    if (code == DLQ_OK)
        code = read_time (at, "timestamp", seen ? &c->record.last_seen_at : &c->record.last_processed_at, err);
    return code;
}

dlq_code_t
dlq_checkpoint_parse (dlq_sink_ckpt_write_t kind, const dlq_json_value_t *root, dlq_checkpoint_t *c,
                      dlq_error_t *err)
{
    memset (c, 0, sizeof *c);
    c->kind = kind;
    c->record = dlq_checkpoint_empty (NULL);
    dlq_code_t code = check_object (root, err);
    if (code != DLQ_OK)
        return code;
    const dlq_json_value_t *stream = dlq_json_get (root, "streamName");
    code = read_stream (stream, err);
    if (code == DLQ_OK && kind == DLQ_SINK_CKPT_SAVE)
        for (const dlq_json_value_t *m = root->child; m && code == DLQ_OK; m = m->next)
            code = save_member (m, c, err);
    else
    if (code == DLQ_OK)
        code = token_members (root, c, err);
    if (code != DLQ_OK) {
        dlq_checkpoint_clear (c);
        return code;
    }
    c->owned [OWN_STREAM] = dlq_strndup (stream->str, stream->len);
    c->record.stream_name = c->owned [OWN_STREAM];
    c->record.instance_id = c->owned [OWN_INSTANCE];
    c->record.last_seen_token = c->owned [OWN_SEEN];
    c->record.last_processed_token = c->owned [OWN_PROCESSED];
    c->record.metadata = c->owned [OWN_METADATA];
    return DLQ_OK;
}

void
dlq_checkpoint_for_stream (dlq_checkpoint_t *c, const char *stream, size_t len)
{
    dlq_checkpoint_clear (c);
    c->owned [OWN_STREAM] = dlq_strndup (stream, len);
    c->record.stream_name = c->owned [OWN_STREAM];
}

dlq_code_t
dlq_checkpoint_parse_stream (const dlq_json_value_t *root, const char **stream, size_t *len, dlq_error_t *err)
{
    dlq_code_t checked = check_object (root, err);
    if (checked != DLQ_OK)
        return checked;
    for (const dlq_json_value_t *m = root->child; m; m = m->next)
        if (!named (m, "streamName"))
            return unknown_parameter (m, err);
    const dlq_json_value_t *v = dlq_json_get (root, "streamName");
    dlq_code_t code = read_stream (v, err);
    if (code == DLQ_OK) {
        *stream = v->str;
        *len = v->len;
    }
    return code;
}

static void
put_text (dlq_buf_t *out, const char *name, const char *value)
{
    if (!value)
        return;
    dlq_buf_printf (out, ",\"%s\":", name);
    dlq_json_write_string (out, value, strlen (value));
}

static void
put_object (dlq_buf_t *out, const char *name, const char *json)
{
    if (json)
        dlq_buf_printf (out, ",\"%s\":%s", name, json);
}

static void
put_time (dlq_buf_t *out, const char *name, int64_t ms)
{
    char iso [DLQ_TIME_ISO_LEN + 1];
    if (ms != DLQ_SINK_TIME_NONE && dlq_time_format_iso (ms, iso))
        dlq_buf_printf (out, ",\"%s\":\"%s\"", name, iso);
}

void
dlq_checkpoint_format (const dlq_sink_checkpoint_t *r, dlq_buf_t *out)
{
    dlq_buf_puts (out, "{\"streamName\":");
    dlq_json_write_string (out, r->stream_name, strlen (r->stream_name));
    put_text (out, "instanceId", r->instance_id);
    put_object (out, "lastSeenToken", r->last_seen_token);
    put_time (out, "lastSeenTimestamp", r->last_seen_at);
    put_object (out, "lastProcessedToken", r->last_processed_token);
    put_time (out, "lastProcessedTimestamp", r->last_processed_at);
    put_object (out, "metadata", r->metadata);
    put_time (out, "updatedAt", r->updated_at);
    dlq_buf_putc (out, '}');
}
