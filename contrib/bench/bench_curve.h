/*  bench_curve — what CURVE and authorization cost ingest: the same PUT
 *  load through fresh dlqds
 *      plain   no security settings;
 *      curve   security.curve, one client key of role admin (every stream);
 *      keys    security.curve with BENCH_CURVE_KEYS client certificates in
 *              the directory, the load's key a worker whose streams are
 *              BENCH_CURVE_PATTERNS names and '*' patterns, the events'
 *              streams matched by the last of them.
 *  After an uncounted warm-up run (plain), the three kinds run back to
 *  back, repeat times, in rotating order; medians are compared: curve
 *  against plain (target: at most 25% slower) and keys against curve
 *  (target: at most 3%). Each run stores every event (STATS) and the
 *  daemon exits 0.
 */
#ifndef DLQ_BENCH_CURVE_H
#define DLQ_BENCH_CURVE_H

#include "bench_daemon.h"
#include "bench_events.h"

#include <stdbool.h>
#include <stddef.h>

#define BENCH_CURVE_KEYS        1000
#define BENCH_CURVE_PATTERNS    1000
#define BENCH_CURVE_TARGET_COST 25.0    /* percent: CURVE + authorization vs. neither */
#define BENCH_CURVE_TARGET_KEYS 3.0     /* percent: 1,000 keys and patterns vs. one key */

typedef bench_runs_options_t bench_curve_options_t;

/* Run the comparison in subdirectories of dir, printing a line per run and
 * the summary. False when a run failed (messages on stderr). */
bool bench_curve_run (const bench_curve_options_t *options, const char *dir, const bench_events_t *events);

#endif
