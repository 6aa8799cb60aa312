/*  amqp_routes — per-stream routes, resolved once; see amqp_routes.h. */
#include "amqp_routes.h"

#include "dlq_alloc.h"
#include "dlq_strmap.h"

#include <stdlib.h>

struct dlq_amqp_routes {
    const dlq_sink_host_t   *host;
    const dlq_sink_config_t *config;
    dlq_strmap_t            *by_stream;     /* stream -> dlq_amqp_route_t */
};

dlq_amqp_routes_t *
dlq_amqp_routes_new (const dlq_sink_host_t *host, const dlq_sink_config_t *config)
{
    dlq_amqp_routes_t *self = dlq_calloc (1, sizeof *self);
    self->host = host;
    self->config = config;
    self->by_stream = dlq_strmap_new (free);
    return self;
}

void
dlq_amqp_routes_destroy (dlq_amqp_routes_t **self_p)
{
    dlq_amqp_routes_t *self = *self_p;
    if (!self)
        return;
    dlq_strmap_destroy (&self->by_stream);
    free (self);
    *self_p = NULL;
}

static dlq_amqp_route_t *
resolve (const dlq_amqp_routes_t *self, const char *stream)
{
    const dlq_sink_host_t *host = self->host;
    dlq_amqp_route_t *route = dlq_calloc (1, sizeof *route);
    route->exchange = host->config_string (self->config, stream, "exchange");
    route->mandatory = host->config_bool (self->config, stream, "mandatory");
    route->valid = dlq_amqp_routing_key (host->config_string (self->config, NULL, "routing_key_prefix"), stream,
                                         host->config_string (self->config, stream, "routing_key"),
                                         route->routing_key);
    return route;
}

const dlq_amqp_route_t *
dlq_amqp_routes_get (dlq_amqp_routes_t *self, const char *stream)
{
    dlq_amqp_route_t *route = dlq_strmap_get (self->by_stream, stream);
    if (!route) {
        route = resolve (self, stream);
        dlq_strmap_put (self->by_stream, stream, route);
    }
    return route;
}
