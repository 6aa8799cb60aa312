/*  pg_conn — one libpq connection of the postgres sink, driven without
 *  blocking against a deadline on the monotonic clock.
 *
 *  Connecting polls PQconnectStartParams' socket until the deadline (so a
 *  connect timeout has millisecond resolution and a dead address never
 *  holds a dispatcher past its deadline). Statements are sent as one
 *  pipeline (PQenterPipelineMode ... PQpipelineSync): any number of them in
 *  one round trip. Every parameter is declared text and sent in binary
 *  format with its length (no copy, no terminating NUL needed).
 *
 *  On a fault of the connection itself (lost, server shutting down, the
 *  deadline passed with the answer still out) the connection is closed;
 *  the next call connects again.
 */
#ifndef DLQ_PG_CONN_H
#define DLQ_PG_CONN_H

#include "pg_sqlstate.h"

#include <libpq-fe.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct dlq_pg_conn dlq_pg_conn_t;

/* Why a call failed: the fault, which statement (its index), the
 * SQLSTATE ("" when none) and the server's (or libpq's) message. */
typedef struct {
    dlq_pg_fault_t fault;
    size_t         index;
    char           sqlstate [6];
    char           message [240];
} dlq_pg_error_t;

/* One statement of a pipeline: its SQL and its text parameters (values [i]
 * NULL for SQL NULL, else lengths [i] bytes). With a name, it either
 * prepares sql as that statement for nparams text parameters (prepare)
 * or runs the statement prepared under that name (sql unused). */
typedef struct {
    const char        *sql;
    int                nparams;
    const char *const *values;
    const int         *lengths;
    const char        *name;
    bool               prepare;
} dlq_pg_stmt_t;

/* What the connection reports back to its owner. */
typedef struct {
    int64_t (*mono_ms) (void);                      /* the deadline's clock */
    void    (*notice) (void *arg, const char *msg); /* a server NOTICE/WARNING, one line */
    void     *arg;
} dlq_pg_conn_hooks_t;

/* Check that conninfo parses (keywords, quoting, URI); false with
 * libpq's message in error. */
bool dlq_pg_conninfo_check (const char *conninfo, char *error, size_t error_len);

/* A connection object for conninfo (not connected yet). conninfo must
 * outlive it. client_encoding is forced to UTF8 and application_name
 * defaults to "dlqd". */
dlq_pg_conn_t *dlq_pg_conn_new (const char *conninfo, const dlq_pg_conn_hooks_t *hooks);

/* Close and free; accepts NULL, NULLs the pointer. */
void dlq_pg_conn_destroy (dlq_pg_conn_t **self_p);

/* True when connected (and the last call did not lose the connection). */
bool dlq_pg_conn_ok (const dlq_pg_conn_t *self);

/* True when connected and the server did not close the connection while
 * it sat idle (a server restart, an idle timeout): whatever the server
 * sent meanwhile is read without waiting, and a connection found closed
 * is closed here too, so the next open connects afresh instead of the
 * next statement failing. */
bool dlq_pg_conn_check (dlq_pg_conn_t *self);

/* Connect unless connected, giving up at deadline_mono_ms. True when
 * connected; else false with error (fault CONNECTION). */
bool dlq_pg_conn_open (dlq_pg_conn_t *self, int64_t deadline_mono_ms, dlq_pg_error_t *error);

/* Close the connection (the next open connects again). */
void dlq_pg_conn_close (dlq_pg_conn_t *self);

/* How many times a connection was opened: statements prepared under
 * another generation are gone. */
uint64_t dlq_pg_conn_generation (const dlq_pg_conn_t *self);

/* The libpq connection, for PQescapeIdentifier; NULL when not connected. */
PGconn *dlq_pg_conn_pq (dlq_pg_conn_t *self);

/* Run n statements as one pipeline, waiting for the answers until
 * deadline_mono_ms. results [i] receives statement i's result (caller
 * PQclears it; NULL when none came). True when every statement succeeded;
 * else false with the first failure in error (a statement that failed on
 * the server, or the connection, which is then closed). Statements after
 * a failed one are not run (their results are PGRES_PIPELINE_ABORTED). */
bool dlq_pg_conn_run (dlq_pg_conn_t *self, const dlq_pg_stmt_t *stmts, size_t n, PGresult **results,
                      int64_t deadline_mono_ms, dlq_pg_error_t *error);

/* Run n statements and clear their results: true when all succeeded. */
bool dlq_pg_conn_exec (dlq_pg_conn_t *self, const dlq_pg_stmt_t *stmts, size_t n,
                       int64_t deadline_mono_ms, dlq_pg_error_t *error);

/* How long a ROLLBACK may take before the connection is dropped instead. */
#define DLQ_PG_ROLLBACK_MS 1000

/* Roll back the open transaction, if any (a failed one included), waiting
 * at most DLQ_PG_ROLLBACK_MS (whatever the caller's deadline: the
 * connection is worth keeping); closes the connection when that fails. */
void dlq_pg_conn_rollback (dlq_pg_conn_t *self);

/* Clear n results and NULL them. */
void dlq_pg_results_clear (PGresult **results, size_t n);

#endif
