/*  kafka_sink — the kafka sink plugin, type "kafka" (libdlq_sink_kafka.so):
 *  each event as one record (kafka_format.h) produced with librdkafka's
 *  idempotent producer (enable.idempotence = true, acks = all); an event
 *  is delivered only by its own delivery report (kafka_deliver.c).
 *
 *  init reads the settings and builds the producer configuration: what
 *  librdkafka refuses (an rdkafka = [ "name=value" ] entry it does not
 *  know or whose value is wrong) is an init error naming the entry and
 *  librdkafka's words, as is an entry overriding what the sink relies on
 *  (enable.idempotence, acks, bootstrap.servers). A cluster that cannot
 *  be reached is not: librdkafka connects in the background and the
 *  events wait. destroy flushes what is in flight for flush_timeout_ms.
 */
#include "kafka_sink.h"

#include "dlq_alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const dlq_sink_setting_t kafka_settings [] = {
    { "bootstrap_servers", DLQ_SINK_SETTING_STRING, NULL, 1, 4096, false,
      "host:port[,host:port...] of the cluster (librdkafka's bootstrap.servers)" },
    { "topic_prefix", DLQ_SINK_SETTING_STRING, "dlq.", 0, DLQ_KAFKA_TOPIC_MAX, false,
      "topic = prefix + streamName" },
    { "topic", DLQ_SINK_SETTING_STRING, NULL, 1, DLQ_KAFKA_TOPIC_MAX, true,
      "the whole topic, instead of prefix + streamName (per stream)" },
    { "key", DLQ_SINK_SETTING_STRING, "id", 2, 12, true,
      "record key: \"id\" (the event id) or \"document_key\" (the documentKey's JSON)" },
    { "create_topics", DLQ_SINK_SETTING_BOOL, "false", 0, 0, false,
      "create missing topics (Admin API) with retention.ms from the stream's retention_days" },
    { "partitions", DLQ_SINK_SETTING_INT, "3", 1, 100000, false, "partitions of a created topic" },
    { "replication_factor", DLQ_SINK_SETTING_INT, "-1", -1, 1000, false,
      "replication factor of a created topic (-1: the broker's default)" },
    { "create_timeout_ms", DLQ_SINK_SETTING_INT, "10000", 1, 600000, false, "longest wait for a CreateTopics" },
    { "flush_timeout_ms", DLQ_SINK_SETTING_INT, "10000", 0, 600000, false,
      "at shutdown, how long records in flight may take to be delivered" },
    { "rdkafka", DLQ_SINK_SETTING_STRING_LIST, NULL, 0, 0, false,
      "librdkafka settings as [\"name=value\", ...], e.g. [\"linger.ms=5\", \"compression.type=lz4\"]" },
    { .name = NULL }
};

/* Settings the sink sets itself: an rdkafka entry may not change them. */
static const char *const reserved [] = { "bootstrap.servers", "metadata.broker.list", "enable.idempotence", "acks",
                                         "request.required.acks", NULL };

/* ---- librdkafka's callbacks -------------------------------------------------- */

static void
on_log (const rd_kafka_t *rk, int level, const char *facility, const char *text)
{
    const dlq_kafka_sink_t *self = rd_kafka_opaque (rk);
    dlq_sink_log_level_t at = level <= 3 ? DLQ_SINK_LOG_ERROR : level == 4 ? DLQ_SINK_LOG_WARN
                            : level <= 6 ? DLQ_SINK_LOG_INFO : DLQ_SINK_LOG_DEBUG;
    self->host->log (self->config, at, "librdkafka %s: %s", facility, text);
}

static void
on_error (rd_kafka_t *rk, int err, const char *reason, void *opaque)
{
    (void) rk;
    dlq_kafka_sink_t *self = opaque;
    bool fatal = err == RD_KAFKA_RESP_ERR__FATAL;
    snprintf (self->cluster_error, sizeof self->cluster_error, "%s: %s",
              rd_kafka_err2name ((rd_kafka_resp_err_t) err), reason);
    self->host->log (self->config, fatal ? DLQ_SINK_LOG_ERROR : DLQ_SINK_LOG_WARN, "%s%s: %s",
                     fatal ? "fatal: " : "", rd_kafka_err2name ((rd_kafka_resp_err_t) err), reason);
}

/* ---- the producer ------------------------------------------------------------- */

static bool
set (rd_kafka_conf_t *conf, const char *name, const char *value, char *err, size_t err_len)
{
    char why [512];
    if (rd_kafka_conf_set (conf, name, value, why, sizeof why) == RD_KAFKA_CONF_OK)
        return true;
    snprintf (err, err_len, "rdkafka: %s=%s: %s", name, value, why);
    return false;
}

/* The rdkafka = [ "name=value", ... ] entries. */
static bool
set_user_settings (const dlq_kafka_sink_t *self, rd_kafka_conf_t *conf, char *err, size_t err_len)
{
    const char *const *items = NULL;
    size_t count = self->host->config_list (self->config, NULL, "rdkafka", &items);
    for (size_t i = 0; i < count; i++) {
        size_t name_len;
        const char *value;
        if (!dlq_kafka_split_setting (items [i], &name_len, &value)) {
            snprintf (err, err_len, "rdkafka: \"%s\" is not \"name=value\"", items [i]);
            return false;
        }
        char name [256];
        snprintf (name, sizeof name, "%.*s", (int) name_len, items [i]);
        for (const char *const *r = reserved; *r; r++)
            if (strcmp (name, *r) == 0) {
                snprintf (err, err_len, "rdkafka: %s is set by the sink (idempotent producer, acks=all; "
                          "the cluster comes from bootstrap_servers)", name);
                return false;
            }
        if (!set (conf, name, value, err, err_len))
            return false;
    }
    return true;
}

static rd_kafka_conf_t *
producer_conf (dlq_kafka_sink_t *self, char *err, size_t err_len)
{
    rd_kafka_conf_t *conf = rd_kafka_conf_new ();
    char client_id [160];
    snprintf (client_id, sizeof client_id, "dlqd-%s", self->host->name (self->config));
    bool ok = set (conf, "bootstrap.servers", self->bootstrap_servers, err, err_len)
           && set (conf, "enable.idempotence", "true", err, err_len)
           && set (conf, "acks", "all", err, err_len)
           && set (conf, "client.id", client_id, err, err_len)
           && set_user_settings (self, conf, err, err_len);
    if (!ok) {
        rd_kafka_conf_destroy (conf);
        return NULL;
    }
    rd_kafka_conf_set_opaque (conf, self);
    rd_kafka_conf_set_dr_msg_cb (conf, dlq_kafka_sink_on_report);
    rd_kafka_conf_set_error_cb (conf, on_error);
    rd_kafka_conf_set_log_cb (conf, on_log);
    return conf;
}

static void
destroy_producer (dlq_kafka_sink_t *self, int64_t flush_ms)
{
    if (!self->rk)
        return;
    if (flush_ms > 0 && rd_kafka_flush (self->rk, (int) flush_ms) != RD_KAFKA_RESP_ERR_NO_ERROR)
        self->host->log (self->config, DLQ_SINK_LOG_WARN, "%d record(s) still in flight at shutdown "
                         "(the gateway sends them again: at-least-once)", rd_kafka_outq_len (self->rk));
    if (self->topics)
        dlq_kafka_topics_forget_producer (self->topics);
    rd_kafka_destroy (self->rk);
    self->rk = NULL;
}

bool
dlq_kafka_sink_producer (dlq_kafka_sink_t *self, char *err, size_t err_len)
{
    if (self->rk) {
        char why [256];
        rd_kafka_resp_err_t fatal = rd_kafka_fatal_error (self->rk, why, sizeof why);
        if (!fatal)
            return true;
        self->host->log (self->config, DLQ_SINK_LOG_ERROR, "fatal producer error (%s: %s): making a new producer",
                         rd_kafka_err2name (fatal), why);
        self->host->count (self->config, "producer_restarts", 1);
        destroy_producer (self, 0);
    }
    rd_kafka_conf_t *conf = producer_conf (self, err, err_len);
    if (!conf)
        return false;
    char why [512];
    self->rk = rd_kafka_new (RD_KAFKA_PRODUCER, conf, why, sizeof why);
    if (!self->rk) {
        rd_kafka_conf_destroy (conf);
        snprintf (err, err_len, "cannot make the producer: %s", why);
        return false;
    }
    return true;
}

/* ---- life ---------------------------------------------------------------------- */

static void
kafka_destroy (void *instance)
{
    dlq_kafka_sink_t *self = instance;
    destroy_producer (self, self->flush_timeout_ms);
    dlq_kafka_topics_destroy (&self->topics);
    free (self);
}

static bool
read_settings (dlq_kafka_sink_t *self, dlq_kafka_create_t *create, char *err, size_t err_len)
{
    const dlq_sink_host_t *host = self->host;
    self->bootstrap_servers = host->config_string (self->config, NULL, "bootstrap_servers");
    self->flush_timeout_ms = host->config_int (self->config, NULL, "flush_timeout_ms");
    create->create = host->config_bool (self->config, NULL, "create_topics");
    create->partitions = (int) host->config_int (self->config, NULL, "partitions");
    create->replication_factor = (int) host->config_int (self->config, NULL, "replication_factor");
    create->timeout_ms = host->config_int (self->config, NULL, "create_timeout_ms");
    if (!self->bootstrap_servers) {
        snprintf (err, err_len, "bootstrap_servers is required");
        return false;
    }
    const char *key = host->config_string (self->config, NULL, "key");
    if (strcmp (key, "id") != 0 && strcmp (key, "document_key") != 0) {
        snprintf (err, err_len, "key must be \"id\" or \"document_key\", not \"%s\"", key);
        return false;
    }
    return true;
}

static dlq_sink_status_t
kafka_init (const dlq_sink_host_t *host, const dlq_sink_config_t *config, dlq_sink_mode_t mode,
            void **instance, char *err, size_t err_len)
{
    (void) mode;
    dlq_kafka_sink_t *self = dlq_calloc (1, sizeof *self);
    self->host = host;
    self->config = config;
    dlq_kafka_create_t create;
    if (!read_settings (self, &create, err, err_len)) {
        kafka_destroy (self);
        return DLQ_SINK_STATUS_ERROR;
    }
    self->topics = dlq_kafka_topics_new (host, config, &create);
    if (!dlq_kafka_sink_producer (self, err, err_len)) {
        kafka_destroy (self);
        return DLQ_SINK_STATUS_ERROR;
    }
    *instance = self;
    return DLQ_SINK_STATUS_OK;
}

/* The settings as init reads them and the producer configuration
 * librdkafka would get, without making a producer. */
static dlq_sink_status_t
kafka_check (const dlq_sink_host_t *host, const dlq_sink_config_t *config, char *err, size_t err_len)
{
    dlq_kafka_sink_t probe = { .host = host, .config = config };
    dlq_kafka_create_t create;
    if (!read_settings (&probe, &create, err, err_len))
        return DLQ_SINK_STATUS_ERROR;
    rd_kafka_conf_t *conf = producer_conf (&probe, err, err_len);
    if (!conf)
        return DLQ_SINK_STATUS_ERROR;
    rd_kafka_conf_destroy (conf);
    return DLQ_SINK_STATUS_OK;
}

DLQ_SINK_EXPORT const dlq_sink_ops_t dlq_sink_entry = {
    .abi_version = DLQ_SINK_ABI_VERSION,
    .struct_size = sizeof (dlq_sink_ops_t),
    .type        = "kafka",
    .description = "Kafka (librdkafka): each event a record of its stream's topic, idempotent producer, acks=all",
    .settings    = kafka_settings,
    .max_batch   = 0,
    .init        = kafka_init,
    .deliver     = dlq_kafka_sink_deliver,
    .destroy     = kafka_destroy,
    .store       = NULL,
    .check       = kafka_check,
};
