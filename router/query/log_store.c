/*  log_store — the embedded store through its plugin's log calls (see the header). */
#include "log_store.h"

#include "dlq_alloc.h"
#include "dlq_time.h"
#include "plugin_config.h"
#include "plugin_host.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dlq_log_store {
    const dlq_sink_ops_t     *ops;
    const dlq_sink_log_ops_t *log;
    void                     *instance;
};

dlq_log_store_t *
dlq_log_store_open (const dlq_sink_config_t *store, dlq_sink_mode_t mode, char *err, size_t err_len)
{
    const dlq_sink_ops_t *ops = dlq_plugin_config_ops (store);
    if (!DLQ_SINK_OPS_HAS (ops, log) || !ops->log) {
        snprintf (err, err_len, "the store %s has no log calls", dlq_plugin_config_path (store));
        return NULL;
    }
    dlq_log_store_t *self = dlq_calloc (1, sizeof *self);
    self->ops = ops;
    self->log = ops->log;
    char why [400] = "";
    if (ops->init (dlq_plugin_host (), store, mode, &self->instance, why, sizeof why) != DLQ_SINK_STATUS_OK) {
        snprintf (err, err_len, "the embedded store: %s", why [0] ? why : "it cannot be opened (see the log)");
        free (self);
        return NULL;
    }
    return self;
}

void
dlq_log_store_close (dlq_log_store_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_log_store_t *self = *self_p;
    self->ops->destroy (self->instance);
    free (self);
    *self_p = NULL;
}

const dlq_sink_log_ops_t *dlq_log_store_ops (const dlq_log_store_t *self) { return self->log; }
void *dlq_log_store_instance (const dlq_log_store_t *self) { return self->instance; }

/* A status as a store result. */
static dlq_store_result_t
result_of (dlq_sink_status_t status)
{
    return status == DLQ_SINK_STATUS_OK ? DLQ_STORE_OK
         : status == DLQ_SINK_STATUS_NOT_FOUND ? DLQ_STORE_NOT_FOUND
         : status == DLQ_SINK_STATUS_BAD_CURSOR ? DLQ_STORE_BAD_CURSOR : DLQ_STORE_ERROR;
}

bool
dlq_log_store_position (dlq_log_store_t *self, uint64_t *position_out, bool *failed)
{
    bool indexed = false;
    *failed = self->log->position (self->instance, position_out, &indexed) != DLQ_SINK_STATUS_OK;
    return !*failed && indexed;
}

int64_t dlq_log_store_count (dlq_log_store_t *self) { return self->log->count (self->instance); }
int64_t dlq_log_store_last_seq (dlq_log_store_t *self) { return self->log->last_seq (self->instance); }

dlq_store_result_t
dlq_log_store_seq_of (dlq_log_store_t *self, const char *id, int64_t *seq_out)
{
    return result_of (self->log->seq_of (self->instance, id, seq_out));
}

dlq_store_result_t
dlq_log_store_get (dlq_log_store_t *self, const char *id, int64_t now_ms, dlq_buf_t *out)
{
    dlq_buf_reset (out);
    return result_of (self->ops->store->get (self->instance, id, now_ms, dlq_plugin_host_buf (out)));
}

/* ---- the archive -------------------------------------------------------------- */

static char *
copy (const char *text)
{
    return text ? dlq_strdup (text) : NULL;
}

typedef struct {
    dlq_log_store_event_fn *fn;
    void                   *arg;
    int64_t                 last_seq;
} read_arg_t;

/* The ABI's event as the gateway's partial one. */
static void
take (int64_t seq, const dlq_sink_event_t *e, void *arg)
{
    read_arg_t *a = arg;
    dlq_event_t *event = dlq_calloc (1, sizeof *event);
    event->id = copy (e->id);
    event->stream_name = copy (e->stream_name);
    event->operation_type = copy (e->operation_type);
    event->status = copy (e->status);
    event->document_key = copy (e->document_key);
    event->attempts = e->attempts;
    event->first_attempt_at = e->first_attempt_at;
    event->last_attempt_at = DLQ_TIME_NONE;
    event->created_at = e->created_at;
    event->expires_at = e->expires_at;
    event->json = dlq_strndup (e->json, e->json_len);
    event->json_len = e->json_len;
    a->last_seq = seq;
    a->fn (seq, event, a->arg);
}

int64_t
dlq_log_store_read_after (dlq_log_store_t *self, int64_t after, size_t limit, dlq_log_store_event_fn *fn,
                          void *arg)
{
    read_arg_t a = { fn, arg, -1 };
    return self->log->read_after (self->instance, after, limit, take, &a);
}

static void
keep (int64_t seq, dlq_event_t *event, void *arg)
{
    (void) seq;
    *(dlq_event_t **) arg = event;
}

dlq_store_result_t
dlq_log_store_read_seq (dlq_log_store_t *self, int64_t seq, dlq_event_t **event_out)
{
    *event_out = NULL;
    dlq_event_t *event = NULL;
    read_arg_t a = { keep, &event, -1 };
    if (self->log->read_after (self->instance, seq - 1, 1, take, &a) < 0)
        return DLQ_STORE_ERROR;
    if (event && a.last_seq == seq) {
        *event_out = event;
        return DLQ_STORE_OK;
    }
    dlq_event_destroy (&event);
    return DLQ_STORE_NOT_FOUND;
}

int64_t
dlq_log_store_count_between (dlq_log_store_t *self, int64_t after, int64_t below)
{
    return self->log->count_between (self->instance, after, below);
}

const char *
dlq_log_store_last_error (const dlq_log_store_t *self)
{
    const char *why = self->ops->store->last_error ? self->ops->store->last_error (self->instance) : NULL;
    return why && why [0] ? why : "the embedded store failed (see its log)";
}
