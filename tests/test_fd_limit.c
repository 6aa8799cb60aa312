/*  test_fd_limit — the open-files limit, as fd_limit.h has it:
 *  gateway.max_connections derived from a limit is the limit less
 *  DLQ_FD_RESERVED, at least 16 and at most 1000000 (an unreadable limit,
 *  -1, and an unlimited one, INT64_MAX, included); raising the limit sets
 *  the soft limit to the hard one, reports the soft limit found in *before
 *  (which may be NULL) and returns the one in force. Criterion runs each
 *  test in its own process, so lowering the limit here touches nothing
 *  else.
 */
#include "fd_limit.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <sys/resource.h>

static int64_t
as_int64 (rlim_t value)
{
    return value == RLIM_INFINITY || value > (rlim_t) INT64_MAX ? INT64_MAX : (int64_t) value;
}

Test (fd_limit, connections_are_the_limit_less_the_reserve)
{
    cr_expect_eq (dlq_fd_limit_connections (1024), 1024 - DLQ_FD_RESERVED);
    cr_expect_eq (dlq_fd_limit_connections (524288), 524288 - DLQ_FD_RESERVED);
    cr_expect_eq (dlq_fd_limit_connections (DLQ_FD_RESERVED + 16), 16, "the floor exactly");
    cr_expect_eq (dlq_fd_limit_connections (DLQ_FD_RESERVED + 17), 17);
    cr_expect_eq (dlq_fd_limit_connections (1000000 + DLQ_FD_RESERVED), 1000000, "the ceiling exactly");
    cr_expect_eq (dlq_fd_limit_connections (1000000 + DLQ_FD_RESERVED - 1), 999999);
}

Test (fd_limit, connections_are_at_least_16)
{
    static const int64_t limits [] = { DLQ_FD_RESERVED + 15, DLQ_FD_RESERVED, 100, 16, 1, 0, -1, -1000 };
    for (size_t i = 0; i < sizeof limits / sizeof limits [0]; i++)
        cr_expect_eq (dlq_fd_limit_connections (limits [i]), 16, "limit %lld", (long long) limits [i]);
}

Test (fd_limit, connections_are_at_most_a_million)
{
    static const int64_t limits [] = { 1000000 + DLQ_FD_RESERVED + 1, 2000000, 1LL << 40, INT64_MAX };
    for (size_t i = 0; i < sizeof limits / sizeof limits [0]; i++)
        cr_expect_eq (dlq_fd_limit_connections (limits [i]), 1000000, "limit %lld", (long long) limits [i]);
}

Test (fd_limit, the_reserve_is_what_the_docs_say)
{
    cr_expect_eq (DLQ_FD_RESERVED, 256);
}

Test (fd_limit, raising_sets_the_soft_limit_to_the_hard_one)
{
    struct rlimit found;
    cr_assert_eq (getrlimit (RLIMIT_NOFILE, &found), 0);
    rlim_t low = found.rlim_max == RLIM_INFINITY || found.rlim_max > 512 ? 512 : found.rlim_max / 2;
    cr_assert_gt (low, 0);
    struct rlimit lowered = { low, found.rlim_max };
    cr_assert_eq (setrlimit (RLIMIT_NOFILE, &lowered), 0, "any process may lower its soft limit");
    int64_t before = -1;
    int64_t now = dlq_fd_limit_raise (&before);
    cr_expect_eq (before, (int64_t) low, "the soft limit found");
    struct rlimit after;
    cr_assert_eq (getrlimit (RLIMIT_NOFILE, &after), 0);
    cr_expect_eq (now, as_int64 (after.rlim_cur), "returns the soft limit in force");
    cr_expect_eq (after.rlim_max, found.rlim_max, "the hard limit is left alone");
    if (found.rlim_max != RLIM_INFINITY)
        cr_expect_eq (after.rlim_cur, found.rlim_max, "raised to the hard limit");
    cr_expect_geq (now, (int64_t) low, "never lowered");
}

Test (fd_limit, raising_an_already_raised_limit_changes_nothing)
{
    int64_t first = dlq_fd_limit_raise (NULL);
    cr_assert_geq (first, 0);
    int64_t before = -1;
    int64_t second = dlq_fd_limit_raise (&before);
    cr_expect_eq (second, first);
    cr_expect_eq (before, first, "the soft limit found is the one the first call left");
}

Test (fd_limit, before_may_be_null)
{
    struct rlimit found;
    cr_assert_eq (getrlimit (RLIMIT_NOFILE, &found), 0);
    int64_t now = dlq_fd_limit_raise (NULL);
    struct rlimit after;
    cr_assert_eq (getrlimit (RLIMIT_NOFILE, &after), 0);
    cr_expect_eq (now, as_int64 (after.rlim_cur));
}
