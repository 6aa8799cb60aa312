/*  retry — backoff ceilings, full and equal jitter (see the header). */
#include "retry.h"

#include <math.h>
#include <stddef.h>

static int64_t
at_least_one (int64_t v)
{
    return v < 1 ? 1 : v;
}

/* The multiplier as used: below 1.0, and NaN, read as 1.0. */
static double
growth (double multiplier)
{
    return multiplier >= 1.0 ? multiplier : 1.0;
}

/* pow() gives the exact growth for any attempt in one step, and +inf rather
 * than overflow when it is huge; the comparison with the cap happens in
 * double, before any conversion back to an integer, so inf never reaches
 * llround. The last min guards a cap that is not exactly representable as
 * a double (above 2^53), where (double) cap may round up. */
int64_t
dlq_retry_ceiling (const dlq_retry_config_t *c, uint32_t attempt)
{
    int64_t base = at_least_one (c->backoff_ms);
    int64_t cap = at_least_one (c->backoff_max_ms);
    if (base >= cap)
        return cap;
    uint32_t steps = attempt > 1 ? attempt - 1 : 0;
    double ceiling = (double) base * pow (growth (c->multiplier), (double) steps);
    if (!(ceiling < (double) cap))
        return cap;
    int64_t rounded = llround (ceiling);
    return rounded < cap ? rounded : cap;
}


int64_t
dlq_retry_delay (const dlq_retry_config_t *c, uint32_t attempt, dlq_rng_t *r)
{
    return dlq_rng_uniform (r, 0, dlq_retry_ceiling (c, attempt));
}

int64_t
dlq_retry_delay_equal (const dlq_retry_config_t *c, uint32_t attempt, dlq_rng_t *r)
{
    int64_t ceiling = dlq_retry_ceiling (c, attempt);
    return dlq_rng_uniform (r, ceiling - ceiling / 2, ceiling);
}

bool
dlq_retry_exhausted (const dlq_retry_config_t *c, uint32_t attempts)
{
    return c->max_attempts > 0 && (int64_t) attempts >= c->max_attempts;
}

int64_t
dlq_retry_next_at (const dlq_retry_config_t *c, uint32_t attempt, int64_t now_ms, dlq_rng_t *r)
{
    int64_t delay = dlq_retry_delay (c, attempt, r);
    return now_ms > INT64_MAX - delay ? INT64_MAX : now_ms + delay;
}
