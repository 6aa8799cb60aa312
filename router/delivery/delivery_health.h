/*  delivery_health — what a dispatcher shows the query threads and the
 *  metrics endpoint about its sink while it runs: circuit state, the last
 *  error and when, its queue (how far its cursor is, how many events wait
 *  for a retry), so STATS counts a backlog of any size without reading it,
 *  when the oldest event it has not handled was accepted, the outcomes it
 *  retried and how long its deliveries take. Thread-safe (one writer, many
 *  readers, a mutex; the retries and the histogram are relaxed atomics).
 */
#ifndef DLQ_DELIVERY_HEALTH_H
#define DLQ_DELIVERY_HEALTH_H

#include "dlq_buf.h"
#include "dlq_histogram.h"

#include <stdint.h>

typedef struct dlq_delivery_health dlq_delivery_health_t;

dlq_delivery_health_t *dlq_delivery_health_new (void);
void dlq_delivery_health_destroy (dlq_delivery_health_t **self_p);

/* Dispatcher side. */
void dlq_delivery_health_set_circuit (dlq_delivery_health_t *self, const char *state);
void dlq_delivery_health_set_error (dlq_delivery_health_t *self, const char *error, int64_t at_ms);

/* Dispatcher side: the ordinal of the last event at or before its cursor
 * (event_ordinal.h), the events of the store from before the spool still
 * past its cursor, and the events waiting for a retry. */
void dlq_delivery_health_set_queue (dlq_delivery_health_t *self, uint64_t ordinal, int64_t before_spool, size_t retrying);

/* Query side: the events past the cursor, given the ordinal of the newest
 * event (dlq_committer_ordinal), and the events waiting for a retry. */
void dlq_delivery_health_queue (dlq_delivery_health_t *self, uint64_t newest, int64_t *backlog_out, int64_t *retrying_out);

/* Dispatcher side: the acceptance time (created_at, ms since the epoch) of
 * the oldest event the sink has not handled yet, DLQ_TIME_NONE when none
 * waits, and the spool position it holds the log from; events retried (one per RETRY outcome that is retried); one call
 * of the sink's deliver of seconds. */
void dlq_delivery_health_set_oldest (dlq_delivery_health_t *self, int64_t created_at_ms, uint64_t held_from);
void dlq_delivery_health_retried (dlq_delivery_health_t *self, uint64_t events);
void dlq_delivery_health_delivery_took (dlq_delivery_health_t *self, double seconds);

/* Metrics side: all of the above and the circuit's state name, at once. */
typedef struct {
    char     circuit [16];
    int64_t  oldest_at_ms;              /* DLQ_TIME_NONE: nothing waits */
    uint64_t held_from;                 /* the spool position the sink holds the log from */
    uint64_t retried;
    dlq_histogram_reading_t delivery_seconds;
} dlq_delivery_health_reading_t;

void dlq_delivery_health_read (dlq_delivery_health_t *self, dlq_delivery_health_reading_t *out);

/* Append "circuit":"closed","lastError":"...","lastErrorAt":"..." (the last
 * two only when there was an error) to out. */
void dlq_delivery_health_format (dlq_delivery_health_t *self, dlq_buf_t *out);

#endif
