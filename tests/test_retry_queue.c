/*  test_retry_queue — a dispatcher's events waiting for their next attempt,
 *  as retry_queue.h promises: the earliest due item first, peek leaves it
 *  queued, pop_due gives it only once it is due (due_ms <= now), items come
 *  back whole (seq, attempts, due_ms), and min_seq is INT64_MAX when empty,
 *  exact after a recount and otherwise a lower bound of the lowest seq
 *  queued. Also a large queue in random order and items due at one time.
 */
#include "retry_queue.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static dlq_retry_item_t
item (int64_t seq, uint32_t attempts, int64_t due_ms)
{
    return (dlq_retry_item_t) { .seq = seq, .attempts = attempts, .due_ms = due_ms };
}

/* A small deterministic generator (xorshift64*), so a failure repeats. */
static uint64_t
next_random (uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 2685821657736338717ull;
}

Test (retry_queue, a_new_queue_is_empty)
{
    dlq_retry_queue_t *q = dlq_retry_queue_new ();
    cr_assert_not_null (q);
    dlq_retry_item_t it = item (-1, 99, -1);
    cr_expect_eq (dlq_retry_queue_size (q), 0);
    cr_expect_not (dlq_retry_queue_peek (q, &it));
    cr_expect_not (dlq_retry_queue_pop_due (q, INT64_MAX, &it), "nothing to pop even at the end of time");
    cr_expect_eq (dlq_retry_queue_min_seq (q, false), INT64_MAX);
    cr_expect_eq (dlq_retry_queue_min_seq (q, true), INT64_MAX);
    dlq_retry_queue_destroy (&q);
    cr_expect_null (q);
}

Test (retry_queue, peek_shows_the_earliest_without_removing_it)
{
    dlq_retry_queue_t *q = dlq_retry_queue_new ();
    dlq_retry_queue_push (q, item (1, 1, 300));
    dlq_retry_queue_push (q, item (2, 4, 100));
    dlq_retry_queue_push (q, item (3, 2, 200));
    dlq_retry_item_t it;
    cr_assert (dlq_retry_queue_peek (q, &it));
    cr_expect_eq (it.seq, 2);
    cr_expect_eq (it.attempts, 4);
    cr_expect_eq (it.due_ms, 100);
    cr_assert (dlq_retry_queue_peek (q, &it));
    cr_expect_eq (it.seq, 2, "peek again: the same item");
    cr_expect_eq (dlq_retry_queue_size (q), 3, "nothing removed");
    dlq_retry_queue_destroy (&q);
}

Test (retry_queue, an_item_pops_only_once_it_is_due)
{
    dlq_retry_queue_t *q = dlq_retry_queue_new ();
    dlq_retry_queue_push (q, item (7, 3, 1000));
    dlq_retry_item_t it = item (-1, 0, 0);
    cr_expect_not (dlq_retry_queue_pop_due (q, 999, &it), "one ms early");
    cr_expect_eq (it.seq, -1, "item untouched when nothing is due");
    cr_expect_eq (dlq_retry_queue_size (q), 1);
    cr_assert (dlq_retry_queue_pop_due (q, 1000, &it), "due at exactly its time");
    cr_expect_eq (it.seq, 7);
    cr_expect_eq (it.attempts, 3);
    cr_expect_eq (it.due_ms, 1000);
    cr_expect_eq (dlq_retry_queue_size (q), 0);
    cr_expect_not (dlq_retry_queue_pop_due (q, 5000, &it), "popped once only");
    dlq_retry_queue_destroy (&q);
}

Test (retry_queue, items_pop_in_due_order_whatever_the_push_order)
{
    static const int64_t due [] = { 50, 10, 40, 30, 20, 60, 0, 70, 5, 45 };
    enum { N = sizeof due / sizeof due [0] };
    dlq_retry_queue_t *q = dlq_retry_queue_new ();
    for (int i = 0; i < N; i++)
        dlq_retry_queue_push (q, item (i, (uint32_t) i, due [i]));
    cr_expect_eq (dlq_retry_queue_size (q), N);
    int64_t last = INT64_MIN;
    int popped = 0;
    dlq_retry_item_t it;
    while (dlq_retry_queue_pop_due (q, 1000, &it)) {
        cr_expect_geq (it.due_ms, last, "pop %d: due %lld after %lld", popped, (long long) it.due_ms,
                       (long long) last);
        cr_expect_eq (it.due_ms, due [it.seq], "item %lld came back whole", (long long) it.seq);
        cr_expect_eq ((int64_t) it.attempts, it.seq);
        last = it.due_ms;
        popped++;
    }
    cr_expect_eq (popped, N);
    dlq_retry_queue_destroy (&q);
}

Test (retry_queue, pop_due_stops_at_the_first_item_not_due)
{
    dlq_retry_queue_t *q = dlq_retry_queue_new ();
    for (int i = 0; i < 10; i++)
        dlq_retry_queue_push (q, item (i, 0, i * 100));
    dlq_retry_item_t it;
    int popped = 0;
    while (dlq_retry_queue_pop_due (q, 450, &it))
        popped++;
    cr_expect_eq (popped, 5, "due at 0, 100, 200, 300, 400");
    cr_expect_eq (dlq_retry_queue_size (q), 5);
    cr_assert (dlq_retry_queue_peek (q, &it));
    cr_expect_eq (it.due_ms, 500, "the earliest left");
    dlq_retry_queue_destroy (&q);
}

Test (retry_queue, items_due_at_the_same_time_all_come_back)
{
    enum { N = 200 };
    dlq_retry_queue_t *q = dlq_retry_queue_new ();
    for (int i = 0; i < N; i++)
        dlq_retry_queue_push (q, item (i, 1, 42));
    bool seen [N] = { false };
    dlq_retry_item_t it;
    int popped = 0;
    while (dlq_retry_queue_pop_due (q, 42, &it)) {
        cr_assert (it.seq >= 0 && it.seq < N);
        cr_expect_not (seen [it.seq], "seq %lld twice", (long long) it.seq);
        seen [it.seq] = true;
        popped++;
    }
    cr_expect_eq (popped, N);
    dlq_retry_queue_destroy (&q);
}

Test (retry_queue, negative_and_extreme_due_times_are_ordered)
{
    dlq_retry_queue_t *q = dlq_retry_queue_new ();
    dlq_retry_queue_push (q, item (1, 0, INT64_MAX));
    dlq_retry_queue_push (q, item (2, 0, -5));
    dlq_retry_queue_push (q, item (3, 0, INT64_MIN));
    dlq_retry_queue_push (q, item (4, 0, 0));
    dlq_retry_item_t it;
    static const int64_t order [] = { 3, 2, 4 };
    for (int i = 0; i < 3; i++) {
        cr_assert (dlq_retry_queue_pop_due (q, 0, &it));
        cr_expect_eq (it.seq, order [i]);
    }
    cr_expect_not (dlq_retry_queue_pop_due (q, INT64_MAX - 1, &it));
    cr_expect (dlq_retry_queue_pop_due (q, INT64_MAX, &it));
    cr_expect_eq (it.seq, 1);
    dlq_retry_queue_destroy (&q);
}

Test (retry_queue, min_seq_is_exact_on_a_recount)
{
    dlq_retry_queue_t *q = dlq_retry_queue_new ();
    dlq_retry_queue_push (q, item (50, 0, 10));
    dlq_retry_queue_push (q, item (30, 0, 20));
    dlq_retry_queue_push (q, item (90, 0, 30));
    cr_expect_eq (dlq_retry_queue_min_seq (q, true), 30);
    dlq_retry_item_t it;
    cr_assert (dlq_retry_queue_pop_due (q, 10, &it));     /* seq 50 */
    cr_expect_eq (dlq_retry_queue_min_seq (q, true), 30);
    cr_assert (dlq_retry_queue_pop_due (q, 20, &it));     /* seq 30 */
    cr_expect_eq (dlq_retry_queue_min_seq (q, true), 90, "the lowest left");
    cr_assert (dlq_retry_queue_pop_due (q, 30, &it));
    cr_expect_eq (dlq_retry_queue_min_seq (q, true), INT64_MAX, "none queued");
    dlq_retry_queue_destroy (&q);
}

Test (retry_queue, min_seq_without_a_recount_is_a_lower_bound)
{
    dlq_retry_queue_t *q = dlq_retry_queue_new ();
    dlq_retry_queue_push (q, item (50, 0, 10));
    dlq_retry_queue_push (q, item (30, 0, 20));
    dlq_retry_queue_push (q, item (90, 0, 30));
    cr_expect_eq (dlq_retry_queue_min_seq (q, false), 30, "the lowest pushed");
    dlq_retry_item_t it;
    cr_assert (dlq_retry_queue_pop_due (q, 20, &it));     /* seqs 50 and 30 */
    cr_assert (dlq_retry_queue_pop_due (q, 20, &it));
    int64_t bound = dlq_retry_queue_min_seq (q, false);
    cr_expect_leq (bound, 90, "never above the lowest queued (90): %lld", (long long) bound);
    cr_expect_eq (dlq_retry_queue_min_seq (q, true), 90);
    cr_expect_eq (dlq_retry_queue_min_seq (q, false), 90, "exact again after the recount");
    dlq_retry_queue_push (q, item (10, 0, 40));
    cr_expect_eq (dlq_retry_queue_min_seq (q, false), 10, "a lower push lowers it at once");
    cr_assert (dlq_retry_queue_pop_due (q, 40, &it));
    cr_assert (dlq_retry_queue_pop_due (q, 40, &it));
    cr_expect_eq (dlq_retry_queue_min_seq (q, false), INT64_MAX, "exact when the queue is empty");
    dlq_retry_queue_destroy (&q);
}

Test (retry_queue, a_large_queue_pops_sorted_and_whole)
{
    enum { N = 100000 };
    dlq_retry_queue_t *q = dlq_retry_queue_new ();
    uint64_t state = 0x9e3779b97f4a7c15ull;
    int64_t *due = malloc (N * sizeof *due);
    for (int i = N - 1; i >= 0; i--) {
        due [i] = (int64_t) (next_random (&state) % 1000000);
        dlq_retry_queue_push (q, item (i, (uint32_t) i, due [i]));
    }
    cr_expect_eq (dlq_retry_queue_size (q), N);
    cr_expect_eq (dlq_retry_queue_min_seq (q, true), 0);
    dlq_retry_item_t it;
    int64_t last = INT64_MIN;
    size_t popped = 0, out_of_order = 0, damaged = 0;
    while (dlq_retry_queue_pop_due (q, INT64_MAX, &it)) {
        out_of_order += it.due_ms < last;
        damaged += it.seq < 0 || it.seq >= N || due [it.seq] != it.due_ms || (int64_t) it.attempts != it.seq;
        last = it.due_ms;
        popped++;
    }
    cr_expect_eq (popped, N);
    cr_expect_eq (out_of_order, 0);
    cr_expect_eq (damaged, 0);
    free (due);
    dlq_retry_queue_destroy (&q);
}

Test (retry_queue, a_queue_destroyed_with_items_frees_them)
{
    /* ASan's leak check is the assertion here; the queue's own count too. */
    dlq_retry_queue_t *q = dlq_retry_queue_new ();
    for (int i = 0; i < 1000; i++)
        dlq_retry_queue_push (q, item (i, 0, i));
    cr_expect_eq (dlq_retry_queue_size (q), 1000);
    dlq_retry_queue_destroy (&q);
    cr_expect_null (q);
}

Test (retry_queue, interleaved_pushes_and_pops_keep_the_order)
{
    dlq_retry_queue_t *q = dlq_retry_queue_new ();
    uint64_t state = 12345;
    int64_t now = 0, last = INT64_MIN;
    size_t pushed = 0, popped = 0;
    for (int round = 0; round < 5000; round++) {
        for (int k = 0; k < 3; k++) {
            dlq_retry_queue_push (q, item ((int64_t) pushed, 0, now + (int64_t) (next_random (&state) % 500)));
            pushed++;
        }
        now += 100;
        dlq_retry_item_t it;
        while (dlq_retry_queue_pop_due (q, now, &it)) {
            cr_assert_leq (it.due_ms, now, "popped before it was due");
            cr_assert_geq (it.due_ms, last, "out of order");
            last = it.due_ms;
            popped++;
        }
    }
    cr_expect_eq (popped + dlq_retry_queue_size (q), pushed);
    dlq_retry_queue_destroy (&q);
}
