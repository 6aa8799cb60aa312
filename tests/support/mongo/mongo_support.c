/*  mongo_support — the mongo suites' server, database and client; see
 *  the header. */
#include "mongo_support.h"

#include "dlq_buf.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef DLQD_PLUGIN_DIR
#error "DLQD_PLUGIN_DIR must be defined (tests/CMakeLists.txt)"
#endif

#define MONGO_PLUGIN DLQD_PLUGIN_DIR "/libdlq_sink_mongo.so"

void
mongo_db_open (mongo_db_t *db, const char *prefix)
{
    memset (db, 0, sizeof *db);
    mongoc_init ();
    const char *real = getenv (MONGO_URI_ENV);
    if (real && *real)
        snprintf (db->uri, sizeof db->uri, "%s", real);
    else {
        db->server = mongo_server_new (0);
        cr_assert_not_null (db->server, "the MongoDB test server does not start");
        snprintf (db->uri, sizeof db->uri, "%s", mongo_server_uri (db->server));
    }
    snprintf (db->database, sizeof db->database, "%s%llx", prefix,
              (unsigned long long) (test_random_u64 () & 0xffffffffffULL));
    db->client = mongoc_client_new (db->uri);
    cr_assert_not_null (db->client, "bad uri %s", db->uri);
}

void
mongo_db_close (mongo_db_t *db)
{
    if (db->client) {
        if (!db->server) {
            mongoc_database_t *database = mongoc_client_get_database (db->client, db->database);
            mongoc_database_drop (database, NULL);
            mongoc_database_destroy (database);
        }
        mongoc_client_destroy (db->client);
        db->client = NULL;
    }
    mongo_server_destroy (&db->server);
}

void
mongo_db_need_test_server (const mongo_db_t *db, const char *what)
{
    if (!db->server)
        cr_skip_test ("needs %s (" MONGO_URI_ENV " is set)", what);
}

bson_t *
mongo_db_find (const mongo_db_t *db, const char *collection_name, const char *id)
{
    mongoc_collection_t *collection = mongoc_client_get_collection (db->client, db->database, collection_name);
    bson_t *filter = BCON_NEW ("_id", BCON_UTF8 (id));
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

bool
mongo_db_try_insert (const mongo_db_t *db, const char *collection_name, const bson_t *doc, bson_error_t *error)
{
    mongoc_collection_t *collection = mongoc_client_get_collection (db->client, db->database, collection_name);
    bool inserted = mongoc_collection_insert_one (collection, doc, NULL, NULL, error);
    mongoc_collection_destroy (collection);
    return inserted;
}

void
mongo_db_insert (const mongo_db_t *db, const char *collection, const bson_t *doc)
{
    bson_error_t error;
    cr_assert (mongo_db_try_insert (db, collection, doc, &error), "insert into %s: %s", collection, error.message);
}

bson_type_t
mongo_db_type_at (const bson_t *doc, const char *path)
{
    bson_iter_t it, found;
    cr_assert (bson_iter_init (&it, doc));
    return bson_iter_find_descendant (&it, path, &found) ? bson_iter_type (&found) : BSON_TYPE_EOD;
}

bool
mongo_db_plugin_load (const mongo_db_t *db, test_plugin_t *p, const char *settings, const char *extra, char *err,
                      size_t err_len)
{
    dlq_buf_t config = DLQ_BUF_INIT;
    dlq_buf_printf (&config, "sinks: { mg: { type = \"plugin\"; path = \"%s\"; uri = \"%s\"; database = \"%s\"; "
                    "%s }; };\n%s\n", MONGO_PLUGIN, db->uri, db->database, settings ? settings : "",
                    extra ? extra : "");
    bool loaded = test_plugin_load (p, config.data, "mg", err, err_len);
    dlq_buf_free (&config);
    return loaded;
}
