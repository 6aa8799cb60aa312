/*  itest_dlqctl_workbench — the failure workbench through dlqctl_on (&d, list
 *  with filters, count, groups) and libdlq (dlq_client_list_filtered,
 *  _count, _groups) against a real dlqd holding the workbench's failures
 *  (workbench_support.h): filters select what they say, the same bug with
 *  other ids is one group, and a filter the gateway refuses is reported
 *  with the member it names.
 */
#include "dlq_client.h"
#include "dlq_json.h"
#include "dlqctl_support.h"
#include "test_support.h"
#include "workbench_support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static test_dlqd_t d;

static void
start (void)
{
    memset (&d, 0, sizeof d);
    test_tmpdir (d.dir);
    cr_assert (test_dlqd_start (&d, NULL, NULL), "dlqd did not start");
    workbench_put_failures (d.endpoint);
}

static void stop (void) { test_dlqd_cleanup (&d); }

TestSuite (workbench_client, .init = start, .fini = stop, .timeout = 120);

static void
expect_count (const char *args, const char *want)
{
    char *out = dlqctl_ok (&d, args);
    cr_expect_str_eq (out, want, "dlqctl %s", args);
    free (out);
}

Test (workbench_client, dlqctl_list_with_filters)
{
    char *out = dlqctl_ok (&d, "list --stream orders --error-type java.net.SocketTimeoutException --status PENDING"
                               " --attempts-min 1 --attempts-max 5 --since 2000-01-01T00:00:00Z"
                               " --until 2099-01-01T00:00:00Z");
    cr_expect_eq (dlqctl_lines (out), 3, "the timeouts 2 and 4, with a header:\n%s", out);
    cr_expect_eq (strncmp (out, "ID                                    CREATED AT  ", 50), 0, "one stream: no STREAM column\n%s", out);
    cr_expect_not_null (strstr (out, "Read timed out after 3000 ms calling 10.0.0.2:8080\n"), "%s", out);
    cr_expect_not_null (strstr (out, "Read timed out after 5000 ms calling 10.0.0.4:8080\n"), "%s", out);
    free (out);

    out = dlqctl_ok (&d, "list --meta tenantId=acme --message SKU-1");
    cr_expect_eq (dlqctl_lines (out), 2, "%s", out);
    cr_expect_eq (strncmp (out, "ID                                    STREAM            CREATED AT  ", 68), 0,
                  "every stream: a STREAM column\n%s", out);
    cr_expect_not_null (strstr (out, "  orders            "), "%s", out);
    cr_expect_not_null (strstr (out, "com.acme.ValidationError          3         PENDING      field 'sku-1' is required\n"),
                        "%s", out);
    free (out);

    out = dlqctl_ok (&d, "list --limit 4 --all");
    cr_expect_eq (dlqctl_lines (out), 12, "every event of every stream, page after page:\n%s", out);
    cr_expect_null (strstr (out, "next cursor"), "%s", out);
    free (out);
    out = dlqctl_ok (&d, "list --limit 4 --all --json");
    cr_expect_eq (dlqctl_lines (out), 3, "three raw pages:\n%s", out);
    free (out);
    out = dlqctl_ok (&d, "list --stream payments --limit 2");
    cr_expect_eq (dlqctl_lines (out), 4, "a page and the next cursor:\n%s", out);
    cr_expect_not_null (strstr (out, "\nnext cursor: "), "%s", out);
    free (out);
}

Test (workbench_client, dlqctl_count)
{
    expect_count ("count", "11\n");
    expect_count ("count --stream payments", "3\n");
    expect_count ("count --message 'TIMED OUT' --status DLQ", "3\n");
    expect_count ("count --since 2099-01-01T00:00:00Z", "0\n");
    expect_count ("count --until 2099-01-01T00:00:00Z --meta tenantId=acme", "2\n");
    expect_count ("count --meta tenantId=acme --meta tenantId=other", "0\n");
    expect_count ("count --json --stream orders", "{\"count\":8}\n");
}

Test (workbench_client, dlqctl_groups_what_is_failing)
{
    char *out = dlqctl_ok (&d, "groups");
    cr_assert_eq (dlqctl_lines (out), 4, "three bugs, three groups:\n%s", out);
    const char *header = "COUNT  FINGERPRINT       ERROR TYPE                       STREAMS   LAST SEEN                 MESSAGE\n";
    cr_assert_eq (strncmp (out, header, strlen (header)), 0, "%s", out);
    const char *first = out + strlen (header);
    cr_expect_eq (strncmp (first, "6      ", 7), 0, "the timeouts with their different ids are one group:\n%s", out);
    cr_expect_not_null (strstr (first, "  java.net.SocketTimeoutException  orders    "), "%s", out);
    cr_expect_not_null (strstr (first, "  Read timed out after <num> ms calling <ip>\n3      "), "%s", out);
    cr_expect_not_null (strstr (first, "  com.acme.NotFound                payments  "), "%s", out);
    cr_expect_not_null (strstr (first, "  field <str> is required\n"), "%s", out);
    char args [64];
    snprintf (args, sizeof args, "count --fingerprint %.16s", first + 7);
    expect_count (args, "6\n");
    free (out);

    out = dlqctl_ok (&d, "groups --stream payments --limit 5");
    cr_expect_eq (dlqctl_lines (out), 2, "%s", out);
    cr_expect_not_null (strstr (out, "\n3      "), "%s", out);
    cr_expect_not_null (strstr (out, "  Order <hex> not found\n"), "%s", out);
    free (out);
    out = dlqctl_ok (&d, "groups --since 2099-01-01T00:00:00Z");
    cr_expect_str_eq (out, "no events match\n");
    free (out);
    out = dlqctl_ok (&d, "groups --limit 1 --json");
    cr_expect_eq (strncmp (out, "{\"groups\":[{\"fingerprint\":\"", 27), 0, "%s", out);
    cr_expect_not_null (strstr (out, "\"count\":6,"), "%s", out);
    cr_expect_null (strstr (out, "NotFound"), "one group only: %s", out);
    free (out);
}

Test (workbench_client, dlqctl_reports_bad_filters)
{
    char *out, *err;
    cr_expect_eq (dlqctl_on (&d, "list --since yesterday", &out, &err), 1, "%s", err);
    cr_expect_str_eq (err, "dlqctl: INVALID_REQUEST: expected an ISO-8601 instant such as 2026-06-09T14:32:11.123Z"
                           " (createdAfter)\n");
    cr_expect_str_eq (out, "");
    free (out);
    free (err);
    cr_expect_eq (dlqctl_on (&d, "count --fingerprint C8ECE6878338F747", &out, &err), 1, "%s", err);
    cr_expect_str_eq (err, "dlqctl: INVALID_REQUEST: expected 16 lowercase hex digits (fingerprint)\n");
    free (out);
    free (err);
    cr_expect_eq (dlqctl_on (&d, "groups --meta shard.id=1", &out, &err), 1, "%s", err);
    cr_expect_not_null (strstr (err, " (metadata.shard.id)\n"), "%s", err);
    free (out);
    free (err);
    cr_expect_eq (dlqctl_on (&d, "list --meta tenantId", &out, &err), 64, "%s", err);
    cr_expect_str_eq (err, "dlqctl: list: --meta wants KEY=VALUE, not 'tenantId'\nTry 'dlqctl list --help'.\n");
    free (out);
    free (err);
}

/* The number of events of a LIST page; *next_out its nextCursor (caller
 * frees) or NULL. */
static size_t
page_events (const char *body, size_t len, char **next_out)
{
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (body, len, &doc, NULL), DLQ_JSON_OK, "%s", body);
    const dlq_json_value_t *events = dlq_json_get (dlq_json_root (doc), "events");
    const dlq_json_value_t *next = dlq_json_get (dlq_json_root (doc), "nextCursor");
    cr_assert (events && events->type == DLQ_JSON_ARRAY, "%s", body);
    size_t n = events->count;
    *next_out = next ? strndup (next->str, next->len) : NULL;
    dlq_json_doc_destroy (&doc);
    return n;
}

/* Every event that matches filter, page after page of limit. */
static size_t
list_all (dlq_client_t *c, const dlq_client_filter_t *filter, unsigned limit)
{
    size_t n = 0;
    char *cursor = NULL;
    for (int pages = 0; pages < 100; pages++) {
        char *body = NULL, *next = NULL;
        size_t len = 0;
        cr_assert_eq (dlq_client_list_filtered (c, filter, limit, cursor, &body, &len), DLQ_CLIENT_OK,
                      "%s", dlq_client_error_message (c));
        n += page_events (body, len, &next);
        free (body);
        free (cursor);
        cursor = next;
        if (!cursor)
            break;
    }
    return n;
}

static int64_t
count (dlq_client_t *c, const dlq_client_filter_t *filter)
{
    int64_t n = -1;
    cr_assert_eq (dlq_client_count (c, filter, &n), DLQ_CLIENT_OK, "%s", dlq_client_error_message (c));
    return n;
}

Test (workbench_client, libdlq_filtered_list_count_and_groups)
{
    dlq_client_t *c = dlqctl_client (&d);
    const char *extra = "{\"streamName\":\"extras\",\"metadata\":{\"shard\":3,\"vip\":true,\"tenant\":\"a\\\"b\\\\c\"},"
                        "\"error\":{\"type\":\"com.acme.Stop\",\"message\":\"He said \\\"stop\\\" \\\\ now\"}}";
    cr_assert_eq (dlq_client_put (c, extra, strlen (extra), NULL, NULL), DLQ_CLIENT_OK, "%s", dlq_client_error_message (c));

    dlq_client_filter_t *f = dlq_client_filter_new ();
    cr_expect_eq (list_all (c, NULL, 5), 12, "no filter: every stream");
    dlq_client_filter_set_stream (f, "orders");
    cr_expect_eq (list_all (c, f, 3), 8);
    cr_expect_eq (count (c, f), 8);
    dlq_client_filter_set_attempts_max (f, 2);
    cr_expect_eq (count (c, f), 3, "attempts 0, 1, 2");
    dlq_client_filter_clear (f);

    dlq_client_filter_set_message_contains (f, "SAID \"STOP\" \\ NOW");
    cr_expect_eq (count (c, f), 1, "quotes and backslashes arrive as they are");
    dlq_client_filter_set_metadata_number (f, "shard", 3.0);
    dlq_client_filter_set_metadata_bool (f, "vip", true);
    dlq_client_filter_set_metadata_string (f, "tenant", "a\"b\\c");
    cr_expect_eq (list_all (c, f, 10), 1);
    dlq_client_filter_set_metadata_bool (f, "vip", false);
    cr_expect_eq (count (c, f), 0);
    dlq_client_filter_clear (f);

    char *body = NULL;
    cr_assert_eq (dlq_client_groups (c, NULL, 2, &body, NULL), DLQ_CLIENT_OK, "%s", dlq_client_error_message (c));
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (body, strlen (body), &doc, NULL), DLQ_JSON_OK, "%s", body);
    const dlq_json_value_t *groups = dlq_json_get (dlq_json_root (doc), "groups");
    cr_assert_eq (groups->count, 2, "limit 2: %s", body);
    int64_t n = 0;
    cr_expect (dlq_json_as_int64 (dlq_json_get (groups->child, "count"), &n) && n == 6, "%s", body);
    const dlq_json_value_t *fp = dlq_json_get (groups->child, "fingerprint");
    char fingerprint [17];
    snprintf (fingerprint, sizeof fingerprint, "%.*s", (int) fp->len, fp->str);
    dlq_json_doc_destroy (&doc);
    free (body);
    dlq_client_filter_set_fingerprint (f, fingerprint);
    cr_expect_eq (list_all (c, f, 4), 6, "the group's events");

    dlq_client_filter_set_created_before (f, "tomorrow");
    cr_expect_eq (dlq_client_groups (c, f, 0, &body, NULL), DLQ_CLIENT_ERR_SERVER);
    cr_expect_str_eq (dlq_client_error_code (c), "INVALID_REQUEST");
    cr_expect_str_eq (dlq_client_error_field (c), "createdBefore");
    dlq_client_filter_destroy (&f);
    dlq_client_destroy (&c);
}
