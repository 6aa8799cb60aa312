/*  mongo_support — the MongoDB of the mongo sink's suites (itest_mongo,
 *  itest_mongo_ckpt, itest_mongo_workbench): the wire-protocol test
 *  server (tests/mongo/, run in the test process), or a real MongoDB when
 *  DLQD_TEST_MONGO_URI is set, a database name of the test's own (dropped
 *  at the end on a real server), a mongo-c-driver client on it, and the
 *  reads and writes the suites make behind the sink's back, and the mongo
 *  plugin loaded in the test process on that database.
 *
 *  Every function but mongo_db_close and mongo_db_try_insert fails the
 *  calling test (Criterion asserts) when the server does not answer as
 *  required. It is dlq_test_mongo (tests/support/CMakeLists.txt), with
 *  mongo-c-driver and the test server, for the mongo sink's suites
 *  (DLQD_WITH_MONGO).
 */
#ifndef MONGO_SUPPORT_H
#define MONGO_SUPPORT_H

#include "mongo_server.h"
#include "plugin_support.h"

#include <mongoc/mongoc.h>
#include <stdbool.h>

#define MONGO_URI_ENV "DLQD_TEST_MONGO_URI"

typedef struct {
    mongo_server_t  *server;        /* NULL against a real MongoDB */
    mongoc_client_t *client;
    char             uri [512];
    char             database [64];     /* <prefix><10 hex digits> */
} mongo_db_t;

/* mongoc_init, the server (DLQD_TEST_MONGO_URI, else a test server of
 * our own), a database name of prefix and random digits, and a client on
 * the server. Call it inside the test (the test server's threads). */
void mongo_db_open (mongo_db_t *db, const char *prefix);

/* Drop the database (a real server: leave it clean), destroy the client
 * and the test server; also after a mongo_db_open that failed. */
void mongo_db_close (mongo_db_t *db);

/* Skip the calling test unless it runs on the test server: it needs
 * what (its faults, its record of commands). */
void mongo_db_need_test_server (const mongo_db_t *db, const char *what);

/* The document of collection with _id = id, via the driver; NULL when
 * none. Caller destroys. */
bson_t *mongo_db_find (const mongo_db_t *db, const char *collection, const char *id);

/* Insert doc into collection via the driver; false when refused. */
bool mongo_db_try_insert (const mongo_db_t *db, const char *collection, const bson_t *doc, bson_error_t *error);

/* The same; the insert must succeed. */
void mongo_db_insert (const mongo_db_t *db, const char *collection, const bson_t *doc);

/* The type of doc's field at the dotted path; BSON_TYPE_EOD when none. */
bson_type_t mongo_db_type_at (const bson_t *doc, const char *path);

/* The mongo plugin (DLQD_PLUGIN_DIR/libdlq_sink_mongo.so) loaded
 * (plugin_support.h) as sink "mg" on db's uri and database, with
 * settings of the section and extra top-level text of dlqd.conf
 * (libconfig syntax, either may be NULL). False with why in err. */
bool mongo_db_plugin_load (const mongo_db_t *db, test_plugin_t *p, const char *settings, const char *extra,
                           char *err, size_t err_len);

#endif
