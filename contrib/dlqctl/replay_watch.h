/*  replay_watch — following a replay job until it ends, for `dlqctl
 *  replay` without --detach: REPLAY.STATUS every REPLAY_WATCH_POLL_MS,
 *  the progress (progress.h) redrawn in place on a terminal, or as plain
 *  lines otherwise (at most one a second, and only when the job moved),
 *  a line when the job is paused or resumed meanwhile, and a summary once
 *  it is DONE or CANCELLED. With --json nothing but the job as it ended
 *  (one JSON line). Ctrl-C (SIGINT) stops following; the job goes on in
 *  the gateway.
 */
#ifndef DLQ_REPLAY_WATCH_H
#define DLQ_REPLAY_WATCH_H

#include "dlqctl.h"

#define REPLAY_WATCH_POLL_MS 200

/* Exit status when following was interrupted (128 + SIGINT). */
#define REPLAY_WATCH_EXIT_INTERRUPTED 130

/* Follow job (as created) on ctl's client until it ends. Returns the exit
 * status: OK when it is DONE and no event failed; REJECTED when some
 * failed (the count and the last error on stderr) or it was cancelled;
 * the status of a failed REPLAY.STATUS call (dlqctl_fail);
 * REPLAY_WATCH_EXIT_INTERRUPTED after Ctrl-C. */
int replay_watch (dlqctl_t *ctl, const dlq_client_job_t *job);

#endif
