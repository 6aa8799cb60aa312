/*  job_view — replay jobs and event replay states as JSON, lines and
 *  tables.
 */
#include "job_view.h"
#include "dlqctl.h"
#include "dlq_json.h"
#include "json_view.h"
#include "table.h"

#include <inttypes.h>
#include <string.h>

/* Append ,"key":"value" (or the first member without the comma). */
static void
json_string (dlq_buf_t *out, const char *key, const char *value, bool first)
{
    dlq_buf_printf (out, "%s\"%s\":", first ? "" : ",", key);
    dlq_json_write_string (out, value, strlen (value));
}

static void
json_int (dlq_buf_t *out, const char *key, int64_t value)
{
    dlq_buf_printf (out, ",\"%s\":%" PRId64, key, value);
}

void
job_view_json (dlq_buf_t *out, const dlq_client_job_t *job)
{
    dlq_buf_putc (out, '{');
    json_string (out, "job", job->id, true);
    json_string (out, "state", dlq_client_job_state_name (job->state), false);
    json_string (out, "target", dlq_client_target_name (job->target), false);
    json_int (out, "rate", job->rate);
    json_int (out, "total", job->total);
    json_int (out, "done", job->done);
    json_int (out, "replayed", job->replayed);
    json_int (out, "skipped", job->skipped);
    json_int (out, "quarantined", job->quarantined);
    json_int (out, "failed", job->failed);
    if (*job->created_at)
        json_string (out, "createdAt", job->created_at, false);
    if (*job->updated_at)
        json_string (out, "updatedAt", job->updated_at, false);
    if (*job->last_error)
        json_string (out, "lastError", job->last_error, false);
    dlq_buf_putc (out, '}');
}

void
job_view_line (dlq_buf_t *out, const dlq_client_job_t *job)
{
    dlq_buf_printf (out, "job %s %s: %" PRId64 "/%" PRId64 " done", job->id,
                    dlq_client_job_state_name (job->state), job->done, job->total);
}

static int
percent (int64_t done, int64_t total)
{
    return total > 0 ? (int) (done * 100 / total) : 100;
}

void
job_view_print (FILE *out, const dlq_client_job_t *job)
{
    fprintf (out, "job          %s\n", job->id);
    fprintf (out, "state        %s\n", dlq_client_job_state_name (job->state));
    fprintf (out, "target       %s\n", dlq_client_target_name (job->target));
    fprintf (out, "rate         %" PRId64 " events/s\n", job->rate);
    fprintf (out, "progress     %" PRId64 "/%" PRId64 " (%d%%)\n", job->done, job->total,
             percent (job->done, job->total));
    fprintf (out, "replayed     %" PRId64 "\n", job->replayed);
    fprintf (out, "skipped      %" PRId64 "\n", job->skipped);
    fprintf (out, "quarantined  %" PRId64 "\n", job->quarantined);
    fprintf (out, "failed       %" PRId64 "\n", job->failed);
    fprintf (out, "created at   %s\n", *job->created_at ? job->created_at : "-");
    fprintf (out, "updated at   %s\n", *job->updated_at ? job->updated_at : "-");
    if (*job->last_error)
        fprintf (out, "last error   %s\n", job->last_error);
}

int
job_view_print_jobs (FILE *out, const char *body, size_t len)
{
    enum { COLUMNS = 12 };
    static const char *const paths [COLUMNS] = {
        "job", "state", "target", "rate", "done", "total", "replayed", "skipped", "quarantined", "failed",
        "createdAt", "lastError"
    };
    table_column_t columns [COLUMNS] = {
        { "JOB",         36, false }, { "STATE",    9, false }, { "TARGET",  8, false },
        { "RATE",        20, false }, { "DONE",    20, false }, { "TOTAL",  20, false },
        { "REPLAYED",    20, false }, { "SKIPPED", 20, false }, { "QUARANTINED", 20, false },
        { "FAILED",      20, false }, { "CREATED AT", 24, false }, { "LAST ERROR", 0, false },
    };
    dlq_json_doc_t *doc = json_view_parse_reply ("REPLAY.STATUS", body, len);
    if (!doc)
        return DLQCTL_EXIT_NO_ANSWER;
    if (json_view_table (out, columns, paths, COLUMNS, dlq_json_get (dlq_json_root (doc), "jobs")) == 0)
        fputs ("no replay jobs\n", out);
    dlq_json_doc_destroy (&doc);
    return DLQCTL_EXIT_OK;
}

void
job_view_state_json (dlq_buf_t *out, const dlq_client_event_state_t *state)
{
    dlq_buf_putc (out, '{');
    json_string (out, "id", state->id, true);
    json_string (out, "status", state->status, false);
    json_int (out, "retryCount", state->retry_count);
    json_int (out, "replayCount", state->replay_count);
    if (*state->retry_after)
        json_string (out, "retryAfter", state->retry_after, false);
    dlq_buf_putc (out, '}');
}

void
job_view_state_line (dlq_buf_t *out, const dlq_client_event_state_t *state)
{
    dlq_buf_printf (out, "%s %s (retry count %" PRId64 ", replay count %" PRId64, state->id, state->status,
                    state->retry_count, state->replay_count);
    if (*state->retry_after)
        dlq_buf_printf (out, ", retry after %s", state->retry_after);
    dlq_buf_putc (out, ')');
}
