/*  cmd_ckpt — ckpt get / ls / delete: one request each (ls: one per
 *  page), the record as labelled lines, the pages as a table.
 */
#include "cmd_ckpt.h"
#include "ckpt_view.h"
#include "dlq_json.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char ckpt_usage [] =
    "usage: dlqctl ckpt get STREAM\n"
    "       dlqctl ckpt ls [--prefix P] [--limit N] [--cursor C] [--all]\n"
    "       dlqctl ckpt delete STREAM\n"
    "\n"
    "The workers' checkpoints: for each stream, the position a worker reached\n"
    "(the last token it saw and the last one it processed, with their\n"
    "timestamps), kept by the gateway.\n"
    "\n"
    "  get STREAM     the checkpoint of STREAM, one member per line (the\n"
    "                 record as JSON with --json); NOT_FOUND (exit 1) when\n"
    "                 the stream has none\n"
    "  ls             the checkpoints ordered by stream name, as a table\n"
    "                 (STREAM, INSTANCE, LAST SEEN AT, LAST PROCESSED AT,\n"
    "                 UPDATED AT), followed by a 'next cursor: C' line when\n"
    "                 there are more pages ('dlqctl ckpt ls --help')\n"
    "  delete STREAM  delete the checkpoint of STREAM: 'STREAM: deleted', or\n"
    "                 'STREAM: no checkpoint, nothing deleted' (exit 0 too);\n"
    "                 with --json the gateway's reply\n";

static const char ls_usage [] =
    "usage: dlqctl ckpt ls [--prefix P] [--limit N] [--cursor C] [--all]\n"
    "\n"
    "List the checkpoints ordered by stream name (byte order) as a table:\n"
    "STREAM, INSTANCE, LAST SEEN AT, LAST PROCESSED AT, UPDATED AT ('-' for\n"
    "what a checkpoint does not have), followed by a 'next cursor: C' line\n"
    "when there are more pages; 'no checkpoints' when there is none.\n"
    "\n"
    "  -p, --prefix P     only the streams whose name starts with P\n"
    "  -n, --limit N      checkpoints per page, 1 to 1000 (default: the\n"
    "                     gateway's, 100)\n"
    "  -c, --cursor C     start after a previous page: its next cursor (with\n"
    "                     the same prefix)\n"
    "  -a, --all          fetch every page, following the cursor\n"
    "\n"
    "With --json each page is printed as the gateway sent it, one per line\n"
    "({\"checkpoints\":[...],\"nextCursor\":\"...\"}).\n";

/* ---- get, delete ---------------------------------------------------------- */

/* Parse a subcommand that takes exactly one stream name; connects.
 * Returns the stream, or NULL with *status set. */
static const char *
stream_operand (dlqctl_t *ctl, const char *command, int argc, char **argv, int *status)
{
    int first = dlqctl_parse_operands (ctl, command, argc, argv, ckpt_usage, status);
    if (first < 0)
        return NULL;
    if (argc - first != 1) {
        *status = dlqctl_usage_error (command, "wants exactly one stream name");
        return NULL;
    }
    *status = dlqctl_connect (ctl);
    return *status == DLQCTL_EXIT_OK ? argv [first] : NULL;
}

static int
ckpt_get (dlqctl_t *ctl, int argc, char **argv)
{
    int status = DLQCTL_EXIT_OK;
    const char *stream = stream_operand (ctl, "ckpt get", argc, argv, &status);
    if (!stream)
        return status;
    dlq_client_checkpoint_t checkpoint;
    dlq_client_result_t result = dlq_client_ckpt_get (ctl->client, stream, &checkpoint);
    if (result != DLQ_CLIENT_OK)
        return dlqctl_fail (ctl, result);
    if (ctl->json) {
        dlq_buf_t out = DLQ_BUF_INIT;
        ckpt_view_json (&out, &checkpoint);
        printf ("%.*s\n", (int) out.len, out.data);
        dlq_buf_free (&out);
    }
    else
        ckpt_view_print (stdout, &checkpoint);
    dlq_client_checkpoint_clear (&checkpoint);
    return DLQCTL_EXIT_OK;
}

static int
ckpt_delete (dlqctl_t *ctl, int argc, char **argv)
{
    int status = DLQCTL_EXIT_OK;
    const char *stream = stream_operand (ctl, "ckpt delete", argc, argv, &status);
    if (!stream)
        return status;
    bool deleted = false;
    dlq_client_result_t result = dlq_client_ckpt_delete (ctl->client, stream, &deleted);
    if (result != DLQ_CLIENT_OK)
        return dlqctl_fail (ctl, result);
    if (ctl->json) {
        dlq_buf_t out = DLQ_BUF_INIT;
        dlq_buf_puts (&out, "{\"streamName\":");
        dlq_json_write_string (&out, stream, strlen (stream));
        dlq_buf_printf (&out, ",\"deleted\":%s}", deleted ? "true" : "false");
        printf ("%.*s\n", (int) out.len, out.data);
        dlq_buf_free (&out);
    }
    else
        printf ("%s: %s\n", stream, deleted ? "deleted" : "no checkpoint, nothing deleted");
    return DLQCTL_EXIT_OK;
}

/* ---- ls ---------------------------------------------------------------------- */

typedef struct {
    const char *prefix;
    const char *cursor;
    long        limit;          /* 0: the gateway's default */
    bool        all;
} ls_args_t;

/* Parse ls's options; true when it goes on, false with *status set. */
static bool
parse_ls (dlqctl_t *ctl, int argc, char **argv, ls_args_t *args, int *status)
{
    static const struct option options [] = {
        { "prefix", required_argument, NULL, 'p' },
        { "limit",  required_argument, NULL, 'n' },
        { "cursor", required_argument, NULL, 'c' },
        { "all",    no_argument,       NULL, 'a' },
        DLQCTL_COMMON_LONG_OPTIONS
    };
    int opt;
    memset (args, 0, sizeof *args);
    optind = 0;
    while ((opt = getopt_long (argc, argv, "p:n:c:ah" DLQCTL_GLOBAL_SHORT, options, NULL)) != -1) {
        if (opt == 'p')
            args->prefix = optarg;
        else
        if (opt == 'c')
            args->cursor = optarg;
        else
        if (opt == 'a')
            args->all = true;
        else
        if (opt == 'n' && !dlqctl_parse_int (optarg, 1, 1000, &args->limit)) {
            *status = dlqctl_usage_error ("ckpt ls", "--limit wants a number from 1 to 1000, not '%s'", optarg);
            return false;
        }
        else
        if (opt != 'n' && !dlqctl_common_option (ctl, "ckpt ls", ls_usage, opt, argv, status))
            return false;
    }
    if (optind < argc) {
        *status = dlqctl_usage_error ("ckpt ls", "takes no operands ('%s')", argv [optind]);
        return false;
    }
    *status = dlqctl_connect (ctl);
    return *status == DLQCTL_EXIT_OK;
}

/* Fetch and print one page; *next_out receives its nextCursor or NULL. */
static int
ls_page (dlqctl_t *ctl, const ls_args_t *args, const char *cursor, ckpt_view_table_t *table, char **next_out)
{
    char *body = NULL;
    size_t len = 0;
    *next_out = NULL;
    dlq_client_result_t result = dlq_client_ckpt_list (ctl->client, args->prefix, (unsigned) args->limit,
                                                       cursor, &body, &len);
    if (result != DLQ_CLIENT_OK)
        return dlqctl_fail (ctl, result);
    int status;
    if (ctl->json) {
        printf ("%s\n", body);
        status = ckpt_view_page_cursor (body, len, next_out);
    }
    else
        status = ckpt_view_print_page (table, body, len, next_out);
    free (body);
    return status;
}

static int
ckpt_ls (dlqctl_t *ctl, int argc, char **argv)
{
    ls_args_t args;
    int status = DLQCTL_EXIT_OK;
    if (!parse_ls (ctl, argc, argv, &args, &status))
        return status;
    ckpt_view_table_t table;
    ckpt_view_table_init (&table);
    char *cursor = args.cursor ? strdup (args.cursor) : NULL;
    do {
        char *next = NULL;
        status = ls_page (ctl, &args, cursor, &table, &next);
        free (cursor);
        cursor = next;
    } while (status == DLQCTL_EXIT_OK && args.all && cursor);
    if (status == DLQCTL_EXIT_OK && !ctl->json && table.rows == 0)
        printf ("no checkpoints\n");
    if (status == DLQCTL_EXIT_OK && !ctl->json && cursor)
        printf ("next cursor: %s\n", cursor);
    free (cursor);
    return status;
}

/* ---- the command ------------------------------------------------------------- */

int
cmd_ckpt (dlqctl_t *ctl, int argc, char **argv)
{
    static const struct {
        const char *word;
        int (*run) (dlqctl_t *ctl, int argc, char **argv);
    } subcommands [] = {
        { "get",    ckpt_get },
        { "ls",     ckpt_ls },
        { "delete", ckpt_delete },
    };
    for (size_t i = 0; argc > 1 && i < sizeof subcommands / sizeof subcommands [0]; i++)
        if (strcmp (argv [1], subcommands [i].word) == 0)
            return subcommands [i].run (ctl, argc - 1, argv + 1);
    if (argc > 1 && (strcmp (argv [1], "--help") == 0 || strcmp (argv [1], "-h") == 0)) {
        fputs (ckpt_usage, stdout);
        return DLQCTL_EXIT_OK;
    }
    if (argc < 2)
        return dlqctl_usage_error ("ckpt", "wants a subcommand: get, ls or delete");
    return dlqctl_usage_error ("ckpt", "unknown subcommand '%s' (get, ls or delete)", argv [1]);
}
