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
 *  Each call connects if need be (connect_timeout_ms) and waits for its
 *  answer up to statement_timeout_ms (the server cancels the statement
 *  then) plus a grace. last_error says why a call failed.
 */
#include "pg_sink.h"

#include "dlq_json.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Most rows one LIST page may ask for. */
#define LIST_LIMIT_MAX 1000000

/* ---- helpers --------------------------------------------------------------- */

/* When a store call stops waiting for its answer. */
static int64_t
call_deadline (const dlq_pg_sink_t *self)
{
    return self->host->mono_ms () + self->connect_timeout_ms + self->statement_timeout_ms + DLQ_PG_GRACE_MS;
}

/* Record why call what failed (last_error), and log it: at debug level,
 * since the gateway logs a failed query with last_error, but as a warning
 * for the sweep, which runs in the background. Returns ERROR. */
static dlq_sink_status_t
fail (dlq_pg_sink_t *self, const char *what, const dlq_pg_error_t *error)
{
    snprintf (self->last_error, sizeof self->last_error, "postgres %s: %s%s%s", what,
              error->sqlstate, error->sqlstate [0] ? " " : "", error->message);
    bool background = strcmp (what, "sweep") == 0;
    self->host->log (self->config, background ? DLQ_SINK_LOG_WARN : DLQ_SINK_LOG_DEBUG, "%s", self->last_error);
    dlq_pg_sink_failed (self, error);
    return DLQ_SINK_STATUS_ERROR;
}

/* Lengths of n NUL-terminated parameter values. */
static void
lengths_of (const char *const *values, int *lengths, int n)
{
    for (int i = 0; i < n; i++)
        lengths [i] = (int) strlen (values [i]);
}

/* Connect and set the table up if need be, before the call's SQL is
 * built (the quoted names are known from the first connection on). */
static bool
ready (dlq_pg_sink_t *self, const char *what)
{
    dlq_pg_error_t error;
    if (dlq_pg_sink_ready (self, call_deadline (self), &error))
        return true;
    fail (self, what, &error);
    return false;
}

/* Run one statement with n text values; its result into *result (caller
 * clears). ERROR (recorded) on failure. */
static dlq_sink_status_t
query (dlq_pg_sink_t *self, const char *what, const dlq_buf_t *sql, const char *const *values, int n,
       PGresult **result)
{
    int lengths [8];
    lengths_of (values, lengths, n);
    dlq_pg_error_t error;
    dlq_pg_stmt_t stmt = { .sql = sql->data, .nparams = n, .values = values, .lengths = lengths };
    if (!dlq_pg_conn_run (self->conn, &stmt, 1, result, call_deadline (self), &error)) {
        dlq_pg_results_clear (result, 1);
        return fail (self, what, &error);
    }
    return DLQ_SINK_STATUS_OK;
}

/* Append a string to a host buffer. */
static void
put (const dlq_pg_sink_t *self, dlq_sink_buf_t *out, const char *data, size_t len)
{
    self->host->append (out, data, len);
}

/* ---- get ------------------------------------------------------------------------ */

/* The canonical body of event id, unless missing or expired. */
static dlq_sink_status_t
pg_get (void *instance, const char *id, int64_t now_ms, dlq_sink_buf_t *event_out)
{
    dlq_pg_sink_t *self = instance;
    if (!dlq_pg_uuid_valid (id, false))
        return DLQ_SINK_STATUS_NOT_FOUND;
    if (!ready (self, "get"))
        return DLQ_SINK_STATUS_ERROR;
    char now [DLQ_PG_TIME_LEN];
    dlq_pg_format_time (now_ms, now);
    const char *const values [] = { id, now };
    dlq_buf_t sql = DLQ_BUF_INIT;
    dlq_pg_sql_get (&sql, &self->names);
    PGresult *result = NULL;
    dlq_sink_status_t status = query (self, "get", &sql, values, 2, &result);
    dlq_buf_free (&sql);
    if (status == DLQ_SINK_STATUS_OK && PQntuples (result) == 0)
        status = DLQ_SINK_STATUS_NOT_FOUND;
    if (status == DLQ_SINK_STATUS_OK)
        put (self, event_out, PQgetvalue (result, 0, 0), (size_t) PQgetlength (result, 0, 0));
    PQclear (result);
    return status;
}

/* ---- list ------------------------------------------------------------------------ */

/* Write a page: the first shown rows of r as a JSON array, and the
 * cursor after the last of them when more rows came. */
static void
write_page (const dlq_pg_sink_t *self, const PGresult *r, size_t shown, bool more,
            dlq_sink_buf_t *events_out, dlq_sink_buf_t *cursor_out)
{
    put (self, events_out, "[", 1);
    for (size_t i = 0; i < shown; i++) {
        if (i > 0)
            put (self, events_out, ",", 1);
        put (self, events_out, PQgetvalue (r, (int) i, 0), (size_t) PQgetlength (r, (int) i, 0));
    }
    put (self, events_out, "]", 1);
    if (!more || shown == 0)
        return;
    char cursor [DLQ_PG_CURSOR_LEN];
    int64_t created_us = strtoll (PQgetvalue (r, (int) shown - 1, 1), NULL, 10);
    dlq_pg_cursor_format (created_us, PQgetvalue (r, (int) shown - 1, 2), cursor);
    put (self, cursor_out, cursor, strlen (cursor));
}

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
    if (!ready (self, "list"))
        return DLQ_SINK_STATUS_ERROR;
    size_t page = limit < 1 ? 1 : limit > LIST_LIMIT_MAX ? LIST_LIMIT_MAX : limit;
    char now [DLQ_PG_TIME_LEN], fetch [24];
    dlq_pg_format_time (now_ms, now);
    snprintf (fetch, sizeof fetch, "%zu", page + 1);
    const char *const values [] = { stream, now, fetch, after_time, after_id };
    dlq_buf_t sql = DLQ_BUF_INIT;
    dlq_pg_sql_list (&sql, &self->names, after);
    PGresult *result = NULL;
    dlq_sink_status_t status = query (self, "list", &sql, values, after ? 5 : 3, &result);
    dlq_buf_free (&sql);
    if (status == DLQ_SINK_STATUS_OK) {
        size_t rows = (size_t) PQntuples (result);
        size_t shown = limit == 0 ? 0 : rows < page ? rows : page;
        write_page (self, result, shown, rows > page, events_out, cursor_out);
    }
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
    put (self, out, json.data, json.len);
    dlq_buf_free (&json);
}

/* Stored events per stream, in total, and the table's size in bytes. */
static dlq_sink_status_t
pg_stats (void *instance, dlq_sink_buf_t *streams_out, int64_t *events_out, int64_t *bytes_out)
{
    dlq_pg_sink_t *self = instance;
    if (!ready (self, "stats"))
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
    bool ok = dlq_pg_conn_run (self->conn, stmts, 2, results, call_deadline (self), &error);
    if (ok) {
        write_streams (self, results [0], streams_out, events_out);
        *bytes_out = strtoll (PQgetvalue (results [1], 0, 0), NULL, 10);
    }
    dlq_pg_results_clear (results, 2);
    dlq_buf_free (&streams);
    dlq_buf_free (&size);
    return ok ? DLQ_SINK_STATUS_OK : fail (self, "stats", &error);
}

/* Delete up to max_rows expired events; how many, or -1. */
static int64_t
pg_sweep (void *instance, int64_t now_ms, int64_t max_rows)
{
    dlq_pg_sink_t *self = instance;
    if (max_rows <= 0)
        return 0;
    if (!ready (self, "sweep"))
        return -1;
    char now [DLQ_PG_TIME_LEN], rows [24];
    dlq_pg_format_time (now_ms, now);
    snprintf (rows, sizeof rows, "%" PRId64, max_rows);
    const char *const values [] = { now, rows };
    dlq_buf_t sql = DLQ_BUF_INIT;
    dlq_pg_sql_sweep (&sql, &self->names);
    PGresult *result = NULL;
    dlq_sink_status_t status = query (self, "sweep", &sql, values, 2, &result);
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
