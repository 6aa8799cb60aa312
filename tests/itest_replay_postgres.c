/*  itest_replay_postgres — the workbench on a postgres primary through
 *  dlqd, against the real PostgreSQL: filters, COUNT, RESOLVE / FAIL and a
 *  REPLAY job answered from the table; and the dlq_events scheduled replay
 *  run by TWO dlqd instances on one table, both writing it and both running
 *  the schedule: every event is replayed exactly once over all passes (rows
 *  claimed with FOR UPDATE SKIP LOCKED, one pass at a time through the lock
 *  table), and when the instance holding the passes stops, the other takes
 *  over and finishes (both took passes).
 */
#include "dlq_time.h"
#include "dlq_uuid.h"
#include "pg_support.h"
#include "replay_support.h"
#include "sink_support.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

#define N_EVENTS 600
/* Events per pass, one pass every 200 ms: 25 events/s, so the instance
 * holding the passes needs 24 s for all 600, and the test, which stops it
 * once a third of them came in, can trail its replays by 16 s before it
 * has nothing left to take over (at 20 a pass it once trailed by 4 s on a
 * loaded machine: every event was replayed by one instance). */
#define BATCH 5

static pg_server_t pg;
static char table [64];
static test_dlqd_t a, b;
static char endpoint_a [64], endpoint_b [64];
static void *zctx;

static void
setup (void)
{
    memset (&a, 0, sizeof a);
    memset (&b, 0, sizeof b);
    test_tmpdir (a.dir);
    test_tmpdir (b.dir);
    cr_assert (pg_server_shared (&pg));
    pg_table_name (table, sizeof table);
    snprintf (endpoint_a, sizeof endpoint_a, "tcp://127.0.0.1:%d", test_free_port ());
    snprintf (endpoint_b, sizeof endpoint_b, "tcp://127.0.0.1:%d", test_free_port ());
    zctx = zmq_ctx_new ();
}

static void
teardown (void)
{
    test_dlqd_cleanup (&a);
    test_dlqd_cleanup (&b);
    pg_server_stop (&pg);
    zmq_ctx_term (zctx);
}

TestSuite (replay_postgres, .init = setup, .fini = teardown, .timeout = 300);

/* dlqd d with the postgres sink as primary and in the chain; stream
 * orders replayed to replay_endpoint, with schedule (may be ""). */
static void
start (test_dlqd_t *d, const char *owner, const char *replay_endpoint, const char *schedule)
{
    char extra [4096];
    snprintf (extra, sizeof extra,
              "sinks: { sql: { type = \"postgres\"; conninfo = \"%s\"; table = \"%s\"; }; };\n"
              "primary = \"sql\";\n"
              "defaults: { chain = [\"sql\"]; };\n"
              "replay: { listen = \"%s\"; owner = \"%s\"; lease_ms = 3600000; rate = 10000; };\n"
              "streams = ( { name = \"orders\"; replay_route = \"endpoint\"; %s } );\n",
              pg.conninfo, table, replay_endpoint, owner, schedule);
    cr_assert (test_dlqd_start (d, NULL, extra));
}

/* Wait until the table holds want events of orders (the sink delivered). */
static void
wait_count (const char *endpoint, int64_t want)
{
    int64_t n = -1;
    for (int i = 0; i < 300 && n != want; i++) {
        n = sink_count (endpoint, "{\"streamName\":\"orders\"}");
        if (n != want) {
            struct timespec ts = { 0, 50000000 };
            nanosleep (&ts, NULL);
        }
    }
    cr_assert_eq (n, want, "the postgres table has %lld events of orders", (long long) n);
}

/* Receive from both endpoints until want events came in all (or nothing
 * came for quiet_s seconds); per-event counts into seen, per instance into
 * by_a / by_b. Returns how many came. */
static int
collect (void *pull_a, void *pull_b, char (*ids) [DLQ_UUID_LEN + 1], int *seen, int want, int *by_a, int *by_b,
         int quiet_s)
{
    int got = 0;
    for (int quiet = 0; got < want && quiet < quiet_s * 5; ) {
        char id [DLQ_UUID_LEN + 1];
        bool from_a = replay_pull (pull_a, NULL, id, NULL);
        if (!from_a && !replay_pull (pull_b, NULL, id, NULL)) {
            quiet++;
            continue;
        }
        quiet = 0;
        int i = replay_index_of (ids, N_EVENTS, id);
        cr_assert_geq (i, 0, "replayed an unknown event %s", id);
        seen [i]++;
        got++;
        *by_a += from_a;
        *by_b += !from_a;
    }
    return got;
}

Test (replay_postgres, two_instances_replay_each_event_once)
{
    char schedule [256];
    snprintf (schedule, sizeof schedule,
              "schedule = { enabled = true; max_retries = 5; batch_size = %d; interval_ms = 200; };", BATCH);
    static char ids [N_EVENTS][DLQ_UUID_LEN + 1];
    static int seen [N_EVENTS];
    char **bodies = sink_small_events ("orders", dlq_time_now_ms () - 60000, N_EVENTS, ids);
    /* both gateways write the table; then both run the schedule. (Not both
     * at once: on a slow machine the instance holding the passes could
     * replay every event while the PUTs are still being sent, leaving the
     * other nothing to take over.) */
    start (&a, "instance-a", endpoint_a, "");
    start (&b, "instance-b", endpoint_b, "");
    sink_put_bodies (a.endpoint, bodies, N_EVENTS / 2);
    sink_put_bodies (b.endpoint, bodies + N_EVENTS / 2, N_EVENTS / 2);
    sink_free_events (bodies, N_EVENTS);
    wait_count (a.endpoint, N_EVENTS);
    cr_assert_eq (test_dlqd_signal_wait (&a, SIGTERM), 0);
    cr_assert_eq (test_dlqd_signal_wait (&b, SIGTERM), 0);
    void *pull_a = replay_pull_open (zctx, endpoint_a, 100), *pull_b = replay_pull_open (zctx, endpoint_b, 100);
    start (&a, "instance-a", endpoint_a, schedule);
    start (&b, "instance-b", endpoint_b, schedule);
    int by_a = 0, by_b = 0;
    cr_assert_geq (collect (pull_a, pull_b, ids, seen, N_EVENTS / 3, &by_a, &by_b, 30), N_EVENTS / 3,
                   "the schedule replays");
    /* the gateway holding the passes stops: the other takes over */
    test_dlqd_t *stopping = by_a >= by_b ? &a : &b;
    cr_assert_eq (test_dlqd_signal_wait (stopping, SIGTERM), 0);
    cr_log_info ("instance %s stopped after %d + %d events", stopping == &a ? "a" : "b", by_a, by_b);
    collect (pull_a, pull_b, ids, seen, N_EVENTS - by_a - by_b, &by_a, &by_b, 30);
    collect (pull_a, pull_b, ids, seen, N_EVENTS, &by_a, &by_b, 2);     /* anything more: a duplicate */
    cr_log_info ("%d events replayed: %d by instance a, %d by instance b", by_a + by_b, by_a, by_b);
    for (int i = 0; i < N_EVENTS; i++)
        cr_expect_eq (seen [i], 1, "event %d replayed %d times", i, seen [i]);
    cr_expect_eq (by_a + by_b, N_EVENTS);
    cr_expect_gt (by_a, 0, "instance a took passes");
    cr_expect_gt (by_b, 0, "instance b took passes");
    zmq_close (pull_a);
    zmq_close (pull_b);
}

Test (replay_postgres, filters_resolve_fail_and_a_job_on_the_table)
{
    start (&a, "instance-a", endpoint_a, "");
    char ids [20][DLQ_UUID_LEN + 1];
    char **bodies = sink_small_events ("orders", dlq_time_now_ms () - 60000, 20, ids);
    sink_put_bodies (a.endpoint, bodies, 20);
    sink_free_events (bodies, 20);
    wait_count (a.endpoint, 20);
    cr_expect_eq (sink_count (a.endpoint, "{\"messageContains\":\"EVENT 1\"}"), 11);
    cr_expect_eq (sink_count (a.endpoint, "{\"metadata\":{\"n\":7}}"), 1);
    char body [128];
    snprintf (body, sizeof body, "{\"id\":\"%s\"}", ids [0]);
    free (sink_request (a.endpoint, "RESOLVE", body, "OK"));
    snprintf (body, sizeof body, "{\"id\":\"%s\"}", ids [1]);
    char *failed = sink_request (a.endpoint, "FAIL", body, "OK");
    cr_expect_not_null (strstr (failed, "\"retryCount\":1"), "%s", failed);
    free (failed);
    cr_expect_eq (sink_count (a.endpoint, "{\"status\":\"SUCCEEDED\"}"), 1);
    char *got = sink_get (a.endpoint, ids [0], "OK");
    cr_expect_not_null (strstr (got, "\"status\":\"SUCCEEDED\""), "%s", got);
    free (got);
    void *pull = replay_pull_open (zctx, endpoint_a, 100);
    char *reply = sink_request (a.endpoint, "REPLAY", "{\"streamName\":\"orders\",\"rate\":1000}", "OK");
    cr_expect_not_null (strstr (reply, "\"total\":20"), "%s", reply);
    free (reply);
    int n = 0;
    for (int quiet = 0; quiet < 30; ) {
        char id [DLQ_UUID_LEN + 1];
        if (replay_pull (pull, NULL, id, NULL)) {
            cr_expect_neq (strcmp (id, ids [0]), 0, "the resolved event is skipped");
            n++;
        }
        else
            quiet++;
    }
    cr_expect_eq (n, 19);
    got = sink_get (a.endpoint, ids [5], "OK");
    cr_expect_not_null (strstr (got, "\"replayCount\":1"), "%s", got);
    free (got);
    zmq_close (pull);
}
