/*  itest_client — libdlq and dlqctl against a real dlqd: the calls a worker
 *  and an operator make, end to end.
 */
#include "dlq_client.h"
#include "dlq_json.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static test_dlqd_t d;

/* Every event goes to the scripted test sink "s", which fails the events
 * of stream "bad" for good and takes the others. */
static void
start (void)
{
    memset (&d, 0, sizeof d);
    cr_assert (test_dlqd_start (&d, NULL, "sinks: { s: { type = \"scripted\"; fail_stream = \"bad\"; }; };\n"
                                          "defaults: { retention_days = 0; chain = [\"s\"]; };"),
               "dlqd did not start");
}

static void stop (void) { test_dlqd_cleanup (&d); }

TestSuite (client, .init = start, .fini = stop, .timeout = 120);

static char *
event_json (const char *id, const char *stream, int n)
{
    char *body = malloc (512);
    snprintf (body, 512, "{\"id\":\"%s\",\"streamName\":\"%s\",\"operationType\":\"INSERT\","
              "\"error\":{\"type\":\"com.acme.E%d\",\"message\":\"failure %d\"},\"attempts\":%d,"
              "\"status\":\"PENDING\",\"createdAt\":\"2099-01-01T00:00:%02d.000Z\"}",
              id, stream, n, n, n % 5, n % 60);
    return body;
}

Test (client, blocking_calls_against_the_gateway)
{
    dlq_client_t *c = dlq_client_new (d.endpoint);
    cr_assert_not_null (c);
    dlq_client_pong_t pong;
    cr_assert_eq (dlq_client_ping (c, &pong), DLQ_CLIENT_OK);
    cr_expect_eq (pong.protocol, 1);
    cr_expect_eq (pong.max_message_bytes, 1048576);

    char id [DLQ_CLIENT_ID_SIZE], got_id [DLQ_CLIENT_ID_SIZE];
    dlq_client_uuid_v7 (id);
    char *body = event_json (id, "orders", 1);
    bool duplicate = true;
    cr_assert_eq (dlq_client_put (c, body, strlen (body), got_id, &duplicate), DLQ_CLIENT_OK,
                  "%s", dlq_client_error_message (c));
    cr_expect_str_eq (got_id, id);
    cr_expect_not (duplicate);
    cr_assert_eq (dlq_client_put (c, body, strlen (body), got_id, &duplicate), DLQ_CLIENT_OK);
    cr_expect (duplicate);

    char *event = NULL;
    size_t len = 0;
    cr_assert_eq (dlq_client_get (c, id, &event, &len), DLQ_CLIENT_OK);
    cr_expect (strstr (event, body) != NULL, "GET returns the canonical body sent: %s", event);
    free (event);

    char *list = NULL;
    cr_assert_eq (dlq_client_list (c, "orders", 10, NULL, &list, &len), DLQ_CLIENT_OK);
    cr_expect_not_null (strstr (list, id));
    free (list);

    cr_expect_eq (dlq_client_get (c, "0190f1d2-6c4e-7a01-8b2c-3d4e5f607183", &event, &len),
                  DLQ_CLIENT_ERR_SERVER);
    cr_expect_str_eq (dlq_client_error_code (c), "NOT_FOUND");

    const char *bad = "{\"streamName\":\"orders\"}";
    cr_expect_eq (dlq_client_put (c, bad, strlen (bad), got_id, &duplicate), DLQ_CLIENT_ERR_SERVER);
    cr_expect_str_eq (dlq_client_error_code (c), "INVALID_EVENT");
    cr_expect_str_eq (dlq_client_error_field (c), "error.type");

    char *stats = NULL;
    cr_assert_eq (dlq_client_stats (c, &stats, &len), DLQ_CLIENT_OK);
    cr_expect_not_null (strstr (stats, "\"orders\":1"), "%s", stats);
    free (stats);
    free (body);
    dlq_client_destroy (&c);
    cr_expect_null (c);
}

typedef struct {
    int ok, duplicates, errors;
} tally_t;

static void
count (const dlq_client_completion_t *completion, void *arg)
{
    tally_t *t = arg;
    if (completion->result == DLQ_CLIENT_OK)
        completion->duplicate ? t->duplicates++ : t->ok++;
    else
        t->errors++;
}

Test (client, pipelined_puts_complete_once_each)
{
    enum { N = 3000 };
    dlq_client_t *c = dlq_client_new (d.endpoint);
    dlq_client_set_window (c, 128);
    tally_t tally = { 0, 0, 0 };
    char id [DLQ_CLIENT_ID_SIZE];
    for (int i = 0; i < N; i++) {
        dlq_client_uuid_v7 (id);
        char *body = event_json (id, "bulk", i);
        cr_assert_eq (dlq_client_put_async (c, body, strlen (body), (uint64_t) i), DLQ_CLIENT_OK);
        free (body);
        dlq_client_poll (c, 0, count, &tally);
    }
    cr_assert_eq (dlq_client_flush (c, 30000, count, &tally), DLQ_CLIENT_OK);
    cr_expect_eq (tally.ok, N);
    cr_expect_eq (tally.errors, 0);
    char *stats = NULL;
    size_t len;
    cr_assert_eq (dlq_client_stats (c, &stats, &len), DLQ_CLIENT_OK);
    cr_expect_not_null (strstr (stats, "\"bulk\":3000"), "%s", stats);
    free (stats);
    dlq_client_destroy (&c);
}

/* Run dlqctl with args against the test gateway; output into *out. */
static int
dlqctl (const char *args, const char *stdin_file, char **out)
{
    char cmd [1024], path [300];
    snprintf (path, sizeof path, "%s/dlqctl.out", d.dir);
    snprintf (cmd, sizeof cmd, "%s --endpoint %s %s < %s > %s 2>&1", DLQCTL_BINARY, d.endpoint, args,
              stdin_file ? stdin_file : "/dev/null", path);
    int status = system (cmd);
    *out = test_read_file (path, NULL);
    return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

Test (client, dlqctl_put_list_get_stats)
{
    char input [300];
    snprintf (input, sizeof input, "%s/events.jsonl", d.dir);
    FILE *f = fopen (input, "w");
    fprintf (f, "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-000000000001\",\"streamName\":\"ops\","
                "\"error\":{\"type\":\"com.acme.Timeout\",\"message\":\"slow\"},\"createdAt\":\"2099-01-01T00:00:01.000Z\"}\n"
                "\n"
                "{\"streamName\":\"ops\",\"error\":{\"type\":\"com.acme.Refused\"},\"createdAt\":\"2099-01-01T00:00:02.000Z\"}\n"
                "{\"streamName\":\"ops\"}\n"
                "not json\n");
    fclose (f);
    char *out = NULL;
    cr_expect_eq (dlqctl ("put", input, &out), 1, "rejected lines make put exit 1: %s", out);
    cr_expect_not_null (strstr (out, "2 stored, 0 duplicates, 2 rejected"), "%s", out);
    cr_expect_not_null (strstr (out, "line 4: INVALID_EVENT"), "%s", out);
    cr_expect_not_null (strstr (out, "line 5: INVALID_JSON"), "%s", out);
    free (out);

    cr_expect_eq (dlqctl ("list --stream ops", NULL, &out), 0);
    cr_expect_not_null (strstr (out, "0190f1d2-6c4e-7a01-8b2c-000000000001"), "%s", out);
    cr_expect_not_null (strstr (out, "com.acme.Refused"), "%s", out);
    cr_expect_lt (strstr (out, "com.acme.Refused"), strstr (out, "com.acme.Timeout"), "newest first");
    free (out);

    cr_expect_eq (dlqctl ("get 0190f1d2-6c4e-7a01-8b2c-000000000001 --json", NULL, &out), 0);
    const char *want = "{\"event\":{\"id\":\"0190f1d2-6c4e-7a01-8b2c-000000000001\",";
    cr_expect_eq (strncmp (out, want, strlen (want)), 0, "%s", out);
    free (out);

    cr_expect_eq (dlqctl ("get 0190f1d2-6c4e-7a01-8b2c-000000000009", NULL, &out), 1);
    cr_expect_not_null (strstr (out, "NOT_FOUND"), "%s", out);
    free (out);

    cr_expect_eq (dlqctl ("stats --json", NULL, &out), 0);
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (out, strlen (out), &doc, NULL), DLQ_JSON_OK, "%s", out);
    const dlq_json_value_t *ops = dlq_json_get (dlq_json_get (dlq_json_root (doc), "streams"), "ops");
    int64_t n = 0;
    cr_expect (ops && dlq_json_as_int64 (ops, &n) && n == 2, "%s", out);
    dlq_json_doc_destroy (&doc);
    free (out);

    cr_expect_eq (dlqctl ("ping", NULL, &out), 0);
    cr_expect_not_null (strstr (out, "pong from"), "%s", out);
    free (out);
}

Test (client, dlqctl_reports_a_gateway_that_is_gone)
{
    test_dlqd_signal_wait (&d, SIGTERM);
    char *out = NULL;
    char args [64];
    snprintf (args, sizeof args, "--timeout 300 ping");
    cr_expect_eq (dlqctl (args, NULL, &out), 2, "%s", out);
    free (out);
}

/* sinks.s.<field> of a STATS reply as text (a number's digits), "" when
 * it is not there; caller frees. */
static char *
sink_figure (dlq_client_t *c, const char *field)
{
    char *stats = NULL;
    size_t len = 0;
    cr_assert_eq (dlq_client_stats (c, &stats, &len), DLQ_CLIENT_OK, "%s", dlq_client_error_message (c));
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (stats, len, &doc, NULL), DLQ_JSON_OK, "%s", stats);
    const dlq_json_value_t *v = dlq_json_get (dlq_json_get (dlq_json_get (dlq_json_root (doc), "sinks"), "s"), field);
    char *text = strdup (v && v->str ? v->str : "");
    dlq_json_doc_destroy (&doc);
    free (stats);
    return text;
}

/* Ask STATS until sinks.s.<field> is text (same) or is no longer text
 * (!same), for 10 s at most; says whether it came to that. */
static bool
wait_sink_figure (dlq_client_t *c, const char *field, const char *text, bool same)
{
    struct timespec start, now;
    clock_gettime (CLOCK_MONOTONIC, &start);
    do {
        char *got = sink_figure (c, field);
        bool done = (strcmp (got, text) == 0) == same;
        free (got);
        if (done)
            return true;
        usleep (20 * 1000);
        clock_gettime (CLOCK_MONOTONIC, &now);
    } while (now.tv_sec - start.tv_sec < 10);
    return false;
}

/* Wait (10 s at most) until GET id shows its delivery failed: STATS may say
 * so before the ledger does, and REDELIVER reads the ledger. */
static bool
wait_delivery_failed (dlq_client_t *c, const char *id)
{
    for (int i = 0; i < 500; i++) {
        char *reply = NULL;
        bool failed = dlq_client_get_reply (c, id, &reply, NULL) == DLQ_CLIENT_OK
                   && strstr (reply, "\"state\":\"failed\"");
        free (reply);
        if (failed)
            return true;
        usleep (20 * 1000);
    }
    return false;
}

Test (client, dlqctl_redeliver_and_the_sink_tables)
{
    dlq_client_t *c = dlq_client_new (d.endpoint);
    cr_assert_not_null (c);
    char id [DLQ_CLIENT_ID_SIZE], args [128];
    dlq_client_uuid_v7 (id);
    char *body = event_json (id, "bad", 1);
    cr_assert_eq (dlq_client_put (c, body, strlen (body), NULL, NULL), DLQ_CLIENT_OK, "%s", dlq_client_error_message (c));
    free (body);
    cr_assert (wait_sink_figure (c, "failed", "1", true), "the scripted sink fails the event of stream bad");

    char *out = NULL;
    cr_expect_eq (dlqctl ("stats", NULL, &out), 0, "%s", out);
    cr_expect_not_null (strstr (out, "\nSINK  TYPE      BACKLOG  DELIVERED  RETRYING  FAILED  REDELIVERED  CIRCUIT  LAST ERROR\n"),
                        "%s", out);
    cr_expect_not_null (strstr (out, "\ns     scripted  0        "), "%s", out);
    cr_expect_not_null (strstr (out, "  1       0            closed   scripted permanent failure\n"), "%s", out);
    free (out);

    snprintf (args, sizeof args, "get %s", id);
    cr_expect_eq (dlqctl (args, NULL, &out), 0, "%s", out);
    cr_expect_not_null (strstr (out, "\"streamName\": \"bad\""), "%s", out);
    cr_expect_not_null (strstr (out, "}\n\nSINK  STATE   ATTEMPTS  NEXT ATTEMPT  LAST ERROR\n"
                                     "s     failed  1         -             scripted permanent failure\n"), "%s", out);
    free (out);

    cr_expect_eq (dlqctl ("redeliver --sink s --stream good", NULL, &out), 0, "%s", out);
    cr_expect_str_eq (out, "requeued 0 failed deliveries to s\n");
    free (out);
    char *failed_at = sink_figure (c, "lastErrorAt");
    cr_expect_eq (dlqctl ("redeliver --sink s --stream bad", NULL, &out), 0, "%s", out);
    cr_expect_str_eq (out, "requeued 1 failed deliveries to s\n");
    free (out);
    cr_expect (wait_sink_figure (c, "lastErrorAt", failed_at, false), "the requeued delivery was tried again");
    cr_expect (wait_sink_figure (c, "failed", "1", true), "and failed again");
    cr_expect (wait_delivery_failed (c, id), "the ledger has it failed again");
    free (failed_at);

    cr_expect_eq (dlqctl ("redeliver --sink nosuch", NULL, &out), 1, "%s", out);
    cr_expect_str_eq (out, "dlqctl: INVALID_REQUEST: sink must name a configured sink (sink)\n");
    free (out);
    int64_t requeued = -1;
    cr_expect_eq (dlq_client_redeliver (c, "s", NULL, "not-a-uuid", &requeued), DLQ_CLIENT_ERR_SERVER);
    cr_expect_str_eq (dlq_client_error_code (c), "INVALID_REQUEST");
    cr_expect_str_eq (dlq_client_error_field (c), "id");
    cr_expect_eq (requeued, -1, "untouched on failure");
    cr_expect_eq (dlq_client_redeliver (c, "s", NULL, id, &requeued), DLQ_CLIENT_OK, "%s", dlq_client_error_message (c));
    cr_expect_eq (requeued, 1);
    dlq_client_destroy (&c);
}
