/*  test_embedded_query — the workbench's queries on the embedded store,
 *  checked against the reference predicate (event_filter.h) by the oracle
 *  of filter_oracle.h (its plain variety): a store of varied events
 *  (streams, statuses, error types and messages, attempts, metadata,
 *  creation times, some expired), and for each of a table of filters
 *  alone and combined: LIST paged to the end gives exactly the
 *  matching unexpired events, newest first, each once; COUNT their
 *  number; GROUPS one group per fingerprint with the right counts.
 *  Also: a bad cursor, and the fingerprint written at ingest.
 */
#include "dlq_json.h"
#include "embedded_query.h"
#include "failed_event.h"
#include "filter_oracle.h"
#include "store_support.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N       FILTER_ORACLE_EVENTS
#define NOW     FILTER_ORACLE_NOW

static char dir [256];
static dlq_embedded_t *store;
static dlq_event_t *events [N];

static void
setup (void)
{
    test_tmpdir (dir);
    store = test_store_embedded (dir, DLQ_EMBEDDED_WRITER);
    for (int i = 0; i < N; i++)
        events [i] = filter_oracle_event (FILTER_ORACLE_PLAIN, i);
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

/* ---- the store's queries for the oracle (filter_oracle.h) -------------------- */

static void
list_page (void *s, const char *request, const dlq_event_filter_t *f, size_t limit, const char *cursor,
           dlq_buf_t *page, dlq_buf_t *next)
{
    cr_assert_eq (dlq_embedded_query_list (s, f, limit, cursor, NOW, page, next), DLQ_STORE_OK,
                  "%s: %s", request, dlq_embedded_last_error (s));
}

static int64_t
count_of (void *s, const char *request, const dlq_event_filter_t *f)
{
    int64_t count = -1;
    cr_assert_eq (dlq_embedded_query_count (s, f, NOW, &count), DLQ_STORE_OK, "%s", request);
    return count;
}

static void
groups_of (void *s, const char *request, const dlq_event_filter_t *f, size_t limit, dlq_buf_t *out)
{
    cr_assert_eq (dlq_embedded_query_groups (s, f, limit, NOW, out), DLQ_STORE_OK,
                  "%s: %s", request, dlq_embedded_last_error (s));
}

static const filter_oracle_calls_t calls = { list_page, count_of, groups_of };

/* The oracle over the N events in the store; LIST compared by id. */
static filter_oracle_t
oracle (void)
{
    return (filter_oracle_t) { &calls, store, events, N, false };
}

Test (embedded_query, list_and_count_agree_with_the_reference_predicate)
{
    filter_oracle_t o = oracle ();
    filter_oracle_expect_filters (&o, FILTER_ORACLE_PLAIN);
}

/* GROUPS of filter, as "<fingerprint>=<count> <firstSeen> <lastSeen>
 * <streams>,..." in the reply's order, at most limit groups. */
static char *
groups_text_of (const char *request, size_t limit)
{
    dlq_event_filter_t f = DLQ_EVENT_FILTER_INIT;
    filter_oracle_parse (request, &f);
    dlq_buf_t groups = DLQ_BUF_INIT, text = DLQ_BUF_INIT;
    groups_of (store, request, &f, limit, &groups);
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (groups.data, groups.len, &doc, NULL), DLQ_JSON_OK, "%s", groups.data);
    for (const dlq_json_value_t *g = dlq_json_root (doc)->child; g; g = g->next) {
        const dlq_json_value_t *fp = dlq_json_get (g, "fingerprint");
        int64_t count = 0;
        dlq_json_as_int64 (dlq_json_get (g, "count"), &count);
        const dlq_json_value_t *first = dlq_json_get (g, "firstSeen"), *last = dlq_json_get (g, "lastSeen");
        dlq_buf_printf (&text, "%.*s=%lld %.*s %.*s %zu,", (int) fp->len, fp->str, (long long) count,
                        (int) first->len, first->str, (int) last->len, last->str,
                        dlq_json_get (g, "streams")->count);
    }
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&groups);
    dlq_event_filter_free (&f);
    return dlq_buf_steal (&text, NULL);
}

static char *
groups_text (const char *request)
{
    return groups_text_of (request, 1000);
}

Test (embedded_query, running_group_counts_give_the_top_groups_of_the_scan_at_any_limit)
{
    /* the running counts walk only the groups that can make the answer:
     * at every limit the same groups in the same order as the scan */
    for (size_t limit = 1; limit <= 12; limit++) {
        char *counted = groups_text_of ("{}", limit), *read = groups_text_of ("{\"attemptsMin\":0}", limit);
        cr_expect_str_eq (counted, read, "limit %zu", limit);
        free (counted);
        free (read);
        counted = groups_text_of ("{\"streamName\":\"payments\"}", limit);
        read = groups_text_of ("{\"streamName\":\"payments\",\"attemptsMin\":0}", limit);
        cr_expect_str_eq (counted, read, "payments, limit %zu", limit);
        free (counted);
        free (read);
    }
}

Test (embedded_query, running_group_counts_follow_appends_and_sweeps)
{
    /* {} and {"streamName"} come from the running counts, less the expired
     * events not swept yet; {"attemptsMin":0} (every event too) reads the
     * unexpired events themselves: the same groups, counts, first and last
     * seen, before the sweep and after */
    char *counted = groups_text ("{}"), *read = groups_text ("{\"attemptsMin\":0}");
    cr_assert_neq (counted [0], '\0', "no groups at all");
    cr_expect_str_eq (counted, read, "before the sweep the expired events are left out");
    free (counted);
    free (read);
    counted = groups_text ("{\"streamName\":\"payments\"}");
    read = groups_text ("{\"streamName\":\"payments\",\"attemptsMin\":0}");
    cr_expect_str_eq (counted, read, "per stream too");
    free (counted);
    free (read);
    cr_assert_eq (dlq_embedded_sweep (store, NOW, N), N / 10, "%s", dlq_embedded_last_error (store));
    counted = groups_text ("{}");
    read = groups_text ("{\"attemptsMin\":0}");
    cr_expect_str_eq (counted, read, "after the sweep too");
    free (counted);
    free (read);
    counted = groups_text ("{\"streamName\":\"payments\"}");
    read = groups_text ("{\"streamName\":\"payments\",\"attemptsMin\":0}");
    cr_expect_str_eq (counted, read, "per stream after the sweep");
    free (counted);
    free (read);
}

Test (embedded_query, a_fingerprint_filter_and_the_groups)
{
    cr_assert_eq (dlq_embedded_sweep (store, NOW, N), N / 10, "only unexpired events: the counts are exact");
    filter_oracle_t o = oracle ();
    dlq_event_filter_t all = DLQ_EVENT_FILTER_INIT;
    dlq_buf_t groups = DLQ_BUF_INIT;
    groups_of (store, "{}", &all, 1000, &groups);
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
        filter_oracle_parse (request, &f);
        int want [N];
        cr_expect_eq ((size_t) count, filter_oracle_expected (&o, &f, want), "group %s", request);
        dlq_event_filter_free (&f);
        filter_oracle_expect_list (&o, request, 5);
        cr_expect_not_null (dlq_json_get (g, "streams"));
        const dlq_json_value_t *message = dlq_json_get (g, "message");
        cr_expect (message && message->type == DLQ_JSON_STRING && !strstr (message->str, "1001"),
                   "the message is normalised (no ids)");
    }
    int want [N];
    cr_expect_eq (total, (int64_t) filter_oracle_expected (&o, &all, want), "the groups cover every unexpired event");
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

/* COUNT of {} answered from the running counts, and of a filter no index
 * narrows (attemptsMin) read in slices of 1024 seqs, one read transaction
 * each: over forty slices' worth of events more, both count each
 * unexpired event once. */
Test (embedded_query, counts_from_the_totals_and_in_slices_agree)
{
    enum { MORE = 40000 };
    dlq_event_filter_t every = DLQ_EVENT_FILTER_INIT, attempted = DLQ_EVENT_FILTER_INIT;
    filter_oracle_parse ("{\"attemptsMin\":0}", &attempted);
    int64_t before = count_of (store, "{}", &every);
    cr_expect_eq (count_of (store, "{\"attemptsMin\":0}", &attempted), before);
    dlq_event_t **more = calloc (MORE, sizeof *more);
    for (int i = 0; i < MORE; i++) {
        char body [200];
        int len = snprintf (body, sizeof body, "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-%012d\",\"streamName\":\"bulk\","
                            "\"attempts\":%d,\"error\":{\"type\":\"T\",\"message\":\"m\"}}", 900000 + i, i % 2);
        dlq_error_t err;
        more [i] = dlq_event_decode (body, (size_t) len, NOW, &err);
        cr_assert_not_null (more [i], "%s", err.message);
        dlq_event_fingerprint (more [i]);
        dlq_event_encode (more [i]);
    }
    bool *duplicate = calloc (MORE, sizeof *duplicate);
    char err [256];
    cr_assert_eq (dlq_embedded_append (store, more, MORE, duplicate, err, sizeof err), DLQ_STORE_OK, "%s", err);
    cr_expect_eq (count_of (store, "{}", &every), before + MORE);
    cr_expect_eq (count_of (store, "{\"attemptsMin\":0}", &attempted), before + MORE);
    dlq_event_filter_t once = DLQ_EVENT_FILTER_INIT, bulk = DLQ_EVENT_FILTER_INIT;
    filter_oracle_parse ("{\"streamName\":\"bulk\",\"attemptsMin\":1}", &once);
    filter_oracle_parse ("{\"streamName\":\"bulk\"}", &bulk);
    cr_expect_eq (count_of (store, "{\"streamName\":\"bulk\",\"attemptsMin\":1}", &once), MORE / 2);
    cr_expect_eq (count_of (store, "{\"streamName\":\"bulk\"}", &bulk), MORE);
    for (int i = 0; i < MORE; i++)
        dlq_event_destroy (&more [i]);
    free (more);
    free (duplicate);
    dlq_event_filter_free (&every);
    dlq_event_filter_free (&attempted);
    dlq_event_filter_free (&once);
    dlq_event_filter_free (&bulk);
}
