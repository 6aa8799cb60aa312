/*  replay_verbs — the failure workbench's write verbs, answered on a query
 *  thread: REPLAY (dry run, or a durable job the replayer then runs),
 *  REPLAY.STATUS / .PAUSE / .RESUME / .CANCEL, RESOLVE and FAIL. See
 *  docs/protocol.md, "REPLAY".
 *
 *  Jobs live in the daemon's state file (job_store.h) whatever the primary; the
 *  events' replay state lives in the primary (dlq_primary_mark).
 */
#ifndef DLQ_REPLAY_VERBS_H
#define DLQ_REPLAY_VERBS_H

#include "dlq_buf.h"
#include "dlq_code.h"
#include "dlq_json.h"
#include "dlq_sink.h"
#include "dlqd_config.h"
#include "primary.h"
#include "protocol.h"
#include "replay_control.h"

#include <stdbool.h>

typedef struct dlq_replay_verbs dlq_replay_verbs_t;

/* For one query thread; primary is that thread's, control the gateway's
 * (replay_control.h: PAUSE, RESUME and CANCEL reply once the replayer took
 * them in); neither owned. */
dlq_replay_verbs_t *dlq_replay_verbs_new (const dlqd_config_t *config, dlq_primary_t *primary,
                                          dlq_replay_control_t *control);
void dlq_replay_verbs_destroy (dlq_replay_verbs_t **self_p);

/* Answer verb with request root (NULL for an empty body): the OK body into
 * out, or an error code with err. */
dlq_code_t dlq_replay_verbs_answer (dlq_replay_verbs_t *self, dlq_verb_t verb, const dlq_json_value_t *root,
                                    dlq_buf_t *out, dlq_error_t *err);

/* Append ,"replay":{"retryCount":n,"replayCount":n,"retryAfter":"ISO"} for
 * GET. Pure. */
void dlq_replay_state_format (const dlq_sink_event_state_t *state, dlq_buf_t *out);

/* FAIL's retry delay after the n-th FAIL (n >= 1): backoff_ms * 2^(n-1),
 * at most backoff_max_ms. Pure. */
int64_t dlq_replay_fail_delay (const dlqd_replay_config_t *replay, int32_t n);

#endif
