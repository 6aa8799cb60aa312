/*  itest_backlog — a backlog behind a dead sink (docs/protocol.md, "Limits"): the
 *  scripted test sink answers RETRY to every event, four pipelining
 *  clients PUT small events, and dlqd's peak RSS (VmHWM) stays under
 *  100 MB while STATS counts the whole backlog for the sink (waiting,
 *  retrying or failed; none delivered):
 *    - 1,000,000 events, the sink's default retry and circuit (which opens
 *      after 5 failed batches: a probe now and then);
 *    - 200,000 events, the sink retrying every event forever 1 ms after
 *      each attempt and its circuit never opening: the dispatcher then
 *      turns out a batch of outcomes per millisecond, which must wait for
 *      the indexer's commits (dispatcher.c: rows of at most 4 batches in
 *      flight) instead of queueing without bound (862 MiB and PUTs
 *      unanswered for a minute before that bound).
 *  Its label is "resource": it runs in the optimised build only (under
 *  AddressSanitizer RSS is the sanitizer's, and a million PUTs take
 *  minutes).
 */
#include "dlq_json.h"
#include "proc_support.h"
#include "test_support.h"
#include "zmtp_pipeline.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

enum { CLIENTS = 4, WINDOW = 512 };

/* 1M events (1.4 GB of JSON) behind a dead sink: the bound, 100 MB.
 * 100.4-103.2 MiB at peak before the id index grew a 16th at a time (its
 * whole table growing by half at 1M ids, old and new alive: +13 MiB for a
 * moment); 88.9-91.3 MiB after it, on 2026-12-04 on this machine. Of the
 * rest, the id index is 20 MB and SQLite's writer cache up to 32 MiB; the
 * batches in flight and glibc's arenas do not grow with the backlog. */
#define RSS_MAX_MIB (100e6 / (1024.0 * 1024.0))

static test_dlqd_t d;

static void stop (void) { test_dlqd_cleanup (&d); }

TestSuite (backlog, .fini = stop, .timeout = 900);

static int64_t
mono_ms (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A small event of its own: ~110 bytes. */
static char *
small_event (void *arg, int64_t n, size_t *len)
{
    (void) arg;
    char *body = malloc (160);
    *len = (size_t) snprintf (body, 160, "{\"streamName\":\"backlog-%lld\",\"error\":{\"type\":\"T\","
                              "\"message\":\"event %lld failed\"}}", (long long) (n % 8), (long long) n);
    return body;
}

/* STATS, parsed (destroy it). */
static dlq_json_doc_t *
stats (void)
{
    char status [8];
    char *reply = NULL;
    cr_assert (test_request (d.endpoint, "STATS", "", 0, status, &reply), "no reply to STATS");
    cr_assert_str_eq (status, "OK", "STATS: %s", reply);
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (reply, strlen (reply), &doc, NULL), DLQ_JSON_OK);
    free (reply);
    return doc;
}

static int64_t
number (const dlq_json_value_t *obj, const char *key)
{
    int64_t n = -1;
    const dlq_json_value_t *v = dlq_json_get (obj, key);
    cr_assert (v && dlq_json_as_int64 (v, &n), "STATS has no number %s", key);
    return n;
}

/* Start dlqd with sink "dead" (sink_settings inside its group) in every
 * chain, PUT events through CLIENTS pipelines, check the bound and STATS. */
static void
run_backlog (const char *sink_settings, int events, const char *what)
{
    char extra [512];
    snprintf (extra, sizeof extra, "sinks: { dead: { type = \"scripted\"; down = true; %s }; };"
              "defaults: { chain = [ \"dead\" ]; };", sink_settings);
    memset (&d, 0, sizeof d);
    cr_assert (test_dlqd_start (&d, NULL, extra), "dlqd did not start");
    double before = proc_rss_mib (d.pid);
    int64_t t0 = mono_ms ();
    zmtp_pipeline_t *clients [CLIENTS];
    for (int i = 0; i < CLIENTS; i++) {
        clients [i] = zmtp_pipeline_start (d.port, "PUT", (int64_t) i * (events / CLIENTS), events / CLIENTS, WINDOW,
                                           small_event, NULL);
        cr_assert_not_null (clients [i]);
    }
    int64_t ok = 0;
    for (int i = 0; i < CLIENTS; i++) {
        int64_t client_ok = 0, client_err = 0;
        cr_expect (zmtp_pipeline_finish (&clients [i], &client_ok, &client_err), "client %d was not answered", i);
        ok += client_ok;
    }
    int64_t ms = mono_ms () - t0;
    /* the store indexes behind the acks: STATS counts every event once it has */
    dlq_json_doc_t *doc = stats ();
    for (int64_t deadline = mono_ms () + 120000;
         number (dlq_json_get (dlq_json_root (doc), "spool"), "indexLagEvents") > 0 && mono_ms () < deadline; ) {
        dlq_json_doc_destroy (&doc);
        usleep (100 * 1000);
        doc = stats ();
    }
    const dlq_json_value_t *root = dlq_json_root (doc);
    const dlq_json_value_t *sink = dlq_json_get (dlq_json_get (root, "sinks"), "dead");
    cr_assert_not_null (sink, "STATS has no sink dead");
    int64_t stored = number (root, "events"), backlog = number (sink, "backlog");
    int64_t retrying = number (sink, "retrying"), failed = number (sink, "failed");
    int64_t delivered = number (sink, "delivered");
    double peak = proc_peak_mib (d.pid), now = proc_rss_mib (d.pid);
    fprintf (stderr, "backlog, %s: %lld events acknowledged in %lld ms (%.0f/s): backlog %lld, retrying %lld, "
             "failed %lld, delivered %lld; RSS %.1f MiB before, %.1f after, peak %.1f (bound %.0f)\n", what,
             (long long) ok, (long long) ms, ok * 1000.0 / (double) (ms ? ms : 1), (long long) backlog,
             (long long) retrying, (long long) failed, (long long) delivered, before, now, peak, RSS_MAX_MIB);
    cr_expect_eq (ok, events, "not every PUT was acknowledged");
    cr_expect_eq (stored, events);
    cr_expect_eq (backlog + retrying + failed, events, "STATS does not count the whole backlog");
    cr_expect_eq (delivered, 0);
    cr_expect_leq (peak, RSS_MAX_MIB, "peak RSS %.1f MiB behind a dead sink", peak);
    dlq_json_doc_destroy (&doc);
}

Test (backlog, million_events_behind_a_dead_sink)
{
    run_backlog ("", 1000000, "1M events, default retry");
}

Test (backlog, a_sink_retrying_everything_at_once)
{
    run_backlog ("retry = { max_attempts = 0; backoff_ms = 1; backoff_max_ms = 1; }; "
                 "circuit = { failures = 1000000; };", 200000, "200k events, retry every 1 ms, no circuit");
}
