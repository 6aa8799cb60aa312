/*  amqp_routes — per-stream routes, resolved once; see amqp_routes.h. */
#include "amqp_routes.h"

#include "dlq_alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_SLOTS 16          /* a power of two */

typedef struct {
    char             *stream;   /* NULL: an empty slot */
    dlq_amqp_route_t *route;
} slot_t;

struct dlq_amqp_routes {
    const dlq_sink_host_t   *host;
    const dlq_sink_config_t *config;
    slot_t                  *slots;
    size_t                   size;      /* slots, a power of two */
    size_t                   used;
};

dlq_amqp_routes_t *
dlq_amqp_routes_new (const dlq_sink_host_t *host, const dlq_sink_config_t *config)
{
    dlq_amqp_routes_t *self = dlq_calloc (1, sizeof *self);
    self->host = host;
    self->config = config;
    self->size = FIRST_SLOTS;
    self->slots = dlq_calloc (self->size, sizeof *self->slots);
    return self;
}

void
dlq_amqp_routes_destroy (dlq_amqp_routes_t **self_p)
{
    dlq_amqp_routes_t *self = *self_p;
    if (!self)
        return;
    for (size_t i = 0; i < self->size; i++) {
        free (self->slots [i].stream);
        free (self->slots [i].route);
    }
    free (self->slots);
    free (self);
    *self_p = NULL;
}

/* FNV-1a. */
static uint64_t
hash (const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char) *s) * 1099511628211ULL;
    return h;
}

static slot_t *
find_slot (slot_t *slots, size_t size, const char *stream)
{
    size_t i = hash (stream) & (size - 1);
    while (slots [i].stream && strcmp (slots [i].stream, stream) != 0)
        i = (i + 1) & (size - 1);
    return &slots [i];
}

static void
grow (dlq_amqp_routes_t *self)
{
    size_t size = self->size * 2;
    slot_t *slots = dlq_calloc (size, sizeof *slots);
    for (size_t i = 0; i < self->size; i++)
        if (self->slots [i].stream)
            *find_slot (slots, size, self->slots [i].stream) = self->slots [i];
    free (self->slots);
    self->slots = slots;
    self->size = size;
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
    slot_t *slot = find_slot (self->slots, self->size, stream);
    if (slot->stream)
        return slot->route;
    if ((self->used + 1) * 10 > self->size * 7) {
        grow (self);
        slot = find_slot (self->slots, self->size, stream);
    }
    slot->stream = dlq_strdup (stream);
    slot->route = resolve (self, stream);
    self->used++;
    return slot->route;
}
