/*  embedded_store — the SQLite spool and default primary store.
 *
 *  One connection per object (SQLITE_OPEN_NOMUTEX: the object is used by one
 *  thread at a time). Every statement is prepared once at open and reused;
 *  every value is a bound parameter. The writer runs WAL with
 *  synchronous=FULL, so the WAL is fsynced at each COMMIT and an append that
 *  returns DLQ_STORE_OK is durable. Readers are read-only, query_only
 *  connections; each query is one statement that is reset at once, so no
 *  reader pins an old WAL snapshot between calls (a pinned snapshot would
 *  stop checkpoints from recycling the WAL, which would then grow). An
 *  updater is a read-write connection for the workbench's short
 *  transactions (embedded_workbench.c) beside the writer:
 *  it never creates or upgrades the schema, and SQLite serialises its
 *  transactions with the writer's (the busy timeout covers the wait).
 *
 *  Besides its canonical body, each row keeps the members a dispatcher
 *  routes and delivers by in columns of their own (schema version 3:
 *  operation_type, document_key, attempts, first_attempt_at beside id,
 *  stream_name, status, error_type, created_at, expires_at), written from the
 *  decoded event at insert, so the spool reads never parse a body.
 *
 *  seq is AUTOINCREMENT, so a deleted (swept) seq is never handed out again:
 *  the per-(sink, seq) delivery ledger (in the daemon's state file now)
 *  keys on it, and a dispatcher's "handled up to seq N" cursor stays
 *  meaningful. seq has gaps (an insert skipped as a duplicate still consumes
 *  a number), so nothing may assume it is dense.
 *
 *  This file owns the connection, the schema and its upgrades, the events
 *  and stream_counts tables, and the one write transaction
 *  (dlq_embedded_commit_all: a batch of events and checkpoint writes;
 *  dlq_embedded_append is that with events only). The reads of events by
 *  seq live in embedded_archive.c, the statements of schema
 *  version 5 in embedded_workbench.c; embedded_internal.h
 *  is what they share.
 */
#include "embedded_internal.h"
#include "embedded_query.h"
#include "fingerprint.h"
#include "dlq_alloc.h"
#include "dlq_json.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define APPLICATION_ID   0x646c7164         /* "dlqd" in the SQLite header */
#define BUSY_TIMEOUT_MS  5000

/* Page size of a new file (an existing file keeps its own). 1 KB bodies pack
 * 7 to an 8 KiB page but only 3 to a 4 KiB one, so fewer pages go through
 * the WAL and the checkpoint: appends measured 25-40% faster. */
#define PAGE_SIZE        8192

/* The writer's page cache (KiB), the readers' cache, and the size the WAL is
 * truncated back to after a checkpoint reset, so one burst does not leave a
 * huge WAL file behind for good. */
#define WRITER_CACHE_KIB 32768
#define READER_CACHE_KIB 8192
#define WAL_SIZE_LIMIT   (64 * 1024 * 1024)

/* A new file is created at version 1 and then upgraded like any version 1
 * file (embedded_archive_upgrade, then upgrade_columns), so a new and an
 * upgraded store are alike. */
static const char schema_v1 [] =
    "CREATE TABLE meta ("
    "  key   TEXT PRIMARY KEY,"
    "  value TEXT NOT NULL"
    ") WITHOUT ROWID;"
    "CREATE TABLE events ("
    "  seq         INTEGER PRIMARY KEY AUTOINCREMENT,"
    "  id          TEXT    NOT NULL UNIQUE,"
    "  stream_name TEXT    NOT NULL,"
    "  created_at  INTEGER NOT NULL,"
    "  expires_at  INTEGER,"
    "  status      TEXT    NOT NULL,"
    "  error_type  TEXT    NOT NULL,"
    "  body        TEXT    NOT NULL"
    ");"
    "CREATE INDEX events_by_stream ON events (stream_name, created_at DESC, seq DESC);"
    "CREATE INDEX events_by_expiry ON events (expires_at) WHERE expires_at IS NOT NULL;"
    "CREATE TABLE stream_counts ("
    "  stream_name TEXT PRIMARY KEY,"
    "  events      INTEGER NOT NULL"
    ") WITHOUT ROWID;"
    "INSERT INTO meta (key, value) VALUES ('schema_version', '1');";

/* Version 2 -> 3: the routing columns, added at the end of events (so the
 * DDL of a new file and of an upgraded one is the same), then filled in for
 * the rows already there from their bodies (embedded_internal.h). Run once,
 * inside the writer's schema transaction, only on a file below version 3:
 * the upgrade happens whole or not at all. The backfill rewrites every row
 * (and so passes the whole table through the WAL once): the first open of
 * an old file by a version 3 writer takes a moment, measured at 0.8 s for
 * 100k rows of 1 KB. */
static const char schema_v3 [] =
    "ALTER TABLE events ADD COLUMN operation_type TEXT;"
    "ALTER TABLE events ADD COLUMN document_key TEXT;"
    "ALTER TABLE events ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE events ADD COLUMN first_attempt_at INTEGER;"
    "UPDATE events SET"
    " operation_type = " BODY_OPERATION_TYPE ","
    " document_key = " BODY_DOCUMENT_KEY ","
    " attempts = " BODY_ATTEMPTS ","
    " first_attempt_at = " BODY_FIRST_ATTEMPT_AT ";"
    "UPDATE meta SET value = '3' WHERE key = 'schema_version';";

/* Version 3 -> 4: the columns and indexes of the workbench's filters
 * (embedded_query.h): the error's fingerprint (fingerprint.h; old rows get
 * it from their body, as the gateway computes it for new ones;
 * error.message is read from the body where a filter needs it, rather than
 * stored twice); an index by created_at
 * (LIST across streams, time windows) and one by fingerprint (GROUPS and
 * its drill-down). Both ascending: a new event goes at the end of the
 * index (of its fingerprint's range), the cheap place to insert, and
 * SQLite reads them backwards for newest first. Every index costs ingest:
 * measured with dlqd_bench, these two cost ~22% of durable ingest, four
 * (adding status and error_type) cost ~40%, while a page filtered by
 * status or errorType alone stays well under 100 ms over a million events
 * without an index of its own (dlqd_bench_queries). And fingerprint_counts:
 * events per (fingerprint, stream) kept up to date by every append and
 * sweep (as stream_counts is), so GROUPS of a whole store or stream reads
 * a few hundred rows rather than every event. */
static const char schema_v4 [] =
    "ALTER TABLE events ADD COLUMN fingerprint TEXT;"
    "UPDATE events SET fingerprint = dlq_fingerprint (body);"
    "CREATE TABLE fingerprint_counts ("
    "  fingerprint TEXT    NOT NULL,"
    "  stream_name TEXT    NOT NULL,"
    "  events      INTEGER NOT NULL,"
    "  first_seen  INTEGER NOT NULL,"
    "  last_seen   INTEGER NOT NULL,"
    "  error_type  TEXT    NOT NULL,"
    "  sample_seq  INTEGER NOT NULL,"
    "  PRIMARY KEY (fingerprint, stream_name)"
    ") WITHOUT ROWID;"
    "INSERT INTO fingerprint_counts"
    " SELECT fingerprint, stream_name, count (*), min (created_at), max (created_at), max (error_type), max (seq)"
    " FROM events WHERE fingerprint IS NOT NULL GROUP BY fingerprint, stream_name;"
    "CREATE INDEX events_by_created ON events (created_at, seq);"
    "CREATE INDEX events_by_fingerprint ON events (fingerprint, created_at, seq);"
    "UPDATE meta SET value = '4' WHERE key = 'schema_version';";

/* Version 4 -> 5: the replay state of events (embedded_workbench.h) and the
 * tables of scheduled passes and replay jobs (the daemon keeps its jobs
 * in its own state file now, router/state/job_store.h, and took over this
 * table's once; it stays, unread). Adding
 * columns whose default is a constant rewrites no row (SQLite only edits
 * the table's DDL; old rows read the default), so the upgrade is instant,
 * and the insert of an append names none of them: ingest writes nothing
 * new. replay_jobs keeps its rowid: a request may hold 10000 ids, too
 * large a row for a WITHOUT ROWID table. */
static const char schema_v5 [] =
    "ALTER TABLE events ADD COLUMN retry_count INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE events ADD COLUMN replay_count INTEGER NOT NULL DEFAULT 0;"
    "ALTER TABLE events ADD COLUMN retry_after INTEGER;"
    "CREATE TABLE scheduler_locks ("
    "  stream_name  TEXT    PRIMARY KEY,"
    "  owner        TEXT    NOT NULL,"
    "  locked_until INTEGER NOT NULL"
    ") WITHOUT ROWID;"
    "CREATE TABLE replay_jobs ("
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
    "CREATE INDEX replay_jobs_by_created ON replay_jobs (created_at, id);"
    "UPDATE meta SET value = '5' WHERE key = 'schema_version';";

/* Version 6 adds the workers' checkpoints (embedded_checkpoints.h): a new
 * table, nothing else changes. */
static const char schema_v6 [] =
    "CREATE TABLE checkpoints ("
    "  stream_name          TEXT    PRIMARY KEY,"
    "  instance_id          TEXT,"
    "  last_seen_token      TEXT,"
    "  last_seen_at         INTEGER,"
    "  last_processed_token TEXT,"
    "  last_processed_at    INTEGER,"
    "  metadata             TEXT,"
    "  updated_at           INTEGER NOT NULL"
    ") WITHOUT ROWID;"
    "UPDATE meta SET value = '6' WHERE key = 'schema_version';";

/* The list query: a range scan of events_by_stream, newest first. The
 * "after" form continues strictly below the cursor's (created_at, seq). It
 * is written as two range scans merged, not as "(created_at, seq) < (?, ?)":
 * SQLite does not seek on a rowid (seq) inside a row value, so that form
 * would re-walk every row of the cursor's created_at tie group on each page,
 * which turns paging through a large tie group quadratic. */
#define LIST_SELECT \
    "SELECT created_at, seq, body FROM events" \
    " WHERE stream_name = ?1 AND (expires_at IS NULL OR expires_at > ?2)"
#define LIST_ORDER " ORDER BY created_at DESC, seq DESC LIMIT ?3"
#define LIST_AFTER \
    LIST_SELECT " AND created_at = ?4 AND seq < ?5" \
    " UNION ALL " \
    LIST_SELECT " AND created_at < ?4" \
    LIST_ORDER

static const char *const stmt_sql [ST_STMT_COUNT] = {
    [ST_BEGIN]      = "BEGIN IMMEDIATE",
    [ST_COMMIT]     = "COMMIT",
    [ST_ROLLBACK]   = "ROLLBACK",
    /* ON CONFLICT (id) rather than INSERT OR IGNORE: only a duplicate id is
     * skipped; a NOT NULL violation stays an error instead of a "duplicate". */
    [ST_INSERT]     = "INSERT INTO events (id, stream_name, created_at, expires_at,"
                      " status, error_type, body, operation_type, document_key, attempts,"
                      " first_attempt_at, fingerprint)"
                      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"
                      " ON CONFLICT (id) DO NOTHING",
    [ST_COUNT_ADD]  = "INSERT INTO stream_counts (stream_name, events) VALUES (?1, ?2)"
                      " ON CONFLICT (stream_name) DO UPDATE SET events = events + excluded.events",
    [ST_COUNT_SUB]  = "UPDATE stream_counts SET events = events - ?2 WHERE stream_name = ?1",
    [ST_COUNT_DROP] = "DELETE FROM stream_counts WHERE stream_name = ?1 AND events <= 0",
    [ST_SWEEP]      = "DELETE FROM events WHERE seq IN (SELECT seq FROM events"
                      " WHERE expires_at IS NOT NULL AND expires_at <= ?1"
                      " ORDER BY expires_at LIMIT ?2) RETURNING seq, stream_name, fingerprint, id",
    [ST_GET]        = "SELECT body FROM events"
                      " WHERE id = ?1 AND (expires_at IS NULL OR expires_at > ?2)",
    [ST_LIST_FIRST] = LIST_SELECT LIST_ORDER,
    [ST_LIST_AFTER] = LIST_AFTER,
    /* the fingerprint counts of the rows a commit inserted (seq ?1..?2) */
    [ST_GROUP_ADD]  = "INSERT INTO fingerprint_counts (fingerprint, stream_name, events, first_seen, last_seen,"
                      " error_type, sample_seq)"
                      " SELECT fingerprint, stream_name, count (*), min (created_at), max (created_at),"
                      " max (error_type), max (seq) FROM events"
                      " WHERE seq BETWEEN ?1 AND ?2 AND fingerprint IS NOT NULL GROUP BY fingerprint, stream_name"
                      " ON CONFLICT (fingerprint, stream_name) DO UPDATE SET events = events + excluded.events,"
                      " first_seen = min (first_seen, excluded.first_seen),"
                      " last_seen = max (last_seen, excluded.last_seen), sample_seq = excluded.sample_seq",
    [ST_GROUP_SUB]  = "UPDATE fingerprint_counts SET events = events - ?3 WHERE fingerprint = ?1 AND stream_name = ?2",
    [ST_GROUP_DROP] = "DELETE FROM fingerprint_counts WHERE fingerprint = ?1 AND stream_name = ?2 AND events <= 0",
    [ST_STATS]      = "SELECT stream_name, events FROM stream_counts ORDER BY stream_name",
    [ST_INSERT_SEQ] = "INSERT INTO events (id, stream_name, created_at, expires_at,"
                      " status, error_type, body, operation_type, document_key, attempts,"
                      " first_attempt_at, fingerprint, seq)"
                      " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)"
                      " ON CONFLICT (id) DO NOTHING",
    [ST_META_SET]   = "INSERT INTO meta (key, value) VALUES (?1, ?2)"
                      " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
};

/* ------------------------------------------------------------------------ */
/* Errors */

static void
copy_message (char *err, size_t err_len, const char *message)
{
    if (err && err_len)
        snprintf (err, err_len, "%s", message);
}

void
embedded_fail_sqlite (dlq_embedded_t *self, const char *what)
{
    snprintf (self->errmsg, sizeof self->errmsg, "%s (%s): %s",
              what, self->path, sqlite3_errmsg (self->db));
}

void
embedded_fail_text (dlq_embedded_t *self, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (self->errmsg, sizeof self->errmsg, fmt, ap);
    va_end (ap);
}


/* ------------------------------------------------------------------------ */
/* Statements */

bool
embedded_step_done (dlq_embedded_t *self, sqlite3_stmt *stmt, const char *what)
{
    int rc;
    while ((rc = sqlite3_step (stmt)) == SQLITE_ROW)
        ;
    bool ok = rc == SQLITE_DONE;
    if (!ok)
        embedded_fail_sqlite (self, what);
    sqlite3_reset (stmt);
    return ok;
}

void
embedded_stmt_release (sqlite3_stmt *stmt)
{
    sqlite3_reset (stmt);
    sqlite3_clear_bindings (stmt);
}

bool
embedded_meta_set (dlq_embedded_t *self, const char *key, const char *value)
{
    sqlite3_stmt *stmt = self->stmt [ST_META_SET];
    sqlite3_bind_text (stmt, 1, key, -1, SQLITE_STATIC);
    sqlite3_bind_text (stmt, 2, value, -1, SQLITE_STATIC);
    bool ok = embedded_step_done (self, stmt, "cannot write the meta table");
    embedded_stmt_release (stmt);
    return ok;
}

bool
embedded_meta_get (dlq_embedded_t *self, const char *key, char *out, size_t out_len, bool *failed)
{
    *failed = false;
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_prepare_v2 (self->db, "SELECT value FROM meta WHERE key = ?1", -1, &stmt, NULL) != SQLITE_OK) {
        embedded_fail_sqlite (self, "cannot read the meta table");
        *failed = true;
        return false;
    }
    sqlite3_bind_text (stmt, 1, key, -1, SQLITE_STATIC);
    int rc = sqlite3_step (stmt);
    bool found = rc == SQLITE_ROW;
    if (found)
        snprintf (out, out_len, "%s", (const char *) sqlite3_column_text (stmt, 0));
    else
    if (rc != SQLITE_DONE) {
        embedded_fail_sqlite (self, "cannot read the meta table");
        *failed = true;
    }
    sqlite3_finalize (stmt);
    return found;
}

static bool
step_done (dlq_embedded_t *self, stmt_id_t id, const char *what)
{
    return embedded_step_done (self, self->stmt [id], what);
}

/* Roll back the open transaction, if SQLite has not already done so (it
 * rolls back by itself after some I/O errors). */
static void
rollback (dlq_embedded_t *self)
{
    if (!sqlite3_get_autocommit (self->db)) {
        sqlite3_step (self->stmt [ST_ROLLBACK]);
        sqlite3_reset (self->stmt [ST_ROLLBACK]);
    }
}

bool
embedded_txn_begin (dlq_embedded_t *self, const char *what)
{
    return step_done (self, ST_BEGIN, what);
}

bool
embedded_txn_commit (dlq_embedded_t *self, const char *what)
{
    return step_done (self, ST_COMMIT, what);
}

void
embedded_txn_rollback (dlq_embedded_t *self)
{
    rollback (self);
}

sqlite3_stmt *
embedded_replay_stmt (dlq_embedded_t *self, sqlite3_stmt *const *stmts, int id, const char *what)
{
    sqlite3_stmt *stmt = stmts [id];
    if (stmt)
        return stmt;
    if (self->schema_version < SCHEMA_VERSION_REPLAY)
        embedded_fail_text (self, "%s: %s has schema version %lld, without the replay state;"
                            " opening it with a dlqd writer upgrades it",
                            what, self->path, (long long) self->schema_version);
    else
        embedded_fail_text (self, "%s: %s is open read-only", what, self->path);
    return NULL;
}

bool
embedded_prepare (dlq_embedded_t *self, const char *const *sql, sqlite3_stmt **stmts,
                  int first, int end)
{
    for (int id = first; id < end; id++) {
        if (sqlite3_prepare_v3 (self->db, sql [id], -1, SQLITE_PREPARE_PERSISTENT,
                                &stmts [id], NULL) != SQLITE_OK) {
            embedded_fail_sqlite (self, "cannot prepare statement");
            return false;
        }
    }
    return true;
}

/* The statements this connection's mode can run (embedded_internal.h). */
static bool
prepare_all (dlq_embedded_t *self)
{
    bool ok;
    if (self->mode == DLQ_EMBEDDED_WRITER)
        ok = embedded_prepare (self, stmt_sql, self->stmt, 0, ST_STMT_COUNT);
    else
        ok = (self->mode == DLQ_EMBEDDED_READER
              || embedded_prepare (self, stmt_sql, self->stmt, 0, ST_FIRST_WRITER_ONLY))
          && embedded_prepare (self, stmt_sql, self->stmt, ST_FIRST_READ, ST_STMT_COUNT);
    return ok
        && embedded_archive_prepare (self)
        && embedded_workbench_prepare (self)
        && embedded_ckpt_prepare (self);
}


/* ------------------------------------------------------------------------ */
/* Open and schema */

/* Run one or more SQL statements that return no rows of interest. */
static bool
exec_sql (dlq_embedded_t *self, const char *sql, const char *what)
{
    if (sqlite3_exec (self->db, sql, NULL, NULL, NULL) != SQLITE_OK) {
        embedded_fail_sqlite (self, what);
        return false;
    }
    return true;
}

/* Run a one-row, one-column query; copies the text into out (empty when no
 * row). Used at open only. */
static bool
query_text (dlq_embedded_t *self, const char *sql, char *out, size_t out_len, const char *what)
{
    sqlite3_stmt *stmt = NULL;
    out [0] = '\0';
    if (sqlite3_prepare_v2 (self->db, sql, -1, &stmt, NULL) != SQLITE_OK) {
        embedded_fail_sqlite (self, what);
        return false;
    }
    int rc = sqlite3_step (stmt);
    if (rc == SQLITE_ROW) {
        const unsigned char *text = sqlite3_column_text (stmt, 0);
        snprintf (out, out_len, "%s", text ? (const char *) text : "");
        rc = SQLITE_DONE;
    }
    if (rc != SQLITE_DONE)
        embedded_fail_sqlite (self, what);
    sqlite3_finalize (stmt);
    return rc == SQLITE_DONE;
}

/* Parse a strict canonical decimal integer: optional '-' when allow_minus,
 * no leading zeros, no "-0", no sign '+', no spaces, within int64. */
static bool
parse_decimal (const char *s, size_t len, bool allow_minus, int64_t *out)
{
    bool minus = len > 0 && s [0] == '-';
    if (minus && !allow_minus)
        return false;
    size_t i = minus ? 1 : 0;
    if (i == len || (s [i] == '0' && len - i > 1) || (minus && s [i] == '0'))
        return false;
    uint64_t limit = minus ? (uint64_t) INT64_MAX + 1 : (uint64_t) INT64_MAX;
    uint64_t value = 0;
    for (; i < len; i++) {
        if (s [i] < '0' || s [i] > '9')
            return false;
        unsigned digit = (unsigned) (s [i] - '0');
        if (value > (limit - digit) / 10)
            return false;
        value = value * 10 + digit;
    }
    *out = minus ? (int64_t) (0 - value) : (int64_t) value;
    return true;
}

/* Check that an existing database is a dlqd store of a version this code
 * knows (any up to SCHEMA_VERSION: the writer upgrades an older one, a
 * reader reads it as it is); its version goes to self->schema_version.
 * Called inside a transaction by the writer. */
static bool
check_schema (dlq_embedded_t *self)
{
    char text [64];
    if (!query_text (self, "SELECT count(*) FROM sqlite_master"
                           " WHERE type = 'table' AND name = 'meta'", text, sizeof text,
                     "cannot read the schema"))
        return false;
    if (strcmp (text, "1") != 0) {
        embedded_fail_text (self, "%s is not a dlqd store (it has tables but no meta table)",
                            self->path);
        return false;
    }
    if (!query_text (self, "SELECT value FROM meta WHERE key = 'schema_version'",
                     text, sizeof text, "cannot read the schema version"))
        return false;
    int64_t version;
    if (!parse_decimal (text, strlen (text), false, &version) || version < 1) {
        embedded_fail_text (self, "%s has an invalid schema_version '%s' in its meta table",
                            self->path, text);
        return false;
    }
    if (version > SCHEMA_VERSION) {
        embedded_fail_text (self, "%s has schema version %lld, newer than this dlqd supports"
                            " (%d); upgrade dlqd to open it",
                            self->path, (long long) version, SCHEMA_VERSION);
        return false;
    }
    self->schema_version = version;
    return true;
}

/* True when the database holds no schema objects at all (a new file). */
static bool
database_is_empty (dlq_embedded_t *self, bool *empty)
{
    char text [32];
    if (!query_text (self, "SELECT count(*) FROM sqlite_master", text, sizeof text,
                     "cannot read the schema"))
        return false;
    *empty = strcmp (text, "0") == 0;
    return true;
}

/* dlq_fingerprint (body): the fingerprint of a stored body, for the
 * version 4 backfill; NULL for a body that is not an event. */
static void
sql_fingerprint (sqlite3_context *context, int argc, sqlite3_value **argv)
{
    (void) argc;
    const char *body = (const char *) sqlite3_value_text (argv [0]);
    dlq_fingerprint_t fp;
    if (body && dlq_fingerprint_of_event (body, (size_t) sqlite3_value_bytes (argv [0]), &fp))
        sqlite3_result_text (context, fp.hex, -1, SQLITE_TRANSIENT);
    else
        sqlite3_result_null (context);
}

/* Version 3 -> 4 (schema_v4). */
static bool
upgrade_filters (dlq_embedded_t *self)
{
    if (sqlite3_create_function_v2 (self->db, "dlq_fingerprint", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
                                    sql_fingerprint, NULL, NULL, NULL) != SQLITE_OK) {
        embedded_fail_sqlite (self, "cannot register dlq_fingerprint");
        return false;
    }
    if (!exec_sql (self, schema_v4, "cannot upgrade the schema to version 4"))
        return false;
    self->schema_version = SCHEMA_VERSION_FILTERS;
    return true;
}

/* Version 4 -> 5 (schema_v5). */
static bool
upgrade_replay (dlq_embedded_t *self)
{
    if (!exec_sql (self, schema_v5, "cannot upgrade the schema to version 5"))
        return false;
    self->schema_version = SCHEMA_VERSION_REPLAY;
    return true;
}

/* Version 5 -> 6 (schema_v6). */
static bool
upgrade_checkpoints (dlq_embedded_t *self)
{
    if (!exec_sql (self, schema_v6, "cannot upgrade the schema to version 6"))
        return false;
    self->schema_version = SCHEMA_VERSION_CHECKPOINTS;
    return true;
}

/* Version 2 -> 3 (schema_v3). */
static bool
upgrade_columns (dlq_embedded_t *self)
{
    if (!exec_sql (self, schema_v3, "cannot upgrade the schema to version 3"))
        return false;
    self->schema_version = SCHEMA_VERSION_COLUMNS;
    return true;
}

/* Writer: create schema v1 in a new file, or check an existing one, then
 * upgrade either to SCHEMA_VERSION, all in one IMMEDIATE transaction so two
 * writers cannot race to create or upgrade it, and a failed upgrade leaves
 * the file as it was. */
static bool
ensure_schema (dlq_embedded_t *self)
{
    if (!exec_sql (self, "BEGIN IMMEDIATE", "cannot start the schema transaction"))
        return false;
    bool empty = false;
    bool ok = database_is_empty (self, &empty);
    if (ok && empty) {
        char sql [64];
        snprintf (sql, sizeof sql, "PRAGMA application_id = %d", APPLICATION_ID);
        ok = exec_sql (self, schema_v1, "cannot create the schema")
          && exec_sql (self, sql, "cannot set the application id");
        self->schema_version = 1;
    }
    else
    if (ok)
        ok = check_schema (self);
    if (ok && self->schema_version < SCHEMA_VERSION_LEDGER)
        ok = embedded_archive_upgrade (self);
    if (ok && self->schema_version < SCHEMA_VERSION_COLUMNS)
        ok = upgrade_columns (self);
    if (ok && self->schema_version < SCHEMA_VERSION_FILTERS)
        ok = upgrade_filters (self);
    if (ok && self->schema_version < SCHEMA_VERSION_REPLAY)
        ok = upgrade_replay (self);
    if (ok && self->schema_version < SCHEMA_VERSION_CHECKPOINTS)
        ok = upgrade_checkpoints (self);
    if (ok)
        ok = exec_sql (self, "COMMIT", "cannot commit the schema");
    if (!ok && !sqlite3_get_autocommit (self->db))
        sqlite3_exec (self->db, "ROLLBACK", NULL, NULL, NULL);
    return ok;
}

/* Reader and updater: the file must already hold a schema this code knows. */
static bool
verify_schema (dlq_embedded_t *self)
{
    bool empty = false;
    if (!database_is_empty (self, &empty))
        return false;
    if (empty) {
        embedded_fail_text (self, "%s holds no dlqd schema yet (no writer has initialised it)",
                            self->path);
        return false;
    }
    return check_schema (self);
}

/* Set the writer's connection up: WAL, fsync at every commit, the
 * checkpoints of embedded_wal.h. The page size must be set before WAL mode
 * is entered; on an existing file it is a no-op. A checkpoint copies the
 * WAL back into the database and fsyncs it, which lifts that batch's
 * latency from ~1.5 ms to ~7-15 ms here. */
static bool
configure_writer (dlq_embedded_t *self)
{
    char mode [16];
    char page_size [32];
    snprintf (page_size, sizeof page_size, "PRAGMA page_size = %d", PAGE_SIZE);
    if (!exec_sql (self, page_size, "cannot set the page size"))
        return false;
    if (!query_text (self, "PRAGMA journal_mode = WAL", mode, sizeof mode,
                     "cannot switch to WAL mode"))
        return false;
    if (strcmp (mode, "wal") != 0) {
        embedded_fail_text (self, "%s: cannot switch to WAL mode (journal_mode is '%s');"
                            " is data_dir on a filesystem without shared memory support?",
                            self->path, mode);
        return false;
    }
    char sql [256];
    snprintf (sql, sizeof sql,
              "PRAGMA synchronous = FULL;"
              "PRAGMA foreign_keys = OFF;"
              "PRAGMA temp_store = MEMORY;"
              "PRAGMA cache_size = -%d;"
              "PRAGMA journal_size_limit = %d;",
              WRITER_CACHE_KIB, WAL_SIZE_LIMIT);
    if (!exec_sql (self, sql, "cannot configure the connection"))
        return false;
    self->wal = (embedded_wal_t) { 0, BUSY_TIMEOUT_MS, NULL };
    embedded_wal_writer (self->db, &self->wal);
    return true;
}

/* An updater's connection: the file is in WAL mode already (the writer
 * set it, and it persists), so only the per-connection settings: fsync at
 * every commit, as the writer does, so a RESOLVE or a job is durable once
 * acknowledged. */
static bool
configure_updater (dlq_embedded_t *self)
{
    char sql [192];
    snprintf (sql, sizeof sql,
              "PRAGMA synchronous = FULL;"
              "PRAGMA foreign_keys = OFF;"
              "PRAGMA temp_store = MEMORY;"
              "PRAGMA cache_size = -%d;",
              READER_CACHE_KIB);
    return exec_sql (self, sql, "cannot configure the connection");
}

/* An updater writes the tables of the current version only: an older file
 * waits for the writer to upgrade it. */
static bool
require_current_schema (dlq_embedded_t *self)
{
    if (self->schema_version == SCHEMA_VERSION)
        return true;
    embedded_fail_text (self, "%s has schema version %lld; an updater needs version %d"
                        " (opening it with a dlqd writer upgrades it)",
                        self->path, (long long) self->schema_version, SCHEMA_VERSION);
    return false;
}

static bool
configure_reader (dlq_embedded_t *self)
{
    char sql [128];
    snprintf (sql, sizeof sql, "PRAGMA query_only = ON; PRAGMA cache_size = -%d;",
              READER_CACHE_KIB);
    return exec_sql (self, sql, "cannot configure the connection");
}

/* fsync data_dir, so that a newly created database file is durable by name
 * before the first ack. Filesystems that cannot fsync a directory are let be. */
static bool
sync_directory (dlq_embedded_t *self, const char *dir)
{
    int fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        embedded_fail_text (self, "cannot open data_dir %s: %s", dir, strerror (errno));
        return false;
    }
    bool ok = fsync (fd) == 0 || errno == EINVAL || errno == EROFS;
    if (!ok)
        embedded_fail_text (self, "cannot fsync data_dir %s: %s", dir, strerror (errno));
    close (fd);
    return ok;
}

/* Open the connection with the flags of its mode. A reader or updater whose
 * file does not exist gets a plain message rather than SQLite's "unable to
 * open". */
static bool
open_connection (dlq_embedded_t *self)
{
    int flags = SQLITE_OPEN_NOMUTEX;
    if (self->mode == DLQ_EMBEDDED_WRITER)
        flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    else {
        flags |= self->mode == DLQ_EMBEDDED_UPDATER ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY;
        if (access (self->path, F_OK) != 0) {
            embedded_fail_text (self, "cannot open %s: %s"
                                " (no writer has created the store yet?)",
                                self->path, strerror (errno));
            return false;
        }
    }
    if (sqlite3_open_v2 (self->path, &self->db, flags, NULL) != SQLITE_OK) {
        if (self->db)
            embedded_fail_sqlite (self, "cannot open the store");
        else
            embedded_fail_text (self, "cannot open %s: out of memory in SQLite", self->path);
        return false;
    }
    sqlite3_extended_result_codes (self->db, 1);
    embedded_wal_busy_wait (self->db, BUSY_TIMEOUT_MS);
    if (dlq_embedded_query_functions (self->db) != SQLITE_OK) {
        embedded_fail_sqlite (self, "cannot register the query functions");
        return false;
    }
    return true;
}

static bool
open_store (dlq_embedded_t *self, const char *data_dir)
{
    if (!open_connection (self))
        return false;
    if (self->mode == DLQ_EMBEDDED_WRITER)
        return configure_writer (self)
            && ensure_schema (self)
            && sync_directory (self, data_dir)
            && prepare_all (self);
    if (self->mode == DLQ_EMBEDDED_UPDATER)
        return configure_updater (self)
            && verify_schema (self)
            && require_current_schema (self)
            && prepare_all (self);
    return configure_reader (self)
        && verify_schema (self)
        && prepare_all (self);
}

dlq_embedded_t *
dlq_embedded_open (const char *data_dir, dlq_embedded_mode_t mode, char *err, size_t err_len)
{
    dlq_embedded_t *self = dlq_calloc (1, sizeof *self);
    self->mode = mode;
    size_t dir_len = strlen (data_dir);
    size_t path_len = dir_len + 1 + strlen (DLQ_EMBEDDED_FILE);
    self->path = dlq_malloc (path_len + 1);
    snprintf (self->path, path_len + 1, "%s/%s", data_dir, DLQ_EMBEDDED_FILE);
    self->wal_path = dlq_malloc (path_len + 5);
    snprintf (self->wal_path, path_len + 5, "%s-wal", self->path);

    if (!open_store (self, data_dir)) {
        copy_message (err, err_len, self->errmsg);
        dlq_embedded_destroy (&self);
        return NULL;
    }
    return self;
}

void
dlq_embedded_destroy (dlq_embedded_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_embedded_t *self = *self_p;
    for (int id = 0; id < ST_STMT_COUNT; id++)
        sqlite3_finalize (self->stmt [id]);
    for (int id = 0; id < AR_STMT_COUNT; id++)
        sqlite3_finalize (self->archive [id]);
    for (int id = 0; id < CK_STMT_COUNT; id++)
        sqlite3_finalize (self->ckpt [id]);
    for (int id = 0; id < WB_STMT_COUNT; id++)
        sqlite3_finalize (self->workbench [id]);
    embedded_wal_behind_stop (&self->wal);
    sqlite3_close (self->db);
    free (self->names);
    free (self->path);
    free (self->wal_path);
    free (self);
    *self_p = NULL;
}

const char *
dlq_embedded_last_error (const dlq_embedded_t *self)
{
    return self->errmsg;
}


/* ------------------------------------------------------------------------ */
/* Per-stream counting */

static int
compare_names (const void *a, const void *b)
{
    return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* Apply +n (add) or -n (remove) to stream_counts for one stream. */
static bool
adjust_count (dlq_embedded_t *self, const char *stream, int64_t n, bool add)
{
    sqlite3_stmt *stmt = self->stmt [add ? ST_COUNT_ADD : ST_COUNT_SUB];
    embedded_bind_text (stmt, 1, stream);
    sqlite3_bind_int64 (stmt, 2, n);
    bool ok = step_done (self, add ? ST_COUNT_ADD : ST_COUNT_SUB, "cannot update stream_counts");
    sqlite3_clear_bindings (stmt);
    if (ok && !add) {
        stmt = self->stmt [ST_COUNT_DROP];
        embedded_bind_text (stmt, 1, stream);
        ok = step_done (self, ST_COUNT_DROP, "cannot update stream_counts");
        sqlite3_clear_bindings (stmt);
    }
    return ok;
}

/* Sort count stream names and adjust stream_counts once per distinct name,
 * by the number of times it occurs. */
static bool
adjust_counts (dlq_embedded_t *self, const char **names, size_t count, bool add)
{
    qsort (names, count, sizeof *names, compare_names);
    for (size_t start = 0, end; start < count; start = end) {
        for (end = start + 1; end < count && strcmp (names [end], names [start]) == 0; end++)
            ;
        if (!adjust_count (self, names [start], (int64_t) (end - start), add))
            return false;
    }
    return true;
}


/* fingerprint_counts of the rows inserted with seq first..last (none: 0). */
static bool
add_group_counts (dlq_embedded_t *self, int64_t first, int64_t last)
{
    if (!first)
        return true;
    sqlite3_stmt *stmt = self->stmt [ST_GROUP_ADD];
    sqlite3_bind_int64 (stmt, 1, first);
    sqlite3_bind_int64 (stmt, 2, last);
    return step_done (self, ST_GROUP_ADD, "cannot update fingerprint_counts");
}

/* fingerprint_counts less the swept rows: keys holds "<fingerprint> <stream>"
 * per row (NULL for a row without a fingerprint). */
static bool
sub_group_counts (dlq_embedded_t *self, char **keys, size_t count)
{
    qsort (keys, count, sizeof *keys, compare_names);
    bool ok = true;
    for (size_t start = 0, end; ok && start < count; start = end) {
        for (end = start + 1; end < count && strcmp (keys [end], keys [start]) == 0; end++)
            ;
        const char *space = strchr (keys [start], ' ');
        if (!space)
            continue;                   /* a row without a fingerprint */
        for (int k = ST_GROUP_SUB; ok && k <= ST_GROUP_DROP; k++) {
            sqlite3_stmt *stmt = self->stmt [k];
            sqlite3_bind_text (stmt, 1, keys [start], (int) (space - keys [start]), SQLITE_STATIC);
            embedded_bind_text (stmt, 2, space + 1);
            if (k == ST_GROUP_SUB)
                sqlite3_bind_int64 (stmt, 3, (int64_t) (end - start));
            ok = step_done (self, (stmt_id_t) k, "cannot update fingerprint_counts");
            sqlite3_clear_bindings (stmt);
        }
    }
    return ok;
}

/* ------------------------------------------------------------------------ */
/* Commit and append */

/* Why a connection that is not the writer cannot append or sweep. */
static const char *
not_the_writer (const dlq_embedded_t *self)
{
    return self->mode == DLQ_EMBEDDED_READER ? "is open read-only"
                                             : "is open as an updater; only the writer appends and sweeps";
}

static const char *
missing_field (const dlq_event_t *event)
{
    if (!event)
        return "event";
    if (!event->id)
        return "id";
    if (!event->stream_name)
        return "stream_name";
    if (!event->status)
        return "status";
    if (!event->error_type)
        return "error_type";
    if (!event->json)
        return "json";
    return NULL;
}

/* Insert one event, its routing columns taken from the event's members
 * (which dlq_event_decode set from the body now in json); *inserted tells
 * whether a row was added (false: its id was already stored). */
static bool
insert_event (dlq_embedded_t *self, const dlq_event_t *event, const int64_t *seq, bool *inserted)
{
    stmt_id_t id = seq ? ST_INSERT_SEQ : ST_INSERT;
    sqlite3_stmt *stmt = self->stmt [id];
    if (seq)
        sqlite3_bind_int64 (stmt, 13, *seq);
    embedded_bind_text (stmt, 1, event->id);
    embedded_bind_text (stmt, 2, event->stream_name);
    sqlite3_bind_int64 (stmt, 3, event->created_at);
    embedded_bind_time (stmt, 4, event->expires_at);
    embedded_bind_text (stmt, 5, event->status);
    embedded_bind_text (stmt, 6, event->error_type);
    sqlite3_bind_text64 (stmt, 7, event->json, event->json_len, SQLITE_STATIC, SQLITE_UTF8);
    embedded_bind_optional_text (stmt, 8, event->operation_type);
    embedded_bind_optional_text (stmt, 9, event->document_key);
    sqlite3_bind_int (stmt, 10, event->attempts);
    embedded_bind_time (stmt, 11, event->first_attempt_at);
    char fingerprint [sizeof event->fingerprint];
    if (event->fingerprint [0])
        memcpy (fingerprint, event->fingerprint, sizeof fingerprint);
    else                                    /* not fingerprinted by the gateway (an embedded sink) */
        dlq_event_fingerprint_hex (event, fingerprint);
    sqlite3_bind_text (stmt, 12, fingerprint, -1, SQLITE_TRANSIENT);
    if (!step_done (self, id, "cannot insert event"))
        return false;
    *inserted = sqlite3_changes (self->db) > 0;
    return true;
}

/* The events part of a commit, run inside the open transaction. */
bool
embedded_insert_rows (dlq_embedded_t *self, dlq_event_t *const *events, const int64_t *seqs, size_t count,
                      bool *duplicate)
{
    if (count > self->names_cap) {
        self->names = dlq_realloc (self->names, count * sizeof *self->names);
        self->names_cap = count;
    }
    size_t fresh = 0;
    int64_t first_seq = 0, last_seq = 0;
    for (size_t i = 0; i < count; i++) {
        bool inserted = false;
        if (!insert_event (self, events [i], seqs ? &seqs [i] : NULL, &inserted))
            return false;
        if (duplicate)
            duplicate [i] = !inserted;
        if (inserted) {
            self->names [fresh++] = events [i]->stream_name;
            last_seq = sqlite3_last_insert_rowid (self->db);
            if (!first_seq)
                first_seq = last_seq;
        }
    }
    return adjust_counts (self, self->names, fresh, true) && add_group_counts (self, first_seq, last_seq);
}

/* Everything that can be refused before the transaction starts. */
static bool
check_commit (dlq_embedded_t *self, dlq_event_t *const *events, size_t count)
{
    if (self->mode != DLQ_EMBEDDED_WRITER) {
        embedded_fail_text (self, "commit: %s %s", self->path, not_the_writer (self));
        return false;
    }
    for (size_t i = 0; i < count; i++) {
        const char *field = missing_field (events [i]);
        if (field) {
            embedded_fail_text (self, "commit: event %zu of the batch has no %s", i, field);
            return false;
        }
    }
    return true;
}

/* The one write transaction: the events first (so *last_seq_out covers
 * them), then the checkpoint writes, then COMMIT, which fsyncs the WAL once
 * for both. */
dlq_store_result_t
dlq_embedded_commit_all (dlq_embedded_t *self, dlq_event_t *const *events, size_t count,
                         bool *duplicate, dlq_ckpt_write_t *ckpts, size_t ckpt_count,
                         int64_t *last_seq_out, char *err, size_t err_len)
{
    if (!check_commit (self, events, count)) {
        copy_message (err, err_len, self->errmsg);
        return DLQ_STORE_ERROR;
    }
    if (count == 0 && ckpt_count == 0) {
        if (last_seq_out && !embedded_archive_last_seq (self, last_seq_out)) {
            copy_message (err, err_len, self->errmsg);
            return DLQ_STORE_ERROR;
        }
        return DLQ_STORE_OK;
    }
    bool ok = step_done (self, ST_BEGIN, "commit: cannot begin")
           && (count == 0 || embedded_insert_rows (self, events, NULL, count, duplicate))
           && embedded_ckpt_apply (self, ckpts, ckpt_count)
           && (!last_seq_out || embedded_archive_last_seq (self, last_seq_out))
           && step_done (self, ST_COMMIT, "commit: cannot commit");
    embedded_stmt_release (self->stmt [ST_INSERT]);
    if (!ok) {
        rollback (self);
        copy_message (err, err_len, self->errmsg);
        return DLQ_STORE_ERROR;
    }
    return DLQ_STORE_OK;
}

dlq_store_result_t
dlq_embedded_append (dlq_embedded_t *self, dlq_event_t *const *events, size_t count,
                     bool *duplicate, char *err, size_t err_len)
{
    return dlq_embedded_commit_all (self, events, count, duplicate, NULL, 0, NULL, err, err_len);
}


/* ------------------------------------------------------------------------ */
/* Queries */

dlq_store_result_t
dlq_embedded_get (dlq_embedded_t *self, const char *id, int64_t now_ms, dlq_buf_t *json_out)
{
    sqlite3_stmt *stmt = self->stmt [ST_GET];
    dlq_buf_reset (json_out);
    embedded_bind_text (stmt, 1, id);
    sqlite3_bind_int64 (stmt, 2, now_ms);
    dlq_store_result_t result;
    int rc = sqlite3_step (stmt);
    if (rc == SQLITE_ROW) {
        dlq_buf_append (json_out, sqlite3_column_text (stmt, 0),
                        (size_t) sqlite3_column_bytes (stmt, 0));
        result = DLQ_STORE_OK;
    }
    else
    if (rc == SQLITE_DONE)
        result = DLQ_STORE_NOT_FOUND;
    else {
        embedded_fail_sqlite (self, "get");
        result = DLQ_STORE_ERROR;
    }
    embedded_stmt_release (stmt);
    return result;
}

/* Parse a cursor as issued by list: "<created_at>.<seq>", both canonical
 * decimal, created_at may be negative, seq >= 1. */
bool
embedded_parse_cursor (const char *cursor, int64_t *created_at, int64_t *seq)
{
    const char *dot = strchr (cursor, '.');
    if (!dot)
        return false;
    return parse_decimal (cursor, (size_t) (dot - cursor), true, created_at)
        && parse_decimal (dot + 1, strlen (dot + 1), false, seq)
        && *seq >= 1;
}

static void
format_cursor (dlq_buf_t *out, int64_t created_at, int64_t seq)
{
    dlq_buf_put_int (out, created_at);
    dlq_buf_putc (out, '.');
    dlq_buf_put_int (out, seq);
}

/* Step the bound list statement, writing up to limit bodies into
 * events_out; when a further row exists, the cursor of the last written row
 * goes to next_cursor_out. */
bool
embedded_collect_page (dlq_embedded_t *self, sqlite3_stmt *stmt, size_t limit,
                       dlq_buf_t *events_out, dlq_buf_t *next_cursor_out)
{
    int64_t last_created = 0, last_seq = 0;
    size_t rows = 0;
    int rc;
    dlq_buf_putc (events_out, '[');
    while ((rc = sqlite3_step (stmt)) == SQLITE_ROW) {
        if (rows == limit) {
            format_cursor (next_cursor_out, last_created, last_seq);
            rc = SQLITE_DONE;
            break;
        }
        if (rows++)
            dlq_buf_putc (events_out, ',');
        last_created = sqlite3_column_int64 (stmt, 0);
        last_seq = sqlite3_column_int64 (stmt, 1);
        dlq_buf_append (events_out, sqlite3_column_text (stmt, 2),
                        (size_t) sqlite3_column_bytes (stmt, 2));
    }
    dlq_buf_putc (events_out, ']');
    if (rc != SQLITE_DONE) {
        embedded_fail_sqlite (self, "list");
        return false;
    }
    return true;
}

dlq_store_result_t
dlq_embedded_list (dlq_embedded_t *self, const char *stream, size_t limit,
                   const char *cursor, int64_t now_ms,
                   dlq_buf_t *events_out, dlq_buf_t *next_cursor_out)
{
    dlq_buf_reset (events_out);
    dlq_buf_reset (next_cursor_out);
    if (limit == 0) {
        embedded_fail_text (self, "list: limit must be at least 1");
        return DLQ_STORE_ERROR;
    }
    if (limit > (size_t) INT64_MAX - 1)
        limit = (size_t) INT64_MAX - 1;
    bool first = !cursor || !*cursor;
    int64_t created_at = 0, seq = 0;
    if (!first && !embedded_parse_cursor (cursor, &created_at, &seq))
        return DLQ_STORE_BAD_CURSOR;

    sqlite3_stmt *stmt = self->stmt [first ? ST_LIST_FIRST : ST_LIST_AFTER];
    embedded_bind_text (stmt, 1, stream);
    sqlite3_bind_int64 (stmt, 2, now_ms);
    sqlite3_bind_int64 (stmt, 3, (int64_t) limit + 1);
    if (!first) {
        sqlite3_bind_int64 (stmt, 4, created_at);
        sqlite3_bind_int64 (stmt, 5, seq);
    }
    bool ok = embedded_collect_page (self, stmt, limit, events_out, next_cursor_out);
    embedded_stmt_release (stmt);
    if (!ok) {
        dlq_buf_reset (events_out);
        dlq_buf_reset (next_cursor_out);
        return DLQ_STORE_ERROR;
    }
    return DLQ_STORE_OK;
}

/* Size of a file, 0 when it does not exist (a WAL between sessions). */
static bool
file_size (const char *path, bool must_exist, int64_t *size)
{
    struct stat st;
    if (stat (path, &st) == 0) {
        *size = (int64_t) st.st_size;
        return true;
    }
    *size = 0;
    return !must_exist && errno == ENOENT;
}

dlq_store_result_t
dlq_embedded_stats (dlq_embedded_t *self, dlq_buf_t *streams_out,
                    int64_t *events_out, int64_t *bytes_out)
{
    sqlite3_stmt *stmt = self->stmt [ST_STATS];
    int64_t total = 0;
    size_t rows = 0;
    int rc;
    dlq_buf_reset (streams_out);
    dlq_buf_putc (streams_out, '{');
    while ((rc = sqlite3_step (stmt)) == SQLITE_ROW) {
        int64_t events = sqlite3_column_int64 (stmt, 1);
        if (rows++)
            dlq_buf_putc (streams_out, ',');
        dlq_json_write_string (streams_out, (const char *) sqlite3_column_text (stmt, 0),
                         (size_t) sqlite3_column_bytes (stmt, 0));
        dlq_buf_putc (streams_out, ':');
        dlq_buf_put_int (streams_out, events);
        total += events;
    }
    dlq_buf_putc (streams_out, '}');
    sqlite3_reset (stmt);
    if (rc != SQLITE_DONE) {
        embedded_fail_sqlite (self, "stats");
        dlq_buf_reset (streams_out);
        return DLQ_STORE_ERROR;
    }
    int64_t db_bytes, wal_bytes;
    if (!file_size (self->path, true, &db_bytes) || !file_size (self->wal_path, false, &wal_bytes)) {
        embedded_fail_text (self, "stats: cannot stat %s: %s", self->path, strerror (errno));
        dlq_buf_reset (streams_out);
        return DLQ_STORE_ERROR;
    }
    *events_out = total;
    *bytes_out = db_bytes + wal_bytes;
    return DLQ_STORE_OK;
}


/* ------------------------------------------------------------------------ */
/* Sweep */

/* Delete the expired rows (inside the open transaction); the seq of each
 * deleted row goes to seqs, its stream name is copied into names and
 * "<fingerprint> <stream>" into keys, which the caller frees. */
static bool
delete_expired (dlq_embedded_t *self, int64_t now_ms, int max_rows,
                int64_t *seqs, char **names, char **keys, char **ids, size_t *deleted)
{
    sqlite3_stmt *stmt = self->stmt [ST_SWEEP];
    sqlite3_bind_int64 (stmt, 1, now_ms);
    sqlite3_bind_int (stmt, 2, max_rows);
    int rc;
    while ((rc = sqlite3_step (stmt)) == SQLITE_ROW) {
        if (*deleted == (size_t) max_rows)
            continue;           /* cannot happen: the subquery has LIMIT max_rows */
        seqs [*deleted] = sqlite3_column_int64 (stmt, 0);
        const char *fingerprint = (const char *) sqlite3_column_text (stmt, 2);
        dlq_buf_t key = DLQ_BUF_INIT;
        if (fingerprint)                        /* "": a row without a fingerprint, no group */
            dlq_buf_printf (&key, "%s %s", fingerprint, (const char *) sqlite3_column_text (stmt, 1));
        keys [*deleted] = dlq_buf_steal (&key, NULL);
        ids [*deleted] = dlq_strndup ((const char *) sqlite3_column_text (stmt, 3),
                                      (size_t) sqlite3_column_bytes (stmt, 3));
        names [(*deleted)++] = dlq_strndup ((const char *) sqlite3_column_text (stmt, 1),
                                            (size_t) sqlite3_column_bytes (stmt, 1));
    }
    bool ok = rc == SQLITE_DONE;
    if (!ok)
        embedded_fail_sqlite (self, "sweep: cannot delete");
    embedded_stmt_release (stmt);
    return ok;
}

/* The deliveries rows of the swept events go in the same transaction, so
 * no ledger row outlives its event. */
int64_t
dlq_embedded_sweep (dlq_embedded_t *self, int64_t now_ms, int max_rows)
{
    return dlq_embedded_sweep_each (self, now_ms, max_rows, NULL, NULL);
}

int64_t
dlq_embedded_sweep_each (dlq_embedded_t *self, int64_t now_ms, int max_rows, dlq_embedded_swept_fn *fn, void *arg)
{
    if (self->mode != DLQ_EMBEDDED_WRITER) {
        embedded_fail_text (self, "sweep: %s %s", self->path, not_the_writer (self));
        return -1;
    }
    if (max_rows <= 0)
        return 0;
    char **names = dlq_malloc ((size_t) max_rows * sizeof *names);
    char **keys = dlq_malloc ((size_t) max_rows * sizeof *keys);
    char **ids = dlq_malloc ((size_t) max_rows * sizeof *ids);
    int64_t *seqs = dlq_malloc ((size_t) max_rows * sizeof *seqs);
    size_t deleted = 0;
    bool ok = step_done (self, ST_BEGIN, "sweep: cannot begin")
           && delete_expired (self, now_ms, max_rows, seqs, names, keys, ids, &deleted)
           && adjust_counts (self, (const char **) names, deleted, false)
           && sub_group_counts (self, keys, deleted)
           && step_done (self, ST_COMMIT, "sweep: cannot commit");
    if (!ok)
        rollback (self);
    for (size_t i = 0; i < deleted; i++) {
        if (ok && fn)
            fn (ids [i], strlen (ids [i]), seqs [i], arg);
        free (names [i]);
        free (keys [i]);
        free (ids [i]);
    }
    free (names);
    free (keys);
    free (ids);
    free (seqs);
    return ok ? (int64_t) deleted : -1;
}
