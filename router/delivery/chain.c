/*  chain — a dispatcher and a status per configured sink. */
#include "chain.h"

#include "dispatcher.h"
#include "dlq_alloc.h"
#include "dlq_log.h"

#include <stdlib.h>
#include <string.h>

struct dlq_chain {
    const dlqd_config_t *config;
    dlq_dispatcher_t   **dispatchers;
    dlq_delivery_health_t  **statuses;
    size_t               count;
};

dlq_chain_t *
dlq_chain_new (void *zmq_ctx, const dlqd_config_t *config, dlq_ledger_channel_t *ledger,
                    dlq_spool_t *spool, const char *tip_endpoint, char **err_p)
{
    dlq_chain_t *self = dlq_calloc (1, sizeof *self);
    self->config = config;
    self->dispatchers = dlq_calloc (config->sink_count + 1, sizeof (dlq_dispatcher_t *));
    self->statuses = dlq_calloc (config->sink_count + 1, sizeof (dlq_delivery_health_t *));
    for (size_t i = 0; i < config->sink_count; i++) {
        self->statuses [i] = dlq_delivery_health_new ();
        dlq_dispatcher_args_t args = {
            .zmq_ctx = zmq_ctx, .data_dir = config->data_dir, .tip_endpoint = tip_endpoint, .spool = spool,
            .sink = config->sinks [i], .config = config, .policies = config->policies, .ledger = ledger,
            .status = self->statuses [i],
        };
        char err [1024];
        self->dispatchers [i] = dlq_dispatcher_new (&args, err, sizeof err);
        self->count = i + 1;
        if (!self->dispatchers [i]) {
            *err_p = dlq_strdup (err);
            dlq_chain_destroy (&self);
            return NULL;
        }
        const dlq_dispatch_settings_t *d = dlq_plugin_config_dispatch (config->sinks [i]);
        dlq_log (DLQ_LOG_INFO, "sink %s (%s) started: batches of %lld, retry up to %lld times",
                 dlq_plugin_config_name (config->sinks [i]), dlq_plugin_config_ops (config->sinks [i])->type,
                 (long long) d->batch_max, (long long) d->max_attempts);
    }
    return self;
}

void
dlq_chain_destroy (dlq_chain_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_chain_t *self = *self_p;
    for (size_t i = 0; i < self->count; i++) {
        dlq_dispatcher_destroy (&self->dispatchers [i]);
        dlq_delivery_health_destroy (&self->statuses [i]);
    }
    free (self->dispatchers);
    free (self->statuses);
    free (self);
    *self_p = NULL;
}

size_t dlq_chain_count (const dlq_chain_t *self) { return self->count; }

int
dlq_chain_find (const dlq_chain_t *self, const char *name)
{
    for (size_t i = 0; i < self->count; i++)
        if (strcmp (dlq_plugin_config_name (self->config->sinks [i]), name) == 0)
            return (int) i;
    return -1;
}

dlq_delivery_health_t *dlq_chain_health (const dlq_chain_t *self, size_t i) { return self->statuses [i]; }

void
dlq_chain_submit (dlq_chain_t *self, size_t i, zmq_msg_t frames [DLQ_REQUEST_FRAMES])
{
    dlq_dispatcher_submit (self->dispatchers [i], frames);
}

void *dlq_chain_socket (dlq_chain_t *self, size_t i) { return dlq_dispatcher_socket (self->dispatchers [i]); }

bool
dlq_chain_forward (dlq_chain_t *self, size_t i, void *out)
{
    return dlq_dispatcher_forward (self->dispatchers [i], out);
}

size_t
dlq_chain_outstanding (const dlq_chain_t *self)
{
    size_t n = 0;
    for (size_t i = 0; i < self->count; i++)
        n += dlq_dispatcher_outstanding (self->dispatchers [i]);
    return n;
}
