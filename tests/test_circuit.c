/*  test_circuit — the per-sink circuit breaker, driven entirely by synthetic
 *  monotonic times (no sleeping). Probe intervals use equal jitter: the
 *  n-th consecutive opening waits [ceil (C/2), C] ms, C the backoff ceiling
 *  for attempt n (defaults: 200, 400, 800 ... 30000).
 */
#include "circuit.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#define T0 1000000   /* an arbitrary monotonic "now" */

static const dlq_retry_config_t defaults = DLQ_RETRY_CONFIG_DEFAULT;

/* Fail `n` batches at `now`. */
static void
fail_n (dlq_circuit_t *c, uint32_t n, int64_t now, dlq_rng_t *r)
{
    for (uint32_t i = 0; i < n; i++)
        dlq_circuit_failure (c, now, r);
}

/* Check that an opening at `now` set reopen_at within the equal-jitter
 * bounds of the given opening number. */
static void
expect_reopen_bounds (const dlq_circuit_t *c, int64_t now, uint32_t opening)
{
    int64_t ceiling = dlq_retry_ceiling (&c->backoff, opening);
    int64_t lo = now + (ceiling + 1) / 2, hi = now + ceiling;
    cr_expect_eq (c->state, DLQ_CIRCUIT_OPEN, "opening %u", opening);
    cr_expect_eq (c->opens, opening);
    cr_expect (c->reopen_at >= lo && c->reopen_at <= hi, "opening %u: reopen_at %lld not in [%lld, %lld]",
               opening, (long long) c->reopen_at, (long long) lo, (long long) hi);
}

Test (circuit, starts_closed)
{
    dlq_circuit_t c;
    dlq_circuit_init (&c, 3, &defaults);
    cr_expect_eq (c.state, DLQ_CIRCUIT_CLOSED);
    cr_expect_eq (c.failures, 0);
    cr_expect_eq (c.opens, 0);
    cr_expect (dlq_circuit_allows (&c, T0));
    cr_expect (dlq_circuit_allows (&c, T0), "closed allows every batch");
    cr_expect_eq (dlq_circuit_wait_ms (&c, T0), 0);
}

Test (circuit, init_defaults)
{
    dlq_circuit_t c;
    dlq_circuit_init (&c, 0, NULL);
    cr_expect_eq (c.failure_threshold, 1, "threshold 0 counts as 1");
    cr_expect (memcmp (&c.backoff, &defaults, sizeof defaults) == 0, "NULL backoff is the default");
}

Test (circuit, init_copies_backoff)
{
    dlq_retry_config_t b = { 0, 50, 500, 2.0 };
    dlq_circuit_t c;
    dlq_circuit_init (&c, 1, &b);
    b.backoff_ms = 9999;
    cr_expect_eq (c.backoff.backoff_ms, 50);
}

Test (circuit, stays_closed_below_threshold_and_success_resets)
{
    dlq_rng_t r;
    dlq_rng_seed_with (&r, 1);
    dlq_circuit_t c;
    dlq_circuit_init (&c, 3, &defaults);
    fail_n (&c, 2, T0, &r);
    cr_expect_eq (c.state, DLQ_CIRCUIT_CLOSED);
    cr_expect_eq (c.failures, 2);
    cr_expect (dlq_circuit_allows (&c, T0));
    dlq_circuit_success (&c, T0);
    cr_expect_eq (c.failures, 0);
    fail_n (&c, 2, T0 + 1, &r);
    cr_expect_eq (c.state, DLQ_CIRCUIT_CLOSED, "the count restarted after the success");
    dlq_circuit_failure (&c, T0 + 2, &r);
    cr_expect_eq (c.state, DLQ_CIRCUIT_OPEN);
}

Test (circuit, threshold_failures_open)
{
    dlq_rng_t r;
    dlq_rng_seed_with (&r, 2);
    dlq_circuit_t c;
    dlq_circuit_init (&c, 5, &defaults);
    fail_n (&c, 5, T0, &r);
    expect_reopen_bounds (&c, T0, 1);
    cr_expect_eq (c.failures, 0);
    cr_expect_not (dlq_circuit_allows (&c, T0));
}

Test (circuit, threshold_one_opens_on_first_failure)
{
    dlq_rng_t r;
    dlq_rng_seed_with (&r, 3);
    dlq_circuit_t c;
    dlq_circuit_init (&c, 1, &defaults);
    dlq_circuit_failure (&c, T0, &r);
    expect_reopen_bounds (&c, T0, 1);
}

Test (circuit, open_until_reopen_at_then_one_probe)
{
    dlq_rng_t r;
    dlq_rng_seed_with (&r, 4);
    dlq_circuit_t c;
    dlq_circuit_init (&c, 2, &defaults);
    fail_n (&c, 2, T0, &r);
    int64_t at = c.reopen_at;
    cr_expect_not (dlq_circuit_allows (&c, T0 + 1));
    cr_expect_not (dlq_circuit_allows (&c, at - 1));
    cr_expect_eq (c.state, DLQ_CIRCUIT_OPEN, "a refused call leaves it open");
    cr_expect (dlq_circuit_allows (&c, at), "exactly at reopen_at");
    cr_expect_eq (c.state, DLQ_CIRCUIT_HALF_OPEN);
    cr_expect_not (dlq_circuit_allows (&c, at), "only one probe");
    cr_expect_not (dlq_circuit_allows (&c, at + 1));
    cr_expect_not (dlq_circuit_allows (&c, at + 1000000));
    cr_expect_eq (c.state, DLQ_CIRCUIT_HALF_OPEN);
}

Test (circuit, late_check_after_reopen_at_also_probes)
{
    dlq_rng_t r;
    dlq_rng_seed_with (&r, 5);
    dlq_circuit_t c;
    dlq_circuit_init (&c, 1, &defaults);
    dlq_circuit_failure (&c, T0, &r);
    cr_expect (dlq_circuit_allows (&c, c.reopen_at + 5000));
    cr_expect_eq (c.state, DLQ_CIRCUIT_HALF_OPEN);
}

/* Each failed probe reopens with the next ceiling; checked for the first 12
 * openings (past the 30 s cap) and over several seeds. */
Test (circuit, failed_probes_back_off)
{
    for (uint64_t seed = 0; seed < 20; seed++) {
        dlq_rng_t r;
        dlq_rng_seed_with (&r, seed);
        dlq_circuit_t c;
        dlq_circuit_init (&c, 3, &defaults);
        int64_t now = T0;
        fail_n (&c, 3, now, &r);
        expect_reopen_bounds (&c, now, 1);
        for (uint32_t opening = 2; opening <= 12; opening++) {
            now = c.reopen_at;
            cr_assert (dlq_circuit_allows (&c, now));
            dlq_circuit_failure (&c, now, &r);
            expect_reopen_bounds (&c, now, opening);
        }
    }
}

/* The first three openings with the defaults, spelled out. */
Test (circuit, first_three_openings_explicit)
{
    dlq_rng_t r;
    dlq_rng_seed_with (&r, 6);
    dlq_circuit_t c;
    dlq_circuit_init (&c, 1, &defaults);
    const int64_t lo [] = { 100, 200, 400 }, hi [] = { 200, 400, 800 };
    int64_t now = T0;
    dlq_circuit_failure (&c, now, &r);
    for (int i = 0; i < 3; i++) {
        int64_t wait = c.reopen_at - now;
        cr_expect (wait >= lo [i] && wait <= hi [i], "opening %d: waited %lld", i + 1, (long long) wait);
        now = c.reopen_at;
        cr_assert (dlq_circuit_allows (&c, now));
        dlq_circuit_failure (&c, now, &r);
    }
}

Test (circuit, custom_backoff_schedule)
{
    dlq_retry_config_t b = { 0, 1000, 5000, 3.0 };   /* ceilings 1000, 3000, 5000, 5000 */
    dlq_rng_t r;
    dlq_rng_seed_with (&r, 7);
    dlq_circuit_t c;
    dlq_circuit_init (&c, 2, &b);
    int64_t now = 0;
    fail_n (&c, 2, now, &r);
    expect_reopen_bounds (&c, now, 1);
    cr_expect (c.reopen_at >= 500 && c.reopen_at <= 1000);
    for (uint32_t opening = 2; opening <= 4; opening++) {
        now = c.reopen_at;
        cr_assert (dlq_circuit_allows (&c, now));
        dlq_circuit_failure (&c, now, &r);
        expect_reopen_bounds (&c, now, opening);
    }
    cr_expect (c.reopen_at - now >= 2500 && c.reopen_at - now <= 5000);
}

Test (circuit, probe_success_closes_and_resets)
{
    dlq_rng_t r;
    dlq_rng_seed_with (&r, 8);
    dlq_circuit_t c;
    dlq_circuit_init (&c, 2, &defaults);
    fail_n (&c, 2, T0, &r);
    int64_t now = c.reopen_at;
    cr_assert (dlq_circuit_allows (&c, now));
    dlq_circuit_failure (&c, now, &r);
    now = c.reopen_at;
    cr_assert (dlq_circuit_allows (&c, now));
    dlq_circuit_success (&c, now);
    cr_expect_eq (c.state, DLQ_CIRCUIT_CLOSED);
    cr_expect_eq (c.failures, 0);
    cr_expect_eq (c.opens, 0);
    cr_expect (dlq_circuit_allows (&c, now));
    cr_expect (dlq_circuit_allows (&c, now));
    cr_expect_eq (dlq_circuit_wait_ms (&c, now), 0);
    fail_n (&c, 1, now, &r);
    cr_expect_eq (c.state, DLQ_CIRCUIT_CLOSED, "the threshold applies again");
    dlq_circuit_failure (&c, now, &r);
    expect_reopen_bounds (&c, now, 1);
}

Test (circuit, success_while_open_closes)
{
    dlq_rng_t r;
    dlq_rng_seed_with (&r, 9);
    dlq_circuit_t c;
    dlq_circuit_init (&c, 1, &defaults);
    dlq_circuit_failure (&c, T0, &r);
    dlq_circuit_success (&c, T0 + 1);
    cr_expect_eq (c.state, DLQ_CIRCUIT_CLOSED);
    cr_expect (dlq_circuit_allows (&c, T0 + 1));
}

Test (circuit, failure_while_open_changes_nothing)
{
    dlq_rng_t r;
    dlq_rng_seed_with (&r, 10);
    dlq_circuit_t c;
    dlq_circuit_init (&c, 1, &defaults);
    dlq_circuit_failure (&c, T0, &r);
    dlq_circuit_t before = c;
    dlq_circuit_failure (&c, T0 + 50, &r);
    cr_expect (memcmp (&before, &c, sizeof c) == 0);
}

Test (circuit, wait_ms_in_every_state)
{
    dlq_rng_t r;
    dlq_rng_seed_with (&r, 11);
    dlq_circuit_t c;
    dlq_circuit_init (&c, 1, &defaults);
    cr_expect_eq (dlq_circuit_wait_ms (&c, T0), 0, "closed");
    dlq_circuit_failure (&c, T0, &r);
    int64_t at = c.reopen_at;
    cr_expect_eq (dlq_circuit_wait_ms (&c, T0), at - T0, "open, just tripped");
    cr_expect_eq (dlq_circuit_wait_ms (&c, at - 1), 1);
    cr_expect_eq (dlq_circuit_wait_ms (&c, at), 0, "open, probe due");
    cr_expect_eq (dlq_circuit_wait_ms (&c, at + 100), 0, "open, probe overdue");
    cr_expect_eq (c.state, DLQ_CIRCUIT_OPEN, "wait_ms does not change the state");
    cr_assert (dlq_circuit_allows (&c, at));
    cr_expect_eq (dlq_circuit_wait_ms (&c, at), -1, "half-open: waiting on the probe");
    cr_expect_eq (dlq_circuit_wait_ms (&c, at + 100000), -1);
    dlq_circuit_success (&c, at + 10);
    cr_expect_eq (dlq_circuit_wait_ms (&c, at + 10), 0, "closed again");
}

Test (circuit, extreme_times_saturate)
{
    dlq_rng_t r;
    dlq_rng_seed_with (&r, 12);
    dlq_circuit_t c;
    dlq_circuit_init (&c, 1, &defaults);
    dlq_circuit_failure (&c, INT64_MAX - 10, &r);
    cr_expect_eq (c.reopen_at, INT64_MAX);
    cr_expect_not (dlq_circuit_allows (&c, INT64_MAX - 1));
    cr_expect_eq (dlq_circuit_wait_ms (&c, INT64_MIN), INT64_MAX, "capped, no overflow");
    cr_expect (dlq_circuit_allows (&c, INT64_MAX));
}

Test (circuit, jitter_spreads_reopen_times)
{
    enum { CIRCUITS = 2000 };
    dlq_rng_t r;
    dlq_rng_seed_with (&r, 13);
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int i = 0; i < CIRCUITS; i++) {
        dlq_circuit_t c;
        dlq_circuit_init (&c, 1, &defaults);
        dlq_circuit_failure (&c, T0, &r);
        lo = c.reopen_at < lo ? c.reopen_at : lo;
        hi = c.reopen_at > hi ? c.reopen_at : hi;
    }
    cr_expect (lo <= T0 + 105 && hi >= T0 + 195, "first openings span [%lld, %lld] after T0",
               (long long) (lo - T0), (long long) (hi - T0));
}

Test (circuit, state_names)
{
    cr_expect_str_eq (dlq_circuit_state_name (DLQ_CIRCUIT_CLOSED), "closed");
    cr_expect_str_eq (dlq_circuit_state_name (DLQ_CIRCUIT_OPEN), "open");
    cr_expect_str_eq (dlq_circuit_state_name (DLQ_CIRCUIT_HALF_OPEN), "half-open");
    cr_expect_str_eq (dlq_circuit_state_name ((dlq_circuit_state_t) 42), "unknown");
}

/* A dispatcher loop against a sink that is down until `up_at`: it sends
 * whenever allowed and otherwise jumps ahead by wait_ms. The circuit must
 * hold the probes to a backed-off handful and close within one capped
 * interval of the sink coming back. */
Test (circuit, dispatcher_loop_against_an_outage)
{
    const int64_t up_at = T0 + 120000;
    dlq_rng_t r;
    dlq_rng_seed_with (&r, 14);
    dlq_circuit_t c;
    dlq_circuit_init (&c, 3, &defaults);
    int64_t now = T0;
    int sent = 0;
    while (c.state != DLQ_CIRCUIT_CLOSED || now < up_at) {
        if (!dlq_circuit_allows (&c, now)) {
            int64_t wait = dlq_circuit_wait_ms (&c, now);
            cr_assert (wait > 0, "refused with wait %lld", (long long) wait);
            now += wait;
            continue;
        }
        sent++;
        if (now < up_at)
            dlq_circuit_failure (&c, now, &r);
        else
            dlq_circuit_success (&c, now);
        cr_assert (sent < 100, "the circuit did not throttle");
    }
    /* 3 to trip, then probes at ~0.1-0.2, 0.3-0.6, ... s: about a dozen. */
    cr_expect (sent >= 8 && sent <= 20, "%d batches sent", sent);
    cr_expect (now - up_at <= defaults.backoff_max_ms, "closed %lld ms after recovery",
               (long long) (now - up_at));
}
