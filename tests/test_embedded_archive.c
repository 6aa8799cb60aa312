/*  test_embedded_archive — the store's reads of events by seq (the routing
 *  columns of schema v3 they are built from), and the in-place upgrades of
 *  old files up to the replay state (schema v5); the ledger tables of
 *  version 2 are made and kept for the daemon's state file to take over.
 *
 *  Every test works in its own mkdtemp directory, removed afterwards. Events
 *  are real ones (decoded from JSON, then encoded), so that what the spool
 *  reads hand out can be held against what was committed, and so that old
 *  files made by hand hold real bodies to upgrade; they are numbered, event
 *  n having id 0190a1b2-0000-7000-8000-<n> and created_at BASE_MS + n. Raw
 *  SQLite connections are used only to look behind the API, to make old
 *  files and to inject failures.
 */
#include "embedded_archive.h"
#include "embedded_store.h"
#include "embedded_workbench.h"
#include "dlq_alloc.h"
#include "dlq_buf.h"

#include "store_support.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmp_dir [256];

static void make_dir (void) { test_tmpdir (tmp_dir); }
static void remove_dir (void) { test_rmtree (tmp_dir); }

TestSuite (embedded_archive, .init = make_dir, .fini = remove_dir);


/* ------------------------------------------------------------------------ */
/* Helpers */

#define BASE_MS   1750000000000LL       /* 2025-06-15 */
#define NO_EXPIRY DLQ_TIME_NONE
#define MAX_SEEN  128

static void
event_id (int n, char *out, size_t len)
{
    snprintf (out, len, "0190a1b2-0000-7000-8000-%012d", n);
}

/* Event n of stream, expiring at expires_at (or never), encoded. Its
 * routing members vary with n % 4:
 *   0  no operationType, documentKey or firstAttemptAt;
 *   1  an object documentKey, a firstAttemptAt;
 *   2  a string documentKey with escapes, no firstAttemptAt;
 *   3  a number documentKey, a firstAttemptAt before 1970;
 * and attempts is n % 5. fullDocument, error.message and metadata are always
 * there (a spool read leaves them out). */
static dlq_event_t *
make_event (int n, const char *stream, int64_t expires_at)
{
    static const char *const operation [] = { NULL, "insert", "update", "delete" };
    static const char *const key [] = {
        NULL,
        "{\"_id\":{\"$oid\":\"65f0a1b2c3d4e5f601234567\"},\"region\":\"eu\"}",
        "\"k-\\\"q\\\" \\\\ caf\u00e9 \\u2028\"",
        "1.50",
    };
    static const char *const first_at [] = {
        NULL, "2025-06-14T01:02:03.456Z", NULL, "1969-12-31T23:59:59.999Z",
    };
    char id [40], body [1024], extra [512] = "";
    event_id (n, id, sizeof id);
    int v = n % 4;
    if (operation [v])
        snprintf (extra + strlen (extra), sizeof extra - strlen (extra),
                  ",\"operationType\":\"%s\"", operation [v]);
    if (key [v])
        snprintf (extra + strlen (extra), sizeof extra - strlen (extra),
                  ",\"documentKey\":%s", key [v]);
    if (first_at [v])
        snprintf (extra + strlen (extra), sizeof extra - strlen (extra),
                  ",\"firstAttemptAt\":\"%s\"", first_at [v]);
    snprintf (body, sizeof body,
              "{\"id\":\"%s\",\"streamName\":\"%s\"%s,"
              "\"fullDocument\":{\"n\":{\"$numberLong\":\"%d\"}},"
              "\"error\":{\"type\":\"java.lang.IllegalStateException\",\"message\":\"event %d\"},"
              "\"attempts\":%d,\"metadata\":{\"k\":\"v\"}}", id, stream, extra, n, n, n % 5);
    dlq_error_t err;
    dlq_event_t *event = dlq_event_decode (body, strlen (body), BASE_MS + n, &err);
    cr_assert_not_null (event, "test event does not decode: %s at %s", err.message, err.field);
    event->expires_at = expires_at;
    dlq_event_encode (event);
    return event;
}

static void
expect_same_text (const char *got, const char *want, const char *member)
{
    if (want)
        cr_assert (got && strcmp (got, want) == 0, "%s: got %s, want %s", member,
                   got ? got : "NULL", want);
    else
        cr_assert_null (got, "%s: got %s, want NULL", member, got);
}

/* What a spool read handed out against the event that was committed: every
 * member a read fills is equal (json byte for byte and NUL-terminated), and
 * the members it leaves out are empty, so nothing was parsed from the body. */
static void
expect_partial (const dlq_event_t *got, const dlq_event_t *want)
{
    cr_assert_not_null (got);
    expect_same_text (got->id, want->id, "id");
    expect_same_text (got->stream_name, want->stream_name, "stream_name");
    expect_same_text (got->operation_type, want->operation_type, "operation_type");
    expect_same_text (got->status, want->status, "status");
    expect_same_text (got->error_type, want->error_type, "error_type");
    expect_same_text (got->document_key, want->document_key, "document_key");
    cr_assert_eq (got->attempts, want->attempts, "%s: attempts", want->id);
    cr_assert_eq (got->first_attempt_at, want->first_attempt_at, "%s: first_attempt_at %lld, want %lld",
                  want->id, (long long) got->first_attempt_at, (long long) want->first_attempt_at);
    cr_assert_eq (got->created_at, want->created_at, "%s: created_at", want->id);
    cr_assert_eq (got->expires_at, want->expires_at, "%s: expires_at", want->id);
    cr_assert_eq (got->json_len, want->json_len, "%s: json_len", want->id);
    cr_assert_eq (memcmp (got->json, want->json, want->json_len), 0, "%s: json", want->id);
    cr_assert_eq (got->json [got->json_len], '\0');

    cr_assert_null (got->full_document);
    cr_assert_null (got->resume_token);
    cr_assert_null (got->error_message);
    cr_assert_null (got->error_stack_trace);
    cr_assert_null (got->metadata);
    cr_assert_eq (got->last_attempt_at, DLQ_TIME_NONE);
}

static void
free_events (dlq_event_t **events, size_t count)
{
    for (size_t i = 0; i < count; i++)
        dlq_event_destroy (&events [i]);
}

static dlq_embedded_t *open_store (dlq_embedded_mode_t mode) { return test_store_embedded (tmp_dir, mode); }

/* Commit, expecting success; returns *last_seq_out. */
static int64_t
commit (dlq_embedded_t *store, dlq_event_t **events, size_t count)
{
    bool duplicate [MAX_SEEN];
    char err [512] = "";
    int64_t last = -7;
    cr_assert_leq (count, MAX_SEEN);
    cr_assert_eq (dlq_embedded_commit_all (store, events, count, duplicate, NULL, 0, &last, err, sizeof err),
                  DLQ_STORE_OK, "commit failed: %s", err);
    return last;
}

/* Commit events n = first .. first + count - 1 of stream, then free them. */
static int64_t
append_range (dlq_embedded_t *store, int first, int count, const char *stream, int64_t expires_at)
{
    dlq_event_t *events [MAX_SEEN];
    cr_assert_leq (count, MAX_SEEN);
    for (int i = 0; i < count; i++)
        events [i] = make_event (first + i, stream, expires_at);
    int64_t last = commit (store, events, (size_t) count);
    free_events (events, (size_t) count);
    return last;
}

/* What read_after handed out. */
typedef struct {
    int64_t      seq [MAX_SEEN];
    dlq_event_t *event [MAX_SEEN];
    size_t       count;
} seen_events_t;

static void
see_event (int64_t seq, dlq_event_t *event, void *arg)
{
    seen_events_t *seen = arg;
    cr_assert_lt (seen->count, MAX_SEEN);
    seen->seq [seen->count] = seq;
    seen->event [seen->count++] = event;
}

static void
forget_events (seen_events_t *seen)
{
    free_events (seen->event, seen->count);
    seen->count = 0;
}

/* ------------------------------------------------------------------------ */
/* Reads */

Test (embedded_archive, read_after_pages_through_seqs_in_order)
{
    dlq_embedded_t *store = open_store (DLQ_EMBEDDED_WRITER);
    enum { COUNT = 30 };
    dlq_event_t *events [COUNT];
    for (int i = 0; i < COUNT; i++)
        events [i] = make_event (i, i % 3 ? "orders" : "payments",
                                 i % 4 ? NO_EXPIRY : BASE_MS + 10);
    /* Batches with duplicates in between, so seq has gaps. */
    commit (store, events, 10);
    commit (store, events + 5, 15);
    commit (store, events + 18, 12);
    int64_t last = dlq_embedded_last_seq (store);
    cr_assert_geq (last, COUNT);

    for (size_t page = 1; page <= 11; page += 3) {
        seen_events_t seen = { .count = 0 };
        int64_t after = 0;
        int total = 0, calls = 0;
        ssize_t n;
        while ((n = dlq_embedded_read_after (store, after, page, see_event, &seen)) > 0) {
            cr_assert_leq ((size_t) n, page);
            cr_assert_eq ((size_t) n, seen.count);
            for (size_t i = 0; i < seen.count; i++) {
                cr_assert_gt (seen.seq [i], after, "seqs come in order");
                after = seen.seq [i];
                /* every filled member as committed, expired or not */
                expect_partial (seen.event [i], events [total++]);
            }
            forget_events (&seen);
            calls++;
        }
        cr_assert_eq (n, 0, "%s", dlq_embedded_last_error (store));
        cr_assert_eq (total, COUNT, "page %zu", page);
        cr_assert_eq (calls, (COUNT + (int) page - 1) / (int) page);
        cr_assert_eq (dlq_embedded_read_after (store, last, 10, see_event, &seen), 0);
    }
    seen_events_t seen = { .count = 0 };
    cr_assert_eq (dlq_embedded_read_after (store, 0, 0, see_event, &seen), 0, "limit 0");
    cr_assert_eq (dlq_embedded_read_after (store, -100, SIZE_MAX, see_event, &seen), COUNT);
    forget_events (&seen);
    free_events (events, COUNT);
    dlq_embedded_destroy (&store);
}

Test (embedded_archive, sweep_leaves_a_gap_that_reads_skip)
{
    dlq_embedded_t *store = open_store (DLQ_EMBEDDED_WRITER);
    append_range (store, 1, 2, "s", NO_EXPIRY);             /* seq 1, 2 */
    append_range (store, 3, 3, "s", BASE_MS + 100);         /* seq 3, 4, 5: expire */
    append_range (store, 6, 1, "t", NO_EXPIRY);             /* seq 6 */
    append_range (store, 7, 2, "t", BASE_MS + 100);         /* seq 7, 8: expire */
    cr_assert_eq (dlq_embedded_count_between (store, 0, INT64_MAX), 8);
    cr_assert_eq (dlq_embedded_count_between (store, 1, 7), 5, "both bounds left out");
    cr_assert_eq (dlq_embedded_count_between (store, 3, 4), 0);
    cr_assert_eq (dlq_embedded_sweep (store, BASE_MS + 100, 100), 5);
    cr_assert_eq (dlq_embedded_last_seq (store), 8, "the newest seqs were swept, not forgotten");
    cr_assert_eq (dlq_embedded_count_between (store, 0, INT64_MAX), 3);
    cr_assert_eq (dlq_embedded_count_between (store, 2, INT64_MAX), 1);
    cr_assert_eq (dlq_embedded_count_between (store, 6, INT64_MAX), 0);

    seen_events_t seen = { .count = 0 };
    cr_assert_eq (dlq_embedded_read_after (store, 1, 10, see_event, &seen), 2);
    cr_assert_eq (seen.seq [0], 2);
    cr_assert_eq (seen.seq [1], 6);
    char id [40];
    event_id (6, id, sizeof id);
    cr_assert_str_eq (seen.event [1]->id, id);
    forget_events (&seen);

    dlq_event_t *event = (dlq_event_t *) 1;
    cr_assert_eq (dlq_embedded_read_seq (store, 4, &event), DLQ_STORE_NOT_FOUND);
    cr_assert_null (event);
    cr_assert_eq (dlq_embedded_read_seq (store, 100, &event), DLQ_STORE_NOT_FOUND);
    cr_assert_eq (dlq_embedded_read_seq (store, 6, &event), DLQ_STORE_OK);
    dlq_event_t *want = make_event (6, "t", NO_EXPIRY);
    expect_partial (event, want);
    dlq_event_destroy (&want);
    dlq_event_destroy (&event);

    /* New events continue after the highest seq ever handed out. */
    cr_assert_eq (append_range (store, 9, 1, "s", NO_EXPIRY), 9);
    dlq_embedded_destroy (&store);
}

Test (embedded_archive, read_seq_hands_out_every_kind_of_event)
{
    dlq_embedded_t *store = open_store (DLQ_EMBEDDED_WRITER);
    enum { COUNT = 10 };
    append_range (store, 1, COUNT, "s", NO_EXPIRY);
    for (int n = 1; n <= COUNT; n++) {
        dlq_event_t *want = make_event (n, "s", NO_EXPIRY);
        dlq_event_t *got = NULL;
        cr_assert_eq (dlq_embedded_read_seq (store, n, &got), DLQ_STORE_OK, "%s",
                      dlq_embedded_last_error (store));
        expect_partial (got, want);
        dlq_event_destroy (&got);
        dlq_event_destroy (&want);
    }
    dlq_embedded_destroy (&store);
}

/* A row whose columns are not of the types the store writes fails the read,
 * naming its seq and column; the body itself is not looked at. */
Test (embedded_archive, a_damaged_row_fails_the_read_naming_its_seq)
{
    dlq_embedded_t *store = open_store (DLQ_EMBEDDED_WRITER);
    append_range (store, 1, 4, "s", NO_EXPIRY);
    test_store_exec (tmp_dir, "CREATE TABLE saved AS SELECT * FROM events WHERE seq = 3");
    static const struct {
        const char *set, *column;
    } damage [] = {
        { "created_at = 'yesterday'", "created_at" },
        { "expires_at = 1.5", "expires_at" },
        { "attempts = 'many'", "attempts" },
        { "attempts = 2147483648", "attempts" },
        { "first_attempt_at = 'soon'", "first_attempt_at" },
        { "document_key = x'7b7d'", "document_key" },
        { "operation_type = x'00'", "operation_type" },
        { "status = x'00'", "status" },
        { "body = x'7b7d'", "body" },
    };
    for (size_t i = 0; i < sizeof damage / sizeof damage [0]; i++) {
        char sql [256];
        snprintf (sql, sizeof sql, "UPDATE events SET %s WHERE seq = 3", damage [i].set);
        test_store_exec (tmp_dir, sql);
        seen_events_t seen = { .count = 0 };
        cr_assert_eq (dlq_embedded_read_after (store, 0, 10, see_event, &seen), -1, "%s",
                      damage [i].set);
        cr_assert_eq (seen.count, 0, "nothing is handed out from a page that fails");
        const char *message = dlq_embedded_last_error (store);
        cr_assert_not_null (strstr (message, "seq 3"), "%s", message);
        snprintf (sql, sizeof sql, "bad %s column", damage [i].column);
        cr_assert_not_null (strstr (message, sql), "%s: %s", damage [i].set, message);
        cr_assert_eq (dlq_embedded_read_after (store, 0, 2, see_event, &seen), 2, "before it");
        forget_events (&seen);
        cr_assert_eq (dlq_embedded_read_after (store, 3, 10, see_event, &seen), 1, "after it");
        forget_events (&seen);
        dlq_event_t *event = NULL;
        cr_assert_eq (dlq_embedded_read_seq (store, 3, &event), DLQ_STORE_ERROR);
        cr_assert_null (event);
        cr_assert_not_null (strstr (dlq_embedded_last_error (store), "seq 3"));
        test_store_exec (tmp_dir, "DELETE FROM events WHERE seq = 3; INSERT INTO events SELECT * FROM saved");
        cr_assert_eq (dlq_embedded_read_seq (store, 3, &event), DLQ_STORE_OK, "repaired");
        dlq_event_destroy (&event);
    }

    /* A body that is not JSON is handed out as it is: the reads never parse it. */
    test_store_exec (tmp_dir, "UPDATE events SET body = 'not json' WHERE seq = 2");
    dlq_event_t *event = NULL;
    cr_assert_eq (dlq_embedded_read_seq (store, 2, &event), DLQ_STORE_OK);
    cr_assert_str_eq (event->json, "not json");
    cr_assert_eq (event->json_len, 8);
    dlq_event_destroy (&event);
    dlq_embedded_destroy (&store);
}

Test (embedded_archive, seq_of_finds_expired_events_until_swept)
{
    dlq_embedded_t *store = open_store (DLQ_EMBEDDED_WRITER);
    append_range (store, 1, 2, "s", NO_EXPIRY);
    append_range (store, 3, 1, "s", BASE_MS + 5);
    char id [40];
    int64_t seq = -1;
    for (int n = 1; n <= 3; n++) {
        event_id (n, id, sizeof id);
        cr_assert_eq (dlq_embedded_seq_of (store, id, &seq), DLQ_STORE_OK);
        cr_assert_eq (seq, n);
    }
    cr_assert_eq (dlq_embedded_seq_of (store, "0190a1b2-0000-7000-8000-999999999999", &seq),
                  DLQ_STORE_NOT_FOUND);
    cr_assert_eq (dlq_embedded_sweep (store, BASE_MS + 5, 10), 1);
    cr_assert_eq (dlq_embedded_seq_of (store, id, &seq), DLQ_STORE_NOT_FOUND);
    dlq_embedded_destroy (&store);
}


/* ------------------------------------------------------------------------ */
/* Schema versions 2 and 3, readers */

/* The schema of version 1 exactly as dlqd wrote it before the ledger. */
static const char schema_v1 [] =
    "PRAGMA page_size = 8192;"
    "PRAGMA application_id = 1684828516;"
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
    "INSERT INTO meta (key, value) VALUES ('schema_version', '1');"
    "PRAGMA journal_mode = WAL;";

/* What version 2 added, exactly as dlqd wrote it. */
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

static void
raw_db_exec (sqlite3 *db, const char *sql)
{
    char *message = NULL;
    cr_assert_eq (sqlite3_exec (db, sql, NULL, NULL, &message), SQLITE_OK, "%s", message);
}

/* Insert an event by hand, as a version 1 or 2 dlqd did (no routing
 * columns); the body is json, or the event's own when json is NULL. */
static void
raw_insert_event (sqlite3 *db, const dlq_event_t *event, const char *json)
{
    sqlite3_stmt *stmt = NULL;
    cr_assert_eq (sqlite3_prepare_v2 (db, "INSERT INTO events (id, stream_name, created_at,"
                                      " expires_at, status, error_type, body)"
                                      " VALUES (?, ?, ?, NULL, ?, ?, ?)", -1, &stmt, NULL),
                  SQLITE_OK, "%s", sqlite3_errmsg (db));
    sqlite3_bind_text (stmt, 1, event->id, -1, SQLITE_STATIC);
    sqlite3_bind_text (stmt, 2, event->stream_name, -1, SQLITE_STATIC);
    sqlite3_bind_int64 (stmt, 3, event->created_at);
    sqlite3_bind_text (stmt, 4, event->status, -1, SQLITE_STATIC);
    sqlite3_bind_text (stmt, 5, event->error_type, -1, SQLITE_STATIC);
    if (json)
        sqlite3_bind_text (stmt, 6, json, -1, SQLITE_STATIC);
    else
        sqlite3_bind_text (stmt, 6, event->json, (int) event->json_len, SQLITE_STATIC);
    cr_assert_eq (sqlite3_step (stmt), SQLITE_DONE, "%s", sqlite3_errmsg (db));
    sqlite3_finalize (stmt);
}

/* Insert event n by hand, as a version 1 or 2 dlqd did. */
static void
raw_insert (sqlite3 *db, int n, const char *stream)
{
    dlq_event_t *event = make_event (n, stream, NO_EXPIRY);
    raw_insert_event (db, event, NULL);
    dlq_event_destroy (&event);
}

/* A file of version 1 or 2 made by hand, holding events 1 .. count of
 * stream "s" (the file must not exist). */
static sqlite3 *
make_old_file (int version, int count)
{
    sqlite3 *db = test_store_open (tmp_dir, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    raw_db_exec (db, schema_v1);
    if (version >= 2)
        raw_db_exec (db, schema_v2);
    raw_db_exec (db, "BEGIN");
    for (int n = 1; n <= count; n++)
        raw_insert (db, n, "s");
    char sql [128];
    snprintf (sql, sizeof sql, "INSERT INTO stream_counts VALUES ('s', %d); COMMIT", count);
    raw_db_exec (db, sql);
    return db;
}

/* The DDL of every table and index of the file, in name order. */
static char *
schema_text (void)
{
    return test_store_text (tmp_dir, "SELECT group_concat (name || ': ' || coalesce (sql, ''),"
                            " char (10)) FROM (SELECT name, sql FROM sqlite_master ORDER BY name)");
}

/* The schema a new writer creates (for comparison); the file is removed. */
static char *
fresh_schema (void)
{
    dlq_embedded_t *store = open_store (DLQ_EMBEDDED_WRITER);
    dlq_embedded_destroy (&store);
    char *fresh = schema_text ();
    char path [512];
    snprintf (path, sizeof path, "%s/%s", tmp_dir, DLQ_EMBEDDED_FILE);
    cr_assert_eq (unlink (path), 0);
    return fresh;
}

static int64_t
schema_version (void)
{
    return test_store_count (tmp_dir, "SELECT value FROM meta WHERE key = 'schema_version'");
}

/* The routing columns of row seq, as stored, against the event's members:
 * the upgrade's backfill (from the body) and the insert (from the members)
 * must both give exactly what dlq_event_decode gives. */
static void
expect_columns (int64_t seq, const dlq_event_t *want)
{
    sqlite3 *db = test_store_open (tmp_dir, SQLITE_OPEN_READONLY);
    sqlite3_stmt *stmt = NULL;
    cr_assert_eq (sqlite3_prepare_v2 (db, "SELECT operation_type, document_key, attempts,"
                                      " first_attempt_at, typeof (attempts),"
                                      " typeof (first_attempt_at) FROM events WHERE seq = ?1",
                                      -1, &stmt, NULL), SQLITE_OK, "%s", sqlite3_errmsg (db));
    sqlite3_bind_int64 (stmt, 1, seq);
    cr_assert_eq (sqlite3_step (stmt), SQLITE_ROW, "no row %lld", (long long) seq);
    expect_same_text ((const char *) sqlite3_column_text (stmt, 0), want->operation_type,
                      "operation_type column");
    expect_same_text ((const char *) sqlite3_column_text (stmt, 1), want->document_key,
                      "document_key column");
    cr_assert_str_eq ((const char *) sqlite3_column_text (stmt, 4), "integer");
    cr_assert_eq (sqlite3_column_int64 (stmt, 2), want->attempts, "seq %lld", (long long) seq);
    if (want->first_attempt_at == DLQ_TIME_NONE)
        cr_assert_str_eq ((const char *) sqlite3_column_text (stmt, 5), "null");
    else {
        cr_assert_str_eq ((const char *) sqlite3_column_text (stmt, 5), "integer");
        cr_assert_eq (sqlite3_column_int64 (stmt, 3), want->first_attempt_at,
                      "seq %lld: %lld", (long long) seq, (long long) sqlite3_column_int64 (stmt, 3));
    }
    sqlite3_finalize (stmt);
    sqlite3_close (db);
}

/* read_after from 0 hands out exactly events 1 .. count of stream "s", seq
 * n being event n, each as committed. */
static void
expect_spool (dlq_embedded_t *store, int count)
{
    seen_events_t seen = { .count = 0 };
    cr_assert_eq (dlq_embedded_read_after (store, 0, (size_t) count, see_event, &seen), count,
                  "%s", dlq_embedded_last_error (store));
    for (int n = 1; n <= count; n++) {
        cr_assert_eq (seen.seq [n - 1], n);
        dlq_event_t *want = make_event (n, "s", NO_EXPIRY);
        expect_partial (seen.event [n - 1], want);
        dlq_event_destroy (&want);
    }
    forget_events (&seen);
}

Test (embedded_archive, a_version_1_file_is_upgraded_by_the_writer)
{
    char *fresh = fresh_schema ();
    sqlite3 *db = make_old_file (1, 3);
    raw_db_exec (db, "DELETE FROM events WHERE seq = 3; UPDATE stream_counts SET events = 2;");
    sqlite3_close (db);

    /* A reader takes the file as it is: the events (their routing members
     * read from the bodies). */
    dlq_embedded_t *store = open_store (DLQ_EMBEDDED_READER);
    cr_assert_eq (dlq_embedded_last_seq (store), 3);
    cr_assert_eq (dlq_embedded_count_between (store, 0, INT64_MAX), 2);
    expect_spool (store, 2);
    dlq_embedded_destroy (&store);
    cr_assert_eq (schema_version (), 1);

    /* The writer upgrades it in place, through version 2 to 3 (and on),
     * keeping the events and filling in their routing columns. */
    for (int round = 0; round < 2; round++) {
        store = open_store (DLQ_EMBEDDED_WRITER);
        cr_assert_eq (schema_version (), 6);
        cr_assert_eq (test_store_count (tmp_dir, "SELECT count(*) FROM sqlite_master WHERE name IN ('sink_state',"
                                 " 'deliveries', 'deliveries_by_state', 'deliveries_by_seq')"), 4);
        char *upgraded = schema_text ();
        cr_assert_str_eq (upgraded, fresh, "an upgraded file has the schema of a new one");
        free (upgraded);
        cr_assert_eq (test_store_count (tmp_dir, "SELECT count(*) FROM events"), round ? 3 : 2);
        for (int n = 1; n <= 2; n++) {
            dlq_event_t *want = make_event (n, "s", NO_EXPIRY);
            expect_columns (n, want);
            dlq_event_destroy (&want);
        }
        expect_spool (store, 2);
        dlq_buf_t json = DLQ_BUF_INIT;
        char id [40];
        event_id (2, id, sizeof id);
        cr_assert_eq (dlq_embedded_get (store, id, 0, &json), DLQ_STORE_OK);
        dlq_buf_free (&json);
        if (round == 0) {
            dlq_event_t *event = make_event (4, "s", NO_EXPIRY);
            cr_assert_eq (commit (store, &event, 1), 4, "seq goes on after the old ones");
            dlq_event_destroy (&event);
        }
        dlq_embedded_destroy (&store);
    }
    free (fresh);
}

Test (embedded_archive, a_version_2_file_is_upgraded_to_3_with_its_columns_filled)
{
    enum { COUNT = 8, DAMAGED = COUNT + 1 };
    char *fresh = fresh_schema ();
    sqlite3 *db = make_old_file (2, COUNT);
    raw_db_exec (db, "INSERT INTO sink_state VALUES ('a', 5, 6, 4, 1, 0);"
                     "INSERT INTO deliveries VALUES ('a', 3, 'failed', 2, 'x', NULL, 1);");
    /* One more whose body is not JSON (a damaged row): it must not stop the
     * upgrade; its routing columns stay empty. */
    dlq_event_t *damaged = make_event (DAMAGED, "s", NO_EXPIRY);
    raw_insert_event (db, damaged, "{not json");
    sqlite3_close (db);

    /* A reader of version 2: the same events, read from the bodies. */
    dlq_embedded_t *store = open_store (DLQ_EMBEDDED_READER);
    expect_spool (store, COUNT);
    dlq_event_t *event = NULL;
    for (int reader = 1; reader >= 0; reader--) {
        cr_assert_eq (dlq_embedded_read_seq (store, DAMAGED, &event), DLQ_STORE_OK, "%s",
                      dlq_embedded_last_error (store));
        cr_assert_str_eq (event->id, damaged->id);
        cr_assert_str_eq (event->json, "{not json");
        cr_assert_null (event->operation_type);
        cr_assert_null (event->document_key);
        cr_assert_eq (event->attempts, 0);
        cr_assert_eq (event->first_attempt_at, DLQ_TIME_NONE);
        dlq_event_destroy (&event);
        dlq_embedded_destroy (&store);
        if (reader) {
            cr_assert_eq (schema_version (), 2, "a reader does not upgrade");
            store = open_store (DLQ_EMBEDDED_WRITER);
            cr_assert_eq (schema_version (), 6);
        }
    }
    char *upgraded = schema_text ();
    cr_assert_str_eq (upgraded, fresh, "an upgraded file has the schema of a new one");
    free (upgraded);
    for (int n = 1; n <= COUNT; n++) {
        dlq_event_t *want = make_event (n, "s", NO_EXPIRY);
        expect_columns (n, want);
        dlq_event_destroy (&want);
    }
    cr_assert_eq (test_store_count (tmp_dir, "SELECT count(*) FROM events WHERE seq = 9 AND operation_type IS NULL"
                             " AND document_key IS NULL AND attempts = 0"
                             " AND first_attempt_at IS NULL"), 1);
    /* version 4: every event's fingerprint (none for the damaged body) and
     * the running counts per fingerprint and stream filled from them */
    for (int n = 1; n <= COUNT; n++) {
        dlq_event_t *want = make_event (n, "s", NO_EXPIRY);
        char hex [17], sql [160];
        dlq_event_fingerprint_hex (want, hex);
        snprintf (sql, sizeof sql, "SELECT count(*) FROM events WHERE seq = %d AND fingerprint = '%s'", n, hex);
        cr_expect_eq (test_store_count (tmp_dir, sql), 1, "seq %d: fingerprint %s", n, hex);
        dlq_event_destroy (&want);
    }
    cr_assert_eq (test_store_count (tmp_dir, "SELECT count(*) FROM events WHERE seq = 9 AND fingerprint IS NULL"), 1);
    cr_assert_eq (test_store_count (tmp_dir, "SELECT coalesce (sum (events), 0) FROM fingerprint_counts"),
                  test_store_count (tmp_dir, "SELECT count(*) FROM events WHERE fingerprint IS NOT NULL"));

    /* A writer (again: the upgrade is not redone) and readers of version 3
     * read the columns; the old ledger is as it was, for the state file to
     * take over. */
    store = open_store (DLQ_EMBEDDED_WRITER);
    expect_spool (store, COUNT);
    cr_assert_eq (test_store_count (tmp_dir, "SELECT delivered FROM sink_state WHERE sink = 'a'"), 4);
    cr_assert_eq (test_store_count (tmp_dir, "SELECT count(*) FROM deliveries WHERE state = 'failed'"), 1);
    dlq_event_t *later = make_event (10, "s", NO_EXPIRY);
    cr_assert_eq (commit (store, &later, 1), 10);
    expect_columns (10, later);
    dlq_event_destroy (&later);
    dlq_embedded_destroy (&store);
    cr_assert_eq (schema_version (), 6);
    store = open_store (DLQ_EMBEDDED_READER);
    expect_spool (store, COUNT);
    dlq_embedded_destroy (&store);
    dlq_event_destroy (&damaged);
    free (fresh);
}

/* firstAttemptAt goes from ISO text to ms through julianday (a double) in
 * the upgrade and in a version 2 reader: it must land on the exact ms
 * anywhere in years 0001-9999. */
Test (embedded_archive, the_upgrade_converts_first_attempt_at_to_the_exact_ms)
{
    enum { COUNT = 1000, PAGE = 100 };
    int64_t min_ms, max_ms;
    cr_assert (dlq_time_parse_iso ("0001-01-01T00:00:00.000Z", 24, &min_ms));
    cr_assert (dlq_time_parse_iso ("9999-12-31T23:59:59.999Z", 24, &max_ms));
    static int64_t ms [COUNT];
    const int64_t edges [] = {
        min_ms, max_ms, -1, 0, 1, 999, 1000, -86400000, BASE_MS + 123,
        951868799999, 1709251199999, 4102444800000, -2208988800001, 253402300799000,
    };
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < COUNT; i++) {
        if (i < (int) (sizeof edges / sizeof edges [0]))
            ms [i] = edges [i];
        else {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            ms [i] = min_ms + (int64_t) (x % (uint64_t) (max_ms - min_ms + 1));
        }
    }
    sqlite3 *db = make_old_file (2, 0);
    raw_db_exec (db, "BEGIN");
    for (int i = 0; i < COUNT; i++) {
        dlq_event_t *event = make_event (i + 1, "s", NO_EXPIRY);
        event->first_attempt_at = ms [i];
        dlq_event_encode (event);
        raw_insert_event (db, event, NULL);
        dlq_event_destroy (&event);
    }
    raw_db_exec (db, "COMMIT");
    sqlite3_close (db);

    for (int mode = DLQ_EMBEDDED_READER; mode >= DLQ_EMBEDDED_WRITER; mode--) {
        /* first a version 2 reader, then the upgraded file */
        dlq_embedded_t *store = open_store (mode);
        cr_assert_eq (schema_version (), mode == DLQ_EMBEDDED_READER ? 2 : 6);
        int64_t after = 0;
        for (int i = 0; i < COUNT; i += PAGE) {
            seen_events_t seen = { .count = 0 };
            cr_assert_eq (dlq_embedded_read_after (store, after, PAGE, see_event, &seen), PAGE);
            for (int j = 0; j < PAGE; j++) {
                char iso [32] = "";
                dlq_time_format_iso (ms [i + j], iso);
                cr_assert_eq (seen.event [j]->first_attempt_at, ms [i + j],
                              "mode %d: %s read as %lld", mode, iso,
                              (long long) seen.event [j]->first_attempt_at);
            }
            after = seen.seq [PAGE - 1];
            forget_events (&seen);
        }
        dlq_embedded_destroy (&store);
    }
}

Test (embedded_archive, a_newer_version_is_refused)
{
    dlq_embedded_t *store = open_store (DLQ_EMBEDDED_WRITER);
    dlq_embedded_destroy (&store);
    test_store_exec (tmp_dir, "UPDATE meta SET value = '7' WHERE key = 'schema_version'");
    for (int mode = DLQ_EMBEDDED_WRITER; mode <= DLQ_EMBEDDED_UPDATER; mode++) {
        char err [512] = "";
        store = dlq_embedded_open (tmp_dir, mode, err, sizeof err);
        cr_assert_null (store);
        cr_assert_not_null (strstr (err, "schema version 7, newer"), "err: %s", err);
        cr_assert_not_null (strstr (err, "supports (6)"), "err: %s", err);
    }
}

/* The counts an upgrade must keep, as one string. */
static char *
counts_text (void)
{
    return test_store_text (tmp_dir, "SELECT (SELECT group_concat (stream_name || '=' || events)"
                            " FROM stream_counts) || ' / ' || (SELECT group_concat (fingerprint"
                            " || ':' || stream_name || '=' || events) FROM fingerprint_counts)");
}

/* A version 4 file as a version 4 writer left it: a new file with what
 * versions 5 and 6 added taken off again (DROP COLUMN rewrites the rows without
 * the columns and gives back the version 4 DDL text exactly). */
static void
downgrade_to_version_4 (void)
{
    test_store_exec (tmp_dir, "DROP TABLE checkpoints; DROP TABLE replay_jobs; DROP TABLE scheduler_locks;"
                              " ALTER TABLE events DROP COLUMN retry_after;"
                              " ALTER TABLE events DROP COLUMN replay_count;"
                              " ALTER TABLE events DROP COLUMN retry_count;"
                              " UPDATE meta SET value = '4' WHERE key = 'schema_version';");
}

Test (embedded_archive, a_version_4_file_is_upgraded_to_6_keeping_its_events)
{
    enum { COUNT = 6 };
    char *fresh = fresh_schema ();
    dlq_embedded_t *store = open_store (DLQ_EMBEDDED_WRITER);
    append_range (store, 1, COUNT, "s", NO_EXPIRY);
    dlq_embedded_destroy (&store);
    downgrade_to_version_4 ();
    cr_assert_eq (schema_version (), 4);
    cr_assert_eq (test_store_count (tmp_dir, "SELECT count(*) FROM pragma_table_info ('events')"
                                    " WHERE name IN ('retry_count', 'replay_count', 'retry_after')"), 0);
    char *counts = counts_text ();

    /* A reader reads it as it is, without the replay state; an updater
     * waits for the writer. */
    store = open_store (DLQ_EMBEDDED_READER);
    expect_spool (store, COUNT);
    char id [40];
    event_id (2, id, sizeof id);
    dlq_sink_event_state_t state;
    cr_assert_eq (dlq_embedded_state (store, id, BASE_MS, &state), DLQ_STORE_ERROR);
    cr_assert_not_null (strstr (dlq_embedded_last_error (store), "schema version 4"), "%s",
                        dlq_embedded_last_error (store));
    dlq_embedded_destroy (&store);
    char err [512] = "";
    cr_assert_null (dlq_embedded_open (tmp_dir, DLQ_EMBEDDED_UPDATER, err, sizeof err));
    cr_assert_not_null (strstr (err, "needs version 6"), "err: %s", err);
    cr_assert_eq (schema_version (), 4, "neither upgrades");

    /* The writer upgrades it in place: the events and the counts as they
     * were, the new columns at their defaults. */
    for (int round = 0; round < 2; round++) {
        store = open_store (DLQ_EMBEDDED_WRITER);
        cr_assert_eq (schema_version (), 6);
        char *upgraded = schema_text ();
        cr_assert_str_eq (upgraded, fresh, "an upgraded file has the schema of a new one");
        free (upgraded);
        expect_spool (store, COUNT);
        char *counts_now = counts_text ();
        cr_assert_str_eq (counts_now, counts);
        free (counts_now);
        cr_assert_eq (test_store_count (tmp_dir, "SELECT count(*) FROM events WHERE retry_count = 0"
                                        " AND replay_count = 0 AND retry_after IS NULL"), COUNT);
        cr_assert_eq (test_store_count (tmp_dir, "SELECT (SELECT count(*) FROM scheduler_locks)"
                                        " + (SELECT count(*) FROM replay_jobs)"), 0);
        memset (&state, 0xee, sizeof state);
        cr_assert_eq (dlq_embedded_state (store, id, BASE_MS, &state), DLQ_STORE_OK, "%s",
                      dlq_embedded_last_error (store));
        cr_assert_str_eq (state.status, "PENDING");
        cr_assert_eq (state.retry_count, 0);
        cr_assert_eq (state.replay_count, 0);
        cr_assert_eq (state.retry_after, BASE_MS + 2, "retry_after defaults to created_at");
        dlq_embedded_destroy (&store);
    }

    /* Now the updater opens it too, and a reader reads the replay state. */
    store = open_store (DLQ_EMBEDDED_UPDATER);
    cr_assert_eq (dlq_embedded_mark (store, id, DLQ_SINK_MARK_FAILED, BASE_MS, BASE_MS + 9, NULL), DLQ_STORE_OK);
    dlq_embedded_destroy (&store);
    store = open_store (DLQ_EMBEDDED_READER);
    cr_assert_eq (dlq_embedded_state (store, id, BASE_MS, &state), DLQ_STORE_OK);
    cr_assert_eq (state.retry_count, 1);
    cr_assert_eq (state.retry_after, BASE_MS + 9);
    dlq_embedded_destroy (&store);
    free (counts);
    free (fresh);
}

/* ------------------------------------------------------------------------ */
/* Query plans */

/* True when some row of EXPLAIN QUERY PLAN sql contains needle. */
static bool
plan_contains (sqlite3 *db, const char *sql, const char *needle, char *plan, size_t plan_len)
{
    char eqp [1024];
    snprintf (eqp, sizeof eqp, "EXPLAIN QUERY PLAN %s", sql);
    sqlite3_stmt *stmt = NULL;
    cr_assert_eq (sqlite3_prepare_v2 (db, eqp, -1, &stmt, NULL), SQLITE_OK, "%s",
                  sqlite3_errmsg (db));
    bool found = false;
    plan [0] = '\0';
    while (sqlite3_step (stmt) == SQLITE_ROW) {
        const char *detail = (const char *) sqlite3_column_text (stmt, 3);
        size_t used = strlen (plan);
        snprintf (plan + used, plan_len - used, "%s | ", detail);
        if (strstr (detail, needle))
            found = true;
    }
    sqlite3_finalize (stmt);
    return found;
}

/* These must match the statements in embedded_archive.c. */
#define SPOOL_COLUMNS \
    "seq, id, stream_name, operation_type, status, error_type, document_key, attempts," \
    " first_attempt_at, created_at, expires_at, body"

Test (embedded_archive, the_reads_use_their_indexes)
{
    dlq_embedded_t *store = open_store (DLQ_EMBEDDED_WRITER);
    append_range (store, 1, 6, "s", NO_EXPIRY);
    dlq_embedded_destroy (&store);
    sqlite3 *db = test_store_open (tmp_dir, SQLITE_OPEN_READONLY);
    char plan [2048];
    static const struct {
        const char *sql, *needle;
    } checks [] = {
        { "SELECT " SPOOL_COLUMNS " FROM events WHERE seq > ?1 ORDER BY seq LIMIT ?2",
          "SEARCH events USING INTEGER PRIMARY KEY (rowid>?)" },
        { "SELECT " SPOOL_COLUMNS " FROM events WHERE seq = ?1",
          "SEARCH events USING INTEGER PRIMARY KEY (rowid=?)" },
        { "SELECT seq FROM events WHERE id = ?1", "USING COVERING INDEX sqlite_autoindex_events_1 (id=?)" },
    };
    for (size_t i = 0; i < sizeof checks / sizeof checks [0]; i++) {
        cr_assert (plan_contains (db, checks [i].sql, checks [i].needle, plan, sizeof plan),
                   "query %zu: %s", i, plan);
        cr_assert_not (plan_contains (db, checks [i].sql, "SCAN", plan, sizeof plan),
                       "query %zu: %s", i, plan);
        cr_assert_not (plan_contains (db, checks [i].sql, "TEMP B-TREE", plan, sizeof plan),
                       "query %zu sorts: %s", i, plan);
    }
    sqlite3_close (db);
}
