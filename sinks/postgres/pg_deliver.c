/*  pg_deliver — deliver for the postgres sink: a batch in one round trip
 *  and one transaction.
 *
 *  The batch goes out as one pipeline: BEGIN; the transaction's
 *  statement_timeout (the sooner of the setting and the deadline); one
 *  multi-row INSERT ... ON CONFLICT (id) DO NOTHING per chunk (under the
 *  protocol's 65535 parameters and DLQ_PG_CHUNK_BYTES), prepared when its
 *  size recurs (pg_insert.h); COMMIT. An id already there is skipped and
 *  OK (idempotent redelivery).
 *
 *  Outcomes:
 *    - an event whose body cannot make a row (pg_format) is FAIL, unsent;
 *    - everything committed: OK, counted "inserted" or "conflicts";
 *    - a data fault (SQLSTATE class 22 or 23, 54000): the culprits are
 *      found in one new transaction, row by row, each INSERT between
 *      SAVEPOINT and RELEASE (or ROLLBACK TO): the rows the server refuses
 *      are FAIL with its message, the others are committed together;
 *    - any other fault (connection lost, server shutting down, timeout,
 *      serialization, resources, ...): every event RETRY with the server's
 *      message; a lost connection is opened again by the next call.
 *  The sink never retries in a loop: the gateway does.
 */
#include "pg_sink.h"

#include "dlq_alloc.h"
#include "sink_outcome.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROW_PARAMS DLQ_PG_PARAM_COUNT

/* ---- outcomes ---------------------------------------------------------------- */

/* The message of an outcome for error: "postgres: <SQLSTATE> <message>". */
static void
describe (const dlq_pg_error_t *error, char *out, size_t out_len)
{
    if (error->sqlstate [0])
        snprintf (out, out_len, "postgres: %s %.220s", error->sqlstate, error->message);
    else
        snprintf (out, out_len, "postgres: %s: %.210s", dlq_pg_fault_name (error->fault), error->message);
}

/* Every row of the batch not already FAIL is RETRY, for error. */
static void
retry_rows (dlq_pg_sink_t *self, size_t n, dlq_sink_outcome_t *outcomes, const dlq_pg_error_t *error)
{
    char message [sizeof outcomes->message];
    describe (error, message, sizeof message);
    for (size_t k = 0; k < n; k++)
        if (outcomes [self->slot [k]].result != DLQ_SINK_FAIL)
            dlq_sink_outcome_set (&outcomes [self->slot [k]], DLQ_SINK_RETRY, "%s", message);
    dlq_pg_sink_failed (self, error);
}

/* Add the batch's counters. */
static void
add_counts (const dlq_pg_sink_t *self, size_t inserted, size_t conflicts, size_t failed)
{
    if (inserted)
        self->host->count (self->config, "inserted", inserted);
    if (conflicts)
        self->host->count (self->config, "conflicts", conflicts);
    if (failed)
        self->host->count (self->config, "failed", failed);
}

/* ---- rows ---------------------------------------------------------------------- */

/* Room for a batch of count events. */
static void
reserve (dlq_pg_sink_t *self, size_t count)
{
    if (count <= self->capacity)
        return;
    self->rows = dlq_realloc (self->rows, count * sizeof *self->rows);
    for (size_t k = self->capacity; k < count; k++)
        self->rows [k] = (dlq_pg_row_t) DLQ_PG_ROW_INIT;
    self->slot = dlq_realloc (self->slot, count * sizeof *self->slot);
    self->values = dlq_realloc (self->values, count * ROW_PARAMS * sizeof *self->values);
    self->lengths = dlq_realloc (self->lengths, count * ROW_PARAMS * sizeof *self->lengths);
    self->capacity = count;
}

/* Make the rows of the batch (rows [k] for events [slot [k]]); the events
 * that cannot make one are FAIL. Returns how many rows. */
static size_t
format_rows (dlq_pg_sink_t *self, const dlq_sink_event_t *events, size_t count, dlq_sink_outcome_t *outcomes)
{
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        char why [200];
        if (dlq_pg_format_row (&events [i], &self->rows [n], why, sizeof why) != DLQ_PG_FORMAT_OK) {
            dlq_sink_outcome_set (&outcomes [i], DLQ_SINK_FAIL, "postgres: cannot store this event: %s", why);
            continue;
        }
        memcpy (&self->values [n * ROW_PARAMS], self->rows [n].value, sizeof self->rows [n].value);
        memcpy (&self->lengths [n * ROW_PARAMS], self->rows [n].length, sizeof self->rows [n].length);
        self->slot [n++] = i;
    }
    return n;
}

/* Free the batch's rows. */
static void
free_rows (dlq_pg_sink_t *self, size_t n)
{
    for (size_t k = 0; k < n; k++)
        dlq_pg_row_free (&self->rows [k]);
}

/* ---- transactions ----------------------------------------------------------------- */

/* The transaction's statement_timeout: the setting, or less to end by the
 * deadline (at least 1 ms), as text into out (24 bytes). */
static void
local_timeout (const dlq_pg_sink_t *self, int64_t deadline, char *out)
{
    int64_t left = deadline - self->host->mono_ms ();
    int64_t timeout = left < self->statement_timeout_ms ? left : self->statement_timeout_ms;
    snprintf (out, 24, "%" PRId64, timeout > 0 ? timeout : 1);
}

/* Open a transaction with its statement_timeout: BEGIN and set_config,
 * as the two first statements of stmts (timeout holds the value). */
static void
begin_stmts (dlq_pg_stmt_t *stmts, const char *const *timeout, const int *length)
{
    stmts [0] = (dlq_pg_stmt_t) { .sql = "BEGIN" };
    stmts [1] = (dlq_pg_stmt_t) { .sql = DLQ_PG_SQL_LOCAL_TIMEOUT, .nparams = 1, .values = timeout, .lengths = length };
}

/* Run one pipeline: head (NULL: BEGIN and the transaction's timeout),
 * the INSERTs of rows [first, first + n), then tail (NULL: COMMIT). True
 * when every statement succeeded, with the rows inserted in *inserted. */
static bool
run_inserts (dlq_pg_sink_t *self, size_t first, size_t n, const char *head, const char *tail,
             int64_t deadline, size_t *inserted, dlq_pg_error_t *error)
{
    size_t room = DLQ_PG_INSERT_STMTS_PER_ROW * n + 3;
    dlq_pg_stmt_t *stmts = dlq_calloc (room, sizeof *stmts);
    dlq_pg_step_t *steps = dlq_calloc (room, sizeof *steps);
    char timeout [24];
    local_timeout (self, deadline, timeout);
    const char *const timeout_value [] = { timeout };
    const int timeout_length [] = { (int) strlen (timeout) };
    size_t count = 0;
    if (head)
        stmts [count++] = (dlq_pg_stmt_t) { .sql = head };
    else {
        begin_stmts (stmts, timeout_value, timeout_length);
        count = 2;
    }
    size_t at = first * ROW_PARAMS;
    count += dlq_pg_inserts_add (&self->inserts, dlq_pg_conn_generation (self->conn), &self->names,
                                 &self->rows [first], &self->values [at], &self->lengths [at], n,
                                 &stmts [count], &steps [count]);
    stmts [count++] = (dlq_pg_stmt_t) { .sql = tail ? tail : "COMMIT" };
    PGresult **results = dlq_calloc (count, sizeof *results);
    bool ok = dlq_pg_conn_run (self->conn, stmts, count, results, deadline + DLQ_PG_GRACE_MS, error);
    *inserted = dlq_pg_inserts_settle (&self->inserts, steps, results, count);
    dlq_pg_results_clear (results, count);
    free (results);
    free (steps);
    free (stmts);
    if (!ok && error->fault == DLQ_PG_FAULT_PREPARED)
        dlq_pg_inserts_forget (&self->inserts);
    return ok;
}

/* Insert the n rows in one transaction, one round trip. True when
 * committed, with how many rows were new in *inserted. */
static bool
insert_batch (dlq_pg_sink_t *self, size_t n, int64_t deadline, size_t *inserted, dlq_pg_error_t *error)
{
    bool ok = run_inserts (self, 0, n, NULL, NULL, deadline, inserted, error);
    if (!ok)
        dlq_pg_conn_rollback (self->conn);
    return ok;
}

/* ---- the culprit search ---------------------------------------------------------- */

/* Run statements sql [0..n) without parameters. */
static bool
exec_plain (dlq_pg_sink_t *self, const char *const *sql, size_t n, int64_t deadline, dlq_pg_error_t *error)
{
    dlq_pg_stmt_t stmts [4];
    for (size_t i = 0; i < n; i++)
        stmts [i] = (dlq_pg_stmt_t) { .sql = sql [i] };
    return dlq_pg_conn_exec (self->conn, stmts, n, deadline + DLQ_PG_GRACE_MS, error);
}

/* BEGIN with the transaction's statement_timeout. */
static bool
begin (dlq_pg_sink_t *self, int64_t deadline, dlq_pg_error_t *error)
{
    char timeout [24];
    local_timeout (self, deadline, timeout);
    const char *const value [] = { timeout };
    const int length [] = { (int) strlen (timeout) };
    dlq_pg_stmt_t stmts [2];
    begin_stmts (stmts, value, length);
    return dlq_pg_conn_exec (self->conn, stmts, 2, deadline + DLQ_PG_GRACE_MS, error);
}

/* Row k alone, between SAVEPOINT and RELEASE; *inserted when it was new.
 * On a refused row the savepoint is left for roll_back_row. */
static bool
insert_row (dlq_pg_sink_t *self, size_t k, int64_t deadline, bool *inserted, dlq_pg_error_t *error)
{
    size_t rows = 0;
    bool ok = run_inserts (self, k, 1, "SAVEPOINT dlq_row", "RELEASE SAVEPOINT dlq_row", deadline, &rows, error);
    *inserted = ok && rows > 0;
    return ok;
}

/* Undo a refused row: back to the savepoint, then drop it. */
static bool
roll_back_row (dlq_pg_sink_t *self, int64_t deadline, dlq_pg_error_t *error)
{
    static const char *const sql [] = { "ROLLBACK TO SAVEPOINT dlq_row", "RELEASE SAVEPOINT dlq_row" };
    return exec_plain (self, sql, 2, deadline, error);
}

/* Give up the search: roll back, RETRY what is not FAIL, count the FAILs. */
static void
abandon (dlq_pg_sink_t *self, size_t n, dlq_sink_outcome_t *outcomes, size_t failed,
         const dlq_pg_error_t *error)
{
    dlq_pg_conn_rollback (self->conn);
    retry_rows (self, n, outcomes, error);
    add_counts (self, 0, 0, failed);
}

/* After a data fault in the batch's INSERT: insert the rows one by one in
 * one transaction, FAIL those the server refuses, commit the others. */
static void
find_culprits (dlq_pg_sink_t *self, size_t n, dlq_sink_outcome_t *outcomes, int64_t deadline)
{
    dlq_pg_error_t error;
    size_t inserted = 0, failed = 0;
    if (!begin (self, deadline, &error)) {
        abandon (self, n, outcomes, failed, &error);
        return;
    }
    for (size_t k = 0; k < n; k++) {
        bool new_row;
        if (insert_row (self, k, deadline, &new_row, &error)) {
            inserted += new_row;
            continue;
        }
        char message [sizeof outcomes->message];
        describe (&error, message, sizeof message);
        if (error.fault != DLQ_PG_FAULT_DATA || !roll_back_row (self, deadline, &error)) {
            abandon (self, n, outcomes, failed, &error);
            return;
        }
        dlq_sink_outcome_set (&outcomes [self->slot [k]], DLQ_SINK_FAIL, "%s", message);
        failed++;
    }
    static const char *const commit [] = { "COMMIT" };
    if (!exec_plain (self, commit, 1, deadline, &error)) {
        abandon (self, n, outcomes, failed, &error);
        return;
    }
    add_counts (self, inserted, n - failed - inserted, failed);
}

/* ---- deliver ----------------------------------------------------------------------- */

/* Deliver n formatted rows; see the banner for the outcomes. */
static void
deliver_rows (dlq_pg_sink_t *self, size_t n, dlq_sink_outcome_t *outcomes, int64_t deadline)
{
    dlq_pg_error_t error;
    size_t inserted;
    if (self->host->mono_ms () >= deadline) {
        error = (dlq_pg_error_t) { .fault = DLQ_PG_FAULT_TRANSIENT };
        snprintf (error.message, sizeof error.message, "the delivery's deadline passed before sending");
        retry_rows (self, n, outcomes, &error);
    } else if (!dlq_pg_sink_ready (self, deadline, &error))
        retry_rows (self, n, outcomes, &error);
    else if (insert_batch (self, n, deadline, &inserted, &error))
        add_counts (self, inserted, n - inserted, 0);
    else if (error.fault == DLQ_PG_FAULT_DATA)
        find_culprits (self, n, outcomes, deadline);
    else
        retry_rows (self, n, outcomes, &error);
}

void
dlq_pg_sink_deliver (void *instance, const dlq_sink_event_t *events, size_t count,
                     dlq_sink_outcome_t *outcomes, int64_t deadline_mono_ms)
{
    dlq_pg_sink_t *self = instance;
    reserve (self, count);
    size_t n = format_rows (self, events, count, outcomes);
    add_counts (self, 0, 0, count - n);
    if (n > 0)
        deliver_rows (self, n, outcomes, deadline_mono_ms);
    free_rows (self, n);
}
