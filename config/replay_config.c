/*  replay_config — read the replay group and the per-stream replay route
 *  and schedule, validated against the tables below.
 */
#include "replay_config.h"

#include "dlq_alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DAY_MS 86400000LL

static const dlq_setting_spec_t dlq_replay_schema [] = {
    { "listen",         DLQ_SETTING_STRING, 1, 1024, "the ZeroMQ replay endpoint workers connect to (PULL)" },
    { "rate",           DLQ_SETTING_INT, 1, 100000, "events per second of a replay job unless it says" },
    { "max_replays",    DLQ_SETTING_INT, 0, 1000000, "replays of one event before it is QUARANTINED" },
    { "backoff_ms",     DLQ_SETTING_INT, 0, 30 * DAY_MS, "FAIL: the first retry delay, doubled per retry" },
    { "backoff_max_ms", DLQ_SETTING_INT, 0, 365 * DAY_MS, "FAIL: the longest retry delay" },
    { "lease_ms",       DLQ_SETTING_INT, 0, 365 * DAY_MS, "a replayed event is not due for a scheduled pass for this long" },
    { "owner",          DLQ_SETTING_STRING, 1, 255, "this instance's name in scheduler locks" },
    { NULL }
};

static const dlq_setting_spec_t schedule_schema [] = {
    { "enabled",     DLQ_SETTING_BOOL, 0, 0, "run scheduled passes for the stream" },
    { "max_retries", DLQ_SETTING_INT, 1, 1000000, "events with this many FAILs are left alone" },
    { "batch_size",  DLQ_SETTING_INT, 1, 100000, "events replayed per pass, at most" },
    { "interval_ms", DLQ_SETTING_INT, 100, 365 * DAY_MS, "time between passes" },
    { NULL }
};

void
dlq_replay_config_defaults (dlqd_replay_config_t *r)
{
    char host [256] = "dlqd";
    gethostname (host, sizeof host - 1);
    host [sizeof host - 1] = '\0';
    char owner [300];
    snprintf (owner, sizeof owner, "%s:%ld", host, (long) getpid ());
    *r = (dlqd_replay_config_t) {
        .rate = 100, .max_replays = 10, .backoff_ms = 60000, .backoff_max_ms = 6 * 3600000LL,
        .lease_ms = 600000, .owner = dlq_strdup (owner)
    };
}

bool
dlq_replay_config_read (const config_setting_t *g, dlqd_replay_config_t *r, dlq_config_error_t *err)
{
    if (!g)
        return true;
    char *owner = NULL;
    bool ok = dlq_config_check_group (g, dlq_replay_schema, err)
           && dlq_config_string (g, dlq_replay_schema, "listen", &r->listen, err)
           && dlq_config_int (g, dlq_replay_schema, "rate", &r->rate, err)
           && dlq_config_int (g, dlq_replay_schema, "max_replays", &r->max_replays, err)
           && dlq_config_int (g, dlq_replay_schema, "backoff_ms", &r->backoff_ms, err)
           && dlq_config_int (g, dlq_replay_schema, "backoff_max_ms", &r->backoff_max_ms, err)
           && dlq_config_int (g, dlq_replay_schema, "lease_ms", &r->lease_ms, err)
           && dlq_config_string (g, dlq_replay_schema, "owner", &owner, err);
    if (owner) {
        free (r->owner);
        r->owner = owner;
    }
    /* the error names the setting the file has: backoff_max_ms, or, when
     * it is left at its default, backoff_ms */
    const config_setting_t *max = config_setting_get_member (g, "backoff_max_ms");
    if (ok && r->backoff_max_ms < r->backoff_ms)
        ok = max ? dlq_config_fail (err, max, "expected at least backoff_ms (%lld)", (long long) r->backoff_ms)
                 : dlq_config_fail (err, config_setting_get_member (g, "backoff_ms"),
                                    "expected at most backoff_max_ms (%lld, its default)",
                                    (long long) r->backoff_max_ms);
    return ok;
}

/* replay_route = "endpoint" | "<sink name>". */
static bool
read_route (const config_setting_t *g, const dlqd_config_t *c, dlq_policy_t *policy, dlq_config_error_t *err)
{
    const config_setting_t *s = config_setting_get_member (g, "replay_route");
    if (!s)
        return true;
    const char *name = config_setting_get_string (s);
    if (!name)
        return dlq_config_fail (err, s, "expected a string: \"endpoint\" or the name of a sink in sinks");
    if (strcmp (name, "endpoint") == 0) {
        if (!c->replay.listen)
            return dlq_config_fail (err, s, "\"endpoint\" needs replay.listen (the replay endpoint's address)");
        policy->replay_route = DLQ_REPLAY_ROUTE_ENDPOINT;
        return true;
    }
    const dlq_sink_config_t *sink = dlqd_config_sink (c, name);
    if (!sink || !dlq_sink_config_ops (sink)->deliver)
        return dlq_config_fail (err, s, "expected \"endpoint\" or the name of a sink in sinks that delivers, "
                                "got \"%s\"", name);
    policy->replay_route = DLQ_REPLAY_ROUTE_SINK;
    policy->replay_sink = (uint32_t) dlq_sink_config_index (sink);
    return true;
}

static bool
read_schedule (const config_setting_t *s, dlq_schedule_t *schedule, dlq_config_error_t *err)
{
    int64_t max_retries = 240, batch = 50, interval = 6 * 3600000LL;
    schedule->enabled = true;
    bool ok = dlq_config_check_group (s, schedule_schema, err)
           && dlq_config_bool (s, "enabled", &schedule->enabled)
           && dlq_config_int (s, schedule_schema, "max_retries", &max_retries, err)
           && dlq_config_int (s, schedule_schema, "batch_size", &batch, err)
           && dlq_config_int (s, schedule_schema, "interval_ms", &interval, err);
    schedule->max_retries = (int32_t) max_retries;
    schedule->batch_size = (int32_t) batch;
    schedule->interval_ms = interval;
    return ok;
}

bool
dlq_replay_policy_read (const config_setting_t *g, dlqd_config_t *c, const char *stream,
                        dlq_policy_t *policy, bool allow_schedule, dlq_config_error_t *err)
{
    if (!read_route (g, c, policy, err))
        return false;
    const config_setting_t *s = config_setting_get_member (g, "schedule");
    policy->schedule = (dlq_schedule_t) { false, 0, 0, 0 };
    if (!s)
        return true;
    if (!allow_schedule)
        return dlq_config_fail (err, s, "a schedule belongs to a stream in streams, not to the defaults");
    if (config_setting_type (s) != CONFIG_TYPE_GROUP)
        return dlq_config_fail (err, s, "expected a group { enabled = true; max_retries = ...; ... }");
    if (!read_schedule (s, &policy->schedule, err))
        return false;
    if (!policy->schedule.enabled)
        return true;
    if (policy->replay_route == DLQ_REPLAY_ROUTE_NONE)
        return dlq_config_fail (err, s, "a schedule needs the stream's replay_route (where replays go)");
    dlqd_replay_config_t *r = &c->replay;
    r->scheduled = dlq_realloc (r->scheduled, (r->scheduled_count + 1) * sizeof (char *));
    r->scheduled [r->scheduled_count++] = dlq_strdup (stream);
    return true;
}

bool
dlq_replay_primary_keeps_state (const dlq_sink_ops_t *ops)
{
    return DLQ_SINK_OPS_HAS (ops, workbench) && ops->workbench
        && ops->workbench->struct_size >= sizeof (dlq_sink_workbench_ops_t) && ops->workbench->claim;
}

void
dlq_replay_config_free (dlqd_replay_config_t *r)
{
    free (r->listen);
    free (r->owner);
    for (size_t i = 0; i < r->scheduled_count; i++)
        free (r->scheduled [i]);
    free (r->scheduled);
    memset (r, 0, sizeof *r);
}
