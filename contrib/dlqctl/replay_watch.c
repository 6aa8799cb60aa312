/*  replay_watch — a replay job followed to its end: polling, progress
 *  shown, summary and exit status.
 */
#include "replay_watch.h"
#include "job_view.h"
#include "progress.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

/* Plain progress lines come at most this often. */
#define PLAIN_LINE_INTERVAL_S 1.0

typedef struct {
    dlqctl_t        *ctl;
    dlq_client_job_t job;               /* as last reported */
    progress_meter_t meter;
    double           start;             /* when following began (monotonic seconds) */
    int64_t          start_done;        /* the job's done count then */
    bool             tty;               /* progress as a bar redrawn in place */
    size_t           width;             /* of the bar */
    bool             bar_shown;         /* a bar is on the terminal's current line */
    double           last_line;         /* plain: when the last progress line was printed */
    int64_t          last_done;         /* plain: its done count (-1: none printed yet) */
} watch_t;

static volatile sig_atomic_t interrupted;

static void
on_sigint (int sig)
{
    interrupted = 1;
}

static double
now_s (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The terminal's columns less one (80 when unknown). */
static size_t
bar_width (void)
{
    struct winsize ws;
    if (ioctl (STDOUT_FILENO, TIOCGWINSZ, &ws) != 0 || ws.ws_col < 2)
        return 79;
    return (size_t) ws.ws_col - 1;
}

/* ---- showing progress -------------------------------------------------- */

/* Redraw the bar, or print a plain line when the job moved and the last
 * one is old enough (or at once, when forced, if it moved at all). */
static void
show_progress (watch_t *w, double t, bool force)
{
    char line [PROGRESS_MAX_WIDTH + 1];
    double rate = progress_meter_rate (&w->meter);
    if (w->ctl->json)
        return;
    if (w->tty) {
        progress_format (line, sizeof line, w->job.done, w->job.total, t - w->start, rate, w->width, true);
        printf ("\r%s", line);
        fflush (stdout);
        w->bar_shown = true;
        return;
    }
    if (w->job.done == w->last_done || (!force && t - w->last_line < PLAIN_LINE_INTERVAL_S))
        return;
    progress_format (line, sizeof line, w->job.done, w->job.total, t - w->start, rate, 0, false);
    printf ("%s\n", line);
    fflush (stdout);
    w->last_line = t;
    w->last_done = w->job.done;
}

/* Move off the bar's line, so that other text starts on a line of its own. */
static void
end_bar (watch_t *w)
{
    if (w->bar_shown)
        putchar ('\n');
    w->bar_shown = false;
}

/* Say so when the job was paused or resumed (by another dlqctl). */
static void
note_state (watch_t *w, dlq_client_job_state_t before)
{
    dlq_client_job_state_t now = w->job.state;
    if (w->ctl->json || now == before || (now != DLQ_CLIENT_JOB_PAUSED && now != DLQ_CLIENT_JOB_RUNNING))
        return;
    end_bar (w);
    printf ("job %s %s\n", w->job.id, now == DLQ_CLIENT_JOB_PAUSED ? "paused" : "resumed");
    fflush (stdout);
}

/* ---- the end ----------------------------------------------------------- */

/* "job ID DONE: R replayed, S skipped, Q quarantined, F failed of T in
 * MM:SS (X events/s)". */
static void
print_summary (const watch_t *w, double t)
{
    char elapsed [16];
    double seconds = t - w->start;
    double rate = seconds > 0 ? (double) (w->job.done - w->start_done) / seconds : 0;
    progress_duration (elapsed, sizeof elapsed, seconds);
    printf ("job %s %s: %" PRId64 " replayed, %" PRId64 " skipped, %" PRId64 " quarantined, %" PRId64
            " failed of %" PRId64 " in %s (%.1f events/s)\n", w->job.id, dlq_client_job_state_name (w->job.state),
            w->job.replayed, w->job.skipped, w->job.quarantined, w->job.failed, w->job.total, elapsed,
            rate > 0 ? rate : 0);
}

/* The exit status of a job that ended, after saying what went wrong. */
static int
verdict (const dlq_client_job_t *job)
{
    if (job->state == DLQ_CLIENT_JOB_CANCELLED) {
        fprintf (stderr, "dlqctl: job %s was cancelled\n", job->id);
        return DLQCTL_EXIT_REJECTED;
    }
    if (job->failed > 0) {
        fprintf (stderr, "dlqctl: %" PRId64 " events could not be replayed%s%s\n", job->failed,
                 *job->last_error ? ": " : "", job->last_error);
        return DLQCTL_EXIT_REJECTED;
    }
    return DLQCTL_EXIT_OK;
}

static int
finish (watch_t *w)
{
    double t = now_s ();
    if (w->ctl->json) {
        dlq_buf_t out = DLQ_BUF_INIT;
        job_view_json (&out, &w->job);
        printf ("%.*s\n", (int) out.len, out.data);
        dlq_buf_free (&out);
    }
    else {
        show_progress (w, t, true);
        end_bar (w);
        print_summary (w, t);
    }
    fflush (stdout);
    return verdict (&w->job);
}

static int
stop_following (watch_t *w)
{
    end_bar (w);
    fflush (stdout);
    fprintf (stderr, "dlqctl: stopped following job %s; it goes on (dlqctl replay status %s)\n",
             w->job.id, w->job.id);
    return REPLAY_WATCH_EXIT_INTERRUPTED;
}

/* ---- the loop ---------------------------------------------------------- */

static bool
job_running (const dlq_client_job_t *job)
{
    return job->state == DLQ_CLIENT_JOB_RUNNING || job->state == DLQ_CLIENT_JOB_PAUSED;
}

/* Sleep until the next poll; false when Ctrl-C came. */
static bool
wait_poll (void)
{
    struct timespec delay = { 0, REPLAY_WATCH_POLL_MS * 1000000L };
    if (!interrupted)
        nanosleep (&delay, NULL);
    return !interrupted;
}

static int
follow (watch_t *w)
{
    show_progress (w, w->start, true);
    while (job_running (&w->job)) {
        if (!wait_poll ())
            return stop_following (w);
        dlq_client_job_state_t before = w->job.state;
        dlq_client_result_t result = dlq_client_replay_status (w->ctl->client, w->job.id, &w->job);
        if (result != DLQ_CLIENT_OK) {
            end_bar (w);
            fflush (stdout);
            return dlqctl_fail (w->ctl, result);
        }
        double t = now_s ();
        progress_meter_add (&w->meter, t - w->start, w->job.done);
        note_state (w, before);
        if (job_running (&w->job))
            show_progress (w, t, false);
    }
    return finish (w);
}

int
replay_watch (dlqctl_t *ctl, const dlq_client_job_t *job)
{
    watch_t w = { .ctl = ctl, .job = *job, .tty = !ctl->json && isatty (STDOUT_FILENO), .last_done = -1 };
    w.width = bar_width ();
    w.start = now_s ();
    w.start_done = job->done;
    progress_meter_init (&w.meter);
    progress_meter_add (&w.meter, 0, job->done);
    struct sigaction action = { .sa_handler = on_sigint }, previous;
    sigemptyset (&action.sa_mask);
    interrupted = 0;
    sigaction (SIGINT, &action, &previous);
    int status = follow (&w);
    sigaction (SIGINT, &previous, NULL);
    return status;
}
