/*  test_replay_control — how a query thread waits for the replayer to take
 *  a job's new state in, as replay_control.h has it: each request is a new
 *  generation, higher than every earlier one, also from many threads at
 *  once; the replayer sees the newest requested; a wait returns true once
 *  the replayer has handled that generation (or a later one: handling
 *  covers every change up to it, and never moves back), false when the
 *  timeout passes first, and returns at once when the replayer stops.
 *  Times are measured on the monotonic clock with generous margins.
 */
#include "replay_control.h"

#include "dlq_time.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void
sleep_ms (int ms)
{
    struct timespec ts = { ms / 1000, (long) (ms % 1000) * 1000000L };
    nanosleep (&ts, NULL);
}

Test (replay_control, the_first_request_is_newer_than_what_the_replayer_saw_at_first)
{
    dlq_replay_control_t *c = dlq_replay_control_new ();
    uint64_t seen = dlq_replay_control_requested (c);   /* the replayer's first look */
    dlq_replay_control_handled (c, seen);
    uint64_t g = dlq_replay_control_request (c);
    cr_expect_gt (g, seen, "a change after the replayer looked is a generation it has not handled");
    cr_expect_not (dlq_replay_control_wait (c, g, 0));
    dlq_replay_control_destroy (&c);
    cr_expect_null (c);
}

Test (replay_control, each_request_is_a_new_higher_generation)
{
    dlq_replay_control_t *c = dlq_replay_control_new ();
    uint64_t last = dlq_replay_control_requested (c);
    for (int i = 0; i < 100; i++) {
        uint64_t g = dlq_replay_control_request (c);
        cr_expect_gt (g, last);
        cr_expect_eq (dlq_replay_control_requested (c), g, "the replayer sees the newest");
        last = g;
    }
    dlq_replay_control_destroy (&c);
}

Test (replay_control, a_handled_generation_is_waited_for_at_once)
{
    dlq_replay_control_t *c = dlq_replay_control_new ();
    uint64_t g = dlq_replay_control_request (c);
    dlq_replay_control_handled (c, g);
    int64_t t0 = dlq_time_mono_ms ();
    cr_expect (dlq_replay_control_wait (c, g, 5000));
    cr_expect_lt (dlq_time_mono_ms () - t0, 1000, "no waiting");
    dlq_replay_control_destroy (&c);
}

Test (replay_control, handling_a_later_generation_covers_earlier_ones)
{
    dlq_replay_control_t *c = dlq_replay_control_new ();
    uint64_t g1 = dlq_replay_control_request (c);
    uint64_t g2 = dlq_replay_control_request (c);
    uint64_t g3 = dlq_replay_control_request (c);
    dlq_replay_control_handled (c, g3);
    cr_expect (dlq_replay_control_wait (c, g1, 0));
    cr_expect (dlq_replay_control_wait (c, g2, 0));
    cr_expect (dlq_replay_control_wait (c, g3, 0));
    dlq_replay_control_destroy (&c);
}

Test (replay_control, handled_never_moves_back)
{
    dlq_replay_control_t *c = dlq_replay_control_new ();
    uint64_t g1 = dlq_replay_control_request (c);
    uint64_t g2 = dlq_replay_control_request (c);
    dlq_replay_control_handled (c, g2);
    dlq_replay_control_handled (c, g1);                 /* late news of an older one */
    cr_expect (dlq_replay_control_wait (c, g2, 0), "g2 is still handled");
    dlq_replay_control_destroy (&c);
}

Test (replay_control, a_wait_times_out_with_false)
{
    dlq_replay_control_t *c = dlq_replay_control_new ();
    uint64_t g = dlq_replay_control_request (c);
    dlq_replay_control_handled (c, g - 1);
    int64_t t0 = dlq_time_mono_ms ();
    cr_expect_not (dlq_replay_control_wait (c, g, 200));
    int64_t waited = dlq_time_mono_ms () - t0;
    cr_expect_geq (waited, 190, "waited %lld ms of 200", (long long) waited);
    cr_expect_lt (waited, 3000, "waited %lld ms of 200", (long long) waited);
    t0 = dlq_time_mono_ms ();
    cr_expect_not (dlq_replay_control_wait (c, g, 0), "a zero timeout only looks");
    cr_expect_lt (dlq_time_mono_ms () - t0, 1000);
    dlq_replay_control_destroy (&c);
}

Test (replay_control, a_timeout_of_more_than_a_second_is_waited_in_full)
{
    dlq_replay_control_t *c = dlq_replay_control_new ();
    uint64_t g = dlq_replay_control_request (c);
    int64_t t0 = dlq_time_mono_ms ();
    cr_expect_not (dlq_replay_control_wait (c, g, 1300));
    int64_t waited = dlq_time_mono_ms () - t0;
    cr_expect_geq (waited, 1290, "waited %lld ms of 1300", (long long) waited);
    cr_expect_lt (waited, 5000);
    dlq_replay_control_destroy (&c);
}

typedef struct {
    dlq_replay_control_t *c;
    uint64_t              generation;
    int                   delay_ms;
    bool                  close;        /* close instead of handling */
} replayer_t;

static void *
replayer (void *arg)
{
    replayer_t *r = arg;
    sleep_ms (r->delay_ms);
    /* the replayer polls the newest requested between events */
    if (r->close)
        dlq_replay_control_close (r->c);
    else
        dlq_replay_control_handled (r->c, dlq_replay_control_requested (r->c));
    return NULL;
}

Test (replay_control, a_waiter_wakes_when_the_replayer_handles_its_generation)
{
    dlq_replay_control_t *c = dlq_replay_control_new ();
    uint64_t g = dlq_replay_control_request (c);
    replayer_t r = { .c = c, .delay_ms = 100 };
    pthread_t t;
    cr_assert_eq (pthread_create (&t, NULL, replayer, &r), 0);
    int64_t t0 = dlq_time_mono_ms ();
    cr_expect (dlq_replay_control_wait (c, g, 10000));
    int64_t waited = dlq_time_mono_ms () - t0;
    cr_expect_lt (waited, 5000, "woken, not timed out: %lld ms", (long long) waited);
    pthread_join (t, NULL);
    dlq_replay_control_destroy (&c);
}

Test (replay_control, a_waiter_returns_at_once_when_the_replayer_stops)
{
    dlq_replay_control_t *c = dlq_replay_control_new ();
    uint64_t g = dlq_replay_control_request (c);
    replayer_t r = { .c = c, .delay_ms = 100, .close = true };
    pthread_t t;
    cr_assert_eq (pthread_create (&t, NULL, replayer, &r), 0);
    int64_t t0 = dlq_time_mono_ms ();
    dlq_replay_control_wait (c, g, 10000);
    int64_t waited = dlq_time_mono_ms () - t0;
    cr_expect_lt (waited, 5000, "nobody waits for a stopped replayer: %lld ms", (long long) waited);
    pthread_join (t, NULL);
    t0 = dlq_time_mono_ms ();
    dlq_replay_control_wait (c, dlq_replay_control_request (c), 10000);
    cr_expect_lt (dlq_time_mono_ms () - t0, 1000, "nor after it stopped");
    dlq_replay_control_destroy (&c);
}

#define THREADS 4
#define PER_THREAD 5000

typedef struct {
    dlq_replay_control_t *c;
    uint64_t             *out;
} requester_t;

static void *
requester (void *arg)
{
    requester_t *r = arg;
    for (int i = 0; i < PER_THREAD; i++)
        r->out [i] = dlq_replay_control_request (r->c);
    return NULL;
}

static int
compare_u64 (const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return x < y ? -1 : x > y;
}

Test (replay_control, requests_from_many_threads_get_distinct_generations)
{
    dlq_replay_control_t *c = dlq_replay_control_new ();
    uint64_t *all = calloc (THREADS * PER_THREAD, sizeof *all);
    pthread_t t [THREADS];
    requester_t r [THREADS];
    for (int i = 0; i < THREADS; i++) {
        r [i] = (requester_t) { .c = c, .out = all + i * PER_THREAD };
        cr_assert_eq (pthread_create (&t [i], NULL, requester, &r [i]), 0);
    }
    for (int i = 0; i < THREADS; i++)
        pthread_join (t [i], NULL);
    /* each generation given once: sorted, no two equal */
    size_t n = THREADS * PER_THREAD, repeated = 0;
    uint64_t newest = 0;
    for (size_t i = 0; i < n; i++)
        newest = all [i] > newest ? all [i] : newest;
    cr_expect_eq (dlq_replay_control_requested (c), newest, "the newest requested is the highest given");
    uint64_t *sorted = malloc (n * sizeof *sorted);
    memcpy (sorted, all, n * sizeof *sorted);
    qsort (sorted, n, sizeof *sorted, compare_u64);
    for (size_t i = 1; i < n; i++)
        repeated += sorted [i] == sorted [i - 1];
    cr_expect_eq (repeated, 0, "generations given twice");
    free (sorted);
    for (int i = 0; i < THREADS; i++)
        for (int k = 1; k < PER_THREAD; k++)
            cr_assert_gt (r [i].out [k], r [i].out [k - 1], "a thread's own requests increase");
    free (all);
    dlq_replay_control_destroy (&c);
}
