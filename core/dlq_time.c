/*  dlq_time — clocks and strict RFC 3339 timestamps.
 *
 *  Calendar arithmetic is done here on the proleptic Gregorian calendar
 *  (days_from_civil / civil_from_days after Howard Hinnant), with no libc
 *  time zone, locale or timegm involvement, so results never depend on TZ.
 */
#include "dlq_time.h"

#include <string.h>
#include <time.h>

#define MS_PER_SEC  1000
#define MS_PER_DAY  86400000LL

static int64_t
clock_ns (clockid_t clock)
{
    struct timespec ts;
    clock_gettime (clock, &ts);
    return (int64_t) ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

struct timespec
dlq_time_mono_deadline (int64_t timeout_ms)
{
    struct timespec at;
    clock_gettime (CLOCK_MONOTONIC, &at);
    at.tv_sec += (time_t) (timeout_ms / 1000);
    at.tv_nsec += (long) (timeout_ms % 1000) * 1000000L;
    if (at.tv_nsec >= 1000000000L) {
        at.tv_sec++;
        at.tv_nsec -= 1000000000L;
    }
    return at;
}

void
dlq_time_mono_cond_init (pthread_cond_t *cond)
{
    pthread_condattr_t attr;
    pthread_condattr_init (&attr);
    pthread_condattr_setclock (&attr, CLOCK_MONOTONIC);
    pthread_cond_init (cond, &attr);
    pthread_condattr_destroy (&attr);
}

int64_t
dlq_time_now_ms (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_REALTIME, &ts);
    return (int64_t) ts.tv_sec * MS_PER_SEC + ts.tv_nsec / 1000000;
}

int64_t dlq_time_mono_ms (void) { return clock_ns (CLOCK_MONOTONIC) / 1000000; }
int64_t dlq_time_mono_ns (void) { return clock_ns (CLOCK_MONOTONIC); }

int64_t
dlq_time_add (int64_t ms, int64_t delta_ms)
{
    if (delta_ms > 0 && ms > INT64_MAX - delta_ms)
        return INT64_MAX;
    if (delta_ms < 0 && ms < INT64_MIN - delta_ms)
        return INT64_MIN;
    return ms + delta_ms;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (m 1-12, d 1-31). */
static int64_t
days_from_civil (int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned) (y - era * 400);
    unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t) doe - 719468;
}

/* Inverse of days_from_civil. */
static void
civil_from_days (int64_t z, int64_t *y_out, unsigned *m_out, unsigned *d_out)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned) (z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    unsigned m = mp < 10 ? mp + 3 : mp - 9;
    *d_out = doy - (153 * mp + 2) / 5 + 1;
    *m_out = m;
    *y_out = (int64_t) yoe + era * 400 + (m <= 2);
}

static bool
is_leap (unsigned y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static unsigned
days_in_month (unsigned y, unsigned m)
{
    static const unsigned char days [12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    return m == 2 && is_leap (y) ? 29 : days [m - 1];
}

/* First and one-past-last ms of years 0001-9999. */
static int64_t min_ms (void) { return days_from_civil (1, 1, 1) * MS_PER_DAY; }
static int64_t end_ms (void) { return days_from_civil (10000, 1, 1) * MS_PER_DAY; }

/* n ASCII digits at s as a number, or -1 when any is not a digit. */
static int
digits (const char *s, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        unsigned d = (unsigned) (s [i] - '0');
        if (d > 9)
            return -1;
        v = v * 10 + (int) d;
    }
    return v;
}

/* The fraction after '.' at s (1-9 digits) as ms, truncated; *used gets the
 * number of digits, 0 when there are none or more than nine. */
static int
fraction_ms (const char *s, size_t avail, size_t *used)
{
    size_t n = 0;
    int ms = 0;
    while (n < avail && (unsigned) (s [n] - '0') <= 9) {
        if (n < 3)
            ms = ms * 10 + (s [n] - '0');
        n++;
    }
    for (size_t i = n; i < 3; i++)
        ms *= 10;
    *used = n >= 1 && n <= 9 ? n : 0;
    return ms;
}

/* The zone designator at s, exactly the rest of the input: 'Z' or ±HH:MM.
 * Stores the offset east of UTC in minutes. */
static bool
parse_zone (const char *s, size_t len, int *offset_min)
{
    if (len == 1 && (s [0] == 'Z' || s [0] == 'z')) {
        *offset_min = 0;
        return true;
    }
    if (len != 6 || (s [0] != '+' && s [0] != '-') || s [3] != ':')
        return false;
    int hh = digits (s + 1, 2), mm = digits (s + 4, 2);
    if (hh < 0 || hh > 23 || mm < 0 || mm > 59)
        return false;
    *offset_min = (s [0] == '-' ? -1 : 1) * (hh * 60 + mm);
    return true;
}

/* Timestamps that land outside years 0001-9999 once normalised to UTC (e.g.
 * 0001-01-01T00:00:00+01:00) are rejected too, so that every accepted value
 * can be formatted back. */
bool
dlq_time_parse_iso (const char *s, size_t len, int64_t *ms_out)
{
    if (len < 20 || s [4] != '-' || s [7] != '-' || (s [10] != 'T' && s [10] != 't')
        || s [13] != ':' || s [16] != ':')
        return false;
    int year = digits (s, 4), mon = digits (s + 5, 2), day = digits (s + 8, 2);
    int hour = digits (s + 11, 2), min = digits (s + 14, 2), sec = digits (s + 17, 2);
    if (year < 1 || mon < 1 || mon > 12 || day < 1
        || day > (int) days_in_month ((unsigned) year, (unsigned) mon)
        || hour < 0 || hour > 23 || min < 0 || min > 59 || sec < 0 || sec > 59)
        return false;

    size_t pos = 19;
    int ms = 0;
    if (s [pos] == '.') {
        size_t used;
        ms = fraction_ms (s + pos + 1, len - pos - 1, &used);
        if (!used)
            return false;
        pos += 1 + used;
    }
    int offset_min;
    if (!parse_zone (s + pos, len - pos, &offset_min))
        return false;

    int64_t days = days_from_civil (year, (unsigned) mon, (unsigned) day);
    int64_t t = days * MS_PER_DAY + ((int64_t) hour * 3600 + min * 60 + sec) * MS_PER_SEC + ms
              - (int64_t) offset_min * 60 * MS_PER_SEC;
    if (t < min_ms () || t >= end_ms ())
        return false;
    *ms_out = t;
    return true;
}

static void
put_digits (char *out, unsigned v, int n)
{
    for (int i = n - 1; i >= 0; i--) {
        out [i] = (char) ('0' + v % 10);
        v /= 10;
    }
}

size_t
dlq_time_format_iso (int64_t ms, char *out)
{
    if (ms < min_ms () || ms >= end_ms ())
        return 0;
    int64_t days = ms / MS_PER_DAY, rem = ms % MS_PER_DAY;
    if (rem < 0) {
        rem += MS_PER_DAY;
        days--;
    }
    int64_t year;
    unsigned mon, day;
    civil_from_days (days, &year, &mon, &day);
    unsigned r = (unsigned) rem;

    memcpy (out, "0000-00-00T00:00:00.000Z", DLQ_TIME_ISO_LEN + 1);
    put_digits (out, (unsigned) year, 4);
    put_digits (out + 5, mon, 2);
    put_digits (out + 8, day, 2);
    put_digits (out + 11, r / 3600000, 2);
    put_digits (out + 14, r / 60000 % 60, 2);
    put_digits (out + 17, r / 1000 % 60, 2);
    put_digits (out + 20, r % 1000, 3);
    return DLQ_TIME_ISO_LEN;
}
