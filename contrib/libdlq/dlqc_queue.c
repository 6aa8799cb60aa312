/*  dlqc_queue — a growable FIFO ring of completed pipelined requests. */
#include "dlqc_queue.h"
#include "dlq_alloc.h"

#include <stdlib.h>
#include <string.h>

void
dlqc_queue_init (dlqc_queue_t *queue)
{
    memset (queue, 0, sizeof *queue);
}

void
dlqc_queue_fini (dlqc_queue_t *queue)
{
    dlqc_done_t done;
    while (dlqc_queue_pop (queue, &done))
        dlqc_outcome_clear (&done.outcome);
    free (queue->items);
    memset (queue, 0, sizeof *queue);
}

/* Double the ring, unwrapping its contents to the start of the new one. */
static void
grow (dlqc_queue_t *queue)
{
    size_t capacity = queue->capacity ? queue->capacity * 2 : 64;
    dlqc_done_t *items = dlq_malloc (capacity * sizeof *items);
    for (size_t i = 0; i < queue->count; i++)
        items [i] = queue->items [(queue->first + i) % queue->capacity];
    free (queue->items);
    queue->items = items;
    queue->capacity = capacity;
    queue->first = 0;
}

void
dlqc_queue_push (dlqc_queue_t *queue, uint64_t tag, const char *verb, dlqc_outcome_t *outcome)
{
    if (queue->count == queue->capacity)
        grow (queue);
    dlqc_done_t *slot = &queue->items [(queue->first + queue->count) % queue->capacity];
    slot->tag = tag;
    slot->verb = verb;
    slot->outcome = *outcome;
    memset (outcome, 0, sizeof *outcome);
    queue->count++;
}

bool
dlqc_queue_pop (dlqc_queue_t *queue, dlqc_done_t *out)
{
    if (queue->count == 0)
        return false;
    *out = queue->items [queue->first];
    queue->first = (queue->first + 1) % queue->capacity;
    queue->count--;
    return true;
}

size_t
dlqc_queue_count (const dlqc_queue_t *queue)
{
    return queue->count;
}
