/*  cmd_query — get, list, stats and ping: one request each (list: one per
 *  page), the reply shown as a table, a summary or pretty JSON.
 */
#include "cmd_query.h"
#include "cmd_sinks.h"
#include "filter_args.h"
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
    "Show the stored event with this id, pretty-printed (with --json: the\n"
    "gateway's whole reply as is). When the gateway has sinks, a table of the event's\n"
    "deliveries follows: for each sink of its chain the STATE (pending,\n"
    "delivered, retrying or failed), ATTEMPTS, NEXT ATTEMPT (retrying) and\n"
    "LAST ERROR. When the gateway keeps replay state, a last line tells the\n"
    "event's retry count (FAILs reported by workers), replay count and when\n"
    "it is due again ('dlqctl replay', 'dlqctl resolve', 'dlqctl fail').\n";

static const char list_usage [] =
    "usage: dlqctl list [FILTERS] [--limit N] [--cursor C] [--all]\n"
    "\n"
    "List the events that match the filters (all events of every stream\n"
    "without any), newest first, as a table (ID, STREAM, CREATED AT,\n"
    "OPERATION, ERROR TYPE, ATTEMPTS, STATUS, MESSAGE; no STREAM column with\n"
    "--stream), followed by a 'next cursor: C' line when there are more\n"
    "pages.\n"
    "\n"
    FILTER_ARGS_USAGE
    "\n"
    "pages:\n"
    "  -n, --limit N          events per page, 1 to 1000 (default: the\n"
    "                         gateway's, 100)\n"
    "  -c, --cursor C         start after a previous page: its next cursor\n"
    "                         (with the same filters)\n"
    "  -a, --all              fetch every page, following the cursor\n"
    "\n"
    "With --json each page is printed as the gateway sent it, one per line.\n"
    "Filters other than --stream need a gateway whose primary is embedded.\n";

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

/* The start of a command that takes no operands (stats, ping): parse its
 * options, refuse operands and connect. Returns true when the command goes
 * on; false with *status set to the exit status to leave with. */
static bool
start_without_operands (dlqctl_t *ctl, int argc, char **argv, const char *usage, int *status)
{
    int first = dlqctl_parse_operands (ctl, argv [0], argc, argv, usage, status);
    if (first < 0)
        return false;
    if (first < argc) {
        *status = dlqctl_usage_error (argv [0], "takes no arguments");
        return false;
    }
    *status = dlqctl_connect (ctl);
    return *status == DLQCTL_EXIT_OK;
}

/* ---- get ------------------------------------------------------------- */

/* "replay: retry count R, replay count N, retry after T" from GET's
 * "replay" member (a gateway whose primary keeps replay state). */
static void
print_replay_state (const dlq_json_value_t *replay)
{
    static const char *const paths [3] = { "retryCount", "replayCount", "retryAfter" };
    dlq_buf_t text [3];
    const char *cells [3];
    json_view_cells (replay, paths, 3, text, cells);
    printf ("\nreplay: retry count %s, replay count %s, retry after %s\n",
            cells [0] ? cells [0] : "-", cells [1] ? cells [1] : "-", cells [2] ? cells [2] : "-");
    for (int i = 0; i < 3; i++)
        dlq_buf_free (&text [i]);
}

/* Pretty-print the event of a GET reply, then its deliveries and its
 * replay state when the gateway tells them. */
static int
show_event (const char *reply, size_t len, const void *arg)
{
    (void) arg;
    dlq_json_doc_t *doc = json_view_parse_reply ("GET", reply, len);
    if (!doc)
        return DLQCTL_EXIT_NO_ANSWER;
    const dlq_json_value_t *root = dlq_json_root (doc);
    const dlq_json_value_t *deliveries = dlq_json_get (root, "deliveries");
    const dlq_json_value_t *replay = dlq_json_get (root, "replay");
    dlq_buf_t out = DLQ_BUF_INIT;
    json_view_pretty (&out, dlq_json_get (root, "event"), 2);
    dlq_buf_putc (&out, '\n');
    fwrite (out.data, 1, out.len, stdout);
    dlq_buf_free (&out);
    if (deliveries)
        sinks_print_deliveries (deliveries);
    if (replay && replay->type == DLQ_JSON_OBJECT)
        print_replay_state (replay);
    dlq_json_doc_destroy (&doc);
    return DLQCTL_EXIT_OK;
}

int
cmd_get (dlqctl_t *ctl, int argc, char **argv)
{
    int status = DLQCTL_EXIT_OK;
    int first = dlqctl_parse_operands (ctl, argv [0], argc, argv, get_usage, &status);
    if (first < 0)
        return status;
    if (argc - first != 1)
        return dlqctl_usage_error ("get", "wants exactly one event id");
    if ((status = dlqctl_connect (ctl)) != DLQCTL_EXIT_OK)
        return status;
    char *body = NULL;
    size_t len = 0;
    dlq_client_result_t result = dlq_client_get_reply (ctl->client, argv [first], &body, &len);
    return dlqctl_show_reply (ctl, result, body, len, show_event, NULL);
}

/* ---- list ------------------------------------------------------------ */

/* The columns of list's table, and the event member each shows. */
typedef struct {
    table_column_t column;
    const char    *path;
} list_column_t;

enum { LIST_COLUMNS = 8, LIST_STREAM_COLUMN = 1 };

static const list_column_t list_columns [LIST_COLUMNS] = {
    { { "ID",         36, false }, "id" },
    { { "STREAM",     16, false }, "streamName" },      /* only without --stream */
    { { "CREATED AT", 24, false }, "createdAt" },
    { { "OPERATION",   9, false }, "operationType" },
    { { "ERROR TYPE", 32, true  }, "error.type" },
    { { "ATTEMPTS",    8, false }, "attempts" },
    { { "STATUS",     11, false }, "status" },      /* QUARANTINED */
    { { "MESSAGE",     0, false }, "error.message" },
};

/* The table a list prints, page after page. */
typedef struct {
    table_column_t columns [LIST_COLUMNS];
    const char    *paths [LIST_COLUMNS];
    size_t         count;
    bool           header_done;
} list_table_t;

/* The columns (all but STREAM when the events are of one stream), the
 * last one as wide as what the others leave. */
static void
init_table (list_table_t *table, bool one_stream)
{
    size_t used = 0;
    memset (table, 0, sizeof *table);
    for (size_t i = 0; i < LIST_COLUMNS; i++) {
        if (i == LIST_STREAM_COLUMN && one_stream)
            continue;
        table->columns [table->count] = list_columns [i].column;
        table->paths [table->count] = list_columns [i].path;
        used += list_columns [i].column.width + 2;
        table->count++;
    }
    table->columns [table->count - 1].width = table_rest_width (used);
}

static void
print_event_row (const list_table_t *table, const dlq_json_value_t *event)
{
    dlq_buf_t text [LIST_COLUMNS];
    const char *cells [LIST_COLUMNS];
    json_view_cells (event, table->paths, table->count, text, cells);
    table_print_row (stdout, table->columns, table->count, cells);
    for (size_t i = 0; i < table->count; i++)
        dlq_buf_free (&text [i]);
}

/* Print a page's events as table rows (the header before the first);
 * *next_out receives the page's nextCursor (caller frees) or NULL. */
static int
print_page (const char *body, size_t len, list_table_t *table, char **next_out)
{
    dlq_json_doc_t *doc = json_view_parse_reply ("LIST", body, len);
    if (!doc)
        return DLQCTL_EXIT_NO_ANSWER;
    const dlq_json_value_t *root = dlq_json_root (doc);
    const dlq_json_value_t *events = dlq_json_get (root, "events");
    const dlq_json_value_t *next = dlq_json_get (root, "nextCursor");
    if (!table->header_done) {
        table_print_header (stdout, table->columns, table->count);
        table->header_done = true;
    }
    for (const dlq_json_value_t *e = events && events->type == DLQ_JSON_ARRAY ? events->child : NULL; e; e = e->next)
        print_event_row (table, e);
    *next_out = next && next->type == DLQ_JSON_STRING ? strndup (next->str, next->len) : NULL;
    dlq_json_doc_destroy (&doc);
    return DLQCTL_EXIT_OK;
}

/* The nextCursor of a raw page (for --json, which prints pages as is). */
static int
page_cursor (const char *body, size_t len, char **next_out)
{
    *next_out = NULL;
    dlq_json_doc_t *doc = json_view_parse_reply ("LIST", body, len);
    if (!doc)
        return DLQCTL_EXIT_NO_ANSWER;
    const dlq_json_value_t *next = dlq_json_get (dlq_json_root (doc), "nextCursor");
    if (next && next->type == DLQ_JSON_STRING)
        *next_out = strndup (next->str, next->len);
    dlq_json_doc_destroy (&doc);
    return DLQCTL_EXIT_OK;
}

static int
list_pages (dlqctl_t *ctl, const filter_args_t *args)
{
    char *cursor = args->cursor ? strdup (args->cursor) : NULL;
    list_table_t table;
    init_table (&table, args->stream);
    int status = DLQCTL_EXIT_OK;
    do {
        char *body = NULL, *next = NULL;
        size_t len = 0;
        dlq_client_result_t result = dlq_client_list_filtered (ctl->client, args->filter, (unsigned) args->limit,
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
            status = print_page (body, len, &table, &next);
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
    static const struct option options [] = {
        FILTER_ARGS_LONG_OPTIONS,
        FILTER_ARGS_LIMIT_OPTION,
        FILTER_ARGS_CURSOR_OPTIONS,
        DLQCTL_COMMON_LONG_OPTIONS
    };
    return filter_args_run (ctl, argc, argv, options, list_usage, list_pages);
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
        { "connections", "client connections" },
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
    dlq_json_doc_t *doc = ctl->json ? NULL : json_view_parse_reply ("STATS", body, len);
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
