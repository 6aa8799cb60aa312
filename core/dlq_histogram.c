/*  dlq_histogram — fixed-bucket histograms with relaxed atomic counts. */
#include "dlq_histogram.h"

#include "dlq_alloc.h"

#include <stdatomic.h>
#include <stdlib.h>

/* the sum is kept in millionths of the unit, as an integer: atomic adds */
#define SUM_SCALE 1e6

struct dlq_histogram {
    const double         *bounds;
    size_t                bound_count;
    atomic_uint_fast64_t  buckets [DLQ_HISTOGRAM_BUCKETS_MAX + 1];  /* not cumulative; the last: above all */
    atomic_uint_fast64_t  sum;
};

const double dlq_histogram_seconds [] = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10
};
const size_t dlq_histogram_seconds_count = sizeof dlq_histogram_seconds / sizeof dlq_histogram_seconds [0];
const double dlq_histogram_sizes [] = {
    1, 4, 16, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384
};
const size_t dlq_histogram_sizes_count = sizeof dlq_histogram_sizes / sizeof dlq_histogram_sizes [0];

dlq_histogram_t *
dlq_histogram_new (const double *bounds, size_t bound_count)
{
    dlq_histogram_t *self = dlq_calloc (1, sizeof *self);
    self->bounds = bounds;
    self->bound_count = bound_count < DLQ_HISTOGRAM_BUCKETS_MAX ? bound_count : DLQ_HISTOGRAM_BUCKETS_MAX;
    return self;
}

void
dlq_histogram_destroy (dlq_histogram_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    free (*self_p);
    *self_p = NULL;
}

void
dlq_histogram_observe (dlq_histogram_t *self, double value)
{
    if (!(value > 0))                   /* negative or NaN */
        value = 0;
    size_t i = 0;
    while (i < self->bound_count && value > self->bounds [i])
        i++;
    atomic_fetch_add_explicit (&self->buckets [i], 1, memory_order_relaxed);
    double scaled = value * SUM_SCALE;
    uint64_t add = scaled < 1.8e19 ? (uint64_t) (scaled + 0.5) : UINT64_MAX / 2;
    atomic_fetch_add_explicit (&self->sum, add, memory_order_relaxed);
}

void
dlq_histogram_read (const dlq_histogram_t *self, dlq_histogram_reading_t *out)
{
    out->bounds = self->bounds;
    out->bound_count = self->bound_count;
    uint64_t total = 0;
    for (size_t i = 0; i < self->bound_count; i++) {
        total += atomic_load_explicit (&self->buckets [i], memory_order_relaxed);
        out->cumulative [i] = total;
    }
    out->count = total + atomic_load_explicit (&self->buckets [self->bound_count], memory_order_relaxed);
    out->sum = (double) atomic_load_explicit (&self->sum, memory_order_relaxed) / SUM_SCALE;
}
