/*  embedded_sink_log — the embedded plugin's log calls (dlq_sink.h): the
 *  gateway's indexer feeds the store from the log through an INDEX
 *  instance (embedded_index.h does the writing), the committer loads its
 *  duplicate check and checkpoints from it at start, and the dispatchers
 *  read the events the log no longer holds from it (embedded_archive.h).
 *
 *  index decodes the log's records with the gateway's own record formats
 *  (core/event_record.h, checkpoint_record.h, mark_record.h: this plugin
 *  is built with them, hence log_format), into arrays the instance keeps
 *  from call to call. The writer commits relaxed (synchronous NORMAL) but
 *  for a durable call, and makes its WAL checkpoints on a thread of its
 *  own (embedded_wal.h); both start with the first index call, so an
 *  INDEX instance that only loads (the committer's) starts no thread.
 */
#include "embedded_sink.h"

#include "checkpoint_record.h"
#include "dlq_alloc.h"
#include "embedded_archive.h"
#include "embedded_checkpoints.h"
#include "event_record.h"
#include "mark_record.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- index ------------------------------------------------------------------ */

/* Room for count records' worth of events, checkpoints and marks. */
static void
reserve_page (embedded_sink_t *self, size_t count)
{
    if (count <= self->page_capacity)
        return;
    self->events = dlq_realloc (self->events, count * sizeof *self->events);
    self->seqs = dlq_realloc (self->seqs, count * sizeof *self->seqs);
    self->ckpts = dlq_realloc (self->ckpts, count * sizeof *self->ckpts);
    self->ckpt_blocks = dlq_realloc (self->ckpt_blocks, count * sizeof *self->ckpt_blocks);
    self->marks = dlq_realloc (self->marks, count * sizeof *self->marks);
    self->mark_records = dlq_realloc (self->mark_records, count * sizeof *self->mark_records);
    self->page_capacity = count;
}

/* What one index call decoded. */
typedef struct {
    size_t events, ckpts, marks;
} page_counts_t;

static void
passed_over (const embedded_sink_t *self, const dlq_sink_record_t *r, const char *what)
{
    self->host->log (self->config, DLQ_SINK_LOG_ERROR, "index: the log record at position %" PRIu64
                     " is no %s record; passed over", r->position, what);
}

/* Decode records into the instance's arrays. */
static page_counts_t
decode_page (embedded_sink_t *self, const dlq_sink_record_t *records, size_t count)
{
    page_counts_t n = { 0, 0, 0 };
    for (size_t i = 0; i < count; i++) {
        const dlq_sink_record_t *r = &records [i];
        if (r->kind == DLQ_SINK_RECORD_EVENT) {
            dlq_event_t *event = dlq_event_record_decode (r->payload, r->length);
            if (!event) {
                passed_over (self, r, "event");
                continue;
            }
            self->events [n.events] = event;
            self->seqs [n.events++] = (int64_t) r->position;
        }
        else
        if (r->kind == DLQ_SINK_RECORD_CHECKPOINT) {
            dlq_ckpt_write_t *w = &self->ckpts [n.ckpts];
            memset (w, 0, sizeof *w);
            if (!dlq_checkpoint_record_decode (r->payload, r->length, &w->record, &w->remove,
                                               &self->ckpt_blocks [n.ckpts])) {
                passed_over (self, r, "checkpoint");
                continue;
            }
            w->kind = DLQ_SINK_CKPT_SAVE;
            w->now_ms = w->record.updated_at;
            n.ckpts++;
        }
        else
        if (r->kind == DLQ_SINK_RECORD_MARK) {
            dlq_mark_record_t m;
            if (!dlq_mark_record_decode (r->payload, r->length, &m)) {
                passed_over (self, r, "mark");
                continue;
            }
            self->marks [n.marks] = (dlq_embedded_mark_write_t) {
                dlq_strndup (m.id, m.id_len), m.mark, m.now_ms, m.retry_after_ms, DLQ_STORE_ERROR,
                { { 0 }, 0, 0, 0 } };
            self->mark_records [n.marks++] = i;
        }
    }
    return n;
}

static void
clear_page (embedded_sink_t *self, page_counts_t n)
{
    for (size_t i = 0; i < n.events; i++)
        dlq_event_destroy (&self->events [i]);
    for (size_t i = 0; i < n.ckpts; i++) {
        free (self->ckpt_blocks [i]);
        dlq_buf_free (&self->ckpts [i].reply);
    }
    for (size_t i = 0; i < n.marks; i++)
        free ((char *) self->marks [i].id);
}

/* The writer's commits relaxed or not; false (logged) when it cannot be set. */
static bool
relax (embedded_sink_t *self, bool relaxed)
{
    if (self->relaxed == relaxed)
        return true;
    char err [512] = "";
    if (dlq_embedded_relax_sync (self->store, relaxed, err, sizeof err) != DLQ_STORE_OK) {
        self->host->log (self->config, DLQ_SINK_LOG_ERROR, "index: %s", err);
        return false;
    }
    self->relaxed = relaxed;
    return true;
}

/* On the first index call: the WAL's checkpoints on their own thread. */
static void
start_behind (embedded_sink_t *self)
{
    if (self->behind)
        return;
    self->behind = true;
    char why [512] = "";
    if (!dlq_embedded_checkpoint_behind (self->store, why, sizeof why))
        self->host->log (self->config, DLQ_SINK_LOG_WARN, "index: %s; its commits make the checkpoints", why);
}

static dlq_sink_status_t
embedded_index (void *instance, dlq_sink_record_t *records, size_t count, uint64_t end, bool durable,
                int64_t *last_seq_out)
{
    embedded_sink_t *self = instance;
    if (self->mode != DLQ_SINK_MODE_INDEX) {
        self->host->log (self->config, DLQ_SINK_LOG_ERROR, "index: not an INDEX instance");
        return DLQ_SINK_STATUS_ERROR;
    }
    start_behind (self);
    if (!relax (self, !durable))
        return DLQ_SINK_STATUS_ERROR;
    reserve_page (self, count ? count : 1);
    page_counts_t n = decode_page (self, records, count);
    char err [512] = "";
    int64_t last_seq = -1;
    dlq_store_result_t rc = dlq_embedded_index (self->store, self->events, self->seqs, n.events, self->ckpts, n.ckpts,
                                                self->marks, n.marks, end, &last_seq, err, sizeof err);
    for (size_t k = 0; rc == DLQ_STORE_OK && k < n.marks; k++) {
        dlq_sink_record_t *r = &records [self->mark_records [k]];
        r->status = self->marks [k].rc == DLQ_STORE_OK ? DLQ_SINK_STATUS_OK : DLQ_SINK_STATUS_NOT_FOUND;
        r->state = self->marks [k].state;
    }
    clear_page (self, n);
    if (durable)
        relax (self, true);
    if (rc != DLQ_STORE_OK) {
        self->host->log (self->config, DLQ_SINK_LOG_ERROR, "index: %s", err);
        return DLQ_SINK_STATUS_ERROR;
    }
    if (last_seq_out)
        *last_seq_out = last_seq;
    return DLQ_SINK_STATUS_OK;
}

static dlq_sink_status_t
embedded_position (void *instance, uint64_t *position_out, bool *indexed_out)
{
    embedded_sink_t *self = instance;
    char err [512] = "";
    bool failed = false;
    *indexed_out = dlq_embedded_spool_position (self->store, position_out, &failed, err, sizeof err);
    if (failed)
        self->host->log (self->config, DLQ_SINK_LOG_ERROR, "position: %s", err);
    return failed ? DLQ_SINK_STATUS_ERROR : DLQ_SINK_STATUS_OK;
}

static int64_t
embedded_sweep_each (void *instance, int64_t now_ms, int64_t max_rows, dlq_sink_swept_fn *fn, void *arg)
{
    embedded_sink_t *self = instance;
    if (max_rows <= 0)
        return 0;
    dlq_embedded_t *store = embedded_sink_writer (self);
    if (!store)
        return -1;
    int64_t deleted = dlq_embedded_sweep_each (store, now_ms, max_rows > INT_MAX ? INT_MAX : (int) max_rows, fn, arg);
    if (deleted < 0)
        embedded_sink_status (self, store, DLQ_STORE_ERROR, "sweep");
    return deleted;
}

/* ---- loading ---------------------------------------------------------------- */

static int64_t
embedded_each_id (void *instance, dlq_sink_id_fn *fn, void *arg)
{
    embedded_sink_t *self = instance;
    int64_t n = dlq_embedded_each_id (self->store, fn, arg);
    if (n < 0)
        embedded_sink_status (self, self->store, DLQ_STORE_ERROR, "each id");
    return n;
}

static int64_t
embedded_count (void *instance)
{
    embedded_sink_t *self = instance;
    dlq_buf_t streams = DLQ_BUF_INIT;
    int64_t stored = 0, bytes = 0;
    dlq_store_result_t rc = dlq_embedded_stats (self->store, &streams, &stored, &bytes);
    dlq_buf_free (&streams);
    return embedded_sink_status (self, self->store, rc, "count") == DLQ_SINK_STATUS_OK ? stored : -1;
}

static int64_t
embedded_each_checkpoint (void *instance, dlq_sink_checkpoint_fn *fn, void *arg)
{
    embedded_sink_t *self = instance;
    int64_t n = dlq_embedded_ckpt_each (self->store, fn, arg);
    if (n < 0)
        embedded_sink_status (self, self->store, DLQ_STORE_ERROR, "each checkpoint");
    return n;
}

static int64_t
embedded_last_seq (void *instance)
{
    embedded_sink_t *self = instance;
    int64_t seq = dlq_embedded_last_seq (self->store);
    if (seq < 0)
        embedded_sink_status (self, self->store, DLQ_STORE_ERROR, "last seq");
    return seq;
}

static dlq_sink_status_t
embedded_seq_of (void *instance, const char *id, int64_t *seq_out)
{
    embedded_sink_t *self = instance;
    return embedded_sink_status (self, self->store, dlq_embedded_seq_of (self->store, id, seq_out), "seq of");
}

/* ---- the archive ------------------------------------------------------------ */

typedef struct {
    dlq_sink_archive_fn *fn;
    void                *arg;
} archive_arg_t;

/* A partial event of the store (embedded_archive.h) as the ABI's. */
static void
hand_out (int64_t seq, dlq_event_t *event, void *arg)
{
    archive_arg_t *a = arg;
    dlq_sink_event_t e = {
        .id = event->id, .stream_name = event->stream_name, .operation_type = event->operation_type,
        .status = event->status, .document_key = event->document_key, .attempts = event->attempts,
        .first_attempt_at = event->first_attempt_at, .created_at = event->created_at,
        .expires_at = event->expires_at,
        .json = event->json, .json_len = event->json_len, .delivery_attempt = 0 };
    a->fn (seq, &e, a->arg);
    dlq_event_destroy (&event);
}

static int64_t
embedded_read_after (void *instance, int64_t after, size_t limit, dlq_sink_archive_fn *fn, void *arg)
{
    embedded_sink_t *self = instance;
    archive_arg_t a = { fn, arg };
    ssize_t n = dlq_embedded_read_after (self->store, after, limit, hand_out, &a);
    if (n < 0)
        embedded_sink_status (self, self->store, DLQ_STORE_ERROR, "read after");
    return (int64_t) n;
}

static int64_t
embedded_count_between (void *instance, int64_t after, int64_t below)
{
    embedded_sink_t *self = instance;
    int64_t n = dlq_embedded_count_between (self->store, after, below);
    if (n < 0)
        embedded_sink_status (self, self->store, DLQ_STORE_ERROR, "count between");
    return n;
}

void
embedded_sink_log_free (embedded_sink_t *self)
{
    free (self->events);
    free (self->seqs);
    free (self->ckpts);
    free (self->ckpt_blocks);
    free (self->marks);
    free (self->mark_records);
}

const dlq_sink_log_ops_t embedded_sink_log_ops = {
    .struct_size     = sizeof (dlq_sink_log_ops_t),
    .log_format      = DLQ_SINK_LOG_FORMAT,
    .position        = embedded_position,
    .index           = embedded_index,
    .sweep_each      = embedded_sweep_each,
    .each_id         = embedded_each_id,
    .count           = embedded_count,
    .each_checkpoint = embedded_each_checkpoint,
    .last_seq        = embedded_last_seq,
    .seq_of          = embedded_seq_of,
    .read_after      = embedded_read_after,
    .count_between   = embedded_count_between,
};
