/*  test_commit_batch — the writes of one group commit, as commit_batch.h
 *  has them: a new batch is empty; events and checkpoint writes both count
 *  toward its size; it is full at capacity writes or once its events'
 *  canonical JSON reaches max_bytes (it always takes one event); what is
 *  added moves in (the event pointer NULLed, the messages left empty, the
 *  checkpoint value left empty) and is kept as given, in order; clear
 *  frees everything, resets the failure flags and its arena, and the batch
 *  is reused; destroy frees a batch that still holds writes and accepts
 *  NULL. ASan's leak check (the sanitizer build) is part of every test.
 */
#include "commit_batch.h"

#include "checkpoint.h"
#include "dlq_json.h"
#include "event_support.h"
#include "failed_event.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <zmq.h>

static char *
event_body (int i, size_t pad)
{
    static char body [8192];
    char padding [4096];
    cr_assert_lt (pad, sizeof padding);
    memset (padding, 'p', pad);
    padding [pad] = '\0';
    snprintf (body, sizeof body,
              "{\"id\":\"00000000-0000-7000-8000-%012d\",\"streamName\":\"orders\","
              "\"error\":{\"type\":\"java.io.IOException\",\"message\":\"m%s\"},"
              "\"createdAt\":\"2026-06-09T14:32:13.500Z\"}", i, padding);
    return body;
}

/* A canonical event (its json_len set), number i, with pad bytes more. */
static dlq_event_t *
event (int i, size_t pad)
{
    const char *body = event_body (i, pad);
    return event_canonical (body, strlen (body));
}

static void
msg_of (zmq_msg_t *msg, const char *text)
{
    cr_assert_eq (zmq_msg_init_size (msg, strlen (text)), 0);
    memcpy (zmq_msg_data (msg), text, strlen (text));
}

static bool
msg_is (zmq_msg_t *msg, const char *text)
{
    return zmq_msg_size (msg) == strlen (text) && memcmp (zmq_msg_data (msg), text, strlen (text)) == 0;
}

/* Add event i (pad bytes more) from client identity with request id rid. */
static size_t
add_event (dlq_commit_batch_t *b, int i, size_t pad, const char *identity, const char *rid)
{
    dlq_event_t *e = event (i, pad);
    size_t len = e->json_len;
    zmq_msg_t id, req;
    msg_of (&id, identity);
    msg_of (&req, rid);
    dlq_commit_batch_add (b, &e, &id, &req);
    cr_expect_null (e, "the event moved in");
    cr_expect_eq (zmq_msg_size (&id), 0, "the identity moved in");
    cr_expect_eq (zmq_msg_size (&req), 0, "the request id moved in");
    zmq_msg_close (&id);
    zmq_msg_close (&req);
    return len;
}

/* A parsed CKPT write of kind for stream. */
static void
ckpt_value (dlq_sink_ckpt_write_t kind, const char *stream, dlq_checkpoint_t *out)
{
    char body [512];
    if (kind == DLQ_SINK_CKPT_SAVE)
        snprintf (body, sizeof body, "{\"streamName\":\"%s\",\"instanceId\":\"w1\"}", stream);
    else
        snprintf (body, sizeof body, "{\"streamName\":\"%s\",\"token\":{\"_data\":\"abc\"},"
                  "\"timestamp\":\"2026-06-09T14:32:13.500Z\"}", stream);
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (body, strlen (body), &doc, NULL), DLQ_JSON_OK);
    dlq_error_t err = { 0 };
    cr_assert_eq (dlq_checkpoint_parse (kind, dlq_json_root (doc), out, &err), DLQ_OK, "%s", err.message);
    dlq_json_doc_destroy (&doc);
}

/* Holds nothing: no string of its own, no field of the record set. */
static bool
ckpt_is_empty (const dlq_checkpoint_t *c)
{
    for (size_t i = 0; i < sizeof c->owned / sizeof c->owned [0]; i++)
        if (c->owned [i])
            return false;
    const dlq_sink_checkpoint_t *r = &c->record;
    return !r->stream_name && !r->instance_id && !r->last_seen_token && !r->last_processed_token && !r->metadata;
}

static void
add_ckpt (dlq_commit_batch_t *b, dlq_sink_ckpt_write_t kind, const char *stream, bool remove, int64_t now,
          const char *identity, const char *rid)
{
    dlq_checkpoint_t value;
    ckpt_value (kind, stream, &value);
    zmq_msg_t id, req;
    msg_of (&id, identity);
    msg_of (&req, rid);
    dlq_commit_batch_add_ckpt (b, &value, remove, now, &id, &req);
    cr_expect (ckpt_is_empty (&value), "the value moved in: left empty");
    cr_expect_eq (zmq_msg_size (&id), 0);
    cr_expect_eq (zmq_msg_size (&req), 0);
    zmq_msg_close (&id);
    zmq_msg_close (&req);
}

Test (commit_batch, a_new_batch_is_empty_and_not_full)
{
    dlq_commit_batch_t *b = dlq_commit_batch_new (16, 1 << 20);
    cr_assert_not_null (b);
    cr_expect_eq (dlq_commit_batch_size (b), 0);
    cr_expect_not (dlq_commit_batch_full (b));
    cr_expect_eq (b->count, 0);
    cr_expect_eq (b->ckpt_count, 0);
    cr_expect_eq (b->bytes, 0);
    cr_expect_not (b->failed);
    cr_expect_not (b->ckpt_failed);
    dlq_commit_batch_destroy (&b);
    cr_expect_null (b);
}

Test (commit_batch, events_are_kept_in_order_with_their_messages)
{
    dlq_commit_batch_t *b = dlq_commit_batch_new (8, 1 << 20);
    size_t bytes = 0;
    bytes += add_event (b, 1, 0, "client-a", "r1");
    bytes += add_event (b, 2, 10, "client-b", "r2");
    bytes += add_event (b, 3, 20, "client-a", "r3");
    cr_assert_eq (b->count, 3);
    cr_expect_eq (dlq_commit_batch_size (b), 3);
    cr_expect_eq (b->bytes, bytes, "the events' canonical JSON");
    static const char *const ids [] = { "00000000-0000-7000-8000-000000000001",
                                        "00000000-0000-7000-8000-000000000002",
                                        "00000000-0000-7000-8000-000000000003" };
    static const char *const clients [] = { "client-a", "client-b", "client-a" };
    static const char *const rids [] = { "r1", "r2", "r3" };
    for (int i = 0; i < 3; i++) {
        cr_expect_str_eq (b->events [i]->id, ids [i]);
        cr_expect (msg_is (&b->identities [i], clients [i]), "identity %d", i);
        cr_expect (msg_is (&b->request_ids [i], rids [i]), "request id %d", i);
        cr_expect_not (b->duplicate [i], "not a duplicate until the commit says so");
    }
    dlq_commit_batch_destroy (&b);
}

Test (commit_batch, the_batch_is_full_at_capacity_writes)
{
    dlq_commit_batch_t *b = dlq_commit_batch_new (3, 1 << 20);
    add_event (b, 1, 0, "c", "r1");
    cr_expect_not (dlq_commit_batch_full (b));
    add_ckpt (b, DLQ_SINK_CKPT_SAVE, "orders", false, 1, "c", "r2");
    cr_expect_not (dlq_commit_batch_full (b), "2 of 3");
    add_event (b, 2, 0, "c", "r3");
    cr_expect_eq (dlq_commit_batch_size (b), 3, "events and checkpoint writes both count");
    cr_expect (dlq_commit_batch_full (b));
    dlq_commit_batch_destroy (&b);
}

Test (commit_batch, checkpoint_writes_alone_fill_a_batch)
{
    dlq_commit_batch_t *b = dlq_commit_batch_new (2, 1 << 20);
    add_ckpt (b, DLQ_SINK_CKPT_SEEN, "a", false, 1, "c", "r1");
    cr_expect_not (dlq_commit_batch_full (b));
    add_ckpt (b, DLQ_SINK_CKPT_PROCESSED, "b", false, 2, "c", "r2");
    cr_expect (dlq_commit_batch_full (b));
    cr_expect_eq (b->bytes, 0, "no event bytes");
    dlq_commit_batch_destroy (&b);
}

Test (commit_batch, the_batch_is_full_once_its_events_reach_max_bytes)
{
    dlq_event_t *probe = event (0, 100);
    size_t one = probe->json_len;
    dlq_event_destroy (&probe);
    dlq_commit_batch_t *b = dlq_commit_batch_new (100, 3 * one);
    add_event (b, 1, 100, "c", "r");
    add_event (b, 2, 100, "c", "r");
    cr_expect_not (dlq_commit_batch_full (b), "2 events of 3 events' bytes");
    add_event (b, 3, 100, "c", "r");
    cr_expect (dlq_commit_batch_full (b), "exactly max_bytes is full");
    dlq_commit_batch_destroy (&b);
}

Test (commit_batch, it_always_takes_one_event)
{
    dlq_commit_batch_t *b = dlq_commit_batch_new (10, 1);
    cr_expect_not (dlq_commit_batch_full (b), "an empty batch is never full of bytes");
    add_event (b, 1, 2000, "c", "r");
    cr_expect_eq (b->count, 1);
    cr_expect (dlq_commit_batch_full (b), "one event over max_bytes fills it");
    dlq_commit_batch_destroy (&b);
}

Test (commit_batch, a_checkpoint_write_is_kept_as_given)
{
    dlq_commit_batch_t *b = dlq_commit_batch_new (4, 1 << 20);
    add_ckpt (b, DLQ_SINK_CKPT_SAVE, "orders", false, 1111, "client-a", "r1");
    add_ckpt (b, DLQ_SINK_CKPT_SEEN, "payments", false, 2222, "client-b", "r2");
    add_ckpt (b, DLQ_SINK_CKPT_SAVE, "orders", true, 3333, "client-c", "r3");
    cr_assert_eq (b->ckpt_count, 3);
    cr_expect_eq (b->count, 0);
    cr_expect_eq (b->ckpts [0].kind, DLQ_SINK_CKPT_SAVE);
    cr_expect_not (b->ckpts [0].remove);
    cr_expect_eq (b->ckpts [0].now_ms, 1111);
    cr_expect_str_eq (b->ckpts [0].record.stream_name, "orders");
    cr_expect_str_eq (b->ckpts [0].record.instance_id, "w1");
    cr_expect_eq (b->ckpts [1].kind, DLQ_SINK_CKPT_SEEN);
    cr_expect_str_eq (b->ckpts [1].record.stream_name, "payments");
    cr_expect_not_null (b->ckpts [1].record.last_seen_token);
    cr_expect_eq (b->ckpts [1].now_ms, 2222);
    cr_expect (b->ckpts [2].remove, "a delete of its stream");
    cr_expect_str_eq (b->ckpts [2].record.stream_name, "orders");
    cr_expect_eq (b->ckpts [2].now_ms, 3333);
    static const char *const clients [] = { "client-a", "client-b", "client-c" };
    static const char *const rids [] = { "r1", "r2", "r3" };
    for (int i = 0; i < 3; i++) {
        cr_expect (msg_is (&b->ckpt_identities [i], clients [i]), "identity %d", i);
        cr_expect (msg_is (&b->ckpt_request_ids [i], rids [i]), "request id %d", i);
        cr_expect_eq (b->ckpts [i].reply.len, 0, "no reply before the commit");
    }
    dlq_commit_batch_destroy (&b);
}

Test (commit_batch, clear_empties_the_batch_for_reuse)
{
    dlq_commit_batch_t *b = dlq_commit_batch_new (4, 1 << 20);
    add_event (b, 1, 0, "c", "r1");
    add_ckpt (b, DLQ_SINK_CKPT_SAVE, "orders", false, 1, "c", "r2");
    b->duplicate [0] = true;
    b->failed = true;
    snprintf (b->error, sizeof b->error, "disk full");
    b->ckpt_failed = true;
    dlq_buf_puts (&b->ckpts [0].reply, "{\"streamName\":\"orders\"}");   /* as a commit fills it */
    dlq_commit_batch_clear (b);
    cr_expect_eq (dlq_commit_batch_size (b), 0);
    cr_expect_eq (b->count, 0);
    cr_expect_eq (b->ckpt_count, 0);
    cr_expect_eq (b->bytes, 0);
    cr_expect_not (dlq_commit_batch_full (b));
    cr_expect_not (b->failed);
    cr_expect_not (b->ckpt_failed);
    cr_expect_str_eq (b->error, "");
    /* reused: full again at capacity, replies of the earlier use gone */
    for (int i = 0; i < 2; i++)
        add_event (b, 10 + i, 0, "d", "s");
    add_ckpt (b, DLQ_SINK_CKPT_PROCESSED, "x", false, 5, "d", "s");
    cr_expect_eq (b->ckpts [0].reply.len, 0, "a slot's reply starts empty on reuse");
    cr_expect_not (b->duplicate [0], "the flag of the earlier use is gone");
    add_ckpt (b, DLQ_SINK_CKPT_SAVE, "y", true, 6, "d", "s");
    cr_expect (dlq_commit_batch_full (b));
    cr_expect_str_eq (b->events [0]->id, "00000000-0000-7000-8000-000000000010");
    dlq_commit_batch_destroy (&b);
}

Test (commit_batch, events_decoded_in_its_arena_go_with_a_clear)
{
    dlq_commit_batch_t *b = dlq_commit_batch_new (4, 1 << 20);
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < 4; i++) {
            const char *body = event_body (i, 50);
            dlq_error_t err = { 0 };
            dlq_event_t *e = dlq_event_decode_in (body, strlen (body), EVENT_RECEIVED_AT, b->arena, &err);
            cr_assert_not_null (e, "%s", err.message);
            dlq_event_encode (e);
            zmq_msg_t id, req;
            msg_of (&id, "c");
            msg_of (&req, "r");
            dlq_commit_batch_add (b, &e, &id, &req);
            zmq_msg_close (&id);
            zmq_msg_close (&req);
        }
        cr_expect (dlq_commit_batch_full (b));
        cr_expect_str_eq (b->events [3]->id, "00000000-0000-7000-8000-000000000003");
        dlq_commit_batch_clear (b);
        cr_expect_eq (dlq_commit_batch_size (b), 0, "round %d", round);
    }
    dlq_commit_batch_destroy (&b);
}

Test (commit_batch, destroy_frees_a_batch_that_still_holds_writes)
{
    dlq_commit_batch_t *b = dlq_commit_batch_new (64, 1 << 20);
    for (int i = 0; i < 32; i++)
        add_event (b, i, (size_t) i, "c", "r");
    for (int i = 0; i < 32; i++) {
        char stream [16];
        snprintf (stream, sizeof stream, "s%d", i);
        add_ckpt (b, i % 3 == 0 ? DLQ_SINK_CKPT_SAVE : DLQ_SINK_CKPT_SEEN, stream, i % 5 == 0, i, "c", "r");
        dlq_buf_puts (&b->ckpts [i].reply, "{\"deleted\":true}");
    }
    cr_expect (dlq_commit_batch_full (b));
    dlq_commit_batch_destroy (&b);
    cr_expect_null (b);
}

Test (commit_batch, destroy_accepts_null)
{
    dlq_commit_batch_t *b = NULL;
    dlq_commit_batch_destroy (&b);
    dlq_commit_batch_destroy (NULL);
    cr_expect_null (b);
}
