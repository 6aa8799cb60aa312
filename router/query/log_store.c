/*  log_store — the embedded store through its plugin's log calls, or the
 *  state file's ids beside a read-only archive (see the header). */
#include "log_store.h"

#include "dlq_alloc.h"
#include "dlq_time.h"
#include "id_store.h"
#include "plugin_config.h"
#include "plugin_host.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The embedded store's file in data_dir (sinks/embedded): whether one was
 * ever made there is all this module asks of it. */
#define EMBEDDED_FILE "dlq.sqlite"

/* An instance of the embedded store's plugin. */
typedef struct {
    const dlq_sink_ops_t *ops;
    void                 *instance;
} plugin_t;

struct dlq_log_store {
    const dlq_sink_log_ops_t *log;      /* the plugin's, or the id store's */
    void                     *instance;
    plugin_t                  embedded;  /* the primary's, or the archive (instance NULL: none) */
    dlq_id_store_t           *ids;       /* with a sink primary */
};

static bool
plugin_open (const dlq_sink_config_t *store, dlq_sink_mode_t mode, plugin_t *out, char *err, size_t err_len)
{
    const dlq_sink_ops_t *ops = dlq_plugin_config_ops (store);
    if (!DLQ_SINK_OPS_HAS (ops, log) || !ops->log) {
        snprintf (err, err_len, "the store %s has no log calls", dlq_plugin_config_path (store));
        return false;
    }
    char why [400] = "";
    if (ops->init (dlq_plugin_host (), store, mode, &out->instance, why, sizeof why) != DLQ_SINK_STATUS_OK) {
        snprintf (err, err_len, "the embedded store: %s", why [0] ? why : "it cannot be opened (see the log)");
        out->instance = NULL;
        return false;
    }
    out->ops = ops;
    return true;
}

static void
plugin_close (plugin_t *plugin)
{
    if (plugin->instance)
        plugin->ops->destroy (plugin->instance);
    plugin->instance = NULL;
}

/* Take the embedded store's ids over into the id store, once. */
static bool
take_over (dlq_log_store_t *self, const dlqd_config_t *config, char *err, size_t err_len)
{
    bool done = false;
    if (!dlq_id_store_taken_over (self->ids, &done)) {
        snprintf (err, err_len, "%s", dlq_id_store_last_error (self->ids));
        return false;
    }
    if (done)
        return true;
    plugin_t from = { 0 };
    if (!plugin_open (config->store, DLQ_SINK_MODE_INDEX, &from, err, err_len))
        return false;
    bool ok = dlq_id_store_take_over (self->ids, from.ops->log, from.instance);
    if (!ok)
        snprintf (err, err_len, "%s", dlq_id_store_last_error (self->ids));
    plugin_close (&from);
    return ok;
}

/* With a sink primary: the state file's ids, and the archive a data_dir
 * that held an embedded store keeps. */
static bool
open_ids (dlq_log_store_t *self, const dlqd_config_t *config, char *err, size_t err_len)
{
    self->ids = dlq_id_store_open (config->data_dir, err, err_len);
    if (!self->ids)
        return false;
    self->log = dlq_id_store_log_ops ();
    self->instance = self->ids;
    char path [PATH_MAX];
    snprintf (path, sizeof path, "%s/%s", config->data_dir, EMBEDDED_FILE);
    if (access (path, F_OK) != 0)
        return true;
    return take_over (self, config, err, err_len)
        && plugin_open (config->store, DLQ_SINK_MODE_QUERY, &self->embedded, err, err_len);
}

dlq_log_store_t *
dlq_log_store_open (const dlqd_config_t *config, dlq_sink_mode_t mode, char *err, size_t err_len)
{
    dlq_log_store_t *self = dlq_calloc (1, sizeof *self);
    bool ok;
    if (config->primary_sink)
        ok = open_ids (self, config, err, err_len);
    else {
        ok = plugin_open (config->store, mode, &self->embedded, err, err_len);
        if (ok) {
            self->log = self->embedded.ops->log;
            self->instance = self->embedded.instance;
        }
    }
    if (!ok)
        dlq_log_store_close (&self);
    return self;
}

void
dlq_log_store_close (dlq_log_store_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_log_store_t *self = *self_p;
    plugin_close (&self->embedded);
    dlq_id_store_destroy (&self->ids);
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

int64_t
dlq_log_store_last_seq (dlq_log_store_t *self)
{
    int64_t last = self->log->last_seq (self->instance);
    if (last < 0 || !self->ids || !self->embedded.instance)
        return last;
    int64_t archived = self->embedded.ops->log->last_seq (self->embedded.instance);
    return archived < 0 || archived > last ? archived : last;
}

dlq_store_result_t
dlq_log_store_seq_of (dlq_log_store_t *self, const char *id, int64_t *seq_out)
{
    return result_of (self->log->seq_of (self->instance, id, seq_out));
}

dlq_store_result_t
dlq_log_store_get (dlq_log_store_t *self, const char *id, int64_t now_ms, dlq_buf_t *out)
{
    dlq_buf_reset (out);
    if (!self->embedded.instance)
        return DLQ_STORE_NOT_FOUND;
    return result_of (self->embedded.ops->store->get (self->embedded.instance, id, now_ms, dlq_plugin_host_buf (out)));
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
    if (!self->embedded.instance)
        return 0;
    read_arg_t a = { fn, arg, -1 };
    return self->embedded.ops->log->read_after (self->embedded.instance, after, limit, take, &a);
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
    if (!self->embedded.instance)
        return DLQ_STORE_NOT_FOUND;
    dlq_event_t *event = NULL;
    read_arg_t a = { keep, &event, -1 };
    if (self->embedded.ops->log->read_after (self->embedded.instance, seq - 1, 1, take, &a) < 0)
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
    if (!self->embedded.instance)
        return 0;
    return self->embedded.ops->log->count_between (self->embedded.instance, after, below);
}

const char *
dlq_log_store_last_error (const dlq_log_store_t *self)
{
    if (self->ids) {
        const char *why = dlq_id_store_last_error (self->ids);
        if (why && why [0])
            return why;
    }
    const char *why = self->embedded.instance && self->embedded.ops->store->last_error
                    ? self->embedded.ops->store->last_error (self->embedded.instance) : NULL;
    return why && why [0] ? why : "the embedded store failed (see its log)";
}
