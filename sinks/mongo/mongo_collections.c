/*  mongo_collections — collections made ready once; see the header. */
#include "mongo_collections.h"

#include "dlq_alloc.h"
#include "dlq_strmap.h"
#include "mongo_conn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dlq_mongo_collections {
    const dlq_sink_host_t   *host;
    const dlq_sink_config_t *config;
    dlq_strmap_t            *routes;        /* stream -> dlq_mongo_route_t */
    dlq_strmap_t            *ready;         /* collection or "$stream:<name>" -> marker */
};

dlq_mongo_collections_t *
dlq_mongo_collections_new (const dlq_sink_host_t *host, const dlq_sink_config_t *config)
{
    dlq_mongo_collections_t *self = dlq_calloc (1, sizeof *self);
    self->host = host;
    self->config = config;
    self->routes = dlq_strmap_new (free);
    self->ready = dlq_strmap_new (NULL);
    return self;
}

void
dlq_mongo_collections_destroy (dlq_mongo_collections_t **self_p)
{
    dlq_mongo_collections_t *self = *self_p;
    if (!self)
        return;
    dlq_strmap_destroy (&self->routes);
    dlq_strmap_destroy (&self->ready);
    free (self);
    *self_p = NULL;
}

void
dlq_mongo_collections_forget (dlq_mongo_collections_t *self)
{
    dlq_strmap_destroy (&self->ready);
    self->ready = dlq_strmap_new (NULL);
}

const dlq_mongo_route_t *
dlq_mongo_collections_route (dlq_mongo_collections_t *self, const char *stream)
{
    dlq_mongo_route_t *route = dlq_strmap_get (self->routes, stream);
    if (!route) {
        route = dlq_calloc (1, sizeof *route);
        route->valid = dlq_mongo_collection (self->host->config_string (self->config, NULL, "collection_prefix"),
                                             stream, self->host->config_string (self->config, stream, "collection"),
                                             route->collection);
        dlq_strmap_put (self->routes, stream, route);
    }
    return route;
}

static void
append_index (bson_t *indexes, const char *key, const char *name, const bson_t *keys, bool ttl)
{
    bson_t index;
    BSON_APPEND_DOCUMENT_BEGIN (indexes, key, &index);
    BSON_APPEND_DOCUMENT (&index, "key", keys);
    BSON_APPEND_UTF8 (&index, "name", name);
    if (ttl)
        BSON_APPEND_INT32 (&index, "expireAfterSeconds", 0);
    bson_append_document_end (indexes, &index);
}

/* createIndexes on collection: the TTL index, and (events) the LIST,
 * due and fingerprint ones. */
static bool
create_indexes (dlq_mongo_collections_t *self, mongoc_database_t *db, const char *collection, bool events,
                bool *transient, char *err, size_t err_len)
{
    bson_t *ttl_keys = BCON_NEW ("expiresAt", BCON_INT32 (1));
    bson_t *list_keys = BCON_NEW ("createdAt", BCON_INT32 (-1), "_id", BCON_INT32 (-1));
    bson_t *due_keys = BCON_NEW ("status", BCON_INT32 (1), "createdAt", BCON_INT32 (1), "_id", BCON_INT32 (1));
    bson_t *fingerprint_keys = BCON_NEW (DLQ_MONGO_FINGERPRINT_FIELD, BCON_INT32 (1));
    bson_t command = BSON_INITIALIZER, indexes;
    BSON_APPEND_UTF8 (&command, "createIndexes", collection);
    BSON_APPEND_ARRAY_BEGIN (&command, "indexes", &indexes);
    append_index (&indexes, "0", DLQ_MONGO_TTL_INDEX, ttl_keys, true);
    if (events) {
        append_index (&indexes, "1", DLQ_MONGO_LIST_INDEX, list_keys, false);
        append_index (&indexes, "2", DLQ_MONGO_DUE_INDEX, due_keys, false);
        append_index (&indexes, "3", DLQ_MONGO_FINGERPRINT_INDEX, fingerprint_keys, false);
    }
    bson_append_array_end (&command, &indexes);
    bson_t reply;
    bson_error_t error;
    bool ok = mongoc_database_write_command_with_opts (db, &command, NULL, &reply, &error);
    if (!ok && (error.code == DLQ_MONGO_INDEX_OPTIONS_CONFLICT || error.code == DLQ_MONGO_INDEX_KEY_SPECS_CONFLICT)) {
        self->host->log (self->config, DLQ_SINK_LOG_WARN, "%s: an index exists with other options, left as it is: %s",
                         collection, error.message);
        ok = true;
    }
    if (!ok) {
        *transient = dlq_mongo_error_is_transient (&error);
        snprintf (err, err_len, "createIndexes %s: %s", collection, error.message);
    }
    bson_destroy (&reply);
    bson_destroy (&command);
    bson_destroy (ttl_keys);
    bson_destroy (list_keys);
    bson_destroy (due_keys);
    bson_destroy (fingerprint_keys);
    return ok;
}

/* The stream's entry in _fw_dlq_streams (a duplicate is fine). */
static bool
register_stream (mongoc_database_t *db, const char *stream, const char *collection, bool *transient,
                 char *err, size_t err_len)
{
    mongoc_collection_t *streams = mongoc_database_get_collection (db, DLQ_MONGO_STREAMS_COLLECTION);
    bson_t *doc = BCON_NEW ("_id", BCON_UTF8 (stream), "c", BCON_UTF8 (collection));
    bson_error_t error;
    bool ok = mongoc_collection_insert_one (streams, doc, NULL, NULL, &error)
           || error.code == DLQ_MONGO_DUPLICATE_KEY;
    if (!ok) {
        *transient = dlq_mongo_error_is_transient (&error);
        snprintf (err, err_len, "%s: %s", DLQ_MONGO_STREAMS_COLLECTION, error.message);
    }
    bson_destroy (doc);
    mongoc_collection_destroy (streams);
    return ok;
}

/* Run step once per key: true when done now or before. */
static bool
once (dlq_mongo_collections_t *self, const char *key, bool done)
{
    if (done)
        dlq_strmap_put (self->ready, key, self);
    return done;
}

bool
dlq_mongo_collections_ready (dlq_mongo_collections_t *self, mongoc_database_t *db, const char *stream,
                             bool *transient, char *err, size_t err_len)
{
    *transient = true;
    const dlq_mongo_route_t *route = dlq_mongo_collections_route (self, stream);
    char stream_key [DLQ_MONGO_COLLECTION_MAX + 16];
    snprintf (stream_key, sizeof stream_key, "$stream:%s", stream);   /* no collection has a $ */
    if (dlq_strmap_get (self->ready, stream_key))
        return true;
    bool ok = dlq_strmap_get (self->ready, DLQ_MONGO_INDEX_COLLECTION)
           || once (self, DLQ_MONGO_INDEX_COLLECTION,
                    create_indexes (self, db, DLQ_MONGO_INDEX_COLLECTION, false, transient, err, err_len));
    ok = ok && (dlq_strmap_get (self->ready, route->collection)
                || once (self, route->collection,
                         create_indexes (self, db, route->collection, true, transient, err, err_len)));
    ok = ok && once (self, stream_key, register_stream (db, stream, route->collection, transient, err, err_len));
    return ok;
}
