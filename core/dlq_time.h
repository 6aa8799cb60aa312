/*  dlq_time — wall-clock and monotonic time, and strict ISO-8601 timestamps.
 *
 *  Timestamps are milliseconds since the Unix epoch (UTC) in an int64_t;
 *  DLQ_TIME_NONE marks an absent one.
 */
#ifndef DLQ_TIME_H
#define DLQ_TIME_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define DLQ_TIME_NONE INT64_MIN

/* Length of a formatted timestamp, "2026-06-09T14:32:11.123Z", without NUL. */
#define DLQ_TIME_ISO_LEN 24

/* Wall-clock now in ms since the epoch (CLOCK_REALTIME). */
int64_t dlq_time_now_ms (void);

/* Monotonic clock in ms (CLOCK_MONOTONIC); only differences mean anything. */
int64_t dlq_time_mono_ms (void);

/* Monotonic clock in ns. */
int64_t dlq_time_mono_ns (void);

/* The CLOCK_MONOTONIC time timeout_ms (>= 0) from now, as
 * pthread_cond_timedwait takes it on a condition set to that clock. */
struct timespec dlq_time_mono_deadline (int64_t timeout_ms);

/* Initialise cond with its timed waits on CLOCK_MONOTONIC (so a change of
 * the wall clock neither shortens nor stretches them). */
void dlq_time_mono_cond_init (pthread_cond_t *cond);

/* ms + delta_ms, saturating at INT64_MAX and INT64_MIN. Pure. */
int64_t dlq_time_add (int64_t ms, int64_t delta_ms);

/* Parse an RFC 3339 timestamp strictly: YYYY-MM-DDTHH:MM:SS, optional
 * fraction of 1 to 9 digits (kept to the millisecond, truncated), then 'Z'
 * or +HH:MM / -HH:MM. 'T' and 'Z' may be lower case. Years 0001-9999,
 * real calendar dates (leap years checked), hours 00-23, minutes 00-59,
 * seconds 00-59 (no leap seconds). The whole of len bytes must match. */
bool dlq_time_parse_iso (const char *s, size_t len, int64_t *ms_out);

/* Format ms as "YYYY-MM-DDTHH:MM:SS.mmmZ" into out (at least
 * DLQ_TIME_ISO_LEN + 1 bytes, NUL-terminated). Pure. Returns the length
 * (DLQ_TIME_ISO_LEN) or 0 when ms is outside years 0001-9999. */
size_t dlq_time_format_iso (int64_t ms, char *out);

#endif
