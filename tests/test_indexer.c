/*  test_indexer — the indexer (the embedded store behind the spool, and
 *  the delivery ledger in the daemon's state file beside it), the
 *  marks it applies from the spool (RESOLVE, FAIL: a record each, synced
 *  by the committer, answered once applied, applied again from the spool
 *  when the store lost the commit that had them), and the ledger channel
 *  between it and the dispatchers: ledger updates are committed in the order they were
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
 *  triggers, added through a raw SQLite connection to the state file,
 *  abort every write to sink_state (which every update writes).
 */
#include "committer.h"
#include "indexer.h"
#include "embedded_store.h"
#include "embedded_workbench.h"
#include "failed_event.h"
#include "ledger_channel.h"
#include "spool_kinds.h"
#include "ledger_store.h"
#include "state_store.h"

#include "store_support.h"
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
static dlqd_config_t *config;

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
    config = test_store_config (tmp_dir);
    committer = dlq_committer_new (ctx, config, spool_tip, 1u << 20, true, err, sizeof err);
    cr_assert_not_null (committer, "%s", err);
    indexer = dlq_indexer_new (ctx, config, dlq_committer_spool (committer), dlq_committer_ids (committer),
                               spool_tip, tip, 3600000, 1000, 8192, 0,
                               ledger, dlq_committer_marks (committer), err, sizeof err);
    cr_assert_not_null (indexer, "%s", err);
}

static void
stop (void)
{
    dlq_indexer_destroy (&indexer);
    dlq_committer_destroy (&committer);
    dlq_ledger_channel_destroy (&ledger);
    zmq_ctx_term (ctx);
    dlqd_config_destroy (&config);
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

static void
refuse_ledger_writes (bool refuse)
{
    test_store_exec_in (tmp_dir, DLQ_STATE_STORE_FILE,
                        refuse ? "CREATE TRIGGER full_insert BEFORE INSERT ON sink_state "
                                 "BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;"
                                 "CREATE TRIGGER full_update BEFORE UPDATE ON sink_state "
                                 "BEGIN SELECT RAISE(ABORT, 'database or disk is full'); END;"
                               : "DROP TRIGGER full_insert; DROP TRIGGER full_update;");
}

/* SINK's state; *rows gets how many of its rows are in state. */
static dlq_sink_state_t
sink_state (dlq_delivery_state_t state_of_rows, int64_t *rows)
{
    dlq_state_store_t *store = test_state_store (tmp_dir);
    dlq_sink_state_t state;
    cr_assert_eq (dlq_ledger_store_sink_state (store, SINK, &state), DLQ_STORE_OK);
    *rows = dlq_ledger_store_count_state (store, SINK, state_of_rows);
    dlq_state_store_destroy (&store);
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


/* ------------------------------------------------------------------------ */
/* Marks through the spool */

#define EVENT_ID "0190f3a2-8c1e-7b6e-9a8f-0123456789ab"

/* PUT one event through the committer, as the front end does. */
static void
put_event (void)
{
    const char *json = "{\"id\":\"" EVENT_ID "\",\"streamName\":\"orders\",\"error\":{\"type\":\"Boom\"}}";
    dlq_error_t error;
    dlq_event_t *event = dlq_event_decode (json, strlen (json), dlq_time_now_ms (), &error);
    cr_assert_not_null (event, "%s", error.message);
    dlq_event_fingerprint (event);
    dlq_event_encode (event);
    dlq_commit_batch_t *batch = dlq_commit_batch_new (4, 1u << 20);
    zmq_msg_t identity, request_id;
    zmq_msg_init (&identity);
    zmq_msg_init (&request_id);
    dlq_commit_batch_add (batch, &event, &identity, &request_id);
    dlq_committer_submit (committer, batch);
    cr_assert_eq (dlq_committer_receive (committer), batch);
    cr_assert_not (batch->failed, "%s", batch->error);
    dlq_commit_batch_destroy (&batch);
}

/* Wait until the indexer reached the spool's tip. */
static void
await_index (void)
{
    for (int i = 0; i < 500 && dlq_indexer_position (indexer) < dlq_spool_tip (dlq_committer_spool (committer)); i++)
        usleep (10000);
    cr_assert_geq (dlq_indexer_position (indexer), dlq_spool_tip (dlq_committer_spool (committer)));
}

static dlq_sink_event_state_t
stored_state (void)
{
    char err [512] = "";
    dlq_embedded_t *store = dlq_embedded_open (tmp_dir, DLQ_EMBEDDED_READER, err, sizeof err);
    cr_assert_not_null (store, "%s", err);
    dlq_sink_event_state_t state;
    cr_assert_eq (dlq_embedded_state (store, EVENT_ID, dlq_time_now_ms (), &state), DLQ_STORE_OK);
    dlq_embedded_destroy (&store);
    return state;
}

/* How many records of kind the spool holds. */
static size_t
spool_records (uint8_t kind)
{
    dlq_spool_t *spool = dlq_committer_spool (committer);
    dlq_spool_reader_t *reader = dlq_spool_reader_new (spool, dlq_spool_begin (spool));
    dlq_spool_entry_t e;
    char err [512];
    size_t n = 0;
    while (dlq_spool_reader_next (reader, &e, err, sizeof err) == DLQ_SPOOL_OK)
        n += e.kind == kind;
    dlq_spool_reader_destroy (&reader);
    return n;
}

static dlq_store_result_t
fail_event (const char *id, dlq_sink_event_state_t *state, char *err, size_t err_len)
{
    dlq_store_result_t rc = DLQ_STORE_ERROR;
    int64_t now = dlq_time_now_ms ();
    cr_assert_eq (dlq_mark_channel_apply (dlq_committer_marks (committer), &id, 1, DLQ_SINK_MARK_FAILED, now,
                                          now + 60000, 10000, &rc, state, err, err_len), DLQ_STORE_OK, "%s", err);
    return rc;
}

Test (indexer, a_mark_is_a_spool_record_answered_with_the_state_it_left_and_two_marks_both_count)
{
    put_event ();
    await_index ();
    char err [512] = "";
    dlq_sink_event_state_t state;
    cr_assert_eq (fail_event (EVENT_ID, &state, err, sizeof err), DLQ_STORE_OK);
    cr_assert_eq (state.retry_count, 1);
    cr_assert_str_eq (state.status, "PENDING");
    cr_assert_eq (fail_event (EVENT_ID, &state, err, sizeof err), DLQ_STORE_OK);
    cr_assert_eq (state.retry_count, 2, "the second FAIL counts on top of the first");
    cr_assert_eq (stored_state ().retry_count, 2, "the store holds what the answers said");
    cr_assert_eq (spool_records (DLQ_SPOOL_KIND_MARK), 2, "each mark is a record of the spool");
    cr_assert_eq (fail_event ("0190f3a2-8c1e-7b6e-9a8f-000000000000", &state, err, sizeof err),
                  DLQ_STORE_NOT_FOUND, "a mark of an event the store does not hold changes nothing");
}

Test (indexer, marks_the_store_lost_are_applied_again_from_the_spool)
{
    put_event ();
    await_index ();
    char err [512] = "";
    dlq_sink_event_state_t state;
    uint64_t before_marks = dlq_spool_tip (dlq_committer_spool (committer));
    cr_assert_eq (fail_event (EVENT_ID, &state, err, sizeof err), DLQ_STORE_OK);
    cr_assert_eq (fail_event (EVENT_ID, &state, err, sizeof err), DLQ_STORE_OK);
    /* what a power cut does to the indexer's relaxed commits: the store
     * goes back to before the marks, its indexed position with it */
    dlq_indexer_destroy (&indexer);
    char sql [256];
    snprintf (sql, sizeof sql, "UPDATE events SET retry_count = 0, retry_after = NULL;"
              "UPDATE meta SET value = '%llu' WHERE key = 'spool_position';", (unsigned long long) before_marks);
    test_store_exec (tmp_dir, sql);
    cr_assert_eq (stored_state ().retry_count, 0);
    char tip [64];
    snprintf (tip, sizeof tip, "inproc://test-indexer-tip-again-%d", (int) getpid ());
    char spool_tip [64];
    snprintf (spool_tip, sizeof spool_tip, "inproc://test-spool-tip-%d", (int) getpid ());
    indexer = dlq_indexer_new (ctx, config, dlq_committer_spool (committer),
                               dlq_committer_ids (committer), spool_tip, tip, 3600000, 1000, 8192, 0, ledger, dlq_committer_marks (committer), err, sizeof err);
    cr_assert_not_null (indexer, "%s", err);
    await_index ();
    cr_assert_eq (stored_state ().retry_count, 2, "both marks were applied again, once each");
}
