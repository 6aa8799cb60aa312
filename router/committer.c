/*  committer — group commit on its own thread (an actor), plus the expiry
 *  sweep while it is idle. The writer connection is opened, used and closed
 *  on the committer's thread only.
 */
#include "committer.h"

#include "actor.h"
#include "dlq_alloc.h"
#include "dlq_log.h"
#include "dlq_time.h"
#include "embedded_store.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

struct dlq_committer {
    dlq_actor_t     *actor;
    char            *data_dir;
    int64_t          sweep_interval_ms;
    int64_t          sweep_batch;
    char             error [512];   /* why the store could not be opened */
};

static void
commit (dlq_embedded_t *store, dlq_commit_batch_t *batch)
{
    dlq_store_result_t rc = dlq_embedded_append (store, batch->events, batch->count,
                                                 batch->duplicate, batch->error,
                                                 sizeof batch->error);
    batch->failed = rc != DLQ_STORE_OK;
    if (batch->failed)
        dlq_log (DLQ_LOG_ERROR, "commit of %zu events failed: %s", batch->count, batch->error);
}

/* Delete one transaction's worth of expired events; true when more remain. */
static bool
sweep (dlq_committer_t *self, dlq_embedded_t *store)
{
    int64_t deleted = dlq_embedded_sweep (store, dlq_time_now_ms (), (int) self->sweep_batch);
    if (deleted < 0)
        dlq_log (DLQ_LOG_ERROR, "expiry sweep failed: %s", dlq_embedded_last_error (store));
    else
    if (deleted > 0)
        dlq_log (DLQ_LOG_INFO, "expiry sweep deleted %lld events", (long long) deleted);
    return deleted == self->sweep_batch;
}

/* The actor: wait for a batch (or the next sweep), commit it, send it back.
 * Batches travel as pointers; an empty frame is the stop message. */
static void
run (void *pipe, void *arg)
{
    dlq_committer_t *self = arg;
    dlq_embedded_t *store = dlq_embedded_open (self->data_dir, DLQ_EMBEDDED_WRITER,
                                               self->error, sizeof self->error);
    dlq_actor_ready (pipe, store != NULL);
    if (!store)
        return;
    int64_t next_sweep = dlq_time_mono_ms () + self->sweep_interval_ms;
    while (true) {
        zmq_pollitem_t item = { pipe, 0, ZMQ_POLLIN, 0 };
        int64_t wait = next_sweep - dlq_time_mono_ms ();
        int rc = zmq_poll (&item, 1, wait > 0 ? wait : 0);
        if (rc < 0)
            continue;                   /* EINTR */
        if (rc == 0) {
            bool more = sweep (self, store);
            next_sweep = dlq_time_mono_ms () + (more ? 0 : self->sweep_interval_ms);
            continue;
        }
        dlq_commit_batch_t *batch = NULL;
        if (zmq_recv (pipe, &batch, sizeof batch, 0) != sizeof batch || !batch)
            break;
        commit (store, batch);
        zmq_send (pipe, &batch, sizeof batch, 0);
    }
    dlq_embedded_destroy (&store);
}

dlq_committer_t *
dlq_committer_new (void *zmq_ctx, const char *data_dir, int64_t sweep_interval_ms,
                   int64_t sweep_batch, char *err, size_t err_len)
{
    dlq_committer_t *self = dlq_calloc (1, sizeof *self);
    self->data_dir = dlq_strdup (data_dir);
    self->sweep_interval_ms = sweep_interval_ms;
    self->sweep_batch = sweep_batch;
    snprintf (self->error, sizeof self->error, "cannot start the committer thread");
    self->actor = dlq_actor_new (zmq_ctx, run, self);
    if (!self->actor) {
        snprintf (err, err_len, "%s", self->error);
        free (self->data_dir);
        free (self);
        return NULL;
    }
    return self;
}

void *dlq_committer_socket (dlq_committer_t *self) { return dlq_actor_pipe (self->actor); }

void
dlq_committer_submit (dlq_committer_t *self, dlq_commit_batch_t *batch)
{
    zmq_send (dlq_actor_pipe (self->actor), &batch, sizeof batch, 0);
}

dlq_commit_batch_t *
dlq_committer_receive (dlq_committer_t *self)
{
    dlq_commit_batch_t *batch = NULL;
    while (zmq_recv (dlq_actor_pipe (self->actor), &batch, sizeof batch, 0) < 0 && zmq_errno () == EINTR)
        ;
    return batch;
}

void
dlq_committer_destroy (dlq_committer_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_committer_t *self = *self_p;
    dlq_actor_destroy (&self->actor);
    free (self->data_dir);
    free (self);
    *self_p = NULL;
}
