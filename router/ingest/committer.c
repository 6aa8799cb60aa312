/*  committer — group commit to the spool on its own thread (an actor).
 */
#include "committer.h"

#include "actor.h"
#include "dlq_alloc.h"
#include "dlq_buf.h"
#include "dlq_log.h"
#include "dlq_time.h"
#include "checkpoint_record.h"
#include "checkpoint_table.h"
#include "dlq_json.h"
#include "event_ordinal.h"
#include "event_record.h"
#include "mark_record.h"
#include "log_store.h"
#include "spool_kinds.h"

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
    const dlqd_config_t *config;    /* its store: log_store.h */
    dlq_spool_t     *spool;
    dlq_id_index_t  *ids;
    dlq_buf_t        record;        /* one event's record, reused */
    uint64_t        *hashes;        /* of the batch's new events, to take back on a failed sync */
    uint64_t        *positions;
    size_t           fresh_cap;
    _Atomic uint64_t events;        /* event records in the spool past the store's position at start, plus
                                       those appended since */
    _Atomic uint64_t ordinal;       /* of the newest event synced (event_record.h) */
    dlq_checkpoint_table_t *checkpoints;    /* every checkpoint as the synced writes left it */
    dlq_sink_checkpoint_t  *after;          /* each checkpoint write of the batch: the record it leaves */
    char                  **after_blocks;   /*   (its strings; NULL: it removes the record) */
    size_t                  after_cap;
    size_t                  max_checkpoint_bytes;
    bool                    preallocate;    /* gateway.spool_preallocate */
    dlq_mark_channel_t     *marks;          /* replay-state changes to append */
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

/* The record of stream as the batch's writes before write i left it, or
 * NULL when it has none (in place: valid until the table changes, after
 * the sync). */
static const dlq_sink_checkpoint_t *
record_before (dlq_committer_t *self, const dlq_commit_batch_t *batch, size_t i)
{
    const char *stream = batch->ckpts [i].record.stream_name;
    while (i-- > 0)
        if (!batch->ckpts [i].refused && strcmp (batch->ckpts [i].record.stream_name, stream) == 0)
            return self->after_blocks [i] ? &self->after [i] : NULL;
    return dlq_checkpoint_table_peek (self->checkpoints, stream);
}

/* Append each checkpoint write as the record it leaves (or its removal),
 * after the events staged before them (fresh of this batch), its reply
 * made: the record after it, or {"streamName":...,"deleted":..}.
 * False when the spool refused one (nothing staged is kept then). */
static bool
append_checkpoints (dlq_committer_t *self, dlq_commit_batch_t *batch, uint64_t fresh)
{
    if (batch->ckpt_count > self->after_cap) {
        self->after_cap = batch->ckpt_count;
        self->after = dlq_realloc (self->after, self->after_cap * sizeof *self->after);
        self->after_blocks = dlq_realloc (self->after_blocks, self->after_cap * sizeof *self->after_blocks);
    }
    for (size_t i = 0; i < batch->ckpt_count; i++)
        self->after_blocks [i] = NULL;
    size_t bytes = dlq_checkpoint_table_bytes (self->checkpoints);     /* as the writes so far leave it */
    for (size_t i = 0; i < batch->ckpt_count; i++) {
        dlq_ckpt_write_t *w = &batch->ckpts [i];
        const dlq_sink_checkpoint_t *current = record_before (self, batch, i);
        bool had = current != NULL;
        dlq_sink_checkpoint_t after = w->remove ? w->record
            : dlq_checkpoint_table_merge (current, &w->record, w->kind, w->now_ms);
        size_t was = had ? dlq_checkpoint_table_cost (current) : 0;
        size_t will = w->remove ? 0 : dlq_checkpoint_table_cost (&after);
        if (will > was && bytes - was + will > self->max_checkpoint_bytes) {
            w->refused = true;
            dlq_buf_reset (&w->reply);
            dlq_buf_printf (&w->reply, "the checkpoints take %zu bytes of memory and this write would take them "
                            "past gateway.max_checkpoint_bytes (%zu): delete checkpoints no longer used",
                            bytes, self->max_checkpoint_bytes);
            continue;
        }
        bytes = bytes - was + will;
        dlq_buf_reset (&self->record);
        dlq_checkpoint_record_encode (&after, w->remove, atomic_load (&self->ordinal) + fresh, &self->record);
        dlq_buf_reset (&w->reply);
        if (w->remove) {
            dlq_buf_puts (&w->reply, "{\"streamName\":");
            dlq_json_write_string (&w->reply, w->record.stream_name, strlen (w->record.stream_name));
            dlq_buf_printf (&w->reply, ",\"deleted\":%s}", had ? "true" : "false");
            self->after [i] = w->record;
        }
        else {
            self->after [i] = dlq_checkpoint_copy (&after, &self->after_blocks [i]);
            dlq_checkpoint_format (&self->after [i], &w->reply);
        }
        uint64_t position;
        dlq_spool_part_t part = { self->record.data, self->record.len };
        if (dlq_spool_append (self->spool, DLQ_SPOOL_KIND_CHECKPOINT, &part, 1, &position) != DLQ_SPOOL_OK)
            return false;
    }
    return true;
}

/* After the sync: the table as the batch's checkpoint writes leave it. */
static void
apply_checkpoints (dlq_committer_t *self, const dlq_commit_batch_t *batch)
{
    for (size_t i = 0; i < batch->ckpt_count; i++)
        if (batch->ckpts [i].refused)
            continue;
        else
        if (self->after_blocks [i])
            dlq_checkpoint_table_put (self->checkpoints, &self->after [i]);
        else
            dlq_checkpoint_table_remove (self->checkpoints, batch->ckpts [i].record.stream_name);
}

static void
free_after (dlq_committer_t *self, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        free (self->after_blocks [i]);
        self->after_blocks [i] = NULL;
    }
}

/* The batch's events (unless a sink is over its backlog limit: then they
 * fail, and the checkpoint writes go on) and checkpoint writes, appended
 * and made durable by one sync; on failure none of them is kept. */
static void
commit (dlq_committer_t *self, void *tip, dlq_commit_batch_t *batch)
{
    char sink [80];
    uint64_t held = 0, limit = 0;
    bool take_events = batch->count > 0;
    if (take_events && dlq_spool_over_limit (self->spool, sink, sizeof sink, &held, &limit)) {
        /* a sink that keeps more backlog than it may: no event is taken until it catches up */
        batch->failed = true;
        snprintf (batch->error, sizeof batch->error, "%s holds %" PRIu64 " bytes of backlog, over its "
                  "max_backlog_bytes (%" PRIu64 ")", sink, held, limit);
        dlq_log (DLQ_LOG_ERROR, "refused %zu events: %s", batch->count, batch->error);
        take_events = false;
    }
    if (!take_events && batch->ckpt_count == 0)
        return;
    char err [256] = "";
    ssize_t fresh = take_events ? append_events (self, batch) : 0;
    bool ok = fresh >= 0;
    if (!ok)
        snprintf (err, sizeof err, "an event's record is over the spool's limit of %u bytes",
                  (unsigned) DLQ_SPOOL_RECORD_LIMIT);
    if (ok && batch->ckpt_count && !append_checkpoints (self, batch, (uint64_t) fresh)) {
        snprintf (err, sizeof err, "a checkpoint's record is over the spool's limit of %u bytes",
                  (unsigned) DLQ_SPOOL_RECORD_LIMIT);
        dlq_spool_discard (self->spool);
        ok = false;
    }
    if (ok)
        ok = dlq_spool_sync (self->spool, err, sizeof err) == DLQ_SPOOL_OK;
    if (!ok) {
        if (fresh > 0)
            forget_fresh (self, (size_t) fresh);
        if (take_events) {
            batch->failed = true;
            snprintf (batch->error, sizeof batch->error, "%s", err);
        }
        if (batch->ckpt_count) {
            batch->ckpt_failed = true;
            snprintf (batch->ckpt_error, sizeof batch->ckpt_error, "%s", err);
        }
        free_after (self, batch->ckpt_count);
        dlq_log (DLQ_LOG_ERROR, "commit of %zu events and %zu checkpoint writes failed: %s",
                 take_events ? batch->count : 0, batch->ckpt_count, err);
        return;
    }
    apply_checkpoints (self, batch);
    free_after (self, batch->ckpt_count);
    atomic_fetch_add (&self->events, (uint64_t) fresh);
    atomic_fetch_add (&self->ordinal, (uint64_t) fresh);
    int64_t last = (int64_t) dlq_spool_last (self->spool);
    zmq_send (tip, &last, sizeof last, ZMQ_DONTWAIT);
}

/* Append a record of every queued mark and sync them (mark_channel.h);
 * on failure none of them is kept, and their askers are told why. */
static void
commit_marks (dlq_committer_t *self, void *tip)
{
    size_t count = 0;
    dlq_mark_t **marks = dlq_mark_channel_take (self->marks, &count);
    if (count == 0) {
        dlq_mark_channel_synced (self->marks, true, NULL);
        return;
    }
    char err [256] = "";
    bool ok = true;
    for (size_t i = 0; i < count && ok; i++) {
        dlq_mark_record_t record = { marks [i]->mark, atomic_load (&self->ordinal), marks [i]->now_ms,
                                     marks [i]->retry_after_ms, marks [i]->id, strlen (marks [i]->id) };
        dlq_buf_reset (&self->record);
        dlq_mark_record_encode (&record, &self->record);
        dlq_spool_part_t part = { self->record.data, self->record.len };
        ok = dlq_spool_append (self->spool, DLQ_SPOOL_KIND_MARK, &part, 1, &marks [i]->position) == DLQ_SPOOL_OK;
        if (!ok)
            snprintf (err, sizeof err, "a mark's record is over the spool's limit of %u bytes",
                      (unsigned) DLQ_SPOOL_RECORD_LIMIT);
    }
    if (ok) {
        dlq_mark_channel_appended (self->marks);
        ok = dlq_spool_sync (self->spool, err, sizeof err) == DLQ_SPOOL_OK;
    }
    else
        dlq_spool_discard (self->spool);
    dlq_mark_channel_synced (self->marks, ok, err);
    if (!ok) {
        dlq_log (DLQ_LOG_ERROR, "commit of %zu marks failed: %s", count, err);
        return;
    }
    int64_t last = (int64_t) dlq_spool_last (self->spool);
    zmq_send (tip, &last, sizeof last, ZMQ_DONTWAIT);
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

static void
load_checkpoint (const dlq_sink_checkpoint_t *record, void *arg)
{
    dlq_committer_t *self = arg;
    dlq_checkpoint_table_put (self->checkpoints, record);
}

/* A checkpoint write the store has not indexed yet: over what it holds. */
static void
load_checkpoint_record (dlq_committer_t *self, const dlq_spool_entry_t *e)
{
    dlq_sink_checkpoint_t record;
    bool removed;
    char *block = NULL;
    if (!dlq_checkpoint_record_decode (e->payload, e->length, &record, &removed, &block)) {
        dlq_log (DLQ_LOG_ERROR, "spool: the record at position %" PRIu64 " is no checkpoint record; passed over",
                 e->position);
        return;
    }
    if (removed)
        dlq_checkpoint_table_remove (self->checkpoints, record.stream_name);
    else
        dlq_checkpoint_table_put (self->checkpoints, &record);
    free (block);
}

/* The id index and the checkpoints from the store, then from the spool
 * records past what it indexed. */
static bool
load_ids (dlq_committer_t *self, dlq_log_store_t *store)
{
    load_arg_t arg = { self->ids };
    const dlq_sink_log_ops_t *log = dlq_log_store_ops (store);
    void *instance = dlq_log_store_instance (store);
    if (log->each_checkpoint (instance, load_checkpoint, self) < 0) {
        snprintf (self->error, sizeof self->error, "%s", dlq_log_store_last_error (store));
        return false;
    }
    int64_t stored = dlq_log_store_count (store);
    if (stored > 0)
        dlq_id_index_reserve (self->ids, (size_t) stored + (size_t) stored / 8);
    if (log->each_id (instance, load_stored, &arg) < 0) {
        snprintf (self->error, sizeof self->error, "%s", dlq_log_store_last_error (store));
        return false;
    }
    uint64_t position = 0;
    bool failed = false;
    if (!dlq_log_store_position (store, &position, &failed)) {
        if (failed) {
            snprintf (self->error, sizeof self->error, "%s", dlq_log_store_last_error (store));
            return false;
        }
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
        if (e.kind == DLQ_SPOOL_KIND_CHECKPOINT)
            load_checkpoint_record (self, &e);
    }
    dlq_spool_reader_destroy (&reader);
    return rc == DLQ_SPOOL_END;
}

/* Open the spool next to the store; a new one starts past the store's seqs. */
static bool
open_spool (dlq_committer_t *self, dlq_log_store_t *store)
{
    int64_t last_seq = dlq_log_store_last_seq (store);
    if (last_seq < 0) {
        snprintf (self->error, sizeof self->error, "%s", dlq_log_store_last_error (store));
        return false;
    }
    char dir [PATH_MAX];
    snprintf (dir, sizeof dir, "%s/%s", self->data_dir, SPOOL_DIR);
    dlq_spool_recovery_t recovery;
    dlq_spool_options_t options = DLQ_SPOOL_OPTIONS_DEFAULT;
    options.preallocate = self->preallocate;
    self->spool = dlq_spool_open (dir, &options, (uint64_t) last_seq + 1, &recovery, NULL, self->error,
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
    dlq_actor_name ("dlqd-committer");
    /* the store's writer creates or upgrades its file, then is done with */
    dlq_log_store_t *store = dlq_log_store_open (self->config, DLQ_SINK_MODE_INDEX, self->error, sizeof self->error);
    void *tip = zmq_socket (self->zmq_ctx, ZMQ_PUB);
    bool ok = store && open_spool (self, store) && load_ids (self, store);
    dlq_log_store_close (&store);
    if (ok && zmq_bind (tip, self->spool_tip_endpoint) != 0) {
        snprintf (self->error, sizeof self->error, "cannot bind %s: %s", self->spool_tip_endpoint,
                  zmq_strerror (zmq_errno ()));
        ok = false;
    }
    dlq_actor_ready (pipe, ok);
    while (ok) {
        zmq_pollitem_t items [2] = { { pipe, 0, ZMQ_POLLIN, 0 },
                                     { NULL, dlq_mark_channel_fd (self->marks), ZMQ_POLLIN, 0 } };
        if (zmq_poll (items, 2, -1) <= 0)
            continue;                   /* EINTR */
        if (items [1].revents & ZMQ_POLLIN)
            commit_marks (self, tip);
        if (!(items [0].revents & ZMQ_POLLIN))
            continue;
        dlq_commit_batch_t *batch = NULL;
        if (zmq_recv (pipe, &batch, sizeof batch, 0) != sizeof batch || !batch)
            break;
        commit (self, tip, batch);
        zmq_send (pipe, &batch, sizeof batch, 0);
    }
    zmq_close (tip);
}

dlq_committer_t *
dlq_committer_new (void *zmq_ctx, const dlqd_config_t *config, const char *spool_tip_endpoint,
                   size_t max_checkpoint_bytes, bool preallocate, char *err, size_t err_len)
{
    dlq_committer_t *self = dlq_calloc (1, sizeof *self);
    self->preallocate = preallocate;
    self->max_checkpoint_bytes = max_checkpoint_bytes;
    self->zmq_ctx = zmq_ctx;
    self->spool_tip_endpoint = dlq_strdup (spool_tip_endpoint);
    self->data_dir = dlq_strdup (config->data_dir);
    self->config = config;
    self->ids = dlq_id_index_new ();
    self->checkpoints = dlq_checkpoint_table_new ();
    self->marks = dlq_mark_channel_new ();
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
dlq_checkpoint_table_t *dlq_committer_checkpoints (dlq_committer_t *self) { return self->checkpoints; }
dlq_mark_channel_t *dlq_committer_marks (dlq_committer_t *self) { return self->marks; }
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
    if (self->marks)
        dlq_mark_channel_close (self->marks);
    dlq_actor_destroy (&self->actor);
    dlq_mark_channel_destroy (&self->marks);
    dlq_spool_destroy (&self->spool);
    dlq_id_index_destroy (&self->ids);
    dlq_checkpoint_table_destroy (&self->checkpoints);
    free (self->after);
    free (self->after_blocks);
    dlq_buf_free (&self->record);
    free (self->hashes);
    free (self->positions);
    free (self->data_dir);
    free (self->spool_tip_endpoint);
    free (self);
    *self_p = NULL;
}
