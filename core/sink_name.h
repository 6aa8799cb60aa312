/*  sink_name — the name a sink gives a stream's destination (a Kafka topic,
 *  an AMQP routing key, a MongoDB collection), for the in-tree sink
 *  plugins (core is linked statically into each of them).
 */
#ifndef DLQ_SINK_NAME_H
#define DLQ_SINK_NAME_H

#include <stdbool.h>
#include <stddef.h>

/* override when set (non-NULL, non-empty), else prefix (NULL: none) +
 * stream, into out (max + 1 bytes). False (out "") when longer than max. */
bool dlq_sink_stream_name (const char *prefix, const char *stream, const char *override, char *out, size_t max);

#endif
