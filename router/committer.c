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
#include "spool_ledger.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

struct dlq_committer {
    dlq_actor_t     *actor;
    void            *zmq_ctx;
    dlq_ledger_channel_t *ledger;
    char            *tip_endpoint;
    char            *data_dir;
    int64_t          sweep_interval_ms;
    int64_t          sweep_batch;
    char             error [512];   /* why the store could not be opened */
};

/* Commit batch (may be NULL: ledger updates only) together with every
 * queued ledger update, then publish the new last seq. */
static void
commit (dlq_committer_t *self, dlq_embedded_t *store, void *tip, dlq_commit_batch_t *batch)
{
    size_t count = 0;
    uint64_t last_ticket = 0;
    dlq_ledger_update_t **updates = dlq_ledger_channel_take (self->ledger, &count, &last_ticket);
    char error [256] = "";
    int64_t last_seq = -1;
    dlq_store_result_t rc = dlq_embedded_commit_all (store, batch ? batch->events : NULL,
                                                     batch ? batch->count : 0,
                                                     batch ? batch->duplicate : NULL, updates, count,
                                                     batch ? batch->ckpts : NULL, batch ? batch->ckpt_count : 0,
                                                     &last_seq, error, sizeof error);
    dlq_ledger_channel_done (self->ledger, updates, count, last_ticket, rc == DLQ_STORE_OK);
    if (batch) {
        batch->failed = rc != DLQ_STORE_OK;
        snprintf (batch->error, sizeof batch->error, "%s", error);
    }
    if (rc != DLQ_STORE_OK)
        dlq_log (DLQ_LOG_ERROR, "commit of %zu events and %zu ledger updates failed (the updates go with "
                 "the next commit): %s", batch ? batch->count : 0, count, error);
    else
    if (batch && batch->count)
        zmq_send (tip, &last_seq, sizeof last_seq, ZMQ_DONTWAIT);
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
/* The actor: wait for a batch, ledger updates or the next sweep; commit;
 * send the batch back. Batches travel as pointers; an empty frame is the
 * stop message, after which queued ledger updates are still committed. */
static void
run (void *pipe, void *arg)
{
    dlq_committer_t *self = arg;
    dlq_embedded_t *store = dlq_embedded_open (self->data_dir, DLQ_EMBEDDED_WRITER,
                                               self->error, sizeof self->error);
    void *tip = zmq_socket (self->zmq_ctx, ZMQ_PUB);
    bool ok = store != NULL;
    if (ok && zmq_bind (tip, self->tip_endpoint) != 0) {
        snprintf (self->error, sizeof self->error, "cannot bind %s: %s", self->tip_endpoint,
                  zmq_strerror (zmq_errno ()));
        ok = false;
    }
    dlq_actor_ready (pipe, ok);
    int64_t next_sweep = dlq_time_mono_ms () + self->sweep_interval_ms;
    while (ok) {
        zmq_pollitem_t items [2] = { { pipe, 0, ZMQ_POLLIN, 0 },
                                     { NULL, dlq_ledger_channel_fd (self->ledger), ZMQ_POLLIN, 0 } };
        int64_t wait = next_sweep - dlq_time_mono_ms ();
        int rc = zmq_poll (items, 2, wait > 0 ? wait : 0);
        if (rc < 0)
            continue;                   /* EINTR */
        if (rc == 0) {
            bool more = sweep (self, store);
            next_sweep = dlq_time_mono_ms () + (more ? 0 : self->sweep_interval_ms);
            continue;
        }
        if (items [0].revents & ZMQ_POLLIN) {
            dlq_commit_batch_t *batch = NULL;
            if (zmq_recv (pipe, &batch, sizeof batch, 0) != sizeof batch || !batch)
                break;
            commit (self, store, tip, batch);
            zmq_send (pipe, &batch, sizeof batch, 0);
        }
        else
            commit (self, store, tip, NULL);
    }
    if (store)
        commit (self, store, tip, NULL);        /* what the stopped dispatchers left */
    zmq_close (tip);
    dlq_embedded_destroy (&store);
}

dlq_committer_t *
dlq_committer_new (void *zmq_ctx, const char *data_dir, int64_t sweep_interval_ms,
                   int64_t sweep_batch, dlq_ledger_channel_t *ledger, const char *tip_endpoint,
                   char *err, size_t err_len)
{
    dlq_committer_t *self = dlq_calloc (1, sizeof *self);
    self->zmq_ctx = zmq_ctx;
    self->ledger = ledger;
    self->tip_endpoint = dlq_strdup (tip_endpoint);
    self->data_dir = dlq_strdup (data_dir);
    self->sweep_interval_ms = sweep_interval_ms;
    self->sweep_batch = sweep_batch;
    snprintf (self->error, sizeof self->error, "cannot start the committer thread");
    self->actor = dlq_actor_new (zmq_ctx, run, self);
    if (!self->actor) {
        snprintf (err, err_len, "%s", self->error);
        free (self->data_dir);
        free (self->tip_endpoint);
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
    free (self->tip_endpoint);
    free (self);
    *self_p = NULL;
}
