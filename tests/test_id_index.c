/*  test_id_index — the in-memory index of stored ids (core/spool/id_index):
 *  what is put is found until it is removed, removal keeps every other
 *  entry findable (checked against a plain array of what is present), two
 *  entries sharing a hash answer the newest, and the table grows past its
 *  initial size.
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
