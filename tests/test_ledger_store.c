/*  test_ledger_store — the delivery ledger in the daemon's state file
 *  (ledger_store.h): cursors and markers that only move forward, counters
 *  that add up, rows upserted per (sink, seq) with their event's id, stream
 *  and expiry, the reads by state, stream, id and seq, the sweep of the rows
 *  of expired events, what is refused, and the one take-over of the ledger
 *  the embedded store's file held before (rows get their id, stream and
 *  expiry from its events).
 *
 *  Every test works in its own mkdtemp directory, removed afterwards. Raw
 *  SQLite connections only make old files and look behind the API.
 */
#include "ledger_store.h"
#include "state_store.h"
#include "dlq_alloc.h"
#include "dlq_time.h"
#include "event_record.h"
#include "failed_event.h"

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

TestSuite (ledger_store, .init = make_dir, .fini = remove_dir);

#define NOW 1781015533500LL
#define MAX_SEEN 64

static dlq_state_store_t *open_state (void) { return test_state_store (tmp_dir); }

static void exec_in (const char *name, const char *sql) { test_store_exec_in (tmp_dir, name, sql); }

static int64_t count_in (const char *name, const char *sql) { return test_store_count_in (tmp_dir, name, sql); }

static void
event_id (int n, char *out, size_t len)
{
    snprintf (out, len, "0190a1b2-0000-7000-8000-%012d", n);
}

/* A new update of sink that changes nothing yet. */
static dlq_ledger_update_t *
update_of (const char *sink)
{
    dlq_ledger_update_t *u = dlq_calloc (1, sizeof *u);
    snprintf (u->sink, sizeof u->sink, "%s", sink);
    u->cursor = u->attempted = -1;
    return u;
}

/* Add a row of event seq (id n = seq) of stream, expiring at expires_at. */
static dlq_delivery_row_t *
add_row (dlq_ledger_update_t *u, int64_t seq, dlq_delivery_state_t state, uint32_t attempts,
         const char *stream, int64_t expires_at, const char *error)
{
    u->rows = dlq_realloc (u->rows, (u->row_count + 1) * sizeof *u->rows);
    dlq_delivery_row_t *row = &u->rows [u->row_count++];
    memset (row, 0, sizeof *row);
    row->seq = seq;
    row->state = state;
    row->attempts = attempts;
    row->next_attempt_at = state == DLQ_DELIVERY_RETRYING ? NOW + 1000 * attempts : DLQ_TIME_NONE;
    row->updated_at = NOW + seq;
    snprintf (row->last_error, sizeof row->last_error, "%s", error ? error : "");
    if (stream) {
        event_id ((int) seq, row->id, sizeof row->id);
        row->stream = dlq_strdup (stream);
        row->expires_at = expires_at;
    }
    return row;
}

/* Apply the updates (count of them, each freed after) in one commit. */
static void
apply (dlq_state_store_t *store, dlq_ledger_update_t **updates, size_t count, bool durable)
{
    cr_assert_eq (dlq_ledger_store_apply (store, updates, count, durable), DLQ_STORE_OK, "%s",
                  dlq_state_store_last_error (store));
    for (size_t i = 0; i < count; i++)
        dlq_ledger_update_destroy (&updates [i]);
}

static void
apply_one (dlq_state_store_t *store, dlq_ledger_update_t *u)
{
    apply (store, &u, 1, false);
}

static dlq_sink_state_t
state_of (dlq_state_store_t *store, const char *sink)
{
    dlq_sink_state_t state;
    cr_assert_eq (dlq_ledger_store_sink_state (store, sink, &state), DLQ_STORE_OK, "%s",
                  dlq_state_store_last_error (store));
    return state;
}

typedef struct {
    size_t             count;
    char               sink [MAX_SEEN][DLQ_SINK_NAME_MAX];
    dlq_delivery_row_t row [MAX_SEEN];
} seen_t;

static void
see_row (const char *sink, const dlq_delivery_row_t *row, void *arg)
{
    seen_t *seen = arg;
    cr_assert_null (row->stream, "a row read back has no stream");
    if (seen->count < MAX_SEEN) {
        snprintf (seen->sink [seen->count], sizeof seen->sink [0], "%s", sink);
        seen->row [seen->count++] = *row;
    }
}

/* The seqs of a read, e.g. "2,5". */
static const char *
seqs_of (const seen_t *seen)
{
    static char out [512];
    out [0] = '\0';
    for (size_t i = 0; i < seen->count; i++)
        snprintf (out + strlen (out), sizeof out - strlen (out), "%s%lld", i ? "," : "",
                  (long long) seen->row [i].seq);
    return out;
}

static const char *
rows_of_sink (dlq_state_store_t *store, const char *sink, dlq_delivery_state_t state, const char *stream,
              const char *id)
{
    seen_t seen = { .count = 0 };
    ssize_t n = dlq_ledger_store_rows_of_sink (store, sink, state, stream, id, see_row, &seen);
    cr_assert_eq (n, (ssize_t) seen.count, "%s", dlq_state_store_last_error (store));
    return seqs_of (&seen);
}


/* ------------------------------------------------------------------------ */
/* Writing */

Test (ledger_store, cursor_and_attempted_only_move_forward)
{
    dlq_state_store_t *store = open_state ();
    static const struct {
        int64_t cursor, attempted, want_cursor, want_attempted;
    } steps [] = {
        { -1, -1,  0,  0 },             /* a new sink starts at 0 */
        {  5,  7,  5,  7 },
        {  3, -1,  5,  7 },             /* back: ignored */
        { -1,  6,  5,  7 },
        {  9, 12,  9, 12 },
        {  0,  0,  9, 12 },
        { 10, -5, 10, 12 },
    };
    for (size_t i = 0; i < sizeof steps / sizeof steps [0]; i++) {
        dlq_ledger_update_t *u = update_of ("s3");
        u->cursor = steps [i].cursor;
        u->attempted = steps [i].attempted;
        apply_one (store, u);
        dlq_sink_state_t state = state_of (store, "s3");
        cr_assert_eq (state.cursor, steps [i].want_cursor, "step %zu: cursor %lld", i, (long long) state.cursor);
        cr_assert_eq (state.attempted, steps [i].want_attempted, "step %zu", i);
    }
    /* two updates of one sink in one commit: the larger of each wins */
    dlq_ledger_update_t *two [] = { update_of ("s3"), update_of ("s3") };
    two [0]->cursor = 20, two [0]->attempted = 13;
    two [1]->cursor = 15, two [1]->attempted = 30;
    apply (store, two, 2, false);
    cr_assert_eq (state_of (store, "s3").cursor, 20);
    cr_assert_eq (state_of (store, "s3").attempted, 30);
    dlq_sink_state_t never = state_of (store, "never");
    cr_assert_eq (never.cursor + never.attempted + (int64_t) (never.delivered + never.failed + never.redelivered), 0);
    dlq_state_store_destroy (&store);
}

Test (ledger_store, counters_add_up)
{
    dlq_state_store_t *store = open_state ();
    uint64_t delivered = 0, failed = 0, redelivered = 0;
    for (uint64_t i = 0; i < 20; i++) {
        dlq_ledger_update_t *u [] = { update_of ("sink-a"), update_of ("sink-b") };
        u [0]->delivered = i * 3;
        u [0]->failed = i % 4;
        u [0]->redelivered = i == 7 ? 1000000000000ULL : 1;
        u [1]->delivered = 1;
        delivered += u [0]->delivered, failed += u [0]->failed, redelivered += u [0]->redelivered;
        apply (store, u, 2, i % 5 == 0);
    }
    dlq_sink_state_t a = state_of (store, "sink-a"), b = state_of (store, "sink-b");
    cr_assert_eq (a.delivered, delivered);
    cr_assert_eq (a.failed, failed);
    cr_assert_eq (a.redelivered, redelivered);
    cr_assert_eq (b.delivered, 20);
    cr_assert_eq (count_in (DLQ_STATE_STORE_FILE, "SELECT count(*) FROM sink_state"), 2);
    dlq_state_store_destroy (&store);
}

Test (ledger_store, rows_are_upserted_per_sink_and_seq_with_their_event)
{
    dlq_state_store_t *store = open_state ();
    dlq_ledger_update_t *u = update_of ("a");
    add_row (u, 2, DLQ_DELIVERY_RETRYING, 1, "orders", NOW + 5000, "timeout");
    apply_one (store, u);
    u = update_of ("a");
    add_row (u, 2, DLQ_DELIVERY_RETRYING, 2, "orders", NOW + 5000, "HTTP 503");
    apply_one (store, u);
    cr_assert_eq (dlq_ledger_store_count_state (store, "a", DLQ_DELIVERY_RETRYING), 1);

    /* a requeue's row (no id, no stream) keeps the event's id, stream and expiry */
    u = update_of ("a");
    add_row (u, 2, DLQ_DELIVERY_FAILED, 3, NULL, 0, "rejected");
    apply_one (store, u);
    cr_assert_eq (count_in (DLQ_STATE_STORE_FILE, "SELECT count(*) FROM deliveries"), 1, "one row per (sink, seq)");
    cr_assert_eq (count_in (DLQ_STATE_STORE_FILE, "SELECT count(*) FROM deliveries WHERE stream_name = 'orders'"
                            " AND id = '0190a1b2-0000-7000-8000-000000000002' AND expires_at = 1781015538500"), 1);
    seen_t seen = { .count = 0 };
    cr_assert_eq (dlq_ledger_store_rows_of_sink (store, "a", DLQ_DELIVERY_FAILED, NULL, NULL, see_row, &seen), 1);
    cr_assert_str_eq (seen.sink [0], "a");
    cr_assert_eq (seen.row [0].seq, 2);
    cr_assert_eq (seen.row [0].attempts, 3);
    cr_assert_eq (seen.row [0].next_attempt_at, DLQ_TIME_NONE);
    cr_assert_eq (seen.row [0].updated_at, NOW + 2);
    cr_assert_eq (seen.row [0].expires_at, NOW + 5000);
    cr_assert_str_eq (seen.row [0].id, "0190a1b2-0000-7000-8000-000000000002");
    cr_assert_str_eq (seen.row [0].last_error, "rejected");

    /* the same seq for another sink is another row */
    u = update_of ("b");
    add_row (u, 2, DLQ_DELIVERY_RETRYING, 1, "orders", DLQ_TIME_NONE, "timeout");
    apply_one (store, u);
    cr_assert_eq (count_in (DLQ_STATE_STORE_FILE, "SELECT count(*) FROM deliveries"), 2);
    seen.count = 0;
    cr_assert_eq (dlq_ledger_store_rows_of_sink (store, "b", DLQ_DELIVERY_RETRYING, NULL, NULL, see_row, &seen), 1);
    cr_assert_eq (seen.row [0].next_attempt_at, NOW + 1000);
    cr_assert_eq (seen.row [0].expires_at, DLQ_TIME_NONE);
    dlq_state_store_destroy (&store);
}

Test (ledger_store, last_error_round_trips_and_an_unterminated_one_is_cut)
{
    dlq_state_store_t *store = open_state ();
    const char *text = "caf\xc3\xa9 \"quoted\" \\ \t tab \xf0\x9f\x98\x80";
    dlq_ledger_update_t *u = update_of ("a");
    add_row (u, 1, DLQ_DELIVERY_FAILED, 1, "s", DLQ_TIME_NONE, text);
    dlq_delivery_row_t *row = add_row (u, 2, DLQ_DELIVERY_FAILED, 1, "s", DLQ_TIME_NONE, "");
    memset (row->last_error, 'x', sizeof row->last_error);     /* no NUL */
    apply_one (store, u);
    seen_t seen = { .count = 0 };
    cr_assert_eq (dlq_ledger_store_rows_of_sink (store, "a", DLQ_DELIVERY_FAILED, NULL, NULL, see_row, &seen), 2);
    cr_assert_str_eq (seen.row [0].last_error, text);
    cr_assert_eq (strlen (seen.row [1].last_error), DLQ_DELIVERY_ERROR_MAX - 1);
    cr_assert_eq (count_in (DLQ_STATE_STORE_FILE, "SELECT length (last_error) FROM deliveries WHERE seq = 2"),
                  DLQ_DELIVERY_ERROR_MAX, "stored up to the end of the array, not beyond");
    dlq_state_store_destroy (&store);
}

Test (ledger_store, unfit_updates_are_refused_before_anything_is_written)
{
    dlq_state_store_t *store = open_state ();
    dlq_ledger_update_t *good = update_of ("a"), *bad = update_of ("b");
    good->cursor = 5;
    add_row (bad, 3, DLQ_DELIVERY_FAILED, 1, "s", DLQ_TIME_NONE, "x");
    memset (bad->rows [0].id, 'f', sizeof bad->rows [0].id);   /* unterminated */
    dlq_ledger_update_t *both [] = { good, bad };
    cr_assert_eq (dlq_ledger_store_apply (store, both, 2, false), DLQ_STORE_ERROR);
    cr_assert_not_null (strstr (dlq_state_store_last_error (store), "update 1 has a row with an unterminated id"),
                        "%s", dlq_state_store_last_error (store));
    cr_assert_eq (state_of (store, "a").cursor, 0, "nothing of the batch was written");
    bad->rows [0].seq = 0;
    snprintf (bad->rows [0].id, sizeof bad->rows [0].id, "x");
    cr_assert_eq (dlq_ledger_store_apply (store, both, 2, false), DLQ_STORE_ERROR);
    cr_assert_not_null (strstr (dlq_state_store_last_error (store), "a seq below 1"), "%s",
                        dlq_state_store_last_error (store));
    cr_assert_eq (dlq_ledger_store_apply (store, NULL, 1, false), DLQ_STORE_ERROR);
    cr_assert_eq (dlq_ledger_store_apply (store, NULL, 0, true), DLQ_STORE_OK, "a durable commit of nothing");
    dlq_ledger_update_destroy (&good);
    dlq_ledger_update_destroy (&bad);
    dlq_state_store_destroy (&store);
}

/* A full disk, as a trigger raises it: the commit fails whole, and works
 * again once there is room. */
Test (ledger_store, a_failed_commit_writes_nothing)
{
    dlq_state_store_t *store = open_state ();
    exec_in (DLQ_STATE_STORE_FILE, "CREATE TRIGGER full BEFORE INSERT ON deliveries "
                                   "BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;");
    dlq_ledger_update_t *u = update_of ("a");
    u->cursor = 9;
    u->delivered = 4;
    add_row (u, 3, DLQ_DELIVERY_FAILED, 1, "s", DLQ_TIME_NONE, "x");
    cr_assert_eq (dlq_ledger_store_apply (store, &u, 1, false), DLQ_STORE_ERROR);
    cr_assert_not_null (strstr (dlq_state_store_last_error (store), "disk is full"), "%s",
                        dlq_state_store_last_error (store));
    dlq_sink_state_t state = state_of (store, "a");
    cr_assert_eq (state.cursor, 0, "the cursor did not move without its row");
    cr_assert_eq (state.delivered, 0);
    exec_in (DLQ_STATE_STORE_FILE, "DROP TRIGGER full");
    apply_one (store, u);
    cr_assert_eq (state_of (store, "a").cursor, 9);
    cr_assert_str_eq (rows_of_sink (store, "a", DLQ_DELIVERY_FAILED, NULL, NULL), "3");
    dlq_state_store_destroy (&store);
}


/* ------------------------------------------------------------------------ */
/* Reading */

/* Sinks a and b; events 1..8 of streams x (odd) and y (even). */
static void
fill (dlq_state_store_t *store)
{
    static const dlq_delivery_state_t states [] = {
        DLQ_DELIVERY_RETRYING, DLQ_DELIVERY_FAILED, DLQ_DELIVERY_FAILED, DLQ_DELIVERY_DELIVERED,
    };
    dlq_ledger_update_t *u [] = { update_of ("a"), update_of ("b") };
    for (int seq = 1; seq <= 8; seq++) {
        add_row (u [0], seq, states [seq % 4], 1, seq % 2 ? "x" : "y", NOW + 100 * seq, "e");
        if (seq % 3 == 0)
            add_row (u [1], seq, DLQ_DELIVERY_FAILED, 2, seq % 2 ? "x" : "y", DLQ_TIME_NONE, "e");
    }
    apply (store, u, 2, true);
}

Test (ledger_store, rows_of_sink_by_state_stream_and_id)
{
    dlq_state_store_t *store = open_state ();
    fill (store);
    cr_assert_str_eq (rows_of_sink (store, "a", DLQ_DELIVERY_FAILED, NULL, NULL), "1,2,5,6");
    cr_assert_str_eq (rows_of_sink (store, "a", DLQ_DELIVERY_FAILED, "x", NULL), "1,5");
    cr_assert_str_eq (rows_of_sink (store, "a", DLQ_DELIVERY_FAILED, "y", NULL), "2,6");
    cr_assert_str_eq (rows_of_sink (store, "a", DLQ_DELIVERY_FAILED, "z", NULL), "");
    cr_assert_str_eq (rows_of_sink (store, "a", DLQ_DELIVERY_RETRYING, NULL, NULL), "4,8");
    cr_assert_str_eq (rows_of_sink (store, "a", DLQ_DELIVERY_FAILED, NULL, "0190a1b2-0000-7000-8000-000000000005"),
                      "5");
    cr_assert_str_eq (rows_of_sink (store, "a", DLQ_DELIVERY_FAILED, "y", "0190a1b2-0000-7000-8000-000000000005"),
                      "", "the id's stream is x");
    cr_assert_str_eq (rows_of_sink (store, "a", DLQ_DELIVERY_RETRYING, NULL, "0190a1b2-0000-7000-8000-000000000005"),
                      "", "its row is not retrying");
    cr_assert_str_eq (rows_of_sink (store, "b", DLQ_DELIVERY_FAILED, NULL, NULL), "3,6");
    cr_assert_eq (dlq_ledger_store_count_state (store, "a", DLQ_DELIVERY_FAILED), 4);
    cr_assert_eq (dlq_ledger_store_count_state (store, "a", DLQ_DELIVERY_DELIVERED), 2);
    cr_assert_eq (dlq_ledger_store_count_state (store, "c", DLQ_DELIVERY_FAILED), 0);
    cr_assert_eq (dlq_ledger_store_count_state (store, "a", (dlq_delivery_state_t) 9), -1);
    cr_assert_eq (dlq_ledger_store_rows_of_sink (store, "a", (dlq_delivery_state_t) 9, NULL, NULL, see_row, NULL), -1);
    dlq_state_store_destroy (&store);
}

Test (ledger_store, rows_of_seq_across_sinks)
{
    dlq_state_store_t *store = open_state ();
    fill (store);
    seen_t seen = { .count = 0 };
    cr_assert_eq (dlq_ledger_store_rows_of_seq (store, 6, see_row, &seen), 2);
    cr_assert_str_eq (seen.sink [0], "a");
    cr_assert_str_eq (seen.sink [1], "b");
    cr_assert_eq (seen.row [1].attempts, 2);
    seen.count = 0;
    cr_assert_eq (dlq_ledger_store_rows_of_seq (store, 99, see_row, &seen), 0);
    dlq_state_store_destroy (&store);
}

Test (ledger_store, an_unknown_stored_state_is_an_error_naming_the_row)
{
    dlq_state_store_t *store = open_state ();
    fill (store);
    exec_in (DLQ_STATE_STORE_FILE, "UPDATE deliveries SET state = 'lost' WHERE sink = 'a' AND seq = 6");
    seen_t seen = { .count = 0 };
    cr_assert_eq (dlq_ledger_store_rows_of_seq (store, 6, see_row, &seen), -1);
    cr_assert_not_null (strstr (dlq_state_store_last_error (store), "seq 6 has an unknown state 'lost'"), "%s",
                        dlq_state_store_last_error (store));
    dlq_state_store_destroy (&store);
}

Test (ledger_store, the_sweep_deletes_the_rows_of_expired_events_in_batches)
{
    dlq_state_store_t *store = open_state ();
    fill (store);                       /* a's rows expire at NOW + 100 * seq; b's never */
    cr_assert_eq (dlq_ledger_store_sweep (store, NOW + 450, 3), 3);
    cr_assert_eq (dlq_ledger_store_sweep (store, NOW + 450, 3), 1);
    cr_assert_eq (dlq_ledger_store_sweep (store, NOW + 450, 3), 0);
    cr_assert_str_eq (rows_of_sink (store, "a", DLQ_DELIVERY_FAILED, NULL, NULL), "5,6");
    cr_assert_str_eq (rows_of_sink (store, "b", DLQ_DELIVERY_FAILED, NULL, NULL), "3,6", "b's rows never expire");
    dlq_state_store_destroy (&store);
}

Test (ledger_store, another_connection_reads_what_a_relaxed_commit_wrote)
{
    dlq_state_store_t *writer = open_state (), *reader = open_state ();
    dlq_ledger_update_t *u = update_of ("a");
    u->cursor = 42;
    add_row (u, 7, DLQ_DELIVERY_RETRYING, 1, "s", DLQ_TIME_NONE, "later");
    apply_one (writer, u);
    cr_assert_eq (state_of (reader, "a").cursor, 42);
    cr_assert_str_eq (rows_of_sink (reader, "a", DLQ_DELIVERY_RETRYING, NULL, NULL), "7");
    /* a durable commit of nothing records that it synced */
    cr_assert_eq (dlq_ledger_store_apply (writer, NULL, 0, true), DLQ_STORE_OK);
    cr_assert_eq (count_in (DLQ_STATE_STORE_FILE, "SELECT count(*) FROM meta WHERE key = 'ledger_synced_at'"), 1);
    dlq_state_store_destroy (&reader);
    dlq_state_store_destroy (&writer);
}

static bool
plan_uses (sqlite3 *db, const char *sql, const char *needle, char *plan, size_t len)
{
    char explain [2048];
    snprintf (explain, sizeof explain, "EXPLAIN QUERY PLAN %s", sql);
    sqlite3_stmt *stmt = NULL;
    cr_assert_eq (sqlite3_prepare_v2 (db, explain, -1, &stmt, NULL), SQLITE_OK, "%s: %s", sql, sqlite3_errmsg (db));
    plan [0] = '\0';
    while (sqlite3_step (stmt) == SQLITE_ROW)
        snprintf (plan + strlen (plan), len - strlen (plan), "%s; ", (const char *) sqlite3_column_text (stmt, 3));
    sqlite3_finalize (stmt);
    return strstr (plan, needle) != NULL;
}

/* The reads the gateway makes under load find their rows by an index, never
 * by a scan of every row (the statements are ledger_store.c's). */
Test (ledger_store, the_reads_use_their_indexes)
{
    dlq_state_store_t *store = open_state ();
    fill (store);
    dlq_state_store_destroy (&store);
    sqlite3 *db = test_store_open_in (tmp_dir, DLQ_STATE_STORE_FILE, SQLITE_OPEN_READONLY);
    static const struct {
        const char *sql, *needle;
    } checks [] = {
        { "SELECT d.seq FROM deliveries AS d INDEXED BY deliveries_by_state"
          " WHERE d.sink = ?1 AND d.state = ?2 AND (?3 IS NULL OR d.stream_name = ?3) ORDER BY d.seq",
          "deliveries_by_state (sink=? AND state=?)" },
        { "SELECT d.seq FROM deliveries AS d INDEXED BY deliveries_by_id"
          " WHERE d.id = ?4 AND d.sink = ?1 AND d.state = ?2 ORDER BY d.seq", "deliveries_by_id (id=?" },
        { "SELECT d.seq, d.sink FROM deliveries AS d WHERE d.seq = ?1 ORDER BY d.sink", "deliveries_by_seq (seq=?)" },
        { "SELECT count(*) FROM deliveries WHERE sink = ?1 AND state = ?2",
          "COVERING INDEX deliveries_by_state (sink=? AND state=?)" },
        { "SELECT sink, seq FROM deliveries INDEXED BY deliveries_by_expiry"
          " WHERE expires_at IS NOT NULL AND expires_at <= ?1 LIMIT ?2", "deliveries_by_expiry (expires_at>? AND expires_at<?)" },
    };
    char plan [2048];
    for (size_t i = 0; i < sizeof checks / sizeof checks [0]; i++) {
        cr_assert (plan_uses (db, checks [i].sql, checks [i].needle, plan, sizeof plan), "query %zu: %s", i, plan);
        cr_assert_not (plan_uses (db, checks [i].sql, "SCAN", plan, sizeof plan), "query %zu: %s", i, plan);
    }
    sqlite3_close (db);
}


/* ------------------------------------------------------------------------ */
/* The take-over of the embedded store's ledger */

/* The embedded store's file as the release before kept the ledger: sink
 * rec at cursor 200, marker 250; rows of events 150 (retrying, stream up)
 * and 160 (failed, its event swept since). */
static void
make_embedded_ledger (void)
{
    exec_in ("dlq.sqlite",
             "CREATE TABLE events (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE,"
             " stream_name TEXT NOT NULL, expires_at INTEGER);"
             "INSERT INTO events VALUES (150, '0190a1b2-0000-7000-8000-000000000150', 'up', 1781015599999);"
             "CREATE TABLE sink_state (sink TEXT PRIMARY KEY, cursor INTEGER NOT NULL, attempted INTEGER NOT NULL,"
             " delivered INTEGER NOT NULL, failed INTEGER NOT NULL, redelivered INTEGER NOT NULL) WITHOUT ROWID;"
             "CREATE TABLE deliveries (sink TEXT NOT NULL, seq INTEGER NOT NULL, state TEXT NOT NULL,"
             " attempts INTEGER NOT NULL, last_error TEXT, next_attempt_at INTEGER, updated_at INTEGER NOT NULL,"
             " PRIMARY KEY (sink, seq)) WITHOUT ROWID;"
             "INSERT INTO sink_state VALUES ('rec', 200, 250, 199, 1, 3);"
             "INSERT INTO deliveries VALUES ('rec', 150, 'retrying', 1, 'was down', 1781015533500, 1781015533400);"
             "INSERT INTO deliveries VALUES ('rec', 160, 'failed', 10, 'rejected', NULL, 1781015533401);");
}

Test (ledger_store, the_embedded_stores_ledger_is_taken_over_once)
{
    make_embedded_ledger ();
    dlq_state_store_t *store = open_state ();
    dlq_sink_state_t state = state_of (store, "rec");
    cr_assert_eq (state.cursor, 200);
    cr_assert_eq (state.attempted, 250);
    cr_assert_eq (state.delivered, 199);
    cr_assert_eq (state.failed, 1);
    cr_assert_eq (state.redelivered, 3);
    seen_t seen = { .count = 0 };
    cr_assert_eq (dlq_ledger_store_rows_of_sink (store, "rec", DLQ_DELIVERY_RETRYING, "up", NULL, see_row, &seen), 1,
                  "the row got its event's stream");
    cr_assert_str_eq (seen.row [0].id, "0190a1b2-0000-7000-8000-000000000150");
    cr_assert_eq (seen.row [0].expires_at, 1781015599999);
    cr_assert_eq (seen.row [0].next_attempt_at, 1781015533500);
    cr_assert_str_eq (seen.row [0].last_error, "was down");
    seen.count = 0;
    cr_assert_eq (dlq_ledger_store_rows_of_sink (store, "rec", DLQ_DELIVERY_FAILED, NULL, NULL, see_row, &seen), 1);
    cr_assert_str_eq (seen.row [0].id, "", "its event was swept: no id");
    cr_assert_eq (seen.row [0].expires_at, DLQ_TIME_NONE);

    /* the ledger goes on here; a restart takes nothing again */
    dlq_ledger_update_t *u = update_of ("rec");
    u->cursor = 300;
    u->delivered = 100;
    apply_one (store, u);
    dlq_state_store_destroy (&store);
    exec_in ("dlq.sqlite", "UPDATE sink_state SET cursor = 999, delivered = 0");
    store = open_state ();
    cr_assert_eq (state_of (store, "rec").cursor, 300);
    cr_assert_eq (state_of (store, "rec").delivered, 299);
    dlq_state_store_destroy (&store);
}

/* Set the row's record to text (owned by the update). */
static void
keep_record (dlq_delivery_row_t *row, const char *text)
{
    row->record = (uint8_t *) dlq_strdup (text);
    row->record_len = strlen (text);
}

static char *
record_of (dlq_state_store_t *store, const char *sink, int64_t seq, dlq_store_result_t want)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (dlq_ledger_store_record (store, sink, seq, &out), want, "%s", dlq_state_store_last_error (store));
    char *text = dlq_strndup (out.data ? out.data : "", out.len);
    dlq_buf_free (&out);
    return text;
}

Test (ledger_store, a_failed_row_keeps_its_event_until_it_is_delivered)
{
    dlq_state_store_t *store = open_state ();
    dlq_ledger_update_t *u = update_of ("a");
    keep_record (add_row (u, 7, DLQ_DELIVERY_FAILED, 2, "orders", DLQ_TIME_NONE, "rejected"), "event seven");
    add_row (u, 8, DLQ_DELIVERY_RETRYING, 1, "orders", DLQ_TIME_NONE, "timeout");
    apply_one (store, u);
    char *got = record_of (store, "a", 7, DLQ_STORE_OK);
    cr_expect_str_eq (got, "event seven");
    free (got);
    free (record_of (store, "a", 8, DLQ_STORE_NOT_FOUND));
    free (record_of (store, "b", 7, DLQ_STORE_NOT_FOUND));

    /* a REDELIVER's requeue (no id, no record) keeps it, a delivery drops it */
    u = update_of ("a");
    add_row (u, 7, DLQ_DELIVERY_RETRYING, 0, NULL, 0, NULL);
    apply_one (store, u);
    got = record_of (store, "a", 7, DLQ_STORE_OK);
    cr_expect_str_eq (got, "event seven", "the requeued row still keeps its event");
    free (got);
    u = update_of ("a");
    add_row (u, 7, DLQ_DELIVERY_DELIVERED, 1, NULL, 0, NULL);
    apply_one (store, u);
    free (record_of (store, "a", 7, DLQ_STORE_NOT_FOUND));
    cr_expect_eq (count_in (DLQ_STATE_STORE_FILE, "SELECT count(*) FROM deliveries WHERE record IS NOT NULL"), 0);
    dlq_state_store_destroy (&store);
}

Test (ledger_store, a_failed_rows_event_is_read_back_decoded)
{
    const char *body = "{\"id\":\"0190a1b2-0000-7000-8000-000000000009\",\"streamName\":\"orders\","
                       "\"error\":{\"type\":\"T\"}}";
    dlq_error_t err;
    dlq_event_t *event = dlq_event_decode (body, strlen (body), NOW, &err);
    cr_assert_not_null (event, "%s", err.message);
    dlq_event_fingerprint (event);
    dlq_event_encode (event);
    dlq_buf_t bytes = DLQ_BUF_INIT;
    dlq_event_record_encode (event, 0, &bytes);
    dlq_state_store_t *store = open_state ();
    dlq_ledger_update_t *u = update_of ("a");
    dlq_delivery_row_t *row = add_row (u, 9, DLQ_DELIVERY_FAILED, 1, "orders", DLQ_TIME_NONE, "no");
    row->record = (uint8_t *) bytes.data;           /* the update owns it now */
    row->record_len = bytes.len;
    keep_record (add_row (u, 10, DLQ_DELIVERY_FAILED, 1, "orders", DLQ_TIME_NONE, "no"), "no record");
    apply_one (store, u);
    dlq_event_t *back = dlq_ledger_store_failed_event (store, "a", 9);
    cr_assert_not_null (back);
    cr_expect_str_eq (back->id, event->id);
    cr_expect_str_eq (back->stream_name, "orders");
    cr_expect_eq (back->json_len, event->json_len);
    cr_expect_eq (memcmp (back->json, event->json, event->json_len), 0, "the canonical body byte for byte");
    cr_expect_null (dlq_ledger_store_failed_event (store, "a", 10), "bytes that are no event record");
    cr_expect_null (dlq_ledger_store_failed_event (store, "a", 11), "no row");
    dlq_event_destroy (&back);
    dlq_event_destroy (&event);
    dlq_state_store_destroy (&store);
}

Test (ledger_store, a_state_file_of_version_1_gains_the_failed_events_column)
{
    exec_in (DLQ_STATE_STORE_FILE,
             "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;"
             "INSERT INTO meta VALUES ('schema_version', '1');"
             "CREATE TABLE deliveries (sink TEXT NOT NULL, seq INTEGER NOT NULL, state TEXT NOT NULL,"
             " attempts INTEGER NOT NULL, last_error TEXT, next_attempt_at INTEGER, updated_at INTEGER NOT NULL,"
             " id TEXT, stream_name TEXT, expires_at INTEGER, PRIMARY KEY (sink, seq)) WITHOUT ROWID;"
             "INSERT INTO deliveries VALUES ('a', 3, 'failed', 1, 'no', NULL, 1, 'x', 's', NULL);");
    dlq_state_store_t *store = open_state ();
    free (record_of (store, "a", 3, DLQ_STORE_NOT_FOUND));
    dlq_ledger_update_t *u = update_of ("a");
    keep_record (add_row (u, 4, DLQ_DELIVERY_FAILED, 1, "s", DLQ_TIME_NONE, "no"), "four");
    apply_one (store, u);
    char *got = record_of (store, "a", 4, DLQ_STORE_OK);
    cr_expect_str_eq (got, "four");
    free (got);
    cr_expect_eq (count_in (DLQ_STATE_STORE_FILE, "SELECT count(*) FROM meta WHERE key = 'schema_version'"
                            " AND value = '2'"), 1);
    dlq_state_store_destroy (&store);
}

Test (ledger_store, state_names_round_trip)
{
    static const char *const names [] = { "pending", "delivered", "retrying", "failed" };
    for (int i = 0; i < 4; i++) {
        dlq_delivery_state_t state = (dlq_delivery_state_t) 99;
        cr_assert_str_eq (dlq_delivery_state_name ((dlq_delivery_state_t) i), names [i]);
        cr_assert (dlq_delivery_state_parse (names [i], &state));
        cr_assert_eq ((int) state, i);
    }
    dlq_delivery_state_t state = DLQ_DELIVERY_FAILED;
    cr_assert_not (dlq_delivery_state_parse ("Failed", &state));
    cr_assert_not (dlq_delivery_state_parse ("", &state));
    cr_assert_not (dlq_delivery_state_parse (NULL, &state));
    cr_assert_eq (state, DLQ_DELIVERY_FAILED, "untouched on failure");
    cr_assert_str_eq (dlq_delivery_state_name ((dlq_delivery_state_t) 4), "unknown");
}
