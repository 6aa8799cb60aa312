/*  test_embedded_query — the workbench's queries on the embedded store,
 *  checked against the reference predicate (event_filter.h): a store of
 *  varied events (streams, statuses, error types and messages, attempts,
 *  metadata, creation times, some expired), and for each of a table of
 *  filters alone and combined: LIST paged to the end gives exactly the
 *  matching unexpired events, newest first, each once; COUNT their
 *  number; GROUPS one group per fingerprint with the right counts.
 *  Also: a bad cursor, and the fingerprint written at ingest.
 */
#include "dlq_json.h"
#include "dlq_time.h"
#include "embedded_query.h"
#include "failed_event.h"
#include "store_support.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N       600
#define NOW     1781015533500LL
#define HOUR_MS 3600000LL

static char dir [256];
static dlq_embedded_t *store;
static dlq_event_t *events [N];

static const char *const streams [] = { "orders", "payments", "audit.v2" };
static const char *const statuses [] = { "PENDING", "DLQ", "SUCCEEDED" };
static const char *const types [] = { "java.lang.IllegalStateException", "java.net.SocketTimeoutException",
                                      "com.acme.ValidationError" };
static const char *const messages [] = { "Order %d not found", "Read timed out after %d ms",
                                         "field 'sku-%d' is required", "Downstream CALL failed (%d)" };

/* Event i: its fields cycle through the tables with different periods. */
static dlq_event_t *
make (int i)
{
    char body [1024], message [128], created [DLQ_TIME_ISO_LEN + 1];
    snprintf (message, sizeof message, messages [i % 4], 1000 + i);
    dlq_time_format_iso (NOW - (int64_t) (i % 97) * HOUR_MS - i, created);
    char metadata [160];
    if (i % 5 == 0)
        snprintf (metadata, sizeof metadata, ",\"metadata\":{\"tenantId\":\"%s\",\"shard\":%d,\"vip\":%s}",
                  i % 2 ? "acme" : "globex", i % 4, i % 3 ? "true" : "false");
    else
        metadata [0] = '\0';
    snprintf (body, sizeof body, "{\"streamName\":\"%s\",\"status\":\"%s\",\"createdAt\":\"%s\","
              "\"error\":{\"type\":\"%s\",\"message\":\"%s\",\"stackTrace\":\"%s: x\\n\\tat com.acme.F%d.run(F.java:%d)\"},"
              "\"attempts\":%d%s}",
              streams [i % 3], statuses [i % 7 % 3], created, types [i % 11 % 3], message, types [i % 11 % 3],
              i % 2, i, i % 6, metadata);
    dlq_error_t err = { 0 };
    dlq_event_t *e = dlq_event_decode (body, strlen (body), NOW, &err);
    cr_assert_not_null (e, "%s: %s", body, err.message);
    dlq_event_fingerprint (e);
    /* one in ten expired, one in ten kept forever, the rest 30 days */
    e->expires_at = i % 10 == 3 ? NOW - 1 : i % 10 == 4 ? DLQ_TIME_NONE : e->created_at + 30 * 24 * HOUR_MS;
    dlq_event_encode (e);
    return e;
}

static void
setup (void)
{
    test_tmpdir (dir);
    store = test_store_embedded (dir, DLQ_EMBEDDED_WRITER);
    for (int i = 0; i < N; i++)
        events [i] = make (i);
    bool duplicate [N];
    char err [256];
    cr_assert_eq (dlq_embedded_append (store, events, N, duplicate, err, sizeof err), DLQ_STORE_OK, "%s", err);
}

static void
teardown (void)
{
    for (int i = 0; i < N; i++)
        dlq_event_destroy (&events [i]);
    dlq_embedded_destroy (&store);
    test_rmtree (dir);
}

TestSuite (embedded_query, .init = setup, .fini = teardown);

static void
parse_filter (const char *request, dlq_event_filter_t *f)
{
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (request, strlen (request), &doc, NULL), DLQ_JSON_OK, "%s", request);
    dlq_error_t err = { 0 };
    cr_assert_eq (dlq_event_filter_parse (dlq_json_root (doc), f, &err), DLQ_OK, "%s: %s", request, err.message);
    dlq_json_doc_destroy (&doc);
}

/* The events the reference predicate takes (unexpired), newest first:
 * indexes into events (seq = index + 1). */
static size_t
expected (const dlq_event_filter_t *f, int *out)
{
    size_t n = 0;
    for (int i = 0; i < N; i++)
        if ((events [i]->expires_at == DLQ_TIME_NONE || events [i]->expires_at > NOW)
            && dlq_event_filter_matches (f, events [i]->json, events [i]->json_len, events [i]->fingerprint))
            out [n++] = i;
    for (size_t a = 1; a < n; a++)          /* created_at desc, then seq desc */
        for (size_t b = a; b > 0; b--) {
            const dlq_event_t *x = events [out [b - 1]], *y = events [out [b]];
            if (x->created_at > y->created_at || (x->created_at == y->created_at && out [b - 1] > out [b]))
                break;
            int t = out [b - 1];
            out [b - 1] = out [b];
            out [b] = t;
        }
    return n;
}

/* Page through LIST (pages of page_size) and compare with the reference. */
static void
expect_list (const char *request, size_t page_size)
{
    dlq_event_filter_t f = DLQ_EVENT_FILTER_INIT;
    parse_filter (request, &f);
    int want [N];
    size_t n = expected (&f, want);
    dlq_buf_t page = DLQ_BUF_INIT, next = DLQ_BUF_INIT;
    char *cursor = NULL;
    size_t got = 0;
    for (int pages = 0; pages <= N; pages++) {
        cr_assert_eq (dlq_embedded_query_list (store, &f, page_size, cursor, NOW, &page, &next), DLQ_STORE_OK,
                      "%s: %s", request, dlq_embedded_last_error (store));
        dlq_json_doc_t *doc = NULL;
        cr_assert_eq (dlq_json_parse (page.data, page.len, &doc, NULL), DLQ_JSON_OK);
        for (const dlq_json_value_t *e = dlq_json_root (doc)->child; e; e = e->next) {
            const dlq_json_value_t *id = dlq_json_get (e, "id");
            cr_assert_lt (got, n, "%s: more events than the %zu expected", request, n);
            cr_expect_str_eq (id->str, events [want [got]]->id, "%s: event %zu", request, got);
            got++;
        }
        cr_expect_leq (dlq_json_root (doc)->count, page_size);
        dlq_json_doc_destroy (&doc);
        free (cursor);
        cursor = next.len ? strdup (next.data) : NULL;
        if (!cursor)
            break;
    }
    cr_expect_eq (got, n, "%s: %zu listed, %zu expected", request, got, n);
    int64_t count = -1;
    cr_assert_eq (dlq_embedded_query_count (store, &f, NOW, &count), DLQ_STORE_OK);
    cr_expect_eq (count, (int64_t) n, "%s: COUNT", request);
    dlq_buf_free (&page);
    dlq_buf_free (&next);
    dlq_event_filter_free (&f);
}

static const char *const filters [] = {
    "{}",
    "{\"streamName\":\"orders\"}",
    "{\"streamName\":\"audit.v2\",\"status\":\"DLQ\"}",
    "{\"status\":\"SUCCEEDED\"}",
    "{\"errorType\":\"java.net.SocketTimeoutException\"}",
    "{\"messageContains\":\"TIMED OUT\"}",
    "{\"messageContains\":\"sku-1_\"}",
    "{\"messageContains\":\"%\"}",
    "{\"createdAfter\":\"2026-06-08T00:00:00Z\",\"createdBefore\":\"2026-06-09T00:00:00Z\"}",
    "{\"attemptsMin\":2,\"attemptsMax\":3}",
    "{\"metadata\":{\"tenantId\":\"acme\"}}",
    "{\"metadata\":{\"shard\":2,\"vip\":true}}",
    "{\"metadata\":{\"vip\":false},\"streamName\":\"payments\"}",
    "{\"streamName\":\"orders\",\"status\":\"PENDING\",\"errorType\":\"com.acme.ValidationError\",\"attemptsMin\":1}",
};

Test (embedded_query, list_and_count_agree_with_the_reference_predicate)
{
    for (size_t i = 0; i < sizeof filters / sizeof filters [0]; i++) {
        expect_list (filters [i], 7);
        expect_list (filters [i], 1000);
    }
}

/* GROUPS of filter, as "<fingerprint>=<count>,..." in the reply's order. */
static char *
groups_text (const char *request)
{
    dlq_event_filter_t f = DLQ_EVENT_FILTER_INIT;
    parse_filter (request, &f);
    dlq_buf_t groups = DLQ_BUF_INIT, text = DLQ_BUF_INIT;
    cr_assert_eq (dlq_embedded_query_groups (store, &f, 1000, NOW, &groups), DLQ_STORE_OK,
                  "%s", dlq_embedded_last_error (store));
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (groups.data, groups.len, &doc, NULL), DLQ_JSON_OK, "%s", groups.data);
    for (const dlq_json_value_t *g = dlq_json_root (doc)->child; g; g = g->next) {
        const dlq_json_value_t *fp = dlq_json_get (g, "fingerprint");
        int64_t count = 0;
        dlq_json_as_int64 (dlq_json_get (g, "count"), &count);
        dlq_buf_printf (&text, "%.*s=%lld,", (int) fp->len, fp->str, (long long) count);
    }
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&groups);
    dlq_event_filter_free (&f);
    return dlq_buf_steal (&text, NULL);
}

Test (embedded_query, running_group_counts_follow_appends_and_sweeps)
{
    /* {} and {"streamName"} come from the running counts, which count the
     * expired events until the sweep; {"attemptsMin":0} (every event too)
     * reads the unexpired events themselves */
    char *counted = groups_text ("{}"), *read = groups_text ("{\"attemptsMin\":0}");
    cr_expect_str_neq (counted, read, "before the sweep the counts include the expired events");
    free (counted);
    free (read);
    cr_assert_eq (dlq_embedded_sweep (store, NOW, N), N / 10, "%s", dlq_embedded_last_error (store));
    counted = groups_text ("{}");
    read = groups_text ("{\"attemptsMin\":0}");
    cr_expect_str_eq (counted, read, "after the sweep the running counts are exact");
    free (counted);
    free (read);
    counted = groups_text ("{\"streamName\":\"payments\"}");
    read = groups_text ("{\"streamName\":\"payments\",\"attemptsMin\":0}");
    cr_expect_str_eq (counted, read, "per stream too");
    free (counted);
    free (read);
}

Test (embedded_query, a_fingerprint_filter_and_the_groups)
{
    cr_assert_eq (dlq_embedded_sweep (store, NOW, N), N / 10, "only unexpired events: the counts are exact");
    dlq_event_filter_t all = DLQ_EVENT_FILTER_INIT;
    dlq_buf_t groups = DLQ_BUF_INIT;
    cr_assert_eq (dlq_embedded_query_groups (store, &all, 1000, NOW, &groups), DLQ_STORE_OK,
                  "%s", dlq_embedded_last_error (store));
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (groups.data, groups.len, &doc, NULL), DLQ_JSON_OK, "%s", groups.data);
    int64_t total = 0, previous = INT64_MAX;
    for (const dlq_json_value_t *g = dlq_json_root (doc)->child; g; g = g->next) {
        const dlq_json_value_t *fp = dlq_json_get (g, "fingerprint");
        int64_t count = 0;
        cr_assert (dlq_json_as_int64 (dlq_json_get (g, "count"), &count));
        cr_expect_leq (count, previous, "most events first");
        previous = count;
        total += count;
        char request [64];
        snprintf (request, sizeof request, "{\"fingerprint\":\"%.*s\"}", (int) fp->len, fp->str);
        dlq_event_filter_t f = DLQ_EVENT_FILTER_INIT;
        parse_filter (request, &f);
        int want [N];
        cr_expect_eq ((size_t) count, expected (&f, want), "group %s", request);
        dlq_event_filter_free (&f);
        expect_list (request, 5);
        cr_expect_not_null (dlq_json_get (g, "streams"));
        const dlq_json_value_t *message = dlq_json_get (g, "message");
        cr_expect (message && message->type == DLQ_JSON_STRING && !strstr (message->str, "1001"),
                   "the message is normalised (no ids)");
    }
    int want [N];
    cr_expect_eq (total, (int64_t) expected (&all, want), "the groups cover every unexpired event");
    cr_expect_gt (dlq_json_root (doc)->count, 1);
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&groups);
}

Test (embedded_query, the_ingest_writes_the_fingerprint)
{
    char sql [160];
    snprintf (sql, sizeof sql, "SELECT count (*) FROM events WHERE fingerprint = '%s' AND id = '%s'",
              events [0]->fingerprint, events [0]->id);
    cr_expect_eq (test_store_count (dir, sql), 1);
    cr_expect_eq (test_store_count (dir, "SELECT count (*) FROM events WHERE length (fingerprint) = 16"), N);
}

Test (embedded_query, a_cursor_it_did_not_issue_is_bad)
{
    dlq_event_filter_t f = DLQ_EVENT_FILTER_INIT;
    dlq_buf_t page = DLQ_BUF_INIT, next = DLQ_BUF_INIT;
    cr_expect_eq (dlq_embedded_query_list (store, &f, 10, "nonsense", NOW, &page, &next), DLQ_STORE_BAD_CURSOR);
    dlq_buf_free (&page);
    dlq_buf_free (&next);
}
