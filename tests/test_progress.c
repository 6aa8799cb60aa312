/*  test_progress — dlqctl's progress line of a followed replay job
 *  (contrib/dlqctl/progress.h): the terminal's bar fitted to its width,
 *  the plain line for logs, durations and ETAs, out-of-range figures, and
 *  the rate meter's window.
 */
#include "progress.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

/* The line for these figures, in a buffer the test keeps. */
static const char *
line (int64_t done, int64_t total, double elapsed, double rate, size_t width, bool tty)
{
    static char out [PROGRESS_MAX_WIDTH + 1];
    size_t len = progress_format (out, sizeof out, done, total, elapsed, rate, width, tty);
    cr_assert_eq (len, strlen (out), "the length returned: %s", out);
    cr_assert_null (strpbrk (out, "\r\n"), "no carriage return or newline: %s", out);
    return out;
}

/* The bar of a line drawn width wide whose figures are figures: the
 * number of '#' in it, after checking its shape. */
static size_t
filled_of (const char *got, size_t width, const char *figures)
{
    size_t bar = width - strlen (figures) - 2;
    cr_assert_eq (strlen (got), width, "%s", got);
    cr_assert_eq (got [0], '[', "%s", got);
    cr_assert_eq (got [bar + 1], ']', "%s", got);
    cr_assert_str_eq (got + bar + 2, figures);
    size_t filled = strspn (got + 1, "#");
    cr_assert_eq (strspn (got + 1 + filled, "-"), bar - filled, "%s", got);
    return filled;
}

Test (progress, plain_line_for_logs)
{
    static const struct {
        int64_t     done, total;
        double      elapsed, rate;
        const char *want;
    } cases [] = {
        { 420, 1000, 12.4, 35.0, "420/1000 (42%), 35.0 events/s, 00:12 elapsed, ETA 00:17" },
        { 0, 1000, 0, 0, "0/1000 (0%), 0.0 events/s, 00:00 elapsed, ETA --:--" },
        { 1000, 1000, 61, 16.4, "1000/1000 (100%), 16.4 events/s, 01:01 elapsed, ETA 00:00" },
        { 999, 1000, 5, 12345.6, "999/1000 (99%), 12346 events/s, 00:05 elapsed, ETA 00:01" },
        { 0, 0, 0.2, 0, "0/0 (100%), 0.0 events/s, 00:00 elapsed, ETA 00:00" },
        { 1, 1000000, 3599.9, 0.5, "1/1000000 (0%), 0.5 events/s, 59:59 elapsed, ETA >99h" },
        { 0, 7200, 1, 1, "0/7200 (0%), 1.0 events/s, 00:01 elapsed, ETA 2:00:00" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases [0]; i++)
        cr_expect_str_eq (line (cases [i].done, cases [i].total, cases [i].elapsed, cases [i].rate, 80, false),
                          cases [i].want, "case %zu", i);
}

Test (progress, plain_line_ignores_the_width)
{
    char narrow [200];
    strcpy (narrow, line (5, 10, 1, 5, 10, false));
    cr_expect_str_eq (line (5, 10, 1, 5, 300, false), narrow);
    cr_expect_str_eq (narrow, "5/10 (50%), 5.0 events/s, 00:01 elapsed, ETA 00:01");
}

Test (progress, bar_fills_the_width)
{
    const char *figures = "  420/1000  42%  35.0 ev/s  00:12  ETA 00:17";
    for (size_t width = 60; width <= 200; width += 7) {
        size_t bar = width - strlen (figures) - 2;
        cr_expect_eq (filled_of (line (420, 1000, 12, 35, width, true), width, figures), bar * 420 / 1000,
                      "width %zu", width);
    }
}

Test (progress, bar_empty_full_and_nothing_to_do)
{
    cr_expect_eq (filled_of (line (0, 50, 0, 0, 70, true), 70, "  0/50  0%  0.0 ev/s  00:00  ETA --:--"), 0);
    const char *full = "  50/50  100%  20.0 ev/s  00:03  ETA 00:00";
    cr_expect_eq (filled_of (line (50, 50, 3, 20, 70, true), 70, full), 70 - strlen (full) - 2);
    const char *none = "  0/0  100%  0.0 ev/s  00:00  ETA 00:00";
    cr_expect_eq (filled_of (line (0, 0, 0, 0, 70, true), 70, none), 70 - strlen (none) - 2,
                  "no events at all: full");
}

Test (progress, narrow_terminal_drops_the_bar)
{
    const char *figures = "420/1000  42%  35.0 ev/s  00:12  ETA 00:17";
    size_t need = strlen (figures) + 2 + PROGRESS_MIN_BAR + 2;
    const char *got = line (420, 1000, 12, 35, need, true);
    cr_expect_eq (got [0], '[', "just wide enough for the narrowest bar: %s", got);
    cr_expect_eq (strlen (got), need);
    got = line (420, 1000, 12, 35, need - 1, true);
    cr_expect_str_eq (got, figures, "too narrow for a bar: the figures alone");
    got = line (420, 1000, 12, 35, 20, true);
    cr_expect_str_eq (got, "420/1000  42%  35.0 ", "cut to the width");
    got = line (420, 1000, 12, 35, 0, true);
    cr_expect_str_eq (got, "");
}

Test (progress, figures_out_of_range_are_clamped)
{
    cr_expect_str_eq (line (-5, 10, -1, -3, 0, false), "0/10 (0%), 0.0 events/s, --:-- elapsed, ETA --:--");
    cr_expect_str_eq (line (15, 10, 2, 1, 0, false), "10/10 (100%), 1.0 events/s, 00:02 elapsed, ETA 00:00");
    cr_expect_str_eq (line (3, -1, 2, NAN, 0, false), "0/0 (100%), 0.0 events/s, 00:02 elapsed, ETA 00:00");
    cr_expect_str_eq (line (1, 10, NAN, INFINITY, 0, false), "1/10 (10%), 0.0 events/s, --:-- elapsed, ETA --:--");
    const char *got = line (1, 2, 1, 1, 100000, true);
    cr_expect_eq (strlen (got), PROGRESS_MAX_WIDTH, "the widest line");
}

Test (progress, output_is_cut_to_the_buffer)
{
    char small [16];
    size_t len = progress_format (small, sizeof small, 420, 1000, 12, 35, 80, false);
    cr_expect_eq (len, 15);
    cr_expect_str_eq (small, "420/1000 (42%),");
    len = progress_format (small, sizeof small, 420, 1000, 12, 35, 80, true);
    cr_expect_eq (len, 15);
    cr_expect_eq (small [0], '[');
    cr_expect_eq (progress_format (small, 0, 1, 2, 0, 0, 80, false), 0);
}

Test (progress, durations)
{
    static const struct {
        double      seconds;
        const char *want;
    } cases [] = {
        { 0, "00:00" }, { 0.99, "00:00" }, { 59, "00:59" }, { 60, "01:00" }, { 3599, "59:59" },
        { 3600, "1:00:00" }, { 3723, "1:02:03" }, { 99 * 3600 + 59 * 60 + 59, "99:59:59" },
        { 99 * 3600 + 60 * 60, ">99h" }, { 1e300, ">99h" }, { -1, "--:--" }, { NAN, "--:--" },
    };
    char out [16];
    for (size_t i = 0; i < sizeof cases / sizeof cases [0]; i++) {
        progress_duration (out, sizeof out, cases [i].seconds);
        cr_expect_str_eq (out, cases [i].want, "%g s", cases [i].seconds);
    }
}

Test (progress, eta_rounds_up)
{
    cr_expect_not_null (strstr (line (0, 10, 0, 3, 0, false), "ETA 00:04"), "10 events at 3/s: 4 s");
    cr_expect_not_null (strstr (line (9, 10, 0, 1000, 0, false), "ETA 00:01"), "a fraction of a second: 1 s");
    cr_expect_not_null (strstr (line (0, 7200, 0, 1, 0, false), "ETA 2:00:00"));
}

Test (progress, meter_needs_two_samples)
{
    progress_meter_t m;
    progress_meter_init (&m);
    cr_expect_eq (progress_meter_rate (&m), 0);
    progress_meter_add (&m, 0, 100);
    cr_expect_eq (progress_meter_rate (&m), 0);
    progress_meter_add (&m, 0, 150);
    cr_expect_eq (progress_meter_rate (&m), 0, "no time between them");
    progress_meter_add (&m, 0.5, 200);
    cr_expect_float_eq (progress_meter_rate (&m), 200.0, 1e-9);
}

Test (progress, meter_averages_over_the_window)
{
    progress_meter_t m;
    progress_meter_init (&m);
    /* 100 events/s for 10 s, sampled every 250 ms, then stopped. */
    for (int i = 0; i <= 40; i++)
        progress_meter_add (&m, i * 0.25, i * 25);
    cr_expect_float_eq (progress_meter_rate (&m), 100.0, 1e-9);
    cr_expect_leq (m.count, (size_t) (PROGRESS_RATE_WINDOW_S / 0.25) + 2, "old samples dropped: %zu", m.count);
    for (int i = 1; i <= 8; i++)
        progress_meter_add (&m, 10 + i * 0.25, 1000);
    cr_expect_float_eq (progress_meter_rate (&m), 60.0, 1e-9, "3 of the last 5 s moving");
    for (int i = 9; i <= 30; i++)
        progress_meter_add (&m, 10 + i * 0.25, 1000);
    cr_expect_eq (progress_meter_rate (&m), 0, "stopped for longer than the window");
    progress_meter_add (&m, 100, 2000);
    cr_expect_float_eq (progress_meter_rate (&m), 1000.0 / (100 - 17.5), 1e-9,
                        "after a long gap: from the last sample before it");
}

Test (progress, meter_keeps_the_newest_samples_when_full)
{
    progress_meter_t m;
    progress_meter_init (&m);
    for (int i = 0; i < 3 * PROGRESS_METER_SAMPLES; i++)
        progress_meter_add (&m, i * 0.01, i);
    cr_expect_eq (m.count, PROGRESS_METER_SAMPLES);
    cr_expect_float_eq (progress_meter_rate (&m), 100.0, 1e-6);
}
