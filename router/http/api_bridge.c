/*  api_bridge — API requests as wire-protocol requests on an inproc DEALER. */
#include "api_bridge.h"

#include "dlq_alloc.h"
#include "dlq_time.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

struct dlq_api_bridge {
    pthread_mutex_t lock;
    void           *dealer;
    int             timeout_ms;
    uint64_t        next_id;
    atomic_bool     closing;        /* the gateway is going: calls give up */
};

#define WAIT_SLICE_MS 100           /* how often a waiting call looks at closing */

dlq_api_bridge_t *
dlq_api_bridge_new (void *zmq_ctx, const char *endpoint, int timeout_ms)
{
    void *dealer = zmq_socket (zmq_ctx, ZMQ_DEALER);
    int linger = 0;
    zmq_setsockopt (dealer, ZMQ_LINGER, &linger, sizeof linger);
    if (zmq_connect (dealer, endpoint) != 0) {
        zmq_close (dealer);
        return NULL;
    }
    dlq_api_bridge_t *self = dlq_calloc (1, sizeof *self);
    pthread_mutex_init (&self->lock, NULL);
    self->dealer = dealer;
    self->timeout_ms = timeout_ms;
    return self;
}

bool dlq_api_bridge_closed (dlq_api_bridge_t *self) { return atomic_load (&self->closing); }

void
dlq_api_bridge_close (dlq_api_bridge_t *self)
{
    if (self)
        atomic_store (&self->closing, true);
}

void
dlq_api_bridge_destroy (dlq_api_bridge_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    zmq_close ((*self_p)->dealer);
    pthread_mutex_destroy (&(*self_p)->lock);
    free (*self_p);
    *self_p = NULL;
}

/* Read one whole reply: its status, id and body (more frames are dropped).
 * False when none came within wait_ms. */
static bool
receive (dlq_api_bridge_t *self, int wait_ms, bool *ok, char *id, size_t id_len, dlq_buf_t *body)
{
    zmq_pollitem_t item = { self->dealer, 0, ZMQ_POLLIN, 0 };
    if (zmq_poll (&item, 1, wait_ms) <= 0)
        return false;
    int part = 0, more = 1;
    while (more) {
        zmq_msg_t frame;
        zmq_msg_init (&frame);
        if (zmq_msg_recv (&frame, self->dealer, 0) < 0) {
            zmq_msg_close (&frame);
            if (zmq_errno () == EINTR)
                continue;
            return false;
        }
        more = zmq_msg_more (&frame);
        size_t n = zmq_msg_size (&frame);
        if (part == 0)
            *ok = n == 2 && memcmp (zmq_msg_data (&frame), "OK", 2) == 0;
        else
        if (part == 1)
            snprintf (id, id_len, "%.*s", (int) n, (const char *) zmq_msg_data (&frame));
        else
        if (part == 2) {
            dlq_buf_reset (body);
            dlq_buf_append (body, zmq_msg_data (&frame), n);
        }
        part++;
        zmq_msg_close (&frame);
    }
    return part >= 3;
}

bool
dlq_api_bridge_call (dlq_api_bridge_t *self, const char *verb, const char *body, size_t len, const char *token,
                     size_t token_len, bool *ok, dlq_buf_t *reply)
{
    pthread_mutex_lock (&self->lock);
    char want [32], got [64];
    snprintf (want, sizeof want, "api-%llu", (unsigned long long) ++self->next_id);
    bool sent = zmq_send (self->dealer, verb, strlen (verb), ZMQ_SNDMORE) >= 0
             && zmq_send (self->dealer, want, strlen (want), ZMQ_SNDMORE) >= 0
             && zmq_send (self->dealer, body, len, token ? ZMQ_SNDMORE : 0) >= 0
             && (!token || zmq_send (self->dealer, token, token_len, 0) >= 0);
    bool answered = false;
    int64_t deadline = dlq_time_mono_ms () + self->timeout_ms;
    while (sent && !answered && !atomic_load (&self->closing)) {
        int64_t left = deadline - dlq_time_mono_ms ();
        if (left <= 0)
            break;
        if (receive (self, left < WAIT_SLICE_MS ? (int) left : WAIT_SLICE_MS, ok, got, sizeof got, reply))
            answered = strcmp (got, want) == 0;     /* else: a late reply to a call that gave up */
    }
    pthread_mutex_unlock (&self->lock);
    return answered;
}
