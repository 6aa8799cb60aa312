/*  mongo_collections — a stream's collection and what it needs before
 *  its first insert, each done once per sink instance: the collection's
 *  indexes (a TTL index on expiresAt with expireAfterSeconds 0, so
 *  MongoDB deletes an event once it expires; {createdAt: -1, _id: -1} for
 *  LIST; {status: 1, createdAt: 1, _id: 1} for the scheduled replay's
 *  claim of due PENDING events, oldest first; {_fw_fingerprint: 1} for
 *  the fingerprint filter) and the stream's entry in _fw_dlq_streams
 *  (what STATS counts, and what a query of every stream reads).
 *  _fw_dlq_index gets its TTL index too.
 *
 *  An index of the same name that exists with other options is left as
 *  it is (logged once): the operator's choice wins.
 */
#ifndef DLQ_MONGO_COLLECTIONS_H
#define DLQ_MONGO_COLLECTIONS_H

#include "dlq_sink.h"
#include "mongo_doc.h"

#include <mongoc/mongoc.h>
#include <stdbool.h>

#define DLQ_MONGO_TTL_INDEX   "expiresAt_ttl"
#define DLQ_MONGO_LIST_INDEX  "createdAt_-1__id_-1"
#define DLQ_MONGO_DUE_INDEX   "status_1_createdAt_1__id_1"
#define DLQ_MONGO_FINGERPRINT_INDEX "_fw_fingerprint_1"

typedef struct {
    char collection [DLQ_MONGO_COLLECTION_MAX + 1];
    bool valid;                     /* false: MongoDB would refuse the name */
} dlq_mongo_route_t;

typedef struct dlq_mongo_collections dlq_mongo_collections_t;

dlq_mongo_collections_t *dlq_mongo_collections_new (const dlq_sink_host_t *host, const dlq_sink_config_t *config);
void dlq_mongo_collections_destroy (dlq_mongo_collections_t **self_p);

/* The collection of stream (resolved once). */
const dlq_mongo_route_t *dlq_mongo_collections_route (dlq_mongo_collections_t *self, const char *stream);

/* Make stream's collection ready (indexes, registry entry) unless done;
 * false with why in err (and *transient) when the server refused or
 * could not be reached. */
bool dlq_mongo_collections_ready (dlq_mongo_collections_t *self, mongoc_database_t *db, const char *stream,
                                  bool *transient, char *err, size_t err_len);

/* Forget what was made ready (another server may be behind the uri now). */
void dlq_mongo_collections_forget (dlq_mongo_collections_t *self);

#endif
