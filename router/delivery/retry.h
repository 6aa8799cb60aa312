/*  retry — capped exponential backoff with jitter.
 *
 *  The router, not the sink, owns retry: when a delivery fails, the sink's
 *  dispatcher asks this module when to try again. Everything here is pure
 *  arithmetic on values passed in. Times are ms on the monotonic clock
 *  (dlq_time_mono_ms); there is no I/O and no sleeping. The jitter is drawn
 *  from the caller's dlq_rng_t (dlq_rng.h).
 *
 *  The schedule: the attempt-th failure (1-based) has the ceiling
 *      min (backoff_max_ms, backoff_ms * multiplier^(attempt - 1))
 *  and the delay before the next try is drawn uniformly from [0, ceiling]
 *  ("full jitter"), so dispatchers that failed together do not retry
 *  together. dlq_retry_delay_equal draws from the upper half instead
 *  ("equal jitter"), for callers that must never come back at once.
 *
 */
#ifndef DLQ_RETRY_H
#define DLQ_RETRY_H

#include "dlq_rng.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    int64_t max_attempts;     /* deliveries tried before giving up; 0 = forever */
    int64_t backoff_ms;       /* ceiling of the first delay, >= 1 */
    int64_t backoff_max_ms;   /* cap on every ceiling */
    double  multiplier;       /* growth of the ceiling per attempt, >= 1.0 */
} dlq_retry_config_t;

/* 10 tries; ceilings 200, 400, 800 ... ms, capped at 30 s. */
#define DLQ_RETRY_CONFIG_DEFAULT { 10, 200, 30000, 2.0 }

/* The delay ceiling in ms after the attempt-th failure (1-based; 0 counts
 * as 1): min (backoff_max_ms, backoff_ms * multiplier^(attempt - 1)),
 * rounded to the nearest ms. Saturates at the cap for any attempt, with no
 * overflow. Out-of-range settings are read as the nearest valid ones:
 * backoff_ms and backoff_max_ms below 1 as 1, a multiplier below 1.0 (or
 * NaN) as 1.0. Always >= 1. */
int64_t dlq_retry_ceiling (const dlq_retry_config_t *c, uint32_t attempt);

/* The delay in ms before retrying after the attempt-th failure, with full
 * jitter: uniform in [0, dlq_retry_ceiling (c, attempt)]. */
int64_t dlq_retry_delay (const dlq_retry_config_t *c, uint32_t attempt, dlq_rng_t *r);

/* The same with equal jitter: uniform in [ceil (ceiling / 2), ceiling], so
 * always >= 1 ms and at least half the ceiling. */
int64_t dlq_retry_delay_equal (const dlq_retry_config_t *c, uint32_t attempt, dlq_rng_t *r);

/* True when no more tries are allowed: max_attempts > 0 and attempts (the
 * deliveries tried so far) >= max_attempts. max_attempts 0 never gives up. */
bool dlq_retry_exhausted (const dlq_retry_config_t *c, uint32_t attempts);

/* When to retry after the attempt-th failure: now_ms (monotonic) plus
 * dlq_retry_delay, saturating at INT64_MAX. */
int64_t dlq_retry_next_at (const dlq_retry_config_t *c, uint32_t attempt, int64_t now_ms,
                           dlq_rng_t *r);

#endif
