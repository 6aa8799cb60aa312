/*  dlqd_bench_queries — the failure workbench's queries on a big embedded
 *  store: how long a filtered page (LIST, 100 events), a COUNT and GROUPS
 *  take over N stored events (default 1,000,000), against the workbench's
 *  goal of a filtered page over 1,000,000 stored events in well under 100
 *  ms.
 *
 *      dlqd_bench_queries [--events N] [--runs R] [--dir D] [--keep]
 *
 *  The store is filled through the store's own API (dlq_embedded_append,
 *  10,000 events per transaction) with events that vary as a real DLQ's
 *  do: 20 streams (a few big ones), statuses mostly PENDING, 60 error
 *  types, messages carrying ids, counts, hosts and quoted values (a few
 *  hundred fingerprints), a tenant in the metadata of most, createdAt over
 *  30 days. Then a read-only connection (as a query thread has) runs each
 *  query R times (default 15) after one warm-up; the median and the
 *  slowest are printed, with how many events matched.
 */
#include "dlq_buf.h"
#include "dlq_time.h"
#include "dlq_uuid.h"
#include "embedded_query.h"
#include "embedded_store.h"
#include "event_filter.h"
#include "failed_event.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BATCH       10000
#define DAY_MS      86400000LL
#define RUNS_MAX    100

typedef struct {
    long        events;
    int         runs;
    const char *dir;
    bool        keep;
} options_t;

/* ---- the store ---------------------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t
next_random (void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* A skewed pick of 0..n-1: small values far more often (a few big streams,
 * a few common errors). */
static int
skewed (int n)
{
    double u = (double) (next_random () % 1000000) / 1000000.0;
    return (int) (u * u * u * n);
}

static const char *const message_shapes [] = {
    "Order %llu not found", "Read timed out after %llu ms calling 10.0.%llu.7:8080",
    "duplicate key value violates unique constraint 'orders_pkey' (id %llu)",
    "Connection refused: postgres-%llu.internal:5432", "field 'sku-%llu' is required",
    "Payment provider returned HTTP 5%02llu", "Document %llx failed schema validation",
};

static dlq_event_t *
make_event (long i, int64_t now)
{
    static const char *const statuses [] = { "PENDING", "PENDING", "PENDING", "DLQ", "SUCCEEDED", "QUARANTINED" };
    char message [160], body [1200], created [DLQ_TIME_ISO_LEN + 1], id [DLQ_UUID_LEN + 1];
    int type = skewed (60);
    unsigned long long value = next_random () % 100000;
    snprintf (message, sizeof message, message_shapes [type % 7], value, value % 200, value % 100);
    int64_t created_at = now - (int64_t) (next_random () % (30 * DAY_MS));
    dlq_time_format_iso (created_at, created);
    dlq_uuid_v7 (created_at, id);
    int stream = skewed (20);
    snprintf (body, sizeof body,
              "{\"id\":\"%s\",\"streamName\":\"stream-%02d\",\"operationType\":\"UPDATE\","
              "\"documentKey\":{\"_id\":{\"$oid\":\"65f0a1b2c3d4e5f6%08lx\"}},"
              "\"error\":{\"type\":\"com.acme.errors.Error%02d\",\"message\":\"%s\","
              "\"stackTrace\":\"com.acme.errors.Error%02d: %s\\n\\tat com.acme.svc.Handler%d.handle(Handler.java:%d)\"},"
              "\"attempts\":%d,\"status\":\"%s\",\"createdAt\":\"%s\",\"metadata\":{\"tenantId\":\"tenant-%02d\"%s}}",
              id, stream, (unsigned long) i, type, message, type, message, type % 9, 40 + (int) (value % 50),
              1 + (int) (next_random () % 5), statuses [next_random () % 6], created, skewed (100),
              i % 3 ? ",\"region\":\"eu\"" : "");
    dlq_error_t err = { 0 };
    dlq_event_t *event = dlq_event_decode (body, strlen (body), now, &err);
    if (!event) {
        fprintf (stderr, "dlqd_bench_queries: a generated event is refused: %s (%s)\n", err.message, err.field);
        exit (1);
    }
    dlq_event_fingerprint (event);
    event->expires_at = created_at + 30 * DAY_MS + DAY_MS;
    dlq_event_encode (event);
    return event;
}

static double
seconds_since (const struct timespec *start)
{
    struct timespec now;
    clock_gettime (CLOCK_MONOTONIC, &now);
    return (double) (now.tv_sec - start->tv_sec) + (double) (now.tv_nsec - start->tv_nsec) / 1e9;
}

static void
fill (const options_t *o, int64_t now)
{
    char err [512];
    dlq_embedded_t *store = dlq_embedded_open (o->dir, DLQ_EMBEDDED_WRITER, err, sizeof err);
    if (!store) {
        fprintf (stderr, "dlqd_bench_queries: %s\n", err);
        exit (1);
    }
    dlq_event_t **batch = calloc (BATCH, sizeof *batch);
    bool *duplicate = calloc (BATCH, sizeof *duplicate);
    struct timespec start;
    clock_gettime (CLOCK_MONOTONIC, &start);
    for (long done = 0; done < o->events;) {
        size_t n = 0;
        while (n < BATCH && done + (long) n < o->events) {
            batch [n] = make_event (done + (long) n, now);
            n++;
        }
        if (dlq_embedded_append (store, batch, n, duplicate, err, sizeof err) != DLQ_STORE_OK) {
            fprintf (stderr, "dlqd_bench_queries: append: %s\n", err);
            exit (1);
        }
        for (size_t k = 0; k < n; k++)
            dlq_event_destroy (&batch [k]);
        done += (long) n;
    }
    printf ("store           : %ld events stored in %.1f s (generated, fingerprinted, appended %d per transaction)\n",
            o->events, seconds_since (&start), BATCH);
    free (batch);
    free (duplicate);
    dlq_embedded_destroy (&store);
}

/* ---- the queries ----------------------------------------------------------------- */

typedef enum { Q_LIST, Q_COUNT, Q_GROUPS } query_kind_t;

typedef struct {
    query_kind_t kind;
    const char  *filter;
} query_t;

static const query_t queries [] = {
    { Q_LIST,   "{\"streamName\":\"stream-07\"}" },
    { Q_LIST,   "{}" },
    { Q_LIST,   "{\"status\":\"QUARANTINED\"}" },
    { Q_LIST,   "{\"streamName\":\"stream-00\",\"status\":\"DLQ\"}" },
    { Q_LIST,   "{\"errorType\":\"com.acme.errors.Error41\"}" },
    { Q_LIST,   "{\"errorType\":\"com.acme.errors.Error03\",\"createdAfter\":\"@WEEK@\"}" },
    { Q_LIST,   "{\"metadata\":{\"tenantId\":\"tenant-42\"}}" },
    { Q_LIST,   "{\"messageContains\":\"connection refused\"}" },
    { Q_LIST,   "{\"streamName\":\"stream-01\",\"attemptsMin\":4,\"messageContains\":\"timed out\"}" },
    { Q_LIST,   "{\"fingerprint\":\"@FP_TOP@\"}" },
    { Q_LIST,   "{\"fingerprint\":\"@FP_RARE@\"}" },
    { Q_COUNT,  "{\"streamName\":\"stream-03\",\"status\":\"PENDING\"}" },
    { Q_COUNT,  "{\"fingerprint\":\"@FP_RARE@\"}" },
    { Q_COUNT,  "{\"errorType\":\"com.acme.errors.Error05\"}" },
    { Q_GROUPS, "{}" },
    { Q_GROUPS, "{\"streamName\":\"stream-02\"}" },
    { Q_GROUPS, "{\"createdAfter\":\"@DAY@\"}" },
};

/* The fingerprints of the biggest and the smallest group of the store
 * (from GROUPS), for the drill-down queries. */
static char fp_top [17], fp_rare [17];

static void
pick_fingerprints (dlq_embedded_t *reader, int64_t now)
{
    dlq_event_filter_t all = DLQ_EVENT_FILTER_INIT;
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_json_doc_t *doc = NULL;
    if (dlq_embedded_query_groups (reader, &all, 1000, now, &out) != DLQ_STORE_OK
    ||  dlq_json_parse (out.data, out.len, &doc, NULL) != DLQ_JSON_OK || !dlq_json_root (doc)->child) {
        fprintf (stderr, "dlqd_bench_queries: no groups: %s\n", dlq_embedded_last_error (reader));
        exit (1);
    }
    for (const dlq_json_value_t *g = dlq_json_root (doc)->child; g; g = g->next) {
        const dlq_json_value_t *fp = dlq_json_get (g, "fingerprint");
        if (fp && fp->type == DLQ_JSON_STRING && g == dlq_json_root (doc)->child)
            snprintf (fp_top, sizeof fp_top, "%s", fp->str);
        if (fp && fp->type == DLQ_JSON_STRING)
            snprintf (fp_rare, sizeof fp_rare, "%s", fp->str);
    }
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&out);
}

/* The filter text with its placeholder filled in: @WEEK@ / @DAY@ (a week /
 * a day ago), @FP_TOP@ / @FP_RARE@ (pick_fingerprints). */
static void
expand (const char *filter, int64_t now, char *out, size_t len)
{
    char week [DLQ_TIME_ISO_LEN + 1], day [DLQ_TIME_ISO_LEN + 1];
    dlq_time_format_iso (now - 7 * DAY_MS, week);
    dlq_time_format_iso (now - DAY_MS, day);
    static const char *const names [] = { "@WEEK@", "@DAY@", "@FP_TOP@", "@FP_RARE@" };
    const char *values [] = { week, day, fp_top, fp_rare };
    for (size_t i = 0; i < sizeof names / sizeof names [0]; i++) {
        const char *at = strstr (filter, names [i]);
        if (at) {
            snprintf (out, len, "%.*s%s%s", (int) (at - filter), filter, values [i], at + strlen (names [i]));
            return;
        }
    }
    snprintf (out, len, "%s", filter);
}

/* Run a query once: ms taken; *matched the events of the page / the count
 * / the groups. */
static double
run_once (dlq_embedded_t *reader, const query_t *q, const dlq_event_filter_t *filter, int64_t now, long *matched)
{
    dlq_buf_t out = DLQ_BUF_INIT, next = DLQ_BUF_INIT;
    struct timespec start;
    clock_gettime (CLOCK_MONOTONIC, &start);
    dlq_store_result_t rc;
    int64_t count = 0;
    if (q->kind == Q_LIST)
        rc = dlq_embedded_query_list (reader, filter, 100, NULL, now, &out, &next);
    else if (q->kind == Q_COUNT)
        rc = dlq_embedded_query_count (reader, filter, now, &count);
    else
        rc = dlq_embedded_query_groups (reader, filter, 20, now, &out);
    double ms = seconds_since (&start) * 1000.0;
    if (rc != DLQ_STORE_OK) {
        fprintf (stderr, "dlqd_bench_queries: %s: %s\n", q->filter, dlq_embedded_last_error (reader));
        exit (1);
    }
    long n = 0;
    for (size_t i = 0; out.data && i < out.len; i++)   /* events and groups begin {"id" / {"fingerprint" */
        n += out.data [i] == '{' && (strncmp (out.data + i, "{\"id\"", 5) == 0
                                     || strncmp (out.data + i, "{\"fingerprint\"", 14) == 0);
    *matched = q->kind == Q_COUNT ? (long) count : n;
    dlq_buf_free (&out);
    dlq_buf_free (&next);
    return ms;
}

static int
compare (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return x < y ? -1 : x > y;
}

static void
time_query (dlq_embedded_t *reader, const query_t *q, int runs, int64_t now)
{
    static const char *const kinds [] = { "LIST (100)", "COUNT", "GROUPS (20)" };
    char text [256];
    expand (q->filter, now, text, sizeof text);
    dlq_json_doc_t *doc = NULL;
    dlq_json_parse (text, strlen (text), &doc, NULL);
    dlq_event_filter_t filter = DLQ_EVENT_FILTER_INIT;
    dlq_error_t err = { 0 };
    if (!doc || dlq_event_filter_parse (dlq_json_root (doc), &filter, &err) != DLQ_OK) {
        fprintf (stderr, "dlqd_bench_queries: bad filter %s: %s\n", text, err.message);
        exit (1);
    }
    long matched = 0;
    double ms [RUNS_MAX];
    run_once (reader, q, &filter, now, &matched);       /* warm-up */
    for (int r = 0; r < runs; r++)
        ms [r] = run_once (reader, q, &filter, now, &matched);
    qsort (ms, (size_t) runs, sizeof ms [0], compare);
    printf ("%-11s %8.2f ms median %8.2f ms max  %7ld  %s\n", kinds [q->kind], ms [runs / 2], ms [runs - 1],
            matched, q->filter);
    dlq_event_filter_free (&filter);
    dlq_json_doc_destroy (&doc);
}

/* ---- main --------------------------------------------------------------------------- */

static void
usage (FILE *out)
{
    fprintf (out, "usage: dlqd_bench_queries [--events N] [--runs R] [--dir D] [--keep]\n"
                  "Times the failure workbench's queries (a filtered LIST page of 100, COUNT,\n"
                  "GROUPS) on an embedded store of N generated events (default 1000000).\n"
                  "  --events N  events to store (default 1000000)\n"
                  "  --runs R    timed runs of each query after a warm-up (default 15, at most 100)\n"
                  "  --dir D     the store's directory (default: a new one under /tmp);\n"
                  "              a store already there is queried as it is, not refilled\n"
                  "  --keep      keep the store (its directory is printed)\n");
}

static void
parse_options (int argc, char **argv, options_t *o)
{
    static const struct option long_options [] = {
        { "events", required_argument, NULL, 'n' }, { "runs", required_argument, NULL, 'r' },
        { "dir", required_argument, NULL, 'd' }, { "keep", no_argument, NULL, 'k' },
        { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 }
    };
    int c;
    while ((c = getopt_long (argc, argv, "h", long_options, NULL)) != -1)
        switch (c) {
            case 'n': o->events = atol (optarg); break;
            case 'r': o->runs = atoi (optarg); break;
            case 'd': o->dir = optarg; break;
            case 'k': o->keep = true; break;
            case 'h': usage (stdout); exit (0);
            default: usage (stderr); exit (64);
        }
    if (o->events < 1 || o->runs < 1 || o->runs > RUNS_MAX || optind < argc) {
        usage (stderr);
        exit (64);
    }
}

int
main (int argc, char **argv)
{
    options_t o = { .events = 1000000, .runs = 15 };
    parse_options (argc, argv, &o);
    char dir [256];
    bool fresh = !o.dir;
    if (fresh) {
        snprintf (dir, sizeof dir, "/tmp/dlqd-bench-queries.XXXXXX");
        if (!mkdtemp (dir)) {
            perror ("mkdtemp");
            return 1;
        }
        o.dir = dir;
    }
    int64_t now = dlq_time_now_ms ();
    char path [512];
    snprintf (path, sizeof path, "%s/%s", o.dir, DLQ_EMBEDDED_FILE);
    if (access (path, F_OK) != 0)
        fill (&o, now);
    char err [512];
    dlq_embedded_t *reader = dlq_embedded_open (o.dir, DLQ_EMBEDDED_READER, err, sizeof err);
    if (!reader) {
        fprintf (stderr, "dlqd_bench_queries: %s\n", err);
        return 1;
    }
    printf ("query       median        slowest    matched  filter\n");
    pick_fingerprints (reader, now);
    for (size_t i = 0; i < sizeof queries / sizeof queries [0]; i++)
        time_query (reader, &queries [i], o.runs, now);
    dlq_embedded_destroy (&reader);
    if (o.keep || !fresh)
        printf ("store kept in %s\n", o.dir);
    else {
        char cmd [600];
        snprintf (cmd, sizeof cmd, "rm -rf '%s'", o.dir);
        if (system (cmd) != 0)
            fprintf (stderr, "dlqd_bench_queries: cannot remove %s\n", o.dir);
    }
    return 0;
}
