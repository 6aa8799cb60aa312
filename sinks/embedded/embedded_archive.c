/*  embedded_archive — the store's reads of events by seq (schema version 3
 *  keeps the columns they need), for the dispatchers when the log no longer
 *  holds an event, and the version 1 -> 2 upgrade.
 *
 *  The reads (read_after, read_seq) build each event from the columns of
 *  its row, never parsing the body. A reader of an older file that no
 *  writer has upgraded yet computes those columns from the body in SQL
 *  instead (slower, same result).
 *
 *  Like the rest of the store, every statement is prepared once per
 *  connection and every value is bound. Reads that call back run the
 *  callback while their statement is open, so a callback must not call into
 *  the same store object, with one exception: dlq_embedded_read_after reads
 *  its whole page first and calls back once the statement is reset, so a
 *  damaged row fails the call before any event is handed out.
 */
#include "embedded_internal.h"
#include "dlq_alloc.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Version 1 -> 2 added the delivery ledger's tables, sink_state and
 * deliveries, which the daemon's state file took over since
 * (router/state/ledger_store.h): they are made still, so that every file
 * has the same tables, and read only by that take-over. IF NOT EXISTS keeps
 * it idempotent; it runs inside the writer's schema transaction. */
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

static const char *const archive_sql [AR_STMT_COUNT] = {
    /* sqlite_sequence holds the highest seq ever handed out, even once
     * those rows are swept; max(seq) only guards against a tampered one. */
    [AR_LAST_SEQ]        = "SELECT max(coalesce((SELECT seq FROM sqlite_sequence"
                           " WHERE name = 'events'), 0),"
                           " coalesce((SELECT max(seq) FROM events), 0))",
    [AR_READ_AFTER]      = "SELECT " SPOOL_COLUMNS READ_AFTER_FROM,
    [AR_READ_SEQ]        = "SELECT " SPOOL_COLUMNS READ_SEQ_FROM,
    [AR_COUNT_BETWEEN]   = "SELECT count(*) FROM events WHERE seq > ?1 AND seq < ?2",
    [AR_SEQ_OF]          = "SELECT seq FROM events WHERE id = ?1",
};

/* ------------------------------------------------------------------------ */
/* Schema and statements */

bool
embedded_archive_upgrade (dlq_embedded_t *self)
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
embedded_archive_prepare (dlq_embedded_t *self)
{
    const char *sql [AR_STMT_COUNT];
    memcpy (sql, archive_sql, sizeof sql);
    if (self->schema_version < SCHEMA_VERSION_COLUMNS) {
        sql [AR_READ_AFTER] = "SELECT " SPOOL_COLUMNS_FROM_BODY READ_AFTER_FROM;
        sql [AR_READ_SEQ] = "SELECT " SPOOL_COLUMNS_FROM_BODY READ_SEQ_FROM;
    }
    return embedded_prepare (self, sql, self->archive, 0, AR_STMT_COUNT);
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
/* Reads */

bool
embedded_archive_last_seq (dlq_embedded_t *self, int64_t *seq_out)
{
    return query_int64 (self, self->archive [AR_LAST_SEQ], "last_seq", seq_out, NULL);
}

int64_t
dlq_embedded_last_seq (dlq_embedded_t *self)
{
    int64_t seq = -1;
    return embedded_archive_last_seq (self, &seq) ? seq : -1;
}

int64_t
dlq_embedded_count_between (dlq_embedded_t *self, int64_t after, int64_t below)
{
    sqlite3_stmt *stmt = self->archive [AR_COUNT_BETWEEN];
    int64_t count = -1;
    sqlite3_bind_int64 (stmt, 1, after);
    sqlite3_bind_int64 (stmt, 2, below);
    return query_int64 (self, stmt, "count_between", &count, NULL) ? count : -1;
}

dlq_store_result_t
dlq_embedded_seq_of (dlq_embedded_t *self, const char *id, int64_t *seq_out)
{
    sqlite3_stmt *stmt = self->archive [AR_SEQ_OF];
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

/* The partial event of the current spool row (embedded_archive.h says which
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
    sqlite3_stmt *stmt = self->archive [AR_READ_SEQ];
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
    sqlite3_stmt *stmt = self->archive [AR_READ_AFTER];
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
