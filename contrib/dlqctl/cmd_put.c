/*  cmd_put — pipelined bulk PUT of a file of FailedEvents.
 *
 *  Lines are submitted with dlq_client_put_async() (which waits while the
 *  window is full) and completions collected with dlq_client_poll() as
 *  they come; each rejected line is reported with its line number as it
 *  completes. Events without an id get a client-made UUIDv7 first, so that
 *  libdlq's resend after a timeout cannot store one twice (--no-ids turns
 *  that off; the ids are new on every run, so this does not make running
 *  the same file twice safe). The first transport failure or timeout stops reading: the
 *  gateway is unreachable, and what was sent so far is accounted for.
 */
#include "cmd_put.h"
#include "dlq_buf.h"
#include "dlq_json.h"
#include "dlq_time.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PROGRESS_EVERY_EVENTS 10000   /* when stderr is not a terminal */
#define PROGRESS_EVERY_MS     100     /* when it is */

static const char put_usage [] =
    "usage: dlqctl put [--no-ids] [FILE|-]\n"
    "\n"
    "Store the FailedEvents in FILE (standard input when - or absent), one\n"
    "JSON object per line; blank lines are skipped. Requests are pipelined.\n"
    "Each rejected line is reported on stderr as 'line L: CODE: message\n"
    "(field)', and a summary 'N stored, M duplicates, K rejected' ends the\n"
    "run. Progress goes to stderr (live on a terminal, otherwise every\n"
    "10000 events). Reading stops at the first timeout or transport error;\n"
    "events then in flight are counted as unconfirmed.\n"
    "\n"
    "  --no-ids   send events without an \"id\" as they are (the gateway then\n"
    "             assigns one, and a resend after a timeout may store such\n"
    "             an event twice); by default dlqctl adds a UUIDv7 id\n"
    "\n"
    "exit status: 0 all stored, 1 some lines rejected, 2 transport error\n"
    "or timeout, 64 usage error, 66 FILE not readable.\n";

typedef struct {
    uint64_t            stored;
    uint64_t            duplicates;
    uint64_t            rejected;
    uint64_t            failed;         /* timeout, transport or protocol: state unknown */
    uint64_t            submitted;
    bool                tty;            /* stderr is a terminal: live progress */
    bool                progress_shown; /* a live progress line is on screen */
    int64_t             last_progress_ms;
    uint64_t            next_report;    /* not a terminal: next count to report */
} put_state_t;

static uint64_t
completed (const put_state_t *state)
{
    return state->stored + state->duplicates + state->rejected + state->failed;
}

/* Remove the live progress line before printing something else. */
static void
clear_progress (put_state_t *state)
{
    if (state->progress_shown) {
        fputs ("\r\033[K", stderr);
        state->progress_shown = false;
    }
}

static void
show_progress (put_state_t *state, bool force)
{
    if (state->tty) {
        int64_t now = dlq_time_mono_ms ();
        if (!force && now - state->last_progress_ms < PROGRESS_EVERY_MS)
            return;
        state->last_progress_ms = now;
        fprintf (stderr, "\rput: %" PRIu64 " sent, %" PRIu64 " done\033[K", state->submitted, completed (state));
        state->progress_shown = true;
    }
    else
    if (completed (state) >= state->next_report) {
        fprintf (stderr, "put: %" PRIu64 " events done\n", completed (state));
        state->next_report += PROGRESS_EVERY_EVENTS;
    }
}

static void
report_line (put_state_t *state, const dlq_client_completion_t *done)
{
    clear_progress (state);
    const char *code = *done->code ? done->code : dlq_client_result_name (done->result);
    fprintf (stderr, "line %" PRIu64 ": %s: %s", done->tag, code, done->message);
    if (*done->field)
        fprintf (stderr, " (%s)", done->field);
    fputc ('\n', stderr);
}

/* Count one completion. Every rejected line is reported; of the lines
 * that got no answer only the first is (the others fail the same way). */
static void
on_done (const dlq_client_completion_t *done, void *arg)
{
    put_state_t *state = arg;
    if (done->result == DLQ_CLIENT_OK && done->duplicate)
        state->duplicates++;
    else
    if (done->result == DLQ_CLIENT_OK)
        state->stored++;
    else
    if (done->result == DLQ_CLIENT_ERR_SERVER) {
        report_line (state, done);
        state->rejected++;
    }
    else
    if (state->failed++ == 0)
        report_line (state, done);
    show_progress (state, false);
}

/* The body to send for a line: the line itself, unless it is a JSON object
 * without a top-level "id" and ids are wanted: then the same object with
 * a new UUIDv7 "id" as its first member, built in scratch. */
static const char *
with_id (const char *line, size_t len, dlq_buf_t *scratch, size_t *len_out)
{
    dlq_json_doc_t *doc = NULL;
    *len_out = len;
    if (dlq_json_parse (line, len, &doc, NULL) != DLQ_JSON_OK)
        return line;
    const dlq_json_value_t *root = dlq_json_root (doc);
    bool add = root->type == DLQ_JSON_OBJECT && !dlq_json_get (root, "id");
    bool empty = root->count == 0;
    dlq_json_doc_destroy (&doc);
    if (!add)
        return line;
    const char *brace = memchr (line, '{', len);
    char id [DLQ_CLIENT_ID_SIZE];
    dlq_client_uuid_v7 (id);
    dlq_buf_reset (scratch);
    dlq_buf_append (scratch, line, (size_t) (brace + 1 - line));
    dlq_buf_printf (scratch, "\"id\":\"%s\"%s", id, empty ? "" : ",");
    dlq_buf_append (scratch, brace + 1, len - (size_t) (brace + 1 - line));
    *len_out = scratch->len;
    return scratch->data;
}

static bool
is_blank (const char *line, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (line [i] != ' ' && line [i] != '\t' && line [i] != '\r' && line [i] != '\n')
            return false;
    return true;
}

/* Submit every non-blank line of in, until the end or the first failure
 * that is not a rejection. Returns the number of the last line read. */
static uint64_t
submit_lines (dlqctl_t *ctl, FILE *in, bool add_ids, put_state_t *state)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    uint64_t number = 0;
    dlq_buf_t scratch = DLQ_BUF_INIT;
    while (state->failed == 0 && (n = getline (&line, &cap, in)) >= 0) {
        size_t len = (size_t) n;
        number++;
        while (len > 0 && (line [len - 1] == '\n' || line [len - 1] == '\r'))
            len--;
        if (is_blank (line, len))
            continue;
        size_t body_len = len;
        const char *body = add_ids ? with_id (line, len, &scratch, &body_len) : line;
        dlq_client_put_async (ctl->client, body, body_len, number);
        state->submitted++;
        dlq_client_poll (ctl->client, 0, on_done, state);
    }
    dlq_buf_free (&scratch);
    free (line);
    return number;
}

static void
print_summary (const dlqctl_t *ctl, const put_state_t *state)
{
    if (ctl->json) {
        printf ("{\"stored\":%" PRIu64 ",\"duplicates\":%" PRIu64 ",\"rejected\":%" PRIu64
                ",\"failed\":%" PRIu64 "}\n", state->stored, state->duplicates, state->rejected, state->failed);
        return;
    }
    printf ("%" PRIu64 " stored, %" PRIu64 " duplicates, %" PRIu64 " rejected",
            state->stored, state->duplicates, state->rejected);
    if (state->failed)
        printf (", %" PRIu64 " unconfirmed", state->failed);
    putchar ('\n');
}

/* Send everything in `in`, wait for every reply, report. */
static int
put_stream (dlqctl_t *ctl, FILE *in, const char *name, bool add_ids)
{
    put_state_t state = { 0 };
    state.tty = isatty (STDERR_FILENO);
    state.next_report = PROGRESS_EVERY_EVENTS;
    uint64_t last_line = submit_lines (ctl, in, add_ids, &state);
    bool read_error = ferror (in) != 0;
    int read_errno = errno;
    dlq_client_flush (ctl->client, -1, on_done, &state);
    clear_progress (&state);
    if (read_error)
        fprintf (stderr, "dlqctl: put: error reading %s: %s\n", name, strerror (read_errno));
    if (state.failed)
        fprintf (stderr, "dlqctl: put: stopped after line %" PRIu64 ": %" PRIu64 " events got no answer"
                 " from %s and may or may not be stored\n", last_line, state.failed, ctl->endpoint);
    print_summary (ctl, &state);
    if (state.failed)
        return DLQCTL_EXIT_NO_ANSWER;
    if (read_error)
        return DLQCTL_EXIT_NO_INPUT;
    return state.rejected ? DLQCTL_EXIT_REJECTED : DLQCTL_EXIT_OK;
}

/* Parse put's options; returns the index of the first operand, or -1
 * with *status set. */
static int
parse_put_args (dlqctl_t *ctl, int argc, char **argv, bool *add_ids, int *status)
{
    static const struct option options [] = {
        { "no-ids",   no_argument,       NULL, 'I' },
        DLQCTL_COMMON_LONG_OPTIONS
    };
    int opt;
    optind = 0;
    while ((opt = getopt_long (argc, argv, "h" DLQCTL_GLOBAL_SHORT, options, NULL)) != -1) {
        switch (opt) {
            case 'I':
                *add_ids = false;
                break;
            default:
                if (!dlqctl_common_option (ctl, "put", put_usage, opt, argv, status))
                    return -1;
                break;
        }
    }
    if (argc - optind > 1) {
        *status = dlqctl_usage_error ("put", "takes at most one FILE");
        return -1;
    }
    return optind;
}

int
cmd_put (dlqctl_t *ctl, int argc, char **argv)
{
    bool add_ids = true;
    int status = DLQCTL_EXIT_OK;
    int first = parse_put_args (ctl, argc, argv, &add_ids, &status);
    if (first < 0)
        return status;
    const char *path = first < argc ? argv [first] : "-";
    bool use_stdin = strcmp (path, "-") == 0;
    FILE *in = use_stdin ? stdin : fopen (path, "r");
    if (!in) {
        fprintf (stderr, "dlqctl: put: cannot open %s: %s\n", path, strerror (errno));
        return DLQCTL_EXIT_NO_INPUT;
    }
    status = dlqctl_connect (ctl);
    if (status == DLQCTL_EXIT_OK)
        status = put_stream (ctl, in, use_stdin ? "standard input" : path, add_ids);
    if (!use_stdin)
        fclose (in);
    return status;
}
