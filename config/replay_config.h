/*  replay_config — the replay settings of dlqd.conf: the top-level group
 *  `replay` (endpoint, rate, loop guard, FAIL backoff, lease, owner) and
 *  each stream's `replay_route` and `schedule` (the dlq_events table's
 *  scheduled replay). See docs/configuration.md, "Configuration reference".
 */
#ifndef DLQ_REPLAY_CONFIG_H
#define DLQ_REPLAY_CONFIG_H

#include "config_schema.h"
#include "dlqd_config.h"

#include <libconfig.h>
#include <stdbool.h>

/* The built-in values of config->replay (before the file is read). */
void dlq_replay_config_defaults (dlqd_replay_config_t *replay);

/* Read the group replay (NULL: keep the defaults). */
bool dlq_replay_config_read (const config_setting_t *group, dlqd_replay_config_t *replay,
                             dlq_config_error_t *err);

/* Read replay_route and schedule of a policy group g into policy. A
 * schedule is refused where allow_schedule is false (the defaults) and
 * needs a replay_route; a stream with an enabled schedule is added to
 * config->replay.scheduled (stream names the entry). */
bool dlq_replay_policy_read (const config_setting_t *g, dlqd_config_t *config, const char *stream,
                             dlq_policy_t *policy, bool allow_schedule, dlq_config_error_t *err);

/* Does a sink plugin keep the replay state a schedule needs (the
 * workbench calls of dlq_sink.h)? */
bool dlq_replay_primary_keeps_state (const dlq_sink_ops_t *ops);

/* Free what replay holds. */
void dlq_replay_config_free (dlqd_replay_config_t *replay);

#endif
