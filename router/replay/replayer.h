/*  replayer — the thread that runs replays: the durable REPLAY jobs
 *  (job_store.h), rate-limited (replay_pacer.h), and the scheduled
 *  passes of streams with a schedule (the dlq_events scheduled replay).
 *  Each replayed event gets its lineage (replay_lineage.h), goes to its
 *  target (replay_target.h), and is marked REPLAYED in the primary (the
 *  events of a step or pass together: on the embedded store one sync of
 *  their mark records through marks, mark_channel.h); an event already replayed replay.max_replays times is
 *  QUARANTINED instead (the loop guard).
 *
 *  Jobs are read from the daemon's state file every JOBS_REFRESH_MS, so a job
 *  created by a query thread (or left RUNNING by a gateway that stopped)
 *  is picked up without a message; a job paused, resumed or cancelled is
 *  re-read at once, between two events, and the query thread that changed
 *  it is told through control (replay_control.h).
 *  Progress is written after every step, so a restart resumes where it
 *  stopped (at-least-once: an event whose send was not yet recorded may
 *  be replayed again).
 */
#ifndef DLQ_REPLAYER_H
#define DLQ_REPLAYER_H

#include "dlqd_config.h"
#include "mark_channel.h"
#include "replay_control.h"

#include <stddef.h>

typedef struct dlq_replayer dlq_replayer_t;

/* Start the thread (it opens its own primary and binds replay.listen);
 * control is shared with the query threads (not owned; closed when the
 * thread ends). NULL with err when it cannot start. */
dlq_replayer_t *dlq_replayer_new (void *zmq_ctx, const dlqd_config_t *config, dlq_replay_control_t *control,
                                  dlq_mark_channel_t *marks, char *err, size_t err_len);

/* Stop the thread (after the event it is sending) and free everything. */
void dlq_replayer_destroy (dlq_replayer_t **self_p);

#endif
