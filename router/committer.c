/*  committer — group commit to the spool on its own thread (an actor).
 */
#include "committer.h"

#include "actor.h"
#include "dlq_alloc.h"
#include "dlq_buf.h"
#include "dlq_log.h"
#include "dlq_time.h"
#include "embedded_index.h"
#include "embedded_store.h"
#include "event_ordinal.h"
#include "event_record.h"
#include "spool_kinds.h"
#include "spool_ledger.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#define SPOOL_DIR "spool"

struct dlq_committer {
    dlq_actor_t     *actor;
    void            *zmq_ctx;
    char            *spool_tip_endpoint;
    char            *data_dir;
    dlq_spool_t     *spool;
    dlq_id_index_t  *ids;
    dlq_buf_t        record;        /* one event's record, reused */
    uint64_t        *hashes;        /* of the batch's new events, to take back on a failed sync */
    uint64_t        *positions;
    size_t           fresh_cap;
    _Atomic uint64_t events;        /* event records in the spool past the store's position at start, plus
                                       those appended since */
    _Atomic uint64_t ordinal;       /* of the newest event synced (event_record.h) */
    char             error [512];   /* why the store or spool could not be opened */
};

/* Take back the id index entries of the first count new events. */
static void
forget_fresh (dlq_committer_t *self, size_t count)
{
    for (size_t i = 0; i < count; i++)
        dlq_id_index_remove (self->ids, self->hashes [i], self->positions [i]);
}

/* Append the batch's new events; mark the rest duplicates. How many were
 * appended (their hashes and positions kept), or -1 when the spool refused
 * one (then nothing is staged and the index is as it was). */
static ssize_t
append_events (dlq_committer_t *self, dlq_commit_batch_t *batch)
{
    if (batch->count > self->fresh_cap) {
        self->fresh_cap = batch->count;
        self->hashes = dlq_realloc (self->hashes, self->fresh_cap * sizeof *self->hashes);
        self->positions = dlq_realloc (self->positions, self->fresh_cap * sizeof *self->positions);
    }
    size_t fresh = 0;
    for (size_t i = 0; i < batch->count; i++) {
        dlq_event_t *event = batch->events [i];
        uint64_t hash = dlq_id_index_hash (event->id, strlen (event->id)), position = 0;
        batch->duplicate [i] = dlq_id_index_get (self->ids, hash, &position);
        if (batch->duplicate [i])
            continue;
        dlq_buf_reset (&self->record);
        dlq_event_record_encode (event, atomic_load (&self->ordinal) + fresh + 1, &self->record);
        dlq_spool_part_t part = { self->record.data, self->record.len };
        if (dlq_spool_append (self->spool, DLQ_SPOOL_KIND_EVENT, &part, 1, &position) != DLQ_SPOOL_OK) {
            /* a record over the spool's limit (far above max_message_bytes):
             * the batch fails whole rather than ack an event not stored */
            dlq_spool_discard (self->spool);
            forget_fresh (self, fresh);
            return -1;
        }
        dlq_id_index_put (self->ids, hash, position);
        self->hashes [fresh] = hash;
        self->positions [fresh++] = position;
    }
    return (ssize_t) fresh;
}

static void
commit_events (dlq_committer_t *self, void *tip, dlq_commit_batch_t *batch)
{
    if (batch->count == 0)
        return;
    char sink [80];
    uint64_t held = 0, limit = 0;
    if (dlq_spool_over_limit (self->spool, sink, sizeof sink, &held, &limit)) {
        /* a sink that keeps more backlog than it may: nothing is taken until it catches up */
        batch->failed = true;
        snprintf (batch->error, sizeof batch->error, "%s holds %" PRIu64 " bytes of backlog, over its "
                  "max_backlog_bytes (%" PRIu64 ")", sink, held, limit);
        dlq_log (DLQ_LOG_ERROR, "refused %zu events: %s", batch->count, batch->error);
        return;
    }
    char err [256] = "";
    ssize_t fresh = append_events (self, batch);
    if (fresh < 0)
        snprintf (err, sizeof err, "an event's record is over the spool's limit of %u bytes",
                  (unsigned) DLQ_SPOOL_RECORD_LIMIT);
    if (fresh < 0 || dlq_spool_sync (self->spool, err, sizeof err) != DLQ_SPOOL_OK) {
        if (fresh > 0)
            forget_fresh (self, (size_t) fresh);
        batch->failed = true;
        snprintf (batch->error, sizeof batch->error, "%s", err);
        dlq_log (DLQ_LOG_ERROR, "commit of %zu events failed: %s", batch->count, err);
        return;
    }
    atomic_fetch_add (&self->events, (uint64_t) fresh);
    atomic_fetch_add (&self->ordinal, (uint64_t) fresh);
    int64_t last = (int64_t) dlq_spool_last (self->spool);
    zmq_send (tip, &last, sizeof last, ZMQ_DONTWAIT);
}

static void
commit_checkpoints (dlq_committer_t *self, dlq_embedded_t *store, dlq_commit_batch_t *batch)
{
    if (batch->ckpt_count == 0)
        return;
    char err [256] = "";
    dlq_store_result_t rc = dlq_embedded_commit_all (store, NULL, 0, NULL, NULL, 0, batch->ckpts, batch->ckpt_count,
                                                     NULL, err, sizeof err);
    if (rc != DLQ_STORE_OK) {
        batch->ckpt_failed = true;
        snprintf (batch->ckpt_error, sizeof batch->ckpt_error, "%s", err);
        dlq_log (DLQ_LOG_ERROR, "commit of %zu checkpoint writes failed: %s", batch->ckpt_count, err);
    }
}

typedef struct {
    dlq_id_index_t *ids;
} load_arg_t;

static void
load_stored (const char *id, size_t len, int64_t seq, int64_t expires_at, void *arg)
{
    load_arg_t *a = arg;
    dlq_id_index_put (a->ids, dlq_id_index_hash (id, len), (uint64_t) seq);
}

/* The id index from the store, then from the spool records past what it
 * indexed. */
static bool
load_ids (dlq_committer_t *self, dlq_embedded_t *store)
{
    load_arg_t arg = { self->ids };
    dlq_buf_t streams = DLQ_BUF_INIT;
    int64_t stored = 0, bytes = 0;
    if (dlq_embedded_stats (store, &streams, &stored, &bytes) == DLQ_STORE_OK && stored > 0)
        dlq_id_index_reserve (self->ids, (size_t) stored + (size_t) stored / 8);
    dlq_buf_free (&streams);
    if (dlq_embedded_each_id (store, load_stored, &arg) < 0) {
        snprintf (self->error, sizeof self->error, "%s", dlq_embedded_last_error (store));
        return false;
    }
    uint64_t position = 0;
    bool failed = false;
    if (!dlq_embedded_spool_position (store, &position, &failed, self->error, sizeof self->error)) {
        if (failed)
            return false;
        position = dlq_spool_begin (self->spool);
    }
    dlq_spool_reader_t *reader = dlq_spool_reader_new (self->spool, position);
    dlq_spool_entry_t e;
    dlq_spool_result_t rc;
    while ((rc = dlq_spool_reader_next (reader, &e, self->error, sizeof self->error)) == DLQ_SPOOL_OK) {
        const char *id;
        size_t len;
        if (e.kind == DLQ_SPOOL_KIND_EVENT)
            atomic_fetch_add (&self->events, 1);
        if (e.kind == DLQ_SPOOL_KIND_EVENT && dlq_event_record_id (e.payload, e.length, &id, &len))
            dlq_id_index_put (self->ids, dlq_id_index_hash (id, len), e.position);
    }
    dlq_spool_reader_destroy (&reader);
    return rc == DLQ_SPOOL_END;
}

/* Open the spool next to the store; a new one starts past the store's seqs. */
static bool
open_spool (dlq_committer_t *self, dlq_embedded_t *store)
{
    int64_t last_seq = dlq_embedded_last_seq (store);
    if (last_seq < 0) {
        snprintf (self->error, sizeof self->error, "%s", dlq_embedded_last_error (store));
        return false;
    }
    char dir [PATH_MAX];
    snprintf (dir, sizeof dir, "%s/%s", self->data_dir, SPOOL_DIR);
    dlq_spool_recovery_t recovery;
    self->spool = dlq_spool_open (dir, NULL, (uint64_t) last_seq + 1, &recovery, NULL, self->error,
                                  sizeof self->error);
    if (!self->spool)
        return false;
    if (recovery.cut_bytes)
        dlq_log (DLQ_LOG_WARN, "spool: cut a torn tail of %" PRIu64 " bytes at position %" PRIu64
                 " (records of a write that never completed, so never acknowledged)",
                 recovery.cut_bytes, recovery.cut_position);
    uint64_t ordinal = 0;
    if (!dlq_event_ordinal_last (self->spool, &ordinal, self->error, sizeof self->error))
        return false;
    atomic_store (&self->ordinal, ordinal);
    return true;
}

/* The actor: wait for a batch, commit it, send it back. Batches travel as
 * pointers; an empty frame is the stop message. */
static void
run (void *pipe, void *arg)
{
    dlq_committer_t *self = arg;
    dlq_embedded_t *store = dlq_embedded_open (self->data_dir, DLQ_EMBEDDED_WRITER,
                                               self->error, sizeof self->error);
    void *tip = zmq_socket (self->zmq_ctx, ZMQ_PUB);
    bool ok = store && open_spool (self, store) && load_ids (self, store);
    if (ok && zmq_bind (tip, self->spool_tip_endpoint) != 0) {
        snprintf (self->error, sizeof self->error, "cannot bind %s: %s", self->spool_tip_endpoint,
                  zmq_strerror (zmq_errno ()));
        ok = false;
    }
    dlq_actor_ready (pipe, ok);
    while (ok) {
        zmq_pollitem_t items [1] = { { pipe, 0, ZMQ_POLLIN, 0 } };
        if (zmq_poll (items, 1, -1) <= 0)
            continue;                   /* EINTR */
        dlq_commit_batch_t *batch = NULL;
        if (zmq_recv (pipe, &batch, sizeof batch, 0) != sizeof batch || !batch)
            break;
        commit_events (self, tip, batch);
        commit_checkpoints (self, store, batch);
        zmq_send (pipe, &batch, sizeof batch, 0);
    }
    zmq_close (tip);
    dlq_embedded_destroy (&store);
}

dlq_committer_t *
dlq_committer_new (void *zmq_ctx, const char *data_dir, const char *spool_tip_endpoint, char *err, size_t err_len)
{
    dlq_committer_t *self = dlq_calloc (1, sizeof *self);
    self->zmq_ctx = zmq_ctx;
    self->spool_tip_endpoint = dlq_strdup (spool_tip_endpoint);
    self->data_dir = dlq_strdup (data_dir);
    self->ids = dlq_id_index_new ();
    snprintf (self->error, sizeof self->error, "cannot start the committer thread");
    self->actor = dlq_actor_new (zmq_ctx, run, self);
    if (!self->actor) {
        snprintf (err, err_len, "%s", self->error);
        dlq_committer_destroy (&self);
        return NULL;
    }
    return self;
}

dlq_spool_t *dlq_committer_spool (dlq_committer_t *self) { return self->spool; }
uint64_t dlq_committer_events (dlq_committer_t *self) { return atomic_load (&self->events); }
uint64_t dlq_committer_ordinal (dlq_committer_t *self) { return atomic_load (&self->ordinal); }
dlq_id_index_t *dlq_committer_ids (dlq_committer_t *self) { return self->ids; }
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
    dlq_spool_destroy (&self->spool);
    dlq_id_index_destroy (&self->ids);
    dlq_buf_free (&self->record);
    free (self->hashes);
    free (self->positions);
    free (self->data_dir);
    free (self->spool_tip_endpoint);
    free (self);
    *self_p = NULL;
}
