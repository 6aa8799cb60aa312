/*  bench_sink — what the sink comparisons (bench_postgres, bench_amqp,
 *  bench_kafka, bench_mongo) share: one sink's figures in STATS, waiting
 *  until a sink delivered every event, the "drain" run, the rounds of
 *  drain and raw runs and their summary, the events as a sink gets them,
 *  a sink section's extra settings, libconfig quoting and medians.
 *
 *  The drain run measures a sink alone, without dlqd's ingest competing
 *  for the machine: a private dlqd without sinks takes every PUT (acked),
 *  is stopped (SIGTERM, exit 0) and started again on the same data dir
 *  with the sink in the default chain (a new sink: cursor 0, so every
 *  stored event is its backlog; the default stream policy keeps them 30
 *  days); it is timed from the restart (PING answered) until STATS shows
 *  the sink delivered = N, backlog 0, nothing retrying.
 */
#ifndef DLQ_BENCH_SINK_H
#define DLQ_BENCH_SINK_H

#include "bench_events.h"
#include "dlq_buf.h"
#include "dlq_sink.h"

#include <libconfig.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One sink's ledger figures in a STATS reply. */
typedef struct {
    long long backlog, delivered, retrying, failed;
    char      last_error [256];     /* "" until the sink reported one */
    int64_t   polled_ns;            /* when the reply came (monotonic) */
} bench_sink_stats_t;

/* The dlqd of a run and the PUT load it takes. */
typedef struct {
    const char *binary;             /* finds plugins in <its dir>/../plugins */
    int         clients;
    int         window;
    int         ready_ms;
    int         reply_timeout_ms;
    int         stop_ms;
} bench_sink_dlqd_t;

/* What a drain run measured. */
typedef struct {
    double eps;                     /* N / seconds */
    double seconds;                 /* restart (PING answered) -> delivered = N */
    double load_eps;                /* acks/s of the load (no sink in the chain) */
    double ping_ms;                 /* restart (exec) -> PING answered */
    long long delivered_at_ping;    /* delivered by the first STATS after PING: the sink starts
                                     * delivering before dlqd answers, so a head start */
    double steady_eps;              /* the rest / (first STATS -> delivered = N) */
} bench_sink_drain_t;

/* The figures of sink in a STATS reply on sock (bench_gateway_connect);
 * false with err when there is no reply or it lacks them. */
bool bench_sink_stats (void *sock, const char *sink, bench_sink_stats_t *stats,
                       char *err, size_t err_len);

/* Poll STATS until sink delivered count events (backlog 0, none
 * retrying): *done_ns is then when (monotonic). The polls are 10 ms apart
 * near the end, further apart (500 ms at most) while much is left, as
 * STATS costs dlqd time in proportion to the backlog. *first, when not
 * NULL, gets the figures of the first poll. False with err when the sink
 * failed events, delivered more than count, or was not done 120 s + 1 ms
 * per event after from_ns (since names that moment in the message, e.g.
 * "the last ack"). */
bool bench_sink_wait_delivered (void *sock, const char *sink, size_t count, int64_t from_ns,
                                const char *since, int64_t *done_ns, bench_sink_stats_t *first,
                                char *err, size_t err_len);

/* Make path and run a drain there (see the banner) with sink_config, the
 * top-level settings that define the sink named sink and put it in the
 * default chain. False with err; out has what was measured. */
bool bench_sink_drain (const bench_sink_dlqd_t *dlqd, const char *path, const char *sink,
                       const char *sink_config, const bench_events_t *events,
                       bench_sink_drain_t *out, char *err, size_t err_len);

/* ---- Rounds ----
 * A comparison of a sink with its backend used directly ("raw"): an
 * uncounted warm-up raw run, then repeat rounds of a drain run and a raw
 * run, alternating which goes first (drain raw, raw drain, ...) so that
 * neither always runs on a machine the other just warmed or loaded;
 * medians are compared. */

#define BENCH_SINK_MAX_REPEAT 100

typedef enum {
    BENCH_RUN_DRAIN,                /* the sink, draining a stored backlog */
    BENCH_RUN_RAW,                  /* the backend used directly */
    BENCH_RUN_OTHER                 /* a comparison's own kind */
} bench_run_kind_t;

typedef struct {
    bench_run_kind_t   kind;
    size_t             number;      /* 1-based per kind; 0 for the warm-up */
    size_t             events;
    double             eps;
    double             seconds;
    bench_sink_drain_t drain;       /* of a drain run */
    bool               failed;
} bench_run_t;

/* The rounds to run when repeat are asked for: at least 1, at most
 * BENCH_SINK_MAX_REPEAT. */
size_t bench_sink_repeat (size_t repeat);

/* Does one run: sets its eps, seconds, drain and failed (saying why on
 * stderr). */
typedef void (bench_run_fn_t) (void *ctx, bench_run_t *run);

/* The warm-up of warm_up events (at most events), then repeat (1 to
 * BENCH_SINK_MAX_REPEAT) rounds of events each, printing each run
 * (bench_sink_print_run with raw_done); runs gets the 2 * repeat counted
 * ones. False at the first run that failed (the rest are not run). */
bool bench_sink_rounds (size_t repeat, size_t events, size_t warm_up, bench_run_fn_t *run, void *ctx,
                        const char *raw_done, bench_run_t *runs);

/* Mark run failed (events/s 0), saying why on stderr: "<drain> run N: why"
 * or "<raw> run N: why" by its kind, "<raw> warm-up: why" for the
 * warm-up. */
void bench_sink_run_failed (bench_run_t *run, const char *drain, const char *raw, const char *why);

/* A line for run r: a drain run's figures, or a raw run's events/s and
 * "(<events> <raw_done>, in <seconds> s)" (raw_done, e.g. "publishes, all
 * confirmed"). */
void bench_sink_print_run (const bench_run_t *r, const char *raw_done);

/* A drain run of run->events events (bench_sink_drain) in
 * <dir>/<type>-drain-<number> with one sink named sink of type type in the
 * default chain, its section made of section (the benchmark's settings,
 * libconfig text) and settings (the user's, or NULL); fills run's eps,
 * seconds and drain. False with err. */
bool bench_sink_drain_run (const bench_sink_dlqd_t *dlqd, const char *dir, const char *sink, const char *type,
                           const char *section, const char *settings, const bench_events_t *events,
                           bench_run_t *run, char *err, size_t err_len);

/* "<label> runs : a warm-up ..., then ... alternating ...; <checked>". */
void bench_sink_print_rounds (const char *label, size_t warm_up, size_t repeat, const char *checked);

/* The medians of count runs: drain events/s, drain events/s from the
 * first STATS on (steady) and raw events/s. */
void bench_sink_medians (const bench_run_t *runs, size_t count, double *drain, double *steady, double *raw);

/* ---- A comparison ----
 * Its rounds and their summary: the medians of the drain and the raw
 * runs and the ratio sink / raw against a target. */

typedef struct {
    bench_run_fn_t *run_drain;      /* does a drain run */
    bench_run_fn_t *run_raw;        /* does a raw run (the warm-up's number is 0) */
    const char *name;               /* its lines: "<name> runs", "<name> sink (drain)", "<name> ratios" */
    const char *raw;                /* the label of the raw median, e.g. "raw mongoc bulk" */
    const char *raw_how;            /* how the raw runs write, e.g. "one client, the same bulks" */
    const char *raw_done;           /* as bench_sink_print_run's */
    const char *checked;            /* how each run is checked, as bench_sink_print_rounds' */
    double      target;             /* sink / raw, at least */
} bench_sink_comparison_t;

typedef struct {
    double sink_eps;                /* the drain runs, median */
    double steady_eps;              /* the drain runs from the first STATS after PING on, median */
    double raw_eps;                 /* the raw runs, median */
    bool   failed;
} bench_sink_result_t;

/* Print the rounds' line, run them (bench_sink_rounds with ctx: repeat as
 * bench_sink_repeat, a warm-up of warm_up events at most) and, when every
 * run went well, print and set out's medians and the ratios; out->failed
 * otherwise. Returns !out->failed. */
bool bench_sink_compare (const bench_sink_comparison_t *comparison, void *ctx, size_t repeat, size_t events,
                         size_t warm_up, bench_sink_result_t *out);

/* Each event as the dispatcher hands it to deliver (first delivery
 * attempt): the rows are the gateway's decode -> stream policy ->
 * canonical encode of the bodies (bench_events.h). The events point into
 * the rows; free the array. */
dlq_sink_event_t *bench_sink_events (const bench_events_t *events);

/* Read settings, more settings of a sink's section (libconfig text, as
 * given to --<option>-settings), into cfg as the group "s" (look them up
 * as "s.<name>"); NULL reads as none. False with err (naming option, cfg
 * destroyed) when the text does not parse or sets one of owned (a
 * NULL-terminated list of the names the benchmark sets itself); else
 * config_destroy cfg when done. */
bool bench_sink_settings (const char *option, const char *settings, const char *const *owned,
                          config_t *cfg, char *err, size_t err_len);

/* Reads what settings set (from cfg, as bench_sink_settings gives it) into
 * out; false with err. */
typedef bool (bench_settings_fn_t) (const config_t *cfg, void *out, char *err, size_t err_len);

/* bench_sink_settings, then apply on what was read; false with err. */
bool bench_sink_apply_settings (const char *option, const char *settings, const char *const *owned,
                                bench_settings_fn_t *apply, void *out, char *err, size_t err_len);

/* The integer setting s.<name> of cfg into *value when set; false with
 * err (naming option) when it is not from min to max. */
bool bench_sink_int_setting (const config_t *cfg, const char *option, const char *name, int min, int max,
                             int *value, char *err, size_t err_len);

/* Append text as the inside of a libconfig string literal (\ and "
 * escaped). */
void bench_sink_config_string (dlq_buf_t *out, const char *text);

#endif
