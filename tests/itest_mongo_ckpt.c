/*  itest_mongo_ckpt — the mongo sink's checkpoint calls
 *  (dlq_sink_checkpoint_ops_t) against the MongoDB wire-protocol test
 *  server (tests/mongo/, run in the test process), or a real MongoDB when
 *  DLQD_TEST_MONGO_URI is set (each test in a database of its own,
 *  dropped at the end). The plugin is loaded in the test process as the
 *  gateway loads it:
 *
 *    - each kind of write: SEEN / PROCESSED on a missing record create it
 *      with only their pair, on a record change only their pair (and
 *      updatedAt), also when given the other fields; SAVE replaces every
 *      field (an absent one is absent from the document); each write
 *      answers the record after it, as GET does, as core's
 *      dlq_checkpoint_format writes it;
 *    - tokens and metadata come back byte for byte ({"$numberLong":"5"},
 *      key order, nesting, unicode, escapes, numbers as written); the
 *      documents have seed 004's BSON types (_id the name, tokens embedded
 *      documents with their extended JSON's types, dates); a document
 *      written by seed 004's own store (no text fields) is answered from
 *      its BSON; a token libbson cannot read fails the write, with why;
 *    - GET of a missing record is NOT_FOUND; remove says whether there
 *      was one;
 *    - LIST pages in byte order of the name, with a literal prefix, a
 *      keyset cursor, BAD_CURSOR for a name that cannot be one; documents
 *      with a non-string _id are never listed;
 *    - two instances on their own threads writing 2,000 SEEN and 2,000
 *      PROCESSED of one stream at once never undo each other: the final
 *      record has the last token of each; first writes of new streams
 *      racing from two instances all succeed (a DuplicateKey is tried
 *      again);
 *    - the server's failures are ERROR with its words (test server only:
 *      injected faults, a server that is down).
 *
 *  tests/CMakeLists.txt links this suite with mongo-c-driver (to look at
 *  the documents behind the plugin) and makes it depend on the plugin.
 */
#include "checkpoint.h"
#include "dlq_buf.h"
#include "dlq_json.h"
#include "dlqd_config.h"
#include "mongo_server.h"
#include "sink_host.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <mongoc/mongoc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define URI_ENV     "DLQD_TEST_MONGO_URI"
#define PLUGIN      DLQD_PLUGIN_DIR "/libdlq_sink_mongo.so"
#define COLLECTION  "_fw_checkpoints"
#define NOW         1781015533500LL
#define CONCURRENT  2000            /* writes of each thread */
#define RACED       1000            /* new streams two instances write first at once */

/* The plugin loaded through a dlqd.conf of its own, as sink "mg". */
typedef struct {
    char                   dir [256];
    dlqd_config_t         *config;
    dlq_sink_config_t     *sink;
    const dlq_sink_ops_t  *ops;
    const dlq_sink_host_t *host;
} plugin_t;

static mongo_server_t *server;          /* NULL against a real MongoDB */
static mongoc_client_t *client;
static char uri [512];
static char database [64];
static plugin_t plugin;
static void *reader;

static void
setup (void)
{
    memset (&plugin, 0, sizeof plugin);
    reader = NULL;
    mongoc_init ();
    const char *real = getenv (URI_ENV);
    if (real && *real)
        snprintf (uri, sizeof uri, "%s", real);
    else {
        server = mongo_server_new (0);
        cr_assert_not_null (server, "the MongoDB test server does not start");
        snprintf (uri, sizeof uri, "%s", mongo_server_uri (server));
    }
    snprintf (database, sizeof database, "dlqd_ckpt_%llx", (unsigned long long) (test_random_u64 () & 0xffffffffffULL));
    client = mongoc_client_new (uri);
    cr_assert_not_null (client, "bad uri %s", uri);
}

static void
teardown (void)
{
    if (reader)
        plugin.ops->destroy (reader);
    dlqd_config_destroy (&plugin.config);
    if (plugin.dir [0])
        test_rmtree (plugin.dir);
    if (client) {
        if (!server) {
            mongoc_database_t *db = mongoc_client_get_database (client, database);
            mongoc_database_drop (db, NULL);
            mongoc_database_destroy (db);
        }
        mongoc_client_destroy (client);
        client = NULL;
    }
    mongo_server_destroy (&server);
}

TestSuite (mongo_ckpt, .init = setup, .fini = teardown, .timeout = 300);

static void
need_test_server (void)
{
    if (!server)
        cr_skip_test ("needs the test server's faults (" URI_ENV " is set)");
}

/* ---- the plugin --------------------------------------------------------------------- */

static void *
open_instance (void)
{
    void *instance = NULL;
    char err [512] = "";
    cr_assert_eq (plugin.ops->init (plugin.host, plugin.sink, DLQ_SINK_MODE_QUERY, &instance, err, sizeof err),
                  DLQ_SINK_STATUS_OK, "init: %s", err);
    return instance;
}

/* Load the plugin (short server selection: a test stops the server) and
 * open a QUERY instance (reader). */
static void
open_plugin (void)
{
    test_tmpdir (plugin.dir);
    char path [320];
    snprintf (path, sizeof path, "%s/dlqd.conf", plugin.dir);
    FILE *f = fopen (path, "w");
    cr_assert_not_null (f);
    fprintf (f, "sinks: { mg: { type = \"plugin\"; path = \"%s\"; uri = \"%s\"; database = \"%s\";\n"
                "               mongoc = [ \"serverSelectionTimeoutMS=1500\" ]; }; };\n", PLUGIN, uri, database);
    cr_assert_eq (fclose (f), 0);
    char *why = NULL;
    cr_assert_eq (dlqd_config_load (path, &plugin.config, &why), DLQD_CONFIG_OK, "the config is refused: %s",
                  why ? why : "?");
    plugin.sink = dlqd_config_sink (plugin.config, "mg");
    cr_assert_not_null (plugin.sink);
    plugin.ops = dlq_sink_config_ops (plugin.sink);
    plugin.host = dlq_sink_host ();
    cr_assert (DLQ_SINK_OPS_HAS (plugin.ops, checkpoints) && plugin.ops->checkpoints, "no checkpoint calls");
    cr_assert_eq (plugin.ops->checkpoints->struct_size, sizeof (dlq_sink_checkpoint_ops_t));
    reader = open_instance ();
}

static const dlq_sink_checkpoint_ops_t *
ckpt (void)
{
    return plugin.ops->checkpoints;
}

static const char *
last_error (void *instance)
{
    return plugin.ops->store->last_error (instance);
}

/* record as dlq_checkpoint_format writes it. Caller frees. */
static char *
formatted (const dlq_sink_checkpoint_t *record)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_checkpoint_format (record, &out);
    dlq_buf_putc (&out, '\0');
    return dlq_buf_steal (&out, NULL);
}

/* Write record as kind says at now through instance; must be OK. The
 * answer; caller frees. */
static char *
write_on (void *instance, dlq_sink_ckpt_write_t kind, const dlq_sink_checkpoint_t *record, int64_t now)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (ckpt ()->write (instance, kind, record, now, dlq_sink_buf (&out)), DLQ_SINK_STATUS_OK,
                  "write %d of %s: %s", (int) kind, record->stream_name, last_error (instance));
    dlq_buf_putc (&out, '\0');
    return dlq_buf_steal (&out, NULL);
}

/* GET stream: its record, or NULL when NOT_FOUND. Caller frees. */
static char *
get (const char *stream)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_sink_status_t status = ckpt ()->get (reader, stream, dlq_sink_buf (&out));
    cr_assert (status == DLQ_SINK_STATUS_OK || status == DLQ_SINK_STATUS_NOT_FOUND, "get %s: %s", stream,
               last_error (reader));
    if (status == DLQ_SINK_STATUS_NOT_FOUND) {
        cr_expect_eq (out.len, 0, "NOT_FOUND writes nothing");
        dlq_buf_free (&out);
        return NULL;
    }
    dlq_buf_putc (&out, '\0');
    return dlq_buf_steal (&out, NULL);
}

/* A write of kind answers want, and GET then gives want too. */
static void
expect_write (dlq_sink_ckpt_write_t kind, const dlq_sink_checkpoint_t *record, int64_t now,
              const dlq_sink_checkpoint_t *want)
{
    char *expected = formatted (want), *got = write_on (reader, kind, record, now), *again = get (want->stream_name);
    cr_expect_str_eq (got, expected, "the answer of write %d:\n%s\nwant\n%s", (int) kind, got, expected);
    cr_expect_str_eq (again ? again : "(NOT_FOUND)", expected, "GET after write %d:\n%s\nwant\n%s", (int) kind,
                      again ? again : "(NOT_FOUND)", expected);
    free (expected);
    free (got);
    free (again);
}

/* A SEEN or PROCESSED request's record: stream, the token, its time. */
static dlq_sink_checkpoint_t
token_write (dlq_sink_ckpt_write_t kind, const char *stream, const char *token, int64_t at)
{
    dlq_sink_checkpoint_t r = dlq_checkpoint_empty (stream);
    if (kind == DLQ_SINK_CKPT_SEEN) {
        r.last_seen_token = token;
        r.last_seen_at = at;
    } else {
        r.last_processed_token = token;
        r.last_processed_at = at;
    }
    return r;
}

/* A record with every field set. */
static dlq_sink_checkpoint_t
full (const char *stream)
{
    dlq_sink_checkpoint_t r = dlq_checkpoint_empty (stream);
    r.instance_id = "worker-7";
    r.last_seen_token = "{\"_data\":\"8265F0A1B2000000022B\"}";
    r.last_seen_at = NOW - 2000;
    r.last_processed_token = "{\"_data\":\"8265F0A1B2000000012B\"}";
    r.last_processed_at = NOW - 3000;
    r.metadata = "{\"tenant\":\"acme\",\"shard\":2.0,\"tags\":[\"x\",null,true]}";
    return r;
}

/* ---- the documents behind the plugin ------------------------------------------------------ */

/* The document of stream in _fw_checkpoints, via the driver; NULL when
 * none. Caller destroys. */
static bson_t *
document (const char *stream)
{
    mongoc_collection_t *collection = mongoc_client_get_collection (client, database, COLLECTION);
    bson_t *filter = BCON_NEW ("_id", BCON_UTF8 (stream));
    mongoc_cursor_t *cursor = mongoc_collection_find_with_opts (collection, filter, NULL, NULL);
    const bson_t *doc;
    bson_t *copy = mongoc_cursor_next (cursor, &doc) ? bson_copy (doc) : NULL;
    bson_error_t error;
    cr_assert_not (mongoc_cursor_error (cursor, &error), "find: %s", error.message);
    mongoc_cursor_destroy (cursor);
    bson_destroy (filter);
    mongoc_collection_destroy (collection);
    return copy;
}

/* Insert doc into _fw_checkpoints via the driver. */
static void
insert (const bson_t *doc)
{
    mongoc_collection_t *collection = mongoc_client_get_collection (client, database, COLLECTION);
    bson_error_t error;
    cr_assert (mongoc_collection_insert_one (collection, doc, NULL, NULL, &error), "insert: %s", error.message);
    mongoc_collection_destroy (collection);
}

static bson_type_t
type_at (const bson_t *doc, const char *path)
{
    bson_iter_t it, found;
    cr_assert (bson_iter_init (&it, doc));
    return bson_iter_find_descendant (&it, path, &found) ? bson_iter_type (&found) : BSON_TYPE_EOD;
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

Test (mongo_ckpt, seen_or_processed_on_a_missing_record_creates_it_with_only_that_pair)
{
    open_plugin ();
    dlq_sink_checkpoint_t seen = token_write (DLQ_SINK_CKPT_SEEN, "orders", "{\"_data\":\"82AA\"}", NOW - 500);
    dlq_sink_checkpoint_t want = seen;
    want.updated_at = NOW;
    expect_write (DLQ_SINK_CKPT_SEEN, &seen, NOW, &want);
    expect_fields ("orders", "_id,lastSeenToken,_fw_lastSeenToken,lastSeenTimestamp,updatedAt");

    dlq_sink_checkpoint_t done = token_write (DLQ_SINK_CKPT_PROCESSED, "payments", "{\"_data\":\"82BB\"}", NOW - 700);
    want = done;
    want.updated_at = NOW + 1;
    expect_write (DLQ_SINK_CKPT_PROCESSED, &done, NOW + 1, &want);
    expect_fields ("payments", "_id,lastProcessedToken,_fw_lastProcessedToken,lastProcessedTimestamp,updatedAt");

    char *other = get ("orders");
    dlq_sink_checkpoint_t orders_record = seen;
    orders_record.updated_at = NOW;
    char *orders = formatted (&orders_record);
    cr_expect_str_eq (other, orders, "another stream's write leaves it");
    free (other);
    free (orders);
}

Test (mongo_ckpt, seen_and_processed_never_touch_the_other_fields)
{
    open_plugin ();
    dlq_sink_checkpoint_t record = full ("orders");
    dlq_sink_checkpoint_t want = record;
    want.updated_at = NOW;
    expect_write (DLQ_SINK_CKPT_SAVE, &record, NOW, &want);

    dlq_sink_checkpoint_t seen = token_write (DLQ_SINK_CKPT_SEEN, "orders", "{\"_data\":\"82CC\",\"n\":1}", NOW + 10);
    want.last_seen_token = seen.last_seen_token;
    want.last_seen_at = NOW + 10;
    want.updated_at = NOW + 20;
    expect_write (DLQ_SINK_CKPT_SEEN, &seen, NOW + 20, &want);

    dlq_sink_checkpoint_t done = token_write (DLQ_SINK_CKPT_PROCESSED, "orders", "{\"_data\":\"82DD\"}", NOW + 5);
    want.last_processed_token = done.last_processed_token;
    want.last_processed_at = NOW + 5;
    want.updated_at = NOW + 30;
    expect_write (DLQ_SINK_CKPT_PROCESSED, &done, NOW + 30, &want);

    /* a SEEN given every field still writes only its pair; a PROCESSED the same */
    dlq_sink_checkpoint_t stray = full ("orders");
    stray.last_seen_token = "{\"_data\":\"82EE\"}";
    stray.last_processed_token = "{\"_data\":\"intruder\"}";
    stray.instance_id = "intruder";
    stray.metadata = "{}";
    want.last_seen_token = stray.last_seen_token;
    want.last_seen_at = stray.last_seen_at;
    want.updated_at = NOW + 40;
    expect_write (DLQ_SINK_CKPT_SEEN, &stray, NOW + 40, &want);
    stray.last_seen_token = "{\"_data\":\"intruder\"}";
    stray.last_processed_token = "{\"_data\":\"82FF\"}";
    want.last_processed_token = stray.last_processed_token;
    want.last_processed_at = stray.last_processed_at;
    want.updated_at = NOW + 50;
    expect_write (DLQ_SINK_CKPT_PROCESSED, &stray, NOW + 50, &want);
    expect_fields ("orders", "_id,instanceId,lastSeenToken,_fw_lastSeenToken,lastSeenTimestamp,lastProcessedToken,"
                             "_fw_lastProcessedToken,lastProcessedTimestamp,metadata,_fw_metadata,updatedAt");
}

Test (mongo_ckpt, save_replaces_every_field)
{
    open_plugin ();
    dlq_sink_checkpoint_t record = full ("orders");
    dlq_sink_checkpoint_t want = record;
    want.updated_at = NOW;
    expect_write (DLQ_SINK_CKPT_SAVE, &record, NOW, &want);

    dlq_sink_checkpoint_t partial = dlq_checkpoint_empty ("orders");
    partial.instance_id = "worker-8";
    partial.last_processed_token = "{\"_data\":\"8300\"}";
    partial.last_processed_at = NOW + 1000;
    want = partial;
    want.updated_at = NOW + 1;
    expect_write (DLQ_SINK_CKPT_SAVE, &partial, NOW + 1, &want);
    expect_fields ("orders", "_id,instanceId,lastProcessedToken,_fw_lastProcessedToken,lastProcessedTimestamp,"
                             "updatedAt");

    dlq_sink_checkpoint_t bare = dlq_checkpoint_empty ("orders");
    want = bare;
    want.updated_at = NOW + 2;
    expect_write (DLQ_SINK_CKPT_SAVE, &bare, NOW + 2, &want);
    expect_fields ("orders", "_id,updatedAt");
    char *answer = get ("orders");
    cr_expect_str_eq (answer, "{\"streamName\":\"orders\",\"updatedAt\":\"2026-06-09T14:32:13.502Z\"}");
    free (answer);

    dlq_sink_checkpoint_t created = full ("new");
    want = created;
    want.updated_at = NOW + 3;
    expect_write (DLQ_SINK_CKPT_SAVE, &created, NOW + 3, &want);
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

Test (mongo_ckpt, tokens_and_metadata_come_back_byte_for_byte)
{
    open_plugin ();
    size_t n = sizeof texts / sizeof texts [0];
    for (size_t i = 0; i < n; i++) {
        char stream [32];
        snprintf (stream, sizeof stream, "stream-%zu", i);
        dlq_sink_checkpoint_t record = full (stream);
        record.last_seen_token = texts [i];
        record.last_processed_token = texts [(i + 1) % n];
        record.metadata = texts [(i + 2) % n];
        dlq_sink_checkpoint_t want = record;
        want.updated_at = NOW;
        expect_write (DLQ_SINK_CKPT_SAVE, &record, NOW, &want);
        bson_t *doc = document (stream);
        bson_iter_t it;
        cr_assert (bson_iter_init_find (&it, doc, "_fw_lastSeenToken") && BSON_ITER_HOLDS_UTF8 (&it));
        cr_expect_str_eq (bson_iter_utf8 (&it, NULL), texts [i], "the text field");
        cr_expect_eq (type_at (doc, "lastSeenToken"), BSON_TYPE_DOCUMENT, "the token as a document");
        bson_destroy (doc);

        dlq_sink_checkpoint_t seen = token_write (DLQ_SINK_CKPT_SEEN, stream, texts [(i + 3) % n], NOW);
        want.last_seen_token = seen.last_seen_token;
        want.last_seen_at = NOW;
        want.updated_at = NOW + 1;
        expect_write (DLQ_SINK_CKPT_SEEN, &seen, NOW + 1, &want);
    }
}

Test (mongo_ckpt, the_documents_have_seed_004s_bson_types)
{
    open_plugin ();
    dlq_sink_checkpoint_t record = full ("orders");
    record.last_seen_token = texts [6];
    record.last_processed_token = texts [0];
    free (write_on (reader, DLQ_SINK_CKPT_SAVE, &record, NOW));
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
        cr_expect_eq (type_at (doc, fields [i].path), fields [i].type, "%s: type 0x%02x, want 0x%02x",
                      fields [i].path, (unsigned) type_at (doc, fields [i].path), (unsigned) fields [i].type);
    bson_iter_t it, found;
    cr_assert (bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, "lastSeenTimestamp", &found));
    cr_expect_eq (bson_iter_date_time (&found), NOW - 2000);
    cr_assert (bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, "lastProcessedToken.x", &found));
    cr_expect_eq (bson_iter_int64 (&found), 5, "{\"$numberLong\":\"5\"} is the int64 5");
    cr_assert (bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, "updatedAt", &found));
    cr_expect_eq (bson_iter_date_time (&found), NOW, "updatedAt is the caller's now_ms");
    bson_destroy (doc);
}

Test (mongo_ckpt, a_document_of_seed_004s_own_store_is_answered_from_its_bson)
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
    char *answer = get ("java");
    cr_expect_str_eq (answer, "{\"streamName\":\"java\",\"instanceId\":\"pod-1\","
                              "\"lastSeenToken\":{\"_data\":\"82AA\",\"n\":{\"$numberLong\":\"5\"}},"
                              "\"lastSeenTimestamp\":\"2026-06-09T14:32:12.500Z\","
                              "\"lastProcessedToken\":{\"_data\":\"82A0\"},"
                              "\"lastProcessedTimestamp\":\"2026-06-09T14:32:11.500Z\",\"metadata\":{\"shard\":3}}");
    free (answer);

    /* our SEEN, then their targeted write of the seen token alone: theirs counts */
    dlq_sink_checkpoint_t seen = token_write (DLQ_SINK_CKPT_SEEN, "java", "{\"_data\":\"82AB\"}", NOW);
    free (write_on (reader, DLQ_SINK_CKPT_SEEN, &seen, NOW));
    mongoc_collection_t *collection = mongoc_client_get_collection (client, database, COLLECTION);
    bson_t *query = BCON_NEW ("_id", BCON_UTF8 ("java"));
    bson_t *update = BCON_NEW ("$set", "{", "lastSeenToken", "{", "_data", BCON_UTF8 ("82AC"), "}",
                               "lastSeenTimestamp", BCON_DATE_TIME (NOW + 1), "}");
    bson_error_t error;
    cr_assert (mongoc_collection_update_one (collection, query, update, NULL, NULL, &error), "%s", error.message);
    bson_destroy (update);
    bson_destroy (query);
    mongoc_collection_destroy (collection);
    answer = get ("java");
    cr_expect_not_null (strstr (answer, "\"lastSeenToken\":{\"_data\":\"82AC\"},"
                                        "\"lastSeenTimestamp\":\"2026-06-09T14:32:13.501Z\""),
                        "a text the BSON field moved away from is stale: %s", answer);
    free (answer);
}

Test (mongo_ckpt, a_token_libbson_cannot_read_fails_the_write_with_why)
{
    open_plugin ();
    dlq_sink_checkpoint_t record = full ("orders");
    free (write_on (reader, DLQ_SINK_CKPT_SAVE, &record, NOW));
    char *before = get ("orders");
    static const char *const unreadable [] = { "{\"k\\u0000\":1}", "{\"big\":1e99999}" };
    for (size_t i = 0; i < 2; i++) {
        dlq_sink_checkpoint_t bad = token_write (DLQ_SINK_CKPT_SEEN, "orders", unreadable [i], NOW + 1);
        dlq_buf_t out = DLQ_BUF_INIT;
        cr_expect_eq (ckpt ()->write (reader, DLQ_SINK_CKPT_SEEN, &bad, NOW + 1, dlq_sink_buf (&out)),
                      DLQ_SINK_STATUS_ERROR, "%s", unreadable [i]);
        cr_expect_eq (out.len, 0, "nothing answered");
        cr_expect_not_null (strstr (last_error (reader), "lastSeenToken"), "%s", last_error (reader));
        cr_expect_not_null (strstr (last_error (reader), "libbson"), "%s", last_error (reader));
        dlq_buf_free (&out);
        bad = token_write (DLQ_SINK_CKPT_PROCESSED, "fresh", unreadable [i], NOW + 1);
        cr_expect_eq (ckpt ()->write (reader, DLQ_SINK_CKPT_PROCESSED, &bad, NOW + 1, dlq_sink_buf (&out)),
                      DLQ_SINK_STATUS_ERROR);
        dlq_buf_free (&out);
    }
    char *after = get ("orders"), *fresh = get ("fresh");
    cr_expect_str_eq (after, before, "a refused write changes nothing");
    cr_expect_null (fresh, "nor creates anything");
    free (before);
    free (after);
    free (fresh);

    record = full ("meta");
    record.metadata = unreadable [0];
    dlq_sink_checkpoint_t want = record;
    want.updated_at = NOW;
    expect_write (DLQ_SINK_CKPT_SAVE, &record, NOW, &want);
    bson_t *doc = document ("meta");
    cr_expect_eq (type_at (doc, "metadata"), BSON_TYPE_EOD, "metadata libbson cannot read is kept as text only");
    bson_destroy (doc);
}

/* ---- get and remove ---------------------------------------------------------------------- */

Test (mongo_ckpt, get_of_a_missing_record_is_not_found)
{
    open_plugin ();
    char *none = get ("nowhere");
    cr_expect_null (none, "no collection yet");
    free (none);
    dlq_sink_checkpoint_t record = full ("somewhere");
    free (write_on (reader, DLQ_SINK_CKPT_SAVE, &record, NOW));
    none = get ("somewher");
    cr_expect_null (none, "no prefix match");
    free (none);
    none = get ("SOMEWHERE");
    cr_expect_null (none, "names are compared byte for byte");
    free (none);
    none = get ("somewhere ");
    cr_expect_null (none);
    free (none);
}

Test (mongo_ckpt, remove_says_whether_there_was_a_record)
{
    open_plugin ();
    bool deleted = true;
    cr_assert_eq (ckpt ()->remove (reader, "orders", &deleted), DLQ_SINK_STATUS_OK, "%s", last_error (reader));
    cr_expect (!deleted, "nothing there (no collection yet)");
    dlq_sink_checkpoint_t record = full ("orders"), other = full ("orders2");
    free (write_on (reader, DLQ_SINK_CKPT_SAVE, &record, NOW));
    free (write_on (reader, DLQ_SINK_CKPT_SAVE, &other, NOW));
    cr_assert_eq (ckpt ()->remove (reader, "orders", &deleted), DLQ_SINK_STATUS_OK);
    cr_expect (deleted, "there was one");
    char *gone = get ("orders");
    cr_expect_null (gone);
    free (gone);
    bson_t *doc = document ("orders");
    cr_expect_null (doc, "the document is gone");
    if (doc)
        bson_destroy (doc);
    deleted = true;
    cr_assert_eq (ckpt ()->remove (reader, "orders", &deleted), DLQ_SINK_STATUS_OK, "a second remove is OK");
    cr_expect (!deleted, "there was none");
    char *kept = get ("orders2");
    cr_expect_not_null (kept, "another record is kept");
    free (kept);
    dlq_sink_checkpoint_t seen = token_write (DLQ_SINK_CKPT_SEEN, "orders", "{\"_data\":\"9\"}", NOW);
    dlq_sink_checkpoint_t want = seen;
    want.updated_at = NOW + 5;
    expect_write (DLQ_SINK_CKPT_SEEN, &seen, NOW + 5, &want);
}

/* ---- list ------------------------------------------------------------------------------- */

static const char *const names [] = {
    "a", "a%", "a%b", "a_b", "ab", "a\\b", "aB", "A", "b", "%", "_", "a b", "\xc3\xa9",
    "e\xcc\x81", "\xe2\x82\xac" "x", "\xf0\x9f\x98\x80", "z", "orders.v1", "orders.v2", "orders_v3", "ordersX",
    "\xc3\xa9t\xc3\xa9", "~", "a.*", "a^b", "a$",
};
#define NAMES (sizeof names / sizeof names [0])

static int
by_bytes (const void *a, const void *b)
{
    return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The names starting with prefix, in byte order: into out; how many. */
static size_t
expected_names (const char *prefix, const char **out)
{
    size_t n = 0;
    for (size_t i = 0; i < NAMES; i++)
        if (strncmp (names [i], prefix, strlen (prefix)) == 0)
            out [n++] = names [i];
    qsort (out, n, sizeof *out, by_bytes);
    return n;
}

/* SEEN or PROCESSED for every name, token {"_data":"<index>"}; and
 * documents that are not records (a non-string _id) around them. */
static void
store_names (void)
{
    open_plugin ();
    for (size_t i = 0; i < NAMES; i++) {
        char token [32];
        snprintf (token, sizeof token, "{\"_data\":\"%zu\"}", i);
        dlq_sink_ckpt_write_t kind = i % 2 ? DLQ_SINK_CKPT_SEEN : DLQ_SINK_CKPT_PROCESSED;
        dlq_sink_checkpoint_t r = token_write (kind, names [i], token, NOW + (int64_t) i);
        free (write_on (reader, kind, &r, NOW));
    }
    bson_oid_t oid;
    bson_oid_init_from_string (&oid, "0123456789abcdef01234567");
    bson_t *odd [] = { BCON_NEW ("_id", BCON_INT32 (7)), BCON_NEW ("_id", BCON_OID (&oid)),
                       BCON_NEW ("_id", "{", "a", BCON_UTF8 ("b"), "}") };
    for (size_t i = 0; i < 3; i++) {
        insert (odd [i]);
        bson_destroy (odd [i]);
    }
}

/* The record stored for name by store_names. Caller frees. */
static char *
stored_record (const char *name)
{
    for (size_t i = 0; i < NAMES; i++)
        if (strcmp (names [i], name) == 0) {
            char token [32];
            snprintf (token, sizeof token, "{\"_data\":\"%zu\"}", i);
            dlq_sink_ckpt_write_t kind = i % 2 ? DLQ_SINK_CKPT_SEEN : DLQ_SINK_CKPT_PROCESSED;
            dlq_sink_checkpoint_t r = token_write (kind, name, token, NOW + (int64_t) i);
            r.updated_at = NOW;
            return formatted (&r);
        }
    return strdup ("(not stored)");
}

/* Check one LIST page (JSON array) against want from *got on. */
static void
check_page (const dlq_buf_t *page, const char *prefix, size_t size, const char **want, size_t n, size_t *got,
            size_t *count)
{
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (page->data, page->len, &doc, NULL), DLQ_JSON_OK, "%.*s", (int) page->len,
                  page->data);
    const dlq_json_value_t *root = dlq_json_root (doc);
    cr_assert_eq (root->type, DLQ_JSON_ARRAY);
    *count = root->count;
    for (const dlq_json_value_t *r = root->child; r; r = r->next) {
        cr_assert_lt (*got, n, "prefix %s: more records than the %zu expected", prefix, n);
        dlq_buf_t body = DLQ_BUF_INIT;
        dlq_json_write (&body, r);
        dlq_buf_putc (&body, '\0');
        char *stored = stored_record (want [*got]);
        cr_expect_str_eq (body.data, stored, "prefix %s, page size %zu: record %zu", prefix, size, *got);
        free (stored);
        dlq_buf_free (&body);
        (*got)++;
    }
    dlq_json_doc_destroy (&doc);
}

/* Page through LIST of prefix with pages of size: the records, in byte
 * order, each page full but the last, the last without a cursor. */
static void
expect_list (const char *prefix, size_t size)
{
    const char *want [NAMES];
    size_t n = expected_names (prefix, want), got = 0, pages = 0;
    dlq_buf_t page = DLQ_BUF_INIT, next = DLQ_BUF_INIT;
    char *cursor = NULL;
    do {
        dlq_buf_reset (&page);
        dlq_buf_reset (&next);
        cr_assert_eq (ckpt ()->list (reader, prefix, size, cursor, dlq_sink_buf (&page), dlq_sink_buf (&next)),
                      DLQ_SINK_STATUS_OK, "prefix %s: %s", prefix, last_error (reader));
        pages++;
        size_t count = 0;
        check_page (&page, prefix, size, want, n, &got, &count);
        bool last = next.len == 0;
        cr_expect (last || count == size, "prefix %s: a page before the last is full", prefix);
        free (cursor);
        cursor = last ? NULL : strndup (next.data, next.len);
    } while (cursor && pages <= NAMES + 1);
    free (cursor);
    cr_expect_eq (got, n, "prefix %s, page size %zu: %zu listed, %zu expected", prefix, size, got, n);
    size_t want_pages = n == 0 ? 1 : (n + size - 1) / size;
    cr_expect_eq (pages, want_pages, "prefix %s, page size %zu: pages", prefix, size);
    dlq_buf_free (&page);
    dlq_buf_free (&next);
}

Test (mongo_ckpt, list_pages_in_byte_order_with_a_literal_prefix)
{
    store_names ();
    static const char *const prefixes [] = {
        "", "a", "a%", "a_", "a\\", "a.", "a^", "a$", "%", "_", "orders.", "orders_", "orders", "\xc3\xa9", "e",
        "\xf0\x9f\x98\x80", "A", "nothing", "~",
    };
    static const size_t sizes [] = { 1, 2, 3, 7, 1000 };
    for (size_t p = 0; p < sizeof prefixes / sizeof prefixes [0]; p++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes [0]; s++)
            expect_list (prefixes [p], sizes [s]);
    dlq_buf_t page = DLQ_BUF_INIT, next = DLQ_BUF_INIT;
    cr_assert_eq (ckpt ()->list (reader, NULL, 3, NULL, dlq_sink_buf (&page), dlq_sink_buf (&next)),
                  DLQ_SINK_STATUS_OK, "a NULL prefix is every record");
    const char *sorted [NAMES];
    expected_names ("", sorted);
    dlq_buf_putc (&next, '\0');
    cr_expect_str_eq (next.data, sorted [2], "the cursor is the page's last name");
    dlq_buf_free (&page);
    dlq_buf_free (&next);
}

Test (mongo_ckpt, a_cursor_is_a_position_in_byte_order)
{
    store_names ();
    dlq_buf_t page = DLQ_BUF_INIT, next = DLQ_BUF_INIT;
    cr_assert_eq (ckpt ()->list (reader, "", 1000, "a%a", dlq_sink_buf (&page), dlq_sink_buf (&next)),
                  DLQ_SINK_STATUS_OK, "%s", last_error (reader));
    dlq_buf_putc (&page, '\0');
    const char *first = strstr (page.data, "\"streamName\":");
    cr_assert_not_null (first, "%s", page.data);
    cr_expect_eq (strncmp (first, "\"streamName\":\"a%b\"", 18), 0, "the first name after a%%a: %.30s", first);
    cr_expect_eq (next.len, 0, "one page");
    static const char *const bad [] = { "\xff", "a\xc3", NULL };
    char *too_long = calloc (DLQ_CKPT_STREAM_MAX + 2, 1);
    memset (too_long, 'a', DLQ_CKPT_STREAM_MAX + 1);
    for (int i = 0; i < 3; i++) {
        const char *cursor = bad [i] ? bad [i] : too_long;
        dlq_buf_reset (&page);
        dlq_buf_reset (&next);
        cr_expect_eq (ckpt ()->list (reader, "", 10, cursor, dlq_sink_buf (&page), dlq_sink_buf (&next)),
                      DLQ_SINK_STATUS_BAD_CURSOR, "cursor %d", i);
        cr_expect_eq (page.len + next.len, 0, "nothing written");
    }
    free (too_long);
    dlq_buf_reset (&page);
    cr_assert_eq (ckpt ()->list (reader, "~", 10, "", dlq_sink_buf (&page), dlq_sink_buf (&next)), DLQ_SINK_STATUS_OK,
                  "an empty cursor is the first page: %s", last_error (reader));
    dlq_buf_putc (&page, '\0');
    cr_expect_not_null (strstr (page.data, "\"streamName\":\"~\""), "%s", page.data);
    dlq_buf_reset (&page);
    cr_assert_eq (ckpt ()->list (reader, "a", 10, "zzz", dlq_sink_buf (&page), dlq_sink_buf (&next)),
                  DLQ_SINK_STATUS_OK);
    cr_expect_eq (page.len, 2, "a cursor past the prefix: an empty page");
    cr_expect_eq (next.len, 0);
    dlq_buf_free (&page);
    dlq_buf_free (&next);
}

Test (mongo_ckpt, list_of_an_empty_collection_is_an_empty_page)
{
    open_plugin ();
    dlq_buf_t page = DLQ_BUF_INIT, next = DLQ_BUF_INIT;
    cr_assert_eq (ckpt ()->list (reader, "", 100, NULL, dlq_sink_buf (&page), dlq_sink_buf (&next)),
                  DLQ_SINK_STATUS_OK, "%s", last_error (reader));
    dlq_buf_putc (&page, '\0');
    cr_expect_str_eq (page.data, "[]");
    cr_expect_eq (next.len, 0);
    dlq_buf_free (&page);
    dlq_buf_free (&next);
}

/* ---- two writers of one stream ------------------------------------------------------------------ */

typedef struct {
    dlq_sink_ckpt_write_t kind;
    void                 *instance;
    int                   errors;
    int                   backwards;      /* the other token went back */
    int                   not_own;        /* the answer lacked the token just written */
    int                   moved;          /* answers where the other token had moved on */
    char                  error [512];
} writer_t;

/* The number in the _data of member name's token in record ("<kind>-N"); -1 when absent. */
static int
token_number (const dlq_json_value_t *record, const char *name)
{
    const dlq_json_value_t *data = dlq_json_get (dlq_json_get (record, name), "_data");
    if (!data || data->type != DLQ_JSON_STRING)
        return -1;
    const char *dash = memchr (data->str, '-', data->len);
    return dash ? atoi (dash + 1) : -1;
}

/* Check one answer of writer w's write number i. */
static void
check_answer (writer_t *w, const dlq_buf_t *out, int i, int *other_last)
{
    bool seen = w->kind == DLQ_SINK_CKPT_SEEN;
    dlq_json_doc_t *doc = NULL;
    if (dlq_json_parse (out->data, out->len, &doc, NULL) != DLQ_JSON_OK) {
        snprintf (w->error, sizeof w->error, "not JSON: %.200s", out->data);
        w->errors++;
        return;
    }
    const dlq_json_value_t *root = dlq_json_root (doc);
    if (token_number (root, seen ? "lastSeenToken" : "lastProcessedToken") != i)
        w->not_own++;
    int other = token_number (root, seen ? "lastProcessedToken" : "lastSeenToken");
    if (other < *other_last)
        w->backwards++;
    if (other > *other_last && *other_last >= 0)
        w->moved++;
    *other_last = other;
    dlq_json_doc_destroy (&doc);
}

/* CONCURRENT writes of w->kind to stream "busy", tokens <kind>-0 ... */
static void *
writer (void *arg)
{
    writer_t *w = arg;
    bool seen = w->kind == DLQ_SINK_CKPT_SEEN;
    dlq_buf_t out = DLQ_BUF_INIT;
    int other_last = -1;
    for (int i = 0; i < CONCURRENT && w->errors < 5; i++) {
        char token [64];
        snprintf (token, sizeof token, "{\"_data\":\"%s-%d\"}", seen ? "seen" : "processed", i);
        dlq_sink_checkpoint_t r = token_write (w->kind, "busy", token, NOW + i);
        dlq_buf_reset (&out);
        if (ckpt ()->write (w->instance, w->kind, &r, NOW + i, dlq_sink_buf (&out)) != DLQ_SINK_STATUS_OK) {
            snprintf (w->error, sizeof w->error, "%s", last_error (w->instance));
            w->errors++;
            continue;
        }
        check_answer (w, &out, i, &other_last);
    }
    dlq_buf_free (&out);
    return NULL;
}

Test (mongo_ckpt, two_instances_writing_seen_and_processed_never_undo_each_other)
{
    open_plugin ();
    writer_t w [2];
    pthread_t threads [2];
    memset (w, 0, sizeof w);
    w [0].kind = DLQ_SINK_CKPT_SEEN;
    w [1].kind = DLQ_SINK_CKPT_PROCESSED;
    for (int t = 0; t < 2; t++)
        w [t].instance = open_instance ();
    for (int t = 0; t < 2; t++)
        cr_assert_eq (pthread_create (&threads [t], NULL, writer, &w [t]), 0);
    for (int t = 0; t < 2; t++)
        pthread_join (threads [t], NULL);
    cr_log_info ("answers where the other token had moved: SEEN %d, PROCESSED %d", w [0].moved, w [1].moved);
    cr_expect_gt (w [0].moved + w [1].moved, 0, "the writers ran one after the other: nothing was tested");
    for (int t = 0; t < 2; t++) {
        cr_expect_eq (w [t].errors, 0, "writer %d: %s", t, w [t].error);
        cr_expect_eq (w [t].not_own, 0, "writer %d: answers without its own token", t);
        cr_expect_eq (w [t].backwards, 0, "writer %d: the other token went back", t);
        plugin.ops->destroy (w [t].instance);
    }
    char *final = get ("busy");
    dlq_sink_checkpoint_t want = dlq_checkpoint_empty ("busy");
    want.last_seen_token = "{\"_data\":\"seen-1999\"}";
    want.last_seen_at = NOW + CONCURRENT - 1;
    want.last_processed_token = "{\"_data\":\"processed-1999\"}";
    want.last_processed_at = NOW + CONCURRENT - 1;
    want.updated_at = NOW + CONCURRENT - 1;
    char *expected = formatted (&want);
    cr_expect_str_eq (final, expected, "the last token of each");
    free (expected);
    free (final);
}

typedef struct {
    dlq_sink_ckpt_write_t kind;
    void                 *instance;
    pthread_barrier_t    *start;          /* both racers at each stream's start line */
    int                   errors;
    char                  error [512];
} racer_t;

/* The first write of kind to each of the streams race-0 ..., in step
 * with the other racer. */
static void *
racer (void *arg)
{
    racer_t *r = arg;
    dlq_buf_t out = DLQ_BUF_INIT;
    for (int i = 0; i < RACED; i++) {
        pthread_barrier_wait (r->start);
        char stream [32];
        snprintf (stream, sizeof stream, "race-%04d", i);
        dlq_sink_checkpoint_t c = token_write (r->kind, stream, "{\"_data\":\"1\"}", NOW);
        dlq_buf_reset (&out);
        if (ckpt ()->write (r->instance, r->kind, &c, NOW, dlq_sink_buf (&out)) != DLQ_SINK_STATUS_OK
            && r->errors++ == 0)
            snprintf (r->error, sizeof r->error, "%s: %s", stream, last_error (r->instance));
    }
    dlq_buf_free (&out);
    return NULL;
}

Test (mongo_ckpt, first_writes_of_a_stream_racing_all_succeed)
{
    open_plugin ();
    pthread_barrier_t start;
    cr_assert_eq (pthread_barrier_init (&start, NULL, 2), 0);
    racer_t r [2] = { { .kind = DLQ_SINK_CKPT_SEEN, .start = &start },
                      { .kind = DLQ_SINK_CKPT_PROCESSED, .start = &start } };
    pthread_t threads [2];
    for (int t = 0; t < 2; t++)
        r [t].instance = open_instance ();
    for (int t = 0; t < 2; t++)
        cr_assert_eq (pthread_create (&threads [t], NULL, racer, &r [t]), 0);
    for (int t = 0; t < 2; t++)
        pthread_join (threads [t], NULL);
    for (int t = 0; t < 2; t++) {
        cr_expect_eq (r [t].errors, 0, "racer %d: %d errors; first: %s", t, r [t].errors, r [t].error);
        plugin.ops->destroy (r [t].instance);
    }
    pthread_barrier_destroy (&start);
    for (int i = 0; i < RACED; i++) {
        char stream [32];
        snprintf (stream, sizeof stream, "race-%04d", i);
        char *record = get (stream);
        cr_expect (record && strstr (record, "\"lastSeenToken\"") && strstr (record, "\"lastProcessedToken\""),
                   "%s: %s", stream, record ? record : "(NOT_FOUND)");
        free (record);
    }
}

/* ---- the server's failures ------------------------------------------------------------------ */

Test (mongo_ckpt, a_duplicate_key_is_tried_once_more)
{
    need_test_server ();
    open_plugin ();
    mongo_server_fail_command (server, "findAndModify", 1, 11000, NULL, "E11000 duplicate key (injected)", NULL);
    dlq_sink_checkpoint_t seen = token_write (DLQ_SINK_CKPT_SEEN, "dup", "{\"_data\":\"1\"}", NOW);
    dlq_sink_checkpoint_t want = seen;
    want.updated_at = NOW;
    expect_write (DLQ_SINK_CKPT_SEEN, &seen, NOW, &want);

    mongo_server_fail_command (server, "findAndModify", 2, 11000, NULL, "E11000 duplicate key (injected)", NULL);
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_expect_eq (ckpt ()->write (reader, DLQ_SINK_CKPT_SEEN, &seen, NOW, dlq_sink_buf (&out)), DLQ_SINK_STATUS_ERROR);
    cr_expect_not_null (strstr (last_error (reader), "duplicate key"), "%s", last_error (reader));
    cr_expect_eq (out.len, 0);
    dlq_buf_free (&out);
}

Test (mongo_ckpt, the_servers_failures_are_errors_with_its_words)
{
    need_test_server ();
    open_plugin ();
    dlq_sink_checkpoint_t record = full ("orders");
    free (write_on (reader, DLQ_SINK_CKPT_SAVE, &record, NOW));
    dlq_buf_t out = DLQ_BUF_INIT, next = DLQ_BUF_INIT;
    /* Unauthorized (13): not a transient error the driver would retry a read on */
    mongo_server_fail_command (server, "findAndModify", 1, 13, NULL, "write refused (injected)", NULL);
    cr_expect_eq (ckpt ()->write (reader, DLQ_SINK_CKPT_SAVE, &record, NOW, dlq_sink_buf (&out)),
                  DLQ_SINK_STATUS_ERROR);
    cr_expect_not_null (strstr (last_error (reader), "write refused (injected)"), "%s", last_error (reader));
    mongo_server_fail_command (server, "find", 1, 13, NULL, "find refused (injected)", NULL);
    cr_expect_eq (ckpt ()->get (reader, "orders", dlq_sink_buf (&out)), DLQ_SINK_STATUS_ERROR);
    cr_expect_not_null (strstr (last_error (reader), "find refused"), "%s", last_error (reader));
    mongo_server_fail_command (server, "find", 1, 13, NULL, "list refused (injected)", NULL);
    cr_expect_eq (ckpt ()->list (reader, "", 10, NULL, dlq_sink_buf (&out), dlq_sink_buf (&next)),
                  DLQ_SINK_STATUS_ERROR);
    cr_expect_not_null (strstr (last_error (reader), "list refused"), "%s", last_error (reader));
    mongo_server_fail_command (server, "delete", 1, 13, NULL, "delete refused (injected)", NULL);
    bool deleted = true;
    cr_expect_eq (ckpt ()->remove (reader, "orders", &deleted), DLQ_SINK_STATUS_ERROR);
    cr_expect_not (deleted);
    cr_expect_not_null (strstr (last_error (reader), "delete refused"), "%s", last_error (reader));
    cr_expect_eq (out.len + next.len, 0, "nothing written on ERROR");

    cr_assert (mongo_server_set_down (server, true));
    cr_expect_eq (ckpt ()->write (reader, DLQ_SINK_CKPT_SAVE, &record, NOW, dlq_sink_buf (&out)),
                  DLQ_SINK_STATUS_ERROR);
    cr_expect_neq (last_error (reader) [0], '\0');
    cr_log_info ("server down: %s", last_error (reader));
    cr_assert (mongo_server_set_down (server, false));
    dlq_sink_status_t status = DLQ_SINK_STATUS_ERROR;
    for (int tries = 0; tries < 40 && status != DLQ_SINK_STATUS_OK; tries++) {
        dlq_buf_reset (&out);
        status = ckpt ()->get (reader, "orders", dlq_sink_buf (&out));
        if (status != DLQ_SINK_STATUS_OK)
            usleep (250000);        /* the driver's cooldown after a failed check */
    }
    cr_expect_eq (status, DLQ_SINK_STATUS_OK, "the record once the server is back: %s", last_error (reader));
    dlq_buf_free (&out);
    dlq_buf_free (&next);
}
