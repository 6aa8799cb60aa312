/*  test_id_index — the in-memory index of stored ids (core/spool/id_index):
 *  what is put is found until it is removed, removal keeps every other
 *  entry findable (checked against a plain array of what is present), two
 *  entries sharing a hash answer the newest, the table grows past its
 *  initial size, hashes crowded into one part of it are all found, and it
 *  grows a part at a time.
 */
#include "id_index.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 20000

Test (id_index, what_is_put_is_found_until_it_is_removed)
{
    dlq_id_index_t *index = dlq_id_index_new ();
    static uint64_t hashes [N];
    static bool present [N];
    for (int i = 0; i < N; i++) {
        char id [64];
        int len = snprintf (id, sizeof id, "0190f3a2-0000-7000-8000-%012d", i);
        hashes [i] = dlq_id_index_hash (id, (size_t) len);
        dlq_id_index_put (index, hashes [i], (uint64_t) i * 100);
        present [i] = true;
    }
    cr_assert_eq (dlq_id_index_count (index), N);
    cr_assert_geq (dlq_id_index_bytes (index), N * 16, "it grew");
    uint64_t position;
    for (int i = 0; i < N; i++) {
        cr_assert (dlq_id_index_get (index, hashes [i], &position), "entry %d", i);
        cr_assert_eq (position, (uint64_t) i * 100);
    }
    cr_assert_not (dlq_id_index_get (index, dlq_id_index_hash ("other", 5), &position));
    srand (7);
    size_t removed = 0;
    for (int k = 0; k < N / 2; k++) {
        int i = rand () % N;
        cr_assert_eq (dlq_id_index_remove (index, hashes [i], (uint64_t) i * 100), present [i]);
        removed += present [i];
        present [i] = false;
        cr_assert_not (dlq_id_index_remove (index, hashes [i], (uint64_t) i * 100 + 1), "another position");
    }
    cr_assert_eq (dlq_id_index_count (index), N - removed);
    for (int i = 0; i < N; i++)
        cr_assert_eq (dlq_id_index_get (index, hashes [i], &position), present [i], "after removals, %d", i);
    dlq_id_index_reserve (index, 100000);
    cr_assert_geq (dlq_id_index_bytes (index), 100000 * 16, "reserved");
    for (int i = 0; i < N; i++)
        cr_assert_eq (dlq_id_index_get (index, hashes [i], &position), present [i], "after the reserve, %d", i);
    dlq_id_index_destroy (&index);
    cr_assert_null (index);
}

Test (id_index, two_entries_with_one_hash_answer_the_newest_position)
{
    dlq_id_index_t *index = dlq_id_index_new ();
    dlq_id_index_put (index, 42, 10);
    dlq_id_index_put (index, 42, 30);
    dlq_id_index_put (index, 42, 20);
    uint64_t position = 0;
    cr_assert (dlq_id_index_get (index, 42, &position));
    cr_assert_eq (position, 30);
    cr_assert (dlq_id_index_remove (index, 42, 30));
    cr_assert (dlq_id_index_get (index, 42, &position));
    cr_assert_eq (position, 20);
    dlq_id_index_destroy (&index);
}

/* Hashes that all fall in one 16th of the index (their top bits alike),
 * consecutive ones too, so probes run to the end of a table and wrap: all
 * found, removal of every other one keeps the rest findable. */
static uint64_t
crowded_hash (uint64_t i)
{
    uint64_t low = i % 2 ? (~0ULL >> 4) - i / 2 : i / 2;    /* the last slots, the first ones */
    return 0xfULL << 60 | low;
}

Test (id_index, hashes_crowded_in_one_part_of_the_index_are_all_found)
{
    dlq_id_index_t *index = dlq_id_index_new ();
    enum { M = 30000 };
    for (uint64_t i = 1; i <= M; i++)
        dlq_id_index_put (index, crowded_hash (i), i);
    cr_assert_eq (dlq_id_index_count (index), M);
    uint64_t position;
    for (uint64_t i = 1; i <= M; i += 2)
        cr_assert (dlq_id_index_remove (index, crowded_hash (i), i), "remove %llu", (unsigned long long) i);
    cr_assert_eq (dlq_id_index_count (index), M / 2);
    for (uint64_t i = 1; i <= M; i++) {
        bool found = dlq_id_index_get (index, crowded_hash (i), &position);
        cr_assert_eq (found, i % 2 == 0, "entry %llu", (unsigned long long) i);
        if (found)
            cr_assert_eq (position, i);
    }
    dlq_id_index_destroy (&index);
}

/* Growing replaces a part of the index, never the whole: as a million ids
 * go in, no single put makes the table grow by more than a tenth of its
 * size (the whole table growing by half at once, old and new alive, was the
 * peak of dlqd's memory behind a dead sink). */
Test (id_index, growing_takes_a_part_of_the_index_at_a_time)
{
    dlq_id_index_t *index = dlq_id_index_new ();
    size_t bytes = dlq_id_index_bytes (index), largest_step = 0;
    for (int i = 0; i < 1000000; i++) {
        char id [64];
        int len = snprintf (id, sizeof id, "0190f3a2-0000-7000-8000-%012d", i);
        dlq_id_index_put (index, dlq_id_index_hash (id, (size_t) len), (uint64_t) i);
        size_t now = dlq_id_index_bytes (index);
        if (now - bytes > largest_step && i > 100000)
            largest_step = now - bytes;
        bytes = now;
    }
    cr_assert_geq (bytes, 1000000 * 16);
    cr_assert_leq (largest_step, bytes / 10, "one put grew the index by %zu of %zu bytes", largest_step, bytes);
    dlq_id_index_destroy (&index);
}
