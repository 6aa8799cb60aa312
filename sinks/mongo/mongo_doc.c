/*  mongo_doc — the documents of one event; see mongo_doc.h. */
#include "mongo_doc.h"

#include "dlq_alloc.h"
#include "dlq_buf.h"
#include "dlq_json.h"
#include "dlq_time.h"
#include "dlq_uuid.h"
#include "fingerprint.h"
#include "sink_name.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool
key_is (const dlq_json_value_t *v, const char *key)
{
    return v->key_len == strlen (key) && memcmp (v->key, key, v->key_len) == 0;
}

static bool
is_time_member (const dlq_json_value_t *v)
{
    return key_is (v, "firstAttemptAt") || key_is (v, "lastAttemptAt") || key_is (v, "createdAt")
        || key_is (v, "expiresAt");
}

/* A JSON number as int32, int64 or double (as libbson's JSON reader does). */
static void
append_number (bson_t *doc, const char *key, int key_len, const dlq_json_value_t *v)
{
    int64_t n;
    if (dlq_json_as_int64 (v, &n)) {
        if (n >= INT32_MIN && n <= INT32_MAX)
            bson_append_int32 (doc, key, key_len, (int32_t) n);
        else
            bson_append_int64 (doc, key, key_len, n);
        return;
    }
    char *text = dlq_strndup (v->str, v->len);      /* any length */
    bson_append_double (doc, key, key_len, strtod (text, NULL));
    free (text);
}

/* An object member through libbson's extended JSON reader ($oid,
 * $numberDecimal, $date ... become their BSON types); one libbson cannot
 * read (a key with a NUL, a malformed wrapper such as {"$oid":"zz"}) is
 * kept as its compact JSON text, a string: the event is stored all the
 * same (_fw_body has it as sent). */
static bool
append_object (bson_t *doc, const char *key, int key_len, const dlq_json_value_t *v)
{
    dlq_buf_t text = DLQ_BUF_INIT;
    dlq_json_write (&text, v);
    bson_t sub;
    bson_error_t error;
    bool ok;
    if (bson_init_from_json (&sub, text.data, (ssize_t) text.len, &error)) {
        ok = bson_append_document (doc, key, key_len, &sub);
        bson_destroy (&sub);
    }
    else
        ok = bson_append_utf8 (doc, key, key_len, text.data, (int) text.len);
    dlq_buf_free (&text);
    return ok;
}

/* An array member: wrapped as {"a": [...]} for libbson's reader (kept as
 * its text when libbson cannot read it, as an object). */
static bool
append_array (bson_t *doc, const char *key, int key_len, const dlq_json_value_t *v)
{
    static const char wrap_open [] = "{\"a\":";
    dlq_buf_t text = DLQ_BUF_INIT;
    dlq_buf_puts (&text, wrap_open);
    dlq_json_write (&text, v);
    size_t array_len = text.len - (sizeof wrap_open - 1);
    dlq_buf_putc (&text, '}');
    bson_t wrap;
    bson_error_t error;
    bson_iter_t it;
    bool ok;
    if (bson_init_from_json (&wrap, text.data, (ssize_t) text.len, &error)) {
        ok = bson_iter_init_find (&it, &wrap, "a") && bson_append_iter (doc, key, key_len, &it);
        bson_destroy (&wrap);
    }
    else
        ok = bson_append_utf8 (doc, key, key_len, text.data + sizeof wrap_open - 1, (int) array_len);
    dlq_buf_free (&text);
    return ok;
}

static bool
append_member (bson_t *doc, const dlq_json_value_t *v)
{
    const char *key = v->key;
    int key_len = (int) v->key_len;
    if (key_is (v, "id")) {
        key = "_id";
        key_len = 3;
    }
    int64_t ms;
    switch (v->type) {
        case DLQ_JSON_STRING:
            if (is_time_member (v) && dlq_time_parse_iso (v->str, v->len, &ms))
                return bson_append_date_time (doc, key, key_len, ms);
            return bson_append_utf8 (doc, key, key_len, v->str, (int) v->len);
        case DLQ_JSON_NUMBER:
            append_number (doc, key, key_len, v);
            return true;
        case DLQ_JSON_TRUE:
        case DLQ_JSON_FALSE:
            return bson_append_bool (doc, key, key_len, v->type == DLQ_JSON_TRUE);
        case DLQ_JSON_NULL:
            return bson_append_null (doc, key, key_len);
        case DLQ_JSON_ARRAY:
            return append_array (doc, key, key_len, v);
        case DLQ_JSON_OBJECT:
        default:
            return append_object (doc, key, key_len, v);
    }
}

/* The fingerprint and the replay state an event starts with. */
static bool
append_replay_state (bson_t *doc, const dlq_sink_event_t *event)
{
    dlq_fingerprint_t fp;
    bool ok = !dlq_fingerprint_of_event (event->json, event->json_len, &fp)
           || bson_append_utf8 (doc, DLQ_MONGO_FINGERPRINT_FIELD, -1, fp.hex, -1);
    ok = ok && bson_append_int32 (doc, DLQ_MONGO_RETRY_COUNT, -1, 0)
            && bson_append_int32 (doc, DLQ_MONGO_REPLAY_COUNT, -1, 0);
    if (ok && event->created_at != DLQ_SINK_TIME_NONE)
        ok = bson_append_date_time (doc, DLQ_MONGO_RETRY_AFTER, -1, event->created_at);
    return ok;
}

bool
dlq_mongo_event_doc (const dlq_sink_event_t *event, bson_t *doc, char *err, size_t err_len)
{
    bson_init (doc);
    dlq_json_doc_t *json = NULL;
    dlq_json_error_t jerr;
    if (dlq_json_parse (event->json, event->json_len, &json, &jerr) != DLQ_JSON_OK
        || dlq_json_root (json)->type != DLQ_JSON_OBJECT) {
        snprintf (err, err_len, "the event body is not a JSON object");
        dlq_json_doc_destroy (&json);
        return false;
    }
    bool ok = true;
    for (const dlq_json_value_t *v = dlq_json_root (json)->child; ok && v; v = v->next)
        ok = append_member (doc, v);
    if (ok)
        ok = bson_append_utf8 (doc, DLQ_MONGO_BODY_FIELD, -1, event->json, (int) event->json_len)
          && append_replay_state (doc, event);
    dlq_json_doc_destroy (&json);
    if (!ok && !err [0])
        snprintf (err, err_len, "the event does not fit in a BSON document");
    return ok;
}

void
dlq_mongo_index_doc (const dlq_sink_event_t *event, const char *collection, bson_t *doc)
{
    bson_init (doc);
    BSON_APPEND_UTF8 (doc, "_id", event->id);
    BSON_APPEND_UTF8 (doc, "c", collection);
    BSON_APPEND_UTF8 (doc, "s", event->stream_name);
    if (event->expires_at != DLQ_SINK_TIME_NONE)
        BSON_APPEND_DATE_TIME (doc, "expiresAt", event->expires_at);
}

bool
dlq_mongo_collection (const char *prefix, const char *stream, const char *override, char *out)
{
    bool ok = dlq_sink_stream_name (prefix, stream, override, out, DLQ_MONGO_COLLECTION_MAX)
           && out [0] && !strchr (out, '$') && strncmp (out, "system.", 7) != 0;
    if (!ok)
        out [0] = '\0';
    return ok;
}

void
dlq_mongo_cursor_format (int64_t created_at, const char *id, char *out)
{
    snprintf (out, DLQ_MONGO_CURSOR_LEN, "%" PRId64 ".%s", created_at, id);
}

bool
dlq_mongo_cursor_parse (const char *cursor, int64_t *created_at, char *id, size_t id_len)
{
    char *dot = NULL;
    char canonical [DLQ_UUID_LEN + 1];
    long long t = strtoll (cursor, &dot, 10);
    if (dot == cursor || *dot != '.' || id_len <= DLQ_UUID_LEN
        || !dlq_uuid_parse (dot + 1, strlen (dot + 1), canonical) || strcmp (canonical, dot + 1) != 0)
        return false;
    *created_at = t;
    snprintf (id, id_len, "%s", canonical);
    return true;
}
