/*  contract_store — what a sink that can be the primary store (ops->store
 *  not NULL) must answer in QUERY mode, after events were delivered to it
 *  in DELIVER mode: FlowWarden's DlqStore contract in the shapes of the
 *  wire protocol (docs/protocol.md). GET gives the canonical body byte for byte, or
 *  NOT_FOUND for a missing or expired event; an event without expiresAt
 *  (retention 0) is kept forever; LIST of a stream without events is an
 *  empty array, never an error, and its pages go newest first, each event
 *  once; STATS counts per stream; the include flags are the caller's
 *  business (the store keeps what it is given); sweep, when the store has
 *  it, deletes the expired events and only them. Every test is skipped for
 *  a sink without store calls.
 */
#include "contract.h"

#include "dlq_json.h"
#include "plugin_host.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* Load the sink; only a store that events can be delivered to is tested. */
static void
store_setup (void)
{
    contract_setup ();
    contract_require_deliver ();
    contract_require_store ();
}

TestSuite (store, .init = store_setup, .fini = contract_teardown);

#define FAR_FUTURE 253402300799000LL    /* 9999-12-31T23:59:59Z */
#define LISTED_MAX 32

/* An event of stream, created at created_at, expiring at expires_at. */
static contract_spec_t
spec_at (const char *stream, int64_t created_at, int64_t expires_at, contract_shape_t shape)
{
    return (contract_spec_t) { .stream = stream, .created_at = created_at,
                               .expires_at = expires_at, .shape = shape };
}

/* Deliver batch through a new DELIVER instance, all OK, and close it. */
static void
deliver_all (contract_batch_t *batch)
{
    void *sink = contract_open (DLQ_SINK_MODE_DELIVER);
    contract_deliver_ok (sink, batch, 1);
    contract_close (sink);
}

/* GET id at now_ms: the status, and the body into out (reset first). */
static dlq_sink_status_t
get (void *query, const char *id, int64_t now_ms, dlq_buf_t *out)
{
    dlq_buf_reset (out);
    return sut.ops->store->get (query, id, now_ms, dlq_plugin_host_buf (out));
}

/* GET of event finds its canonical body, byte for byte. */
static void
expect_found (void *query, const dlq_event_t *event, int64_t now_ms)
{
    dlq_buf_t body = DLQ_BUF_INIT;
    dlq_sink_status_t status = get (query, event->id, now_ms, &body);
    cr_expect_eq (status, DLQ_SINK_STATUS_OK, "GET %s: status %d", event->id, (int) status);
    if (status == DLQ_SINK_STATUS_OK)
        cr_expect (body.len == event->json_len && memcmp (body.data, event->json, body.len) == 0,
                   "GET %s is not the canonical body:\n got %.400s\nwant %.400s", event->id,
                   body.data ? body.data : "", event->json);
    dlq_buf_free (&body);
}

/* GET of id is NOT_FOUND at now_ms. */
static void
expect_not_found (void *query, const char *id, int64_t now_ms)
{
    dlq_buf_t body = DLQ_BUF_INIT;
    dlq_sink_status_t status = get (query, id, now_ms, &body);
    cr_expect_eq (status, DLQ_SINK_STATUS_NOT_FOUND, "GET %s: status %d, not NOT_FOUND: %.200s",
                  id, (int) status, body.data ? body.data : "");
    dlq_buf_free (&body);
}

/* LIST of stream (one page of up to 100) holds no event at all: "[]" and no cursor. */
static void
expect_empty_list (void *query, const char *stream, int64_t now_ms)
{
    dlq_buf_t events = DLQ_BUF_INIT, cursor = DLQ_BUF_INIT;
    dlq_sink_status_t status = sut.ops->store->list (query, stream, 100, NULL, now_ms,
                                                     dlq_plugin_host_buf (&events), dlq_plugin_host_buf (&cursor));
    cr_assert_eq (status, DLQ_SINK_STATUS_OK, "LIST of %s: status %d, not OK", stream, (int) status);
    char *normal = contract_normal (events.data, events.len);
    cr_expect_str_eq (normal, "[]", "LIST of %s is not empty", stream);
    cr_expect_eq (cursor.len, 0, "LIST of %s gives a cursor: %s", stream, cursor.data);
    free (normal);
    dlq_buf_free (&events);
    dlq_buf_free (&cursor);
}

/* True when some listed event has id. */
static bool
is_listed (const contract_listed_t *listed, size_t n, const char *id)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp (listed [i].id, id) == 0)
            return true;
    return false;
}

Test (store, get_returns_the_canonical_body_byte_identical)
{
    int64_t now = contract_now ();
    contract_batch_t batch = CONTRACT_BATCH_INIT;
    contract_spec_t specs [] = {
        spec_at ("orders", now - 3000, now + CONTRACT_DAY_MS, CONTRACT_FULL),
        spec_at ("orders", now - 2000, DLQ_TIME_NONE, CONTRACT_PLAIN),
        spec_at ("payments", now - 1000, DLQ_TIME_NONE, CONTRACT_MINIMAL),
        spec_at ("orders", now - 500, DLQ_TIME_NONE, CONTRACT_FULL),
    };
    specs [3].padding = 256 * 1024;
    for (size_t i = 0; i < sizeof specs / sizeof specs [0]; i++)
        contract_batch_add (&batch, &specs [i]);
    void *sink = contract_open (DLQ_SINK_MODE_DELIVER);
    contract_deliver_ok (sink, &batch, 1);
    void *query = contract_open (DLQ_SINK_MODE_QUERY);
    for (size_t i = 0; i < batch.count; i++)
        expect_found (query, batch.events [i], contract_now ());
    contract_close (query);
    contract_close (sink);
    contract_batch_free (&batch);
}

Test (store, get_of_a_missing_id_is_not_found)
{
    contract_batch_t batch = CONTRACT_BATCH_INIT;
    contract_spec_t spec = spec_at ("orders", contract_now () - 1000, DLQ_TIME_NONE, CONTRACT_PLAIN);
    contract_batch_add (&batch, &spec);
    deliver_all (&batch);
    void *query = contract_open (DLQ_SINK_MODE_QUERY);
    expect_not_found (query, "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182", contract_now ());
    expect_found (query, batch.events [0], contract_now ());
    contract_close (query);
    contract_batch_free (&batch);
}

Test (store, an_expired_event_is_not_found_nor_listed)
{
    int64_t now = contract_now ();
    contract_batch_t batch = CONTRACT_BATCH_INIT;
    contract_spec_t expired = spec_at ("orders", now - 2 * CONTRACT_DAY_MS, now - CONTRACT_DAY_MS, CONTRACT_PLAIN);
    contract_spec_t expiring = spec_at ("orders", now - 60000, now + CONTRACT_DAY_MS, CONTRACT_PLAIN);
    contract_batch_add (&batch, &expired);
    contract_batch_add (&batch, &expiring);
    deliver_all (&batch);
    void *query = contract_open (DLQ_SINK_MODE_QUERY);
    expect_not_found (query, batch.events [0]->id, contract_now ());
    expect_found (query, batch.events [1], contract_now ());
    expect_found (query, batch.events [1], expiring.expires_at - 1000);
    expect_not_found (query, batch.events [1]->id, expiring.expires_at + 1000);
    contract_listed_t listed [LISTED_MAX];
    size_t n = contract_list_all (query, "orders", 10, contract_now (), listed, LISTED_MAX);
    cr_expect_eq (n, 1, "LIST shows %zu events, the unexpired one only expected", n);
    cr_expect (!is_listed (listed, n, batch.events [0]->id), "the expired event is listed");
    contract_listed_free (listed, n);
    expect_empty_list (query, "orders", expiring.expires_at + 1000);
    contract_close (query);
    contract_batch_free (&batch);
}

Test (store, retention_zero_keeps_an_event_forever)
{
    contract_batch_t batch = CONTRACT_BATCH_INIT;
    contract_spec_t spec = spec_at ("orders", contract_now () - 1000, DLQ_TIME_NONE, CONTRACT_FULL);
    contract_batch_add (&batch, &spec);
    cr_assert_null (strstr (batch.events [0]->json, "expiresAt"), "retention 0: no expiresAt");
    deliver_all (&batch);
    void *query = contract_open (DLQ_SINK_MODE_QUERY);
    expect_found (query, batch.events [0], FAR_FUTURE);
    contract_listed_t listed [LISTED_MAX];
    size_t n = contract_list_all (query, "orders", 10, FAR_FUTURE, listed, LISTED_MAX);
    cr_expect (n == 1 && is_listed (listed, n, batch.events [0]->id), "not listed in the far future");
    contract_listed_free (listed, n);
    if (sut.ops->store->sweep) {
        cr_expect_eq (sut.ops->store->sweep (query, FAR_FUTURE, 100), 0, "sweep deletes an event kept forever");
        expect_found (query, batch.events [0], FAR_FUTURE);
    }
    contract_close (query);
    contract_batch_free (&batch);
}

Test (store, list_of_a_stream_without_events_is_empty_never_an_error)
{
    contract_batch_t batch = CONTRACT_BATCH_INIT;
    contract_spec_t spec = spec_at ("orders", contract_now () - 1000, DLQ_TIME_NONE, CONTRACT_PLAIN);
    contract_batch_add (&batch, &spec);
    deliver_all (&batch);
    void *query = contract_open (DLQ_SINK_MODE_QUERY);
    expect_empty_list (query, "payments", contract_now ());
    expect_empty_list (query, "ORDERS", contract_now ());
    contract_close (query);
    contract_batch_free (&batch);
}

Test (store, queries_before_any_delivery_answer_empty)
{
    void *query = contract_open (DLQ_SINK_MODE_QUERY);
    expect_not_found (query, "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182", contract_now ());
    expect_empty_list (query, "orders", contract_now ());
    size_t streams;
    int64_t events;
    contract_stats (query, "orders", &streams, &events);
    cr_expect (streams == 0 && events == 0, "STATS of an empty store: %zu streams, %lld events",
               streams, (long long) events);
    contract_batch_t batch = CONTRACT_BATCH_INIT;
    contract_spec_t spec = spec_at ("orders", contract_now () - 1000, DLQ_TIME_NONE, CONTRACT_PLAIN);
    contract_batch_add (&batch, &spec);
    deliver_all (&batch);
    expect_found (query, batch.events [0], contract_now ());
    contract_close (query);
    contract_batch_free (&batch);
}

/* The events of stream in batch, as LIST must show them: each once. */
static void
expect_listed_once_each (const contract_batch_t *batch, const char *stream,
                         const contract_listed_t *listed, size_t n)
{
    size_t expected = 0;
    for (size_t i = 0; i < batch->count; i++) {
        const dlq_event_t *event = batch->events [i];
        if (strcmp (event->stream_name, stream) != 0) {
            cr_expect (!is_listed (listed, n, event->id), "%s of another stream is listed", event->id);
            continue;
        }
        expected++;
        size_t k = 0;
        while (k < n && strcmp (listed [k].id, event->id) != 0)
            k++;
        cr_expect_lt (k, n, "event %s is not listed", event->id);
        if (k < n) {
            char *normal = contract_normal (event->json, event->json_len);
            cr_expect_str_eq (listed [k].normal, normal, "event %s is listed otherwise than stored", event->id);
            free (normal);
        }
    }
    cr_expect_eq (n, expected, "%zu events listed for %zu stored", n, expected);
}

/* LIST's pages of limit events go newest first and cover the stream once. */
static void
expect_pages (void *query, const contract_batch_t *batch, size_t limit)
{
    contract_listed_t listed [LISTED_MAX];
    size_t n = contract_list_all (query, "orders", limit, contract_now (), listed, LISTED_MAX);
    for (size_t i = 1; i < n; i++)
        cr_expect_geq (listed [i - 1].created_at, listed [i].created_at,
                       "limit %zu: event %zu is newer than event %zu", limit, i, i - 1);
    expect_listed_once_each (batch, "orders", listed, n);
    contract_listed_free (listed, n);
}

Test (store, list_pages_newest_first_covering_every_event_once)
{
    int64_t base = contract_now () - 3600 * 1000;
    static const int offsets [] = { 10, 50, 50, 50, 30, 20, 20, 40, 60, 10, 35 };
    contract_batch_t batch = CONTRACT_BATCH_INIT;
    for (size_t i = 0; i < sizeof offsets / sizeof offsets [0]; i++) {
        contract_spec_t spec = spec_at (i % 5 == 4 ? "payments" : "orders", base + offsets [i] * 1000,
                                        DLQ_TIME_NONE, i % 2 ? CONTRACT_PLAIN : CONTRACT_FULL);
        contract_batch_add (&batch, &spec);
    }
    deliver_all (&batch);
    void *query = contract_open (DLQ_SINK_MODE_QUERY);
    static const size_t limits [] = { 1, 2, 3, 100 };
    for (size_t i = 0; i < sizeof limits / sizeof limits [0]; i++)
        expect_pages (query, &batch, limits [i]);
    contract_close (query);
    contract_batch_free (&batch);
}

Test (store, list_with_a_cursor_it_did_not_issue_is_bad_cursor)
{
    contract_batch_t batch = CONTRACT_BATCH_INIT;
    contract_spec_t spec = spec_at ("orders", contract_now () - 1000, DLQ_TIME_NONE, CONTRACT_PLAIN);
    contract_batch_fill (&batch, &spec, 3);
    deliver_all (&batch);
    void *query = contract_open (DLQ_SINK_MODE_QUERY);
    dlq_buf_t events = DLQ_BUF_INIT, cursor = DLQ_BUF_INIT;
    dlq_sink_status_t status = sut.ops->store->list (query, "orders", 1, "not a cursor", contract_now (),
                                                     dlq_plugin_host_buf (&events), dlq_plugin_host_buf (&cursor));
    cr_expect_eq (status, DLQ_SINK_STATUS_BAD_CURSOR, "LIST with a made-up cursor: status %d", (int) status);
    dlq_buf_free (&events);
    dlq_buf_free (&cursor);
    contract_close (query);
    contract_batch_free (&batch);
}

Test (store, stats_counts_events_per_stream)
{
    int64_t now = contract_now ();
    contract_batch_t batch = CONTRACT_BATCH_INIT;
    contract_spec_t orders = spec_at ("orders", now - 5000, DLQ_TIME_NONE, CONTRACT_FULL);
    contract_spec_t payments = spec_at ("payments", now - 5000, now + CONTRACT_DAY_MS, CONTRACT_PLAIN);
    contract_batch_fill (&batch, &orders, 3);
    contract_batch_fill (&batch, &payments, 2);
    deliver_all (&batch);
    void *query = contract_open (DLQ_SINK_MODE_QUERY);
    size_t streams;
    int64_t events;
    cr_expect_eq (contract_stats (query, "orders", &streams, &events), 3);
    cr_expect_eq (contract_stats (query, "payments", &streams, &events), 2);
    cr_expect_eq (streams, 2, "STATS shows %zu streams", streams);
    cr_expect_eq (events, 5, "STATS shows %lld events", (long long) events);
    contract_close (query);
    contract_batch_free (&batch);
}

/* Whether the stored body of event has fullDocument and error.stackTrace. */
static void
stored_members (void *query, const dlq_event_t *event, bool *full_document, bool *stack_trace)
{
    dlq_buf_t body = DLQ_BUF_INIT;
    cr_assert_eq (get (query, event->id, contract_now (), &body), DLQ_SINK_STATUS_OK, "GET %s", event->id);
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (body.data, body.len, &doc, NULL), DLQ_JSON_OK, "GET %s: not JSON", event->id);
    const dlq_json_value_t *root = dlq_json_root (doc);
    *full_document = dlq_json_get (root, "fullDocument") != NULL;
    *stack_trace = dlq_json_get (dlq_json_get (root, "error"), "stackTrace") != NULL;
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&body);
}

Test (store, include_flags_are_applied_by_the_caller_not_the_sink)
{
    int64_t now = contract_now ();
    contract_batch_t batch = CONTRACT_BATCH_INIT;
    contract_spec_t excluded = spec_at ("orders", now - 2000, DLQ_TIME_NONE, CONTRACT_PLAIN);
    contract_spec_t included = spec_at ("orders", now - 1000, DLQ_TIME_NONE, CONTRACT_FULL);
    contract_batch_add (&batch, &excluded);
    contract_batch_add (&batch, &included);
    deliver_all (&batch);
    void *query = contract_open (DLQ_SINK_MODE_QUERY);
    bool full_document, stack_trace;
    stored_members (query, batch.events [0], &full_document, &stack_trace);
    cr_expect (!full_document && !stack_trace, "an event given without fullDocument and stackTrace "
               "is stored with fullDocument %d, stackTrace %d", full_document, stack_trace);
    stored_members (query, batch.events [1], &full_document, &stack_trace);
    cr_expect (full_document && stack_trace, "an event given with fullDocument and stackTrace "
               "is stored with fullDocument %d, stackTrace %d", full_document, stack_trace);
    contract_close (query);
    contract_batch_free (&batch);
}

/* Sweep at now_ms, max_rows at a time, until nothing is left; every call
 * must delete 0 to max_rows events. Returns how many in all. */
static int64_t
sweep_all (void *query, int64_t now_ms, int64_t max_rows)
{
    int64_t total = 0, deleted;
    for (int calls = 0; (deleted = sut.ops->store->sweep (query, now_ms, max_rows)) != 0; calls++) {
        cr_assert (deleted > 0 && deleted <= max_rows, "sweep of at most %lld rows returns %lld",
                   (long long) max_rows, (long long) deleted);
        cr_assert_lt (calls, 100, "sweep never runs out of rows to delete");
        total += deleted;
    }
    return total;
}

Test (store, sweep_deletes_the_expired_events_only)
{
    contract_require_sweep ();
    int64_t now = contract_now ();
    contract_batch_t batch = CONTRACT_BATCH_INIT;
    contract_spec_t forever = spec_at ("orders", now - 1000, DLQ_TIME_NONE, CONTRACT_PLAIN);
    contract_spec_t expiring = spec_at ("orders", now - 1000, now + CONTRACT_DAY_MS, CONTRACT_PLAIN);
    contract_batch_add (&batch, &forever);
    contract_batch_fill (&batch, &expiring, 3);
    deliver_all (&batch);
    void *query = contract_open (DLQ_SINK_MODE_QUERY);
    int64_t later = now + 2 * CONTRACT_DAY_MS;
    cr_expect_eq (sut.ops->store->sweep (query, now, 100), 0, "sweep deletes unexpired events");
    cr_expect_eq (sweep_all (query, later, 2), 3, "the sweeps delete every expired event");
    size_t streams;
    int64_t events;
    cr_expect_eq (contract_stats (query, "orders", &streams, &events), 1, "STATS after the sweep");
    expect_found (query, batch.events [0], later);
    contract_close (query);
    contract_batch_free (&batch);
}
