/*  dlq_log — leveled logging to stderr, one line per message:
 *      2026-06-09T14:32:11.123Z dlqd[1234] WARN message
 *  or, with dlq_log_set_json (log_format = "json"), one JSON object per
 *  line (log_json.h). Thread-safe (one write(2) per line).
 *
 *  Repeats are suppressed, so that an error that recurs per request or per
 *  batch (a full disk refusing every PUT, a dead sink, a store that cannot be
 *  read) costs a few lines, not one line each time. A WARN or ERROR message
 *  seen again within the window (10 s on the monotonic clock) opened by the
 *  line that was written for it is not written; it is counted. When the
 *  window ends and repeats were counted, one line says so, with the text of
 *  the latest repeat:
 *
 *      ... ERROR commit of 12 events and 0 ledger updates failed: database
 *          or disk is full (repeated 16002 times in the last 10 s)
 *
 *  and the next window starts at once: a steady flood is one full line, then
 *  one count line per window. A window that ends with no repeat forgets the
 *  message, and its next occurrence is written in full again. The count line
 *  is written by the next dlq_log call of any thread or by dlq_log_tick,
 *  whichever comes first after the window ends; dlq_log_flush writes every
 *  pending count (its window then says how long it ran: "in the last 3 s").
 *
 *  What "repeats" means: the key is the level plus the message normalised as
 *  error fingerprints normalise error messages (core/fingerprint.h: ids,
 *  UUIDs, numbers, quoted values, addresses and times become placeholders;
 *  whitespace runs are one space; the first 512 normalised bytes count), not
 *  the format string. So "commit of 12 events" and "commit of 7 events", or
 *  "sink pg: event <id1> failed ..." and "... event <id2> failed ...", are one
 *  message (a flood differs in exactly those values: batch sizes, event ids,
 *  backoff delays); the first is written in full and the count line shows the
 *  latest. Different words stay different messages: two causes at one call
 *  site ("query failed: database is locked" / "... disk I/O error"), two
 *  sinks ("sink pg1" / "sink pg2": digits inside a name are kept), and every
 *  message of the sink plugins, which all come through one call site of the
 *  sink host — keying on the format string would merge all of those.
 *
 *  INFO and DEBUG lines are never suppressed: they narrate what the operator
 *  asked for or turned on (a job done, a sink started), at human rates.
 *
 *  Bounded: a fixed table of DLQ_LOG_KEYS recent messages, no allocation per
 *  line. When more messages than that repeat at once, the one seen least
 *  recently gives way (its count, if any, is written first): nothing is ever
 *  dropped without a count, at worst more lines are written.
 */
#ifndef DLQ_LOG_H
#define DLQ_LOG_H

#include <stdbool.h>
#include <stdint.h>

typedef enum {
    DLQ_LOG_DEBUG,
    DLQ_LOG_INFO,
    DLQ_LOG_WARN,
    DLQ_LOG_ERROR
} dlq_log_level_t;

#define DLQ_LOG_WINDOW_MS 10000         /* default window of repeat suppression */
#define DLQ_LOG_TICK_MS   1000          /* call dlq_log_tick at least this often */
#define DLQ_LOG_KEYS      64            /* messages whose repeats are tracked at once */

/* Messages below level are dropped, neither written nor counted (default: INFO). */
void dlq_log_set_level (dlq_log_level_t level);

/* Parse "debug", "info", "warn" or "error"; false when it is none of them. */
int dlq_log_parse_level (const char *name, dlq_log_level_t *level);

/* Log one printf-formatted line at level (or count it as a repeat). */
void dlq_log (dlq_log_level_t level, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));

/* Write the count line of every window that has ended, and forget the
 * messages whose window ended without a repeat. For a loop that wakes at
 * least every DLQ_LOG_TICK_MS, so that a count is written even when nothing
 * else is logged. */
void dlq_log_tick (void);

/* Write the count line of every message with counted repeats, ended window
 * or not, and forget every message. At shutdown, so no count is lost. */
void dlq_log_flush (void);

/* Write lines to fd instead of stderr (not closed by dlq_log; stderr again
 * with STDERR_FILENO). */
void dlq_log_set_fd (int fd);

/* Write each line as one JSON object (log_json.h) instead of text. */
void dlq_log_set_json (bool json);

/* Start each line with its syslog priority as systemd's journal reads it
 * from a service's stderr: "<7>" debug, "<6>" info, "<4>" warn, "<3>"
 * error (sd-daemon.h's SD_DEBUG ... SD_ERR). */
void dlq_log_set_priority_prefix (bool on);

/* Set the window in ms (default DLQ_LOG_WINDOW_MS); 0 writes every line.
 * Pending counts are written first (dlq_log_flush). */
void dlq_log_set_window_ms (int64_t window_ms);

/* Read the monotonic time in ms from mono_ms (NULL: dlq_time_mono_ms), e.g.
 * a test's clock. mono_ms must be thread-safe. Pending counts are written
 * first, on the clock they were counted with (dlq_log_flush). */
void dlq_log_set_clock (int64_t (*mono_ms) (void));

#endif
