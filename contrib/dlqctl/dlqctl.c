/*  dlqctl — command-line client of the dlqd dead-letter gateway.
 *
 *      dlqctl [--endpoint E] [--json] [--timeout MS] COMMAND [ARGS]
 *
 *  Parses the global options, connects a libdlq client and hands over to
 *  the command (cmd_put.c, cmd_query.c, cmd_workbench.c, cmd_sinks.c,
 *  cmd_replay.c, cmd_jobs.c, cmd_ckpt.c).
 */
#include "dlqctl.h"
#include "cmd_ckpt.h"
#include "cmd_jobs.h"
#include "cmd_keygen.h"
#include "cmd_put.h"
#include "cmd_query.h"
#include "cmd_replay.h"
#include "cmd_sinks.h"
#include "cmd_workbench.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_text [] =
    "usage: dlqctl [--endpoint E] [--json] [--timeout MS] COMMAND [ARGS]\n"
    "\n"
    "Talk to a dlqd dead-letter gateway.\n"
    "\n"
    "commands:\n"
    "  put [--no-ids] [FILE|-]     store FailedEvents, one JSON object per line\n"
    "  get ID                      show one stored event (and its deliveries)\n"
    "  list [FILTERS] [--limit N] [--cursor C] [--all]\n"
    "                              list the events that match, newest first\n"
    "  count [FILTERS]             count the events that match\n"
    "  groups [FILTERS] [--limit N]\n"
    "                              what is failing: the events that match,\n"
    "                              grouped by error fingerprint (the same bug)\n"
    "  stats                       show the gateway's counters (and sinks)\n"
    "  redeliver --sink S [--stream X | --id ID]\n"
    "                              deliver again what failed for good at a sink\n"
    "  ping                        check that the gateway answers\n"
    "  replay [FILTERS | --ids ID,... | --all] [--target route|endpoint]\n"
    "         [--rate N] [--dry-run [--sample N]] [--detach]\n"
    "                              send the events that match again, as a job\n"
    "                              followed with a progress bar until it ends\n"
    "  replay status [JOB]         the replay jobs, or one of them\n"
    "  replay pause|resume|cancel JOB\n"
    "                              pause, resume or cancel a replay job\n"
    "  resolve ID                  report a replayed event processed (SUCCEEDED)\n"
    "  fail ID                     report a replayed event failed (PENDING, due\n"
    "                              again after a backoff)\n"
    "  ckpt get STREAM             the checkpoint of a stream (a worker's\n"
    "                              last seen and last processed tokens)\n"
    "  ckpt ls [--prefix P] [--limit N] [--cursor C] [--all]\n"
    "                              the checkpoints, by stream name, as a table\n"
    "  ckpt delete STREAM          delete the checkpoint of a stream\n"
    "  keygen NAME --role R [--streams S,...] [--token] | keygen NAME --server\n"
    "                              write a CURVE certificate pair (no gateway);\n"
    "                              --token: and an HTTP API token for it\n"
    "\n"
    "FILTERS (list, count, groups, replay; every one given must match):\n"
    "  --stream S, --status S, --error-type T, --fingerprint F,\n"
    "  --since ISO, --until ISO (createdAt >= / <), --attempts-min N,\n"
    "  --attempts-max N, --meta KEY=VALUE (repeatable), --message TEXT;\n"
    "  'dlqctl list --help' tells more.\n"
    "\n"
    "options:\n"
    "  -e, --endpoint E   gateway endpoint (default: $DLQ_ENDPOINT, else\n"
    "                     " DLQ_CLIENT_DEFAULT_ENDPOINT ")\n"
    "  -j, --json         print the gateway's replies as raw JSON\n"
    "  -t, --timeout MS   wait this long for each reply, and for a connection\n"
    "                     (default 5000); an unanswered request is resent\n"
    "                     3 times on a new connection\n"
    "      --server-key K the gateway's CURVE public key: 40 Z85 characters or\n"
    "                     its public certificate (default: $DLQ_SERVER_KEY)\n"
    "      --cert FILE    this client's certificate, its _secret file\n"
    "                     (default: $DLQ_CERT); both are needed for a\n"
    "                     gateway with security.curve\n"
    "  -h, --help         show this help; 'dlqctl COMMAND --help' for a command\n"
    "  -V, --version      show the version\n"
    "The options -e, -j, -t, --server-key and --cert may also follow the command.\n"
    "\n"
    "exit status: 0 success, 1 the gateway rejected something (an ERR reply\n"
    "such as NOT_FOUND or INVALID_STATE; rejected lines of put; a replay job\n"
    "with failed events, or cancelled), 2 no usable answer (timeout,\n"
    "transport or protocol error), 64 usage error, 66 input file not\n"
    "readable (or a key file that cannot be used), 130 interrupted while\n"
    "following a replay (the job goes on).\n";

typedef struct {
    const char *name;
    int (*run) (dlqctl_t *ctl, int argc, char **argv);
} command_t;

static const command_t commands [] = {
    { "put",       cmd_put       },
    { "get",       cmd_get       },
    { "list",      cmd_list      },
    { "count",     cmd_count     },
    { "groups",    cmd_groups    },
    { "stats",     cmd_stats     },
    { "ping",      cmd_ping      },
    { "redeliver", cmd_redeliver },
    { "replay",    cmd_replay    },
    { "resolve",   cmd_resolve   },
    { "fail",      cmd_fail      },
    { "ckpt",      cmd_ckpt      },
    { "keygen",    cmd_keygen    },
};

dlqctl_exit_t
dlqctl_exit_for (dlq_client_result_t result)
{
    switch (result) {
        case DLQ_CLIENT_OK:          return DLQCTL_EXIT_OK;
        case DLQ_CLIENT_ERR_SERVER:  return DLQCTL_EXIT_REJECTED;
        case DLQ_CLIENT_ERR_ARGS:    return DLQCTL_EXIT_USAGE;
        default:                     return DLQCTL_EXIT_NO_ANSWER;
    }
}

dlqctl_exit_t
dlqctl_fail (const dlqctl_t *ctl, dlq_client_result_t result)
{
    const char *code = dlq_client_error_code (ctl->client);
    const char *field = dlq_client_error_field (ctl->client);
    fprintf (stderr, "dlqctl: %s: %s", *code ? code : dlq_client_result_name (result),
             dlq_client_error_message (ctl->client));
    if (*field)
        fprintf (stderr, " (%s)", field);
    fputc ('\n', stderr);
    return dlqctl_exit_for (result);
}

int
dlqctl_show_reply (const dlqctl_t *ctl, dlq_client_result_t result, char *body, size_t len,
                   dlqctl_view_fn *view, const void *arg)
{
    if (result != DLQ_CLIENT_OK)
        return dlqctl_fail (ctl, result);
    int status = DLQCTL_EXIT_OK;
    if (ctl->json)
        printf ("%s\n", body);
    else
        status = view (body, len, arg);
    free (body);
    return status;
}

dlqctl_exit_t
dlqctl_usage_error (const char *command, const char *fmt, ...)
{
    va_list args;
    fprintf (stderr, "dlqctl: %s%s", command ? command : "", command ? ": " : "");
    va_start (args, fmt);
    vfprintf (stderr, fmt, args);
    va_end (args);
    fprintf (stderr, "\nTry 'dlqctl %s%s--help'.\n", command ? command : "", command ? " " : "");
    return DLQCTL_EXIT_USAGE;
}

bool
dlqctl_parse_int (const char *text, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long value = strtol (text, &end, 10);
    if (errno || end == text || *end || value < min || value > max)
        return false;
    *out = value;
    return true;
}

/* Apply global option opt ('e', 'j' or 't', as returned by getopt_long)
 * with its argument. DLQCTL_EXIT_OK, or DLQCTL_EXIT_USAGE after printing
 * why the argument is wrong. */
static dlqctl_exit_t
set_global (dlqctl_t *ctl, int opt, const char *arg)
{
    long timeout;
    if (opt == 'e')
        ctl->endpoint = arg;
    else
    if (opt == DLQCTL_OPT_SERVER_KEY)
        ctl->server_key = arg;
    else
    if (opt == DLQCTL_OPT_CERT)
        ctl->cert = arg;
    else
    if (opt == 'j')
        ctl->json = true;
    else
    if (opt == 't' && dlqctl_parse_int (arg, 1, 86400000, &timeout))
        ctl->timeout_ms = (int) timeout;
    else
        return dlqctl_usage_error (NULL, "--timeout wants milliseconds (1 to 86400000), not '%s'", arg);
    return DLQCTL_EXIT_OK;
}

bool
dlqctl_common_option (dlqctl_t *ctl, const char *command, const char *usage,
                      int opt, char **argv, int *status)
{
    switch (opt) {
        case 'h':
            fputs (usage, stdout);
            *status = DLQCTL_EXIT_OK;
            return false;
        case 'e':
        case 'j':
        case 't':
        case DLQCTL_OPT_SERVER_KEY:
        case DLQCTL_OPT_CERT:
            *status = set_global (ctl, opt, optarg);
            return *status == DLQCTL_EXIT_OK;
        default:
            *status = dlqctl_usage_error (command, "unknown or incomplete option '%s'", argv [optind - 1]);
            return false;
    }
}

int
dlqctl_parse_operands (dlqctl_t *ctl, const char *command, int argc, char **argv, const char *usage, int *status)
{
    static const struct option options [] = {
        DLQCTL_COMMON_LONG_OPTIONS
    };
    int opt;
    optind = 0;
    while ((opt = getopt_long (argc, argv, "h" DLQCTL_GLOBAL_SHORT, options, NULL)) != -1)
        if (!dlqctl_common_option (ctl, command, usage, opt, argv, status))
            return -1;
    return optind;
}

/* Parse the options before the command; returns the index of the command
 * in argv, or -1 with *status set when dlqctl should exit at once. */
static int
parse_global (int argc, char **argv, dlqctl_t *ctl, int *status)
{
    static const struct option options [] = {
        { "version",  no_argument,       NULL, 'V' },
        DLQCTL_COMMON_LONG_OPTIONS
    };
    int opt;
    opterr = 0;
    while ((opt = getopt_long (argc, argv, "+" DLQCTL_GLOBAL_SHORT "hV", options, NULL)) != -1) {
        switch (opt) {
            case 'V':
                printf ("dlqctl %s (protocol %d)\n", DLQD_VERSION, DLQ_CLIENT_PROTOCOL);
                *status = DLQCTL_EXIT_OK;
                return -1;
            default:
                if (!dlqctl_common_option (ctl, NULL, usage_text, opt, argv, status))
                    return -1;
                break;
        }
    }
    if (optind >= argc) {
        *status = dlqctl_usage_error (NULL, "no command given");
        return -1;
    }
    return optind;
}

static const command_t *
find_command (const char *name)
{
    for (size_t i = 0; i < sizeof commands / sizeof commands [0]; i++)
        if (strcmp (commands [i].name, name) == 0)
            return &commands [i];
    return NULL;
}

dlqctl_exit_t
dlqctl_connect (dlqctl_t *ctl)
{
    if (ctl->server_key || ctl->cert) {
        if (!ctl->server_key || !ctl->cert)
            return dlqctl_usage_error (NULL, "CURVE needs both --server-key and --cert (or $DLQ_SERVER_KEY "
                                       "and $DLQ_CERT)");
        char err [700];
        ctl->client = dlq_client_new_curve (ctl->endpoint, ctl->server_key, ctl->cert, err, sizeof err);
        if (!ctl->client) {
            fprintf (stderr, "dlqctl: %s\n", err);
            return DLQCTL_EXIT_NO_INPUT;
        }
    }
    else
        ctl->client = dlq_client_new (ctl->endpoint);
    if (!ctl->client) {
        fprintf (stderr, "dlqctl: cannot use endpoint '%s': %s\n", ctl->endpoint, strerror (errno));
        return DLQCTL_EXIT_USAGE;
    }
    dlq_client_set_timeout (ctl->client, ctl->timeout_ms);
    return DLQCTL_EXIT_OK;
}

int
main (int argc, char **argv)
{
    const char *env = getenv ("DLQ_ENDPOINT"), *key = getenv ("DLQ_SERVER_KEY"), *cert = getenv ("DLQ_CERT");
    dlqctl_t ctl = {
        .endpoint = env && *env ? env : DLQ_CLIENT_DEFAULT_ENDPOINT, .json = false,
        .timeout_ms = DLQ_CLIENT_DEFAULT_TIMEOUT_MS, .server_key = key && *key ? key : NULL,
        .cert = cert && *cert ? cert : NULL, .client = NULL
    };
    int status = DLQCTL_EXIT_OK;
    int first = parse_global (argc, argv, &ctl, &status);
    if (first < 0)
        return status;
    const command_t *command = find_command (argv [first]);
    if (!command)
        return dlqctl_usage_error (NULL, "unknown command '%s'", argv [first]);
    status = command->run (&ctl, argc - first, argv + first);
    dlq_client_destroy (&ctl.client);
    return status;
}
