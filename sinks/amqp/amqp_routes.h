/*  amqp_routes — where each stream's events go: exchange, routing key and
 *  mandatory flag, resolved once per stream from the sink's settings and
 *  the stream's overrides (precedence: stream > sink section > default)
 *  and kept in a small hash table for the life of the sink instance.
 *
 *      exchange    the stream's `exchange`, else the sink's (default
 *                  "flowwarden.dlq"); "" is the broker's default exchange
 *      routing key the stream's `routing_key`, else routing_key_prefix
 *                  (default "dlq.") + streamName
 *      mandatory   the stream's `mandatory`, else the sink's (false)
 */
#ifndef DLQ_AMQP_ROUTES_H
#define DLQ_AMQP_ROUTES_H

#include "amqp_format.h"
#include "dlq_sink.h"

#include <stdbool.h>

typedef struct {
    const char *exchange;                               /* lives as long as the config */
    char        routing_key [DLQ_AMQP_SHORTSTR_MAX + 1];
    bool        mandatory;
    bool        valid;                                  /* false: the key is too long */
} dlq_amqp_route_t;

typedef struct dlq_amqp_routes dlq_amqp_routes_t;

dlq_amqp_routes_t *dlq_amqp_routes_new (const dlq_sink_host_t *host, const dlq_sink_config_t *config);
void dlq_amqp_routes_destroy (dlq_amqp_routes_t **self_p);

/* The route of stream (resolved on first use); valid until destroy. */
const dlq_amqp_route_t *dlq_amqp_routes_get (dlq_amqp_routes_t *self, const char *stream);

#endif
