/*  actor — a thread with an inproc pipe to its owner (after czmq's zactor).
 *
 *  The owner creates an actor with a body function; the body runs on its
 *  own thread with the other end of a ZeroMQ PAIR pipe, says when it is
 *  ready (or that it could not start), serves messages from the pipe, and
 *  returns when it reads the stop message. Every long-lived thread of the
 *  daemon (committer, query workers, later the sink dispatchers) is one.
 */
#ifndef ACTOR_H
#define ACTOR_H

#include <stdbool.h>
#include <stddef.h>

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

/* Called by the body: report that it is ready (ok) or failed to start. */
void dlq_actor_ready (void *pipe, bool ok);

/* True when a frame of size bytes read from the pipe is the stop message
 * (a single empty frame). */
bool dlq_actor_is_stop (size_t size, bool more);

/* Send the stop message, wait for the thread to end, close the pipe.
 * Accepts NULL and NULLs the pointer. */
void dlq_actor_destroy (dlq_actor_t **self_p);

#endif
