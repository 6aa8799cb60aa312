/*  retry_queue — a dispatcher's events waiting for their next attempt: a
 *  binary min-heap ordered by due time (monotonic ms). One owner thread.
 */
#ifndef DLQ_RETRY_QUEUE_H
#define DLQ_RETRY_QUEUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    int64_t  seq;
    uint32_t attempts;      /* deliveries tried so far */
    int64_t  due_ms;        /* monotonic */
} dlq_retry_item_t;

typedef struct dlq_retry_queue dlq_retry_queue_t;

dlq_retry_queue_t *dlq_retry_queue_new (void);
void dlq_retry_queue_destroy (dlq_retry_queue_t **self_p);

void dlq_retry_queue_push (dlq_retry_queue_t *self, dlq_retry_item_t item);

/* The earliest item, if any (not removed). */
bool dlq_retry_queue_peek (const dlq_retry_queue_t *self, dlq_retry_item_t *item);

/* Remove and return the earliest item when it is due at now_ms. */
bool dlq_retry_queue_pop_due (dlq_retry_queue_t *self, int64_t now_ms, dlq_retry_item_t *item);

size_t dlq_retry_queue_size (const dlq_retry_queue_t *self);

/* The lowest seq queued, INT64_MAX when none: exact when recount (a pass
 * over the queue) or when the queue is empty, else a lower bound (the
 * lowest pushed since the last recount, items popped since included). */
int64_t dlq_retry_queue_min_seq (dlq_retry_queue_t *self, bool recount);

#endif
