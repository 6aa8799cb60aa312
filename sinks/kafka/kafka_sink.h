/*  kafka_sink — the kafka sink plugin's instance, shared by its init
 *  (kafka_sink.c: settings, the producer) and its delivery
 *  (kafka_deliver.c).
 */
#ifndef DLQ_KAFKA_SINK_H
#define DLQ_KAFKA_SINK_H

#include "dlq_sink.h"
#include "kafka_topics.h"

#include <librdkafka/rdkafka.h>
#include <stdbool.h>
#include <stdint.h>

#define DLQ_KAFKA_ERR_LEN 240

typedef struct {
    const dlq_sink_host_t   *host;
    const dlq_sink_config_t *config;
    const char              *bootstrap_servers;
    int64_t                  flush_timeout_ms;
    dlq_kafka_topics_t      *topics;
    rd_kafka_t              *rk;            /* the producer; NULL until made (again) */

    /* one deliver call; delivery reports of older calls are ignored */
    uint32_t                 generation;
    dlq_sink_outcome_t      *outcomes;      /* NULL between calls */
    size_t                   count;
    size_t                   pending;       /* produced, no delivery report yet */
    char                     cluster_error [160];   /* the last error librdkafka told, until a delivery */
} dlq_kafka_sink_t;

/* deliver of the plugin (kafka_deliver.c). */
void dlq_kafka_sink_deliver (void *instance, const dlq_sink_event_t *events, size_t count,
                             dlq_sink_outcome_t *outcomes, int64_t deadline_mono_ms);

/* Make the producer when there is none, or when the one there hit a
 * fatal error (idempotence lost): false with why in err. */
bool dlq_kafka_sink_producer (dlq_kafka_sink_t *self, char *err, size_t err_len);

/* The delivery report callback (kafka_deliver.c), set on the producer. */
void dlq_kafka_sink_on_report (rd_kafka_t *rk, const rd_kafka_message_t *message, void *opaque);

#endif
