/*  bench_scrape — what a Prometheus scrape costs ingest: the same PUT load
 *  through fresh dlqds with an HTTP listener,
 *      quiet    nobody scrapes;
 *      scraped  a scraper GETs /metrics once a second (Prometheus's pace
 *               at a 1 s scrape_interval), each answer checked (200 and a
 *               dlqd_events_accepted_total line).
 *  After an uncounted warm-up run, pairs of the two kinds run back to back,
 *  repeat times (which goes first alternates); the medians of each kind
 *  and the median of the pairs' differences are printed (target: at most
 *  2% apart). Each run's daemon exits 0; the scraper's count and slowest
 *  scrape are printed.
 */
#ifndef DLQ_BENCH_SCRAPE_H
#define DLQ_BENCH_SCRAPE_H

#include "bench_daemon.h"
#include "bench_events.h"

#include <stdbool.h>
#include <stddef.h>

#define BENCH_SCRAPE_TARGET 2.0     /* percent: scraped at 1 Hz vs. nobody scraping */
#define BENCH_SCRAPE_PERIOD_MS 1000

typedef bench_runs_options_t bench_scrape_options_t;

/* Run the comparison in subdirectories of dir, printing a line per run and
 * the summary. False when a run failed (messages on stderr). */
bool bench_scrape_run (const bench_scrape_options_t *options, const char *dir, const bench_events_t *events);

#endif
