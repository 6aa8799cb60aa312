/*  test_failed_event — the FailedEvent codec: round trip of the
 *  flowwarden-amqp wire format's example, defaults, canonical form, and a
 *  table of every validation error.
 */
#include "dlq_json.h"
#include "failed_event.h"
#include "stream_policy.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOW 1781015531123LL     /* 2026-06-09T14:32:11.123Z */

static char *
example_body (size_t *len)
{
    char *body = test_read_file (DLQ_SOURCE_DIR "/tests/data/flowwarden_amqp_event.json", len);
    cr_assert_not_null (body, "tests/data/flowwarden_amqp_event.json is missing");
    return body;
}

/* Compact form of a JSON text, for comparing regardless of whitespace. */
static char *
compact (const char *json)
{
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (json, strlen (json), &doc, NULL), DLQ_JSON_OK);
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_json_write (&out, dlq_json_root (doc));
    dlq_json_doc_destroy (&doc);
    return dlq_buf_steal (&out, NULL);
}

Test (failed_event, wire_example_round_trips_to_the_same_json)
{
    size_t len;
    char *body = example_body (&len);
    dlq_error_t err;
    dlq_event_t *e = dlq_event_decode (body, len, NOW, &err);
    cr_assert_not_null (e, "%s: %s", err.field, err.message);
    cr_expect_str_eq (e->id, "c2e8a5b6-0f1e-4c3a-9b7d-2a1f0e9d8c7b");
    cr_expect_str_eq (e->stream_name, "orders");
    cr_expect_str_eq (e->operation_type, "INSERT");
    cr_expect_str_eq (e->document_key, "{\"_id\":{\"$oid\":\"65f0a1b2c3d4e5f601234567\"}}");
    cr_expect_str_eq (e->resume_token, "{\"_data\":\"8265F0A1B2000000012B022C0100296E5A1004\"}");
    cr_expect_str_eq (e->error_type, "java.lang.IllegalStateException");
    cr_expect_eq (e->attempts, 3);
    cr_expect_str_eq (e->status, "DLQ");
    cr_expect_eq (e->first_attempt_at, NOW);
    cr_expect_eq (e->created_at, NOW + 2377);
    cr_expect_str_eq (e->metadata, "{\"tenantId\":\"acme\"}");
    dlq_event_encode (e);
    char *expected = compact (body);
    cr_expect_str_eq (e->json, expected, "canonical body differs from the example");
    cr_expect_eq (e->json_len, strlen (expected));

    /* decoding the canonical body gives the same bytes again */
    dlq_event_t *again = dlq_event_decode (e->json, e->json_len, NOW, &err);
    cr_assert_not_null (again);
    dlq_event_encode (again);
    cr_expect_str_eq (again->json, e->json);
    dlq_event_destroy (&again);
    dlq_event_destroy (&e);
    cr_expect_null (e);
    free (expected);
    free (body);
}

Test (failed_event, defaults_fill_id_created_at_and_status)
{
    const char *body = "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"}}";
    dlq_event_t *e = dlq_event_decode (body, strlen (body), NOW, NULL);
    cr_assert_not_null (e);
    cr_expect_eq (strlen (e->id), 36);
    cr_expect_eq (e->id [14], '7', "a generated id is a UUIDv7: %s", e->id);
    cr_expect_str_eq (e->status, "PENDING");
    cr_expect_eq (e->created_at, NOW);
    cr_expect_eq (e->attempts, 0);
    cr_expect_eq (e->expires_at, DLQ_TIME_NONE);
    dlq_event_encode (e);
    char want [256];
    snprintf (want, sizeof want, "{\"id\":\"%s\",\"streamName\":\"s\",\"error\":{\"type\":\"T\"},"
              "\"attempts\":0,\"status\":\"PENDING\",\"createdAt\":\"2026-06-09T14:32:11.123Z\"}", e->id);
    cr_expect_str_eq (e->json, want);
    dlq_event_destroy (&e);
}

Test (failed_event, generated_ids_sort_in_arrival_order)
{
    const char *body = "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"}}";
    dlq_event_t *a = dlq_event_decode (body, strlen (body), NOW, NULL);
    dlq_event_t *b = dlq_event_decode (body, strlen (body), NOW, NULL);
    cr_expect_lt (strcmp (a->id, b->id), 0, "%s then %s", a->id, b->id);
    dlq_event_destroy (&a);
    dlq_event_destroy (&b);
}

Test (failed_event, nulls_mean_absent_and_empty_metadata_is_omitted)
{
    const char *body = "{\"streamName\":\"s\",\"operationType\":null,\"fullDocument\":null,"
                       "\"error\":{\"type\":\"T\",\"stackTrace\":null},\"metadata\":{}}";
    dlq_event_t *e = dlq_event_decode (body, strlen (body), NOW, NULL);
    cr_assert_not_null (e);
    cr_expect_null (e->operation_type);
    cr_expect_null (e->full_document);
    cr_expect_null (e->error_stack_trace);
    cr_expect_null (e->metadata);
    dlq_event_encode (e);
    cr_expect_null (strstr (e->json, "metadata"));
    cr_expect_null (strstr (e->json, "null"));
    dlq_event_destroy (&e);
}

Test (failed_event, offsets_and_uppercase_ids_are_normalised)
{
    const char *body = "{\"id\":\"C2E8A5B6-0F1E-4C3A-9B7D-2A1F0E9D8C7B\",\"streamName\":\"s\","
                       "\"error\":{\"type\":\"T\"},\"createdAt\":\"2026-06-09T16:32:11.123456+02:00\"}";
    dlq_event_t *e = dlq_event_decode (body, strlen (body), 0, NULL);
    cr_assert_not_null (e);
    cr_expect_str_eq (e->id, "c2e8a5b6-0f1e-4c3a-9b7d-2a1f0e9d8c7b");
    cr_expect_eq (e->created_at, NOW);
    dlq_event_destroy (&e);
}

Test (failed_event, number_text_and_unicode_survive)
{
    const char *body = "{\"streamName\":\"caf\xc3\xa9.v1\",\"error\":{\"type\":\"T\",\"message\":\"tab\\tquote\\\" \\u00e9\"},"
                       "\"fullDocument\":{\"d\":1.0,\"big\":123456789012345678901234567890,\"e\":1E+2}}";
    dlq_event_t *e = dlq_event_decode (body, strlen (body), NOW, NULL);
    cr_assert_not_null (e);
    cr_expect_str_eq (e->full_document, "{\"d\":1.0,\"big\":123456789012345678901234567890,\"e\":1E+2}");
    cr_expect_str_eq (e->error_message, "tab\tquote\" \xc3\xa9");
    dlq_event_encode (e);
    cr_expect_not_null (strstr (e->json, "\"message\":\"tab\\tquote\\\" \xc3\xa9\""), "%s", e->json);
    dlq_event_destroy (&e);
}

/* One rejected body: what is sent, and the code and field that must come back. */
typedef struct {
    const char *body;
    dlq_code_t  code;
    const char *field;
} bad_case_t;

static bad_case_t bad_cases [] = {
    { "", DLQ_ERR_EMPTY_BODY, "" },
    { "   ", DLQ_ERR_EMPTY_BODY, "" },
    { "{\"streamName\":", DLQ_ERR_INVALID_JSON, "" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"}} x", DLQ_ERR_INVALID_JSON, "" },
    { "{\"streamName\":\"\xff\",\"error\":{\"type\":\"T\"}}", DLQ_ERR_INVALID_UTF8, "" },
    { "[1,2]", DLQ_ERR_INVALID_EVENT, "" },
    { "\"text\"", DLQ_ERR_INVALID_EVENT, "" },
    { "{\"error\":{\"type\":\"T\"}}", DLQ_ERR_INVALID_EVENT, "streamName" },
    { "{\"streamName\":\"\",\"error\":{\"type\":\"T\"}}", DLQ_ERR_INVALID_EVENT, "streamName" },
    { "{\"streamName\":7,\"error\":{\"type\":\"T\"}}", DLQ_ERR_INVALID_EVENT, "streamName" },
    { "{\"streamName\":\"a\\nb\",\"error\":{\"type\":\"T\"}}", DLQ_ERR_INVALID_EVENT, "streamName" },
    { "{\"streamName\":\"s\"}", DLQ_ERR_INVALID_EVENT, "error.type" },
    { "{\"streamName\":\"s\",\"error\":{}}", DLQ_ERR_INVALID_EVENT, "error.type" },
    { "{\"streamName\":\"s\",\"error\":\"boom\"}", DLQ_ERR_INVALID_EVENT, "error" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":5}}", DLQ_ERR_INVALID_EVENT, "error.type" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\",\"code\":1}}", DLQ_ERR_INVALID_EVENT, "error.code" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\",\"message\":[]}}", DLQ_ERR_INVALID_EVENT, "error.message" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\",\"message\":\"a\\u0000b\"}}", DLQ_ERR_INVALID_EVENT, "error.message" },
    { "{\"streamName\":\"s\\u0000\",\"error\":{\"type\":\"T\"}}", DLQ_ERR_INVALID_EVENT, "streamName" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"id\":\"not-a-uuid\"}", DLQ_ERR_INVALID_EVENT, "id" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"attempts\":-1}", DLQ_ERR_INVALID_EVENT, "attempts" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"attempts\":1.5}", DLQ_ERR_INVALID_EVENT, "attempts" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"attempts\":\"3\"}", DLQ_ERR_INVALID_EVENT, "attempts" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"attempts\":2147483648}", DLQ_ERR_INVALID_EVENT, "attempts" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"status\":\"pending\"}", DLQ_ERR_INVALID_EVENT, "status" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"fullDocument\":\"{}\"}", DLQ_ERR_INVALID_EVENT, "fullDocument" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"resumeToken\":[1]}", DLQ_ERR_INVALID_EVENT, "resumeToken" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"metadata\":[]}", DLQ_ERR_INVALID_EVENT, "metadata" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"documentKey\":{\"_id\":{\"$oid\":\"xyz\"}}}", DLQ_ERR_INVALID_EVENT, "documentKey._id" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"fullDocument\":{\"n\":{\"$numberLong\":\"12a\"}}}", DLQ_ERR_INVALID_EVENT, "fullDocument.n" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"fullDocument\":{\"d\":{\"$date\":\"yesterday\"}}}", DLQ_ERR_INVALID_EVENT, "fullDocument.d" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"colour\":\"red\"}", DLQ_ERR_INVALID_EVENT, "colour" },
    { "{\"streamName\":\"s\",\"streamName\":\"t\",\"error\":{\"type\":\"T\"}}", DLQ_ERR_INVALID_EVENT, "streamName" },
    /* what an outside fuzzing campaign found accepted: a NUL ends no check */
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"fullDocument\":{\"n\":{\"$numberLong\":\"12\\u0000garbage\"}}}", DLQ_ERR_INVALID_EVENT, "fullDocument.n" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"fullDocument\":{\"n\":{\"$numberInt\":\"7\\u0000\"}}}", DLQ_ERR_INVALID_EVENT, "fullDocument.n" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"fullDocument\":{\"n\":{\"$numberLong\":\"007\"}}}", DLQ_ERR_INVALID_EVENT, "fullDocument.n" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"fullDocument\":{\"n\":{\"$numberLong\":\"-0\"}}}", DLQ_ERR_INVALID_EVENT, "fullDocument.n" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"fullDocument\":{\"n\":{\"$numberLong\":\"9223372036854775808\"}}}", DLQ_ERR_INVALID_EVENT, "fullDocument.n" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"fullDocument\":{\"n\":{\"$numberInt\":\"2147483648\"}}}", DLQ_ERR_INVALID_EVENT, "fullDocument.n" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"fullDocument\":{\"d\":{\"$numberDouble\":\" 0x1p3\"}}}", DLQ_ERR_INVALID_EVENT, "fullDocument.d" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"fullDocument\":{\"d\":{\"$numberDouble\":\"inf\"}}}", DLQ_ERR_INVALID_EVENT, "fullDocument.d" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"fullDocument\":{\"d\":{\"$numberDouble\":\"nan\"}}}", DLQ_ERR_INVALID_EVENT, "fullDocument.d" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"fullDocument\":{\"d\":{\"$numberDouble\":\"1.5\\u0000\"}}}", DLQ_ERR_INVALID_EVENT, "fullDocument.d" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"fullDocument\":{\"d\":{\"$numberDecimal\":\"1.5x\"}}}", DLQ_ERR_INVALID_EVENT, "fullDocument.d" },
    { "{\"streamName\":\"s\",\"error\":{\"type\\u0000junk\":\"T\"}}", DLQ_ERR_INVALID_EVENT, "error.type\\u0000junk" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"attempts\\u0000\":1}", DLQ_ERR_INVALID_EVENT, "attempts\\u0000" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\",\"bogus\":null}}", DLQ_ERR_INVALID_EVENT, "error.bogus" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\",\"type\":\"U\"}}", DLQ_ERR_INVALID_EVENT, "error.type" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\",\"message\":null,\"message\":\"m\"}}", DLQ_ERR_INVALID_EVENT, "error.message" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"metadata\":{\"k\":1,\"k\":2}}", DLQ_ERR_INVALID_EVENT, "metadata.k" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"fullDocument\":{\"a\":[{\"x\":1,\"x\":1}]}}", DLQ_ERR_INVALID_EVENT, "fullDocument.a.0.x" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"createdAt\":null,\"createdAt\":null}", DLQ_ERR_INVALID_EVENT, "createdAt" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"createdAt\":\"2026-06-09\"}", DLQ_ERR_INVALID_TIMESTAMP, "createdAt" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"createdAt\":\"2026-06-09T14:32:11\"}", DLQ_ERR_INVALID_TIMESTAMP, "createdAt" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"firstAttemptAt\":\"2026-02-30T00:00:00Z\"}", DLQ_ERR_INVALID_TIMESTAMP, "firstAttemptAt" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"lastAttemptAt\":1717880400000}", DLQ_ERR_INVALID_TIMESTAMP, "lastAttemptAt" },
    { "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"expiresAt\":\"soon\"}", DLQ_ERR_INVALID_TIMESTAMP, "expiresAt" },
};

/* A loop rather than a Criterion parameterized test: its parameters would
 * need cr_malloc'd strings to cross into the test process. */
Test (failed_event, rejects_bad_events)
{
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases [0]; i++) {
        const bad_case_t *c = &bad_cases [i];
        dlq_error_t err = { DLQ_OK, "", "" };
        dlq_event_t *e = dlq_event_decode (c->body, strlen (c->body), NOW, &err);
        cr_expect_null (e, "accepted: %s", c->body);
        dlq_event_destroy (&e);
        cr_expect_eq (err.code, c->code, "%s: got %s (%s)", c->body, dlq_code_name (err.code), err.message);
        cr_expect_str_eq (err.field, c->field, "%s: field '%s'", c->body, err.field);
        cr_expect_neq (err.message [0], '\0', "an error always explains itself");
    }
}

/* The extended JSON number forms that are right stay accepted. */
Test (failed_event, extended_json_numbers_of_the_spec_are_accepted)
{
    static const char *const values [] = {
        "{\"$numberLong\":\"-9223372036854775808\"}", "{\"$numberLong\":\"9223372036854775807\"}",
        "{\"$numberLong\":\"0\"}", "{\"$numberInt\":\"-2147483648\"}", "{\"$numberDouble\":\"-1.5e+10\"}",
        "{\"$numberDouble\":\"NaN\"}", "{\"$numberDouble\":\"-Infinity\"}", "{\"$numberDouble\":\"0.0\"}",
        "{\"$numberDecimal\":\"1.23E+3\"}", "{\"$numberDecimal\":\"-Inf\"}", "{\"$numberDecimal\":\"42\"}",
        "{\"$date\":{\"$numberLong\":\"1717880400000\"}}",
    };
    for (size_t i = 0; i < sizeof values / sizeof values [0]; i++) {
        char body [256];
        snprintf (body, sizeof body, "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"fullDocument\":{\"v\":%s}}",
                  values [i]);
        dlq_error_t err = { DLQ_OK, "", "" };
        dlq_event_t *e = dlq_event_decode (body, strlen (body), NOW, &err);
        cr_expect_not_null (e, "%s: %s", values [i], err.message);
        dlq_event_destroy (&e);
    }
}

/* A name repeated in a large object (past the pairwise check) is found
 * too, and named by its path. */
Test (failed_event, a_repeated_name_in_a_large_object_is_refused)
{
    dlq_buf_t body = DLQ_BUF_INIT;
    dlq_buf_puts (&body, "{\"streamName\":\"s\",\"error\":{\"type\":\"T\"},\"metadata\":{");
    for (int i = 0; i < 1000; i++)
        dlq_buf_printf (&body, "\"k%d\":%d,", i, i);
    dlq_buf_puts (&body, "\"k517\":0}}");
    dlq_error_t err = { DLQ_OK, "", "" };
    dlq_event_t *e = dlq_event_decode (body.data, body.len, NOW, &err);
    cr_expect_null (e);
    cr_expect_eq (err.code, DLQ_ERR_INVALID_EVENT);
    cr_expect_str_eq (err.field, "metadata.k517");
    dlq_event_destroy (&e);
    dlq_buf_free (&body);
}

Test (failed_event, stream_name_length_is_counted_in_characters)
{
    char body [2048];
    char name [600] = "";
    for (int i = 0; i < 255; i++)
        strcat (name, "\xc3\xa9");                      /* 255 characters, 510 bytes */
    snprintf (body, sizeof body, "{\"streamName\":\"%s\",\"error\":{\"type\":\"T\"}}", name);
    dlq_event_t *e = dlq_event_decode (body, strlen (body), NOW, NULL);
    cr_expect_not_null (e, "255 characters are allowed");
    dlq_event_destroy (&e);
    strcat (name, "x");
    snprintf (body, sizeof body, "{\"streamName\":\"%s\",\"error\":{\"type\":\"T\"}}", name);
    dlq_error_t err;
    cr_expect_null (dlq_event_decode (body, strlen (body), NOW, &err), "256 are not");
}

Test (stream_policy, excludes_document_and_stack_trace_and_sets_expiry)
{
    size_t len;
    char *body = example_body (&len);
    dlq_event_t *e = dlq_event_decode (body, len, NOW, NULL);
    dlq_policy_t policy = { .retention_days = 90, .include_original_document = false, .include_stack_trace = false };
    dlq_policy_apply (&policy, e);
    cr_expect_null (e->full_document);
    cr_expect_null (e->error_stack_trace);
    cr_expect_eq (e->expires_at, e->created_at + 90LL * 86400000);
    dlq_event_encode (e);
    cr_expect_null (strstr (e->json, "fullDocument"));
    cr_expect_null (strstr (e->json, "stackTrace"));
    cr_expect_not_null (strstr (e->json, "\"expiresAt\":\"2026-09-07T14:32:13.500Z\""), "%s", e->json);
    dlq_event_destroy (&e);
    free (body);
}

Test (stream_policy, retention_zero_keeps_forever_and_includes_keep_fields)
{
    size_t len;
    char *body = example_body (&len);
    dlq_event_t *e = dlq_event_decode (body, len, NOW, NULL);
    dlq_policy_t policy = { .retention_days = 0, .include_original_document = true, .include_stack_trace = true };
    dlq_policy_apply (&policy, e);
    cr_expect_not_null (e->full_document);
    cr_expect_not_null (e->error_stack_trace);
    cr_expect_eq (e->expires_at, DLQ_TIME_NONE, "a client's expiresAt is replaced by the policy");
    dlq_event_encode (e);
    cr_expect_null (strstr (e->json, "expiresAt"));
    dlq_event_destroy (&e);
    free (body);
}

Test (stream_policy, per_stream_overrides_win_over_defaults)
{
    dlq_policy_t defaults = { .retention_days = 30, .include_original_document = true, .include_stack_trace = true };
    dlq_policy_t payments = { .retention_days = 90, .include_original_document = true, .include_stack_trace = false };
    dlq_policy_table_t *t = dlq_policy_table_new (&defaults);
    dlq_policy_table_set (t, "payments-stream", &payments);
    char name [32];
    for (int i = 0; i < 100; i++) {                     /* force the table to grow */
        snprintf (name, sizeof name, "s%d", i);
        dlq_policy_t p = { .retention_days = i, .include_original_document = false, .include_stack_trace = true };
        dlq_policy_table_set (t, name, &p);
    }
    cr_expect_eq (dlq_policy_table_lookup (t, "payments-stream")->retention_days, 90);
    cr_expect_not (dlq_policy_table_lookup (t, "payments-stream")->include_stack_trace);
    cr_expect_eq (dlq_policy_table_lookup (t, "s57")->retention_days, 57);
    cr_expect_eq (dlq_policy_table_lookup (t, "orders")->retention_days, 30);
    cr_expect (dlq_policy_table_has (t, "s99"));
    cr_expect_not (dlq_policy_table_has (t, "orders"));
    dlq_policy_table_destroy (&t);
    cr_expect_null (t);
}
