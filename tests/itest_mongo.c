/*  itest_mongo — the mongo sink end to end: dlqd as a process writing to
 *  MongoDB, the documents read back with mongo-c-driver.
 *
 *  The server is the wire-protocol test server (tests/mongo/, run by this
 *  test process), or a real MongoDB when DLQD_TEST_MONGO_URI is set: the
 *  same tests run against it (each in a database of its own, dropped at
 *  the end), except those that need the test server's fault injection or
 *  its record of commands, which are skipped then. The first test says
 *  which server the suite ran against.
 *
 *    - the stored document: native BSON types, _id = the event id, the
 *      canonical body kept; a per-stream collection;
 *    - the TTL index on expiresAt (expireAfterSeconds 0): created once per
 *      collection, at startup for configured streams, on first use for
 *      others;
 *    - a duplicate key on an id counts as delivered (idempotent);
 *    - a connection dropped mid-batch, "not primary": RETRY, then all
 *      delivered exactly once;
 *    - a document validation error fails that event only;
 *    - the sink as the primary store: GET (byte-identical), LIST, STATS.
 */
#include "dlq_json.h"
#include "dlq_time.h"
#include "dlq_uuid.h"
#include "event_support.h"
#include "mongo_support.h"
#include "sink_support.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SINK        "mongo"
#define EXAMPLE_ID  "c2e8a5b6-0f1e-4c3a-9b7d-2a1f0e9d8c7b"

static test_dlqd_t d;
static mongo_db_t mongo;                /* the server, the test's database, a client */

static void
setup (void)
{
    memset (&d, 0, sizeof d);
    test_tmpdir (d.dir);
    mongo_db_open (&mongo, "dlqd_test_");
}

static void
teardown (void)
{
    test_dlqd_cleanup (&d);
    mongo_db_close (&mongo);
    mongoc_cleanup ();
}

TestSuite (mongo, .init = setup, .fini = teardown, .timeout = 300);

static void
need_test_server (void)
{
    mongo_db_need_test_server (&mongo, "the test server's faults or command log");
}

/* dlqd with sink "mongo" (plus sink_extra) in the default chain, streams,
 * and top-level extra (e.g. primary). */
static bool
start (const char *sink_extra, const char *streams, const char *top_extra)
{
    char extra [8192];
    snprintf (extra, sizeof extra,
              "sinks: { " SINK ": { type = \"mongo\"; uri = \"%s\"; database = \"%s\"; %s }; };\n"
              "defaults: { retention_days = 30; chain = [\"" SINK "\"]; };\n"
              "streams = ( %s );\n%s\n",
              mongo.uri, mongo.database, sink_extra ? sink_extra : "", streams ? streams : "",
              top_extra ? top_extra : "");
    return test_dlqd_start (&d, "sweep: { interval_ms = 200; };", extra);
}

/* The document of db.collection with _id = id; NULL when none. Caller
 * destroys. */
static bson_t *
stored (const char *collection_name, const char *id)
{
    return mongo_db_find (&mongo, collection_name, id);
}

static int64_t
count_in (const char *collection_name)
{
    mongoc_collection_t *collection = mongoc_client_get_collection (mongo.client, mongo.database, collection_name);
    bson_t *command = BCON_NEW ("count", BCON_UTF8 (collection_name));
    bson_t reply;
    bson_error_t error;
    mongoc_database_t *db = mongoc_client_get_database (mongo.client, mongo.database);
    cr_assert (mongoc_database_command_simple (db, command, NULL, &reply, &error), "count: %s", error.message);
    bson_iter_t it;
    int64_t n = bson_iter_init_find (&it, &reply, "n") ? bson_iter_as_int64 (&it) : -1;
    bson_destroy (&reply);
    bson_destroy (command);
    mongoc_database_destroy (db);
    mongoc_collection_destroy (collection);
    return n;
}

/* Does collection have the TTL index: key {expiresAt: 1}, expireAfterSeconds 0? */
static bool
has_ttl_index (const char *collection_name)
{
    mongoc_collection_t *collection = mongoc_client_get_collection (mongo.client, mongo.database, collection_name);
    mongoc_cursor_t *cursor = mongoc_collection_find_indexes_with_opts (collection, NULL);
    const bson_t *spec;
    bool found = false;
    while (!found && mongoc_cursor_next (cursor, &spec)) {
        bson_iter_t it;
        bool ttl = bson_iter_init_find (&it, spec, "expireAfterSeconds") && bson_iter_as_int64 (&it) == 0;
        bool key = bson_iter_init (&it, spec) && bson_iter_find_descendant (&it, "key.expiresAt", &it)
                && bson_iter_as_int64 (&it) == 1;
        found = ttl && key;
    }
    mongoc_cursor_destroy (cursor);
    mongoc_collection_destroy (collection);
    return found;
}

/* createIndexes commands the test server received for collection. */
static size_t
create_indexes_for (const char *collection_name)
{
    size_t n = 0, found = 0;
    bson_t **commands = mongo_server_command_documents (mongo.server, "createIndexes", &n);
    for (size_t i = 0; i < n; i++) {
        bson_iter_t it;
        if (bson_iter_init_find (&it, commands [i], "createIndexes") && BSON_ITER_HOLDS_UTF8 (&it)
            && strcmp (bson_iter_utf8 (&it, NULL), collection_name) == 0)
            found++;
    }
    mongo_server_docs_free (commands, n);
    return found;
}

/* ---- tests ------------------------------------------------------------------------ */

Test (mongo, documents_are_native_bson)
{
    cr_log_info ("the mongo integration tests run against %s",
                 mongo.server ? "the wire-protocol test server (tests/mongo)" : "a real MongoDB (" MONGO_URI_ENV ")");
    cr_assert (start (NULL, "{ name = \"payments\"; " SINK ": { collection = \"payments_dlq\"; }; }", NULL));
    char *example = event_wire_example_json_now ();
    char id [2][DLQ_UUID_LEN + 1];
    sink_put_one (d.endpoint, example, id [0]);
    free (example);
    sink_put_one (d.endpoint, "{\"streamName\":\"payments\",\"error\":{\"type\":\"E\"},\"attempts\":1}", id [1]);
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", 2, 30), 2);

    bson_t *doc = stored ("_fw_dlq_orders", EXAMPLE_ID);
    cr_assert_not_null (doc, "the example event is not in _fw_dlq_orders");
    cr_expect_eq (mongo_db_type_at (doc, "_id"), BSON_TYPE_UTF8);
    cr_expect_eq (mongo_db_type_at (doc, "documentKey._id"), BSON_TYPE_OID);
    cr_expect_eq (mongo_db_type_at (doc, "fullDocument.total"), BSON_TYPE_DECIMAL128);
    cr_expect_eq (mongo_db_type_at (doc, "resumeToken._data"), BSON_TYPE_UTF8);
    cr_expect_eq (mongo_db_type_at (doc, "error.type"), BSON_TYPE_UTF8);
    cr_expect_eq (mongo_db_type_at (doc, "attempts"), BSON_TYPE_INT32);
    cr_expect_eq (mongo_db_type_at (doc, "createdAt"), BSON_TYPE_DATE_TIME);
    cr_expect_eq (mongo_db_type_at (doc, "expiresAt"), BSON_TYPE_DATE_TIME);
    cr_expect_eq (mongo_db_type_at (doc, "firstAttemptAt"), BSON_TYPE_DATE_TIME);
    cr_expect_eq (mongo_db_type_at (doc, "metadata"), BSON_TYPE_DOCUMENT);
    bson_iter_t it;
    cr_assert (bson_iter_init_find (&it, doc, "_fw_body"));
    char *event = sink_stored_event (d.endpoint, EXAMPLE_ID);
    cr_expect_str_eq (bson_iter_utf8 (&it, NULL), event, "_fw_body is the canonical event");
    free (event);
    bson_destroy (doc);

    doc = stored ("payments_dlq", id [1]);
    cr_expect_not_null (doc, "the stream's collection setting");
    bson_destroy (doc);
    doc = stored ("_fw_dlq_index", id [1]);
    cr_assert_not_null (doc, "no index entry");
    cr_expect (bson_iter_init_find (&it, doc, "c") && strcmp (bson_iter_utf8 (&it, NULL), "payments_dlq") == 0);
    bson_destroy (doc);
    cr_expect (has_ttl_index ("_fw_dlq_orders"), "no TTL index on expiresAt in _fw_dlq_orders");
    cr_expect (has_ttl_index ("payments_dlq"));
}

Test (mongo, the_ttl_index_is_made_once_per_collection)
{
    need_test_server ();
    cr_assert (start (NULL, "{ name = \"orders\"; }", NULL));
    /* a configured stream: at startup, before any event */
    cr_assert (mongo_server_wait_commands (mongo.server, "createIndexes", 1, 10000));
    cr_expect_eq (create_indexes_for ("_fw_dlq_orders"), 1, "createIndexes at startup for a configured stream");
    cr_expect (has_ttl_index ("_fw_dlq_orders"));
    cr_expect_eq (create_indexes_for ("_fw_dlq_other"), 0);
    char id [DLQ_UUID_LEN + 1];
    for (int i = 0; i < 3; i++) {
        sink_put_minimal (d.endpoint, "orders", id);
        sink_put_minimal (d.endpoint, "other", id);
        cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", 2 * (i + 1), 30), 2 * (i + 1));
    }
    cr_expect_eq (create_indexes_for ("_fw_dlq_orders"), 1, "once per collection");
    cr_expect_eq (create_indexes_for ("_fw_dlq_other"), 1, "on first use for an unconfigured stream, once");
    cr_expect (has_ttl_index ("_fw_dlq_other"));
    char **specs = NULL;
    size_t n = mongo_server_commands_named (mongo.server, "createIndexes", &specs);
    for (size_t i = 0; i < n; i++)
        if (strstr (specs [i], "\"_fw_dlq_other\""))
            cr_expect_not_null (strstr (specs [i], "\"expireAfterSeconds\" : { \"$numberInt\" : \"0\" }"),
                                "%s", specs [i]);
    mongo_server_strings_free (specs);
}

Test (mongo, a_duplicate_id_counts_as_delivered)
{
    cr_assert (start (NULL, NULL, NULL));
    char id [DLQ_UUID_LEN + 1];
    dlq_uuid_v7 (dlq_time_now_ms (), id);
    /* the event is there already (a crash after the insert, before the ledger knew) */
    bson_t *doc = BCON_NEW ("_id", BCON_UTF8 (id), "note", BCON_UTF8 ("there before"));
    mongo_db_insert (&mongo, "_fw_dlq_orders", doc);
    bson_destroy (doc);
    char body [256], got [DLQ_UUID_LEN + 1], other [DLQ_UUID_LEN + 1];
    snprintf (body, sizeof body, "{\"id\":\"%s\",\"streamName\":\"orders\",\"error\":{\"type\":\"E\"}}", id);
    sink_put_one (d.endpoint, body, got);
    sink_put_minimal (d.endpoint, "orders", other);
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", 2, 30), 2);
    cr_expect_eq (sink_stat (d.endpoint, SINK, "failed"), 0);
    cr_expect_eq (sink_stat (d.endpoint, SINK, "retrying"), 0);
    cr_expect_eq (count_in ("_fw_dlq_orders"), 2);
}

/* Every id is stored once in _fw_dlq_orders, and n in all. */
static void
expect_each_once (char (*ids) [DLQ_UUID_LEN + 1], int n)
{
    cr_expect_eq (count_in ("_fw_dlq_orders"), n);
    for (int i = 0; i < n; i++) {
        bson_t *doc = stored ("_fw_dlq_orders", ids [i]);
        cr_expect_not_null (doc, "%s is missing", ids [i]);
        bson_destroy (doc);
    }
}

/* The attempts of id's delivery to the sink, from GET. */
static int
delivery_attempts (const char *id)
{
    char *reply = sink_get (d.endpoint, id, "OK");
    const char *at = strstr (reply, "\"attempts\":");
    int n = -1;
    const char *deliveries = strstr (reply, "\"deliveries\":");
    if (deliveries && (at = strstr (deliveries, "\"attempts\":")))
        n = atoi (at + strlen ("\"attempts\":"));
    free (reply);
    return n;
}

/* dlqd with the test server, retrying without end, and one event (into
 * first_id) delivered: connected, collection ready, before a fault is set. */
static void
start_retrying (char *first_id)
{
    need_test_server ();
    cr_assert (start ("retry = { max_attempts = 0; backoff_ms = 20; backoff_max_ms = 200; };", NULL, NULL));
    sink_put_minimal (d.endpoint, "orders", first_id);
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", 1, 30), 1, "connected, collection ready");
}

/* n more orders, put after the fault was set: all of them and first_id
 * stored exactly once, none failed, and the first retried (why). */
static void
expect_retried_then_delivered (int n, const char *first_id, const char *why)
{
    char (*ids) [DLQ_UUID_LEN + 1] = calloc ((size_t) n + 1, sizeof *ids);
    sink_put_small_events (d.endpoint, "orders", n, ids);
    memcpy (ids [n], first_id, sizeof ids [n]);
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", n + 1, 60), n + 1);
    cr_expect_eq (sink_stat (d.endpoint, SINK, "failed"), 0);
    expect_each_once (ids, n + 1);
    cr_expect_geq (delivery_attempts (ids [0]), 2, "%s", why);
    free (ids);
}

Test (mongo, a_dropped_connection_mid_batch_is_retried_then_delivered)
{
    char id [DLQ_UUID_LEN + 1];
    start_retrying (id);
    mongo_server_drop_on_command (mongo.server, "insert", 1);
    expect_retried_then_delivered (50, id, "the first batch after the drop was retried");
}

Test (mongo, not_primary_is_retried)
{
    char id [DLQ_UUID_LEN + 1];
    start_retrying (id);
    mongo_server_fail_command (mongo.server, "insert", 2, 10107, NULL, "not primary", "RetryableWriteError");
    expect_retried_then_delivered (10, id, "retried after NotWritablePrimary");
}

Test (mongo, a_validation_error_fails_that_event_only)
{
    enum { N = 7, BAD = 3 };
    need_test_server ();
    /* one batch: the events arrive within the linger */
    cr_assert (start ("batch = { max_events = 64; linger_ms = 500; };"
                      " retry = { max_attempts = 5; backoff_ms = 10; };", NULL, NULL));
    char (*ids) [DLQ_UUID_LEN + 1] = calloc (N, sizeof *ids);
    char **bodies = sink_small_events ("orders", dlq_time_now_ms (), N, ids);
    mongo_server_fail_insert_of_string (mongo.server, ids [BAD], -1, 121, "Document failed validation");
    sink_put_bodies (d.endpoint, bodies, N);
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "failed", 1, 30), 1);
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", N - 1, 30), N - 1);
    char *reply = sink_get (d.endpoint, ids [BAD], "OK");
    cr_expect_not_null (strstr (reply, "write error 121: Document failed validation"), "%s", reply);
    cr_expect_not_null (strstr (reply, "\"attempts\":1"), "not retried: %s", reply);
    free (reply);
    cr_expect_eq (count_in ("_fw_dlq_orders"), N - 1);
    sink_free_events (bodies, N);
    free (ids);
}

Test (mongo, the_sink_as_the_primary_store)
{
    enum { ORDERS = 5, PAYMENTS = 2 };
    cr_assert (start (NULL, NULL, "primary = \"" SINK "\";"));
    char ids [ORDERS + PAYMENTS][DLQ_UUID_LEN + 1];
    char *bodies [ORDERS + PAYMENTS];
    int64_t now = dlq_time_now_ms ();
    for (int i = 0; i < ORDERS + PAYMENTS; i++)
        bodies [i] = sink_small_event (i < ORDERS ? "orders" : "payments", now - 1000 + i, i, ids [i]);
    sink_put_bodies (d.endpoint, bodies, ORDERS + PAYMENTS);
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", ORDERS + PAYMENTS, 30), ORDERS + PAYMENTS);

    /* GET from MongoDB: the canonical body, as the spool has it */
    char *reply = sink_get (d.endpoint, ids [2], "OK");
    char *event = sink_event_of_get (reply);
    cr_expect_not_null (strstr (bodies [2], "\"event 2\""));
    cr_expect_not_null (strstr (event, ids [2]));
    free (event);
    free (reply);
    char missing [DLQ_UUID_LEN + 1];
    dlq_uuid_v7 (now, missing);
    reply = sink_get (d.endpoint, missing, "ERR");
    cr_expect_not_null (strstr (reply, "NOT_FOUND"), "%s", reply);
    free (reply);

    /* LIST: newest first, in pages */
    reply = sink_request (d.endpoint, "LIST", "{\"streamName\":\"orders\",\"limit\":3}", "OK");
    cr_expect_not_null (strstr (reply, ids [4]), "%s", reply);
    cr_expect (strstr (reply, ids [4]) < strstr (reply, ids [3]), "newest first: %s", reply);
    cr_expect_null (strstr (reply, ids [1]), "a page of 3: %s", reply);
    cr_expect_not_null (strstr (reply, "\"nextCursor\":\""), "%s", reply);
    free (reply);

    /* STATS from MongoDB */
    dlq_json_doc_t *doc = sink_stats (d.endpoint);
    int64_t orders = 0, payments = 0, events = 0;
    const dlq_json_value_t *streams = dlq_json_get (dlq_json_root (doc), "streams");
    cr_expect (dlq_json_as_int64 (dlq_json_get (streams, "orders"), &orders));
    cr_expect (dlq_json_as_int64 (dlq_json_get (streams, "payments"), &payments));
    cr_expect (dlq_json_as_int64 (dlq_json_get (dlq_json_root (doc), "events"), &events));
    cr_expect_eq (orders, ORDERS);
    cr_expect_eq (payments, PAYMENTS);
    cr_expect_eq (events, ORDERS + PAYMENTS);
    dlq_json_doc_destroy (&doc);
    if (mongo.server) {
        size_t finds = mongo_server_commands_named (mongo.server, "find", NULL);
        mongo_server_clear_log (mongo.server);
        reply = sink_get (d.endpoint, ids [0], "OK");
        free (reply);
        cr_expect_leq (mongo_server_commands_named (mongo.server, "find", NULL), 3,
                       "GET by id: at most three lookups by _id: the index entry, the event's body and"
                       " its replay state (had %zu finds before)", finds);
    }
    for (int i = 0; i < ORDERS + PAYMENTS; i++)
        free (bodies [i]);
}
