/*  actor — threads with a PAIR pipe, a ready signal and a clean stop. */
#include "actor.h"

#include "dlq_alloc.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

struct dlq_actor {
    void         *front;        /* owner's end */
    void         *back;         /* body's end */
    pthread_t     thread;
    dlq_actor_fn *body;
    void         *arg;
};

static void *
trampoline (void *p)
{
    dlq_actor_t *self = p;
    self->body (self->back, self->arg);
    return NULL;
}

/* The pipe carries whatever the owner queues: no high-water mark, so that
 * neither end ever blocks on the other (owners bound their own backlog). */
static void *
pipe_socket (void *ctx)
{
    void *s = zmq_socket (ctx, ZMQ_PAIR);
    int unlimited = 0;
    zmq_setsockopt (s, ZMQ_SNDHWM, &unlimited, sizeof unlimited);
    zmq_setsockopt (s, ZMQ_RCVHWM, &unlimited, sizeof unlimited);
    return s;
}

static void
close_pipe (dlq_actor_t *self)
{
    zmq_close (self->front);
    zmq_close (self->back);
}

dlq_actor_t *
dlq_actor_new (void *zmq_ctx, dlq_actor_fn *body, void *arg)
{
    dlq_actor_t *self = dlq_calloc (1, sizeof *self);
    self->body = body;
    self->arg = arg;
    char endpoint [64];
    snprintf (endpoint, sizeof endpoint, "inproc://dlq-actor-%p", (void *) self);
    self->front = pipe_socket (zmq_ctx);
    self->back = pipe_socket (zmq_ctx);
    zmq_bind (self->front, endpoint);
    zmq_connect (self->back, endpoint);
    if (pthread_create (&self->thread, NULL, trampoline, self) != 0) {
        close_pipe (self);
        free (self);
        return NULL;
    }
    char ok = 0;
    while (zmq_recv (self->front, &ok, 1, 0) < 0 && zmq_errno () == EINTR)
        ;
    if (!ok) {
        pthread_join (self->thread, NULL);
        close_pipe (self);
        free (self);
        return NULL;
    }
    return self;
}

void *dlq_actor_pipe (dlq_actor_t *self) { return self->front; }

void
dlq_actor_name (const char *name)
{
    char kept [16];
    snprintf (kept, sizeof kept, "%s", name);
    pthread_setname_np (pthread_self (), kept);
}

void
dlq_actor_ready (void *pipe, bool ok)
{
    char flag = ok ? 1 : 0;
    zmq_send (pipe, &flag, 1, 0);
}

bool
dlq_actor_is_stop (size_t size, bool more)
{
    return size == 0 && !more;
}

void
dlq_actor_destroy (dlq_actor_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_actor_t *self = *self_p;
    zmq_send (self->front, "", 0, 0);
    pthread_join (self->thread, NULL);
    close_pipe (self);
    free (self);
    *self_p = NULL;
}

void
dlq_actor_send_request (void *pipe, zmq_msg_t frames [DLQ_REQUEST_FRAMES])
{
    for (int i = 0; i < DLQ_REQUEST_FRAMES; i++)
        zmq_msg_send (&frames [i], pipe, i + 1 < DLQ_REQUEST_FRAMES ? ZMQ_SNDMORE : 0);
}

size_t
dlq_actor_recv_request (void *pipe, zmq_msg_t frames [DLQ_REQUEST_FRAMES])
{
    size_t n = 0;
    int more = 1;
    while (more && n < DLQ_REQUEST_FRAMES) {
        zmq_msg_init (&frames [n]);
        if (zmq_msg_recv (&frames [n], pipe, 0) < 0) {
            zmq_msg_close (&frames [n]);
            if (zmq_errno () == EINTR)
                continue;
            break;
        }
        more = zmq_msg_more (&frames [n]);
        n++;
    }
    return n;
}

void
dlq_actor_send_reply (void *pipe, zmq_msg_t *identity, const char *status,
                      zmq_msg_t *request_id, const void *body, size_t len)
{
    zmq_msg_send (identity, pipe, ZMQ_SNDMORE);
    zmq_send (pipe, status, strlen (status), ZMQ_SNDMORE);
    zmq_msg_send (request_id, pipe, ZMQ_SNDMORE);
    zmq_send (pipe, body ? body : "", len, 0);
}

bool
dlq_actor_relay (void *pipe, void *out)
{
    int more = 1;
    bool sent = true;
    while (more) {
        zmq_msg_t frame;
        zmq_msg_init (&frame);
        if (zmq_msg_recv (&frame, pipe, 0) < 0) {
            zmq_msg_close (&frame);
            if (zmq_errno () == EINTR)
                continue;
            return false;
        }
        more = zmq_msg_more (&frame);
        if (sent && zmq_msg_send (&frame, out, (more ? ZMQ_SNDMORE : 0) | ZMQ_DONTWAIT) < 0)
            sent = false;               /* the rest of the message is read and dropped */
        zmq_msg_close (&frame);
    }
    return sent;
}
