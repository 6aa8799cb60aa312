/*  pg_conn — a libpq connection driven against deadlines (see pg_conn.h).
 *
 *  The socket is non-blocking: every wait is a poll() bounded by the
 *  caller's deadline, so neither a dead server nor a silent network can
 *  hold a thread longer than that. A pipeline is read back result by
 *  result: each statement's result, then the NULL that ends it, and at
 *  last the PGRES_PIPELINE_SYNC of the pipeline's Sync.
 */
#include "pg_conn.h"

#include "dlq_alloc.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEXT_OID 25             /* pg_type.oid of text */
#define BINARY_FORMAT 1

struct dlq_pg_conn {
    const char          *conninfo;
    dlq_pg_conn_hooks_t  hooks;
    PGconn              *pq;
    Oid                 *types;     /* TEXT_OID for every parameter */
    int                 *formats;   /* BINARY_FORMAT for every parameter */
    int                  capacity;  /* of types and formats */
    uint64_t             generation;    /* connections opened so far */
};

typedef enum {
    WAIT_READY,
    WAIT_TIMEOUT,
    WAIT_FAILED
} wait_result_t;

/* ---- errors --------------------------------------------------------------------- */

/* Copy text into a message buffer on one line: libpq's messages have
 * "\n\t" between sentences and a trailing newline. */
static void
copy_message (char *out, size_t out_len, const char *text)
{
    if (!text || !*text)
        text = "unknown error";
    size_t len = 0;
    bool space = false;
    for (const char *p = text; *p && len + 1 < out_len; p++) {
        bool blank = *p == '\n' || *p == '\r' || *p == '\t';
        if (blank && len > 0)
            space = true;
        else if (!blank) {
            if (space && len + 2 < out_len)
                out [len++] = ' ';
            space = false;
            out [len++] = *p;
        }
    }
    out [len] = '\0';
}

/* The connection is gone or unusable: say why, close it, return false. */
static bool
lost (dlq_pg_conn_t *self, dlq_pg_error_t *error, const char *why)
{
    error->fault = DLQ_PG_FAULT_CONNECTION;
    error->sqlstate [0] = '\0';
    copy_message (error->message, sizeof error->message, why);
    dlq_pg_conn_close (self);
    return false;
}

/* The error a failed result carries: SQLSTATE, message and its detail. */
static void
result_error (const dlq_pg_conn_t *self, const PGresult *result, size_t index, dlq_pg_error_t *error)
{
    const char *state = result ? PQresultErrorField (result, PG_DIAG_SQLSTATE) : NULL;
    const char *primary = result ? PQresultErrorField (result, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    const char *detail = result ? PQresultErrorField (result, PG_DIAG_MESSAGE_DETAIL) : NULL;
    snprintf (error->sqlstate, sizeof error->sqlstate, "%s", state ? state : "");
    char text [sizeof error->message];
    if (primary)
        snprintf (text, sizeof text, "%s%s%s%s", primary, detail ? " (" : "", detail ? detail : "",
                  detail ? ")" : "");
    else
        snprintf (text, sizeof text, "%s", result ? PQresultErrorMessage (result) : "no result");
    copy_message (error->message, sizeof error->message, text);
    error->index = index;
    error->fault = dlq_pg_classify (error->sqlstate, dlq_pg_conn_ok (self));
}

/* ---- life ------------------------------------------------------------------------- */

bool
dlq_pg_conninfo_check (const char *conninfo, char *error, size_t error_len)
{
    char *message = NULL;
    PQconninfoOption *options = PQconninfoParse (conninfo, &message);
    if (options) {
        PQconninfoFree (options);
        return true;
    }
    copy_message (error, error_len, message ? message : "out of memory");
    PQfreemem (message);
    return false;
}

dlq_pg_conn_t *
dlq_pg_conn_new (const char *conninfo, const dlq_pg_conn_hooks_t *hooks)
{
    dlq_pg_conn_t *self = dlq_calloc (1, sizeof *self);
    self->conninfo = conninfo;
    self->hooks = *hooks;
    return self;
}

void
dlq_pg_conn_destroy (dlq_pg_conn_t **self_p)
{
    dlq_pg_conn_t *self = *self_p;
    if (!self)
        return;
    dlq_pg_conn_close (self);
    free (self->types);
    free (self->formats);
    free (self);
    *self_p = NULL;
}

bool
dlq_pg_conn_ok (const dlq_pg_conn_t *self)
{
    return self->pq && PQstatus (self->pq) == CONNECTION_OK;
}

bool
dlq_pg_conn_check (dlq_pg_conn_t *self)
{
    if (!dlq_pg_conn_ok (self))
        return false;
    /* A closing server sends its FATAL message, then the end of the
     * stream: each takes a read. */
    for (int reads = 0; reads < 4; reads++) {
        struct pollfd p = { .fd = PQsocket (self->pq), .events = POLLIN };
        if (poll (&p, 1, 0) <= 0)
            return true;
        if (!PQconsumeInput (self->pq) || !dlq_pg_conn_ok (self)) {
            dlq_pg_conn_close (self);
            return false;
        }
    }
    return true;
}

void
dlq_pg_conn_close (dlq_pg_conn_t *self)
{
    if (self->pq)
        PQfinish (self->pq);
    self->pq = NULL;
}

PGconn *
dlq_pg_conn_pq (dlq_pg_conn_t *self)
{
    return dlq_pg_conn_ok (self) ? self->pq : NULL;
}

/* ---- waiting ------------------------------------------------------------------------ */

/* Wait until the socket is ready for events, or the deadline. A deadline
 * already past still checks readiness once. */
static wait_result_t
wait_socket (const dlq_pg_conn_t *self, short events, int64_t deadline_mono_ms, short *revents)
{
    for (;;) {
        int64_t left = deadline_mono_ms - self->hooks.mono_ms ();
        if (left < 0)
            left = 0;
        struct pollfd p = { .fd = PQsocket (self->pq), .events = events };
        int ready = poll (&p, 1, left > INT_MAX ? INT_MAX : (int) left);
        if (ready > 0) {
            *revents = p.revents;
            return WAIT_READY;
        }
        if (ready == 0 && left == 0)
            return WAIT_TIMEOUT;
        if (ready < 0 && errno != EINTR)
            return WAIT_FAILED;
    }
}

/* A server notice, handed to the owner as one line. */
static void
on_notice (void *arg, const char *message)
{
    dlq_pg_conn_t *self = arg;
    char line [512];
    copy_message (line, sizeof line, message);
    if (self->hooks.notice)
        self->hooks.notice (self->hooks.arg, line);
}

/* ---- connecting ---------------------------------------------------------------------- */

/* Drive PQconnectPoll until connected, failed or the deadline. */
static bool
poll_connect (dlq_pg_conn_t *self, int64_t deadline_mono_ms, dlq_pg_error_t *error)
{
    PostgresPollingStatusType status = PGRES_POLLING_WRITING;
    while (status != PGRES_POLLING_OK) {
        if (status == PGRES_POLLING_FAILED)
            return lost (self, error, PQerrorMessage (self->pq));
        short revents;
        wait_result_t waited = wait_socket (self, status == PGRES_POLLING_READING ? POLLIN : POLLOUT,
                                            deadline_mono_ms, &revents);
        if (waited == WAIT_TIMEOUT)
            return lost (self, error, "timeout while connecting");
        if (waited == WAIT_FAILED)
            return lost (self, error, strerror (errno));
        status = PQconnectPoll (self->pq);
    }
    return true;
}

bool
dlq_pg_conn_open (dlq_pg_conn_t *self, int64_t deadline_mono_ms, dlq_pg_error_t *error)
{
    if (dlq_pg_conn_ok (self))
        return true;
    dlq_pg_conn_close (self);
    /* The conninfo is expanded first; the keywords after it override it. */
    static const char *const keywords [] = { "dbname", "fallback_application_name", "client_encoding", NULL };
    const char *const values [] = { self->conninfo, "dlqd", "UTF8", NULL };
    self->pq = PQconnectStartParams (keywords, values, 1);
    if (!self->pq)
        return lost (self, error, "out of memory");
    if (PQstatus (self->pq) == CONNECTION_BAD)
        return lost (self, error, PQerrorMessage (self->pq));
    if (!poll_connect (self, deadline_mono_ms, error))
        return false;
    if (PQsetnonblocking (self->pq, 1) != 0)
        return lost (self, error, PQerrorMessage (self->pq));
    PQsetNoticeProcessor (self->pq, on_notice, self);
    self->generation++;
    return true;
}

uint64_t
dlq_pg_conn_generation (const dlq_pg_conn_t *self)
{
    return self->generation;
}

/* ---- pipelines ------------------------------------------------------------------------ */

/* Room for the types and formats of nparams parameters. */
static void
reserve_params (dlq_pg_conn_t *self, int nparams)
{
    if (nparams <= self->capacity)
        return;
    self->types = dlq_realloc (self->types, (size_t) nparams * sizeof *self->types);
    self->formats = dlq_realloc (self->formats, (size_t) nparams * sizeof *self->formats);
    for (int i = self->capacity; i < nparams; i++) {
        self->types [i] = TEXT_OID;
        self->formats [i] = BINARY_FORMAT;
    }
    self->capacity = nparams;
}

/* Queue one statement: a prepare, a prepared one, or SQL with parameters. */
static bool
send_stmt (dlq_pg_conn_t *self, const dlq_pg_stmt_t *stmt)
{
    reserve_params (self, stmt->nparams);
    if (stmt->name && stmt->prepare)
        return PQsendPrepare (self->pq, stmt->name, stmt->sql, stmt->nparams, self->types);
    if (stmt->name)
        return PQsendQueryPrepared (self->pq, stmt->name, stmt->nparams, stmt->values, stmt->lengths,
                                    self->formats, 0);
    return PQsendQueryParams (self->pq, stmt->sql, stmt->nparams, self->types, stmt->values, stmt->lengths,
                              self->formats, 0);
}

/* Queue the statements and the Sync. */
static bool
send_pipeline (dlq_pg_conn_t *self, const dlq_pg_stmt_t *stmts, size_t n, dlq_pg_error_t *error)
{
    if (!PQenterPipelineMode (self->pq))
        return lost (self, error, PQerrorMessage (self->pq));
    for (size_t i = 0; i < n; i++)
        if (!send_stmt (self, &stmts [i]))
            return lost (self, error, PQerrorMessage (self->pq));
    if (!PQpipelineSync (self->pq))
        return lost (self, error, PQerrorMessage (self->pq));
    return true;
}

/* Write out everything queued, reading whatever the server sends meanwhile. */
static bool
flush_pipeline (dlq_pg_conn_t *self, int64_t deadline_mono_ms, dlq_pg_error_t *error)
{
    int pending;
    while ((pending = PQflush (self->pq)) == 1) {
        short revents;
        wait_result_t waited = wait_socket (self, POLLIN | POLLOUT, deadline_mono_ms, &revents);
        if (waited == WAIT_TIMEOUT)
            return lost (self, error, "timeout while sending to the server");
        if (waited == WAIT_FAILED)
            return lost (self, error, strerror (errno));
        if ((revents & POLLIN) && !PQconsumeInput (self->pq))
            return lost (self, error, PQerrorMessage (self->pq));
    }
    return pending == 0 || lost (self, error, PQerrorMessage (self->pq));
}

/* Wait until the next result can be read without blocking. */
static bool
await_result (dlq_pg_conn_t *self, int64_t deadline_mono_ms, dlq_pg_error_t *error)
{
    while (PQisBusy (self->pq)) {
        short revents;
        wait_result_t waited = wait_socket (self, POLLIN, deadline_mono_ms, &revents);
        if (waited == WAIT_TIMEOUT)
            return lost (self, error, "timeout waiting for the server's answer");
        if (waited == WAIT_FAILED)
            return lost (self, error, strerror (errno));
        if (!PQconsumeInput (self->pq))
            return lost (self, error, PQerrorMessage (self->pq));
    }
    return true;
}

/* The connection broke while results came in: the first failed result
 * says why if there is one (e.g. 57P01 admin_shutdown), else libpq does. */
static bool
broken (dlq_pg_conn_t *self, PGresult **results, size_t n, dlq_pg_error_t *error)
{
    for (size_t i = 0; i < n; i++)
        if (results [i] && PQresultStatus (results [i]) == PGRES_FATAL_ERROR) {
            result_error (self, results [i], i, error);
            error->fault = DLQ_PG_FAULT_CONNECTION;
            dlq_pg_conn_close (self);
            return false;
        }
    return lost (self, error, PQerrorMessage (self->pq));
}

/* Read the results of n statements and the pipeline's Sync. */
static bool
collect_results (dlq_pg_conn_t *self, PGresult **results, size_t n, int64_t deadline_mono_ms,
                 dlq_pg_error_t *error)
{
    size_t index = 0;
    for (;;) {
        if (!await_result (self, deadline_mono_ms, error))
            return false;
        PGresult *result = PQgetResult (self->pq);
        if (result && PQresultStatus (result) == PGRES_PIPELINE_SYNC) {
            PQclear (result);
            return true;
        }
        if (result && index < n && !results [index])
            results [index] = result;
        else
            PQclear (result);
        if (PQstatus (self->pq) != CONNECTION_OK)
            return broken (self, results, n, error);
        if (!result && ++index > n)
            return lost (self, error, "the server's answers do not match the statements sent");
    }
}

/* The first statement that did not succeed, into error; false if any. */
static bool
check_results (dlq_pg_conn_t *self, PGresult **results, size_t n, dlq_pg_error_t *error)
{
    for (size_t i = 0; i < n; i++) {
        ExecStatusType status = results [i] ? PQresultStatus (results [i]) : PGRES_FATAL_ERROR;
        if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_PIPELINE_ABORTED)
            continue;
        result_error (self, results [i], i, error);
        if (error->fault == DLQ_PG_FAULT_CONNECTION)
            dlq_pg_conn_close (self);
        return false;
    }
    return true;
}

bool
dlq_pg_conn_run (dlq_pg_conn_t *self, const dlq_pg_stmt_t *stmts, size_t n, PGresult **results,
                 int64_t deadline_mono_ms, dlq_pg_error_t *error)
{
    memset (results, 0, n * sizeof *results);
    memset (error, 0, sizeof *error);
    if (!dlq_pg_conn_ok (self))
        return lost (self, error, "not connected to the server");
    if (!send_pipeline (self, stmts, n, error) || !flush_pipeline (self, deadline_mono_ms, error)
        || !collect_results (self, results, n, deadline_mono_ms, error))
        return false;
    if (!PQexitPipelineMode (self->pq))
        return lost (self, error, PQerrorMessage (self->pq));
    return check_results (self, results, n, error);
}

bool
dlq_pg_conn_exec (dlq_pg_conn_t *self, const dlq_pg_stmt_t *stmts, size_t n,
                  int64_t deadline_mono_ms, dlq_pg_error_t *error)
{
    PGresult **results = dlq_calloc (n ? n : 1, sizeof *results);
    bool ok = dlq_pg_conn_run (self, stmts, n, results, deadline_mono_ms, error);
    dlq_pg_results_clear (results, n);
    free (results);
    return ok;
}

void
dlq_pg_conn_rollback (dlq_pg_conn_t *self)
{
    if (!dlq_pg_conn_ok (self) || PQtransactionStatus (self->pq) == PQTRANS_IDLE)
        return;
    dlq_pg_stmt_t rollback = { .sql = "ROLLBACK" };
    dlq_pg_error_t error;
    if (!dlq_pg_conn_exec (self, &rollback, 1, self->hooks.mono_ms () + DLQ_PG_ROLLBACK_MS, &error))
        dlq_pg_conn_close (self);
}

void
dlq_pg_results_clear (PGresult **results, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        PQclear (results [i]);
        results [i] = NULL;
    }
}
