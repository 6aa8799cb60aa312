/*  counters — atomic request counters. */
#include "counters.h"

#include "dlq_alloc.h"
#include "dlq_time.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

struct dlq_counters {
    atomic_uint_fast64_t accepted;
    atomic_uint_fast64_t duplicate;
    atomic_uint_fast64_t rejected;
    atomic_uint_fast64_t replies_dropped;
    atomic_uint_fast64_t connections;
    atomic_uint_fast64_t errors [DLQ_CODE_COUNT];
    int64_t              started_ms;
};

dlq_counters_t *
dlq_counters_new (void)
{
    dlq_counters_t *self = dlq_calloc (1, sizeof *self);
    self->started_ms = dlq_time_mono_ms ();
    return self;
}

void
dlq_counters_destroy (dlq_counters_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    free (*self_p);
    *self_p = NULL;
}

void dlq_counters_accepted (dlq_counters_t *self, uint64_t n) { atomic_fetch_add_explicit (&self->accepted, n, memory_order_relaxed); }
void dlq_counters_duplicate (dlq_counters_t *self, uint64_t n) { atomic_fetch_add_explicit (&self->duplicate, n, memory_order_relaxed); }

void dlq_counters_reply_dropped (dlq_counters_t *self, uint64_t n) { atomic_fetch_add_explicit (&self->replies_dropped, n, memory_order_relaxed); }
void dlq_counters_connections (dlq_counters_t *self, uint64_t n) { atomic_store_explicit (&self->connections, n, memory_order_relaxed); }

/* Codes that mean the client sent something wrong (as opposed to NOT_FOUND,
 * an ordinary answer, or UNAVAILABLE / INTERNAL, the gateway's trouble). */
static bool
is_bad_input (dlq_code_t code)
{
    return code != DLQ_OK && code != DLQ_ERR_NOT_FOUND
        && code != DLQ_ERR_UNAVAILABLE && code != DLQ_ERR_INTERNAL && code != DLQ_ERR_INVALID_STATE;
}

void
dlq_counters_error (dlq_counters_t *self, dlq_code_t code)
{
    if ((unsigned) code >= DLQ_CODE_COUNT)
        code = DLQ_ERR_INTERNAL;
    atomic_fetch_add_explicit (&self->errors [code], 1, memory_order_relaxed);
    if (is_bad_input (code))
        atomic_fetch_add_explicit (&self->rejected, 1, memory_order_relaxed);
}

void
dlq_counters_format (const dlq_counters_t *self, dlq_buf_t *out)
{
    dlq_buf_printf (out, "\"counters\":{\"accepted\":%llu,\"duplicate\":%llu,\"rejected\":%llu,"
                    "\"repliesDropped\":%llu,\"errors\":{",
                    (unsigned long long) atomic_load (&self->accepted),
                    (unsigned long long) atomic_load (&self->duplicate),
                    (unsigned long long) atomic_load (&self->rejected),
                    (unsigned long long) atomic_load (&self->replies_dropped));
    bool first = true;
    for (int code = 1; code < DLQ_CODE_COUNT; code++) {
        uint64_t n = atomic_load (&self->errors [code]);
        if (!n)
            continue;
        dlq_buf_printf (out, "%s\"%s\":%llu", first ? "" : ",", dlq_code_name ((dlq_code_t) code),
                        (unsigned long long) n);
        first = false;
    }
    dlq_buf_printf (out, "}},\"uptimeSeconds\":%lld,\"connections\":%llu",
                    (long long) ((dlq_time_mono_ms () - self->started_ms) / 1000),
                    (unsigned long long) atomic_load (&self->connections));
}
