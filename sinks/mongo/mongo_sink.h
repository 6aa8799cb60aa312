/*  mongo_sink — the mongo sink plugin's instance, shared by its init
 *  (mongo_sink.c), its delivery (mongo_deliver.c), its store calls
 *  (mongo_store.c), its workbench calls (mongo_workbench.h) and its
 *  checkpoint calls (mongo_checkpoint.h).
 */
#ifndef DLQ_MONGO_SINK_H
#define DLQ_MONGO_SINK_H

#include "dlq_sink.h"
#include "mongo_collections.h"
#include "mongo_conn.h"

#include <mongoc/mongoc.h>

typedef struct {
    const dlq_sink_host_t   *host;
    const dlq_sink_config_t *config;
    mongoc_client_t         *client;
    mongoc_database_t       *db;
    char                     database [128];
    dlq_mongo_collections_t *collections;
    char                     last_error [DLQ_MONGO_ERR_LEN];
    char                     located_id [40];    /* the last event located (mongo_lookup.h) */
    char                     located [DLQ_MONGO_COLLECTION_MAX + 1];     /* its collection */
} dlq_mongo_sink_t;

/* deliver of the plugin (mongo_deliver.c). */
void dlq_mongo_sink_deliver (void *instance, const dlq_sink_event_t *events, size_t count,
                             dlq_sink_outcome_t *outcomes, int64_t deadline_mono_ms);

/* The store calls (mongo_store.c). */
extern const dlq_sink_store_ops_t dlq_mongo_store_ops;

#endif
