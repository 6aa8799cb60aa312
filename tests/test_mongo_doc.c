/*  test_mongo_doc — the mongo sink's documents, without a server: the
 *  flowwarden-amqp example as native BSON (ObjectId, Decimal128, dates,
 *  int32, a metadata document, the canonical body kept as is), an event
 *  kept forever (no expiresAt), the index document, collection names MongoDB
 *  refuses, and the LIST cursor; the workbench's documents: the
 *  fingerprint and replay state an event starts with, the state of a
 *  document from before them, each mark's update, and the queries
 *  (filters, the page, due events, the lock) evaluated on documents by
 *  the test server's matcher (tests/mongo/mongo_match.h, no server
 *  running) against the reference predicate; the checkpoint documents
 *  (mongo_ckpt_doc.h): each write's update applied by the test server's
 *  updater (tests/mongo/mongo_update.h) to a stored document and to an
 *  upsert's, the BSON types of FlowWarden's MongoCheckpointStore layout,
 *  tokens libbson cannot read, the record read back (texts byte for byte,
 *  a stale or missing text answered from the BSON field), the LIST filter.
 */
#include "checkpoint.h"
#include "dlq_buf.h"
#include "event_filter.h"
#include "event_support.h"
#include "mongo_ckpt_doc.h"
#include "mongo_doc.h"
#include "mongo_filter.h"
#include "mongo_match.h"
#include "mongo_state.h"
#include "mongo_update.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#define EXAMPLE_ID "c2e8a5b6-0f1e-4c3a-9b7d-2a1f0e9d8c7b"

static bson_type_t
type_at (const bson_t *doc, const char *path)
{
    bson_iter_t it, found;
    cr_assert (bson_iter_init (&it, doc));
    if (!bson_iter_find_descendant (&it, path, &found))
        return BSON_TYPE_EOD;
    return bson_iter_type (&found);
}

static bson_iter_t
at (const bson_t *doc, const char *path)
{
    bson_iter_t it, found;
    cr_assert (bson_iter_init (&it, doc));
    cr_assert (bson_iter_find_descendant (&it, path, &found), "no %s", path);
    return found;
}

Test (mongo_doc, wire_example_as_native_bson)
{
    dlq_event_t *e = event_wire_example ();
    dlq_sink_event_t event = event_for_sink (e, NULL, 0, 30);
    bson_t doc;
    char err [200] = "";
    cr_assert (dlq_mongo_event_doc (&event, &doc, err, sizeof err), "%s", err);

    bson_iter_t it = at (&doc, "_id");
    cr_expect_str_eq (bson_iter_utf8 (&it, NULL), EXAMPLE_ID);
    cr_expect_eq (type_at (&doc, "id"), BSON_TYPE_EOD, "the id is the _id, not a field of its own");
    it = at (&doc, "streamName");
    cr_expect_str_eq (bson_iter_utf8 (&it, NULL), "orders");
    cr_expect_eq (type_at (&doc, "documentKey._id"), BSON_TYPE_OID, "documentKey's $oid is an ObjectId");
    it = at (&doc, "documentKey._id");
    char oid [25];
    bson_oid_to_string (bson_iter_oid (&it), oid);
    cr_expect_str_eq (oid, "65f0a1b2c3d4e5f601234567");
    cr_expect_eq (type_at (&doc, "fullDocument.total"), BSON_TYPE_DECIMAL128, "$numberDecimal is a Decimal128");
    cr_expect_eq (type_at (&doc, "fullDocument.items"), BSON_TYPE_INT32);
    cr_expect_eq (type_at (&doc, "resumeToken._data"), BSON_TYPE_UTF8);
    cr_expect_eq (type_at (&doc, "error.type"), BSON_TYPE_UTF8);
    cr_expect_eq (type_at (&doc, "error.stackTrace"), BSON_TYPE_UTF8);
    it = at (&doc, "attempts");
    cr_expect_eq (bson_iter_type (&it), BSON_TYPE_INT32);
    cr_expect_eq (bson_iter_int32 (&it), 3);
    static const struct { const char *path; int64_t ms; } dates [] = {
        { "firstAttemptAt", 1781015531123LL }, { "lastAttemptAt", 1781015533456LL },
        { "createdAt", 1781015533500LL }, { "expiresAt", 1783607533500LL },
    };
    for (size_t i = 0; i < sizeof dates / sizeof dates [0]; i++) {
        it = at (&doc, dates [i].path);
        cr_expect_eq (bson_iter_type (&it), BSON_TYPE_DATE_TIME, "%s is a BSON date", dates [i].path);
        cr_expect_eq (bson_iter_date_time (&it), dates [i].ms, "%s", dates [i].path);
    }
    cr_expect_eq (type_at (&doc, "metadata"), BSON_TYPE_DOCUMENT);
    it = at (&doc, "metadata.tenantId");
    cr_expect_str_eq (bson_iter_utf8 (&it, NULL), "acme");
    it = at (&doc, DLQ_MONGO_BODY_FIELD);
    uint32_t len = 0;
    const char *body = bson_iter_utf8 (&it, &len);
    cr_expect_eq (len, e->json_len);
    cr_expect_eq (memcmp (body, e->json, len), 0, "the canonical body, byte for byte");
    bson_destroy (&doc);
    dlq_event_destroy (&e);
}

Test (mongo_doc, kept_forever_has_no_expires_at)
{
    static const char body [] = "{\"streamName\":\"s\",\"error\":{\"type\":\"E\"},\"metadata\":{\"n\":5000000000,\"r\":1.5}}";
    dlq_event_t *e = event_canonical (body, sizeof body - 1);
    dlq_sink_event_t event = event_for_sink (e, NULL, 0, 0);
    bson_t doc;
    char err [200] = "";
    cr_assert (dlq_mongo_event_doc (&event, &doc, err, sizeof err), "%s", err);
    cr_expect_eq (type_at (&doc, "expiresAt"), BSON_TYPE_EOD);
    cr_expect_eq (type_at (&doc, "operationType"), BSON_TYPE_EOD);
    cr_expect_eq (type_at (&doc, "metadata.n"), BSON_TYPE_INT64);
    cr_expect_eq (type_at (&doc, "metadata.r"), BSON_TYPE_DOUBLE);
    bson_destroy (&doc);

    dlq_mongo_index_doc (&event, "_fw_dlq_s", &doc);
    bson_iter_t it = at (&doc, "c");
    cr_expect_str_eq (bson_iter_utf8 (&it, NULL), "_fw_dlq_s");
    it = at (&doc, "_id");
    cr_expect_str_eq (bson_iter_utf8 (&it, NULL), e->id);
    cr_expect_eq (type_at (&doc, "expiresAt"), BSON_TYPE_EOD);
    bson_destroy (&doc);
    dlq_event_destroy (&e);
}

/* What libbson cannot read (a key with a NUL; the gateway refuses
 * malformed wrappers such as {"$oid":"zz"} itself) is kept as its JSON
 * text, a string: the event is stored all the same. */
Test (mongo_doc, members_libbson_cannot_read_are_kept_as_text)
{
    static const char body [] =
        "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\",\"streamName\":\"s\",\"error\":{\"type\":\"T\"},"
        "\"fullDocument\":{\"k\":[{\"a\\u0000\":2}]},\"attempts\":1,\"createdAt\":\"2026-06-09T14:32:13.500Z\","
        "\"metadata\":{\"a\\u0000b\":1,\"big\":1e300}}";
    dlq_event_t *e = event_canonical (body, strlen (body));
    dlq_sink_event_t event = event_for_sink (e, NULL, 0, 30);
    bson_t doc;
    char err [200] = "";
    cr_assert (dlq_mongo_event_doc (&event, &doc, err, sizeof err), "%s", err);
    bson_iter_t it = at (&doc, "fullDocument");
    cr_expect_str_eq (bson_iter_utf8 (&it, NULL), "{\"k\":[{\"a\\u0000\":2}]}");
    it = at (&doc, "metadata");
    cr_expect_str_eq (bson_iter_utf8 (&it, NULL), "{\"a\\u0000b\":1,\"big\":1e300}");
    it = at (&doc, DLQ_MONGO_BODY_FIELD);
    cr_expect_str_eq (bson_iter_utf8 (&it, NULL), e->json, "the body as sent");
    bson_destroy (&doc);
    dlq_event_destroy (&e);
}

Test (mongo_doc, collection_names)
{
    char c [DLQ_MONGO_COLLECTION_MAX + 1];
    cr_expect (dlq_mongo_collection ("_fw_dlq_", "orders-stream", NULL, c));
    cr_expect_str_eq (c, "_fw_dlq_orders-stream");
    cr_expect (dlq_mongo_collection ("_fw_dlq_", "payments", "payments_dlq", c));
    cr_expect_str_eq (c, "payments_dlq");
    cr_expect (dlq_mongo_collection ("_fw_dlq_", "payments.v2", "", c), "an empty override falls back");
    cr_expect_str_eq (c, "_fw_dlq_payments.v2");
    cr_expect_not (dlq_mongo_collection ("", "a$b", NULL, c));
    cr_expect_str_empty (c);
    cr_expect_not (dlq_mongo_collection ("", "", NULL, c));
    cr_expect_not (dlq_mongo_collection ("system.", "x", NULL, c));
    char stream [300];
    memset (stream, 's', sizeof stream - 1);
    stream [sizeof stream - 1] = '\0';
    cr_expect_not (dlq_mongo_collection ("_fw_dlq_", stream, NULL, c), "too long");
}

Test (mongo_doc, list_cursor)
{
    char cursor [DLQ_MONGO_CURSOR_LEN], id [80];
    int64_t t = 0;
    dlq_mongo_cursor_format (1781015533500LL, EXAMPLE_ID, cursor);
    cr_expect_str_eq (cursor, "1781015533500." EXAMPLE_ID);
    cr_expect (dlq_mongo_cursor_parse (cursor, &t, id, sizeof id));
    cr_expect_eq (t, 1781015533500LL);
    cr_expect_str_eq (id, EXAMPLE_ID);
    cr_expect_not (dlq_mongo_cursor_parse ("garbage", &t, id, sizeof id));
    cr_expect_not (dlq_mongo_cursor_parse ("12.", &t, id, sizeof id));
    cr_expect_not (dlq_mongo_cursor_parse (".abc", &t, id, sizeof id));
}

Test (mongo_doc, list_cursor_ids_are_event_ids)
{
    char id [80];
    int64_t t = 0;
    cr_expect_not (dlq_mongo_cursor_parse ("1717940000000.42", &t, id, sizeof id), "not a UUID");
    cr_expect_not (dlq_mongo_cursor_parse ("1.0190F1D2-6C4E-7A01-8B2C-3D4E5F607182", &t, id, sizeof id),
                   "event ids are lower case");
    cr_expect_not (dlq_mongo_cursor_parse ("1." EXAMPLE_ID "x", &t, id, sizeof id));
    cr_expect (dlq_mongo_cursor_parse ("-5." EXAMPLE_ID, &t, id, sizeof id), "any createdAt");
    cr_expect_eq (t, -5);
}

/* ---- the replay state and the fingerprint ------------------------------------------ */

Test (mongo_doc, an_event_starts_with_its_fingerprint_and_replay_state)
{
    dlq_event_t *e = event_wire_example ();
    dlq_sink_event_t event = event_for_sink (e, NULL, 0, 30);
    bson_t doc;
    char err [200] = "", hex [17];
    cr_assert (dlq_mongo_event_doc (&event, &doc, err, sizeof err), "%s", err);
    dlq_event_fingerprint_hex (e, hex);
    bson_iter_t it = at (&doc, DLQ_MONGO_FINGERPRINT_FIELD);
    cr_expect_str_eq (bson_iter_utf8 (&it, NULL), hex, "the fingerprint of the body's error");
    it = at (&doc, DLQ_MONGO_RETRY_COUNT);
    cr_expect (BSON_ITER_HOLDS_INT32 (&it) && bson_iter_int32 (&it) == 0);
    it = at (&doc, DLQ_MONGO_REPLAY_COUNT);
    cr_expect (BSON_ITER_HOLDS_INT32 (&it) && bson_iter_int32 (&it) == 0);
    it = at (&doc, DLQ_MONGO_RETRY_AFTER);
    cr_expect_eq (bson_iter_type (&it), BSON_TYPE_DATE_TIME);
    cr_expect_eq (bson_iter_date_time (&it), 1781015533500LL, "retryAfter is createdAt");
    dlq_sink_event_state_t st;
    dlq_mongo_state_of (&doc, &st);
    cr_expect_str_eq (st.status, "DLQ");
    cr_expect_eq (st.retry_count, 0);
    cr_expect_eq (st.replay_count, 0);
    cr_expect_eq (st.retry_after, 1781015533500LL);
    bson_destroy (&doc);
    dlq_event_destroy (&e);
}

Test (mongo_doc, a_document_from_before_the_replay_state_has_the_defaults)
{
    bson_t *old = BCON_NEW ("_id", BCON_UTF8 (EXAMPLE_ID), "status", BCON_UTF8 ("PENDING"),
                            "createdAt", BCON_DATE_TIME (1000));
    dlq_sink_event_state_t st;
    memset (&st, 0x5a, sizeof st);
    dlq_mongo_state_of (old, &st);
    cr_expect_str_eq (st.status, "PENDING");
    cr_expect_eq (st.retry_count, 0);
    cr_expect_eq (st.replay_count, 0);
    cr_expect_eq (st.retry_after, 1000, "retryAfter absent: createdAt");
    bson_destroy (old);
    bson_t *later = BCON_NEW ("status", BCON_UTF8 ("QUARANTINED"), "createdAt", BCON_DATE_TIME (1000),
                              "retryCount", BCON_INT64 (3), "replayCount", BCON_DOUBLE (2.0),
                              "retryAfter", BCON_DATE_TIME (5000));
    dlq_mongo_state_of (later, &st);
    cr_expect_str_eq (st.status, "QUARANTINED");
    cr_expect_eq (st.retry_count, 3, "any number type");
    cr_expect_eq (st.replay_count, 2);
    cr_expect_eq (st.retry_after, 5000);
    bson_destroy (later);
}

/* The update of mark as relaxed extended JSON. Caller frees. */
static char *
update_json (dlq_sink_mark_t mark, const char *body)
{
    bson_t update;
    dlq_mongo_mark_update (mark, 7000, body, body ? strlen (body) : 0, &update);
    char *json = bson_as_relaxed_extended_json (&update, NULL);
    bson_destroy (&update);
    return json;
}

Test (mongo_doc, each_mark_has_its_update)
{
    static const struct { dlq_sink_mark_t mark; const char *want; } cases [] = {
        { DLQ_SINK_MARK_RESOLVED, "{ \"$set\" : { \"status\" : \"SUCCEEDED\", \"_fw_body\" : \"B\" } }" },
        { DLQ_SINK_MARK_FAILED, "{ \"$set\" : { \"status\" : \"PENDING\", \"_fw_body\" : \"B\", \"retryAfter\" : "
                                "{ \"$date\" : \"1970-01-01T00:00:07Z\" } }, \"$inc\" : { \"retryCount\" : 1 } }" },
        { DLQ_SINK_MARK_REPLAYED, "{ \"$set\" : { \"retryAfter\" : { \"$date\" : \"1970-01-01T00:00:07Z\" } }, "
                                  "\"$inc\" : { \"replayCount\" : 1 } }" },
        { DLQ_SINK_MARK_QUARANTINED, "{ \"$set\" : { \"status\" : \"QUARANTINED\", \"_fw_body\" : \"B\" } }" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases [0]; i++) {
        char *json = update_json (cases [i].mark, "B");
        cr_expect_str_eq (json, cases [i].want, "mark %d", (int) cases [i].mark);
        bson_free (json);
    }
    char *json = update_json (DLQ_SINK_MARK_RESOLVED, NULL);
    cr_expect_str_eq (json, "{ \"$set\" : { \"status\" : \"SUCCEEDED\" } }", "no body: the status alone");
    bson_free (json);
    cr_expect_str_eq (dlq_mongo_mark_status (DLQ_SINK_MARK_FAILED), "PENDING");
    cr_expect_null (dlq_mongo_mark_status (DLQ_SINK_MARK_REPLAYED));
    cr_expect_not (dlq_mongo_mark_known ((dlq_sink_mark_t) 9));
}

/* ---- queries, evaluated by the test server's matcher (no server) -------------------- */

static bool
query_matches (const bson_t *query, const bson_t *doc)
{
    mongo_error_t err = { 0 };
    cr_assert (mongo_filter_check (query, &err), "a query the test server cannot evaluate: %s", err.message);
    return mongo_filter_matches (query, doc);
}

Test (mongo_doc, contains_patterns_fold_ascii_letters_only)
{
    dlq_buf_t p = DLQ_BUF_INIT;
    dlq_mongo_contains_pattern ("Read (42) 50% a.b*c\\", &p);
    cr_expect_str_eq (p.data, "[rR][eE][aA][dD] \\(42\\) 50% [aA]\\.[bB]\\*[cC]\\\\");
    dlq_buf_reset (&p);
    dlq_mongo_contains_pattern ("\xc3\x89" "t", &p);
    cr_expect_str_eq (p.data, "\xc3\x89" "[tT]", "other bytes as they are");
    dlq_buf_free (&p);
}

/* The documents of the small events below, and their events. */
static const char *const small_events [] = {
    "{\"streamName\":\"orders\",\"status\":\"PENDING\",\"createdAt\":\"2026-06-09T10:00:00Z\","
    "\"error\":{\"type\":\"A\",\"message\":\"Read TIMED out (42)\"},\"attempts\":2,"
    "\"metadata\":{\"tenant\":\"acme\",\"shard\":2,\"vip\":true}}",
    "{\"streamName\":\"orders\",\"status\":\"DLQ\",\"createdAt\":\"2026-06-09T11:00:00Z\","
    "\"error\":{\"type\":\"B\",\"message\":\"\xc3\x89" "chec 50%\"},\"attempts\":0,"
    "\"metadata\":{\"tenant\":[\"acme\"],\"shard\":[2,3],\"vip\":[true]}}",
    "{\"streamName\":\"pay.v2\",\"status\":\"PENDING\",\"createdAt\":\"2026-06-09T12:00:00Z\","
    "\"error\":{\"type\":\"A\"},\"attempts\":5,\"metadata\":{\"tenant\":\"globex\",\"shard\":2.0,\"vip\":false}}",
    "{\"streamName\":\"pay.v2\",\"status\":\"PENDING\",\"createdAt\":\"2026-06-09T13:00:00Z\","
    "\"error\":{\"type\":\"A\",\"message\":\"read timed out\"},\"metadata\":{\"shard\":\"2\",\"n\":{\"0\":2}}}",
};

static const char *const small_filters [] = {
    "{}", "{\"streamName\":\"orders\"}", "{\"status\":\"PENDING\",\"errorType\":\"A\"}",
    "{\"messageContains\":\"timed OUT\"}", "{\"messageContains\":\"(42)\"}", "{\"messageContains\":\"\xc3\xa9" "chec\"}",
    "{\"messageContains\":\"\xc3\x89" "CHEC 50%\"}", "{\"messageContains\":\".\"}",
    "{\"createdAfter\":\"2026-06-09T11:00:00Z\",\"createdBefore\":\"2026-06-09T13:00:00Z\"}",
    "{\"attemptsMin\":1,\"attemptsMax\":2}", "{\"attemptsMax\":0}",
    "{\"metadata\":{\"tenant\":\"acme\"}}", "{\"metadata\":{\"shard\":2}}", "{\"metadata\":{\"shard\":\"2\"}}",
    "{\"metadata\":{\"vip\":true}}", "{\"metadata\":{\"vip\":false,\"shard\":2}}", "{\"metadata\":{\"n\":2}}",
};

Test (mongo_doc, filter_queries_agree_with_the_reference_predicate)
{
    enum { EVENTS = sizeof small_events / sizeof small_events [0] };
    dlq_event_t *events [EVENTS];
    bson_t docs [EVENTS];
    for (size_t i = 0; i < EVENTS; i++) {
        events [i] = event_canonical (small_events [i], strlen (small_events [i]));
        dlq_event_fingerprint (events [i]);
        if (i == 3) {
            events [i]->expires_at = events [i]->created_at + 86400000LL;
            dlq_event_encode (events [i]);
        }
        dlq_sink_event_t event = event_for_sink (events [i], NULL, 0, i == 3 ? 1 : 0);
        char err [200] = "";
        cr_assert (dlq_mongo_event_doc (&event, &docs [i], err, sizeof err), "%s", err);
    }
    int64_t now = 1781015533500LL + 2 * 86400000LL;    /* event 3 (one day of retention) has expired */
    for (size_t f = 0; f < sizeof small_filters / sizeof small_filters [0]; f++) {
        dlq_event_filter_t filter = DLQ_EVENT_FILTER_INIT;
        char err [200];
        cr_assert (dlq_event_filter_from_json (small_filters [f], &filter, err, sizeof err), "%s", err);
        bson_t query;
        dlq_mongo_filter_query (&filter, now, &query);
        for (size_t i = 0; i < EVENTS; i++) {
            bool want = i != 3 && dlq_event_filter_matches (&filter, events [i]->json, events [i]->json_len,
                                                             events [i]->fingerprint);
            cr_expect_eq (query_matches (&query, &docs [i]), want, "%s on event %zu", small_filters [f], i);
        }
        bson_destroy (&query);
        dlq_event_filter_free (&filter);
    }
    char request [64];
    snprintf (request, sizeof request, "{\"fingerprint\":\"%s\"}", events [0]->fingerprint);
    dlq_event_filter_t filter = DLQ_EVENT_FILTER_INIT;
    char err [200];
    cr_assert (dlq_event_filter_from_json (request, &filter, err, sizeof err), "%s", err);
    bson_t query;
    dlq_mongo_filter_query (&filter, now, &query);
    cr_expect (query_matches (&query, &docs [0]));
    cr_expect_not (query_matches (&query, &docs [1]), "another error, another fingerprint");
    bson_destroy (&query);
    dlq_event_filter_free (&filter);
    cr_expect_not (dlq_event_filter_from_json ("{\"attemptsMin\":-1}", &filter, err, sizeof err));
    cr_expect_not (dlq_event_filter_from_json ("{", &filter, err, sizeof err));
    for (size_t i = 0; i < EVENTS; i++) {
        bson_destroy (&docs [i]);
        dlq_event_destroy (&events [i]);
    }
}

Test (mongo_doc, the_page_condition_follows_list_order)
{
    dlq_event_filter_t filter = DLQ_EVENT_FILTER_INIT;
    bson_t query;
    dlq_mongo_filter_query (&filter, 0, &query);
    dlq_mongo_filter_after (&query, 5000, "b");
    static const struct { int64_t created; const char *id; bool after; } docs [] = {
        { 4999, "z", true }, { 5000, "a", true }, { 5000, "b", false }, { 5000, "c", false }, { 5001, "a", false },
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs [0]; i++) {
        bson_t *doc = BCON_NEW ("_id", BCON_UTF8 (docs [i].id), "createdAt", BCON_DATE_TIME (docs [i].created),
                                DLQ_MONGO_BODY_FIELD, BCON_UTF8 ("{}"));
        cr_expect_eq (query_matches (&query, doc), docs [i].after, "%lld %s", (long long) docs [i].created,
                      docs [i].id);
        bson_destroy (doc);
    }
    bson_destroy (&query);
}

/* A document of stream s for the due query. */
static bson_t *
due_doc (const char *status, int64_t created, int retry_count, int64_t retry_after, int64_t expires)
{
    bson_t *doc = BCON_NEW ("_id", BCON_UTF8 ("x"), "streamName", BCON_UTF8 ("s"), "status", BCON_UTF8 (status),
                            "createdAt", BCON_DATE_TIME (created), DLQ_MONGO_BODY_FIELD, BCON_UTF8 ("{}"));
    if (retry_count >= 0)
        BSON_APPEND_INT32 (doc, DLQ_MONGO_RETRY_COUNT, retry_count);
    if (retry_after >= 0)
        BSON_APPEND_DATE_TIME (doc, DLQ_MONGO_RETRY_AFTER, retry_after);
    if (expires >= 0)
        BSON_APPEND_DATE_TIME (doc, "expiresAt", expires);
    return doc;
}

Test (mongo_doc, the_due_query)
{
    static const struct { const char *status; int64_t created; int retries; int64_t after, expires; int32_t max;
                          bool due; const char *why; } cases [] = {
        { "PENDING", 500, -1, -1, -1, 3, true, "an old document: retryAfter is createdAt" },
        { "PENDING", 1500, -1, -1, -1, 3, false, "created after now" },
        { "PENDING", 500, -1, -1, -1, 0, false, "max_retries 0: nothing is due" },
        { "PENDING", 500, 2, 1000, -1, 3, true, "due exactly now" },
        { "PENDING", 500, 3, 900, -1, 3, false, "retryCount reached max_retries" },
        { "PENDING", 500, 0, 1001, -1, 3, false, "leased" },
        { "PENDING", 500, 0, 900, 1000, 3, false, "expired" },
        { "PENDING", 500, 0, 900, 1001, 3, true, "expires later" },
        { "DLQ", 500, 0, 900, -1, 3, false, "not PENDING" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases [0]; i++) {
        bson_t query;
        dlq_mongo_due_query ("s", cases [i].max, 1000, &query);
        bson_t *doc = due_doc (cases [i].status, cases [i].created, cases [i].retries, cases [i].after,
                               cases [i].expires);
        cr_expect_eq (query_matches (&query, doc), cases [i].due, "%s", cases [i].why);
        bson_destroy (doc);
        bson_destroy (&query);
        dlq_mongo_due_query ("t", 3, 1000, &query);
        doc = due_doc ("PENDING", 500, -1, -1, -1);
        cr_expect_not (query_matches (&query, doc), "another stream sharing the collection");
        bson_destroy (doc);
        bson_destroy (&query);
    }
}

Test (mongo_doc, the_lock_is_free_or_the_owners)
{
    bson_t *lock = BCON_NEW ("_id", BCON_UTF8 ("s"), "owner", BCON_UTF8 ("a"), "lockedUntil", BCON_DATE_TIME (2000));
    static const struct { const char *stream, *owner; int64_t now; bool taken; } cases [] = {
        { "s", "b", 1999, false }, { "s", "a", 1000, true }, { "s", "b", 2000, true }, { "t", "a", 1000, false },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases [0]; i++) {
        bson_t query;
        dlq_mongo_lock_query (cases [i].stream, cases [i].owner, cases [i].now, &query);
        cr_expect_eq (query_matches (&query, lock), cases [i].taken, "case %zu", i);
        bson_destroy (&query);
    }
    cr_expect_eq (dlq_mongo_lock_until (1000, 500), 1500);
    cr_expect_eq (dlq_mongo_lock_until (INT64_MAX - 1, 500), INT64_MAX);
    bson_destroy (lock);
}

/* ---- checkpoints ---------------------------------------------------------------------- */

#define CKPT_NOW 1781015533500LL

/* A record with every field set. */
static dlq_sink_checkpoint_t
ckpt_full (const char *stream)
{
    dlq_sink_checkpoint_t r = dlq_checkpoint_empty (stream);
    r.instance_id = "worker-7";
    r.last_seen_token = "{\"_data\":\"8265F0\",\"n\":{\"$numberLong\":\"5\"}}";
    r.last_seen_at = CKPT_NOW - 2000;
    r.last_processed_token = "{\"_data\":\"8264\",\"t\":{\"$date\":{\"$numberLong\":\"1781000000000\"}}}";
    r.last_processed_at = CKPT_NOW - 3000;
    r.metadata = "{\"tenant\":\"acme\",\"shard\":2.0,\"tags\":[\"x\",null,true]}";
    return r;
}

/* The update of a write (must be OK). */
static void
ckpt_update (dlq_sink_ckpt_write_t kind, const dlq_sink_checkpoint_t *record, int64_t now, bson_t *update)
{
    char err [240] = "";
    cr_assert_eq (dlq_mongo_ckpt_update (kind, record, now, update, err, sizeof err), DLQ_MONGO_CKPT_OK, "%s", err);
    mongo_error_t check = { 0 };
    cr_assert (mongo_update_check (update, &check), "an update MongoDB refuses: %s", check.message);
}

/* update applied to doc (NULL: the upsert of {_id: stream}); caller destroys. */
static bson_t *
ckpt_apply (const bson_t *update, const bson_t *doc, const char *stream)
{
    mongo_error_t err = { 0 };
    bson_t *query = BCON_NEW ("_id", BCON_UTF8 (stream)), *base = mongo_update_upsert_base (query);
    bool inserting = doc == NULL;
    bson_t *out = mongo_update_apply (update, inserting ? base : doc, inserting, &err);
    cr_assert_not_null (out, "%s", err.message);
    bson_destroy (base);
    bson_destroy (query);
    return out;
}

/* The record of doc as the store answers it. Caller frees. */
static char *
ckpt_answer (const bson_t *doc)
{
    dlq_buf_t json = DLQ_BUF_INIT;
    cr_assert_eq (dlq_mongo_ckpt_format (doc, &json), DLQ_MONGO_CKPT_OK);
    dlq_buf_putc (&json, '\0');
    return dlq_buf_steal (&json, NULL);
}

/* record with updatedAt as dlq_checkpoint_format writes it. Caller frees. */
static char *
ckpt_formatted (dlq_sink_checkpoint_t record, int64_t updated_at)
{
    dlq_buf_t json = DLQ_BUF_INIT;
    record.updated_at = updated_at;
    dlq_checkpoint_format (&record, &json);
    dlq_buf_putc (&json, '\0');
    return dlq_buf_steal (&json, NULL);
}

static size_t
ckpt_field_count (const bson_t *doc)
{
    return (size_t) bson_count_keys (doc);
}

static const char *
ckpt_text_at (const bson_t *doc, const char *path)
{
    bson_iter_t it = at (doc, path);
    cr_assert (BSON_ITER_HOLDS_UTF8 (&it), "%s is not a string", path);
    return bson_iter_utf8 (&it, NULL);
}

Test (mongo_doc, ckpt_save_is_a_replacement_with_mongo_checkpoint_store_bson_types)
{
    dlq_sink_checkpoint_t record = ckpt_full ("orders");
    bson_t update;
    ckpt_update (DLQ_SINK_CKPT_SAVE, &record, CKPT_NOW, &update);
    cr_expect (mongo_update_is_replacement (&update), "SAVE replaces the document");
    bson_t *doc = ckpt_apply (&update, NULL, "orders");
    cr_expect_str_eq (ckpt_text_at (doc, "_id"), "orders");
    cr_expect_str_eq (ckpt_text_at (doc, DLQ_MONGO_CKPT_INSTANCE), "worker-7");
    cr_expect_eq (type_at (doc, "lastSeenToken"), BSON_TYPE_DOCUMENT);
    cr_expect_eq (type_at (doc, "lastSeenToken._data"), BSON_TYPE_UTF8);
    cr_expect_eq (type_at (doc, "lastSeenToken.n"), BSON_TYPE_INT64, "$numberLong is an int64");
    cr_expect_eq (type_at (doc, "lastProcessedToken.t"), BSON_TYPE_DATE_TIME, "$date is a date");
    cr_expect_eq (type_at (doc, "lastSeenTimestamp"), BSON_TYPE_DATE_TIME);
    cr_expect_eq (type_at (doc, "lastProcessedTimestamp"), BSON_TYPE_DATE_TIME);
    cr_expect_eq (type_at (doc, "metadata"), BSON_TYPE_DOCUMENT);
    cr_expect_eq (type_at (doc, "metadata.shard"), BSON_TYPE_DOUBLE);
    cr_expect_eq (type_at (doc, "metadata.tags"), BSON_TYPE_ARRAY);
    cr_expect_str_eq (ckpt_text_at (doc, DLQ_MONGO_CKPT_SEEN_TEXT), record.last_seen_token);
    cr_expect_str_eq (ckpt_text_at (doc, DLQ_MONGO_CKPT_PROCESSED_TEXT), record.last_processed_token);
    cr_expect_str_eq (ckpt_text_at (doc, DLQ_MONGO_CKPT_METADATA_TEXT), record.metadata);
    bson_iter_t it = at (doc, "updatedAt");
    cr_expect_eq (bson_iter_date_time (&it), CKPT_NOW);
    it = at (doc, "lastSeenTimestamp");
    cr_expect_eq (bson_iter_date_time (&it), CKPT_NOW - 2000);
    char *answer = ckpt_answer (doc), *want = ckpt_formatted (record, CKPT_NOW);
    cr_expect_str_eq (answer, want);
    free (answer);
    free (want);

    dlq_sink_checkpoint_t bare = dlq_checkpoint_empty ("orders");
    bson_t replace;
    ckpt_update (DLQ_SINK_CKPT_SAVE, &bare, CKPT_NOW + 1, &replace);
    bson_t *emptied = ckpt_apply (&replace, doc, "orders");
    cr_expect_eq (ckpt_field_count (emptied), 2, "a SAVE of nothing leaves _id and updatedAt");
    answer = ckpt_answer (emptied);
    cr_expect_str_eq (answer, "{\"streamName\":\"orders\",\"updatedAt\":\"2026-06-09T14:32:13.501Z\"}");
    free (answer);
    bson_destroy (emptied);
    bson_destroy (&replace);
    bson_destroy (doc);
    bson_destroy (&update);
}

Test (mongo_doc, ckpt_seen_and_processed_set_only_their_pair)
{
    static const dlq_sink_ckpt_write_t kinds [] = { DLQ_SINK_CKPT_SEEN, DLQ_SINK_CKPT_PROCESSED };
    for (size_t k = 0; k < 2; k++) {
        bool seen = kinds [k] == DLQ_SINK_CKPT_SEEN;
        dlq_sink_checkpoint_t stored = ckpt_full ("orders"), given = ckpt_full ("orders");
        bson_t save, update;
        ckpt_update (DLQ_SINK_CKPT_SAVE, &stored, CKPT_NOW, &save);
        bson_t *doc = ckpt_apply (&save, NULL, "orders");
        given.instance_id = "intruder";
        given.metadata = "{}";
        given.last_seen_token = "{\"_data\":\"seen-2\"}";
        given.last_seen_at = CKPT_NOW + 7;
        given.last_processed_token = "{\"_data\":\"processed-2\"}";
        given.last_processed_at = CKPT_NOW + 8;
        ckpt_update (kinds [k], &given, CKPT_NOW + 10, &update);
        bson_iter_t it;
        cr_assert (bson_iter_init_find (&it, &update, "$set"));
        cr_expect_eq (ckpt_field_count (&update), 1, "only $set");
        bson_t *after = ckpt_apply (&update, doc, "orders");
        dlq_sink_checkpoint_t want = stored;
        if (seen) {
            want.last_seen_token = given.last_seen_token;
            want.last_seen_at = given.last_seen_at;
        } else {
            want.last_processed_token = given.last_processed_token;
            want.last_processed_at = given.last_processed_at;
        }
        char *answer = ckpt_answer (after), *expected = ckpt_formatted (want, CKPT_NOW + 10);
        cr_expect_str_eq (answer, expected, "%s on a full record", seen ? "SEEN" : "PROCESSED");
        free (answer);
        free (expected);

        bson_t *created = ckpt_apply (&update, NULL, "fresh");
        cr_expect_eq (ckpt_field_count (created), 5, "_id, the pair's three fields, updatedAt");
        dlq_sink_checkpoint_t only = dlq_checkpoint_empty ("fresh");
        only.last_seen_token = seen ? given.last_seen_token : NULL;
        only.last_seen_at = seen ? given.last_seen_at : DLQ_SINK_TIME_NONE;
        only.last_processed_token = seen ? NULL : given.last_processed_token;
        only.last_processed_at = seen ? DLQ_SINK_TIME_NONE : given.last_processed_at;
        answer = ckpt_answer (created);
        expected = ckpt_formatted (only, CKPT_NOW + 10);
        cr_expect_str_eq (answer, expected, "%s on a missing record", seen ? "SEEN" : "PROCESSED");
        free (answer);
        free (expected);
        bson_destroy (created);
        bson_destroy (after);
        bson_destroy (doc);
        bson_destroy (&update);
        bson_destroy (&save);
    }
}

Test (mongo_doc, ckpt_an_absent_token_or_time_is_unset)
{
    dlq_sink_checkpoint_t stored = ckpt_full ("orders"), given = dlq_checkpoint_empty ("orders");
    bson_t save, update;
    ckpt_update (DLQ_SINK_CKPT_SAVE, &stored, CKPT_NOW, &save);
    bson_t *doc = ckpt_apply (&save, NULL, "orders");
    ckpt_update (DLQ_SINK_CKPT_PROCESSED, &given, CKPT_NOW + 1, &update);
    bson_t *after = ckpt_apply (&update, doc, "orders");
    dlq_sink_checkpoint_t want = stored;
    want.last_processed_token = NULL;
    want.last_processed_at = DLQ_SINK_TIME_NONE;
    char *answer = ckpt_answer (after), *expected = ckpt_formatted (want, CKPT_NOW + 1);
    cr_expect_str_eq (answer, expected);
    cr_expect_eq (type_at (after, DLQ_MONGO_CKPT_PROCESSED_TEXT), BSON_TYPE_EOD, "the text goes with the token");
    free (answer);
    free (expected);
    bson_destroy (after);
    bson_destroy (doc);
    bson_destroy (&update);
    bson_destroy (&save);
}

Test (mongo_doc, ckpt_texts_come_back_byte_for_byte)
{
    static const char *const texts [] = {
        "{\"_data\":\"826A\",\"z\":1,\"a\":{\"$numberLong\":\"9007199254740993\"}}",
        "{\"x\":{\"$numberLong\":\"5\"}}",
        "{\"k\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\",\"esc\":\"\\\"\\\\\\n\\t\\u0001\"}",
        "{\"n\":1.50,\"m\":-0,\"e\":1E+2,\"f\":[0.1e-3,100000000000000000000000000001]}",
        "{\"nested\":{\"deep\":[{\"x\":[]},{}]},\"empty\":\"\"}",
        "{\"_typeBits\":{\"$binary\":{\"base64\":\"gAE=\",\"subType\":\"00\"}},\"_data\":\"01\"}",
        "{\"dec\":{\"$numberDecimal\":\"1.10\"},\"i\":{\"$numberInt\":\"7\"},\"nul\":\"a\\u0000b\"}",
        "{}",
    };
    size_t n = sizeof texts / sizeof texts [0];
    for (size_t i = 0; i < n; i++) {
        dlq_sink_checkpoint_t record = ckpt_full ("s");
        record.last_seen_token = texts [i];
        record.last_processed_token = texts [(i + 1) % n];
        record.metadata = texts [(i + 2) % n];
        bson_t update;
        ckpt_update (DLQ_SINK_CKPT_SAVE, &record, CKPT_NOW, &update);
        bson_t *doc = ckpt_apply (&update, NULL, "s");
        char *answer = ckpt_answer (doc), *want = ckpt_formatted (record, CKPT_NOW);
        cr_expect_str_eq (answer, want, "text %zu", i);
        free (answer);
        free (want);
        bson_destroy (doc);
        bson_destroy (&update);
    }
}

Test (mongo_doc, ckpt_a_token_libbson_cannot_read_is_refused)
{
    static const char *const unreadable [] = { "{\"k\\u0000\":1}", "{\"big\":1e99999}" };
    for (size_t i = 0; i < 2; i++) {
        dlq_sink_checkpoint_t record = ckpt_full ("s");
        record.last_processed_token = unreadable [i];
        char err [240] = "";
        bson_t update;
        cr_expect_eq (dlq_mongo_ckpt_update (DLQ_SINK_CKPT_SAVE, &record, CKPT_NOW, &update, err, sizeof err),
                      DLQ_MONGO_CKPT_BAD_TOKEN, "%s", unreadable [i]);
        cr_expect_not_null (strstr (err, "lastProcessedToken"), "the message names the field: %s", err);
        bson_destroy (&update);
        record = dlq_checkpoint_empty ("s");
        record.last_seen_token = unreadable [i];
        record.last_seen_at = CKPT_NOW;
        err [0] = '\0';
        cr_expect_eq (dlq_mongo_ckpt_update (DLQ_SINK_CKPT_SEEN, &record, CKPT_NOW, &update, err, sizeof err),
                      DLQ_MONGO_CKPT_BAD_TOKEN);
        cr_expect_not_null (strstr (err, "lastSeenToken"), "%s", err);
        bson_destroy (&update);

        record = ckpt_full ("s");
        record.metadata = unreadable [i];
        ckpt_update (DLQ_SINK_CKPT_SAVE, &record, CKPT_NOW, &update);
        bson_t *doc = ckpt_apply (&update, NULL, "s");
        cr_expect_eq (type_at (doc, DLQ_MONGO_CKPT_METADATA), BSON_TYPE_EOD, "no metadata document");
        char *answer = ckpt_answer (doc), *want = ckpt_formatted (record, CKPT_NOW);
        cr_expect_str_eq (answer, want, "metadata libbson cannot read is kept as its text");
        free (answer);
        free (want);
        bson_destroy (doc);
        bson_destroy (&update);
    }
    dlq_sink_checkpoint_t record = ckpt_full ("s");
    char err [240] = "";
    bson_t update;
    cr_expect_eq (dlq_mongo_ckpt_update ((dlq_sink_ckpt_write_t) 9, &record, CKPT_NOW, &update, err, sizeof err),
                  DLQ_MONGO_CKPT_BAD_KIND);
    bson_destroy (&update);
}

Test (mongo_doc, ckpt_a_stale_or_missing_text_answers_the_bson_field)
{
    /* as FlowWarden's own MongoCheckpointStore writes it: no text fields */
    bson_t *foreign = BCON_NEW ("_id", BCON_UTF8 ("orders"), "instanceId", BCON_UTF8 ("java-1"),
                                "lastSeenToken", "{", "_data", BCON_UTF8 ("82AA"), "n", BCON_INT64 (5),
                                                     "i", BCON_INT32 (7), "}",
                                "lastSeenTimestamp", BCON_DATE_TIME (CKPT_NOW),
                                "metadata", "{", "shard", BCON_INT32 (3), "big", BCON_INT64 (5), "}");
    char *answer = ckpt_answer (foreign);
    cr_expect_str_eq (answer, "{\"streamName\":\"orders\",\"instanceId\":\"java-1\","
                              "\"lastSeenToken\":{\"_data\":\"82AA\",\"n\":{\"$numberLong\":\"5\"},"
                              "\"i\":{\"$numberInt\":\"7\"}},\"lastSeenTimestamp\":\"2026-06-09T14:32:13.500Z\","
                              "\"metadata\":{\"shard\":3,\"big\":5}}");
    free (answer);
    bson_destroy (foreign);

    /* a text left behind by a writer that set only the BSON field */
    bson_t *stale = BCON_NEW ("_id", BCON_UTF8 ("orders"),
                              "lastSeenToken", "{", "_data", BCON_UTF8 ("new"), "}",
                              DLQ_MONGO_CKPT_SEEN_TEXT, BCON_UTF8 ("{\"_data\":\"old\"}"),
                              DLQ_MONGO_CKPT_PROCESSED_TEXT, BCON_UTF8 ("{\"_data\":\"removed\"}"),
                              DLQ_MONGO_CKPT_METADATA_TEXT, BCON_UTF8 ("{\"k\\u0000\":1}"),
                              "updatedAt", BCON_DATE_TIME (CKPT_NOW));
    answer = ckpt_answer (stale);
    cr_expect_str_eq (answer, "{\"streamName\":\"orders\",\"lastSeenToken\":{\"_data\":\"new\"},"
                              "\"metadata\":{\"k\\u0000\":1},\"updatedAt\":\"2026-06-09T14:32:13.500Z\"}",
                      "a stale text is not answered, a text without its field only when libbson cannot read it");
    free (answer);
    bson_destroy (stale);

    bson_t *odd = BCON_NEW ("_id", BCON_UTF8 ("x"), "lastSeenToken", BCON_UTF8 ("{}"),
                            "lastSeenTimestamp", BCON_UTF8 ("2026-06-09T00:00:00Z"), "instanceId", BCON_INT32 (1));
    answer = ckpt_answer (odd);
    cr_expect_str_eq (answer, "{\"streamName\":\"x\"}", "fields of other types are absent");
    free (answer);
    bson_destroy (odd);

    bson_oid_t oid;
    bson_oid_init_from_string (&oid, "0123456789abcdef01234567");
    bson_t *not_a_record = BCON_NEW ("_id", BCON_OID (&oid));
    dlq_buf_t json = DLQ_BUF_INIT;
    cr_expect_eq (dlq_mongo_ckpt_format (not_a_record, &json), DLQ_MONGO_CKPT_NOT_A_RECORD);
    cr_expect_eq (json.len, 0);
    dlq_buf_free (&json);
    bson_destroy (not_a_record);
}

Test (mongo_doc, ckpt_the_list_filter)
{
    static const struct { const char *prefix, *cursor, *id; bool match; } cases [] = {
        { NULL, NULL, "", true }, { "", NULL, "a", true }, { "a", NULL, "a", true }, { "a", NULL, "A", false },
        { "a", NULL, "ab", true }, { "a", NULL, "b", true /* past the prefix: the page stops there */ },
        { "a", "ab", "ab", false }, { "a", "ab", "ab\x01", true }, { "a", "ab", "aa", false },
        { "", "\xc3\xa9", "~", false }, { "", "~", "\xc3\xa9", true }, { "b", "a", "b", true },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases [0]; i++) {
        bson_t filter;
        dlq_mongo_ckpt_list_filter (cases [i].prefix, cases [i].cursor, &filter);
        bson_t *doc = BCON_NEW ("_id", BCON_UTF8 (cases [i].id));
        cr_expect_eq (query_matches (&filter, doc), cases [i].match, "case %zu", i);
        bson_destroy (doc);
        bson_t *number = BCON_NEW ("_id", BCON_INT32 (1));
        cr_expect_not (query_matches (&filter, number), "a non-string _id is never listed");
        bson_destroy (number);
        bson_destroy (&filter);
    }
    cr_expect (dlq_mongo_ckpt_has_prefix ("orders.v1", 9, "orders."));
    cr_expect (dlq_mongo_ckpt_has_prefix ("orders", 6, NULL));
    cr_expect (dlq_mongo_ckpt_has_prefix ("orders", 6, ""));
    cr_expect_not (dlq_mongo_ckpt_has_prefix ("orders", 6, "orders."));
    cr_expect_not (dlq_mongo_ckpt_has_prefix ("Orders", 6, "o"));
    cr_expect (dlq_mongo_ckpt_cursor_valid ("list/a/\xc3\xa9"));
    cr_expect_not (dlq_mongo_ckpt_cursor_valid ("\xff"));
    cr_expect_not (dlq_mongo_ckpt_cursor_valid ("a\xc3"));
    char *too_long = calloc (DLQ_CKPT_STREAM_MAX + 2, 1);
    memset (too_long, 'a', DLQ_CKPT_STREAM_MAX + 1);
    cr_expect_not (dlq_mongo_ckpt_cursor_valid (too_long));
    too_long [DLQ_CKPT_STREAM_MAX] = '\0';
    cr_expect (dlq_mongo_ckpt_cursor_valid (too_long));
    free (too_long);
}
