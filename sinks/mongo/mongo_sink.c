/*  mongo_sink — the mongo sink plugin, type "mongo" (libdlq_sink_mongo.so):
 *  FlowWarden's MongoDlqStore on mongo-c-driver. One collection per stream
 *  (mongo_doc.h for the document), written in unordered bulk inserts
 *  (mongo_deliver.c); it can be the primary store (mongo_store.c), with
 *  the workbench (mongo_workbench.h) and the workers' checkpoints
 *  (mongo_checkpoint.h).
 *
 *  init makes the client from uri and the `mongoc` URI options: a uri or
 *  option mongoc refuses is an init error naming it. In DELIVER mode it
 *  then makes the collections of the configured streams ready (TTL index
 *  on expiresAt, the LIST index, their _fw_dlq_streams entries;
 *  mongo_collections.h); other streams' on first use. A server that
 *  cannot be reached is not an init error (the gateway must start and
 *  keep the backlog: the first delivery does it); a server that refuses
 *  (no permission to create indexes) is.
 */
#include "mongo_sink.h"

#include "dlq_alloc.h"
#include "mongo_checkpoint.h"
#include "mongo_workbench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const dlq_sink_setting_t mongo_settings [] = {
    { "uri", DLQ_SINK_SETTING_STRING, NULL, 10, 4096, false,
      "mongodb:// or mongodb+srv:// connection string (hosts, credentials, TLS, replicaSet, ...)" },
    { "database", DLQ_SINK_SETTING_STRING, NULL, 1, 63, false,
      "the database (default: the uri's, else \"flowwarden\")" },
    { "collection_prefix", DLQ_SINK_SETTING_STRING, "_fw_dlq_", 0, 100, false,
      "collection = prefix + streamName" },
    { "collection", DLQ_SINK_SETTING_STRING, NULL, 1, DLQ_MONGO_COLLECTION_MAX, true,
      "the stream's collection, instead of prefix + streamName (per stream)" },
    { "mongoc", DLQ_SINK_SETTING_STRING_LIST, NULL, 0, 0, false,
      "URI options as [\"name=value\", ...], e.g. [\"socketTimeoutMS=10000\", \"tls=true\"]" },
    { .name = NULL }
};

static void
mongo_destroy (void *instance)
{
    dlq_mongo_sink_t *self = instance;
    if (self->db)
        mongoc_database_destroy (self->db);
    if (self->client)
        mongoc_client_destroy (self->client);
    dlq_mongo_collections_destroy (&self->collections);
    free (self);
}

/* Make the configured streams' collections ready; false (err) when the
 * server refuses, true (logged) when it cannot be reached yet. */
static bool
prepare_streams (dlq_mongo_sink_t *self, char *err, size_t err_len)
{
    const char *const *names = NULL;
    size_t count = DLQ_SINK_HOST_HAS (self->host, streams) ? self->host->streams (self->config, &names) : 0;
    for (size_t i = 0; i < count; i++) {
        bool transient;
        char why [DLQ_MONGO_ERR_LEN];
        if (dlq_mongo_collections_ready (self->collections, self->db, names [i], &transient, why, sizeof why))
            continue;
        if (!transient) {
            snprintf (err, err_len, "stream %s: %s", names [i], why);
            return false;
        }
        self->host->log (self->config, DLQ_SINK_LOG_WARN, "cannot reach the server yet (%s): "
                         "collections are made ready at the first delivery", why);
        return true;
    }
    return true;
}

static dlq_sink_status_t
mongo_init (const dlq_sink_host_t *host, const dlq_sink_config_t *config, dlq_sink_mode_t mode,
            void **instance, char *err, size_t err_len)
{
    dlq_mongo_sink_t *self = dlq_calloc (1, sizeof *self);
    self->host = host;
    self->config = config;
    self->collections = dlq_mongo_collections_new (host, config);
    const char *uri = host->config_string (config, NULL, "uri");
    if (!uri) {
        snprintf (err, err_len, "uri is required");
        mongo_destroy (self);
        return DLQ_SINK_STATUS_ERROR;
    }
    const char *const *options = NULL;
    size_t option_count = host->config_list (config, NULL, "mongoc", &options);
    char app_name [128];
    snprintf (app_name, sizeof app_name, "dlqd-%s", host->name (config));
    self->client = dlq_mongo_client_new (uri, options, option_count, app_name, err, err_len);
    if (!self->client) {
        mongo_destroy (self);
        return DLQ_SINK_STATUS_ERROR;
    }
    dlq_mongo_database_name (uri, host->config_string (config, NULL, "database"), self->database,
                             sizeof self->database);
    self->db = mongoc_client_get_database (self->client, self->database);
    if (mode == DLQ_SINK_MODE_DELIVER && !prepare_streams (self, err, err_len)) {
        mongo_destroy (self);
        return DLQ_SINK_STATUS_ERROR;
    }
    *instance = self;
    return DLQ_SINK_STATUS_OK;
}

/* The uri and the mongoc options, as init reads them; mongoc connects
 * only when a client is used, and this one is not. */
static dlq_sink_status_t
mongo_check (const dlq_sink_host_t *host, const dlq_sink_config_t *config, char *err, size_t err_len)
{
    const char *uri = host->config_string (config, NULL, "uri");
    if (!uri) {
        snprintf (err, err_len, "uri is required");
        return DLQ_SINK_STATUS_ERROR;
    }
    const char *const *options = NULL;
    size_t option_count = host->config_list (config, NULL, "mongoc", &options);
    mongoc_client_t *client = dlq_mongo_client_new (uri, options, option_count, "dlqd-check", err, err_len);
    if (!client)
        return DLQ_SINK_STATUS_ERROR;
    mongoc_client_destroy (client);
    return DLQ_SINK_STATUS_OK;
}

DLQ_SINK_EXPORT const dlq_sink_ops_t dlq_sink_entry = {
    .abi_version = DLQ_SINK_ABI_VERSION,
    .struct_size = sizeof (dlq_sink_ops_t),
    .type        = "mongo",
    .description = "MongoDB: FlowWarden's collection per stream (_fw_dlq_<stream>), native BSON, TTL on expiresAt; answers queries",
    .settings    = mongo_settings,
    .max_batch   = 0,
    .init        = mongo_init,
    .deliver     = dlq_mongo_sink_deliver,
    .destroy     = mongo_destroy,
    .store       = &dlq_mongo_store_ops,
    .check       = mongo_check,
    .workbench   = &dlq_mongo_workbench_ops,
    .checkpoints = &dlq_mongo_checkpoint_ops,
};
