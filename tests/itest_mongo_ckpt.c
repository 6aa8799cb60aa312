/*  itest_mongo_ckpt — what the mongo sink's checkpoint calls
 *  (dlq_sink_checkpoint_ops_t) keep in _fw_checkpoints, against the
 *  MongoDB wire-protocol test server (tests/mongo/, run in the test
 *  process), or a real MongoDB when DLQD_TEST_MONGO_URI is set (each test
 *  in a database of its own, dropped at the end). The plugin is loaded in
 *  the test process as the gateway loads it, the documents read and
 *  written with mongo-c-driver:
 *
 *    - each kind of write in the document: SEEN / PROCESSED on a missing
 *      record create a document with only their pair (and its text), on a
 *      record touch no other field; SAVE leaves an absent field out;
 *    - a token is an embedded document beside its text; the documents
 *      have the BSON types of FlowWarden's MongoCheckpointStore (_id the
 *      name, tokens embedded documents with their extended JSON's types,
 *      dates); a document written by FlowWarden's own store (no text
 *      fields) is answered from its BSON; a token libbson cannot read
 *      fails the write, with why (metadata is kept as text only);
 *    - remove deletes the document; documents with a non-string _id are
 *      never listed;
 *    - the server's failures are ERROR with its words, a DuplicateKey is
 *      tried once more (test server only: injected faults, a server that
 *      is down).
 *
 *  What every store that keeps checkpoints must answer (each kind of
 *  write, tokens byte for byte, timestamps, NOT_FOUND, remove, LIST's
 *  order, prefix and cursor, writers at once, first writes racing) is the
 *  contract suite's (tests/contract, contract_checkpoints.c), run on this
 *  sink by contract_mongo; the checks are plugin_checkpoints.h's, which
 *  this suite calls where it looks behind them.
 *
 *  tests/CMakeLists.txt links this suite with mongo-c-driver (to look at
 *  the documents behind the plugin) and makes it depend on the plugin.
 */
#include "checkpoint.h"
#include "dlq_buf.h"
#include "mongo_support.h"
#include "plugin_checkpoints.h"
#include "plugin_host.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define COLLECTION  "_fw_checkpoints"
#define NOW         PLUGIN_CKPT_NOW

static mongo_db_t mongo;                /* the server, the test's database, a client */
static plugin_ckpt_t ck;                /* the plugin as sink "mg", its reader */

static void
setup (void)
{
    memset (&ck, 0, sizeof ck);
    mongo_db_open (&mongo, "dlqd_ckpt_");
}

static void
teardown (void)
{
    plugin_ckpt_close (&ck);
    mongo_db_close (&mongo);
}

TestSuite (mongo_ckpt, .init = setup, .fini = teardown, .timeout = 300);

/* ---- the plugin --------------------------------------------------------------------- */

/* Load the plugin (short server selection: a test stops the server) and
 * open a QUERY instance (the reader). */
static void
open_plugin (void)
{
    char err [512];
    cr_assert (mongo_db_plugin_load (&mongo, &ck.plugin, "mongoc = [ \"serverSelectionTimeoutMS=1500\" ];", NULL,
                                     err, sizeof err), "%s", err);
    plugin_ckpt_open (&ck);
}

static const dlq_sink_checkpoint_ops_t *
ckpt (void)
{
    return plugin_ckpt_ops (&ck);
}

static const char *
last_error (void *instance)
{
    return plugin_ckpt_error (&ck, instance);
}

/* ---- the documents behind the plugin ------------------------------------------------------ */

/* The document of stream in _fw_checkpoints; NULL when none. Caller
 * destroys. */
static bson_t *
document (const char *stream)
{
    return mongo_db_find (&mongo, COLLECTION, stream);
}

/* Insert doc into _fw_checkpoints. */
static void
insert (const bson_t *doc)
{
    mongo_db_insert (&mongo, COLLECTION, doc);
}

/* The names of doc's fields, comma-separated, into out. */
static void
field_names (const bson_t *doc, char *out, size_t len)
{
    bson_iter_t it;
    size_t n = 0;
    out [0] = '\0';
    cr_assert (bson_iter_init (&it, doc));
    while (bson_iter_next (&it))
        n += (size_t) snprintf (out + n, n < len ? len - n : 0, "%s%s", n ? "," : "", bson_iter_key (&it));
}

/* stream's document has exactly the fields names (in order). */
static void
expect_fields (const char *stream, const char *names)
{
    bson_t *doc = document (stream);
    cr_assert_not_null (doc, "no document for %s", stream);
    char got [512];
    field_names (doc, got, sizeof got);
    cr_expect_str_eq (got, names, "the fields of %s's document", stream);
    bson_destroy (doc);
}

/* ---- writes ---------------------------------------------------------------------------- */

/* stream's document has only the pair of kind (and its text). */
static void
only_pair (const char *stream, dlq_sink_ckpt_write_t kind)
{
    if (kind == DLQ_SINK_CKPT_SEEN)
        expect_fields (stream, "_id,lastSeenToken,_fw_lastSeenToken,lastSeenTimestamp,updatedAt");
    else
        expect_fields (stream, "_id,lastProcessedToken,_fw_lastProcessedToken,lastProcessedTimestamp,updatedAt");
}

static void
every_field (const char *stream)
{
    expect_fields (stream, "_id,instanceId,lastSeenToken,_fw_lastSeenToken,lastSeenTimestamp,lastProcessedToken,"
                           "_fw_lastProcessedToken,lastProcessedTimestamp,metadata,_fw_metadata,updatedAt");
}

static void
instance_and_processed_pair (const char *stream)
{
    expect_fields (stream, "_id,instanceId,lastProcessedToken,_fw_lastProcessedToken,lastProcessedTimestamp,"
                           "updatedAt");
}

static void
no_field (const char *stream)
{
    expect_fields (stream, "_id,updatedAt");
}

Test (mongo_ckpt, each_kind_of_write_shows_in_the_document)
{
    open_plugin ();
    plugin_ckpt_expect_first_writes (&ck, only_pair);
    plugin_ckpt_expect_pairs_only (&ck, every_field);
    dlq_sink_checkpoint_t partial = dlq_checkpoint_empty ("orders");
    partial.instance_id = "worker-8";
    partial.last_processed_token = "{\"_data\":\"8300\"}";
    partial.last_processed_at = NOW + 1000;
    plugin_ckpt_expect_saves (&ck, &partial, instance_and_processed_pair, no_field);
}

/* Texts as the gateway's dlq_json_write makes them: key order, escapes,
 * numbers as written, wrappers libbson writes otherwise. */
static const char *const texts [] = {
    "{\"x\":{\"$numberLong\":\"5\"}}",
    "{\"_data\":\"826A\",\"z\":1,\"a\":{\"$numberLong\":\"9007199254740993\"}}",
    "{\"k\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\",\"esc\":\"\\\"\\\\\\n\\t\\u0001\","
    "\"\xe6\x97\xa5\":\"\xe6\x9c\xac\"}",
    "{\"n\":1.50,\"m\":-0,\"e\":1E+2,\"f\":[0.1e-3,100000000000000000000000000001]}",
    "{\"nested\":{\"deep\":[{\"x\":[]},{}],\"o\":{\"p\":{\"q\":{\"r\":null}}}},\"empty\":\"\"}",
    "{\"_typeBits\":{\"$binary\":{\"base64\":\"gAE=\",\"subType\":\"00\"}},\"_data\":\"01\"}",
    "{\"dec\":{\"$numberDecimal\":\"1.10\"},\"i\":{\"$numberInt\":\"7\"},"
    "\"t\":{\"$date\":{\"$numberLong\":\"1781000000000\"}},\"id\":{\"$oid\":\"0123456789abcdef01234567\"}}",
    "{\"a\":1,\"a\":2}",
    "{}",
};

/* The text field holds text, the token field a document. */
static void
text_and_document (const char *stream, const char *text)
{
    bson_t *doc = document (stream);
    bson_iter_t it;
    cr_assert (bson_iter_init_find (&it, doc, "_fw_lastSeenToken") && BSON_ITER_HOLDS_UTF8 (&it));
    cr_expect_str_eq (bson_iter_utf8 (&it, NULL), text, "the text field");
    cr_expect_eq (mongo_db_type_at (doc, "lastSeenToken"), BSON_TYPE_DOCUMENT, "the token as a document");
    bson_destroy (doc);
}

Test (mongo_ckpt, a_token_is_a_document_beside_its_text)
{
    open_plugin ();
    plugin_ckpt_expect_texts (&ck, texts, sizeof texts / sizeof texts [0], text_and_document);
}

Test (mongo_ckpt, the_documents_have_mongo_checkpoint_store_bson_types)
{
    open_plugin ();
    dlq_sink_checkpoint_t record = plugin_ckpt_full ("orders");
    record.last_seen_token = texts [6];
    record.last_processed_token = texts [0];
    free (plugin_ckpt_write (&ck, ck.reader, DLQ_SINK_CKPT_SAVE, &record, NOW));
    bson_t *doc = document ("orders");
    cr_assert_not_null (doc);
    static const struct { const char *path; bson_type_t type; } fields [] = {
        { "_id", BSON_TYPE_UTF8 }, { "instanceId", BSON_TYPE_UTF8 },
        { "lastSeenToken", BSON_TYPE_DOCUMENT }, { "lastSeenToken.dec", BSON_TYPE_DECIMAL128 },
        { "lastSeenToken.i", BSON_TYPE_INT32 }, { "lastSeenToken.t", BSON_TYPE_DATE_TIME },
        { "lastSeenToken.id", BSON_TYPE_OID }, { "lastSeenTimestamp", BSON_TYPE_DATE_TIME },
        { "lastProcessedToken", BSON_TYPE_DOCUMENT }, { "lastProcessedToken.x", BSON_TYPE_INT64 },
        { "lastProcessedTimestamp", BSON_TYPE_DATE_TIME }, { "metadata", BSON_TYPE_DOCUMENT },
        { "metadata.tenant", BSON_TYPE_UTF8 }, { "metadata.shard", BSON_TYPE_DOUBLE },
        { "metadata.tags", BSON_TYPE_ARRAY }, { "updatedAt", BSON_TYPE_DATE_TIME },
        { "_fw_lastSeenToken", BSON_TYPE_UTF8 }, { "_fw_lastProcessedToken", BSON_TYPE_UTF8 },
        { "_fw_metadata", BSON_TYPE_UTF8 },
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields [0]; i++)
        cr_expect_eq (mongo_db_type_at (doc, fields [i].path), fields [i].type, "%s: type 0x%02x, want 0x%02x",
                      fields [i].path, (unsigned) mongo_db_type_at (doc, fields [i].path), (unsigned) fields [i].type);
    bson_iter_t it, found;
    cr_assert (bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, "lastSeenTimestamp", &found));
    cr_expect_eq (bson_iter_date_time (&found), NOW - 2000);
    cr_assert (bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, "lastProcessedToken.x", &found));
    cr_expect_eq (bson_iter_int64 (&found), 5, "{\"$numberLong\":\"5\"} is the int64 5");
    cr_assert (bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, "updatedAt", &found));
    cr_expect_eq (bson_iter_date_time (&found), NOW, "updatedAt is the caller's now_ms");
    bson_destroy (doc);
}

Test (mongo_ckpt, a_document_of_flowwardens_own_store_is_answered_from_its_bson)
{
    open_plugin ();
    bson_t *foreign = BCON_NEW ("_id", BCON_UTF8 ("java"), "instanceId", BCON_UTF8 ("pod-1"),
                                "lastSeenToken", "{", "_data", BCON_UTF8 ("82AA"), "n", BCON_INT64 (5), "}",
                                "lastSeenTimestamp", BCON_DATE_TIME (NOW - 1000),
                                "lastProcessedToken", "{", "_data", BCON_UTF8 ("82A0"), "}",
                                "lastProcessedTimestamp", BCON_DATE_TIME (NOW - 2000),
                                "metadata", "{", "shard", BCON_INT32 (3), "}");
    insert (foreign);
    bson_destroy (foreign);
    char *answer = plugin_ckpt_get (&ck, "java");
    cr_expect_str_eq (answer, "{\"streamName\":\"java\",\"instanceId\":\"pod-1\","
                              "\"lastSeenToken\":{\"_data\":\"82AA\",\"n\":{\"$numberLong\":\"5\"}},"
                              "\"lastSeenTimestamp\":\"2026-06-09T14:32:12.500Z\","
                              "\"lastProcessedToken\":{\"_data\":\"82A0\"},"
                              "\"lastProcessedTimestamp\":\"2026-06-09T14:32:11.500Z\",\"metadata\":{\"shard\":3}}");
    free (answer);

    /* our SEEN, then their targeted write of the seen token alone: theirs counts */
    dlq_sink_checkpoint_t seen = plugin_ckpt_token (DLQ_SINK_CKPT_SEEN, "java", "{\"_data\":\"82AB\"}", NOW);
    free (plugin_ckpt_write (&ck, ck.reader, DLQ_SINK_CKPT_SEEN, &seen, NOW));
    mongoc_collection_t *collection = mongoc_client_get_collection (mongo.client, mongo.database, COLLECTION);
    bson_t *query = BCON_NEW ("_id", BCON_UTF8 ("java"));
    bson_t *update = BCON_NEW ("$set", "{", "lastSeenToken", "{", "_data", BCON_UTF8 ("82AC"), "}",
                               "lastSeenTimestamp", BCON_DATE_TIME (NOW + 1), "}");
    bson_error_t error;
    cr_assert (mongoc_collection_update_one (collection, query, update, NULL, NULL, &error), "%s", error.message);
    bson_destroy (update);
    bson_destroy (query);
    mongoc_collection_destroy (collection);
    answer = plugin_ckpt_get (&ck, "java");
    cr_expect_not_null (strstr (answer, "\"lastSeenToken\":{\"_data\":\"82AC\"},"
                                        "\"lastSeenTimestamp\":\"2026-06-09T14:32:13.501Z\""),
                        "a text the BSON field moved away from is stale: %s", answer);
    free (answer);
}

Test (mongo_ckpt, a_token_libbson_cannot_read_fails_the_write_with_why)
{
    open_plugin ();
    dlq_sink_checkpoint_t record = plugin_ckpt_full ("orders");
    free (plugin_ckpt_write (&ck, ck.reader, DLQ_SINK_CKPT_SAVE, &record, NOW));
    char *before = plugin_ckpt_get (&ck, "orders");
    static const char *const unreadable [] = { "{\"k\\u0000\":1}", "{\"big\":1e99999}" };
    for (size_t i = 0; i < 2; i++) {
        dlq_sink_checkpoint_t bad = plugin_ckpt_token (DLQ_SINK_CKPT_SEEN, "orders", unreadable [i], NOW + 1);
        dlq_buf_t out = DLQ_BUF_INIT;
        cr_expect_eq (ckpt ()->write (ck.reader, DLQ_SINK_CKPT_SEEN, &bad, NOW + 1, dlq_plugin_host_buf (&out)),
                      DLQ_SINK_STATUS_ERROR, "%s", unreadable [i]);
        cr_expect_eq (out.len, 0, "nothing answered");
        cr_expect_not_null (strstr (last_error (ck.reader), "lastSeenToken"), "%s", last_error (ck.reader));
        cr_expect_not_null (strstr (last_error (ck.reader), "libbson"), "%s", last_error (ck.reader));
        dlq_buf_free (&out);
        bad = plugin_ckpt_token (DLQ_SINK_CKPT_PROCESSED, "fresh", unreadable [i], NOW + 1);
        cr_expect_eq (ckpt ()->write (ck.reader, DLQ_SINK_CKPT_PROCESSED, &bad, NOW + 1, dlq_plugin_host_buf (&out)),
                      DLQ_SINK_STATUS_ERROR);
        dlq_buf_free (&out);
    }
    char *after = plugin_ckpt_get (&ck, "orders"), *fresh = plugin_ckpt_get (&ck, "fresh");
    cr_expect_str_eq (after, before, "a refused write changes nothing");
    cr_expect_null (fresh, "nor creates anything");
    free (before);
    free (after);
    free (fresh);

    record = plugin_ckpt_full ("meta");
    record.metadata = unreadable [0];
    dlq_sink_checkpoint_t want = record;
    want.updated_at = NOW;
    plugin_ckpt_expect_write (&ck, DLQ_SINK_CKPT_SAVE, &record, NOW, &want);
    bson_t *doc = document ("meta");
    cr_expect_eq (mongo_db_type_at (doc, "metadata"), BSON_TYPE_EOD,
                  "metadata libbson cannot read is kept as text only");
    bson_destroy (doc);
}

/* ---- remove ------------------------------------------------------------------------------ */

static void
no_document (const char *stream)
{
    bson_t *doc = document (stream);
    cr_expect_null (doc, "the document is gone");
    if (doc)
        bson_destroy (doc);
}

Test (mongo_ckpt, remove_deletes_the_document)
{
    open_plugin ();
    dlq_sink_checkpoint_t record = plugin_ckpt_full ("orders");
    free (plugin_ckpt_write (&ck, ck.reader, DLQ_SINK_CKPT_SAVE, &record, NOW));
    bool deleted = false;
    cr_assert_eq (ckpt ()->remove (ck.reader, "orders", &deleted), DLQ_SINK_STATUS_OK, "%s", last_error (ck.reader));
    cr_expect (deleted);
    no_document ("orders");
}

/* ---- list ------------------------------------------------------------------------------- */

/* The names of plugin_checkpoints.h, and documents that are not records
 * (a non-string _id) around them. */
static void
store_names (void)
{
    open_plugin ();
    plugin_ckpt_store_names (&ck);
    bson_oid_t oid;
    bson_oid_init_from_string (&oid, "0123456789abcdef01234567");
    bson_t *odd [] = { BCON_NEW ("_id", BCON_INT32 (7)), BCON_NEW ("_id", BCON_OID (&oid)),
                       BCON_NEW ("_id", "{", "a", BCON_UTF8 ("b"), "}") };
    for (size_t i = 0; i < 3; i++) {
        insert (odd [i]);
        bson_destroy (odd [i]);
    }
}

Test (mongo_ckpt, a_document_with_a_non_string_id_is_never_listed)
{
    store_names ();
    plugin_ckpt_expect_list_pages (&ck);
    plugin_ckpt_expect_cursors (&ck);
}

/* ---- the server's failures ------------------------------------------------------------------ */

Test (mongo_ckpt, a_duplicate_key_is_tried_once_more)
{
    mongo_db_need_test_server (&mongo, "the test server's faults");
    open_plugin ();
    mongo_server_fail_command (mongo.server, "findAndModify", 1, 11000, NULL, "E11000 duplicate key (injected)", NULL);
    dlq_sink_checkpoint_t seen = plugin_ckpt_token (DLQ_SINK_CKPT_SEEN, "dup", "{\"_data\":\"1\"}", NOW);
    dlq_sink_checkpoint_t want = seen;
    want.updated_at = NOW;
    plugin_ckpt_expect_write (&ck, DLQ_SINK_CKPT_SEEN, &seen, NOW, &want);

    mongo_server_fail_command (mongo.server, "findAndModify", 2, 11000, NULL, "E11000 duplicate key (injected)", NULL);
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_expect_eq (ckpt ()->write (ck.reader, DLQ_SINK_CKPT_SEEN, &seen, NOW, dlq_plugin_host_buf (&out)), DLQ_SINK_STATUS_ERROR);
    cr_expect_not_null (strstr (last_error (ck.reader), "duplicate key"), "%s", last_error (ck.reader));
    cr_expect_eq (out.len, 0);
    dlq_buf_free (&out);
}

Test (mongo_ckpt, the_servers_failures_are_errors_with_its_words)
{
    mongo_db_need_test_server (&mongo, "the test server's faults");
    open_plugin ();
    dlq_sink_checkpoint_t record = plugin_ckpt_full ("orders");
    free (plugin_ckpt_write (&ck, ck.reader, DLQ_SINK_CKPT_SAVE, &record, NOW));
    dlq_buf_t out = DLQ_BUF_INIT, next = DLQ_BUF_INIT;
    /* Unauthorized (13): not a transient error the driver would retry a read on */
    mongo_server_fail_command (mongo.server, "findAndModify", 1, 13, NULL, "write refused (injected)", NULL);
    cr_expect_eq (ckpt ()->write (ck.reader, DLQ_SINK_CKPT_SAVE, &record, NOW, dlq_plugin_host_buf (&out)),
                  DLQ_SINK_STATUS_ERROR);
    cr_expect_not_null (strstr (last_error (ck.reader), "write refused (injected)"), "%s", last_error (ck.reader));
    mongo_server_fail_command (mongo.server, "find", 1, 13, NULL, "find refused (injected)", NULL);
    cr_expect_eq (ckpt ()->get (ck.reader, "orders", dlq_plugin_host_buf (&out)), DLQ_SINK_STATUS_ERROR);
    cr_expect_not_null (strstr (last_error (ck.reader), "find refused"), "%s", last_error (ck.reader));
    mongo_server_fail_command (mongo.server, "find", 1, 13, NULL, "list refused (injected)", NULL);
    cr_expect_eq (ckpt ()->list (ck.reader, "", 10, NULL, dlq_plugin_host_buf (&out), dlq_plugin_host_buf (&next)),
                  DLQ_SINK_STATUS_ERROR);
    cr_expect_not_null (strstr (last_error (ck.reader), "list refused"), "%s", last_error (ck.reader));
    mongo_server_fail_command (mongo.server, "delete", 1, 13, NULL, "delete refused (injected)", NULL);
    bool deleted = true;
    cr_expect_eq (ckpt ()->remove (ck.reader, "orders", &deleted), DLQ_SINK_STATUS_ERROR);
    cr_expect_not (deleted);
    cr_expect_not_null (strstr (last_error (ck.reader), "delete refused"), "%s", last_error (ck.reader));
    cr_expect_eq (out.len + next.len, 0, "nothing written on ERROR");

    cr_assert (mongo_server_set_down (mongo.server, true));
    cr_expect_eq (ckpt ()->write (ck.reader, DLQ_SINK_CKPT_SAVE, &record, NOW, dlq_plugin_host_buf (&out)),
                  DLQ_SINK_STATUS_ERROR);
    cr_expect_neq (last_error (ck.reader) [0], '\0');
    cr_log_info ("server down: %s", last_error (ck.reader));
    cr_assert (mongo_server_set_down (mongo.server, false));
    dlq_sink_status_t status = DLQ_SINK_STATUS_ERROR;
    for (int tries = 0; tries < 40 && status != DLQ_SINK_STATUS_OK; tries++) {
        dlq_buf_reset (&out);
        status = ckpt ()->get (ck.reader, "orders", dlq_plugin_host_buf (&out));
        if (status != DLQ_SINK_STATUS_OK)
            usleep (250000);        /* the driver's cooldown after a failed check */
    }
    cr_expect_eq (status, DLQ_SINK_STATUS_OK, "the record once the server is back: %s", last_error (ck.reader));
    dlq_buf_free (&out);
    dlq_buf_free (&next);
}
