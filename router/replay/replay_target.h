/*  replay_target — where replayed events go: the ZeroMQ replay endpoint
 *  (a PUSH socket bound at replay.listen; workers connect PULL) or a
 *  configured sink, through an instance of its plugin opened in DELIVER
 *  mode for the replayer (the first time the sink is a replay's route).
 *  Used on the replayer's thread only.
 *
 *  An endpoint message is three frames: [job id, or "schedule"] [event id]
 *  [the replayed body].
 */
#ifndef DLQ_REPLAY_TARGET_H
#define DLQ_REPLAY_TARGET_H

#include "dlqd_config.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    DLQ_REPLAY_SENT = 0,        /* delivered (a sink's OK) or queued to a connected worker */
    DLQ_REPLAY_WAIT,            /* not now (no worker connected, the sink said RETRY): try again later */
    DLQ_REPLAY_FAILED           /* never (the sink said FAIL, no route, a body it cannot take) */
} dlq_replay_send_t;

typedef struct dlq_replay_targets dlq_replay_targets_t;

/* Bind the endpoint when config->replay.listen is set. NULL with err when
 * it cannot be bound. */
dlq_replay_targets_t *dlq_replay_targets_new (void *zmq_ctx, const dlqd_config_t *config,
                                              char *err, size_t err_len);
void dlq_replay_targets_destroy (dlq_replay_targets_t **self_p);

/* Send one replayed event (body: the canonical body with its lineage) of
 * stream to the endpoint (to_endpoint) or to the stream's replay_route.
 * why gets the reason for WAIT and FAILED. */
dlq_replay_send_t dlq_replay_targets_send (dlq_replay_targets_t *self, bool to_endpoint, const char *job,
                                           const char *stream, const char *id, const char *body, size_t len,
                                           char *why, size_t why_len);

#endif
