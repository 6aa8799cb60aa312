/*  amqp_format — the AMQP message of one event, exactly as the
 *  flowwarden-amqp wire format specifies it (JSON body, flowwarden-*
 *  headers, exchange flowwarden.dlq, routing key dlq.<stream>), as pure
 *  functions (no connection, no I/O): unit-tested without a broker
 *  (tests/test_amqp_format.c) and shared with the benchmark's raw
 *  publisher, so both send the same bytes.
 *
 *  Body: the event's canonical JSON, as is (never re-serialised).
 *  Properties: message_id = event id, content_type "application/json",
 *  content_encoding "UTF-8", delivery_mode 2 (persistent), headers, and
 *  expiration = retention_days x 86,400,000 ms as decimal text, omitted
 *  when retention_days <= 0. RabbitMQ refuses a per-message TTL above
 *  315,360,000,000 ms (3650 days) with a channel error (406
 *  PRECONDITION_FAILED, value_too_large), so a longer retention is sent as
 *  that maximum (DLQ_AMQP_EXPIRATION_MAX).
 *  Headers (field kinds as Spring AMQP writes them: strings 'S', Integer
 *  'I', Long 'l'):
 *      flowwarden-event-id          S  the event id
 *      flowwarden-stream-name       S  streamName
 *      flowwarden-operation-type    S  operationType (omitted when absent)
 *      flowwarden-attempts          I  attempts
 *      flowwarden-status            S  status
 *      flowwarden-first-attempt-at  l  epoch ms (omitted when absent)
 *      flowwarden-schema-version    I  1
 *
 *  A dlq_amqp_message_t points into the event it was made from and into
 *  itself: it is valid while the event is and must not be copied.
 */
#ifndef DLQ_AMQP_FORMAT_H
#define DLQ_AMQP_FORMAT_H

#include "dlq_sink.h"

#include <amqp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DLQ_AMQP_SCHEMA_VERSION     1
#define DLQ_AMQP_HEADERS_MAX        7
#define DLQ_AMQP_DAY_MS             86400000LL
#define DLQ_AMQP_EXPIRATION_MAX     315360000000LL  /* RabbitMQ's largest per-message TTL: 3650 days */
#define DLQ_AMQP_CONTENT_TYPE       "application/json"
#define DLQ_AMQP_CONTENT_ENCODING   "UTF-8"
#define DLQ_AMQP_DELIVERY_PERSISTENT 2
#define DLQ_AMQP_SHORTSTR_MAX       255             /* exchange names, routing keys */

#define DLQ_AMQP_HEADER_EVENT_ID        "flowwarden-event-id"
#define DLQ_AMQP_HEADER_STREAM_NAME     "flowwarden-stream-name"
#define DLQ_AMQP_HEADER_OPERATION_TYPE  "flowwarden-operation-type"
#define DLQ_AMQP_HEADER_ATTEMPTS        "flowwarden-attempts"
#define DLQ_AMQP_HEADER_STATUS          "flowwarden-status"
#define DLQ_AMQP_HEADER_FIRST_ATTEMPT   "flowwarden-first-attempt-at"
#define DLQ_AMQP_HEADER_SCHEMA_VERSION  "flowwarden-schema-version"

/* One event's message: its properties (with the header table) and body. */
typedef struct {
    amqp_basic_properties_t props;
    amqp_table_entry_t      headers [DLQ_AMQP_HEADERS_MAX];
    char                    expiration [24];
    amqp_bytes_t            body;
} dlq_amqp_message_t;

/* Fill message for event (see the banner). */
void dlq_amqp_message_format (dlq_amqp_message_t *message, const dlq_sink_event_t *event);

/* The expiration text of a retention ("2592000000" for 30 days) into out
 * (24 bytes); false (out "") when retention_days <= 0: no expiration. */
bool dlq_amqp_expiration (int32_t retention_days, char *out);

/* The routing key of a stream: override when set (non-NULL, non-empty),
 * else prefix + stream. False when it would not fit an AMQP short string
 * (255 bytes); out has DLQ_AMQP_SHORTSTR_MAX + 1 bytes. */
bool dlq_amqp_routing_key (const char *prefix, const char *stream, const char *override, char *out);

/* A header's entry in a table, or NULL. */
const amqp_table_entry_t *dlq_amqp_header (const amqp_table_t *table, const char *name);

#endif
