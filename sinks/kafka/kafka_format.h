/*  kafka_format — the Kafka record of one event, as pure functions (no
 *  broker, no I/O): unit-tested without a cluster (tests/test_kafka_format.c)
 *  and shared with the benchmark's raw producer, so both send the same
 *  bytes.
 *
 *  Topic: the stream's `topic` override, else topic_prefix + streamName;
 *  a name Kafka does not allow (empty, ".", "..", over 249 bytes, a byte
 *  outside [a-zA-Z0-9._-]) is refused.
 *  Key: the event id, or (key = "document_key") the documentKey's compact
 *  extended JSON (the id when the event has none).
 *  Value: the event's canonical JSON, as is (the same body as the amqp
 *  sink's).
 *  Headers: the amqp sink's flowwarden-* set (the flowwarden-amqp wire
 *  format), values as UTF-8 text since Kafka headers are bytes:
 *      flowwarden-event-id          the event id
 *      flowwarden-stream-name       streamName
 *      flowwarden-operation-type    operationType (omitted when absent)
 *      flowwarden-attempts          attempts, decimal ("3")
 *      flowwarden-status            status
 *      flowwarden-first-attempt-at  epoch ms, decimal (omitted when absent)
 *      flowwarden-schema-version    "1"
 *
 *  A dlq_kafka_record_t points into the event it was made from and into
 *  itself: valid while the event is; do not copy it.
 */
#ifndef DLQ_KAFKA_FORMAT_H
#define DLQ_KAFKA_FORMAT_H

#include "dlq_sink.h"

#include <librdkafka/rdkafka.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DLQ_KAFKA_SCHEMA_VERSION    "1"
#define DLQ_KAFKA_HEADERS_MAX       7
#define DLQ_KAFKA_TOPIC_MAX         249
#define DLQ_KAFKA_DAY_MS            86400000LL

typedef enum {
    DLQ_KAFKA_KEY_ID,               /* key = "id" */
    DLQ_KAFKA_KEY_DOCUMENT_KEY      /* key = "document_key" */
} dlq_kafka_key_t;

typedef struct {
    const char *name;
    const char *value;              /* NUL-terminated */
} dlq_kafka_header_t;

typedef struct {
    const char         *key;
    size_t              key_len;
    const char         *value;      /* the canonical JSON */
    size_t              value_len;
    dlq_kafka_header_t  headers [DLQ_KAFKA_HEADERS_MAX];
    size_t              header_count;
    char                attempts [16];
    char                first_attempt_at [24];
} dlq_kafka_record_t;

/* Fill record for event (see the banner). */
void dlq_kafka_record_format (dlq_kafka_record_t *record, const dlq_sink_event_t *event, dlq_kafka_key_t key);

/* The topic of a stream into out (DLQ_KAFKA_TOPIC_MAX + 1 bytes): override
 * when set (non-NULL, non-empty), else prefix + stream. False (out "")
 * when that is not a legal Kafka topic name. */
bool dlq_kafka_topic (const char *prefix, const char *stream, const char *override, char *out);

/* Is name a legal Kafka topic name? */
bool dlq_kafka_topic_valid (const char *name);

/* retention.ms of a topic for a stream's retention: days x 86,400,000, or
 * -1 (forever) when retention_days <= 0. */
int64_t dlq_kafka_retention_ms (int32_t retention_days);

/* Is a delivery report's error permanent (the event can never go as it
 * is: FAIL) rather than transient (RETRY)? Permanent: the record or batch
 * is too large or invalid, the topic is unknown (auto-creation off) or
 * invalid, authorization failed, a policy refused it. */
bool dlq_kafka_error_is_permanent (rd_kafka_resp_err_t err);

/* Parse one "name=value" rdkafka setting: name and value point into item
 * (name_len bytes of name). False when there is no '=' or no name. */
bool dlq_kafka_split_setting (const char *item, size_t *name_len, const char **value);

#endif
