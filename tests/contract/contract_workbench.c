/*  contract_workbench — what a store with workbench calls (ops->workbench
 *  not NULL) must answer, events delivered to it in DELIVER mode and the
 *  calls made through a QUERY instance (the gateway's failure workbench,
 *  docs/writing-a-sink.md):
 *
 *    - filtered LIST (paged to the end), COUNT and GROUPS over 600 varied
 *      events (three streams, statuses, error types and messages with
 *      %, ' and regular expression characters, attempts, metadata of each
 *      JSON type and in arrays, creation times, some expired) agree with
 *      the reference predicate (the oracle of filter_oracle.h, its richest
 *      variety); a fingerprint filter per group; a cursor the store did
 *      not issue is BAD_CURSOR;
 *    - each mark changes the state as the contract says, GET shows the new
 *      status (every other byte kept) and COUNT can filter on it; a
 *      missing or expired event is NOT_FOUND to state and every mark; an
 *      unknown mark is an ERROR; concurrent marks of one event lose
 *      nothing;
 *    - a claim leases the stream's eligible events, oldest first, in
 *      batches (a lease already over takes each once all the same);
 *      another owner is LOCKED out for the pass; two instances claiming at
 *      once claim every event exactly once.
 *
 *  The checks are plugin_workbench.h's, over the sink under test
 *  (contract_plugin); what a backend keeps behind the calls (rows, lock
 *  rows, documents, migrations) its own itest_<backend>_workbench checks.
 *  Every test is skipped for a sink without workbench calls.
 */
#include "contract.h"

#include "dlq_time.h"
#include "filter_oracle.h"
#include "plugin_host.h"
#include "plugin_workbench.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N           FILTER_ORACLE_EVENTS
#define NOW         PLUGIN_WB_NOW
#define LEASE_MS    PLUGIN_WB_LEASE_MS
#define CONCURRENT  2000            /* events two instances claim */
#define CLAIM_BATCH 25
#define MARKERS     2
#define MARKS       40              /* marks of each marker */

static plugin_wb_t wb;              /* the sink under test, its writer and reader (closed by the fixture) */
static dlq_event_t *events [N];
static size_t stored;               /* events [0, stored) are in the store */

/* Load the sink; only a store with workbench calls that events can be
 * delivered to is tested. */
static void
workbench_setup (void)
{
    memset (&wb, 0, sizeof wb);
    memset (events, 0, sizeof events);
    stored = 0;
    contract_setup ();
    contract_require_deliver ();
    contract_require_workbench ();
    wb.plugin = contract_plugin ();
    wb.writer = contract_open (DLQ_SINK_MODE_DELIVER);
    wb.reader = contract_open (DLQ_SINK_MODE_QUERY);
}

static void
workbench_teardown (void)
{
    contract_teardown ();
    for (int i = 0; i < N; i++)
        dlq_event_destroy (&events [i]);
}

TestSuite (workbench, .init = workbench_setup, .fini = workbench_teardown);

/* ---- filtered queries: the oracle of filter_oracle.h ------------------------------- */

/* Deliver the N varied events. */
static void
store_varied (void)
{
    stored = plugin_wb_store_varied (&wb, events, FILTER_ORACLE_ARRAYS);
}

Test (workbench, filters_agree_with_the_reference_predicate)
{
    store_varied ();
    filter_oracle_t o = plugin_wb_oracle (&wb, events, stored);
    filter_oracle_expect_filters (&o, FILTER_ORACLE_ARRAYS);
}

Test (workbench, a_fingerprint_filter_per_group)
{
    store_varied ();
    filter_oracle_t o = plugin_wb_oracle (&wb, events, stored);
    filter_oracle_expect_fingerprints (&o);
}

Test (workbench, a_cursor_it_did_not_issue_is_bad)
{
    store_varied ();
    plugin_wb_expect_bad_cursors (&wb);
}

Test (workbench, groups_agree_with_the_reference_predicate)
{
    store_varied ();
    filter_oracle_t o = plugin_wb_oracle (&wb, events, stored);
    filter_oracle_expect_all_groups (&o, FILTER_ORACLE_ARRAYS);
}

/* ---- replay state and marks ------------------------------------------------------------- */

/* GET of e is its body with status, every other byte kept. */
static void
expect_get_says (const dlq_event_t *e, const char *status)
{
    char *want = plugin_wb_body_with_status (e, status);
    dlq_buf_t got = DLQ_BUF_INIT;
    cr_assert_eq (sut.ops->store->get (wb.reader, e->id, NOW, dlq_plugin_host_buf (&got)), DLQ_SINK_STATUS_OK,
                  "GET %s: %s", e->id, plugin_wb_error (&wb, wb.reader));
    dlq_buf_putc (&got, '\0');
    cr_expect_str_eq (got.data, want, "GET after the mark to %s", status);
    dlq_buf_free (&got);
    free (want);
}

/* COUNT of request at NOW. */
static int64_t
count_of (const char *request)
{
    int64_t count = -1;
    cr_assert_eq (sut.ops->workbench->query_count (wb.reader, request, NOW, &count), DLQ_SINK_STATUS_OK,
                  "COUNT %s: %s", request, plugin_wb_error (&wb, wb.reader));
    return count;
}

Test (workbench, each_mark_changes_the_state_and_the_body_follows)
{
    stored = plugin_wb_store_marked (&wb, events);
    plugin_wb_expect_marks (&wb, events [0], expect_get_says);
    cr_expect_eq (count_of ("{\"status\":\"SUCCEEDED\",\"streamName\":\"s\"}"), 1, "the new status can be filtered on");
    cr_expect_eq (count_of ("{\"status\":\"DLQ\",\"streamName\":\"s\"}"), 0, "the old one is gone");
}

Test (workbench, a_missing_or_expired_event_is_not_found)
{
    stored = plugin_wb_store_marked (&wb, events);
    plugin_wb_expect_not_found (&wb, events [1]);
    dlq_sink_event_state_t st;
    cr_expect_eq (sut.ops->workbench->mark (wb.reader, events [0]->id, (dlq_sink_mark_t) 42, NOW, 0, &st),
                  DLQ_SINK_STATUS_ERROR, "an unknown mark");
    st = plugin_wb_mark (&wb, events [0]->id, DLQ_SINK_MARK_RESOLVED, 0);
    cr_expect_str_eq (st.status, "SUCCEEDED", "the instance is fine after NOT_FOUND and ERROR");
}

/* ---- concurrent marks ------------------------------------------------------------------ */

typedef struct {
    void            *instance;
    const char      *id;
    dlq_sink_mark_t  how;
    int              errors;
} marker_t;

/* MARKS marks of one event, through an instance of its own. */
static void *
marker (void *arg)
{
    marker_t *m = arg;
    for (int i = 0; i < MARKS; i++) {
        dlq_sink_event_state_t st;
        if (sut.ops->workbench->mark (m->instance, m->id, m->how, NOW, NOW + i, &st) != DLQ_SINK_STATUS_OK)
            m->errors++;
    }
    return NULL;
}

Test (workbench, concurrent_marks_lose_nothing)
{
    events [0] = plugin_wb_simple ("s", 5000, "DLQ", DLQ_TIME_NONE);
    plugin_wb_deliver (&wb, events, 1);
    stored = 1;
    marker_t m [MARKERS];
    pthread_t threads [MARKERS];
    for (int t = 0; t < MARKERS; t++) {
        m [t] = (marker_t) { plugin_wb_instance (&wb, DLQ_SINK_MODE_QUERY), events [0]->id,
                             t == 0 ? DLQ_SINK_MARK_FAILED : DLQ_SINK_MARK_QUARANTINED, 0 };
        cr_assert_eq (pthread_create (&threads [t], NULL, marker, &m [t]), 0);
    }
    for (int t = 0; t < MARKERS; t++)
        pthread_join (threads [t], NULL);
    for (int t = 0; t < MARKERS; t++) {
        cr_expect_eq (m [t].errors, 0, "marker %d", t);
        sut.ops->destroy (m [t].instance);
    }
    dlq_sink_event_state_t st = plugin_wb_state (&wb, events [0]->id);
    cr_expect_eq (st.retry_count, MARKS, "every FAIL counted");
    cr_expect (strcmp (st.status, "PENDING") == 0 || strcmp (st.status, "QUARANTINED") == 0,
               "the status is the last mark's: %s", st.status);
    expect_get_says (events [0], st.status);
}

/* ---- claim -------------------------------------------------------------------------------- */

/* GET of e is still e's body. */
static void
expect_body_kept (const dlq_event_t *e)
{
    expect_get_says (e, "PENDING");
}

Test (workbench, a_claim_leases_the_eligible_events_oldest_first_in_batches)
{
    stored = plugin_wb_expect_claims (&wb, events, true, expect_body_kept);
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (plugin_wb_claim (&wb, wb.reader, "t", "a", 60000, 0, 10, NOW, &out), DLQ_SINK_STATUS_OK);
    cr_expect_str_eq (out.data, "[]", "max_retries 0: nothing is due");
    cr_assert_eq (plugin_wb_claim (&wb, wb.reader, "nowhere", "a", 60000, 3, 10, NOW, &out), DLQ_SINK_STATUS_OK);
    cr_expect_str_eq (out.data, "[]", "a stream with no events");
    dlq_buf_free (&out);
}

Test (workbench, a_lease_that_is_already_over_takes_each_event_once)
{
    const char *const stream [] = { "s", "s", "s" };
    const int64_t ago [] = { 3000, 2000, 1000 }, expires [] = { DLQ_TIME_NONE, DLQ_TIME_NONE, DLQ_TIME_NONE };
    const char *const status [] = { "PENDING", "PENDING", "PENDING" };
    plugin_wb_store_simple (&wb, events, stream, ago, status, expires, 3);
    stored = 3;
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (sut.ops->workbench->claim (wb.reader, "s", "a", 0, 3, 10, NOW, NOW - 1, dlq_plugin_host_buf (&out)),
                  DLQ_SINK_STATUS_OK, "%s", plugin_wb_error (&wb, wb.reader));
    static const int all [] = { 0, 1, 2, -1 };
    plugin_wb_expect_claimed (&out, events, stored, all, NULL,
                              "a lease in the past leaves the events due: each is taken once all the same");
    dlq_buf_free (&out);
}

Test (workbench, another_owner_is_locked_out_for_the_pass)
{
    stored = plugin_wb_expect_locked_out (&wb, events, true, NULL);
}

Test (workbench, two_instances_claim_every_event_exactly_once)
{
    plugin_wb_expect_claimed_once (&wb, CONCURRENT, CLAIM_BATCH, NULL);
}
