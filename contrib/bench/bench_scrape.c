/*  bench_scrape — ingest with and without a 1 Hz scraper of /metrics, in
 *  alternation on fresh dlqds (see the header).
 */
#include "bench_scrape.h"

#include "bench_daemon.h"
#include "bench_gateway.h"
#include "bench_http.h"
#include "bench_numbers.h"
#include "dlq_alloc.h"
#include "dlq_time.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#define ERR_LEN 4096
#define SCRAPE_MAX_BYTES (4 << 20)

typedef struct {
    bool   scraped;
    size_t number;                  /* 1-based per kind; 0: the warm-up */
    double eps, p50_ms, p99_ms, seconds;
    size_t scrapes, bad_scrapes;
    double slowest_ms;
    bool   failed;
} run_t;

typedef struct {
    int          port;
    atomic_bool  stop;
    size_t       scrapes, bad;
    double       slowest_ms;
} scraper_t;

/* One GET /metrics: true when it answered 200 with the accepted counter. */
static bool
scrape_once (int port)
{
    int status = 0;
    char *body = NULL;
    bool ok = bench_http_get (port, "/metrics", SCRAPE_MAX_BYTES, &status, &body) && status == 200
              && strstr (body, "\ndlqd_events_accepted_total ") != NULL;
    free (body);
    return ok;
}

static void *
scrape_loop (void *arg)
{
    scraper_t *sc = arg;
    while (!atomic_load (&sc->stop)) {
        int64_t start = dlq_time_mono_ns ();
        bool ok = scrape_once (sc->port);
        double ms = (double) (dlq_time_mono_ns () - start) / 1e6;
        sc->scrapes++;
        sc->bad += !ok;
        sc->slowest_ms = ms > sc->slowest_ms ? ms : sc->slowest_ms;
        for (int waited = 0; waited < BENCH_SCRAPE_PERIOD_MS && !atomic_load (&sc->stop); waited += 10)
            usleep (10 * 1000);
    }
    return NULL;
}

static void
one_run (const bench_scrape_options_t *o, const char *dir, const bench_events_t *ev, run_t *r)
{
    char path [4096], err [ERR_LEN] = "", extra [128];
    snprintf (path, sizeof path, "%s/%s-%zu", dir, r->scraped ? "scraped" : "quiet", r->number);
    int port = bench_http_free_port ();
    snprintf (extra, sizeof extra, "http: { listen = [\"127.0.0.1:%d\"]; };", port);
    if (port < 0 || mkdir (path, 0700) != 0) {
        fprintf (stderr, "dlqd_bench: scrape run: %s\n", port < 0 ? "no free port" : strerror (errno));
        r->failed = true;
        return;
    }
    void *ctx = zmq_ctx_new ();
    bench_daemon_t daemon = { 0 };
    if (!bench_daemon_start (&daemon, ctx, o->dlqd, path, extra, o->ready_ms, err, sizeof err))
        r->failed = true;
    else {
        scraper_t sc = { .port = port };
        pthread_t thread;
        bool scraping = r->scraped && pthread_create (&thread, NULL, scrape_loop, &sc) == 0;
        bench_gateway_result_t g;
        bool complete = bench_gateway_run (ctx, daemon.endpoint, ev, o->clients, o->window, o->reply_timeout_ms, &g);
        if (scraping) {
            atomic_store (&sc.stop, true);
            pthread_join (thread, NULL);
        }
        if (!complete || g.errors) {
            snprintf (err, sizeof err, "%s %zu ERR replies (first: %s)", complete ? "" : g.failure, g.errors,
                      g.first_err);
            r->failed = true;
        }
        if (r->scraped && (!scraping || sc.bad || sc.scrapes == 0)) {
            snprintf (err + strlen (err), sizeof err - strlen (err), " %zu of %zu scrapes failed", sc.bad, sc.scrapes);
            r->failed = true;
        }
        r->scrapes = sc.scrapes;
        r->bad_scrapes = sc.bad;
        r->slowest_ms = sc.slowest_ms;
        double stop_s;
        bench_gateway_figures (&g, ev->count, &r->eps, &r->p50_ms, &r->p99_ms, &r->seconds);
        if (!bench_daemon_stop (&daemon, o->stop_ms, &stop_s, err + strlen (err), sizeof err - strlen (err)))
            r->failed = true;
    }
    if (r->failed)
        fprintf (stderr, "dlqd_bench: %s run %zu: %s\n", r->scraped ? "scraped" : "quiet", r->number, err);
    zmq_ctx_term (ctx);
    if (!o->keep)
        bench_remove_tree (path);
    sync ();
}

static double
median_eps (const run_t *runs, size_t count, bool scraped)
{
    double *values = dlq_calloc (count ? count : 1, sizeof *values);
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        if (runs [i].scraped == scraped && runs [i].number && !runs [i].failed)
            values [n++] = runs [i].eps;
    double m = bench_median (values, n);
    free (values);
    return m;
}

/* The median over the pairs (quiet #n, scraped #n), which ran back to
 * back, of 100 * (1 - scraped / quiet): less of the machine's drift than
 * the medians of each kind. */
static double
pair_cost (const run_t *runs, size_t count)
{
    double *costs = dlq_calloc (count ? count : 1, sizeof *costs);
    size_t n = 0;
    for (size_t i = 1; i + 1 < count; i += 2)
        if (!runs [i].failed && !runs [i + 1].failed) {
            const run_t *q = runs [i].scraped ? &runs [i + 1] : &runs [i];
            const run_t *s = runs [i].scraped ? &runs [i] : &runs [i + 1];
            if (q->eps > 0)
                costs [n++] = 100 * (1 - s->eps / q->eps);
        }
    double m = bench_median (costs, n);
    free (costs);
    return m;
}

bool
bench_scrape_run (const bench_scrape_options_t *o, const char *dir, const bench_events_t *ev)
{
    size_t total = 1 + 2 * o->repeat;
    run_t *runs = dlq_calloc (total, sizeof *runs);
    printf ("\nPrometheus scrapes: %zu events, %d clients x %d in flight, %zu runs of each, alternating\n",
            ev->count, o->clients, o->window, o->repeat);
    bool ok = true;
    for (size_t i = 0; i < total && ok; i++) {
        run_t *r = &runs [i];
        r->number = i == 0 ? 0 : (i + 1) / 2;
        r->scraped = i > 0 && (i % 2 == 0) == (r->number % 2 == 0);     /* alternate who goes first */
        one_run (o, dir, ev, r);
        ok = !r->failed;
        printf ("  %-8s #%zu: %7.0f events/s  (p50 %.1f ms, p99 %.1f ms; %.2f s)", r->scraped ? "scraped" : "quiet",
                r->number, r->eps, r->p50_ms, r->p99_ms, r->seconds);
        if (r->scraped)
            printf ("  %zu scrapes, slowest %.1f ms", r->scrapes, r->slowest_ms);
        printf ("%s\n", r->failed ? "  FAILED" : r->number == 0 ? "  warm-up, not counted" : "");
    }
    double quiet = median_eps (runs, total, false), scraped = median_eps (runs, total, true);
    double cost = quiet > 0 ? 100 * (1 - scraped / quiet) : 0, paired = pair_cost (runs, total);
    printf ("  median: quiet %.0f, scraped at 1 Hz %.0f events/s: %.1f%% apart\n", quiet, scraped, cost);
    printf ("  median of the %zu pairs' costs (run #n scraped against run #n quiet, next to each other): %.1f%% "
            "(target within %.0f%%: %s)\n", o->repeat, paired, BENCH_SCRAPE_TARGET,
            paired <= BENCH_SCRAPE_TARGET && paired >= -BENCH_SCRAPE_TARGET ? "met" : "MISSED");
    free (runs);
    return ok;
}
