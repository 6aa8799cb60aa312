/*  dlq_log — leveled logging to stderr, one line per message:
 *      2026-06-09T14:32:11.123Z dlqd[1234] WARN message
 *  Thread-safe (one write(2) per line).
 */
#ifndef DLQ_LOG_H
#define DLQ_LOG_H

typedef enum {
    DLQ_LOG_DEBUG,
    DLQ_LOG_INFO,
    DLQ_LOG_WARN,
    DLQ_LOG_ERROR
} dlq_log_level_t;

/* Messages below level are dropped (default: INFO). */
void dlq_log_set_level (dlq_log_level_t level);

/* Parse "debug", "info", "warn" or "error"; false when it is none of them. */
int dlq_log_parse_level (const char *name, dlq_log_level_t *level);

/* Log one printf-formatted line at level. */
void dlq_log (dlq_log_level_t level, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));

#endif
