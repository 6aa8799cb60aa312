/*  dlq_arena — a bump allocator for things that die together (the events
 *  of one group commit): allocation is a pointer increment in a chunk,
 *  nothing is freed alone, and a reset keeps its first eight chunks for the
 *  next use, so a reused arena allocates nothing from the heap once it has
 *  grown to its working size (and keeps no more than that after a burst). A mark and a rollback take back what was allocated
 *  since the mark (a request that failed half way). Not thread-safe.
 */
#ifndef DLQ_ARENA_H
#define DLQ_ARENA_H

#include "dlq_buf.h"

#include <stddef.h>

typedef struct dlq_arena dlq_arena_t;

typedef struct {
    void  *chunk;               /* the chunk in use at the mark */
    size_t used;                /* its bytes in use then */
} dlq_arena_mark_t;

/* An arena whose chunks hold chunk_bytes each at least (a larger request
 * gets a chunk of its own size). */
dlq_arena_t *dlq_arena_new (size_t chunk_bytes);

/* Free every chunk; accepts NULL and NULLs the pointer. */
void dlq_arena_destroy (dlq_arena_t **self_p);

/* size bytes aligned for any type; never NULL (out of memory aborts, as
 * dlq_alloc.h does). Valid until the next reset or a rollback before it. */
void *dlq_arena_alloc (dlq_arena_t *self, size_t size);

/* A NUL-terminated copy of len bytes at s. */
char *dlq_arena_strndup (dlq_arena_t *self, const char *s, size_t len);

dlq_arena_mark_t dlq_arena_mark (const dlq_arena_t *self);

/* Take back everything allocated since mark. */
void dlq_arena_rollback (dlq_arena_t *self, dlq_arena_mark_t mark);

/* Take back everything; the first eight chunks stay for what comes next. */
void dlq_arena_reset (dlq_arena_t *self);

/* A buffer the arena keeps for building text before copying it in (reset
 * by each call; its memory is the arena's until destroy). */
dlq_buf_t *dlq_arena_scratch (dlq_arena_t *self);

/* Bytes the chunks hold in all. */
size_t dlq_arena_capacity (const dlq_arena_t *self);

#endif
