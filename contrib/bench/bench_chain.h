/*  bench_chain — what a sink chain costs ingest: the same PUT load through a
 *  dlqd without sinks and through one whose every event fans out to a chain
 *  of two noop sink plugins (one dispatcher thread each, reading the spool
 *  and recording delivery state through the committer's transactions).
 *
 *  Fairness on a small, noisy machine: each run starts its own dlqd on a
 *  fresh data directory (removed, and the removal synced, before the next
 *  run); an uncounted warm-up run (no sinks) comes first, so that every
 *  counted run follows a run of the same size; then the two kinds run back
 *  to back, repeat times, alternating which goes first (ABBA...), so slow
 *  drift hits both; medians are compared. The first failed run ends it.
 *  After a chain run's last ack, STATS is polled every 10 ms until both
 *  sinks' backlog is 0: that is the drain time; then the sinks' delivered
 *  counts must equal the events.
 */
#ifndef DLQ_BENCH_CHAIN_H
#define DLQ_BENCH_CHAIN_H

#include "bench_daemon.h"
#include "bench_events.h"

#include <stdbool.h>
#include <stddef.h>

#define BENCH_CHAIN_TARGET_COST 15.0   /* percent of ingest throughput, at most */

typedef bench_runs_options_t bench_chain_options_t;

typedef struct {
    double plain_eps;               /* median events/s without sinks */
    double chain_eps;               /* median events/s with the chain */
    double cost_pct;                /* 100 * (1 - chain_eps / plain_eps) */
    double drained_ms;              /* median, last ack -> both backlogs 0 */
    bool   failed;                  /* a run failed; the figures may be partial */
} bench_chain_result_t;

/* Run the comparison in subdirectories of dir, printing a line per run and
 * the summary (medians, cost against the target, drain). Returns false
 * when a run failed (messages on stderr). */
bool bench_chain_run (const bench_chain_options_t *options, const char *dir,
                      const bench_events_t *events, bench_chain_result_t *result);

#endif
