/*  test_event_filter — the workbench's filters: each member read from a
 *  request (and refused, naming it, when ill-typed), and the reference
 *  predicate: every filter alone, edges of the ranges (createdAfter
 *  inclusive, createdBefore exclusive, attempts inclusive), metadata
 *  pairs by type, messageContains without case, all of them combined.
 */
#include "dlq_buf.h"
#include "event_filter.h"

#include <criterion/criterion.h>
#include <string.h>
#include <strings.h>

#define EVENT \
    "{\"id\":\"c2e8a5b6-0f1e-4c3a-9b7d-2a1f0e9d8c7b\",\"streamName\":\"orders\",\"operationType\":\"INSERT\"," \
    "\"error\":{\"type\":\"java.lang.IllegalStateException\",\"message\":\"Downstream call TIMED OUT after 3000 ms\"}," \
    "\"attempts\":3,\"status\":\"PENDING\",\"createdAt\":\"2026-06-09T14:32:13.500Z\"," \
    "\"metadata\":{\"tenantId\":\"acme\",\"shard\":7,\"vip\":true}}"
#define FP "0123456789abcdef"
#define LIT(s) s, sizeof (s) - 1

/* Parse request into f; the result code. */
static dlq_code_t
parse (const char *request, dlq_event_filter_t *f, dlq_error_t *err)
{
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (request, strlen (request), &doc, NULL), DLQ_JSON_OK, "%s", request);
    dlq_code_t code = dlq_event_filter_parse (dlq_json_root (doc), f, err);
    dlq_json_doc_destroy (&doc);
    return code;
}

/* Does EVENT match the filter of request? */
static bool
matches (const char *request)
{
    dlq_event_filter_t f = DLQ_EVENT_FILTER_INIT;
    dlq_error_t err = { 0 };
    cr_assert_eq (parse (request, &f, &err), DLQ_OK, "%s: %s %s", request, err.field, err.message);
    bool m = dlq_event_filter_matches (&f, EVENT, strlen (EVENT), FP);
    dlq_event_filter_free (&f);
    return m;
}

static void
expect_refused (const char *request, const char *field)
{
    dlq_event_filter_t f = DLQ_EVENT_FILTER_INIT;
    dlq_error_t err = { 0 };
    cr_expect_eq (parse (request, &f, &err), DLQ_ERR_INVALID_REQUEST, "accepted: %s", request);
    cr_expect_str_eq (err.field, field, "%s: %s", request, err.message);
    cr_expect (dlq_event_filter_is_empty (&f), "a refused filter is left empty");
}

Test (event_filter, each_filter_alone)
{
    cr_expect (matches ("{}"));
    cr_expect (matches ("{\"streamName\":\"orders\"}"));
    cr_expect_not (matches ("{\"streamName\":\"payments\"}"));
    cr_expect (matches ("{\"status\":\"PENDING\"}"));
    cr_expect_not (matches ("{\"status\":\"pending\"}"), "status is exact");
    cr_expect (matches ("{\"errorType\":\"java.lang.IllegalStateException\"}"));
    cr_expect_not (matches ("{\"errorType\":\"IllegalStateException\"}"));
    cr_expect (matches ("{\"fingerprint\":\"" FP "\"}"));
    cr_expect_not (matches ("{\"fingerprint\":\"fedcba9876543210\"}"));
    cr_expect (matches ("{\"messageContains\":\"timed out\"}"), "without case");
    cr_expect (matches ("{\"messageContains\":\"3000 MS\"}"));
    cr_expect_not (matches ("{\"messageContains\":\"refused\"}"));
    cr_expect (matches ("{\"metadata\":{\"tenantId\":\"acme\"}}"));
    cr_expect_not (matches ("{\"metadata\":{\"tenantId\":\"ACME\"}}"));
    cr_expect (matches ("{\"metadata\":{\"shard\":7}}"));
    cr_expect (matches ("{\"metadata\":{\"shard\":7.0}}"), "numbers compare as numbers");
    cr_expect_not (matches ("{\"metadata\":{\"shard\":\"7\"}}"), "a string is not a number");
    cr_expect (matches ("{\"metadata\":{\"vip\":true}}"));
    cr_expect_not (matches ("{\"metadata\":{\"vip\":false}}"));
    cr_expect_not (matches ("{\"metadata\":{\"region\":\"eu\"}}"), "an absent key never matches");
    cr_expect_not (matches ("{\"metadata\":{\"tenantId\":\"acme\",\"shard\":8}}"), "every pair must hold");
}

Test (event_filter, range_edges)
{
    cr_expect (matches ("{\"createdAfter\":\"2026-06-09T14:32:13.500Z\"}"), "createdAfter is inclusive");
    cr_expect_not (matches ("{\"createdAfter\":\"2026-06-09T14:32:13.501Z\"}"));
    cr_expect_not (matches ("{\"createdBefore\":\"2026-06-09T14:32:13.500Z\"}"), "createdBefore is exclusive");
    cr_expect (matches ("{\"createdBefore\":\"2026-06-09T14:32:13.501Z\"}"));
    cr_expect (matches ("{\"createdAfter\":\"2026-06-01T00:00:00Z\",\"createdBefore\":\"2026-07-01T00:00:00Z\"}"));
    cr_expect (matches ("{\"attemptsMin\":3,\"attemptsMax\":3}"), "attempts bounds are inclusive");
    cr_expect_not (matches ("{\"attemptsMin\":4}"));
    cr_expect_not (matches ("{\"attemptsMax\":2}"));
}

Test (event_filter, combined)
{
    cr_expect (matches ("{\"streamName\":\"orders\",\"status\":\"PENDING\",\"errorType\":\"java.lang.IllegalStateException\","
                        "\"createdAfter\":\"2026-06-01T00:00:00Z\",\"attemptsMin\":1,\"attemptsMax\":5,"
                        "\"metadata\":{\"tenantId\":\"acme\"},\"messageContains\":\"downstream\",\"fingerprint\":\"" FP "\","
                        "\"limit\":10,\"cursor\":\"x\"}"), "and members that are not filters are left alone");
    cr_expect_not (matches ("{\"streamName\":\"orders\",\"status\":\"DLQ\"}"));
}

Test (event_filter, bad_members_are_refused_by_name)
{
    expect_refused ("{\"streamName\":\"\"}", "streamName");
    expect_refused ("{\"status\":3}", "status");
    expect_refused ("{\"fingerprint\":\"XYZ\"}", "fingerprint");
    expect_refused ("{\"fingerprint\":\"0123456789ABCDEF\"}", "fingerprint");
    expect_refused ("{\"createdAfter\":\"yesterday\"}", "createdAfter");
    expect_refused ("{\"createdBefore\":1781015533500}", "createdBefore");
    expect_refused ("{\"attemptsMin\":-1}", "attemptsMin");
    expect_refused ("{\"attemptsMax\":1.5}", "attemptsMax");
    expect_refused ("{\"attemptsMin\":5,\"attemptsMax\":2}", "attemptsMax");
    expect_refused ("{\"metadata\":[]}", "metadata");
    expect_refused ("{\"metadata\":{}}", "metadata");
    expect_refused ("{\"metadata\":{\"a\":{\"b\":1}}}", "metadata.a");
    expect_refused ("{\"metadata\":{\"a.b\":1}}", "metadata.a.b");
    expect_refused ("{\"streamName\":\"orders\",\"messageContains\":null}", "messageContains");
}

Test (event_filter, member_names_and_emptiness)
{
    cr_expect (dlq_event_filter_is_member ("errorType", 9));
    cr_expect_not (dlq_event_filter_is_member ("limit", 5));
    dlq_event_filter_t f = DLQ_EVENT_FILTER_INIT;
    cr_expect (dlq_event_filter_is_empty (&f));
    dlq_error_t err = { 0 };
    cr_assert_eq (parse ("{\"attemptsMin\":0}", &f, &err), DLQ_OK);
    cr_expect_not (dlq_event_filter_is_empty (&f));
    dlq_event_filter_free (&f);
    cr_expect (dlq_event_filter_contains ("abc", 3, ""));
    cr_expect_not (dlq_event_filter_contains ("ab", 2, "abc"));
}

Test (event_filter, written_as_json_it_reads_back_the_same)
{
    const char *requests [] = {
        "{}",
        "{\"streamName\":\"orders\",\"status\":\"PENDING\",\"errorType\":\"a \\\"quoted\\\" type\","
        "\"fingerprint\":\"" FP "\",\"messageContains\":\"timed out\","
        "\"createdAfter\":\"2026-06-01T00:00:00.000Z\",\"createdBefore\":\"2026-06-10T12:00:00.250Z\","
        "\"attemptsMin\":2,\"attemptsMax\":9,\"metadata\":{\"tenantId\":\"acme\",\"shard\":7,\"vip\":true,\"gone\":false}}",
        "{\"metadata\":{\"ratio\":1.50}}",
    };
    for (size_t i = 0; i < sizeof requests / sizeof requests [0]; i++) {
        dlq_event_filter_t f = DLQ_EVENT_FILTER_INIT;
        cr_assert_eq (parse (requests [i], &f, NULL), DLQ_OK, "%s", requests [i]);
        dlq_buf_t json = DLQ_BUF_INIT;
        dlq_event_filter_to_json (&f, &json);
        dlq_buf_putc (&json, '\0');
        cr_expect_str_eq (json.data, requests [i]);
        dlq_event_filter_free (&f);
        dlq_buf_free (&json);
    }
}

/* head, then {"k0":1,...} with the most pairs a filter holds, then tail. */
static void
full_metadata (dlq_buf_t *body, const char *head, const char *tail)
{
    dlq_buf_puts (body, head);
    for (int i = 0; i < DLQ_FILTER_METADATA_MAX; i++)
        dlq_buf_printf (body, "%s\"k%d\":1", i ? "," : "{", i);
    dlq_buf_puts (body, "}");
    dlq_buf_puts (body, tail);
}

/* The crash an outside campaign found: "metadata" twice, 16 + 1 pairs in
 * all, wrote past the filter's array. A repeated member is refused by
 * name; so is a repeated key, and the array is never overrun. */
Test (event_filter, a_repeated_member_is_refused_and_never_overruns)
{
    dlq_buf_t body = DLQ_BUF_INIT;
    full_metadata (&body, "{\"streamName\":\"s\",\"metadata\":", ",\"metadata\":{\"x\":1}}");
    expect_refused (body.data, "metadata");
    dlq_buf_free (&body);
    expect_refused ("{\"streamName\":\"s\",\"streamName\":\"t\"}", "streamName");
    expect_refused ("{\"attemptsMin\":1,\"attemptsMin\":2}", "attemptsMin");
    expect_refused ("{\"metadata\":{\"k\":1,\"k\":2}}", "metadata.k");
    expect_refused ("{\"metadata\":{\"k\":1},\"metadata\":{\"j\":2}}", "metadata");
}

/* A NUL never hides in a filter: a metadata value with one is refused
 * (SQLite's json_extract cuts a string at it, so "a\u0000b" matched "a"),
 * and a name with one is named with it written out. */
Test (event_filter, nul_in_a_metadata_value_or_a_name)
{
    expect_refused ("{\"metadata\":{\"k\":\"a\\u0000b\"}}", "metadata.k");
    expect_refused ("{\"metadata\":{\"k\\u0000\":\"a\"}}", "metadata.k\\u0000");
    expect_refused ("{\"streamName\":\"s\\u0000\"}", "streamName");
}

/* The full 16 pairs still fit; each bound is the array's. */
Test (event_filter, sixteen_metadata_pairs_fit)
{
    dlq_buf_t body = DLQ_BUF_INIT;
    full_metadata (&body, "{\"metadata\":", "}");
    dlq_event_filter_t f = DLQ_EVENT_FILTER_INIT;
    dlq_error_t err = { 0 };
    cr_expect_eq (parse (body.data, &f, &err), DLQ_OK, "%s", err.message);
    cr_expect_eq (f.metadata_count, DLQ_FILTER_METADATA_MAX);
    dlq_event_filter_free (&f);
    dlq_buf_free (&body);
}

/* messageContains agrees with a naive search on the cases a linear
 * search gets wrong when its fallback table is wrong. */
Test (event_filter, contains_finds_overlapping_and_folded_needles)
{
    cr_expect (dlq_event_filter_contains (LIT ("aaab"), "aab"));
    cr_expect (dlq_event_filter_contains (LIT ("abababc"), "ababc"));
    cr_expect (dlq_event_filter_contains (LIT ("xxAbAbAcx"), "ABAC"));
    cr_expect (dlq_event_filter_contains (LIT ("a\0b"), "B"));
    cr_expect_not (dlq_event_filter_contains (LIT ("abababab"), "ababc"));
    cr_expect_not (dlq_event_filter_contains (LIT ("\xc3\x89"), "\xc3\xa9"), "only ASCII letters fold");
    cr_expect (dlq_event_filter_contains (LIT ("TIMED OUT"), "timed out"));
    /* against the naive search, every needle of a small alphabet */
    const char *hay = "abaabbaababbbaaababab";
    char needle [6];
    for (unsigned bits = 0; bits < 64; bits++)
        for (size_t n = 1; n <= 5; n++) {
            for (size_t i = 0; i < n; i++)
                needle [i] = (bits >> i) & 1 ? 'B' : 'a';
            needle [n] = '\0';
            bool naive = false;
            for (size_t i = 0; i + n <= strlen (hay) && !naive; i++)
                naive = strncasecmp (hay + i, needle, n) == 0;
            cr_expect_eq (dlq_event_filter_contains (hay, strlen (hay), needle), naive, "%s", needle);
        }
}

Test (event_filter, from_json_reads_what_to_json_writes_and_names_what_is_wrong)
{
    /* a store's workbench calls get the filter as JSON (to_json) and read
     * it back (from_json): the same filter, and a message that says why not */
    dlq_event_filter_t f = DLQ_EVENT_FILTER_INIT, back = DLQ_EVENT_FILTER_INIT;
    char err [300] = "";
    cr_assert (dlq_event_filter_from_json ("{\"streamName\":\"orders\",\"attemptsMin\":2,\"status\":\"PENDING\"}",
                                           &f, err, sizeof err), "%s", err);
    dlq_buf_t json = DLQ_BUF_INIT, again = DLQ_BUF_INIT;
    dlq_event_filter_to_json (&f, &json);
    dlq_buf_putc (&json, '\0');
    cr_assert (dlq_event_filter_from_json (json.data, &back, err, sizeof err), "%s", err);
    dlq_event_filter_to_json (&back, &again);
    dlq_buf_putc (&again, '\0');
    cr_expect_str_eq (again.data, json.data);
    cr_expect_str_eq (back.stream, "orders");
    dlq_event_filter_free (&f);
    dlq_event_filter_free (&back);
    cr_assert (dlq_event_filter_from_json (NULL, &f, err, sizeof err), "NULL is every event");
    cr_expect (dlq_event_filter_is_empty (&f));
    cr_assert (dlq_event_filter_from_json ("", &f, err, sizeof err), "\"\" is every event");
    cr_expect_not (dlq_event_filter_from_json ("{", &f, err, sizeof err));
    cr_expect_not_null (strstr (err, "not JSON"), "%s", err);
    cr_expect_not (dlq_event_filter_from_json ("{\"attemptsMin\":-1}", &f, err, sizeof err));
    cr_expect_not_null (strstr (err, "attemptsMin"), "%s", err);
    cr_expect (dlq_event_filter_is_empty (&f), "a refused filter is left empty");
    cr_expect_not (dlq_event_filter_from_json ("[1]", &f, err, sizeof err));
    cr_expect_neq (err [0], '\0');
    dlq_buf_free (&json);
    dlq_buf_free (&again);
}
