/*  mongo_ckpt_doc — the checkpoint documents; see mongo_ckpt_doc.h. */
#include "mongo_ckpt_doc.h"

#include "checkpoint.h"
#include "dlq_alloc.h"
#include "dlq_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The fields of one token pair. */
typedef struct {
    const char *token;
    const char *text;
    const char *at;
} pair_t;

static const pair_t seen_pair = {
    DLQ_MONGO_CKPT_SEEN_TOKEN, DLQ_MONGO_CKPT_SEEN_TEXT, DLQ_MONGO_CKPT_SEEN_AT
};
static const pair_t processed_pair = {
    DLQ_MONGO_CKPT_PROCESSED_TOKEN, DLQ_MONGO_CKPT_PROCESSED_TEXT, DLQ_MONGO_CKPT_PROCESSED_AT
};

/* ---- writes ------------------------------------------------------------------------ */

/* json (a JSON object text) as BSON into doc (initialised when true). */
static bool
read_json (const char *json, bson_t *doc, bson_error_t *error)
{
    return bson_init_from_json (doc, json, (ssize_t) strlen (json), error);
}

/* A token: its document and its text, or BAD_TOKEN. Nothing for NULL. */
static dlq_mongo_ckpt_result_t
append_token (bson_t *out, const char *field, const char *text_field, const char *json, char *err,
              size_t err_len)
{
    if (!json)
        return DLQ_MONGO_CKPT_OK;
    bson_t token;
    bson_error_t error;
    if (!read_json (json, &token, &error)) {
        snprintf (err, err_len, "%s: not extended JSON libbson reads: %s", field, error.message);
        return DLQ_MONGO_CKPT_BAD_TOKEN;
    }
    BSON_APPEND_DOCUMENT (out, field, &token);
    BSON_APPEND_UTF8 (out, text_field, json);
    bson_destroy (&token);
    return DLQ_MONGO_CKPT_OK;
}

/* The metadata: its document (when libbson reads it) and its text. */
static void
append_metadata (bson_t *out, const char *json)
{
    if (!json)
        return;
    bson_t metadata;
    if (read_json (json, &metadata, NULL)) {
        BSON_APPEND_DOCUMENT (out, DLQ_MONGO_CKPT_METADATA, &metadata);
        bson_destroy (&metadata);
    }
    BSON_APPEND_UTF8 (out, DLQ_MONGO_CKPT_METADATA_TEXT, json);
}

static void
append_time (bson_t *out, const char *field, int64_t ms)
{
    if (ms != DLQ_SINK_TIME_NONE)
        BSON_APPEND_DATE_TIME (out, field, ms);
}

/* SAVE: the whole document, _id first. */
static dlq_mongo_ckpt_result_t
replacement (const dlq_sink_checkpoint_t *r, int64_t now_ms, bson_t *doc, char *err, size_t err_len)
{
    BSON_APPEND_UTF8 (doc, "_id", r->stream_name);
    if (r->instance_id)
        BSON_APPEND_UTF8 (doc, DLQ_MONGO_CKPT_INSTANCE, r->instance_id);
    dlq_mongo_ckpt_result_t result = append_token (doc, seen_pair.token, seen_pair.text, r->last_seen_token,
                                                   err, err_len);
    append_time (doc, seen_pair.at, r->last_seen_at);
    if (result == DLQ_MONGO_CKPT_OK)
        result = append_token (doc, processed_pair.token, processed_pair.text, r->last_processed_token, err,
                               err_len);
    append_time (doc, processed_pair.at, r->last_processed_at);
    append_metadata (doc, r->metadata);
    BSON_APPEND_DATE_TIME (doc, DLQ_MONGO_CKPT_UPDATED_AT, now_ms);
    return result;
}

/* $unset of what a SEEN / PROCESSED sets to absent (nothing: no $unset). */
static void
unset_absent (bson_t *update, const pair_t *pair, const char *token, int64_t at)
{
    if (token && at != DLQ_SINK_TIME_NONE)
        return;
    bson_t unset;
    BSON_APPEND_DOCUMENT_BEGIN (update, "$unset", &unset);
    if (!token) {
        BSON_APPEND_UTF8 (&unset, pair->token, "");
        BSON_APPEND_UTF8 (&unset, pair->text, "");
    }
    if (at == DLQ_SINK_TIME_NONE)
        BSON_APPEND_UTF8 (&unset, pair->at, "");
    bson_append_document_end (update, &unset);
}

/* SEEN / PROCESSED: $set of the pair (and updatedAt), nothing else. */
static dlq_mongo_ckpt_result_t
targeted (const pair_t *pair, const char *token, int64_t at, int64_t now_ms, bson_t *update, char *err,
          size_t err_len)
{
    bson_t set;
    BSON_APPEND_DOCUMENT_BEGIN (update, "$set", &set);
    dlq_mongo_ckpt_result_t result = append_token (&set, pair->token, pair->text, token, err, err_len);
    append_time (&set, pair->at, at);
    BSON_APPEND_DATE_TIME (&set, DLQ_MONGO_CKPT_UPDATED_AT, now_ms);
    bson_append_document_end (update, &set);
    unset_absent (update, pair, token, at);
    return result;
}

dlq_mongo_ckpt_result_t
dlq_mongo_ckpt_update (dlq_sink_ckpt_write_t kind, const dlq_sink_checkpoint_t *r, int64_t now_ms, bson_t *update,
                       char *err, size_t err_len)
{
    bson_init (update);
    switch (kind) {
        case DLQ_SINK_CKPT_SAVE:
            return replacement (r, now_ms, update, err, err_len);
        case DLQ_SINK_CKPT_SEEN:
            return targeted (&seen_pair, r->last_seen_token, r->last_seen_at, now_ms, update, err, err_len);
        case DLQ_SINK_CKPT_PROCESSED:
            return targeted (&processed_pair, r->last_processed_token, r->last_processed_at, now_ms, update, err,
                             err_len);
        default:
            snprintf (err, err_len, "unknown kind of write %d", (int) kind);
            return DLQ_MONGO_CKPT_BAD_KIND;
    }
}

/* ---- LIST ------------------------------------------------------------------------ */

void
dlq_mongo_ckpt_list_filter (const char *prefix, const char *cursor, bson_t *filter)
{
    bson_t range;
    bson_init (filter);
    BSON_APPEND_DOCUMENT_BEGIN (filter, "_id", &range);
    BSON_APPEND_UTF8 (&range, "$gte", prefix ? prefix : "");
    if (cursor && *cursor)
        BSON_APPEND_UTF8 (&range, "$gt", cursor);
    bson_append_document_end (filter, &range);
}

bool
dlq_mongo_ckpt_has_prefix (const char *name, size_t len, const char *prefix)
{
    size_t prefix_len = prefix ? strlen (prefix) : 0;
    return prefix_len <= len && memcmp (name, prefix ? prefix : "", prefix_len) == 0;
}

bool
dlq_mongo_ckpt_cursor_valid (const char *cursor)
{
    size_t len = strlen (cursor);
    return len <= DLQ_CKPT_STREAM_MAX && dlq_utf8_valid (cursor, len, NULL);
}

/* ---- reading ---------------------------------------------------------------------- */

/* libbson's JSON of doc (canonical or relaxed extended JSON) made compact
 * (dlq_json_write); NULL when it is not JSON we read. Caller frees. */
static char *
compact_json (const bson_t *doc, bool canonical)
{
    size_t len = 0;
    char *text = canonical ? bson_as_canonical_extended_json (doc, &len) : bson_as_relaxed_extended_json (doc, &len);
    dlq_json_doc_t *parsed = NULL;
    char *out = NULL;
    if (text && dlq_json_parse (text, len, &parsed, NULL) == DLQ_JSON_OK) {
        dlq_buf_t json = DLQ_BUF_INIT;
        dlq_json_write (&json, dlq_json_root (parsed));
        dlq_buf_putc (&json, '\0');
        out = dlq_buf_steal (&json, NULL);
    }
    dlq_json_doc_destroy (&parsed);
    bson_free (text);
    return out;
}

/* Does text (len bytes) read, by libbson, into exactly value (NULL: into
 * nothing, i.e. does libbson refuse it)? */
static bool
text_describes (const char *text, uint32_t len, const bson_t *value)
{
    bson_t parsed;
    if (!bson_init_from_json (&parsed, text, (ssize_t) len, NULL))
        return value == NULL;
    bool same = value && bson_equal (&parsed, value);
    bson_destroy (&parsed);
    return same;
}

/* The JSON text of document field of doc (a token, canonical; or the
 * metadata): its text field while that describes it, else the field as
 * extended JSON; NULL when absent. Caller frees. */
static char *
object_text (const bson_t *doc, const char *field, const char *text_field, bool canonical)
{
    bson_iter_t it, text_it;
    const char *text = NULL;
    uint32_t text_len = 0;
    if (bson_iter_init_find (&text_it, doc, text_field) && BSON_ITER_HOLDS_UTF8 (&text_it))
        text = bson_iter_utf8 (&text_it, &text_len);
    bool has_value = bson_iter_init_find (&it, doc, field) && BSON_ITER_HOLDS_DOCUMENT (&it);
    bson_t value;
    if (has_value) {
        uint32_t len;
        const uint8_t *data;
        bson_iter_document (&it, &len, &data);
        has_value = bson_init_static (&value, data, len);
    }
    if (text && text_describes (text, text_len, has_value ? &value : NULL))
        return dlq_strndup (text, text_len);
    return has_value ? compact_json (&value, canonical) : NULL;
}

static int64_t
date_of (const bson_t *doc, const char *field)
{
    bson_iter_t it;
    if (bson_iter_init_find (&it, doc, field) && BSON_ITER_HOLDS_DATE_TIME (&it))
        return bson_iter_date_time (&it);
    return DLQ_SINK_TIME_NONE;
}

static const char *
utf8_of (const bson_t *doc, const char *field)
{
    bson_iter_t it;
    if (bson_iter_init_find (&it, doc, field) && BSON_ITER_HOLDS_UTF8 (&it))
        return bson_iter_utf8 (&it, NULL);
    return NULL;
}

dlq_mongo_ckpt_result_t
dlq_mongo_ckpt_format (const bson_t *doc, dlq_buf_t *json)
{
    const char *stream = utf8_of (doc, "_id");
    if (!stream)
        return DLQ_MONGO_CKPT_NOT_A_RECORD;
    char *seen = object_text (doc, seen_pair.token, seen_pair.text, true);
    char *processed = object_text (doc, processed_pair.token, processed_pair.text, true);
    char *metadata = object_text (doc, DLQ_MONGO_CKPT_METADATA, DLQ_MONGO_CKPT_METADATA_TEXT, false);
    dlq_sink_checkpoint_t record = dlq_checkpoint_empty (stream);
    record.instance_id = utf8_of (doc, DLQ_MONGO_CKPT_INSTANCE);
    record.last_seen_token = seen;
    record.last_seen_at = date_of (doc, seen_pair.at);
    record.last_processed_token = processed;
    record.last_processed_at = date_of (doc, processed_pair.at);
    record.metadata = metadata;
    record.updated_at = date_of (doc, DLQ_MONGO_CKPT_UPDATED_AT);
    dlq_checkpoint_format (&record, json);
    free (seen);
    free (processed);
    free (metadata);
    return DLQ_MONGO_CKPT_OK;
}
