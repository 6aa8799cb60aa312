/*  sink_health — what a dispatcher shows the query threads about its sink
 *  while it runs: circuit state, the last error and when, batches in
 *  flight. Thread-safe (one writer, many readers, a mutex).
 */
#ifndef SINK_HEALTH_H
#define SINK_HEALTH_H

#include "dlq_buf.h"

#include <stdint.h>

typedef struct dlq_sink_health dlq_sink_health_t;

dlq_sink_health_t *dlq_sink_health_new (void);
void dlq_sink_health_destroy (dlq_sink_health_t **self_p);

/* Dispatcher side. */
void dlq_sink_health_set_circuit (dlq_sink_health_t *self, const char *state);
void dlq_sink_health_set_error (dlq_sink_health_t *self, const char *error, int64_t at_ms);

/* Append "circuit":"closed","lastError":"...","lastErrorAt":"..." (the last
 * two only when there was an error) to out. */
void dlq_sink_health_format (dlq_sink_health_t *self, dlq_buf_t *out);

#endif
