/*  test_dir_lock — one process at a time in a directory (core/dir_lock.h). */
#include "dir_lock.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

Test (dir_lock, a_held_lock_is_refused_with_its_owners_pid_and_free_again_once_released)
{
    char dir [256], err [600] = "", want [32];
    test_tmpdir (dir);
    dlq_dir_lock_t *first = NULL, *second = NULL;
    cr_assert_eq (dlq_dir_lock_take (dir, "x.lock", &first, err, sizeof err), DLQ_DIR_LOCK_OK, "%s", err);
    /* flock is per open file: a second take conflicts, in this process too */
    cr_expect_eq (dlq_dir_lock_take (dir, "x.lock", &second, err, sizeof err), DLQ_DIR_LOCK_HELD);
    cr_expect_null (second);
    snprintf (want, sizeof want, "pid %ld", (long) getpid ());
    cr_expect_not_null (strstr (err, want), "%s", err);
    cr_expect_not_null (strstr (err, dir), "%s", err);
    dlq_dir_lock_release (&first);
    cr_expect_null (first);
    cr_expect_eq (dlq_dir_lock_take (dir, "x.lock", &second, err, sizeof err), DLQ_DIR_LOCK_OK, "%s", err);
    dlq_dir_lock_release (&second);
    dlq_dir_lock_release (&second);     /* NULL is fine */
    test_rmtree (dir);
}

Test (dir_lock, a_directory_that_is_not_there_is_an_error_that_says_so)
{
    dlq_dir_lock_t *lock = NULL;
    char err [600] = "";
    cr_expect_eq (dlq_dir_lock_take ("/nonexistent/dlqd-test", "x.lock", &lock, err, sizeof err), DLQ_DIR_LOCK_ERROR);
    cr_expect_null (lock);
    cr_expect_not_null (strstr (err, "/nonexistent/dlqd-test/x.lock"), "%s", err);
}
