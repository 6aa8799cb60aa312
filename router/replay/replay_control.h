/*  replay_control — how a query thread that changed a replay job's state
 *  (PAUSE, RESUME, CANCEL) waits until the replayer thread has taken the
 *  change in, so that its reply is final: a paused or cancelled job sends
 *  nothing after the reply, and the counters in it are the job's last.
 *
 *  A change is a generation number: the query thread writes the job's new
 *  state to the spool, then requests a generation and waits for it; the
 *  replayer looks at the newest requested generation between events
 *  (one atomic read), re-reads the jobs when it moved, and says it has
 *  handled it. Shared by the threads of one gateway; thread-safe.
 */
#ifndef DLQ_REPLAY_CONTROL_H
#define DLQ_REPLAY_CONTROL_H

#include <stdbool.h>
#include <stdint.h>

typedef struct dlq_replay_control dlq_replay_control_t;

dlq_replay_control_t *dlq_replay_control_new (void);
void dlq_replay_control_destroy (dlq_replay_control_t **self_p);

/* Query thread: a job's state has just been written; the generation to
 * wait for. */
uint64_t dlq_replay_control_request (dlq_replay_control_t *self);

/* Query thread: wait until the replayer has handled generation (true), it
 * has stopped, or timeout_ms passed (false). */
bool dlq_replay_control_wait (dlq_replay_control_t *self, uint64_t generation, int timeout_ms);

/* Replayer: the newest generation requested (cheap: poll it between
 * events). */
uint64_t dlq_replay_control_requested (dlq_replay_control_t *self);

/* Replayer: every change up to generation is taken in. */
void dlq_replay_control_handled (dlq_replay_control_t *self, uint64_t generation);

/* Replayer: it stops; nobody waits for it any more. */
void dlq_replay_control_close (dlq_replay_control_t *self);

#endif
