/*  pg_format — the parameters of a dlq_events row, timestamps, chunks and
 *  the LIST cursor (see pg_format.h). Pure: no libpq, no I/O.
 */
#include "pg_format.h"

#include "dlq_json.h"
#include "dlq_time.h"
#include "fingerprint.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where each value of a row sits in row->text while the row is built:
 * offsets, since the buffer may move as it grows. */
typedef struct {
    dlq_pg_row_t *row;
    size_t        offset [DLQ_PG_PARAM_COUNT];
    bool          set [DLQ_PG_PARAM_COUNT];
    char         *err;
    size_t        err_len;
} builder_t;

/* ---- rows ----------------------------------------------------------------- */

/* Start value p at the end of the row's text. */
static void
begin_value (builder_t *b, dlq_pg_param_t p)
{
    b->offset [p] = b->row->text.len;
    b->set [p] = true;
}

/* End value p (the text appended since begin_value) with a NUL. */
static void
end_value (builder_t *b, dlq_pg_param_t p)
{
    b->row->length [p] = (int) (b->row->text.len - b->offset [p]);
    dlq_buf_putc (&b->row->text, '\0');
}

/* Value p is len bytes of s. */
static void
put_text (builder_t *b, dlq_pg_param_t p, const char *s, size_t len)
{
    begin_value (b, p);
    dlq_buf_append (&b->row->text, s, len);
    end_value (b, p);
}

/* Make each \u0000 escape of the len bytes of JSON text at json a
 * \ufffd (the same length), escapes such as \\u0000 left alone; true when
 * there was one. jsonb cannot hold the NUL character. */
static bool
replace_nul_escapes (char *json, size_t len)
{
    bool replaced = false;
    for (size_t i = 0; i + 1 < len; i++) {
        if (json [i] != '\\')
            continue;
        if (json [i + 1] == 'u' && i + 5 < len && memcmp (json + i + 2, "0000", 4) == 0) {
            memcpy (json + i + 2, "fffd", 4);
            replaced = true;
        }
        i++;                        /* the escaped character is not an escape */
    }
    return replaced;
}

/* Value p is v as compact JSON, for a jsonb column; nothing (NULL) when v
 * is absent or null. */
static void
put_json (builder_t *b, dlq_pg_param_t p, const dlq_json_value_t *v)
{
    if (!v || v->type == DLQ_JSON_NULL)
        return;
    begin_value (b, p);
    dlq_json_write (&b->row->text, v);
    replace_nul_escapes (b->row->text.data + b->offset [p], b->row->text.len - b->offset [p]);
    end_value (b, p);
}

/* The payload's jsonb copy, only when the body has a \u0000 escape. */
static void
put_payload_jsonb (builder_t *b, const dlq_sink_event_t *event)
{
    if (!memmem (event->json, event->json_len, "\\u0000", 6))
        return;
    put_text (b, DLQ_PG_PARAM_PAYLOAD_JSONB, event->json, event->json_len);
    size_t at = b->offset [DLQ_PG_PARAM_PAYLOAD_JSONB];
    if (!replace_nul_escapes (b->row->text.data + at, event->json_len)) {
        b->set [DLQ_PG_PARAM_PAYLOAD_JSONB] = false;        /* only \\u0000: the body itself will do */
        b->row->length [DLQ_PG_PARAM_PAYLOAD_JSONB] = 0;
    }
}

/* Value p is the timestamp ms; nothing (NULL) when it is DLQ_SINK_TIME_NONE. */
static void
put_time (builder_t *b, dlq_pg_param_t p, int64_t ms)
{
    if (ms == DLQ_SINK_TIME_NONE)
        return;
    char text [DLQ_PG_TIME_LEN];
    dlq_pg_format_time (ms, text);
    put_text (b, p, text, strlen (text));
}

/* Record why the body cannot be stored; returns INVALID. */
static dlq_pg_format_result_t
invalid (builder_t *b, const char *why, const char *field)
{
    snprintf (b->err, b->err_len, "%s%s", why, field);
    return DLQ_PG_FORMAT_INVALID;
}

/* Value p is the string member name of obj; absent or null is NULL,
 * another type is INVALID. */
static dlq_pg_format_result_t
put_string_member (builder_t *b, dlq_pg_param_t p, const dlq_json_value_t *obj, const char *name,
                   const char *field)
{
    const dlq_json_value_t *v = dlq_json_get (obj, name);
    if (!v || v->type == DLQ_JSON_NULL)
        return DLQ_PG_FORMAT_OK;
    if (v->type != DLQ_JSON_STRING)
        return invalid (b, "not a string: ", field);
    put_text (b, p, v->str, v->len);
    return DLQ_PG_FORMAT_OK;
}

/* Value p is the timestamp member name of obj, rewritten in UTC. */
static dlq_pg_format_result_t
put_time_member (builder_t *b, dlq_pg_param_t p, const dlq_json_value_t *obj, const char *name)
{
    const dlq_json_value_t *v = dlq_json_get (obj, name);
    if (!v || v->type == DLQ_JSON_NULL)
        return DLQ_PG_FORMAT_OK;
    int64_t ms;
    if (v->type != DLQ_JSON_STRING || !dlq_time_parse_iso (v->str, v->len, &ms))
        return invalid (b, "not a timestamp: ", name);
    put_time (b, p, ms);
    return DLQ_PG_FORMAT_OK;
}

/* The text of string member name of obj, or NULL (length 0). */
static const char *
string_of (const dlq_json_value_t *obj, const char *name, size_t *len)
{
    const dlq_json_value_t *v = dlq_json_get (obj, name);
    bool text = v && v->type == DLQ_JSON_STRING;
    *len = text ? v->len : 0;
    return text ? v->str : NULL;
}

/* The fingerprint of the error member (type a string, as checked). */
static void
put_fingerprint (builder_t *b, const dlq_json_value_t *error, const dlq_json_value_t *type)
{
    size_t message_len, stack_len;
    const char *message = string_of (error, "message", &message_len);
    const char *stack = string_of (error, "stackTrace", &stack_len);
    dlq_fingerprint_t fp;
    dlq_fingerprint_of (type->str, message, message_len, stack, stack_len, &fp);    /* str ends with a NUL */
    put_text (b, DLQ_PG_PARAM_FINGERPRINT, fp.hex, DLQ_FINGERPRINT_HEX_LEN);
}

/* The error member: type (required), message, stackTrace, and its fingerprint. */
static dlq_pg_format_result_t
put_error (builder_t *b, const dlq_json_value_t *root)
{
    const dlq_json_value_t *error = dlq_json_get (root, "error");
    const dlq_json_value_t *type = dlq_json_get (error, "type");
    if (!type || type->type != DLQ_JSON_STRING)
        return invalid (b, "no string ", "error.type");
    put_text (b, DLQ_PG_PARAM_ERROR_TYPE, type->str, type->len);
    if (put_string_member (b, DLQ_PG_PARAM_ERROR_MESSAGE, error, "message", "error.message") != DLQ_PG_FORMAT_OK
        || put_string_member (b, DLQ_PG_PARAM_ERROR_STACKTRACE, error, "stackTrace", "error.stackTrace")
           != DLQ_PG_FORMAT_OK)
        return DLQ_PG_FORMAT_INVALID;
    put_fingerprint (b, error, type);
    return DLQ_PG_FORMAT_OK;
}

/* The values taken from the event's own fields. */
static void
put_event_fields (builder_t *b, const dlq_sink_event_t *event)
{
    put_text (b, DLQ_PG_PARAM_ID, event->id, strlen (event->id));
    put_text (b, DLQ_PG_PARAM_STREAM_NAME, event->stream_name, strlen (event->stream_name));
    if (event->operation_type)
        put_text (b, DLQ_PG_PARAM_OPERATION_TYPE, event->operation_type, strlen (event->operation_type));
    char attempts [16];
    int n = snprintf (attempts, sizeof attempts, "%" PRId32, event->attempts);
    put_text (b, DLQ_PG_PARAM_ATTEMPTS, attempts, (size_t) n);
    const char *status = event->status ? event->status : "PENDING";
    put_text (b, DLQ_PG_PARAM_STATUS, status, strlen (status));
    put_time (b, DLQ_PG_PARAM_FIRST_ATTEMPT_AT, event->first_attempt_at);
    put_time (b, DLQ_PG_PARAM_CREATED_AT, event->created_at);
    put_time (b, DLQ_PG_PARAM_EXPIRES_AT, event->expires_at);
}

/* True when the body's id (if it has one) is the event's. */
static bool
same_id (const dlq_json_value_t *root, const char *id)
{
    const dlq_json_value_t *v = dlq_json_get (root, "id");
    return !v || (v->type == DLQ_JSON_STRING && v->len == strlen (id) && memcmp (v->str, id, v->len) == 0);
}

/* The values taken from the parsed body. */
static dlq_pg_format_result_t
put_body_fields (builder_t *b, const dlq_json_value_t *root, const char *id)
{
    if (root->type != DLQ_JSON_OBJECT)
        return invalid (b, "the body is not a JSON object", "");
    if (!same_id (root, id))
        return invalid (b, "the body's id is not the event's id ", id);
    put_json (b, DLQ_PG_PARAM_DOCUMENT_KEY, dlq_json_get (root, "documentKey"));
    put_json (b, DLQ_PG_PARAM_FULL_DOCUMENT, dlq_json_get (root, "fullDocument"));
    put_json (b, DLQ_PG_PARAM_RESUME_TOKEN, dlq_json_get (root, "resumeToken"));
    put_json (b, DLQ_PG_PARAM_METADATA, dlq_json_get (root, "metadata"));
    if (put_error (b, root) != DLQ_PG_FORMAT_OK)
        return DLQ_PG_FORMAT_INVALID;
    return put_time_member (b, DLQ_PG_PARAM_LAST_ATTEMPT_AT, root, "lastAttemptAt");
}

/* Point the row's values at their text, now that it no longer moves. */
static void
settle_values (builder_t *b)
{
    for (int p = 0; p < DLQ_PG_PARAM_COUNT; p++)
        if (b->set [p])
            b->row->value [p] = b->row->text.data + b->offset [p];
}

/* Parse the body; INVALID with the parser's message when it is not JSON. */
static dlq_pg_format_result_t
parse_body (builder_t *b, const dlq_sink_event_t *event, dlq_json_doc_t **doc)
{
    if (event->json_len > INT_MAX)
        return invalid (b, "the body is too large", "");
    dlq_json_error_t error = { 0 };
    if (dlq_json_parse (event->json, event->json_len, doc, &error) == DLQ_JSON_OK)
        return DLQ_PG_FORMAT_OK;
    snprintf (b->err, b->err_len, "the body is not JSON: %s at byte %zu", error.message, error.offset);
    return DLQ_PG_FORMAT_INVALID;
}

dlq_pg_format_result_t
dlq_pg_format_row (const dlq_sink_event_t *event, dlq_pg_row_t *row, char *err, size_t err_len)
{
    dlq_pg_row_free (row);
    builder_t b = { .row = row, .err = err, .err_len = err_len };
    dlq_json_doc_t *doc = NULL;
    dlq_pg_format_result_t result = parse_body (&b, event, &doc);
    if (result == DLQ_PG_FORMAT_OK) {
        put_event_fields (&b, event);
        result = put_body_fields (&b, dlq_json_root (doc), event->id);
        put_payload_jsonb (&b, event);
    }
    dlq_json_doc_destroy (&doc);
    if (result != DLQ_PG_FORMAT_OK) {
        dlq_pg_row_free (row);
        return result;
    }
    settle_values (&b);
    row->value [DLQ_PG_PARAM_PAYLOAD] = event->json;
    row->length [DLQ_PG_PARAM_PAYLOAD] = (int) event->json_len;
    return DLQ_PG_FORMAT_OK;
}

void
dlq_pg_row_free (dlq_pg_row_t *row)
{
    dlq_buf_free (&row->text);
    memset (row->value, 0, sizeof row->value);
    memset (row->length, 0, sizeof row->length);
}

size_t
dlq_pg_row_bytes (const dlq_pg_row_t *row)
{
    size_t bytes = 0;
    for (int p = 0; p < DLQ_PG_PARAM_COUNT; p++)
        bytes += row->value [p] ? (size_t) row->length [p] : 0;
    return bytes;
}

size_t
dlq_pg_chunk_rows (const dlq_pg_row_t *rows, size_t count, size_t max_bytes)
{
    size_t n = 1, bytes = dlq_pg_row_bytes (&rows [0]);
    while (n < count && n < DLQ_PG_ROWS_PER_INSERT_MAX) {
        size_t more = dlq_pg_row_bytes (&rows [n]);
        if (bytes + more > max_bytes)
            break;
        bytes += more;
        n++;
    }
    return n;
}

/* ---- timestamps ------------------------------------------------------------ */

void
dlq_pg_format_time (int64_t ms, char *out)
{
    if (dlq_time_format_iso (ms, out) == 0)
        snprintf (out, DLQ_PG_TIME_LEN, "%s", ms > 0 ? "infinity" : "-infinity");
}

bool
dlq_pg_format_time_us (int64_t us, char *out)
{
    int64_t ms = us / 1000, rest = us % 1000;
    if (rest < 0) {
        ms -= 1;
        rest += 1000;
    }
    if (dlq_time_format_iso (ms, out) == 0)
        return false;
    /* "YYYY-MM-DDTHH:MM:SS.mmm" then the microseconds, then 'Z'. */
    snprintf (out + DLQ_TIME_ISO_LEN - 1, DLQ_PG_TIME_LEN - (DLQ_TIME_ISO_LEN - 1), "%03dZ", (int) rest);
    return true;
}

/* ---- ids and cursors ---------------------------------------------------------- */

bool
dlq_pg_uuid_valid (const char *s, bool lowercase_only)
{
    for (size_t i = 0; i < DLQ_PG_UUID_LEN - 1; i++) {
        char c = s [i];
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')
                || (!lowercase_only && c >= 'A' && c <= 'F');
        if (dash ? c != '-' : !hex)
            return false;
    }
    return s [DLQ_PG_UUID_LEN - 1] == '\0';
}

void
dlq_pg_cursor_format (int64_t created_us, const char *id, char *out)
{
    snprintf (out, DLQ_PG_CURSOR_LEN, "%" PRId64 ".%s", created_us, id);
}

/* Parse the integer of a cursor, len bytes at s, in its shortest form. */
static bool
parse_us (const char *s, size_t len, int64_t *us)
{
    size_t sign = len > 0 && s [0] == '-';
    size_t digits = len - sign;
    if (digits == 0 || digits > 19 || (s [sign] == '0' && (digits > 1 || sign)))
        return false;
    char text [24];
    for (size_t i = 0; i < len; i++) {
        if (i >= sign && (s [i] < '0' || s [i] > '9'))
            return false;
        text [i] = s [i];
    }
    text [len] = '\0';
    errno = 0;
    *us = strtoll (text, NULL, 10);
    return errno == 0;
}

bool
dlq_pg_cursor_parse (const char *cursor, int64_t *created_us, char *id_out)
{
    const char *dot = strchr (cursor, '.');
    if (!dot || !parse_us (cursor, (size_t) (dot - cursor), created_us))
        return false;
    char time [DLQ_PG_TIME_LEN];
    if (!dlq_pg_format_time_us (*created_us, time) || !dlq_pg_uuid_valid (dot + 1, true))
        return false;
    memcpy (id_out, dot + 1, DLQ_PG_UUID_LEN);
    return true;
}
