/*  mongo_filter — the workbench's filters as MongoDB queries; see
 *  mongo_filter.h.
 */
#include "mongo_filter.h"

#include "dlq_json.h"
#include "mongo_doc.h"

#include <stdio.h>
#include <string.h>

static void
equal (bson_t *query, const char *field, const char *value)
{
    if (value)
        bson_append_utf8 (query, field, -1, value, -1);
}

/* {field: {$gte: low, <high_op>: high}} for the bounds that are set. */
static void
range (bson_t *query, const char *field, const char *high_op, bool dates, bool has_low, int64_t low,
       bool has_high, int64_t high)
{
    if (!has_low && !has_high)
        return;
    bson_t r;
    bson_append_document_begin (query, field, -1, &r);
    if (has_low && dates)
        BSON_APPEND_DATE_TIME (&r, "$gte", low);
    else if (has_low)
        BSON_APPEND_INT64 (&r, "$gte", low);
    if (has_high && dates)
        bson_append_date_time (&r, high_op, -1, high);
    else if (has_high)
        bson_append_int64 (&r, high_op, -1, high);
    bson_append_document_end (query, &r);
}

void
dlq_mongo_contains_pattern (const char *text, dlq_buf_t *out)
{
    static const char special [] = "\\^$.|?*+()[]{}";
    for (const unsigned char *p = (const unsigned char *) text; *p; p++) {
        if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))
            dlq_buf_printf (out, "[%c%c]", *p | 0x20, *p & ~0x20);
        else if (strchr (special, *p))
            dlq_buf_printf (out, "\\%c", *p);
        else
            dlq_buf_putc (out, (char) *p);
    }
}

static void
contains (bson_t *query, const char *text)
{
    if (!text)
        return;
    dlq_buf_t pattern = DLQ_BUF_INIT;
    dlq_mongo_contains_pattern (text, &pattern);
    bson_t r;
    BSON_APPEND_DOCUMENT_BEGIN (query, "error.message", &r);
    BSON_APPEND_UTF8 (&r, "$regex", pattern.data ? pattern.data : "");
    bson_append_document_end (query, &r);
    dlq_buf_free (&pattern);
}

/* One pair of the metadata filter, as an element of the $and array. */
static void
metadata_pair (bson_t *clauses, uint32_t at, const dlq_filter_pair_t *pair)
{
    char key [16];
    const char *key_p;
    bson_uint32_to_string (at, &key_p, key, sizeof key);
    dlq_buf_t path = DLQ_BUF_INIT;
    dlq_buf_printf (&path, "metadata.%s", pair->key);
    bson_t clause, absent;
    bson_append_document_begin (clauses, key_p, -1, &clause);
    if (pair->type == DLQ_JSON_STRING)
        bson_append_utf8 (&clause, path.data, -1, pair->text, -1);
    else if (pair->type == DLQ_JSON_NUMBER)
        bson_append_double (&clause, path.data, -1, pair->number);
    else
        bson_append_bool (&clause, path.data, -1, pair->type == DLQ_JSON_TRUE);
    dlq_buf_puts (&path, ".0");
    bson_append_document_begin (&clause, path.data, -1, &absent);
    BSON_APPEND_BOOL (&absent, "$exists", false);
    bson_append_document_end (&clause, &absent);
    bson_append_document_end (clauses, &clause);
    dlq_buf_free (&path);
}

static void
metadata (bson_t *query, const dlq_event_filter_t *f)
{
    if (f->metadata_count == 0)
        return;
    bson_t clauses;
    BSON_APPEND_ARRAY_BEGIN (query, "$and", &clauses);
    for (size_t i = 0; i < f->metadata_count; i++)
        metadata_pair (&clauses, (uint32_t) i, &f->metadata [i]);
    bson_append_array_end (query, &clauses);
}

void
dlq_mongo_filter_query (const dlq_event_filter_t *f, int64_t now_ms, bson_t *query)
{
    bson_init (query);
    BCON_APPEND (query, DLQ_MONGO_BODY_FIELD, "{", "$exists", BCON_BOOL (true), "}",
                 "expiresAt", "{", "$not", "{", "$lte", BCON_DATE_TIME (now_ms), "}", "}");
    equal (query, "streamName", f->stream);
    equal (query, "status", f->status);
    equal (query, "error.type", f->error_type);
    equal (query, DLQ_MONGO_FINGERPRINT_FIELD, f->fingerprint);
    range (query, "createdAt", "$lt", true, f->has_created_after, f->created_after, f->has_created_before,
           f->created_before);
    range (query, "attempts", "$lte", false, f->has_attempts_min, f->attempts_min, f->has_attempts_max,
           f->attempts_max);
    contains (query, f->message_contains);
    metadata (query, f);
}

void
dlq_mongo_filter_after (bson_t *query, int64_t created_at, const char *id)
{
    BCON_APPEND (query, "$or", "[",
                     "{", "createdAt", "{", "$lt", BCON_DATE_TIME (created_at), "}", "}",
                     "{", "createdAt", BCON_DATE_TIME (created_at), "_id", "{", "$lt", BCON_UTF8 (id), "}", "}",
                 "]");
}
