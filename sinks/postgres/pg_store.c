/*  pg_store — the store calls of the postgres sink, so that a postgres
 *  sink can be the primary store.
 *
 *  get and list return payload_text, the canonical body byte for byte
 *  (payload, the JSONB copy, is for SQL and would come back reformatted).
 *  An event is expired when expires_at <= now; get and list skip expired
 *  rows, stats counts them until sweep deletes them. list goes newest
 *  first by (created_at DESC, id DESC), reading one row more than the page
 *  to know whether a next page exists; its cursor is
 *  "<created_at in µs since the epoch>.<id>" of the page's last row, parsed
 *  strictly (anything else is BAD_CURSOR).
 *
 *  Each call connects if need be and runs as pg_call.h says; last_error
 *  says why a call failed.
 */
#include "pg_call.h"
#include "pg_sink.h"

#include "dlq_json.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- get ------------------------------------------------------------------------ */

/* The canonical body of event id, unless missing or expired. */
static dlq_sink_status_t
pg_get (void *instance, const char *id, int64_t now_ms, dlq_sink_buf_t *event_out)
{
    dlq_pg_sink_t *self = instance;
    if (!dlq_pg_uuid_valid (id, false))
        return DLQ_SINK_STATUS_NOT_FOUND;
    if (!dlq_pg_call_ready (self, "get"))
        return DLQ_SINK_STATUS_ERROR;
    char now [DLQ_PG_TIME_LEN];
    dlq_pg_format_time (now_ms, now);
    const char *const values [] = { id, now };
    dlq_buf_t sql = DLQ_BUF_INIT;
    dlq_pg_sql_get (&sql, &self->names);
    PGresult *result = NULL;
    dlq_sink_status_t status = dlq_pg_call_query (self, "get", sql.data, values, 2, &result);
    dlq_buf_free (&sql);
    if (status == DLQ_SINK_STATUS_OK && PQntuples (result) == 0)
        status = DLQ_SINK_STATUS_NOT_FOUND;
    if (status == DLQ_SINK_STATUS_OK)
        dlq_pg_call_put (self, event_out, PQgetvalue (result, 0, 0), (size_t) PQgetlength (result, 0, 0));
    PQclear (result);
    return status;
}

/* ---- list ------------------------------------------------------------------------ */

/* One page of a stream's unexpired events, newest first. */
static dlq_sink_status_t
pg_list (void *instance, const char *stream, size_t limit, const char *cursor, int64_t now_ms,
         dlq_sink_buf_t *events_out, dlq_sink_buf_t *cursor_out)
{
    dlq_pg_sink_t *self = instance;
    bool after = cursor && *cursor;
    int64_t after_us = 0;
    char after_id [DLQ_PG_UUID_LEN] = "", after_time [DLQ_PG_TIME_LEN] = "";
    if (after && !(dlq_pg_cursor_parse (cursor, &after_us, after_id)
                   && dlq_pg_format_time_us (after_us, after_time)))
        return DLQ_SINK_STATUS_BAD_CURSOR;
    if (!dlq_pg_call_ready (self, "list"))
        return DLQ_SINK_STATUS_ERROR;
    size_t page = dlq_pg_call_page_size (limit);
    char now [DLQ_PG_TIME_LEN], fetch [24];
    dlq_pg_format_time (now_ms, now);
    snprintf (fetch, sizeof fetch, "%zu", page + 1);
    const char *const values [] = { stream, now, fetch, after_time, after_id };
    dlq_buf_t sql = DLQ_BUF_INIT;
    dlq_pg_sql_list (&sql, &self->names, after);
    PGresult *result = NULL;
    dlq_sink_status_t status = dlq_pg_call_query (self, "list", sql.data, values, after ? 5 : 3, &result);
    dlq_buf_free (&sql);
    if (status == DLQ_SINK_STATUS_OK)
        dlq_pg_call_write_page (self, result, limit, events_out, cursor_out);
    PQclear (result);
    return status;
}

/* ---- stats and sweep ---------------------------------------------------------------- */

/* Write {"stream": count, ...} from r; the total into *events. */
static void
write_streams (const dlq_pg_sink_t *self, const PGresult *r, dlq_sink_buf_t *out, int64_t *events)
{
    dlq_buf_t json = DLQ_BUF_INIT;
    dlq_buf_putc (&json, '{');
    *events = 0;
    for (int i = 0; i < PQntuples (r); i++) {
        if (i > 0)
            dlq_buf_putc (&json, ',');
        dlq_json_write_string (&json, PQgetvalue (r, i, 0), (size_t) PQgetlength (r, i, 0));
        dlq_buf_printf (&json, ":%s", PQgetvalue (r, i, 1));
        *events += strtoll (PQgetvalue (r, i, 1), NULL, 10);
    }
    dlq_buf_putc (&json, '}');
    dlq_pg_call_put (self, out, json.data, json.len);
    dlq_buf_free (&json);
}

/* Stored events per stream, in total, and the table's size in bytes. */
static dlq_sink_status_t
pg_stats (void *instance, dlq_sink_buf_t *streams_out, int64_t *events_out, int64_t *bytes_out)
{
    dlq_pg_sink_t *self = instance;
    if (!dlq_pg_call_ready (self, "stats"))
        return DLQ_SINK_STATUS_ERROR;
    dlq_buf_t streams = DLQ_BUF_INIT, size = DLQ_BUF_INIT;
    dlq_pg_sql_stats (&streams, &self->names);
    dlq_pg_sql_size (&size);
    const char *const values [] = { self->qualified.data };
    const int lengths [] = { (int) self->qualified.len };
    dlq_pg_stmt_t stmts [2] = {
        { .sql = streams.data },
        { .sql = size.data, .nparams = 1, .values = values, .lengths = lengths },
    };
    PGresult *results [2];
    dlq_pg_error_t error;
    bool ok = dlq_pg_conn_run (self->conn, stmts, 2, results, dlq_pg_call_deadline (self), &error);
    if (ok) {
        write_streams (self, results [0], streams_out, events_out);
        *bytes_out = strtoll (PQgetvalue (results [1], 0, 0), NULL, 10);
    }
    dlq_pg_results_clear (results, 2);
    dlq_buf_free (&streams);
    dlq_buf_free (&size);
    return ok ? DLQ_SINK_STATUS_OK : dlq_pg_call_fail (self, "stats", &error);
}

/* Delete up to max_rows expired events; how many, or -1. */
static int64_t
pg_sweep (void *instance, int64_t now_ms, int64_t max_rows)
{
    dlq_pg_sink_t *self = instance;
    if (max_rows <= 0)
        return 0;
    if (!dlq_pg_call_ready (self, "sweep"))
        return -1;
    char now [DLQ_PG_TIME_LEN], rows [24];
    dlq_pg_format_time (now_ms, now);
    snprintf (rows, sizeof rows, "%" PRId64, max_rows);
    const char *const values [] = { now, rows };
    dlq_buf_t sql = DLQ_BUF_INIT;
    dlq_pg_sql_sweep (&sql, &self->names);
    PGresult *result = NULL;
    dlq_sink_status_t status = dlq_pg_call_query (self, "sweep", sql.data, values, 2, &result);
    dlq_buf_free (&sql);
    int64_t deleted = status == DLQ_SINK_STATUS_OK ? strtoll (PQgetvalue (result, 0, 0), NULL, 10) : -1;
    PQclear (result);
    return deleted;
}

/* Why the last call failed. */
static const char *
pg_last_error (void *instance)
{
    const dlq_pg_sink_t *self = instance;
    return self->last_error;
}

const dlq_sink_store_ops_t dlq_pg_store_ops = {
    .get        = pg_get,
    .list       = pg_list,
    .stats      = pg_stats,
    .sweep      = pg_sweep,
    .last_error = pg_last_error,
};
