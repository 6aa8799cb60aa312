/*  cmd_sinks — redeliver, and the tables of sink figures that stats and
 *  get show when the gateway has sinks.
 */
#include "cmd_sinks.h"
#include "json_view.h"
#include "table.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char redeliver_usage [] =
    "usage: dlqctl redeliver --sink S [--stream X | --id ID]\n"
    "\n"
    "Deliver again the events whose delivery to sink S failed for good (the\n"
    "FAILED column of 'dlqctl stats', state failed in 'dlqctl get'): all of\n"
    "them, only those of stream X, or only the event ID. They are queued at\n"
    "once and retried as new deliveries are. Prints 'requeued N failed\n"
    "deliveries to S' (with --json: {\"sink\":S,\"requeued\":N}).\n"
    "\n"
    "      --sink S     the sink, as named in dlqd's config (required)\n"
    "  -s, --stream X   only the events of this stream\n"
    "      --id ID      only this event\n";

/* ---- tables ------------------------------------------------------------ */

/* Print a blank line and a table with one row per child of rows
 * (json_view_table), or "label: none" instead when rows has no children. */
static void
print_json_table (const char *label, table_column_t *columns, const char *const *paths, size_t count,
                  const dlq_json_value_t *rows)
{
    putchar ('\n');
    if (json_view_table (stdout, columns, paths, count, rows) == 0)
        printf ("%s: none\n", label);
}

void
sinks_print_stats (const dlq_json_value_t *sinks)
{
    enum { COLUMNS = 9 };
    static const char *const paths [COLUMNS] = {
        NULL, "type", "backlog", "delivered", "retrying", "failed", "redelivered", "circuit", "lastError"
    };
    table_column_t columns [COLUMNS] = {
        { "SINK",        24, false },
        { "TYPE",        16, false },
        { "BACKLOG",     20, false },
        { "DELIVERED",   20, false },
        { "RETRYING",    20, false },
        { "FAILED",      20, false },
        { "REDELIVERED", 20, false },
        { "CIRCUIT",      9, false },
        { "LAST ERROR",   0, false },
    };
    print_json_table ("sinks", columns, paths, COLUMNS, sinks);
}

void
sinks_print_deliveries (const dlq_json_value_t *deliveries)
{
    enum { COLUMNS = 5 };
    static const char *const paths [COLUMNS] = { "sink", "state", "attempts", "nextAttemptAt", "lastError" };
    table_column_t columns [COLUMNS] = {
        { "SINK",         24, false },
        { "STATE",         9, false },
        { "ATTEMPTS",     10, false },
        { "NEXT ATTEMPT", 24, false },
        { "LAST ERROR",    0, false },
    };
    print_json_table ("deliveries", columns, paths, COLUMNS, deliveries);
}

/* ---- redeliver --------------------------------------------------------- */

typedef struct {
    const char *sink;
    const char *stream;
    const char *id;
} redeliver_args_t;

/* Parse redeliver's arguments into *args; true when the command goes on,
 * false with *status set to the exit status to leave with. */
static bool
parse_redeliver_args (dlqctl_t *ctl, int argc, char **argv, redeliver_args_t *args, int *status)
{
    static const struct option options [] = {
        { "sink",     required_argument, NULL, 'k' },
        { "stream",   required_argument, NULL, 's' },
        { "id",       required_argument, NULL, 'i' },
        DLQCTL_COMMON_LONG_OPTIONS
    };
    int opt;
    optind = 0;
    while ((opt = getopt_long (argc, argv, "s:h" DLQCTL_GLOBAL_SHORT, options, NULL)) != -1) {
        if (opt == 'k')
            args->sink = optarg;
        else
        if (opt == 's')
            args->stream = optarg;
        else
        if (opt == 'i')
            args->id = optarg;
        else
        if (!dlqctl_common_option (ctl, "redeliver", redeliver_usage, opt, argv, status))
            return false;
    }
    *status = DLQCTL_EXIT_USAGE;
    if (optind < argc)
        dlqctl_usage_error ("redeliver", "unexpected argument '%s'", argv [optind]);
    else
    if (!args->sink)
        dlqctl_usage_error ("redeliver", "--sink is required");
    else
    if (args->stream && args->id)
        dlqctl_usage_error ("redeliver", "give --stream or --id, not both");
    else
        *status = DLQCTL_EXIT_OK;
    return *status == DLQCTL_EXIT_OK;
}

int
cmd_redeliver (dlqctl_t *ctl, int argc, char **argv)
{
    redeliver_args_t args = { NULL, NULL, NULL };
    int status = DLQCTL_EXIT_OK;
    if (!parse_redeliver_args (ctl, argc, argv, &args, &status))
        return status;
    if ((status = dlqctl_connect (ctl)) != DLQCTL_EXIT_OK)
        return status;
    int64_t requeued = 0;
    dlq_client_result_t result = dlq_client_redeliver (ctl->client, args.sink, args.stream, args.id, &requeued);
    if (result != DLQ_CLIENT_OK)
        return dlqctl_fail (ctl, result);
    if (ctl->json) {
        dlq_buf_t out = DLQ_BUF_INIT;
        dlq_buf_puts (&out, "{\"sink\":");
        dlq_json_write_string (&out, args.sink, strlen (args.sink));
        dlq_buf_printf (&out, ",\"requeued\":%" PRId64 "}\n", requeued);
        fwrite (out.data, 1, out.len, stdout);
        dlq_buf_free (&out);
    }
    else
        printf ("requeued %" PRId64 " failed deliveries to %s\n", requeued, args.sink);
    return DLQCTL_EXIT_OK;
}
