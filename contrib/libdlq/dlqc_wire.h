/*  dlqc_wire — libdlq's ZeroMQ layer (internal, not installed).
 *
 *  Opens the client's DEALER socket with the options libdlq relies on
 *  (see "Socket options" in dlq_client.h), sends one request as the three
 *  frames [verb][request-id][body] without ever blocking, and receives one
 *  reply as [status][request-id][body], refusing anything else.
 */
#ifndef DLQC_WIRE_H
#define DLQC_WIRE_H

#include "dlqc_curve.h"

#include <stdbool.h>
#include <stddef.h>
#include <zmq.h>

typedef enum {
    DLQC_WIRE_DONE,             /* sent / received */
    DLQC_WIRE_AGAIN,            /* would block: no connection to send to, or nothing to read */
    DLQC_WIRE_MALFORMED,        /* received a message that is not three frames (dropped) */
    DLQC_WIRE_FAILED            /* ZeroMQ failed; errno says why; the socket must be replaced */
} dlqc_wire_result_t;

/* A received reply: three frames, owned until dlqc_wire_reply_close. */
typedef struct {
    zmq_msg_t status;
    zmq_msg_t id;
    zmq_msg_t body;
} dlqc_wire_reply_t;

/* Create a DEALER socket in ctx (LINGER 0, IMMEDIATE 1, no high water
 * marks, the CURVE keys of curve when not NULL) and connect it to
 * endpoint. Returns the socket (close it with dlqc_wire_close) or NULL
 * with errno set. */
void *dlqc_wire_open (void *ctx, const char *endpoint, const dlqc_curve_t *curve);

/* Close a socket from dlqc_wire_open at once; accepts NULL, NULLs it. */
void dlqc_wire_close (void **sock_p);

/* Send [verb][id][body] without blocking: DONE, AGAIN when no connected
 * peer can take it now (nothing was sent), or FAILED. */
dlqc_wire_result_t dlqc_wire_send (void *sock, const char *verb, const void *id, size_t id_len,
                                   const void *body, size_t body_len);

/* Receive one message without blocking. DONE fills *reply (the caller
 * closes it); AGAIN when nothing is waiting; MALFORMED when a message of
 * other than three frames was read and dropped; FAILED otherwise. */
dlqc_wire_result_t dlqc_wire_recv (void *sock, dlqc_wire_reply_t *reply);

/* Release the frames of a reply from dlqc_wire_recv. */
void dlqc_wire_reply_close (dlqc_wire_reply_t *reply);

/* Wait up to timeout_ms (0: just look) until sock is readable, or also
 * writable when want_out; says which. False on interruption or error
 * (then both flags are false). */
bool dlqc_wire_wait (void *sock, bool want_out, long timeout_ms, bool *readable, bool *writable);

#endif
