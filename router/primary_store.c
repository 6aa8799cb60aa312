/*  primary_store — queries on the spool or on a query-capable sink. */
#include "primary_store.h"

#include "embedded_query.h"

#include "dlq_alloc.h"
#include "sink_host.h"

#include <stdio.h>
#include <stdlib.h>

struct dlq_primary {
    dlq_embedded_t             *spool;      /* when the primary is the spool */
    const dlq_sink_ops_t       *ops;        /* else the sink's */
    void                       *instance;
    char                        error [512];
};

dlq_primary_t *
dlq_primary_open (const dlqd_config_t *config, dlq_embedded_t *spool, char *err, size_t err_len)
{
    dlq_primary_t *self = dlq_calloc (1, sizeof *self);
    if (!config->primary_sink) {
        self->spool = spool;
        return self;
    }
    self->ops = dlq_sink_config_ops (config->primary_sink);
    char why [256] = "";
    if (self->ops->init (dlq_sink_host (), config->primary_sink, DLQ_SINK_MODE_QUERY,
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
    if (self->instance)
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
        default:
            snprintf (self->error, sizeof self->error, "%s",
                      self->ops->store->last_error ? self->ops->store->last_error (self->instance)
                                                   : "the primary store failed (see its log)");
            return DLQ_STORE_ERROR;
    }
}

dlq_store_result_t
dlq_primary_get (dlq_primary_t *self, const char *id, int64_t now_ms, dlq_buf_t *out)
{
    if (self->spool)
        return dlq_embedded_get (self->spool, id, now_ms, out);
    dlq_buf_reset (out);
    return result_of (self, self->ops->store->get (self->instance, id, now_ms, dlq_sink_buf (out)));
}

dlq_store_result_t
dlq_primary_list (dlq_primary_t *self, const char *stream, size_t limit, const char *cursor,
                  int64_t now_ms, dlq_buf_t *events_out, dlq_buf_t *cursor_out)
{
    if (self->spool)
        return dlq_embedded_list (self->spool, stream, limit, cursor, now_ms, events_out, cursor_out);
    dlq_buf_reset (events_out);
    dlq_buf_reset (cursor_out);
    return result_of (self, self->ops->store->list (self->instance, stream, limit, cursor, now_ms,
                                                    dlq_sink_buf (events_out), dlq_sink_buf (cursor_out)));
}

dlq_store_result_t
dlq_primary_stats (dlq_primary_t *self, dlq_buf_t *streams_out, int64_t *events_out, int64_t *bytes_out)
{
    if (self->spool)
        return dlq_embedded_stats (self->spool, streams_out, events_out, bytes_out);
    dlq_buf_reset (streams_out);
    return result_of (self, self->ops->store->stats (self->instance, dlq_sink_buf (streams_out),
                                                     events_out, bytes_out));
}

bool
dlq_primary_filters (const dlq_primary_t *self)
{
    return self->spool != NULL;
}

dlq_store_result_t
dlq_primary_query_list (dlq_primary_t *self, const dlq_event_filter_t *filter, size_t limit, const char *cursor,
                        int64_t now_ms, dlq_buf_t *events_out, dlq_buf_t *cursor_out)
{
    return dlq_embedded_query_list (self->spool, filter, limit, cursor, now_ms, events_out, cursor_out);
}

dlq_store_result_t
dlq_primary_query_count (dlq_primary_t *self, const dlq_event_filter_t *filter, int64_t now_ms, int64_t *count_out)
{
    return dlq_embedded_query_count (self->spool, filter, now_ms, count_out);
}

dlq_store_result_t
dlq_primary_query_groups (dlq_primary_t *self, const dlq_event_filter_t *filter, size_t limit, int64_t now_ms,
                          dlq_buf_t *groups_out)
{
    return dlq_embedded_query_groups (self->spool, filter, limit, now_ms, groups_out);
}

bool
dlq_primary_sweeps (const dlq_primary_t *self)
{
    return !self->spool && self->ops->store->sweep;
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
    return self->spool ? dlq_embedded_last_error (self->spool) : self->error;
}
