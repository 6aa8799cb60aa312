/*  bench_chain — no chain vs. a chain of two noop sinks, run alternately.
 *
 *  Each run: mkdir <dir>/<kind>-<n>, start dlqd there (with or without the
 *  sinks and the default chain), PUT every event, then (chain) poll STATS
 *  until both sinks' backlog is 0, check the store holds the events and the
 *  sinks delivered them all, stop dlqd (exit status 0), remove the run's
 *  directory and sync, so the next run starts on a settled disk.
 */
#include "bench_chain.h"

#include "bench_daemon.h"
#include "bench_gateway.h"
#include "dlq_alloc.h"
#include "dlq_json.h"
#include "dlq_time.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#define SINKS               2
#define POLL_MS             10
#define DRAIN_TIMEOUT_MS    60000
#define ERR_LEN             4096

static const char *const sink_names [SINKS] = { "a", "b" };

static const char chain_config [] =
    "sinks: { a: { type = \"noop\"; }; b: { type = \"noop\"; }; };\n"
    "defaults: { chain = [\"a\", \"b\"]; };";

/* What STATS says: the store's events and each sink's ledger figures. */
typedef struct {
    long long events;
    long long backlog [SINKS];
    long long delivered [SINKS];
    long long retrying [SINKS];
    long long failed [SINKS];
} stats_t;

typedef struct {
    bool      chain;
    size_t    number;               /* 1-based, per kind; 0 for the warm-up */
    double    eps;
    double    seconds;
    double    p50_ms, p99_ms;
    double    drained_ms;           /* chain: last ack -> both backlogs 0 */
    long long backlog_at_ack [SINKS];
    stats_t   final;
    bool      failed;
} run_t;


/* ------------------------------------------------------------------------ */
/* STATS */

static bool
member_int (const dlq_json_value_t *obj, const char *key, long long *out)
{
    int64_t v = 0;
    if (!dlq_json_as_int64 (dlq_json_get (obj, key), &v))
        return false;
    *out = (long long) v;
    return true;
}

/* Parse a STATS body; with_sinks also wants sinks a and b. */
static bool
parse_stats (const char *body, bool with_sinks, stats_t *s, char *err, size_t err_len)
{
    dlq_json_doc_t *doc = NULL;
    if (dlq_json_parse (body, strlen (body), &doc, NULL) != DLQ_JSON_OK) {
        snprintf (err, err_len, "STATS reply is not JSON: %.200s", body);
        return false;
    }
    const dlq_json_value_t *root = dlq_json_root (doc);
    const dlq_json_value_t *sinks = dlq_json_get (root, "sinks");
    bool ok = member_int (root, "events", &s->events);
    for (int i = 0; ok && with_sinks && i < SINKS; i++) {
        const dlq_json_value_t *sink = dlq_json_get (sinks, sink_names [i]);
        ok = member_int (sink, "backlog", &s->backlog [i])
          && member_int (sink, "delivered", &s->delivered [i])
          && member_int (sink, "retrying", &s->retrying [i])
          && member_int (sink, "failed", &s->failed [i]);
    }
    if (!ok)
        snprintf (err, err_len, "STATS reply without the expected figures%s: %.300s",
                  with_sinks ? " (events, sinks a and b)" : " (events)", body);
    dlq_json_doc_destroy (&doc);
    return ok;
}

static bool
get_stats (void *sock, bool with_sinks, stats_t *s, char *err, size_t err_len)
{
    bool ok = false;
    char *body = bench_gateway_stats (sock, &ok, err, err_len);
    if (!body)
        return false;
    bool parsed = ok && parse_stats (body, with_sinks, s, err, err_len);
    if (!ok)
        snprintf (err, err_len, "STATS failed: %.300s", body);
    free (body);
    return parsed;
}

static void
sleep_until_ns (int64_t when)
{
    int64_t left = when - dlq_time_mono_ns ();
    if (left <= 0)
        return;
    struct timespec ts = { (time_t) (left / 1000000000), (long) (left % 1000000000) };
    while (nanosleep (&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* Poll STATS every POLL_MS from the last ack until both backlogs are 0. */
static bool
wait_drained (void *sock, int64_t last_ack_ns, run_t *r, char *err, size_t err_len)
{
    int64_t next = dlq_time_mono_ns ();
    for (bool first = true; ; first = false) {
        stats_t s;
        if (!get_stats (sock, true, &s, err, err_len))
            return false;
        int64_t now = dlq_time_mono_ns ();
        if (first)
            memcpy (r->backlog_at_ack, s.backlog, sizeof s.backlog);
        bool drained = true;
        for (int i = 0; i < SINKS; i++)
            drained &= s.backlog [i] == 0;
        if (drained) {
            r->drained_ms = (double) (now - last_ack_ns) / 1e6;
            return true;
        }
        if (now - last_ack_ns > (int64_t) DRAIN_TIMEOUT_MS * 1000000) {
            snprintf (err, err_len, "the sinks did not drain within %d ms of the last ack"
                      " (backlog a %lld, b %lld)", DRAIN_TIMEOUT_MS, s.backlog [0], s.backlog [1]);
            return false;
        }
        next += (int64_t) POLL_MS * 1000000;
        sleep_until_ns (next);
    }
}

/* Poll STATS until the store has indexed every event acknowledged
 * (spool.indexLagEvents 0): STATS counts what the store holds, which
 * trails the acks by the indexing lag. */
static bool
wait_indexed (void *sock, char *err, size_t err_len)
{
    int64_t deadline = dlq_time_mono_ns () + (int64_t) DRAIN_TIMEOUT_MS * 1000000;
    for (;;) {
        bool ok = false;
        char *body = bench_gateway_stats (sock, &ok, err, err_len);
        if (!body)
            return false;
        dlq_json_doc_t *doc = NULL;
        long long lag = -1;
        if (ok && dlq_json_parse (body, strlen (body), &doc, NULL) == DLQ_JSON_OK)
            member_int (dlq_json_get (dlq_json_root (doc), "spool"), "indexLagEvents", &lag);
        dlq_json_doc_destroy (&doc);
        if (lag < 0)
            snprintf (err, err_len, "STATS without spool.indexLagEvents: %.300s", body);
        free (body);
        if (lag <= 0)
            return lag == 0;
        if (dlq_time_mono_ns () > deadline) {
            snprintf (err, err_len, "the store did not index every event within %d ms (%lld behind)",
                      DRAIN_TIMEOUT_MS, lag);
            return false;
        }
        sleep_until_ns (dlq_time_mono_ns () + (int64_t) POLL_MS * 1000000);
    }
}

/* The store holds every event; a chain's sinks delivered every one. */
static bool
check_final (void *sock, size_t expected, run_t *r, char *err, size_t err_len)
{
    if (!get_stats (sock, r->chain, &r->final, err, err_len))
        return false;
    const stats_t *s = &r->final;
    if (s->events != (long long) expected) {
        snprintf (err, err_len, "dlqd stores %lld events, expected %zu", s->events, expected);
        return false;
    }
    for (int i = 0; r->chain && i < SINKS; i++) {
        if (s->delivered [i] != (long long) expected || s->failed [i] || s->retrying [i]) {
            snprintf (err, err_len, "sink %s: delivered %lld, retrying %lld, failed %lld;"
                      " expected %zu delivered", sink_names [i], s->delivered [i],
                      s->retrying [i], s->failed [i], expected);
            return false;
        }
    }
    return true;
}


/* ------------------------------------------------------------------------ */
/* One run */

static void
fail_run (run_t *r, const char *err)
{
    if (r->number == 0)
        fprintf (stderr, "dlqd_bench: warm-up run: %s\n", err);
    else
        fprintf (stderr, "dlqd_bench: %s run %zu: %s\n", r->chain ? "chain" : "no-chain",
                 r->number, err);
    r->failed = true;
}

/* Load, drain (chain), checks; the daemon is running on endpoint. The
 * STATS socket is connected (one STATS answered) before the load starts,
 * and the drain is polled before anything else is done after the load
 * (the latency figures come after it: sorting them takes a while). */
static void
measure (const bench_chain_options_t *o, void *ctx, const char *endpoint,
         const bench_events_t *ev, run_t *r)
{
    char err [ERR_LEN] = "";
    void *sock = bench_gateway_connect (ctx, endpoint);
    stats_t before;
    if (!sock || !get_stats (sock, r->chain, &before, err, sizeof err)) {
        fail_run (r, sock ? err : "cannot connect for STATS");
        if (sock)
            zmq_close (sock);
        return;
    }
    bench_gateway_result_t g;
    bool complete = bench_gateway_run (ctx, endpoint, ev, o->clients, o->window,
                                       o->reply_timeout_ms, &g);
    if (!complete || g.errors) {
        snprintf (err, sizeof err, "%s%s%zu ERR replies (first: %s)", complete ? "" : g.failure,
                  complete ? "" : "; ", g.errors, g.first_err);
        fail_run (r, err);
    }
    if (!r->failed && r->chain && !wait_drained (sock, g.end_ns, r, err, sizeof err))
        fail_run (r, err);
    if (!r->failed && !(wait_indexed (sock, err, sizeof err) && check_final (sock, ev->count, r, err, sizeof err)))
        fail_run (r, err);
    zmq_close (sock);
    bench_gateway_figures (&g, ev->count, &r->eps, &r->p50_ms, &r->p99_ms, &r->seconds);
}

static void
one_run (const bench_chain_options_t *o, const char *dir, const bench_events_t *ev, run_t *r)
{
    char path [4096], err [ERR_LEN];
    const char *kind = r->number == 0 ? "warmup" : r->chain ? "chain" : "nochain";
    snprintf (path, sizeof path, "%s/%s-%zu", dir, kind, r->number);
    if (mkdir (path, 0700) != 0) {
        snprintf (err, sizeof err, "cannot create %.3000s: %s", path, strerror (errno));
        fail_run (r, err);
        return;
    }
    void *ctx = zmq_ctx_new ();
    bench_daemon_t daemon = { 0 };
    if (!bench_daemon_start (&daemon, ctx, o->dlqd, path, r->chain ? chain_config : NULL,
                             o->ready_ms, err, sizeof err))
        fail_run (r, err);
    else {
        measure (o, ctx, daemon.endpoint, ev, r);
        double stop_s;
        if (!bench_daemon_stop (&daemon, o->stop_ms, &stop_s, err, sizeof err))
            fail_run (r, err);
    }
    zmq_ctx_term (ctx);
    if (!o->keep)
        bench_remove_tree (path);
    sync ();
}


/* ------------------------------------------------------------------------ */
/* Report */

static void
print_run (const run_t *r)
{
    char label [48];
    if (r->number == 0)
        snprintf (label, sizeof label, "  warm-up");
    else
        snprintf (label, sizeof label, "  %s #%zu", r->chain ? "chain a,b" : "no chain", r->number);
    if (r->failed && r->eps == 0) {
        printf ("%-16s: FAILED (see above)\n", label);
        return;
    }
    printf ("%-16s: %7.0f events/s  (p50 %.1f ms, p99 %.1f ms; %.2f s)%s\n", label, r->eps,
            r->p50_ms, r->p99_ms, r->seconds,
            r->failed ? "  FAILED" : r->number == 0 ? "  no sinks, not counted" : "");
    if (r->chain && !r->failed)
        printf ("                  sinks drained %.0f ms after the last ack (backlog a %lld,"
                " b %lld at the first poll); delivered a %lld, b %lld\n", r->drained_ms,
                r->backlog_at_ack [0], r->backlog_at_ack [1],
                r->final.delivered [0], r->final.delivered [1]);
}

static int
compare_double (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

/* Median of field (at offset) over the completed runs of one kind; *max
 * the largest; 0 when there are none. */
static double
median_of (const run_t *runs, size_t count, bool chain, size_t offset, double *max)
{
    double *values = dlq_calloc (count ? count : 1, sizeof *values), median = 0;
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        if (runs [i].chain == chain && !runs [i].failed)
            memcpy (&values [n++], (const char *) &runs [i] + offset, sizeof (double));
    if (n) {
        qsort (values, n, sizeof *values, compare_double);
        median = n % 2 ? values [n / 2] : (values [n / 2 - 1] + values [n / 2]) / 2;
        if (max)
            *max = values [n - 1];
    }
    free (values);
    return median;
}

static void
summarise (const bench_chain_options_t *o, const run_t *runs, size_t count, size_t events,
           bench_chain_result_t *out)
{
    double max_drain = 0;
    out->plain_eps = median_of (runs, count, false, offsetof (run_t, eps), NULL);
    out->chain_eps = median_of (runs, count, true, offsetof (run_t, eps), NULL);
    out->drained_ms = median_of (runs, count, true, offsetof (run_t, drained_ms), &max_drain);
    out->cost_pct = out->plain_eps > 0 ? 100.0 * (1.0 - out->chain_eps / out->plain_eps) : 0;
    printf ("no chain        : %7.0f events/s  (median of %zu)\n", out->plain_eps, o->repeat);
    printf ("chain a,b       : %7.0f events/s  (median of %zu)\n", out->chain_eps, o->repeat);
    if (out->failed) {
        printf ("chain cost      : n/a (a run failed)\n");
        return;
    }
    printf ("chain drain     : sinks drained %.0f ms after the last ack (median; max %.0f ms);"
            " a and b delivered all %zu events in every run\n", out->drained_ms, max_drain, events);
    printf ("chain cost      : %.1f%%  (target <= %.0f%%: %s)\n", out->cost_pct,
            BENCH_CHAIN_TARGET_COST, out->cost_pct <= BENCH_CHAIN_TARGET_COST ? "met" : "MISSED");
}

bool
bench_chain_run (const bench_chain_options_t *o, const char *dir, const bench_events_t *ev,
                 bench_chain_result_t *out)
{
    memset (out, 0, sizeof *out);
    size_t count = o->repeat * 2;
    run_t *runs = dlq_calloc (count, sizeof *runs);
    printf ("chain           : no sinks vs 2 noop sinks chained [\"a\", \"b\"]; %zu run%s each"
            " after a warm-up, alternating, fresh data dir per run\n",
            o->repeat, o->repeat == 1 ? "" : "s");
    sync ();                    /* what earlier phases left to write back */
    /* Not counted: the first run on a quiet disk is faster than one that
     * follows a run, and one right after the SQLite phases slower; after
     * the warm-up, every counted run follows a run of the same size. */
    run_t warm_up = { .chain = false, .number = 0 };
    one_run (o, dir, ev, &warm_up);
    print_run (&warm_up);
    out->failed |= warm_up.failed;
    for (size_t i = 0; !out->failed && i < count; i++) {
        /* pairs alternate which kind goes first: plain chain, chain plain, ... */
        size_t pair = i / 2;
        bool chain_first = pair % 2 == 1;
        runs [i].chain = (i % 2 == 0) == chain_first;
        runs [i].number = pair + 1;
        one_run (o, dir, ev, &runs [i]);
        print_run (&runs [i]);
        out->failed |= runs [i].failed;
    }
    summarise (o, runs, count, ev->count, out);
    free (runs);
    return !out->failed;
}
