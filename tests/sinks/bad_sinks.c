/*  bad_sinks — plugins that are wrong on purpose, one per BAD_KIND, to test
 *  that the loader refuses them cleanly:
 *    1 abi      an ABI version this dlqd does not speak
 *    2 size     a dlq_sink_ops_t of the wrong size
 *    3 init     a plugin whose init fails
 *    4 noentry  a shared object without the entry symbol
 *    5 older    not bad: the ops table of version 1's first header (before
 *               check was added), which must still load
 *    6 nolog    type "embedded" without the log calls: the embedded store's
 *               plugin of a release before them, which a gateway refuses
 */
#include "dlq_sink.h"

#include <stdio.h>

static dlq_sink_status_t
bad_init (const dlq_sink_host_t *host, const dlq_sink_config_t *config, dlq_sink_mode_t mode,
          void **instance, char *err, size_t err_len)
{
    (void) host, (void) config, (void) mode;
    *instance = NULL;
    if (BAD_KIND == 3) {
        snprintf (err, err_len, "cannot reach the backend at 192.0.2.1:1 (on purpose)");
        return DLQ_SINK_STATUS_ERROR;
    }
    return DLQ_SINK_STATUS_OK;
}

static void
bad_deliver (void *instance, const dlq_sink_event_t *events, size_t count,
             dlq_sink_outcome_t *outcomes, int64_t deadline_mono_ms)
{
    (void) instance, (void) events, (void) count, (void) outcomes, (void) deadline_mono_ms;
}

static void bad_destroy (void *instance) { (void) instance; }

static const dlq_sink_setting_t nolog_settings [] = {
    { "data_dir", DLQ_SINK_SETTING_STRING, NULL, 1, 4096, false, "as the embedded store's" },
    { .name = NULL }
};

#if BAD_KIND == 4
DLQ_SINK_EXPORT const dlq_sink_ops_t not_the_entry = {
#else
DLQ_SINK_EXPORT const dlq_sink_ops_t dlq_sink_entry = {
#endif
    .abi_version = BAD_KIND == 1 ? 99 : DLQ_SINK_ABI_VERSION,
    .struct_size = BAD_KIND == 2 ? DLQ_SINK_OPS_V1_SIZE - 8
                 : BAD_KIND == 5 ? DLQ_SINK_OPS_V1_SIZE : sizeof (dlq_sink_ops_t),
    .type        = BAD_KIND == 6 ? "embedded" : "bad",
    .settings    = BAD_KIND == 6 ? nolog_settings : NULL,
    .description = "a plugin that is wrong on purpose",
    .init        = bad_init,
    .deliver     = bad_deliver,
    .destroy     = bad_destroy,
};
