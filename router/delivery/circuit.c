/*  circuit — CLOSED / OPEN / HALF_OPEN with equal-jitter probe intervals. */
#include "circuit.h"

#include <stddef.h>

void
dlq_circuit_init (dlq_circuit_t *c, uint32_t failure_threshold,
                  const dlq_retry_config_t *backoff)
{
    static const dlq_retry_config_t defaults = DLQ_RETRY_CONFIG_DEFAULT;
    c->state = DLQ_CIRCUIT_CLOSED;
    c->failure_threshold = failure_threshold ? failure_threshold : 1;
    c->failures = 0;
    c->opens = 0;
    c->reopen_at = 0;
    c->backoff = backoff ? *backoff : defaults;
}

/* Open (again): the opens-th consecutive opening waits an equal-jitter
 * interval from the backoff schedule. reopen_at saturates rather than
 * overflow for a now_ms near INT64_MAX. */
static void
trip (dlq_circuit_t *c, int64_t now_ms, dlq_rng_t *r)
{
    if (c->opens < UINT32_MAX)
        c->opens++;
    int64_t interval = dlq_retry_delay_equal (&c->backoff, c->opens, r);
    c->state = DLQ_CIRCUIT_OPEN;
    c->failures = 0;
    c->reopen_at = now_ms > INT64_MAX - interval ? INT64_MAX : now_ms + interval;
}

bool
dlq_circuit_allows (dlq_circuit_t *c, int64_t now_ms)
{
    switch (c->state) {
    case DLQ_CIRCUIT_CLOSED:
        return true;
    case DLQ_CIRCUIT_OPEN:
        if (now_ms < c->reopen_at)
            return false;
        c->state = DLQ_CIRCUIT_HALF_OPEN;
        return true;
    case DLQ_CIRCUIT_HALF_OPEN:
        return false;
    }
    return false;
}

void
dlq_circuit_success (dlq_circuit_t *c, int64_t now_ms)
{
    c->state = DLQ_CIRCUIT_CLOSED;
    c->failures = 0;
    c->opens = 0;
    c->reopen_at = 0;
}

void
dlq_circuit_failure (dlq_circuit_t *c, int64_t now_ms, dlq_rng_t *r)
{
    switch (c->state) {
    case DLQ_CIRCUIT_CLOSED:
        if (++c->failures >= c->failure_threshold)
            trip (c, now_ms, r);
        return;
    case DLQ_CIRCUIT_HALF_OPEN:
        trip (c, now_ms, r);
        return;
    case DLQ_CIRCUIT_OPEN:
        return;
    }
}

/* ms from now_ms to then, 0 when then has come; the difference is taken in
 * unsigned arithmetic and capped, so no pair of times can overflow it. */
static int64_t
until (int64_t now_ms, int64_t then)
{
    if (now_ms >= then)
        return 0;
    uint64_t diff = (uint64_t) then - (uint64_t) now_ms;
    return diff > (uint64_t) INT64_MAX ? INT64_MAX : (int64_t) diff;
}

int64_t
dlq_circuit_wait_ms (const dlq_circuit_t *c, int64_t now_ms)
{
    switch (c->state) {
    case DLQ_CIRCUIT_CLOSED:
        return 0;
    case DLQ_CIRCUIT_OPEN:
        return until (now_ms, c->reopen_at);
    case DLQ_CIRCUIT_HALF_OPEN:
        return -1;
    }
    return -1;
}

const char *
dlq_circuit_state_name (dlq_circuit_state_t state)
{
    switch (state) {
    case DLQ_CIRCUIT_CLOSED:
        return "closed";
    case DLQ_CIRCUIT_OPEN:
        return "open";
    case DLQ_CIRCUIT_HALF_OPEN:
        return "half-open";
    }
    return "unknown";
}
