/*  kafka_topics — where each stream's events go: the topic (the stream's
 *  `topic`, else topic_prefix + streamName) and the key kind (the
 *  stream's `key`, else the sink's), resolved once per stream; and, with
 *  create_topics, the topics created through the Admin API (CreateTopics,
 *  retention.ms from the stream's retention_days, -1 for 0) once each.
 *  A topic that exists already is left as it is.
 */
#ifndef DLQ_KAFKA_TOPICS_H
#define DLQ_KAFKA_TOPICS_H

#include "kafka_format.h"

#include <stdbool.h>

typedef struct {
    char            topic [DLQ_KAFKA_TOPIC_MAX + 1];
    bool            valid;          /* false: not a legal topic name */
    dlq_kafka_key_t key;
    rd_kafka_topic_t *handle;       /* dlq_kafka_topics_handle's, NULL until asked for */
} dlq_kafka_route_t;

typedef struct {
    bool    create;                 /* create_topics */
    int     partitions;
    int     replication_factor;     /* -1: the broker's default */
    int64_t timeout_ms;             /* of one CreateTopics request */
} dlq_kafka_create_t;

typedef struct dlq_kafka_topics dlq_kafka_topics_t;

dlq_kafka_topics_t *dlq_kafka_topics_new (const dlq_sink_host_t *host, const dlq_sink_config_t *config,
                                          const dlq_kafka_create_t *create);
void dlq_kafka_topics_destroy (dlq_kafka_topics_t **self_p);

/* The route of stream (resolved on first use); valid until destroy. */
dlq_kafka_route_t *dlq_kafka_topics_route (dlq_kafka_topics_t *self, const char *stream);

/* With create_topics: create route's topic through rk's Admin API unless
 * done already (or it exists), with the retention of retention_days.
 * False with why in err when the cluster refused or did not answer before
 * deadline_mono_ms; *permanent tells whether a retry can help. Without
 * create_topics: true. */
bool dlq_kafka_topics_ensure (dlq_kafka_topics_t *self, rd_kafka_t *rk, const dlq_kafka_route_t *route,
                              int32_t retention_days, int64_t deadline_mono_ms, bool *permanent,
                              char *err, size_t err_len);

/* route's topic handle on the producer rk, made on first use with
 * rd_kafka_topic_new, which asks the cluster for the topic's metadata at
 * once (a record produced by topic name to a topic the producer does not
 * know yet waits for librdkafka's next topic scan, up to 1 s). NULL when
 * librdkafka refuses. Valid until dlq_kafka_topics_forget_producer. */
rd_kafka_topic_t *dlq_kafka_topics_handle (dlq_kafka_route_t *route, rd_kafka_t *rk);

/* Before the producer is destroyed: release the topic handles (every
 * route is resolved again) and forget which topics were created (a new
 * producer: check again). */
void dlq_kafka_topics_forget_producer (dlq_kafka_topics_t *self);

#endif
