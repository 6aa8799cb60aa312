/*  primary — queries on the embedded store or a query-capable sink,
 *  through its plugin's calls either way. */
#include "primary.h"

#include "dlq_alloc.h"
#include "dlq_json.h"
#include "plugin_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARK_TIMEOUT_MS 10000          /* how long a mark may wait for the spool and the index */

struct dlq_primary {
    bool                        log_fed;    /* the embedded store (fed from the log), not a sink */
    const dlq_sink_ops_t       *ops;        /* its plugin's */
    const dlq_sink_workbench_ops_t *workbench;  /* the sink's workbench calls, or NULL */
    const dlq_sink_checkpoint_ops_t *checkpoints;   /* its checkpoint calls, or NULL */
    dlq_mark_channel_t         *marks;      /* the spool's marks go there, when set */
    void                       *instance;   /* the embedded store's: the caller's log store's (not owned) */
    char                        error [512];
};

/* The sink's checkpoint table when it has one with every call. */
static const dlq_sink_checkpoint_ops_t *
checkpoints_of (const dlq_sink_ops_t *ops)
{
    if (!DLQ_SINK_OPS_HAS (ops, checkpoints) || !ops->checkpoints
    ||  ops->checkpoints->struct_size < sizeof (dlq_sink_checkpoint_ops_t))
        return NULL;
    const dlq_sink_checkpoint_ops_t *c = ops->checkpoints;
    return c->write && c->get && c->list && c->remove ? c : NULL;
}

/* The sink's workbench table when it has one with every call. */
static const dlq_sink_workbench_ops_t *
workbench_of (const dlq_sink_ops_t *ops)
{
    if (!DLQ_SINK_OPS_HAS (ops, workbench) || !ops->workbench
    ||  ops->workbench->struct_size < sizeof (dlq_sink_workbench_ops_t))
        return NULL;
    const dlq_sink_workbench_ops_t *w = ops->workbench;
    bool complete = w->query_list && w->query_count && w->query_groups && w->state && w->mark && w->claim;
    return complete ? w : NULL;
}

dlq_primary_t *
dlq_primary_open (const dlqd_config_t *config, dlq_log_store_t *store, char *err, size_t err_len)
{
    dlq_primary_t *self = dlq_calloc (1, sizeof *self);
    self->log_fed = config->primary_sink == NULL;
    self->ops = dlq_plugin_config_ops (self->log_fed ? config->store : config->primary_sink);
    self->workbench = workbench_of (self->ops);
    self->checkpoints = checkpoints_of (self->ops);
    if (self->log_fed && (!self->workbench || !self->checkpoints)) {
        snprintf (err, err_len, "the embedded store's plugin %s has no workbench or checkpoint calls: install the one "
                  "of this release", dlq_plugin_config_path (config->store));
        free (self);
        return NULL;
    }
    if (self->log_fed) {
        self->instance = dlq_log_store_instance (store);
        return self;
    }
    char why [256] = "";
    if (self->ops->init (dlq_plugin_host (), config->primary_sink, DLQ_SINK_MODE_QUERY,
                         &self->instance, why, sizeof why) != DLQ_SINK_STATUS_OK) {
        snprintf (err, err_len, "primary %s: init failed: %s", config->primary,
                  why [0] ? why : "no reason given");
        free (self);
        return NULL;
    }
    return self;
}

void
dlq_primary_close (dlq_primary_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_primary_t *self = *self_p;
    if (self->instance && !self->log_fed)
        self->ops->destroy (self->instance);
    free (self);
    *self_p = NULL;
}

/* A sink's status as a store result; the message of an error is kept. */
static dlq_store_result_t
result_of (dlq_primary_t *self, dlq_sink_status_t status)
{
    switch (status) {
        case DLQ_SINK_STATUS_OK:         return DLQ_STORE_OK;
        case DLQ_SINK_STATUS_NOT_FOUND:  return DLQ_STORE_NOT_FOUND;
        case DLQ_SINK_STATUS_BAD_CURSOR: return DLQ_STORE_BAD_CURSOR;
        case DLQ_SINK_STATUS_LOCKED:     return DLQ_STORE_LOCKED;
        default:
            snprintf (self->error, sizeof self->error, "%s",
                      self->ops->store->last_error ? self->ops->store->last_error (self->instance)
                                                   : "the primary store failed (see its log)");
            return DLQ_STORE_ERROR;
    }
}

bool dlq_primary_is_embedded (const dlq_primary_t *self) { return self->log_fed; }

dlq_store_result_t
dlq_primary_get (dlq_primary_t *self, const char *id, int64_t now_ms, dlq_buf_t *out)
{
    dlq_buf_reset (out);
    return result_of (self, self->ops->store->get (self->instance, id, now_ms, dlq_plugin_host_buf (out)));
}

dlq_store_result_t
dlq_primary_list (dlq_primary_t *self, const char *stream, size_t limit, const char *cursor,
                  int64_t now_ms, dlq_buf_t *events_out, dlq_buf_t *cursor_out)
{
    dlq_buf_reset (events_out);
    dlq_buf_reset (cursor_out);
    return result_of (self, self->ops->store->list (self->instance, stream, limit, cursor, now_ms,
                                                    dlq_plugin_host_buf (events_out), dlq_plugin_host_buf (cursor_out)));
}

dlq_store_result_t
dlq_primary_stats (dlq_primary_t *self, dlq_buf_t *streams_out, int64_t *events_out, int64_t *bytes_out)
{
    dlq_buf_reset (streams_out);
    return result_of (self, self->ops->store->stats (self->instance, dlq_plugin_host_buf (streams_out),
                                                     events_out, bytes_out));
}

bool
dlq_primary_workbench (const dlq_primary_t *self)
{
    return self->workbench != NULL;
}

/* A sink's workbench call gets the filter as JSON. */
static char *
filter_json (const dlq_event_filter_t *filter)
{
    dlq_buf_t json = DLQ_BUF_INIT;
    dlq_event_filter_to_json (filter, &json);
    dlq_buf_putc (&json, '\0');
    return dlq_buf_steal (&json, NULL);
}

dlq_store_result_t
dlq_primary_query_list (dlq_primary_t *self, const dlq_event_filter_t *filter, size_t limit, const char *cursor,
                        int64_t now_ms, dlq_buf_t *events_out, dlq_buf_t *cursor_out)
{
    dlq_buf_reset (events_out);
    dlq_buf_reset (cursor_out);
    char *json = filter_json (filter);
    dlq_sink_status_t status = self->workbench->query_list (self->instance, json, limit, cursor, now_ms,
                                                            dlq_plugin_host_buf (events_out), dlq_plugin_host_buf (cursor_out));
    free (json);
    return result_of (self, status);
}

dlq_store_result_t
dlq_primary_query_count (dlq_primary_t *self, const dlq_event_filter_t *filter, int64_t now_ms, int64_t *count_out)
{
    char *json = filter_json (filter);
    dlq_sink_status_t status = self->workbench->query_count (self->instance, json, now_ms, count_out);
    free (json);
    return result_of (self, status);
}

dlq_store_result_t
dlq_primary_query_groups (dlq_primary_t *self, const dlq_event_filter_t *filter, size_t limit, int64_t now_ms,
                          dlq_buf_t *groups_out)
{
    dlq_buf_reset (groups_out);
    char *json = filter_json (filter);
    dlq_sink_status_t status = self->workbench->query_groups (self->instance, json, limit, now_ms,
                                                              dlq_plugin_host_buf (groups_out));
    free (json);
    return result_of (self, status);
}

dlq_store_result_t
dlq_primary_state (dlq_primary_t *self, const char *id, int64_t now_ms, dlq_sink_event_state_t *state_out)
{
    return result_of (self, self->workbench->state (self->instance, id, now_ms, state_out));
}

void
dlq_primary_use_marks (dlq_primary_t *self, dlq_mark_channel_t *marks)
{
    if (self->log_fed)
        self->marks = marks;
}

/* The marks through the spool (count ids); rc_out and state_out as
 * dlq_mark_channel_apply's (may be NULL). */
static dlq_store_result_t
mark_through_spool (dlq_primary_t *self, const char *const *ids, size_t count, dlq_sink_mark_t mark,
                    int64_t now_ms, int64_t retry_after_ms, dlq_store_result_t *rc_out,
                    dlq_sink_event_state_t *state_out)
{
    return dlq_mark_channel_apply (self->marks, ids, count, mark, now_ms, retry_after_ms, MARK_TIMEOUT_MS, rc_out,
                                   state_out, self->error, sizeof self->error);
}

dlq_store_result_t
dlq_primary_mark (dlq_primary_t *self, const char *id, dlq_sink_mark_t mark, int64_t now_ms,
                  int64_t retry_after_ms, dlq_sink_event_state_t *state_out)
{
    if (!self->marks)
        return result_of (self, self->workbench->mark (self->instance, id, mark, now_ms, retry_after_ms, state_out));
    /* no record for an event the store does not hold (the write verbs
     * wait for the index first, so it holds every acknowledged one) */
    dlq_sink_event_state_t before;
    dlq_store_result_t rc = dlq_primary_state (self, id, now_ms, &before);
    if (rc != DLQ_STORE_OK)
        return rc;
    dlq_store_result_t applied = DLQ_STORE_ERROR;
    rc = mark_through_spool (self, &id, 1, mark, now_ms, retry_after_ms, &applied, state_out);
    return rc == DLQ_STORE_OK ? applied : rc;
}

dlq_store_result_t
dlq_primary_mark_all (dlq_primary_t *self, const char *const *ids, size_t count, dlq_sink_mark_t mark,
                      int64_t now_ms, int64_t retry_after_ms)
{
    if (self->marks)
        return mark_through_spool (self, ids, count, mark, now_ms, retry_after_ms, NULL, NULL);
    dlq_store_result_t result = DLQ_STORE_OK;
    for (size_t i = 0; i < count; i++) {
        dlq_sink_event_state_t state;
        if (dlq_primary_mark (self, ids [i], mark, now_ms, retry_after_ms, &state) == DLQ_STORE_ERROR)
            result = DLQ_STORE_ERROR;
    }
    return result;
}

dlq_store_result_t
dlq_primary_claim (dlq_primary_t *self, const char *stream, const char *owner, int64_t pass_ms,
                   int32_t max_retries, size_t batch_size, int64_t now_ms, int64_t lease_until_ms,
                   dlq_buf_t *events_out)
{
    dlq_buf_reset (events_out);
    return result_of (self, self->workbench->claim (self->instance, stream, owner, pass_ms, max_retries,
                                                    batch_size, now_ms, lease_until_ms,
                                                    dlq_plugin_host_buf (events_out)));
}

bool
dlq_primary_checkpoints (const dlq_primary_t *self)
{
    return self->checkpoints != NULL;
}

dlq_store_result_t
dlq_primary_ckpt_write (dlq_primary_t *self, const dlq_sink_checkpoint_t *record, dlq_sink_ckpt_write_t kind,
                        bool remove, int64_t now_ms, dlq_buf_t *out)
{
    dlq_buf_reset (out);
    if (!remove)
        return result_of (self, self->checkpoints->write (self->instance, kind, record, now_ms, dlq_plugin_host_buf (out)));
    bool deleted = false;
    dlq_store_result_t rc = result_of (self, self->checkpoints->remove (self->instance, record->stream_name,
                                                                        &deleted));
    if (rc == DLQ_STORE_OK) {
        dlq_buf_puts (out, "{\"streamName\":");
        dlq_json_write_string (out, record->stream_name, strlen (record->stream_name));
        dlq_buf_printf (out, ",\"deleted\":%s}", deleted ? "true" : "false");
    }
    return rc;
}

dlq_store_result_t
dlq_primary_ckpt_get (dlq_primary_t *self, const char *stream, dlq_buf_t *out)
{
    dlq_buf_reset (out);
    return result_of (self, self->checkpoints->get (self->instance, stream, dlq_plugin_host_buf (out)));
}

dlq_store_result_t
dlq_primary_ckpt_list (dlq_primary_t *self, const char *prefix, size_t limit, const char *cursor,
                       dlq_buf_t *records_out, dlq_buf_t *cursor_out)
{
    dlq_buf_reset (records_out);
    dlq_buf_reset (cursor_out);
    return result_of (self, self->checkpoints->list (self->instance, prefix, limit, cursor,
                                                     dlq_plugin_host_buf (records_out), dlq_plugin_host_buf (cursor_out)));
}

bool
dlq_primary_sweeps (const dlq_primary_t *self)
{
    return !self->log_fed && self->ops->store->sweep;
}

bool
dlq_primary_config_sweeps (const dlqd_config_t *config)
{
    return config->primary_sink && dlq_plugin_config_ops (config->primary_sink)->store->sweep;
}

int64_t
dlq_primary_sweep (dlq_primary_t *self, int64_t now_ms, int64_t max_rows)
{
    int64_t deleted = self->ops->store->sweep (self->instance, now_ms, max_rows);
    if (deleted < 0)
        result_of (self, DLQ_SINK_STATUS_ERROR);
    return deleted;
}

const char *
dlq_primary_last_error (const dlq_primary_t *self)
{
    return self->error;
}
