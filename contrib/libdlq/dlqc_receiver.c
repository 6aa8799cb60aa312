/*  dlqc_receiver — dlq_replay_receiver_t: a PULL socket on the replay
 *  endpoint, and the replayed events taken off it.
 */
#include "dlqc_receiver.h"
#include "dlqc_engine.h"
#include "dlq_alloc.h"
#include "dlqc_wire.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

struct dlq_replay_receiver {
    void *ctx;
    void *sock;
};

/* ---- life cycle ------------------------------------------------------ */

/* A PULL socket in ctx with LINGER 0, connected to endpoint; NULL with
 * errno set. */
static void *
open_pull (void *ctx, const char *endpoint, const dlqc_curve_t *curve)
{
    int linger = 0;
    void *sock = zmq_socket (ctx, ZMQ_PULL);
    if (!sock)
        return NULL;
    if (zmq_setsockopt (sock, ZMQ_LINGER, &linger, sizeof linger) == 0 && dlqc_curve_apply (curve, sock)
        && zmq_connect (sock, endpoint) == 0)
        return sock;
    int saved = errno;
    zmq_close (sock);
    errno = saved;
    return NULL;
}

static dlq_replay_receiver_t *
receiver_new (const char *endpoint, const dlqc_curve_t *curve)
{
    if (!endpoint) {
        errno = EINVAL;
        return NULL;
    }
    void *ctx = zmq_ctx_new ();
    if (!ctx)
        return NULL;
    void *sock = open_pull (ctx, endpoint, curve);
    if (!sock) {
        int saved = errno;
        zmq_ctx_term (ctx);
        errno = saved;
        return NULL;
    }
    dlq_replay_receiver_t *self = dlq_calloc (1, sizeof *self);
    self->ctx = ctx;
    self->sock = sock;
    return self;
}

dlq_replay_receiver_t *
dlq_replay_receiver_new (const char *endpoint)
{
    return receiver_new (endpoint, NULL);
}

dlq_replay_receiver_t *
dlq_replay_receiver_new_curve (const char *endpoint, const char *server_key, const char *client_cert,
                               char *err, size_t err_len)
{
    dlqc_curve_t curve;
    if (!dlqc_curve_load (&curve, server_key, client_cert, err, err_len))
        return NULL;
    dlq_replay_receiver_t *self = receiver_new (endpoint, &curve);
    dlqc_curve_done (&curve, self != NULL, endpoint, err, err_len);
    return self;
}

void
dlq_replay_receiver_destroy (dlq_replay_receiver_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_replay_receiver_t *self = *self_p;
    zmq_close (self->sock);
    zmq_ctx_term (self->ctx);
    free (self);
    *self_p = NULL;
}

/* ---- receiving ------------------------------------------------------- */

/* Copy one frame of len bytes into out as a string. */
static bool
take_id (const void *frame, size_t len, char out [DLQ_CLIENT_ID_SIZE])
{
    if (len == 0 || len >= DLQ_CLIENT_ID_SIZE || memchr (frame, '\0', len))
        return false;
    memcpy (out, frame, len);
    out [len] = '\0';
    return true;
}

bool
dlqc_receiver_take_ids (const void *job, size_t job_len, const void *id, size_t id_len,
                        char job_out [DLQ_CLIENT_ID_SIZE], char id_out [DLQ_CLIENT_ID_SIZE])
{
    return take_id (job, job_len, job_out) && take_id (id, id_len, id_out);
}

/* Hand the frames of a received message to the caller. */
static dlq_client_result_t
take_message (dlqc_wire_reply_t *message, char *job_out, char *id_out, char **event_out, size_t *len_out)
{
    zmq_msg_t *job = &message->status, *id = &message->id, *event = &message->body;
    if (!dlqc_receiver_take_ids (zmq_msg_data (job), zmq_msg_size (job), zmq_msg_data (id), zmq_msg_size (id),
                                 job_out, id_out))
        return DLQ_CLIENT_ERR_PROTOCOL;
    *event_out = dlq_strndup (zmq_msg_data (event), zmq_msg_size (event));
    if (len_out)
        *len_out = zmq_msg_size (event);
    return DLQ_CLIENT_OK;
}

/* Wait until the socket is readable or until_ms (DLQC_FOREVER: no end)
 * passes; false on timeout, or on failure with *failed set. */
static bool
wait_readable (void *sock, int64_t until_ms, bool *failed)
{
    while (true) {
        int64_t now = dlqc_mono_ms ();
        long wait = until_ms == DLQC_FOREVER ? -1 : (long) (until_ms > now ? until_ms - now : 0);
        bool readable, writable;
        if (dlqc_wire_wait (sock, false, wait, &readable, &writable))
            return readable;
        if (errno != EINTR) {
            *failed = true;
            return false;
        }
    }
}

dlq_client_result_t
dlq_replay_receiver_recv (dlq_replay_receiver_t *self, int timeout_ms, char job_out [DLQ_CLIENT_ID_SIZE],
                          char id_out [DLQ_CLIENT_ID_SIZE], char **event_out, size_t *len_out)
{
    if (!self || !job_out || !id_out || !event_out)
        return DLQ_CLIENT_ERR_ARGS;
    int64_t until = timeout_ms < 0 ? DLQC_FOREVER : dlqc_mono_ms () + timeout_ms;
    bool failed = false;
    while (wait_readable (self->sock, until, &failed)) {
        dlqc_wire_reply_t message;
        dlqc_wire_result_t got = dlqc_wire_recv (self->sock, &message);
        if (got == DLQC_WIRE_AGAIN)
            continue;
        if (got == DLQC_WIRE_MALFORMED)
            return DLQ_CLIENT_ERR_PROTOCOL;
        if (got == DLQC_WIRE_FAILED)
            return DLQ_CLIENT_ERR_TRANSPORT;
        dlq_client_result_t result = take_message (&message, job_out, id_out, event_out, len_out);
        dlqc_wire_reply_close (&message);
        return result;
    }
    return failed ? DLQ_CLIENT_ERR_TRANSPORT : DLQ_CLIENT_ERR_TIMEOUT;
}
