/*  test_arena — the bump allocator of core/dlq_arena.h and the events
 *  decoded in one (dlq_event_decode_in): alignment, copies, a rollback
 *  that takes back exactly what came after its mark, a reset that keeps
 *  the chunks (a reused arena grows no more) but no more than eight, and
 *  an event decoded in an arena that encodes to the same bytes as one of
 *  the heap while a refused body leaves the arena as it was.
 */
#include "dlq_arena.h"
#include "failed_event.h"

#include <criterion/criterion.h>
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

Test (arena, allocations_are_aligned_distinct_and_hold_their_bytes)
{
    dlq_arena_t *a = dlq_arena_new (4096);
    char *prev = NULL;
    for (size_t i = 1; i < 3000; i += 7) {
        char *p = dlq_arena_alloc (a, i);
        cr_assert_eq ((uintptr_t) p % alignof (max_align_t), 0, "size %zu", i);
        memset (p, (int) (i & 0xff), i);
        if (prev)
            cr_assert_neq (p, prev);
        prev = p;
    }
    char *big = dlq_arena_alloc (a, 100000);           /* larger than a chunk: one of its own */
    memset (big, 1, 100000);
    char *s = dlq_arena_strndup (a, "hello, world", 5);
    cr_assert_str_eq (s, "hello");
    dlq_arena_destroy (&a);
    cr_assert_null (a);
    dlq_arena_destroy (&a);                              /* NULL is fine */
}

Test (arena, a_rollback_takes_back_what_came_after_its_mark)
{
    dlq_arena_t *a = dlq_arena_new (1024);
    char *keep = dlq_arena_strndup (a, "kept", 4);
    dlq_arena_mark_t mark = dlq_arena_mark (a);
    for (int i = 0; i < 100; i++)
        dlq_arena_alloc (a, 500);                        /* across several chunks */
    dlq_arena_rollback (a, mark);
    char *next = dlq_arena_alloc (a, 16);
    cr_assert_eq (next, keep + alignof (max_align_t), "the next allocation is where the first after the mark was"
                  " (\"kept\" and its NUL take one aligned step)");
    cr_assert_str_eq (keep, "kept");
    dlq_arena_destroy (&a);
}

Test (arena, a_reset_keeps_its_chunks_so_a_reused_arena_stops_growing)
{
    dlq_arena_t *a = dlq_arena_new (8192);
    for (int i = 0; i < 40; i++)
        dlq_arena_alloc (a, 1000);
    size_t grown = dlq_arena_capacity (a);
    cr_assert_geq (grown, 40000);
    for (int round = 0; round < 10; round++) {
        dlq_arena_reset (a);
        for (int i = 0; i < 40; i++)
            dlq_arena_alloc (a, 1000);
        cr_assert_eq (dlq_arena_capacity (a), grown, "round %d grew the arena", round);
    }
    /* after a burst, a reset keeps eight chunks */
    for (int i = 0; i < 1000; i++)
        dlq_arena_alloc (a, 1000);
    dlq_arena_reset (a);
    cr_assert_leq (dlq_arena_capacity (a), 8 * 8192);
    dlq_arena_destroy (&a);
}

static const char body [] =
    "{\"streamName\":\"orders\",\"operationType\":\"insert\",\"documentKey\":{\"_id\":{\"$oid\":"
    "\"65f0a1b2c3d4e5f601234567\"}},\"fullDocument\":{\"total\":{\"$numberDecimal\":\"12.50\"}},"
    "\"error\":{\"type\":\"E\",\"message\":\"boom\",\"stackTrace\":\"at a.js:1:2\"},\"attempts\":3,"
    "\"createdAt\":\"2026-06-09T14:32:11.123Z\",\"metadata\":{\"k\":\"v\"}}";

Test (arena, an_event_decoded_in_an_arena_is_the_event_decoded_on_the_heap)
{
    dlq_arena_t *a = dlq_arena_new (1024);
    dlq_error_t err;
    dlq_event_t *heap = dlq_event_decode (body, sizeof body - 1, 1000, &err);
    dlq_event_t *in = dlq_event_decode_in (body, sizeof body - 1, 1000, a, &err);
    cr_assert (heap && in);
    cr_assert_eq (in->arena, a);
    dlq_event_drop (in, &in->error_stack_trace);
    dlq_event_drop (heap, &heap->error_stack_trace);
    free (heap->id);
    heap->id = strdup (in->id);                          /* both generated: make them one */
    dlq_event_encode (heap);
    dlq_event_encode (in);
    cr_assert_eq (in->json_len, heap->json_len);
    cr_assert_str_eq (in->json, heap->json);
    dlq_event_destroy (&in);
    cr_assert_null (in);
    dlq_event_destroy (&heap);
    dlq_arena_destroy (&a);
}

Test (arena, a_refused_body_leaves_the_arena_as_it_was)
{
    dlq_arena_t *a = dlq_arena_new (1024);
    dlq_error_t err;
    dlq_event_destroy (&(dlq_event_t *) { dlq_event_decode_in (body, sizeof body - 1, 1000, a, &err) });
    dlq_arena_mark_t before = dlq_arena_mark (a);
    /* valid JSON, refused late: after its strings were copied in */
    static const char late [] = "{\"streamName\":\"orders\",\"error\":{\"type\":\"E\",\"message\":\"m\"},"
                                "\"attempts\":-1}";
    for (int i = 0; i < 100; i++)
        cr_assert_null (dlq_event_decode_in (late, sizeof late - 1, 1000, a, &err));
    cr_assert_str_eq (err.field, "attempts");
    dlq_arena_mark_t after = dlq_arena_mark (a);
    cr_assert_eq (after.chunk, before.chunk);
    cr_assert_eq (after.used, before.used);
    dlq_arena_destroy (&a);
}
