/*  embedded_sink_workbench — the embedded plugin's workbench calls
 *  (filtered LIST / COUNT / GROUPS, replay state, the scheduled replay's
 *  claim) and checkpoint calls (dlq_sink.h), on the store's own
 *  (embedded_query.h, embedded_workbench.h, embedded_checkpoints.h). A
 *  QUERY instance reads on its reader and writes on connections it opens
 *  when first needed: an updater for marks and claims, a writer for
 *  checkpoint writes.
 */
#include "embedded_sink.h"

#include "embedded_checkpoints.h"
#include "embedded_query.h"
#include "embedded_workbench.h"
#include "event_filter.h"

#include <stdio.h>
#include <string.h>

/* ---- workbench calls ------------------------------------------------------ */

/* Parse filter_json into filter (empty on entry); false (logged) when it
 * is not a filter object. */
static bool
parse_filter (const embedded_sink_t *self, const char *what, const char *filter_json, dlq_event_filter_t *filter)
{
    char why [300];
    bool ok = dlq_event_filter_from_json (filter_json, filter, why, sizeof why);
    if (!ok)
        self->host->log (self->config, DLQ_SINK_LOG_ERROR, "%s: not a filter: %s", what, why);
    return ok;
}

static dlq_sink_status_t
embedded_query_list (void *instance, const char *filter_json, size_t limit, const char *cursor, int64_t now_ms,
                     dlq_sink_buf_t *events_out, dlq_sink_buf_t *cursor_out)
{
    embedded_sink_t *self = instance;
    dlq_event_filter_t filter = DLQ_EVENT_FILTER_INIT;
    if (!parse_filter (self, "query list", filter_json, &filter))
        return DLQ_SINK_STATUS_ERROR;
    dlq_store_result_t result = dlq_embedded_query_list (self->store, &filter, limit, cursor, now_ms,
                                                         &self->out, &self->cursor);
    dlq_event_filter_free (&filter);
    if (result == DLQ_STORE_OK) {
        embedded_sink_put (self, events_out, &self->out);
        embedded_sink_put (self, cursor_out, &self->cursor);
    }
    return embedded_sink_status (self, self->store, result, "query list");
}

static dlq_sink_status_t
embedded_query_count (void *instance, const char *filter_json, int64_t now_ms, int64_t *count_out)
{
    embedded_sink_t *self = instance;
    dlq_event_filter_t filter = DLQ_EVENT_FILTER_INIT;
    if (!parse_filter (self, "query count", filter_json, &filter))
        return DLQ_SINK_STATUS_ERROR;
    dlq_store_result_t result = dlq_embedded_query_count (self->store, &filter, now_ms, count_out);
    dlq_event_filter_free (&filter);
    return embedded_sink_status (self, self->store, result, "query count");
}

static dlq_sink_status_t
embedded_query_groups (void *instance, const char *filter_json, size_t limit, int64_t now_ms,
                       dlq_sink_buf_t *groups_out)
{
    embedded_sink_t *self = instance;
    dlq_event_filter_t filter = DLQ_EVENT_FILTER_INIT;
    if (!parse_filter (self, "query groups", filter_json, &filter))
        return DLQ_SINK_STATUS_ERROR;
    dlq_store_result_t result = dlq_embedded_query_groups (self->store, &filter, limit, now_ms, &self->out);
    dlq_event_filter_free (&filter);
    if (result == DLQ_STORE_OK)
        embedded_sink_put (self, groups_out, &self->out);
    return embedded_sink_status (self, self->store, result, "query groups");
}

static dlq_sink_status_t
embedded_state (void *instance, const char *id, int64_t now_ms, dlq_sink_event_state_t *state_out)
{
    embedded_sink_t *self = instance;
    return embedded_sink_status (self, self->store, dlq_embedded_state (self->store, id, now_ms, state_out), "state");
}

/* The connection the workbench's writes use: a DELIVER instance's writer,
 * or an updater a QUERY instance opens once. NULL (logged) when it cannot
 * be opened. */
static dlq_embedded_t *
update_store (embedded_sink_t *self)
{
    if (self->mode == DLQ_SINK_MODE_DELIVER)
        return self->store;
    if (!self->updater) {
        char err [256] = "";
        self->updater = dlq_embedded_open (self->data_dir, DLQ_EMBEDDED_UPDATER, err, sizeof err);
        if (!self->updater)
            self->host->log (self->config, DLQ_SINK_LOG_ERROR, "workbench: %s", err);
    }
    return self->updater;
}

static dlq_sink_status_t
embedded_mark (void *instance, const char *id, dlq_sink_mark_t mark, int64_t now_ms, int64_t retry_after_ms,
               dlq_sink_event_state_t *state_out)
{
    embedded_sink_t *self = instance;
    dlq_embedded_t *store = update_store (self);
    if (!store)
        return DLQ_SINK_STATUS_ERROR;
    return embedded_sink_status (self, store, dlq_embedded_mark (store, id, mark, now_ms, retry_after_ms, state_out), "mark");
}

static dlq_sink_status_t
embedded_claim (void *instance, const char *stream, const char *owner, int64_t pass_ms, int32_t max_retries,
                size_t batch_size, int64_t now_ms, int64_t lease_until_ms, dlq_sink_buf_t *events_out)
{
    embedded_sink_t *self = instance;
    dlq_embedded_t *store = update_store (self);
    if (!store)
        return DLQ_SINK_STATUS_ERROR;
    dlq_store_result_t result = dlq_embedded_claim (store, stream, owner, pass_ms, max_retries, batch_size, now_ms,
                                                    lease_until_ms, &self->out);
    if (result == DLQ_STORE_LOCKED)
        return DLQ_SINK_STATUS_LOCKED;
    if (result == DLQ_STORE_OK)
        embedded_sink_put (self, events_out, &self->out);
    return embedded_sink_status (self, store, result, "claim");
}

const dlq_sink_workbench_ops_t embedded_sink_workbench_ops = {
    .struct_size  = sizeof (dlq_sink_workbench_ops_t),
    .query_list   = embedded_query_list,
    .query_count  = embedded_query_count,
    .query_groups = embedded_query_groups,
    .state        = embedded_state,
    .mark         = embedded_mark,
    .claim        = embedded_claim,
};


/* ---- checkpoint calls ------------------------------------------------------ */

/* One checkpoint write (or removal) in a commit of the writer's. */
static dlq_sink_status_t
commit_checkpoint (embedded_sink_t *self, dlq_ckpt_write_t *w, const char *what)
{
    dlq_embedded_t *store = embedded_sink_writer (self);
    if (!store)
        return DLQ_SINK_STATUS_ERROR;
    char err [512] = "";
    dlq_store_result_t result = dlq_embedded_commit_all (store, NULL, 0, NULL, w, 1, NULL, err, sizeof err);
    return embedded_sink_status (self, store, result, what);
}

static dlq_sink_status_t
embedded_ckpt_write (void *instance, dlq_sink_ckpt_write_t kind, const dlq_sink_checkpoint_t *ckpt,
                     int64_t now_ms, dlq_sink_buf_t *record_out)
{
    embedded_sink_t *self = instance;
    if ((unsigned) kind > DLQ_SINK_CKPT_PROCESSED || !ckpt || !ckpt->stream_name) {
        self->host->log (self->config, DLQ_SINK_LOG_ERROR, "checkpoint write: %s",
                         ckpt && ckpt->stream_name ? "unknown kind of write" : "no stream name");
        return DLQ_SINK_STATUS_ERROR;
    }
    dlq_ckpt_write_t w = { .kind = kind, .record = *ckpt, .now_ms = now_ms };
    dlq_sink_status_t status = commit_checkpoint (self, &w, "checkpoint write");
    if (status == DLQ_SINK_STATUS_OK)
        embedded_sink_put (self, record_out, &w.reply);
    dlq_buf_free (&w.reply);
    return status;
}

static dlq_sink_status_t
embedded_ckpt_get (void *instance, const char *stream, dlq_sink_buf_t *record_out)
{
    embedded_sink_t *self = instance;
    dlq_store_result_t result = dlq_embedded_ckpt_get (self->store, stream, &self->out);
    if (result == DLQ_STORE_OK)
        embedded_sink_put (self, record_out, &self->out);
    return embedded_sink_status (self, self->store, result, "checkpoint get");
}

static dlq_sink_status_t
embedded_ckpt_list (void *instance, const char *prefix, size_t limit, const char *cursor,
                    dlq_sink_buf_t *records_out, dlq_sink_buf_t *cursor_out)
{
    embedded_sink_t *self = instance;
    dlq_store_result_t result = dlq_embedded_ckpt_list (self->store, prefix ? prefix : "", limit, cursor,
                                                        &self->out, &self->cursor);
    if (result == DLQ_STORE_OK) {
        embedded_sink_put (self, records_out, &self->out);
        embedded_sink_put (self, cursor_out, &self->cursor);
    }
    return embedded_sink_status (self, self->store, result, "checkpoint list");
}

static dlq_sink_status_t
embedded_ckpt_remove (void *instance, const char *stream, bool *deleted_out)
{
    embedded_sink_t *self = instance;
    dlq_ckpt_write_t w = { .remove = true, .record = { .stream_name = stream } };
    dlq_sink_status_t status = commit_checkpoint (self, &w, "checkpoint remove");
    if (deleted_out)
        *deleted_out = status == DLQ_SINK_STATUS_OK && w.reply.data && strstr (w.reply.data, "\"deleted\":true");
    dlq_buf_free (&w.reply);
    return status;
}

const dlq_sink_checkpoint_ops_t embedded_sink_checkpoint_ops = {
    .struct_size = sizeof (dlq_sink_checkpoint_ops_t),
    .write       = embedded_ckpt_write,
    .get         = embedded_ckpt_get,
    .list        = embedded_ckpt_list,
    .remove      = embedded_ckpt_remove,
};
