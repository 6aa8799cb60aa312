/*  test_log — repeats of a WARN or ERROR message are counted, not written:
 *  one full line, then "(repeated N times in the last 10 s)" when the window
 *  ends (on the test's clock), exact under 4 threads; messages that differ
 *  in words all appear, ids and numbers do not make a message new; A,B,A,B
 *  collapse per message; a flood is one count per window; nothing is lost
 *  when the table is full or at flush; INFO lines and window 0 are never
 *  suppressed; the line cap keeps the count; for the journal each line
 *  starts with its syslog priority, outside the cap.
 */
#include "dlq_log.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------- helpers */

static FILE *capture;
static _Atomic int64_t fake_now = 1000000;

static int64_t fake_clock (void) { return atomic_load (&fake_now); }
static void advance (int64_t ms) { atomic_fetch_add (&fake_now, ms); }

static void
setup (void)
{
    capture = tmpfile ();
    cr_assert_not_null (capture);
    dlq_log_set_fd (fileno (capture));
    dlq_log_set_clock (fake_clock);
    dlq_log_set_level (DLQ_LOG_DEBUG);
}

static void
teardown (void)
{
    dlq_log_set_fd (STDERR_FILENO);
    fclose (capture);
}

TestSuite (log, .init = setup, .fini = teardown);

/* Everything written so far, malloc'd and NUL-terminated. */
static char *
written (void)
{
    struct stat st;
    cr_assert_eq (fstat (fileno (capture), &st), 0);
    char *all = malloc ((size_t) st.st_size + 1);
    cr_assert_eq (pread (fileno (capture), all, (size_t) st.st_size, 0), st.st_size);
    all [st.st_size] = '\0';
    return all;
}

/* How many lines have been written. */
static size_t
lines (void)
{
    char *all = written ();
    size_t n = 0;
    for (char *p = all; *p; p++)
        n += *p == '\n';
    free (all);
    return n;
}

/* Line i (0-based) without its time and pid ("LEVEL message"), malloc'd,
 * or NULL when there are fewer lines. */
static char *
line (size_t i)
{
    char *all = written (), *p = all;
    for (size_t k = 0; k < i && p; k++) {
        p = strchr (p, '\n');
        p = p ? p + 1 : NULL;
    }
    char *got = NULL;
    if (p && *p) {
        char *end = strchr (p, '\n');
        cr_assert_not_null (end, "every line ends with a newline");
        char *body = strstr (p, "] ");          /* after "dlqd[pid]" */
        cr_assert (body && body < end, "a line has the prefix: %.*s", (int) (end - p), p);
        body += 2;
        got = strndup (body, (size_t) (end - body));
    }
    free (all);
    return got;
}

static void
expect_line (size_t i, const char *want)
{
    char *got = line (i);
    cr_expect_str_eq (got ? got : "(no line)", want, "line %zu", i);
    free (got);
}

/* The N of "(repeated N time(s) ...)" on line i, 0 when it has none. */
static unsigned long long
count_on (size_t i)
{
    char *got = line (i);
    const char *at = got ? strstr (got, "(repeated ") : NULL;
    unsigned long long n = at ? strtoull (at + strlen ("(repeated "), NULL, 10) : 0;
    free (got);
    return n;
}

/* ------------------------------------------------------------ the rule */

Test (log, the_same_error_10000_times_is_one_line_then_one_count)
{
    for (int i = 0; i < 10000; i++)
        dlq_log (DLQ_LOG_ERROR, "commit of %d events and %d ledger updates failed: %s", 1, 0,
                 "database or disk is full");
    cr_assert_eq (lines (), 1, "one line while the window runs");
    expect_line (0, "ERROR commit of 1 events and 0 ledger updates failed: database or disk is full");
    advance (9999);
    dlq_log_tick ();
    cr_assert_eq (lines (), 1, "the window has not ended yet");
    advance (1);
    dlq_log_tick ();
    cr_assert_eq (lines (), 2);
    expect_line (1, "ERROR commit of 1 events and 0 ledger updates failed: database or disk is full"
                    " (repeated 9999 times in the last 10 s)");
    dlq_log_tick ();
    dlq_log_flush ();
    cr_expect_eq (lines (), 2, "a count is written once");
}

Test (log, the_count_comes_at_the_next_line_logged_too)
{
    dlq_log (DLQ_LOG_WARN, "sink pg: cannot connect");
    dlq_log (DLQ_LOG_WARN, "sink pg: cannot connect");
    advance (10000);
    dlq_log (DLQ_LOG_INFO, "something else");
    cr_assert_eq (lines (), 3);
    expect_line (1, "WARN sink pg: cannot connect (repeated 1 time in the last 10 s)");
    expect_line (2, "INFO something else");
}

Test (log, ids_and_numbers_do_not_make_a_message_new)
{
    static const char *const ids [] = { "0190a1b2-c3d4-7abc-8def-0123456789ab",
                                        "0190a1b2-c3d4-7abc-8def-0123456789ac",
                                        "0190ffff-0000-7000-8000-000000000001" };
    for (int i = 0; i < 3000; i++) {
        dlq_log (DLQ_LOG_ERROR, "commit of %d events and %d ledger updates failed: %s", i + 1, i % 3,
                 "database or disk is full");
        dlq_log (DLQ_LOG_WARN, "sink %s: event %s failed after %u attempts: %s", "pg", ids [i % 3],
                 (unsigned) i, "value too long for type character varying(64)");
        dlq_log (DLQ_LOG_ERROR, "sink %s: cannot read the spool (again in %d ms): %s", "pg", 500 + i,
                 "disk I/O error");
    }
    cr_assert_eq (lines (), 3, "the first of each, in full");
    expect_line (0, "ERROR commit of 1 events and 0 ledger updates failed: database or disk is full");
    expect_line (1, "WARN sink pg: event 0190a1b2-c3d4-7abc-8def-0123456789ab failed after 0 attempts: "
                    "value too long for type character varying(64)");
    expect_line (2, "ERROR sink pg: cannot read the spool (again in 500 ms): disk I/O error");
    advance (10000);
    dlq_log_tick ();
    cr_assert_eq (lines (), 6);
    expect_line (3, "ERROR commit of 3000 events and 2 ledger updates failed: database or disk is full"
                    " (repeated 2999 times in the last 10 s)");
    expect_line (4, "WARN sink pg: event 0190ffff-0000-7000-8000-000000000001 failed after 2999 attempts: "
                    "value too long for type character varying(64) (repeated 2999 times in the last 10 s)");
    expect_line (5, "ERROR sink pg: cannot read the spool (again in 3499 ms): disk I/O error"
                    " (repeated 2999 times in the last 10 s)");
}

Test (log, distinct_messages_all_appear)
{
    dlq_log (DLQ_LOG_ERROR, "query failed: %s", "database is locked");
    dlq_log (DLQ_LOG_ERROR, "query failed: %s", "disk I/O error");
    dlq_log (DLQ_LOG_ERROR, "sink %s: cannot connect", "pg1");
    dlq_log (DLQ_LOG_ERROR, "sink %s: cannot connect", "pg2");
    dlq_log (DLQ_LOG_WARN, "sink %s: cannot connect", "pg1");       /* another level */
    dlq_log (DLQ_LOG_ERROR, "sink %s: %s", "rabbit", "connection refused");    /* one call site ... */
    dlq_log (DLQ_LOG_ERROR, "sink %s: %s", "rabbit", "access refused");        /* ... two messages */
    for (int i = 0; i < 40; i++)
        dlq_log (DLQ_LOG_ERROR, "schedule stream%d: claim failed: locked", i);
    cr_assert_eq (lines (), 47, "every distinct message is written");
    expect_line (0, "ERROR query failed: database is locked");
    expect_line (1, "ERROR query failed: disk I/O error");
    expect_line (3, "ERROR sink pg2: cannot connect");
    expect_line (4, "WARN sink pg1: cannot connect");
    expect_line (6, "ERROR sink rabbit: access refused");
    expect_line (46, "ERROR schedule stream39: claim failed: locked");
    advance (10000);
    dlq_log_tick ();
    dlq_log_flush ();
    cr_expect_eq (lines (), 47, "no count line: nothing repeated");
}

Test (log, interleaved_messages_collapse_each_on_its_own)
{
    for (int i = 0; i < 1000; i++) {
        dlq_log (DLQ_LOG_ERROR, "checkpoint call failed: %s", "disk full");
        dlq_log (DLQ_LOG_WARN, "replay: sink %s could not start: %s", "rabbit", "connection refused");
    }
    cr_assert_eq (lines (), 2);
    advance (10000);
    dlq_log_tick ();
    cr_assert_eq (lines (), 4);
    expect_line (2, "ERROR checkpoint call failed: disk full (repeated 999 times in the last 10 s)");
    expect_line (3, "WARN replay: sink rabbit could not start: connection refused (repeated 999 times in the last 10 s)");
}

/* ------------------------------------------------------------- windows */

Test (log, a_steady_flood_is_one_line_then_one_count_per_window)
{
    for (int ms = 0; ms < 35000; ms++) {          /* one a millisecond for 35 s */
        dlq_log (DLQ_LOG_ERROR, "query failed: %s", "disk I/O error");
        advance (1);
    }
    cr_assert_eq (lines (), 4, "the first line and the counts at 10, 20 and 30 s");
    for (size_t i = 1; i < 4; i++)
        cr_expect_eq (count_on (i), i == 1 ? 9999 : 10000, "window %zu", i);
    dlq_log_flush ();
    cr_assert_eq (lines (), 5);
    expect_line (4, "ERROR query failed: disk I/O error (repeated 5000 times in the last 5 s)");
}

Test (log, after_a_quiet_window_the_message_is_written_in_full_again)
{
    dlq_log (DLQ_LOG_ERROR, "query failed: %s", "disk I/O error");
    advance (10000);
    dlq_log_tick ();                              /* a window without a repeat: forgotten */
    dlq_log (DLQ_LOG_ERROR, "query failed: %s", "disk I/O error");
    cr_assert_eq (lines (), 2);
    expect_line (1, "ERROR query failed: disk I/O error");
}

Test (log, a_repeat_after_a_counted_window_is_still_counted)
{
    dlq_log (DLQ_LOG_ERROR, "query failed: x");
    dlq_log (DLQ_LOG_ERROR, "query failed: x");
    advance (10000);
    dlq_log_tick ();                              /* count 1; the next window starts */
    advance (4000);
    dlq_log (DLQ_LOG_ERROR, "query failed: x");
    cr_assert_eq (lines (), 2, "part of the same flood");
    advance (6000);
    dlq_log_tick ();
    cr_assert_eq (lines (), 3);
    expect_line (2, "ERROR query failed: x (repeated 1 time in the last 10 s)");
    advance (10000);
    dlq_log_tick ();
    dlq_log (DLQ_LOG_ERROR, "query failed: x");
    cr_assert_eq (lines (), 4, "a quiet window later, in full");
    expect_line (3, "ERROR query failed: x");
}

Test (log, flush_writes_every_pending_count)
{
    dlq_log (DLQ_LOG_ERROR, "a failed");
    dlq_log (DLQ_LOG_ERROR, "a failed");
    dlq_log (DLQ_LOG_ERROR, "b failed");
    advance (2500);
    dlq_log (DLQ_LOG_ERROR, "b failed");
    dlq_log (DLQ_LOG_ERROR, "b failed");
    dlq_log_flush ();
    cr_assert_eq (lines (), 4);
    expect_line (2, "ERROR a failed (repeated 1 time in the last 3 s)");
    expect_line (3, "ERROR b failed (repeated 2 times in the last 3 s)");
    dlq_log (DLQ_LOG_ERROR, "a failed");
    cr_expect_eq (lines (), 5, "flush forgets: the next one is written in full");
}

Test (log, info_and_debug_lines_are_never_suppressed)
{
    for (int i = 0; i < 100; i++) {
        dlq_log (DLQ_LOG_INFO, "expiry sweep deleted %d events", 1000);
        dlq_log (DLQ_LOG_DEBUG, "server: notice");
    }
    cr_expect_eq (lines (), 200);
}

Test (log, below_the_level_is_neither_written_nor_counted)
{
    dlq_log_set_level (DLQ_LOG_ERROR);
    for (int i = 0; i < 100; i++)
        dlq_log (DLQ_LOG_WARN, "sink pg: cannot connect");
    dlq_log_flush ();
    cr_expect_eq (lines (), 0);
}

Test (log, window_0_writes_every_line)
{
    dlq_log_set_window_ms (0);
    for (int i = 0; i < 100; i++)
        dlq_log (DLQ_LOG_ERROR, "query failed: x");
    dlq_log_flush ();
    cr_expect_eq (lines (), 100);
}

Test (log, setting_the_window_writes_pending_counts_first)
{
    dlq_log (DLQ_LOG_ERROR, "query failed: x");
    dlq_log (DLQ_LOG_ERROR, "query failed: x");
    dlq_log_set_window_ms (500);
    cr_assert_eq (lines (), 2);
    expect_line (1, "ERROR query failed: x (repeated 1 time in the last 1 s)");
    dlq_log (DLQ_LOG_ERROR, "query failed: x");
    dlq_log (DLQ_LOG_ERROR, "query failed: x");
    advance (500);
    dlq_log_tick ();
    expect_line (3, "ERROR query failed: x (repeated 1 time in the last 500 ms)");
}

/* ---------------------------------------------------------- the bounds */

Test (log, more_messages_than_the_table_loses_no_count)
{
    enum { KEYS = DLQ_LOG_KEYS + 36, ROUNDS = 5 };
    /* KEYS distinct messages, each repeated ROUNDS times in a row: every
     * one is written once and counted ROUNDS - 1 times, whoever gives way */
    for (int k = 0; k < KEYS; k++)
        for (int r = 0; r < ROUNDS; r++)
            dlq_log (DLQ_LOG_ERROR, "sink s%d: cannot connect", k);
    dlq_log_flush ();
    size_t n = lines ();
    cr_assert_eq (n, 2 * KEYS, "one line and one count per message");
    unsigned long long counted = 0;
    for (size_t i = 0; i < n; i++)
        counted += count_on (i);
    cr_expect_eq (counted, (unsigned long long) KEYS * (ROUNDS - 1));

    /* round robin over more messages than the table holds: each one has
     * given way before it comes again, so all are written (no flood of
     * counts, nothing lost) */
    fclose (capture);
    capture = tmpfile ();
    dlq_log_set_fd (fileno (capture));
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < KEYS; k++)
            dlq_log (DLQ_LOG_ERROR, "sink s%d: cannot connect", k);
    dlq_log_flush ();
    cr_expect_eq (lines (), (size_t) KEYS * ROUNDS);
}

Test (log, a_line_at_the_cap_keeps_its_count)
{
    char big [4000];
    memset (big, 'x', sizeof big - 1);
    big [sizeof big - 1] = '\0';
    dlq_log (DLQ_LOG_ERROR, "huge: %s", big);
    dlq_log (DLQ_LOG_ERROR, "huge: %s", big);
    dlq_log_flush ();
    char *all = written ();
    char *second = strchr (all, '\n') + 1;
    char *end = strchr (second, '\n');
    cr_expect_leq ((size_t) (second - all), 2048, "the first line is at most 2048 bytes");
    cr_expect_leq ((size_t) (end + 1 - second), 2048, "so is the count line");
    const char *suffix = "xxx (repeated 1 time in the last 1 s)\n";
    cr_expect_eq (strncmp (end + 1 - strlen (suffix), suffix, strlen (suffix)), 0, "%s", second);
    free (all);
}

Test (log, for_the_journal_each_line_starts_with_its_priority)
{
    dlq_log_set_priority_prefix (true);
    dlq_log (DLQ_LOG_DEBUG, "a debug line");
    dlq_log (DLQ_LOG_INFO, "an info line");
    dlq_log (DLQ_LOG_WARN, "a warning");
    dlq_log (DLQ_LOG_ERROR, "an error");
    char big [4000];
    memset (big, 'y', sizeof big - 1);
    big [sizeof big - 1] = '\0';
    dlq_log (DLQ_LOG_ERROR, "huge: %s", big);
    dlq_log_flush ();
    dlq_log_set_priority_prefix (false);
    char *all = written ();
    const char *want [] = { "<7>", "<6>", "<4>", "<3>", "<3>" };
    char *line = all;
    for (size_t i = 0; i < 5; i++) {
        char *end = strchr (line, '\n');
        cr_assert_not_null (end, "line %zu", i);
        cr_expect_eq (strncmp (line, want [i], 3), 0, "line %zu starts with %s: %.40s", i, want [i], line);
        cr_expect_leq ((size_t) (end + 1 - line), 2048 + 3, "a line is at most 2048 bytes after its prefix");
        line = end + 1;
    }
    cr_expect (strstr (all, " INFO an info line\n") != NULL, "the text line is as without the prefix");
    free (all);
}

/* ------------------------------------------------------------- threads */

enum { THREADS = 4, PER_THREAD = 25000 };

static void *
log_a_lot (void *arg)
{
    int t = (int) (intptr_t) arg;
    for (int i = 0; i < PER_THREAD; i++) {
        dlq_log (DLQ_LOG_ERROR, "commit of %d events and 0 ledger updates failed: disk full", i);
        dlq_log (DLQ_LOG_WARN, "sink t%d: cannot connect", t);
        if (i % 5000 == 4999)
            advance (1000);                     /* windows end while threads log */
    }
    return NULL;
}

Test (log, four_threads_count_exactly)
{
    pthread_t threads [THREADS];
    for (int t = 0; t < THREADS; t++)
        cr_assert_eq (pthread_create (&threads [t], NULL, log_a_lot, (void *) (intptr_t) t), 0);
    for (int t = 0; t < THREADS; t++)
        pthread_join (threads [t], NULL);
    dlq_log_flush ();
    size_t n = lines ();
    unsigned long long commits = 0, connects [THREADS] = { 0 };
    size_t commit_lines = 0, connect_lines [THREADS] = { 0 };
    for (size_t i = 0; i < n; i++) {
        char *got = line (i);
        cr_assert_not_null (got);
        unsigned long long c = count_on (i);
        int t;
        if (strncmp (got, "ERROR commit of ", 16) == 0) {
            commit_lines += c == 0;
            commits += c ? c : 1;
        } else {
            cr_assert_eq (sscanf (got, "WARN sink t%d: cannot connect", &t), 1, "%s", got);
            cr_assert (t >= 0 && t < THREADS);
            connect_lines [t] += c == 0;
            connects [t] += c ? c : 1;
        }
        free (got);
    }
    cr_expect_eq (commit_lines, 1, "the shared message written in full once");
    cr_expect_eq (commits, (unsigned long long) THREADS * PER_THREAD, "and every repeat counted");
    for (int t = 0; t < THREADS; t++) {
        cr_expect_eq (connect_lines [t], 1, "thread %d's message written in full once", t);
        cr_expect_eq (connects [t], PER_THREAD, "thread %d's count", t);
    }
    cr_expect_lt (n, 100, "a few lines, not %d", 2 * THREADS * PER_THREAD);
}
