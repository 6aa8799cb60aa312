/*  connection_limit — how many clients are connected to the ROUTER, and
 *  gateway.max_connections enforced on them.
 *
 *  ZeroMQ has no such limit: its listener accepts every connection the
 *  kernel's backlog offers, and once the process is out of descriptors it
 *  retries accept() in a busy loop (most of a core) while the store and
 *  the sinks can open no file or socket. So the gateway watches the
 *  ROUTER's accept and disconnect events (zmq_socket_monitor) and shuts
 *  down each connection accepted past the limit: shutdown(2), not close,
 *  since the descriptor is ZeroMQ's, which then sees the connection end
 *  and closes it. A refused client's DEALER reconnects by itself (every
 *  ZMQ_RECONNECT_IVL, 100 ms by default) and gets in once a connection is
 *  free.
 */
#ifndef DLQ_CONNECTION_LIMIT_H
#define DLQ_CONNECTION_LIMIT_H

#include "counters.h"

#include <stddef.h>
#include <stdint.h>

typedef struct dlq_connection_limit dlq_connection_limit_t;

/* Watch router (before it binds) and keep at most max connections to it;
 * the count goes to counters (STATS "connections"). NULL when the monitor
 * cannot be set up (ZeroMQ's error in err). */
dlq_connection_limit_t *dlq_connection_limit_new (void *zmq_ctx, void *router, int64_t max,
                                                  dlq_counters_t *counters, char *err, size_t err_len);

/* The socket to poll (ZMQ_POLLIN) for connection events. */
void *dlq_connection_limit_socket (dlq_connection_limit_t *self);

/* Take in every event waiting: count connections, shut down those past
 * the limit. Never waits. */
void dlq_connection_limit_handle (dlq_connection_limit_t *self);

/* Connections now (accepted and not yet gone). */
int64_t dlq_connection_limit_count (const dlq_connection_limit_t *self);

/* Stop watching and free; accepts NULL and NULLs the pointer. Call it
 * before the router is closed. */
void dlq_connection_limit_destroy (dlq_connection_limit_t **self_p);

#endif
