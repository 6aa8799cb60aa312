/*  cmd_replay — replay: the selection (list's filters, ids, --all) and
 *  the job's options parsed, then a dry run shown, or a job started and
 *  followed (replay_watch.h) or left to run (--detach); the job
 *  subcommands handed to cmd_jobs.
 */
#include "cmd_replay.h"
#include "cmd_jobs.h"
#include "dlq_alloc.h"
#include "filter_args.h"
#include "job_view.h"
#include "json_view.h"
#include "replay_watch.h"
#include "table.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char replay_usage [] =
    "usage: dlqctl replay [FILTERS | --ids ID,... | --id ID | --all] [--target T]\n"
    "                     [--rate N] [--dry-run [--sample N]] [--detach]\n"
    "       dlqctl replay --id ID --replacement FILE|- [--target T] [--detach]\n"
    "       dlqctl replay status [JOB]\n"
    "       dlqctl replay pause|resume|cancel JOB\n"
    "\n"
    "Send stored events again: each to its stream's replay_route (a sink, or\n"
    "the gateway's replay endpoint) or, with --target endpoint, to the replay\n"
    "endpoint. A replayed event is the stored one with metadata.replayOf (its\n"
    "id) and metadata.replayCount (1 the first time) added. The gateway runs\n"
    "the replay as a job, at most --rate events per second, and keeps it\n"
    "across restarts; events already SUCCEEDED or QUARANTINED are skipped.\n"
    "\n"
    "Unless --dry-run or --detach, dlqctl then follows the job until it is\n"
    "DONE or CANCELLED: on a terminal a progress bar (done/total, percent,\n"
    "events per second, elapsed time, ETA); otherwise a progress line a\n"
    "second while the job moves; then a summary line. Ctrl-C stops\n"
    "following (exit 130); the job goes on.\n"
    "\n"
    "selection: filters or ids (not both), or --all\n"
    "\n"
    FILTER_ARGS_USAGE
    "\n"
    "ids, or every event:\n"
    "      --ids ID,ID,...    these events (repeatable)\n"
    "      --id ID            this event (repeatable)\n"
    "  -a, --all              every event (needed when nothing else selects)\n"
    "\n"
    "options:\n"
    "      --target T         route (default: each stream's replay_route) or\n"
    "                         endpoint (the gateway's replay endpoint)\n"
    "      --rate N           at most N events per second, 1 to 100000\n"
    "                         (default: the gateway's replay.rate)\n"
    "      --dry-run          replay nothing: print how many events would be\n"
    "                         replayed and a sample of them (ID, STREAM,\n"
    "                         STATUS, ERROR TYPE)\n"
    "      --sample N         with --dry-run: show N of them, 0 to 100\n"
    "                         (default: the gateway's, 10)\n"
    "      --detach           print the job's id and exit at once\n"
    "      --replacement FILE replay the one event --id as a corrected copy:\n"
    "                         FILE (- for standard input) holds the FailedEvent\n"
    "                         JSON sent instead of the stored one (e.g. dlqctl\n"
    "                         get's output, its fullDocument or metadata fixed);\n"
    "                         the stored event never changes. Its id and\n"
    "                         streamName must be the event's, or left out\n"
    "\n"
    CMD_JOBS_USAGE
    "\n"
    "With --json: the gateway's replies as JSON, one per line (the dry run's;\n"
    "the job as started and, once it ends, as it ended).\n"
    "\n"
    "exit status: 0 the job is DONE and no event failed; 1 the gateway\n"
    "refused (NOT_FOUND, INVALID_STATE, INVALID_REQUEST, ...), or events\n"
    "failed (how many, and the last error, on stderr), or the job was\n"
    "cancelled; 2 no usable answer; 64 usage error; 130 interrupted.\n";

/* getopt_long values of replay's own options (above the filters'). */
enum {
    REPLAY_OPT_IDS = 300, REPLAY_OPT_ID, REPLAY_OPT_TARGET, REPLAY_OPT_RATE, REPLAY_OPT_DRY_RUN,
    REPLAY_OPT_SAMPLE, REPLAY_OPT_DETACH, REPLAY_OPT_REPLACEMENT
};

/* replay's own options. */
typedef struct {
    char              **ids;            /* owned copies */
    size_t              id_count;
    dlq_client_target_t target;
    long                rate;           /* 0: the gateway's default */
    long                sample;         /* -1: the gateway's default */
    bool                dry_run;
    bool                detach;
    bool                filtered;       /* a filter option was given */
    const char         *replacement;    /* --replacement FILE, or NULL */
} replay_opts_t;

/* ---- options ------------------------------------------------------------- */

static void
add_id (replay_opts_t *o, const char *id, size_t len)
{
    o->ids = dlq_realloc (o->ids, (o->id_count + 1) * sizeof *o->ids);
    o->ids [o->id_count++] = dlq_strndup (id, len);
}

/* --ids ID,ID,...: every piece an id, none empty. */
static int
add_ids (replay_opts_t *o, const char *command, const char *arg)
{
    for (const char *p = arg;; p++) {
        size_t len = strcspn (p, ",");
        if (len == 0)
            return dlqctl_usage_error (command, "--ids wants ids separated by commas, not '%s'", arg);
        add_id (o, p, len);
        p += len;
        if (!*p)
            return FILTER_ARGS_OK;
    }
}

static int
set_target (replay_opts_t *o, const char *command, const char *arg)
{
    if (strcmp (arg, "route") == 0)
        o->target = DLQ_CLIENT_TARGET_ROUTE;
    else
    if (strcmp (arg, "endpoint") == 0)
        o->target = DLQ_CLIENT_TARGET_ENDPOINT;
    else
        return dlqctl_usage_error (command, "--target wants route or endpoint, not '%s'", arg);
    return FILTER_ARGS_OK;
}

static int
set_number (const char *command, const char *option, const char *arg, long min, long max, long *out)
{
    if (!dlqctl_parse_int (arg, min, max, out))
        return dlqctl_usage_error (command, "--%s wants a number from %ld to %ld, not '%s'", option, min, max, arg);
    return FILTER_ARGS_OK;
}

static bool
is_filter_option (int opt)
{
    return opt == 's' || (opt >= FILTER_OPT_STATUS && opt <= FILTER_OPT_MESSAGE);
}

/* filter_args' hook for replay's own options. */
static int
own_option (void *state, const char *command, int opt, const char *arg)
{
    replay_opts_t *o = state;
    switch (opt) {
        case REPLAY_OPT_IDS:     return add_ids (o, command, arg);
        case REPLAY_OPT_ID:      add_id (o, arg, strlen (arg)); return FILTER_ARGS_OK;
        case REPLAY_OPT_TARGET:  return set_target (o, command, arg);
        case REPLAY_OPT_RATE:    return set_number (command, "rate", arg, 1, 100000, &o->rate);
        case REPLAY_OPT_SAMPLE:  return set_number (command, "sample", arg, 0, 100, &o->sample);
        case REPLAY_OPT_DRY_RUN: o->dry_run = true; return FILTER_ARGS_OK;
        case REPLAY_OPT_DETACH:  o->detach = true; return FILTER_ARGS_OK;
        case REPLAY_OPT_REPLACEMENT: o->replacement = arg; return FILTER_ARGS_OK;
        default:
            o->filtered = o->filtered || is_filter_option (opt);
            return FILTER_ARGS_NOT_MINE;
    }
}

/* The combinations that make no sense; FILTER_ARGS_OK or a usage error. */
static int
check_options (const replay_opts_t *o, const filter_args_t *args)
{
    if (!o->filtered && o->id_count == 0 && !args->all)
        return dlqctl_usage_error ("replay", "give filters, --ids / --id, or --all to replay every event");
    if (o->filtered && o->id_count)
        return dlqctl_usage_error ("replay", "give filters or ids, not both");
    if (o->sample >= 0 && !o->dry_run)
        return dlqctl_usage_error ("replay", "--sample goes with --dry-run");
    if (o->dry_run && (o->detach || o->rate))
        return dlqctl_usage_error ("replay", "--dry-run replays nothing: no --%s with it",
                                   o->detach ? "detach" : "rate");
    if (o->replacement && (o->id_count != 1 || o->filtered || args->all || o->dry_run))
        return dlqctl_usage_error ("replay", "--replacement replays one event: give it one --id, no filters, "
                                   "--all or --dry-run");
    return FILTER_ARGS_OK;
}

static void
free_opts (replay_opts_t *o)
{
    for (size_t i = 0; i < o->id_count; i++)
        free (o->ids [i]);
    free (o->ids);
}

/* ---- the dry run ---------------------------------------------------------- */

/* "N events would be replayed" (N: *arg, an int64_t) and the sample as a
 * table, or "no events match". */
static int
print_dry_run (const char *body, size_t len, const void *arg)
{
    int64_t count = *(const int64_t *) arg;
    enum { COLUMNS = 4 };
    static const char *const paths [COLUMNS] = { "id", "streamName", "status", "error.type" };
    table_column_t columns [COLUMNS] = {
        { "ID", 36, false }, { "STREAM", 32, false }, { "STATUS", 32, false }, { "ERROR TYPE", 0, true },
    };
    dlq_json_doc_t *doc = json_view_parse_reply ("REPLAY", body, len);
    if (!doc)
        return DLQCTL_EXIT_NO_ANSWER;
    if (count == 0)
        puts ("no events match");
    else
        printf ("%" PRId64 " event%s would be replayed\n", count, count == 1 ? "" : "s");
    if (count)
        json_view_table (stdout, columns, paths, COLUMNS, dlq_json_get (dlq_json_root (doc), "sample"));
    dlq_json_doc_destroy (&doc);
    return DLQCTL_EXIT_OK;
}

static int
dry_run (dlqctl_t *ctl, const dlq_client_selection_t *selection, const replay_opts_t *o)
{
    int64_t count = 0;
    char *body = NULL;
    size_t len = 0;
    dlq_client_result_t result = dlq_client_replay_dry_run (ctl->client, selection, o->target, (int) o->sample,
                                                            &count, &body, &len);
    return dlqctl_show_reply (ctl, result, body, len, print_dry_run, &count);
}

/* ---- the job ---------------------------------------------------------------- */

/* The job as started: its id alone (--detach), its JSON (--json), or a
 * line saying what it does. */
static void
print_started (const dlqctl_t *ctl, const dlq_client_job_t *job, bool detach)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    if (ctl->json)
        job_view_json (&out, job);
    else
    if (detach)
        dlq_buf_puts (&out, job->id);
    else
        dlq_buf_printf (&out, "job %s: replaying %" PRId64 " events to %s at %" PRId64 " events/s", job->id,
                        job->total, dlq_client_target_name (job->target), job->rate);
    printf ("%.*s\n", (int) out.len, out.data ? out.data : "");
    fflush (stdout);
    dlq_buf_free (&out);
}

/* The whole of path (- : standard input), NUL-terminated, or NULL with
 * the reason on stderr. */
static char *
read_replacement (const char *path)
{
    bool use_stdin = strcmp (path, "-") == 0;
    FILE *in = use_stdin ? stdin : fopen (path, "r");
    if (!in) {
        fprintf (stderr, "dlqctl: replay: cannot open %s: %s\n", path, strerror (errno));
        return NULL;
    }
    dlq_buf_t text = DLQ_BUF_INIT;
    char chunk [8192];
    size_t n;
    while ((n = fread (chunk, 1, sizeof chunk, in)) > 0)
        dlq_buf_append (&text, chunk, n);
    bool failed = ferror (in) != 0;
    if (!use_stdin)
        fclose (in);
    if (failed || memchr (text.data ? text.data : "", '\0', text.len)) {
        fprintf (stderr, "dlqctl: replay: %s: %s\n", path, failed ? "cannot read it" : "it holds a NUL byte");
        dlq_buf_free (&text);
        return NULL;
    }
    return dlq_buf_steal (&text, NULL);
}

static int
start_job (dlqctl_t *ctl, const dlq_client_selection_t *selection, const replay_opts_t *o)
{
    dlq_client_job_t job;
    dlq_client_result_t result;
    if (o->replacement) {
        char *replacement = read_replacement (o->replacement);
        if (!replacement)
            return DLQCTL_EXIT_NO_INPUT;
        result = dlq_client_replay_replacement (ctl->client, o->ids [0], replacement, o->target, (int) o->rate, &job);
        free (replacement);
    }
    else
        result = dlq_client_replay (ctl->client, selection, o->target, (int) o->rate, &job);
    if (result != DLQ_CLIENT_OK)
        return dlqctl_fail (ctl, result);
    print_started (ctl, &job, o->detach);
    return o->detach ? DLQCTL_EXIT_OK : replay_watch (ctl, &job);
}

/* ---- the command ------------------------------------------------------------ */

static int
replay (dlqctl_t *ctl, int argc, char **argv)
{
    static const struct option options [] = {
        FILTER_ARGS_LONG_OPTIONS,
        { "all",     no_argument,       NULL, 'a' },
        { "ids",     required_argument, NULL, REPLAY_OPT_IDS },
        { "id",      required_argument, NULL, REPLAY_OPT_ID },
        { "target",  required_argument, NULL, REPLAY_OPT_TARGET },
        { "rate",    required_argument, NULL, REPLAY_OPT_RATE },
        { "dry-run", no_argument,       NULL, REPLAY_OPT_DRY_RUN },
        { "sample",  required_argument, NULL, REPLAY_OPT_SAMPLE },
        { "detach",  no_argument,       NULL, REPLAY_OPT_DETACH },
        { "replacement", required_argument, NULL, REPLAY_OPT_REPLACEMENT },
        DLQCTL_COMMON_LONG_OPTIONS
    };
    replay_opts_t o = { .sample = -1 };
    filter_args_t args;
    int status = filter_args_parse_own (ctl, argc, argv, options, replay_usage, own_option, &o, &args);
    if (status == FILTER_ARGS_OK)
        status = check_options (&o, &args);
    if (status == FILTER_ARGS_OK && (status = dlqctl_connect (ctl)) == DLQCTL_EXIT_OK) {
        dlq_client_selection_t selection = {
            args.filter, (const char *const *) o.ids, o.id_count, args.all
        };
        status = o.dry_run ? dry_run (ctl, &selection, &o) : start_job (ctl, &selection, &o);
    }
    filter_args_free (&args);
    free_opts (&o);
    return status;
}

int
cmd_replay (dlqctl_t *ctl, int argc, char **argv)
{
    static const struct {
        const char *word;
        int (*run) (dlqctl_t *ctl, int argc, char **argv);
    } subcommands [] = {
        { "status", cmd_replay_status },
        { "pause",  cmd_replay_move },
        { "resume", cmd_replay_move },
        { "cancel", cmd_replay_move },
    };
    for (size_t i = 0; argc > 1 && i < sizeof subcommands / sizeof subcommands [0]; i++)
        if (strcmp (argv [1], subcommands [i].word) == 0)
            return subcommands [i].run (ctl, argc - 1, argv + 1);
    return replay (ctl, argc, argv);
}
