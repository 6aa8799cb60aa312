/*  kafka_support — a Kafka cluster for the tests of the kafka sink, and a
 *  real consumer to read back what the sink produced (librdkafka).
 *
 *  The cluster is librdkafka's mock cluster, run by threads of the test
 *  process itself: its brokers (ids 1..N) listen on real loopback sockets,
 *  so a dlqd started as another process reaches it with
 *  kafka_cluster_bootstraps as its bootstrap.servers. Create it inside the
 *  test (Criterion forks a process per test: a cluster made before the
 *  fork has no threads in the child), and destroy it before the test ends.
 *
 *  What the mock of librdkafka 2.0.2 can and cannot do (checked):
 *    - it answers Produce, Fetch, ListOffsets, Metadata (v0-2), the
 *      consumer group APIs, InitProducerId (idempotent producers work) and
 *      the transaction APIs; no admin API: CreateTopics, DeleteTopics and
 *      DescribeConfigs of a topic time out ("Failed while waiting for
 *      controller", its Metadata names controller 0, no such broker),
 *      DescribeConfigs of a broker fails at once with
 *      _UNSUPPORTED_FEATURE. Topics have no configs (retention, sizes);
 *    - a topic nobody created is created on the first Metadata request or
 *      produce naming it (4 partitions): create topics beforehand;
 *    - no broker-side size limit: a produce of any size is stored; only
 *      the producer's own message.max.bytes refuses (at once, in produce()
 *      itself, MSG_SIZE_TOO_LARGE; no delivery report);
 *    - a broker that is down refuses connections, but keeps leading its
 *      partitions (no failover): move them with
 *      kafka_cluster_partition_leader. After broker_up a client may take
 *      up to its reconnect.backoff.max.ms (10 s by default) to reconnect;
 *    - a produce error pushed with kafka_cluster_push_produce_errors fails
 *      one whole ProduceRequest each (every message of every partition in
 *      it), of whichever broker is asked next;
 *    - kafka_cluster_topic_error only changes Metadata answers: a producer
 *      that already knows the topic carries on; a new one sees no
 *      partition, its messages wait and time out (_MSG_TIMED_OUT).
 *
 *  Logs of the mock and of the clients made here go nowhere unless
 *  DLQD_TEST_VERBOSE is set (non-empty): then to stderr.
 */
#ifndef KAFKA_SUPPORT_H
#define KAFKA_SUPPORT_H

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KAFKA_VERBOSE_ENV "DLQD_TEST_VERBOSE"

/* The API key of Produce (librdkafka's RD_KAFKAP_Produce is private). */
#define KAFKA_API_PRODUCE 0

typedef struct kafka_cluster kafka_cluster_t;

/* ------------------------------------------------------------------ */
/*  The mock cluster                                                    */
/* ------------------------------------------------------------------ */

/* A mock cluster of brokers brokers (ids 1..brokers), up and listening on
 * 127.0.0.1. NULL on failure (a message on stderr). */
kafka_cluster_t *kafka_cluster_new (int brokers);

/* "127.0.0.1:P1,127.0.0.1:P2,...": the bootstrap.servers of the cluster. */
const char *kafka_cluster_bootstraps (const kafka_cluster_t *c);

/* The mock itself, for what this helper does not wrap (rdkafka_mock.h). */
rd_kafka_mock_cluster_t *kafka_cluster_mock (kafka_cluster_t *c);

/* Stop the cluster (its connections are closed) and free it; *c becomes
 * NULL. NULL or *c NULL: no-op. */
void kafka_cluster_destroy (kafka_cluster_t **c);

/* Create topic with partitions partitions, each on replication brokers
 * (at most the number of brokers). False (with a message) when the mock
 * refuses, as for a topic that exists. */
bool kafka_cluster_create_topic (kafka_cluster_t *c, const char *topic, int partitions,
                                 int replication);

/* ------------------------------------------------------------------ */
/*  Faults                                                              */
/* ------------------------------------------------------------------ */

/* Take broker broker_id down (its connections closed, new ones refused)
 * or bring it up again. False for an unknown broker id. */
bool kafka_cluster_broker_down (kafka_cluster_t *c, int32_t broker_id);
bool kafka_cluster_broker_up (kafka_cluster_t *c, int32_t broker_id);

/* Every broker down, or up. */
bool kafka_cluster_all_brokers_down (kafka_cluster_t *c);
bool kafka_cluster_all_brokers_up (kafka_cluster_t *c);

/* Delay every answer of broker broker_id by rtt_ms (0: none again): a slow
 * broker, or, beyond a client's request timeouts, a hung one. */
bool kafka_cluster_broker_rtt (kafka_cluster_t *c, int32_t broker_id, int rtt_ms);

/* Make broker broker_id the leader of partition of topic (clients learn
 * it from their next metadata refresh, or from a NOT_LEADER answer). */
bool kafka_cluster_partition_leader (kafka_cluster_t *c, const char *topic, int32_t partition,
                                     int32_t broker_id);

/* Answer the next count ProduceRequests (to any broker) with these errors,
 * in order, one per request, instead of storing their messages:
 *   kafka_cluster_push_produce_errors (c, 2, RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
 *                                      RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION);
 * The variadic arguments are rd_kafka_resp_err_t values. */
void kafka_cluster_push_produce_errors (kafka_cluster_t *c, size_t count, ...);
void kafka_cluster_push_produce_errors_array (kafka_cluster_t *c, size_t count,
                                             const rd_kafka_resp_err_t *errors);

/* Report err for topic in every Metadata answer from now on
 * (RD_KAFKA_RESP_ERR_NO_ERROR: none again). See the banner for what it
 * does, and does not do, to a producer. */
void kafka_cluster_topic_error (kafka_cluster_t *c, const char *topic, rd_kafka_resp_err_t err);

/* Forget the produce errors not yet used, and clear every topic error set
 * through kafka_cluster_topic_error (brokers stay as they are). */
void kafka_cluster_clear_errors (kafka_cluster_t *c);

/* ------------------------------------------------------------------ */
/*  Reading a topic back                                                */
/* ------------------------------------------------------------------ */

/* One record header, in the order the producer wrote them (a name may
 * repeat). value is a NUL-terminated copy (not counted in value_len), or
 * NULL for a null value. */
typedef struct {
    char   *name;
    char   *value;
    size_t  value_len;
} kafka_header_t;

/* One record as the consumer read it. key and value are NUL-terminated
 * copies (the NUL not counted in their lengths), NULL when the record has
 * none (a null key; a null value, a tombstone). */
typedef struct {
    char                     *topic;
    int32_t                   partition;
    int64_t                   offset;
    char                     *key;
    size_t                    key_len;
    char                     *value;
    size_t                    value_len;
    kafka_header_t           *headers;
    size_t                    header_count;
    int64_t                   timestamp;        /* ms since the epoch, -1: none */
    rd_kafka_timestamp_type_t timestamp_type;   /* CREATE_TIME (set by the producer)
                                                 * or LOG_APPEND_TIME */
} kafka_record_t;

typedef struct {
    kafka_record_t *items;
    size_t          count;
} kafka_records_t;

/* Read topic from its beginning, every partition, with a consumer of its
 * own (no consumer group: nothing is committed, every call reads from the
 * start again), until want records arrived or timeout_ms went by; want 0:
 * until the end of every partition (everything in the topic now). out
 * (free with kafka_records_free) gets them sorted by partition, then
 * offset; out->count < want after a timeout. Waits up to timeout_ms for
 * the topic to exist (it is never created by this call). False when it
 * never did, or the consumer failed; out is then empty. */
bool kafka_consume_all (const char *bootstraps, const char *topic, size_t want, int timeout_ms,
                        kafka_records_t *out);

/* The header called name of rec (the first one, when it repeats), or NULL. */
const kafka_header_t *kafka_record_header (const kafka_record_t *rec, const char *name);

/* How many headers of rec are called name. */
size_t kafka_record_header_count (const kafka_record_t *rec, const char *name);

/* Free the records and empty list. */
void kafka_records_free (kafka_records_t *list);

/* The number of records in topic (high minus low watermark, summed over
 * its partitions: duplicates count), -1 when it does not exist or the
 * cluster does not answer within 10 s. */
long kafka_topic_count (const char *bootstraps, const char *topic);

/* The number of partitions of topic, 0 when it does not exist, -1 when the
 * cluster does not answer within 10 s. Never creates the topic. */
int kafka_topic_partitions (const char *bootstraps, const char *topic);

#endif
