/*  ledger_store — the delivery ledger in the daemon's state file; see
 *  ledger_store.h.
 *
 *  deliveries is WITHOUT ROWID, clustered on (sink, seq): a row is found by
 *  its key with no rowid hop. deliveries_by_state serves a sink's rows in
 *  one state in seq order (rows_of_sink, count_state: the index holds the
 *  key columns, so counting reads the index only); deliveries_by_seq serves
 *  rows_of_seq (its entries are (seq, sink), so sinks come out in name
 *  order); deliveries_by_id a REDELIVER of one event; deliveries_by_expiry
 *  the sweep.
 */
#include "ledger_store.h"

#include "dlq_time.h"
#include "event_record.h"
#include "state_internal.h"

#include <stdio.h>
#include <string.h>

#define ROW_COLUMNS "d.seq, d.state, d.attempts, d.next_attempt_at, d.updated_at, d.last_error," \
                    " d.id, d.expires_at"

typedef enum {
    RC_SEQ, RC_STATE, RC_ATTEMPTS, RC_NEXT_ATTEMPT_AT, RC_UPDATED_AT, RC_LAST_ERROR, RC_ID, RC_EXPIRES_AT,
    RC_SINK                                 /* rows_of_seq only */
} row_col_t;

/* A negative cursor or marker means "no change": max() keeps the stored
 * one, and a new sink starts at 0. */
#define SQL_STATE_UPSERT \
    "INSERT INTO sink_state (sink, cursor, attempted, delivered, failed, redelivered)" \
    " VALUES (?1, max(?2, 0), max(?3, 0), ?4, ?5, ?6)" \
    " ON CONFLICT (sink) DO UPDATE SET" \
    " cursor = max(cursor, excluded.cursor), attempted = max(attempted, excluded.attempted)," \
    " delivered = delivered + excluded.delivered, failed = failed + excluded.failed," \
    " redelivered = redelivered + excluded.redelivered"
/* An update's row without an id (a requeue) keeps the event's id, stream
 * and expiry the row holds. */
#define SQL_ROW_UPSERT \
    "INSERT INTO deliveries (sink, seq, state, attempts, last_error, next_attempt_at, updated_at," \
    " id, stream_name, expires_at, record) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)" \
    " ON CONFLICT (sink, seq) DO UPDATE SET" \
    " state = excluded.state, attempts = excluded.attempts, last_error = excluded.last_error," \
    " next_attempt_at = excluded.next_attempt_at, updated_at = excluded.updated_at," \
    " id = coalesce (excluded.id, id), stream_name = coalesce (excluded.stream_name, stream_name)," \
    " expires_at = CASE WHEN excluded.id IS NULL THEN expires_at ELSE excluded.expires_at END," \
    " record = CASE WHEN excluded.state = 'delivered' THEN NULL ELSE coalesce (excluded.record, record) END"
/* what a durable commit writes when it has nothing else to: a FULL commit
 * syncs the WAL, and with it every relaxed commit before */
#define SQL_DURABLE \
    "INSERT INTO meta (key, value) VALUES ('ledger_synced_at', ?1)" \
    " ON CONFLICT (key) DO UPDATE SET value = excluded.value"
#define SQL_SINK_STATE \
    "SELECT cursor, attempted, delivered, failed, redelivered FROM sink_state WHERE sink = ?1"
#define SQL_COUNT_STATE "SELECT count(*) FROM deliveries WHERE sink = ?1 AND state = ?2"
/* INDEXED BY: without statistics SQLite prefers walking all of the sink's
 * rows by primary key (already in seq order) and filtering on state, which
 * reads every delivered and failed row to find the few retrying ones. */
#define SQL_ROWS_OF_SINK \
    "SELECT " ROW_COLUMNS " FROM deliveries AS d INDEXED BY deliveries_by_state" \
    " WHERE d.sink = ?1 AND d.state = ?2 AND (?3 IS NULL OR d.stream_name = ?3) ORDER BY d.seq"
#define SQL_ROWS_OF_SINK_ID \
    "SELECT " ROW_COLUMNS " FROM deliveries AS d INDEXED BY deliveries_by_id" \
    " WHERE d.id = ?4 AND d.sink = ?1 AND d.state = ?2 AND (?3 IS NULL OR d.stream_name = ?3)" \
    " ORDER BY d.seq"
#define SQL_RECORD "SELECT record FROM deliveries WHERE sink = ?1 AND seq = ?2 AND record IS NOT NULL"
#define SQL_ROWS_OF_SEQ "SELECT " ROW_COLUMNS ", d.sink FROM deliveries AS d WHERE d.seq = ?1 ORDER BY d.sink"
#define SQL_SWEEP \
    "DELETE FROM deliveries WHERE (sink, seq) IN (SELECT sink, seq FROM deliveries INDEXED BY deliveries_by_expiry" \
    " WHERE expires_at IS NOT NULL AND expires_at <= ?1 LIMIT ?2)"


/* ------------------------------------------------------------------------ */
/* Writing */

static bool
upsert_state (dlq_state_store_t *self, const dlq_ledger_update_t *u)
{
    sqlite3_stmt *stmt = state_store_stmt (self, STATE_LEDGER_STATE_UPSERT, SQL_STATE_UPSERT);
    if (!stmt)
        return false;
    state_store_bind_text (stmt, 1, u->sink);
    sqlite3_bind_int64 (stmt, 2, u->cursor);
    sqlite3_bind_int64 (stmt, 3, u->attempted);
    sqlite3_bind_int64 (stmt, 4, (int64_t) u->delivered);
    sqlite3_bind_int64 (stmt, 5, (int64_t) u->failed);
    sqlite3_bind_int64 (stmt, 6, (int64_t) u->redelivered);
    return state_store_step_done (self, stmt, "ledger: cannot update sink_state");
}

static void
bind_time (sqlite3_stmt *stmt, int index, int64_t ms)
{
    if (ms == DLQ_TIME_NONE)
        sqlite3_bind_null (stmt, index);
    else
        sqlite3_bind_int64 (stmt, index, ms);
}

/* last_error is bound up to its first NUL or the end of its array, so an
 * unterminated one is cut rather than overrun. */
static bool
upsert_row (dlq_state_store_t *self, const char *sink, const dlq_delivery_row_t *row)
{
    sqlite3_stmt *stmt = state_store_stmt (self, STATE_LEDGER_ROW_UPSERT, SQL_ROW_UPSERT);
    if (!stmt)
        return false;
    size_t error_len = strnlen (row->last_error, sizeof row->last_error);
    state_store_bind_text (stmt, 1, sink);
    sqlite3_bind_int64 (stmt, 2, row->seq);
    state_store_bind_text (stmt, 3, dlq_delivery_state_name (row->state));
    sqlite3_bind_int64 (stmt, 4, row->attempts);
    if (error_len)
        sqlite3_bind_text (stmt, 5, row->last_error, (int) error_len, SQLITE_STATIC);
    else
        sqlite3_bind_null (stmt, 5);
    bind_time (stmt, 6, row->next_attempt_at);
    sqlite3_bind_int64 (stmt, 7, row->updated_at);
    if (row->id [0]) {
        state_store_bind_text (stmt, 8, row->id);
        state_store_bind_text (stmt, 9, row->stream);
        bind_time (stmt, 10, row->expires_at);
    }
    if (row->record)
        sqlite3_bind_blob (stmt, 11, row->record, (int) row->record_len, SQLITE_STATIC);
    return state_store_step_done (self, stmt, "ledger: cannot update deliveries");
}

static bool
check (dlq_state_store_t *self, dlq_ledger_update_t *const *updates, size_t count)
{
    if (count && !updates) {
        state_store_fail_text (self, "ledger: %zu updates but no array", count);
        return false;
    }
    for (size_t i = 0; i < count; i++) {
        const char *problem = dlq_ledger_update_problem (updates [i]);
        if (problem) {
            state_store_fail_text (self, "ledger: update %zu %s", i, problem);
            return false;
        }
    }
    return true;
}

static bool
apply_all (dlq_state_store_t *self, dlq_ledger_update_t *const *updates, size_t count, bool durable)
{
    for (size_t i = 0; i < count; i++) {
        if (!upsert_state (self, updates [i]))
            return false;
        for (size_t r = 0; r < updates [i]->row_count; r++)
            if (!upsert_row (self, updates [i]->sink, &updates [i]->rows [r]))
                return false;
    }
    if (!durable)
        return true;
    sqlite3_stmt *stmt = state_store_stmt (self, STATE_LEDGER_DURABLE, SQL_DURABLE);
    if (!stmt)
        return false;
    sqlite3_bind_int64 (stmt, 1, dlq_time_now_ms ());
    return state_store_step_done (self, stmt, "ledger: cannot record the durable commit");
}

dlq_store_result_t
dlq_ledger_store_apply (dlq_state_store_t *self, dlq_ledger_update_t *const *updates, size_t count, bool durable)
{
    if (!check (self, updates, count))
        return DLQ_STORE_ERROR;
    if (count == 0 && !durable)
        return DLQ_STORE_OK;
    bool ok = state_store_sync_each_commit (self, durable)
           && state_store_begin (self, "ledger: cannot begin")
           && apply_all (self, updates, count, durable)
           && state_store_commit (self, "ledger: cannot commit");
    if (!ok)
        state_store_rollback (self);
    if (!durable)
        state_store_sync_each_commit (self, true);
    return ok ? DLQ_STORE_OK : DLQ_STORE_ERROR;
}

int64_t
dlq_ledger_store_sweep (dlq_state_store_t *self, int64_t now_ms, int max_rows)
{
    sqlite3_stmt *stmt = state_store_stmt (self, STATE_LEDGER_SWEEP, SQL_SWEEP);
    if (!stmt)
        return -1;
    sqlite3_bind_int64 (stmt, 1, now_ms);
    sqlite3_bind_int64 (stmt, 2, max_rows);
    if (!state_store_step_done (self, stmt, "ledger: cannot sweep the rows of expired events"))
        return -1;
    return sqlite3_changes64 (state_store_db (self));
}


/* ------------------------------------------------------------------------ */
/* Reading */

/* Step a bound one-row, one-integer query and release it. */
static bool
query_int64 (dlq_state_store_t *self, sqlite3_stmt *stmt, const char *what, int64_t *out)
{
    int rc = sqlite3_step (stmt);
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64 (stmt, 0);
    bool ok = rc == SQLITE_ROW || rc == SQLITE_DONE;
    if (!ok)
        state_store_fail_sqlite (self, what);
    state_store_stmt_release (stmt);
    return ok;
}

dlq_store_result_t
dlq_ledger_store_sink_state (dlq_state_store_t *self, const char *sink, dlq_sink_state_t *out)
{
    memset (out, 0, sizeof *out);
    sqlite3_stmt *stmt = state_store_stmt (self, STATE_LEDGER_SINK_STATE, SQL_SINK_STATE);
    if (!stmt)
        return DLQ_STORE_ERROR;
    state_store_bind_text (stmt, 1, sink);
    int rc = sqlite3_step (stmt);
    if (rc == SQLITE_ROW) {
        out->cursor = sqlite3_column_int64 (stmt, 0);
        out->attempted = sqlite3_column_int64 (stmt, 1);
        out->delivered = (uint64_t) sqlite3_column_int64 (stmt, 2);
        out->failed = (uint64_t) sqlite3_column_int64 (stmt, 3);
        out->redelivered = (uint64_t) sqlite3_column_int64 (stmt, 4);
        rc = SQLITE_DONE;
    }
    if (rc != SQLITE_DONE)
        state_store_fail_sqlite (self, "ledger: sink_state");
    state_store_stmt_release (stmt);
    return rc == SQLITE_DONE ? DLQ_STORE_OK : DLQ_STORE_ERROR;
}

static bool
known_state (dlq_state_store_t *self, dlq_delivery_state_t state, const char *what)
{
    if ((size_t) state <= DLQ_DELIVERY_FAILED)
        return true;
    state_store_fail_text (self, "ledger: %s: unknown state %d", what, (int) state);
    return false;
}

int64_t
dlq_ledger_store_count_state (dlq_state_store_t *self, const char *sink, dlq_delivery_state_t state)
{
    sqlite3_stmt *stmt = state_store_stmt (self, STATE_LEDGER_COUNT_STATE, SQL_COUNT_STATE);
    if (!stmt || !known_state (self, state, "count_state"))
        return -1;
    int64_t count = -1;
    state_store_bind_text (stmt, 1, sink);
    state_store_bind_text (stmt, 2, dlq_delivery_state_name (state));
    return query_int64 (self, stmt, "ledger: count_state", &count) ? count : -1;
}

/* Fill row from the current result row. A state this code does not know
 * means a damaged (or newer) file: an error naming the row. */
static bool
fetch_row (dlq_state_store_t *self, const char *what, sqlite3_stmt *stmt, dlq_delivery_row_t *row)
{
    memset (row, 0, sizeof *row);
    const char *state = (const char *) sqlite3_column_text (stmt, RC_STATE);
    row->seq = sqlite3_column_int64 (stmt, RC_SEQ);
    if (!dlq_delivery_state_parse (state, &row->state)) {
        state_store_fail_text (self, "ledger: %s: the deliveries row of seq %lld has an unknown state '%s'",
                               what, (long long) row->seq, state ? state : "");
        return false;
    }
    const char *error = (const char *) sqlite3_column_text (stmt, RC_LAST_ERROR);
    const char *id = (const char *) sqlite3_column_text (stmt, RC_ID);
    row->attempts = (uint32_t) sqlite3_column_int64 (stmt, RC_ATTEMPTS);
    row->next_attempt_at = sqlite3_column_type (stmt, RC_NEXT_ATTEMPT_AT) == SQLITE_NULL
                         ? DLQ_TIME_NONE : sqlite3_column_int64 (stmt, RC_NEXT_ATTEMPT_AT);
    row->updated_at = sqlite3_column_int64 (stmt, RC_UPDATED_AT);
    row->expires_at = sqlite3_column_type (stmt, RC_EXPIRES_AT) == SQLITE_NULL
                    ? DLQ_TIME_NONE : sqlite3_column_int64 (stmt, RC_EXPIRES_AT);
    snprintf (row->last_error, sizeof row->last_error, "%s", error ? error : "");
    snprintf (row->id, sizeof row->id, "%s", id ? id : "");
    return true;
}

/* Step a bound rows statement, calling fn once per row with sink, or the
 * row's own (RC_SINK) when sink is NULL. Returns how many, or -1. */
static ssize_t
each_row (dlq_state_store_t *self, const char *what, sqlite3_stmt *stmt, const char *sink,
          dlq_ledger_row_fn *fn, void *arg)
{
    dlq_delivery_row_t row;
    ssize_t rows = 0;
    int rc;
    while ((rc = sqlite3_step (stmt)) == SQLITE_ROW) {
        if (!fetch_row (self, what, stmt, &row)) {
            state_store_stmt_release (stmt);
            return -1;
        }
        const char *name = sink ? sink : (const char *) sqlite3_column_text (stmt, RC_SINK);
        fn (name ? name : "", &row, arg);
        rows++;
    }
    if (rc != SQLITE_DONE)
        state_store_fail_sqlite (self, what);
    state_store_stmt_release (stmt);
    return rc == SQLITE_DONE ? rows : -1;
}

ssize_t
dlq_ledger_store_rows_of_sink (dlq_state_store_t *self, const char *sink, dlq_delivery_state_t state,
                               const char *stream, const char *id, dlq_ledger_row_fn *fn, void *arg)
{
    sqlite3_stmt *stmt = id ? state_store_stmt (self, STATE_LEDGER_ROWS_OF_SINK_ID, SQL_ROWS_OF_SINK_ID)
                            : state_store_stmt (self, STATE_LEDGER_ROWS_OF_SINK, SQL_ROWS_OF_SINK);
    if (!stmt || !known_state (self, state, "rows_of_sink"))
        return -1;
    state_store_bind_text (stmt, 1, sink);
    state_store_bind_text (stmt, 2, dlq_delivery_state_name (state));
    state_store_bind_text (stmt, 3, stream);
    if (id)
        state_store_bind_text (stmt, 4, id);
    return each_row (self, "ledger: rows_of_sink", stmt, sink, fn, arg);
}

ssize_t
dlq_ledger_store_rows_of_seq (dlq_state_store_t *self, int64_t seq, dlq_ledger_row_fn *fn, void *arg)
{
    sqlite3_stmt *stmt = state_store_stmt (self, STATE_LEDGER_ROWS_OF_SEQ, SQL_ROWS_OF_SEQ);
    if (!stmt)
        return -1;
    sqlite3_bind_int64 (stmt, 1, seq);
    return each_row (self, "ledger: rows_of_seq", stmt, NULL, fn, arg);
}

dlq_store_result_t
dlq_ledger_store_record (dlq_state_store_t *self, const char *sink, int64_t seq, dlq_buf_t *out)
{
    dlq_buf_reset (out);
    sqlite3_stmt *stmt = state_store_stmt (self, STATE_LEDGER_RECORD, SQL_RECORD);
    if (!stmt)
        return DLQ_STORE_ERROR;
    state_store_bind_text (stmt, 1, sink);
    sqlite3_bind_int64 (stmt, 2, seq);
    int rc = sqlite3_step (stmt);
    if (rc == SQLITE_ROW)
        dlq_buf_append (out, sqlite3_column_blob (stmt, 0), (size_t) sqlite3_column_bytes (stmt, 0));
    else
    if (rc != SQLITE_DONE)
        state_store_fail_sqlite (self, "ledger: cannot read a failed delivery's event");
    state_store_stmt_release (stmt);
    return rc == SQLITE_ROW ? DLQ_STORE_OK : rc == SQLITE_DONE ? DLQ_STORE_NOT_FOUND : DLQ_STORE_ERROR;
}

dlq_event_t *
dlq_ledger_store_failed_event (dlq_state_store_t *self, const char *sink, int64_t seq)
{
    dlq_buf_t bytes = DLQ_BUF_INIT;
    dlq_event_t *event = NULL;
    if (dlq_ledger_store_record (self, sink, seq, &bytes) == DLQ_STORE_OK)
        event = dlq_event_record_decode ((const uint8_t *) bytes.data, bytes.len);
    dlq_buf_free (&bytes);
    return event;
}
