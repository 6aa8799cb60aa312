/*  dlq_arena — chunks on a list, the one in use last; see dlq_arena.h. */
#include "dlq_arena.h"

#include "dlq_alloc.h"

#include <stdalign.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define ALIGN alignof (max_align_t)
#define KEEP_CHUNKS 8               /* chunks a reset keeps */

typedef struct chunk {
    struct chunk *next;
    size_t        cap, used;
    alignas (max_align_t) unsigned char data [];
} chunk_t;

struct dlq_arena {
    chunk_t  *first, *current;
    size_t    chunk_bytes;
    dlq_buf_t scratch;
};

static chunk_t *
chunk_new (size_t cap)
{
    chunk_t *c = dlq_malloc (sizeof *c + cap);
    c->next = NULL;
    c->cap = cap;
    c->used = 0;
    return c;
}

dlq_arena_t *
dlq_arena_new (size_t chunk_bytes)
{
    dlq_arena_t *self = dlq_calloc (1, sizeof *self);
    self->chunk_bytes = chunk_bytes < 1024 ? 1024 : chunk_bytes;
    self->first = self->current = chunk_new (self->chunk_bytes);
    return self;
}

void
dlq_arena_destroy (dlq_arena_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_arena_t *self = *self_p;
    for (chunk_t *c = self->first, *next; c; c = next) {
        next = c->next;
        free (c);
    }
    dlq_buf_free (&self->scratch);
    free (self);
    *self_p = NULL;
}

void *
dlq_arena_alloc (dlq_arena_t *self, size_t size)
{
    size = (size + ALIGN - 1) / ALIGN * ALIGN;
    chunk_t *c = self->current;
    while (c->cap - c->used < size) {
        if (!c->next) {
            /* a chunk after the current one, of the usual size or this one's */
            chunk_t *fresh = chunk_new (size > self->chunk_bytes ? size : self->chunk_bytes);
            c->next = fresh;
        }
        else
        if (c->next->cap < size) {
            /* a kept chunk too small for it: a fitting one goes in before it */
            chunk_t *fresh = chunk_new (size > self->chunk_bytes ? size : self->chunk_bytes);
            fresh->next = c->next;
            c->next = fresh;
        }
        c = c->next;
        c->used = 0;
    }
    self->current = c;
    void *p = c->data + c->used;
    c->used += size;
    return p;
}

char *
dlq_arena_strndup (dlq_arena_t *self, const char *s, size_t len)
{
    char *out = dlq_arena_alloc (self, len + 1);
    memcpy (out, s, len);
    out [len] = '\0';
    return out;
}

dlq_arena_mark_t
dlq_arena_mark (const dlq_arena_t *self)
{
    return (dlq_arena_mark_t) { self->current, self->current->used };
}

void
dlq_arena_rollback (dlq_arena_t *self, dlq_arena_mark_t mark)
{
    self->current = mark.chunk;
    self->current->used = mark.used;
}

void
dlq_arena_reset (dlq_arena_t *self)
{
    /* the first KEEP_CHUNKS stay; the rest of a burst goes back to the heap */
    chunk_t *c = self->first;
    for (int i = 1; i < KEEP_CHUNKS && c->next; i++)
        c = c->next;
    for (chunk_t *extra = c->next, *next; extra; extra = next) {
        next = extra->next;
        free (extra);
    }
    c->next = NULL;
    self->current = self->first;
    self->first->used = 0;
}

dlq_buf_t *
dlq_arena_scratch (dlq_arena_t *self)
{
    dlq_buf_reset (&self->scratch);
    return &self->scratch;
}

size_t
dlq_arena_capacity (const dlq_arena_t *self)
{
    size_t n = 0;
    for (const chunk_t *c = self->first; c; c = c->next)
        n += c->cap;
    return n;
}
