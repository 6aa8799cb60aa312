/*  test_replay_pacer — the replay rate limit on scheduled times: due times
 *  of a run, how many may go at a given time, pause/restart, the cap on
 *  catching up after falling behind, fractional rates. No sleeping: the
 *  clock is a number the test passes in. */
#include "replay_pacer.h"

#include <criterion/criterion.h>

Test (replay_pacer, events_are_due_at_start_plus_i_over_rate)
{
    dlq_replay_pacer_t p;
    dlq_replay_pacer_start (&p, 50, 1000);             /* one event per 20 ms */
    for (int i = 0; i < 100; i++) {
        int64_t due = dlq_replay_pacer_due (&p);
        cr_assert_eq (due, 1000 + 20 * i, "event %d due at %lld", i, (long long) due);
        cr_assert_eq (dlq_replay_pacer_allow (&p, due - 1, 1000), 0, "event %d must not go early", i);
        cr_assert_eq (dlq_replay_pacer_allow (&p, due, 1000), 1, "event %d goes when due", i);
        dlq_replay_pacer_sent (&p, 1);
    }
}

Test (replay_pacer, allows_what_is_due_up_to_max)
{
    dlq_replay_pacer_t p;
    dlq_replay_pacer_start (&p, 100, 0);               /* one per 10 ms */
    cr_assert_eq (dlq_replay_pacer_allow (&p, 0, 1000), 1);
    cr_assert_eq (dlq_replay_pacer_allow (&p, 95, 1000), 10);      /* due at 0, 10, ..., 90 */
    cr_assert_eq (dlq_replay_pacer_allow (&p, 95, 4), 4);
    dlq_replay_pacer_sent (&p, 4);
    cr_assert_eq (dlq_replay_pacer_allow (&p, 95, 1000), 6);
    dlq_replay_pacer_sent (&p, 6);
    cr_assert_eq (dlq_replay_pacer_allow (&p, 99, 1000), 0);
    cr_assert_eq (dlq_replay_pacer_due (&p), 100);
}

Test (replay_pacer, a_run_of_n_events_takes_n_over_rate_seconds)
{
    /* Simulate a replayer that wakes at each due time: 1000 events at 200/s
     * end at 4995 ms (the last is due at 999 * 5 ms), never sooner. */
    dlq_replay_pacer_t p;
    dlq_replay_pacer_start (&p, 200, 0);
    int64_t now = 0, sent = 0;
    while (sent < 1000) {
        size_t n = dlq_replay_pacer_allow (&p, now, (size_t) (1000 - sent));
        dlq_replay_pacer_sent (&p, n);
        sent += (int64_t) n;
        if (sent < 1000)
            now = dlq_replay_pacer_due (&p);
    }
    cr_assert_eq (now, 4995);
}

Test (replay_pacer, coarse_wakeups_keep_the_average_rate)
{
    /* A replayer that only wakes every 100 ms sends 10 per wake at 100/s. */
    dlq_replay_pacer_t p;
    dlq_replay_pacer_start (&p, 100, 0);
    int64_t sent = 0;
    for (int64_t now = 0; now < 10000; now += 100) {
        size_t n = dlq_replay_pacer_allow (&p, now, 100000);
        dlq_replay_pacer_sent (&p, n);
        sent += (int64_t) n;
        cr_assert_leq (sent, now / 10 + 1, "at %lld ms: %lld sent", (long long) now, (long long) sent);
    }
    cr_assert_eq (sent, 991);                   /* due by 9900 ms: events 0..990 */
}

Test (replay_pacer, falling_behind_is_not_made_up_by_a_burst)
{
    dlq_replay_pacer_t p;
    dlq_replay_pacer_start (&p, 100, 0);
    dlq_replay_pacer_sent (&p, dlq_replay_pacer_allow (&p, 0, 1000));
    /* The sink stalls for a minute: 6000 events are "owed". */
    size_t n = dlq_replay_pacer_allow (&p, 60000, 100000);
    cr_assert_eq (n, 1, "after a stall the schedule restarts: %zu allowed", n);
    dlq_replay_pacer_sent (&p, n);
    cr_assert_eq (dlq_replay_pacer_due (&p), 60010);
    /* Late by less than a second: made up (at most a second's worth). */
    size_t late = dlq_replay_pacer_allow (&p, 60900, 100000);
    cr_assert_eq (late, 90);
}

Test (replay_pacer, restart_after_a_pause_owes_nothing)
{
    dlq_replay_pacer_t p;
    dlq_replay_pacer_start (&p, 10, 0);
    dlq_replay_pacer_sent (&p, dlq_replay_pacer_allow (&p, 0, 100));
    dlq_replay_pacer_start (&p, 10, 500000);           /* resumed much later */
    cr_assert_eq (dlq_replay_pacer_allow (&p, 500000, 100), 1);
    dlq_replay_pacer_sent (&p, 1);
    cr_assert_eq (dlq_replay_pacer_due (&p), 500100);
}

Test (replay_pacer, fractional_rates)
{
    dlq_replay_pacer_t p;
    dlq_replay_pacer_start (&p, 0.5, 0);               /* one every 2 s */
    dlq_replay_pacer_sent (&p, dlq_replay_pacer_allow (&p, 0, 10));
    cr_assert_eq (dlq_replay_pacer_due (&p), 2000);
    cr_assert_eq (dlq_replay_pacer_allow (&p, 1999, 10), 0);
    cr_assert_eq (dlq_replay_pacer_allow (&p, 2000, 10), 1);
}
