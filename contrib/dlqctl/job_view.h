/*  job_view — replay jobs and events' replay states as dlqctl shows them:
 *  as JSON (--json: the gateway's objects, rebuilt from libdlq's structs
 *  with the members in the protocol's order), as one line, as labelled
 *  lines, and the jobs of REPLAY.STATUS as a table.
 */
#ifndef DLQ_JOB_VIEW_H
#define DLQ_JOB_VIEW_H

#include "dlq_buf.h"
#include "dlq_client.h"

#include <stdio.h>

/* Append the job as the gateway's JSON object ("createdAt", "updatedAt"
 * and "lastError" only when set; no newline). */
void job_view_json (dlq_buf_t *out, const dlq_client_job_t *job);

/* Append "job ID STATE: DONE/TOTAL done" (no newline). */
void job_view_line (dlq_buf_t *out, const dlq_client_job_t *job);

/* Print the job as labelled lines: job, state, target, rate, progress,
 * replayed, skipped, quarantined, failed, created at, updated at and,
 * when set, last error. */
void job_view_print (FILE *out, const dlq_client_job_t *job);

/* Print the jobs of a REPLAY.STATUS reply ({"jobs":[...]}) as a table
 * (JOB, STATE, TARGET, RATE, DONE, TOTAL, REPLAYED, SKIPPED, QUARANTINED,
 * FAILED, CREATED AT, LAST ERROR), or "no replay jobs". Returns an exit
 * status: NO_ANSWER after saying so when the reply is not JSON. */
int job_view_print_jobs (FILE *out, const char *body, size_t len);

/* Append an event's replay state as the gateway's JSON object. */
void job_view_state_json (dlq_buf_t *out, const dlq_client_event_state_t *state);

/* Append "ID STATUS (retry count R, replay count N, retry after T)" (no
 * retry after part when the gateway did not tell it; no newline). */
void job_view_state_line (dlq_buf_t *out, const dlq_client_event_state_t *state);

#endif
