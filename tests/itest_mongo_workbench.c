/*  itest_mongo_workbench — what the mongo sink's workbench calls
 *  (dlq_sink_workbench_ops_t) keep in its documents, against the MongoDB
 *  wire-protocol test server (tests/mongo/, run in the test process), or a
 *  real MongoDB when DLQD_TEST_MONGO_URI is set (each test in a database of
 *  its own, dropped at the end). The plugin is loaded in the test process
 *  as the gateway loads it, the documents read with mongo-c-driver:
 *
 *    - the documents have the fingerprint and the replay state, a stream
 *      with a collection of its own setting in that collection;
 *    - each mark shows in the document: _fw_body and the status field
 *      follow (the nested "status" members untouched); a document from
 *      before the replay state reads as the defaults;
 *    - a claimed document keeps its body and carries the lease in
 *      retryAfter; the lock document in _fw_dlq_locks names the owner of a
 *      pass until it is over;
 *    - dlqd with the sink as its primary answers COUNT, LIST with filters,
 *      GROUPS, REPLAY (dry run), RESOLVE and FAIL over the wire.
 *
 *  What every store with workbench calls must answer (filters against the
 *  reference predicate, marks, concurrent marks, NOT_FOUND, claims,
 *  LOCKED, two instances claiming at once) is the contract suite's
 *  (tests/contract, contract_workbench.c), run on this sink by
 *  contract_mongo.
 *
 *  tests/CMakeLists.txt links this suite with mongo-c-driver (to look at
 *  the documents behind the plugin) and makes it depend on the plugin.
 */
#include "dlq_time.h"
#include "dlq_uuid.h"
#include "failed_event.h"
#include "filter_oracle.h"
#include "mongo_support.h"
#include "plugin_workbench.h"
#include "plugin_host.h"
#include "sink_support.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N           FILTER_ORACLE_EVENTS
#define NOW         FILTER_ORACLE_NOW
#define LEASE_MS    PLUGIN_WB_LEASE_MS

static mongo_db_t mongo;                /* the server, the test's database, a client */
static plugin_wb_t wb;                  /* the plugin as sink "mg", its writer and reader */
static dlq_event_t *events [N];
static size_t stored;                   /* events [0, stored) are in the store */
static test_dlqd_t d;

static void
setup (void)
{
    memset (&d, 0, sizeof d);
    memset (&wb, 0, sizeof wb);
    stored = 0;
    mongo_db_open (&mongo, "dlqd_wb_");
}

static void
teardown (void)
{
    test_dlqd_cleanup (&d);
    plugin_wb_close (&wb);
    mongo_db_close (&mongo);
    for (int i = 0; i < N; i++)
        dlq_event_destroy (&events [i]);
}

TestSuite (mongo_workbench, .init = setup, .fini = teardown, .timeout = 300);

/* ---- the plugin ------------------------------------------------------------------- */

/* Load the plugin (stream audit.v2 in a collection of its own) and open
 * a DELIVER and a QUERY instance. */
static void
open_plugin (void)
{
    char err [512];
    cr_assert (mongo_db_plugin_load (&mongo, &wb.plugin, NULL,
                                     "streams = ( { name = \"audit.v2\"; mg: { collection = \"audit_events\"; }; } );",
                                     err, sizeof err), "%s", err);
    plugin_wb_open (&wb);
}

/* The document of event id in collection; NULL when none. Caller
 * destroys. */
static bson_t *
document (const char *collection_name, const char *id)
{
    return mongo_db_find (&mongo, collection_name, id);
}

static const char *
text_at (const bson_t *doc, const char *path)
{
    bson_iter_t it, found;
    cr_assert (bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, path, &found)
               && BSON_ITER_HOLDS_UTF8 (&found), "no string %s", path);
    return bson_iter_utf8 (&found, NULL);
}

/* ---- the documents ----------------------------------------------------------------------- */

/* Deliver the varied events of filter_oracle.h. */
static void
store_varied (void)
{
    open_plugin ();
    stored = plugin_wb_store_varied (&wb, events, FILTER_ORACLE_ARRAYS);
}

Test (mongo_workbench, the_documents_have_the_fingerprint_and_the_replay_state)
{
    store_varied ();
    bson_t *doc = document ("audit_events", events [2]->id);
    cr_assert_not_null (doc, "audit.v2's events are in its collection");
    cr_expect_str_eq (text_at (doc, "_fw_fingerprint"), events [2]->fingerprint);
    bson_iter_t it;
    cr_expect (bson_iter_init_find (&it, doc, "retryCount") && BSON_ITER_HOLDS_INT32 (&it));
    cr_expect (bson_iter_init_find (&it, doc, "retryAfter") && BSON_ITER_HOLDS_DATE_TIME (&it)
               && bson_iter_date_time (&it) == events [2]->created_at);
    bson_destroy (doc);
}

/* ---- replay state and marks --------------------------------------------------------------- */

/* Store events [0, count) made by plugin_wb_simple. */
static void
store_simple (const char *const *stream, const int64_t *ago, const char *const *status, const int64_t *expires,
              size_t count)
{
    open_plugin ();
    plugin_wb_store_simple (&wb, events, stream, ago, status, expires, count);
    stored = count;
}

/* _fw_body and the status field say status; the nested ones are untouched. */
static void
expect_status_in_the_document (const dlq_event_t *e, const char *status)
{
    char *want = plugin_wb_body_with_status (e, status);
    bson_t *doc = document ("_fw_dlq_s", e->id);
    cr_assert_not_null (doc);
    cr_expect_str_eq (text_at (doc, "_fw_body"), want, "_fw_body");
    cr_expect_str_eq (text_at (doc, "status"), status, "the status field");
    cr_expect_str_eq (text_at (doc, "fullDocument.status"), "PAID");
    cr_expect_str_eq (text_at (doc, "metadata.status"), "meta");
    bson_destroy (doc);
    free (want);
}

Test (mongo_workbench, each_mark_shows_in_the_document)
{
    open_plugin ();
    stored = plugin_wb_store_marked (&wb, events);
    plugin_wb_expect_marks (&wb, events [0], expect_status_in_the_document);
}

/* Put a document as the sink wrote it before the replay state existed:
 * no _fw_fingerprint, retryCount, replayCount nor retryAfter. */
static dlq_event_t *
put_old_document (const char *stream, int64_t ago)
{
    dlq_event_t *e = plugin_wb_simple (stream, ago, "PENDING", DLQ_TIME_NONE);
    char collection [64];
    snprintf (collection, sizeof collection, "_fw_dlq_%s", stream);
    bson_t *doc = BCON_NEW ("_id", BCON_UTF8 (e->id), "streamName", BCON_UTF8 (stream), "status", BCON_UTF8 ("PENDING"),
                            "error", "{", "type", BCON_UTF8 ("X"), "message", BCON_UTF8 ("boom"), "}",
                            "attempts", BCON_INT32 (1), "createdAt", BCON_DATE_TIME (e->created_at),
                            "_fw_body", BCON_UTF8 (e->json));
    bson_t *entry = BCON_NEW ("_id", BCON_UTF8 (e->id), "c", BCON_UTF8 (collection), "s", BCON_UTF8 (stream));
    bson_t *registered = BCON_NEW ("_id", BCON_UTF8 (stream), "c", BCON_UTF8 (collection));
    mongo_db_insert (&mongo, collection, doc);
    mongo_db_insert (&mongo, "_fw_dlq_index", entry);
    mongo_db_try_insert (&mongo, "_fw_dlq_streams", registered, NULL);     /* once a stream: a second is refused */
    bson_destroy (registered);
    bson_destroy (entry);
    bson_destroy (doc);
    return e;
}

Test (mongo_workbench, a_document_from_before_the_replay_state_works)
{
    open_plugin ();
    events [0] = put_old_document ("old", 5000);
    events [1] = put_old_document ("old", 4000);
    stored = 2;
    dlq_sink_event_state_t st = plugin_wb_state (&wb, events [0]->id);
    cr_expect_str_eq (st.status, "PENDING");
    cr_expect_eq (st.retry_count, 0);
    cr_expect_eq (st.replay_count, 0);
    cr_expect_eq (st.retry_after, events [0]->created_at, "no retryAfter: createdAt");
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (wb.plugin.ops->workbench->claim (wb.reader, "old", "a", 0, 3, 1, NOW, NOW + LEASE_MS,
                                                   dlq_plugin_host_buf (&out)),
                  DLQ_SINK_STATUS_OK, "%s", plugin_wb_error (&wb, wb.reader));
    cr_expect_not_null (strstr (out.data, events [0]->id), "an old PENDING document is due: %s", out.data);
    cr_expect_not_null (strstr (out.data, "\"replayCount\":0"), "%s", out.data);
    st = plugin_wb_mark (&wb, events [1]->id, DLQ_SINK_MARK_FAILED, NOW + 1000);
    cr_expect_eq (st.retry_count, 1, "$inc makes the count");
    cr_expect_eq (st.retry_after, NOW + 1000);
    st = plugin_wb_mark (&wb, events [1]->id, DLQ_SINK_MARK_REPLAYED, NOW + 2000);
    cr_expect_eq (st.replay_count, 1);
    dlq_buf_reset (&out);
    cr_assert_eq (wb.plugin.ops->workbench->query_groups (wb.reader, "{\"streamName\":\"old\"}", 10, NOW,
                                                          dlq_plugin_host_buf (&out)),
                  DLQ_SINK_STATUS_OK, "%s", plugin_wb_error (&wb, wb.reader));
    cr_expect_not_null (strstr (out.data, "{\"fingerprint\":null,\"count\":2,"), "no fingerprint: one null group: %s",
                        out.data);
    dlq_buf_free (&out);
}

/* ---- claim ----------------------------------------------------------------------------------- */

Test (mongo_workbench, a_claimed_document_keeps_its_body_and_carries_the_lease)
{
    const char *const stream [] = { "s", "s", "s" };
    const int64_t ago [] = { 3000, 2000, 1000 }, expires [] = { DLQ_TIME_NONE, DLQ_TIME_NONE, DLQ_TIME_NONE };
    const char *const status [] = { "PENDING", "PENDING", "PENDING" };
    store_simple (stream, ago, status, expires, 3);
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (plugin_wb_claim (&wb, wb.reader, "s", "a", 0, 10, 2, NOW, &out), DLQ_SINK_STATUS_OK, "%s",
                  plugin_wb_error (&wb, wb.reader));
    static const int first [] = { 0, 1, -1 };
    plugin_wb_expect_claimed (&out, events, stored, first, NULL, "the two oldest");
    for (int k = 0; k < 3; k++) {
        bson_t *doc = document ("_fw_dlq_s", events [k]->id);
        cr_assert_not_null (doc);
        cr_expect_str_eq (text_at (doc, "_fw_body"), events [k]->json, "the claim leaves the body");
        bson_iter_t it;
        cr_expect (bson_iter_init_find (&it, doc, "retryAfter") && BSON_ITER_HOLDS_DATE_TIME (&it)
                   && bson_iter_date_time (&it) == (k < 2 ? NOW + LEASE_MS : events [k]->created_at),
                   "retryAfter of event %d: the lease when claimed, else createdAt", k);
        bson_destroy (doc);
    }
    dlq_buf_free (&out);
}

/* The lock document of "s" in _fw_dlq_locks: host-a's, until NOW + 60 s. */
static void
expect_lock_document (void)
{
    bson_t *lock = document ("_fw_dlq_locks", "s");
    cr_assert_not_null (lock, "the lock document");
    cr_expect_str_eq (text_at (lock, "owner"), "host-a");
    bson_iter_t it;
    cr_expect (bson_iter_init_find (&it, lock, "lockedUntil") && BSON_ITER_HOLDS_DATE_TIME (&it)
               && bson_iter_date_time (&it) == NOW + 60000, "locked until NOW + pass_ms");
    bson_destroy (lock);
}

Test (mongo_workbench, the_lock_document_names_the_owner_until_the_pass_is_over)
{
    const char *const stream [] = { "s" };
    const int64_t ago [] = { 3000 }, expires [] = { DLQ_TIME_NONE };
    const char *const status [] = { "PENDING" };
    store_simple (stream, ago, status, expires, 1);
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (plugin_wb_claim (&wb, wb.reader, "s", "host-a", 60000, 10, 1, NOW, &out), DLQ_SINK_STATUS_OK, "%s",
                  plugin_wb_error (&wb, wb.reader));
    expect_lock_document ();
    dlq_buf_free (&out);
}

/* ---- dlqd with the sink as its primary ------------------------------------------------------ */

Test (mongo_workbench, dlqd_answers_the_workbench_from_the_sink)
{
    enum { ORDERS = 6, PAYMENTS = 3 };
    char extra [2048];
    snprintf (extra, sizeof extra,
              "sinks: { mongo: { type = \"mongo\"; uri = \"%s\"; database = \"%s\"; }; };\n"
              "defaults: { retention_days = 30; chain = [\"mongo\"]; };\n"
              "primary = \"mongo\";\n", mongo.uri, mongo.database);
    cr_assert (test_dlqd_start (&d, "", extra));
    char ids [ORDERS + PAYMENTS][DLQ_UUID_LEN + 1];
    char *bodies [ORDERS + PAYMENTS];
    int64_t now = dlq_time_now_ms ();
    for (int i = 0; i < ORDERS + PAYMENTS; i++)
        bodies [i] = sink_small_event (i < ORDERS ? "orders" : "payments", now - 1000 + i, i, ids [i]);
    sink_put_bodies (d.endpoint, bodies, ORDERS + PAYMENTS);
    cr_assert_eq (sink_wait_stat (d.endpoint, "mongo", "delivered", ORDERS + PAYMENTS, 30), ORDERS + PAYMENTS);

    char *reply = sink_request (d.endpoint, "COUNT", "{\"streamName\":\"orders\"}", "OK");
    cr_expect_eq (sink_reply_int (reply, "count"), ORDERS, "%s", reply);
    free (reply);
    reply = sink_request (d.endpoint, "COUNT", "{}", "OK");
    cr_expect_eq (sink_reply_int (reply, "count"), ORDERS + PAYMENTS, "%s", reply);
    free (reply);
    reply = sink_request (d.endpoint, "LIST", "{\"status\":\"PENDING\",\"limit\":4}", "OK");
    cr_expect (strstr (reply, ids [ORDERS + PAYMENTS - 1]) && strstr (reply, "\"nextCursor\":\""),
               "a filtered LIST across the streams, newest first, in pages: %s", reply);
    free (reply);
    reply = sink_request (d.endpoint, "GROUPS", "{}", "OK");
    cr_expect_not_null (strstr (reply, "\"groups\":[{\"fingerprint\":\""), "%s", reply);
    free (reply);
    reply = sink_request (d.endpoint, "REPLAY", "{\"streamName\":\"payments\",\"dryRun\":true,\"sample\":2}", "OK");
    cr_expect_eq (sink_reply_int (reply, "count"), PAYMENTS, "%s", reply);
    cr_expect_not_null (strstr (reply, ids [ORDERS + PAYMENTS - 1]), "the sample, newest first: %s", reply);
    free (reply);

    char body [128];
    snprintf (body, sizeof body, "{\"id\":\"%s\"}", ids [0]);
    reply = sink_request (d.endpoint, "RESOLVE", body, "OK");
    cr_expect_not_null (strstr (reply, "\"status\":\"SUCCEEDED\""), "%s", reply);
    free (reply);
    reply = sink_get (d.endpoint, ids [0], "OK");
    cr_expect_not_null (strstr (reply, "\"status\":\"SUCCEEDED\""), "GET shows the new status: %s", reply);
    cr_expect_not_null (strstr (reply, "\"replay\":{\"retryCount\":0,\"replayCount\":0,"), "%s", reply);
    free (reply);
    snprintf (body, sizeof body, "{\"id\":\"%s\"}", ids [1]);
    reply = sink_request (d.endpoint, "FAIL", body, "OK");
    cr_expect_not_null (strstr (reply, "\"retryCount\":1"), "%s", reply);
    free (reply);
    reply = sink_request (d.endpoint, "COUNT", "{\"status\":\"SUCCEEDED\"}", "OK");
    cr_expect_eq (sink_reply_int (reply, "count"), 1, "%s", reply);
    free (reply);
    char missing [DLQ_UUID_LEN + 1];
    dlq_uuid_v7 (now, missing);
    snprintf (body, sizeof body, "{\"id\":\"%s\"}", missing);
    reply = sink_request (d.endpoint, "RESOLVE", body, "ERR");
    cr_expect_not_null (strstr (reply, "NOT_FOUND"), "%s", reply);
    free (reply);
    for (int i = 0; i < ORDERS + PAYMENTS; i++)
        free (bodies [i]);
}
