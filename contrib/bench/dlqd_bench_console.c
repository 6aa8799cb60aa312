/*  dlqd_bench_console — how fast the console's pages are answered on a big
 *  store: the server time of the HTTP API requests behind them.
 *
 *  One process, one dlqd started from the build tree on a temporary
 *  directory, with an HTTP listener:
 *    1. preload: N events (default 1,000,000 realistic ~1.35 KB
 *       FailedEvents of bench_events) PUT pipelined, then wait until the
 *       embedded store has indexed them all;
 *    2. then --repeat times (default 20) each request the console makes
 *       for its pages: the events page's first page (GET
 *       /api/v1/events?limit=50), its second page (by cursor), the
 *       groups page (GET /api/v1/groups?limit=50), the biggest group's
 *       events (its fingerprint), a stream's events, and one event;
 *    3. print each request's p50 / p99 / max in ms (the time from the
 *       request sent to the whole answer read, on loopback: the server's
 *       time plus one round trip) and the target: the events page's first
 *       page and a group's events at most 100 ms.
 *  Exit status: 0 when every request was answered 200 (the target is
 *  reported, not enforced), 1 on a failure, 64 on a usage error.
 */
#include "bench_daemon.h"
#include "bench_gateway.h"
#include "bench_http.h"
#include "bench_numbers.h"
#include "dlq_json.h"
#include "dlq_time.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#define PROGRAM "dlqd_bench_console"
#define PRELOAD_CHUNK 100000
#define PRELOAD_CLIENTS 4
#define PRELOAD_WINDOW 256
#define READY_MS 20000
#define REPLY_TIMEOUT_MS 120000
#define STOP_MS 60000
#define INDEX_WAIT_S 1200
#define ANSWER_MAX (16u << 20)
#define TARGET_MS 100.0
#define REPEAT_MAX 1000

typedef struct {
    size_t      events, repeat;
    const char *dlqd;
    bool        keep;
} options_t;

static int
usage (FILE *out, int code)
{
    fprintf (out,
        "usage: " PROGRAM " [options]\n"
        "Measures the HTTP API requests behind the console's pages on a big store.\n"
        "\n"
        "  --events N     events stored first (default 1000000)\n"
        "  --repeat K     times each request is made (default 20, at most %d)\n"
        "  --dlqd PATH    dlqd binary to start (default %s)\n"
        "  --keep         keep the temporary directory (config, store, log)\n"
        "  --help         this text\n"
        "\n"
        "Exit status: 0 run completed, 1 failure, 64 usage error.\n", REPEAT_MAX, DLQD_BINARY);
    return code;
}

static int
parse_options (int argc, char **argv, options_t *o)
{
    static const struct option longs [] = {
        { "events", required_argument, NULL, 'n' }, { "repeat", required_argument, NULL, 'r' },
        { "dlqd", required_argument, NULL, 'd' }, { "keep", no_argument, NULL, 'k' },
        { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 }
    };
    *o = (options_t) { .events = 1000000, .repeat = 20, .dlqd = DLQD_BINARY };
    int opt;
    while ((opt = getopt_long (argc, argv, "h", longs, NULL)) != -1) {
        bool ok = true;
        switch (opt) {
            case 'n': ok = bench_parse_count (PROGRAM, "events", optarg, 1, 100000000, &o->events); break;
            case 'r': ok = bench_parse_count (PROGRAM, "repeat", optarg, 1, REPEAT_MAX, &o->repeat); break;
            case 'd': o->dlqd = optarg; break;
            case 'k': o->keep = true; break;
            case 'h': return usage (stdout, 0);
            default:  return usage (stderr, 64);
        }
        if (!ok)
            return usage (stderr, 64);
    }
    return optind < argc ? usage (stderr, 64) : -1;
}

/* The string at path ("events.0.id": members and array indexes) of the
 * JSON body, copied into out; false when there is none. */
static bool
member_string (const char *body, const char *path, char *out, size_t len)
{
    dlq_json_doc_t *doc = NULL;
    bool found = false;
    if (dlq_json_parse (body, strlen (body), &doc, NULL) == DLQ_JSON_OK) {
        const dlq_json_value_t *v = dlq_json_root (doc);
        char step [64];
        for (const char *p = path; v && *p; ) {
            size_t n = strcspn (p, ".");
            snprintf (step, sizeof step, "%.*s", (int) n, p);
            if (v->type == DLQ_JSON_ARRAY) {
                long k = strtol (step, NULL, 10);
                for (v = v->child; v && k > 0; k--)
                    v = v->next;
            }
            else
                v = dlq_json_get (v, step);
            p += n + (p [n] == '.');
        }
        if (v && v->type == DLQ_JSON_STRING && v->len < len) {
            memcpy (out, v->str, v->len);
            out [v->len] = '\0';
            found = true;
        }
    }
    dlq_json_doc_destroy (&doc);
    return found;
}

/* Every event indexed: STATS events == n and no index lag. */
static bool
wait_indexed (void *ctx, const char *endpoint, size_t n)
{
    for (int i = 0; i < INDEX_WAIT_S * 2; i++) {
        bool ok = false;
        char body [16384];
        if (!bench_gateway_call (ctx, endpoint, "STATS", "", 30000, 1000, NULL, NULL, &ok, body, sizeof body) || !ok)
            return false;
        const char *events = strstr (body, "\"events\":"), *lag = strstr (body, "\"indexLagEvents\":");
        if (events && lag && (size_t) atoll (events + 9) == n && atoll (lag + 17) == 0)
            return true;
        usleep (500 * 1000);
    }
    fprintf (stderr, PROGRAM ": the store did not index the %zu events in %d s\n", n, INDEX_WAIT_S);
    return false;
}

/* GET path repeat times; its p50 / p99 / max printed; false on an answer
 * that is not 200. The last answer's body into *last (caller frees). */
static bool
measure (int port, const char *label, const char *path, size_t repeat, bool targeted, bool *met, char **last)
{
    uint64_t *ns = calloc (repeat, sizeof *ns);
    *last = NULL;
    for (size_t i = 0; i < repeat; i++) {
        int status = 0;
        char *body = NULL;
        int64_t start = dlq_time_mono_ns ();
        bool ok = bench_http_get (port, path, ANSWER_MAX, &status, &body);
        ns [i] = (uint64_t) (dlq_time_mono_ns () - start);
        if (!ok || status != 200) {
            fprintf (stderr, PROGRAM ": GET %s: %d %.300s\n", path, status, body ? body : "no answer");
            free (body);
            free (ns);
            return false;
        }
        free (*last);
        *last = body;
    }
    double p50, p99, max;
    bench_latency_summary (ns, repeat, &p50, &p99, &max);
    free (ns);
    bool ok = p99 <= TARGET_MS;
    if (targeted)
        *met = *met && ok;
    printf ("  %-28s p50 %7.1f ms  p99 %7.1f ms  max %7.1f ms%s\n", label, p50, p99, max,
            targeted ? (ok ? "  (target <= 100 ms: met)" : "  (target <= 100 ms: MISSED)") : "");
    return true;
}

static bool
run (const options_t *o, const char *dir)
{
    char err [4096], extra [128];
    int port = bench_http_free_port ();
    snprintf (extra, sizeof extra, "http: { listen = [\"127.0.0.1:%d\"]; };", port);
    void *ctx = zmq_ctx_new ();
    bench_daemon_t daemon = { 0 };
    if (!bench_daemon_start (&daemon, ctx, o->dlqd, dir, extra, READY_MS, err, sizeof err)) {
        fprintf (stderr, PROGRAM ": %s\n", err);
        zmq_ctx_term (ctx);
        return false;
    }
    double s = 0;
    bool ok = bench_gateway_preload (ctx, daemon.endpoint, o->events, PRELOAD_CHUNK, 1000, PRELOAD_CLIENTS,
                                     PRELOAD_WINDOW, REPLY_TIMEOUT_MS, PROGRAM, &s);
    int64_t indexed = dlq_time_mono_ms ();
    ok = ok && wait_indexed (ctx, daemon.endpoint, o->events);
    if (ok)
        printf ("preload         : %zu events in %.1f s, indexed %.1f s after the last ack\n", o->events, s,
                (double) (dlq_time_mono_ms () - indexed) / 1000.0);
    bool met = true;
    char *body = NULL, cursor [256] = "", fingerprint [64] = "", stream [256] = "", id [64] = "", path [1024];
    printf ("\nthe console's requests, %zu times each, on %zu stored events:\n", o->repeat, o->events);
    ok = ok && measure (port, "events, first page", "/api/v1/events?limit=50", o->repeat, true, &met, &body);
    if (ok && member_string (body, "nextCursor", cursor, sizeof cursor)
        && member_string (body, "events.0.streamName", stream, sizeof stream)
        && member_string (body, "events.0.id", id, sizeof id)) {
        free (body);
        snprintf (path, sizeof path, "/api/v1/events?limit=50&cursor=%s", cursor);
        ok = measure (port, "events, second page", path, o->repeat, false, &met, &body);
    }
    free (body);
    ok = ok && measure (port, "groups", "/api/v1/groups?limit=50", o->repeat, false, &met, &body);
    if (ok && member_string (body, "groups.0.fingerprint", fingerprint, sizeof fingerprint)) {
        free (body);
        snprintf (path, sizeof path, "/api/v1/events?limit=50&fingerprint=%s", fingerprint);
        ok = measure (port, "the biggest group's events", path, o->repeat, true, &met, &body);
    }
    free (body);
    if (ok && stream [0]) {
        snprintf (path, sizeof path, "/api/v1/events?limit=50&streamName=%s", stream);
        ok = measure (port, "a stream's events", path, o->repeat, false, &met, &body);
        free (body);
    }
    if (ok && id [0]) {
        snprintf (path, sizeof path, "/api/v1/events/%s", id);
        ok = measure (port, "one event", path, o->repeat, false, &met, &body);
        free (body);
    }
    if (ok)
        printf ("target (events page and a group's events, p99 <= 100 ms): %s\n", met ? "met" : "MISSED");
    double drain;
    if (!bench_daemon_stop (&daemon, STOP_MS, &drain, err, sizeof err)) {
        fprintf (stderr, PROGRAM ": %s\n", err);
        ok = false;
    }
    zmq_ctx_term (ctx);
    return ok;
}

int
main (int argc, char **argv)
{
    options_t o;
    int code = parse_options (argc, argv, &o);
    if (code >= 0)
        return code;
    char dir [4096];
    if (!bench_daemon_temp_dir (dir, sizeof dir, "dlqd-bench-console", PROGRAM))
        return 1;
    bool ok = run (&o, dir);
    if (!o.keep)
        bench_remove_tree (dir);
    else
        printf ("kept %s\n", dir);
    return ok ? 0 : 1;
}
