/*  dlqc_replay — the replay verbs' request bodies and replies (internal,
 *  not installed).
 *
 *  Behind dlq_client_replay* / _resolve / _fail (dlq_client.h): REPLAY's
 *  body made of a selection, a target and the job or dry-run options, and
 *  the replies read into the public structs. Reading is strict about what
 *  the protocol says a reply holds (a job's id, state, target and counts;
 *  an event state's id, status and counts) and lenient about the rest
 *  (timestamps, lastError: "" when absent; unknown members ignored).
 */
#ifndef DLQC_REPLAY_H
#define DLQC_REPLAY_H

#include "dlq_client.h"
#include "dlqc_body.h"

#include <stdbool.h>
#include <stddef.h>

/* True when selection can be sent: not NULL, ids given when id_count is
 * not 0, no NULL id. */
bool dlqc_replay_selection_ok (const dlq_client_selection_t *selection);

/* Append REPLAY's members to body: the filter's members, "ids" (when
 * id_count is not 0), "all" (when set), "target"; then, for a job,
 * "rate" when rate > 0, or, for a dry run, "dryRun":true and "sample"
 * when sample >= 0. */
void dlqc_replay_write (dlqc_body_t *body, const dlq_client_selection_t *selection,
                        dlq_client_target_t target, bool dry_run, int rate, int sample);

/* Read a job object (REPLAY, REPLAY.STATUS of one job, PAUSE, RESUME,
 * CANCEL) of len bytes into *job. False when a member it must have is
 * missing or not what the protocol says. */
bool dlqc_replay_read_job (const char *body, size_t len, dlq_client_job_t *job);

/* Read RESOLVE's or FAIL's reply into *state; false as above. */
bool dlqc_replay_read_event_state (const char *body, size_t len, dlq_client_event_state_t *state);

/* The protocol's names of job states and targets; NULL for a value out of
 * range. */
const char *dlqc_replay_state_name (dlq_client_job_state_t state);
const char *dlqc_replay_target_name (dlq_client_target_t target);

#endif
