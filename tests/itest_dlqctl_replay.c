/*  itest_dlqctl_replay — replay through dlqctl and libdlq against a real
 *  dlqd holding the workbench's failures (workbench_support.h), with a
 *  replay endpoint and stream orders routed to it (payments has no
 *  replay_route): a dry run's count and sample, a job to the endpoint
 *  whose events a dlq_replay_receiver takes with their lineage
 *  (metadata.replayOf / replayCount) while dlqctl follows it, plain
 *  progress lines when stdout is not a terminal, status / pause / resume
 *  / cancel of a job, events that cannot be routed counted failed, and
 *  resolve / fail changing what GET says of an event.
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
static char replay_endpoint [64];

static void
start (void)
{
    char extra [512];
    memset (&d, 0, sizeof d);
    test_tmpdir (d.dir);
    snprintf (replay_endpoint, sizeof replay_endpoint, "tcp://127.0.0.1:%d", test_free_port ());
    snprintf (extra, sizeof extra,
              "replay: { listen = \"%s\"; rate = 1000; };\n"
              "streams = ( { name = \"orders\"; replay_route = \"endpoint\"; } );\n", replay_endpoint);
    cr_assert (test_dlqd_start (&d, NULL, extra), "dlqd did not start");
    workbench_put_failures (d.endpoint);
}

static void stop (void) { test_dlqd_cleanup (&d); }

TestSuite (dlqctl_replay, .init = start, .fini = stop, .timeout = 120);

/* ---- helpers ------------------------------------------------------------- */

static bool
starts_with (const char *text, const char *prefix)
{
    return strncmp (text, prefix, strlen (prefix)) == 0;
}

/* The ids of the events of a stream (at most max), newest first. */
static size_t
stream_ids (const char *stream, char ids [][DLQ_CLIENT_ID_SIZE], size_t max)
{
    dlq_client_t *c = dlqctl_client (&d);
    dlq_client_filter_t *f = dlq_client_filter_new ();
    dlq_client_filter_set_stream (f, stream);
    char *body = NULL;
    size_t len = 0, n = 0;
    cr_assert_eq (dlq_client_list_filtered (c, f, 100, NULL, &body, &len), DLQ_CLIENT_OK,
                  "%s", dlq_client_error_message (c));
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (body, len, &doc, NULL), DLQ_JSON_OK, "%s", body);
    const dlq_json_value_t *events = dlq_json_get (dlq_json_root (doc), "events");
    for (const dlq_json_value_t *e = events ? events->child : NULL; e && n < max; e = e->next) {
        const dlq_json_value_t *id = dlq_json_get (e, "id");
        snprintf (ids [n++], DLQ_CLIENT_ID_SIZE, "%.*s", (int) id->len, id->str);
    }
    dlq_json_doc_destroy (&doc);
    free (body);
    dlq_client_filter_destroy (&f);
    dlq_client_destroy (&c);
    return n;
}

/* The job id a dlqctl replay printed first: "job <id>: replaying ...". */
static void
job_of (const char *out, char job [DLQ_CLIENT_ID_SIZE])
{
    cr_assert (starts_with (out, "job "), "%s", out);
    snprintf (job, DLQ_CLIENT_ID_SIZE, "%.36s", out + 4);
}

/* A member of the replayed event's metadata, as text ("" when absent). */
static void
metadata_text (const dlq_json_value_t *event, const char *key, char *out, size_t size)
{
    const dlq_json_value_t *v = dlq_json_get (dlq_json_get (event, "metadata"), key);
    snprintf (out, size, "%.*s", v ? (int) v->len : 0, v ? v->str : "");
}

/* Take n replayed events off the endpoint, each of job (NULL: any) and
 * its lineage saying it was replayed replay_count times; their ids into
 * ids. */
static void
take_replayed (dlq_replay_receiver_t *r, const char *job, int n, const char *replay_count,
               char ids [][DLQ_CLIENT_ID_SIZE])
{
    for (int i = 0; i < n; i++) {
        char got_job [DLQ_CLIENT_ID_SIZE], text [64], *event = NULL;
        size_t len = 0;
        cr_assert_eq (dlq_replay_receiver_recv (r, 10000, got_job, ids [i], &event, &len), DLQ_CLIENT_OK,
                      "replayed event %d of %d", i + 1, n);
        if (job)
            cr_expect_str_eq (got_job, job);
        dlq_json_doc_t *doc = NULL;
        cr_assert_eq (dlq_json_parse (event, len, &doc, NULL), DLQ_JSON_OK, "%s", event);
        const dlq_json_value_t *root = dlq_json_root (doc);
        const dlq_json_value_t *id = dlq_json_get (root, "id");
        cr_expect (id && id->len == 36 && memcmp (id->str, ids [i], 36) == 0, "the event keeps its id: %s", event);
        metadata_text (root, "replayOf", text, sizeof text);
        cr_expect_str_eq (text, ids [i], "metadata.replayOf: %s", event);
        metadata_text (root, "replayCount", text, sizeof text);
        cr_expect_str_eq (text, replay_count, "metadata.replayCount: %s", event);
        metadata_text (root, "tenantId", text, sizeof text);
        cr_expect_str_eq (text, "acme", "the metadata it had is kept: %s", event);
        dlq_json_doc_destroy (&doc);
        free (event);
    }
}

/* GET's reply for id, parsed; caller destroys. */
static dlq_json_doc_t *
get_reply (const char *id)
{
    dlq_client_t *c = dlqctl_client (&d);
    char *body = NULL;
    size_t len = 0;
    cr_assert_eq (dlq_client_get_reply (c, id, &body, &len), DLQ_CLIENT_OK, "%s", dlq_client_error_message (c));
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (body, len, &doc, NULL), DLQ_JSON_OK, "%s", body);
    free (body);
    dlq_client_destroy (&c);
    return doc;
}

/* A member of GET's reply at a dotted path ("event.status"), as text. */
static void
reply_text (const dlq_json_value_t *root, const char *a, const char *b, char *out, size_t size)
{
    const dlq_json_value_t *v = dlq_json_get (dlq_json_get (root, a), b);
    cr_assert_not_null (v, "GET reply without %s.%s", a, b);
    snprintf (out, size, "%.*s", (int) v->len, v->str);
}

/* ---- dry run --------------------------------------------------------------- */

Test (dlqctl_replay, dry_run_counts_and_shows_a_sample)
{
    char *out = dlqctl_ok (&d, "replay --stream orders --dry-run --sample 3");
    cr_expect (starts_with (out, "8 events would be replayed\nID                                    STREAM  "),
                  "%s", out);
    cr_expect_eq (dlqctl_lines (out), 5, "the count, a header and 3 events:\n%s", out);
    cr_expect_not_null (strstr (out, "  orders  "), "%s", out);
    free (out);
    out = dlqctl_ok (&d, "replay --all --dry-run --sample 0");
    cr_expect_str_eq (out, "11 events would be replayed\n");
    free (out);
    out = dlqctl_ok (&d, "replay --stream payments --error-type com.acme.NotFound --dry-run");
    cr_expect (starts_with (out, "3 events would be replayed\n"), "%s", out);
    cr_expect_eq (dlqctl_lines (out), 5, "%s", out);
    cr_expect_not_null (strstr (out, "com.acme.NotFound\n"), "%s", out);
    free (out);
    out = dlqctl_ok (&d, "replay --since 2099-01-01T00:00:00Z --dry-run");
    cr_expect_str_eq (out, "no events match\n");
    free (out);
    out = dlqctl_ok (&d, "replay --stream orders --dry-run --sample 1 --json");
    cr_expect (starts_with (out, "{\"dryRun\":true,\"count\":8,\"sample\":[{"), "%s", out);
    free (out);

    dlq_client_t *c = dlqctl_client (&d);
    dlq_client_filter_t *f = dlq_client_filter_new ();
    dlq_client_filter_set_metadata_string (f, "tenantId", "acme");
    dlq_client_selection_t selection = { .filter = f };
    int64_t count = -1;
    cr_expect_eq (dlq_client_replay_dry_run (c, &selection, DLQ_CLIENT_TARGET_ENDPOINT, 0, &count, NULL, NULL),
                  DLQ_CLIENT_OK, "%s", dlq_client_error_message (c));
    cr_expect_eq (count, 2);
    dlq_client_filter_destroy (&f);
    dlq_client_destroy (&c);
}

/* ---- a job to the replay endpoint ------------------------------------------ */

Test (dlqctl_replay, job_to_the_endpoint_carries_the_lineage)
{
    dlq_replay_receiver_t *r = dlq_replay_receiver_new (replay_endpoint);
    cr_assert_not_null (r);
    char *out = dlqctl_ok (&d, "replay --meta tenantId=acme --target endpoint --rate 100");
    char job [DLQ_CLIENT_ID_SIZE], ids [2][DLQ_CLIENT_ID_SIZE];
    job_of (out, job);
    cr_expect_not_null (strstr (out, ": replaying 2 events to endpoint at 100 events/s\n"), "%s", out);
    cr_expect_not_null (strstr (out, "\njob "), "%s", out);
    cr_expect_not_null (strstr (out, " DONE: 2 replayed, 0 skipped, 0 quarantined, 0 failed of 2 in "), "%s", out);
    free (out);
    take_replayed (r, job, 2, "1", ids);
    cr_expect_str_neq (ids [0], ids [1]);
    char job_again [DLQ_CLIENT_ID_SIZE], id [DLQ_CLIENT_ID_SIZE], *event = NULL;
    cr_expect_eq (dlq_replay_receiver_recv (r, 300, job_again, id, &event, NULL), DLQ_CLIENT_ERR_TIMEOUT,
                  "each event once");

    /* The job as the gateway keeps it, and GET's replay state. */
    dlq_client_t *c = dlqctl_client (&d);
    dlq_client_job_t done;
    cr_assert_eq (dlq_client_replay_status (c, job, &done), DLQ_CLIENT_OK, "%s", dlq_client_error_message (c));
    cr_expect_eq (done.state, DLQ_CLIENT_JOB_DONE);
    cr_expect_eq (done.target, DLQ_CLIENT_TARGET_ENDPOINT);
    cr_expect_eq (done.rate, 100);
    cr_expect_eq (done.total, 2);
    cr_expect_eq (done.done, 2);
    cr_expect_eq (done.replayed, 2);
    dlq_json_doc_t *doc = get_reply (ids [0]);
    char text [64];
    reply_text (dlq_json_root (doc), "replay", "replayCount", text, sizeof text);
    cr_expect_str_eq (text, "1");
    dlq_json_doc_destroy (&doc);

    /* Again by ids through libdlq: replayCount 2. */
    const char *const again [] = { ids [0], ids [1] };
    dlq_client_selection_t by_ids = { .ids = again, .id_count = 2 };
    dlq_client_job_t second;
    cr_assert_eq (dlq_client_replay (c, &by_ids, DLQ_CLIENT_TARGET_ENDPOINT, 1000, &second), DLQ_CLIENT_OK,
                  "%s", dlq_client_error_message (c));
    cr_expect_eq (second.total, 2);
    cr_expect_str_neq (second.id, job);
    take_replayed (r, second.id, 2, "2", ids);
    dlq_client_destroy (&c);
    dlq_replay_receiver_destroy (&r);
}

Test (dlqctl_replay, plain_progress_lines_when_not_on_a_terminal)
{
    dlq_replay_receiver_t *r = dlq_replay_receiver_new (replay_endpoint);
    cr_assert_not_null (r);
    char *out = dlqctl_ok (&d, "replay --stream orders --target endpoint --rate 4");
    cr_assert_null (strchr (out, '\r'), "no carriage returns: %s", out);
    cr_expect_not_null (strstr (out, ": replaying 8 events to endpoint at 4 events/s\n0/8 (0%), "), "%s", out);
    int progress_lines = 0;
    long last = -1;
    for (const char *line = strchr (out, '\n') + 1; *line; line = strchr (line, '\n') + 1) {
        long done;
        if (sscanf (line, "%ld/8 (", &done) != 1)
            continue;
        cr_expect_gt (done, last, "each line says more was done: %s", out);
        cr_expect_not_null (strstr (line, " events/s, "), "%s", line);
        cr_expect_not_null (strstr (line, " elapsed, ETA "), "%s", line);
        last = done;
        progress_lines++;
    }
    cr_expect_geq (progress_lines, 3, "8 events at 4/s: a line at the start, about one a second, the last:\n%s", out);
    cr_expect_eq (last, 8, "%s", out);
    cr_expect_not_null (strstr (out, " DONE: 8 replayed, 0 skipped, 0 quarantined, 0 failed of 8 in 00:0"), "%s", out);
    free (out);
    dlq_replay_receiver_destroy (&r);
}

/* ---- jobs ------------------------------------------------------------------ */

Test (dlqctl_replay, status_pause_resume_cancel)
{
    /* Nobody takes the events: the job waits, RUNNING. */
    char *out = dlqctl_ok (&d, "replay --all --target endpoint --rate 1 --detach");
    cr_assert_eq (strlen (out), 37, "the job id alone: %s", out);
    char job [DLQ_CLIENT_ID_SIZE], args [128], want [256];
    snprintf (job, sizeof job, "%.36s", out);
    free (out);

    snprintf (args, sizeof args, "replay status %s", job);
    out = dlqctl_ok (&d, args);
    snprintf (want, sizeof want, "job          %s\nstate        RUNNING\ntarget       endpoint\n"
              "rate         1 events/s\n", job);
    cr_expect (starts_with (out, want), "%s", out);
    cr_expect_not_null (strstr (out, "\nprogress     0/11 (0%)\n"), "%s", out);
    free (out);

    static const struct {
        const char *move, *state;
    } moves [] = {
        { "pause", "PAUSED" }, { "pause", "PAUSED" }, { "resume", "RUNNING" }, { "pause", "PAUSED" },
        { "cancel", "CANCELLED" }, { "cancel", "CANCELLED" },
    };
    for (size_t i = 0; i < sizeof moves / sizeof moves [0]; i++) {
        snprintf (args, sizeof args, "replay %s %s", moves [i].move, job);
        out = dlqctl_ok (&d, args);
        snprintf (want, sizeof want, "job %s %s: ", job, moves [i].state);
        cr_expect (starts_with (out, want), "%s: %s", args, out);
        cr_expect_not_null (strstr (out, "/11 done\n"), "%s", out);
        free (out);
    }
    char *err;
    for (int i = 0; i < 2; i++) {
        snprintf (args, sizeof args, "replay %s %s", i ? "pause" : "resume", job);
        cr_expect_eq (dlqctl_on (&d, args, &out, &err), 1, "%s: %s", args, err);
        cr_expect (starts_with (err, "dlqctl: INVALID_STATE: "), "%s: %s", args, err);
        cr_expect_str_eq (out, "");
        free (out);
        free (err);
    }
    cr_expect_eq (dlqctl_on (&d, "replay cancel 0190f1d2-6c4e-7a01-8b2c-000000000000", &out, &err), 1);
    cr_expect (starts_with (err, "dlqctl: NOT_FOUND: "), "%s", err);
    cr_expect_not_null (strstr (err, " (job)\n"), "%s", err);
    free (out);
    free (err);

    out = dlqctl_ok (&d, "replay status");
    cr_expect (starts_with (out, "JOB                                   STATE      TARGET    RATE  DONE  TOTAL  "),
                  "%s", out);
    cr_expect_eq (dlqctl_lines (out), 2, "one job:\n%s", out);
    snprintf (want, sizeof want, "\n%s  CANCELLED  endpoint  1     ", job);
    cr_expect_not_null (strstr (out, want), "%s", out);
    free (out);
    snprintf (args, sizeof args, "replay status %s --json", job);
    out = dlqctl_ok (&d, args);
    snprintf (want, sizeof want, "{\"job\":\"%s\",\"state\":\"CANCELLED\",\"target\":\"endpoint\",\"rate\":1,\"total\":11,",
              job);
    cr_expect (starts_with (out, want), "%s", out);
    free (out);
    out = dlqctl_ok (&d, "replay status --json");
    cr_expect (starts_with (out, "{\"jobs\":[{\"job\":\""), "%s", out);
    free (out);
}

Test (dlqctl_replay, events_without_a_route_fail)
{
    char *out = dlqctl_expect (&d, "replay --stream payments", 1, NULL);
    cr_expect_not_null (strstr (out, " DONE: 0 replayed, 0 skipped, 0 quarantined, 3 failed of 3 in "), "%s", out);
    free (out);
    char *err;
    cr_expect_eq (dlqctl_on (&d, "replay --stream payments", &out, &err), 1);
    cr_expect (starts_with (err, "dlqctl: 3 events could not be replayed: "), "%s", err);
    cr_expect_not_null (strstr (err, "replay_route"), "lastError says why: %s", err);
    free (out);
    free (err);
    cr_expect_eq (dlqctl_on (&d, "replay --stream orders --id 0190f1d2-6c4e-7a01-8b2c-000000000000", &out, &err), 64,
                  "ids and filters do not combine");
    free (out);
    free (err);
}

/* ---- resolve, fail ----------------------------------------------------------- */

Test (dlqctl_replay, resolve_and_fail_change_what_get_says)
{
    char ids [3][DLQ_CLIENT_ID_SIZE], args [128], want [256], text [64];
    cr_assert_eq (stream_ids ("payments", ids, 3), 3);

    snprintf (args, sizeof args, "resolve %s", ids [0]);
    char *out = dlqctl_ok (&d, args);
    snprintf (want, sizeof want, "%s SUCCEEDED (retry count 0, replay count 0", ids [0]);
    cr_expect (starts_with (out, want), "%s", out);
    free (out);
    dlq_json_doc_t *doc = get_reply (ids [0]);
    reply_text (dlq_json_root (doc), "event", "status", text, sizeof text);
    cr_expect_str_eq (text, "SUCCEEDED");
    reply_text (dlq_json_root (doc), "replay", "retryCount", text, sizeof text);
    cr_expect_str_eq (text, "0");
    dlq_json_doc_destroy (&doc);

    snprintf (args, sizeof args, "fail %s", ids [1]);
    free (dlqctl_ok (&d, args));
    out = dlqctl_ok (&d, args);
    snprintf (want, sizeof want, "%s PENDING (retry count 2, replay count 0, retry after 20", ids [1]);
    cr_expect (starts_with (out, want), "%s", out);
    free (out);
    doc = get_reply (ids [1]);
    reply_text (dlq_json_root (doc), "event", "status", text, sizeof text);
    cr_expect_str_eq (text, "PENDING");
    reply_text (dlq_json_root (doc), "replay", "retryCount", text, sizeof text);
    cr_expect_str_eq (text, "2");
    dlq_json_doc_destroy (&doc);
    snprintf (args, sizeof args, "get %s", ids [1]);
    out = dlqctl_ok (&d, args);
    cr_expect_not_null (strstr (out, "\"status\": \"PENDING\""), "%s", out);
    cr_expect_not_null (strstr (out, "\nreplay: retry count 2, replay count 0, retry after 20"), "%s", out);
    free (out);

    dlq_client_t *c = dlqctl_client (&d);
    dlq_client_event_state_t state;
    cr_expect_eq (dlq_client_fail (c, ids [2], &state), DLQ_CLIENT_OK, "%s", dlq_client_error_message (c));
    cr_expect_str_eq (state.id, ids [2]);
    cr_expect_str_eq (state.status, "PENDING");
    cr_expect_eq (state.retry_count, 1);
    cr_expect (starts_with (state.retry_after, "20"), "%s", state.retry_after);
    cr_expect_eq (dlq_client_resolve (c, ids [2], &state), DLQ_CLIENT_OK);
    cr_expect_str_eq (state.status, "SUCCEEDED");
    cr_expect_eq (dlq_client_resolve (c, "0190f1d2-6c4e-7a01-8b2c-000000000000", &state), DLQ_CLIENT_ERR_SERVER);
    cr_expect_str_eq (dlq_client_error_code (c), "NOT_FOUND");
    dlq_client_destroy (&c);

    /* A resolved event is skipped by a replay. */
    snprintf (args, sizeof args, "replay --ids %s,%s --target endpoint", ids [0], ids [2]);
    out = dlqctl_ok (&d, args);
    cr_expect_not_null (strstr (out, " DONE: 0 replayed, 2 skipped, 0 quarantined, 0 failed of 2 in "), "%s", out);
    free (out);
    char *err;
    cr_expect_eq (dlqctl_on (&d, "fail 0190f1d2-6c4e-7a01-8b2c-000000000000", &out, &err), 1);
    cr_expect (starts_with (err, "dlqctl: NOT_FOUND: "), "%s", err);
    free (out);
    free (err);
}

/* ---- a gateway without a replay endpoint --------------------------------------- */

Test (dlqctl_replay, endpoint_target_needs_replay_listen)
{
    test_dlqd_t plain;
    memset (&plain, 0, sizeof plain);
    test_tmpdir (plain.dir);
    cr_assert (test_dlqd_start (&plain, NULL, NULL), "dlqd did not start");
    char args [256], *out, *err;
    snprintf (args, sizeof args, "-e %s replay --all --target endpoint", plain.endpoint);
    cr_expect_eq (dlqctl_run (d.dir, args, &out, &err), 1, "%s", err);
    cr_expect (starts_with (err, "dlqctl: INVALID_REQUEST: "), "%s", err);
    cr_expect_not_null (strstr (err, " (target)\n"), "%s", err);
    cr_expect_str_eq (out, "");
    free (out);
    free (err);
    test_dlqd_cleanup (&plain);
}

/* ---- a corrected copy --------------------------------------------------------- */

Test (dlqctl_replay, a_replacement_is_sent_instead_and_the_stored_event_stays)
{
    char ids [1][DLQ_CLIENT_ID_SIZE];
    cr_assert_eq (stream_ids ("orders", ids, 1), 1);
    dlq_json_doc_t *before = get_reply (ids [0]);
    char *stored = NULL;
    dlq_client_t *c = dlqctl_client (&d);
    size_t stored_len = 0;
    cr_assert_eq (dlq_client_get (c, ids [0], &stored, &stored_len), DLQ_CLIENT_OK, "%s", dlq_client_error_message (c));
    /* the correction: a fullDocument of its own, the rest as stored */
    char path [600], args [900];
    snprintf (path, sizeof path, "%s/corrected.json", d.dir);
    FILE *f = fopen (path, "w");
    fprintf (f, "{\"streamName\":\"orders\",\"error\":{\"type\":\"Fixed\",\"message\":\"corrected by hand\"},"
                "\"fullDocument\":{\"total\":12.5},\"metadata\":{\"tenantId\":\"acme\"}}");
    fclose (f);
    dlq_replay_receiver_t *r = dlq_replay_receiver_new (replay_endpoint);
    cr_assert_not_null (r);
    snprintf (args, sizeof args, "replay --id %s --replacement %s --target endpoint", ids [0], path);
    char *out = dlqctl_ok (&d, args);
    cr_expect_not_null (strstr (out, ": replaying 1 events to endpoint"), "%s", out);
    cr_expect_not_null (strstr (out, " DONE: 1 replayed, 0 skipped, 0 quarantined, 0 failed of 1 in "), "%s", out);
    free (out);
    char job [DLQ_CLIENT_ID_SIZE], id [DLQ_CLIENT_ID_SIZE], *event = NULL;
    size_t len = 0;
    cr_assert_eq (dlq_replay_receiver_recv (r, 10000, job, id, &event, &len), DLQ_CLIENT_OK);
    cr_expect_str_eq (id, ids [0]);
    cr_expect_not_null (strstr (event, "\"fullDocument\":{\"total\":12.5}"), "the copy is the correction: %s", event);
    cr_expect_not_null (strstr (event, "\"type\":\"Fixed\""), "%s", event);
    char lineage [128];
    snprintf (lineage, sizeof lineage, "\"replayOf\":\"%s\",\"replayCount\":1", ids [0]);
    cr_expect_not_null (strstr (event, lineage), "with the lineage: %s", event);
    free (event);
    char *after = NULL;
    size_t after_len = 0;
    cr_assert_eq (dlq_client_get (c, ids [0], &after, &after_len), DLQ_CLIENT_OK);
    cr_expect (after_len == stored_len && memcmp (after, stored, stored_len) == 0,
               "the stored event never changes:\n%s\n%s", stored, after);
    free (after);
    free (stored);
    dlq_json_doc_destroy (&before);

    /* the same through libdlq, and what the gateway refuses */
    dlq_client_job_t second;
    cr_assert_eq (dlq_client_replay_replacement (c, ids [0], "{\"streamName\":\"orders\",\"error\":{\"type\":\"Again\"}}",
                                                 DLQ_CLIENT_TARGET_ENDPOINT, 0, &second), DLQ_CLIENT_OK,
                  "%s", dlq_client_error_message (c));
    cr_expect_eq (second.total, 1);
    cr_assert_eq (dlq_replay_receiver_recv (r, 10000, job, id, &event, &len), DLQ_CLIENT_OK);
    cr_expect_not_null (strstr (event, "\"replayCount\":2"), "the second replay: %s", event);
    free (event);
    cr_expect_eq (dlq_client_replay_replacement (c, ids [0], "{\"streamName\":\"payments\",\"error\":{\"type\":\"E\"}}",
                                                 DLQ_CLIENT_TARGET_ENDPOINT, 0, NULL), DLQ_CLIENT_ERR_SERVER);
    cr_expect_str_eq (dlq_client_error_field (c), "replacement.streamName");
    cr_expect_eq (dlq_client_replay_replacement (c, ids [0], "{\"streamName\":\"orders\"}", DLQ_CLIENT_TARGET_ENDPOINT,
                                                 0, NULL), DLQ_CLIENT_ERR_SERVER);
    cr_expect_str_eq (dlq_client_error_code (c), "INVALID_EVENT");
    cr_expect_str_eq (dlq_client_error_field (c), "replacement.error.type");
    cr_expect_eq (dlq_client_replay_replacement (c, "0192e4a1-1111-7000-8000-00000000abcd",
                                                 "{\"streamName\":\"orders\",\"error\":{\"type\":\"E\"}}",
                                                 DLQ_CLIENT_TARGET_ENDPOINT, 0, NULL), DLQ_CLIENT_ERR_SERVER);
    cr_expect_str_eq (dlq_client_error_code (c), "NOT_FOUND");
    cr_expect_eq (dlq_client_replay_replacement (c, ids [0], NULL, DLQ_CLIENT_TARGET_ENDPOINT, 0, NULL),
                  DLQ_CLIENT_ERR_ARGS);
    dlq_client_destroy (&c);
    dlq_replay_receiver_destroy (&r);

    /* dlqctl: one --id, and the file must be there */
    char *err = NULL;
    snprintf (args, sizeof args, "replay --id %s --id %s --replacement %s", ids [0], ids [0], path);
    cr_expect_eq (dlqctl_run (d.dir, args, &out, &err), 64, "%s", err);
    cr_expect_not_null (strstr (err, "--replacement replays one event"), "%s", err);
    free (out);
    free (err);
    snprintf (args, sizeof args, "replay --id %s --replacement %s/nothing.json", ids [0], d.dir);
    cr_expect_eq (dlqctl_run (d.dir, args, &out, &err), 66, "%s", err);
    cr_expect_not_null (strstr (err, "cannot open"), "%s", err);
    free (out);
    free (err);
}
