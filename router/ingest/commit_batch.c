/*  commit_batch — a reusable array of PUTs awaiting one commit. */
#include "commit_batch.h"

#include "dlq_alloc.h"
#include "dlq_time.h"

#include <stdlib.h>
#include <string.h>

#define ARENA_CHUNK (512u << 10)    /* 8 of them kept: a batch of ~2,500 events of 1.4 KB decodes with no malloc */

dlq_commit_batch_t *
dlq_commit_batch_new (size_t capacity, size_t max_bytes)
{
    dlq_commit_batch_t *self = dlq_calloc (1, sizeof *self);
    self->capacity = capacity;
    self->max_bytes = max_bytes;
    self->events = dlq_calloc (capacity, sizeof (dlq_event_t *));
    self->identities = dlq_calloc (capacity, sizeof (zmq_msg_t));
    self->request_ids = dlq_calloc (capacity, sizeof (zmq_msg_t));
    self->duplicate = dlq_calloc (capacity, sizeof (bool));
    self->received_ns = dlq_calloc (capacity, sizeof (int64_t));
    self->ckpts = dlq_calloc (capacity, sizeof (dlq_ckpt_write_t));
    self->ckpt_values = dlq_calloc (capacity, sizeof (dlq_checkpoint_t));
    self->ckpt_identities = dlq_calloc (capacity, sizeof (zmq_msg_t));
    self->ckpt_request_ids = dlq_calloc (capacity, sizeof (zmq_msg_t));
    self->arena = dlq_arena_new (ARENA_CHUNK);
    return self;
}

void
dlq_commit_batch_add (dlq_commit_batch_t *self, dlq_event_t **event_p,
                      zmq_msg_t *identity, zmq_msg_t *request_id)
{
    size_t i = self->count++;
    self->events [i] = *event_p;
    self->bytes += (*event_p)->json_len;
    *event_p = NULL;
    zmq_msg_init (&self->identities [i]);
    zmq_msg_move (&self->identities [i], identity);
    zmq_msg_init (&self->request_ids [i]);
    zmq_msg_move (&self->request_ids [i], request_id);
    self->duplicate [i] = false;
    self->received_ns [i] = dlq_time_mono_ns ();
}

void
dlq_commit_batch_add_ckpt (dlq_commit_batch_t *self, dlq_checkpoint_t *value, bool remove, int64_t now_ms,
                           zmq_msg_t *identity, zmq_msg_t *request_id)
{
    size_t i = self->ckpt_count++;
    self->ckpt_values [i] = *value;
    memset (value, 0, sizeof *value);
    dlq_ckpt_write_t *w = &self->ckpts [i];
    dlq_buf_t reply = w->reply;             /* kept from an earlier use of the slot */
    *w = (dlq_ckpt_write_t) { .remove = remove, .kind = self->ckpt_values [i].kind,
                              .record = self->ckpt_values [i].record, .now_ms = now_ms, .reply = reply };
    dlq_buf_reset (&w->reply);
    zmq_msg_init (&self->ckpt_identities [i]);
    zmq_msg_move (&self->ckpt_identities [i], identity);
    zmq_msg_init (&self->ckpt_request_ids [i]);
    zmq_msg_move (&self->ckpt_request_ids [i], request_id);
}

size_t
dlq_commit_batch_size (const dlq_commit_batch_t *self)
{
    return self->count + self->ckpt_count;
}

bool
dlq_commit_batch_full (const dlq_commit_batch_t *self)
{
    return dlq_commit_batch_size (self) >= self->capacity || self->bytes >= self->max_bytes;
}

void
dlq_commit_batch_clear (dlq_commit_batch_t *self)
{
    for (size_t i = 0; i < self->count; i++) {
        dlq_event_destroy (&self->events [i]);
        zmq_msg_close (&self->identities [i]);
        zmq_msg_close (&self->request_ids [i]);
    }
    for (size_t i = 0; i < self->ckpt_count; i++) {
        dlq_checkpoint_clear (&self->ckpt_values [i]);
        zmq_msg_close (&self->ckpt_identities [i]);
        zmq_msg_close (&self->ckpt_request_ids [i]);
    }
    dlq_arena_reset (self->arena);
    self->count = 0;
    self->bytes = 0;
    self->ckpt_count = 0;
    self->failed = false;
    self->ckpt_failed = false;
    self->error [0] = '\0';
}

void
dlq_commit_batch_destroy (dlq_commit_batch_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_commit_batch_t *self = *self_p;
    dlq_commit_batch_clear (self);
    free (self->events);
    free (self->identities);
    free (self->request_ids);
    free (self->duplicate);
    free (self->received_ns);
    for (size_t i = 0; i < self->capacity; i++)
        dlq_buf_free (&self->ckpts [i].reply);
    free (self->ckpts);
    free (self->ckpt_values);
    free (self->ckpt_identities);
    free (self->ckpt_request_ids);
    dlq_arena_destroy (&self->arena);
    free (self);
    *self_p = NULL;
}
