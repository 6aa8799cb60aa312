/*  bench_ceiling — a ROUTER that acks at once.
 */
#include "bench_ceiling.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#define REPLY "{\"id\":\"00000000-0000-7000-8000-000000000000\",\"duplicate\":false}"

struct bench_ceiling {
    void        *router;
    pthread_t    thread;
    atomic_bool  stop;
    char         endpoint [64];
};

/* [identity][verb][request id][body] in, [identity][OK][request id][reply] out. */
static void *
serve (void *arg)
{
    bench_ceiling_t *self = arg;
    zmq_msg_t frames [4];
    while (!atomic_load (&self->stop)) {
        zmq_pollitem_t item = { self->router, 0, ZMQ_POLLIN, 0 };
        if (zmq_poll (&item, 1, 100) <= 0)
            continue;
        int n = 0, more = 1;
        while (more) {
            zmq_msg_t m;
            zmq_msg_init (&m);
            if (zmq_msg_recv (&m, self->router, 0) < 0) {
                zmq_msg_close (&m);
                break;
            }
            more = zmq_msg_more (&m);
            if (n < 4) {
                zmq_msg_init (&frames [n]);
                zmq_msg_move (&frames [n++], &m);
            }
            zmq_msg_close (&m);
        }
        if (n == 4) {
            zmq_msg_send (&frames [0], self->router, ZMQ_SNDMORE);
            zmq_send (self->router, "OK", 2, ZMQ_SNDMORE);
            zmq_msg_send (&frames [2], self->router, ZMQ_SNDMORE);
            zmq_send (self->router, REPLY, sizeof REPLY - 1, 0);
            zmq_msg_close (&frames [1]);
            zmq_msg_close (&frames [3]);
        }
        else
            for (int i = 0; i < n; i++)
                zmq_msg_close (&frames [i]);
    }
    return NULL;
}

bench_ceiling_t *
bench_ceiling_start (void *zmq_ctx, char *err, size_t err_len)
{
    bench_ceiling_t *self = calloc (1, sizeof *self);
    self->router = zmq_socket (zmq_ctx, ZMQ_ROUTER);
    int hwm = 0, linger = 0;
    zmq_setsockopt (self->router, ZMQ_SNDHWM, &hwm, sizeof hwm);
    zmq_setsockopt (self->router, ZMQ_RCVHWM, &hwm, sizeof hwm);
    zmq_setsockopt (self->router, ZMQ_LINGER, &linger, sizeof linger);
    size_t len = sizeof self->endpoint;
    if (zmq_bind (self->router, "tcp://127.0.0.1:*") != 0
        || zmq_getsockopt (self->router, ZMQ_LAST_ENDPOINT, self->endpoint, &len) != 0
        || pthread_create (&self->thread, NULL, serve, self) != 0) {
        snprintf (err, err_len, "the ceiling's ROUTER: %s", zmq_strerror (zmq_errno ()));
        zmq_close (self->router);
        free (self);
        return NULL;
    }
    return self;
}

const char *bench_ceiling_endpoint (const bench_ceiling_t *self) { return self->endpoint; }

void
bench_ceiling_stop (bench_ceiling_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    bench_ceiling_t *self = *self_p;
    atomic_store (&self->stop, true);
    pthread_join (self->thread, NULL);
    zmq_close (self->router);
    free (self);
    *self_p = NULL;
}
