/*  state_store — the daemon's state file; see state_store.h.
 */
#include "state_store.h"
#include "state_internal.h"

#include "dlq_alloc.h"
#include "spool_segment.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STATE_SCHEMA_VERSION 2
#define BUSY_TIMEOUT_MS      5000
#define ERRMSG_MAX           512

/* The embedded store's file, where the replay jobs were kept before this
 * file took them (sinks/embedded: its table replay_jobs, schema version 5). */
#define EMBEDDED_FILE "dlq.sqlite"

struct dlq_state_store {
    sqlite3      *db;
    char         *path;
    sqlite3_stmt *stmt [STATE_STMT_COUNT];
    char          errmsg [ERRMSG_MAX];
};

/* replay_jobs keeps its rowid: a request may hold 10000 ids, too large a
 * row for a WITHOUT ROWID table. */
static const char schema [] =
    "CREATE TABLE IF NOT EXISTS meta ("
    "  key   TEXT PRIMARY KEY,"
    "  value TEXT NOT NULL"
    ") WITHOUT ROWID;"
    "CREATE TABLE IF NOT EXISTS replay_jobs ("
    "  id          TEXT    PRIMARY KEY,"
    "  state       TEXT    NOT NULL,"
    "  request     TEXT    NOT NULL,"
    "  cursor      TEXT,"
    "  total       INTEGER NOT NULL,"
    "  done        INTEGER NOT NULL,"
    "  replayed    INTEGER NOT NULL,"
    "  skipped     INTEGER NOT NULL,"
    "  quarantined INTEGER NOT NULL,"
    "  failed      INTEGER NOT NULL,"
    "  last_error  TEXT,"
    "  created_at  INTEGER NOT NULL,"
    "  updated_at  INTEGER NOT NULL"
    ");"
    "CREATE INDEX IF NOT EXISTS replay_jobs_by_created ON replay_jobs (created_at, id);"
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
    "  id              TEXT,"
    "  stream_name     TEXT,"
    "  expires_at      INTEGER,"
    "  record          BLOB,"
    "  PRIMARY KEY (sink, seq)"
    ") WITHOUT ROWID;"
    "CREATE INDEX IF NOT EXISTS deliveries_by_state ON deliveries (sink, state, seq);"
    "CREATE INDEX IF NOT EXISTS deliveries_by_seq ON deliveries (seq);"
    "CREATE INDEX IF NOT EXISTS deliveries_by_id ON deliveries (id) WHERE id IS NOT NULL;"
    "CREATE INDEX IF NOT EXISTS deliveries_by_expiry ON deliveries (expires_at) WHERE expires_at IS NOT NULL;"
    "CREATE TABLE IF NOT EXISTS event_ids ("
    "  id         TEXT    PRIMARY KEY,"
    "  seq        INTEGER NOT NULL,"
    "  expires_at INTEGER"
    ") WITHOUT ROWID;"
    "CREATE INDEX IF NOT EXISTS event_ids_by_seq ON event_ids (seq);"
    "CREATE INDEX IF NOT EXISTS event_ids_by_expiry ON event_ids (expires_at) WHERE expires_at IS NOT NULL;"
    "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', '2');"
    "UPDATE meta SET value = '2' WHERE key = 'schema_version' AND CAST (value AS INTEGER) < 2;";

#define JOB_TABLE_COLUMNS \
    "id, state, request, cursor, total, done, replayed, skipped, quarantined, failed," \
    " last_error, created_at, updated_at"


/* ------------------------------------------------------------------------ */
/* Helpers (state_internal.h) */

void
state_store_fail_text (dlq_state_store_t *self, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (self->errmsg, sizeof self->errmsg, fmt, ap);
    va_end (ap);
}

void
state_store_fail_sqlite (dlq_state_store_t *self, const char *what)
{
    state_store_fail_text (self, "%s (%s): %s", what, self->path, sqlite3_errmsg (self->db));
}

sqlite3 *state_store_db (dlq_state_store_t *self) { return self->db; }

sqlite3_stmt *
state_store_stmt (dlq_state_store_t *self, state_stmt_id_t id, const char *sql)
{
    if (!self->stmt [id] && sqlite3_prepare_v3 (self->db, sql, -1, SQLITE_PREPARE_PERSISTENT,
                                                &self->stmt [id], NULL) != SQLITE_OK) {
        state_store_fail_sqlite (self, "cannot prepare a statement");
        self->stmt [id] = NULL;
    }
    return self->stmt [id];
}

void
state_store_stmt_release (sqlite3_stmt *stmt)
{
    sqlite3_reset (stmt);
    sqlite3_clear_bindings (stmt);
}

bool
state_store_step_done (dlq_state_store_t *self, sqlite3_stmt *stmt, const char *what)
{
    int rc = sqlite3_step (stmt);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        state_store_fail_sqlite (self, what);
    state_store_stmt_release (stmt);
    return rc == SQLITE_DONE || rc == SQLITE_ROW;
}

static bool
exec_sql (dlq_state_store_t *self, const char *sql, const char *what)
{
    if (sqlite3_exec (self->db, sql, NULL, NULL, NULL) == SQLITE_OK)
        return true;
    state_store_fail_sqlite (self, what);
    return false;
}

bool
state_store_sync_each_commit (dlq_state_store_t *self, bool full)
{
    return exec_sql (self, full ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL",
                     "cannot set how commits sync");
}

bool state_store_begin (dlq_state_store_t *self, const char *what) { return exec_sql (self, "BEGIN IMMEDIATE", what); }

bool state_store_commit (dlq_state_store_t *self, const char *what) { return exec_sql (self, "COMMIT", what); }

void
state_store_rollback (dlq_state_store_t *self)
{
    if (!sqlite3_get_autocommit (self->db))
        sqlite3_exec (self->db, "ROLLBACK", NULL, NULL, NULL);
}


/* ------------------------------------------------------------------------ */
/* Opening */

/* The integer of a one-row, one-column query; false (error set) when it
 * fails, *found false when it returned no row. */
static bool
query_int (dlq_state_store_t *self, const char *sql, const char *text, int64_t *out, bool *found)
{
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_prepare_v2 (self->db, sql, -1, &stmt, NULL) != SQLITE_OK) {
        state_store_fail_sqlite (self, "cannot read the schema");
        return false;
    }
    if (text)
        sqlite3_bind_text (stmt, 1, text, -1, SQLITE_STATIC);
    int rc = sqlite3_step (stmt);
    *found = rc == SQLITE_ROW;
    if (*found)
        *out = sqlite3_column_int64 (stmt, 0);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        state_store_fail_sqlite (self, "cannot read the schema");
    sqlite3_finalize (stmt);
    return rc == SQLITE_ROW || rc == SQLITE_DONE;
}

/* Version 2 keeps a failed delivery's event with its row (ledger_store.h):
 * a file of version 1 gets the column. */
static bool
add_record_column (dlq_state_store_t *self)
{
    int64_t ignored;
    bool found = false;
    if (!query_int (self, "SELECT 1 FROM pragma_table_info ('deliveries') WHERE name = ?1", "record", &ignored,
                    &found))
        return false;
    return found || exec_sql (self, "ALTER TABLE deliveries ADD COLUMN record BLOB",
                              "cannot add the failed deliveries' events to the ledger");
}

/* Create what is missing of the schema, in one transaction; refuse a file
 * that a newer release wrote. */
static bool
ensure_schema (dlq_state_store_t *self)
{
    int64_t version = 0;
    bool found = false;
    bool ok = state_store_begin (self, "cannot begin the schema transaction")
           && exec_sql (self, schema, "cannot create the schema")
           && query_int (self, "SELECT CAST (value AS INTEGER) FROM meta WHERE key = 'schema_version'",
                         NULL, &version, &found)
           && add_record_column (self);
    if (ok && version > STATE_SCHEMA_VERSION) {
        state_store_fail_text (self, "%s has schema version %lld; this dlqd knows up to %d"
                               " (written by a newer release?)", self->path, (long long) version,
                               STATE_SCHEMA_VERSION);
        ok = false;
    }
    ok = ok && state_store_commit (self, "cannot commit the schema");
    if (!ok)
        state_store_rollback (self);
    return ok;
}

/* What the embedded store's file held of the daemon's state before this
 * file did, each taken over once under its meta key, when its table is
 * there: the replay jobs (schema version 5) and the delivery ledger
 * (version 2), whose rows get their event's id, stream and expiry from
 * the events table. */
static const struct {
    const char *key;
    const char *table;
    const char *copy;
} takes [] = {
    { "jobs_taken_over", "replay_jobs",
      "INSERT OR IGNORE INTO main.replay_jobs (" JOB_TABLE_COLUMNS ")"
      " SELECT " JOB_TABLE_COLUMNS " FROM old.replay_jobs" },
    { "ledger_taken_over", "sink_state",
      "INSERT OR IGNORE INTO main.sink_state (sink, cursor, attempted, delivered, failed, redelivered)"
      " SELECT sink, cursor, attempted, delivered, failed, redelivered FROM old.sink_state;"
      "INSERT OR IGNORE INTO main.deliveries (sink, seq, state, attempts, last_error, next_attempt_at,"
      " updated_at, id, stream_name, expires_at)"
      " SELECT d.sink, d.seq, d.state, d.attempts, d.last_error, d.next_attempt_at, d.updated_at,"
      " e.id, e.stream_name, e.expires_at FROM old.deliveries AS d LEFT JOIN old.events AS e ON e.seq = d.seq" },
};

#define TAKE_COUNT (sizeof takes / sizeof takes [0])

static bool
taken (dlq_state_store_t *self, size_t i, bool *done)
{
    int64_t ignored;
    return query_int (self, "SELECT 1 FROM meta WHERE key = ?1", takes [i].key, &ignored, done);
}

/* Take over takes [i] inside the open transaction, unless it is done. */
static bool
take_over_one (dlq_state_store_t *self, size_t i, bool attached)
{
    int64_t ignored;
    bool done = false, has_table = false;
    if (!taken (self, i, &done))
        return false;
    if (done)
        return true;
    if (attached && !query_int (self, "SELECT 1 FROM old.sqlite_master WHERE type = 'table' AND name = ?1",
                                takes [i].table, &ignored, &has_table))
        return false;
    char what [128];
    snprintf (what, sizeof what, "cannot take over the embedded store's %s", takes [i].table);
    if (has_table && !exec_sql (self, takes [i].copy, what))
        return false;
    sqlite3_stmt *stmt = NULL;
    bool ok = sqlite3_prepare_v2 (self->db, "INSERT INTO meta (key, value) VALUES (?1, '" EMBEDDED_FILE "')",
                                  -1, &stmt, NULL) == SQLITE_OK;
    if (ok) {
        sqlite3_bind_text (stmt, 1, takes [i].key, -1, SQLITE_STATIC);
        ok = sqlite3_step (stmt) == SQLITE_DONE;
    }
    if (!ok)
        state_store_fail_sqlite (self, what);
    sqlite3_finalize (stmt);
    return ok;
}

/* Take over what the embedded store's file held, once: each part inside
 * the transaction that records it in meta, so a second opener (or a
 * restart after a crash during it) finds it done, or does it again from
 * the start. The embedded file is attached for the copy; what is here
 * already (a job id, a sink, a row) is kept as it is. */
static bool
take_over (dlq_state_store_t *self, const char *data_dir)
{
    bool all = true;
    for (size_t i = 0; i < TAKE_COUNT && all; i++) {
        bool done = false;
        if (!taken (self, i, &done))
            return false;
        all = done;
    }
    if (all)
        return true;
    size_t len = strlen (data_dir) + sizeof "/" EMBEDDED_FILE;
    char *old = dlq_malloc (len);
    snprintf (old, len, "%s/%s", data_dir, EMBEDDED_FILE);
    bool attach = access (old, F_OK) == 0, ok = true;
    if (attach) {
        sqlite3_stmt *stmt = NULL;
        ok = sqlite3_prepare_v2 (self->db, "ATTACH DATABASE ?1 AS old", -1, &stmt, NULL) == SQLITE_OK;
        if (ok) {
            sqlite3_bind_text (stmt, 1, old, -1, SQLITE_STATIC);
            ok = sqlite3_step (stmt) == SQLITE_DONE;
        }
        if (!ok)
            state_store_fail_sqlite (self, "cannot attach the embedded store's file to take over its replay jobs"
                                           " and delivery ledger");
        sqlite3_finalize (stmt);
    }
    ok = ok && state_store_begin (self, "cannot begin the take-over from the embedded store's file");
    for (size_t i = 0; i < TAKE_COUNT && ok; i++)
        ok = take_over_one (self, i, attach);
    ok = ok && state_store_commit (self, "cannot commit the take-over from the embedded store's file");
    if (!ok)
        state_store_rollback (self);
    if (attach)
        sqlite3_exec (self->db, "DETACH DATABASE old", NULL, NULL, NULL);
    free (old);
    return ok;
}

static bool
open_file (dlq_state_store_t *self, const char *data_dir)
{
    bool created = access (self->path, F_OK) != 0;
    if (sqlite3_open_v2 (self->path, &self->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                         NULL) != SQLITE_OK) {
        if (self->db)
            state_store_fail_sqlite (self, "cannot open the state file");
        else
            state_store_fail_text (self, "cannot open %s: out of memory in SQLite", self->path);
        return false;
    }
    sqlite3_extended_result_codes (self->db, 1);
    sqlite3_busy_timeout (self->db, BUSY_TIMEOUT_MS);
    char mode [16] = "";
    sqlite3_stmt *stmt = NULL;
    bool read = sqlite3_prepare_v2 (self->db, "PRAGMA journal_mode = WAL", -1, &stmt, NULL) == SQLITE_OK
             && sqlite3_step (stmt) == SQLITE_ROW;
    if (read)
        snprintf (mode, sizeof mode, "%s", (const char *) sqlite3_column_text (stmt, 0));
    else
        state_store_fail_sqlite (self, "cannot read the state file (damaged, or no SQLite database?)");
    sqlite3_finalize (stmt);
    if (read && strcmp (mode, "wal") != 0)
        state_store_fail_text (self, "%s: cannot switch to WAL mode (journal_mode is '%s'); is data_dir on a"
                               " filesystem without shared memory support?", self->path, mode);
    if (!read || strcmp (mode, "wal") != 0)
        return false;
    if (!exec_sql (self, "PRAGMA synchronous = FULL; PRAGMA foreign_keys = OFF;", "cannot configure the connection")
        || !ensure_schema (self))
        return false;
    char err [256];
    if (created && !dlq_spool_segment_sync_dir (data_dir, err, sizeof err)) {
        state_store_fail_text (self, "%s", err);
        return false;
    }
    return take_over (self, data_dir);
}

dlq_state_store_t *
dlq_state_store_open (const char *data_dir, char *err, size_t err_len)
{
    dlq_state_store_t *self = dlq_calloc (1, sizeof *self);
    size_t len = strlen (data_dir) + sizeof "/" DLQ_STATE_STORE_FILE;
    self->path = dlq_malloc (len);
    snprintf (self->path, len, "%s/%s", data_dir, DLQ_STATE_STORE_FILE);
    if (!open_file (self, data_dir)) {
        snprintf (err, err_len, "%s", self->errmsg);
        dlq_state_store_destroy (&self);
    }
    return self;
}

void
dlq_state_store_destroy (dlq_state_store_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_state_store_t *self = *self_p;
    for (int i = 0; i < STATE_STMT_COUNT; i++)
        sqlite3_finalize (self->stmt [i]);
    sqlite3_close_v2 (self->db);
    free (self->path);
    free (self);
    *self_p = NULL;
}

const char *dlq_state_store_last_error (const dlq_state_store_t *self) { return self->errmsg; }
