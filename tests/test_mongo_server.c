/*  test_mongo_server — the MongoDB test server (tests/mongo/) driven by
 *  the real mongo-c-driver over TCP: the handshake, ping, inserts ordered
 *  and unordered with a duplicate _id, an unordered bulk with an injected
 *  DocumentValidationFailure, find with filters, sort, limit and batches
 *  fetched with getMore, killCursors when a cursor is dropped early,
 *  update, delete, count, regular expressions, findAndModify (sort,
 *  new, fields, upsert meeting a taken _id, remove; clients racing for
 *  documents each get their own), $group by a field with accumulators,
 *  createIndexes with a TTL and listIndexes, an
 *  injected command failure with its error label, a dropped connection
 *  and the reconnection after it, the server going down and up, endSessions
 *  at client destroy, many clients at once, large messages, and malformed
 *  messages over a raw socket (the connection closes, the server lives on).
 */
#include "mongo_server.h"

#include <criterion/criterion.h>
#include <mongoc/mongoc.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define DB          "dlq"
#define WAIT_MS     5000

static mongo_server_t  *server;
static mongoc_client_t *client;

/* ------------------------------------------------------------------ */
/*  Helpers                                                             */
/* ------------------------------------------------------------------ */

static void
quiet_log (mongoc_log_level_t level, const char *domain, const char *message, void *data)
{
}

/* A client of the server (single-threaded); options: more URI options,
 * "&..." each. */
static mongoc_client_t *
new_client (const char *options)
{
    char uri [256];
    snprintf (uri, sizeof uri, "%s?serverSelectionTimeoutMS=3000&appname=test_mongo_server%s",
              mongo_server_uri (server), options);
    mongoc_client_t *c = mongoc_client_new (uri);
    cr_assert_not_null (c, "mongoc_client_new (%s)", uri);
    return c;
}

static void
setup (void)
{
    const char *verbose = getenv (MONGO_SERVER_VERBOSE_ENV);
    mongoc_init ();
    if (!verbose || !verbose [0])
        mongoc_log_set_handler (quiet_log, NULL);
    server = mongo_server_new (0);
    cr_assert_not_null (server);
    client = new_client ("");
}

static void
teardown (void)
{
    if (client)
        mongoc_client_destroy (client);
    client = NULL;
    mongo_server_destroy (&server);
    mongoc_cleanup ();
}

TestSuite (mongo_server, .init = setup, .fini = teardown, .timeout = 120);

static mongoc_collection_t *
collection (const char *name)
{
    return mongoc_client_get_collection (client, DB, name);
}

/* The number at a dotted path of doc ("writeErrors.0.index"). */
static int64_t
number_at (const bson_t *doc, const char *path)
{
    bson_iter_t it, found;
    cr_assert (bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, path, &found),
               "no %s in %s", path, bson_as_canonical_extended_json (doc, NULL));
    return bson_iter_as_int64 (&found);
}

static const char *
string_at (const bson_t *doc, const char *path)
{
    bson_iter_t it, found;
    cr_assert (bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, path, &found)
               && BSON_ITER_HOLDS_UTF8 (&found), "no string %s", path);
    return bson_iter_utf8 (&found, NULL);
}

static bool
has_path (const bson_t *doc, const char *path)
{
    bson_iter_t it, found;
    return bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, path, &found);
}

/* {_id: i, n: i, even: i % 2 == 0, tag: "k<i>", sub: {x: i % 10}}. */
static bson_t *
numbered (int i)
{
    char tag [16];
    snprintf (tag, sizeof tag, "k%03d", i);
    return BCON_NEW ("_id", BCON_INT32 (i), "n", BCON_INT32 (i), "even", BCON_BOOL (i % 2 == 0),
                     "tag", BCON_UTF8 (tag), "sub", "{", "x", BCON_INT32 (i % 10), "}");
}

static void
insert_numbered (mongoc_collection_t *coll, int count)
{
    bson_t **docs = calloc ((size_t) count, sizeof *docs);
    bson_error_t error;
    for (int i = 0; i < count; i++)
        docs [i] = numbered (i);
    cr_assert (mongoc_collection_insert_many (coll, (const bson_t **) docs, (size_t) count, NULL,
                                              NULL, &error), "%s", error.message);
    for (int i = 0; i < count; i++)
        bson_destroy (docs [i]);
    free (docs);
}

/* The n field of every document the cursor yields, in order. */
static int
read_numbers (mongoc_cursor_t *cursor, int *out, int max)
{
    const bson_t *doc;
    bson_error_t error;
    int count = 0;
    while (mongoc_cursor_next (cursor, &doc))
        if (count < max)
            out [count++] = (int) number_at (doc, "n");
    cr_assert_not (mongoc_cursor_error (cursor, &error), "%s", error.message);
    return count;
}

static int
count_matching (mongoc_collection_t *coll, const char *filter_json)
{
    bson_error_t error;
    bson_t *filter = bson_new_from_json ((const uint8_t *) filter_json, -1, &error);
    cr_assert_not_null (filter, "%s: %s", filter_json, error.message);
    mongoc_cursor_t *cursor = mongoc_collection_find_with_opts (coll, filter, NULL, NULL);
    int numbers [512];
    int count = read_numbers (cursor, numbers, 512);
    mongoc_cursor_destroy (cursor);
    bson_destroy (filter);
    return count;
}

static bool
ping (mongoc_client_t *c, bson_error_t *error)
{
    bson_t *command = BCON_NEW ("ping", BCON_INT32 (1));
    bool ok = mongoc_client_command_simple (c, "admin", command, NULL, NULL, error);
    bson_destroy (command);
    return ok;
}

/* ------------------------------------------------------------------ */
/*  Handshake                                                           */
/* ------------------------------------------------------------------ */

Test (mongo_server, answers_ping_after_the_handshake)
{
    bson_error_t error;
    cr_assert (ping (client, &error), "%s", error.message);
    size_t n;
    bson_t **hellos = mongo_server_command_documents (server, "isMaster", &n);
    cr_assert_geq (n, 1, "the driver's handshake is a legacy isMaster");
    cr_expect (has_path (hellos [0], "helloOk"));
    cr_expect_str_eq (string_at (hellos [0], "client.driver.name"), "mongoc");
    cr_expect_str_eq (string_at (hellos [0], "client.application.name"), "test_mongo_server");
    mongo_server_docs_free (hellos, n);
    mongo_command_record_t *records;
    n = mongo_server_commands (server, "isMaster", &records);
    cr_expect_str_eq (records [0].db, "admin");
    cr_expect_eq (records [0].connection_id, 1);
    mongo_server_records_free (records, n);
    bson_t **pings = mongo_server_command_documents (server, "ping", &n);
    cr_assert_eq (n, 1);
    cr_expect_str_eq (string_at (pings [0], "$db"), "admin");
    mongo_server_docs_free (pings, n);
}

Test (mongo_server, says_what_it_is_in_build_info_and_hello)
{
    bson_t reply;
    bson_error_t error;
    bson_t *command = BCON_NEW ("buildInfo", BCON_INT32 (1));
    cr_assert (mongoc_client_command_simple (client, "admin", command, NULL, &reply, &error), "%s",
               error.message);
    cr_expect_str_eq (string_at (&reply, "version"), "6.0.0-dlqd-test");
    cr_expect_eq (number_at (&reply, "versionArray.0"), 6);
    bson_destroy (&reply);
    bson_destroy (command);
    command = BCON_NEW ("hello", BCON_INT32 (1));
    cr_assert (mongoc_client_command_simple (client, "admin", command, NULL, &reply, &error), "%s",
               error.message);
    cr_expect_eq (number_at (&reply, "maxWireVersion"), 17);
    cr_expect_eq (number_at (&reply, "minWireVersion"), 0);
    cr_expect_eq (number_at (&reply, "maxBsonObjectSize"), 16777216);
    cr_expect_eq (number_at (&reply, "maxMessageSizeBytes"), 48000000);
    cr_expect_eq (number_at (&reply, "maxWriteBatchSize"), 100000);
    cr_expect_eq (number_at (&reply, "logicalSessionTimeoutMinutes"), 30);
    cr_expect (has_path (&reply, "isWritablePrimary") && has_path (&reply, "connectionId"));
    bson_destroy (&reply);
    bson_destroy (command);
}

Test (mongo_server, answers_command_not_found_and_records_it)
{
    bson_t reply;
    bson_error_t error;
    bson_t *command = BCON_NEW ("frobnicate", BCON_INT32 (1));
    cr_assert_not (mongoc_client_command_simple (client, DB, command, NULL, &reply, &error));
    cr_expect_eq (error.code, 59);
    cr_expect_str_eq (string_at (&reply, "codeName"), "CommandNotFound");
    bson_destroy (&reply);
    bson_destroy (command);
    char **json;
    cr_assert_eq (mongo_server_unknown_commands (server, &json), 1);
    cr_expect (strstr (json [0], "frobnicate"));
    mongo_server_strings_free (json);
}

/* ------------------------------------------------------------------ */
/*  Inserts                                                             */
/* ------------------------------------------------------------------ */

static bool
insert_ids (mongoc_collection_t *coll, const int *ids, size_t count, bool ordered, bson_t *reply,
            bson_error_t *error)
{
    bson_t *docs [8];
    bson_t *opts = BCON_NEW ("ordered", BCON_BOOL (ordered));
    for (size_t i = 0; i < count; i++)
        docs [i] = BCON_NEW ("_id", BCON_INT32 (ids [i]), "v", BCON_INT32 ((int32_t) i));
    bool ok = mongoc_collection_insert_many (coll, (const bson_t **) docs, count, opts, reply, error);
    for (size_t i = 0; i < count; i++)
        bson_destroy (docs [i]);
    bson_destroy (opts);
    return ok;
}

Test (mongo_server, ordered_insert_stops_at_the_duplicate)
{
    mongoc_collection_t *coll = collection ("ordered");
    const int ids [] = { 1, 2, 2, 3 };
    bson_t reply;
    bson_error_t error;
    cr_assert_not (insert_ids (coll, ids, 4, true, &reply, &error));
    cr_expect_eq (error.code, 11000);
    cr_expect (strstr (error.message, "E11000 duplicate key error collection: dlq.ordered index: _id_"
                                      " dup key: { _id: 2 }"), "%s", error.message);
    cr_expect_eq (number_at (&reply, "insertedCount"), 2);
    cr_expect_eq (number_at (&reply, "writeErrors.0.index"), 2);
    cr_expect_eq (number_at (&reply, "writeErrors.0.code"), 11000);
    cr_expect_not (has_path (&reply, "writeErrors.1"));
    cr_expect_eq (mongo_server_count (server, DB, "ordered"), 2);
    bson_destroy (&reply);
    mongoc_collection_destroy (coll);
}

Test (mongo_server, unordered_insert_carries_on_after_the_duplicate)
{
    mongoc_collection_t *coll = collection ("unordered");
    const int ids [] = { 1, 2, 2, 3, 1 };
    bson_t reply;
    bson_error_t error;
    cr_assert_not (insert_ids (coll, ids, 5, false, &reply, &error));
    cr_expect_eq (error.code, 11000);
    cr_expect_eq (number_at (&reply, "insertedCount"), 3);
    cr_expect_eq (number_at (&reply, "writeErrors.0.index"), 2);
    cr_expect_eq (number_at (&reply, "writeErrors.1.index"), 4);
    cr_expect_eq (mongo_server_count (server, DB, "unordered"), 3);
    bson_t *filter = BCON_NEW ("_id", BCON_INT32 (3));
    bson_t *doc = mongo_server_find_one (server, DB, "unordered", filter);
    cr_assert_not_null (doc);
    cr_expect_eq (number_at (doc, "v"), 3, "the document at index 3 is the one stored");
    bson_destroy (doc);
    bson_destroy (filter);
    bson_destroy (&reply);
    mongoc_collection_destroy (coll);
}

Test (mongo_server, gives_an_object_id_to_a_document_without_id_and_puts_id_first)
{
    mongoc_collection_t *coll = collection ("ids");
    bson_error_t error;
    bson_t *doc = BCON_NEW ("a", BCON_INT32 (1));
    bson_t *later_id = BCON_NEW ("b", BCON_INT32 (2), "_id", BCON_UTF8 ("x"));
    cr_assert (mongoc_collection_insert_one (coll, doc, NULL, NULL, &error), "%s", error.message);
    cr_assert (mongoc_collection_insert_one (coll, later_id, NULL, NULL, &error), "%s", error.message);
    size_t n;
    bson_t **docs = mongo_server_find (server, DB, "ids", NULL, NULL, &n);
    cr_assert_eq (n, 2);
    bson_iter_t it;
    cr_assert (bson_iter_init (&it, docs [0]) && bson_iter_next (&it));
    cr_expect_str_eq (bson_iter_key (&it), "_id");
    cr_expect (BSON_ITER_HOLDS_OID (&it), "the driver or the server made an ObjectId");
    cr_assert (bson_iter_init (&it, docs [1]) && bson_iter_next (&it));
    cr_expect_str_eq (bson_iter_key (&it), "_id");
    mongo_server_docs_free (docs, n);
    bson_destroy (doc);
    bson_destroy (later_id);
    mongoc_collection_destroy (coll);
}

Test (mongo_server, unordered_bulk_reports_the_injected_validation_failure_at_its_index)
{
    mongoc_collection_t *coll = collection ("bulk");
    mongo_server_fail_insert_of_string (server, "b", 1, 121, "Document failed validation");
    bson_t *opts = BCON_NEW ("ordered", BCON_BOOL (false));
    mongoc_bulk_operation_t *bulk = mongoc_collection_create_bulk_operation_with_opts (coll, opts);
    const char *ids [] = { "a", "b", "c" };
    bson_error_t error;
    for (int i = 0; i < 3; i++) {
        bson_t *doc = BCON_NEW ("_id", BCON_UTF8 (ids [i]));
        cr_assert (mongoc_bulk_operation_insert_with_opts (bulk, doc, NULL, &error), "%s", error.message);
        bson_destroy (doc);
    }
    bson_t reply;
    cr_assert_eq (mongoc_bulk_operation_execute (bulk, &reply, &error), 0);
    cr_expect_eq (error.code, 121);
    cr_expect_eq (number_at (&reply, "nInserted"), 2);
    cr_expect_eq (number_at (&reply, "writeErrors.0.index"), 1);
    cr_expect_eq (number_at (&reply, "writeErrors.0.code"), 121);
    cr_expect_str_eq (string_at (&reply, "writeErrors.0.errmsg"), "Document failed validation");
    cr_expect_eq (mongo_server_count (server, DB, "bulk"), 2);
    bson_t *b = BCON_NEW ("_id", BCON_UTF8 ("b"));
    cr_expect_null (mongo_server_find_one (server, DB, "bulk", b));
    bson_destroy (b);
    bson_destroy (&reply);
    mongoc_bulk_operation_destroy (bulk);
    /* used once: the same document goes in now */
    bson_t *doc = BCON_NEW ("_id", BCON_UTF8 ("b"));
    cr_expect (mongoc_collection_insert_one (coll, doc, NULL, NULL, &error), "%s", error.message);
    bson_destroy (doc);
    bson_destroy (opts);
    mongoc_collection_destroy (coll);
}

/* ------------------------------------------------------------------ */
/*  Reads                                                               */
/* ------------------------------------------------------------------ */

Test (mongo_server, finds_sorted_in_batches_fetched_with_get_more)
{
    mongoc_collection_t *coll = collection ("numbers");
    insert_numbered (coll, 250);
    mongo_server_clear_log (server);
    bson_t *filter = BCON_NEW ("even", BCON_BOOL (true));
    bson_t *opts = BCON_NEW ("sort", "{", "n", BCON_INT32 (-1), "}", "batchSize", BCON_INT32 (100));
    mongoc_cursor_t *cursor = mongoc_collection_find_with_opts (coll, filter, opts, NULL);
    int numbers [300];
    int count = read_numbers (cursor, numbers, 300);
    cr_assert_eq (count, 125);
    for (int i = 0; i < count; i++)
        cr_assert_eq (numbers [i], 248 - 2 * i, "position %d", i);
    cr_expect_eq (mongo_server_commands_named (server, "find", NULL), 1);
    cr_expect_eq (mongo_server_commands_named (server, "getMore", NULL), 1, "100 then 25");
    cr_expect_eq (mongo_server_commands_named (server, "killCursors", NULL), 0, "it ran out by itself");
    cr_expect_eq (mongo_server_open_cursors (server), 0);
    mongoc_cursor_destroy (cursor);
    bson_destroy (opts);
    opts = BCON_NEW ("batchSize", BCON_INT32 (100));
    cursor = mongoc_collection_find_with_opts (coll, &(bson_t) BSON_INITIALIZER, opts, NULL);
    cr_expect_eq (read_numbers (cursor, numbers, 300), 250);
    cr_expect_eq (numbers [0], 0, "insertion order");
    cr_expect_eq (numbers [249], 249);
    cr_expect_eq (mongo_server_commands_named (server, "getMore", NULL), 3, "100, 100, 50");
    mongoc_cursor_destroy (cursor);
    bson_destroy (opts);
    bson_destroy (filter);
    mongoc_collection_destroy (coll);
}

Test (mongo_server, finds_with_limit_skip_and_projection)
{
    mongoc_collection_t *coll = collection ("numbers");
    insert_numbered (coll, 50);
    bson_t *opts = BCON_NEW ("sort", "{", "tag", BCON_INT32 (1), "}", "skip", BCON_INT64 (5),
                             "limit", BCON_INT64 (7), "projection", "{", "n", BCON_INT32 (1), "}");
    mongoc_cursor_t *cursor = mongoc_collection_find_with_opts (coll, &(bson_t) BSON_INITIALIZER,
                                                                opts, NULL);
    const bson_t *doc;
    int count = 0;
    while (mongoc_cursor_next (cursor, &doc)) {
        cr_expect_eq (number_at (doc, "n"), 5 + count);
        cr_expect (has_path (doc, "_id"));
        cr_expect_not (has_path (doc, "tag"), "projected away");
        count++;
    }
    cr_expect_eq (count, 7);
    mongoc_cursor_destroy (cursor);
    bson_destroy (opts);
    mongoc_collection_destroy (coll);
}

Test (mongo_server, matches_filters_as_mongodb_does)
{
    mongoc_collection_t *coll = collection ("numbers");
    insert_numbered (coll, 100);
    cr_expect_eq (count_matching (coll, "{\"n\": 5}"), 1);
    cr_expect_eq (count_matching (coll, "{\"_id\": 5.0}"), 1, "by _id (hashed) across number types");
    cr_expect_eq (count_matching (coll, "{\"_id\": {\"$numberLong\": \"7\"}}"), 1);
    cr_expect_eq (count_matching (coll, "{\"_id\": 7, \"even\": true}"), 0);
    cr_expect_eq (count_matching (coll, "{\"n\": 5.0}"), 1, "numbers compare across types");
    cr_expect_eq (count_matching (coll, "{\"n\": {\"$numberLong\": \"5\"}}"), 1);
    cr_expect_eq (count_matching (coll, "{\"n\": \"5\"}"), 0, "a string is no number");
    cr_expect_eq (count_matching (coll, "{\"n\": {\"$gte\": 10, \"$lt\": 20}}"), 10);
    cr_expect_eq (count_matching (coll, "{\"n\": {\"$gt\": \"a\"}}"), 0, "type bracketing");
    cr_expect_eq (count_matching (coll, "{\"tag\": {\"$lte\": \"k004\"}}"), 5);
    cr_expect_eq (count_matching (coll, "{\"n\": {\"$in\": [1, 2, 300]}}"), 2);
    cr_expect_eq (count_matching (coll, "{\"n\": {\"$nin\": [1, 2]}}"), 98);
    cr_expect_eq (count_matching (coll, "{\"n\": {\"$ne\": 1}}"), 99);
    cr_expect_eq (count_matching (coll, "{\"sub.x\": 3}"), 10, "a dotted field");
    cr_expect_eq (count_matching (coll, "{\"missing\": null}"), 100, "null matches a missing field");
    cr_expect_eq (count_matching (coll, "{\"missing\": {\"$exists\": true}}"), 0);
    cr_expect_eq (count_matching (coll, "{\"tag\": {\"$exists\": true}}"), 100);
    cr_expect_eq (count_matching (coll, "{\"$or\": [{\"n\": 1}, {\"n\": 2}, {\"tag\": \"k099\"}]}"), 3);
    cr_expect_eq (count_matching (coll, "{\"$and\": [{\"even\": true}, {\"n\": {\"$lt\": 10}}]}"), 5);
    cr_expect_eq (count_matching (coll, "{\"n\": {\"$not\": {\"$lt\": 90}}}"), 10);
    mongoc_collection_destroy (coll);
}

Test (mongo_server, refuses_a_filter_it_does_not_evaluate)
{
    mongoc_collection_t *coll = collection ("numbers");
    insert_numbered (coll, 3);
    bson_t *filter = BCON_NEW ("tag", "{", "$elemMatch", "{", "$eq", BCON_UTF8 ("k001"), "}", "}");
    mongoc_cursor_t *cursor = mongoc_collection_find_with_opts (coll, filter, NULL, NULL);
    const bson_t *doc;
    bson_error_t error;
    cr_expect_not (mongoc_cursor_next (cursor, &doc));
    cr_assert (mongoc_cursor_error (cursor, &error));
    cr_expect_eq (error.code, 238, "NotImplemented, never a silent mismatch");
    mongoc_cursor_destroy (cursor);
    bson_destroy (filter);
    mongoc_collection_destroy (coll);
}

Test (mongo_server, sorts_mixed_types_in_bson_order)
{
    mongoc_collection_t *coll = collection ("mixed");
    bson_error_t error;
    bson_t *docs [] = {
        BCON_NEW ("_id", BCON_INT32 (1), "v", BCON_DATE_TIME (1000)),
        BCON_NEW ("_id", BCON_INT32 (2), "v", BCON_UTF8 ("b")),
        BCON_NEW ("_id", BCON_INT32 (3), "v", BCON_DOUBLE (2.5)),
        BCON_NEW ("_id", BCON_INT32 (4)),
        BCON_NEW ("_id", BCON_INT32 (5), "v", "{", "a", BCON_INT32 (1), "}"),
        BCON_NEW ("_id", BCON_INT32 (6), "v", BCON_BOOL (true)),
        BCON_NEW ("_id", BCON_INT32 (7), "v", BCON_INT64 (2)),
        BCON_NEW ("_id", BCON_INT32 (8), "v", BCON_UTF8 ("a")),
    };
    cr_assert (mongoc_collection_insert_many (coll, (const bson_t **) docs, 8, NULL, NULL, &error),
               "%s", error.message);
    bson_t *opts = BCON_NEW ("sort", "{", "v", BCON_INT32 (1), "}");
    mongoc_cursor_t *cursor = mongoc_collection_find_with_opts (coll, &(bson_t) BSON_INITIALIZER,
                                                                opts, NULL);
    const int expected [] = { 4, 7, 3, 8, 2, 5, 6, 1 };   /* missing, numbers, strings, object, bool, date */
    const bson_t *doc;
    int i = 0;
    while (mongoc_cursor_next (cursor, &doc) && i < 8)
        cr_expect_eq (number_at (doc, "_id"), expected [i++], "position %d", i);
    cr_expect_eq (i, 8);
    mongoc_cursor_destroy (cursor);
    bson_destroy (opts);
    for (int k = 0; k < 8; k++)
        bson_destroy (docs [k]);
    mongoc_collection_destroy (coll);
}

Test (mongo_server, kills_a_cursor_destroyed_before_its_end)
{
    mongoc_collection_t *coll = collection ("numbers");
    insert_numbered (coll, 250);
    bson_t *opts = BCON_NEW ("batchSize", BCON_INT32 (10));
    mongoc_cursor_t *cursor = mongoc_collection_find_with_opts (coll, &(bson_t) BSON_INITIALIZER,
                                                                opts, NULL);
    const bson_t *doc;
    cr_assert (mongoc_cursor_next (cursor, &doc));
    int64_t id = mongoc_cursor_get_id (cursor);
    cr_assert_neq (id, 0);
    cr_expect_eq (mongo_server_open_cursors (server), 1);
    mongoc_cursor_destroy (cursor);
    size_t n;
    bson_t **kills = mongo_server_command_documents (server, "killCursors", &n);
    cr_assert_eq (n, 1);
    cr_expect_str_eq (string_at (kills [0], "killCursors"), "numbers");
    cr_expect_eq (number_at (kills [0], "cursors.0"), id);
    cr_expect_eq (mongo_server_open_cursors (server), 0);
    mongo_server_docs_free (kills, n);
    bson_destroy (opts);
    mongoc_collection_destroy (coll);
}

/* ------------------------------------------------------------------ */
/*  Updates, deletes, counts                                            */
/* ------------------------------------------------------------------ */

Test (mongo_server, deletes_and_counts)
{
    mongoc_collection_t *coll = collection ("numbers");
    insert_numbered (coll, 250);
    bson_t reply;
    bson_error_t error;
    bson_t *even = BCON_NEW ("even", BCON_BOOL (true));
    cr_assert (mongoc_collection_delete_many (coll, even, NULL, &reply, &error), "%s", error.message);
    cr_expect_eq (number_at (&reply, "deletedCount"), 125);
    bson_destroy (&reply);
    bson_t *odd = BCON_NEW ("even", BCON_BOOL (false));
    cr_assert (mongoc_collection_delete_one (coll, odd, NULL, &reply, &error), "%s", error.message);
    cr_expect_eq (number_at (&reply, "deletedCount"), 1);
    bson_destroy (&reply);
    int64_t all = mongoc_collection_count_documents (coll, &(bson_t) BSON_INITIALIZER, NULL, NULL,
                                                     NULL, &error);
    cr_expect_eq (all, 124, "%" PRId64 " %s", all, error.message);
    bson_t *small = BCON_NEW ("n", "{", "$lt", BCON_INT32 (11), "}");
    int64_t some = mongoc_collection_count_documents (coll, small, NULL, NULL, NULL, &error);
    cr_expect_eq (some, 4, "3, 5, 7, 9 (1 went with delete_one): %" PRId64 " %s", some, error.message);
    cr_expect_eq (mongoc_collection_estimated_document_count (coll, NULL, NULL, NULL, &error), 124);
    cr_expect_eq (mongo_server_count (server, DB, "numbers"), 124);
    cr_expect_eq (mongo_server_commands_named (server, "count", NULL), 1, "estimated: count");
    cr_expect_eq (mongo_server_commands_named (server, "aggregate", NULL), 2, "count_documents: aggregate");
    bson_destroy (small);
    bson_destroy (odd);
    bson_destroy (even);
    mongoc_collection_destroy (coll);
}

Test (mongo_server, updates_with_set_inc_and_upsert)
{
    mongoc_collection_t *coll = collection ("numbers");
    insert_numbered (coll, 10);
    bson_t reply;
    bson_error_t error;
    bson_t *q = BCON_NEW ("_id", BCON_INT32 (3));
    bson_t *u = BCON_NEW ("$set", "{", "tag", BCON_UTF8 ("three"), "}", "$inc", "{", "n", BCON_INT32 (10), "}");
    cr_assert (mongoc_collection_update_one (coll, q, u, NULL, &reply, &error), "%s", error.message);
    cr_expect_eq (number_at (&reply, "matchedCount"), 1);
    cr_expect_eq (number_at (&reply, "modifiedCount"), 1);
    bson_destroy (&reply);
    bson_t *doc = mongo_server_find_one (server, DB, "numbers", q);
    cr_assert_not_null (doc);
    cr_expect_str_eq (string_at (doc, "tag"), "three");
    cr_expect_eq (number_at (doc, "n"), 13);
    bson_destroy (doc);
    bson_t *q2 = BCON_NEW ("_id", BCON_UTF8 ("new"));
    bson_t *opts = BCON_NEW ("upsert", BCON_BOOL (true));
    cr_assert (mongoc_collection_update_one (coll, q2, u, opts, &reply, &error), "%s", error.message);
    cr_expect_str_eq (string_at (&reply, "upsertedId"), "new");
    bson_destroy (&reply);
    doc = mongo_server_find_one (server, DB, "numbers", q2);
    cr_assert_not_null (doc);
    cr_expect_eq (number_at (doc, "n"), 10);
    bson_destroy (doc);
    cr_expect_eq (mongo_server_count (server, DB, "numbers"), 11);
    bson_destroy (opts);
    bson_destroy (q2);
    bson_destroy (u);
    bson_destroy (q);
    mongoc_collection_destroy (coll);
}

/* ------------------------------------------------------------------ */
/*  Regular expressions                                                 */
/* ------------------------------------------------------------------ */

/* Documents {_id: i, text: texts [i]}, and {_id: count, text: 5}. */
static void
insert_texts (mongoc_collection_t *coll, const char *const *texts, int count)
{
    bson_error_t error;
    for (int i = 0; i <= count; i++) {
        bson_t *doc = i < count ? BCON_NEW ("_id", BCON_INT32 (i), "text", BCON_UTF8 (texts [i]))
                                : BCON_NEW ("_id", BCON_INT32 (i), "text", BCON_INT32 (5));
        cr_assert (mongoc_collection_insert_one (coll, doc, NULL, NULL, &error), "%s", error.message);
        bson_destroy (doc);
    }
}

/* How many documents filter (taken) finds; the server's error code in
 * *code (0: none). */
static int
find_count (mongoc_collection_t *coll, bson_t *filter, uint32_t *code)
{
    mongoc_cursor_t *cursor = mongoc_collection_find_with_opts (coll, filter, NULL, NULL);
    const bson_t *doc;
    bson_error_t error;
    int n = 0;
    while (mongoc_cursor_next (cursor, &doc))
        n++;
    *code = mongoc_cursor_error (cursor, &error) ? error.code : 0;
    mongoc_cursor_destroy (cursor);
    bson_destroy (filter);
    return n;
}

static int
regex_count (mongoc_collection_t *coll, const char *pattern, const char *options)
{
    uint32_t code;
    bson_t *filter = options ? BCON_NEW ("text", "{", "$regex", BCON_UTF8 (pattern), "$options", BCON_UTF8 (options), "}")
                             : BCON_NEW ("text", "{", "$regex", BCON_UTF8 (pattern), "}");
    int n = find_count (coll, filter, &code);
    cr_expect_eq (code, 0, "/%s/%s: error %u", pattern, options ? options : "", code);
    return n;
}

static uint32_t
regex_error (mongoc_collection_t *coll, const char *pattern, const char *options)
{
    uint32_t code;
    bson_t *filter = options ? BCON_NEW ("text", "{", "$regex", BCON_UTF8 (pattern), "$options", BCON_UTF8 (options), "}")
                             : BCON_NEW ("text", "{", "$regex", BCON_UTF8 (pattern), "}");
    cr_expect_eq (find_count (coll, filter, &code), 0);
    return code;
}

Test (mongo_server, matches_regular_expressions)
{
    static const char *const texts [] = { "Read timed out after 30 ms", "read TIMED OUT", "order (42) failed",
                                          "a.b", "axb", "\xc3\x89" "chec", "line\nbreak" };
    mongoc_collection_t *coll = collection ("texts");
    insert_texts (coll, texts, 7);
    cr_expect_eq (regex_count (coll, "timed out", NULL), 1, "case matters without the i option");
    cr_expect_eq (regex_count (coll, "timed out", "i"), 2);
    cr_expect_eq (regex_count (coll, "[tT][iI][mM][eE][dD] [oO]", NULL), 2, "classes");
    cr_expect_eq (regex_count (coll, "\\(42\\)", NULL), 1, "escaped punctuation");
    cr_expect_eq (regex_count (coll, "a\\.b", NULL), 1);
    cr_expect_eq (regex_count (coll, "a.b", NULL), 2, "any character");
    cr_expect_eq (regex_count (coll, "^read", NULL), 1, "anchored");
    cr_expect_eq (regex_count (coll, "OUT$", NULL), 1);
    cr_expect_eq (regex_count (coll, "\xc3\x89" "chec", NULL), 1, "UTF-8 bytes as they are");
    cr_expect_eq (regex_count (coll, "\xc3\xa9" "chec", "i"), 0, "the i option folds ASCII letters only");
    cr_expect_eq (regex_count (coll, "e\nb", NULL), 1, "a newline in the pattern");
    cr_expect_eq (regex_count (coll, "", NULL), 7, "strings only: not the number");
    uint32_t code;
    cr_expect_eq (find_count (coll, BCON_NEW ("text", BCON_REGEX ("TIMED", "i")), &code), 2, "a regex value");
    cr_expect_eq (find_count (coll, BCON_NEW ("text", "{", "$regex", BCON_REGEX ("TIMED", ""), "}"), &code), 1,
                  "$regex with a regex value");
    cr_expect_eq (find_count (coll, BCON_NEW ("text", "{", "$not", "{", "$regex", BCON_UTF8 ("timed"),
                                              "$options", BCON_UTF8 ("i"), "}", "}"), &code), 6,
                  "$not: the other five strings and the number");
    cr_expect_eq (find_count (coll, BCON_NEW ("$or", "[", "{", "text", BCON_REGEX ("^a", ""), "}",
                                              "{", "_id", BCON_INT32 (0), "}", "]"), &code), 3);
    cr_expect_eq (regex_error (coll, "\\d", NULL), 238, "PCRE's classes are not POSIX's: NotImplemented");
    cr_expect_eq (regex_error (coll, "(?i)x", NULL), 238);
    cr_expect_eq (regex_error (coll, "x", "m"), 238);
    cr_expect_eq (regex_error (coll, "(", NULL), 2, "does not compile: BadValue");
    cr_expect_eq (find_count (coll, BCON_NEW ("text", "{", "$options", BCON_UTF8 ("i"), "}"), &code), 0);
    cr_expect_eq (code, 2, "$options without $regex");
    cr_expect_eq (find_count (coll, BCON_NEW ("text", "{", "$in", "[", BCON_REGEX ("a", ""), "]", "}"), &code), 0);
    cr_expect_eq (code, 238, "a regex in $in");
    mongoc_collection_destroy (coll);
}

/* ------------------------------------------------------------------ */
/*  findAndModify                                                       */
/* ------------------------------------------------------------------ */

/* What findAndModify answered (a bson_t may not be copied: the caller
 * keeps this in place and destroys reply). */
typedef struct {
    bool         ok;
    bson_t       reply;
    bson_error_t error;
} modified_t;

/* findAndModify on coll into m: query, sort (may be NULL), update (NULL:
 * remove), fields (may be NULL), flags; the documents are taken. */
static void
find_and_modify (modified_t *m, mongoc_collection_t *coll, bson_t *query, bson_t *sort, bson_t *update,
                 bson_t *fields, mongoc_find_and_modify_flags_t flags)
{
    mongoc_find_and_modify_opts_t *opts = mongoc_find_and_modify_opts_new ();
    if (update)
        mongoc_find_and_modify_opts_set_update (opts, update);
    if (sort)
        mongoc_find_and_modify_opts_set_sort (opts, sort);
    if (fields)
        mongoc_find_and_modify_opts_set_fields (opts, fields);
    mongoc_find_and_modify_opts_set_flags (opts, flags | (update ? 0 : MONGOC_FIND_AND_MODIFY_REMOVE));
    m->ok = mongoc_collection_find_and_modify_with_opts (coll, query, opts, &m->reply, &m->error);
    mongoc_find_and_modify_opts_destroy (opts);
    bson_t *taken [] = { query, sort, update, fields };
    for (size_t i = 0; i < 4; i++)
        if (taken [i])
            bson_destroy (taken [i]);
}

Test (mongo_server, finds_and_modifies_one_document_in_sort_order)
{
    mongoc_collection_t *coll = collection ("numbers");
    insert_numbered (coll, 10);
    modified_t m;
    find_and_modify (&m, coll, BCON_NEW ("even", BCON_BOOL (true)), BCON_NEW ("n", BCON_INT32 (-1)),
                                    BCON_NEW ("$inc", "{", "n", BCON_INT32 (100), "}", "$set", "{", "tag",
                                              BCON_UTF8 ("taken"), "}"), NULL, MONGOC_FIND_AND_MODIFY_RETURN_NEW);
    cr_assert (m.ok, "%s", m.error.message);
    cr_expect_eq (number_at (&m.reply, "value._id"), 8, "the greatest even n");
    cr_expect_eq (number_at (&m.reply, "value.n"), 108, "new: the document after");
    cr_expect_eq (number_at (&m.reply, "lastErrorObject.n"), 1);
    bson_destroy (&m.reply);

    find_and_modify (&m, coll, BCON_NEW ("even", BCON_BOOL (true), "tag", "{", "$ne", BCON_UTF8 ("taken"), "}"),
                         BCON_NEW ("n", BCON_INT32 (-1)), BCON_NEW ("$set", "{", "tag", BCON_UTF8 ("taken"), "}"),
                         BCON_NEW ("n", BCON_INT32 (1)), MONGOC_FIND_AND_MODIFY_NONE);
    cr_assert (m.ok, "%s", m.error.message);
    cr_expect_eq (number_at (&m.reply, "value._id"), 6);
    cr_expect_eq (number_at (&m.reply, "value.n"), 6);
    cr_expect_not (has_path (&m.reply, "value.tag"), "the projection: _id and n only");
    bson_destroy (&m.reply);
    bson_t *q = BCON_NEW ("_id", BCON_INT32 (6));
    bson_t *six = mongo_server_find_one (server, DB, "numbers", q);
    cr_expect_str_eq (string_at (six, "tag"), "taken", "not new: the reply had the document before");
    bson_destroy (six);
    bson_destroy (q);

    find_and_modify (&m, coll, BCON_NEW ("n", BCON_INT32 (1000)), NULL,
                         BCON_NEW ("$set", "{", "tag", BCON_UTF8 ("x"), "}"), NULL, MONGOC_FIND_AND_MODIFY_RETURN_NEW);
    cr_assert (m.ok, "%s", m.error.message);
    cr_expect_eq (number_at (&m.reply, "lastErrorObject.n"), 0, "no match");
    bson_iter_t it;
    cr_expect (bson_iter_init_find (&it, &m.reply, "value") && BSON_ITER_HOLDS_NULL (&it), "value: null");
    bson_destroy (&m.reply);
    mongoc_collection_destroy (coll);
}

Test (mongo_server, upserts_and_removes_with_find_and_modify)
{
    mongoc_collection_t *coll = collection ("numbers");
    insert_numbered (coll, 5);
    modified_t m;
    find_and_modify (&m, coll, BCON_NEW ("_id", BCON_UTF8 ("lock"), "$or", "[", "{", "n", "{", "$lt",
                                                    BCON_INT32 (0), "}", "}", "{", "owner", BCON_UTF8 ("a"), "}", "]"),
                                    NULL, BCON_NEW ("$set", "{", "owner", BCON_UTF8 ("a"), "n", BCON_INT32 (5), "}"),
                                    NULL, MONGOC_FIND_AND_MODIFY_RETURN_NEW | MONGOC_FIND_AND_MODIFY_UPSERT);
    cr_assert (m.ok, "%s", m.error.message);
    cr_expect_str_eq (string_at (&m.reply, "value._id"), "lock", "the query's equality on _id");
    cr_expect_str_eq (string_at (&m.reply, "value.owner"), "a");
    cr_expect_str_eq (string_at (&m.reply, "lastErrorObject.upserted"), "lock");
    bson_destroy (&m.reply);

    find_and_modify (&m, coll, BCON_NEW ("_id", BCON_UTF8 ("lock"), "$or", "[", "{", "n", "{", "$lt",
                                         BCON_INT32 (0), "}", "}", "{", "owner", BCON_UTF8 ("b"), "}", "]"),
                         NULL, BCON_NEW ("$set", "{", "owner", BCON_UTF8 ("b"), "}"), NULL,
                         MONGOC_FIND_AND_MODIFY_RETURN_NEW | MONGOC_FIND_AND_MODIFY_UPSERT);
    cr_expect_not (m.ok, "the query matches nothing, the upsert meets the _id");
    cr_expect_eq (m.error.code, 11000, "DuplicateKey: %s", m.error.message);
    bson_destroy (&m.reply);
    bson_t *q = BCON_NEW ("_id", BCON_UTF8 ("lock"));
    bson_t *lock = mongo_server_find_one (server, DB, "numbers", q);
    cr_expect_str_eq (string_at (lock, "owner"), "a", "unchanged");
    bson_destroy (lock);
    bson_destroy (q);

    find_and_modify (&m, coll, BCON_NEW ("_id", BCON_INT32 (2)), NULL, NULL, NULL, MONGOC_FIND_AND_MODIFY_NONE);
    cr_assert (m.ok, "%s", m.error.message);
    cr_expect_eq (number_at (&m.reply, "value.n"), 2, "remove: the document removed");
    bson_destroy (&m.reply);
    cr_expect_eq (mongo_server_count (server, DB, "numbers"), 5);
    mongoc_collection_destroy (coll);
}

#define TAKERS   4
#define TAKEN    400

typedef struct {
    int  ids [TAKEN];
    int  count;
    bool failed;
} taker_t;

/* Take unclaimed documents, lowest n first, until none is left. */
static void *
take_all (void *arg)
{
    taker_t *t = arg;
    mongoc_client_t *own = new_client ("");
    mongoc_collection_t *coll = mongoc_client_get_collection (own, DB, "work");
    for (;;) {
        modified_t m;
    find_and_modify (&m, coll, BCON_NEW ("claimed", BCON_BOOL (false)), BCON_NEW ("n", BCON_INT32 (1)),
                                        BCON_NEW ("$set", "{", "claimed", BCON_BOOL (true), "}"), NULL,
                                        MONGOC_FIND_AND_MODIFY_RETURN_NEW);
        bson_iter_t it;
        bool got = m.ok && bson_iter_init (&it, &m.reply) && bson_iter_find_descendant (&it, "value._id", &it);
        t->failed = t->failed || !m.ok;
        if (got && t->count < TAKEN) {
            t->ids [t->count++] = (int) bson_iter_as_int64 (&it);
        }
        bson_destroy (&m.reply);
        if (!got)
            break;
    }
    mongoc_collection_destroy (coll);
    mongoc_client_destroy (own);
    return NULL;
}

Test (mongo_server, find_and_modify_hands_each_document_to_one_client)
{
    mongoc_collection_t *coll = collection ("work");
    bson_error_t error;
    for (int i = 0; i < TAKEN; i++) {
        bson_t *doc = BCON_NEW ("_id", BCON_INT32 (i), "n", BCON_INT32 ((i * 37) % TAKEN), "claimed", BCON_BOOL (false));
        cr_assert (mongoc_collection_insert_one (coll, doc, NULL, NULL, &error), "%s", error.message);
        bson_destroy (doc);
    }
    static taker_t takers [TAKERS];
    pthread_t threads [TAKERS];
    memset (takers, 0, sizeof takers);
    for (int i = 0; i < TAKERS; i++)
        cr_assert_eq (pthread_create (&threads [i], NULL, take_all, &takers [i]), 0);
    for (int i = 0; i < TAKERS; i++)
        pthread_join (threads [i], NULL);
    int seen [TAKEN] = { 0 }, total = 0;
    for (int i = 0; i < TAKERS; i++) {
        cr_expect_not (takers [i].failed, "taker %d had an error", i);
        total += takers [i].count;
        for (int k = 0; k < takers [i].count; k++)
            seen [takers [i].ids [k]]++;
    }
    cr_expect_eq (total, TAKEN, "%d taken", total);
    for (int i = 0; i < TAKEN; i++)
        cr_expect_eq (seen [i], 1, "document %d taken %d times", i, seen [i]);
    mongoc_collection_destroy (coll);
}

/* ------------------------------------------------------------------ */
/*  $group                                                              */
/* ------------------------------------------------------------------ */

/* The documents of pipeline_json on coll; *code the error (0: none). */
static bson_t **
aggregate (mongoc_collection_t *coll, const char *pipeline_json, size_t *count, uint32_t *code)
{
    bson_error_t error;
    bson_t *pipeline = bson_new_from_json ((const uint8_t *) pipeline_json, -1, &error);
    cr_assert_not_null (pipeline, "%s: %s", pipeline_json, error.message);
    mongoc_cursor_t *cursor = mongoc_collection_aggregate (coll, MONGOC_QUERY_NONE, pipeline, NULL, NULL);
    bson_t **docs = calloc (256, sizeof *docs);
    const bson_t *doc;
    *count = 0;
    while (mongoc_cursor_next (cursor, &doc) && *count < 256)
        docs [(*count)++] = bson_copy (doc);
    *code = mongoc_cursor_error (cursor, &error) ? error.code : 0;
    mongoc_cursor_destroy (cursor);
    bson_destroy (pipeline);
    return docs;
}

static void
docs_free (bson_t **docs, size_t count)
{
    for (size_t i = 0; i < count; i++)
        bson_destroy (docs [i]);
    free (docs);
}

Test (mongo_server, groups_by_a_field_with_accumulators)
{
    mongoc_collection_t *coll = collection ("numbers");
    insert_numbered (coll, 60);
    size_t n;
    uint32_t code;
    bson_t **groups = aggregate (coll, "{\"pipeline\": [{\"$match\": {\"n\": {\"$lt\": 50}}},"
                                       " {\"$group\": {\"_id\": \"$sub.x\", \"count\": {\"$sum\": 1},"
                                       " \"total\": {\"$sum\": \"$n\"}, \"least\": {\"$min\": \"$n\"},"
                                       " \"most\": {\"$max\": \"$n\"}, \"first\": {\"$first\": \"$tag\"},"
                                       " \"last\": {\"$last\": \"$tag\"}, \"parities\": {\"$addToSet\": \"$even\"},"
                                       " \"tags\": {\"$push\": \"$tag\"}, \"nothing\": {\"$min\": \"$missing\"}}},"
                                       " {\"$sort\": {\"_id\": 1}}]}", &n, &code);
    cr_assert_eq (code, 0);
    cr_assert_eq (n, 10, "one group per sub.x");
    for (int x = 0; x < 10; x++) {
        char first [16], last [16];
        snprintf (first, sizeof first, "k%03d", x);
        snprintf (last, sizeof last, "k%03d", 40 + x);
        cr_expect_eq (number_at (groups [x], "_id"), x);
        cr_expect_eq (number_at (groups [x], "count"), 5);
        cr_expect_eq (number_at (groups [x], "total"), 5 * x + 100);
        cr_expect_eq (number_at (groups [x], "least"), x);
        cr_expect_eq (number_at (groups [x], "most"), 40 + x);
        cr_expect_str_eq (string_at (groups [x], "first"), first);
        cr_expect_str_eq (string_at (groups [x], "last"), last);
        cr_expect (has_path (groups [x], "parities.0") && !has_path (groups [x], "parities.1"), "one parity");
        cr_expect (has_path (groups [x], "tags.4") && !has_path (groups [x], "tags.5"), "five tags");
        bson_iter_t it;
        cr_expect (bson_iter_init_find (&it, groups [x], "nothing") && BSON_ITER_HOLDS_NULL (&it));
    }
    docs_free (groups, n);
    groups = aggregate (coll, "{\"pipeline\": [{\"$group\": {\"_id\": \"$missing\", \"n\": {\"$sum\": 1}}}]}", &n,
                        &code);
    cr_assert_eq (n, 1, "a missing field groups as null");
    bson_iter_t it;
    cr_expect (bson_iter_init_find (&it, groups [0], "_id") && BSON_ITER_HOLDS_NULL (&it));
    cr_expect_eq (number_at (groups [0], "n"), 60);
    docs_free (groups, n);
    groups = aggregate (coll, "{\"pipeline\": [{\"$group\": {\"_id\": {\"a\": \"$n\"}}}]}", &n, &code);
    cr_expect_eq (code, 238, "a composite _id: NotImplemented");
    docs_free (groups, n);
    groups = aggregate (coll, "{\"pipeline\": [{\"$group\": {\"_id\": \"$n\", \"a\": {\"$avg\": \"$n\"}}}]}", &n,
                        &code);
    cr_expect_eq (code, 238, "$avg: NotImplemented");
    docs_free (groups, n);
    mongoc_collection_destroy (coll);
}

/* ------------------------------------------------------------------ */
/*  Indexes                                                             */
/* ------------------------------------------------------------------ */

static bool
create_ttl_index (mongoc_database_t *db, const char *coll, bson_t *reply, bson_error_t *error)
{
    bson_t *command = BCON_NEW ("createIndexes", BCON_UTF8 (coll),
                                "indexes", "[", "{", "key", "{", "expiresAt", BCON_INT32 (1), "}",
                                "name", BCON_UTF8 ("expiresAt_1"),
                                "expireAfterSeconds", BCON_INT32 (0), "}", "]");
    bool ok = mongoc_database_write_command_with_opts (db, command, NULL, reply, error);
    bson_destroy (command);
    return ok;
}

Test (mongo_server, creates_a_ttl_index_once_and_lists_it)
{
    mongoc_database_t *db = mongoc_client_get_database (client, DB);
    bson_t reply;
    bson_error_t error;
    cr_assert (create_ttl_index (db, "events", &reply, &error), "%s", error.message);
    cr_expect_eq (number_at (&reply, "numIndexesBefore"), 1);
    cr_expect_eq (number_at (&reply, "numIndexesAfter"), 2);
    cr_expect (has_path (&reply, "createdCollectionAutomatically"));
    bson_destroy (&reply);
    cr_assert (create_ttl_index (db, "events", &reply, &error), "%s", error.message);
    cr_expect_str_eq (string_at (&reply, "note"), "all indexes already exist");
    cr_expect_eq (number_at (&reply, "numIndexesAfter"), 2);
    bson_destroy (&reply);
    size_t n;
    char **specs = mongo_server_index_specs (server, DB, "events", &n);
    cr_assert_eq (n, 2);
    cr_expect (strstr (specs [0], "\"name\" : \"_id_\""), "%s", specs [0]);
    cr_expect (strstr (specs [1], "\"expireAfterSeconds\" : { \"$numberInt\" : \"0\" }"), "%s", specs [1]);
    mongo_server_strings_free (specs);
    cr_expect_eq (mongo_server_commands_named (server, "createIndexes", NULL), 2);

    mongoc_collection_t *coll = collection ("events");
    mongoc_cursor_t *cursor = mongoc_collection_find_indexes_with_opts (coll, NULL);
    const bson_t *spec;
    int count = 0;
    while (mongoc_cursor_next (cursor, &spec)) {
        if (count == 0) {
            cr_expect_str_eq (string_at (spec, "name"), "_id_");
            cr_expect_eq (number_at (spec, "v"), 2);
            cr_expect_eq (number_at (spec, "key._id"), 1);
        } else
            cr_expect_eq (number_at (spec, "expireAfterSeconds"), 0);
        count++;
    }
    cr_expect_not (mongoc_cursor_error (cursor, &error), "%s", error.message);
    cr_expect_eq (count, 2);
    mongoc_cursor_destroy (cursor);
    mongoc_collection_destroy (coll);
    mongoc_database_destroy (db);
}

Test (mongo_server, refuses_an_index_name_reused_for_another_key)
{
    mongoc_database_t *db = mongoc_client_get_database (client, DB);
    bson_t reply;
    bson_error_t error;
    cr_assert (create_ttl_index (db, "events", &reply, &error), "%s", error.message);
    bson_destroy (&reply);
    bson_t *command = BCON_NEW ("createIndexes", BCON_UTF8 ("events"),
                                "indexes", "[", "{", "key", "{", "other", BCON_INT32 (1), "}",
                                "name", BCON_UTF8 ("expiresAt_1"), "}", "]");
    cr_assert_not (mongoc_database_write_command_with_opts (db, command, NULL, &reply, &error));
    cr_expect_eq (error.code, 86, "IndexKeySpecsConflict");
    bson_destroy (&reply);
    bson_destroy (command);
    mongoc_database_destroy (db);
}

Test (mongo_server, answers_namespace_not_found_to_list_indexes_of_nothing)
{
    bson_t reply;
    bson_error_t error;
    bson_t *command = BCON_NEW ("listIndexes", BCON_UTF8 ("nothing"));
    cr_assert_not (mongoc_client_command_simple (client, DB, command, NULL, &reply, &error));
    cr_expect_eq (error.code, 26);
    bson_destroy (&reply);
    bson_destroy (command);
    cr_expect_null (mongo_server_index_specs (server, DB, "nothing", &(size_t) { 0 }));
}

/* ------------------------------------------------------------------ */
/*  Faults                                                              */
/* ------------------------------------------------------------------ */

Test (mongo_server, injected_failure_reaches_the_client_with_its_label)
{
    mongoc_collection_t *coll = collection ("faults");
    mongo_server_fail_command (server, "insert", 1, 10107, NULL, NULL, "RetryableWriteError");
    bson_t *doc = BCON_NEW ("_id", BCON_INT32 (1));
    bson_t reply;
    bson_error_t error;
    cr_assert_not (mongoc_collection_insert_one (coll, doc, NULL, &reply, &error));
    cr_expect_eq (error.code, 10107);
    cr_expect (mongoc_error_has_label (&reply, "RetryableWriteError"));
    cr_expect_eq (mongo_server_count (server, DB, "faults"), 0, "not applied");
    bson_destroy (&reply);
    cr_expect (mongoc_collection_insert_one (coll, doc, NULL, NULL, &error), "%s", error.message);
    cr_expect_eq (mongo_server_count (server, DB, "faults"), 1);
    cr_expect_eq (mongo_server_commands_named (server, "insert", NULL), 2, "both recorded");
    bson_destroy (doc);
    mongoc_collection_destroy (coll);
}

Test (mongo_server, dropped_connection_is_a_network_error_then_the_client_reconnects)
{
    mongoc_collection_t *coll = collection ("faults");
    bson_error_t error;
    cr_assert (ping (client, &error), "%s", error.message);
    mongo_server_drop_on_command (server, "insert", 1);
    bson_t *doc = BCON_NEW ("_id", BCON_INT32 (1));
    cr_assert_not (mongoc_collection_insert_one (coll, doc, NULL, NULL, &error));
    cr_expect_eq (error.domain, MONGOC_ERROR_STREAM, "%u.%u %s", error.domain, error.code, error.message);
    cr_expect_eq (mongo_server_count (server, DB, "faults"), 0, "not applied");
    cr_assert (mongoc_collection_insert_one (coll, doc, NULL, NULL, &error), "%s", error.message);
    cr_expect_eq (mongo_server_count (server, DB, "faults"), 1);
    mongo_command_record_t *records;
    size_t n = mongo_server_commands (server, "isMaster", &records);
    cr_expect_eq (n, 2, "a second handshake, on a new connection");
    if (n == 2)
        cr_expect_eq (records [1].connection_id, 2);
    mongo_server_records_free (records, n);
    bson_destroy (doc);
    mongoc_collection_destroy (coll);
}

Test (mongo_server, closed_connections_and_a_server_down_then_up)
{
    bson_error_t error;
    cr_assert (ping (client, &error), "%s", error.message);
    cr_expect_eq (mongo_server_connection_count (server), 1);
    mongo_server_close_connections (server);
    cr_expect_not (ping (client, &error), "the first use of the closed connection fails");
    cr_expect (ping (client, &error), "then it reconnects: %s", error.message);

    cr_assert (mongo_server_set_down (server, true));
    mongoc_client_t *other = new_client ("");
    cr_expect_not (ping (other, &error), "nobody listens");
    mongoc_client_destroy (other);
    cr_assert (mongo_server_set_down (server, false));
    other = new_client ("");
    cr_expect (ping (other, &error), "listening again: %s", error.message);
    mongoc_client_destroy (other);
}

Test (mongo_server, delays_replies)
{
    bson_error_t error;
    cr_assert (ping (client, &error), "%s", error.message);
    mongo_server_set_delay (server, 300);
    int64_t start = bson_get_monotonic_time ();
    cr_assert (ping (client, &error), "%s", error.message);
    cr_expect_geq (bson_get_monotonic_time () - start, 290 * 1000);
    mongo_server_clear_faults (server);
    start = bson_get_monotonic_time ();
    cr_assert (ping (client, &error), "%s", error.message);
    cr_expect_lt (bson_get_monotonic_time () - start, 200 * 1000);
}

Test (mongo_server, client_destroy_ends_its_sessions)
{
    mongoc_collection_t *coll = collection ("sessions");
    bson_t *doc = BCON_NEW ("a", BCON_INT32 (1));
    bson_error_t error;
    cr_assert (mongoc_collection_insert_one (coll, doc, NULL, NULL, &error), "%s", error.message);
    mongoc_collection_destroy (coll);
    mongoc_client_destroy (client);
    client = NULL;
    size_t n;
    bson_t **ends = mongo_server_command_documents (server, "endSessions", &n);
    cr_assert_eq (n, 1);
    cr_expect (has_path (ends [0], "endSessions.0.id"));
    cr_expect_str_eq (string_at (ends [0], "$db"), "admin");
    mongo_server_docs_free (ends, n);
    bson_destroy (doc);
}

Test (mongo_server, serves_a_pooled_client_and_its_monitor)
{
    char uri [256];
    snprintf (uri, sizeof uri, "%s?heartbeatFrequencyMS=500", mongo_server_uri (server));
    mongoc_uri_t *parsed = mongoc_uri_new (uri);
    mongoc_client_pool_t *pool = mongoc_client_pool_new (parsed);
    mongoc_client_t *pooled = mongoc_client_pool_pop (pool);
    bson_error_t error;
    cr_assert (ping (pooled, &error), "%s", error.message);
    cr_expect (mongo_server_wait_commands (server, "hello", 1, WAIT_MS),
               "after the handshake's isMaster (helloOk), the monitor polls with hello");
    cr_expect_geq (mongo_server_connection_count (server), 2, "a monitor connection and one to work");
    mongoc_collection_t *coll = mongoc_client_get_collection (pooled, DB, "pooled");
    bson_t *doc = BCON_NEW ("_id", BCON_INT32 (1));
    mongo_server_fail_command (server, "insert", 1, 10107, NULL, NULL, NULL);
    cr_expect_not (mongoc_collection_insert_one (coll, doc, NULL, NULL, &error));
    cr_expect_eq (error.code, 10107);
    cr_expect (mongoc_collection_insert_one (coll, doc, NULL, NULL, &error), "%s", error.message);
    cr_expect_eq (mongo_server_count (server, DB, "pooled"), 1);
    bson_destroy (doc);
    mongoc_collection_destroy (coll);
    mongoc_client_pool_push (pool, pooled);
    mongoc_client_pool_destroy (pool);
    mongoc_uri_destroy (parsed);
    cr_expect_eq (mongo_server_commands_named (server, "endSessions", NULL), 1);
}

/* ------------------------------------------------------------------ */
/*  Load and size                                                       */
/* ------------------------------------------------------------------ */

enum { CLIENTS = 16, INSERTS_PER_CLIENT = 50 };

static void *
insert_from_own_client (void *arg)
{
    int first = *(int *) arg;
    mongoc_client_t *own = new_client ("");
    mongoc_collection_t *coll = mongoc_client_get_collection (own, DB, "load");
    bool ok = true;
    for (int i = 0; i < INSERTS_PER_CLIENT && ok; i++) {
        bson_t *doc = BCON_NEW ("_id", BCON_INT32 (first + i));
        ok = mongoc_collection_insert_one (coll, doc, NULL, NULL, NULL);
        bson_destroy (doc);
    }
    mongoc_collection_destroy (coll);
    mongoc_client_destroy (own);
    return ok ? arg : NULL;
}

Test (mongo_server, serves_many_clients_at_once)
{
    pthread_t threads [CLIENTS];
    int firsts [CLIENTS];
    for (int i = 0; i < CLIENTS; i++) {
        firsts [i] = i * INSERTS_PER_CLIENT;
        cr_assert_eq (pthread_create (&threads [i], NULL, insert_from_own_client, &firsts [i]), 0);
    }
    for (int i = 0; i < CLIENTS; i++) {
        void *result;
        pthread_join (threads [i], &result);
        cr_expect_not_null (result, "client %d failed", i);
    }
    cr_expect_eq (mongo_server_count (server, DB, "load"), CLIENTS * INSERTS_PER_CLIENT);
    cr_expect_eq (mongo_server_commands_named (server, "endSessions", NULL), CLIENTS);
}

static bson_t *
big_document (int id, size_t size)
{
    char *payload = malloc (size + 1);
    memset (payload, 'x', size);
    payload [size] = '\0';
    bson_t *doc = BCON_NEW ("_id", BCON_INT32 (id), "payload", BCON_UTF8 (payload));
    free (payload);
    return doc;
}

Test (mongo_server, takes_large_documents_and_messages)
{
    mongoc_collection_t *coll = collection ("large");
    enum { DOCS = 4, SIZE = 14 * 1000 * 1000 };     /* 56 MB: the driver splits it in messages < 48 MB */
    bson_t *docs [DOCS];
    bson_error_t error;
    for (int i = 0; i < DOCS; i++)
        docs [i] = big_document (i, SIZE);
    cr_assert (mongoc_collection_insert_many (coll, (const bson_t **) docs, DOCS, NULL, NULL, &error),
               "%s", error.message);
    cr_expect_eq (mongo_server_count (server, DB, "large"), DOCS);
    cr_expect_geq (mongo_server_commands_named (server, "insert", NULL), 2);
    mongoc_cursor_t *cursor = mongoc_collection_find_with_opts (coll, &(bson_t) BSON_INITIALIZER,
                                                                NULL, NULL);
    const bson_t *doc;
    int count = 0;
    while (mongoc_cursor_next (cursor, &doc))
        count++;
    cr_expect_not (mongoc_cursor_error (cursor, &error), "%s", error.message);
    cr_expect_eq (count, DOCS, "read back in batches of at most 16 MiB");
    mongoc_cursor_destroy (cursor);
    for (int i = 0; i < DOCS; i++)
        bson_destroy (docs [i]);
    mongoc_collection_destroy (coll);
}

/* ------------------------------------------------------------------ */
/*  Malformed messages over a raw socket                                */
/* ------------------------------------------------------------------ */

static int
raw_connect (void)
{
    struct sockaddr_in addr = { .sin_family = AF_INET,
                                .sin_port = htons ((uint16_t) mongo_server_port (server)) };
    addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    int fd = socket (AF_INET, SOCK_STREAM, 0);
    cr_assert_geq (fd, 0);
    cr_assert_eq (connect (fd, (struct sockaddr *) &addr, sizeof addr), 0);
    return fd;
}

/* Whether the server closes fd within WAIT_MS (reads whatever it sends). */
static bool
closed_by_server (int fd)
{
    char buf [256];
    struct pollfd p = { fd, POLLIN, 0 };
    while (poll (&p, 1, WAIT_MS) == 1) {
        ssize_t n = recv (fd, buf, sizeof buf, 0);
        if (n <= 0)
            return true;
    }
    return false;
}

static void
put_i32 (uint8_t *p, int32_t v)
{
    for (int i = 0; i < 4; i++)
        p [i] = (uint8_t) ((uint32_t) v >> (8 * i));
}

/* Send bytes on a fresh connection (then end it, when hang_up); the
 * server must close it. */
static void
expect_closed_after (const uint8_t *bytes, size_t len, bool hang_up, const char *what)
{
    int fd = raw_connect ();
    cr_assert_eq (send (fd, bytes, len, MSG_NOSIGNAL), (ssize_t) len);
    if (hang_up)
        shutdown (fd, SHUT_WR);
    cr_expect (closed_by_server (fd), "%s: the connection was not closed", what);
    close (fd);
}

Test (mongo_server, closes_connections_sending_malformed_messages_and_lives_on)
{
    uint8_t msg [64] = { 0 };
    put_i32 (msg, 3);                           /* a length below the header */
    expect_closed_after (msg, 16, false, "length 3");
    put_i32 (msg, 100 * 1000 * 1000);           /* above maxMessageSizeBytes */
    put_i32 (msg + 12, 2013);
    expect_closed_after (msg, 16, false, "length 100 MB");
    put_i32 (msg, 26);                          /* an opcode it does not serve (OP_INSERT) */
    put_i32 (msg + 12, 2002);
    expect_closed_after (msg, 26, false, "OP_INSERT");
    memset (msg, 0, sizeof msg);                /* OP_MSG whose body's length lies */
    put_i32 (msg, 16 + 4 + 1 + 10);
    put_i32 (msg + 12, 2013);
    put_i32 (msg + 21, 200);
    expect_closed_after (msg, 31, false, "bad BSON");
    memset (msg, 0, sizeof msg);                /* OP_MSG with an unknown section kind */
    put_i32 (msg, 16 + 4 + 1 + 5);
    put_i32 (msg + 12, 2013);
    msg [20] = 7;
    put_i32 (msg + 21, 5);
    expect_closed_after (msg, 26, false, "section kind 7");
    put_i32 (msg, 1000);                        /* ended in the middle of a message */
    put_i32 (msg + 12, 2013);
    expect_closed_after (msg, 20, true, "truncated");

    bson_error_t error;
    cr_expect (ping (client, &error), "the server lives on: %s", error.message);
}

Test (mongo_server, answers_an_op_msg_written_by_hand)
{
    bson_t *body = BCON_NEW ("ping", BCON_INT32 (1), "$db", BCON_UTF8 ("admin"));
    size_t len = 16 + 4 + 1 + body->len;
    uint8_t *msg = calloc (1, len);
    put_i32 (msg, (int32_t) len);
    put_i32 (msg + 4, 42);
    put_i32 (msg + 12, 2013);
    memcpy (msg + 21, bson_get_data (body), body->len);
    int fd = raw_connect ();
    cr_assert_eq (send (fd, msg, len, MSG_NOSIGNAL), (ssize_t) len);
    uint8_t reply [256];
    ssize_t got = 0;
    struct pollfd p = { fd, POLLIN, 0 };
    while (got < 16 && poll (&p, 1, WAIT_MS) == 1) {
        ssize_t n = recv (fd, reply + got, sizeof reply - (size_t) got, 0);
        if (n <= 0)
            break;
        got += n;
    }
    cr_assert_geq (got, 16);
    int32_t response_to = (int32_t) (reply [8] | reply [9] << 8 | reply [10] << 16 | reply [11] << 24);
    cr_expect_eq (response_to, 42);
    cr_expect_eq (reply [12], 2013 & 0xff);
    close (fd);
    free (msg);
    bson_destroy (body);
}
