/*  cmd_workbench — count and groups: one request each, with the filters
 *  of list; the answer as a number or a table of error groups.
 */
#include "cmd_workbench.h"
#include "filter_args.h"
#include "json_view.h"
#include "table.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

static const char count_usage [] =
    "usage: dlqctl count [FILTERS]\n"
    "\n"
    "Print how many stored events match the filters (every event without\n"
    "any); with --json the gateway's reply, {\"count\":N}.\n"
    "\n"
    FILTER_ARGS_USAGE
    "\n"
    "Filters need a gateway whose primary is embedded.\n";

static const char groups_usage [] =
    "usage: dlqctl groups [FILTERS] [--limit N]\n"
    "\n"
    "What is failing: the events that match the filters (every event\n"
    "without any) grouped by error fingerprint, which is the same for the\n"
    "same bug (error type, message with its values blanked out, top stack\n"
    "frames), the group with the most events first. Printed as a table:\n"
    "COUNT, FINGERPRINT, ERROR TYPE, STREAMS, LAST SEEN and one MESSAGE of\n"
    "the group, normalised (numbers, ids, addresses, quoted values shown\n"
    "as <num>, <uuid>, <ip>, <str>, ...) and cut to the terminal's width\n"
    "(60 characters when not on a terminal). 'dlqctl list --fingerprint F'\n"
    "lists the events of a group. With --json the gateway's reply is printed\n"
    "as is (it also has each group's firstSeen and sampleId).\n"
    "\n"
    FILTER_ARGS_USAGE
    "\n"
    "  -n, --limit N          at most N groups, 1 to 1000 (default: the\n"
    "                         gateway's, 20)\n"
    "\n"
    "Groups need a gateway whose primary is embedded.\n";

/* ---- count ----------------------------------------------------------- */

static int
count_events (dlqctl_t *ctl, const filter_args_t *args)
{
    int64_t count = 0;
    dlq_client_result_t result = dlq_client_count (ctl->client, args->filter, &count);
    if (result != DLQ_CLIENT_OK)
        return dlqctl_fail (ctl, result);
    printf (ctl->json ? "{\"count\":%" PRId64 "}\n" : "%" PRId64 "\n", count);
    return DLQCTL_EXIT_OK;
}

int
cmd_count (dlqctl_t *ctl, int argc, char **argv)
{
    static const struct option options [] = {
        FILTER_ARGS_LONG_OPTIONS,
        DLQCTL_COMMON_LONG_OPTIONS
    };
    return filter_args_run (ctl, argc, argv, options, count_usage, count_events);
}

/* ---- groups ---------------------------------------------------------- */

/* Print the groups of a GROUPS reply as a table, or "no events match". */
static int
print_groups (const char *body, size_t len, const void *arg)
{
    (void) arg;
    enum { COLUMNS = 6 };
    static const char *const paths [COLUMNS] = {
        "count", "fingerprint", "errorType", "streams", "lastSeen", "message"
    };
    table_column_t columns [COLUMNS] = {
        { "COUNT",       12, false },
        { "FINGERPRINT", 16, false },
        { "ERROR TYPE",  40, true  },
        { "STREAMS",     32, false },
        { "LAST SEEN",   24, false },
        { "MESSAGE",      0, false },
    };
    dlq_json_doc_t *doc = json_view_parse_reply ("GROUPS", body, len);
    if (!doc)
        return DLQCTL_EXIT_NO_ANSWER;
    if (json_view_table (stdout, columns, paths, COLUMNS, dlq_json_get (dlq_json_root (doc), "groups")) == 0)
        puts ("no events match");
    dlq_json_doc_destroy (&doc);
    return DLQCTL_EXIT_OK;
}

static int
show_groups (dlqctl_t *ctl, const filter_args_t *args)
{
    char *body = NULL;
    size_t len = 0;
    dlq_client_result_t result = dlq_client_groups (ctl->client, args->filter, (unsigned) args->limit, &body, &len);
    return dlqctl_show_reply (ctl, result, body, len, print_groups, NULL);
}

int
cmd_groups (dlqctl_t *ctl, int argc, char **argv)
{
    static const struct option options [] = {
        FILTER_ARGS_LONG_OPTIONS,
        FILTER_ARGS_LIMIT_OPTION,
        DLQCTL_COMMON_LONG_OPTIONS
    };
    return filter_args_run (ctl, argc, argv, options, groups_usage, show_groups);
}
