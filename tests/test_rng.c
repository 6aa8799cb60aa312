/*  test_rng — xoshiro256**: uniform draws without bias over small, huge
 *  and edge ranges (chi-square, rejecting at p = 0.001), the reference
 *  sequence of a seed, determinism, and kernel seeds that differ.
 */
#include "dlq_rng.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define SAMPLES 100000

/* Pearson chi-square of counts against a uniform expectation. */
static double
chi_square (const int *counts, int buckets, int total)
{
    double expected = (double) total / buckets, chi = 0;
    for (int b = 0; b < buckets; b++)
        chi += (counts [b] - expected) * (counts [b] - expected) / expected;
    return chi;
}

Test (rng, uniform_small_range_is_unbiased)
{
    enum { BUCKETS = 7, DRAWS = 70000 };
    dlq_rng_t r;
    dlq_rng_seed_with (&r, 12345);
    int counts [BUCKETS] = { 0 };
    for (int i = 0; i < DRAWS; i++) {
        int64_t v = dlq_rng_uniform (&r, -3, 3);
        cr_assert (v >= -3 && v <= 3, "%lld", (long long) v);
        counts [v + 3]++;
    }
    /* 6 degrees of freedom: P(chi2 > 22.46) = 0.001. */
    double chi = chi_square (counts, BUCKETS, DRAWS);
    cr_expect (chi < 22.46, "chi-square %.2f", chi);
}

/* n = 3 * 2^62 values: x % n over 64 raw bits would put half the draws in
 * the first third (2^62 of its residues are hit twice), so this shows the
 * rejection step at work, not just a small-range accident. */
Test (rng, uniform_huge_range_is_unbiased)
{
    enum { DRAWS = 30000 };
    const int64_t lo = INT64_MIN;
    const uint64_t third = UINT64_C (1) << 62;
    const int64_t hi = (int64_t) ((uint64_t) lo + 3 * third - 1);
    dlq_rng_t r;
    dlq_rng_seed_with (&r, 99);
    int counts [3] = { 0 };
    for (int i = 0; i < DRAWS; i++) {
        int64_t v = dlq_rng_uniform (&r, lo, hi);
        cr_assert (v >= lo && v <= hi);
        counts [((uint64_t) v - (uint64_t) lo) / third]++;
    }
    /* 2 degrees of freedom: P(chi2 > 13.82) = 0.001; modulo bias gives ~7500. */
    double chi = chi_square (counts, 3, DRAWS);
    cr_expect (chi < 13.82, "chi-square %.2f (%d %d %d)", chi, counts [0], counts [1], counts [2]);
}

Test (rng, uniform_edge_ranges)
{
    dlq_rng_t r;
    dlq_rng_seed_with (&r, 3);
    cr_expect_eq (dlq_rng_uniform (&r, 5, 5), 5);
    cr_expect_eq (dlq_rng_uniform (&r, 9, 2), 9, "hi < lo returns lo");
    cr_expect_eq (dlq_rng_uniform (&r, INT64_MAX, INT64_MAX), INT64_MAX);
    bool negative = false, positive = false;
    for (int i = 0; i < 1000; i++) {
        int64_t v = dlq_rng_uniform (&r, INT64_MIN, INT64_MAX);
        negative |= v < 0;
        positive |= v > 0;
    }
    cr_expect (negative && positive, "full int64 range reaches both signs");
    bool saw [2] = { false, false };
    for (int i = 0; i < 1000; i++) {
        int64_t v = dlq_rng_uniform (&r, INT64_MAX - 1, INT64_MAX);
        cr_assert (v >= INT64_MAX - 1);
        saw [v - (INT64_MAX - 1)] = true;
    }
    cr_expect (saw [0] && saw [1]);
}

/* Known answers from an independent Python implementation of splitmix64
 * seeding and xoshiro256** (splitmix64 from 0 starts 0xe220a8397b1dcdaf,
 * the published reference value). */
Test (rng, seed_with_matches_reference)
{
    dlq_rng_t r;
    dlq_rng_seed_with (&r, 0);
    cr_expect_eq (r.s [0], UINT64_C (0xe220a8397b1dcdaf));
    cr_expect_eq (r.s [3], UINT64_C (0xf88bb8a8724c81ec));
    const uint64_t from_0 [] = { UINT64_C (0x99ec5f36cb75f2b4), UINT64_C (0xbf6e1f784956452a),
                                 UINT64_C (0x1a5f849d4933e6e0), UINT64_C (0x6aa594f1262d2d2c) };
    for (size_t i = 0; i < 4; i++)
        cr_expect_eq (dlq_rng_next (&r), from_0 [i], "seed 0, output %zu", i);
    dlq_rng_seed_with (&r, 42);
    const uint64_t from_42 [] = { UINT64_C (0x15780b2e0c2ec716), UINT64_C (0x6104d9866d113a7e),
                                  UINT64_C (0xae17533239e499a1), UINT64_C (0xecb8ad4703b360a1) };
    for (size_t i = 0; i < 4; i++)
        cr_expect_eq (dlq_rng_next (&r), from_42 [i], "seed 42, output %zu", i);
}

Test (rng, seed_with_is_deterministic)
{
    dlq_rng_t a, b, c;
    dlq_rng_seed_with (&a, 2026);
    dlq_rng_seed_with (&b, 2026);
    dlq_rng_seed_with (&c, 2027);
    bool differs = false;
    for (int i = 0; i < 1000; i++) {
        uint64_t x = dlq_rng_next (&a);
        cr_assert_eq (x, dlq_rng_next (&b));
        differs |= x != dlq_rng_next (&c);
    }
    cr_expect (differs, "another seed gives another sequence");
}

Test (rng, seed_from_kernel_is_nonzero_and_distinct)
{
    dlq_rng_t a, b;
    dlq_rng_seed (&a);
    dlq_rng_seed (&b);
    cr_expect ((a.s [0] | a.s [1] | a.s [2] | a.s [3]) != 0);
    cr_expect (memcmp (a.s, b.s, sizeof a.s) != 0);
    cr_expect_neq (dlq_rng_next (&a), dlq_rng_next (&b));
}
