/*  itest_sinks — the sink chain end to end, with dlqd as a process and the
 *  scripted test sink as a real plugin: delivery, retry with backoff,
 *  permanent failure and REDELIVER, isolation of a dead sink, and backlog
 *  resumption after SIGKILL.
 */
#include "dlq_json.h"
#include "dlq_time.h"
#include "sink_support.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

static test_dlqd_t d;
static char record [400], down [400];

static void
setup (void)
{
    memset (&d, 0, sizeof d);
    test_tmpdir (d.dir);
    snprintf (record, sizeof record, "%s/delivered.txt", d.dir);
    snprintf (down, sizeof down, "%s/sink-is-down", d.dir);
}

static void teardown (void) { test_dlqd_cleanup (&d); }

TestSuite (sinks, .init = setup, .fini = teardown, .timeout = 180);

/* ---- helpers ----------------------------------------------------------- */

/* Lines of the record file, and how many distinct ids they name. */
static int
recorded (int *distinct)
{
    size_t len = 0;
    char *text = test_read_file (record, &len);
    int lines = 0;
    if (distinct)
        *distinct = 0;
    if (!text)
        return 0;
    char **ids = calloc (len / 10 + 1, sizeof (char *));
    for (char *line = strtok (text, "\n"); line; line = strtok (NULL, "\n")) {
        char *space = strchr (line, ' ');
        if (space)
            *space = '\0';
        bool seen = false;
        for (int i = 0; i < lines && !seen; i++)
            seen = distinct && strcmp (ids [i], line) == 0;
        ids [lines++] = line;
        if (distinct && !seen)
            (*distinct)++;
    }
    free (ids);
    free (text);
    return lines;
}

static int
wait_recorded (int want, int seconds)
{
    int got = 0;
    for (int i = 0; i < seconds * 20 && (got = recorded (NULL)) < want; i++)
        usleep (50 * 1000);
    return got;
}

/* PUT n events of stream with ids ...-<base+i>, pipelined on one socket. */
static void
put_events (const char *stream, int base, int n)
{
    void *ctx = zmq_ctx_new ();
    void *s = zmq_socket (ctx, ZMQ_DEALER);
    int linger = 0, timeout = 20000, hwm = 0;
    zmq_setsockopt (s, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt (s, ZMQ_RCVTIMEO, &timeout, sizeof timeout);
    zmq_setsockopt (s, ZMQ_SNDHWM, &hwm, sizeof hwm);
    zmq_connect (s, d.endpoint);
    char body [256];
    for (int i = 0; i < n; i++) {
        snprintf (body, sizeof body, "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-%012d\",\"streamName\":\"%s\","
                  "\"error\":{\"type\":\"T\"}}", base + i, stream);
        zmq_send (s, "PUT", 3, ZMQ_SNDMORE);
        zmq_send (s, "p", 1, ZMQ_SNDMORE);
        zmq_send (s, body, strlen (body), 0);
    }
    char frame [256];
    for (int i = 0; i < n; i++) {
        cr_assert_gt (zmq_recv (s, frame, sizeof frame, 0), 0, "PUT %d not answered", i);
        cr_assert_eq (memcmp (frame, "OK", 2), 0);
        zmq_recv (s, frame, sizeof frame, 0);
        zmq_recv (s, frame, sizeof frame, 0);
    }
    zmq_close (s);
    zmq_ctx_term (ctx);
}

static bool
start (const char *sinks, const char *chain)
{
    char extra [4096];
    snprintf (extra, sizeof extra, "sinks: { %s };\ndefaults: { retention_days = 0; chain = %s; };\n"
              "streams = ( { name = \"quiet\"; chain = []; } );", sinks, chain);
    return test_dlqd_start (&d, NULL, extra);
}

/* ---- tests ------------------------------------------------------------- */

Test (sinks, every_event_reaches_the_sinks_of_its_chain)
{
    char sinks [1024];
    snprintf (sinks, sizeof sinks, "rec: { type = \"scripted\"; record_file = \"%s\"; batch = { max_events = 64; }; };"
              "nothing: { type = \"noop\"; };", record);
    cr_assert (start (sinks, "[\"rec\", \"nothing\"]"));
    put_events ("orders", 0, 1000);
    put_events ("quiet", 5000, 10);                     /* its chain is empty */
    int distinct = 0;
    cr_expect_eq (wait_recorded (1000, 30), 1000);
    recorded (&distinct);
    cr_expect_eq (distinct, 1000, "each event once");
    cr_expect_eq (sink_wait_stat (d.endpoint, "rec", "backlog", 0, 10), 0);
    cr_expect_eq (sink_stat (d.endpoint, "rec", "delivered"), 1000);
    cr_expect_eq (sink_wait_stat (d.endpoint, "nothing", "delivered", 1000, 10), 1000);
    cr_expect_eq (sink_stat (d.endpoint, "rec", "failed"), 0);
    char *circuit = sink_text (d.endpoint, "rec", "circuit");
    cr_expect_str_eq (circuit, "closed");
    free (circuit);
    char *got = sink_request (d.endpoint, "GET", "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-000000000007\"}", "OK");
    cr_expect_not_null (strstr (got, "\"deliveries\":[{\"sink\":\"rec\",\"state\":\"delivered\",\"attempts\":1},"
                                      "{\"sink\":\"nothing\",\"state\":\"delivered\",\"attempts\":1}]"), "%s", got);
    free (got);
    got = sink_request (d.endpoint, "GET", "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-000000005003\"}", "OK");
    cr_expect_not_null (strstr (got, "\"deliveries\":[]"), "not in any chain: %s", got);
    free (got);
}

Test (sinks, transient_failures_are_retried_with_backoff)
{
    char sinks [1024];
    snprintf (sinks, sizeof sinks, "flaky: { type = \"scripted\"; retry_times = 2; record_file = \"%s\";"
              " retry = { backoff_ms = 20; backoff_max_ms = 100; max_attempts = 5; };"
              " circuit = { failures = 1000; }; };", record);
    cr_assert (start (sinks, "[\"flaky\"]"));
    put_events ("orders", 0, 50);
    cr_expect_eq (wait_recorded (50, 30), 50);
    cr_expect_eq (sink_wait_stat (d.endpoint, "flaky", "retrying", 0, 10), 0);
    cr_expect_eq (sink_stat (d.endpoint, "flaky", "delivered"), 50);
    size_t len;
    char *text = test_read_file (record, &len);
    cr_expect_not_null (strstr (text, "0190f1d2-6c4e-7a01-8b2c-000000000003 orders 3"),
                        "delivered at the third attempt: %s", text);
    free (text);
    char *got = sink_request (d.endpoint, "GET", "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-000000000003\"}", "OK");
    cr_expect_not_null (strstr (got, "{\"sink\":\"flaky\",\"state\":\"delivered\",\"attempts\":3}"), "%s", got);
    free (got);
}

Test (sinks, permanent_failures_are_recorded_and_can_be_redelivered)
{
    char sinks [1024];
    FILE *f = fopen (down, "w");
    fclose (f);
    snprintf (sinks, sizeof sinks, "shaky: { type = \"scripted\"; down_file = \"%s\"; record_file = \"%s\";"
              " retry = { backoff_ms = 10; backoff_max_ms = 20; max_attempts = 2; };"
              " circuit = { failures = 1000; }; };"
              "strict: { type = \"scripted\"; fail_stream = \"bad\"; };", down, record);
    cr_assert (start (sinks, "[\"shaky\", \"strict\"]"));
    put_events ("bad", 0, 5);
    put_events ("good", 100, 5);
    cr_expect_eq (sink_wait_stat (d.endpoint, "strict", "failed", 5, 20), 5, "FAIL is permanent at once");
    cr_expect_eq (sink_wait_stat (d.endpoint, "shaky", "failed", 10, 20), 10, "RETRY until max_attempts, then failed");
    char *error = sink_text (d.endpoint, "shaky", "lastError");
    cr_expect_not_null (strstr (error, "down"), "%s", error);
    free (error);
    char *got = sink_request (d.endpoint, "GET", "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-000000000001\"}", "OK");
    cr_expect_not_null (strstr (got, "{\"sink\":\"strict\",\"state\":\"failed\",\"attempts\":1,"
                                      "\"lastError\":\"scripted permanent failure\"}"), "%s", got);
    free (got);

    unlink (down);                                      /* the backend is back */
    char *reply = sink_request (d.endpoint, "REDELIVER", "{\"sink\":\"shaky\",\"streamName\":\"good\"}", "OK");
    cr_expect_str_eq (reply, "{\"sink\":\"shaky\",\"requeued\":5}");
    free (reply);
    cr_expect_eq (wait_recorded (5, 20), 5);
    cr_expect_eq (sink_wait_stat (d.endpoint, "shaky", "failed", 5, 10), 5, "only the requeued stream left the failed state");
    reply = sink_request (d.endpoint, "REDELIVER", "{\"sink\":\"shaky\",\"id\":\"0190f1d2-6c4e-7a01-8b2c-000000000002\"}", "OK");
    cr_expect_str_eq (reply, "{\"sink\":\"shaky\",\"requeued\":1}");
    free (reply);
    cr_expect_eq (wait_recorded (6, 20), 6);
    reply = sink_request (d.endpoint, "REDELIVER", "{\"sink\":\"shaky\",\"id\":\"0190F1D2-6C4E-7A01-8B2C-000000000003\"}", "OK");
    cr_expect_str_eq (reply, "{\"sink\":\"shaky\",\"requeued\":1}", "an id in upper case is the same id");
    free (reply);
    cr_expect_eq (wait_recorded (7, 20), 7);
    reply = sink_request (d.endpoint, "REDELIVER", "{\"sink\":\"nosuch\"}", "ERR");
    cr_expect_not_null (strstr (reply, "INVALID_REQUEST"));
    free (reply);
}

Test (sinks, a_dead_sink_does_not_hold_back_ingest_or_other_sinks)
{
    char sinks [1024];
    snprintf (sinks, sizeof sinks, "dead: { type = \"scripted\"; down = true;"
              " retry = { max_attempts = 0; backoff_ms = 50; backoff_max_ms = 200; };"
              " circuit = { failures = 3; }; };"
              "live: { type = \"scripted\"; record_file = \"%s\"; };", record);
    cr_assert (start (sinks, "[\"dead\", \"live\"]"));
    put_events ("orders", 0, 10000);
    cr_expect_eq (wait_recorded (10000, 60), 10000, "the live sink got everything");
    char *circuit = sink_text (d.endpoint, "dead", "circuit");
    cr_expect (strcmp (circuit, "open") == 0 || strcmp (circuit, "half-open") == 0, "dead circuit: %s", circuit);
    free (circuit);
    dlq_json_doc_t *stats = sink_stats (d.endpoint);
    int64_t waiting = sink_stats_int (stats, "dead", "backlog") + sink_stats_int (stats, "dead", "retrying");
    dlq_json_doc_destroy (&stats);
    cr_expect_gt (waiting, 9000, "the dead sink's events wait on disk: %lld", (long long) waiting);
    cr_expect_eq (sink_stat (d.endpoint, "dead", "delivered"), 0);
}

Test (sinks, the_backlog_resumes_after_sigkill)
{
    char sinks [1024];
    FILE *f = fopen (down, "w");
    fclose (f);
    snprintf (sinks, sizeof sinks, "rec: { type = \"scripted\"; down_file = \"%s\"; record_file = \"%s\";"
              " retry = { max_attempts = 0; backoff_ms = 20; backoff_max_ms = 50; };"
              " circuit = { failures = 2; }; };", down, record);
    cr_assert (start (sinks, "[\"rec\"]"));
    put_events ("orders", 0, 2000);
    test_dlqd_signal_wait (&d, SIGKILL);
    unlink (down);
    cr_assert (test_dlqd_restart (&d));
    int distinct = 0;
    wait_recorded (2000, 60);
    for (int i = 0; i < 200 && (recorded (&distinct), distinct) < 2000; i++)
        usleep (50 * 1000);
    cr_expect_eq (distinct, 2000, "every event reached the sink after the restart");
    cr_expect_eq (sink_wait_stat (d.endpoint, "rec", "backlog", 0, 10), 0);
    cr_expect_eq (sink_wait_stat (d.endpoint, "rec", "retrying", 0, 10), 0);
}

Test (sinks, a_delivery_cut_by_sigkill_is_redelivered_and_counted)
{
    char sinks [1024];
    snprintf (sinks, sizeof sinks, "slow: { type = \"scripted\"; hang_ms = 300; record_file = \"%s\";"
              " batch = { max_events = 100; }; };", record);
    cr_assert (start (sinks, "[\"slow\"]"));
    put_events ("orders", 0, 1000);
    cr_assert_geq (wait_recorded (100, 30), 100);
    test_dlqd_signal_wait (&d, SIGKILL);
    int before = recorded (NULL);
    /* restart without the hang: same config file, so edit it */
    char *conf = test_read_file (d.config, NULL);
    char *hang = strstr (conf, "hang_ms = 300");
    memcpy (hang, "hang_ms =   0", 13);
    FILE *f = fopen (d.config, "w");
    fputs (conf, f);
    fclose (f);
    free (conf);
    cr_assert (test_dlqd_restart (&d));
    int distinct = 0;
    for (int i = 0; i < 400 && (recorded (&distinct), distinct) < 1000; i++)
        usleep (50 * 1000);
    int lines = recorded (NULL);
    cr_expect_eq (distinct, 1000, "nothing lost");
    /* STATS runs at query_nice: on a machine busy with other suites it can
     * take seconds to be answered, so the wait is generous */
    int64_t backlog = sink_wait_stat (d.endpoint, "slow", "backlog", 0, 30);
    cr_assert_eq (backlog, 0, "the backlog drained after the restart: %lld left", (long long) backlog);
    /* the counter is the ledger's, written behind the deliveries: give it
     * the time to catch up with what the record shows */
    int64_t redelivered = sink_stat (d.endpoint, "slow", "redelivered");
    for (int i = 0; i < 200 && redelivered < lines - distinct; i++) {
        usleep (50 * 1000);
        redelivered = sink_stat (d.endpoint, "slow", "redelivered");
    }
    cr_log_info ("%d recorded before the kill, %d lines after, %lld counted as redelivered",
                 before, lines, (long long) redelivered);
    cr_expect_leq (lines - distinct, redelivered, "every duplicate delivery is counted");
    /* the marker covers the batches that went out: beyond the duplicates,
     * at most the batch the kill cut before the sink recorded it */
    cr_expect_leq (redelivered, lines - distinct + 100, "no more than the batch cut short beside them");
}

Test (sinks, a_query_capable_sink_can_be_the_primary)
{
    char extra [2048];
    snprintf (extra, sizeof extra,
              "sinks: { copy: { type = \"embedded\"; data_dir = \"%s/copy\"; }; };\n"
              "primary = \"copy\";\n"
              "defaults: { retention_days = 0; chain = [\"copy\"]; };\n"
              "streams = ( { name = \"quiet\"; chain = []; } );", d.dir);
    cr_assert (test_dlqd_start (&d, NULL, extra));
    put_events ("orders", 0, 20);
    put_events ("quiet", 100, 1);
    cr_expect_eq (sink_wait_stat (d.endpoint, "copy", "delivered", 20, 20), 20);
    char *got = sink_request (d.endpoint, "GET", "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-000000000004\"}", "OK");
    cr_expect_not_null (strstr (got, "\"streamName\":\"orders\""), "%s", got);
    free (got);
    /* the primary never received the quiet stream (once its dispatcher
     * passed it over: until then GET reads it from the spool) */
    cr_expect_eq (sink_wait_stat (d.endpoint, "copy", "backlog", 0, 20), 0);
    got = sink_request (d.endpoint, "GET", "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-000000000100\"}", "ERR");
    cr_expect_not_null (strstr (got, "NOT_FOUND"), "the primary never received the quiet stream: %s", got);
    free (got);
    got = sink_request (d.endpoint, "LIST", "{\"streamName\":\"orders\",\"limit\":1000}", "OK");
    int listed = 0;
    for (const char *p = got; (p = strstr (p, "\"streamName\":\"orders\"")); p++)
        listed++;
    cr_expect_eq (listed, 20, "%s", got);
    free (got);
    got = sink_request (d.endpoint, "STATS", "", "OK");
    cr_expect_not_null (strstr (got, "\"events\":20,"), "STATS counts the primary's events: %s", got);
    free (got);
}

/* spool.<field> of STATS. */
static int64_t spool_stat (const char *field) { return sink_spool_stat (d.endpoint, field); }

/* Is a PUT of event ...-<n> of stream answered as a duplicate? */
static bool
put_is_duplicate (const char *stream, int n)
{
    char body [256], status [8] = "";
    char *reply = NULL;
    snprintf (body, sizeof body, "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-%012d\",\"streamName\":\"%s\","
              "\"error\":{\"type\":\"T\"}}", n, stream);
    cr_assert (test_request (d.endpoint, "PUT", body, strlen (body), status, &reply));
    cr_assert_str_eq (status, "OK", "%s", reply);
    bool duplicate = strstr (reply, "\"duplicate\":true") != NULL;
    free (reply);
    return duplicate;
}

Test (sinks, a_sink_primary_feeds_no_embedded_store_and_redelivers_what_the_log_let_go)
{
    char extra [2048], path [600];
    FILE *f = fopen (down, "w");
    fclose (f);
    snprintf (extra, sizeof extra,
              "sinks: { copy: { type = \"embedded\"; data_dir = \"%s/copy\"; };"
              " shaky: { type = \"scripted\"; down_file = \"%s\"; record_file = \"%s\";"
              " retry = { backoff_ms = 1; backoff_max_ms = 2; max_attempts = 2; }; circuit = { failures = 1000000; }; }; };\n"
              "primary = \"copy\";\n"
              "defaults: { chain = [\"copy\", \"shaky\"]; };", d.dir, down, record);
    cr_assert (test_dlqd_start (&d, NULL, extra));
    put_events ("orders", 0, 5);
    cr_expect_eq (sink_wait_stat (d.endpoint, "shaky", "failed", 5, 20), 5);
    /* more events until the log has let go of the segment that held the failed ones */
    int n = 5;
    for (int tries = 0; tries < 300 && spool_stat ("begin") <= 1; tries++, n += 20) {
        put_events ("more", 1000 + n, 20);
        usleep (50 * 1000);
    }
    cr_assert_gt (spool_stat ("begin"), 1, "the log never let its first segment go");
    snprintf (path, sizeof path, "%s/dlq.sqlite", d.data_dir);
    cr_expect_neq (access (path, F_OK), 0, "with a sink primary no embedded store is made in data_dir");

    unlink (down);                                      /* the backend is back */
    char *reply = sink_request (d.endpoint, "REDELIVER", "{\"sink\":\"shaky\",\"streamName\":\"orders\"}", "OK");
    cr_expect_str_eq (reply, "{\"sink\":\"shaky\",\"requeued\":5}");
    free (reply);
    int distinct = 0;
    for (int i = 0; i < 400 && (recorded (&distinct), distinct) < 5; i++)
        usleep (50 * 1000);
    cr_expect_eq (distinct, 5, "the failed events were delivered from their ledger rows");

    /* the duplicate check across a restart, from the state file */
    cr_assert (test_dlqd_restart (&d));
    for (int i = 0; i < 5; i++)
        cr_expect (put_is_duplicate ("orders", i), "event %d stored twice after a restart", i);
    cr_expect (put_is_duplicate ("more", 1000 + n - 1));
    cr_expect_not (put_is_duplicate ("orders", 99));
    cr_expect_neq (access (path, F_OK), 0);
}

Test (sinks, a_sink_primary_takes_the_embedded_stores_ids_over_and_leaves_it_as_it_was)
{
    cr_assert (test_dlqd_start (&d, NULL, NULL));       /* the embedded primary */
    put_events ("orders", 0, 30);
    cr_expect_eq (sink_count (d.endpoint, "{\"streamName\":\"orders\"}"), 30);
    test_dlqd_signal_wait (&d, SIGTERM);
    char path [600];
    snprintf (path, sizeof path, "%s/dlq.sqlite", d.data_dir);
    struct stat before;
    cr_assert_eq (stat (path, &before), 0);

    char extra [1024];
    snprintf (extra, sizeof extra, "sinks: { copy: { type = \"embedded\"; data_dir = \"%s/copy\"; }; };\n"
              "primary = \"copy\";\ndefaults: { chain = [\"copy\"]; };", d.dir);
    cr_assert (test_dlqd_start (&d, NULL, extra));
    for (int i = 0; i < 30; i += 7)
        cr_expect (put_is_duplicate ("orders", i), "event %d, stored before, stored again", i);
    put_events ("orders", 100, 20);
    cr_expect_eq (sink_wait_stat (d.endpoint, "copy", "delivered", 50, 20), 50,
                  "a new sink gets what the embedded store held (its archive) and the new events, once each");
    cr_expect_eq (sink_count (d.endpoint, "{\"streamName\":\"orders\"}"), 50, "the primary holds them all");
    cr_assert (test_dlqd_restart (&d));
    cr_expect (put_is_duplicate ("orders", 3), "taken over once: still there after a restart");
    cr_expect (put_is_duplicate ("orders", 110));
    struct stat after;
    cr_assert_eq (stat (path, &after), 0);
    cr_expect_eq (after.st_size, before.st_size, "the embedded store is no longer fed");
    cr_expect_eq (after.st_mtime, before.st_mtime);

    /* a sink added now gets the archive's events, then the log's after them */
    test_dlqd_signal_wait (&d, SIGTERM);
    snprintf (extra, sizeof extra, "sinks: { copy: { type = \"embedded\"; data_dir = \"%s/copy\"; };"
              " late: { type = \"scripted\"; record_file = \"%s\"; }; };\n"
              "primary = \"copy\";\ndefaults: { chain = [\"copy\", \"late\"]; };", d.dir, record);
    cr_assert (test_dlqd_start (&d, NULL, extra));
    put_events ("orders", 200, 5);
    int distinct = 0;
    for (int i = 0; i < 400 && (recorded (&distinct), distinct) < 55; i++)
        usleep (50 * 1000);
    cr_expect_eq (distinct, 55, "the new sink got the 30 archived, the 20 logged since and the 5 new events");
    cr_expect_eq (sink_wait_stat (d.endpoint, "late", "backlog", 0, 10), 0);
}

/* Lines of the record file holding text. */
static int
record_lines_with (const char *text)
{
    char *lines = test_read_file (record, NULL);
    int n = 0;
    for (const char *p = lines; p && (p = strstr (p, text)); p++)
        n++;
    free (lines);
    return n;
}

Test (sinks, a_sink_primarys_expired_id_stays_a_duplicate_until_the_primary_has_swept_it)
{
    char extra [1024], body [512], at [40], status [8];
    FILE *f = fopen (down, "w");
    fclose (f);
    snprintf (extra, sizeof extra, "sinks: { copy: { type = \"scripted_store\"; down_file = \"%s\";"
              " record_file = \"%s\"; }; };\n"
              "primary = \"copy\";\ndefaults: { retention_days = 1; chain = [\"copy\"]; };", down, record);
    cr_assert (test_dlqd_start (&d, "sweep: { interval_ms = 100; };", extra));
    dlq_time_format_iso (dlq_time_now_ms () - 2 * 86400000LL, at);     /* expired when it arrives */
    snprintf (body, sizeof body, "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-000000000777\",\"streamName\":\"old\","
              "\"createdAt\":\"%s\",\"error\":{\"type\":\"T\"}}", at);
    char *reply = NULL;
    cr_assert (test_request (d.endpoint, "PUT", body, strlen (body), status, &reply));
    cr_expect_not_null (strstr (reply, "\"duplicate\":false"), "%s", reply);
    free (reply);
    /* the primary's sweep fails while it is down; the gateway's own sweeps
     * of the ids run at the same interval beside it */
    int failed = record_lines_with ("sweep failed");
    for (int i = 0; i < 200 && record_lines_with ("sweep failed") < failed + 5; i++)
        usleep (50 * 1000);
    cr_assert_geq (record_lines_with ("sweep failed"), failed + 5);
    cr_assert (test_request (d.endpoint, "PUT", body, strlen (body), status, &reply));
    cr_expect_not_null (strstr (reply, "\"duplicate\":true"), "forgotten while the primary may still hold it: %s",
                        reply);
    free (reply);

    unlink (down);                                      /* its sweep catches up: the id goes */
    bool stored = false;
    for (int i = 0; i < 200 && !stored; i++) {
        cr_assert (test_request (d.endpoint, "PUT", body, strlen (body), status, &reply));
        stored = strstr (reply, "\"duplicate\":false") != NULL;
        free (reply);
        if (!stored)
            usleep (50 * 1000);
    }
    cr_expect (stored, "once the primary has swept, a PUT of the id stores it anew");
}
