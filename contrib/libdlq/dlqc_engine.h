/*  dlqc_engine — the request engine of a libdlq client (internal, not
 *  installed).
 *
 *  Owns the DEALER socket, the window of outstanding requests and the
 *  queue of completed pipelined requests, and moves requests along:
 *
 *      submit  -> UNSENT --send--> SENT --reply--> finished
 *                  ^                 |
 *                  +-- reconnect ----+ (a SENT request timed out)
 *
 *  Each dlqc_engine_step() expires overdue requests, sends what the socket
 *  takes, waits (until a deadline, a reply, or the socket becoming
 *  writable) and takes in every reply that arrived. A reply is matched to
 *  its request by request id (dlqc_table.h); one that matches nothing
 *  outstanding is dropped. When a SENT request's reply is overdue, the
 *  socket is replaced by a new one (closing the connection, so nothing
 *  that was on it can answer any more) and every SENT request is queued
 *  again, under a new request id; a request whose reply was overdue more
 *  than `retries` times, or that could not be sent for a whole timeout
 *  because no connection was up, is finished with TIMEOUT or TRANSPORT.
 *
 *  A finished pipelined request goes to the queue (and its slot is freed); a
 *  finished blocking request stays in its slot, DONE, until the caller
 *  releases it.
 */
#ifndef DLQC_ENGINE_H
#define DLQC_ENGINE_H

#include "dlqc_curve.h"
#include "dlqc_queue.h"
#include "dlqc_table.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Wait without an end of our own (deadlines of requests still apply). */
#define DLQC_FOREVER INT64_MAX

typedef struct {
    void         *ctx;
    bool          own_ctx;          /* terminate ctx in fini */
    char         *endpoint;
    dlqc_curve_t  curve;            /* set on every socket opened */
    void         *sock;             /* NULL only after a failed reopen */
    int           timeout_ms;
    int           retries;
    uint64_t      next_seq;         /* last sequence number used */
    dlqc_table_t  table;
    dlqc_queue_t  done;             /* finished pipelined requests */
    size_t        async_pending;    /* pipelined requests submitted, not yet popped */
    uint64_t      ignored;          /* replies dropped: no outstanding request, or malformed */
} dlqc_engine_t;

/* Set up an engine on ctx (terminated in fini when own_ctx) connecting to
 * endpoint with a window of window slots. False with errno set when the
 * socket cannot be made or the endpoint is malformed (the engine is then
 * left cleaned up, ctx not terminated). */
bool dlqc_engine_init (dlqc_engine_t *engine, void *ctx, bool own_ctx, const char *endpoint,
                       const dlqc_curve_t *curve, uint32_t window);

/* Close the socket, drop everything outstanding, free it all. */
void dlqc_engine_fini (dlqc_engine_t *engine);

/* Replace the window by one of window slots; only when no slot is in use.
 * False (nothing changed) otherwise. */
bool dlqc_engine_resize (dlqc_engine_t *engine, uint32_t window);

/* Queue a request (body copied) and send it if the socket takes it now.
 * Returns its slot, or DLQC_NO_SLOT when the window is full. */
uint32_t dlqc_engine_submit (dlqc_engine_t *engine, const char *verb, const void *body,
                             size_t len, bool blocking, uint64_t tag);

/* One turn of the engine; waits at most until until_ms on the monotonic
 * clock (dlqc_mono_ms; DLQC_FOREVER: until something happens or a
 * deadline passes). Returns at once when nothing is in flight. */
void dlqc_engine_step (dlqc_engine_t *engine, int64_t until_ms);

/* Number of requests queued or on the wire. */
uint32_t dlqc_engine_in_flight (const dlqc_engine_t *engine);

/* Number of free slots in the window. */
uint32_t dlqc_engine_free_slots (const dlqc_engine_t *engine);

/* Monotonic clock in ms and in us. */
int64_t dlqc_mono_ms (void);
int64_t dlqc_mono_us (void);

#endif
