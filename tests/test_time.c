/*  test_time — strict RFC 3339 parsing, ISO formatting and the clocks. */
#include "dlq_time.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LIT(s) s, sizeof (s) - 1

/* Parse from an exactly-sized heap copy, so a read past len is caught by
 * the sanitizer build. */
static bool
parse_exact (const char *s, size_t len, int64_t *ms)
{
    char *copy = malloc (len ? len : 1);
    memcpy (copy, s, len);
    bool ok = dlq_time_parse_iso (copy, len, ms);
    free (copy);
    return ok;
}

/* Expected values computed independently (Python datetime, and by hand for
 * 2026-06-09T14:32:11.123Z: 20613 days * 86400 + 52331 s, then + 123 ms). */
static const struct {
    const char *in;
    int64_t     ms;
} valid_cases [] = {
    { "1970-01-01T00:00:00Z", 0 },
    { "1970-01-01T00:00:00.000Z", 0 },
    { "2026-06-09T14:32:11.123Z", 1781015531123 },
    { "2026-06-09t14:32:11.123z", 1781015531123 },
    { "2026-06-09T20:02:11.123+05:30", 1781015531123 },
    { "2026-06-09T09:32:11.123-05:00", 1781015531123 },
    { "2026-06-09T14:32:11.123+00:00", 1781015531123 },
    { "2026-06-09T14:32:11.123-00:00", 1781015531123 },
    { "2026-06-09T14:32:11.1Z", 1781015531100 },
    { "2026-06-09T14:32:11.12Z", 1781015531120 },
    { "2026-06-09T14:32:11.1239Z", 1781015531123 },
    { "2026-06-09T14:32:11.12399Z", 1781015531123 },
    { "2026-06-09T14:32:11.123999Z", 1781015531123 },
    { "2026-06-09T14:32:11.1239999Z", 1781015531123 },
    { "2026-06-09T14:32:11.12399999Z", 1781015531123 },
    { "2026-06-09T14:32:11.123999999Z", 1781015531123 },
    { "2026-06-09T14:32:11.999999999Z", 1781015531999 },
    { "2026-06-09T14:32:11.000000001Z", 1781015531000 },
    { "2024-02-29T00:00:00Z", 1709164800000 },
    { "2000-02-29T12:00:00Z", 951825600000 },
    { "1969-12-31T23:59:59.999Z", -1 },
    { "1970-01-01T00:00:00+01:00", -3600000 },
    { "1900-03-01T00:00:00Z", -2203891200000 },
    { "1600-01-01T00:00:00Z", -11676096000000 },
    { "2038-01-19T03:14:08Z", 2147483648000 },
    { "2026-01-01T00:00:00+23:59", 1767139260000 },
    { "0001-01-01T00:00:00Z", -62135596800000 },
    { "0001-01-01T23:59:00+23:59", -62135596800000 },
    { "9999-12-31T23:59:59.999Z", 253402300799999 },
    { "9999-12-31T00:00:00-23:59", 253402300740000 },
};

Test (time, parse_valid_forms)
{
    for (size_t i = 0; i < sizeof valid_cases / sizeof *valid_cases; i++) {
        int64_t ms = 42;
        cr_expect (parse_exact (valid_cases [i].in, strlen (valid_cases [i].in), &ms),
                   "%s rejected", valid_cases [i].in);
        cr_expect_eq (ms, valid_cases [i].ms, "%s: %lld, want %lld", valid_cases [i].in,
                      (long long) ms, (long long) valid_cases [i].ms);
    }
}

static const struct {
    const char *in;
    size_t      len;
} invalid_cases [] = {
    { LIT ("") },
    { LIT ("2024-01-01") },
    { LIT ("2023-02-29T00:00:00Z") },
    { LIT ("1900-02-29T00:00:00Z") },
    { LIT ("2024-02-30T00:00:00Z") },
    { LIT ("2024-04-31T00:00:00Z") },
    { LIT ("2024-13-01T00:00:00Z") },
    { LIT ("2024-00-10T00:00:00Z") },
    { LIT ("2024-01-00T00:00:00Z") },
    { LIT ("2024-01-32T00:00:00Z") },
    { LIT ("2024-01-01T24:00:00Z") },
    { LIT ("2024-01-01T23:60:00Z") },
    { LIT ("2024-01-01T23:59:60Z") },
    { LIT ("2016-12-31T23:59:60Z") },
    { LIT ("2024-01-01T00:00:00") },
    { LIT ("2024-01-01T00:00:00.123") },
    { LIT ("2024-01-01T00:00:00Zx") },
    { LIT ("2024-01-01T00:00:00Z ") },
    { LIT ("2024-01-01T00:00:00Z\0") },
    { LIT ("2024-01-01T00:00:00+01:00Z") },
    { LIT ("2024-01-01T00:00:00z+01:00") },
    { LIT (" 2024-01-01T00:00:00Z") },
    { LIT ("0000-01-01T00:00:00Z") },
    { LIT ("+2024-01-01T00:00:00Z") },
    { LIT ("12024-01-01T00:00:00Z") },
    { LIT ("24-01-01T00:00:00Z") },
    { LIT ("2024-1-01T00:00:00Z") },
    { LIT ("2024-01-1T00:00:00Z") },
    { LIT ("2024-01-01T0:00:00Z") },
    { LIT ("2024-01-01T00:00Z") },
    { LIT ("2024-01-01 00:00:00Z") },
    { LIT ("2024-01-01_00:00:00Z") },
    { LIT ("2024/01/01T00:00:00Z") },
    { LIT ("2024-01-01T00.00.00Z") },
    { LIT ("2024-01-01T00:00:00.Z") },
    { LIT ("2024-01-01T00:00:00,5Z") },
    { LIT ("2024-01-01T00:00:00.1234567890Z") },
    { LIT ("2024-01-01T00:00:00.12a4Z") },
    { LIT ("2024-01-01T00:00:00+0530") },
    { LIT ("2024-01-01T00:00:00+05") },
    { LIT ("2024-01-01T00:00:00+5:30") },
    { LIT ("2024-01-01T00:00:00+24:00") },
    { LIT ("2024-01-01T00:00:00+05:60") },
    { LIT ("2024-01-01T00:00:00 +05:30") },
    { LIT ("2024-01-01T00:00:00UTC") },
    { LIT ("2024-01-01T00:00:00GMT") },
    { LIT ("2024-0a-01T00:00:00Z") },
    { LIT ("2024-01-01T-1:00:00Z") },
    { LIT ("2024-01-01T00:00:-1Z") },
    { LIT ("2024-01-01T00:00:00.-1Z") },
    { LIT ("0001-01-01T00:00:00+00:01") },
    { LIT ("9999-12-31T23:59:59-00:01") },
};

Test (time, parse_rejects)
{
    for (size_t i = 0; i < sizeof invalid_cases / sizeof *invalid_cases; i++) {
        int64_t ms = 42;
        cr_expect_not (parse_exact (invalid_cases [i].in, invalid_cases [i].len, &ms),
                       "case %zu (%s) accepted as %lld", i, invalid_cases [i].in, (long long) ms);
        cr_expect_eq (ms, 42, "case %zu: output written on failure", i);
    }
}

/* No proper prefix of a valid timestamp is itself valid, and none makes the
 * parser read past the bytes it was given. */
Test (time, every_truncation_is_rejected)
{
    for (size_t i = 0; i < sizeof valid_cases / sizeof *valid_cases; i++) {
        const char *s = valid_cases [i].in;
        size_t full = strlen (s);
        for (size_t len = 0; len < full; len++) {
            int64_t ms;
            cr_expect_not (parse_exact (s, len, &ms), "%.*s accepted", (int) len, s);
        }
    }
}

static const struct {
    int64_t     ms;
    const char *text;
} format_cases [] = {
    { 0, "1970-01-01T00:00:00.000Z" },
    { 1, "1970-01-01T00:00:00.001Z" },
    { -1, "1969-12-31T23:59:59.999Z" },
    { -1000, "1969-12-31T23:59:59.000Z" },
    { -86400000, "1969-12-31T00:00:00.000Z" },
    { -86400001, "1969-12-30T23:59:59.999Z" },
    { 1781015531123, "2026-06-09T14:32:11.123Z" },
    { 1709164800000, "2024-02-29T00:00:00.000Z" },
    { 951825600000, "2000-02-29T12:00:00.000Z" },
    { -2203891200000, "1900-03-01T00:00:00.000Z" },
    { -2203891200001, "1900-02-28T23:59:59.999Z" },
    { -11676096000000, "1600-01-01T00:00:00.000Z" },
    { 2147483648000, "2038-01-19T03:14:08.000Z" },
    { -62135596800000, "0001-01-01T00:00:00.000Z" },
    { 253402300799999, "9999-12-31T23:59:59.999Z" },
};

Test (time, format_known_values)
{
    for (size_t i = 0; i < sizeof format_cases / sizeof *format_cases; i++) {
        char out [DLQ_TIME_ISO_LEN + 1];
        memset (out, 'x', sizeof out);
        cr_expect_eq (dlq_time_format_iso (format_cases [i].ms, out), DLQ_TIME_ISO_LEN);
        cr_expect_str_eq (out, format_cases [i].text, "ms %lld", (long long) format_cases [i].ms);
    }
}

Test (time, format_rejects_out_of_range)
{
    static const int64_t bad [] = {
        -62135596800001, 253402300800000, INT64_MIN, INT64_MAX, DLQ_TIME_NONE,
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char out [DLQ_TIME_ISO_LEN + 1];
        cr_expect_eq (dlq_time_format_iso (bad [i], out), 0, "ms %lld", (long long) bad [i]);
    }
}

/* format then parse gives the value back, and the text agrees with libc's
 * gmtime_r, over the whole range (pre-1970 included) and around the edges. */
static void
check_round_trip (int64_t ms)
{
    char out [DLQ_TIME_ISO_LEN + 1];
    cr_assert_eq (dlq_time_format_iso (ms, out), DLQ_TIME_ISO_LEN, "ms %lld", (long long) ms);
    int64_t back;
    cr_assert (dlq_time_parse_iso (out, DLQ_TIME_ISO_LEN, &back), "%s rejected", out);
    cr_assert_eq (back, ms, "%s: %lld, want %lld", out, (long long) back, (long long) ms);

    int64_t ms_part = ((ms % 1000) + 1000) % 1000;
    time_t secs = (time_t) ((ms - ms_part) / 1000);
    struct tm tm;
    cr_assert_not_null (gmtime_r (&secs, &tm));
    char want [64];
    snprintf (want, sizeof want, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
              tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int) ms_part);
    cr_assert_str_eq (out, want, "ms %lld", (long long) ms);
}

Test (time, format_parse_round_trip)
{
    const int64_t lo = -62135596800000, hi = 253402300799999;
    for (int64_t ms = lo; ms < hi; ms += 1234567890123 / 1000 + 7)
        check_round_trip (ms);
    for (int64_t d = -3000; d <= 3000; d++) {
        check_round_trip (d);
        check_round_trip (lo + 3000 + d);
        check_round_trip (hi - 3000 + d);
        check_round_trip (951782400000 + d * 3600000);     /* around 2000-02-29 hour by hour */
        check_round_trip (-2208988800000 + d * 86400000);  /* days around 1900-01-01 */
    }
}

Test (time, offsets_normalise_to_utc)
{
    int64_t utc, local;
    cr_assert (dlq_time_parse_iso (LIT ("2024-03-01T05:29:59.5+05:30"), &local));
    cr_assert (dlq_time_parse_iso (LIT ("2024-02-29T23:59:59.500Z"), &utc));
    cr_expect_eq (local, utc);
    cr_assert (dlq_time_parse_iso (LIT ("2024-12-31T23:00:00-01:00"), &local));
    cr_assert (dlq_time_parse_iso (LIT ("2025-01-01T00:00:00Z"), &utc));
    cr_expect_eq (local, utc);
}

Test (time, clocks)
{
    int64_t now = dlq_time_now_ms ();
    int64_t libc = (int64_t) time (NULL) * 1000;
    cr_expect (now >= libc - 2000 && now <= libc + 2000, "now %lld vs time() %lld",
               (long long) now, (long long) libc);

    int64_t m1 = dlq_time_mono_ms (), n1 = dlq_time_mono_ns ();
    struct timespec pause = { 0, 20 * 1000000 };
    nanosleep (&pause, NULL);
    int64_t m2 = dlq_time_mono_ms (), n2 = dlq_time_mono_ns ();
    cr_expect_geq (m2 - m1, 19, "mono ms advanced %lld", (long long) (m2 - m1));
    cr_expect_geq (n2 - n1, 19000000, "mono ns advanced %lld", (long long) (n2 - n1));
    cr_expect_leq (n1 / 1000000 - m1, 1);
}

Test (time, a_mono_deadline_is_its_timeout_ahead_with_the_nanoseconds_carried)
{
    for (int64_t timeout = 0; timeout < 3000; timeout += 7) {
        struct timespec now;
        clock_gettime (CLOCK_MONOTONIC, &now);
        struct timespec at = dlq_time_mono_deadline (timeout);
        cr_assert (at.tv_nsec >= 0 && at.tv_nsec < 1000000000L, "nanoseconds in range for %lld ms", (long long) timeout);
        int64_t ahead_ms = (int64_t) (at.tv_sec - now.tv_sec) * 1000 + (at.tv_nsec - now.tv_nsec) / 1000000;
        cr_assert (ahead_ms >= timeout - 1 && ahead_ms <= timeout + 50, "%lld ms for a timeout of %lld",
                   (long long) ahead_ms, (long long) timeout);
    }
}

Test (time, a_mono_condition_waits_out_a_mono_deadline)
{
    pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t cond;
    dlq_time_mono_cond_init (&cond);
    pthread_mutex_lock (&lock);
    int64_t before = dlq_time_mono_ms ();
    struct timespec at = dlq_time_mono_deadline (80);
    int rc = 0;
    while (rc == 0)
        rc = pthread_cond_timedwait (&cond, &lock, &at);
    int64_t waited = dlq_time_mono_ms () - before;
    pthread_mutex_unlock (&lock);
    pthread_cond_destroy (&cond);
    cr_assert_eq (rc, ETIMEDOUT);
    cr_assert (waited >= 79 && waited < 5000, "waited %lld ms for 80", (long long) waited);
}
