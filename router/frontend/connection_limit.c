/*  connection_limit — the ROUTER's monitor events, counted.
 *
 *  A monitor event is two frames: 6 bytes (the event, uint16, and its
 *  value, uint32, in host order: for ACCEPTED and DISCONNECTED the
 *  connection's descriptor), then the endpoint (the listener's, for an
 *  accepted connection). Events are read in chunks; a descriptor is shut
 *  down only when nothing later in its chunk says that connection is gone
 *  already (its number may be another connection's by now), and only when
 *  it is still a connected socket on the listener's own port or path.
 */
#include "connection_limit.h"

#include "dlq_alloc.h"
#include "dlq_log.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <zmq.h>

#define CHUNK 1024              /* events read before acting on them */
#define ENDPOINT_MAX 256

typedef struct {
    uint16_t event;
    int      fd;
    char     endpoint [ENDPOINT_MAX];
} event_t;

struct dlq_connection_limit {
    void           *router;
    void           *monitor;        /* our end of the monitor's PAIR */
    int64_t         max;
    int64_t         count;
    bool            full;           /* refusing since the last time under the limit */
    dlq_counters_t *counters;
    event_t        *events;         /* a chunk */
};

dlq_connection_limit_t *
dlq_connection_limit_new (void *zmq_ctx, void *router, int64_t max, dlq_counters_t *counters,
                          char *err, size_t err_len)
{
    char endpoint [64];
    snprintf (endpoint, sizeof endpoint, "inproc://dlq-connections-%p", router);
    if (zmq_socket_monitor (router, endpoint, ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_DISCONNECTED) != 0) {
        snprintf (err, err_len, "cannot monitor the gateway's connections: %s", zmq_strerror (zmq_errno ()));
        return NULL;
    }
    dlq_connection_limit_t *self = dlq_calloc (1, sizeof *self);
    self->router = router;
    self->max = max;
    self->counters = counters;
    self->events = dlq_calloc (CHUNK, sizeof (event_t));
    self->monitor = zmq_socket (zmq_ctx, ZMQ_PAIR);
    int unlimited = 0;                  /* so that ZeroMQ's I/O thread never waits for us */
    zmq_setsockopt (self->monitor, ZMQ_RCVHWM, &unlimited, sizeof unlimited);
    zmq_connect (self->monitor, endpoint);
    return self;
}

void *dlq_connection_limit_socket (dlq_connection_limit_t *self) { return self->monitor; }

int64_t dlq_connection_limit_count (const dlq_connection_limit_t *self) { return self->count; }

/* Read one event; false when none is waiting. */
static bool
read_event (dlq_connection_limit_t *self, event_t *out)
{
    zmq_msg_t head, address;
    zmq_msg_init (&head);
    if (zmq_msg_recv (&head, self->monitor, ZMQ_DONTWAIT) < 0) {
        zmq_msg_close (&head);
        return false;
    }
    bool more = zmq_msg_more (&head);
    const uint8_t *data = zmq_msg_data (&head);
    out->event = 0;
    out->fd = -1;
    out->endpoint [0] = '\0';
    if (zmq_msg_size (&head) == 6) {
        uint32_t value;
        memcpy (&out->event, data, sizeof out->event);
        memcpy (&value, data + 2, sizeof value);
        out->fd = (int) value;
    }
    zmq_msg_close (&head);
    while (more) {
        zmq_msg_init (&address);
        if (zmq_msg_recv (&address, self->monitor, 0) < 0) {
            zmq_msg_close (&address);
            break;
        }
        more = zmq_msg_more (&address);
        size_t n = zmq_msg_size (&address);
        if (!out->endpoint [0] && n < ENDPOINT_MAX) {
            memcpy (out->endpoint, zmq_msg_data (&address), n);
            out->endpoint [n] = '\0';
        }
        zmq_msg_close (&address);
    }
    return true;
}

/* Is fd still a connection accepted on endpoint (tcp://host:port or
 * ipc://path)? */
static bool
accepted_on (int fd, const char *endpoint)
{
    int listening = 1;
    socklen_t len = sizeof listening;
    if (getsockopt (fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || listening)
        return false;
    struct sockaddr_storage addr;
    len = sizeof addr;
    if (getsockname (fd, (struct sockaddr *) &addr, &len) != 0)
        return false;
    if (strncmp (endpoint, "tcp://", 6) == 0) {
        const char *colon = strrchr (endpoint, ':');
        int port = colon ? atoi (colon + 1) : -1;
        if (addr.ss_family == AF_INET)
            return ntohs (((struct sockaddr_in *) &addr)->sin_port) == port;
        if (addr.ss_family == AF_INET6)
            return ntohs (((struct sockaddr_in6 *) &addr)->sin6_port) == port;
        return false;
    }
    if (strncmp (endpoint, "ipc://", 6) == 0 && addr.ss_family == AF_UNIX)
        return strcmp (((struct sockaddr_un *) &addr)->sun_path, endpoint + 6) == 0;
    return false;
}

/* Is connection fd, accepted at chunk index i, gone later in the chunk? */
static bool
gone_later (const dlq_connection_limit_t *self, size_t i, size_t n)
{
    for (size_t j = i + 1; j < n; j++)
        if (self->events [j].fd == self->events [i].fd && self->events [j].event == ZMQ_EVENT_DISCONNECTED)
            return true;
    return false;
}

void
dlq_connection_limit_handle (dlq_connection_limit_t *self)
{
    size_t n;
    do {
        n = 0;
        while (n < CHUNK && read_event (self, &self->events [n]))
            n++;
        for (size_t i = 0; i < n; i++) {
            const event_t *e = &self->events [i];
            if (e->event == ZMQ_EVENT_DISCONNECTED) {
                self->count -= self->count > 0;
                self->full = self->full && self->count >= self->max;
                continue;
            }
            if (e->event != ZMQ_EVENT_ACCEPTED)
                continue;
            self->count++;
            if (self->count <= self->max || gone_later (self, i, n) || !accepted_on (e->fd, e->endpoint))
                continue;
            shutdown (e->fd, SHUT_RDWR);
            if (!self->full)
                dlq_log (DLQ_LOG_WARN, "%lld client connections (gateway.max_connections): closing "
                         "new ones until some go", (long long) self->max);
            self->full = true;
        }
    } while (n == CHUNK);
    dlq_counters_connections (self->counters, (uint64_t) self->count);
}

void
dlq_connection_limit_destroy (dlq_connection_limit_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_connection_limit_t *self = *self_p;
    zmq_socket_monitor (self->router, NULL, 0);
    zmq_close (self->monitor);
    free (self->events);
    free (self);
    *self_p = NULL;
}
