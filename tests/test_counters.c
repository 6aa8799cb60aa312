/*  test_counters — the gateway's request counters and their STATS form, as
 *  counters.h and docs/protocol.md ("STATS") have them: the members
 *  "counters":{"accepted","duplicate","rejected","repliesDropped","errors"},
 *  "uptimeSeconds", "connections" with no braces around; new counters are
 *  zero; errors broken down by code name with zero counts omitted; bad-input
 *  codes also count as rejected, while NOT_FOUND, UNAVAILABLE, INTERNAL and
 *  INVALID_STATE do not; a code out of range counts as INTERNAL;
 *  connections is set, not added; counts from many threads add up; a
 *  reading (for /metrics) holds the replies by verb and code and the ack
 *  and group-commit histograms.
 */
#include "counters.h"

#include "dlq_buf.h"
#include "dlq_code.h"
#include "dlq_json.h"

#include "json_support.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The counters' members wrapped in braces, parsed (the test fails when
 * that is not one JSON object). */
static dlq_json_doc_t *
format (const dlq_counters_t *c)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_counters_format (c, &out);
    dlq_json_doc_t *doc = json_members_parse (&out);
    dlq_buf_free (&out);
    return doc;
}

/* An unsigned integer member of obj; the test fails when it is absent. */
static uint64_t
number (const dlq_json_value_t *obj, const char *name)
{
    const dlq_json_value_t *v = dlq_json_get (obj, name);
    cr_assert_not_null (v, "no %s", name);
    cr_assert_eq (v->type, DLQ_JSON_NUMBER, "%s is not a number", name);
    char text [32];
    cr_assert_lt (v->len, sizeof text);
    memcpy (text, v->str, v->len);
    text [v->len] = '\0';
    char *end;
    unsigned long long n = strtoull (text, &end, 10);
    cr_assert_eq (*end, '\0', "%s: %s is not an integer", name, text);
    return n;
}

static const dlq_json_value_t *
object (const dlq_json_value_t *obj, const char *name)
{
    const dlq_json_value_t *v = dlq_json_get (obj, name);
    cr_assert_not_null (v, "no %s", name);
    cr_assert_eq (v->type, DLQ_JSON_OBJECT, "%s is not an object", name);
    return v;
}

Test (counters, new_counters_are_zero_with_no_errors)
{
    dlq_counters_t *c = dlq_counters_new ();
    dlq_json_doc_t *doc = format (c);
    const dlq_json_value_t *root = dlq_json_root (doc);
    cr_expect_eq (root->count, 3, "counters, uptimeSeconds, connections");
    const dlq_json_value_t *counters = object (root, "counters");
    cr_expect_eq (counters->count, 5);
    cr_expect_eq (number (counters, "accepted"), 0);
    cr_expect_eq (number (counters, "duplicate"), 0);
    cr_expect_eq (number (counters, "rejected"), 0);
    cr_expect_eq (number (counters, "repliesDropped"), 0);
    cr_expect_eq (object (counters, "errors")->count, 0, "zero counts are omitted");
    cr_expect_lt (number (root, "uptimeSeconds"), 2, "the start time is now");
    cr_expect_eq (number (root, "connections"), 0);
    dlq_json_doc_destroy (&doc);
    dlq_counters_destroy (&c);
    cr_expect_null (c);
}

Test (counters, destroy_accepts_null)
{
    dlq_counters_t *c = NULL;
    dlq_counters_destroy (&c);
    dlq_counters_destroy (NULL);
    cr_expect_null (c);
}

Test (counters, puts_and_dropped_replies_add_up)
{
    dlq_counters_t *c = dlq_counters_new ();
    dlq_counters_accepted (c, 1200);
    dlq_counters_accepted (c, 10);
    dlq_counters_duplicate (c, 10);
    dlq_counters_reply_dropped (c, 3);
    dlq_counters_reply_dropped (c, 0);
    dlq_json_doc_t *doc = format (c);
    const dlq_json_value_t *counters = object (dlq_json_root (doc), "counters");
    cr_expect_eq (number (counters, "accepted"), 1210);
    cr_expect_eq (number (counters, "duplicate"), 10);
    cr_expect_eq (number (counters, "repliesDropped"), 3);
    cr_expect_eq (number (counters, "rejected"), 0, "PUTs stored are not rejections");
    dlq_json_doc_destroy (&doc);
    dlq_counters_destroy (&c);
}

Test (counters, connections_are_set_not_added)
{
    dlq_counters_t *c = dlq_counters_new ();
    dlq_counters_connections (c, 4);
    dlq_counters_connections (c, 7);
    dlq_json_doc_t *doc = format (c);
    cr_expect_eq (number (dlq_json_root (doc), "connections"), 7);
    dlq_json_doc_destroy (&doc);
    dlq_counters_connections (c, 0);
    doc = format (c);
    cr_expect_eq (number (dlq_json_root (doc), "connections"), 0);
    dlq_json_doc_destroy (&doc);
    dlq_counters_destroy (&c);
}

Test (counters, errors_are_counted_by_code_name)
{
    dlq_counters_t *c = dlq_counters_new ();
    dlq_counters_reply (c, DLQ_VERB_PUT, DLQ_ERR_INVALID_JSON);
    dlq_counters_reply (c, DLQ_VERB_PUT, DLQ_ERR_INVALID_JSON);
    dlq_counters_reply (c, DLQ_VERB_PUT, DLQ_ERR_TOO_LARGE);
    dlq_json_doc_t *doc = format (c);
    const dlq_json_value_t *errors = object (object (dlq_json_root (doc), "counters"), "errors");
    cr_expect_eq (errors->count, 2, "only the codes counted");
    cr_expect_eq (number (errors, "INVALID_JSON"), 2);
    cr_expect_eq (number (errors, "TOO_LARGE"), 1);
    dlq_json_doc_destroy (&doc);
    dlq_counters_destroy (&c);
}

Test (counters, bad_input_codes_also_count_as_rejected)
{
    /* docs/protocol.md: rejected counts "requests answered with ERR for bad
     * input"; the client's own mistakes */
    static const dlq_code_t bad_input [] = {
        DLQ_ERR_BAD_FRAMES, DLQ_ERR_UNKNOWN_VERB, DLQ_ERR_EMPTY_BODY, DLQ_ERR_TOO_LARGE, DLQ_ERR_INVALID_UTF8,
        DLQ_ERR_INVALID_JSON, DLQ_ERR_INVALID_EVENT, DLQ_ERR_INVALID_TIMESTAMP, DLQ_ERR_INVALID_REQUEST,
    };
    enum { N = sizeof bad_input / sizeof bad_input [0] };
    for (size_t i = 0; i < N; i++) {
        dlq_counters_t *c = dlq_counters_new ();
        dlq_counters_reply (c, DLQ_VERB_PUT, bad_input [i]);
        dlq_json_doc_t *doc = format (c);
        const dlq_json_value_t *counters = object (dlq_json_root (doc), "counters");
        cr_expect_eq (number (counters, "rejected"), 1, "%s", dlq_code_name (bad_input [i]));
        cr_expect_eq (number (object (counters, "errors"), dlq_code_name (bad_input [i])), 1);
        dlq_json_doc_destroy (&doc);
        dlq_counters_destroy (&c);
    }
}

Test (counters, answers_and_the_gateways_trouble_are_not_rejections)
{
    /* NOT_FOUND is an ordinary answer, INVALID_STATE a valid request the
     * state does not allow, FORBIDDEN one the caller's key may not make,
     * UNAVAILABLE / INTERNAL the gateway's trouble */
    static const dlq_code_t not_bad [] = {
        DLQ_ERR_NOT_FOUND, DLQ_ERR_UNAVAILABLE, DLQ_ERR_INTERNAL, DLQ_ERR_INVALID_STATE, DLQ_ERR_FORBIDDEN,
    };
    dlq_counters_t *c = dlq_counters_new ();
    for (size_t i = 0; i < sizeof not_bad / sizeof not_bad [0]; i++)
        dlq_counters_reply (c, DLQ_VERB_PUT, not_bad [i]);
    dlq_json_doc_t *doc = format (c);
    const dlq_json_value_t *counters = object (dlq_json_root (doc), "counters");
    cr_expect_eq (number (counters, "rejected"), 0);
    const dlq_json_value_t *errors = object (counters, "errors");
    cr_expect_eq (errors->count, 5, "each still counted as an ERR reply");
    for (size_t i = 0; i < sizeof not_bad / sizeof not_bad [0]; i++)
        cr_expect_eq (number (errors, dlq_code_name (not_bad [i])), 1, "%s", dlq_code_name (not_bad [i]));
    dlq_json_doc_destroy (&doc);
    dlq_counters_destroy (&c);
}

Test (counters, a_code_out_of_range_counts_as_internal)
{
    dlq_counters_t *c = dlq_counters_new ();
    dlq_counters_reply (c, DLQ_VERB_PUT, DLQ_CODE_COUNT);
    dlq_counters_reply (c, DLQ_VERB_PUT, (dlq_code_t) 1000);
    dlq_counters_reply (c, DLQ_VERB_PUT, (dlq_code_t) -1);
    dlq_json_doc_t *doc = format (c);
    const dlq_json_value_t *counters = object (dlq_json_root (doc), "counters");
    const dlq_json_value_t *errors = object (counters, "errors");
    cr_expect_eq (errors->count, 1);
    cr_expect_eq (number (errors, "INTERNAL"), 3);
    cr_expect_eq (number (counters, "rejected"), 0, "a bug is not the client's bad input");
    dlq_json_doc_destroy (&doc);
    dlq_counters_destroy (&c);
}

Test (counters, large_counts_are_exact)
{
    dlq_counters_t *c = dlq_counters_new ();
    dlq_counters_accepted (c, UINT64_MAX - 1);
    dlq_counters_accepted (c, 1);
    dlq_counters_duplicate (c, 1ull << 53 | 1);            /* not exact as a double */
    dlq_counters_connections (c, 1000000);
    dlq_json_doc_t *doc = format (c);
    const dlq_json_value_t *counters = object (dlq_json_root (doc), "counters");
    cr_expect_eq (number (counters, "accepted"), UINT64_MAX);
    cr_expect_eq (number (counters, "duplicate"), (1ull << 53) + 1);
    cr_expect_eq (number (dlq_json_root (doc), "connections"), 1000000);
    dlq_json_doc_destroy (&doc);
    dlq_counters_destroy (&c);
}

Test (counters, the_members_are_appended_after_what_the_buffer_holds)
{
    dlq_counters_t *c = dlq_counters_new ();
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_buf_puts (&out, "{\"events\":1,");
    dlq_counters_format (c, &out);
    dlq_buf_puts (&out, ",\"sinks\":{}}");
    dlq_json_doc_t *doc = NULL;
    cr_expect_eq (dlq_json_parse (out.data, out.len, &doc, NULL), DLQ_JSON_OK, "a STATS body: %s", out.data);
    cr_expect_not_null (dlq_json_get (dlq_json_root (doc), "events"));
    cr_expect_not_null (dlq_json_get (dlq_json_root (doc), "counters"));
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&out);
    dlq_counters_destroy (&c);
}

#define THREADS 4
#define PER_THREAD 20000

static void *
count_many (void *arg)
{
    dlq_counters_t *c = arg;
    for (int i = 0; i < PER_THREAD; i++) {
        dlq_counters_accepted (c, 1);
        dlq_counters_duplicate (c, 2);
        dlq_counters_reply_dropped (c, 1);
        dlq_counters_reply (c, DLQ_VERB_PUT, DLQ_ERR_INVALID_JSON);
        dlq_counters_reply (c, DLQ_VERB_PUT, DLQ_ERR_NOT_FOUND);
    }
    return NULL;
}

Test (counters, counts_from_many_threads_add_up)
{
    dlq_counters_t *c = dlq_counters_new ();
    pthread_t threads [THREADS];
    for (int i = 0; i < THREADS; i++)
        cr_assert_eq (pthread_create (&threads [i], NULL, count_many, c), 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join (threads [i], NULL);
    dlq_json_doc_t *doc = format (c);
    const dlq_json_value_t *counters = object (dlq_json_root (doc), "counters");
    cr_expect_eq (number (counters, "accepted"), THREADS * PER_THREAD);
    cr_expect_eq (number (counters, "duplicate"), 2 * THREADS * PER_THREAD);
    cr_expect_eq (number (counters, "repliesDropped"), THREADS * PER_THREAD);
    cr_expect_eq (number (counters, "rejected"), THREADS * PER_THREAD, "INVALID_JSON only");
    const dlq_json_value_t *errors = object (counters, "errors");
    cr_expect_eq (number (errors, "INVALID_JSON"), THREADS * PER_THREAD);
    cr_expect_eq (number (errors, "NOT_FOUND"), THREADS * PER_THREAD);
    dlq_json_doc_destroy (&doc);
    dlq_counters_destroy (&c);
}

Test (counters, with_curve_refusals_are_counted_per_principal_and_bounded)
{
    dlq_counters_t *c = dlq_counters_new ();
    dlq_json_doc_t *doc = format (c);
    cr_expect_null (dlq_json_get (object (dlq_json_root (doc), "counters"), "forbidden"), "without CURVE: absent");
    dlq_json_doc_destroy (&doc);
    dlq_counters_secured (c);
    dlq_counters_forbidden (c, "alice");
    dlq_counters_forbidden (c, "alice");
    dlq_counters_forbidden (c, "b\"ob");
    for (int i = 0; i < DLQ_COUNTERS_PRINCIPALS + 10; i++) {
        char name [32];
        snprintf (name, sizeof name, "key-%d", i);
        dlq_counters_forbidden (c, name);
    }
    dlq_counters_handshake_refused (c, DLQ_HANDSHAKE_UNKNOWN_KEY);
    dlq_counters_handshake_refused (c, DLQ_HANDSHAKE_REPLAY_DENIED);
    dlq_counters_handshake_refused (c, DLQ_HANDSHAKE_REPLAY_DENIED);
    doc = format (c);
    const dlq_json_value_t *counters = object (dlq_json_root (doc), "counters");
    const dlq_json_value_t *forbidden = object (counters, "forbidden");
    cr_expect_eq (number (forbidden, "alice"), 2);
    cr_expect_eq (number (forbidden, "b\"ob"), 1, "a name is a JSON string, escaped");
    cr_expect_eq (forbidden->count, DLQ_COUNTERS_PRINCIPALS + 1, "the names past the bound share one entry");
    cr_expect_eq (number (forbidden, "(others)"), 12);
    const dlq_json_value_t *handshakes = object (counters, "handshakesRefused");
    cr_expect_eq (number (handshakes, "unknownKey"), 1);
    cr_expect_eq (number (handshakes, "replayDenied"), 2);
    dlq_json_doc_destroy (&doc);
    dlq_counters_destroy (&c);
}

Test (counters, a_reading_has_every_reply_by_verb_and_code_and_the_histograms)
{
    dlq_counters_t *c = dlq_counters_new ();
    dlq_counters_reply (c, DLQ_VERB_PUT, DLQ_OK);
    dlq_counters_reply (c, DLQ_VERB_PUT, DLQ_OK);
    dlq_counters_reply (c, DLQ_VERB_GET, DLQ_ERR_NOT_FOUND);
    dlq_counters_reply (c, DLQ_VERB_UNKNOWN, DLQ_ERR_UNKNOWN_VERB);
    dlq_counters_reply (c, (dlq_verb_t) 999, DLQ_OK);
    dlq_counters_accepted (c, 2);
    dlq_counters_forbidden (c, "eve");
    dlq_counters_handshake_refused (c, DLQ_HANDSHAKE_UNKNOWN_KEY);
    dlq_counters_ack_latency (c, 0.002);
    dlq_counters_ack_latency (c, 0.2);
    dlq_counters_commit (c, 300, 0.004);
    dlq_counters_reading_t r;
    dlq_counters_read (c, &r);
    cr_expect_eq (r.replies [DLQ_VERB_PUT][DLQ_OK], 2);
    cr_expect_eq (r.replies [DLQ_VERB_GET][DLQ_ERR_NOT_FOUND], 1);
    cr_expect_eq (r.replies [DLQ_VERB_UNKNOWN][DLQ_ERR_UNKNOWN_VERB], 1);
    cr_expect_eq (r.replies [DLQ_VERB_UNKNOWN][DLQ_OK], 1, "a verb out of range counts as UNKNOWN");
    cr_expect_eq (r.rejected, 1, "UNKNOWN_VERB is bad input, NOT_FOUND is not");
    cr_expect_eq (r.accepted, 2);
    cr_expect_eq (r.forbidden, 1);
    cr_expect_eq (r.handshakes_unknown_key, 1);
    cr_expect_eq (r.ack_latency.count, 2);
    cr_expect_float_eq (r.ack_latency.sum, 0.202, 1e-6);
    cr_expect_eq (r.commit_writes.count, 1);
    cr_expect_float_eq (r.commit_writes.sum, 300, 1e-6);
    cr_expect_eq (r.commit_seconds.count, 1);
    dlq_counters_destroy (&c);
}
