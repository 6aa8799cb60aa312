/*  test_replay_job — a replay job's stored request and its JSON, as
 *  replay_job.h and docs/protocol.md ("REPLAY") have them: a plan written
 *  is {"target":"route"|"endpoint","rate":n,"filter":{...}} or
 *  {...,"ids":[...]} and reads back into the same plan; ids are 1 to
 *  DLQ_REPLAY_IDS_MAX UUID strings, lowercased, kept in the order given,
 *  an id given twice kept once; anything that is not a stored request
 *  reads as false with the plan left empty; and a job formats as the
 *  REPLAY reply: every counter, the state's name, createdAt / updatedAt in
 *  ISO-8601, lastError only when there is one.
 */
#include "replay_job.h"

#include "dlq_buf.h"
#include "dlq_json.h"
#include "event_filter.h"

#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ID_A "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182"
#define ID_B "0190f1d2-6c4e-7a01-8b2c-3d4e5f607183"
#define ID_C "0192e4a1-0000-7000-8000-000000000001"
#define ID_A_UPPER "0190F1D2-6C4E-7A01-8B2C-3D4E5F607182"

/* 2026-06-10T08:00:00.000Z */
#define CREATED_MS 1781078400000LL

static dlq_json_doc_t *
parse (const char *text, size_t len)
{
    dlq_json_doc_t *doc = NULL;
    dlq_json_error_t jerr = { 0 };
    cr_assert_eq (dlq_json_parse (text, len, &doc, &jerr), DLQ_JSON_OK, "%s at %zu: %.*s", jerr.message,
                  jerr.offset, (int) len, text);
    return doc;
}

static bool
plan_is_empty (const dlq_replay_plan_t *plan)
{
    static const dlq_replay_plan_t zero;
    return memcmp (plan, &zero, sizeof zero) == 0;
}

/* A filter plan from the filter members of json. */
static void
filter_plan (const char *json, bool to_endpoint, int64_t rate, dlq_replay_plan_t *plan)
{
    memset (plan, 0, sizeof *plan);
    dlq_json_doc_t *doc = parse (json, strlen (json));
    dlq_error_t err = { 0 };
    cr_assert_eq (dlq_event_filter_parse (dlq_json_root (doc), &plan->filter, &err), DLQ_OK, "%s", err.message);
    dlq_json_doc_destroy (&doc);
    plan->to_endpoint = to_endpoint;
    plan->rate = rate;
}

/* Read the ids array json into plan (zeroed first); its result. */
static bool
read_ids (const char *json, dlq_replay_plan_t *plan)
{
    memset (plan, 0, sizeof *plan);
    dlq_json_doc_t *doc = parse (json, strlen (json));
    bool ok = dlq_replay_plan_read_ids (dlq_json_root (doc), plan);
    dlq_json_doc_destroy (&doc);
    return ok;
}

/* ---- the stored request ---------------------------------------------- */

Test (replay_job, a_filter_plan_is_stored_as_the_documented_object)
{
    dlq_replay_plan_t plan;
    filter_plan ("{\"streamName\":\"orders\",\"status\":\"DLQ\"}", false, 100, &plan);
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_replay_plan_write (&plan, &out);
    dlq_json_doc_t *doc = parse (out.data, out.len);
    const dlq_json_value_t *root = dlq_json_root (doc);
    cr_assert_eq (root->type, DLQ_JSON_OBJECT);
    cr_expect_eq (root->count, 3, "%s", out.data);
    const dlq_json_value_t *target = dlq_json_get (root, "target");
    cr_assert_not_null (target);
    cr_expect_str_eq (target->str, "route");
    int64_t rate = 0;
    cr_expect (dlq_json_as_int64 (dlq_json_get (root, "rate"), &rate));
    cr_expect_eq (rate, 100);
    const dlq_json_value_t *filter = dlq_json_get (root, "filter");
    cr_assert_not_null (filter);
    cr_expect_eq (filter->type, DLQ_JSON_OBJECT);
    cr_expect_str_eq (dlq_json_get (filter, "streamName")->str, "orders");
    cr_expect_null (dlq_json_get (root, "ids"));
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&out);
    dlq_replay_plan_free (&plan);
    cr_expect (plan_is_empty (&plan), "free zeroes the plan");
}

Test (replay_job, a_filter_plan_reads_back_the_same)
{
    dlq_replay_plan_t plan;
    filter_plan ("{\"streamName\":\"orders\",\"errorType\":\"java.io.IOException\",\"attemptsMin\":2,"
                 "\"createdAfter\":\"2026-06-01T00:00:00.000Z\",\"metadata\":{\"tenantId\":\"t1\"},"
                 "\"messageContains\":\"timed \\\"out\\\"\"}", true, 250, &plan);
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_replay_plan_write (&plan, &out);
    dlq_replay_plan_t back;
    memset (&back, 0x5a, sizeof back);                 /* read zeroes it first */
    cr_assert (dlq_replay_plan_read (out.data, out.len, &back), "%s", out.data);
    cr_expect (back.to_endpoint);
    cr_expect_eq (back.rate, 250);
    cr_expect_not (back.by_ids);
    cr_expect_null (back.ids);
    cr_expect_eq (back.id_count, 0);
    cr_expect_str_eq (back.filter.stream, "orders");
    cr_expect_str_eq (back.filter.error_type, "java.io.IOException");
    cr_expect_str_eq (back.filter.message_contains, "timed \"out\"");
    cr_expect (back.filter.has_attempts_min);
    cr_expect_eq (back.filter.attempts_min, 2);
    cr_expect (back.filter.has_created_after);
    cr_expect_eq (back.filter.created_after, plan.filter.created_after);
    cr_expect_eq (back.filter.metadata_count, 1);
    dlq_buf_t again = DLQ_BUF_INIT;
    dlq_replay_plan_write (&back, &again);
    cr_expect_str_eq (again.data, out.data, "written again: the same bytes");
    dlq_buf_free (&again);
    dlq_buf_free (&out);
    dlq_replay_plan_free (&back);
    dlq_replay_plan_free (&plan);
}

Test (replay_job, an_empty_filter_is_every_event)
{
    dlq_replay_plan_t plan;
    filter_plan ("{}", false, 1, &plan);
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_replay_plan_write (&plan, &out);
    dlq_replay_plan_t back;
    cr_assert (dlq_replay_plan_read (out.data, out.len, &back), "%s", out.data);
    cr_expect_not (back.by_ids);
    cr_expect (dlq_event_filter_is_empty (&back.filter));
    cr_expect_eq (back.rate, 1);
    cr_expect_not (back.to_endpoint);
    dlq_replay_plan_free (&back);
    dlq_buf_free (&out);
    dlq_replay_plan_free (&plan);
}

Test (replay_job, an_ids_plan_reads_back_the_same_ids_in_order)
{
    dlq_replay_plan_t plan;
    cr_assert (read_ids ("[\"" ID_C "\",\"" ID_A "\",\"" ID_B "\"]", &plan));
    plan.rate = 100000;
    plan.to_endpoint = true;
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_replay_plan_write (&plan, &out);
    dlq_json_doc_t *doc = parse (out.data, out.len);
    cr_expect_null (dlq_json_get (dlq_json_root (doc), "filter"), "ids instead of filters");
    cr_expect_eq (dlq_json_get (dlq_json_root (doc), "ids")->count, 3);
    dlq_json_doc_destroy (&doc);
    dlq_replay_plan_t back;
    cr_assert (dlq_replay_plan_read (out.data, out.len, &back), "%s", out.data);
    cr_expect (back.by_ids);
    cr_expect (back.to_endpoint);
    cr_expect_eq (back.rate, 100000);
    cr_assert_eq (back.id_count, 3);
    cr_expect_str_eq (back.ids [0], ID_C, "in the order given");
    cr_expect_str_eq (back.ids [1], ID_A);
    cr_expect_str_eq (back.ids [2], ID_B);
    dlq_replay_plan_free (&back);
    dlq_buf_free (&out);
    dlq_replay_plan_free (&plan);
}

Test (replay_job, ids_are_lowercased_and_kept_once)
{
    dlq_replay_plan_t plan;
    cr_assert (read_ids ("[\"" ID_A_UPPER "\",\"" ID_B "\",\"" ID_A "\",\"" ID_B "\",\"" ID_A_UPPER "\"]", &plan));
    cr_expect (plan.by_ids);
    cr_assert_eq (plan.id_count, 2, "an id given twice counts once, whatever its case");
    cr_expect_str_eq (plan.ids [0], ID_A, "lowercased, at its first place");
    cr_expect_str_eq (plan.ids [1], ID_B);
    dlq_replay_plan_free (&plan);
    cr_expect (plan_is_empty (&plan));
}

Test (replay_job, up_to_the_limit_of_ids_is_a_selection)
{
    dlq_buf_t json = DLQ_BUF_INIT;
    dlq_buf_putc (&json, '[');
    for (int i = 0; i < DLQ_REPLAY_IDS_MAX; i++)
        dlq_buf_printf (&json, "%s\"00000000-0000-7000-8000-%012d\"", i ? "," : "", i);
    dlq_buf_putc (&json, ']');
    dlq_replay_plan_t plan;
    cr_expect (read_ids (json.data, &plan), "exactly DLQ_REPLAY_IDS_MAX");
    cr_expect_eq (plan.id_count, DLQ_REPLAY_IDS_MAX);
    cr_expect_str_eq (plan.ids [DLQ_REPLAY_IDS_MAX - 1], "00000000-0000-7000-8000-000000009999");
    dlq_replay_plan_free (&plan);
    json.len--;
    dlq_buf_printf (&json, ",\"00000000-0000-7000-8000-%012d\"]", DLQ_REPLAY_IDS_MAX);
    cr_expect_not (read_ids (json.data, &plan), "one more");
    dlq_replay_plan_free (&plan);
    dlq_buf_free (&json);
}

Test (replay_job, anything_but_an_array_of_uuid_strings_is_no_selection)
{
    static const char *const bad [] = {
        "[]", "{}", "\"" ID_A "\"", "null", "[null]", "[1]", "[[\"" ID_A "\"]]",
        "[\"" ID_A "\",\"not-a-uuid\"]", "[\"" ID_A "\",2]", "[\"\"]", "[\"" ID_A "\\u0000\"]",
        "[\"{" ID_A "}\"]",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad [0]; i++) {
        dlq_replay_plan_t plan;
        cr_expect_not (read_ids (bad [i], &plan), "%s", bad [i]);
        dlq_replay_plan_free (&plan);
        cr_expect (plan_is_empty (&plan));
    }
}

Test (replay_job, what_is_not_a_stored_request_reads_as_false_with_an_empty_plan)
{
    static const char *const bad [] = {
        "", "not json", "[]", "null", "{}",
        "{\"rate\":100,\"filter\":{}}",                                   /* no target */
        "{\"target\":1,\"rate\":100,\"filter\":{}}",
        "{\"target\":\"route\",\"filter\":{}}",                           /* no rate */
        "{\"target\":\"route\",\"rate\":0,\"filter\":{}}",
        "{\"target\":\"route\",\"rate\":-5,\"filter\":{}}",
        "{\"target\":\"route\",\"rate\":1.5,\"filter\":{}}",
        "{\"target\":\"route\",\"rate\":\"100\",\"filter\":{}}",
        "{\"target\":\"route\",\"rate\":99999999999999999999,\"filter\":{}}",
        "{\"target\":\"route\",\"rate\":100}",                            /* no selection */
        "{\"target\":\"route\",\"rate\":100,\"filter\":[]}",
        "{\"target\":\"route\",\"rate\":100,\"filter\":\"x\"}",
        "{\"target\":\"route\",\"rate\":100,\"filter\":{\"attemptsMin\":\"two\"}}",
        "{\"target\":\"route\",\"rate\":100,\"filter\":{\"createdAfter\":\"yesterday\"}}",
        "{\"target\":\"route\",\"rate\":100,\"ids\":[]}",
        "{\"target\":\"route\",\"rate\":100,\"ids\":[\"x\"]}",
        "{\"target\":\"route\",\"rate\":100,\"ids\":{}}",
        "{\"target\":\"route\",\"rate\":100,\"filter\":{}} trailing",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad [0]; i++) {
        dlq_replay_plan_t plan;
        memset (&plan, 0x5a, sizeof plan);
        cr_expect_not (dlq_replay_plan_read (bad [i], strlen (bad [i]), &plan), "%s", bad [i]);
        cr_expect (plan_is_empty (&plan), "%s: the plan is left empty", bad [i]);
    }
}

/* The stored request is {"target":"route"|"endpoint",...}: any other
 * target, one that differs in case, and one that only starts with
 * "endpoint" before a NUL ("endpoint\u0000x") are no stored request. */
Test (replay_job, a_target_other_than_route_or_endpoint_is_no_stored_request)
{
    static const char *const bad [] = {
        "{\"target\":\"elsewhere\",\"rate\":100,\"filter\":{}}",
        "{\"target\":\"\",\"rate\":100,\"filter\":{}}",
        "{\"target\":\"Endpoint\",\"rate\":100,\"filter\":{}}",
        "{\"target\":\"endpoint\\u0000x\",\"rate\":100,\"filter\":{}}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad [0]; i++) {
        dlq_replay_plan_t plan;
        cr_expect_not (dlq_replay_plan_read (bad [i], strlen (bad [i]), &plan), "%s", bad [i]);
        cr_expect (plan_is_empty (&plan), "%s", bad [i]);
        dlq_replay_plan_free (&plan);
    }
}

Test (replay_job, only_len_bytes_of_a_stored_request_are_read)
{
    static const char text [] = "{\"target\":\"endpoint\",\"rate\":7,\"filter\":{}}{\"more\"";
    dlq_replay_plan_t plan;
    cr_assert (dlq_replay_plan_read (text, sizeof text - 1 - strlen ("{\"more\""), &plan));
    cr_expect (plan.to_endpoint);
    cr_expect_eq (plan.rate, 7);
    dlq_replay_plan_free (&plan);
}

/* ---- the job's JSON -------------------------------------------------- */

static dlq_replay_job_t
job_of (const char *request)
{
    dlq_replay_job_t job = {
        .id = ID_C, .state = DLQ_JOB_RUNNING, .request = (char *) request,
        .total = 312, .done = 10, .replayed = 6, .skipped = 2, .quarantined = 1, .failed = 1,
        .created_at = CREATED_MS, .updated_at = CREATED_MS + 1500,
    };
    return job;
}

static int64_t
int_member (const dlq_json_value_t *root, const char *name)
{
    int64_t n = INT64_MIN;
    const dlq_json_value_t *v = dlq_json_get (root, name);
    cr_assert_not_null (v, "no %s", name);
    cr_assert (dlq_json_as_int64 (v, &n), "%s is not an integer", name);
    return n;
}

static const char *
str_member (const dlq_json_value_t *root, const char *name)
{
    const dlq_json_value_t *v = dlq_json_get (root, name);
    cr_assert_not_null (v, "no %s", name);
    cr_assert_eq (v->type, DLQ_JSON_STRING, "%s is not a string", name);
    return v->str;
}

Test (replay_job, a_job_formats_as_the_replay_reply)
{
    dlq_replay_job_t job = job_of ("{\"target\":\"route\",\"rate\":100,\"filter\":{\"streamName\":\"orders\"}}");
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_replay_job_format (&job, &out);
    dlq_json_doc_t *doc = parse (out.data, out.len);
    const dlq_json_value_t *root = dlq_json_root (doc);
    cr_assert_eq (root->type, DLQ_JSON_OBJECT);
    cr_expect_null (dlq_json_find_duplicate (root, NULL, 0));
    cr_expect_eq (root->count, 12, "no lastError: %s", out.data);
    cr_expect_str_eq (str_member (root, "job"), ID_C);
    cr_expect_str_eq (str_member (root, "state"), "RUNNING");
    cr_expect_str_eq (str_member (root, "target"), "route");
    cr_expect_eq (int_member (root, "rate"), 100);
    cr_expect_eq (int_member (root, "total"), 312);
    cr_expect_eq (int_member (root, "done"), 10);
    cr_expect_eq (int_member (root, "replayed"), 6);
    cr_expect_eq (int_member (root, "skipped"), 2);
    cr_expect_eq (int_member (root, "quarantined"), 1);
    cr_expect_eq (int_member (root, "failed"), 1);
    cr_expect_str_eq (str_member (root, "createdAt"), "2026-06-10T08:00:00.000Z");
    cr_expect_str_eq (str_member (root, "updatedAt"), "2026-06-10T08:00:01.500Z");
    cr_expect_null (dlq_json_get (root, "lastError"), "absent until the job first waited or failed");
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&out);
}

Test (replay_job, the_target_and_rate_come_from_the_stored_request)
{
    dlq_replay_job_t job = job_of ("{\"target\":\"endpoint\",\"rate\":42,\"ids\":[\"" ID_A "\"]}");
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_replay_job_format (&job, &out);
    dlq_json_doc_t *doc = parse (out.data, out.len);
    cr_expect_str_eq (str_member (dlq_json_root (doc), "target"), "endpoint");
    cr_expect_eq (int_member (dlq_json_root (doc), "rate"), 42);
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&out);
}

Test (replay_job, every_state_has_its_name)
{
    static const struct { dlq_job_state_t state; const char *name; } states [] = {
        { DLQ_JOB_RUNNING, "RUNNING" }, { DLQ_JOB_PAUSED, "PAUSED" },
        { DLQ_JOB_CANCELLED, "CANCELLED" }, { DLQ_JOB_DONE, "DONE" },
    };
    for (size_t i = 0; i < sizeof states / sizeof states [0]; i++) {
        dlq_replay_job_t job = job_of ("{\"target\":\"route\",\"rate\":1,\"filter\":{}}");
        job.state = states [i].state;
        dlq_buf_t out = DLQ_BUF_INIT;
        dlq_replay_job_format (&job, &out);
        dlq_json_doc_t *doc = parse (out.data, out.len);
        cr_expect_str_eq (str_member (dlq_json_root (doc), "state"), states [i].name);
        dlq_json_doc_destroy (&doc);
        dlq_buf_free (&out);
    }
}

Test (replay_job, the_last_error_shows_escaped_when_there_is_one)
{
    static const char error [] = "sink \"rabbit\": NOT_FOUND\nexchange \\ gone \x01";
    dlq_replay_job_t job = job_of ("{\"target\":\"route\",\"rate\":1,\"filter\":{}}");
    job.last_error = (char *) error;
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_replay_job_format (&job, &out);
    dlq_json_doc_t *doc = parse (out.data, out.len);
    const dlq_json_value_t *v = dlq_json_get (dlq_json_root (doc), "lastError");
    cr_assert_not_null (v);
    cr_expect_eq (v->len, sizeof error - 1);
    cr_expect_eq (memcmp (v->str, error, v->len), 0);
    cr_expect_eq (dlq_json_root (doc)->count, 13);
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&out);
}

Test (replay_job, large_counters_are_exact)
{
    dlq_replay_job_t job = job_of ("{\"target\":\"route\",\"rate\":1,\"filter\":{}}");
    job.total = INT64_MAX;
    job.done = INT64_MAX - 1;
    job.replayed = (1LL << 53) + 1;
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_replay_job_format (&job, &out);
    dlq_json_doc_t *doc = parse (out.data, out.len);
    cr_expect_eq (int_member (dlq_json_root (doc), "total"), INT64_MAX);
    cr_expect_eq (int_member (dlq_json_root (doc), "done"), INT64_MAX - 1);
    cr_expect_eq (int_member (dlq_json_root (doc), "replayed"), (1LL << 53) + 1);
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&out);
}

Test (replay_job, a_job_whose_request_cannot_be_read_still_formats_as_json)
{
    static const char *const requests [] = { NULL, "", "garbage", "{\"target\":\"route\"}" };
    for (size_t i = 0; i < sizeof requests / sizeof requests [0]; i++) {
        dlq_replay_job_t job = job_of (requests [i]);
        dlq_buf_t out = DLQ_BUF_INIT;
        dlq_replay_job_format (&job, &out);
        dlq_json_doc_t *doc = parse (out.data, out.len);
        const dlq_json_value_t *root = dlq_json_root (doc);
        cr_expect_str_eq (str_member (root, "job"), ID_C, "request %zu", i);
        cr_expect_not_null (dlq_json_get (root, "target"), "request %zu", i);
        cr_expect_not_null (dlq_json_get (root, "rate"), "request %zu", i);
        cr_expect_eq (int_member (root, "total"), 312, "request %zu", i);
        dlq_json_doc_destroy (&doc);
        dlq_buf_free (&out);
    }
}

Test (replay_job, the_job_is_appended_after_what_the_buffer_holds)
{
    dlq_replay_job_t a = job_of ("{\"target\":\"route\",\"rate\":1,\"filter\":{}}");
    dlq_replay_job_t b = job_of ("{\"target\":\"endpoint\",\"rate\":2,\"filter\":{}}");
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_buf_puts (&out, "{\"jobs\":[");
    dlq_replay_job_format (&a, &out);
    dlq_buf_putc (&out, ',');
    dlq_replay_job_format (&b, &out);
    dlq_buf_puts (&out, "]}");
    dlq_json_doc_t *doc = parse (out.data, out.len);
    cr_expect_eq (dlq_json_get (dlq_json_root (doc), "jobs")->count, 2);
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&out);
}

Test (replay_job, a_replacement_is_stored_with_its_one_id_and_reads_back)
{
    dlq_replay_plan_t plan;
    cr_assert (read_ids ("[\"" ID_A "\"]", &plan));
    plan.rate = 10;
    plan.replacement = strdup ("{\"id\":\"" ID_A "\",\"streamName\":\"s\",\"error\":{\"type\":\"E\"}}");
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_replay_plan_write (&plan, &out);
    dlq_replay_plan_t back;
    cr_assert (dlq_replay_plan_read (out.data, out.len, &back), "%s", out.data);
    cr_expect_str_eq (back.replacement, plan.replacement, "byte for byte");
    cr_expect_eq (back.id_count, 1);
    dlq_replay_plan_free (&back);
    cr_expect_null (back.replacement);
    dlq_buf_free (&out);
    dlq_replay_plan_free (&plan);
    static const char *const refused [] = {
        "{\"target\":\"route\",\"rate\":1,\"ids\":[\"" ID_A "\",\"" ID_B "\"],\"replacement\":{}}",
        "{\"target\":\"route\",\"rate\":1,\"ids\":[\"" ID_A "\"],\"replacement\":[]}",
        "{\"target\":\"route\",\"rate\":1,\"filter\":{},\"replacement\":{}}",
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused [0]; i++) {
        cr_expect_not (dlq_replay_plan_read (refused [i], strlen (refused [i]), &back), "%s", refused [i]);
        cr_expect_null (back.replacement);
    }
}
