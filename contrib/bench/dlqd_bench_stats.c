/*  dlqd_bench_stats — how long STATS takes with a big backlog behind a
 *  dead sink.
 *
 *  One process, one dlqd started from the build tree on a temporary
 *  directory, with one sink in every chain that can never deliver (amqp to
 *  a loopback port nothing listens on: every batch is RETRY, the circuit
 *  opens, the backlog stays in the spool):
 *    1. preload: N events (default 1,000,000: the ~1.35 KB FailedEvents of
 *       bench_events) PUT pipelined (4 clients x 256 in flight), then wait
 *       until the embedded store has indexed them (STATS
 *       spool.indexLagEvents 0);
 *    2. K STATS (default 200) one after the other on one socket, each
 *       timed from send to reply;
 *    3. print their p50 / p99 / max against the target (under 10 ms), and
 *       what the last one counted for the sink (backlog + retrying +
 *       failed, which must be N: anything else is a failure).
 *  Exit status: 0 when every request was answered OK and the count was
 *  right (the target is reported, not enforced), 1 on a failure, 64 on a
 *  usage error.
 */
#include "bench_daemon.h"
#include "bench_gateway.h"
#include "bench_numbers.h"
#include "dlq_json.h"
#include "dlq_time.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#ifndef DLQD_BINARY
#define DLQD_BINARY "dlqd"
#endif

#define PROGRAM             "dlqd_bench_stats"
#define PRELOAD_CHUNK       100000
#define PRELOAD_CLIENTS     4
#define PRELOAD_WINDOW      256
#define READY_TIMEOUT_MS    10000
#define REPLY_TIMEOUT_MS    30000
#define INDEX_TIMEOUT_MS    600000
#define STOP_TIMEOUT_MS     60000
#define TARGET_MS           10.0
#define SINK                "dead"

typedef struct {
    size_t      events;
    size_t      calls;
    const char *dlqd;
    bool        keep;
} options_t;

static int
usage (FILE *out, int code)
{
    fprintf (out,
        "usage: " PROGRAM " [options]\n"
        "Measures STATS with a backlog of N events behind a sink that never\n"
        "delivers, on the embedded store of a dlqd it starts.\n"
        "\n"
        "  --events N     the backlog, events PUT first (default 1000000)\n"
        "  --calls K      STATS requests timed (default 200)\n"
        "  --dlqd PATH    dlqd binary to start (default %s)\n"
        "  --keep         keep the temporary directory (config, store, log)\n"
        "  --help         this text\n"
        "\n"
        "Exit status: 0 run completed, 1 failure, 64 usage error.\n", DLQD_BINARY);
    return code;
}

/* Returns -1 to go on, or an exit status. */
static int
parse_options (int argc, char **argv, options_t *o)
{
    static const struct option longs [] = {
        { "events", required_argument, NULL, 'n' },
        { "calls", required_argument, NULL, 'c' },
        { "dlqd", required_argument, NULL, 'd' },
        { "keep", no_argument, NULL, 'k' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 }
    };
    *o = (options_t) { .events = 1000000, .calls = 200, .dlqd = DLQD_BINARY };
    int opt;
    while ((opt = getopt_long (argc, argv, "h", longs, NULL)) != -1) {
        bool ok = true;
        switch (opt) {
            case 'n': ok = bench_parse_count (PROGRAM, "events", optarg, 1, 100000000, &o->events); break;
            case 'c': ok = bench_parse_count (PROGRAM, "calls", optarg, 1, 1000000, &o->calls); break;
            case 'd': o->dlqd = optarg; break;
            case 'k': o->keep = true; break;
            case 'h': return usage (stdout, 0);
            default:  return usage (stderr, 64);
        }
        if (!ok)
            return usage (stderr, 64);
    }
    if (optind < argc) {
        fprintf (stderr, PROGRAM ": unexpected argument '%s'\n", argv [optind]);
        return usage (stderr, 64);
    }
    return -1;
}

/* The integer at a dotted path of a STATS reply ("spool.indexLagEvents"),
 * or -1 when it has none. */
static int64_t
stat_of (const char *reply, const char *const *path, size_t depth)
{
    dlq_json_doc_t *doc = NULL;
    int64_t n = -1;
    if (dlq_json_parse (reply, strlen (reply), &doc, NULL) == DLQ_JSON_OK) {
        const dlq_json_value_t *v = dlq_json_root (doc);
        for (size_t i = 0; i < depth && v; i++)
            v = dlq_json_get (v, path [i]);
        if (!v || !dlq_json_as_int64 (v, &n))
            n = -1;
    }
    dlq_json_doc_destroy (&doc);
    return n;
}

/* STATS on sock: its reply (free it), or NULL with the reason on stderr. */
static char *
stats (void *sock)
{
    bool ok = false;
    char *reply = NULL;
    if (bench_gateway_request (sock, "STATS", "", REPLY_TIMEOUT_MS, &ok, &reply) && ok)
        return reply;
    fprintf (stderr, PROGRAM ": STATS: %.300s\n", reply ? reply : "no reply");
    free (reply);
    return NULL;
}

/* Wait until the store has indexed every event PUT. */
static bool
wait_indexed (void *sock)
{
    static const char *const lag [] = { "spool", "indexLagEvents" };
    for (int64_t deadline = dlq_time_mono_ms () + INDEX_TIMEOUT_MS; dlq_time_mono_ms () < deadline; ) {
        char *reply = stats (sock);
        if (!reply)
            return false;
        int64_t behind = stat_of (reply, lag, 2);
        free (reply);
        if (behind == 0)
            return true;
        usleep (200 * 1000);
    }
    fprintf (stderr, PROGRAM ": the store did not index the backlog within %d s\n", INDEX_TIMEOUT_MS / 1000);
    return false;
}

static bool
measure (void *ctx, const char *endpoint, const options_t *o)
{
    double preload_s = 0;
    if (!bench_gateway_preload (ctx, endpoint, o->events, PRELOAD_CHUNK, 1000, PRELOAD_CLIENTS, PRELOAD_WINDOW,
                                REPLY_TIMEOUT_MS, PROGRAM, &preload_s))
        return false;
    printf ("preload  : %zu events in %.1f s (%.0f events/s), behind sink " SINK " (never delivers)\n",
            o->events, preload_s, preload_s > 0 ? (double) o->events / preload_s : 0);
    void *sock = bench_gateway_connect (ctx, endpoint);
    if (!sock) {
        fprintf (stderr, PROGRAM ": cannot connect to %s\n", endpoint);
        return false;
    }
    bool ok = wait_indexed (sock);
    uint64_t *ns = calloc (o->calls, sizeof *ns);
    char *last = NULL;
    for (size_t i = 0; ok && i < o->calls; i++) {
        free (last);
        int64_t start = dlq_time_mono_ns ();
        last = stats (sock);
        ns [i] = (uint64_t) (dlq_time_mono_ns () - start);
        ok = last != NULL;
    }
    zmq_close (sock);
    if (ok) {
        static const char *const backlog [] = { "sinks", SINK, "backlog" },
                          *const retrying [] = { "sinks", SINK, "retrying" },
                          *const failed [] = { "sinks", SINK, "failed" };
        int64_t b = stat_of (last, backlog, 3), r = stat_of (last, retrying, 3), f = stat_of (last, failed, 3);
        double p50, p99, max;
        bench_latency_summary (ns, o->calls, &p50, &p99, &max);
        printf ("STATS    : %zu calls: p50 %.2f ms  p99 %.2f ms  max %.2f ms (target < %.0f ms: %s)\n", o->calls,
                p50, p99, max, TARGET_MS, p99 < TARGET_MS ? "met" : "MISSED");
        printf ("counted  : backlog %lld + retrying %lld + failed %lld = %lld of %zu events\n", (long long) b,
                (long long) r, (long long) f, (long long) (b + r + f), o->events);
        if (b < 0 || r < 0 || f < 0 || (size_t) (b + r + f) != o->events) {
            fprintf (stderr, PROGRAM ": STATS does not count the whole backlog\n");
            ok = false;
        }
    }
    free (last);
    free (ns);
    return ok;
}

/* Start our own dlqd in a temporary directory, measure, stop it. */
static bool
measure_own (const options_t *o, void *ctx)
{
    char dir [4096], err [4096], extra [512];
    if (!bench_daemon_temp_dir (dir, sizeof dir, "dlqd-bench-stats", PROGRAM))
        return false;
    int port = bench_free_port ();
    snprintf (extra, sizeof extra, "sinks: { " SINK ": { type = \"amqp\"; host = \"127.0.0.1\"; port = %d; }; };\n"
              "defaults: { chain = [ \"" SINK "\" ]; };\n", port > 0 ? port : 1);
    bench_daemon_t daemon = { 0 };
    memset (&daemon, 0, sizeof daemon);
    bool ok = bench_daemon_start (&daemon, ctx, o->dlqd, dir, extra, READY_TIMEOUT_MS, err, sizeof err);
    if (!ok)
        fprintf (stderr, PROGRAM ": %s\n", err);
    else {
        printf ("dlqd     : %s on %s (data in %s)\n", o->dlqd, daemon.endpoint, dir);
        ok = measure (ctx, daemon.endpoint, o);
    }
    return bench_daemon_finish (&daemon, dir, o->keep, STOP_TIMEOUT_MS, PROGRAM) && ok;
}

int
main (int argc, char **argv)
{
    options_t o;
    int status = parse_options (argc, argv, &o);
    if (status >= 0)
        return status;
    setvbuf (stdout, NULL, _IOLBF, 0);
    void *ctx = zmq_ctx_new ();
    bool ok = measure_own (&o, ctx);
    zmq_ctx_term (ctx);
    return ok ? 0 : 1;
}
