/*  dlqd_bench_ckpt — checkpoint writes through dlqd against PUTs of small
 *  events, on the embedded store, in the same run.
 *
 *  One process, one dlqd (started from the build tree on a temporary
 *  directory, or the one serving --endpoint):
 *    1. generate every request before any timing: for the checkpoint runs
 *       the tokens ({"_data":"<counter>"}) and timestamps of N writes that
 *       alternate CKPT.SEEN and CKPT.PROCESSED over K streams; for the
 *       PUT runs N small FailedEvents (~150 bytes, fresh UUIDv7 ids for
 *       every run, so that each PUT stores its event and none is a
 *       duplicate);
 *    2. for each client count C of --clients: C threads, each a libdlq
 *       client (its own DEALER socket) keeping --window requests in flight
 *       (dlq_client_ckpt_seen_async / _processed_async, or put_async),
 *       N / C requests each; a checkpoint run, then a PUT run, --repeat
 *       times, alternating; every reply must be OK;
 *    3. the naive way: one client, one blocking request at a time
 *       (dlq_client_ckpt_seen / _processed, dlq_client_put), --naive-ops
 *       requests of each;
 *    4. print, per client count, the median ops/s of each kind, the ack
 *       latency (p50 / p99) of the median run and the ratio ckpt / PUT;
 *       then the naive figures and pipelined / naive.
 *  Every acknowledged write is durable (the committer's group commit).
 *  Exit status: 0 when everything completed, 1 on a failure (an ERR
 *  reply, a timeout, dlqd not exiting 0), 64 on a usage error.
 */
#include "bench_daemon.h"
#include "bench_numbers.h"
#include "dlq_client.h"

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

#ifndef DLQD_BINARY
#define DLQD_BINARY "dlqd"
#endif

#define MAX_CLIENT_COUNTS   8
#define MAX_REPEAT          15
#define READY_TIMEOUT_MS    10000
#define REPLY_TIMEOUT_MS    30000
#define STOP_TIMEOUT_MS     30000
#define TOKEN_SIZE          40
#define STAMP_SIZE          32
#define FIRST_STAMP_MS      INT64_C (1781000000000)

typedef struct {
    size_t      ops;                            /* requests per run */
    int         clients [MAX_CLIENT_COUNTS];
    size_t      client_counts;
    int         window;
    size_t      streams;
    size_t      naive_ops;
    size_t      repeat;
    const char *endpoint;                       /* NULL: start our own dlqd */
    const char *dlqd;
    bool        keep;
} options_t;

typedef enum { KIND_CKPT, KIND_PUT } kind_t;

/* Every request of a run, generated before timing. */
typedef struct {
    size_t   ops;
    size_t   streams;
    char   (*names) [32];               /* streams stream names */
    char   (*tokens) [TOKEN_SIZE];      /* ops tokens */
    char   (*stamps) [STAMP_SIZE];      /* ops timestamps */
    char   **bodies;                    /* ops PUT bodies */
    size_t  *body_lens;
} workload_t;

/* One client thread of a run. */
typedef struct {
    const workload_t  *work;
    kind_t             kind;
    const char        *endpoint;
    void              *zmq_ctx;
    int                window;
    size_t             first, count;    /* its slice of the requests */
    pthread_barrier_t *start;
    uint64_t          *submitted_ns;    /* per request (shared array, own slice) */
    uint64_t          *latency_ns;
    size_t             ok, errors;
    bool               failed;
    char               why [256];
    uint64_t           end_ns;
} client_t;

/* What one run measured. */
typedef struct {
    double ops_per_s;
    double p50_ms, p99_ms;
    bool   failed;
} figures_t;

static uint64_t
mono_ns (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (uint64_t) ts.tv_sec * 1000000000u + (uint64_t) ts.tv_nsec;
}

/* ------------------------------------------------------------------------ */
/* Command line */

static int
usage (FILE *out, int code)
{
    fprintf (out,
        "usage: dlqd_bench_ckpt [options]\n"
        "Measures durable checkpoint writes through dlqd (CKPT.SEEN and\n"
        "CKPT.PROCESSED alternately, pipelined, on the embedded store) against\n"
        "PUTs of small events by the same clients, and against one synchronous\n"
        "request at a time, in the same run.\n"
        "\n"
        "  --ops N           requests per run (default 100000)\n"
        "  --clients LIST    client counts to run, comma-separated (default 1,4,16);\n"
        "                    each client is a thread with its own DEALER socket\n"
        "  --window W        requests in flight per client (default 256)\n"
        "  --streams K       streams the checkpoint writes go to (default 16)\n"
        "  --naive-ops N     requests of the one-at-a-time runs (default 2000; 0\n"
        "                    skips them)\n"
        "  --repeat R        runs of each kind per client count, alternating,\n"
        "                    medians reported (default 3)\n"
        "  --endpoint E      use the dlqd already serving E (its primary must keep\n"
        "                    checkpoints) instead of starting one\n"
        "  --dlqd PATH       dlqd binary to start (default %s)\n"
        "  --keep            keep the temporary directory (config, store, log)\n"
        "  --help            this text\n"
        "\n"
        "Exit status: 0 run completed, 1 failure, 64 usage error.\n", DLQD_BINARY);
    return code;
}

/* "1,4,16" into o->clients. */
static bool
parse_clients (const char *text, options_t *o)
{
    char copy [256];
    snprintf (copy, sizeof copy, "%s", text);
    o->client_counts = 0;
    for (char *save = NULL, *item = strtok_r (copy, ",", &save); item; item = strtok_r (NULL, ",", &save)) {
        size_t n;
        if (o->client_counts == MAX_CLIENT_COUNTS || !bench_parse_count ("dlqd_bench_ckpt", "clients", item, 1, 256, &n))
            return false;
        o->clients [o->client_counts++] = (int) n;
    }
    return o->client_counts > 0;
}

/* Returns -1 to go on, or an exit status. */
static int
parse_options (int argc, char **argv, options_t *o)
{
    static const struct option longs [] = {
        { "ops", required_argument, NULL, 'n' },
        { "clients", required_argument, NULL, 'c' },
        { "window", required_argument, NULL, 'w' },
        { "streams", required_argument, NULL, 's' },
        { "naive-ops", required_argument, NULL, 'N' },
        { "repeat", required_argument, NULL, 'r' },
        { "endpoint", required_argument, NULL, 'e' },
        { "dlqd", required_argument, NULL, 'd' },
        { "keep", no_argument, NULL, 'k' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    *o = (options_t) { .ops = 100000, .clients = { 1, 4, 16 }, .client_counts = 3, .window = 256,
                       .streams = 16, .naive_ops = 2000, .repeat = 3, .dlqd = DLQD_BINARY };
    size_t v;
    int opt;
    while ((opt = getopt_long (argc, argv, "h", longs, NULL)) != -1) {
        bool ok = true;
        switch (opt) {
            case 'n': ok = bench_parse_count ("dlqd_bench_ckpt", "ops", optarg, 2, 100000000, &o->ops); break;
            case 'c': ok = parse_clients (optarg, o); break;
            case 'w': ok = bench_parse_count ("dlqd_bench_ckpt", "window", optarg, 1, 100000, &v); o->window = (int) v; break;
            case 's': ok = bench_parse_count ("dlqd_bench_ckpt", "streams", optarg, 1, 1000000, &o->streams); break;
            case 'N': ok = bench_parse_count ("dlqd_bench_ckpt", "naive-ops", optarg, 0, 100000000, &o->naive_ops); break;
            case 'r': ok = bench_parse_count ("dlqd_bench_ckpt", "repeat", optarg, 1, MAX_REPEAT, &o->repeat); break;
            case 'e': o->endpoint = optarg; break;
            case 'd': o->dlqd = optarg; break;
            case 'k': o->keep = true; break;
            case 'h': return usage (stdout, 0);
            default:  return usage (stderr, 64);
        }
        if (!ok)
            return usage (stderr, 64);
    }
    if (optind < argc) {
        fprintf (stderr, "dlqd_bench_ckpt: unexpected argument '%s'\n", argv [optind]);
        return usage (stderr, 64);
    }
    return -1;
}

/* ------------------------------------------------------------------------ */
/* The workload */

static void
format_stamp (int64_t ms, char out [STAMP_SIZE])
{
    time_t seconds = (time_t) (ms / 1000);
    struct tm tm;
    char text [24];
    gmtime_r (&seconds, &tm);
    strftime (text, sizeof text, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf (out, STAMP_SIZE, "%.19s.%03dZ", text, (int) (ms % 1000));
}

/* The PUT bodies anew, each with a fresh id: every PUT run stores its
 * events (a PUT of an id stored before is a duplicate: no write at all). */
static void
workload_fresh_puts (workload_t *w)
{
    for (size_t i = 0; i < w->ops; i++) {
        char id [DLQ_CLIENT_ID_SIZE];
        dlq_client_uuid_v7 (id);
        free (w->bodies [i]);
        int len = asprintf (&w->bodies [i],
                            "{\"id\":\"%s\",\"streamName\":\"bench.put.%04zu\",\"error\":{\"type\":"
                            "\"java.lang.IllegalStateException\",\"message\":\"boom %zu\"}}", id, i % w->streams, i);
        if (len < 0)
            abort ();
        w->body_lens [i] = (size_t) len;
    }
}

static workload_t *
workload_new (size_t ops, size_t streams)
{
    workload_t *w = calloc (1, sizeof *w);
    w->ops = ops;
    w->streams = streams;
    w->names = calloc (streams, sizeof *w->names);
    w->tokens = calloc (ops, sizeof *w->tokens);
    w->stamps = calloc (ops, sizeof *w->stamps);
    w->bodies = calloc (ops, sizeof *w->bodies);
    w->body_lens = calloc (ops, sizeof *w->body_lens);
    if (!w->names || !w->tokens || !w->stamps || !w->bodies || !w->body_lens)
        abort ();
    for (size_t k = 0; k < streams; k++)
        snprintf (w->names [k], sizeof w->names [k], "bench.ckpt.%04zu", k);
    for (size_t i = 0; i < ops; i++) {
        snprintf (w->tokens [i], TOKEN_SIZE, "{\"_data\":\"%zu\"}", 1000000000 + i);
        format_stamp (FIRST_STAMP_MS + (int64_t) i, w->stamps [i]);
    }
    workload_fresh_puts (w);
    return w;
}

static void
workload_destroy (workload_t **w_p)
{
    workload_t *w = *w_p;
    if (!w)
        return;
    for (size_t i = 0; i < w->ops; i++)
        free (w->bodies [i]);
    free (w->names);
    free (w->tokens);
    free (w->stamps);
    free (w->bodies);
    free (w->body_lens);
    free (w);
    *w_p = NULL;
}

/* Request i's stream: SEEN and PROCESSED of a pair go to the same one. */
static const char *
stream_of (const workload_t *w, size_t i)
{
    return w->names [(i / 2) % w->streams];
}

/* ------------------------------------------------------------------------ */
/* Pipelined clients */

static void
on_completion (const dlq_client_completion_t *completion, void *arg)
{
    client_t *c = arg;
    uint64_t now = mono_ns ();
    c->latency_ns [completion->tag] = now - c->submitted_ns [completion->tag];
    if (completion->result == DLQ_CLIENT_OK) {
        c->ok++;
        return;
    }
    if (c->errors++ == 0)
        snprintf (c->why, sizeof c->why, "%s: %s %s (%s)", completion->verb,
                  *completion->code ? completion->code : dlq_client_result_name (completion->result),
                  completion->message, completion->field);
}

/* Submit request i of the client's kind (waiting for a slot). */
static void
submit (client_t *c, dlq_client_t *client, size_t i)
{
    const workload_t *w = c->work;
    c->submitted_ns [i] = mono_ns ();
    if (c->kind == KIND_PUT)
        dlq_client_put_async (client, w->bodies [i], w->body_lens [i], i);
    else
    if (i % 2 == 0)
        dlq_client_ckpt_seen_async (client, stream_of (w, i), w->tokens [i], w->stamps [i], i);
    else
        dlq_client_ckpt_processed_async (client, stream_of (w, i), w->tokens [i], w->stamps [i], i);
}

/* A client connected, its window set and a PING answered (untimed). */
static dlq_client_t *
client_open (client_t *c)
{
    dlq_client_t *client = dlq_client_new_shared (c->endpoint, c->zmq_ctx);
    if (!client) {
        snprintf (c->why, sizeof c->why, "cannot connect to %s: %s", c->endpoint, strerror (errno));
        return NULL;
    }
    dlq_client_set_timeout (client, REPLY_TIMEOUT_MS);
    dlq_client_set_window (client, (size_t) c->window);
    if (dlq_client_ping (client, NULL) != DLQ_CLIENT_OK) {
        snprintf (c->why, sizeof c->why, "PING: %s", dlq_client_error_message (client));
        dlq_client_destroy (&client);
    }
    return client;
}

static void *
client_run (void *arg)
{
    client_t *c = arg;
    dlq_client_t *client = client_open (c);
    pthread_barrier_wait (c->start);
    if (!client) {
        c->failed = true;
        c->end_ns = mono_ns ();
        return NULL;
    }
    for (size_t i = c->first; i < c->first + c->count; i++) {
        submit (c, client, i);
        dlq_client_poll (client, 0, on_completion, c);
    }
    if (dlq_client_flush (client, -1, on_completion, c) != DLQ_CLIENT_OK || c->ok != c->count)
        c->failed = true;
    c->end_ns = mono_ns ();
    dlq_client_destroy (&client);
    return NULL;
}

static int
compare_u64 (const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return x < y ? -1 : x > y;
}

/* p50 and p99 of n latencies (sorted in place), in ms. */
static void
percentiles (uint64_t *latency_ns, size_t n, double *p50, double *p99)
{
    qsort (latency_ns, n, sizeof *latency_ns, compare_u64);
    *p50 = n ? (double) latency_ns [n / 2] / 1e6 : 0;
    *p99 = n ? (double) latency_ns [n * 99 / 100] / 1e6 : 0;
}

/* Report the first failure of a run's clients on stderr. */
static bool
run_failed (const client_t *c, int clients, kind_t kind)
{
    for (int i = 0; i < clients; i++)
        if (c [i].failed || c [i].errors) {
            fprintf (stderr, "dlqd_bench_ckpt: %s run, client %d: %zu of %zu OK, %zu ERR; %s\n",
                     kind == KIND_PUT ? "PUT" : "checkpoint", i, c [i].ok, c [i].count, c [i].errors,
                     *c [i].why ? c [i].why : "no reply for every request");
            return true;
        }
    return false;
}

/* One timed run: the workload's requests of kind over clients threads. */
static figures_t
run_pipelined (const workload_t *w, kind_t kind, void *ctx, const char *endpoint, int clients, int window)
{
    client_t *c = calloc ((size_t) clients, sizeof *c);
    pthread_t *threads = calloc ((size_t) clients, sizeof *threads);
    uint64_t *submitted = calloc (w->ops, sizeof *submitted), *latency = calloc (w->ops, sizeof *latency);
    pthread_barrier_t start;
    pthread_barrier_init (&start, NULL, (unsigned) clients + 1);
    size_t share = w->ops / (size_t) clients, first = 0;
    for (int i = 0; i < clients; i++) {
        size_t count = share + ((size_t) i < w->ops % (size_t) clients ? 1 : 0);
        c [i] = (client_t) { .work = w, .kind = kind, .endpoint = endpoint, .zmq_ctx = ctx, .window = window,
                             .first = first, .count = count, .start = &start, .submitted_ns = submitted,
                             .latency_ns = latency };
        first += count;
        pthread_create (&threads [i], NULL, client_run, &c [i]);
    }
    pthread_barrier_wait (&start);
    uint64_t began = mono_ns (), ended = began;
    for (int i = 0; i < clients; i++) {
        pthread_join (threads [i], NULL);
        ended = c [i].end_ns > ended ? c [i].end_ns : ended;
    }
    figures_t f = { .failed = run_failed (c, clients, kind) };
    f.ops_per_s = (double) w->ops / ((double) (ended - began) / 1e9);
    percentiles (latency, w->ops, &f.p50_ms, &f.p99_ms);
    pthread_barrier_destroy (&start);
    free (c);
    free (threads);
    free (submitted);
    free (latency);
    return f;
}

/* ------------------------------------------------------------------------ */
/* The naive way: one blocking request at a time */

static dlq_client_result_t
naive_request (dlq_client_t *client, const workload_t *w, kind_t kind, size_t i)
{
    if (kind == KIND_PUT)
        return dlq_client_put (client, w->bodies [i], w->body_lens [i], NULL, NULL);
    if (i % 2 == 0)
        return dlq_client_ckpt_seen (client, stream_of (w, i), w->tokens [i], w->stamps [i], NULL);
    return dlq_client_ckpt_processed (client, stream_of (w, i), w->tokens [i], w->stamps [i], NULL);
}

static figures_t
run_naive (const workload_t *w, kind_t kind, void *ctx, const char *endpoint, size_t ops)
{
    figures_t f = { 0 };
    dlq_client_t *client = dlq_client_new_shared (endpoint, ctx);
    uint64_t *latency = calloc (ops, sizeof *latency);
    dlq_client_set_timeout (client, REPLY_TIMEOUT_MS);
    f.failed = dlq_client_ping (client, NULL) != DLQ_CLIENT_OK;
    uint64_t began = mono_ns ();
    for (size_t i = 0; i < ops && !f.failed; i++) {
        uint64_t sent = mono_ns ();
        f.failed = naive_request (client, w, kind, i) != DLQ_CLIENT_OK;
        latency [i] = mono_ns () - sent;
    }
    if (f.failed)
        fprintf (stderr, "dlqd_bench_ckpt: naive %s run: %s %s\n", kind == KIND_PUT ? "PUT" : "checkpoint",
                 dlq_client_error_code (client), dlq_client_error_message (client));
    f.ops_per_s = (double) ops / ((double) (mono_ns () - began) / 1e9);
    percentiles (latency, ops, &f.p50_ms, &f.p99_ms);
    free (latency);
    dlq_client_destroy (&client);
    return f;
}

/* ------------------------------------------------------------------------ */
/* Reporting */

static int
compare_figures (const void *a, const void *b)
{
    double x = ((const figures_t *) a)->ops_per_s, y = ((const figures_t *) b)->ops_per_s;
    return x < y ? -1 : x > y;
}

/* The run with the median ops/s of n (sorted in place). */
static figures_t
median (figures_t *runs, size_t n)
{
    qsort (runs, n, sizeof *runs, compare_figures);
    return runs [n / 2];
}

static void
print_header (const options_t *o, const char *endpoint, const char *where)
{
    printf ("dlqd_bench_ckpt: dlqd at %s (%s)\n", endpoint, where);
    printf ("  %zu requests per run, window %d per client, %zu streams, medians of %zu alternating runs\n",
            o->ops, o->window, o->streams, o->repeat);
    printf ("  checkpoint runs: CKPT.SEEN and CKPT.PROCESSED alternately; PUT runs: ~150-byte FailedEvents\n\n");
    printf ("%-8s %14s %16s %14s %16s %9s\n", "clients", "ckpt ops/s", "ckpt p50/p99 ms", "PUT ops/s",
            "PUT p50/p99 ms", "ckpt/PUT");
}

static void
print_row (const char *label, const figures_t *ckpt, const figures_t *put)
{
    char ckpt_lat [32], put_lat [32];
    snprintf (ckpt_lat, sizeof ckpt_lat, "%.2f / %.2f", ckpt->p50_ms, ckpt->p99_ms);
    snprintf (put_lat, sizeof put_lat, "%.2f / %.2f", put->p50_ms, put->p99_ms);
    printf ("%-8s %14.0f %16s %14.0f %16s %8.2fx\n", label, ckpt->ops_per_s, ckpt_lat, put->ops_per_s,
            put_lat, put->ops_per_s > 0 ? ckpt->ops_per_s / put->ops_per_s : 0);
    fflush (stdout);
}

/* ------------------------------------------------------------------------ */
/* The runs */

/* Every client count: repeat checkpoint and PUT runs, alternating; the
 * best median checkpoint figure into *best. False on a failure. */
static bool
run_all (const options_t *o, workload_t *w, void *ctx, const char *endpoint, double *best)
{
    figures_t ckpt [MAX_REPEAT], put [MAX_REPEAT];
    *best = 0;
    for (size_t k = 0; k < o->client_counts; k++) {
        for (size_t r = 0; r < o->repeat; r++) {
            ckpt [r] = run_pipelined (w, KIND_CKPT, ctx, endpoint, o->clients [k], o->window);
            if (ckpt [r].failed)
                return false;
            workload_fresh_puts (w);
            put [r] = run_pipelined (w, KIND_PUT, ctx, endpoint, o->clients [k], o->window);
            if (put [r].failed)
                return false;
        }
        figures_t c = median (ckpt, o->repeat), p = median (put, o->repeat);
        char label [16];
        snprintf (label, sizeof label, "%d", o->clients [k]);
        print_row (label, &c, &p);
        *best = c.ops_per_s > *best ? c.ops_per_s : *best;
    }
    return true;
}

static bool
run_naive_pair (const options_t *o, workload_t *w, void *ctx, const char *endpoint, double best)
{
    size_t ops = o->naive_ops < w->ops ? o->naive_ops : w->ops;
    if (ops == 0)
        return true;
    figures_t ckpt = run_naive (w, KIND_CKPT, ctx, endpoint, ops);
    workload_fresh_puts (w);
    figures_t put = run_naive (w, KIND_PUT, ctx, endpoint, ops);
    if (ckpt.failed || put.failed)
        return false;
    printf ("\nnaive: 1 client, 1 request at a time (window 1), %zu requests of each kind\n", ops);
    print_row ("1 x 1", &ckpt, &put);
    printf ("pipelined checkpoint writes (best client count) / naive: %.1fx\n", best / ckpt.ops_per_s);
    return true;
}

/* True when the gateway at endpoint answers and keeps checkpoints (a
 * CKPT.LIST of one); else says why. */
static bool
gateway_ready (void *ctx, const char *endpoint)
{
    dlq_client_t *client = dlq_client_new_shared (endpoint, ctx);
    if (!client) {
        fprintf (stderr, "dlqd_bench_ckpt: cannot use endpoint %s: %s\n", endpoint, strerror (errno));
        return false;
    }
    char *page = NULL;
    dlq_client_set_timeout (client, 5000);
    dlq_client_set_retries (client, 0);
    dlq_client_result_t result = dlq_client_ckpt_list (client, NULL, 1, NULL, &page, NULL);
    if (result != DLQ_CLIENT_OK)
        fprintf (stderr, "dlqd_bench_ckpt: %s: CKPT.LIST: %s %s\n", endpoint,
                 *dlq_client_error_code (client) ? dlq_client_error_code (client) : dlq_client_result_name (result),
                 dlq_client_error_message (client));
    free (page);
    dlq_client_destroy (&client);
    return result == DLQ_CLIENT_OK;
}

/* Run everything against endpoint (a dlqd that is up). */
static bool
measure (const options_t *o, void *ctx, const char *endpoint, const char *where)
{
    if (!gateway_ready (ctx, endpoint))
        return false;
    workload_t *w = workload_new (o->ops, o->streams);
    double best = 0;
    print_header (o, endpoint, where);
    bool ok = run_all (o, w, ctx, endpoint, &best) && run_naive_pair (o, w, ctx, endpoint, best);
    workload_destroy (&w);
    return ok;
}

/* Start our own dlqd in a temporary directory, measure, stop it. */
static bool
measure_own (const options_t *o, void *ctx)
{
    char dir [4096], err [4096], where [4200];
    if (!bench_daemon_temp_dir (dir, sizeof dir, "dlqd-bench-ckpt", "dlqd_bench_ckpt"))
        return false;
    bench_daemon_t daemon = { 0 };
    memset (&daemon, 0, sizeof daemon);
    bool ok = bench_daemon_start (&daemon, ctx, o->dlqd, dir, NULL, READY_TIMEOUT_MS, err, sizeof err);
    if (!ok)
        fprintf (stderr, "dlqd_bench_ckpt: %s\n", err);
    snprintf (where, sizeof where, "started from %s, embedded store in %s", o->dlqd, dir);
    ok = ok && measure (o, ctx, daemon.endpoint, where);
    return bench_daemon_finish (&daemon, dir, o->keep, STOP_TIMEOUT_MS, "dlqd_bench_ckpt") && ok;
}

int
main (int argc, char **argv)
{
    options_t o;
    int status = parse_options (argc, argv, &o);
    if (status >= 0)
        return status;
    void *ctx = zmq_ctx_new ();
    bool ok = o.endpoint ? measure (&o, ctx, o.endpoint, "given with --endpoint") : measure_own (&o, ctx);
    zmq_ctx_term (ctx);
    return ok ? 0 : 1;
}
