/*  fuzz_sinks — the linked sink types of the harnesses (see the header). */
#include "fuzz_sinks.h"

#include "dlq_sink.h"
#include "plugin.h"

#include <stdio.h>
#include <string.h>

static int instance_token;          /* what every instance points at: nothing to free */

static dlq_sink_status_t
sink_init (const dlq_sink_host_t *host, const dlq_sink_config_t *config, dlq_sink_mode_t mode,
           void **instance, char *err, size_t err_len)
{
    *instance = &instance_token;
    return DLQ_SINK_STATUS_OK;
}

static void
sink_destroy (void *instance)
{
}

/* Every event is OK (the gateway zeroed the outcomes). */
static void
sink_deliver (void *instance, const dlq_sink_event_t *events, size_t count, dlq_sink_outcome_t *outcomes,
              int64_t deadline_mono_ms)
{
}

static dlq_sink_status_t
typed_check (const dlq_sink_host_t *host, const dlq_sink_config_t *config, char *err, size_t err_len)
{
    const char *mode = host->config_string (config, NULL, "mode");
    if (mode && strcmp (mode, "refuse") == 0) {
        snprintf (err, err_len, "mode \"refuse\" is refused");
        return DLQ_SINK_STATUS_ERROR;
    }
    return DLQ_SINK_STATUS_OK;
}

static dlq_sink_status_t
store_get (void *instance, const char *id, int64_t now_ms, dlq_sink_buf_t *event_out)
{
    return DLQ_SINK_STATUS_ERROR;
}

static dlq_sink_status_t
store_list (void *instance, const char *stream, size_t limit, const char *cursor, int64_t now_ms,
            dlq_sink_buf_t *events_out, dlq_sink_buf_t *cursor_out)
{
    return DLQ_SINK_STATUS_ERROR;
}

static dlq_sink_status_t
store_stats (void *instance, dlq_sink_buf_t *streams_out, int64_t *events_out, int64_t *bytes_out)
{
    return DLQ_SINK_STATUS_ERROR;
}

static dlq_sink_status_t
wb_list (void *instance, const char *filter_json, size_t limit, const char *cursor, int64_t now_ms,
         dlq_sink_buf_t *events_out, dlq_sink_buf_t *cursor_out)
{
    return DLQ_SINK_STATUS_ERROR;
}

static dlq_sink_status_t
wb_count (void *instance, const char *filter_json, int64_t now_ms, int64_t *count_out)
{
    return DLQ_SINK_STATUS_ERROR;
}

static dlq_sink_status_t
wb_groups (void *instance, const char *filter_json, size_t limit, int64_t now_ms, dlq_sink_buf_t *groups_out)
{
    return DLQ_SINK_STATUS_ERROR;
}

static dlq_sink_status_t
wb_state (void *instance, const char *id, int64_t now_ms, dlq_sink_event_state_t *state_out)
{
    return DLQ_SINK_STATUS_ERROR;
}

static dlq_sink_status_t
wb_mark (void *instance, const char *id, dlq_sink_mark_t mark, int64_t now_ms, int64_t retry_after_ms,
         dlq_sink_event_state_t *state_out)
{
    return DLQ_SINK_STATUS_ERROR;
}

static dlq_sink_status_t
wb_claim (void *instance, const char *stream, const char *owner, int64_t pass_ms, int32_t max_retries,
          size_t batch_size, int64_t now_ms, int64_t lease_until_ms, dlq_sink_buf_t *events_out)
{
    return DLQ_SINK_STATUS_ERROR;
}

static const dlq_sink_setting_t typed_settings [] = {
    { "depth", DLQ_SINK_SETTING_INT, "3", 0, 100, true, "an integer, per stream too" },
    { "limit", DLQ_SINK_SETTING_INT, NULL, -5, 5, false, "an integer without a default" },
    { "strict", DLQ_SINK_SETTING_BOOL, "false", 0, 0, true, "a flag, per stream too" },
    { "mode", DLQ_SINK_SETTING_STRING, "fast", 1, 16, false, "a string of 1 to 16 bytes" },
    { "topic", DLQ_SINK_SETTING_STRING, NULL, 0, 255, true, "a string, per stream too" },
    { "options", DLQ_SINK_SETTING_STRING_LIST, NULL, 0, 64, false, "driver options \"key=value\"" },
    { .name = NULL }
};

static const dlq_sink_setting_t no_settings [] = { { .name = NULL } };

static const dlq_sink_store_ops_t store_calls = { store_get, store_list, store_stats, NULL, NULL };

static const dlq_sink_workbench_ops_t workbench_calls = {
    sizeof (dlq_sink_workbench_ops_t), wb_list, wb_count, wb_groups, wb_state, wb_mark, wb_claim
};

#define OPS_HEAD(name) .abi_version = DLQ_SINK_ABI_VERSION, .struct_size = sizeof (dlq_sink_ops_t), \
                       .type = name, .description = "linked into the fuzz harnesses", \
                       .init = sink_init, .destroy = sink_destroy

static const dlq_sink_ops_t noop_ops = { OPS_HEAD ("noop"), .settings = no_settings, .deliver = sink_deliver };
static const dlq_sink_ops_t typed_ops = { OPS_HEAD ("typed"), .settings = typed_settings, .deliver = sink_deliver,
                                          .check = typed_check };
static const dlq_sink_ops_t store_ops = { OPS_HEAD ("store"), .settings = no_settings, .deliver = sink_deliver,
                                          .store = &store_calls };
static const dlq_sink_ops_t keeper_ops = { OPS_HEAD ("keeper"), .settings = typed_settings,
                                           .deliver = sink_deliver, .store = &store_calls,
                                           .workbench = &workbench_calls };

/* The embedded store's plugin, linked in (dlq_embedded_linked): every
 * config loads it (dlqd_config.h: store), and the gateway runs on it. */
extern const dlq_sink_ops_t dlq_sink_entry;

static const dlq_sink_ops_t *const linked [] = { &noop_ops, &typed_ops, &store_ops, &keeper_ops, &dlq_sink_entry,
                                                 NULL };

void
fuzz_sinks_link (void)
{
    dlq_plugin_use_linked (linked);
}
