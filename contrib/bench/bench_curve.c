/*  bench_curve — plain vs. CURVE vs. CURVE with 1,000 keys and patterns,
 *  run in rotation on fresh dlqds (see the header).
 *
 *  Each run: mkdir <dir>/<kind>-<n>, (curve, keys) write the gateway's
 *  pair and the clients directory there, start dlqd, PUT every event as
 *  the load's key, check the store holds them all, stop dlqd (exit status
 *  0), remove the directory and sync.
 */
#include "bench_curve.h"

#include "bench_daemon.h"
#include "bench_gateway.h"
#include "bench_numbers.h"
#include "dlq_alloc.h"
#include "dlq_cert.h"
#include "dlq_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#define KINDS   3
#define ERR_LEN 4096

typedef enum { KIND_PLAIN, KIND_CURVE, KIND_KEYS } kind_t;

static const char *const kind_names [KINDS] = { "plain", "curve", "keys" };

typedef struct {
    kind_t kind;
    size_t number;                  /* 1-based per kind; 0: the warm-up */
    double eps, p50_ms, p99_ms, seconds;
    bool   failed;
} run_t;

/* A pair NAME in dir with metadata (count pairs); its keys into keys. */
static bool
make_pair (const char *dir, const char *name, const char *const *meta, size_t count, bench_curve_keys_t *keys,
           char *err, size_t err_len)
{
    char path [8400];
    snprintf (path, sizeof path, "%.4096s/%.200s.key", dir, name);
    if (dlq_cert_generate (path, meta, count, err, err_len) != DLQ_CERT_OK)
        return false;
    if (!keys)
        return true;
    dlq_cert_t *cert = NULL;
    if (dlq_cert_load (path, true, &cert, err, err_len) != DLQ_CERT_OK)
        return false;
    snprintf (keys->public_key, sizeof keys->public_key, "%s", dlq_cert_public (cert));
    snprintf (keys->secret_key, sizeof keys->secret_key, "%s", dlq_cert_secret (cert));
    dlq_cert_destroy (&cert);
    return true;
}

/* The load key's streams for KIND_KEYS: BENCH_CURVE_PATTERNS entries, the
 * events' streams ("<name>-stream") matched only by the last. */
static char *
many_patterns (void)
{
    dlq_buf_t b = DLQ_BUF_INIT;
    for (int i = 0; i < BENCH_CURVE_PATTERNS - 1; i++)
        dlq_buf_printf (&b, i % 2 ? "team-%03d.*," : "stream-%03d,", i);
    dlq_buf_puts (&b, "*-stream");
    return dlq_buf_steal (&b, NULL);
}

/* Write the gateway's pair, the clients directory and the security
 * section into extra (len bytes); the load's keys into keys, an admin's
 * (for STATS) into admin. */
static bool
write_security (kind_t kind, const char *dir, bench_curve_keys_t *keys, bench_curve_keys_t *admin, char *extra,
                size_t len, char *err, size_t err_len)
{
    char clients [4200];
    snprintf (clients, sizeof clients, "%.4096s/clients", dir);
    if (mkdir (clients, 0755) != 0) {
        snprintf (err, err_len, "cannot create %.3000s: %s", clients, strerror (errno));
        return false;
    }
    bench_curve_keys_t server;
    const char *server_meta [] = { "name", "gateway" };
    if (!make_pair (dir, "gateway", server_meta, 1, &server, err, err_len))
        return false;
    memcpy (keys->server, server.public_key, sizeof keys->server);
    char *patterns = kind == KIND_KEYS ? many_patterns () : NULL;
    const char *load_meta [] = { "name", "load", "role", kind == KIND_KEYS ? "worker" : "admin",
                                 "streams", patterns };
    const char *admin_meta [] = { "name", "observer", "role", "admin" };
    bool ok = make_pair (clients, "load", load_meta, kind == KIND_KEYS ? 3 : 2, keys, err, err_len)
           && make_pair (clients, "observer", admin_meta, 2, admin, err, err_len);
    memcpy (admin->server, server.public_key, sizeof admin->server);
    free (patterns);
    for (int i = 1; ok && kind == KIND_KEYS && i < BENCH_CURVE_KEYS; i++) {
        char name [32], streams [64];
        snprintf (name, sizeof name, "worker-%04d", i);
        snprintf (streams, sizeof streams, "team-%04d.*,other-%04d", i, i);
        const char *meta [] = { "name", name, "role", "worker", "streams", streams };
        ok = make_pair (clients, name, meta, 3, NULL, err, err_len);
    }
    snprintf (extra, len, "security: { curve: { server_secret_key = \"%.4096s/gateway.key_secret\"; "
              "clients = \"%.4200s\"; }; };", dir, clients);
    return ok;
}

static bool
stored_events (void *ctx, const char *endpoint, size_t expected, char *err, size_t err_len)
{
    for (int attempt = 0; attempt < 600; attempt++) {
        bool ok = false;
        char body [8192];
        if (!bench_gateway_call (ctx, endpoint, "STATS", "", 5000, 1000, NULL, NULL, &ok, body, sizeof body) || !ok) {
            snprintf (err, err_len, "STATS failed: %.300s", body);
            return false;
        }
        dlq_json_doc_t *doc = NULL;
        int64_t events = -1;
        if (dlq_json_parse (body, strlen (body), &doc, NULL) == DLQ_JSON_OK)
            dlq_json_as_int64 (dlq_json_get (dlq_json_root (doc), "events"), &events);
        dlq_json_doc_destroy (&doc);
        if (events == (int64_t) expected)
            return true;
        usleep (100 * 1000);            /* the store indexes behind the acks */
    }
    snprintf (err, err_len, "the store does not hold the %zu events", expected);
    return false;
}

static void
one_run (const bench_curve_options_t *o, const char *dir, const bench_events_t *ev, run_t *r)
{
    char path [4096], err [ERR_LEN] = "", extra [8600] = "";
    snprintf (path, sizeof path, "%s/%s-%zu", dir, kind_names [r->kind], r->number);
    bench_curve_keys_t keys = { "", "", "" }, admin = { "", "", "" };
    if (mkdir (path, 0700) != 0 || (r->kind != KIND_PLAIN
        && !write_security (r->kind, path, &keys, &admin, extra, sizeof extra, err, sizeof err))) {
        fprintf (stderr, "dlqd_bench: %s run %zu: %s\n", kind_names [r->kind], r->number,
                 err [0] ? err : strerror (errno));
        r->failed = true;
        return;
    }
    bench_gateway_use_curve (r->kind == KIND_PLAIN ? NULL : &keys);
    void *ctx = zmq_ctx_new ();
    bench_daemon_t daemon = { 0 };
    if (!bench_daemon_start (&daemon, ctx, o->dlqd, path, extra [0] ? extra : NULL, o->ready_ms, err, sizeof err))
        r->failed = true;
    else {
        bench_gateway_result_t g;
        bool complete = bench_gateway_run (ctx, daemon.endpoint, ev, o->clients, o->window, o->reply_timeout_ms, &g);
        if (!complete || g.errors) {
            snprintf (err, sizeof err, "%s %zu ERR replies (first: %s)", complete ? "" : g.failure, g.errors,
                      g.first_err);
            r->failed = true;
        }
        bench_gateway_use_curve (r->kind == KIND_PLAIN ? NULL : &admin);      /* STATS is not a worker's */
        if (!r->failed && !stored_events (ctx, daemon.endpoint, ev->count, err, sizeof err))
            r->failed = true;
        double stop_s;
        bench_gateway_figures (&g, ev->count, &r->eps, &r->p50_ms, &r->p99_ms, &r->seconds);
        if (!bench_daemon_stop (&daemon, o->stop_ms, &stop_s, err + strlen (err), sizeof err - strlen (err)))
            r->failed = true;
    }
    if (r->failed)
        fprintf (stderr, "dlqd_bench: %s run %zu: %s\n", kind_names [r->kind], r->number, err);
    zmq_ctx_term (ctx);
    bench_gateway_use_curve (NULL);
    if (!o->keep)
        bench_remove_tree (path);
    sync ();
}

static double
median_eps (const run_t *runs, size_t count, kind_t kind)
{
    double *values = dlq_calloc (count ? count : 1, sizeof *values);
    size_t n = 0;
    for (size_t i = 0; i < count; i++)
        if (runs [i].kind == kind && runs [i].number && !runs [i].failed)
            values [n++] = runs [i].eps;
    double m = bench_median (values, n);
    free (values);
    return m;
}

bool
bench_curve_run (const bench_curve_options_t *o, const char *dir, const bench_events_t *ev)
{
    size_t total = 1 + KINDS * o->repeat;
    run_t *runs = dlq_calloc (total, sizeof *runs);
    printf ("\nCURVE and authorization: %zu events, %d clients x %d in flight, %zu runs of each, rotating\n",
            ev->count, o->clients, o->window, o->repeat);
    bool ok = true;
    for (size_t i = 0; i < total && ok; i++) {
        run_t *r = &runs [i];
        r->kind = i == 0 ? KIND_PLAIN : (kind_t) ((i - 1 + (i - 1) / KINDS) % KINDS);
        r->number = i == 0 ? 0 : (i - 1) / KINDS + 1;
        one_run (o, dir, ev, r);
        ok = !r->failed;
        printf ("  %-8s #%zu: %7.0f events/s  (p50 %.1f ms, p99 %.1f ms; %.2f s)%s\n", kind_names [r->kind],
                r->number, r->eps, r->p50_ms, r->p99_ms, r->seconds,
                r->failed ? "  FAILED" : r->number == 0 ? "  warm-up, not counted" : "");
    }
    double plain = median_eps (runs, total, KIND_PLAIN), curve = median_eps (runs, total, KIND_CURVE);
    double keys = median_eps (runs, total, KIND_KEYS);
    double cost = plain > 0 ? 100 * (1 - curve / plain) : 0, key_cost = curve > 0 ? 100 * (1 - keys / curve) : 0;
    printf ("  median: plain %.0f, curve (1 admin key) %.0f, keys (%d keys, a worker of %d patterns) %.0f events/s\n",
            plain, curve, BENCH_CURVE_KEYS, BENCH_CURVE_PATTERNS, keys);
    printf ("  CURVE + authorization cost: %.1f%% of plain (target <= %.0f%%: %s)\n", cost, BENCH_CURVE_TARGET_COST,
            cost <= BENCH_CURVE_TARGET_COST ? "met" : "MISSED");
    printf ("  1,000 keys and patterns cost: %.1f%% of one key (target <= %.0f%%: %s)\n", key_cost,
            BENCH_CURVE_TARGET_KEYS, key_cost <= BENCH_CURVE_TARGET_KEYS ? "met" : "MISSED");
    free (runs);
    return ok;
}
