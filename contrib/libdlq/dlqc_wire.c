/*  dlqc_wire — the DEALER socket of a libdlq client: options, framing. */
#include "dlqc_wire.h"

#include <errno.h>
#include <string.h>

static bool
set_int (void *sock, int option, int value)
{
    return zmq_setsockopt (sock, option, &value, sizeof value) == 0;
}

void *
dlqc_wire_open (void *ctx, const char *endpoint, const dlqc_curve_t *curve)
{
    void *sock = zmq_socket (ctx, ZMQ_DEALER);
    if (!sock)
        return NULL;
    if (set_int (sock, ZMQ_LINGER, 0)
    &&  set_int (sock, ZMQ_IMMEDIATE, 1)
    &&  set_int (sock, ZMQ_SNDHWM, 0)
    &&  set_int (sock, ZMQ_RCVHWM, 0)
    &&  dlqc_curve_apply (curve, sock)
    &&  zmq_connect (sock, endpoint) == 0)
        return sock;
    int saved = errno;
    zmq_close (sock);
    errno = saved;
    return NULL;
}

void
dlqc_wire_close (void **sock_p)
{
    if (sock_p && *sock_p) {
        zmq_close (*sock_p);
        *sock_p = NULL;
    }
}

/* Send the verb frame, the one that may meet EAGAIN: ZeroMQ admits a
 * multipart message as a whole, so once the first frame is queued the
 * others are too (an EAGAIN after that is a failure). */
dlqc_wire_result_t
dlqc_wire_send (void *sock, const char *verb, const void *id, size_t id_len,
                const void *body, size_t body_len)
{
    if (zmq_send (sock, verb, strlen (verb), ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0)
        return errno == EAGAIN ? DLQC_WIRE_AGAIN : DLQC_WIRE_FAILED;
    if (zmq_send (sock, id, id_len, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0
    ||  zmq_send (sock, body, body_len, ZMQ_DONTWAIT) < 0)
        return DLQC_WIRE_FAILED;
    return DLQC_WIRE_DONE;
}

static bool
more_follows (zmq_msg_t *frame)
{
    return zmq_msg_more (frame) != 0;
}

/* Read and drop the rest of a message that has too many frames. */
static dlqc_wire_result_t
drop_rest (void *sock)
{
    zmq_msg_t frame;
    bool more = true;
    zmq_msg_init (&frame);
    while (more) {
        if (zmq_msg_recv (&frame, sock, 0) < 0) {
            zmq_msg_close (&frame);
            return DLQC_WIRE_FAILED;
        }
        more = more_follows (&frame);
    }
    zmq_msg_close (&frame);
    return DLQC_WIRE_MALFORMED;
}

dlqc_wire_result_t
dlqc_wire_recv (void *sock, dlqc_wire_reply_t *reply)
{
    zmq_msg_t *frames [3] = { &reply->status, &reply->id, &reply->body };
    for (int i = 0; i < 3; i++)
        zmq_msg_init (frames [i]);
    for (int i = 0; i < 3; i++) {
        /* Only the first frame can be missing: the rest of a multipart
         * message arrives with it, so blocking there never waits. */
        if (zmq_msg_recv (frames [i], sock, i == 0 ? ZMQ_DONTWAIT : 0) < 0) {
            int again = i == 0 && errno == EAGAIN;
            dlqc_wire_reply_close (reply);
            return again ? DLQC_WIRE_AGAIN : DLQC_WIRE_FAILED;
        }
        bool last = i == 2;
        if (more_follows (frames [i]) == last) {
            bool extra = last;
            dlqc_wire_reply_close (reply);
            return extra ? drop_rest (sock) : DLQC_WIRE_MALFORMED;
        }
    }
    return DLQC_WIRE_DONE;
}

void
dlqc_wire_reply_close (dlqc_wire_reply_t *reply)
{
    zmq_msg_close (&reply->status);
    zmq_msg_close (&reply->id);
    zmq_msg_close (&reply->body);
}

bool
dlqc_wire_wait (void *sock, bool want_out, long timeout_ms, bool *readable, bool *writable)
{
    zmq_pollitem_t item = { sock, 0, (short) (ZMQ_POLLIN | (want_out ? ZMQ_POLLOUT : 0)), 0 };
    *readable = *writable = false;
    if (zmq_poll (&item, 1, timeout_ms) < 0)
        return false;
    *readable = (item.revents & ZMQ_POLLIN) != 0;
    *writable = (item.revents & ZMQ_POLLOUT) != 0;
    return true;
}
