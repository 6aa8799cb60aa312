/*  api_bridge — how the HTTP API reaches the gateway: a DEALER socket of
 *  its own on the gateway's in-process endpoint, through which each API
 *  request is a wire-protocol request like any client's ([verb][request
 *  id][body], docs/protocol.md; with a token, [token] after it),
 *  answered by the same code on the same threads. One call at a time (a mutex); a reply that comes after its
 *  call gave up is read and dropped by the next call.
 */
#ifndef DLQ_API_BRIDGE_H
#define DLQ_API_BRIDGE_H

#include "dlq_buf.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct dlq_api_bridge dlq_api_bridge_t;

/* Connect to endpoint (an inproc:// endpoint of zmq_ctx the gateway's
 * ROUTER binds); a call waits at most timeout_ms for its reply. */
dlq_api_bridge_t *dlq_api_bridge_new (void *zmq_ctx, const char *endpoint, int timeout_ms);

/* From now on calls give up at once (a waiting one within 100 ms): the
 * gateway is going and answers no more. Any thread; accepts NULL. */
void dlq_api_bridge_close (dlq_api_bridge_t *self);

/* Has dlq_api_bridge_close been called? Any thread. */
bool dlq_api_bridge_closed (dlq_api_bridge_t *self);

/* Free; accepts NULL and NULLs the pointer. */
void dlq_api_bridge_destroy (dlq_api_bridge_t **self_p);

/* Send verb with body (len bytes) — and, when token is not NULL, the
 * caller's token (token_len bytes) as a fourth frame, which a gateway
 * with CURVE takes in place of a User-Id (authorizer.h) — and wait for
 * its reply: true with *ok (OK or ERR) and the reply's body in reply;
 * false when none came in time. */
bool dlq_api_bridge_call (dlq_api_bridge_t *self, const char *verb, const char *body, size_t len,
                          const char *token, size_t token_len, bool *ok, dlq_buf_t *reply);

#endif
