/*  dlqc_queue — completed pipelined requests (PUT, CKPT.SEEN,
 *  CKPT.PROCESSED) awaiting delivery (internal, not installed).
 *
 *  A FIFO ring that grows as needed: the engine pushes each pipelined
 *  request when it ends, dlq_client_poll() pops them to hand to the caller's
 *  callback. Decoupling the two means completions are only ever delivered
 *  from poll/flush, never from inside a submit or a blocking call.
 */
#ifndef DLQC_QUEUE_H
#define DLQC_QUEUE_H

#include "dlqc_table.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t       tag;         /* the caller's tag */
    const char    *verb;        /* the request's verb (static string) */
    dlqc_outcome_t outcome;     /* how it ended (owned) */
} dlqc_done_t;

typedef struct {
    dlqc_done_t *items;
    size_t       capacity;
    size_t       first;         /* index of the oldest item */
    size_t       count;
} dlqc_queue_t;

/* Set up an empty queue. */
void dlqc_queue_init (dlqc_queue_t *queue);

/* Free every queued outcome and the ring. */
void dlqc_queue_fini (dlqc_queue_t *queue);

/* Append one completion of a request of verb (a static string); the
 * queue takes ownership of *outcome and clears it. */
void dlqc_queue_push (dlqc_queue_t *queue, uint64_t tag, const char *verb, dlqc_outcome_t *outcome);

/* Remove the oldest completion into *out (the caller then owns its
 * outcome). False when the queue is empty. */
bool dlqc_queue_pop (dlqc_queue_t *queue, dlqc_done_t *out);

/* Number of queued completions. */
size_t dlqc_queue_count (const dlqc_queue_t *queue);

#endif
