/*  bench_sink — the sink comparisons' shared parts; see bench_sink.h.
 *
 *  A drain run: mkdir <path>, start dlqd there without sinks, PUT every
 *  event, stop it; start it again with the sink's config and poll STATS
 *  from PING until the sink delivered everything; stop it.
 */
#include "bench_sink.h"

#include "bench_daemon.h"
#include "bench_gateway.h"
#include "bench_numbers.h"
#include "dlq_alloc.h"
#include "dlq_json.h"
#include "dlq_time.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <zmq.h>

#define POLL_MS             10      /* the shortest pause between two polls */
#define POLL_MAX_MS         500     /* the longest */
#define POLL_SHARE          8       /* a pause is at most this share of the time left */
#define ERR_LEN             4096
#define DAY_MS              86400000LL


/* ------------------------------------------------------------------------ */
/* STATS */

bool
bench_sink_stats (void *sock, const char *sink, bench_sink_stats_t *s, char *err, size_t err_len)
{
    bool ok = false;
    char *body = bench_gateway_stats (sock, &ok, err, err_len);
    if (!body)
        return false;
    dlq_json_doc_t *doc = NULL;
    bool parsed = ok && dlq_json_parse (body, strlen (body), &doc, NULL) == DLQ_JSON_OK;
    const dlq_json_value_t *figures = parsed
        ? dlq_json_get (dlq_json_get (dlq_json_root (doc), "sinks"), sink) : NULL;
    int64_t v [4];
    const char *names [] = { "backlog", "delivered", "retrying", "failed" };
    for (int i = 0; parsed && i < 4; i++)
        parsed = dlq_json_as_int64 (dlq_json_get (figures, names [i]), &v [i]);
    if (parsed) {
        *s = (bench_sink_stats_t) { v [0], v [1], v [2], v [3], "", dlq_time_mono_ns () };
        const dlq_json_value_t *e = dlq_json_get (figures, "lastError");
        if (e && e->type == DLQ_JSON_STRING)
            snprintf (s->last_error, sizeof s->last_error, "%s", e->str);
    }
    else
        snprintf (err, err_len, "STATS without sinks.%s figures: %.300s", sink, body);
    dlq_json_doc_destroy (&doc);
    free (body);
    return parsed;
}

static void
sleep_ms (int ms)
{
    struct timespec ts = { ms / 1000, (long) (ms % 1000) * 1000000L };
    while (nanosleep (&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* The pause before the next poll: 1/POLL_SHARE of the time the sink
 * still needs at its pace since the first poll, within [POLL_MS,
 * POLL_MAX_MS]: a long drain is not polled more often than its end needs
 * (each STATS is a request the gateway serves beside the sink being
 * measured); near the end the backlog is short and the polls are
 * POLL_MS apart, so the end is still seen within POLL_MS. */
static int
poll_pause_ms (const bench_sink_stats_t *first, const bench_sink_stats_t *last, size_t count)
{
    long long done = last->delivered - first->delivered;
    if (done <= 0 || last->polled_ns <= first->polled_ns)
        return POLL_MS;
    double pace = (double) done / (double) (last->polled_ns - first->polled_ns);   /* events per ns */
    double left_ms = (double) ((long long) count - last->delivered) / pace / 1e6;
    double pause = left_ms / POLL_SHARE;
    return pause < POLL_MS ? POLL_MS : pause > POLL_MAX_MS ? POLL_MAX_MS : (int) pause;
}

bool
bench_sink_wait_delivered (void *sock, const char *sink, size_t count, int64_t from_ns,
                           const char *since, int64_t *done_ns, bench_sink_stats_t *first,
                           char *err, size_t err_len)
{
    /* generous: a slow server still finishes, a stuck sink is reported */
    int64_t limit_ms = 120000 + (int64_t) count;
    bench_sink_stats_t s, at_first;
    for (bool polled = false; ; polled = true) {
        if (!bench_sink_stats (sock, sink, &s, err, err_len))
            return false;
        int64_t now = s.polled_ns;
        if (!polled) {
            at_first = s;
            if (first)
                *first = s;
        }
        if (s.failed) {
            snprintf (err, err_len, "the sink failed %lld events (last error: %s)", s.failed, s.last_error);
            return false;
        }
        if (s.backlog == 0 && s.retrying == 0 && s.delivered == (long long) count) {
            *done_ns = now;
            return true;
        }
        if (s.delivered > (long long) count) {
            snprintf (err, err_len, "the sink delivered %lld events, expected %zu", s.delivered, count);
            return false;
        }
        if (now - from_ns > limit_ms * 1000000) {
            snprintf (err, err_len, "the sink did not deliver everything within %lld ms of %s"
                      " (backlog %lld, delivered %lld, retrying %lld; last error: %s)",
                      (long long) limit_ms, since, s.backlog, s.delivered, s.retrying, s.last_error);
            return false;
        }
        sleep_ms (poll_pause_ms (&at_first, &s, count));
    }
}


/* ------------------------------------------------------------------------ */
/* The drain run */

static bool
stop_daemon (const bench_sink_dlqd_t *o, bench_daemon_t *daemon)
{
    double stop_s;
    char stop_err [ERR_LEN];
    if (bench_daemon_stop (daemon, o->stop_ms, &stop_s, stop_err, sizeof stop_err))
        return true;
    fprintf (stderr, "dlqd_bench: %s\n", stop_err);
    return false;
}

/* 1: every event into a dlqd without sinks, which is stopped again. */
static bool
load (const bench_sink_dlqd_t *o, void *ctx, const char *path, const bench_events_t *ev,
      bench_sink_drain_t *out, char *err, size_t err_len)
{
    bench_daemon_t daemon = { 0 };
    if (!bench_daemon_start (&daemon, ctx, o->binary, path, NULL, o->ready_ms, err, err_len))
        return false;
    bench_gateway_result_t g;
    bool complete = bench_gateway_run (ctx, daemon.endpoint, ev, o->clients, o->window,
                                       o->reply_timeout_ms, &g);
    bool ok = complete && g.errors == 0 && g.ok == ev->count;
    if (!ok)
        snprintf (err, err_len, "load: %s%s%zu ERR replies, %zu acks of %zu (first: %s)",
                  complete ? "" : g.failure, complete ? "" : "; ", g.errors, g.ok, ev->count,
                  g.first_err);
    out->load_eps = g.seconds > 0 ? (double) g.ok / g.seconds : 0;
    bench_gateway_result_free (&g);
    return stop_daemon (o, &daemon) && ok;
}

/* 2: the restart with the sink; 3: timed until it delivered all. */
static bool
drain (const bench_sink_dlqd_t *o, void *ctx, const char *path, const char *sink,
       const char *sink_config, size_t count, bench_sink_drain_t *out, char *err, size_t err_len)
{
    bench_daemon_t daemon = { 0 };
    int64_t exec_ns = dlq_time_mono_ns ();
    if (!bench_daemon_start (&daemon, ctx, o->binary, path, sink_config, o->ready_ms, err, err_len))
        return false;
    int64_t start_ns = dlq_time_mono_ns (), done_ns = start_ns;
    out->ping_ms = (double) (start_ns - exec_ns) / 1e6;
    void *sock = bench_gateway_connect (ctx, daemon.endpoint);
    bool ok = sock != NULL;
    if (!sock)
        snprintf (err, err_len, "cannot connect for STATS");
    else {
        bench_sink_stats_t first;
        ok = bench_sink_wait_delivered (sock, sink, count, start_ns, "the restart", &done_ns, &first,
                                        err, err_len);
        zmq_close (sock);
        out->delivered_at_ping = ok ? first.delivered : 0;
        if (ok && done_ns > first.polled_ns)
            out->steady_eps = (double) ((long long) count - first.delivered)
                            / ((double) (done_ns - first.polled_ns) / 1e9);
    }
    out->seconds = (double) (done_ns - start_ns) / 1e9;
    out->eps = ok && out->seconds > 0 ? (double) count / out->seconds : 0;
    return stop_daemon (o, &daemon) && ok;
}

bool
bench_sink_drain (const bench_sink_dlqd_t *o, const char *path, const char *sink,
                  const char *sink_config, const bench_events_t *ev, bench_sink_drain_t *out,
                  char *err, size_t err_len)
{
    memset (out, 0, sizeof *out);
    if (mkdir (path, 0700) != 0) {
        snprintf (err, err_len, "cannot create %s: %s", path, strerror (errno));
        return false;
    }
    void *ctx = zmq_ctx_new ();
    bool ok = load (o, ctx, path, ev, out, err, err_len)
           && drain (o, ctx, path, sink, sink_config, ev->count, out, err, err_len);
    zmq_ctx_term (ctx);
    return ok;
}


/* ------------------------------------------------------------------------ */
/* Rounds */

size_t
bench_sink_repeat (size_t repeat)
{
    return repeat == 0 ? 1 : repeat > BENCH_SINK_MAX_REPEAT ? BENCH_SINK_MAX_REPEAT : repeat;
}

bool
bench_sink_rounds (size_t repeat, size_t events, size_t warm_up, bench_run_fn_t *run, void *ctx,
                   const char *raw_done, bench_run_t *runs)
{
    bench_run_t warm = { .kind = BENCH_RUN_RAW, .number = 0, .events = warm_up < events ? warm_up : events };
    if (warm.events) {
        run (ctx, &warm);
        bench_sink_print_run (&warm, raw_done);
        if (warm.failed)
            return false;
    }
    for (size_t i = 0; i < 2 * repeat; i++) {
        /* rounds alternate which kind goes first: drain raw, raw drain, ... */
        size_t round = i / 2;
        runs [i] = (bench_run_t) { .kind = (i + round) % 2 ? BENCH_RUN_RAW : BENCH_RUN_DRAIN,
                                   .number = round + 1, .events = events };
        run (ctx, &runs [i]);
        bench_sink_print_run (&runs [i], raw_done);
        if (runs [i].failed)
            return false;
    }
    return true;
}

bool
bench_sink_drain_run (const bench_sink_dlqd_t *dlqd, const char *dir, const char *sink, const char *type,
                      const char *section, const char *settings, const bench_events_t *ev, bench_run_t *run,
                      char *err, size_t err_len)
{
    char path [4096];
    snprintf (path, sizeof path, "%s/%s-drain-%zu", dir, type, run->number);
    dlq_buf_t config = DLQ_BUF_INIT;
    dlq_buf_printf (&config, "sinks: { %s: { type = \"%s\"; %s %s }; };\ndefaults: { chain = [\"%s\"]; };",
                    sink, type, section, settings ? settings : "", sink);
    bool ok = bench_sink_drain (dlqd, path, sink, config.data, ev, &run->drain, err, err_len);
    dlq_buf_free (&config);
    run->eps = run->drain.eps;
    run->seconds = run->drain.seconds;
    return ok;
}

void
bench_sink_run_failed (bench_run_t *run, const char *drain, const char *raw, const char *why)
{
    if (run->number == 0)
        fprintf (stderr, "dlqd_bench: %s warm-up: %s\n", raw, why);
    else
        fprintf (stderr, "dlqd_bench: %s run %zu: %s\n", run->kind == BENCH_RUN_DRAIN ? drain : raw, run->number,
                 why);
    run->eps = 0;
    run->failed = true;
}

void
bench_sink_print_run (const bench_run_t *r, const char *raw_done)
{
    if (r->failed)
        printf ("  %-14s: FAILED (see above)\n", r->kind == BENCH_RUN_DRAIN ? "sink drain" : "raw");
    else
    if (r->kind == BENCH_RUN_DRAIN)
        printf ("  sink drain #%-2zu: %7.0f events/s  (restart (PING) -> all %zu delivered in %.2f s, %lld of them"
                " by the first STATS, %.0f events/s from then on; exec -> PING %.0f ms; load without the sink:"
                " acks %.0f events/s)\n", r->number, r->eps, r->events, r->seconds, r->drain.delivered_at_ping,
                r->drain.steady_eps, r->drain.ping_ms, r->drain.load_eps);
    else
    if (r->number == 0)
        printf ("  warm-up raw   : %7.0f events/s  (%zu %s, in %.2f s; not counted)\n", r->eps, r->events,
                raw_done, r->seconds);
    else
        printf ("  raw #%-9zu: %7.0f events/s  (%zu %s, in %.2f s)\n", r->number, r->eps, r->events, raw_done,
                r->seconds);
}

void
bench_sink_print_rounds (const char *label, size_t warm_up, size_t repeat, const char *checked)
{
    printf ("%-16s: a warm-up (a raw run of %zu events), then %zu sink drain and %zu raw runs, alternating"
            " which goes first; %s\n", label, warm_up, repeat, repeat, checked);
}

void
bench_sink_medians (const bench_run_t *runs, size_t count, double *drain, double *steady, double *raw)
{
    double d [2 * BENCH_SINK_MAX_REPEAT], s [2 * BENCH_SINK_MAX_REPEAT], r [2 * BENCH_SINK_MAX_REPEAT];
    size_t drains = 0, raws = 0;
    for (size_t i = 0; i < count && i < 2 * BENCH_SINK_MAX_REPEAT; i++) {
        if (runs [i].kind == BENCH_RUN_DRAIN) {
            s [drains] = runs [i].drain.steady_eps;
            d [drains++] = runs [i].eps;
        }
        else
        if (runs [i].kind == BENCH_RUN_RAW)
            r [raws++] = runs [i].eps;
    }
    *drain = bench_median (d, drains);
    *steady = bench_median (s, drains);
    *raw = bench_median (r, raws);
}

/* The ctx of a comparison's rounds. */
typedef struct {
    const bench_sink_comparison_t *comparison;
    void                          *ctx;
} comparing_t;

static void
run_either (void *ctx, bench_run_t *run)
{
    const comparing_t *c = ctx;
    (run->kind == BENCH_RUN_DRAIN ? c->comparison->run_drain : c->comparison->run_raw) (c->ctx, run);
}

bool
bench_sink_compare (const bench_sink_comparison_t *c, void *ctx, size_t repeat, size_t events, size_t warm_up,
                    bench_sink_result_t *out)
{
    comparing_t comparing = { c, ctx };
    *out = (bench_sink_result_t) { .failed = true };
    char label [64];
    repeat = bench_sink_repeat (repeat);
    warm_up = warm_up < events ? warm_up : events;
    snprintf (label, sizeof label, "%s runs", c->name);
    bench_sink_print_rounds (label, warm_up, repeat, c->checked);
    bench_run_t runs [2 * BENCH_SINK_MAX_REPEAT];
    if (!bench_sink_rounds (repeat, events, warm_up, run_either, &comparing, c->raw_done, runs))
        return false;
    bench_sink_medians (runs, 2 * repeat, &out->sink_eps, &out->steady_eps, &out->raw_eps);
    double vs_raw = out->raw_eps > 0 ? out->sink_eps / out->raw_eps : 0;
    printf ("%s sink (drain): %7.0f events/s  (median of %zu; restart (PING) with a stored backlog of N"
            " -> delivered = N, backlog 0; from the first STATS on: %.0f events/s)\n", c->name, out->sink_eps,
            repeat, out->steady_eps);
    printf ("%-16s: %7.0f events/s  (median of %zu; %s)\n", c->raw, out->raw_eps, repeat, c->raw_how);
    snprintf (label, sizeof label, "%s ratios", c->name);
    printf ("%-16s: sink / raw %.2f (target >= %.2f: %s); sink from the first STATS on / raw %.2f"
            " (without the head start the sink gets before dlqd answers PING)\n", label, vs_raw, c->target,
            vs_raw >= c->target ? "met" : "MISSED", out->raw_eps > 0 ? out->steady_eps / out->raw_eps : 0);
    out->failed = false;
    return true;
}


/* ------------------------------------------------------------------------ */
/* What a sink gets */

/* The retention of the stream policy that set the row's expiresAt. */
static int32_t
retention_days (const bench_row_t *r)
{
    return r->expires_at == DLQ_TIME_NONE ? 0 : (int32_t) ((r->expires_at - r->created_at) / DAY_MS);
}

dlq_sink_event_t *
bench_sink_events (const bench_events_t *ev)
{
    dlq_sink_event_t *out = dlq_calloc (ev->count, sizeof *out);
    for (size_t i = 0; i < ev->count; i++) {
        const bench_row_t *r = &ev->rows [i];
        out [i] = (dlq_sink_event_t) {
            .id = r->id, .stream_name = r->stream_name, .operation_type = r->operation_type,
            .status = r->status, .document_key = r->document_key, .attempts = r->attempts,
            .first_attempt_at = r->first_attempt_at, .created_at = r->created_at,
            .expires_at = r->expires_at, .retention_days = retention_days (r),
            .json = r->json, .json_len = r->json_len, .delivery_attempt = 1,
        };
    }
    return out;
}

bool
bench_sink_settings (const char *option, const char *settings, const char *const *owned,
                     config_t *cfg, char *err, size_t err_len)
{
    dlq_buf_t text = DLQ_BUF_INIT;
    dlq_buf_printf (&text, "s: { %s };", settings ? settings : "");
    config_init (cfg);
    bool ok = config_read_string (cfg, text.data) == CONFIG_TRUE;
    if (!ok)
        snprintf (err, err_len, "--%s-settings: %s (in: %s)", option, config_error_text (cfg), text.data);
    char path [64];
    for (const char *const *name = owned; ok && *name; name++) {
        snprintf (path, sizeof path, "s.%s", *name);
        if (config_lookup (cfg, path)) {
            snprintf (err, err_len, "--%s-settings: %s is the benchmark's to set", option, *name);
            ok = false;
        }
    }
    if (!ok)
        config_destroy (cfg);
    dlq_buf_free (&text);
    return ok;
}

bool
bench_sink_int_setting (const config_t *cfg, const char *option, const char *name, int min, int max, int *value,
                        char *err, size_t err_len)
{
    char path [64];
    int v = 0;
    snprintf (path, sizeof path, "s.%s", name);
    if (!config_lookup_int (cfg, path, &v))
        return true;
    if (v >= min && v <= max) {
        *value = v;
        return true;
    }
    snprintf (err, err_len, "--%s-settings: %s %d is not from %d to %d", option, name, v, min, max);
    return false;
}

bool
bench_sink_apply_settings (const char *option, const char *settings, const char *const *owned,
                           bench_settings_fn_t *apply, void *out, char *err, size_t err_len)
{
    config_t cfg;
    if (!bench_sink_settings (option, settings, owned, &cfg, err, err_len))
        return false;
    bool ok = apply (&cfg, out, err, err_len);
    config_destroy (&cfg);
    return ok;
}


/* ------------------------------------------------------------------------ */
/* Small things */

void
bench_sink_config_string (dlq_buf_t *out, const char *text)
{
    for (const char *p = text; *p; p++) {
        if (*p == '\\' || *p == '"')
            dlq_buf_putc (out, '\\');
        dlq_buf_putc (out, *p);
    }
}
