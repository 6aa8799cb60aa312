/*  job_store — durable replay jobs, kept in the daemon's state file
 *  (state_store.h) whatever the primary, so a job survives a gateway
 *  restart and resumes where it stopped.
 *
 *      replay_jobs(id TEXT PRIMARY KEY, state TEXT NOT NULL,
 *                  request TEXT NOT NULL,      -- the REPLAY request (JSON)
 *                  cursor TEXT NULL,           -- where the next page starts
 *                  total, done, replayed, skipped, quarantined, failed INTEGER NOT NULL,
 *                  last_error TEXT NULL,
 *                  created_at, updated_at INTEGER NOT NULL)
 *
 *  Progress (cursor and counters) is written by the replayer only; state by
 *  whoever controls the job (REPLAY.PAUSE / RESUME / CANCEL, the replayer
 *  when it finishes): the two never overwrite each other.
 */
#ifndef DLQ_JOB_STORE_H
#define DLQ_JOB_STORE_H

#include "replay_job_record.h"
#include "state_store.h"
#include "store_result.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Insert a new job (id, state, request, cursor, the counters and
 * last_error as given; updated_at = created_at). DLQ_STORE_ERROR when a
 * job with that id exists. */
dlq_store_result_t dlq_job_store_create (dlq_state_store_t *self, const dlq_replay_job_t *job);

/* Job id into job_out (cleared first: zero it, or pass a job from an
 * earlier call); DLQ_STORE_NOT_FOUND when absent. */
dlq_store_result_t dlq_job_store_get (dlq_state_store_t *self, const char *id, dlq_replay_job_t *job_out);

/* All jobs, newest first (created_at, then id, descending), at most limit:
 * *jobs_out a new array of *count_out jobs (free each with
 * dlq_replay_job_clear, then the array; NULL when there are none). With
 * only_running, the RUNNING ones only. */
dlq_store_result_t dlq_job_store_list (dlq_state_store_t *self, bool only_running, size_t limit,
                                       dlq_replay_job_t **jobs_out, size_t *count_out);

/* Record progress: cursor (NULL: back to the start), the counters (total
 * included) and last_error (NULL keeps it), updated_at = now_ms. Leaves
 * state alone. DLQ_STORE_NOT_FOUND when there is no job job->id. */
dlq_store_result_t dlq_job_store_progress (dlq_state_store_t *self, const dlq_replay_job_t *job, int64_t now_ms);

/* Move job id to state `to` if its state is one of from_mask (bit 1 <<
 * dlq_job_state_t), updated_at = now_ms; a job already in state `to` (and
 * allowed by from_mask) is left as it is, updated_at included. job_out (may
 * be NULL; cleared first, as for dlq_job_store_get) gets the job
 * afterwards. DLQ_STORE_NOT_FOUND when absent; DLQ_STORE_CONFLICT when its
 * state is not in from_mask (job_out still gets the job as it is). The
 * check and the update are one transaction. */
dlq_store_result_t dlq_job_store_set_state (dlq_state_store_t *self, const char *id, unsigned from_mask,
                                            dlq_job_state_t to, int64_t now_ms, dlq_replay_job_t *job_out);

#endif
