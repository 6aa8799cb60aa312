/*  progress — a replay job's progress line (bar or plain) and the rate
 *  meter behind its events per second.
 */
#include "progress.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_DURATION_S (99.0 * 3600 + 59 * 60 + 59)

/* The figures of a progress line, made into text once. */
typedef struct {
    int64_t done;
    int64_t total;
    int     percent;
    char    rate [32];
    char    elapsed [16];
    char    eta [16];
} figures_t;

void
progress_duration (char *out, size_t size, double seconds)
{
    if (isnan (seconds) || seconds < 0) {
        snprintf (out, size, "--:--");
        return;
    }
    if (seconds > MAX_DURATION_S) {
        snprintf (out, size, ">99h");
        return;
    }
    long s = (long) seconds;
    if (s >= 3600)
        snprintf (out, size, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
    else
        snprintf (out, size, "%02ld:%02ld", s / 60, s % 60);
}

/* Seconds left at rate, rounded up; -1 (unknown) while the rate is 0. */
static double
eta_seconds (int64_t done, int64_t total, double rate)
{
    if (done >= total)
        return 0;
    if (!(rate > 0))
        return -1;
    return ceil ((double) (total - done) / rate);
}

static void
make_figures (figures_t *f, int64_t done, int64_t total, double elapsed_s, double rate)
{
    f->total = total > 0 ? total : 0;
    f->done = done < 0 ? 0 : done > f->total ? f->total : done;
    f->percent = f->total ? (int) (f->done * 100 / f->total) : 100;
    if (!(rate > 0) || isinf (rate))
        rate = 0;
    snprintf (f->rate, sizeof f->rate, rate < 1000 ? "%.1f" : "%.0f", rate);
    progress_duration (f->elapsed, sizeof f->elapsed, elapsed_s);
    progress_duration (f->eta, sizeof f->eta, eta_seconds (f->done, f->total, rate));
}

/* The figures after a terminal's bar. */
static void
tty_figures (char *out, size_t size, const figures_t *f)
{
    snprintf (out, size, "  %" PRId64 "/%" PRId64 "  %d%%  %s ev/s  %s  ETA %s",
              f->done, f->total, f->percent, f->rate, f->elapsed, f->eta);
}

/* Copy n bytes of text into out (size bytes), cut to fit and
 * NUL-terminated; the length copied. */
static size_t
copy_out (char *out, size_t size, const char *text, size_t n)
{
    if (n > size - 1)
        n = size - 1;
    memcpy (out, text, n);
    out [n] = '\0';
    return n;
}

/* "[####------]" filled as far as done is of total, bar characters wide
 * between the brackets, into out (room for bar + 2 bytes; no NUL). */
static void
draw_bar (char *out, const figures_t *f, size_t bar)
{
    size_t filled = f->total ? (size_t) ((double) bar * (double) f->done / (double) f->total) : bar;
    out [0] = '[';
    memset (out + 1, '#', filled);
    memset (out + 1 + filled, '-', bar - filled);
    out [bar + 1] = ']';
}

/* The terminal's line: the bar and the figures in width characters, or
 * the figures alone (cut to width) when the bar would be too narrow. */
static size_t
format_tty (char *out, size_t size, const figures_t *f, size_t width)
{
    char figures [160], line [PROGRESS_MAX_WIDTH + 1];
    tty_figures (figures, sizeof figures, f);
    size_t len = strlen (figures);
    if (width > PROGRESS_MAX_WIDTH)
        width = PROGRESS_MAX_WIDTH;
    if (width < len + PROGRESS_MIN_BAR + 2)
        return copy_out (out, size, figures + 2, len - 2 < width ? len - 2 : width);
    size_t bar = width - len - 2;
    draw_bar (line, f, bar);
    memcpy (line + bar + 2, figures, len);
    return copy_out (out, size, line, width);
}

static size_t
format_plain (char *out, size_t size, const figures_t *f)
{
    char line [160];
    int n = snprintf (line, sizeof line, "%" PRId64 "/%" PRId64 " (%d%%), %s events/s, %s elapsed, ETA %s",
                      f->done, f->total, f->percent, f->rate, f->elapsed, f->eta);
    return copy_out (out, size, line, (size_t) n);
}

size_t
progress_format (char *out, size_t size, int64_t done, int64_t total, double elapsed_s, double rate,
                 size_t width, bool is_tty)
{
    if (size == 0)
        return 0;
    figures_t f;
    make_figures (&f, done, total, elapsed_s, rate);
    return is_tty ? format_tty (out, size, &f, width) : format_plain (out, size, &f);
}

/* ---- the rate meter ---------------------------------------------------- */

void
progress_meter_init (progress_meter_t *meter)
{
    memset (meter, 0, sizeof *meter);
}

static size_t
slot (const progress_meter_t *meter, size_t i)
{
    return (meter->first + i) % PROGRESS_METER_SAMPLES;
}

static void
drop_oldest (progress_meter_t *meter)
{
    meter->first = slot (meter, 1);
    meter->count--;
}

void
progress_meter_add (progress_meter_t *meter, double t, int64_t done)
{
    if (meter->count == PROGRESS_METER_SAMPLES)
        drop_oldest (meter);
    size_t at = slot (meter, meter->count++);
    meter->t [at] = t;
    meter->done [at] = done;
    while (meter->count > 2 && meter->t [slot (meter, 1)] <= t - PROGRESS_RATE_WINDOW_S)
        drop_oldest (meter);
}

double
progress_meter_rate (const progress_meter_t *meter)
{
    if (meter->count < 2)
        return 0;
    size_t oldest = slot (meter, 0), newest = slot (meter, meter->count - 1);
    double seconds = meter->t [newest] - meter->t [oldest];
    int64_t events = meter->done [newest] - meter->done [oldest];
    if (!(seconds > 0) || events <= 0)
        return 0;
    return (double) events / seconds;
}
