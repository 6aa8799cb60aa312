/*  retry_queue — min-heap of retry items by due time. */
#include "retry_queue.h"

#include "dlq_alloc.h"

#include <stdlib.h>

struct dlq_retry_queue {
    dlq_retry_item_t *items;
    size_t            count;
    size_t            capacity;
    int64_t           min_seq;      /* at most the lowest seq queued (INT64_MAX: none pushed since the count) */
};

dlq_retry_queue_t *
dlq_retry_queue_new (void)
{
    dlq_retry_queue_t *self = dlq_calloc (1, sizeof (dlq_retry_queue_t));
    self->min_seq = INT64_MAX;
    return self;
}

int64_t
dlq_retry_queue_min_seq (dlq_retry_queue_t *self, bool recount)
{
    if (self->count == 0)
        self->min_seq = INT64_MAX;      /* exact at no cost: nothing is queued */
    else
    if (recount) {
        self->min_seq = INT64_MAX;
        for (size_t i = 0; i < self->count; i++)
            if (self->items [i].seq < self->min_seq)
                self->min_seq = self->items [i].seq;
    }
    return self->min_seq;
}

void
dlq_retry_queue_destroy (dlq_retry_queue_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    free ((*self_p)->items);
    free (*self_p);
    *self_p = NULL;
}

static void
swap (dlq_retry_item_t *a, dlq_retry_item_t *b)
{
    dlq_retry_item_t t = *a;
    *a = *b;
    *b = t;
}

void
dlq_retry_queue_push (dlq_retry_queue_t *self, dlq_retry_item_t item)
{
    if (self->count == self->capacity) {
        self->capacity = self->capacity ? self->capacity * 2 : 64;
        self->items = dlq_realloc (self->items, self->capacity * sizeof *self->items);
    }
    size_t i = self->count++;
    self->items [i] = item;
    if (item.seq < self->min_seq)
        self->min_seq = item.seq;
    while (i > 0 && self->items [(i - 1) / 2].due_ms > self->items [i].due_ms) {
        swap (&self->items [(i - 1) / 2], &self->items [i]);
        i = (i - 1) / 2;
    }
}

bool
dlq_retry_queue_peek (const dlq_retry_queue_t *self, dlq_retry_item_t *item)
{
    if (self->count == 0)
        return false;
    *item = self->items [0];
    return true;
}

bool
dlq_retry_queue_pop_due (dlq_retry_queue_t *self, int64_t now_ms, dlq_retry_item_t *item)
{
    if (self->count == 0 || self->items [0].due_ms > now_ms)
        return false;
    *item = self->items [0];
    self->items [0] = self->items [--self->count];
    size_t i = 0;
    while (true) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < self->count && self->items [l].due_ms < self->items [m].due_ms)
            m = l;
        if (r < self->count && self->items [r].due_ms < self->items [m].due_ms)
            m = r;
        if (m == i)
            break;
        swap (&self->items [i], &self->items [m]);
        i = m;
    }
    return true;
}

size_t dlq_retry_queue_size (const dlq_retry_queue_t *self) { return self->count; }
