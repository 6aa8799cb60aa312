/*  pg_call — what every query call of the postgres sink (the store calls,
 *  pg_store.c; the workbench calls, pg_query.c and pg_workbench.c) does
 *  around its SQL: connect and set the table up if need be, run
 *  statements against the call's deadline, record why a call failed
 *  (last_error) and write into the host's buffers.
 *
 *  A call waits for its answer up to connect_timeout_ms +
 *  statement_timeout_ms (the server cancels a statement then) plus a
 *  grace. A failed call inside a transaction rolls it back.
 */
#ifndef DLQ_PG_CALL_H
#define DLQ_PG_CALL_H

#include "pg_sink.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Most NUL-terminated parameters dlq_pg_call_query takes. */
#define DLQ_PG_CALL_PARAMS_MAX 8

/* When a call started now stops waiting for its answer (host->mono_ms clock). */
int64_t dlq_pg_call_deadline (const dlq_pg_sink_t *self);

/* Record why call what failed (last_error) and log it: at debug level,
 * since the gateway logs a failed query with last_error, but as a warning
 * for the sweep, which runs in the background. Rolls back an open
 * transaction. Returns ERROR. */
dlq_sink_status_t dlq_pg_call_fail (dlq_pg_sink_t *self, const char *what, const dlq_pg_error_t *error);

/* Connect and set the table up if need be, before the call's SQL is
 * built (the quoted names are known from the first connection on); false
 * (recorded) when that failed. */
bool dlq_pg_call_ready (dlq_pg_sink_t *self, const char *what);

/* Run n statements as one pipeline; results [i] gets statement i's
 * (caller clears). ERROR (recorded, results cleared) on failure. */
dlq_sink_status_t dlq_pg_call_run (dlq_pg_sink_t *self, const char *what, const dlq_pg_stmt_t *stmts, size_t n,
                                   PGresult **results);

/* Run one statement with n (<= DLQ_PG_CALL_PARAMS_MAX) NUL-terminated
 * text values, as dlq_pg_call_run. */
dlq_sink_status_t dlq_pg_call_query (dlq_pg_sink_t *self, const char *what, const char *sql,
                                     const char *const *values, int n, PGresult **result);

/* Most rows one LIST page may ask for. */
#define DLQ_PG_LIST_LIMIT_MAX 1000000

/* The rows a page of limit shows: limit within [1, DLQ_PG_LIST_LIMIT_MAX].
 * A page's statement fetches one more, to know whether a next one exists. */
size_t dlq_pg_call_page_size (size_t limit);

/* Write a LIST page from r (rows: payload_text, created_at in µs, id; up
 * to one more than the page): the page's rows as a JSON array into
 * events_out (none for limit 0), and the cursor after its last row into
 * cursor_out when more rows came. */
void dlq_pg_call_write_page (const dlq_pg_sink_t *self, const PGresult *r, size_t limit,
                             dlq_sink_buf_t *events_out, dlq_sink_buf_t *cursor_out);

/* Append len bytes to a host buffer. */
void dlq_pg_call_put (const dlq_pg_sink_t *self, dlq_sink_buf_t *out, const char *data, size_t len);

#endif
