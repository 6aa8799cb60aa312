/*  test_indexer — the indexer (the embedded store behind the spool) and
 *  the ledger channel between it and the dispatchers: ledger updates are committed in the order they were
 *  submitted and none is skipped. An update whose commit failed (a full
 *  disk) rides the next commit, so a sink whose later cursor becomes
 *  durable keeps the rows and counts that came before it; an update unfit
 *  to commit is refused when submitted, never poisoning a commit.
 *
 *  Found by the chaos run (contrib/chaos): after the data_dir's filesystem
 *  had been full, every sink's "delivered" in STATS stayed short of the
 *  events it had delivered, because the updates of the failed commits were
 *  dropped while later cursors went through.
 *
 *  A failing commit is made as a full disk makes it, for the ledger: two
 *  triggers, added through a raw SQLite connection, abort every write to
 *  sink_state (which every update writes).
 */
#include "committer.h"
#include "indexer.h"
#include "embedded_store.h"
#include "ledger_channel.h"
#include "spool_ledger.h"

#include "test_support.h"

#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#define SINK "s"

static char tmp_dir [256];
static void *ctx;
static dlq_ledger_channel_t *ledger;
static dlq_committer_t *committer;
static dlq_indexer_t *indexer;

static void
start (void)
{
    test_tmpdir (tmp_dir);
    ctx = zmq_ctx_new ();
    ledger = dlq_ledger_channel_new ();
    char err [512] = "";
    char tip [64], spool_tip [64];
    snprintf (tip, sizeof tip, "inproc://test-indexer-tip-%d", (int) getpid ());
    snprintf (spool_tip, sizeof spool_tip, "inproc://test-spool-tip-%d", (int) getpid ());
    committer = dlq_committer_new (ctx, tmp_dir, spool_tip, 1u << 20, true, err, sizeof err);
    cr_assert_not_null (committer, "%s", err);
    indexer = dlq_indexer_new (ctx, tmp_dir, dlq_committer_spool (committer), dlq_committer_ids (committer), spool_tip, tip, 3600000, 1000, 8192, 0,
                               ledger, err, sizeof err);
    cr_assert_not_null (indexer, "%s", err);
}

static void
stop (void)
{
    dlq_indexer_destroy (&indexer);
    dlq_committer_destroy (&committer);
    dlq_ledger_channel_destroy (&ledger);
    zmq_ctx_term (ctx);
    test_rmtree (tmp_dir);
}

TestSuite (indexer, .init = start, .fini = stop, .timeout = 60);

/* An update of SINK moving the cursor to cursor and adding delivered and
 * failed; with row_seq > 0 also a row in state for that seq. */
static dlq_ledger_update_t *
update_of (int64_t cursor, uint64_t delivered, uint64_t failed, int64_t row_seq,
           dlq_delivery_state_t state)
{
    dlq_ledger_update_t *u = calloc (1, sizeof *u);
    snprintf (u->sink, sizeof u->sink, "%s", SINK);
    u->cursor = cursor;
    u->attempted = -1;
    u->delivered = delivered;
    u->failed = failed;
    if (row_seq > 0) {
        u->rows = calloc (1, sizeof *u->rows);
        u->rows [0] = (dlq_delivery_row_t) { .seq = row_seq, .state = state, .attempts = 1,
                                             .next_attempt_at = DLQ_TIME_NONE, .updated_at = 1,
                                             .last_error = "rejected" };
        u->row_count = 1;
    }
    return u;
}

static bool
submit_and_wait (dlq_ledger_update_t *u)
{
    return dlq_ledger_channel_wait (ledger, dlq_ledger_channel_submit (ledger, u));
}

/* Run sql on the store through a connection of the test's own. */
static void
store_exec (const char *sql)
{
    char path [400];
    snprintf (path, sizeof path, "%s/" DLQ_EMBEDDED_FILE, tmp_dir);
    sqlite3 *db = NULL;
    cr_assert_eq (sqlite3_open (path, &db), SQLITE_OK);
    sqlite3_busy_timeout (db, 5000);
    cr_assert_eq (sqlite3_exec (db, sql, NULL, NULL, NULL), SQLITE_OK, "%s: %s", sql, sqlite3_errmsg (db));
    sqlite3_close (db);
}

static void
refuse_ledger_writes (bool refuse)
{
    store_exec (refuse ? "CREATE TRIGGER full_insert BEFORE INSERT ON sink_state "
                         "BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;"
                         "CREATE TRIGGER full_update BEFORE UPDATE ON sink_state "
                         "BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;"
                       : "DROP TRIGGER full_insert; DROP TRIGGER full_update;");
}

/* SINK's state; *rows gets how many of its rows are in state. */
static dlq_sink_state_t
sink_state (dlq_delivery_state_t state_of_rows, int64_t *rows)
{
    char err [512] = "";
    dlq_embedded_t *store = dlq_embedded_open (tmp_dir, DLQ_EMBEDDED_READER, err, sizeof err);
    cr_assert_not_null (store, "%s", err);
    dlq_sink_state_t state;
    cr_assert_eq (dlq_embedded_sink_state (store, SINK, &state), DLQ_STORE_OK);
    *rows = dlq_embedded_count_state (store, SINK, state_of_rows);
    dlq_embedded_destroy (&store);
    return state;
}

Test (indexer, a_failed_commit_keeps_its_ledger_updates_for_the_next_one)
{
    cr_assert (submit_and_wait (update_of (1, 1, 0, 0, 0)), "the first update did not commit");
    refuse_ledger_writes (true);
    cr_assert_not (submit_and_wait (update_of (3, 1, 1, 2, DLQ_DELIVERY_FAILED)),
                   "a commit the store refused reported durable");
    cr_assert_not (submit_and_wait (update_of (5, 2, 0, 0, 0)), "a commit the store refused reported durable");
    refuse_ledger_writes (false);
    cr_assert (submit_and_wait (update_of (6, 1, 0, 0, 0)),
               "the store is writable again, yet the update did not commit");

    int64_t failed_rows = -1;
    dlq_sink_state_t state = sink_state (DLQ_DELIVERY_FAILED, &failed_rows);
    cr_expect_eq (state.cursor, 6);
    cr_expect_eq (state.delivered, 5, "the deliveries of the failed commits were dropped: %llu of 5",
                  (unsigned long long) state.delivered);
    cr_expect_eq (state.failed, 1, "the failure recorded in a failed commit was dropped");
    cr_expect_eq (failed_rows, 1, "the failed row of a failed commit was dropped: the event is past the "
                  "cursor with no row, so neither delivered again nor found by REDELIVER");
}

Test (indexer, updates_put_back_go_before_those_submitted_since)
{
    refuse_ledger_writes (true);
    cr_assert_not (submit_and_wait (update_of (7, 0, 0, 7, DLQ_DELIVERY_RETRYING)));
    refuse_ledger_writes (false);
    cr_assert (submit_and_wait (update_of (8, 1, 0, 7, DLQ_DELIVERY_DELIVERED)));
    int64_t retrying = -1, delivered = -1;
    sink_state (DLQ_DELIVERY_RETRYING, &retrying);
    sink_state (DLQ_DELIVERY_DELIVERED, &delivered);
    cr_expect_eq (retrying, 0, "the put-back update (retrying) was applied after the later one (delivered)");
    cr_expect_eq (delivered, 1);
}

Test (indexer, an_unfit_update_is_refused_at_submit_and_poisons_nothing)
{
    dlq_ledger_update_t *unfit = update_of (2, 1, 0, 0, 0);
    unfit->sink [0] = '\0';
    cr_expect_not_null (dlq_ledger_update_problem (unfit));
    uint64_t ticket = dlq_ledger_channel_submit (ledger, unfit);
    cr_expect_eq (ticket, 0, "an update without a sink name was queued");
    cr_expect_not (dlq_ledger_channel_wait (ledger, ticket));
    cr_assert (submit_and_wait (update_of (3, 2, 0, 0, 0)), "a fit update after an unfit one did not commit");
    int64_t rows = -1;
    dlq_sink_state_t state = sink_state (DLQ_DELIVERY_FAILED, &rows);
    cr_expect_eq (state.cursor, 3);
    cr_expect_eq (state.delivered, 2);
}
