/*  itest_workbench — the failure workbench's queries over the wire, on the
 *  embedded primary: LIST with filters (and across streams), COUNT, and
 *  GROUPS by error fingerprint (the same bug with different ids is one
 *  group; different bugs are different groups); bad filters are refused
 *  naming the member; a fingerprint is of the event as stored (a stream
 *  that drops stack traces groups without frames, as core computes it from
 *  the stored body); a sink primary without the workbench calls says
 *  filters need one that has them.
 */
#include "dlq_json.h"
#include "dlq_uuid.h"
#include "failed_event.h"
#include "sink_support.h"
#include "test_support.h"
#include "workbench_support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static test_dlqd_t d;

static void setup (void) { memset (&d, 0, sizeof d); test_tmpdir (d.dir); }
static void teardown (void) { test_dlqd_cleanup (&d); }

TestSuite (workbench, .init = setup, .fini = teardown, .timeout = 120);

/* The number of events of a LIST reply (all pages of size limit). */
static size_t
listed (const char *filters, int limit)
{
    size_t n = 0;
    char *cursor = NULL;
    for (int pages = 0; pages < 100; pages++) {
        char request [1024];
        size_t len = strlen (filters);
        snprintf (request, sizeof request, "%.*s%s\"limit\":%d%s%s%s}", (int) (len - 1), filters,
                  len > 2 ? "," : "", limit, cursor ? ",\"cursor\":\"" : "", cursor ? cursor : "", cursor ? "\"" : "");
        free (cursor);
        cursor = NULL;
        char *reply = sink_request (d.endpoint, "LIST", request, "OK");
        dlq_json_doc_t *doc = NULL;
        cr_assert_eq (dlq_json_parse (reply, strlen (reply), &doc, NULL), DLQ_JSON_OK, "%s", reply);
        n += dlq_json_get (dlq_json_root (doc), "events")->count;
        const dlq_json_value_t *next = dlq_json_get (dlq_json_root (doc), "nextCursor");
        if (next)
            cursor = strndup (next->str, next->len);
        dlq_json_doc_destroy (&doc);
        free (reply);
        if (!cursor)
            break;
    }
    return n;
}

Test (workbench, list_and_count_with_filters)
{
    cr_assert (test_dlqd_start (&d, NULL, NULL));
    workbench_put_failures (d.endpoint);
    cr_expect_eq (sink_count (d.endpoint, "{}"), 11);
    cr_expect_eq (sink_count (d.endpoint, "{\"streamName\":\"orders\"}"), 8);
    cr_expect_eq (sink_count (d.endpoint, "{\"status\":\"DLQ\"}"), 3);
    cr_expect_eq (sink_count (d.endpoint, "{\"errorType\":\"com.acme.NotFound\"}"), 3);
    cr_expect_eq (sink_count (d.endpoint, "{\"messageContains\":\"TIMED OUT\"}"), 6);
    cr_expect_eq (sink_count (d.endpoint, "{\"metadata\":{\"tenantId\":\"acme\"}}"), 2);
    cr_expect_eq (sink_count (d.endpoint, "{\"attemptsMin\":2,\"attemptsMax\":4,\"streamName\":\"orders\"}"), 5);
    cr_expect_eq (sink_count (d.endpoint, "{\"createdAfter\":\"2099-01-01T00:00:00Z\"}"), 0);
    cr_expect_eq (listed ("{}", 4), 11, "LIST across streams, in pages");
    cr_expect_eq (listed ("{\"streamName\":\"orders\",\"status\":\"PENDING\"}", 2), 5);
    cr_expect_eq (listed ("{\"messageContains\":\"sku\"}", 1), 2);
}

Test (workbench, groups_by_fingerprint)
{
    cr_assert (test_dlqd_start (&d, NULL, NULL));
    workbench_put_failures (d.endpoint);
    char *reply = sink_request (d.endpoint, "GROUPS", "{}", "OK");
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (reply, strlen (reply), &doc, NULL), DLQ_JSON_OK, "%s", reply);
    const dlq_json_value_t *groups = dlq_json_get (dlq_json_root (doc), "groups");
    cr_assert_eq (groups->count, 3, "three bugs, three groups: %s", reply);
    const dlq_json_value_t *first = groups->child;
    int64_t n = 0;
    cr_expect (dlq_json_as_int64 (dlq_json_get (first, "count"), &n));
    cr_expect_eq (n, 6, "the timeouts are one group (different ids, ports, durations, lines): %s", reply);
    cr_expect_not_null (strstr (reply, "\"message\":\"Read timed out after <num> ms calling <ip>\""), "%s", reply);
    cr_expect_not_null (strstr (reply, "\"message\":\"Order <hex> not found\""), "%s", reply);
    cr_expect_not_null (strstr (reply, "\"streams\":[\"payments\"]"), "%s", reply);
    const dlq_json_value_t *fp = dlq_json_get (first, "fingerprint");
    char request [96];
    snprintf (request, sizeof request, "{\"fingerprint\":\"%.*s\"}", (int) fp->len, fp->str);
    cr_expect_eq (sink_count (d.endpoint, request), 6, "the fingerprint filter finds the group's events");
    dlq_json_doc_destroy (&doc);
    free (reply);
    reply = sink_request (d.endpoint, "GROUPS", "{\"streamName\":\"payments\",\"limit\":5}", "OK");
    cr_expect_not_null (strstr (reply, "\"count\":3"), "%s", reply);
    cr_expect_null (strstr (reply, "Timeout"), "%s", reply);
    free (reply);
}

/* Two failures alike but for their top stack frame. */
static void
put_two_paths (const char *stream)
{
    for (int i = 0; i < 2; i++) {
        char body [512];
        snprintf (body, sizeof body, "{\"streamName\":\"%s\",\"error\":{\"type\":\"java.lang.IllegalStateException\","
                  "\"message\":\"no tenant\",\"stackTrace\":\"java.lang.IllegalStateException: no tenant\\n"
                  "\\tat com.acme.%s(Orders.java:%d)\"}}", stream, i ? "Orders.ship" : "Orders.bill", 10 + i);
        char id [DLQ_UUID_LEN + 1];
        sink_put_one (d.endpoint, body, id);
    }
}

Test (workbench, a_fingerprint_is_of_the_event_as_stored)
{
    cr_assert (test_dlqd_start (&d, NULL, "streams = ( { name = \"lean\"; include_stack_trace = false; } );"));
    put_two_paths ("lean");
    put_two_paths ("full");
    char *lean = sink_request (d.endpoint, "GROUPS", "{\"streamName\":\"lean\"}", "OK");
    char *full = sink_request (d.endpoint, "GROUPS", "{\"streamName\":\"full\"}", "OK");
    cr_expect_not_null (strstr (lean, "\"count\":2"), "the frames were not stored: one group: %s", lean);
    cr_expect_null (strstr (full, "\"count\":2"), "other top frames, other groups: %s", full);
    /* the fingerprint is what core computes from the stored body, as a sink store does */
    char *list = sink_request (d.endpoint, "LIST", "{\"streamName\":\"lean\",\"limit\":1}", "OK");
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (list, strlen (list), &doc, NULL), DLQ_JSON_OK);
    dlq_buf_t stored = DLQ_BUF_INIT;
    dlq_json_write (&stored, dlq_json_get (dlq_json_root (doc), "events")->child);
    dlq_error_t err;
    dlq_event_t *e = dlq_event_decode (stored.data, stored.len, 0, &err);
    cr_assert_not_null (e, "%s", err.message);
    char hex [17];
    dlq_event_fingerprint_hex (e, hex);
    cr_expect_not_null (strstr (lean, hex), "GROUPS has %s: %s", hex, lean);
    dlq_event_destroy (&e);
    dlq_buf_free (&stored);
    dlq_json_doc_destroy (&doc);
    free (list);
    free (lean);
    free (full);
}

Test (workbench, bad_filters_are_refused_naming_the_member)
{
    cr_assert (test_dlqd_start (&d, NULL, NULL));
    char *reply = sink_request (d.endpoint, "COUNT", "{\"createdAfter\":\"yesterday\"}", "ERR");
    cr_expect_not_null (strstr (reply, "\"code\":\"INVALID_REQUEST\""), "%s", reply);
    cr_expect_not_null (strstr (reply, "\"field\":\"createdAfter\""), "%s", reply);
    free (reply);
    reply = sink_request (d.endpoint, "LIST", "{\"status\":\"DLQ\",\"colour\":\"red\"}", "ERR");
    cr_expect_not_null (strstr (reply, "\"field\":\"colour\""), "%s", reply);
    free (reply);
    reply = sink_request (d.endpoint, "GROUPS", "{\"limit\":0}", "ERR");
    cr_expect_not_null (strstr (reply, "\"field\":\"limit\""), "%s", reply);
    free (reply);
}

Test (workbench, a_sink_primary_without_workbench_calls_says_filters_need_one)
{
    char extra [512];
    snprintf (extra, sizeof extra, "sinks: { copy: { type = \"scripted_store\"; }; };\n"
              "primary = \"copy\";\ndefaults: { chain = [\"copy\"]; };");
    char path [320];
    snprintf (path, sizeof path, "%s/copy", d.dir);
    cr_assert (mkdir (path, 0700) == 0);
    cr_assert (test_dlqd_start (&d, NULL, extra));
    char *reply = sink_request (d.endpoint, "COUNT", "{}", "ERR");
    cr_expect_not_null (strstr (reply, "need a primary that answers them"), "%s", reply);
    free (reply);
    reply = sink_request (d.endpoint, "LIST", "{\"streamName\":\"orders\"}", "OK");
    free (reply);
    reply = sink_request (d.endpoint, "RESOLVE", "{\"id\":\"0190a0b2-4c1d-7e5f-8a9b-0c1d2e3f4a5b\"}", "ERR");
    cr_expect_not_null (strstr (reply, "keeps it"), "%s", reply);
    free (reply);

    /* a schedule needs a primary that keeps replay state: a config error */
    test_dlqd_cleanup (&d);
    test_tmpdir (d.dir);
    snprintf (path, sizeof path, "%s/copy", d.dir);
    cr_assert (mkdir (path, 0700) == 0);
    snprintf (extra, sizeof extra, "sinks: { copy: { type = \"scripted_store\"; }; };\n"
              "primary = \"copy\";\ndefaults: { chain = [\"copy\"]; };");
    char settings [768];
    snprintf (settings, sizeof settings, "%s\nreplay: { listen = \"tcp://127.0.0.1:%d\"; };\n"
              "streams = ( { name = \"s\"; replay_route = \"endpoint\"; schedule = { }; } );", extra,
              test_free_port ());
    sink_expect_startup_error (&d, test_dlqd_start (&d, NULL, settings), settings, "keeps no replay state");
}
