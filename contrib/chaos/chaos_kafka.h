/*  chaos_kafka — the Kafka of a chaos run: librdkafka's mock cluster,
 *  hosted by the chaos program itself (its brokers are threads of this
 *  process listening on loopback), so it outlives every dlqd it kills;
 *  taking all its brokers down and up again (an outage); and a consumer
 *  that reads a topic back from its beginning.
 *
 *  The mock keeps every record in memory, but at most 5 MiB a partition
 *  (librdkafka 2.0's mock drops a partition's oldest records beyond that,
 *  and no setting changes it): give a topic enough partitions for what it
 *  will hold (CHAOS_KAFKA_PARTITION_BYTES each, at most). Its broker
 *  connections answer without Nagle's delay (socket.nagle.disable on the
 *  cluster's handle), as a real broker does.
 */
#ifndef DLQ_CHAOS_KAFKA_H
#define DLQ_CHAOS_KAFKA_H

#include <stdbool.h>
#include <stddef.h>

#define CHAOS_KAFKA_PARTITION_BYTES (2 * 1024 * 1024)  /* a safe share of the mock's 5 MiB */

typedef struct chaos_kafka chaos_kafka_t;

/* Called for each record read back: its key and value (either may be
 * NULL for none, with length 0). */
typedef void (chaos_kafka_record_fn) (void *arg, const char *key, size_t key_len,
                                      const char *value, size_t value_len);

/* A mock cluster of brokers brokers, up. NULL with err on failure. */
chaos_kafka_t *chaos_kafka_new (int brokers, char *err, size_t err_len);

/* Stop the cluster and free it; *self_p becomes NULL. NULL: no-op. */
void chaos_kafka_destroy (chaos_kafka_t **self_p);

/* Its bootstrap.servers, "127.0.0.1:P1,...". */
const char *chaos_kafka_bootstraps (const chaos_kafka_t *self);

/* Create topic with partitions partitions. */
bool chaos_kafka_create_topic (chaos_kafka_t *self, const char *topic, int partitions,
                               char *err, size_t err_len);

/* Every broker down (connections closed, new ones refused), or up. */
bool chaos_kafka_down (chaos_kafka_t *self, char *err, size_t err_len);
bool chaos_kafka_up (chaos_kafka_t *self, char *err, size_t err_len);

/* Read every record of topic (partitions partitions) from the beginning
 * to the end of each partition, calling fn for each; *count gets how many.
 * False with err when the end is not reached within timeout_ms, when
 * fewer records were read than the partitions' watermarks say they hold,
 * or when the mock dropped a partition's oldest records. */
bool chaos_kafka_read (chaos_kafka_t *self, const char *topic, int partitions, int timeout_ms,
                       chaos_kafka_record_fn *fn, void *arg, size_t *count,
                       char *err, size_t err_len);

#endif
