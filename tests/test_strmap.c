/*  test_strmap — the string map: get after put, misses, growth past the
 *  first table (every key still found), replacing a value frees the old
 *  one, destroy frees the values, lookups by length in a buffer that has
 *  no NUL (only its len bytes read).
 */
#include "dlq_strmap.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int freed;

static void
count_free (void *value)
{
    freed++;
    free (value);
}

static int *
number (int n)
{
    int *p = malloc (sizeof *p);
    *p = n;
    return p;
}

Test (strmap, finds_what_was_put_and_nothing_else)
{
    dlq_strmap_t *map = dlq_strmap_new (free);
    dlq_strmap_put (map, "orders", number (1));
    dlq_strmap_put (map, "payments.v2", number (2));
    cr_expect_eq (*(int *) dlq_strmap_get (map, "orders"), 1);
    cr_expect_eq (*(int *) dlq_strmap_get (map, "payments.v2"), 2);
    cr_expect_null (dlq_strmap_get (map, "order"));
    cr_expect_null (dlq_strmap_get (map, ""));
    cr_expect_eq (dlq_strmap_size (map), 2);
    dlq_strmap_destroy (&map);
    cr_expect_null (map);
}

Test (strmap, grows_and_keeps_every_key)
{
    enum { N = 5000 };
    freed = 0;
    dlq_strmap_t *map = dlq_strmap_new (count_free);
    char key [32];
    for (int i = 0; i < N; i++) {
        snprintf (key, sizeof key, "stream-%d", i);
        dlq_strmap_put (map, key, number (i));
    }
    cr_expect_eq (dlq_strmap_size (map), N);
    for (int i = 0; i < N; i++) {
        snprintf (key, sizeof key, "stream-%d", i);
        int *v = dlq_strmap_get (map, key);
        cr_assert_not_null (v, "%s lost", key);
        cr_expect_eq (*v, i);
    }
    dlq_strmap_put (map, "stream-7", number (-7));      /* replaces: the old value is freed */
    cr_expect_eq (freed, 1);
    cr_expect_eq (*(int *) dlq_strmap_get (map, "stream-7"), -7);
    cr_expect_eq (dlq_strmap_size (map), N);
    dlq_strmap_destroy (&map);
    cr_expect_eq (freed, N + 1, "destroy frees every value");
}

Test (strmap, finds_a_key_by_length_reading_only_its_bytes)
{
    dlq_strmap_t *map = dlq_strmap_new (free);
    dlq_strmap_put (map, "orders", number (1));
    char *exact = malloc (6);                           /* "orders", no NUL: ASan sees a read past it */
    memcpy (exact, "orders", 6);
    cr_expect_eq (*(int *) dlq_strmap_get_n (map, exact, 6), 1);
    cr_expect_null (dlq_strmap_get_n (map, exact, 5), "a prefix is another key");
    cr_expect_null (dlq_strmap_get_n (map, "orders\0x", 8), "a NUL inside matches no key");
    cr_expect_null (dlq_strmap_get_n (map, "ordersx", 7));
    free (exact);
    dlq_strmap_destroy (&map);
}
