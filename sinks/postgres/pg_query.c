/*  pg_query — filtered LIST, COUNT and GROUPS on the table (see
 *  pg_query.h).
 */
#include "pg_query.h"

#include "dlq_json.h"
#include "dlq_time.h"
#include "fingerprint.h"
#include "pg_call.h"
#include "pg_filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ---------------------------------------------------------------------- */

/* Parse filter_json into filter (empty on entry); false (recorded as
 * call what's error) when it is not a valid filter object. */
static bool
parse_filter (dlq_pg_sink_t *self, const char *what, const char *filter_json, dlq_event_filter_t *filter)
{
    char why [300];
    bool ok = dlq_event_filter_from_json (filter_json, filter, why, sizeof why);
    if (!ok)
        snprintf (self->last_error, sizeof self->last_error, "postgres %s: not a filter: %s", what, why);
    return ok;
}

/* Run q (built); its one result into *result (caller clears). */
static dlq_sink_status_t
run (dlq_pg_sink_t *self, const char *what, const dlq_pg_query_t *q, PGresult **result)
{
    dlq_pg_stmt_t stmt = { .sql = q->sql.data, .nparams = q->count, .values = q->values, .lengths = q->lengths };
    return dlq_pg_call_run (self, what, &stmt, 1, result);
}

/* ---- list ------------------------------------------------------------------------------ */

/* The cursor into after; false when this store did not issue it. */
static bool
parse_cursor (const char *cursor, dlq_pg_after_t *after)
{
    char time [DLQ_PG_TIME_LEN];
    return dlq_pg_cursor_parse (cursor, &after->created_us, after->id)
        && dlq_pg_format_time_us (after->created_us, time);
}

dlq_sink_status_t
dlq_pg_query_list (void *instance, const char *filter_json, size_t limit, const char *cursor, int64_t now_ms,
                   dlq_sink_buf_t *events_out, dlq_sink_buf_t *cursor_out)
{
    dlq_pg_sink_t *self = instance;
    dlq_pg_after_t after = { 0 };
    bool paging = cursor && *cursor;
    if (paging && !parse_cursor (cursor, &after))
        return DLQ_SINK_STATUS_BAD_CURSOR;
    dlq_event_filter_t filter = DLQ_EVENT_FILTER_INIT;
    if (!parse_filter (self, "list", filter_json, &filter))
        return DLQ_SINK_STATUS_ERROR;
    dlq_sink_status_t status = DLQ_SINK_STATUS_ERROR;
    if (dlq_pg_call_ready (self, "list")) {
        dlq_pg_query_t q = DLQ_PG_QUERY_INIT;
        dlq_pg_filter_list (&q, &self->names, &filter, now_ms, paging ? &after : NULL,
                            dlq_pg_call_page_size (limit) + 1);
        PGresult *result = NULL;
        status = run (self, "list", &q, &result);
        if (status == DLQ_SINK_STATUS_OK)
            dlq_pg_call_write_page (self, result, limit, events_out, cursor_out);
        PQclear (result);
        dlq_pg_query_free (&q);
    }
    dlq_event_filter_free (&filter);
    return status;
}

/* ---- count -------------------------------------------------------------------------------- */

dlq_sink_status_t
dlq_pg_query_count (void *instance, const char *filter_json, int64_t now_ms, int64_t *count_out)
{
    dlq_pg_sink_t *self = instance;
    dlq_event_filter_t filter = DLQ_EVENT_FILTER_INIT;
    if (!parse_filter (self, "count", filter_json, &filter))
        return DLQ_SINK_STATUS_ERROR;
    dlq_sink_status_t status = DLQ_SINK_STATUS_ERROR;
    if (dlq_pg_call_ready (self, "count")) {
        dlq_pg_query_t q = DLQ_PG_QUERY_INIT;
        dlq_pg_filter_count (&q, &self->names, &filter, now_ms);
        PGresult *result = NULL;
        status = run (self, "count", &q, &result);
        if (status == DLQ_SINK_STATUS_OK)
            *count_out = strtoll (PQgetvalue (result, 0, 0), NULL, 10);
        PQclear (result);
        dlq_pg_query_free (&q);
    }
    dlq_event_filter_free (&filter);
    return status;
}

/* ---- groups ------------------------------------------------------------------------------- */

/* ,"name":<column c of row i as a JSON string, or null>. */
static void
put_string (dlq_buf_t *out, const char *name, const PGresult *r, int i, int c)
{
    dlq_buf_printf (out, ",\"%s\":", name);
    if (PQgetisnull (r, i, c))
        dlq_buf_puts (out, "null");
    else
        dlq_json_write_string (out, PQgetvalue (r, i, c), (size_t) PQgetlength (r, i, c));
}

/* ,"name":"<ISO time of the ms in column c of row i>". */
static void
put_time (dlq_buf_t *out, const char *name, const PGresult *r, int i, int c)
{
    char iso [DLQ_TIME_ISO_LEN + 1] = "";
    dlq_time_format_iso (strtoll (PQgetvalue (r, i, c), NULL, 10), iso);
    dlq_buf_printf (out, ",\"%s\":\"%s\"", name, iso);
}

/* ,"streams":<the JSON array of column c, compact>. */
static void
put_streams (dlq_buf_t *out, const PGresult *r, int i, int c)
{
    dlq_buf_puts (out, ",\"streams\":");
    dlq_json_doc_t *doc = NULL;
    if (dlq_json_parse (PQgetvalue (r, i, c), (size_t) PQgetlength (r, i, c), &doc, NULL) == DLQ_JSON_OK)
        dlq_json_write (out, dlq_json_root (doc));
    else
        dlq_buf_puts (out, "[]");
    dlq_json_doc_destroy (&doc);
}

/* ,"message":"<column c of row i normalised>". */
static void
put_message (dlq_buf_t *out, const PGresult *r, int i, int c)
{
    dlq_buf_t normalised = DLQ_BUF_INIT;
    if (!PQgetisnull (r, i, c))
        dlq_fingerprint_normalise_message (PQgetvalue (r, i, c), (size_t) PQgetlength (r, i, c), &normalised);
    dlq_buf_puts (out, ",\"message\":");
    dlq_json_write_string (out, normalised.data ? normalised.data : "", normalised.len);
    dlq_buf_free (&normalised);
}

/* One group from row i: fingerprint, n, first, last, streams, type, message, sample. */
static void
write_group (dlq_buf_t *out, const PGresult *r, int i)
{
    dlq_buf_puts (out, "{\"fingerprint\":");
    if (PQgetisnull (r, i, 0))
        dlq_buf_puts (out, "null");
    else
        dlq_json_write_string (out, PQgetvalue (r, i, 0), (size_t) PQgetlength (r, i, 0));
    dlq_buf_printf (out, ",\"count\":%s", PQgetvalue (r, i, 1));
    put_time (out, "firstSeen", r, i, 2);
    put_time (out, "lastSeen", r, i, 3);
    put_streams (out, r, i, 4);
    put_string (out, "errorType", r, i, 5);
    put_message (out, r, i, 6);
    put_string (out, "sampleId", r, i, 7);
    dlq_buf_putc (out, '}');
}

/* The groups' JSON array from r. */
static void
write_groups (const dlq_pg_sink_t *self, const PGresult *r, dlq_sink_buf_t *groups_out)
{
    dlq_buf_t json = DLQ_BUF_INIT;
    dlq_buf_putc (&json, '[');
    for (int i = 0; i < PQntuples (r); i++) {
        if (i > 0)
            dlq_buf_putc (&json, ',');
        write_group (&json, r, i);
    }
    dlq_buf_putc (&json, ']');
    dlq_pg_call_put (self, groups_out, json.data, json.len);
    dlq_buf_free (&json);
}

dlq_sink_status_t
dlq_pg_query_groups (void *instance, const char *filter_json, size_t limit, int64_t now_ms,
                     dlq_sink_buf_t *groups_out)
{
    dlq_pg_sink_t *self = instance;
    dlq_event_filter_t filter = DLQ_EVENT_FILTER_INIT;
    if (!parse_filter (self, "groups", filter_json, &filter))
        return DLQ_SINK_STATUS_ERROR;
    dlq_sink_status_t status = DLQ_SINK_STATUS_ERROR;
    if (dlq_pg_call_ready (self, "groups")) {
        dlq_pg_query_t q = DLQ_PG_QUERY_INIT;
        dlq_pg_filter_groups (&q, &self->names, &filter, now_ms, dlq_pg_call_page_size (limit));
        PGresult *result = NULL;
        status = run (self, "groups", &q, &result);
        if (status == DLQ_SINK_STATUS_OK)
            write_groups (self, result, groups_out);
        PQclear (result);
        dlq_pg_query_free (&q);
    }
    dlq_event_filter_free (&filter);
    return status;
}
