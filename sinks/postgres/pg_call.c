/*  pg_call — the plumbing of the sink's query calls (see pg_call.h). */
#include "pg_call.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t
dlq_pg_call_deadline (const dlq_pg_sink_t *self)
{
    return self->host->mono_ms () + self->connect_timeout_ms + self->statement_timeout_ms + DLQ_PG_GRACE_MS;
}

dlq_sink_status_t
dlq_pg_call_fail (dlq_pg_sink_t *self, const char *what, const dlq_pg_error_t *error)
{
    snprintf (self->last_error, sizeof self->last_error, "postgres %s: %s%s%s", what,
              error->sqlstate, error->sqlstate [0] ? " " : "", error->message);
    bool background = strcmp (what, "sweep") == 0;
    self->host->log (self->config, background ? DLQ_SINK_LOG_WARN : DLQ_SINK_LOG_DEBUG, "%s", self->last_error);
    dlq_pg_conn_rollback (self->conn);
    dlq_pg_sink_failed (self, error);
    return DLQ_SINK_STATUS_ERROR;
}

bool
dlq_pg_call_ready (dlq_pg_sink_t *self, const char *what)
{
    dlq_pg_error_t error;
    if (dlq_pg_sink_ready (self, dlq_pg_call_deadline (self), &error))
        return true;
    dlq_pg_call_fail (self, what, &error);
    return false;
}

dlq_sink_status_t
dlq_pg_call_run (dlq_pg_sink_t *self, const char *what, const dlq_pg_stmt_t *stmts, size_t n,
                 PGresult **results)
{
    dlq_pg_error_t error;
    if (dlq_pg_conn_run (self->conn, stmts, n, results, dlq_pg_call_deadline (self), &error))
        return DLQ_SINK_STATUS_OK;
    dlq_pg_results_clear (results, n);
    return dlq_pg_call_fail (self, what, &error);
}

dlq_sink_status_t
dlq_pg_call_query (dlq_pg_sink_t *self, const char *what, const char *sql, const char *const *values, int n,
                   PGresult **result)
{
    int lengths [DLQ_PG_CALL_PARAMS_MAX];
    for (int i = 0; i < n; i++)
        lengths [i] = (int) strlen (values [i]);
    dlq_pg_stmt_t stmt = { .sql = sql, .nparams = n, .values = values, .lengths = lengths };
    return dlq_pg_call_run (self, what, &stmt, 1, result);
}

void
dlq_pg_call_put (const dlq_pg_sink_t *self, dlq_sink_buf_t *out, const char *data, size_t len)
{
    self->host->append (out, data, len);
}

size_t
dlq_pg_call_page_size (size_t limit)
{
    return limit < 1 ? 1 : limit > DLQ_PG_LIST_LIMIT_MAX ? DLQ_PG_LIST_LIMIT_MAX : limit;
}

void
dlq_pg_call_write_page (const dlq_pg_sink_t *self, const PGresult *r, size_t limit,
                        dlq_sink_buf_t *events_out, dlq_sink_buf_t *cursor_out)
{
    size_t page = dlq_pg_call_page_size (limit), rows = (size_t) PQntuples (r);
    size_t shown = limit == 0 ? 0 : rows < page ? rows : page;
    dlq_pg_call_put (self, events_out, "[", 1);
    for (size_t i = 0; i < shown; i++) {
        if (i > 0)
            dlq_pg_call_put (self, events_out, ",", 1);
        dlq_pg_call_put (self, events_out, PQgetvalue (r, (int) i, 0), (size_t) PQgetlength (r, (int) i, 0));
    }
    dlq_pg_call_put (self, events_out, "]", 1);
    if (rows <= page || shown == 0)
        return;
    char cursor [DLQ_PG_CURSOR_LEN];
    int64_t created_us = strtoll (PQgetvalue (r, (int) shown - 1, 1), NULL, 10);
    dlq_pg_cursor_format (created_us, PQgetvalue (r, (int) shown - 1, 2), cursor);
    dlq_pg_call_put (self, cursor_out, cursor, strlen (cursor));
}
