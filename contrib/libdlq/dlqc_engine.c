/*  dlqc_engine — sends, resends and matches the requests of a libdlq
 *  client over its DEALER socket.
 */
#include "dlqc_engine.h"
#include "dlq_alloc.h"
#include "dlqc_wire.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

int64_t
dlqc_mono_us (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t
dlqc_mono_ms (void)
{
    return dlqc_mono_us () / 1000;
}

static char *
format (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

static char *
format (const char *fmt, ...)
{
    va_list args;
    va_start (args, fmt);
    int len = vsnprintf (NULL, 0, fmt, args);
    va_end (args);
    char *text = dlq_malloc ((size_t) (len > 0 ? len : 0) + 1);
    va_start (args, fmt);
    vsnprintf (text, (size_t) (len > 0 ? len : 0) + 1, fmt, args);
    va_end (args);
    return text;
}

bool
dlqc_engine_init (dlqc_engine_t *engine, void *ctx, bool own_ctx, const char *endpoint,
                  const dlqc_curve_t *curve, uint32_t window)
{
    memset (engine, 0, sizeof *engine);
    if (curve)
        engine->curve = *curve;
    engine->sock = dlqc_wire_open (ctx, endpoint, &engine->curve);
    if (!engine->sock)
        return false;
    engine->ctx = ctx;
    engine->own_ctx = own_ctx;
    engine->endpoint = dlq_strdup (endpoint);
    engine->timeout_ms = DLQ_CLIENT_DEFAULT_TIMEOUT_MS;
    engine->retries = DLQ_CLIENT_DEFAULT_RETRIES;
    dlqc_table_init (&engine->table, window);
    dlqc_queue_init (&engine->done);
    return true;
}

void
dlqc_engine_fini (dlqc_engine_t *engine)
{
    dlqc_wire_close (&engine->sock);
    if (engine->own_ctx && engine->ctx)
        zmq_ctx_term (engine->ctx);
    dlqc_table_fini (&engine->table);
    dlqc_queue_fini (&engine->done);
    free (engine->endpoint);
    memset (engine, 0, sizeof *engine);         /* the secret key too */
}

bool
dlqc_engine_resize (dlqc_engine_t *engine, uint32_t window)
{
    if (dlqc_table_count (&engine->table, DLQC_FREE) != engine->table.capacity)
        return false;
    dlqc_table_fini (&engine->table);
    dlqc_table_init (&engine->table, window);
    return true;
}

uint32_t
dlqc_engine_in_flight (const dlqc_engine_t *engine)
{
    return dlqc_table_count (&engine->table, DLQC_UNSENT) + dlqc_table_count (&engine->table, DLQC_SENT);
}

uint32_t
dlqc_engine_free_slots (const dlqc_engine_t *engine)
{
    return dlqc_table_count (&engine->table, DLQC_FREE);
}

/* End a request: a pipelined one goes to the completion queue and frees
 * its slot; a blocking one keeps its outcome in the slot (DONE). Takes
 * ownership of body and message. */
static void
finish (dlqc_engine_t *engine, uint32_t slot, dlq_client_result_t result,
        char *body, size_t body_len, char *message)
{
    dlqc_request_t *r = &engine->table.slots [slot];
    dlqc_outcome_t outcome = {
        result, body, body_len, message, dlqc_mono_us () - r->submitted_us
    };
    if (r->blocking) {
        dlqc_outcome_clear (&r->outcome);
        r->outcome = outcome;
        dlqc_table_move (&engine->table, slot, DLQC_DONE);
        return;
    }
    dlqc_queue_push (&engine->done, r->tag, r->verb, &outcome);
    dlqc_table_release (&engine->table, slot);
}

/* Finish every queued and sent request with the same failure. */
static void
fail_all (dlqc_engine_t *engine, dlq_client_result_t result, const char *message)
{
    dlqc_table_requeue_sent (&engine->table);
    uint32_t slot;
    while ((slot = dlqc_table_head (&engine->table, DLQC_UNSENT)) != DLQC_NO_SLOT)
        finish (engine, slot, result, NULL, 0, dlq_strdup (message));
}

/* Give every queued request a full timeout from now to be sent. */
static void
restart_unsent_deadlines (dlqc_engine_t *engine, int64_t now)
{
    dlqc_table_t *table = &engine->table;
    for (uint32_t slot = dlqc_table_head (table, DLQC_UNSENT); slot != DLQC_NO_SLOT;
         slot = table->slots [slot].next)
        table->slots [slot].deadline_ms = now + engine->timeout_ms;
}

/* Replace the socket by a new connection and queue every SENT request
 * again: whatever was on the old connection can no longer be answered. */
static void
reconnect (dlqc_engine_t *engine, int64_t now)
{
    dlqc_wire_close (&engine->sock);
    dlqc_table_requeue_sent (&engine->table);
    engine->sock = dlqc_wire_open (engine->ctx, engine->endpoint, &engine->curve);
    if (!engine->sock) {
        char *message = format ("cannot connect to %s: %s", engine->endpoint, zmq_strerror (errno));
        fail_all (engine, DLQ_CLIENT_ERR_TRANSPORT, message);
        free (message);
        return;
    }
    restart_unsent_deadlines (engine, now);
}

/* Finish the queued requests that could not be sent for a whole timeout
 * (no connection came up). The UNSENT list is in deadline order. */
static void
expire_unsent (dlqc_engine_t *engine, int64_t now)
{
    uint32_t slot;
    while ((slot = dlqc_table_head (&engine->table, DLQC_UNSENT)) != DLQC_NO_SLOT
           && engine->table.slots [slot].deadline_ms <= now)
        finish (engine, slot, DLQ_CLIENT_ERR_TRANSPORT, NULL, 0,
                format ("no connection to %s within %d ms", engine->endpoint, engine->timeout_ms));
}

/* Deal with SENT requests whose reply is overdue: those out of retries
 * fail with TIMEOUT, the others are queued for a resend, which happens on
 * a new connection. The SENT list is in deadline order. */
static void
expire_sent (dlqc_engine_t *engine, int64_t now)
{
    dlqc_table_t *table = &engine->table;
    bool resend = false;
    uint32_t slot;
    while ((slot = dlqc_table_head (table, DLQC_SENT)) != DLQC_NO_SLOT
           && table->slots [slot].deadline_ms <= now) {
        dlqc_request_t *r = &table->slots [slot];
        r->timeouts++;
        if (r->timeouts > engine->retries)
            finish (engine, slot, DLQ_CLIENT_ERR_TIMEOUT, NULL, 0,
                    format ("no reply from %s within %d ms (%d attempts)",
                            engine->endpoint, engine->timeout_ms, r->timeouts));
        else {
            dlqc_table_move (table, slot, DLQC_UNSENT);
            resend = true;
        }
    }
    if (resend)
        reconnect (engine, now);
}

/* Send queued requests, oldest first, until the socket would block. Each
 * transmission gets a new sequence number, so a reply to an earlier one
 * of the same request is not taken for the reply to this one. */
static void
send_unsent (dlqc_engine_t *engine, int64_t now)
{
    dlqc_table_t *table = &engine->table;
    uint32_t slot;
    while ((slot = dlqc_table_head (table, DLQC_UNSENT)) != DLQC_NO_SLOT && engine->sock) {
        dlqc_request_t *r = &table->slots [slot];
        uint8_t id [DLQC_REQUEST_ID_LEN];
        r->seq = ++engine->next_seq;
        dlqc_table_encode_id (table, slot, id);
        dlqc_wire_result_t sent = dlqc_wire_send (engine->sock, r->verb, id, sizeof id,
                                                  r->body, r->body_len);
        if (sent == DLQC_WIRE_AGAIN)
            return;
        if (sent == DLQC_WIRE_FAILED) {
            finish (engine, slot, DLQ_CLIENT_ERR_TRANSPORT, NULL, 0,
                    format ("cannot send to %s: %s", engine->endpoint, zmq_strerror (errno)));
            reconnect (engine, now);
            continue;
        }
        r->deadline_ms = now + engine->timeout_ms;
        dlqc_table_move (table, slot, DLQC_SENT);
    }
}

static bool
frame_is (zmq_msg_t *frame, const char *text)
{
    size_t len = strlen (text);
    return zmq_msg_size (frame) == len && memcmp (zmq_msg_data (frame), text, len) == 0;
}

/* Match one reply to its request and finish that request with it. */
static void
take_reply (dlqc_engine_t *engine, dlqc_wire_reply_t *reply)
{
    uint32_t slot = dlqc_table_match (&engine->table, zmq_msg_data (&reply->id), zmq_msg_size (&reply->id));
    if (slot == DLQC_NO_SLOT) {
        engine->ignored++;
        return;
    }
    size_t len = zmq_msg_size (&reply->body);
    char *body = dlq_strndup (zmq_msg_data (&reply->body), len);
    if (frame_is (&reply->status, "OK"))
        finish (engine, slot, DLQ_CLIENT_OK, body, len, NULL);
    else
    if (frame_is (&reply->status, "ERR"))
        finish (engine, slot, DLQ_CLIENT_ERR_SERVER, body, len, NULL);
    else
        finish (engine, slot, DLQ_CLIENT_ERR_PROTOCOL, body, len,
                format ("reply status is neither OK nor ERR (%zu bytes)", zmq_msg_size (&reply->status)));
}

/* Take in every reply waiting on the socket. */
static void
drain (dlqc_engine_t *engine, int64_t now)
{
    while (engine->sock) {
        dlqc_wire_reply_t reply;
        dlqc_wire_result_t got = dlqc_wire_recv (engine->sock, &reply);
        if (got == DLQC_WIRE_AGAIN)
            return;
        if (got == DLQC_WIRE_MALFORMED) {
            engine->ignored++;
            continue;
        }
        if (got == DLQC_WIRE_FAILED) {
            reconnect (engine, now);
            return;
        }
        take_reply (engine, &reply);
        dlqc_wire_reply_close (&reply);
    }
}

uint32_t
dlqc_engine_submit (dlqc_engine_t *engine, const char *verb, const void *body,
                    size_t len, bool blocking, uint64_t tag)
{
    uint32_t slot = dlqc_table_acquire (&engine->table, NULL, 0);
    if (slot == DLQC_NO_SLOT)
        return DLQC_NO_SLOT;
    dlqc_request_t *r = &engine->table.slots [slot];
    r->body = dlq_strndup (body, len);
    r->body_len = len;
    r->verb = verb;
    r->blocking = blocking;
    r->tag = tag;
    r->submitted_us = dlqc_mono_us ();
    int64_t now = r->submitted_us / 1000;
    r->deadline_ms = now + engine->timeout_ms;
    if (!blocking)
        engine->async_pending++;
    if (!engine->sock)
        reconnect (engine, now);
    send_unsent (engine, now);
    return slot;
}

static int64_t
next_deadline (const dlqc_engine_t *engine)
{
    const dlqc_table_t *table = &engine->table;
    int64_t deadline = DLQC_FOREVER;
    uint32_t unsent = dlqc_table_head (table, DLQC_UNSENT);
    uint32_t sent = dlqc_table_head (table, DLQC_SENT);
    if (unsent != DLQC_NO_SLOT)
        deadline = table->slots [unsent].deadline_ms;
    if (sent != DLQC_NO_SLOT && table->slots [sent].deadline_ms < deadline)
        deadline = table->slots [sent].deadline_ms;
    return deadline;
}

void
dlqc_engine_step (dlqc_engine_t *engine, int64_t until_ms)
{
    int64_t now = dlqc_mono_ms ();
    expire_unsent (engine, now);
    expire_sent (engine, now);
    send_unsent (engine, now);
    if (dlqc_engine_in_flight (engine) == 0 || !engine->sock)
        return;
    int64_t wake = next_deadline (engine);
    if (until_ms < wake)
        wake = until_ms;
    long wait = wake > now ? (long) (wake - now) : 0;
    bool want_out = dlqc_table_count (&engine->table, DLQC_UNSENT) > 0;
    bool readable, writable;
    if (dlqc_wire_wait (engine->sock, want_out, wait, &readable, &writable) && readable)
        drain (engine, dlqc_mono_ms ());
    now = dlqc_mono_ms ();
    expire_unsent (engine, now);
    expire_sent (engine, now);
    send_unsent (engine, now);
}
