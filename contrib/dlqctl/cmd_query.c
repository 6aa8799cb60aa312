/*  cmd_query — get, list, stats and ping: one request each (list: one per
 *  page), the reply shown as a table, a summary or pretty JSON.
 */
#include "cmd_query.h"
#include "cmd_sinks.h"
#include "json_view.h"
#include "table.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char get_usage [] =
    "usage: dlqctl get ID\n"
    "\n"
    "Show the stored event with this id, pretty-printed (as the gateway sent\n"
    "it with --json). When the gateway has sinks, a table of the event's\n"
    "deliveries follows: for each sink of its chain the STATE (pending,\n"
    "delivered, retrying or failed), ATTEMPTS, NEXT ATTEMPT (retrying) and\n"
    "LAST ERROR.\n";

static const char list_usage [] =
    "usage: dlqctl list --stream S [--limit N] [--cursor C] [--all]\n"
    "\n"
    "List a stream's events, newest first, as a table (ID, CREATED AT,\n"
    "OPERATION, ERROR TYPE, ATTEMPTS, STATUS, MESSAGE), followed by a\n"
    "'next cursor: C' line when there are more pages.\n"
    "\n"
    "  -s, --stream S   the stream (required)\n"
    "  -n, --limit N    events per page, 1 to 1000 (default: the gateway's, 100)\n"
    "  -c, --cursor C   start after a previous page: its next cursor\n"
    "  -a, --all        fetch every page, following the cursor\n"
    "\n"
    "With --json each page is printed as the gateway sent it, one per line.\n";

static const char stats_usage [] =
    "usage: dlqctl stats\n"
    "\n"
    "Show the gateway's event counts, store size, counters and uptime\n"
    "(the gateway's reply as is with --json). When the gateway has sinks, a\n"
    "table of them follows: SINK, TYPE, BACKLOG (events not yet handed to\n"
    "the sink), DELIVERED, RETRYING, FAILED (for good: see 'dlqctl\n"
    "redeliver'), REDELIVERED, CIRCUIT (closed, open or half-open) and\n"
    "LAST ERROR.\n";

static const char ping_usage [] =
    "usage: dlqctl ping\n"
    "\n"
    "Check that the gateway answers, and show its version, the largest\n"
    "message it accepts and the round trip time.\n";

/* Parse the arguments of a command that takes only --help, the global
 * options and operands; returns the index of the first operand, or -1
 * with *status set. */
static int
parse_plain (dlqctl_t *ctl, int argc, char **argv, const char *usage, int *status)
{
    static const struct option options [] = {
        DLQCTL_COMMON_LONG_OPTIONS
    };
    int opt;
    optind = 0;
    while ((opt = getopt_long (argc, argv, "h" DLQCTL_GLOBAL_SHORT, options, NULL)) != -1)
        if (!dlqctl_common_option (ctl, argv [0], usage, opt, argv, status))
            return -1;
    return optind;
}

/* The start of a command that takes no operands (stats, ping): parse its
 * options, refuse operands and connect. Returns true when the command goes
 * on; false with *status set to the exit status to leave with. */
static bool
start_without_operands (dlqctl_t *ctl, int argc, char **argv, const char *usage, int *status)
{
    int first = parse_plain (ctl, argc, argv, usage, status);
    if (first < 0)
        return false;
    if (first < argc) {
        *status = dlqctl_usage_error (argv [0], "takes no arguments");
        return false;
    }
    *status = dlqctl_connect (ctl);
    return *status == DLQCTL_EXIT_OK;
}

/* Parse a reply body, or report it as a protocol error. */
static dlq_json_doc_t *
parse_reply (const char *verb, const char *body, size_t len)
{
    dlq_json_doc_t *doc = NULL;
    dlq_json_error_t err;
    if (dlq_json_parse (body, len, &doc, &err) != DLQ_JSON_OK) {
        fprintf (stderr, "dlqctl: PROTOCOL: %s reply is not JSON: %s at byte %zu\n",
                 verb, err.message, err.offset);
        return NULL;
    }
    if (dlq_json_root (doc)->type != DLQ_JSON_OBJECT) {
        fprintf (stderr, "dlqctl: PROTOCOL: %s reply is not a JSON object\n", verb);
        dlq_json_doc_destroy (&doc);
        return NULL;
    }
    return doc;
}

/* ---- get ------------------------------------------------------------- */

/* Pretty-print the event of a GET reply, then its deliveries when the
 * gateway tells them. */
static int
show_event (const char *reply, size_t len)
{
    dlq_json_doc_t *doc = parse_reply ("GET", reply, len);
    if (!doc)
        return DLQCTL_EXIT_NO_ANSWER;
    const dlq_json_value_t *root = dlq_json_root (doc);
    const dlq_json_value_t *deliveries = dlq_json_get (root, "deliveries");
    dlq_buf_t out = DLQ_BUF_INIT;
    json_view_pretty (&out, dlq_json_get (root, "event"), 2);
    dlq_buf_putc (&out, '\n');
    fwrite (out.data, 1, out.len, stdout);
    dlq_buf_free (&out);
    if (deliveries)
        sinks_print_deliveries (deliveries);
    dlq_json_doc_destroy (&doc);
    return DLQCTL_EXIT_OK;
}

int
cmd_get (dlqctl_t *ctl, int argc, char **argv)
{
    int status = DLQCTL_EXIT_OK;
    int first = parse_plain (ctl, argc, argv, get_usage, &status);
    if (first < 0)
        return status;
    if (argc - first != 1)
        return dlqctl_usage_error ("get", "wants exactly one event id");
    if ((status = dlqctl_connect (ctl)) != DLQCTL_EXIT_OK)
        return status;
    char *body = NULL;
    size_t len = 0;
    dlq_client_result_t result = ctl->json ? dlq_client_get (ctl->client, argv [first], &body, &len)
                                           : dlq_client_get_reply (ctl->client, argv [first], &body, &len);
    if (result != DLQ_CLIENT_OK)
        return dlqctl_fail (ctl, result);
    if (ctl->json)
        printf ("%s\n", body);
    else
        status = show_event (body, len);
    free (body);
    return status;
}

/* ---- list ------------------------------------------------------------ */

typedef struct {
    const char *stream;
    long        limit;          /* 0: the gateway's default */
    const char *cursor;
    bool        all;
} list_args_t;

enum { COL_ID, COL_CREATED, COL_OPERATION, COL_ERROR_TYPE, COL_ATTEMPTS, COL_STATUS, COL_MESSAGE, COL_COUNT };

static const char *const row_paths [COL_COUNT] = {
    "id", "createdAt", "operationType", "error.type", "attempts", "status", "error.message"
};

/* What parse_list_args returns when the command should go on. */
#define ARGS_OK (-1)

/* Parse list's arguments into *args. Returns ARGS_OK, or the exit status
 * to leave with at once (after printing the help or a usage error). */
static int
parse_list_args (dlqctl_t *ctl, int argc, char **argv, list_args_t *args)
{
    static const struct option options [] = {
        { "stream",   required_argument, NULL, 's' },
        { "limit",    required_argument, NULL, 'n' },
        { "cursor",   required_argument, NULL, 'c' },
        { "all",      no_argument,       NULL, 'a' },
        DLQCTL_COMMON_LONG_OPTIONS
    };
    int opt;
    int status;
    optind = 0;
    while ((opt = getopt_long (argc, argv, "s:n:c:ah" DLQCTL_GLOBAL_SHORT, options, NULL)) != -1) {
        switch (opt) {
            case 's':
                args->stream = optarg;
                break;
            case 'n':
                if (!dlqctl_parse_int (optarg, 1, 1000, &args->limit))
                    return dlqctl_usage_error ("list", "--limit wants a number from 1 to 1000, not '%s'", optarg);
                break;
            case 'c':
                args->cursor = optarg;
                break;
            case 'a':
                args->all = true;
                break;
            default:
                if (!dlqctl_common_option (ctl, "list", list_usage, opt, argv, &status))
                    return status;
                break;
        }
    }
    if (optind < argc)
        return dlqctl_usage_error ("list", "unexpected argument '%s'", argv [optind]);
    if (!args->stream)
        return dlqctl_usage_error ("list", "--stream is required");
    return ARGS_OK;
}

static void
init_columns (table_column_t *columns)
{
    static const table_column_t fixed [COL_COUNT] = {
        { "ID",         36, false },
        { "CREATED AT", 24, false },
        { "OPERATION",   9, false },
        { "ERROR TYPE", 32, true  },
        { "ATTEMPTS",    8, false },
        { "STATUS",     10, false },
        { "MESSAGE",     0, false },
    };
    size_t used = 0;
    for (int i = 0; i < COL_COUNT; i++) {
        columns [i] = fixed [i];
        used += fixed [i].width + 2;
    }
    columns [COL_MESSAGE].width = table_rest_width (used);
}

static void
print_event_row (const table_column_t *columns, const dlq_json_value_t *event)
{
    dlq_buf_t text [COL_COUNT];
    const char *cells [COL_COUNT];
    json_view_cells (event, row_paths, COL_COUNT, text, cells);
    table_print_row (stdout, columns, COL_COUNT, cells);
    for (int i = 0; i < COL_COUNT; i++)
        dlq_buf_free (&text [i]);
}

/* Print a page's events as table rows (the header before the first);
 * *next_out receives the page's nextCursor (caller frees) or NULL. */
static int
print_page (const char *body, size_t len, bool *header_done, size_t *rows, char **next_out)
{
    dlq_json_doc_t *doc = parse_reply ("LIST", body, len);
    if (!doc)
        return DLQCTL_EXIT_NO_ANSWER;
    const dlq_json_value_t *root = dlq_json_root (doc);
    const dlq_json_value_t *events = dlq_json_get (root, "events");
    const dlq_json_value_t *next = dlq_json_get (root, "nextCursor");
    table_column_t columns [COL_COUNT];
    init_columns (columns);
    if (!*header_done) {
        table_print_header (stdout, columns, COL_COUNT);
        *header_done = true;
    }
    for (const dlq_json_value_t *e = events && events->type == DLQ_JSON_ARRAY ? events->child : NULL; e; e = e->next) {
        print_event_row (columns, e);
        (*rows)++;
    }
    *next_out = next && next->type == DLQ_JSON_STRING ? strndup (next->str, next->len) : NULL;
    dlq_json_doc_destroy (&doc);
    return DLQCTL_EXIT_OK;
}

/* The nextCursor of a raw page (for --json, which prints pages as is). */
static int
page_cursor (const char *body, size_t len, char **next_out)
{
    *next_out = NULL;
    dlq_json_doc_t *doc = parse_reply ("LIST", body, len);
    if (!doc)
        return DLQCTL_EXIT_NO_ANSWER;
    const dlq_json_value_t *next = dlq_json_get (dlq_json_root (doc), "nextCursor");
    if (next && next->type == DLQ_JSON_STRING)
        *next_out = strndup (next->str, next->len);
    dlq_json_doc_destroy (&doc);
    return DLQCTL_EXIT_OK;
}

static int
list_pages (dlqctl_t *ctl, const list_args_t *args)
{
    char *cursor = args->cursor ? strdup (args->cursor) : NULL;
    bool header_done = false;
    size_t rows = 0;
    int status = DLQCTL_EXIT_OK;
    do {
        char *body = NULL, *next = NULL;
        size_t len = 0;
        dlq_client_result_t result = dlq_client_list (ctl->client, args->stream, (unsigned) args->limit,
                                                      cursor, &body, &len);
        free (cursor);
        cursor = NULL;
        if (result != DLQ_CLIENT_OK)
            return dlqctl_fail (ctl, result);
        if (ctl->json) {
            printf ("%s\n", body);
            status = page_cursor (body, len, &next);
        }
        else
            status = print_page (body, len, &header_done, &rows, &next);
        free (body);
        cursor = next;
    } while (status == DLQCTL_EXIT_OK && args->all && cursor);
    if (status == DLQCTL_EXIT_OK && !ctl->json && cursor)
        printf ("next cursor: %s\n", cursor);
    free (cursor);
    return status;
}

int
cmd_list (dlqctl_t *ctl, int argc, char **argv)
{
    list_args_t args = { NULL, 0, NULL, false };
    int status = parse_list_args (ctl, argc, argv, &args);
    if (status != ARGS_OK)
        return status;
    if ((status = dlqctl_connect (ctl)) != DLQCTL_EXIT_OK)
        return status;
    return list_pages (ctl, &args);
}

/* ---- stats ----------------------------------------------------------- */

/* Labels for the top-level members of a STATS reply; other members (and
 * nested ones: stream names, counter names, error codes) show their key. */
static const char *
stats_label (const dlq_json_value_t *member)
{
    static const char *const labels [][2] = {
        { "events", "events stored" },
        { "storeBytes", "store size" },
        { "streams", "events by stream" },
        { "counters", "counters since start" },
        { "uptimeSeconds", "uptime" },
    };
    for (size_t i = 0; i < sizeof labels / sizeof labels [0]; i++)
        if (strlen (labels [i][0]) == member->key_len && memcmp (labels [i][0], member->key, member->key_len) == 0)
            return labels [i][1];
    return NULL;
}

static void
human_bytes (dlq_buf_t *out, int64_t bytes)
{
    static const char *const units [] = { "KiB", "MiB", "GiB", "TiB" };
    double value = (double) bytes;
    int unit = -1;
    while (value >= 1024 && unit < 3) {
        value /= 1024;
        unit++;
    }
    if (unit < 0)
        dlq_buf_printf (out, "%" PRId64 " bytes", bytes);
    else
        dlq_buf_printf (out, "%.1f %s (%" PRId64 " bytes)", value, units [unit], bytes);
}

static void
human_duration (dlq_buf_t *out, int64_t seconds)
{
    int64_t days = seconds / 86400, hours = seconds / 3600 % 24, minutes = seconds / 60 % 60;
    if (days)
        dlq_buf_printf (out, "%" PRId64 "d ", days);
    if (days || hours)
        dlq_buf_printf (out, "%" PRId64 "h ", hours);
    if (days || hours || minutes)
        dlq_buf_printf (out, "%" PRId64 "m ", minutes);
    dlq_buf_printf (out, "%" PRId64 "s", seconds % 60);
}

static void
stats_value (dlq_buf_t *out, const dlq_json_value_t *member)
{
    int64_t n;
    bool is_int = dlq_json_as_int64 (member, &n) && n >= 0;
    if (is_int && member->key_len == 10 && memcmp (member->key, "storeBytes", 10) == 0)
        human_bytes (out, n);
    else
    if (is_int && member->key_len == 13 && memcmp (member->key, "uptimeSeconds", 13) == 0)
        human_duration (out, n);
    else
        json_view_text (out, member, "-");
}

/* Print the members of obj, one per line, labels aligned, nested objects
 * indented below their label; but not the top-level "sinks". */
static void
print_stats_object (dlq_buf_t *out, const dlq_json_value_t *obj, int depth)
{
    size_t width = 0;
    const dlq_json_value_t *sinks = depth == 0 ? dlq_json_get (obj, "sinks") : NULL;
    for (const dlq_json_value_t *m = obj->child; m; m = m->next) {
        const char *label = depth == 0 ? stats_label (m) : NULL;
        size_t len = label ? strlen (label) : m->key_len;
        if (m->type != DLQ_JSON_OBJECT && len > width)
            width = len;
    }
    for (const dlq_json_value_t *m = obj->child; m; m = m->next) {
        if (m == sinks)
            continue;                               /* cmd_stats shows it as a table */
        const char *label = depth == 0 ? stats_label (m) : NULL;
        size_t len = label ? strlen (label) : m->key_len;
        dlq_buf_printf (out, "%*s", depth * 2, "");
        dlq_buf_append (out, label ? label : m->key, len);
        if (m->type == DLQ_JSON_OBJECT) {
            dlq_buf_puts (out, m->count ? ":\n" : ": none\n");
            print_stats_object (out, m, depth + 1);
            continue;
        }
        dlq_buf_printf (out, "%*s", (int) (width - len + 2), "");
        stats_value (out, m);
        dlq_buf_putc (out, '\n');
    }
}

int
cmd_stats (dlqctl_t *ctl, int argc, char **argv)
{
    int status = DLQCTL_EXIT_OK;
    if (!start_without_operands (ctl, argc, argv, stats_usage, &status))
        return status;
    char *body = NULL;
    size_t len = 0;
    dlq_client_result_t result = dlq_client_stats (ctl->client, &body, &len);
    if (result != DLQ_CLIENT_OK)
        return dlqctl_fail (ctl, result);
    dlq_json_doc_t *doc = ctl->json ? NULL : parse_reply ("STATS", body, len);
    if (ctl->json)
        printf ("%s\n", body);
    else
    if (doc) {
        dlq_buf_t out = DLQ_BUF_INIT;
        const dlq_json_value_t *sinks = dlq_json_get (dlq_json_root (doc), "sinks");
        print_stats_object (&out, dlq_json_root (doc), 0);
        fwrite (out.data ? out.data : "", 1, out.len, stdout);
        dlq_buf_free (&out);
        if (sinks)
            sinks_print_stats (sinks);
    }
    else
        status = DLQCTL_EXIT_NO_ANSWER;
    dlq_json_doc_destroy (&doc);
    free (body);
    return status;
}

/* ---- ping ------------------------------------------------------------ */

static void
print_pong_json (const char *endpoint, const dlq_client_pong_t *pong)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_buf_puts (&out, "{\"endpoint\":");
    dlq_json_write_string (&out, endpoint, strlen (endpoint));
    dlq_buf_puts (&out, ",\"version\":");
    dlq_json_write_string (&out, pong->version, strlen (pong->version));
    dlq_buf_printf (&out, ",\"protocol\":%d,\"maxMessageBytes\":", pong->protocol);
    if (pong->max_message_bytes > 0)
        dlq_buf_printf (&out, "%" PRId64, pong->max_message_bytes);
    else
        dlq_buf_puts (&out, "null");
    dlq_buf_printf (&out, ",\"roundTripMs\":%.3f}\n", pong->round_trip_us / 1000.0);
    fwrite (out.data, 1, out.len, stdout);
    dlq_buf_free (&out);
}

/* "pong from E (version V, protocol P, max message N bytes) in X ms",
 * without the max message part when the gateway did not tell it. */
static void
print_pong_line (const char *endpoint, const dlq_client_pong_t *pong)
{
    printf ("pong from %s (version %s, protocol %d", endpoint, pong->version, pong->protocol);
    if (pong->max_message_bytes > 0)
        printf (", max message %" PRId64 " bytes", pong->max_message_bytes);
    printf (") in %.2f ms\n", pong->round_trip_us / 1000.0);
}

int
cmd_ping (dlqctl_t *ctl, int argc, char **argv)
{
    int status = DLQCTL_EXIT_OK;
    if (!start_without_operands (ctl, argc, argv, ping_usage, &status))
        return status;
    dlq_client_pong_t pong;
    dlq_client_result_t result = dlq_client_ping (ctl->client, &pong);
    if (result != DLQ_CLIENT_OK)
        return dlqctl_fail (ctl, result);
    if (ctl->json)
        print_pong_json (ctl->endpoint, &pong);
    else
        print_pong_line (ctl->endpoint, &pong);
    return DLQCTL_EXIT_OK;
}
