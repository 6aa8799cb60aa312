/*  dlq_histogram — a latency or size distribution in fixed buckets, for
 *  Prometheus histograms (dlq_prom.h). Observing is a few relaxed atomic
 *  adds, so a hot path can observe on its own thread and a scrape read it
 *  from another at any time; a reading is consistent enough for
 *  monitoring (a sample observed during the read may show in the buckets
 *  and not yet in the sum).
 */
#ifndef DLQ_HISTOGRAM_H
#define DLQ_HISTOGRAM_H

#include <stddef.h>
#include <stdint.h>

#define DLQ_HISTOGRAM_BUCKETS_MAX 24

typedef struct dlq_histogram dlq_histogram_t;

/* What one reading holds: for each bound (ascending, in the unit observed)
 * the count of samples at most that bound, cumulative as Prometheus wants
 * them; count is every sample (the +Inf bucket), sum their total. */
typedef struct {
    const double *bounds;
    size_t        bound_count;
    uint64_t      cumulative [DLQ_HISTOGRAM_BUCKETS_MAX];
    uint64_t      count;
    double        sum;
} dlq_histogram_reading_t;

/* A histogram over bounds (ascending, at most DLQ_HISTOGRAM_BUCKETS_MAX;
 * the array must outlive it: a static table). */
dlq_histogram_t *dlq_histogram_new (const double *bounds, size_t bound_count);

/* Free; accepts NULL and NULLs the pointer. */
void dlq_histogram_destroy (dlq_histogram_t **self_p);

/* Count one sample of value (negative values count as 0). Any thread. */
void dlq_histogram_observe (dlq_histogram_t *self, double value);

/* What the histogram holds now, into out. Any thread. */
void dlq_histogram_read (const dlq_histogram_t *self, dlq_histogram_reading_t *out);

/* Bounds in seconds from 0.5 ms to 10 s (a latency), and in events from 1
 * to 16384 (a batch's size). */
extern const double dlq_histogram_seconds [];
extern const size_t dlq_histogram_seconds_count;
extern const double dlq_histogram_sizes [];
extern const size_t dlq_histogram_sizes_count;

#endif
