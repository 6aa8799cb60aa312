/*  dispatcher — read a sink's backlog, deliver batches, own the retries.
 *
 *  In memory the dispatcher keeps its read position (the cursor it will
 *  write next), the retry queue (a heap by due time) and the circuit. On
 *  disk it keeps, through the indexer's commits, the cursor and a row per
 *  event that needed a retry or failed, and, in a position file of its own
 *  (data_dir/attempted/<sink>, position_file.h), the attempted marker.
 *  Before a batch of new events goes out, the attempted marker covering
 *  them is written and synced, so that after a crash the events that may
 *  already have reached the sink are known: delivering them again is
 *  counted as a redelivery. Neither waits for the indexer: the marker is
 *  the dispatcher's own sync, and the outcome updates of up to
 *  LEDGER_INFLIGHT_MAX batches wait for their commit together (a busy
 *  indexer commits a page of 4 MiB in about 40 ms).
 */
#include "dispatcher.h"

#include "dlq_audit.h"
#include "principal.h"
#include "actor.h"
#include "circuit.h"
#include "dlq_alloc.h"
#include "dlq_json.h"
#include "dlq_log.h"
#include "event_ordinal.h"
#include "event_record.h"
#include "spool_kinds.h"
#include "dlq_time.h"
#include "dlq_uuid.h"
#include "retry.h"
#include "retry_queue.h"
#include "plugin_host.h"
#include "position_file.h"
#include "ledger_store.h"
#include "log_store.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TIP_REFRESH_MS 1000     /* re-read the last seq from the store when idle this long */
#define HOLD_RECOUNT_MS 1000    /* count the oldest retry exactly at most this often */
#define READ_RETRY_MS 1000      /* after a failed spool read, wait this long before the next */
#define LEDGER_INFLIGHT_MAX 64  /* outcome updates waiting for their commit, at most */
#define LEDGER_INFLIGHT_BATCHES 4   /* ... and rows of at most this many batches in them */
#define OLDEST_SCAN_MAX 64      /* records (checkpoint writes, ...) looked past for the oldest event */

/* One event of the batch in hand. */
typedef struct {
    int64_t      seq;
    dlq_event_t *event;
    uint32_t     attempts;      /* tried before this batch */
    bool         retry;         /* came from the retry queue */
} slot_t;

struct dlq_dispatcher {
    dlq_dispatcher_args_t args;
    char                 *data_dir;
    char                 *tip_endpoint;
    dlq_actor_t          *actor;
    size_t                outstanding;
    char                  error [1024];

    /* the dispatcher thread's state */
    const dlq_sink_ops_t *ops;
    const dlq_dispatch_settings_t *dispatch;
    size_t                batch_max;        /* the lower of the config's and the plugin's */
    dlq_log_store_t      *store;            /* events the spool no longer holds */
    dlq_state_store_t    *state;                   /* the delivery ledger */
    void                 *instance;
    void                 *tip_sub;
    int64_t               tip;              /* highest committed seq known */
    dlq_spool_reader_t   *reader;           /* the backlog, from the spool */
    int64_t               reader_after;     /* the seq of the record the reader read last (-1: none) */
    dlq_spool_consumer_t *consumer;         /* what this sink still needs of the spool */
    int64_t               retry_counted_ms; /* when the oldest retry was counted last */
    int64_t               tip_checked_ms;
    int64_t               cursor;           /* every seq <= cursor is handled */
    uint64_t              ordinal;          /* of the last event at or before the cursor (event_ordinal.h) */
    int64_t               before_spool;     /* events of the store from before the spool past the cursor */
    uint64_t              batch_ordinal;    /* the same two for the batch in hand's new events */
    int64_t               batch_before_spool;
    int64_t               attempted;        /* durable attempted marker */
    dlq_position_file_t  *attempted_file;   /*   kept in it */
    int64_t               restart_cursor;   /* (restart_cursor, restart_attempted]: */
    int64_t               restart_attempted;/*   may have reached the sink before a crash */
    int64_t               linger_since;     /* when a partial batch started waiting, or 0 */
    int64_t               read_again_at;    /* after a failed spool read: not before (monotonic) */
    uint64_t              inflight [LEDGER_INFLIGHT_MAX];       /* outcome updates' tickets, oldest first, */
    size_t                inflight_rows [LEDGER_INFLIGHT_MAX];  /*   their rows */
    size_t                inflight_count, inflight_rows_sum;
    int64_t               hold_until;       /* after a failed commit or marker: no batch before (monotonic) */
    dlq_retry_queue_t    *retries;
    dlq_retry_config_t    retry;
    dlq_circuit_t         circuit;
    dlq_rng_t             rng;
    slot_t               *slots;
    size_t                count;
    dlq_sink_event_t     *events;
    dlq_sink_outcome_t   *outcomes;
};

static const char *
sink_name (const dlq_dispatcher_t *self)
{
    return dlq_plugin_config_name (self->args.sink);
}

/* ---- loading --------------------------------------------------------------- */

static void
load_retry_row (const char *sink, const dlq_delivery_row_t *row, void *arg)
{
    dlq_dispatcher_t *self = arg;
    (void) sink;
    int64_t wait = row->next_attempt_at == DLQ_TIME_NONE ? 0 : row->next_attempt_at - dlq_time_now_ms ();
    dlq_retry_queue_push (self->retries, (dlq_retry_item_t) {
        row->seq, row->attempts, dlq_time_mono_ms () + (wait > 0 ? wait : 0) });
}

/* Open the sink's attempted marker file; its position, 0 when it has
 * none, -1 on error (self->error). */
static int64_t
load_attempted (dlq_dispatcher_t *self)
{
    char path [4200];
    snprintf (path, sizeof path, "%s/attempted/%s", self->data_dir, sink_name (self));
    uint64_t position;
    bool found;
    char err [512];
    self->attempted_file = dlq_position_file_open (path, &position, &found, err, sizeof err);
    if (!self->attempted_file) {
        snprintf (self->error, sizeof self->error, "sink %s: its attempted marker: %s", sink_name (self), err);
        return -1;
    }
    return found && position <= INT64_MAX ? (int64_t) position : 0;
}

static bool
load_state (dlq_dispatcher_t *self)
{
    dlq_sink_state_t state;
    if (dlq_ledger_store_sink_state (self->state, sink_name (self), &state) != DLQ_STORE_OK
    ||  dlq_ledger_store_rows_of_sink (self->state, sink_name (self), DLQ_DELIVERY_RETRYING,
                                       NULL, NULL, load_retry_row, self) < 0) {
        snprintf (self->error, sizeof self->error, "sink %s: cannot read its delivery state: %s",
                  sink_name (self), dlq_state_store_last_error (self->state));
        return false;
    }
    if ((self->tip = dlq_log_store_last_seq (self->store)) < 0) {
        snprintf (self->error, sizeof self->error, "sink %s: cannot read the store's last event: %s",
                  sink_name (self), dlq_log_store_last_error (self->store));
        return false;
    }
    self->cursor = self->restart_cursor = state.cursor;
    /* the ledger's marker: from a release that kept it there */
    int64_t marker = load_attempted (self);
    if (marker < 0)
        return false;
    self->attempted = self->restart_attempted = marker > state.attempted ? marker : state.attempted;
    if ((int64_t) dlq_spool_last (self->args.spool) > self->tip)
        self->tip = (int64_t) dlq_spool_last (self->args.spool);
    self->tip_checked_ms = dlq_time_mono_ms ();
    return true;
}

/* Where the cursor stands in events: its ordinal in the spool, and the
 * events past it that only the store holds (a data_dir from before the
 * spool, or a sink new to a log already released past its cursor). */
static bool
load_queue (dlq_dispatcher_t *self)
{
    char err [512];
    if (!dlq_event_ordinal_through (self->args.spool, self->cursor, &self->ordinal, err, sizeof err)) {
        snprintf (self->error, sizeof self->error, "sink %s: cannot count its backlog: %s", sink_name (self), err);
        return false;
    }
    int64_t begin = (int64_t) dlq_spool_begin (self->args.spool);
    self->before_spool = self->cursor < begin - 1
        ? dlq_log_store_count_between (self->store, self->cursor, begin) : 0;
    if (self->before_spool < 0) {
        snprintf (self->error, sizeof self->error, "sink %s: cannot count its backlog: %s", sink_name (self),
                  dlq_log_store_last_error (self->store));
        return false;
    }
    return true;
}

/* ---- the ledger -------------------------------------------------------------- */

static dlq_ledger_update_t *
update_new (const dlq_dispatcher_t *self)
{
    dlq_ledger_update_t *u = dlq_calloc (1, sizeof *u);
    snprintf (u->sink, sizeof u->sink, "%s", sink_name (self));
    u->cursor = u->attempted = -1;
    return u;
}

/* A row of slot's event: its id, stream and expiry go with it. */
static dlq_delivery_row_t *
add_row (dlq_ledger_update_t *u, size_t capacity, const slot_t *slot, dlq_delivery_state_t state,
         uint32_t attempts, int64_t next_at, const char *error)
{
    if (!u->rows)
        u->rows = dlq_calloc (capacity ? capacity : 1, sizeof (dlq_delivery_row_t));
    dlq_delivery_row_t *row = &u->rows [u->row_count++];
    row->seq = slot->seq;
    snprintf (row->id, sizeof row->id, "%s", slot->event->id);
    row->stream = dlq_strdup (slot->event->stream_name);
    row->expires_at = slot->event->expires_at;
    row->state = state;
    row->attempts = attempts;
    row->next_attempt_at = next_at;
    row->updated_at = dlq_time_now_ms ();
    snprintf (row->last_error, sizeof row->last_error, "%s", error ? error : "");
    return row;
}

/* Make the attempted marker cover through before those events go out. */
static bool
mark_attempted (dlq_dispatcher_t *self, int64_t through)
{
    if (through <= self->attempted)
        return true;
    char err [512];
    if (dlq_position_file_write (self->attempted_file, (uint64_t) through, err, sizeof err)
        != DLQ_POSITION_FILE_OK) {
        dlq_log (DLQ_LOG_ERROR, "sink %s: %s", sink_name (self), err);
        return false;
    }
    self->attempted = through;
    return true;
}

/* ---- building a batch ---------------------------------------------------------- */

static void
add_slot (dlq_dispatcher_t *self, int64_t seq, dlq_event_t *event, uint32_t attempts, bool retry)
{
    self->slots [self->count++] = (slot_t) { seq, event, attempts, retry };
}

/* ---- the backlog from the spool ------------------------------------------------- */

static void
take_created_at (int64_t seq, dlq_event_t *event, void *arg)
{
    (void) seq;
    *(int64_t *) arg = event->created_at;
    dlq_event_destroy (&event);
}

/* The created_at of the first event record at or after position (from the
 * spool, or the store when the spool no longer holds it), DLQ_TIME_NONE
 * when there is none. Read with the backlog's reader, which seeks again
 * for its next batch (as after a retry's read): once a second, no second
 * reader's buffer kept for it. */
static int64_t
created_at_from (dlq_dispatcher_t *self, int64_t position, bool past_it)
{
    int64_t at = DLQ_TIME_NONE;
    uint64_t begin = dlq_spool_begin (self->args.spool);
    if (position < (int64_t) begin) {
        dlq_event_t *event = NULL;
        if (!past_it && position >= 1 && dlq_log_store_read_seq (self->store, position, &event) == DLQ_STORE_OK)
            at = event->created_at;
        else
            dlq_log_store_read_after (self->store, position, 1, take_created_at, &at);
        dlq_event_destroy (&event);
        if (at != DLQ_TIME_NONE || position < (int64_t) begin - 1)
            return at;
        position = (int64_t) begin;
        past_it = false;
    }
    self->reader_after = -1;
    dlq_spool_reader_seek (self->reader, (uint64_t) position);
    dlq_spool_entry_t e;
    char err [256];
    for (int skipped = 0; skipped < OLDEST_SCAN_MAX
         && dlq_spool_reader_next (self->reader, &e, err, sizeof err) == DLQ_SPOOL_OK; skipped++) {
        if (e.kind != DLQ_SPOOL_KIND_EVENT || (past_it && (int64_t) e.position == position))
            continue;
        dlq_event_t *event = dlq_event_record_decode (e.payload, e.length);
        if (event)
            at = event->created_at;
        dlq_event_destroy (&event);
        break;
    }
    return at;
}

/* Show when the oldest event the sink has not handled was accepted: the
 * oldest waiting for a retry (retry_min, INT64_MAX: none), or the first
 * past the cursor, whichever is older. */
static void
publish_oldest (dlq_dispatcher_t *self, int64_t retry_min, uint64_t held_from)
{
    int64_t at = DLQ_TIME_NONE;
    if (retry_min != INT64_MAX)
        at = created_at_from (self, retry_min, false);
    if ((int64_t) dlq_spool_last (self->args.spool) > self->cursor || self->tip > self->cursor) {
        int64_t next = created_at_from (self, self->cursor, true);
        if (next != DLQ_TIME_NONE && (at == DLQ_TIME_NONE || next < at))
            at = next;
    }
    dlq_delivery_health_set_oldest (self->args.status, at, held_from);
}

/* Tell the spool what this sink still needs: its cursor's next record, or
 * the oldest event waiting for a retry (its backlog stays on disk, counted
 * against max_backlog_bytes). The exact oldest is counted at most once a
 * second; in between a lower bound holds. */
static void
hold_spool (dlq_dispatcher_t *self, bool recount)
{
    int64_t now = dlq_time_mono_ms ();
    if (now - self->retry_counted_ms >= HOLD_RECOUNT_MS) {
        recount = true;
        self->retry_counted_ms = now;
    }
    int64_t needed = self->cursor + 1, oldest = dlq_retry_queue_min_seq (self->retries, recount);
    dlq_spool_consumer_set (self->consumer, (uint64_t) (oldest < needed ? oldest : needed));
    if (recount)
        publish_oldest (self, oldest, (uint64_t) (oldest < needed ? oldest : needed));
}

/* Show STATS where the cursor stands and how many events wait for a retry. */
static void
publish_queue (dlq_dispatcher_t *self)
{
    dlq_delivery_health_set_queue (self->args.status, self->ordinal, self->before_spool,
                               dlq_retry_queue_size (self->retries));
}

/* The event whose record is at seq, or NULL when the spool no longer holds
 * it (the store does: a segment is released only once indexed). */
static dlq_event_t *
spool_event_at (dlq_dispatcher_t *self, int64_t seq)
{
    dlq_spool_entry_t e;
    char err [512];
    self->reader_after = -1;
    dlq_spool_reader_seek (self->reader, (uint64_t) seq);
    if (seq < 1 || dlq_spool_reader_next (self->reader, &e, err, sizeof err) != DLQ_SPOOL_OK
        || e.kind != DLQ_SPOOL_KIND_EVENT)
        return NULL;
    return dlq_event_record_decode (e.payload, e.length);
}

/* As dlq_log_store_read_after, from the spool: up to limit events past
 * after, in order; -1 when the spool no longer holds the records past
 * after (the caller reads the store), -2 on a read error (logged). */
static ssize_t
spool_read_after (dlq_dispatcher_t *self, int64_t after, size_t limit, dlq_log_store_event_fn *fn, void *arg)
{
    uint64_t begin = dlq_spool_begin (self->args.spool);
    char err [512];
    dlq_spool_entry_t e;
    dlq_spool_result_t rc = DLQ_SPOOL_OK;
    if (after < (int64_t) begin - 1 && after >= 0)
        return -1;                          /* older than the spool: in the store */
    if (after != self->reader_after) {
        if (after < (int64_t) begin)
            dlq_spool_reader_seek (self->reader, begin);
        else {
            dlq_spool_reader_seek (self->reader, (uint64_t) after);     /* the cursor's own record: passed over */
            rc = dlq_spool_reader_next (self->reader, &e, err, sizeof err);
        }
    }
    ssize_t n = 0;
    while (rc == DLQ_SPOOL_OK && (size_t) n < limit) {
        rc = dlq_spool_reader_next (self->reader, &e, err, sizeof err);
        if (rc != DLQ_SPOOL_OK)
            break;
        self->reader_after = (int64_t) e.position;
        if (e.kind != DLQ_SPOOL_KIND_EVENT)
            continue;
        dlq_event_record_ordinal (e.payload, e.length, &self->batch_ordinal);
        dlq_event_t *event = dlq_event_record_decode (e.payload, e.length);
        if (!event) {
            dlq_log (DLQ_LOG_ERROR, "sink %s: the spool record at %" PRIu64 " is no event record; passed over",
                     sink_name (self), e.position);
            continue;
        }
        fn ((int64_t) e.position, event, arg);
        n++;
    }
    if (rc == DLQ_SPOOL_GONE) {
        self->reader_after = -1;
        return n ? n : -1;
    }
    if (rc == DLQ_SPOOL_CORRUPT || rc == DLQ_SPOOL_ERROR) {
        self->reader_after = -1;
        dlq_log (DLQ_LOG_ERROR, "sink %s: cannot read the spool: %s", sink_name (self), err);
        return n ? n : -2;
    }
    return n;
}

static void
take_due_retries (dlq_dispatcher_t *self, int64_t now)
{
    dlq_retry_item_t item;
    while (self->count < self->batch_max
        && dlq_retry_queue_pop_due (self->retries, now, &item)) {
        dlq_event_t *event = spool_event_at (self, item.seq);
        if (event || dlq_log_store_read_seq (self->store, item.seq, &event) == DLQ_STORE_OK
            || (event = dlq_ledger_store_failed_event (self->state, sink_name (self), item.seq)))
            add_slot (self, item.seq, event, item.attempts, true);
        /* else: swept (expired) while waiting; its row went with it */
    }
}

static bool
in_chain (const dlq_dispatcher_t *self, const dlq_event_t *event, int64_t now_wall)
{
    const dlq_policy_t *policy = dlq_policy_table_lookup (self->args.policies, event->stream_name);
    if (!(policy->chain & (1ULL << dlq_plugin_config_index (self->args.sink))))
        return false;
    return event->expires_at == DLQ_TIME_NONE || event->expires_at > now_wall;
}

typedef struct {
    dlq_dispatcher_t *self;
    int64_t           now_wall;
    int64_t           last_seq;
} read_ctx_t;

static void
take_new_event (int64_t seq, dlq_event_t *event, void *arg)
{
    read_ctx_t *ctx = arg;
    ctx->last_seq = seq;
    if (in_chain (ctx->self, event, ctx->now_wall))
        add_slot (ctx->self, seq, event, 0, false);
    else
        dlq_event_destroy (&event);
}

/* Read new events past the cursor into the batch; returns the highest seq
 * read (the cursor once this batch is handled), or the cursor when none. */
static int64_t
take_new_events (dlq_dispatcher_t *self)
{
    read_ctx_t ctx = { self, dlq_time_now_ms (), self->cursor };
    size_t room = self->batch_max - self->count;
    self->batch_ordinal = self->ordinal;
    self->batch_before_spool = 0;
    if (room == 0 || self->tip <= self->cursor)
        return self->cursor;
    ssize_t n = spool_read_after (self, self->cursor, room, take_new_event, &ctx);
    if (n == -1) {                          /* what the spool no longer holds: the store */
        n = dlq_log_store_read_after (self->store, self->cursor, room, take_new_event, &ctx);
        self->batch_before_spool = n > 0 ? n : 0;
        /* the store holds nothing past the cursor (swept, or an archive no
         * longer fed: a sink primary's), so the next is the spool's first */
        if (n == 0)
            return (int64_t) dlq_spool_begin (self->args.spool) - 1;
    }
    if (n < 0) {
        dlq_log (DLQ_LOG_ERROR, "sink %s: cannot read the spool (again in %d ms): %s", sink_name (self),
                 READ_RETRY_MS, dlq_log_store_last_error (self->store));
        self->read_again_at = dlq_time_mono_ms () + READ_RETRY_MS;
        return self->cursor;
    }
    /* nothing left past the cursor: the events up to the tip were swept */
    return n == 0 ? self->tip : ctx.last_seq;
}

/* ---- delivering ------------------------------------------------------------------ */

static void
fill_event (dlq_sink_event_t *out, const slot_t *slot, const dlq_policy_table_t *policies)
{
    const dlq_event_t *e = slot->event;
    *out = (dlq_sink_event_t) {
        .id = e->id, .stream_name = e->stream_name, .operation_type = e->operation_type,
        .status = e->status, .document_key = e->document_key, .attempts = e->attempts,
        .first_attempt_at = e->first_attempt_at, .created_at = e->created_at,
        .expires_at = e->expires_at, .json = e->json, .json_len = e->json_len,
        .retention_days = dlq_policy_table_lookup (policies, e->stream_name)->retention_days,
        .delivery_attempt = slot->attempts + 1,
    };
}

/* Call the sink; a call that overran its timeout has every event retried. */
static void
deliver (dlq_dispatcher_t *self)
{
    for (size_t i = 0; i < self->count; i++)
        fill_event (&self->events [i], &self->slots [i], self->args.policies);
    memset (self->outcomes, 0, self->count * sizeof *self->outcomes);
    int64_t start = dlq_time_mono_ms ();
    int64_t deadline = start + self->dispatch->timeout_ms;
    int64_t start_ns = dlq_time_mono_ns ();
    self->ops->deliver (self->instance, self->events, self->count, self->outcomes, deadline);
    dlq_delivery_health_delivery_took (self->args.status, (double) (dlq_time_mono_ns () - start_ns) / 1e9);
    int64_t took = dlq_time_mono_ms () - start;
    if (took <= self->dispatch->timeout_ms)
        return;
    for (size_t i = 0; i < self->count; i++) {
        self->outcomes [i].result = DLQ_SINK_RETRY;
        snprintf (self->outcomes [i].message, sizeof self->outcomes [i].message,
                  "timed out: the sink took %lld ms (timeout_ms %lld)", (long long) took,
                  (long long) self->dispatch->timeout_ms);
    }
}

/* Record one event's outcome in the update (and the retry queue). */
static void
record (dlq_dispatcher_t *self, dlq_ledger_update_t *u, const slot_t *slot,
        const dlq_sink_outcome_t *outcome)
{
    uint32_t attempts = slot->attempts + 1;
    const char *why = outcome->message [0] ? outcome->message : "no reason given";
    if (outcome->result == DLQ_SINK_OK) {
        u->delivered++;
        if (slot->retry)
            add_row (u, self->count, slot, DLQ_DELIVERY_DELIVERED, attempts, DLQ_TIME_NONE, NULL);
        return;
    }
    if (outcome->result == DLQ_SINK_RETRY && !dlq_retry_exhausted (&self->retry, attempts)) {
        int64_t delay = dlq_retry_delay (&self->retry, attempts, &self->rng);
        add_row (u, self->count, slot, DLQ_DELIVERY_RETRYING, attempts,
                 dlq_time_now_ms () + delay, why);
        dlq_retry_queue_push (self->retries, (dlq_retry_item_t) {
            slot->seq, attempts, dlq_time_mono_ms () + delay });
        dlq_delivery_health_retried (self->args.status, 1);
        return;
    }
    u->failed++;
    dlq_delivery_row_t *row = add_row (u, self->count, slot, DLQ_DELIVERY_FAILED, attempts, DLQ_TIME_NONE, why);
    dlq_buf_t bytes = DLQ_BUF_INIT;     /* the event goes with its row: a REDELIVER reads it from there */
    dlq_event_record_encode (slot->event, 0, &bytes);
    row->record = (uint8_t *) bytes.data;
    row->record_len = bytes.len;
    dlq_log (DLQ_LOG_WARN, "sink %s: event %s failed after %u attempts: %s", sink_name (self),
             slot->event->id, attempts, why);
}

/* The outcome updates of at most LEDGER_INFLIGHT_MAX batches, and rows of
 * at most LEDGER_INFLIGHT_BATCHES batches, wait for their commit: before
 * one with rows more goes, forget those committed and wait for the oldest
 * until both bounds hold. A sink that answers at once (every event RETRY
 * with a short backoff, a noop) would otherwise queue updates of up to
 * batch_max rows faster than they commit: memory without bound, and
 * commits so large that the index falls behind. After a failed commit
 * (the update stays queued and rides the next) the next batch waits
 * READ_RETRY_MS. */
static void
settle_ledger (dlq_dispatcher_t *self, size_t rows)
{
    size_t rows_max = LEDGER_INFLIGHT_BATCHES * self->batch_max;
    while (self->inflight_count) {
        bool ok, room = self->inflight_count < LEDGER_INFLIGHT_MAX
                        && self->inflight_rows_sum + rows <= rows_max;
        if (!dlq_ledger_channel_settled (self->args.ledger, self->inflight [0], &ok)) {
            if (room)
                return;
            ok = dlq_ledger_channel_wait (self->args.ledger, self->inflight [0]);
        }
        if (!ok)
            self->hold_until = dlq_time_mono_ms () + READ_RETRY_MS;
        self->inflight_rows_sum -= self->inflight_rows [0];
        self->inflight_count--;
        memmove (self->inflight, self->inflight + 1, self->inflight_count * sizeof self->inflight [0]);
        memmove (self->inflight_rows, self->inflight_rows + 1, self->inflight_count * sizeof self->inflight_rows [0]);
    }
}

static void
submit_ledger (dlq_dispatcher_t *self, dlq_ledger_update_t *u)
{
    size_t rows = u->row_count;
    settle_ledger (self, rows);
    uint64_t ticket = dlq_ledger_channel_submit (self->args.ledger, u);
    if (!ticket)
        return;
    self->inflight [self->inflight_count] = ticket;
    self->inflight_rows [self->inflight_count++] = rows;
    self->inflight_rows_sum += rows;
}

/* Send the batch in hand, record every outcome, move the cursor to through. */
static void
send_batch (dlq_dispatcher_t *self, int64_t through)
{
    dlq_ledger_update_t *u = update_new (self);
    if (self->count) {
        for (size_t i = 0; i < self->count; i++)
            if (!self->slots [i].retry && self->slots [i].seq > self->restart_cursor
            &&  self->slots [i].seq <= self->restart_attempted)
                u->redelivered++;
        deliver (self);
        size_t retried = 0;
        for (size_t i = 0; i < self->count; i++) {
            record (self, u, &self->slots [i], &self->outcomes [i]);
            retried += self->outcomes [i].result == DLQ_SINK_RETRY;
        }
        int64_t now = dlq_time_mono_ms ();
        if (retried == self->count) {
            dlq_circuit_failure (&self->circuit, now, &self->rng);
            dlq_delivery_health_set_error (self->args.status, self->outcomes [0].message, dlq_time_now_ms ());
        }
        else
            dlq_circuit_success (&self->circuit, now);
        dlq_delivery_health_set_circuit (self->args.status, dlq_circuit_state_name (self->circuit.state));
        for (size_t i = 0; i < self->count; i++)
            if (self->outcomes [i].result == DLQ_SINK_FAIL)
                dlq_delivery_health_set_error (self->args.status, self->outcomes [i].message, dlq_time_now_ms ());
    }
    if (through > self->cursor) {
        u->cursor = self->cursor = through;
        self->ordinal = self->batch_ordinal;
        self->before_spool -= self->batch_before_spool;
        if (self->before_spool < 0 || self->cursor >= (int64_t) dlq_spool_begin (self->args.spool) - 1)
            self->before_spool = 0;
    }
    hold_spool (self, false);
    for (size_t i = 0; i < self->count; i++)
        dlq_event_destroy (&self->slots [i].event);
    self->count = 0;
    publish_queue (self);
    if (u->cursor < 0 && u->row_count == 0 && !u->delivered && !u->failed && !u->redelivered)
        dlq_ledger_update_destroy (&u);
    else
        submit_ledger (self, u);
}

/* Is there something to send now? Sets *wait_ms to how long to sleep when not. */
static bool
work_ready (dlq_dispatcher_t *self, int64_t now, int64_t *wait_ms)
{
    *wait_ms = -1;
    if (now < self->hold_until) {
        *wait_ms = self->hold_until - now;  /* a failed ledger commit or marker: wait, do not pile up */
        return false;
    }
    int64_t circuit_wait = dlq_circuit_wait_ms (&self->circuit, now);
    if (circuit_wait != 0) {
        *wait_ms = circuit_wait;        /* open (or a probe outstanding: cannot happen here) */
        return false;
    }
    dlq_retry_item_t next;
    bool retry_due = dlq_retry_queue_peek (self->retries, &next) && next.due_ms <= now;
    int64_t backlog = now < self->read_again_at ? 0 : self->tip - self->cursor;
    if (!retry_due && backlog == 0 && self->tip > self->cursor)
        *wait_ms = self->read_again_at - now;     /* a failed read: wait, do not spin */
    if (!retry_due && backlog > 0 && backlog < (int64_t) self->batch_max && self->dispatch->linger_ms > 0) {
        if (!self->linger_since)
            self->linger_since = now;
        int64_t left = self->linger_since + self->dispatch->linger_ms - now;
        if (left > 0) {
            *wait_ms = left;
            return false;
        }
    }
    if (retry_due || backlog > 0)
        return true;
    if (dlq_retry_queue_peek (self->retries, &next) && (*wait_ms < 0 || next.due_ms - now < *wait_ms))
        *wait_ms = next.due_ms - now;
    return false;
}

/* Build and send one batch; the circuit has allowed it. */
static void
dispatch_once (dlq_dispatcher_t *self, int64_t now)
{
    self->linger_since = 0;
    if (!dlq_circuit_allows (&self->circuit, now))
        return;
    take_due_retries (self, now);
    int64_t through = take_new_events (self);
    if (through > self->cursor && !mark_attempted (self, through)) {
        dlq_log (DLQ_LOG_ERROR, "sink %s: cannot record the delivery attempt; holding the batch %d ms",
                 sink_name (self), READ_RETRY_MS);
        self->hold_until = now + READ_RETRY_MS;     /* not again at once: a disk that fails stays failing */
        /* the new events are read again from the cursor; the retries taken
         * for this batch go back in the queue (they were lost until a
         * restart before) */
        for (size_t i = 0; i < self->count; i++) {
            if (self->slots [i].retry)
                dlq_retry_queue_push (self->retries, (dlq_retry_item_t) {
                    self->slots [i].seq, self->slots [i].attempts, now + READ_RETRY_MS });
            dlq_event_destroy (&self->slots [i].event);
        }
        self->count = 0;
        publish_queue (self);
        return;
    }
    send_batch (self, through);
}

/* ---- REDELIVER ----------------------------------------------------------------- */

typedef struct {
    dlq_dispatcher_t    *self;
    dlq_ledger_update_t *update;
    size_t               capacity;
} requeue_ctx_t;

static void
requeue_row (const char *sink, const dlq_delivery_row_t *row, void *arg)
{
    requeue_ctx_t *ctx = arg;
    (void) sink;
    if (ctx->update->row_count == ctx->capacity) {
        ctx->capacity = ctx->capacity ? ctx->capacity * 2 : 64;
        ctx->update->rows = dlq_realloc (ctx->update->rows, ctx->capacity * sizeof (dlq_delivery_row_t));
    }
    dlq_delivery_row_t *copy = &ctx->update->rows [ctx->update->row_count++];
    *copy = *row;
    copy->id [0] = '\0';                   /* the row keeps its event's id, stream and expiry */
    copy->stream = NULL;
    copy->record = NULL;                   /* and its event, when it keeps one */
    copy->state = DLQ_DELIVERY_RETRYING;
    copy->attempts = 0;
    copy->next_attempt_at = dlq_time_now_ms ();
    copy->updated_at = copy->next_attempt_at;
    dlq_retry_queue_push (ctx->self->retries, (dlq_retry_item_t) { row->seq, 0, dlq_time_mono_ms () });
}

/* Answer {"sink":...,"streamName"?:...,"id"?:...} with {"sink":...,"requeued":n}.
 * The front end checked the body; the id is looked up as stored, lower case
 * (a UUID may be sent in either case). */
static void
redeliver (dlq_dispatcher_t *self, const zmq_msg_t *body, dlq_buf_t *out)
{
    dlq_json_doc_t *doc = NULL;
    dlq_json_parse (zmq_msg_data ((zmq_msg_t *) body), zmq_msg_size (body), &doc, NULL);
    const dlq_json_value_t *root = doc ? dlq_json_root (doc) : NULL;
    const dlq_json_value_t *stream = dlq_json_get (root, "streamName");
    const dlq_json_value_t *id = dlq_json_get (root, "id");
    char uuid [DLQ_UUID_LEN + 1] = "";
    if (id)
        dlq_uuid_parse (id->str, id->len, uuid);
    requeue_ctx_t ctx = { self, update_new (self), 0 };
    ssize_t n = dlq_ledger_store_rows_of_sink (self->state, sink_name (self), DLQ_DELIVERY_FAILED,
                                               stream ? stream->str : NULL, id ? uuid : NULL,
                                               requeue_row, &ctx);
    if (n < 0)
        dlq_log (DLQ_LOG_ERROR, "sink %s: REDELIVER cannot read the failed deliveries: %s", sink_name (self),
                 dlq_state_store_last_error (self->state));
    dlq_json_doc_destroy (&doc);
    if (ctx.update->row_count)
        dlq_ledger_channel_submit (self->args.ledger, ctx.update);
    else
        dlq_ledger_update_destroy (&ctx.update);
    dlq_buf_puts (out, "{\"sink\":");
    dlq_json_write_string (out, sink_name (self), strlen (sink_name (self)));
    dlq_buf_printf (out, ",\"requeued\":%lld}", (long long) (n < 0 ? 0 : n));
    if (n > 0)
        dlq_log (DLQ_LOG_INFO, "sink %s: %lld failed deliveries requeued", sink_name (self), (long long) n);
    publish_queue (self);
}

/* Read one request from the pipe and answer it; false on the stop message. */
static bool
handle_pipe (dlq_dispatcher_t *self, void *pipe)
{
    zmq_msg_t frames [DLQ_REQUEST_FRAMES];
    size_t n = dlq_actor_recv_request (pipe, frames);
    if (n == DLQ_REQUEST_FRAMES) {
        dlq_buf_t out = DLQ_BUF_INIT;
        redeliver (self, &frames [3], &out);
        dlq_audit (dlq_principal_scope_name (zmq_msg_data (&frames [4]), zmq_msg_size (&frames [4])), "REDELIVER",
                   zmq_msg_data (&frames [3]), zmq_msg_size (&frames [3]), DLQ_OK, out.data);
        dlq_actor_send_reply (pipe, &frames [0], "OK", &frames [2], out.data, out.len);
        dlq_buf_free (&out);
    }
    for (size_t i = 0; i < n; i++)
        zmq_msg_close (&frames [i]);
    return n == DLQ_REQUEST_FRAMES;
}

static void
drain_tip (dlq_dispatcher_t *self)
{
    int64_t seq;
    while (zmq_recv (self->tip_sub, &seq, sizeof seq, ZMQ_DONTWAIT) == sizeof seq)
        if (seq > self->tip)
            self->tip = seq;
}

/* ---- the actor --------------------------------------------------------------------- */

static bool
start (dlq_dispatcher_t *self)
{
    self->store = dlq_log_store_open (self->args.config, DLQ_SINK_MODE_QUERY, self->error, sizeof self->error);
    if (self->store)
        self->state = dlq_state_store_open (self->data_dir, self->error, sizeof self->error);
    if (!self->state || !load_state (self) || !load_queue (self))
        return false;
    publish_queue (self);
    char name [DLQ_SINK_NAME_MAX + 8];
    snprintf (name, sizeof name, "sink:%s", sink_name (self));
    self->reader = dlq_spool_reader_new (self->args.spool, 0);
    self->reader_after = -1;
    self->consumer = dlq_spool_consumer_new (self->args.spool, name, (uint64_t) self->cursor + 1,
                                             (uint64_t) self->dispatch->max_backlog_bytes);
    hold_spool (self, true);
    char why [256] = "";
    if (self->ops->init (dlq_plugin_host (), self->args.sink, DLQ_SINK_MODE_DELIVER, &self->instance,
                         why, sizeof why) != DLQ_SINK_STATUS_OK) {
        snprintf (self->error, sizeof self->error, "sink %s (%s): init failed: %s", sink_name (self),
                  self->ops->type, why [0] ? why : "no reason given");
        self->instance = NULL;
        return false;
    }
    self->tip_sub = zmq_socket (self->args.zmq_ctx, ZMQ_SUB);
    zmq_setsockopt (self->tip_sub, ZMQ_SUBSCRIBE, "", 0);
    zmq_connect (self->tip_sub, self->tip_endpoint);
    return true;
}

static void
stop (dlq_dispatcher_t *self)
{
    if (self->instance)
        self->ops->destroy (self->instance);
    self->instance = NULL;
    if (self->tip_sub)
        zmq_close (self->tip_sub);
    self->tip_sub = NULL;
    dlq_log_store_close (&self->store);
    dlq_state_store_destroy (&self->state);
    dlq_spool_reader_destroy (&self->reader);
    dlq_spool_consumer_destroy (&self->consumer);
    dlq_position_file_destroy (&self->attempted_file);
}

static void
run (void *pipe, void *arg)
{
    dlq_dispatcher_t *self = arg;
    dlq_actor_name ("dlqd-dispatcher");
    bool ok = start (self);
    dlq_actor_ready (pipe, ok);
    if (!ok) {
        stop (self);
        return;
    }
    while (true) {
        int64_t now = dlq_time_mono_ms (), wait_ms;
        if (work_ready (self, now, &wait_ms)) {
            dispatch_once (self, now);
            wait_ms = 0;
        }
        if (wait_ms < 0 || wait_ms > TIP_REFRESH_MS)
            wait_ms = TIP_REFRESH_MS;
        zmq_pollitem_t items [2] = { { pipe, 0, ZMQ_POLLIN, 0 }, { self->tip_sub, 0, ZMQ_POLLIN, 0 } };
        if (zmq_poll (items, 2, (long) wait_ms) < 0)
            continue;
        if ((items [0].revents & ZMQ_POLLIN) && !handle_pipe (self, pipe))
            break;
        if (items [1].revents & ZMQ_POLLIN)
            drain_tip (self);
        /* idle too: what the spool holds for the sink follows the retries
         * that ended (failed, or delivered) with no batch after them */
        if (dlq_time_mono_ms () - self->retry_counted_ms >= HOLD_RECOUNT_MS)
            hold_spool (self, true);
        if (dlq_time_mono_ms () - self->tip_checked_ms >= TIP_REFRESH_MS) {
            int64_t last = (int64_t) dlq_spool_last (self->args.spool);
            self->tip = last > self->tip ? last : self->tip;
            self->tip_checked_ms = dlq_time_mono_ms ();
        }
    }
    stop (self);
}

dlq_dispatcher_t *
dlq_dispatcher_new (const dlq_dispatcher_args_t *args, char *err, size_t err_len)
{
    dlq_dispatcher_t *self = dlq_calloc (1, sizeof *self);
    self->args = *args;
    self->data_dir = dlq_strdup (args->data_dir);
    self->tip_endpoint = dlq_strdup (args->tip_endpoint);
    self->ops = dlq_plugin_config_ops (args->sink);
    self->dispatch = dlq_plugin_config_dispatch (args->sink);
    self->retry = (dlq_retry_config_t) { self->dispatch->max_attempts, self->dispatch->backoff_ms,
                                         self->dispatch->backoff_max_ms, self->dispatch->multiplier };
    dlq_circuit_init (&self->circuit, (uint32_t) self->dispatch->circuit_failures, &self->retry);
    dlq_rng_seed (&self->rng);
    self->retries = dlq_retry_queue_new ();
    size_t max = (size_t) self->dispatch->batch_max;
    if (self->ops->max_batch && self->ops->max_batch < max)
        max = self->ops->max_batch;
    self->batch_max = max;
    self->slots = dlq_calloc (max, sizeof (slot_t));
    self->events = dlq_calloc (max, sizeof (dlq_sink_event_t));
    self->outcomes = dlq_calloc (max, sizeof (dlq_sink_outcome_t));
    snprintf (self->error, sizeof self->error, "sink %s: cannot start its dispatcher thread",
              dlq_plugin_config_name (args->sink));
    self->actor = dlq_actor_new (args->zmq_ctx, run, self);
    if (!self->actor) {
        snprintf (err, err_len, "%s", self->error);
        self->actor = NULL;
        dlq_dispatcher_destroy (&self);
        return NULL;
    }
    return self;
}

void *dlq_dispatcher_socket (dlq_dispatcher_t *self) { return dlq_actor_pipe (self->actor); }

void
dlq_dispatcher_submit (dlq_dispatcher_t *self, zmq_msg_t frames [DLQ_REQUEST_FRAMES])
{
    self->outstanding++;
    dlq_actor_send_request (dlq_actor_pipe (self->actor), frames);
}

bool
dlq_dispatcher_forward (dlq_dispatcher_t *self, void *out)
{
    bool sent = dlq_actor_relay (dlq_actor_pipe (self->actor), out);
    self->outstanding--;
    return sent;
}

size_t dlq_dispatcher_outstanding (const dlq_dispatcher_t *self) { return self->outstanding; }

void
dlq_dispatcher_destroy (dlq_dispatcher_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_dispatcher_t *self = *self_p;
    dlq_actor_destroy (&self->actor);
    dlq_retry_queue_destroy (&self->retries);
    free (self->slots);
    free (self->events);
    free (self->outcomes);
    free (self->data_dir);
    free (self->tip_endpoint);
    free (self);
    *self_p = NULL;
}
