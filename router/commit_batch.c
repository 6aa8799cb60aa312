/*  commit_batch — a reusable array of PUTs awaiting one commit. */
#include "commit_batch.h"

#include "dlq_alloc.h"

#include <stdlib.h>

dlq_commit_batch_t *
dlq_commit_batch_new (size_t capacity)
{
    dlq_commit_batch_t *self = dlq_calloc (1, sizeof *self);
    self->capacity = capacity;
    self->events = dlq_calloc (capacity, sizeof (dlq_event_t *));
    self->identities = dlq_calloc (capacity, sizeof (zmq_msg_t));
    self->request_ids = dlq_calloc (capacity, sizeof (zmq_msg_t));
    self->duplicate = dlq_calloc (capacity, sizeof (bool));
    return self;
}

void
dlq_commit_batch_add (dlq_commit_batch_t *self, dlq_event_t **event_p,
                      zmq_msg_t *identity, zmq_msg_t *request_id)
{
    size_t i = self->count++;
    self->events [i] = *event_p;
    *event_p = NULL;
    zmq_msg_init (&self->identities [i]);
    zmq_msg_move (&self->identities [i], identity);
    zmq_msg_init (&self->request_ids [i]);
    zmq_msg_move (&self->request_ids [i], request_id);
    self->duplicate [i] = false;
}

bool
dlq_commit_batch_full (const dlq_commit_batch_t *self)
{
    return self->count >= self->capacity;
}

void
dlq_commit_batch_clear (dlq_commit_batch_t *self)
{
    for (size_t i = 0; i < self->count; i++) {
        dlq_event_destroy (&self->events [i]);
        zmq_msg_close (&self->identities [i]);
        zmq_msg_close (&self->request_ids [i]);
    }
    self->count = 0;
    self->failed = false;
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
    free (self);
    *self_p = NULL;
}
