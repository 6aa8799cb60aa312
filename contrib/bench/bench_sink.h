/*  bench_sink — what the sink comparisons (bench_postgres, bench_amqp)
 *  share: one sink's figures in STATS, waiting until a sink delivered
 *  every event, the "drain" run, libconfig quoting and medians.
 *
 *  The drain run measures a sink alone, without dlqd's ingest competing
 *  for the machine: a private dlqd without sinks takes every PUT (acked),
 *  is stopped (SIGTERM, exit 0) and started again on the same data dir
 *  with the sink in the default chain (a new sink: cursor 0, so every
 *  stored event is its backlog; the default stream policy keeps them 30
 *  days); it is timed from the restart (PING answered) until STATS shows
 *  the sink delivered = N, backlog 0, nothing retrying.
 */
#ifndef BENCH_SINK_H
#define BENCH_SINK_H

#include "bench_events.h"
#include "dlq_buf.h"

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

/* Append text as the inside of a libconfig string literal (\ and "
 * escaped). */
void bench_sink_config_string (dlq_buf_t *out, const char *text);

/* The median of n values (sorted in place); 0 when n is 0. */
double bench_median (double *values, size_t n);

#endif
