/*  indexer — reading the spool into the embedded store (through its
 *  plugin's log calls: log_store.h) on its own thread,
 *  and writing the dispatchers' delivery-ledger updates to the daemon's
 *  state file beside it (the one writer of both).
 */
#include "indexer.h"

#include "actor.h"
#include "dlq_alloc.h"
#include "dlq_log.h"
#include "dlq_time.h"
#include "dlq_buf.h"
#include "ledger_store.h"
#include "log_store.h"
#include "primary.h"
#include "spool_kinds.h"
#include "thread_priority.h"

#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#define MAX_BATCH_BYTES (4u << 20)     /* spool bytes read per transaction, at most */
#define RETRY_MS 1000
#define DURABLE_STEP (64u << 20)        /* spool bytes indexed between two durable commits, at most: a segment */
#define DURABLE_MS 1000                 /* a commit that catches up is durable when the last was this long ago */

struct dlq_indexer {
    dlq_actor_t          *actor;
    void                 *zmq_ctx;
    dlq_spool_t          *spool;
    dlq_id_index_t       *ids;
    dlq_ledger_channel_t *ledger;
    dlq_mark_channel_t   *marks;                /* whose askers hear when their marks are applied */
    char                 *data_dir, *spool_tip_endpoint, *tip_endpoint;
    const dlqd_config_t  *config;               /* its store: log_store.h */
    int64_t               sweep_interval_ms, sweep_batch;
    size_t                max_batch;
    int                   nice;
    _Atomic uint64_t      position;
    _Atomic uint64_t      events;
    _Atomic int64_t       oldest_unindexed_ms;  /* when the first record past position was seen, 0: none */
    _Atomic int64_t       primary_swept;        /* dlq_indexer_primary_swept (INT64_MAX: no such primary) */
    dlq_spool_consumer_t *consumer;             /* "index": what it has not indexed durably yet */
    uint64_t              durable;              /* the position of its last durable commit */
    int64_t               durable_ms;           /*   when (0: none since start) */
    _Atomic bool          corrupt;              /* the spool holds a bad record: indexing stopped */
    char                  fatal [512];          /* which, once corrupt */
    char                  error [512];
};

/* One transaction's worth of records read from the spool: the store
 * decodes them (dlq_sink.h, log calls). Their payloads are copied into
 * bytes, since a reader's entry lasts until its next read. */
typedef struct {
    dlq_sink_record_t *records;
    size_t            *offsets;     /* of each payload in bytes */
    size_t             count;
    size_t             events;
    dlq_buf_t          bytes;
    uint64_t           end;         /* the position after the last record read */
} page_t;

static void
page_clear (page_t *page)
{
    page->count = page->events = 0;
    dlq_buf_reset (&page->bytes);
}

/* Read records past the reader's position into page, up to max_batch
 * records or MAX_BATCH_BYTES. False when the spool cannot be read (logged). */
static bool
read_page (dlq_indexer_t *self, dlq_spool_reader_t *reader, page_t *page)
{
    page->end = dlq_spool_reader_position (reader);
    while (page->count < self->max_batch && page->bytes.len < MAX_BATCH_BYTES) {
        dlq_spool_entry_t e;
        char err [512];
        dlq_spool_result_t rc = dlq_spool_reader_next (reader, &e, err, sizeof err);
        if (rc == DLQ_SPOOL_END)
            break;
        if (rc == DLQ_SPOOL_CORRUPT && !atomic_load (&self->corrupt)) {
            snprintf (self->fatal, sizeof self->fatal, "%s", err);
            atomic_store (&self->corrupt, true);
        }
        if (rc != DLQ_SPOOL_OK) {
            dlq_log (DLQ_LOG_ERROR, "indexer: cannot read the spool: %s", err);
            return false;
        }
        page->end = e.next;
        if (e.kind != DLQ_SPOOL_KIND_EVENT && e.kind != DLQ_SPOOL_KIND_CHECKPOINT && e.kind != DLQ_SPOOL_KIND_MARK)
            continue;
        page->offsets [page->count] = page->bytes.len;
        dlq_buf_append (&page->bytes, e.payload, e.length);
        page->records [page->count++] = (dlq_sink_record_t) {
            .position = e.position, .kind = (dlq_sink_record_kind_t) e.kind, .length = e.length,
            .status = DLQ_SINK_STATUS_ERROR };
        page->events += e.kind == DLQ_SPOOL_KIND_EVENT;
    }
    for (size_t i = 0; i < page->count; i++)
        page->records [i].payload = (const uint8_t *) page->bytes.data + page->offsets [i];
    return true;
}

/* Commits are relaxed (synchronous NORMAL: on disk once the kernel writes
 * them back, or at the store's next checkpoint), so a power loss may take
 * the last ones, which the spool holds again. So the spool may delete only
 * what a durable commit covers: the first one after start, then one every
 * DURABLE_STEP bytes of the spool (a segment: what a release can delete),
 * and one that catches up with the tip DURABLE_MS after the last, waits
 * for the disk (synchronous FULL: it and every commit before it). Only
 * that moves the "index" consumer. */
static bool
wants_durable (dlq_indexer_t *self, const page_t *page, int64_t now)
{
    return !self->durable_ms || page->end - self->durable >= DURABLE_STEP
        || (page->end >= dlq_spool_tip (self->spool) && now - self->durable_ms >= DURABLE_MS);
}

/* Commit the queued ledger updates to the state file (durable: with the
 * disk, and so every relaxed commit before); false when they failed (they
 * stay queued and ride the next commit). */
static bool
commit_ledger (dlq_indexer_t *self, dlq_state_store_t *state, bool durable)
{
    size_t count = 0;
    uint64_t last_ticket = 0;
    dlq_ledger_update_t **updates = dlq_ledger_channel_take (self->ledger, &count, &last_ticket);
    dlq_store_result_t rc = dlq_ledger_store_apply (state, updates, count, durable);
    dlq_ledger_channel_done (self->ledger, updates, count, last_ticket, rc == DLQ_STORE_OK);
    if (rc != DLQ_STORE_OK)
        dlq_log (DLQ_LOG_ERROR, "indexer: the commit of %zu ledger updates failed (they are tried again): %s",
                 count, dlq_state_store_last_error (state));
    return rc == DLQ_STORE_OK;
}

/* Index one page, and commit the queued ledger updates; publish, and
 * release what a durable commit of both covers. */
static bool
commit (dlq_indexer_t *self, dlq_log_store_t *store, dlq_state_store_t *state, void *tip, page_t *page)
{
    char err [512] = "";
    int64_t last_seq = -1, now = dlq_time_mono_ms ();
    bool durable = wants_durable (self, page, now);
    bool ledger_ok = commit_ledger (self, state, durable);
    bool nothing_read = page->count == 0 && page->end == atomic_load (&self->position);
    if (nothing_read && !durable)
        return ledger_ok;               /* woken for the ledger alone: the store has nothing to commit */
    durable = durable && ledger_ok;
    dlq_sink_status_t rc = dlq_log_store_ops (store)->index (dlq_log_store_instance (store), page->records,
                                                             page->count, page->end, durable, &last_seq);
    if (rc != DLQ_SINK_STATUS_OK) {
        dlq_log (DLQ_LOG_ERROR, "indexer: the commit of %zu records (%zu events) failed (all are tried again): %s",
                 page->count, page->events, dlq_log_store_last_error (store));
        return false;
    }
    for (size_t i = 0; i < page->count; i++) {
        const dlq_sink_record_t *r = &page->records [i];
        if (r->kind == DLQ_SINK_RECORD_MARK)
            dlq_mark_channel_applied (self->marks, r->position, r->status == DLQ_SINK_STATUS_OK ? DLQ_STORE_OK
                                      : r->status == DLQ_SINK_STATUS_NOT_FOUND ? DLQ_STORE_NOT_FOUND : DLQ_STORE_ERROR,
                                      &r->state);
    }
    atomic_store (&self->position, page->end);
    atomic_fetch_add (&self->events, page->events);
    if (page->events)
        zmq_send (tip, &last_seq, sizeof last_seq, ZMQ_DONTWAIT);
    if (!durable)
        return true;
    self->durable = page->end;
    self->durable_ms = now ? now : 1;
    dlq_spool_consumer_set (self->consumer, page->end);
    if (dlq_spool_release_consumed (self->spool, err, sizeof err) < 0)
        dlq_log (DLQ_LOG_WARN, "indexer: %s", err);
    return true;
}

/* An expired event is gone: a PUT of its id stores it anew. */
static void
forget_id (const char *id, size_t len, int64_t seq, void *arg)
{
    dlq_indexer_t *self = arg;
    dlq_id_index_remove (self->ids, dlq_id_index_hash (id, len), (uint64_t) seq);
}

/* Delete a batch of expired events, and of the ledger's rows of expired
 * events; true when either has more. */
static bool
sweep (dlq_indexer_t *self, dlq_log_store_t *store, dlq_state_store_t *state)
{
    int64_t now = dlq_time_now_ms (), swept = atomic_load (&self->primary_swept);
    if (swept < now)
        now = swept;                    /* not past what the primary has deleted */
    int64_t deleted = dlq_log_store_ops (store)->sweep_each (dlq_log_store_instance (store), now, self->sweep_batch,
                                                             forget_id, self);
    if (deleted < 0)
        dlq_log (DLQ_LOG_ERROR, "expiry sweep failed: %s", dlq_log_store_last_error (store));
    else
    if (deleted > 0)
        dlq_log (DLQ_LOG_INFO, "expiry sweep deleted %lld events", (long long) deleted);
    int64_t rows = dlq_ledger_store_sweep (state, now, (int) self->sweep_batch);
    if (rows < 0)
        dlq_log (DLQ_LOG_ERROR, "expiry sweep of the delivery ledger failed: %s", dlq_state_store_last_error (state));
    return deleted == self->sweep_batch || rows == self->sweep_batch;
}

static bool
open_sockets (dlq_indexer_t *self, void *sub, void *tip)
{
    zmq_setsockopt (sub, ZMQ_SUBSCRIBE, "", 0);
    if (zmq_connect (sub, self->spool_tip_endpoint) != 0 || zmq_bind (tip, self->tip_endpoint) != 0) {
        snprintf (self->error, sizeof self->error, "indexer: cannot connect %s or bind %s: %s",
                  self->spool_tip_endpoint, self->tip_endpoint, zmq_strerror (zmq_errno ()));
        return false;
    }
    return true;
}

/* Track how long the oldest unindexed record has waited. */
static void
note_lag (dlq_indexer_t *self)
{
    bool behind = dlq_spool_tip (self->spool) > atomic_load (&self->position);
    int64_t since = atomic_load (&self->oldest_unindexed_ms);
    if (!behind)
        atomic_store (&self->oldest_unindexed_ms, 0);
    else
    if (!since)
        atomic_store (&self->oldest_unindexed_ms, dlq_time_mono_ms ());
}

static void
run (void *pipe, void *arg)
{
    dlq_indexer_t *self = arg;
    dlq_actor_name ("dlqd-indexer");
    /* behind the ack: the ingest threads go first on a busy machine */
    if (!dlq_thread_priority_lower (self->nice))
        dlq_log (DLQ_LOG_WARN, "cannot lower the indexer thread's priority: %s", strerror (errno));
    dlq_log_store_t *store = dlq_log_store_open (self->config, DLQ_SINK_MODE_INDEX, self->error, sizeof self->error);
    dlq_state_store_t *state = store ? dlq_state_store_open (self->data_dir, self->error, sizeof self->error) : NULL;
    void *sub = zmq_socket (self->zmq_ctx, ZMQ_SUB), *tip = zmq_socket (self->zmq_ctx, ZMQ_PUB);
    uint64_t start = 0;
    bool failed = false;
    bool ok = state && open_sockets (self, sub, tip);
    if (ok && !dlq_log_store_position (store, &start, &failed)) {
        start = dlq_spool_begin (self->spool);
        ok = !failed;
        if (failed)
            snprintf (self->error, sizeof self->error, "indexer: %s", dlq_log_store_last_error (store));
    }
    atomic_store (&self->position, start);
    self->consumer = dlq_spool_consumer_new (self->spool, "index", start, 0);
    page_t page = { dlq_calloc (self->max_batch, sizeof (dlq_sink_record_t)),
                    dlq_calloc (self->max_batch, sizeof (size_t)), 0, 0, DLQ_BUF_INIT, start };
    dlq_spool_reader_t *reader = dlq_spool_reader_new (self->spool, start);
    dlq_actor_ready (pipe, ok);
    int64_t next_sweep = dlq_time_mono_ms () + self->sweep_interval_ms, retry_at = 0;
    bool stopping = false;
    while (ok && !stopping && !atomic_load (&self->corrupt)) {
        note_lag (self);
        bool more = dlq_spool_tip (self->spool) > dlq_spool_reader_position (reader);
        int64_t now = dlq_time_mono_ms ();
        int64_t wait = more && now >= retry_at ? 0 : next_sweep - now;
        if (retry_at > now && retry_at - now < wait)
            wait = retry_at - now;
        /* caught up on a relaxed commit: an empty durable one releases what it covers */
        bool settle = !more && atomic_load (&self->position) > self->durable;
        int64_t settle_at = self->durable_ms + DURABLE_MS;
        if (settle_at < retry_at)
            settle_at = retry_at;       /* a failed commit waits its turn: no spin until then */
        if (settle && settle_at - now < wait)
            wait = settle_at - now;
        zmq_pollitem_t items [3] = { { pipe, 0, ZMQ_POLLIN, 0 }, { sub, 0, ZMQ_POLLIN, 0 },
                                     { NULL, dlq_ledger_channel_fd (self->ledger), ZMQ_POLLIN, 0 } };
        if (zmq_poll (items, 3, wait > 0 ? wait : 0) < 0)
            continue;                   /* EINTR */
        if (items [0].revents & ZMQ_POLLIN) {
            zmq_msg_t m;
            zmq_msg_init (&m);
            zmq_msg_recv (&m, pipe, 0);
            stopping = dlq_actor_is_stop (zmq_msg_size (&m), zmq_msg_more (&m));
            zmq_msg_close (&m);
        }
        if (items [1].revents & ZMQ_POLLIN) {
            uint64_t ignored;
            while (zmq_recv (sub, &ignored, sizeof ignored, ZMQ_DONTWAIT) >= 0)
                ;
        }
        now = dlq_time_mono_ms ();
        bool ledger = items [2].revents & ZMQ_POLLIN;
        if ((more || ledger || stopping || (settle && now >= settle_at)) && now >= retry_at) {
            if (!read_page (self, reader, &page) || !commit (self, store, state, tip, &page)) {
                dlq_spool_reader_seek (reader, atomic_load (&self->position));
                retry_at = now + RETRY_MS;
            }
            page_clear (&page);
            continue;
        }
        if (now >= next_sweep) {
            bool again = sweep (self, store, state);
            next_sweep = dlq_time_mono_ms () + (again ? 0 : self->sweep_interval_ms);
        }
    }
    dlq_spool_reader_destroy (&reader);
    dlq_spool_consumer_destroy (&self->consumer);
    free (page.records);
    free (page.offsets);
    dlq_buf_free (&page.bytes);
    zmq_close (sub);
    zmq_close (tip);
    dlq_state_store_destroy (&state);
    dlq_log_store_close (&store);
}

dlq_indexer_t *
dlq_indexer_new (void *zmq_ctx, const dlqd_config_t *config, dlq_spool_t *spool,
                 dlq_id_index_t *ids, const char *spool_tip_endpoint,
                 const char *tip_endpoint, int64_t sweep_interval_ms, int64_t sweep_batch, size_t max_batch,
                 int nice, dlq_ledger_channel_t *ledger, dlq_mark_channel_t *marks, char *err, size_t err_len)
{
    dlq_indexer_t *self = dlq_calloc (1, sizeof *self);
    self->marks = marks;
    self->zmq_ctx = zmq_ctx;
    self->spool = spool;
    self->ids = ids;
    self->ledger = ledger;
    self->data_dir = dlq_strdup (config->data_dir);
    self->config = config;
    self->spool_tip_endpoint = dlq_strdup (spool_tip_endpoint);
    self->tip_endpoint = dlq_strdup (tip_endpoint);
    self->sweep_interval_ms = sweep_interval_ms;
    self->sweep_batch = sweep_batch;
    self->max_batch = max_batch ? max_batch : 1;
    self->nice = nice;
    atomic_store (&self->primary_swept, dlq_primary_config_sweeps (config) ? 0 : INT64_MAX);
    snprintf (self->error, sizeof self->error, "cannot start the indexer thread");
    self->actor = dlq_actor_new (zmq_ctx, run, self);
    if (!self->actor) {
        snprintf (err, err_len, "%s", self->error);
        dlq_indexer_destroy (&self);
        return NULL;
    }
    return self;
}

uint64_t dlq_indexer_position (dlq_indexer_t *self) { return atomic_load (&self->position); }

void dlq_indexer_primary_swept (dlq_indexer_t *self, int64_t until_ms) { atomic_store (&self->primary_swept, until_ms); }

const char *dlq_indexer_fatal (dlq_indexer_t *self) { return atomic_load (&self->corrupt) ? self->fatal : NULL; }

void
dlq_indexer_stats (dlq_indexer_t *self, dlq_indexer_stats_t *out)
{
    out->position = atomic_load (&self->position);
    out->events = atomic_load (&self->events);
    uint64_t tip = dlq_spool_tip (self->spool);
    out->behind_bytes = tip > out->position ? tip - out->position : 0;
    int64_t since = atomic_load (&self->oldest_unindexed_ms);
    out->lag_ms = since && out->behind_bytes ? dlq_time_mono_ms () - since : 0;
}

void
dlq_indexer_destroy (dlq_indexer_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_indexer_t *self = *self_p;
    dlq_actor_destroy (&self->actor);
    free (self->data_dir);
    free (self->spool_tip_endpoint);
    free (self->tip_endpoint);
    free (self);
    *self_p = NULL;
}
