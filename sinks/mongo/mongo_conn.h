/*  mongo_conn — one mongo-c-driver client for one sink instance (one per
 *  thread: mongoc clients are not thread-safe), made from the sink's uri
 *  and its `mongoc = [ "option=value" ]` URI options, and the classes of
 *  MongoDB errors (transient: RETRY, or not).
 *
 *  Unless the uri or the options set them, a client waits at most
 *  serverSelectionTimeoutMS = 5000 and connectTimeoutMS = 5000, and
 *  socketTimeoutMS = 30000 (mongoc's defaults, 30 s / 10 s / 5 min, would
 *  hold a delivery far longer than the gateway waits).
 */
#ifndef DLQ_MONGO_CONN_H
#define DLQ_MONGO_CONN_H

#include <mongoc/mongoc.h>
#include <stdbool.h>
#include <stddef.h>

#define DLQ_MONGO_ERR_LEN 240

/* MongoDB server error codes the sink reads. */
#define DLQ_MONGO_DUPLICATE_KEY         11000
#define DLQ_MONGO_INDEX_OPTIONS_CONFLICT 85
#define DLQ_MONGO_INDEX_KEY_SPECS_CONFLICT 86

/* The client of uri with the "name=value" options (typed as mongoc knows
 * them: int32, int64, bool or string URI options; anything else is an
 * error), named app_name for the server's logs. NULL with why in err. */
mongoc_client_t *dlq_mongo_client_new (const char *uri, const char *const *options, size_t option_count,
                                       const char *app_name, char *err, size_t err_len);

/* The database to use: database when set, else the uri's, else
 * "flowwarden". */
const char *dlq_mongo_database_name (const char *uri, const char *database, char *out, size_t out_len);

/* Is a driver or server error transient (network, server selection, a
 * primary stepping down or shutting down, timeouts)? */
bool dlq_mongo_error_is_transient (const bson_error_t *error);

/* Is a server error code (a command's, a write error's) transient? */
bool dlq_mongo_code_is_transient (int32_t code);

/* mongoc_init, once per process (never cleaned up: the plugin stays
 * loaded). */
void dlq_mongo_init_once (void);

#endif
