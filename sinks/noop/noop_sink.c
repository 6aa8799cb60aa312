/*  noop_sink — the sink that accepts every event and keeps nothing.
 *
 *  The gateway's counterpart of FlowWarden's DlqStore.noOp(): every event of
 *  every batch is OK at once, and the only trace it leaves is the sink's
 *  "delivered" counter. It has no settings and cannot be the primary store.
 *  Useful for tests and benchmarks that do not care where events go; not a
 *  production choice, since what it is given is gone.
 */
#include "dlq_sink.h"

#include <stdlib.h>

/* One instance: what it needs to count. */
typedef struct {
    const dlq_sink_host_t   *host;
    const dlq_sink_config_t *config;
} noop_sink_t;

static const dlq_sink_setting_t noop_settings [] = {
    { .name = NULL }
};

/* Make an instance; nothing can fail but the allocation. */
static dlq_sink_status_t
noop_init (const dlq_sink_host_t *host, const dlq_sink_config_t *config,
           dlq_sink_mode_t mode, void **instance, char *err, size_t err_len)
{
    noop_sink_t *self = calloc (1, sizeof *self);
    if (!self)
        abort ();
    self->host = host;
    self->config = config;
    *instance = self;
    return DLQ_SINK_STATUS_OK;
}

/* Every event is OK (the gateway zeroed outcomes to OK): count them. */
static void
noop_deliver (void *instance, const dlq_sink_event_t *events, size_t count,
              dlq_sink_outcome_t *outcomes, int64_t deadline_mono_ms)
{
    noop_sink_t *self = instance;
    for (size_t i = 0; i < count; i++)
        outcomes [i].result = DLQ_SINK_OK;
    self->host->count (self->config, "delivered", count);
}

/* Free an instance. */
static void
noop_destroy (void *instance)
{
    free (instance);
}

DLQ_SINK_EXPORT const dlq_sink_ops_t dlq_sink_entry = {
    .abi_version = DLQ_SINK_ABI_VERSION,
    .struct_size = sizeof (dlq_sink_ops_t),
    .type        = "noop",
    .description = "accepts every event and keeps nothing (tests, benchmarks)",
    .settings    = noop_settings,
    .max_batch   = 0,
    .init        = noop_init,
    .deliver     = noop_deliver,
    .destroy     = noop_destroy,
    .store       = NULL
};
