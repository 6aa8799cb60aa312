/*  bench_postgres — the postgres sink against PostgreSQL used directly, on
 *  the same generated events, in the same run (dlqd_bench --postgres C):
 *
 *    (i)   sink: a private dlqd whose every event goes to a postgres sink
 *          (default settings, a table of its own); events/s from the first
 *          PUT until STATS shows the sink's backlog 0 and delivered = N;
 *    (ii)  raw COPY: the same rows (the columns the sink fills, the values
 *          it derives from each canonical body) into a table made with
 *          CREATE TABLE ... (LIKE <the sink's table> INCLUDING ALL), so the
 *          same DDL, indexes and defaults, one COPY (one commit) per 1000
 *          rows over libpq;
 *    (iii) naive: one INSERT ... ON CONFLICT (id) DO NOTHING + commit per
 *          event, prepared once, on the first naive_events rows;
 *    (iv)  sink (drain): a private dlqd without sinks takes every PUT
 *          (acked), is stopped (SIGTERM, exit 0) and started again on the
 *          same data dir with the postgres sink in the default chain (a
 *          new sink: cursor 0, so every stored event is its backlog; the
 *          default stream policy keeps them 30 days); events/s from the
 *          restart (PING answered) until STATS shows delivered = N and
 *          backlog 0 -- the sink alone, without dlqd's ingest competing
 *          for the machine.
 *
 *  Fairness on a small, shared machine: (i), (ii) and (iv) run repeat times
 *  each, rotating which goes first (i ii iv, ii iv i, iv i ii, ...; after a
 *  warm-up sink run, whose table the others copy, and a COPY run), each on a fresh table after a
 *  CHECKPOINT (so no run pays for pages another left dirty); medians are
 *  compared. Ratios: sink / raw COPY (target >= 0.80) and sink / naive;
 *  then sink (drain) / raw COPY (same target).
 *  The column values are extracted from the bodies before any timing; the
 *  COPY text is written while timed. Every table is checked to hold its
 *  rows, then dropped (unless keep). The server must have fsync on (as
 *  contrib/scripts/pg-server.sh sets it) for the figures to mean
 *  durability.
 */
#ifndef DLQ_BENCH_POSTGRES_H
#define DLQ_BENCH_POSTGRES_H

#include "bench_events.h"

#include <stdbool.h>
#include <stddef.h>

#define BENCH_POSTGRES_TARGET_COPY 0.90     /* sink / raw COPY, at least */
#define BENCH_POSTGRES_COPY_ROWS   1000     /* rows per COPY */

typedef struct {
    const char *conninfo;           /* libpq conninfo of the server */
    const char *settings;           /* more settings of the sink's section (libconfig), or NULL */
    const char *dlqd;               /* binary to start (finds plugins in <its dir>/../plugins) */
    int         clients;
    int         window;
    size_t      naive_events;       /* rows of (iii); 0 skips it */
    size_t      repeat;             /* runs of (i) and of (ii), at most 100; 0 means 1 */
    bool        keep;               /* keep the tables */
    int         ready_ms;
    int         reply_timeout_ms;
    int         stop_ms;
} bench_postgres_options_t;

typedef struct {
    double sink_eps;                /* (i): N / (first PUT -> delivered all), median */
    double ingest_eps;              /* (i): acks/s of the same runs, median */
    double drained_ms;              /* (i): last ack -> delivered all, median */
    double copy_eps;                /* (ii), median */
    double drain_eps;               /* (iv): N / (restart (PING) -> delivered all), median */
    double naive_eps;               /* (iii); 0 when skipped */
    bool   failed;
} bench_postgres_result_t;

/* Run (i), (ii), (iii), (iv) with dlqd's directory under dir, printing a line
 * each and the ratios. False when something failed (messages on stderr);
 * a phase that cannot run after a failure is skipped. */
bool bench_postgres_run (const bench_postgres_options_t *options, const char *dir,
                         const bench_events_t *events, bench_postgres_result_t *result);

#endif
