/*  dlqd_bench — durable ingest throughput of dlqd against plain SQLite.
 *
 *  One run, one process, same machine, same events:
 *    1. generate N realistic FailedEvents (before any timing);
 *    2. start a private dlqd (or use --endpoint) and PUT all N through C
 *       pipelining DEALER clients, every ack meaning "fsync'd";
 *    3. insert the same rows into fresh SQLite databases with the store's
 *       schema and pragmas: one transaction per event (the naive way, on
 *       the first --naive-events rows) and 1000 rows per transaction;
 *    4. print events/s, ack latency and the ratios gateway/naive (target
 *       >= 30x) and gateway/raw-batched (target >= 3x), and the time from
 *       the first PUT until every event is queryable (the embedded store
 *       indexes the spool behind the acks) against the raw batched loop's
 *       (target <= 1.25x);
 *    5. what a sink chain costs ingest (bench_chain.h): fresh dlqds without
 *       sinks and with a chain of two noop sinks, --repeat runs of each,
 *       alternating, after an uncounted warm-up run; medians, the cost
 *       (target <= 15%), the sinks' drain time after the last ack and
 *       their delivered counts.
 *    6. with --postgres CONNINFO, the postgres sink against PostgreSQL used
 *       directly (bench_postgres.h): events/s delivered by a postgres sink
 *       (while dlqd ingests, and draining a stored backlog after a restart)
 *       vs. a raw COPY of the same rows vs. one INSERT + commit per event.
 *    7. with --amqp URL, the amqp sink against RabbitMQ used directly
 *       (bench_amqp.h): events/s delivered by an amqp sink draining a
 *       stored backlog vs. a raw rabbitmq-c publisher with the same window
 *       of confirms and the same messages vs. one confirm per publish.
 *    8. with --kafka, the kafka sink against librdkafka used directly
 *       (bench_kafka.h), both on a mock cluster of 3 brokers this process
 *       runs: events/s delivered by a kafka sink draining a stored backlog
 *       vs. a raw idempotent producer of the same records.
 *    9. with --mongo [URI], the mongo sink against MongoDB used directly
 *       (bench_mongo.h), on the MongoDB test server this process runs (or
 *       the MongoDB at URI): events/s delivered by a mongo sink draining a
 *       stored backlog vs. raw mongoc unordered bulk inserts of the same
 *       documents and index entries.
 *   10. with --curve, what CURVE and authorization cost ingest (bench_curve.h):
 *       fresh dlqds without security, with CURVE and one key, and with
 *       CURVE and 1,000 keys and patterns.
 *   11. with --scrape, what a Prometheus scrape of /metrics once a second
 *       costs ingest (bench_scrape.h): fresh dlqds with an HTTP listener,
 *       scraped and not.
 *  --chain-only runs step 5 alone (after step 1); --postgres-only step 6,
 *  --amqp-only step 7, --kafka-only step 8, --mongo-only step 9, --curve-only step 10, --scrape-only step 11 (together:
 *  each of those); --paced-only runs step (g), the paced latency, alone.
 *  Exit status: 0 when everything completed (targets are reported, not
 *  enforced), 1 on a failure (ERR replies, timeouts, dlqd not exiting 0,
 *  SQLite errors), 64 on a usage error.
 */
#include "bench_ceiling.h"
#include "bench_chain.h"
#include "bench_curve.h"
#include "bench_scrape.h"
#include "bench_daemon.h"
#include "bench_events.h"
#include "bench_gateway.h"
#include "bench_sqlite.h"
#ifdef DLQD_BENCH_POSTGRES
#include "bench_postgres.h"
#endif
#ifdef DLQD_BENCH_AMQP
#include "bench_amqp.h"
#endif
#ifdef DLQD_BENCH_KAFKA
#include "bench_kafka.h"
#endif
#ifdef DLQD_BENCH_MONGO
#include "bench_mongo.h"
#endif

#include <errno.h>
#include <getopt.h>
#include <sys/stat.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#ifndef DLQD_BINARY
#define DLQD_BINARY "dlqd"
#endif

#define BATCH_ROWS          1000
#define READY_TIMEOUT_MS    10000
#define REPLY_TIMEOUT_MS    30000
#define STOP_TIMEOUT_MS     30000
#define TARGET_NAIVE        30.0
#define TARGET_BATCHED      3.0
#define TARGET_QUERYABLE    1.25    /* first PUT to all queryable, against the raw batched loop */
#define TARGET_CEILING      0.35    /* durable acks against the transport ceiling (aim: 0.50) */
#define PACED_RATE          10000.0 /* events/s offered by the paced clients */
#define PACED_SECONDS       5
#define TARGET_PACED_P99_MS 2.0
#define ERR_LEN             4096
#define PER_PUBLISH_EVENTS  5000    /* the amqp comparison's confirm-per-publish run, at most */

typedef struct {
    size_t      events;
    int         clients;
    int         window;
    const char *endpoint;       /* NULL: start our own dlqd */
    const char *dlqd;
    size_t      naive_events;
    bool        keep;
    bench_ids_t ids;
    size_t      repeat;         /* runs of each kind in the chain comparison; 0 skips it */
    bool        chain_only;     /* only the chain comparison */
    const char *postgres;       /* conninfo: run the postgres comparison; NULL skips it */
    const char *postgres_settings;  /* more settings of its sink section */
    bool        postgres_only;  /* only the postgres comparison */
    const char *amqp;           /* broker URL: run the amqp comparison; NULL skips it */
    const char *amqp_settings;  /* more settings of its sink section */
    bool        amqp_only;      /* only the amqp comparison */
    bool        kafka;          /* run the kafka comparison */
    const char *kafka_settings; /* more settings of its sink section */
    bool        kafka_only;     /* only the kafka comparison */
    bool        mongo;          /* run the mongo comparison */
    const char *mongo_uri;      /* a MongoDB to run it on; NULL: the test server */
    const char *mongo_settings; /* more settings of its sink section */
    bool        mongo_only;     /* only the mongo comparison */
    bool        curve;          /* run the CURVE comparison */
    bool        curve_only;     /* only the CURVE comparison */
    bool        scrape;         /* run the scrape comparison */
    bool        scrape_only;    /* only the scrape comparison */
    bool        paced_only;     /* only (g), the latency at a fixed offered load */
    const char *gateway_settings;   /* more settings of the gateway section of dlqd's config */
} options_t;

typedef struct {
    double gateway_eps;
    double naive_eps;           /* 0 when skipped */
    double batched_eps;
    double queryable_s;         /* from the first PUT until COUNT holds every event */
    double ceiling_eps;         /* the same clients against a ROUTER that acks at once */
    size_t events;
    bench_chain_result_t chain;
    bool   failed;
} outcome_t;


/* ------------------------------------------------------------------------ */
/* Command line */

static int
usage (FILE *out, int code)
{
    fprintf (out,
        "usage: dlqd_bench [options]\n"
        "Measures durable ingest through dlqd (PUT acked after fsync) against a\n"
        "naive one-transaction-per-event SQLite loop and a batched SQLite loop,\n"
        "and ingest without sinks against ingest through a chain of two noop sinks,\n"
        "on the same events, in the same run.\n"
        "\n"
        "  --events N        events to PUT and to insert in batches (default 200000)\n"
        "  --clients C       client threads, one DEALER each (default 4)\n"
        "  --window W        PUTs in flight per client (default 256)\n"
        "  --naive-events N  rows for the naive 1-txn-per-event loop (default 2000;\n"
        "                    0 skips it)\n"
        "  --ids v7|v4       event ids: time-ordered UUIDv7 as libdlq and dlqctl\n"
        "                    make them (default), or random UUIDv4\n"
        "  --repeat N        runs of each kind (no sinks, chain of two noop sinks) in\n"
        "                    the chain comparison, alternating after one uncounted\n"
        "                    warm-up run, medians compared (default 2; 0 skips it)\n"
        "  --chain-only      run the chain comparison only (no single dlqd run, no\n"
        "                    SQLite references)\n"
        "  --curve           also compare ingest without security, with CURVE and\n"
        "                    one admin key, and with CURVE and 1,000 keys (the\n"
        "                    load's a worker of 1,000 stream patterns): --repeat\n"
        "                    runs of each, rotating, medians\n"
        "  --curve-only      run the CURVE comparison only\n"
        "  --scrape          also compare ingest with a scraper of /metrics at 1 Hz\n"
        "                    and without: --repeat runs of each, alternating, medians\n"
        "  --scrape-only     run the scrape comparison only\n"
        "  --paced-only      run the paced latency alone: 10,000 events/s offered\n"
        "                    by the clients, ack p50 / p99 / max\n"
        "  --gateway-settings S  more settings of the gateway section for the dlqd\n"
        "                    of the ingest and paced runs, e.g.\n"
        "                    'spool_preallocate = false;'\n"
        "  --postgres C      also compare a postgres sink (libpq conninfo C) with a\n"
        "                    raw COPY of the same rows (--repeat runs of each, and\n"
        "                    of the sink draining a stored backlog after a restart,\n"
        "                    rotating, medians) and with one INSERT + commit per\n"
        "                    event (--naive-events rows); e.g. a server from\n"
        "                    contrib/scripts/pg-server.sh start DIR PORT\n"
        "  --postgres-settings S  more settings of the postgres sink's section, e.g.\n"
        "                    'batch = { max_events = 1000; };'\n"
        "  --postgres-only   run the postgres comparison only (needs --postgres)\n"
        "  --amqp URL        also compare an amqp sink draining a stored backlog with a\n"
        "                    raw rabbitmq-c publisher (same messages, same window of\n"
        "                    confirms; --repeat runs of each, alternating, medians) and\n"
        "                    with one confirm per publish (%d events); URL e.g.\n"
        "                    amqp://guest:guest@127.0.0.1:5672/ from\n"
        "                    contrib/scripts/rabbitmq-server.sh start DIR PORT\n"
        "  --amqp-settings S more settings of the amqp sink's section, e.g.\n"
        "                    'confirm_window = 1024;' (the raw publisher follows\n"
        "                    confirm_window, exchange_type, routing_key_prefix, mandatory)\n"
        "  --amqp-only       run the amqp comparison only (needs --amqp; with\n"
        "                    --postgres-only or --kafka-only: those comparisons too)\n"
        "  --kafka           also compare a kafka sink draining a stored backlog with a\n"
        "                    raw idempotent librdkafka producer (same records, topics,\n"
        "                    acks=all; --repeat runs of each, alternating, medians),\n"
        "                    both on a mock cluster of 3 brokers run by this process\n"
        "  --kafka-settings S  more settings of the kafka sink's section, e.g.\n"
        "                    'rdkafka = [\"linger.ms=1\"];' (the raw producer follows\n"
        "                    key and rdkafka; partitions and replication_factor shape\n"
        "                    the topics the benchmark creates, default 3 x 3)\n"
        "  --kafka-only      run the kafka comparison only (implies --kafka)\n"
        "  --mongo [URI]     also compare a mongo sink draining a stored backlog with\n"
        "                    raw mongoc unordered bulk inserts (same documents, index\n"
        "                    entries, collections and batches of 1000; --repeat runs\n"
        "                    of each, alternating, medians), on the MongoDB test server\n"
        "                    of tests/mongo run by this process, or on the MongoDB at\n"
        "                    URI (mongodb://...; a database of its own per run, dropped\n"
        "                    after it)\n"
        "  --mongo-settings S  more settings of the mongo sink's section, e.g.\n"
        "                    'mongoc = [\"journal=true\"];' (the raw writer follows\n"
        "                    collection_prefix, batch.max_events and mongoc)\n"
        "  --mongo-only      run the mongo comparison only (implies --mongo)\n"
        "  --endpoint E      use the dlqd already serving E instead of starting one\n"
        "                    (the chain comparison, which needs its own dlqds, is skipped)\n"
        "  --dlqd PATH       dlqd binary to start (default %s)\n"
        "  --keep            keep the temporary directory (databases, config, log),\n"
        "                    the postgres tables, the amqp queues and exchanges and\n"
        "                    the mongo databases (on a MongoDB at URI)\n"
        "  --help            this text\n"
        "\n"
        "The temporary directory is made under $TMPDIR (default /tmp).\n"
        "Exit status: 0 run completed, 1 failure, 64 usage error.\n",
        PER_PUBLISH_EVENTS, DLQD_BINARY);
    return code;
}

static bool
parse_count (const char *text, size_t min, size_t max, size_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull (text, &end, 10);
    if (errno || end == text || *end || text [0] == '-' || v < min || v > max)
        return false;
    *out = (size_t) v;
    return true;
}

/* Parse one option with a numeric value into *out; complains on error. */
static bool
numeric_option (const char *name, const char *value, size_t min, size_t max, size_t *out)
{
    if (parse_count (value, min, max, out))
        return true;
    fprintf (stderr, "dlqd_bench: --%s wants an integer from %zu to %zu, got '%s'\n",
             name, min, max, value);
    return false;
}

/* The value of an option with an optional one: "--name=VALUE", or
 * "--name VALUE" when the next argument is not an option (taken then);
 * NULL when there is none. */
static const char *
optional_value (int argc, char **argv)
{
    if (optarg)
        return optarg;
    if (optind < argc && argv [optind][0] != '-')
        return argv [optind++];
    return NULL;
}

/* Returns -1 to go on, or an exit status. */
static int
parse_options (int argc, char **argv, options_t *o)
{
    static const struct option longs [] = {
        { "events", required_argument, NULL, 'n' },
        { "clients", required_argument, NULL, 'c' },
        { "window", required_argument, NULL, 'w' },
        { "endpoint", required_argument, NULL, 'e' },
        { "dlqd", required_argument, NULL, 'd' },
        { "naive-events", required_argument, NULL, 'N' },
        { "keep", no_argument, NULL, 'k' },
        { "ids", required_argument, NULL, 'i' },
        { "repeat", required_argument, NULL, 'r' },
        { "chain-only", no_argument, NULL, 'C' },
        { "postgres", required_argument, NULL, 'P' },
        { "postgres-only", no_argument, NULL, 'O' },
        { "postgres-settings", required_argument, NULL, 'S' },
        { "amqp", required_argument, NULL, 'A' },
        { "amqp-only", no_argument, NULL, 'Q' },
        { "amqp-settings", required_argument, NULL, 'M' },
        { "kafka", no_argument, NULL, 'K' },
        { "kafka-only", no_argument, NULL, 'J' },
        { "kafka-settings", required_argument, NULL, 'L' },
        { "mongo", optional_argument, NULL, 'G' },
        { "mongo-only", no_argument, NULL, 'H' },
        { "mongo-settings", required_argument, NULL, 'T' },
        { "curve", no_argument, NULL, 'V' },
        { "curve-only", no_argument, NULL, 'W' },
        { "scrape", no_argument, NULL, 'X' },
        { "scrape-only", no_argument, NULL, 'Y' },
        { "paced-only", no_argument, NULL, 'g' },
        { "gateway-settings", required_argument, NULL, 'y' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    *o = (options_t) { 200000, 4, 256, NULL, DLQD_BINARY, 2000, false, BENCH_IDS_V7, 2, false,
                       NULL, NULL, false, NULL, NULL, false, false, NULL, false, false, NULL, NULL, false,
                       false, false, false, false, false, NULL };
    size_t v;
    int opt;
    while ((opt = getopt_long (argc, argv, "h", longs, NULL)) != -1) {
        bool ok = true;
        switch (opt) {
            case 'n': ok = numeric_option ("events", optarg, 1, UINT32_MAX, &o->events); break;
            case 'c': ok = numeric_option ("clients", optarg, 1, 256, &v); o->clients = (int) v; break;
            case 'w': ok = numeric_option ("window", optarg, 1, 100000, &v); o->window = (int) v; break;
            case 'N': ok = numeric_option ("naive-events", optarg, 0, UINT32_MAX, &o->naive_events); break;
            case 'e': o->endpoint = optarg; break;
            case 'd': o->dlqd = optarg; break;
            case 'k': o->keep = true; break;
            case 'r': ok = numeric_option ("repeat", optarg, 0, 100, &o->repeat); break;
            case 'C': o->chain_only = true; break;
            case 'P': o->postgres = optarg; break;
            case 'O': o->postgres_only = true; break;
            case 'S': o->postgres_settings = optarg; break;
            case 'A': o->amqp = optarg; break;
            case 'Q': o->amqp_only = true; break;
            case 'M': o->amqp_settings = optarg; break;
            case 'K': o->kafka = true; break;
            case 'J': o->kafka = o->kafka_only = true; break;
            case 'L': o->kafka_settings = optarg; break;
            case 'G': o->mongo = true; o->mongo_uri = optional_value (argc, argv); break;
            case 'H': o->mongo = o->mongo_only = true; break;
            case 'T': o->mongo_settings = optarg; break;
            case 'V': o->curve = true; break;
            case 'W': o->curve = o->curve_only = true; break;
            case 'X': o->scrape = true; break;
            case 'Y': o->scrape = o->scrape_only = true; break;
            case 'g': o->paced_only = true; break;
            case 'y': o->gateway_settings = optarg; break;
            case 'i':
                ok = strcmp (optarg, "v7") == 0 || strcmp (optarg, "v4") == 0;
                o->ids = strcmp (optarg, "v4") == 0 ? BENCH_IDS_V4 : BENCH_IDS_V7;
                if (!ok)
                    fprintf (stderr, "dlqd_bench: --ids wants v7 or v4, got '%s'\n", optarg);
                break;
            case 'h': return usage (stdout, 0);
            default:  return usage (stderr, 64);
        }
        if (!ok)
            return 64;
    }
    if (optind < argc) {
        fprintf (stderr, "dlqd_bench: unexpected argument '%s'\n", argv [optind]);
        return usage (stderr, 64);
    }
    if (o->chain_only && (o->endpoint || o->repeat == 0)) {
        fprintf (stderr, "dlqd_bench: --chain-only needs its own dlqds (no --endpoint) and"
                 " --repeat of at least 1\n");
        return usage (stderr, 64);
    }
    if (o->postgres_only && (!o->postgres || o->endpoint || o->chain_only)) {
        fprintf (stderr, "dlqd_bench: --postgres-only needs --postgres, its own dlqd (no --endpoint)"
                 " and no --chain-only\n");
        return usage (stderr, 64);
    }
    if (o->amqp_only && (!o->amqp || o->endpoint || o->chain_only)) {
        fprintf (stderr, "dlqd_bench: --amqp-only needs --amqp, its own dlqd (no --endpoint)"
                 " and no --chain-only\n");
        return usage (stderr, 64);
    }
    if (o->kafka_only && (o->endpoint || o->chain_only)) {
        fprintf (stderr, "dlqd_bench: --kafka-only needs its own dlqd (no --endpoint) and no --chain-only\n");
        return usage (stderr, 64);
    }
    if (o->mongo_only && (o->endpoint || o->chain_only)) {
        fprintf (stderr, "dlqd_bench: --mongo-only needs its own dlqd (no --endpoint) and no --chain-only\n");
        return usage (stderr, 64);
    }
#ifndef DLQD_BENCH_MONGO
    if (o->mongo) {
        fprintf (stderr, "dlqd_bench: --mongo: this dlqd_bench was built without the mongo sink\n");
        return 64;
    }
#endif
#ifndef DLQD_BENCH_KAFKA
    if (o->kafka) {
        fprintf (stderr, "dlqd_bench: --kafka: this dlqd_bench was built without the kafka sink\n");
        return 64;
    }
#endif
#ifndef DLQD_BENCH_AMQP
    if (o->amqp) {
        fprintf (stderr, "dlqd_bench: --amqp: this dlqd_bench was built without the amqp sink\n");
        return 64;
    }
#endif
#ifndef DLQD_BENCH_POSTGRES
    if (o->postgres) {
        fprintf (stderr, "dlqd_bench: --postgres: this dlqd_bench was built without libpq\n");
        return 64;
    }
#endif
    if ((size_t) o->clients > o->events)
        o->clients = (int) o->events;
    if (o->naive_events > o->events)
        o->naive_events = o->events;
    return -1;
}


/* ------------------------------------------------------------------------ */
/* Temporary directory */

static char *
make_temp_dir (void)
{
    const char *base = getenv ("TMPDIR");
    char *path = NULL;
    if (asprintf (&path, "%s/dlqd-bench.XXXXXX", base && *base ? base : "/tmp") < 0)
        return NULL;
    if (!mkdtemp (path)) {
        fprintf (stderr, "dlqd_bench: cannot create %s: %s\n", path, strerror (errno));
        free (path);
        return NULL;
    }
    return path;
}

static void
path_in (char *out, size_t len, const char *dir, const char *name)
{
    snprintf (out, len, "%s/%s", dir, name);
}


/* ------------------------------------------------------------------------ */
/* Phases */

static void
print_errors (const bench_gateway_result_t *r)
{
    if (!r->errors)
        return;
    printf ("  ERR replies     : %zu (", r->errors);
    for (size_t i = 0; i < BENCH_ERR_KINDS && r->err_code [i][0]; i++)
        printf ("%s%s %zu", i ? ", " : "", r->err_code [i], r->err_count [i]);
    printf ("); first: %s\n", r->first_err);
}

static void
report_gateway (const options_t *o, const bench_events_t *ev, bench_gateway_result_t *r,
                outcome_t *out)
{
    double p50, p99, max;
    bench_latency_summary (r->latency_ns, ev->count, &p50, &p99, &max);
    out->gateway_eps = r->seconds > 0 ? (double) r->ok / r->seconds : 0;
    out->events = r->ok;
    printf ("dlqd ingest     : %7.0f events/s  (p50 %.1f ms, p99 %.1f ms, max %.1f ms)"
            "  %d clients x %d window\n", out->gateway_eps, p50, p99, max, o->clients, o->window);
    printf ("                  %.1f MB/s of PUT bodies; %zu OK (%zu duplicate), %zu ERR in %.2f s\n",
            r->seconds > 0 ? (double) ev->body_bytes / 1e6 / r->seconds : 0,
            r->ok, r->duplicates, r->errors, r->seconds);
    print_errors (r);
}

static void
run_gateway (const options_t *o, void *ctx, const char *endpoint, const bench_events_t *ev,
             outcome_t *out)
{
    bench_gateway_result_t r;
    bool complete = bench_gateway_run (ctx, endpoint, ev, o->clients, o->window,
                                       REPLY_TIMEOUT_MS, &r);
    if (r.ok + r.errors > 0)
        report_gateway (o, ev, &r, out);
    if (!complete)
        fprintf (stderr, "dlqd_bench: gateway run failed: %s\n", r.failure);
    out->failed |= !complete || r.errors > 0;
    bench_gateway_result_free (&r);
}

/* Take an integer member "key":N out of a flat scan of a JSON body. */
static long long
json_int (const char *body, const char *key)
{
    char pattern [64];
    snprintf (pattern, sizeof pattern, "\"%s\":", key);
    const char *p = strstr (body, pattern);
    return p ? strtoll (p + strlen (pattern), NULL, 10) : -1;
}

static double
now_s (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* After the run, our own dlqd must hold exactly the events it acked, once
 * its embedded store has indexed them (STATS spool.indexLagEvents 0). */
static void
check_stats (void *ctx, const char *endpoint, size_t expected, outcome_t *out)
{
    char body [4096] = "";
    bool ok = false;
    double last_ack = now_s (), deadline = last_ack + 300;
    while (bench_gateway_call (ctx, endpoint, "STATS", "", 5000, 5000, NULL, NULL, &ok, body, sizeof body) && ok
           && json_int (body, "indexLagEvents") > 0 && now_s () < deadline) {
        struct timespec pause = { 0, 10 * 1000 * 1000 };
        nanosleep (&pause, NULL);
    }
    double drain = now_s () - last_ack;
    out->queryable_s = (out->gateway_eps > 0 ? (double) expected / out->gateway_eps : 0) + drain;
    printf ("  queryable       : %.2f s after the last ack, %.2f s after the first PUT\n", drain, out->queryable_s);
    if (!ok || json_int (body, "indexLagEvents") != 0) {
        fprintf (stderr, "dlqd_bench: STATS failed: %s\n", body [0] ? body : "no reply");
        out->failed = true;
        return;
    }
    long long events = json_int (body, "events"), bytes = json_int (body, "storeBytes");
    printf ("  store           : %lld events, %.1f MB (database + WAL)\n", events, (double) bytes / 1e6);
    if (events != (long long) expected) {
        fprintf (stderr, "dlqd_bench: dlqd stores %lld events, expected %zu\n", events, expected);
        out->failed = true;
    }
}

static void
stop_daemon (bench_daemon_t *daemon, outcome_t *out)
{
    char err [ERR_LEN];
    double drain = 0;
    if (bench_daemon_stop (daemon, STOP_TIMEOUT_MS, &drain, err, sizeof err)) {
        printf ("  dlqd exit       : status 0, %.3f s after SIGTERM\n", drain);
        return;
    }
    fprintf (stderr, "dlqd_bench: %s\n", err);
    out->failed = true;
}

/* Run one reference loop; returns events/s, 0 on failure. */
static double
run_reference (const char *dir, const char *label, const bench_events_t *ev, size_t count,
               size_t per_txn, outcome_t *out)
{
    char err [ERR_LEN];
    double seconds = 0;
    if (!bench_sqlite_run (dir, ev->rows, count, per_txn, &seconds, err, sizeof err)) {
        fprintf (stderr, "dlqd_bench: %s: %s\n", label, err);
        out->failed = true;
        return 0;
    }
    double eps = seconds > 0 ? (double) count / seconds : 0;
    printf ("%-16s: %7.0f events/s  (%zu events in %.2f s)\n", label, eps, count, seconds);
    fflush (stdout);
    return eps;
}

static const char *
verdict (bool naive_met, bool batched_met)
{
    if (naive_met && batched_met)
        return "met";
    if (!naive_met && !batched_met)
        return "BOTH MISSED";
    return naive_met ? "raw batched MISSED" : "naive MISSED";
}

static void
print_ratios (const outcome_t *out)
{
    double vs_naive = out->naive_eps > 0 ? out->gateway_eps / out->naive_eps : 0;
    double vs_batched = out->batched_eps > 0 ? out->gateway_eps / out->batched_eps : 0;
    char naive [32] = "n/a";
    if (out->naive_eps > 0)
        snprintf (naive, sizeof naive, "%.1fx", vs_naive);
    printf ("ratios          : %s naive, %.2fx raw batched  (targets >= %.0fx, >= %.2fx: %s)\n",
            naive, vs_batched, TARGET_NAIVE, TARGET_BATCHED,
            verdict (out->naive_eps == 0 || vs_naive >= TARGET_NAIVE, vs_batched >= TARGET_BATCHED));
    if (out->ceiling_eps > 0)
        printf ("vs ceiling      : %.2fx the transport ceiling  (target >= %.2f, aim 0.50: %s)\n",
                out->gateway_eps / out->ceiling_eps, TARGET_CEILING,
                out->gateway_eps / out->ceiling_eps >= TARGET_CEILING ? "met" : "MISSED");
    if (out->batched_eps > 0 && out->queryable_s > 0) {
        double raw_s = (double) out->events / out->batched_eps;
        printf ("queryable       : %.2f s from the first PUT vs %.2f s for the raw batched loop: %.2fx "
                "(target <= %.2fx: %s)\n", out->queryable_s, raw_s, out->queryable_s / raw_s, TARGET_QUERYABLE,
                out->queryable_s / raw_s <= TARGET_QUERYABLE ? "met" : "MISSED");
    }
}


/* ------------------------------------------------------------------------ */
/* Main */

static bench_events_t *
generate (const options_t *o)
{
    char err [ERR_LEN];
    uint64_t seed = (uint64_t) time (NULL) * 1000003u ^ (uint64_t) getpid ();
    fprintf (stderr, "dlqd_bench: generating %zu events...\n", o->events);
    bench_events_t *ev = bench_events_generate (o->events, seed, o->ids, err, sizeof err);
    if (!ev) {
        fprintf (stderr, "dlqd_bench: %s\n", err);
        return NULL;
    }
    printf ("workload        : %zu events, PUT body avg %zu B (%.1f MB), stored JSON avg %zu B, %s ids\n",
            ev->count, ev->body_bytes / ev->count, (double) ev->body_bytes / 1e6,
            ev->json_bytes / ev->count, o->ids == BENCH_IDS_V4 ? "random UUIDv4" : "UUIDv7");
    return ev;
}

/* The gateway phase: own daemon (or --endpoint), PUT load, checks, stop. */
/* (a) the transport ceiling: the same clients and events against a ROUTER
 * that acks at once. */
static void
ceiling_phase (const options_t *o, const bench_events_t *ev, outcome_t *out)
{
    void *ctx = zmq_ctx_new ();
    char err [ERR_LEN];
    bench_ceiling_t *ceiling = bench_ceiling_start (ctx, err, sizeof err);
    if (!ceiling) {
        fprintf (stderr, "dlqd_bench: %s\n", err);
        zmq_ctx_term (ctx);
        return;
    }
    bench_gateway_result_t r;
    if (bench_gateway_run (ctx, bench_ceiling_endpoint (ceiling), ev, o->clients, o->window, REPLY_TIMEOUT_MS, &r)
        && r.seconds > 0) {
        out->ceiling_eps = (double) r.ok / r.seconds;
        printf ("transport ceil. : %7.0f events/s  (a ROUTER that acks at once, same clients and events)\n",
                out->ceiling_eps);
    }
    bench_gateway_result_free (&r);
    bench_ceiling_stop (&ceiling);
    zmq_ctx_term (ctx);
}

/* The same paced clients against the transport ceiling's ROUTER: what
 * ZeroMQ, the clients and this machine's scheduling take of (g) alone. */
static void
paced_ceiling (const options_t *o, void *ctx, const bench_events_t *part)
{
    char err [ERR_LEN];
    bench_ceiling_t *ceiling = bench_ceiling_start (ctx, err, sizeof err);
    if (!ceiling) {
        fprintf (stderr, "dlqd_bench: %s\n", err);
        return;
    }
    bench_gateway_result_t r;
    if (bench_gateway_run_paced (ctx, bench_ceiling_endpoint (ceiling), part, o->clients, PACED_RATE,
                                 REPLY_TIMEOUT_MS, &r)) {
        double p50, p99, max;
        bench_latency_summary (r.latency_ns, part->count, &p50, &p99, &max);
        printf ("paced ceiling   : p50 %.2f ms, p99 %.2f ms, max %.2f ms  (the same paced clients against a ROUTER "
                "that acks at once)\n", p50, p99, max);
    }
    bench_gateway_result_free (&r);
    bench_ceiling_stop (&ceiling);
}

/* (g) ack latency at a fixed offered load, from paced clients, on a dlqd
 * of its own (its events are the first ones of the workload), after the
 * same clients against the transport ceiling. */
static void
paced_phase (const options_t *o, const char *dir, const bench_events_t *ev, outcome_t *out)
{
    if (o->endpoint)
        return;
    void *ctx = zmq_ctx_new ();
    bench_daemon_t daemon = { .gateway_settings = o->gateway_settings };
    char err [ERR_LEN], sub [4096];
    snprintf (sub, sizeof sub, "%s/paced", dir);
    mkdir (sub, 0750);
    bench_events_t part = *ev;
    if (part.count > (size_t) (PACED_RATE * PACED_SECONDS))
        part.count = (size_t) (PACED_RATE * PACED_SECONDS);
    paced_ceiling (o, ctx, &part);
    if (!bench_daemon_start (&daemon, ctx, o->dlqd, sub, NULL, READY_TIMEOUT_MS, err, sizeof err)) {
        fprintf (stderr, "dlqd_bench: %s\n", err);
        out->failed = true;
        zmq_ctx_term (ctx);
        return;
    }
    bench_gateway_result_t r;
    if (bench_gateway_run_paced (ctx, daemon.endpoint, &part, o->clients, PACED_RATE, REPLY_TIMEOUT_MS, &r)) {
        double p50, p99, max;
        bench_latency_summary (r.latency_ns, part.count, &p50, &p99, &max);
        printf ("paced %5.0f/s   : p50 %.2f ms, p99 %.2f ms, max %.2f ms over %zu events  (target p99 <= %.1f ms: %s)\n",
                PACED_RATE, p50, p99, max, part.count, TARGET_PACED_P99_MS, p99 <= TARGET_PACED_P99_MS ? "met" : "MISSED");
    }
    else {
        fprintf (stderr, "dlqd_bench: the paced run failed: %s\n", r.failure);
        out->failed = true;
    }
    bench_gateway_result_free (&r);
    stop_daemon (&daemon, out);
    zmq_ctx_term (ctx);
}

static void
gateway_phase (const options_t *o, const char *dir, const bench_events_t *ev, outcome_t *out)
{
    void *ctx = zmq_ctx_new ();
    bench_daemon_t daemon = { .gateway_settings = o->gateway_settings };
    char err [ERR_LEN];
    const char *endpoint = o->endpoint;
    if (!endpoint) {
        if (!bench_daemon_start (&daemon, ctx, o->dlqd, dir, NULL, READY_TIMEOUT_MS, err, sizeof err)) {
            fprintf (stderr, "dlqd_bench: %s\n", err);
            out->failed = true;
            zmq_ctx_term (ctx);
            return;
        }
        endpoint = daemon.endpoint;
    }
    printf ("dlqd            : %s%s\n", endpoint, o->endpoint ? " (already running)" : "");
    fflush (stdout);
    run_gateway (o, ctx, endpoint, ev, out);
    if (!o->endpoint) {
        check_stats (ctx, endpoint, ev->count, out);
        stop_daemon (&daemon, out);
    }
    zmq_ctx_term (ctx);
}

static void
reference_phase (const options_t *o, const char *dir, const bench_events_t *ev, outcome_t *out)
{
    char path [4096];
    if (o->naive_events) {
        path_in (path, sizeof path, dir, "naive");
        out->naive_eps = run_reference (path, "naive 1 txn/evt", ev, o->naive_events, 1, out);
    }
    path_in (path, sizeof path, dir, "batched");
    out->batched_eps = run_reference (path, "raw batched 1000", ev, ev->count, BATCH_ROWS, out);
}

/* No sinks vs. a chain of two noop sinks, unless skipped. */
static void
chain_phase (const options_t *o, const char *dir, const bench_events_t *ev, outcome_t *out)
{
    if (o->repeat == 0)
        return;
    if (o->endpoint) {
        printf ("chain           : skipped (--endpoint: the comparison starts its own dlqds)\n");
        return;
    }
    if (out->failed) {
        fprintf (stderr, "dlqd_bench: the gateway run failed; chain comparison skipped\n");
        return;
    }
    bench_chain_options_t co = {
        .dlqd = o->dlqd, .clients = o->clients, .window = o->window, .repeat = o->repeat,
        .keep = o->keep, .ready_ms = READY_TIMEOUT_MS, .reply_timeout_ms = REPLY_TIMEOUT_MS,
        .stop_ms = STOP_TIMEOUT_MS
    };
    out->failed |= !bench_chain_run (&co, dir, ev, &out->chain);
}

/* Plain vs. CURVE vs. CURVE with 1,000 keys, when asked for. */
static void
curve_phase (const options_t *o, const char *dir, const bench_events_t *ev, outcome_t *out)
{
    if (!o->curve)
        return;
    if (o->endpoint) {
        printf ("curve           : skipped (--endpoint: the comparison starts its own dlqds)\n");
        return;
    }
    bench_curve_options_t co = {
        .dlqd = o->dlqd, .clients = o->clients, .window = o->window, .repeat = o->repeat ? o->repeat : 1,
        .keep = o->keep, .ready_ms = READY_TIMEOUT_MS, .reply_timeout_ms = REPLY_TIMEOUT_MS,
        .stop_ms = STOP_TIMEOUT_MS
    };
    out->failed |= !bench_curve_run (&co, dir, ev);
}

/* Ingest with a scraper of /metrics at 1 Hz and without, when asked for. */
static void
scrape_phase (const options_t *o, const char *dir, const bench_events_t *ev, outcome_t *out)
{
    if (!o->scrape)
        return;
    if (o->endpoint) {
        printf ("scrape          : skipped (--endpoint: the comparison starts its own dlqds)\n");
        return;
    }
    bench_scrape_options_t so = {
        .dlqd = o->dlqd, .clients = o->clients, .window = o->window, .repeat = o->repeat ? o->repeat : 1,
        .keep = o->keep, .ready_ms = READY_TIMEOUT_MS, .reply_timeout_ms = REPLY_TIMEOUT_MS,
        .stop_ms = STOP_TIMEOUT_MS
    };
    out->failed |= !bench_scrape_run (&so, dir, ev);
}

#if defined DLQD_BENCH_KAFKA || defined DLQD_BENCH_MONGO
/* The dlqds of a sink comparison's drain runs and the load they take. */
static bench_sink_dlqd_t
sink_dlqd (const options_t *o)
{
    return (bench_sink_dlqd_t) { o->dlqd, o->clients, o->window, READY_TIMEOUT_MS, REPLY_TIMEOUT_MS,
                                 STOP_TIMEOUT_MS };
}
#endif

#if defined DLQD_BENCH_POSTGRES || defined DLQD_BENCH_AMQP || defined DLQD_BENCH_KAFKA || defined DLQD_BENCH_MONGO
/* A sink comparison starts its own dlqds: not with --endpoint. */
static bool
own_dlqd (const options_t *o, const char *label)
{
    if (o->endpoint)
        printf ("%-16s: skipped (--endpoint: the comparison starts its own dlqd)\n", label);
    return !o->endpoint;
}
#endif

/* The postgres sink vs. raw COPY vs. naive INSERTs, when asked for. */
static void
postgres_phase (const options_t *o, const char *dir, const bench_events_t *ev, outcome_t *out)
{
#ifdef DLQD_BENCH_POSTGRES
    if (!o->postgres || !own_dlqd (o, "postgres"))
        return;
    bench_postgres_options_t po = {
        .conninfo = o->postgres, .settings = o->postgres_settings, .dlqd = o->dlqd, .clients = o->clients, .window = o->window,
        .naive_events = o->naive_events, .repeat = o->repeat, .keep = o->keep, .ready_ms = READY_TIMEOUT_MS,
        .reply_timeout_ms = REPLY_TIMEOUT_MS, .stop_ms = STOP_TIMEOUT_MS
    };
    bench_postgres_result_t result;
    out->failed |= !bench_postgres_run (&po, dir, ev, &result);
#endif
}

/* The amqp sink vs. a raw publisher vs. one confirm per publish, when asked for. */
static void
amqp_phase (const options_t *o, const char *dir, const bench_events_t *ev, outcome_t *out)
{
#ifdef DLQD_BENCH_AMQP
    if (!o->amqp || !own_dlqd (o, "amqp"))
        return;
    bench_amqp_options_t ao = {
        .url = o->amqp, .settings = o->amqp_settings, .dlqd = o->dlqd, .clients = o->clients,
        .window = o->window, .per_publish_events = PER_PUBLISH_EVENTS, .repeat = o->repeat, .keep = o->keep,
        .ready_ms = READY_TIMEOUT_MS, .reply_timeout_ms = REPLY_TIMEOUT_MS, .stop_ms = STOP_TIMEOUT_MS
    };
    bench_amqp_result_t result;
    out->failed |= !bench_amqp_run (&ao, dir, ev, &result);
#endif
}

/* The mongo sink vs. raw mongoc bulk inserts, when asked for. */
static void
mongo_phase (const options_t *o, const char *dir, const bench_events_t *ev, outcome_t *out)
{
#ifdef DLQD_BENCH_MONGO
    bench_mongo_result_t result;
    bench_mongo_options_t mo = { .uri = o->mongo_uri, .settings = o->mongo_settings, .dlqd = sink_dlqd (o),
                                 .repeat = o->repeat, .keep = o->keep };
    if (o->mongo && own_dlqd (o, "mongo"))
        out->failed |= !bench_mongo_run (&mo, dir, ev, &result);
#endif
}

/* The kafka sink vs. a raw producer on a mock cluster, when asked for. */
static void
kafka_phase (const options_t *o, const char *dir, const bench_events_t *ev, outcome_t *out)
{
#ifdef DLQD_BENCH_KAFKA
    if (!o->kafka || !own_dlqd (o, "kafka"))
        return;
    bench_kafka_options_t ko = { .settings = o->kafka_settings, .repeat = o->repeat, .dlqd = sink_dlqd (o) };
    bench_kafka_result_t result;
    out->failed |= !bench_kafka_run (&ko, dir, ev, &result);
#endif
}

int
main (int argc, char **argv)
{
    options_t o;
    int code = parse_options (argc, argv, &o);
    if (code >= 0)
        return code;
    setvbuf (stdout, NULL, _IOLBF, 0);
    bench_events_t *ev = generate (&o);
    char *dir = ev ? make_temp_dir () : NULL;
    if (!dir) {
        bench_events_destroy (&ev);
        return 1;
    }
    outcome_t out = { 0 };
    fprintf (stderr, "dlqd_bench: working in %s\n", dir);
    /* the sink comparisons asked for, nothing else */
    bool only = o.postgres_only || o.amqp_only || o.kafka_only || o.mongo_only || o.curve_only || o.scrape_only
                || o.paced_only;
    if (o.paced_only)
        paced_phase (&o, dir, ev, &out);
    if (!o.chain_only && !only) {
        ceiling_phase (&o, ev, &out);
        gateway_phase (&o, dir, ev, &out);
        paced_phase (&o, dir, ev, &out);
        if (out.failed)
            fprintf (stderr, "dlqd_bench: the gateway run failed; SQLite references skipped\n");
        else {
            reference_phase (&o, dir, ev, &out);
            print_ratios (&out);
        }
    }
    if (!only)
        chain_phase (&o, dir, ev, &out);
    if (!only || o.postgres_only)
        postgres_phase (&o, dir, ev, &out);
    if (!only || o.amqp_only)
        amqp_phase (&o, dir, ev, &out);
    if (!only || o.kafka_only)
        kafka_phase (&o, dir, ev, &out);
    if (!only || o.mongo_only)
        mongo_phase (&o, dir, ev, &out);
    if (!only || o.curve_only)
        curve_phase (&o, dir, ev, &out);
    if (!only || o.scrape_only)
        scrape_phase (&o, dir, ev, &out);
    if (o.keep)
        printf ("kept            : %s\n", dir);
    else
        bench_remove_tree (dir);
    free (dir);
    bench_events_destroy (&ev);
    if (out.failed)
        fprintf (stderr, "dlqd_bench: FAILED (see above)\n");
    return out.failed ? 1 : 0;
}
