/*  progress — the progress of a replay job that dlqctl follows, as text:
 *  pure functions of the figures, so that they are tested alone
 *  (tests/test_progress.c).
 *
 *  On a terminal, a bar that the caller redraws in place (writing "\r"
 *  before it), exactly width characters wide:
 *
 *      [########----------------]  420/1000  42%  35.0 ev/s  00:12  ETA 00:17
 *
 *  (without the bar when it would be narrower than PROGRESS_MIN_BAR);
 *  elsewhere a plain line for logs, whatever the width:
 *
 *      420/1000 (42%), 35.0 events/s, 00:12 elapsed, ETA 00:17
 *
 *  Durations are MM:SS, H:MM:SS from an hour on, ">99h" beyond 99 hours;
 *  the ETA is "--:--" while the rate is 0 (not measured yet, or paused)
 *  and 00:00 once done reaches total. A rate meter turns samples of the
 *  done count into the rate shown: events per second over the last few
 *  seconds.
 */
#ifndef DLQ_PROGRESS_H
#define DLQ_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Narrowest bar drawn, in characters between the brackets; widest line. */
#define PROGRESS_MIN_BAR   10
#define PROGRESS_MAX_WIDTH 1024

/* Seconds of samples a rate meter averages over. */
#define PROGRESS_RATE_WINDOW_S 5.0

/* Write the progress of done events out of total, elapsed_s seconds in,
 * at rate events per second, into out (size bytes, NUL-terminated,
 * truncated if need be): the bar of width characters when is_tty (give
 * the terminal's columns less one, so that the cursor never wraps), else
 * the plain line. No "\r" or "\n". A rate that is not a positive finite
 * number counts as 0. Widths above PROGRESS_MAX_WIDTH count as
 * that. Counts below 0 count as 0, done above
 * total as total. Returns the length written. */
size_t progress_format (char *out, size_t size, int64_t done, int64_t total, double elapsed_s, double rate,
                        size_t width, bool is_tty);

/* A duration in seconds as progress shows it ("00:17", "1:02:03",
 * ">99h"; "--:--" when below 0 or not a number) into out (size bytes). */
void progress_duration (char *out, size_t size, double seconds);

/* Samples (time, done count) of the last PROGRESS_RATE_WINDOW_S seconds. */
#define PROGRESS_METER_SAMPLES 64

typedef struct {
    double  t [PROGRESS_METER_SAMPLES];
    int64_t done [PROGRESS_METER_SAMPLES];
    size_t  first;          /* oldest sample kept */
    size_t  count;
} progress_meter_t;

/* An empty meter. */
void progress_meter_init (progress_meter_t *meter);

/* Add a sample: done events counted at t seconds (t never decreases).
 * Samples older than the window are dropped, keeping the newest of them
 * as the start of the window. */
void progress_meter_add (progress_meter_t *meter, double t, int64_t done);

/* Events per second from the oldest sample kept to the newest; 0 with
 * fewer than two samples or no time between them. */
double progress_meter_rate (const progress_meter_t *meter);

#endif
