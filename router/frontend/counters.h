/*  counters — the gateway's request counters, shared by every thread
 *  (lock-free atomics), and their JSON form for STATS.
 */
#ifndef DLQ_COUNTERS_H
#define DLQ_COUNTERS_H

#include "dlq_buf.h"
#include "dlq_code.h"

#include <stdint.h>

typedef struct dlq_counters dlq_counters_t;

/* New zeroed counters; the start time is now. */
dlq_counters_t *dlq_counters_new (void);

/* Free; accepts NULL and NULLs the pointer. */
void dlq_counters_destroy (dlq_counters_t **self_p);

/* Count PUTs stored for the first time / acknowledged as duplicates. */
void dlq_counters_accepted (dlq_counters_t *self, uint64_t n);
void dlq_counters_duplicate (dlq_counters_t *self, uint64_t n);

/* Count replies the ROUTER refused: the client's reply queue was full
 * (gateway.reply_hwm) or it had gone. */
void dlq_counters_reply_dropped (dlq_counters_t *self, uint64_t n);

/* Set the number of client connections now. */
void dlq_counters_connections (dlq_counters_t *self, uint64_t n);

/* Count one ERR reply with code. Bad-input codes also count as rejected. */
void dlq_counters_error (dlq_counters_t *self, dlq_code_t code);

/* Append "counters":{...},"uptimeSeconds":N,"connections":N (no braces
 * around) to out. */
void dlq_counters_format (const dlq_counters_t *self, dlq_buf_t *out);

#endif
