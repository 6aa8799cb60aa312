/*  replay_config — each stream's `replay_route` and `schedule` in
 *  dlqd.conf (the dlq_events table's scheduled replay), read from a policy
 *  group (the defaults, or a streams entry). The replay group's own
 *  settings (replay.listen, rate, ...) are rows of the settings table
 *  (dlqd_config.c), and so are the schedule's.
 */
#ifndef DLQ_REPLAY_CONFIG_H
#define DLQ_REPLAY_CONFIG_H

#include "config_schema.h"
#include "plugin_config.h"
#include "stream_policy.h"

#include <libconfig.h>
#include <stdbool.h>
#include <stddef.h>

/* What reading a policy group's replay settings needs of the rest. */
typedef struct {
    const dlq_setting_t      *rows;             /* the settings table, with its streams.[i].schedule.* rows */
    size_t                    row_count;
    int                       schedule_home;    /* the home of those rows: a dlq_schedule_t */
    dlq_sink_config_t *const *sinks;            /* the configured sinks, for a replay_route naming one */
    size_t                    sink_count;
    bool                      have_endpoint;    /* replay.listen is set */
} dlq_replay_read_t;

/* Read replay_route and schedule of policy group g into policy (its
 * schedule: disabled when g has none). A schedule is refused where
 * allow_schedule is false (the defaults) and needs a replay_route; a route
 * "endpoint" needs the replay endpoint. */
bool dlq_replay_policy_read (const config_setting_t *g, const dlq_replay_read_t *ctx, bool allow_schedule,
                             dlq_policy_t *policy, dlq_config_error_t *err);

/* Does a sink plugin keep the replay state a schedule needs (the
 * workbench calls of dlq_sink.h)? */
bool dlq_replay_primary_keeps_state (const dlq_sink_ops_t *ops);

#endif
