/*  replay_job_record — the job states' names, and freeing a job's strings. */
#include "replay_job_record.h"

#include "dlq_names.h"

#include <stdlib.h>
#include <string.h>

static const char *const state_names [] = {
    [DLQ_JOB_RUNNING]   = "RUNNING",
    [DLQ_JOB_PAUSED]    = "PAUSED",
    [DLQ_JOB_CANCELLED] = "CANCELLED",
    [DLQ_JOB_DONE]      = "DONE",
};

#define STATE_COUNT (sizeof state_names / sizeof state_names [0])

const char *
dlq_job_state_name (dlq_job_state_t state)
{
    return dlq_names_name (state_names, STATE_COUNT, (size_t) state, "UNKNOWN");
}

bool
dlq_job_state_parse (const char *name, dlq_job_state_t *state)
{
    size_t value;
    if (!dlq_names_find (state_names, STATE_COUNT, name, &value))
        return false;
    *state = (dlq_job_state_t) value;
    return true;
}

void
dlq_replay_job_clear (dlq_replay_job_t *job)
{
    if (!job)
        return;
    free (job->request);
    free (job->cursor);
    free (job->last_error);
    memset (job, 0, sizeof *job);
}

