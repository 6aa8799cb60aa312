/*  test_dlq_names — an enum's names by value and values by name
 *  (core/dlq_names): every name round-trips, a value past the table is the
 *  unknown text, and a name is matched byte for byte (case, NULL, empty).
 */
#include "dlq_names.h"

#include <criterion/criterion.h>

static const char *const names [] = { "RUNNING", "PAUSED", "DONE" };

Test (dlq_names, every_name_round_trips_and_nothing_else_is_found)
{
    for (size_t i = 0; i < 3; i++) {
        size_t value = 99;
        cr_assert_str_eq (dlq_names_name (names, 3, i, "?"), names [i]);
        cr_assert (dlq_names_find (names, 3, names [i], &value));
        cr_assert_eq (value, i);
    }
    cr_assert_str_eq (dlq_names_name (names, 3, 3, "UNKNOWN"), "UNKNOWN");
    cr_assert_str_eq (dlq_names_name (names, 3, (size_t) -1, "UNKNOWN"), "UNKNOWN");
    size_t value = 7;
    cr_assert_not (dlq_names_find (names, 3, "running", &value), "case matters");
    cr_assert_not (dlq_names_find (names, 3, "RUNNING ", &value));
    cr_assert_not (dlq_names_find (names, 3, "", &value));
    cr_assert_not (dlq_names_find (names, 3, NULL, &value));
    cr_assert_eq (value, 7, "left alone when nothing is found");
}
