/*  actor — a thread with an inproc pipe to its owner (after czmq's zactor).
 *
 *  The owner creates an actor with a body function; the body runs on its
 *  own thread with the other end of a ZeroMQ PAIR pipe, says when it is
 *  ready (or that it could not start), serves messages from the pipe, and
 *  returns when it reads the stop message. Every long-lived thread of the
 *  daemon is one: the committer, the indexer, the query workers, the sink
 *  dispatchers and the replayer.
 */
#ifndef DLQ_ACTOR_H
#define DLQ_ACTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <zmq.h>

typedef struct dlq_actor dlq_actor_t;

/* The body of an actor. It must call dlq_actor_ready (pipe, ok) once, first
 * thing; after ok == false it must return at once. It returns when
 * dlq_actor_is_stop says a message it read is the stop message. */
typedef void (dlq_actor_fn) (void *pipe, void *arg);

/* Start body (arg) on a new thread and wait until it is ready. NULL when the
 * thread could not start or the body reported failure. */
dlq_actor_t *dlq_actor_new (void *zmq_ctx, dlq_actor_fn *body, void *arg);

/* The owner's end of the pipe (a PAIR socket), to send to and poll. */
void *dlq_actor_pipe (dlq_actor_t *self);

/* Called by the body: name its thread (at most 15 bytes are kept), as
 * `top -H`, `ps -L` and `perf` show it, e.g. "dlqd-indexer". */
void dlq_actor_name (const char *name);

/* Called by the body: report that it is ready (ok) or failed to start. */
void dlq_actor_ready (void *pipe, bool ok);

/* True when a frame of size bytes read from the pipe is the stop message
 * (a single empty frame). */
bool dlq_actor_is_stop (size_t size, bool more);

/* Requests the owner relays to an actor and back: [identity][verb]
 * [request id][body][scope] in, [identity][status][request id][body] out.
 * scope is empty but for a CURVE caller limited to some streams
 * (principal.h: dlq_principal_scope_frame). */
#define DLQ_REQUEST_FRAMES 5

/* Send the request frames to pipe (they move out). */
void dlq_actor_send_request (void *pipe, zmq_msg_t frames [DLQ_REQUEST_FRAMES]);

/* Read one message of up to DLQ_REQUEST_FRAMES frames from pipe into
 * frames (initialised here; close them after). Returns how many were read:
 * DLQ_REQUEST_FRAMES for a request, fewer for the stop message. */
size_t dlq_actor_recv_request (void *pipe, zmq_msg_t frames [DLQ_REQUEST_FRAMES]);

/* Answer a request on pipe: [identity][status][request id][body], the
 * identity and request id frames moving out. */
void dlq_actor_send_reply (void *pipe, zmq_msg_t *identity, const char *status,
                           zmq_msg_t *request_id, const void *body, size_t len);

/* Move one whole multipart message from pipe to out (e.g. a ROUTER),
 * never waiting for out: false when out refused it (a ROUTER with
 * ZMQ_ROUTER_MANDATORY whose peer's queue is full or who has gone), and
 * then the whole message is read from pipe and dropped. */
bool dlq_actor_relay (void *pipe, void *out);

/* Send the stop message, wait for the thread to end, close the pipe.
 * Accepts NULL and NULLs the pointer. */
void dlq_actor_destroy (dlq_actor_t **self_p);

#endif
