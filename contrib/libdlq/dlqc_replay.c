/*  dlqc_replay — REPLAY's request body, and job and event-state replies
 *  read into dlq_client_job_t / dlq_client_event_state_t.
 */
#include "dlqc_replay.h"
#include "dlqc_filter.h"
#include "dlqc_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const state_names [] = { "RUNNING", "PAUSED", "CANCELLED", "DONE" };
static const char *const target_names [] = { "route", "endpoint" };

#define COUNT_OF(a) (sizeof (a) / sizeof (a) [0])

const char *
dlqc_replay_state_name (dlq_client_job_state_t state)
{
    return (size_t) state < COUNT_OF (state_names) ? state_names [state] : NULL;
}

const char *
dlqc_replay_target_name (dlq_client_target_t target)
{
    return (size_t) target < COUNT_OF (target_names) ? target_names [target] : NULL;
}

/* ---- the request ----------------------------------------------------- */

bool
dlqc_replay_selection_ok (const dlq_client_selection_t *selection)
{
    if (!selection || (selection->id_count && !selection->ids))
        return false;
    for (size_t i = 0; i < selection->id_count; i++)
        if (!selection->ids [i])
            return false;
    return true;
}

void
dlqc_replay_write (dlqc_body_t *body, const dlq_client_selection_t *selection,
                   dlq_client_target_t target, bool dry_run, int rate, int sample)
{
    const char *target_name = dlqc_replay_target_name (target);
    dlqc_filter_write (selection->filter, body);
    if (selection->id_count)
        dlqc_body_string_array (body, "ids", selection->ids, selection->id_count);
    if (selection->all)
        dlqc_body_literal (body, "all", "true");
    dlqc_body_string (body, "target", target_name ? target_name : "route");
    if (!dry_run && rate > 0)
        dlqc_body_int (body, "rate", rate);
    if (dry_run)
        dlqc_body_literal (body, "dryRun", "true");
    if (dry_run && sample >= 0)
        dlqc_body_int (body, "sample", sample);
}

/* ---- reading replies --------------------------------------------------- */

/* The string member key of a reply into out (size bytes, truncated);
 * false (out "") when absent or not a string. */
static bool
read_text (const char *body, size_t len, const char *key, char *out, size_t size)
{
    char *value = dlqc_json_member_string (body, len, key);
    snprintf (out, size, "%s", value ? value : "");
    free (value);
    return value != NULL;
}

/* The string member key, which must be one of count names: its index. */
static bool
read_name (const char *body, size_t len, const char *key, const char *const *names, size_t count, int *out)
{
    char text [16];
    if (!read_text (body, len, key, text, sizeof text))
        return false;
    for (size_t i = 0; i < count; i++)
        if (strcmp (text, names [i]) == 0) {
            *out = (int) i;
            return true;
        }
    return false;
}

/* The non-negative integer member key. */
static bool
read_count (const char *body, size_t len, const char *key, int64_t *out)
{
    dlqc_json_span_t span;
    return dlqc_json_member (body, len, key, &span) && dlqc_json_int (&span, out) && *out >= 0;
}

/* A UUID member key: exactly 36 characters. */
static bool
read_id (const char *body, size_t len, const char *key, char out [DLQ_CLIENT_ID_SIZE])
{
    char text [DLQ_CLIENT_ID_SIZE + 1];
    if (!read_text (body, len, key, text, sizeof text) || strlen (text) != DLQ_CLIENT_ID_SIZE - 1)
        return false;
    memcpy (out, text, DLQ_CLIENT_ID_SIZE);
    return true;
}

/* The job's counts, each a non-negative integer it must have. */
static bool
read_job_counts (const char *body, size_t len, dlq_client_job_t *job)
{
    struct {
        const char *key;
        int64_t    *out;
    } counts [] = {
        { "rate", &job->rate }, { "total", &job->total }, { "done", &job->done },
        { "replayed", &job->replayed }, { "skipped", &job->skipped },
        { "quarantined", &job->quarantined }, { "failed", &job->failed },
    };
    for (size_t i = 0; i < COUNT_OF (counts); i++)
        if (!read_count (body, len, counts [i].key, counts [i].out))
            return false;
    return true;
}

bool
dlqc_replay_read_job (const char *body, size_t len, dlq_client_job_t *job)
{
    int state = 0, target = 0;
    memset (job, 0, sizeof *job);
    if (!read_id (body, len, "job", job->id)
        || !read_name (body, len, "state", state_names, COUNT_OF (state_names), &state)
        || !read_name (body, len, "target", target_names, COUNT_OF (target_names), &target)
        || !read_job_counts (body, len, job))
        return false;
    job->state = (dlq_client_job_state_t) state;
    job->target = (dlq_client_target_t) target;
    read_text (body, len, "createdAt", job->created_at, sizeof job->created_at);
    read_text (body, len, "updatedAt", job->updated_at, sizeof job->updated_at);
    read_text (body, len, "lastError", job->last_error, sizeof job->last_error);
    return true;
}

bool
dlqc_replay_read_event_state (const char *body, size_t len, dlq_client_event_state_t *state)
{
    memset (state, 0, sizeof *state);
    if (!read_id (body, len, "id", state->id)
        || !read_text (body, len, "status", state->status, sizeof state->status) || !*state->status
        || !read_count (body, len, "retryCount", &state->retry_count)
        || !read_count (body, len, "replayCount", &state->replay_count))
        return false;
    read_text (body, len, "retryAfter", state->retry_after, sizeof state->retry_after);
    return true;
}
