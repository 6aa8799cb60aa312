/*  test_mongo_doc — the mongo sink's documents, without a server: seed
 *  001's example as native BSON (ObjectId, Decimal128, dates, int32, a
 *  metadata document, the canonical body kept as is), an event kept
 *  forever (no expiresAt), the index document, collection names MongoDB
 *  refuses, and the LIST cursor.
 */
#include "event_support.h"
#include "mongo_doc.h"

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
