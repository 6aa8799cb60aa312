/*  kafka_topics — per-stream topics, created once; see kafka_topics.h. */
#include "kafka_topics.h"

#include "dlq_alloc.h"
#include "dlq_strmap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dlq_kafka_topics {
    const dlq_sink_host_t   *host;
    const dlq_sink_config_t *config;
    dlq_kafka_create_t       create;
    dlq_strmap_t            *routes;        /* stream -> dlq_kafka_route_t */
    dlq_strmap_t            *created;       /* topic -> (non-NULL marker) */
};

static void
free_route (void *value)
{
    dlq_kafka_route_t *route = value;
    if (route->handle)
        rd_kafka_topic_destroy (route->handle);
    free (route);
}

dlq_kafka_topics_t *
dlq_kafka_topics_new (const dlq_sink_host_t *host, const dlq_sink_config_t *config, const dlq_kafka_create_t *create)
{
    dlq_kafka_topics_t *self = dlq_calloc (1, sizeof *self);
    self->host = host;
    self->config = config;
    self->create = *create;
    self->routes = dlq_strmap_new (free_route);
    self->created = dlq_strmap_new (NULL);
    return self;
}

void
dlq_kafka_topics_destroy (dlq_kafka_topics_t **self_p)
{
    dlq_kafka_topics_t *self = *self_p;
    if (!self)
        return;
    dlq_strmap_destroy (&self->routes);
    dlq_strmap_destroy (&self->created);
    free (self);
    *self_p = NULL;
}

void
dlq_kafka_topics_forget_producer (dlq_kafka_topics_t *self)
{
    dlq_strmap_destroy (&self->routes);
    self->routes = dlq_strmap_new (free_route);
    dlq_strmap_destroy (&self->created);
    self->created = dlq_strmap_new (NULL);
}

rd_kafka_topic_t *
dlq_kafka_topics_handle (dlq_kafka_route_t *route, rd_kafka_t *rk)
{
    if (!route->handle)
        route->handle = rd_kafka_topic_new (rk, route->topic, NULL);
    return route->handle;
}

dlq_kafka_route_t *
dlq_kafka_topics_route (dlq_kafka_topics_t *self, const char *stream)
{
    dlq_kafka_route_t *route = dlq_strmap_get (self->routes, stream);
    if (route)
        return route;
    const dlq_sink_host_t *host = self->host;
    route = dlq_calloc (1, sizeof *route);
    route->valid = dlq_kafka_topic (host->config_string (self->config, NULL, "topic_prefix"), stream,
                                    host->config_string (self->config, stream, "topic"), route->topic);
    const char *key = host->config_string (self->config, stream, "key");
    route->key = strcmp (key, "document_key") == 0 ? DLQ_KAFKA_KEY_DOCUMENT_KEY : DLQ_KAFKA_KEY_ID;
    dlq_strmap_put (self->routes, stream, route);
    return route;
}

/* ---- CreateTopics ----------------------------------------------------------- */

static rd_kafka_NewTopic_t *
new_topic (const dlq_kafka_topics_t *self, const char *topic, int32_t retention_days, char *err, size_t err_len)
{
    rd_kafka_NewTopic_t *t = rd_kafka_NewTopic_new (topic, self->create.partitions,
                                                    self->create.replication_factor, err, err_len);
    if (!t)
        return NULL;
    char retention [24];
    snprintf (retention, sizeof retention, "%" PRId64, dlq_kafka_retention_ms (retention_days));
    if (rd_kafka_NewTopic_set_config (t, "retention.ms", retention) != RD_KAFKA_RESP_ERR_NO_ERROR) {
        snprintf (err, err_len, "cannot set retention.ms = %s", retention);
        rd_kafka_NewTopic_destroy (t);
        return NULL;
    }
    return t;
}

/* The outcome of one CreateTopics request on queue; true when created or
 * already there. */
static bool
read_result (rd_kafka_queue_t *queue, int64_t wait_ms, bool *permanent, char *err, size_t err_len)
{
    rd_kafka_event_t *event = rd_kafka_queue_poll (queue, (int) wait_ms);
    if (!event) {
        snprintf (err, err_len, "CreateTopics: no answer in %" PRId64 " ms", wait_ms);
        return false;
    }
    bool ok = false;
    const rd_kafka_CreateTopics_result_t *result = rd_kafka_event_CreateTopics_result (event);
    size_t count = 0;
    const rd_kafka_topic_result_t **topics = result ? rd_kafka_CreateTopics_result_topics (result, &count) : NULL;
    if (rd_kafka_event_error (event))
        snprintf (err, err_len, "CreateTopics: %s", rd_kafka_event_error_string (event));
    else if (count != 1)
        snprintf (err, err_len, "CreateTopics: %zu results for one topic", count);
    else {
        rd_kafka_resp_err_t code = rd_kafka_topic_result_error (topics [0]);
        ok = code == RD_KAFKA_RESP_ERR_NO_ERROR || code == RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS;
        if (!ok) {
            const char *text = rd_kafka_topic_result_error_string (topics [0]);
            snprintf (err, err_len, "CreateTopics %s: %s: %s", rd_kafka_topic_result_name (topics [0]),
                      rd_kafka_err2name (code), text ? text : rd_kafka_err2str (code));
            *permanent = code == RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION
                      || code == RD_KAFKA_RESP_ERR_INVALID_PARTITIONS
                      || code == RD_KAFKA_RESP_ERR_INVALID_REPLICATION_FACTOR
                      || code == RD_KAFKA_RESP_ERR_INVALID_CONFIG
                      || code == RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED
                      || code == RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED
                      || code == RD_KAFKA_RESP_ERR_POLICY_VIOLATION;
        }
    }
    rd_kafka_event_destroy (event);
    return ok;
}

bool
dlq_kafka_topics_ensure (dlq_kafka_topics_t *self, rd_kafka_t *rk, const dlq_kafka_route_t *route,
                         int32_t retention_days, int64_t deadline_mono_ms, bool *permanent,
                         char *err, size_t err_len)
{
    *permanent = false;
    if (!self->create.create || dlq_strmap_get (self->created, route->topic))
        return true;
    int64_t wait_ms = deadline_mono_ms - self->host->mono_ms ();
    if (wait_ms > self->create.timeout_ms)
        wait_ms = self->create.timeout_ms;
    if (wait_ms < 1) {
        snprintf (err, err_len, "CreateTopics %s: no time left", route->topic);
        return false;
    }
    rd_kafka_NewTopic_t *topic = new_topic (self, route->topic, retention_days, err, err_len);
    if (!topic) {
        *permanent = true;
        return false;
    }
    rd_kafka_AdminOptions_t *options = rd_kafka_AdminOptions_new (rk, RD_KAFKA_ADMIN_OP_CREATETOPICS);
    char why [200];
    rd_kafka_AdminOptions_set_request_timeout (options, (int) wait_ms, why, sizeof why);
    rd_kafka_AdminOptions_set_operation_timeout (options, (int) wait_ms, why, sizeof why);
    rd_kafka_queue_t *queue = rd_kafka_queue_new (rk);
    rd_kafka_CreateTopics (rk, &topic, 1, options, queue);
    bool ok = read_result (queue, wait_ms + 1000, permanent, err, err_len);
    rd_kafka_queue_destroy (queue);
    rd_kafka_AdminOptions_destroy (options);
    rd_kafka_NewTopic_destroy (topic);
    if (ok) {
        dlq_strmap_put (self->created, route->topic, self);
        self->host->log (self->config, DLQ_SINK_LOG_INFO, "topic %s ready (retention.ms %" PRId64 ")",
                         route->topic, dlq_kafka_retention_ms (retention_days));
    }
    return ok;
}
