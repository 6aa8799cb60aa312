/*  replay_config — the per-stream replay route and schedule (see the header). */
#include "replay_config.h"

#include <string.h>

/* replay_route = "endpoint" | "<sink name>". */
static bool
read_route (const config_setting_t *g, const dlq_replay_read_t *ctx, dlq_policy_t *policy, dlq_config_error_t *err)
{
    const config_setting_t *s = config_setting_get_member (g, "replay_route");
    if (!s)
        return true;
    const char *name = config_setting_get_string (s);
    if (!name)
        return dlq_config_fail (err, s, "expected a string: \"endpoint\" or the name of a sink in sinks");
    if (strcmp (name, "endpoint") == 0) {
        if (!ctx->have_endpoint)
            return dlq_config_fail (err, s, "\"endpoint\" needs replay.listen (the replay endpoint's address)");
        policy->replay_route = DLQ_REPLAY_ROUTE_ENDPOINT;
        return true;
    }
    for (size_t i = 0; i < ctx->sink_count; i++)
        if (strcmp (dlq_plugin_config_name (ctx->sinks [i]), name) == 0 && dlq_plugin_config_ops (ctx->sinks [i])->deliver) {
            policy->replay_route = DLQ_REPLAY_ROUTE_SINK;
            policy->replay_sink = (uint32_t) dlq_plugin_config_index (ctx->sinks [i]);
            return true;
        }
    return dlq_config_fail (err, s, "expected \"endpoint\" or the name of a sink in sinks that delivers, "
                            "got \"%s\"", name);
}

bool
dlq_replay_policy_read (const config_setting_t *g, const dlq_replay_read_t *ctx, bool allow_schedule,
                        dlq_policy_t *policy, dlq_config_error_t *err)
{
    if (!read_route (g, ctx, policy, err))
        return false;
    const config_setting_t *s = config_setting_get_member (g, "schedule");
    policy->schedule = (dlq_schedule_t) { false, 0, 0, 0 };
    if (!s)
        return true;
    if (!allow_schedule)
        return dlq_config_fail (err, s, "a schedule belongs to a stream in streams, not to the defaults");
    if (config_setting_type (s) != CONFIG_TYPE_GROUP)
        return dlq_config_fail (err, s, "expected a group { enabled = true; max_retries = ...; ... }");
    const char *prefix = "streams.[i].schedule.";
    if (!dlq_config_set_defaults (ctx->rows, ctx->row_count, prefix, ctx->schedule_home, &policy->schedule)
    ||  !dlq_config_read (s, ctx->rows, ctx->row_count, prefix, ctx->schedule_home, &policy->schedule, err))
        return false;
    if (policy->schedule.enabled && policy->replay_route == DLQ_REPLAY_ROUTE_NONE)
        return dlq_config_fail (err, s, "a schedule needs the stream's replay_route (where replays go)");
    return true;
}

bool
dlq_replay_primary_keeps_state (const dlq_sink_ops_t *ops)
{
    return DLQ_SINK_OPS_HAS (ops, workbench) && ops->workbench
        && ops->workbench->struct_size >= sizeof (dlq_sink_workbench_ops_t) && ops->workbench->claim;
}
