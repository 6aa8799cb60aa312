/*  delivery_health — what a dispatcher shows the query threads about its sink
 *  while it runs: circuit state, the last error and when, and its queue
 *  (how far its cursor is, how many events wait for a retry), so STATS
 *  counts a backlog of any size without reading it. Thread-safe (one
 *  writer, many readers, a mutex).
 */
#ifndef DLQ_DELIVERY_HEALTH_H
#define DLQ_DELIVERY_HEALTH_H

#include "dlq_buf.h"

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

/* Append "circuit":"closed","lastError":"...","lastErrorAt":"..." (the last
 * two only when there was an error) to out. */
void dlq_delivery_health_format (dlq_delivery_health_t *self, dlq_buf_t *out);

#endif
