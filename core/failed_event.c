/*  failed_event — decode, validate and canonically encode a FailedEvent.
 *
 *  Decoding is one pass over the members of the top-level object: each known
 *  field has a handler that checks its type and range and stores it in the
 *  internal form; an unknown or repeated field is an error. Defaults (id,
 *  createdAt, status) are filled in at the end. Encoding writes the fields in
 *  the order of the flowwarden-amqp wire format's JSON body, compact,
 *  omitting absent ones.
 */
#include "failed_event.h"

#include "fingerprint.h"

#include "dlq_alloc.h"
#include "dlq_arena.h"
#include "dlq_buf.h"
#include "dlq_json.h"
#include "dlq_uuid.h"
#include "extended_json.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DLQ_OPERATION_TYPE_MAX 64     /* characters */
#define DLQ_STATUS_MAX 32             /* characters */

typedef dlq_code_t (*field_fn) (dlq_event_t *event, const dlq_json_value_t *v, dlq_error_t *err);

typedef struct {
    const char *name;
    size_t      len;            /* of name: FIELD below */
    field_fn    decode;
} field_t;

#define FIELD(name, fn) { name, sizeof name - 1, fn }

/* Number of UTF-8 characters in len bytes of valid UTF-8. */
static size_t
utf8_chars (const char *s, size_t len)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        if (((unsigned char) s [i] & 0xC0) != 0x80)
            n++;
    return n;
}

/* True when valid UTF-8 s holds no C0 or C1 control character and no DEL. */
static bool
utf8_printable (const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char) s [i];
        if (c < 0x20 || c == 0x7F)
            return false;
        if (c == 0xC2 && i + 1 < len && (unsigned char) s [i + 1] < 0xA0)
            return false;               /* U+0080..U+009F */
    }
    return true;
}

static const char *
type_name (const dlq_json_value_t *v)
{
    switch (v->type) {
        case DLQ_JSON_NULL:   return "null";
        case DLQ_JSON_FALSE:
        case DLQ_JSON_TRUE:   return "a boolean";
        case DLQ_JSON_NUMBER: return "a number";
        case DLQ_JSON_STRING: return "a string";
        case DLQ_JSON_ARRAY:  return "an array";
        default:              return "an object";
    }
}

/* A copy of len bytes at s, in the event's arena when it has one. */
static char *
copy_text (dlq_event_t *e, const char *s, size_t len)
{
    return e->arena ? dlq_arena_strndup (e->arena, s, len) : dlq_strndup (s, len);
}

/* A buffer to write a value's text into before keeping it (keep_written). */
static dlq_buf_t *
begin_written (dlq_event_t *e, dlq_buf_t *own)
{
    *own = (dlq_buf_t) DLQ_BUF_INIT;
    return e->arena ? dlq_arena_scratch (e->arena) : own;
}

static char *
keep_written (dlq_event_t *e, dlq_buf_t *buf, size_t *len_out)
{
    if (!e->arena)
        return dlq_buf_steal (buf, len_out);
    if (len_out)
        *len_out = buf->len;
    return dlq_arena_strndup (e->arena, buf->data ? buf->data : "", buf->len);
}

/* A string field of 1..max_chars characters, no control characters. */
static dlq_code_t
take_string (dlq_event_t *e, const dlq_json_value_t *v, const char *field, size_t max_chars,
             char **out, dlq_error_t *err)
{
    if (v->type != DLQ_JSON_STRING)
        return dlq_error_set (err, DLQ_ERR_INVALID_EVENT, field,
                              "%s must be a string, got %s", field, type_name (v));
    if (v->len == 0)
        return dlq_error_set (err, DLQ_ERR_INVALID_EVENT, field, "%s must not be empty", field);
    if (max_chars && utf8_chars (v->str, v->len) > max_chars)
        return dlq_error_set (err, DLQ_ERR_INVALID_EVENT, field,
                              "%s is longer than %zu characters", field, max_chars);
    if (max_chars && !utf8_printable (v->str, v->len))
        return dlq_error_set (err, DLQ_ERR_INVALID_EVENT, field,
                              "%s must not contain control characters", field);
    *out = copy_text (e, v->str, v->len);
    return DLQ_OK;
}

/* A free-text string (messages, stack traces): any length, any content. */
static dlq_code_t
take_text (dlq_event_t *e, const dlq_json_value_t *v, const char *field, char **out, dlq_error_t *err)
{
    if (v->type != DLQ_JSON_STRING)
        return dlq_error_set (err, DLQ_ERR_INVALID_EVENT, field,
                              "%s must be a string, got %s", field, type_name (v));
    if (memchr (v->str, '\0', v->len))
        return dlq_error_set (err, DLQ_ERR_INVALID_EVENT, field,
                              "%s must not contain NUL characters (\\u0000)", field);
    *out = copy_text (e, v->str, v->len);
    return DLQ_OK;
}

/* A BSON-valued field: kept as compact extended JSON after its $-forms check. */
static dlq_code_t
take_bson (dlq_event_t *e, const dlq_json_value_t *v, const char *field, bool must_be_object,
           char **out, dlq_error_t *err)
{
    if (must_be_object && v->type != DLQ_JSON_OBJECT)
        return dlq_error_set (err, DLQ_ERR_INVALID_EVENT, field,
                              "%s must be an object, got %s", field, type_name (v));
    dlq_code_t code = dlq_extjson_check (v, field, err);
    if (code != DLQ_OK)
        return code;
    dlq_buf_t own, *buf = begin_written (e, &own);
    dlq_json_write (buf, v);
    *out = keep_written (e, buf, NULL);
    return DLQ_OK;
}

static dlq_code_t
take_timestamp (const dlq_json_value_t *v, const char *field, int64_t *out, dlq_error_t *err)
{
    if (v->type != DLQ_JSON_STRING)
        return dlq_error_set (err, DLQ_ERR_INVALID_TIMESTAMP, field,
                              "%s must be an ISO-8601 string such as "
                              "\"2026-06-09T14:32:11.123Z\", got %s", field, type_name (v));
    if (!dlq_time_parse_iso (v->str, v->len, out))
        return dlq_error_set (err, DLQ_ERR_INVALID_TIMESTAMP, field,
                              "%s is not an ISO-8601 UTC timestamp such as "
                              "\"2026-06-09T14:32:11.123Z\"", field);
    return DLQ_OK;
}

static dlq_code_t
f_id (dlq_event_t *e, const dlq_json_value_t *v, dlq_error_t *err)
{
    char id [DLQ_UUID_LEN + 1];
    if (v->type != DLQ_JSON_STRING || !dlq_uuid_parse (v->str, v->len, id))
        return dlq_error_set (err, DLQ_ERR_INVALID_EVENT, "id",
                              "id must be a UUID string such as "
                              "\"c2e8a5b6-0f1e-4c3a-9b7d-2a1f0e9d8c7b\"");
    e->id = copy_text (e, id, strlen (id));
    return DLQ_OK;
}

static dlq_code_t
f_stream_name (dlq_event_t *e, const dlq_json_value_t *v, dlq_error_t *err)
{
    return take_string (e, v, "streamName", DLQ_STREAM_NAME_MAX, &e->stream_name, err);
}

static dlq_code_t
f_operation_type (dlq_event_t *e, const dlq_json_value_t *v, dlq_error_t *err)
{
    return take_string (e, v, "operationType", DLQ_OPERATION_TYPE_MAX, &e->operation_type, err);
}

static dlq_code_t
f_document_key (dlq_event_t *e, const dlq_json_value_t *v, dlq_error_t *err)
{
    return take_bson (e, v, "documentKey", false, &e->document_key, err);
}

static dlq_code_t
f_full_document (dlq_event_t *e, const dlq_json_value_t *v, dlq_error_t *err)
{
    return take_bson (e, v, "fullDocument", true, &e->full_document, err);
}

static dlq_code_t
f_resume_token (dlq_event_t *e, const dlq_json_value_t *v, dlq_error_t *err)
{
    return take_bson (e, v, "resumeToken", true, &e->resume_token, err);
}

static bool
named (const dlq_json_value_t *m, const char *name)
{
    return m->key_len == strlen (name) && memcmp (m->key, name, m->key_len) == 0;
}

/* error {type, message, stackTrace}: names compared byte for byte, so a
 * name with a NUL in it ("type\u0000x") is unknown, as is any other one,
 * null or not. (Repeated members were refused with the whole body.) */
static dlq_code_t
f_error (dlq_event_t *e, const dlq_json_value_t *v, dlq_error_t *err)
{
    if (v->type != DLQ_JSON_OBJECT)
        return dlq_error_set (err, DLQ_ERR_INVALID_EVENT, "error",
                              "error must be an object {type, message, stackTrace}, got %s",
                              type_name (v));
    for (const dlq_json_value_t *m = v->child; m; m = m->next) {
        dlq_code_t code = DLQ_OK;
        if (named (m, "type"))
            code = take_string (e, m, "error.type", 1024, &e->error_type, err);
        else
        if (!named (m, "message") && !named (m, "stackTrace")) {
            char field [128], name [101];
            snprintf (field, sizeof field, "error.%s", dlq_json_name_text (m->key, m->key_len, name, sizeof name));
            return dlq_error_set (err, DLQ_ERR_INVALID_EVENT, field,
                                  "unknown field %s (error has type, message, stackTrace)", field);
        }
        else
        if (m->type == DLQ_JSON_NULL)
            continue;                   /* a null message or stackTrace is absent */
        else
            code = named (m, "message") ? take_text (e, m, "error.message", &e->error_message, err)
                                        : take_text (e, m, "error.stackTrace", &e->error_stack_trace, err);
        if (code != DLQ_OK)
            return code;
    }
    if (!e->error_type)
        return dlq_error_set (err, DLQ_ERR_INVALID_EVENT, "error.type",
                              "error.type is required (the exception class name)");
    return DLQ_OK;
}

static dlq_code_t
f_attempts (dlq_event_t *e, const dlq_json_value_t *v, dlq_error_t *err)
{
    int64_t n;
    if (!dlq_json_as_int64 (v, &n) || n < 0 || n > INT32_MAX)
        return dlq_error_set (err, DLQ_ERR_INVALID_EVENT, "attempts",
                              "attempts must be an integer from 0 to 2147483647");
    e->attempts = (int32_t) n;
    return DLQ_OK;
}

static dlq_code_t
f_status (dlq_event_t *e, const dlq_json_value_t *v, dlq_error_t *err)
{
    bool ok = v->type == DLQ_JSON_STRING && v->len >= 1 && v->len <= DLQ_STATUS_MAX
           && v->str [0] >= 'A' && v->str [0] <= 'Z';
    for (size_t i = 1; ok && i < v->len; i++) {
        char c = v->str [i];
        ok = (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
    }
    if (!ok)
        return dlq_error_set (err, DLQ_ERR_INVALID_EVENT, "status",
                              "status must be an upper-case word of at most %d characters "
                              "such as \"PENDING\"", DLQ_STATUS_MAX);
    e->status = copy_text (e, v->str, v->len);
    return DLQ_OK;
}

static dlq_code_t
f_first_attempt_at (dlq_event_t *e, const dlq_json_value_t *v, dlq_error_t *err)
{
    return take_timestamp (v, "firstAttemptAt", &e->first_attempt_at, err);
}

static dlq_code_t
f_last_attempt_at (dlq_event_t *e, const dlq_json_value_t *v, dlq_error_t *err)
{
    return take_timestamp (v, "lastAttemptAt", &e->last_attempt_at, err);
}

static dlq_code_t
f_created_at (dlq_event_t *e, const dlq_json_value_t *v, dlq_error_t *err)
{
    return take_timestamp (v, "createdAt", &e->created_at, err);
}

static dlq_code_t
f_expires_at (dlq_event_t *e, const dlq_json_value_t *v, dlq_error_t *err)
{
    return take_timestamp (v, "expiresAt", &e->expires_at, err);
}

static dlq_code_t
f_metadata (dlq_event_t *e, const dlq_json_value_t *v, dlq_error_t *err)
{
    if (v->type != DLQ_JSON_OBJECT)
        return dlq_error_set (err, DLQ_ERR_INVALID_EVENT, "metadata",
                              "metadata must be an object, got %s", type_name (v));
    if (v->count == 0)
        return DLQ_OK;                  /* empty metadata is omitted */
    dlq_buf_t own, *buf = begin_written (e, &own);
    dlq_json_write (buf, v);
    e->metadata = keep_written (e, buf, NULL);
    return DLQ_OK;
}

/* The fields of the flowwarden-amqp wire format's body, in canonical order. */
static const field_t fields [] = {
    FIELD ("id",             f_id),
    FIELD ("streamName",     f_stream_name),
    FIELD ("operationType",  f_operation_type),
    FIELD ("documentKey",    f_document_key),
    FIELD ("fullDocument",   f_full_document),
    FIELD ("resumeToken",    f_resume_token),
    FIELD ("error",          f_error),
    FIELD ("attempts",       f_attempts),
    FIELD ("status",         f_status),
    FIELD ("firstAttemptAt", f_first_attempt_at),
    FIELD ("lastAttemptAt",  f_last_attempt_at),
    FIELD ("createdAt",      f_created_at),
    FIELD ("expiresAt",      f_expires_at),
    FIELD ("metadata",       f_metadata),
};
#define FIELD_COUNT (sizeof fields / sizeof fields [0])

static int
field_index (const dlq_json_value_t *member)
{
    for (size_t i = 0; i < FIELD_COUNT; i++)
        if (fields [i].len == member->key_len
        &&  memcmp (fields [i].name, member->key, member->key_len) == 0)
            return (int) i;
    return -1;
}

static dlq_event_t *
event_new (dlq_arena_t *arena)
{
    dlq_event_t *e = arena ? memset (dlq_arena_alloc (arena, sizeof *e), 0, sizeof *e) : dlq_calloc (1, sizeof *e);
    e->arena = arena;
    e->first_attempt_at = e->last_attempt_at = DLQ_TIME_NONE;
    e->created_at = e->expires_at = DLQ_TIME_NONE;
    return e;
}

static dlq_code_t
parse_error (dlq_json_result_t rc, const dlq_json_error_t *jerr, dlq_error_t *err)
{
    switch (rc) {
        case DLQ_JSON_ERR_EMPTY:
            return dlq_error_set (err, DLQ_ERR_EMPTY_BODY, NULL, "the body is empty");
        case DLQ_JSON_ERR_UTF8:
            return dlq_error_set (err, DLQ_ERR_INVALID_UTF8, NULL,
                                  "invalid UTF-8 at byte %zu", jerr->offset);
        default:
            return dlq_error_set (err, DLQ_ERR_INVALID_JSON, NULL,
                                  "%s at byte %zu", jerr->message, jerr->offset);
    }
}

/* Walk the members of the top-level object through the field table,
 * after refusing a name repeated in any object of the body: stores and
 * sinks would each keep another of the two (jsonb the last, a filter the
 * first), so one event would read differently in each. */
static dlq_code_t
decode_members (dlq_event_t *e, const dlq_json_value_t *root, dlq_error_t *err)
{
    char path [128];
    if (dlq_json_find_duplicate (root, path, sizeof path))
        return dlq_error_set (err, DLQ_ERR_INVALID_EVENT, path, "field \"%s\" appears twice", path);
    for (const dlq_json_value_t *m = root->child; m; m = m->next) {
        int i = field_index (m);
        if (i < 0) {
            char field [101];
            dlq_json_name_text (m->key, m->key_len, field, sizeof field);
            return dlq_error_set (err, DLQ_ERR_INVALID_EVENT, field,
                                  "unknown field \"%s\" (put extra data in metadata)", field);
        }
        if (m->type == DLQ_JSON_NULL)
            continue;                   /* null fields are absent (flowwarden-amqp) */
        dlq_code_t code = fields [i].decode (e, m, err);
        if (code != DLQ_OK)
            return code;
    }
    if (!e->stream_name)
        return dlq_error_set (err, DLQ_ERR_INVALID_EVENT, "streamName", "streamName is required");
    if (!e->error_type)
        return dlq_error_set (err, DLQ_ERR_INVALID_EVENT, "error.type",
                              "error.type is required (the exception class name)");
    return DLQ_OK;
}

dlq_event_t *
dlq_event_decode (const char *body, size_t len, int64_t now_ms, dlq_error_t *err)
{
    return dlq_event_decode_in (body, len, now_ms, NULL, err);
}

dlq_event_t *
dlq_event_decode_in (const char *body, size_t len, int64_t now_ms, dlq_arena_t *arena, dlq_error_t *err)
{
    dlq_json_doc_t *doc = NULL;
    dlq_json_error_t jerr = { 0, "" };
    dlq_json_result_t rc = dlq_json_parse (body, len, &doc, &jerr);
    if (rc != DLQ_JSON_OK) {
        parse_error (rc, &jerr, err);
        return NULL;
    }
    const dlq_json_value_t *root = dlq_json_root (doc);
    dlq_arena_mark_t mark = arena ? dlq_arena_mark (arena) : (dlq_arena_mark_t) { 0 };
    dlq_event_t *e = event_new (arena);
    dlq_code_t code;
    if (root->type != DLQ_JSON_OBJECT)
        code = dlq_error_set (err, DLQ_ERR_INVALID_EVENT, NULL,
                              "a FailedEvent is a JSON object, got %s", type_name (root));
    else
        code = decode_members (e, root, err);
    dlq_json_doc_destroy (&doc);
    if (code != DLQ_OK) {
        dlq_event_destroy (&e);
        if (arena)
            dlq_arena_rollback (arena, mark);  /* what it took, back */
        return NULL;
    }
    if (e->created_at == DLQ_TIME_NONE)
        e->created_at = now_ms;
    if (!e->id) {
        char id [DLQ_UUID_LEN + 1];
        dlq_uuid_v7 (now_ms, id);
        e->id = copy_text (e, id, strlen (id));
    }
    if (!e->status)
        e->status = copy_text (e, DLQ_STATUS_PENDING, strlen (DLQ_STATUS_PENDING));
    return e;
}

static void
put_key (dlq_buf_t *out, const char *key)
{
    dlq_buf_putc (out, ',');
    dlq_buf_putc (out, '"');
    dlq_buf_puts (out, key);
    dlq_buf_putc (out, '"');
    dlq_buf_putc (out, ':');
}

static void
put_string (dlq_buf_t *out, const char *key, const char *value)
{
    if (!value)
        return;
    put_key (out, key);
    dlq_json_write_string (out, value, strlen (value));
}

static void
put_raw (dlq_buf_t *out, const char *key, const char *json)
{
    if (!json)
        return;
    put_key (out, key);
    dlq_buf_puts (out, json);
}

static void
put_time (dlq_buf_t *out, const char *key, int64_t ms)
{
    char iso [DLQ_TIME_ISO_LEN + 1];
    if (ms == DLQ_TIME_NONE || dlq_time_format_iso (ms, iso) == 0)
        return;
    put_key (out, key);
    dlq_buf_putc (out, '"');
    dlq_buf_append (out, iso, DLQ_TIME_ISO_LEN);
    dlq_buf_putc (out, '"');
}

/* The canonical body of e into out. */
static void
put_body (dlq_buf_t *out, const dlq_event_t *e)
{
    dlq_buf_puts (out, "{\"id\":");
    dlq_json_write_string (out, e->id, strlen (e->id));
    put_string (out, "streamName", e->stream_name);
    put_string (out, "operationType", e->operation_type);
    put_raw (out, "documentKey", e->document_key);
    put_raw (out, "fullDocument", e->full_document);
    put_raw (out, "resumeToken", e->resume_token);
    put_key (out, "error");
    dlq_buf_puts (out, "{\"type\":");
    dlq_json_write_string (out, e->error_type, strlen (e->error_type));
    put_string (out, "message", e->error_message);
    put_string (out, "stackTrace", e->error_stack_trace);
    dlq_buf_putc (out, '}');
    put_key (out, "attempts");
    dlq_buf_put_int (out, e->attempts);
    put_string (out, "status", e->status);
    put_time (out, "firstAttemptAt", e->first_attempt_at);
    put_time (out, "lastAttemptAt", e->last_attempt_at);
    put_time (out, "createdAt", e->created_at);
    put_time (out, "expiresAt", e->expires_at);
    put_raw (out, "metadata", e->metadata);
    dlq_buf_putc (out, '}');
}

void
dlq_event_encode (dlq_event_t *e)
{
    dlq_buf_t own, *buf = begin_written (e, &own);
    dlq_buf_reserve (buf, 512);
    put_body (buf, e);
    if (!e->arena)
        free (e->json);
    e->json = keep_written (e, buf, &e->json_len);
}


void
dlq_event_drop (dlq_event_t *e, char **field)
{
    if (!e->arena)
        free (*field);
    *field = NULL;
}

void
dlq_event_destroy (dlq_event_t **event_p)
{
    if (!event_p || !*event_p)
        return;
    dlq_event_t *e = *event_p;
    *event_p = NULL;
    if (e->arena)
        return;                         /* the arena's, freed with it */
    free (e->id);
    free (e->stream_name);
    free (e->operation_type);
    free (e->document_key);
    free (e->full_document);
    free (e->resume_token);
    free (e->error_type);
    free (e->error_message);
    free (e->error_stack_trace);
    free (e->status);
    free (e->metadata);
    free (e->json);
    free (e);
    *event_p = NULL;
}

void
dlq_event_fingerprint_hex (const dlq_event_t *event, char *hex)
{
    dlq_fingerprint_t fp;
    const char *message = event->error_message, *stack = event->error_stack_trace;
    dlq_fingerprint_of (event->error_type, message, message ? strlen (message) : 0,
                        stack, stack ? strlen (stack) : 0, &fp);
    memcpy (hex, fp.hex, sizeof fp.hex);
}

void
dlq_event_fingerprint (dlq_event_t *event)
{
    dlq_event_fingerprint_hex (event, event->fingerprint);
}
