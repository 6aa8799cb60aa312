/*  replay_job_record — a replay job as it is stored (by
 *  router/state/job_store) and read back: its state, its request,
 *  where its next page starts and its counters.
 */
#ifndef DLQ_REPLAY_JOB_RECORD_H
#define DLQ_REPLAY_JOB_RECORD_H

#include <stdbool.h>
#include <stdint.h>

typedef enum {
    DLQ_JOB_RUNNING = 0,
    DLQ_JOB_PAUSED,
    DLQ_JOB_CANCELLED,
    DLQ_JOB_DONE
} dlq_job_state_t;

typedef struct {
    char            id [37];        /* lowercase UUID */
    dlq_job_state_t state;
    char           *request;        /* owned; the REPLAY request body */
    char           *cursor;         /* owned; NULL: start of the selection */
    int64_t         total, done, replayed, skipped, quarantined, failed;
    char           *last_error;     /* owned; NULL: none */
    int64_t         created_at, updated_at;     /* ms since epoch */
} dlq_replay_job_t;

/* "RUNNING", "PAUSED", "CANCELLED", "DONE". Pure. */
const char *dlq_job_state_name (dlq_job_state_t state);

/* Free what job owns (not job itself); it is zeroed. */
void dlq_replay_job_clear (dlq_replay_job_t *job);

/* The state called name ("RUNNING", ...); false when none is. Pure. */
bool dlq_job_state_parse (const char *name, dlq_job_state_t *state);

#endif
