/*  spool_ledger — the delivery ledger (schema version 2) and the spool reads.
 *
 *  Two tables beside events (spool_ledger.h has the model):
 *    sink_state  one row per sink: cursor, attempted marker, counters;
 *    deliveries  one row per (sink, seq) only for events that were not
 *                delivered at the first try, so the common case writes no
 *                row at all.
 *  Writes are part of the writer's commit transaction (embedded_store.c
 *  starts and commits it; embedded_ledger_apply adds the updates), and the
 *  sweep drops the rows of the events it deletes in its own transaction.
 *
 *  Like the rest of the store, every statement is prepared once per
 *  connection and every value is bound. A reader of a version 1 file (one no
 *  writer has opened since the upgrade) has no ledger tables: it prepares
 *  the reads of the events table only, and the ledger reads fail with a
 *  message saying so.
 *
 *  The spool reads (read_after, read_seq) build each event from the columns
 *  of its row, never parsing the body: schema version 3 keeps what a
 *  dispatcher routes and delivers by in columns of their own. A reader of an
 *  older file that no writer has upgraded yet computes those columns from
 *  the body in SQL instead (slower, same result).
 *
 *  Reads that call back run the callback while their statement is open, so
 *  a callback must not call into the same store object, with one exception:
 *  dlq_embedded_read_after reads its whole page first and calls back once
 *  the statement is reset, so a damaged row fails the call before any event
 *  is handed out.
 */
#include "embedded_internal.h"
#include "dlq_alloc.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Version 1 -> 2. IF NOT EXISTS keeps it idempotent; it runs inside the
 * writer's schema transaction, so it happens whole or not at all.
 *
 * deliveries is WITHOUT ROWID, clustered on (sink, seq): a row is found by
 * its key with no rowid hop. deliveries_by_state serves a sink's rows in one
 * state in seq order (rows_of_sink, count_state; the index holds the key
 * columns, so counting reads the index only); deliveries_by_seq serves
 * rows_of_seq and the sweep (its entries are (seq, sink), so sinks come out
 * in name order). */
static const char schema_v2 [] =
    "CREATE TABLE IF NOT EXISTS sink_state ("
    "  sink        TEXT    PRIMARY KEY,"
    "  cursor      INTEGER NOT NULL,"
    "  attempted   INTEGER NOT NULL,"
    "  delivered   INTEGER NOT NULL,"
    "  failed      INTEGER NOT NULL,"
    "  redelivered INTEGER NOT NULL"
    ") WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS deliveries ("
    "  sink            TEXT    NOT NULL,"
    "  seq             INTEGER NOT NULL,"
    "  state           TEXT    NOT NULL,"
    "  attempts        INTEGER NOT NULL,"
    "  last_error      TEXT,"
    "  next_attempt_at INTEGER,"
    "  updated_at      INTEGER NOT NULL,"
    "  PRIMARY KEY (sink, seq)"
    ") WITHOUT ROWID;"
    "CREATE INDEX IF NOT EXISTS deliveries_by_state ON deliveries (sink, state, seq);"
    "CREATE INDEX IF NOT EXISTS deliveries_by_seq ON deliveries (seq);"
    "UPDATE meta SET value = '2' WHERE key = 'schema_version';";

#define ROW_COLUMNS "d.seq, d.state, d.attempts, d.next_attempt_at, d.updated_at, d.last_error"

/* What the spool reads select, in the order of spool_col_t: the version 3
 * columns, or (a reader of an older file) the same computed from the body. */
#define SPOOL_COLUMNS \
    "seq, id, stream_name, operation_type, status, error_type, document_key, attempts," \
    " first_attempt_at, created_at, expires_at, body"
#define SPOOL_COLUMNS_FROM_BODY \
    "seq, id, stream_name, " BODY_OPERATION_TYPE ", status, error_type, " BODY_DOCUMENT_KEY "," \
    " " BODY_ATTEMPTS ", " BODY_FIRST_ATTEMPT_AT ", created_at, expires_at, body"
#define READ_AFTER_FROM " FROM events WHERE seq > ?1 ORDER BY seq LIMIT ?2"
#define READ_SEQ_FROM   " FROM events WHERE seq = ?1"

typedef enum {
    SC_SEQ, SC_ID, SC_STREAM_NAME, SC_OPERATION_TYPE, SC_STATUS, SC_ERROR_TYPE,
    SC_DOCUMENT_KEY, SC_ATTEMPTS, SC_FIRST_ATTEMPT_AT, SC_CREATED_AT, SC_EXPIRES_AT, SC_BODY
} spool_col_t;

/* Parameters of the rows_of_sink pair: ?1 sink, ?2 state, ?3 stream or
 * NULL, ?4 id. Without an id the rows drive the join and a LEFT JOIN keeps
 * the rows of swept events (which no stream filter can match); INDEXED BY,
 * because without statistics SQLite prefers walking all of the sink's rows
 * by primary key (already in seq order) and filtering on state, which reads
 * every delivered and failed row to find the few retrying ones. With an id
 * the event is found by its unique index and its row by key. */
static const char *const ledger_sql [LS_STMT_COUNT] = {
    /* A negative cursor or marker means "no change": max() keeps the stored
     * one, and a new sink starts at 0. */
    [LS_STATE_UPSERT]    = "INSERT INTO sink_state (sink, cursor, attempted, delivered, failed,"
                           " redelivered) VALUES (?1, max(?2, 0), max(?3, 0), ?4, ?5, ?6)"
                           " ON CONFLICT (sink) DO UPDATE SET"
                           " cursor = max(cursor, excluded.cursor),"
                           " attempted = max(attempted, excluded.attempted),"
                           " delivered = delivered + excluded.delivered,"
                           " failed = failed + excluded.failed,"
                           " redelivered = redelivered + excluded.redelivered",
    [LS_ROW_UPSERT]      = "INSERT INTO deliveries (sink, seq, state, attempts, last_error,"
                           " next_attempt_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
                           " ON CONFLICT (sink, seq) DO UPDATE SET"
                           " state = excluded.state, attempts = excluded.attempts,"
                           " last_error = excluded.last_error,"
                           " next_attempt_at = excluded.next_attempt_at,"
                           " updated_at = excluded.updated_at",
    [LS_SWEEP_ROWS]      = "DELETE FROM deliveries WHERE seq = ?1",
    /* sqlite_sequence holds the highest seq ever handed out, even once
     * those rows are swept; max(seq) only guards against a tampered one. */
    [LS_LAST_SEQ]        = "SELECT max(coalesce((SELECT seq FROM sqlite_sequence"
                           " WHERE name = 'events'), 0),"
                           " coalesce((SELECT max(seq) FROM events), 0))",
    [LS_READ_AFTER]      = "SELECT " SPOOL_COLUMNS READ_AFTER_FROM,
    [LS_READ_SEQ]        = "SELECT " SPOOL_COLUMNS READ_SEQ_FROM,
    [LS_COUNT_BETWEEN]   = "SELECT count(*) FROM events WHERE seq > ?1 AND seq < ?2",
    [LS_SEQ_OF]          = "SELECT seq FROM events WHERE id = ?1",
    [LS_SINK_STATE]      = "SELECT cursor, attempted, delivered, failed, redelivered"
                           " FROM sink_state WHERE sink = ?1",
    [LS_COUNT_STATE]     = "SELECT count(*) FROM deliveries WHERE sink = ?1 AND state = ?2",
    [LS_ROWS_OF_SINK]    = "SELECT " ROW_COLUMNS " FROM deliveries AS d"
                           " INDEXED BY deliveries_by_state"
                           " LEFT JOIN events AS e ON e.seq = d.seq"
                           " WHERE d.sink = ?1 AND d.state = ?2"
                           " AND (?3 IS NULL OR e.stream_name = ?3)"
                           " ORDER BY d.seq",
    [LS_ROWS_OF_SINK_ID] = "SELECT " ROW_COLUMNS " FROM events AS e"
                           " JOIN deliveries AS d ON d.sink = ?1 AND d.seq = e.seq"
                           " WHERE e.id = ?4 AND d.state = ?2"
                           " AND (?3 IS NULL OR e.stream_name = ?3)",
    [LS_ROWS_OF_SEQ]     = "SELECT " ROW_COLUMNS ", d.sink FROM deliveries AS d"
                           " WHERE d.seq = ?1 ORDER BY d.sink",
};

/* ------------------------------------------------------------------------ */
/* Schema and statements */

bool
embedded_ledger_upgrade (dlq_embedded_t *self)
{
    if (sqlite3_exec (self->db, schema_v2, NULL, NULL, NULL) != SQLITE_OK) {
        embedded_fail_sqlite (self, "cannot upgrade the schema to version 2");
        return false;
    }
    self->schema_version = 2;
    return true;
}

/* A reader of a file below version 3 reads the spool columns from the body
 * (a writer has always upgraded its file by now). */
bool
embedded_ledger_prepare (dlq_embedded_t *self)
{
    const char *sql [LS_STMT_COUNT];
    memcpy (sql, ledger_sql, sizeof sql);
    if (self->schema_version < SCHEMA_VERSION_COLUMNS) {
        sql [LS_READ_AFTER] = "SELECT " SPOOL_COLUMNS_FROM_BODY READ_AFTER_FROM;
        sql [LS_READ_SEQ] = "SELECT " SPOOL_COLUMNS_FROM_BODY READ_SEQ_FROM;
    }
    int first = self->mode == DLQ_EMBEDDED_WRITER ? 0 : LS_FIRST_READ;
    int end = self->schema_version >= SCHEMA_VERSION_LEDGER ? LS_STMT_COUNT : LS_FIRST_LEDGER_READ;
    return embedded_prepare (self, sql, self->ledger, first, end);
}

/* Statement id of this connection, or NULL (last error set) when it
 * has none: a ledger read on a reader of a version 1 file. */
static sqlite3_stmt *
ledger_stmt (dlq_embedded_t *self, ledger_stmt_id_t id, const char *what)
{
    sqlite3_stmt *stmt = self->ledger [id];
    if (!stmt)
        embedded_fail_text (self, "%s: %s has schema version %lld, without the delivery ledger;"
                            " opening it with a dlqd writer upgrades it",
                            what, self->path, (long long) self->schema_version);
    return stmt;
}

/* Step a bound one-row, one-integer query and release it. *found (may be
 * NULL when a row always comes) tells whether there was a row. */
static bool
query_int64 (dlq_embedded_t *self, sqlite3_stmt *stmt, const char *what,
             int64_t *out, bool *found)
{
    int rc = sqlite3_step (stmt);
    if (rc == SQLITE_ROW)
        *out = sqlite3_column_int64 (stmt, 0);
    if (found)
        *found = rc == SQLITE_ROW;
    bool ok = rc == SQLITE_ROW || rc == SQLITE_DONE;
    if (!ok)
        embedded_fail_sqlite (self, what);
    embedded_stmt_release (stmt);
    return ok;
}


/* ------------------------------------------------------------------------ */
/* Writing */

bool
embedded_ledger_check (dlq_embedded_t *self, dlq_ledger_update_t *const *updates,
                       size_t update_count)
{
    if (update_count && !updates) {
        embedded_fail_text (self, "commit: %zu ledger updates but no array", update_count);
        return false;
    }
    for (size_t i = 0; i < update_count; i++) {
        const char *problem = dlq_ledger_update_problem (updates [i]);
        if (problem) {
            embedded_fail_text (self, "commit: ledger update %zu %s", i, problem);
            return false;
        }
    }
    return true;
}

static bool
upsert_state (dlq_embedded_t *self, const dlq_ledger_update_t *u)
{
    sqlite3_stmt *stmt = self->ledger [LS_STATE_UPSERT];
    embedded_bind_text (stmt, 1, u->sink);
    sqlite3_bind_int64 (stmt, 2, u->cursor);
    sqlite3_bind_int64 (stmt, 3, u->attempted);
    sqlite3_bind_int64 (stmt, 4, (int64_t) u->delivered);
    sqlite3_bind_int64 (stmt, 5, (int64_t) u->failed);
    sqlite3_bind_int64 (stmt, 6, (int64_t) u->redelivered);
    bool ok = embedded_step_done (self, stmt, "commit: cannot update sink_state");
    sqlite3_clear_bindings (stmt);
    return ok;
}

/* last_error is bound up to its first NUL or the end of its array, so an
 * unterminated one is cut rather than overrun. */
static bool
upsert_row (dlq_embedded_t *self, const char *sink, const dlq_delivery_row_t *row)
{
    sqlite3_stmt *stmt = self->ledger [LS_ROW_UPSERT];
    size_t error_len = strnlen (row->last_error, sizeof row->last_error);
    embedded_bind_text (stmt, 1, sink);
    sqlite3_bind_int64 (stmt, 2, row->seq);
    embedded_bind_text (stmt, 3, dlq_delivery_state_name (row->state));
    sqlite3_bind_int64 (stmt, 4, row->attempts);
    if (error_len)
        sqlite3_bind_text (stmt, 5, row->last_error, (int) error_len, SQLITE_STATIC);
    else
        sqlite3_bind_null (stmt, 5);
    if (row->next_attempt_at == DLQ_TIME_NONE)
        sqlite3_bind_null (stmt, 6);
    else
        sqlite3_bind_int64 (stmt, 6, row->next_attempt_at);
    sqlite3_bind_int64 (stmt, 7, row->updated_at);
    bool ok = embedded_step_done (self, stmt, "commit: cannot update deliveries");
    sqlite3_clear_bindings (stmt);
    return ok;
}

bool
embedded_ledger_apply (dlq_embedded_t *self, dlq_ledger_update_t *const *updates,
                       size_t update_count)
{
    for (size_t i = 0; i < update_count; i++) {
        const dlq_ledger_update_t *u = updates [i];
        if (!upsert_state (self, u))
            return false;
        for (size_t r = 0; r < u->row_count; r++)
            if (!upsert_row (self, u->sink, &u->rows [r]))
                return false;
    }
    return true;
}

bool
embedded_ledger_sweep_rows (dlq_embedded_t *self, const int64_t *seqs, size_t count)
{
    sqlite3_stmt *stmt = self->ledger [LS_SWEEP_ROWS];
    for (size_t i = 0; i < count; i++) {
        sqlite3_bind_int64 (stmt, 1, seqs [i]);
        if (!embedded_step_done (self, stmt, "sweep: cannot delete deliveries"))
            return false;
    }
    return true;
}


/* ------------------------------------------------------------------------ */
/* Reading the spool */

bool
embedded_ledger_last_seq (dlq_embedded_t *self, int64_t *seq_out)
{
    return query_int64 (self, self->ledger [LS_LAST_SEQ], "last_seq", seq_out, NULL);
}

int64_t
dlq_embedded_last_seq (dlq_embedded_t *self)
{
    int64_t seq = -1;
    return embedded_ledger_last_seq (self, &seq) ? seq : -1;
}

int64_t
dlq_embedded_count_between (dlq_embedded_t *self, int64_t after, int64_t below)
{
    sqlite3_stmt *stmt = self->ledger [LS_COUNT_BETWEEN];
    int64_t count = -1;
    sqlite3_bind_int64 (stmt, 1, after);
    sqlite3_bind_int64 (stmt, 2, below);
    return query_int64 (self, stmt, "count_between", &count, NULL) ? count : -1;
}

dlq_store_result_t
dlq_embedded_seq_of (dlq_embedded_t *self, const char *id, int64_t *seq_out)
{
    sqlite3_stmt *stmt = self->ledger [LS_SEQ_OF];
    bool found = false;
    embedded_bind_text (stmt, 1, id);
    if (!query_int64 (self, stmt, "seq_of", seq_out, &found))
        return DLQ_STORE_ERROR;
    return found ? DLQ_STORE_OK : DLQ_STORE_NOT_FOUND;
}

/* The first column of the current spool row whose storage type is not
 * what the schema and the insert give it, or NULL when all are right. Asked
 * before any value is read, since reading converts. */
static const char *
damaged_column (sqlite3_stmt *stmt)
{
    static const struct {
        spool_col_t col;
        int         type;
        bool        nullable;
        const char *name;
    } expect [] = {
        { SC_ID,               SQLITE_TEXT,    false, "id" },
        { SC_STREAM_NAME,      SQLITE_TEXT,    false, "stream_name" },
        { SC_OPERATION_TYPE,   SQLITE_TEXT,    true,  "operation_type" },
        { SC_STATUS,           SQLITE_TEXT,    false, "status" },
        { SC_ERROR_TYPE,       SQLITE_TEXT,    false, "error_type" },
        { SC_DOCUMENT_KEY,     SQLITE_TEXT,    true,  "document_key" },
        { SC_ATTEMPTS,         SQLITE_INTEGER, false, "attempts" },
        { SC_FIRST_ATTEMPT_AT, SQLITE_INTEGER, true,  "first_attempt_at" },
        { SC_CREATED_AT,       SQLITE_INTEGER, false, "created_at" },
        { SC_EXPIRES_AT,       SQLITE_INTEGER, true,  "expires_at" },
        { SC_BODY,             SQLITE_TEXT,    false, "body" },
    };
    for (size_t i = 0; i < sizeof expect / sizeof expect [0]; i++) {
        int type = sqlite3_column_type (stmt, (int) expect [i].col);
        if (type != expect [i].type && !(type == SQLITE_NULL && expect [i].nullable))
            return expect [i].name;
    }
    int64_t attempts = sqlite3_column_int64 (stmt, SC_ATTEMPTS);
    if (attempts < INT32_MIN || attempts > INT32_MAX)
        return "attempts";
    return NULL;
}

/* A copy of a text column, NULL when the column is NULL. */
static char *
column_copy (sqlite3_stmt *stmt, spool_col_t col, size_t *len_out)
{
    const char *text = (const char *) sqlite3_column_text (stmt, (int) col);
    size_t len = (size_t) sqlite3_column_bytes (stmt, (int) col);
    if (len_out)
        *len_out = len;
    return text ? dlq_strndup (text, len) : NULL;
}

static int64_t
column_time (sqlite3_stmt *stmt, spool_col_t col)
{
    return sqlite3_column_type (stmt, (int) col) == SQLITE_NULL
         ? DLQ_TIME_NONE : sqlite3_column_int64 (stmt, (int) col);
}

/* The partial event of the current spool row (spool_ledger.h says which
 * members), from its columns; the body is not parsed. Its stored bytes
 * become event->json as they are: they are the canonical encoding the event
 * was acknowledged with, and sinks forward exactly that. A column of the
 * wrong type means the file was damaged or written by something else: that
 * is an error naming the seq, not an event to skip. */
static dlq_event_t *
fetch_event (dlq_embedded_t *self, const char *what, sqlite3_stmt *stmt)
{
    int64_t seq = sqlite3_column_int64 (stmt, SC_SEQ);
    const char *column = damaged_column (stmt);
    if (column) {
        embedded_fail_text (self, "%s: the stored row of seq %lld in %s has a bad %s"
                            " column: the store is damaged",
                            what, (long long) seq, self->path, column);
        return NULL;
    }
    dlq_event_t *event = dlq_calloc (1, sizeof *event);
    event->id = column_copy (stmt, SC_ID, NULL);
    event->stream_name = column_copy (stmt, SC_STREAM_NAME, NULL);
    event->operation_type = column_copy (stmt, SC_OPERATION_TYPE, NULL);
    event->status = column_copy (stmt, SC_STATUS, NULL);
    event->error_type = column_copy (stmt, SC_ERROR_TYPE, NULL);
    event->document_key = column_copy (stmt, SC_DOCUMENT_KEY, NULL);
    event->attempts = (int32_t) sqlite3_column_int64 (stmt, SC_ATTEMPTS);
    event->first_attempt_at = column_time (stmt, SC_FIRST_ATTEMPT_AT);
    event->last_attempt_at = DLQ_TIME_NONE;
    event->created_at = sqlite3_column_int64 (stmt, SC_CREATED_AT);
    event->expires_at = column_time (stmt, SC_EXPIRES_AT);
    event->json = column_copy (stmt, SC_BODY, &event->json_len);
    return event;
}

dlq_store_result_t
dlq_embedded_read_seq (dlq_embedded_t *self, int64_t seq, dlq_event_t **event_out)
{
    sqlite3_stmt *stmt = self->ledger [LS_READ_SEQ];
    *event_out = NULL;
    sqlite3_bind_int64 (stmt, 1, seq);
    dlq_store_result_t result = DLQ_STORE_OK;
    int rc = sqlite3_step (stmt);
    if (rc == SQLITE_ROW) {
        *event_out = fetch_event (self, "read_seq", stmt);
        if (!*event_out)
            result = DLQ_STORE_ERROR;
    }
    else
    if (rc == SQLITE_DONE)
        result = DLQ_STORE_NOT_FOUND;
    else {
        embedded_fail_sqlite (self, "read_seq");
        result = DLQ_STORE_ERROR;
    }
    embedded_stmt_release (stmt);
    return result;
}

/* One page of read_after, read whole before anything is handed out. */
typedef struct {
    int64_t      *seqs;
    dlq_event_t **events;
    size_t        count;
    size_t        cap;
} spool_page_t;

static void
page_push (spool_page_t *page, int64_t seq, dlq_event_t *event)
{
    if (page->count == page->cap) {
        page->cap = page->cap ? page->cap * 2 : 64;
        page->seqs = dlq_realloc (page->seqs, page->cap * sizeof *page->seqs);
        page->events = dlq_realloc (page->events, page->cap * sizeof *page->events);
    }
    page->seqs [page->count] = seq;
    page->events [page->count++] = event;
}

/* Step the bound read_after statement into page; false (last error set)
 * on a SQLite error or a damaged row. */
static bool
read_page (dlq_embedded_t *self, sqlite3_stmt *stmt, spool_page_t *page)
{
    int rc;
    while ((rc = sqlite3_step (stmt)) == SQLITE_ROW) {
        dlq_event_t *event = fetch_event (self, "read_after", stmt);
        if (!event)
            return false;
        page_push (page, sqlite3_column_int64 (stmt, SC_SEQ), event);
    }
    if (rc != SQLITE_DONE) {
        embedded_fail_sqlite (self, "read_after");
        return false;
    }
    return true;
}

/* The page is read whole, and the statement reset, before fn sees the first
 * event: a damaged row fails the call with nothing handed out (and the
 * message names its seq), and fn may use the store. */
ssize_t
dlq_embedded_read_after (dlq_embedded_t *self, int64_t after, size_t limit,
                         dlq_spool_event_fn *fn, void *arg)
{
    sqlite3_stmt *stmt = self->ledger [LS_READ_AFTER];
    if (limit == 0)
        return 0;
    if (limit > (size_t) SSIZE_MAX)
        limit = (size_t) SSIZE_MAX;
    sqlite3_bind_int64 (stmt, 1, after);
    sqlite3_bind_int64 (stmt, 2, (int64_t) limit);
    spool_page_t page = { 0 };
    bool ok = read_page (self, stmt, &page);
    embedded_stmt_release (stmt);
    for (size_t i = 0; i < page.count; i++) {
        if (ok)
            fn (page.seqs [i], page.events [i], arg);
        else
            dlq_event_destroy (&page.events [i]);
    }
    free (page.seqs);
    free (page.events);
    return ok ? (ssize_t) page.count : -1;
}


/* ------------------------------------------------------------------------ */
/* Reading the ledger */

dlq_store_result_t
dlq_embedded_sink_state (dlq_embedded_t *self, const char *sink, dlq_sink_state_t *out)
{
    sqlite3_stmt *stmt = ledger_stmt (self, LS_SINK_STATE, "sink_state");
    if (!stmt)
        return DLQ_STORE_ERROR;
    memset (out, 0, sizeof *out);
    embedded_bind_text (stmt, 1, sink);
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
        embedded_fail_sqlite (self, "sink_state");
    embedded_stmt_release (stmt);
    return rc == SQLITE_DONE ? DLQ_STORE_OK : DLQ_STORE_ERROR;
}

int64_t
dlq_embedded_count_state (dlq_embedded_t *self, const char *sink, dlq_delivery_state_t state)
{
    sqlite3_stmt *stmt = ledger_stmt (self, LS_COUNT_STATE, "count_state");
    if (!stmt)
        return -1;
    if ((size_t) state > DLQ_DELIVERY_FAILED) {
        embedded_fail_text (self, "count_state: unknown state %d", (int) state);
        return -1;
    }
    int64_t count = -1;
    embedded_bind_text (stmt, 1, sink);
    embedded_bind_text (stmt, 2, dlq_delivery_state_name (state));
    return query_int64 (self, stmt, "count_state", &count, NULL) ? count : -1;
}

/* Fill row from the ROW_COLUMNS of the current result row. A state this
 * code does not know means a damaged (or newer) file: an error naming the
 * row. */
static bool
fetch_row (dlq_embedded_t *self, const char *what, sqlite3_stmt *stmt, dlq_delivery_row_t *row)
{
    const char *state = (const char *) sqlite3_column_text (stmt, 1);
    const char *error = (const char *) sqlite3_column_text (stmt, 5);
    row->seq = sqlite3_column_int64 (stmt, 0);
    if (!dlq_delivery_state_parse (state, &row->state)) {
        embedded_fail_text (self, "%s: the deliveries row of seq %lld in %s has an unknown"
                            " state '%s'", what, (long long) row->seq, self->path,
                            state ? state : "");
        return false;
    }
    row->attempts = (uint32_t) sqlite3_column_int64 (stmt, 2);
    row->next_attempt_at = sqlite3_column_type (stmt, 3) == SQLITE_NULL
                         ? DLQ_TIME_NONE : sqlite3_column_int64 (stmt, 3);
    row->updated_at = sqlite3_column_int64 (stmt, 4);
    snprintf (row->last_error, sizeof row->last_error, "%s", error ? error : "");
    return true;
}

/* Step a bound rows statement, calling fn once per row; sink_col is the
 * column of the sink name, or -1 to pass sink. Returns how many, or -1. */
static ssize_t
each_row (dlq_embedded_t *self, const char *what, sqlite3_stmt *stmt, const char *sink,
          int sink_col, dlq_delivery_row_fn *fn, void *arg)
{
    dlq_delivery_row_t row;
    ssize_t rows = 0;
    int rc;
    while ((rc = sqlite3_step (stmt)) == SQLITE_ROW) {
        memset (&row, 0, sizeof row);
        row.expires_at = DLQ_TIME_NONE;
        if (!fetch_row (self, what, stmt, &row)) {
            embedded_stmt_release (stmt);
            return -1;
        }
        const char *name = sink_col < 0 ? sink
                         : (const char *) sqlite3_column_text (stmt, sink_col);
        fn (name ? name : "", &row, arg);
        rows++;
    }
    if (rc != SQLITE_DONE)
        embedded_fail_sqlite (self, what);
    embedded_stmt_release (stmt);
    return rc == SQLITE_DONE ? rows : -1;
}

ssize_t
dlq_embedded_rows_of_sink (dlq_embedded_t *self, const char *sink, dlq_delivery_state_t state,
                           const char *stream, const char *id,
                           dlq_delivery_row_fn *fn, void *arg)
{
    sqlite3_stmt *stmt = ledger_stmt (self, id ? LS_ROWS_OF_SINK_ID : LS_ROWS_OF_SINK,
                                      "rows_of_sink");
    if (!stmt)
        return -1;
    if ((size_t) state > DLQ_DELIVERY_FAILED) {
        embedded_fail_text (self, "rows_of_sink: unknown state %d", (int) state);
        return -1;
    }
    embedded_bind_text (stmt, 1, sink);
    embedded_bind_text (stmt, 2, dlq_delivery_state_name (state));
    if (stream)
        embedded_bind_text (stmt, 3, stream);
    else
        sqlite3_bind_null (stmt, 3);
    if (id)
        embedded_bind_text (stmt, 4, id);
    return each_row (self, "rows_of_sink", stmt, sink, -1, fn, arg);
}

ssize_t
dlq_embedded_rows_of_seq (dlq_embedded_t *self, int64_t seq, dlq_delivery_row_fn *fn, void *arg)
{
    sqlite3_stmt *stmt = ledger_stmt (self, LS_ROWS_OF_SEQ, "rows_of_seq");
    if (!stmt)
        return -1;
    sqlite3_bind_int64 (stmt, 1, seq);
    return each_row (self, "rows_of_seq", stmt, NULL, 6, fn, arg);
}
