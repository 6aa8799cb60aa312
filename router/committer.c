/*  committer — group commit on its own thread, plus the expiry sweep. */
#include "committer.h"

#include "dlq_alloc.h"
#include "dlq_log.h"
#include "dlq_time.h"
#include "embedded_store.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

struct dlq_committer {
    void            *front;         /* PAIR, used by the front end */
    void            *back;          /* PAIR, used by the thread */
    pthread_t        thread;
    dlq_embedded_t  *store;
    int64_t          sweep_interval_ms;
    int64_t          sweep_batch;
};

static void
commit (dlq_committer_t *self, dlq_commit_batch_t *batch)
{
    dlq_store_result_t rc = dlq_embedded_append (self->store, batch->events, batch->count,
                                                 batch->duplicate, batch->error,
                                                 sizeof batch->error);
    batch->failed = rc != DLQ_STORE_OK;
    if (batch->failed)
        dlq_log (DLQ_LOG_ERROR, "commit of %zu events failed: %s", batch->count, batch->error);
}

/* Delete one transaction's worth of expired events; true when more remain. */
static bool
sweep (dlq_committer_t *self)
{
    int64_t deleted = dlq_embedded_sweep (self->store, dlq_time_now_ms (), (int) self->sweep_batch);
    if (deleted < 0)
        dlq_log (DLQ_LOG_ERROR, "expiry sweep failed: %s", dlq_embedded_last_error (self->store));
    else
    if (deleted > 0)
        dlq_log (DLQ_LOG_INFO, "expiry sweep deleted %lld events", (long long) deleted);
    return deleted == self->sweep_batch;
}

/* The thread: wait for a batch (or the next sweep), commit it, send it back.
 * A NULL pointer is the stop message. */
static void *
run (void *arg)
{
    dlq_committer_t *self = arg;
    int64_t next_sweep = dlq_time_mono_ms () + self->sweep_interval_ms;
    while (true) {
        zmq_pollitem_t item = { self->back, 0, ZMQ_POLLIN, 0 };
        int64_t wait = next_sweep - dlq_time_mono_ms ();
        int rc = zmq_poll (&item, 1, wait > 0 ? wait : 0);
        if (rc < 0)
            continue;                   /* EINTR */
        if (rc == 0) {
            bool more = sweep (self);
            next_sweep = dlq_time_mono_ms () + (more ? 0 : self->sweep_interval_ms);
            continue;
        }
        dlq_commit_batch_t *batch = NULL;
        if (zmq_recv (self->back, &batch, sizeof batch, 0) != sizeof batch || !batch)
            break;
        commit (self, batch);
        zmq_send (self->back, &batch, sizeof batch, 0);
    }
    return NULL;
}

dlq_committer_t *
dlq_committer_new (void *zmq_ctx, const char *data_dir, int64_t sweep_interval_ms,
                   int64_t sweep_batch, char *err, size_t err_len)
{
    dlq_embedded_t *store = dlq_embedded_open (data_dir, DLQ_EMBEDDED_WRITER, err, err_len);
    if (!store)
        return NULL;
    dlq_committer_t *self = dlq_calloc (1, sizeof *self);
    self->store = store;
    self->sweep_interval_ms = sweep_interval_ms;
    self->sweep_batch = sweep_batch;
    char endpoint [64];
    snprintf (endpoint, sizeof endpoint, "inproc://dlq-committer-%p", (void *) self);
    self->front = zmq_socket (zmq_ctx, ZMQ_PAIR);
    self->back = zmq_socket (zmq_ctx, ZMQ_PAIR);
    zmq_bind (self->front, endpoint);
    zmq_connect (self->back, endpoint);
    if (pthread_create (&self->thread, NULL, run, self) != 0) {
        snprintf (err, err_len, "cannot start the committer thread");
        zmq_close (self->front);
        zmq_close (self->back);
        dlq_embedded_destroy (&self->store);
        free (self);
        return NULL;
    }
    return self;
}

void *dlq_committer_socket (dlq_committer_t *self) { return self->front; }

void
dlq_committer_submit (dlq_committer_t *self, dlq_commit_batch_t *batch)
{
    zmq_send (self->front, &batch, sizeof batch, 0);
}

dlq_commit_batch_t *
dlq_committer_receive (dlq_committer_t *self)
{
    dlq_commit_batch_t *batch = NULL;
    while (zmq_recv (self->front, &batch, sizeof batch, 0) < 0 && zmq_errno () == EINTR)
        ;
    return batch;
}

void
dlq_committer_destroy (dlq_committer_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_committer_t *self = *self_p;
    dlq_commit_batch_t *stop = NULL;
    zmq_send (self->front, &stop, sizeof stop, 0);
    pthread_join (self->thread, NULL);
    zmq_close (self->front);
    zmq_close (self->back);
    dlq_embedded_destroy (&self->store);
    free (self);
    *self_p = NULL;
}
