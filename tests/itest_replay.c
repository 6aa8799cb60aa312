/*  itest_replay — replay over the wire on the embedded primary: a dry run
 *  (count and sample), a job to the ZeroMQ replay endpoint (every event
 *  once, with its lineage, the job DONE with its counters, GET showing
 *  the replay), the rate limit as a lower bound on the time a job takes,
 *  pause / resume across a gateway restart (nothing lost, nothing twice),
 *  PAUSE and CANCEL replying once the job has stopped (final counters),
 *  cancel, the loop guard (QUARANTINED after max_replays), RESOLVE and
 *  FAIL (status, retryCount, retryAfter = now + backoff), a scheduled
 *  pass per interval (batch_size events, each once), a pass with no
 *  worker to take its batch (given back, sent once one connects), and bad requests
 *  refused with the right code and field.
 */
#include "dlq_json.h"
#include "dlq_time.h"
#include "dlq_uuid.h"
#include "replay_support.h"
#include "sink_support.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <ctype.h>
#include <signal.h>
#include <sys/wait.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

static test_dlqd_t d;
static char replay_endpoint [64];
static void *zctx;

static void
setup (void)
{
    memset (&d, 0, sizeof d);
    test_tmpdir (d.dir);
    snprintf (replay_endpoint, sizeof replay_endpoint, "tcp://127.0.0.1:%d", test_free_port ());
    zctx = zmq_ctx_new ();
}

static void
teardown (void)
{
    test_dlqd_cleanup (&d);
    zmq_ctx_term (zctx);
}

TestSuite (replay, .init = setup, .fini = teardown, .timeout = 180);

/* Start dlqd with the replay endpoint, stream "orders" routed to it, plus
 * replay settings and the stream's own extra settings. */
static void
start (const char *replay_extra, const char *stream_extra)
{
    char extra [2048];
    snprintf (extra, sizeof extra,
              "replay: { listen = \"%s\"; %s };\n"
              "streams = ( { name = \"orders\"; replay_route = \"endpoint\"; %s } );\n",
              replay_endpoint, replay_extra ? replay_extra : "", stream_extra ? stream_extra : "");
    cr_assert (test_dlqd_start (&d, NULL, extra));
}

/* n events of orders created in the last minute, their ids into ids. */
static void
put_events (int n, char (*ids) [DLQ_UUID_LEN + 1])
{
    char **bodies = sink_small_events ("orders", dlq_time_now_ms () - 60000, n, ids);
    sink_put_bodies (d.endpoint, bodies, n);
    sink_free_events (bodies, n);
}

static void
expect_state (const char *job, const char *state)
{
    char *s = sink_reply_text (job, "state");
    cr_assert_str_eq (s, state, "%s", job);
    free (s);
}

/* Start a replay job with request; its id into job_id; the reply returned. */
static char *
replay (const char *request, char *job_id)
{
    char *reply = sink_request (d.endpoint, "REPLAY", request, "OK");
    char *id = sink_reply_text (reply, "job");
    cr_assert_not_null (id, "%s", reply);
    snprintf (job_id, DLQ_UUID_LEN + 1, "%s", id);
    free (id);
    return reply;
}

static char *
job_status (const char *job)
{
    char body [128];
    snprintf (body, sizeof body, "{\"job\":\"%s\"}", job);
    return sink_request (d.endpoint, "REPLAY.STATUS", body, "OK");
}

/* Poll REPLAY.STATUS until the job is in state (seconds at most). */
static char *
job_wait (const char *job, const char *state, int seconds)
{
    for (int i = 0; i < seconds * 20; i++) {
        char *status = job_status (job);
        char *s = sink_reply_text (status, "state");
        bool there = s && strcmp (s, state) == 0;
        free (s);
        if (there)
            return status;
        free (status);
        struct timespec ts = { 0, 50000000 };
        nanosleep (&ts, NULL);
    }
    char *status = job_status (job);
    cr_assert_fail ("job %s not %s in %d s: %s", job, state, seconds, status);
    return status;
}

/* Receive until want events came or nothing came for quiet_max receive
 * timeouts in a row: per-id counts into seen, the count returned. */
static int
pull_until (void *pull, char (*ids) [DLQ_UUID_LEN + 1], int n, int *seen, int want, const char *job_want,
            int quiet_max)
{
    int got = 0, quiet = 0;
    while (got < want && quiet < quiet_max) {
        char job [REPLAY_JOB_SIZE], id [DLQ_UUID_LEN + 1];
        char *body = NULL;
        if (!replay_pull (pull, job, id, &body)) {
            quiet++;
            continue;
        }
        quiet = 0;
        int i = replay_index_of (ids, n, id);
        cr_assert_geq (i, 0, "replayed an event that was not asked for: %s", id);
        if (job_want)
            cr_assert_str_eq (job, job_want);
        seen [i]++;
        got++;
        free (body);
    }
    return got;
}

/* The same, giving up after 5 quiet seconds (25 timeouts of 200 ms). */
static int
pull_all (void *pull, char (*ids) [DLQ_UUID_LEN + 1], int n, int *seen, int want, const char *job_want)
{
    return pull_until (pull, ids, n, seen, want, job_want, 25);
}

/* ------------------------------------------------------------------ tests */

Test (replay, dry_run_counts_and_samples_without_replaying)
{
    start (NULL, NULL);
    char ids [30][DLQ_UUID_LEN + 1];
    put_events (30, ids);
    char *reply = sink_request (d.endpoint, "REPLAY", "{\"streamName\":\"orders\",\"dryRun\":true,\"sample\":5}", "OK");
    cr_expect_eq (sink_reply_int (reply, "count"), 30);
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (reply, strlen (reply), &doc, NULL), DLQ_JSON_OK);
    const dlq_json_value_t *sample = dlq_json_get (dlq_json_root (doc), "sample");
    cr_assert_eq (sample->count, 5, "%s", reply);
    cr_expect_eq (dlq_json_get (dlq_json_root (doc), "dryRun")->type, DLQ_JSON_TRUE);
    dlq_json_doc_destroy (&doc);
    free (reply);
    reply = sink_request (d.endpoint, "REPLAY", "{\"messageContains\":\"event 1\",\"dryRun\":true}", "OK");
    cr_expect_eq (sink_reply_int (reply, "count"), 11, "event 1, 10..19: %s", reply);
    free (reply);
    char by_ids [256], upper [DLQ_UUID_LEN + 1];
    for (int i = 0; i <= DLQ_UUID_LEN; i++)
        upper [i] = (char) toupper ((unsigned char) ids [3][i]);
    snprintf (by_ids, sizeof by_ids, "{\"ids\":[\"%s\",\"%s\",\"%s\"],\"dryRun\":true}", ids [3], ids [4], upper);
    reply = sink_request (d.endpoint, "REPLAY", by_ids, "OK");
    cr_expect_eq (sink_reply_int (reply, "count"), 2, "an id given twice counts once: %s", reply);
    free (reply);
    /* nothing was replayed: no job, and the events were never replayed */
    reply = sink_request (d.endpoint, "REPLAY.STATUS", "{}", "OK");
    cr_expect_str_eq (reply, "{\"jobs\":[]}");
    free (reply);
    reply = sink_get (d.endpoint, ids [3], "OK");
    cr_expect_not_null (strstr (reply, "\"replayCount\":0"), "%s", reply);
    free (reply);
}

Test (replay, a_job_replays_every_event_once_to_the_endpoint_with_lineage)
{
    start (NULL, NULL);
    enum { N = 250 };
    char ids [N][DLQ_UUID_LEN + 1];
    put_events (N, ids);
    void *pull = replay_pull_open (zctx, replay_endpoint, 200);
    char job [DLQ_UUID_LEN + 1];
    char *reply = replay ("{\"streamName\":\"orders\",\"rate\":5000}", job);
    expect_state (reply, "RUNNING");
    cr_expect_eq (sink_reply_int (reply, "total"), N);
    free (reply);
    int seen [N] = { 0 };
    char first_body [4096] = "";
    for (int got = 0, quiet = 0; got < N && quiet < 25; ) {
        char j [REPLAY_JOB_SIZE], id [DLQ_UUID_LEN + 1];
        char *body = NULL;
        if (!replay_pull (pull, j, id, &body)) {
            quiet++;
            continue;
        }
        int i = replay_index_of (ids, N, id);
        cr_assert_geq (i, 0);
        cr_assert_str_eq (j, job);
        seen [i]++;
        got++;
        if (!first_body [0])
            snprintf (first_body, sizeof first_body, "%s", body);
        free (body);
    }
    for (int i = 0; i < N; i++)
        cr_expect_eq (seen [i], 1, "event %d replayed %d times", i, seen [i]);
    /* lineage: the stored body plus metadata.replayOf / replayCount */
    char *id = sink_reply_text (first_body, "id");
    char *stored = sink_stored_event (d.endpoint, id);
    char lineage [128];
    snprintf (lineage, sizeof lineage, ",\"replayOf\":\"%s\",\"replayCount\":1}", id);
    char *at = strstr (first_body, lineage);
    cr_assert_not_null (at, "%s", first_body);
    cr_expect_eq (strncmp (first_body, stored, (size_t) (at - first_body)), 0, "%s\n%s", first_body, stored);
    char *status = job_wait (job, "DONE", 10);
    cr_expect_eq (sink_reply_int (status, "done"), N);
    cr_expect_eq (sink_reply_int (status, "replayed"), N);
    cr_expect_eq (sink_reply_int (status, "failed"), 0);
    free (status);
    char *got = sink_get (d.endpoint, id, "OK");
    cr_expect_not_null (strstr (got, "\"replayCount\":1"), "%s", got);
    free (got);
    free (stored);
    free (id);
    zmq_close (pull);
}

Test (replay, the_rate_limit_holds_a_job_to_its_events_per_second)
{
    start (NULL, NULL);
    enum { N = 40 };
    char ids [N][DLQ_UUID_LEN + 1];
    put_events (N, ids);
    void *pull = replay_pull_open (zctx, replay_endpoint, 200);
    char job [DLQ_UUID_LEN + 1];
    int64_t start_ms = dlq_time_mono_ms ();
    free (replay ("{\"streamName\":\"orders\",\"rate\":50}", job));
    int seen [N] = { 0 };
    cr_assert_eq (pull_all (pull, ids, N, seen, N, job), N);
    int64_t took = dlq_time_mono_ms () - start_ms;
    /* event i is due at i / 50 s: the last no sooner than 780 ms in */
    cr_expect_geq (took, 780, "40 events at 50/s took %lld ms", (long long) took);
    free (job_wait (job, "DONE", 10));
    zmq_close (pull);
}

Test (replay, pause_and_resume_across_a_restart_lose_and_repeat_nothing)
{
    start (NULL, NULL);
    enum { N = 120 };
    char ids [N][DLQ_UUID_LEN + 1];
    put_events (N, ids);
    void *pull = replay_pull_open (zctx, replay_endpoint, 200);
    char job [DLQ_UUID_LEN + 1];
    free (replay ("{\"streamName\":\"orders\",\"rate\":40}", job));
    int seen [N] = { 0 };
    int before = pull_all (pull, ids, N, seen, 30, job);
    cr_assert_eq (before, 30);
    char body [128];
    snprintf (body, sizeof body, "{\"job\":\"%s\"}", job);
    char *paused = sink_request (d.endpoint, "REPLAY.PAUSE", body, "OK");
    expect_state (paused, "PAUSED");
    free (paused);
    before += pull_all (pull, ids, N, seen, N, job);         /* what was on its way */
    cr_assert_eq (test_dlqd_signal_wait (&d, 15), 0, "SIGTERM: clean exit");
    cr_assert (test_dlqd_restart (&d));
    char *status = job_status (job);
    expect_state (status, "PAUSED");
    cr_expect_eq (sink_reply_int (status, "done"), before, "the progress survived: %s", status);
    free (status);
    cr_expect_eq (pull_all (pull, ids, N, seen, N, job), 0, "a paused job sends nothing");
    free (sink_request (d.endpoint, "REPLAY.RESUME", body, "OK"));
    cr_expect_eq (pull_all (pull, ids, N, seen, N - before, job), N - before);
    status = job_wait (job, "DONE", 20);
    cr_expect_eq (sink_reply_int (status, "replayed"), N);
    free (status);
    for (int i = 0; i < N; i++)
        cr_expect_eq (seen [i], 1, "event %d replayed %d times", i, seen [i]);
    char *again = sink_request (d.endpoint, "REPLAY.RESUME", body, "ERR");
    cr_expect_not_null (strstr (again, "\"INVALID_STATE\""), "%s", again);
    free (again);
    zmq_close (pull);
}

Test (replay, cancel_stops_a_job_for_good)
{
    start (NULL, NULL);
    enum { N = 60 };
    char ids [N][DLQ_UUID_LEN + 1];
    put_events (N, ids);
    void *pull = replay_pull_open (zctx, replay_endpoint, 200);
    char job [DLQ_UUID_LEN + 1];
    free (replay ("{\"all\":true,\"rate\":20}", job));
    int seen [N] = { 0 };
    cr_assert_eq (pull_all (pull, ids, N, seen, 5, job), 5);
    char body [128];
    snprintf (body, sizeof body, "{\"job\":\"%s\"}", job);
    char *cancelled = sink_request (d.endpoint, "REPLAY.CANCEL", body, "OK");
    expect_state (cancelled, "CANCELLED");
    free (cancelled);
    int after = pull_all (pull, ids, N, seen, N, job);
    cr_expect_leq (after, 10, "a cancelled job stops (%d more came)", after);
    char *status = job_status (job);
    expect_state (status, "CANCELLED");
    cr_expect_lt (sink_reply_int (status, "done"), N);
    free (status);
    char *resume = sink_request (d.endpoint, "REPLAY.RESUME", body, "ERR");
    cr_expect_not_null (strstr (resume, "\"INVALID_STATE\""), "%s", resume);
    free (resume);
    zmq_close (pull);
}

Test (replay, the_loop_guard_quarantines_after_max_replays)
{
    start ("max_replays = 2;", NULL);
    char ids [1][DLQ_UUID_LEN + 1];
    put_events (1, ids);
    void *pull = replay_pull_open (zctx, replay_endpoint, 200);
    char request [256];         /* the id twice: replayed once per job all the same */
    snprintf (request, sizeof request, "{\"ids\":[\"%s\",\"%s\"],\"rate\":1000}", ids [0], ids [0]);
    for (int round = 1; round <= 4; round++) {
        char job [DLQ_UUID_LEN + 1];
        free (replay (request, job));
        char *status = job_wait (job, "DONE", 10);
        int seen [1] = { 0 };
        int got = pull_all (pull, ids, 1, seen, round <= 2 ? 1 : 0, job);
        if (round <= 2) {
            cr_expect_eq (got, 1, "round %d", round);
            cr_expect_eq (sink_reply_int (status, "replayed"), 1, "round %d: %s", round, status);
        }
        else
        if (round == 3)
            cr_expect_eq (sink_reply_int (status, "quarantined"), 1, "the third replay is refused: %s", status);
        else
            cr_expect_eq (sink_reply_int (status, "skipped"), 1, "a quarantined event is skipped: %s", status);
        free (status);
    }
    char *got = sink_get (d.endpoint, ids [0], "OK");
    cr_expect_not_null (strstr (got, "\"status\":\"QUARANTINED\""), "%s", got);
    cr_expect_not_null (strstr (got, "\"replayCount\":2"), "%s", got);
    free (got);
    zmq_close (pull);
}

Test (replay, resolve_and_fail_change_the_status_and_retry_schedule)
{
    start ("backoff_ms = 60000; backoff_max_ms = 100000;", NULL);
    char ids [3][DLQ_UUID_LEN + 1];
    put_events (3, ids);
    char body [128];
    snprintf (body, sizeof body, "{\"id\":\"%s\"}", ids [0]);
    char *resolved = sink_request (d.endpoint, "RESOLVE", body, "OK");
    cr_expect_not_null (strstr (resolved, "\"status\":\"SUCCEEDED\""), "%s", resolved);
    free (resolved);
    char *got = sink_get (d.endpoint, ids [0], "OK");
    cr_expect_not_null (strstr (got, "\"status\":\"SUCCEEDED\""), "GET shows it: %s", got);
    free (got);
    snprintf (body, sizeof body, "{\"id\":\"%s\"}", ids [1]);
    for (int n = 1; n <= 3; n++) {
        int64_t before = dlq_time_now_ms ();
        char *failed = sink_request (d.endpoint, "FAIL", body, "OK");
        cr_expect_not_null (strstr (failed, "\"status\":\"PENDING\""), "%s", failed);
        cr_expect_eq (sink_reply_int (failed, "retryCount"), n, "%s", failed);
        char *after = sink_reply_text (failed, "retryAfter");
        int64_t at = 0;
        cr_assert (dlq_time_parse_iso (after, strlen (after), &at), "%s", failed);
        int64_t delay = n == 1 ? 60000 : 100000;        /* 60 s, then doubled and capped */
        cr_expect_geq (at, before + delay - 1000, "FAIL %d: %s", n, failed);
        cr_expect_leq (at, dlq_time_now_ms () + delay + 1000, "FAIL %d: %s", n, failed);
        free (after);
        free (failed);
    }
    /* a replay of all three skips the resolved one */
    void *pull = replay_pull_open (zctx, replay_endpoint, 200);
    char job [DLQ_UUID_LEN + 1];
    free (replay ("{\"streamName\":\"orders\"}", job));
    char *status = job_wait (job, "DONE", 10);
    cr_expect_eq (sink_reply_int (status, "skipped"), 1, "%s", status);
    cr_expect_eq (sink_reply_int (status, "replayed"), 2, "%s", status);
    free (status);
    char missing [DLQ_UUID_LEN + 1], request [128];
    dlq_uuid_v7 (dlq_time_now_ms (), missing);
    snprintf (request, sizeof request, "{\"id\":\"%s\"}", missing);
    char *nf = sink_request (d.endpoint, "RESOLVE", request, "ERR");
    cr_expect_not_null (strstr (nf, "\"NOT_FOUND\""), "%s", nf);
    free (nf);
    nf = sink_request (d.endpoint, "FAIL", "{\"id\":\"nope\"}", "ERR");
    cr_expect_not_null (strstr (nf, "\"INVALID_REQUEST\""), "%s", nf);
    free (nf);
    zmq_close (pull);
}

/* FAILs of one event sent together, pipelined on one socket (the query
 * threads take them side by side): each is answered with its own
 * retryCount, every one counts, and what was answered survives a SIGKILL
 * right after (the marks are spool records, docs/protocol.md). */
Test (replay, fails_sent_together_all_count_and_survive_a_kill)
{
    start (NULL, NULL);
    char ids [1][DLQ_UUID_LEN + 1];
    put_events (1, ids);
    enum { N = 8 };
    void *s = zmq_socket (zctx, ZMQ_DEALER);
    int linger = 0, timeout = 15000;
    zmq_setsockopt (s, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt (s, ZMQ_RCVTIMEO, &timeout, sizeof timeout);
    cr_assert_eq (zmq_connect (s, d.endpoint), 0);
    char body [128];
    snprintf (body, sizeof body, "{\"id\":\"%s\"}", ids [0]);
    for (int i = 0; i < N; i++) {
        char rid [8];
        snprintf (rid, sizeof rid, "r%d", i);
        zmq_send (s, "FAIL", 4, ZMQ_SNDMORE);
        zmq_send (s, rid, strlen (rid), ZMQ_SNDMORE);
        zmq_send (s, body, strlen (body), 0);
    }
    bool seen [N + 1] = { false };
    for (int i = 0; i < N; i++) {
        char frames [3][512];
        for (int part = 0; part < 3; part++) {
            int n = zmq_recv (s, frames [part], sizeof frames [part] - 1, 0);
            cr_assert_geq (n, 0, "reply %d of %d: %s", i + 1, N, zmq_strerror (zmq_errno ()));
            frames [part][n < (int) sizeof frames [part] - 1 ? n : (int) sizeof frames [part] - 1] = '\0';
        }
        cr_assert_str_eq (frames [0], "OK", "%s", frames [2]);
        int count = sink_reply_int (frames [2], "retryCount");
        cr_assert (count >= 1 && count <= N && !seen [count], "a retryCount twice or out of range: %s", frames [2]);
        seen [count] = true;
    }
    zmq_close (s);
    cr_expect_eq (WTERMSIG (test_dlqd_signal_wait (&d, SIGKILL)), SIGKILL);
    cr_assert (test_dlqd_restart (&d));
    char *got = sink_get (d.endpoint, ids [0], "OK");
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (got, strlen (got), &doc, NULL), DLQ_JSON_OK, "%s", got);
    int64_t count = -1;
    cr_assert (dlq_json_as_int64 (dlq_json_get (dlq_json_get (dlq_json_root (doc), "replay"), "retryCount"), &count),
               "%s", got);
    dlq_json_doc_destroy (&doc);
    cr_expect_eq (count, N, "every FAIL answered counted once, after the kill: %s", got);
    free (got);
}

Test (replay, a_schedule_replays_batch_size_due_events_per_pass)
{
    start (NULL, "schedule = { enabled = true; max_retries = 2; batch_size = 4; interval_ms = 300; };");
    enum { N = 10 };
    char ids [N][DLQ_UUID_LEN + 1];
    put_events (N, ids);
    char body [128];
    /* event 9 has used its retries: a schedule leaves it alone */
    snprintf (body, sizeof body, "{\"id\":\"%s\"}", ids [9]);
    free (sink_request (d.endpoint, "FAIL", body, "OK"));
    free (sink_request (d.endpoint, "FAIL", body, "OK"));
    void *pull = replay_pull_open (zctx, replay_endpoint, 200);
    int seen [N] = { 0 };
    int64_t start_ms = dlq_time_mono_ms ();
    int got = pull_all (pull, ids, N, seen, 9, "schedule");
    int64_t took = dlq_time_mono_ms () - start_ms;
    cr_expect_eq (got, 9);
    cr_expect_geq (took, 500, "9 events in passes of 4 every 300 ms need 3 passes: %lld ms", (long long) took);
    cr_expect_eq (pull_all (pull, ids, N, seen, N, "schedule"), 0, "leased events are not replayed again");
    for (int i = 0; i < N; i++)
        cr_expect_eq (seen [i], i == 9 ? 0 : 1, "event %d replayed %d times", i, seen [i]);
    zmq_close (pull);
}

/* True once dlqd's log holds text (seconds at most). */
static bool
log_shows (const char *text, int seconds)
{
    for (int i = 0; i < seconds * 20; i++) {
        char *log = test_read_file (d.log, NULL);
        bool there = log && strstr (log, text);
        free (log);
        if (there)
            return true;
        struct timespec ts = { 0, 50000000 };
        nanosleep (&ts, NULL);
    }
    return false;
}

/* A pass that finds no worker at the endpoint gives its batch back: the
 * events go as soon as a worker connects, not after their lease (600 s). */
Test (replay, a_pass_without_a_worker_gives_its_batch_back)
{
    start (NULL, "schedule = { enabled = true; batch_size = 4; interval_ms = 300; };");
    enum { N = 6 };
    char ids [N][DLQ_UUID_LEN + 1];
    put_events (N, ids);
    /* no count of events: the first such pass may have claimed fewer than
     * 4, and the later ones are repeats, counted rather than written */
    cr_assert (log_shows (" released to wait: no worker connected to the replay endpoint", 30),
               "a pass without a worker says so");
    void *pull = replay_pull_open (zctx, replay_endpoint, 200);
    int seen [N] = { 0 };
    cr_expect_eq (pull_all (pull, ids, N, seen, N, "schedule"), N, "every event, the released ones too");
    for (int i = 0; i < N; i++)
        cr_expect_eq (seen [i], 1, "event %d replayed %d times", i, seen [i]);
    char *get = sink_get (d.endpoint, ids [0], "OK");
    cr_expect_not_null (strstr (get, "\"replayCount\":1"), "the released event replayed once: %s", get);
    free (get);
    zmq_close (pull);
}

/* PAUSE and CANCEL answer once the replayer has stopped the job: the
 * counters in the reply are final, and the worker gets exactly that many
 * events (at 40 events/s, more would come in the quiet second waited). */
Test (replay, pause_and_cancel_reply_once_the_job_has_stopped)
{
    start (NULL, NULL);
    enum { N = 60 };
    char ids [N][DLQ_UUID_LEN + 1];
    put_events (N, ids);
    void *pull = replay_pull_open (zctx, replay_endpoint, 200);
    char job [DLQ_UUID_LEN + 1], body [128];
    free (replay ("{\"streamName\":\"orders\",\"rate\":40}", job));
    snprintf (body, sizeof body, "{\"job\":\"%s\"}", job);
    int seen [N] = { 0 };
    int got = pull_until (pull, ids, N, seen, 3, job, 25);
    cr_assert_eq (got, 3);
    const char *verbs [2] = { "REPLAY.PAUSE", "REPLAY.CANCEL" };
    const char *states [2] = { "PAUSED", "CANCELLED" };
    for (int k = 0; k < 2; k++) {
        char *reply = sink_request (d.endpoint, verbs [k], body, "OK");
        expect_state (reply, states [k]);
        int64_t done = sink_reply_int (reply, "done");
        free (reply);
        got += pull_until (pull, ids, N, seen, N, job, 5);
        cr_expect_eq (got, done, "%s: the worker got %d events, the reply says %lld", verbs [k], got,
                      (long long) done);
        char *status = job_status (job);
        cr_expect_eq (sink_reply_int (status, "done"), done, "%s: nothing more after the reply: %s", verbs [k],
                      status);
        free (status);
        if (k == 0) {
            free (sink_request (d.endpoint, "REPLAY.RESUME", body, "OK"));
            got += pull_until (pull, ids, N, seen, 3, job, 25);
        }
    }
    cr_expect_lt (got, N, "the job was stopped before its end");
    for (int i = 0; i < N; i++)
        cr_expect_leq (seen [i], 1, "event %d replayed %d times", i, seen [i]);
    zmq_close (pull);
}

Test (replay, bad_requests_are_refused_by_name)
{
    start (NULL, NULL);
    struct { const char *verb, *body, *code, *field; } cases [] = {
        { "REPLAY", "{}", "INVALID_REQUEST", "all" },
        { "REPLAY", "{\"all\":true,\"target\":\"kafka\"}", "INVALID_REQUEST", "target" },
        { "REPLAY", "{\"all\":true,\"rate\":0}", "INVALID_REQUEST", "rate" },
        { "REPLAY", "{\"ids\":[]}", "INVALID_REQUEST", "ids" },
        { "REPLAY", "{\"ids\":[\"x\"]}", "INVALID_REQUEST", "ids" },
        { "REPLAY", "{\"ids\":[\"0190a0b2-4c1d-7e5f-8a9b-0c1d2e3f4a5b\"],\"streamName\":\"a\"}", "INVALID_REQUEST", "streamName" },
        { "REPLAY", "{\"all\":true,\"sample\":3}", "INVALID_REQUEST", "sample" },
        { "REPLAY", "{\"all\":true,\"bogus\":1}", "INVALID_REQUEST", "bogus" },
        { "REPLAY", "{\"status\":7}", "INVALID_REQUEST", "status" },
        { "REPLAY.PAUSE", "{\"job\":\"0190a0b2-4c1d-7e5f-8a9b-0c1d2e3f4a5b\"}", "NOT_FOUND", "job" },
        { "REPLAY.CANCEL", "{}", "INVALID_REQUEST", "job" },
        { "RESOLVE", "{\"id\":1}", "INVALID_REQUEST", "id" },
        { "FAIL", "{\"id\":\"0190a0b2-4c1d-7e5f-8a9b-0c1d2e3f4a5b\",\"x\":1}", "INVALID_REQUEST", "x" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases [0]; i++) {
        char *reply = sink_request (d.endpoint, cases [i].verb, cases [i].body, "ERR");
        char *code = sink_reply_text (reply, "code"), *field = sink_reply_text (reply, "field");
        cr_expect_str_eq (code, cases [i].code, "%s %s: %s", cases [i].verb, cases [i].body, reply);
        cr_expect_str_eq (field ? field : "", cases [i].field, "%s %s: %s", cases [i].verb, cases [i].body, reply);
        free (code);
        free (field);
        free (reply);
    }
    /* the endpoint target needs replay.listen */
    test_dlqd_cleanup (&d);
    test_tmpdir (d.dir);
    cr_assert (test_dlqd_start (&d, NULL, NULL));
    char *reply = sink_request (d.endpoint, "REPLAY", "{\"all\":true,\"target\":\"endpoint\"}", "ERR");
    cr_expect_not_null (strstr (reply, "\"field\":\"target\""), "%s", reply);
    free (reply);
}

/* A job paused after replaying events that then expire: on resume its
 * page is read again without them, and it goes on from the page's start
 * rather than skipping as many events as were handled. Every event that
 * stays is replayed. */
Test (replay, events_expiring_under_a_paused_job_make_it_skip_nothing)
{
    enum { SOON = 8, KEPT = 20 };
    char extra [1024];
    snprintf (extra, sizeof extra,
              "replay: { listen = \"%s\"; };\n"
              "streams = ( { name = \"soon\"; retention_days = 1; replay_route = \"endpoint\"; },\n"
              "            { name = \"kept\"; retention_days = 0; replay_route = \"endpoint\"; } );\n",
              replay_endpoint);
    cr_assert (test_dlqd_start (&d, NULL, extra));
    int64_t now = dlq_time_now_ms ();
    char soon [SOON][DLQ_UUID_LEN + 1], kept [KEPT][DLQ_UUID_LEN + 1];
    /* the newest events (replayed first) expire 3 s from now; the others never */
    char **bodies = sink_small_events ("soon", now - 86400000LL + 3000 - SOON, SOON, soon);
    sink_put_bodies (d.endpoint, bodies, SOON);
    sink_free_events (bodies, SOON);
    bodies = sink_small_events ("kept", now - 2 * 86400000LL, KEPT, kept);
    sink_put_bodies (d.endpoint, bodies, KEPT);
    sink_free_events (bodies, KEPT);
    void *pull = replay_pull_open (zctx, replay_endpoint, 200);
    char job [DLQ_UUID_LEN + 1];
    free (replay ("{\"all\":true,\"rate\":4}", job));
    int seen_soon [SOON] = { 0 };
    cr_assert_eq (pull_all (pull, soon, SOON, seen_soon, 4, job), 4);
    char body [128];
    snprintf (body, sizeof body, "{\"job\":\"%s\"}", job);
    free (sink_request (d.endpoint, "REPLAY.PAUSE", body, "OK"));
    pull_all (pull, soon, SOON, seen_soon, SOON, job);          /* what was on its way */
    int64_t left = -1;                                          /* wait until the soon events expire */
    for (int64_t deadline = now + 15000; dlq_time_now_ms () < deadline; ) {
        if ((left = sink_count (d.endpoint, "{\"streamName\":\"soon\"}")) == 0)
            break;
        struct timespec ts = { 0, 100000000 };
        nanosleep (&ts, NULL);
    }
    cr_assert_eq (left, 0, "the soon events have expired");
    free (sink_request (d.endpoint, "REPLAY.RESUME", body, "OK"));
    int seen_kept [KEPT] = { 0 };
    cr_expect_eq (pull_all (pull, kept, KEPT, seen_kept, KEPT, job), KEPT);
    for (int i = 0; i < KEPT; i++)
        cr_expect_eq (seen_kept [i], 1, "kept event %d replayed %d times", i, seen_kept [i]);
    free (job_wait (job, "DONE", 20));
    zmq_close (pull);
}
