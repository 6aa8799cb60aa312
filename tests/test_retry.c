/*  test_retry — backoff ceilings, full and equal jitter, exhaustion and
 *  next_at (the RNG itself: test_rng). Every random test is seeded with
 *  dlq_rng_seed_with, so a run is reproducible. The bounds are not tuned to
 *  these seeds: the range and mean checks are many standard deviations
 *  wide, and the chi-square checks reject at p = 0.001.
 */
#include "retry.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define SAMPLES 100000

static const dlq_retry_config_t defaults = DLQ_RETRY_CONFIG_DEFAULT;

Test (retry_ceiling, default_schedule_doubles_then_caps)
{
    const int64_t expected [] = { 200, 400, 800, 1600, 3200, 6400, 12800, 25600, 30000, 30000, 30000 };
    for (uint32_t i = 0; i < sizeof expected / sizeof expected [0]; i++)
        cr_expect_eq (dlq_retry_ceiling (&defaults, i + 1), expected [i], "attempt %u", i + 1);
}

Test (retry_ceiling, default_macro_values)
{
    cr_expect_eq (defaults.max_attempts, 10);
    cr_expect_eq (defaults.backoff_ms, 200);
    cr_expect_eq (defaults.backoff_max_ms, 30000);
    cr_expect_eq (defaults.multiplier, 2.0);
}

Test (retry_ceiling, huge_attempts_stay_at_cap)
{
    const uint32_t attempts [] = { 64, 65, 1000, 1024, 1100, 100000, UINT32_MAX - 1, UINT32_MAX };
    for (size_t i = 0; i < sizeof attempts / sizeof attempts [0]; i++)
        cr_expect_eq (dlq_retry_ceiling (&defaults, attempts [i]), 30000, "attempt %u", attempts [i]);
}

Test (retry_ceiling, attempt_zero_counts_as_first)
{
    cr_expect_eq (dlq_retry_ceiling (&defaults, 0), 200);
}

Test (retry_ceiling, cap_at_int64_max_saturates_without_overflow)
{
    dlq_retry_config_t c = { 0, 200, INT64_MAX, 2.0 };
    cr_expect_eq (dlq_retry_ceiling (&c, 2), 400);
    cr_expect_eq (dlq_retry_ceiling (&c, 50), 200 * (INT64_C (1) << 49));
    cr_expect_eq (dlq_retry_ceiling (&c, 63), INT64_MAX);   /* 200 * 2^62 > 2^63 */
    cr_expect_eq (dlq_retry_ceiling (&c, 1000), INT64_MAX);  /* 200 * 2^999: finite, far above */
    cr_expect_eq (dlq_retry_ceiling (&c, 2000), INT64_MAX);  /* 2^1999 is +inf in double */
    cr_expect_eq (dlq_retry_ceiling (&c, UINT32_MAX), INT64_MAX);
}

Test (retry_ceiling, multiplier_one_is_constant)
{
    dlq_retry_config_t c = { 0, 500, 30000, 1.0 };
    for (uint32_t a = 1; a <= 100; a++)
        cr_expect_eq (dlq_retry_ceiling (&c, a), 500, "attempt %u", a);
    cr_expect_eq (dlq_retry_ceiling (&c, UINT32_MAX), 500);
}

Test (retry_ceiling, fractional_multiplier_rounds_to_nearest)
{
    dlq_retry_config_t c = { 0, 100, 1000, 1.5 };
    /* 100, 150, 225, 337.5, 506.25, 759.375, 1139.06 -> cap */
    const int64_t expected [] = { 100, 150, 225, 338, 506, 759, 1000, 1000 };
    for (uint32_t i = 0; i < sizeof expected / sizeof expected [0]; i++)
        cr_expect_eq (dlq_retry_ceiling (&c, i + 1), expected [i], "attempt %u", i + 1);
}

Test (retry_ceiling, out_of_range_settings_are_clamped)
{
    dlq_retry_config_t below_one = { 0, 100, 1000, 0.5 };
    cr_expect_eq (dlq_retry_ceiling (&below_one, 5), 100, "multiplier < 1 reads as 1");
    dlq_retry_config_t nan_mult = { 0, 100, 1000, NAN };
    cr_expect_eq (dlq_retry_ceiling (&nan_mult, 5), 100, "NaN multiplier reads as 1");
    dlq_retry_config_t zero_base = { 0, 0, 1000, 2.0 };
    cr_expect_eq (dlq_retry_ceiling (&zero_base, 1), 1);
    cr_expect_eq (dlq_retry_ceiling (&zero_base, 4), 8);
    dlq_retry_config_t cap_below_base = { 0, 500, 300, 2.0 };
    cr_expect_eq (dlq_retry_ceiling (&cap_below_base, 1), 300);
    dlq_retry_config_t zero_cap = { 0, 200, 0, 2.0 };
    cr_expect_eq (dlq_retry_ceiling (&zero_cap, 3), 1);
    dlq_retry_config_t inf_mult = { 0, 200, 30000, INFINITY };
    cr_expect_eq (dlq_retry_ceiling (&inf_mult, 1), 200);
    cr_expect_eq (dlq_retry_ceiling (&inf_mult, 2), 30000);
}

/* Draw SAMPLES full-jitter delays for one attempt and check the range, that
 * both ends are reached, and the mean. */
static void
check_full_jitter (uint32_t attempt, uint64_t seed)
{
    dlq_rng_t r;
    dlq_rng_seed_with (&r, seed);
    int64_t ceiling = dlq_retry_ceiling (&defaults, attempt);
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    double sum = 0;
    for (int i = 0; i < SAMPLES; i++) {
        int64_t d = dlq_retry_delay (&defaults, attempt, &r);
        cr_assert (d >= 0 && d <= ceiling, "attempt %u: delay %lld outside [0, %lld]",
                   attempt, (long long) d, (long long) ceiling);
        lo = d < lo ? d : lo;
        hi = d > hi ? d : hi;
        sum += (double) d;
    }
    double mean = sum / SAMPLES;
    cr_expect (lo < ceiling * 0.05, "attempt %u: min %lld", attempt, (long long) lo);
    cr_expect (hi > ceiling * 0.95, "attempt %u: max %lld", attempt, (long long) hi);
    cr_expect (fabs (mean - ceiling / 2.0) < ceiling / 2.0 * 0.03, "attempt %u: mean %.1f vs %.1f",
               attempt, mean, ceiling / 2.0);
}

Test (retry_delay, full_jitter_spans_zero_to_ceiling)
{
    const uint32_t attempts [] = { 1, 3, 9, 1000 };
    for (size_t i = 0; i < sizeof attempts / sizeof attempts [0]; i++)
        check_full_jitter (attempts [i], 0x5eed + i);
}

Test (retry_delay, equal_jitter_stays_in_upper_half)
{
    dlq_rng_t r;
    dlq_rng_seed_with (&r, 7);
    for (uint32_t attempt = 1; attempt <= 12; attempt++) {
        int64_t ceiling = dlq_retry_ceiling (&defaults, attempt);
        int64_t floor_ms = (ceiling + 1) / 2;
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (int i = 0; i < 10000; i++) {
            int64_t d = dlq_retry_delay_equal (&defaults, attempt, &r);
            cr_assert (d >= floor_ms && d <= ceiling, "attempt %u: %lld outside [%lld, %lld]",
                       attempt, (long long) d, (long long) floor_ms, (long long) ceiling);
            lo = d < lo ? d : lo;
            hi = d > hi ? d : hi;
        }
        cr_expect (lo < floor_ms + ceiling / 20 && hi > ceiling - ceiling / 20, "attempt %u", attempt);
    }
}

Test (retry_delay, equal_jitter_never_below_one_ms)
{
    dlq_retry_config_t c = { 0, 1, 1, 1.0 };
    dlq_rng_t r;
    dlq_rng_seed_with (&r, 1);
    for (int i = 0; i < 1000; i++)
        cr_assert_eq (dlq_retry_delay_equal (&c, 1, &r), 1);
}

Test (retry_delay, the_same_seed_gives_the_same_delays)
{
    dlq_rng_t a, b;
    dlq_rng_seed_with (&a, 2026);
    dlq_rng_seed_with (&b, 2026);
    for (uint32_t attempt = 1; attempt <= 20; attempt++)
        cr_expect_eq (dlq_retry_delay (&defaults, attempt, &a), dlq_retry_delay (&defaults, attempt, &b));
}

Test (retry_exhausted, zero_means_forever)
{
    dlq_retry_config_t c = { 0, 200, 30000, 2.0 };
    const uint32_t attempts [] = { 0, 1, 10, 1000, UINT32_MAX };
    for (size_t i = 0; i < sizeof attempts / sizeof attempts [0]; i++)
        cr_expect_not (dlq_retry_exhausted (&c, attempts [i]), "attempts %u", attempts [i]);
}

Test (retry_exhausted, three_tries)
{
    dlq_retry_config_t c = { 3, 200, 30000, 2.0 };
    cr_expect_not (dlq_retry_exhausted (&c, 0));
    cr_expect_not (dlq_retry_exhausted (&c, 1));
    cr_expect_not (dlq_retry_exhausted (&c, 2));
    cr_expect (dlq_retry_exhausted (&c, 3));
    cr_expect (dlq_retry_exhausted (&c, 4));
    cr_expect (dlq_retry_exhausted (&c, UINT32_MAX));
}

Test (retry_exhausted, default_is_ten)
{
    cr_expect_not (dlq_retry_exhausted (&defaults, 9));
    cr_expect (dlq_retry_exhausted (&defaults, 10));
}

Test (retry_next_at, is_now_plus_delay)
{
    const int64_t nows [] = { 0, 1, 123456789, -5000 };
    dlq_rng_t a, b;
    dlq_rng_seed_with (&a, 77);
    dlq_rng_seed_with (&b, 77);
    for (size_t i = 0; i < sizeof nows / sizeof nows [0]; i++) {
        for (uint32_t attempt = 1; attempt <= 12; attempt++) {
            int64_t at = dlq_retry_next_at (&defaults, attempt, nows [i], &a);
            int64_t delay = dlq_retry_delay (&defaults, attempt, &b);
            cr_expect_eq (at, nows [i] + delay, "now %lld attempt %u", (long long) nows [i], attempt);
            cr_expect (at >= nows [i] && at <= nows [i] + dlq_retry_ceiling (&defaults, attempt));
        }
    }
}

Test (retry_next_at, saturates_near_int64_max)
{
    dlq_retry_config_t c = { 0, 1000, 1000, 1.0 };
    dlq_rng_t r;
    dlq_rng_seed_with (&r, 5);
    for (int i = 0; i < 100; i++) {
        int64_t at = dlq_retry_next_at (&c, 1, INT64_MAX - 10, &r);
        cr_assert (at >= INT64_MAX - 10, "%lld", (long long) at);
    }
}
