/*  test_mongo_doc — the mongo sink's documents, without a server: seed
 *  001's example as native BSON (ObjectId, Decimal128, dates, int32, a
 *  metadata document, the canonical body kept as is), an event kept
 *  forever (no expiresAt), the index document, collection names MongoDB
 *  refuses, and the LIST cursor; the workbench's documents: the
 *  fingerprint and replay state an event starts with, the state of a
 *  document from before them, each mark's update, and the queries
 *  (filters, the page, due events, the lock) evaluated on documents by
 *  the test server's matcher (tests/mongo/mongo_match.h, no server
 *  running) against the reference predicate.
 */
#include "dlq_buf.h"
#include "event_filter.h"
#include "event_support.h"
#include "mongo_doc.h"
#include "mongo_filter.h"
#include "mongo_match.h"
#include "mongo_state.h"

#include <criterion/criterion.h>
#include <string.h>

#define SEED_001_ID "c2e8a5b6-0f1e-4c3a-9b7d-2a1f0e9d8c7b"

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

Test (mongo_doc, seed_001_as_native_bson)
{
    dlq_event_t *e = event_seed_001 ();
    dlq_sink_event_t event = event_for_sink (e, NULL, 0, 30);
    bson_t doc;
    char err [200] = "";
    cr_assert (dlq_mongo_event_doc (&event, &doc, err, sizeof err), "%s", err);

    bson_iter_t it = at (&doc, "_id");
    cr_expect_str_eq (bson_iter_utf8 (&it, NULL), SEED_001_ID);
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
    dlq_mongo_cursor_format (1781015533500LL, SEED_001_ID, cursor);
    cr_expect_str_eq (cursor, "1781015533500." SEED_001_ID);
    cr_expect (dlq_mongo_cursor_parse (cursor, &t, id, sizeof id));
    cr_expect_eq (t, 1781015533500LL);
    cr_expect_str_eq (id, SEED_001_ID);
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
    cr_expect_not (dlq_mongo_cursor_parse ("1." SEED_001_ID "x", &t, id, sizeof id));
    cr_expect (dlq_mongo_cursor_parse ("-5." SEED_001_ID, &t, id, sizeof id), "any createdAt");
    cr_expect_eq (t, -5);
}

/* ---- the replay state and the fingerprint ------------------------------------------ */

Test (mongo_doc, an_event_starts_with_its_fingerprint_and_replay_state)
{
    dlq_event_t *e = event_seed_001 ();
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
    bson_t *old = BCON_NEW ("_id", BCON_UTF8 (SEED_001_ID), "status", BCON_UTF8 ("PENDING"),
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
        cr_assert (dlq_mongo_filter_parse (small_filters [f], &filter, err, sizeof err), "%s", err);
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
    cr_assert (dlq_mongo_filter_parse (request, &filter, err, sizeof err), "%s", err);
    bson_t query;
    dlq_mongo_filter_query (&filter, now, &query);
    cr_expect (query_matches (&query, &docs [0]));
    cr_expect_not (query_matches (&query, &docs [1]), "another error, another fingerprint");
    bson_destroy (&query);
    dlq_event_filter_free (&filter);
    cr_expect_not (dlq_mongo_filter_parse ("{\"attemptsMin\":-1}", &filter, err, sizeof err));
    cr_expect_not (dlq_mongo_filter_parse ("{", &filter, err, sizeof err));
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
