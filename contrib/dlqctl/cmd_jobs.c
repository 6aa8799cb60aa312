/*  cmd_jobs — replay status / pause / resume / cancel, resolve and fail:
 *  one request each, the job or the event's replay state shown.
 */
#include "cmd_jobs.h"
#include "job_view.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char status_usage [] =
    "usage: dlqctl replay status [JOB]\n"
    "\n"
    "Without JOB: the replay jobs, newest first (the 100 newest), as a table:\n"
    "JOB, STATE (RUNNING, PAUSED, CANCELLED or DONE), TARGET, RATE (events\n"
    "per second), DONE of TOTAL, and how many of those were REPLAYED,\n"
    "SKIPPED (SUCCEEDED or QUARANTINED already), QUARANTINED (replayed too\n"
    "often: replay.max_replays) or FAILED, CREATED AT and the LAST ERROR.\n"
    "With JOB: that job, one figure per line. --json prints the gateway's\n"
    "reply ({\"jobs\":[...]}, or the job).\n";

static const char move_usage [] =
    "usage: dlqctl replay pause JOB\n"
    "       dlqctl replay resume JOB\n"
    "       dlqctl replay cancel JOB\n"
    "\n"
    "pause stops a RUNNING job until it is resumed; resume lets a PAUSED job\n"
    "go on; cancel stops a RUNNING or PAUSED job for good (what it replayed\n"
    "stays replayed). Asking for the state a job is in already changes\n"
    "nothing; any other move is refused with INVALID_STATE (exit 1). Prints\n"
    "'job JOB STATE: DONE/TOTAL done' (the job as JSON with --json).\n";

static const char resolve_usage [] =
    "usage: dlqctl resolve ID\n"
    "\n"
    "Report that the replayed event ID was processed: its status becomes\n"
    "SUCCEEDED and it is not replayed again. Prints 'ID SUCCEEDED (retry\n"
    "count R, replay count N, retry after T)' (the gateway's reply with\n"
    "--json). An unknown ID is NOT_FOUND (exit 1).\n";

static const char fail_usage [] =
    "usage: dlqctl fail ID\n"
    "\n"
    "Report that processing the replayed event ID failed: its status goes\n"
    "back to PENDING, its retry count up by one, and it is due again after\n"
    "the gateway's backoff (replay.backoff_ms, doubled per retry up to\n"
    "replay.backoff_max_ms). Prints 'ID PENDING (retry count R, replay\n"
    "count N, retry after T)' (the gateway's reply with --json). An unknown\n"
    "ID is NOT_FOUND (exit 1).\n";

/* Parse a command that takes exactly one operand, what (or at most one
 * when optional); *operand receives it (NULL when absent). Connects.
 * Returns true when the command goes on; false with *status set. */
static bool
start_with_operand (dlqctl_t *ctl, const char *command, int argc, char **argv, const char *usage,
                    const char *what, bool optional, const char **operand, int *status)
{
    int first = dlqctl_parse_operands (ctl, command, argc, argv, usage, status);
    if (first < 0)
        return false;
    if (argc - first > 1 || (!optional && argc - first != 1)) {
        *status = optional ? dlqctl_usage_error (command, "wants one %s at most", what)
                           : dlqctl_usage_error (command, "wants exactly one %s", what);
        return false;
    }
    *operand = first < argc ? argv [first] : NULL;
    *status = dlqctl_connect (ctl);
    return *status == DLQCTL_EXIT_OK;
}

/* Print buf's text and a newline, then free it. */
static void
print_buf (dlq_buf_t *out)
{
    printf ("%.*s\n", (int) out->len, out->data ? out->data : "");
    dlq_buf_free (out);
}

/* ---- replay status ------------------------------------------------------ */

/* The jobs of a REPLAY.STATUS reply as a table (job_view.h). */
static int
print_jobs (const char *body, size_t len, const void *arg)
{
    (void) arg;
    return job_view_print_jobs (stdout, body, len);
}

static int
show_jobs (dlqctl_t *ctl)
{
    char *body = NULL;
    size_t len = 0;
    dlq_client_result_t result = dlq_client_replay_jobs (ctl->client, &body, &len);
    return dlqctl_show_reply (ctl, result, body, len, print_jobs, NULL);
}

static int
show_job (dlqctl_t *ctl, const char *id)
{
    dlq_client_job_t job;
    dlq_client_result_t result = dlq_client_replay_status (ctl->client, id, &job);
    if (result != DLQ_CLIENT_OK)
        return dlqctl_fail (ctl, result);
    dlq_buf_t out = DLQ_BUF_INIT;
    if (ctl->json) {
        job_view_json (&out, &job);
        print_buf (&out);
    }
    else
        job_view_print (stdout, &job);
    return DLQCTL_EXIT_OK;
}

int
cmd_replay_status (dlqctl_t *ctl, int argc, char **argv)
{
    int status = DLQCTL_EXIT_OK;
    const char *job = NULL;
    if (!start_with_operand (ctl, "replay status", argc, argv, status_usage, "job id", true, &job, &status))
        return status;
    return job ? show_job (ctl, job) : show_jobs (ctl);
}

/* ---- replay pause / resume / cancel -------------------------------------- */

typedef dlq_client_result_t (move_fn) (dlq_client_t *client, const char *job, dlq_client_job_t *job_out);

typedef struct {
    const char *word;
    const char *command;
    move_fn    *move;
} move_t;

static const move_t moves [] = {
    { "pause",  "replay pause",  dlq_client_replay_pause },
    { "resume", "replay resume", dlq_client_replay_resume },
    { "cancel", "replay cancel", dlq_client_replay_cancel },
};

int
cmd_replay_move (dlqctl_t *ctl, int argc, char **argv)
{
    const move_t *m = &moves [0];
    for (size_t i = 0; i < sizeof moves / sizeof moves [0]; i++)
        if (strcmp (argv [0], moves [i].word) == 0)
            m = &moves [i];
    int status = DLQCTL_EXIT_OK;
    const char *id = NULL;
    if (!start_with_operand (ctl, m->command, argc, argv, move_usage, "job id", false, &id, &status))
        return status;
    dlq_client_job_t job;
    dlq_client_result_t result = m->move (ctl->client, id, &job);
    if (result != DLQ_CLIENT_OK)
        return dlqctl_fail (ctl, result);
    dlq_buf_t out = DLQ_BUF_INIT;
    if (ctl->json)
        job_view_json (&out, &job);
    else
        job_view_line (&out, &job);
    print_buf (&out);
    return DLQCTL_EXIT_OK;
}

/* ---- resolve, fail ------------------------------------------------------- */

typedef dlq_client_result_t (report_fn) (dlq_client_t *client, const char *id, dlq_client_event_state_t *out);

static int
report (dlqctl_t *ctl, const char *command, int argc, char **argv, const char *usage, report_fn *fn)
{
    int status = DLQCTL_EXIT_OK;
    const char *id = NULL;
    if (!start_with_operand (ctl, command, argc, argv, usage, "event id", false, &id, &status))
        return status;
    dlq_client_event_state_t state;
    dlq_client_result_t result = fn (ctl->client, id, &state);
    if (result != DLQ_CLIENT_OK)
        return dlqctl_fail (ctl, result);
    dlq_buf_t out = DLQ_BUF_INIT;
    if (ctl->json)
        job_view_state_json (&out, &state);
    else
        job_view_state_line (&out, &state);
    print_buf (&out);
    return DLQCTL_EXIT_OK;
}

int
cmd_resolve (dlqctl_t *ctl, int argc, char **argv)
{
    return report (ctl, "resolve", argc, argv, resolve_usage, dlq_client_resolve);
}

int
cmd_fail (dlqctl_t *ctl, int argc, char **argv)
{
    return report (ctl, "fail", argc, argv, fail_usage, dlq_client_fail);
}
