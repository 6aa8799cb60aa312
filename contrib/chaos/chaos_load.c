/*  chaos_load — the clients; see chaos_load.h.
 *
 *  A request id is 6 bytes: the event's index (32 bits) and the attempt
 *  (16 bits), little-endian. A reply to an earlier attempt still counts:
 *  an OK acknowledges the event whichever attempt it answers (a PUT that
 *  reached dlqd just before a kill can be answered by the next dlqd
 *  after the resend went out); an ERR counts only for the attempt in
 *  flight.
 *
 *  The socket's monitor (inproc PAIR) reports ZMQ_EVENT_DISCONNECTED once
 *  the connection's engine is gone: what was sent before may have been
 *  lost on the way, what is sent after waits in the socket's pipe for
 *  the next connection. So everything in flight when the event is read
 *  is sent again; a PUT that went out between the loss and the event is
 *  then sent twice, and answered twice (the second "duplicate":true).
 */
#include "chaos_load.h"

#include "chaos_gateway.h"
#include "dlq_alloc.h"
#include "dlq_json.h"
#include "dlq_time.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#define RID_LEN         6
#define POLL_MAX_MS     20
#define CODE_UNAVAILABLE "UNAVAILABLE"

typedef struct {
    uint32_t event;
    uint16_t attempt;
    int64_t  sent_ms;
    bool     used;
} chaos_slot_t;

typedef struct chaos_client chaos_client_t;

struct chaos_load {
    chaos_load_options_t options;
    chaos_load_live_t    live;
    atomic_bool          stop;
    chaos_client_t      *clients;
};

struct chaos_client {
    chaos_load_t        *load;
    int                  index;
    pthread_t            thread;
    bool                 started;
    void                *sock;
    void                *monitor;
    chaos_slot_t        *slots;
    int                  in_flight;
    chaos_load_result_t  result;
};

/* ------------------------------------------------------------------ */
/*  Requests                                                            */
/* ------------------------------------------------------------------ */

static bool
chaos_load_send (chaos_client_t *c, chaos_slot_t *slot)
{
    chaos_event_t *e = &c->load->options.events->items [slot->event];
    unsigned char rid [RID_LEN];
    for (int i = 0; i < 4; i++)
        rid [i] = (unsigned char) (slot->event >> (8 * i));
    rid [4] = (unsigned char) slot->attempt;
    rid [5] = (unsigned char) (slot->attempt >> 8);
    slot->sent_ms = dlq_time_mono_ms ();
    e->attempts++;
    c->result.puts++;
    return zmq_send (c->sock, "PUT", 3, ZMQ_SNDMORE) >= 0
           && zmq_send (c->sock, rid, RID_LEN, ZMQ_SNDMORE) >= 0
           && zmq_send (c->sock, e->body, e->body_len, 0) >= 0;
}

static bool
chaos_load_send_new (chaos_client_t *c, uint32_t event)
{
    int window = c->load->options.window;
    for (int s = 0; s < window; s++) {
        chaos_slot_t *slot = &c->slots [s];
        if (slot->used)
            continue;
        *slot = (chaos_slot_t) { .event = event, .attempt = 1, .used = true };
        c->load->options.events->items [event].slot = (uint16_t) (s + 1);
        c->in_flight++;
        c->result.sent++;
        return chaos_load_send (c, slot);
    }
    return false;
}

/* Send the PUT in slot again: the attempt before may have been lost. */
static bool
chaos_load_resend (chaos_client_t *c, chaos_slot_t *slot)
{
    c->load->options.events->items [slot->event].uncertain = true;
    slot->attempt++;
    return chaos_load_send (c, slot);
}

static void
chaos_load_release (chaos_client_t *c, chaos_event_t *e)
{
    if (!e->slot)
        return;
    c->slots [e->slot - 1].used = false;
    e->slot = 0;
    c->in_flight--;
}

/* ------------------------------------------------------------------ */
/*  Replies                                                             */
/* ------------------------------------------------------------------ */

/* The "code" of an ERR body, in code (cut to code_len - 1). */
static void
chaos_load_code (const char *body, size_t len, char *code, size_t code_len)
{
    code [0] = '\0';
    dlq_json_doc_t *doc = NULL;
    if (dlq_json_parse (body, len, &doc, NULL) != DLQ_JSON_OK)
        return;
    const dlq_json_value_t *v = dlq_json_get (dlq_json_root (doc), "code");
    if (v && v->type == DLQ_JSON_STRING)
        snprintf (code, code_len, "%.*s", (int) v->len, v->str);
    dlq_json_doc_destroy (&doc);
}

/* True when an OK body says "duplicate":true. */
static bool
chaos_load_duplicate (const char *body, size_t len)
{
    dlq_json_doc_t *doc = NULL;
    if (dlq_json_parse (body, len, &doc, NULL) != DLQ_JSON_OK)
        return false;
    const dlq_json_value_t *v = dlq_json_get (dlq_json_root (doc), "duplicate");
    bool duplicate = v && v->type == DLQ_JSON_TRUE;
    dlq_json_doc_destroy (&doc);
    return duplicate;
}

static void
chaos_load_ok (chaos_client_t *c, chaos_event_t *e, const char *body, size_t len)
{
    chaos_load_live_t *live = &c->load->live;
    if (chaos_load_duplicate (body, len))
        e->dup_acked = true;
    if (e->acked) {
        c->result.late_replies++;
        return;
    }
    e->acked = true;
    e->refused = false;
    e->rejected = false;
    atomic_fetch_add (&live->acks, 1);
    atomic_store (&live->last_ack_ns, (long long) dlq_time_mono_ns ());
    chaos_load_release (c, e);
}

static void
chaos_load_err (chaos_client_t *c, chaos_event_t *e, uint16_t attempt, const char *body, size_t len)
{
    char code [64];
    chaos_load_code (body, len, code, sizeof code);
    bool unavailable = strcmp (code, CODE_UNAVAILABLE) == 0;
    if (unavailable)
        atomic_fetch_add (&c->load->live.unavailable, 1);
    if (e->acked || !e->slot || c->slots [e->slot - 1].attempt != attempt) {
        c->result.late_replies++;
        return;
    }
    if (unavailable) {
        e->refused = true;
    } else {
        e->rejected = true;
        if (!c->result.first_rejection [0])
            snprintf (c->result.first_rejection, sizeof c->result.first_rejection, "%s: %.*s",
                      e->id, (int) len, body);
    }
    chaos_load_release (c, e);
}

/* Take every reply waiting on the socket. */
static void
chaos_load_replies (chaos_client_t *c)
{
    const chaos_load_options_t *o = &c->load->options;
    for (;;) {
        bool ok = false;
        unsigned char rid [RID_LEN + 1];
        size_t rid_len = 0, len = 0;
        char *body = NULL;
        if (!chaos_gateway_receive (c->sock, 0, &ok, rid, sizeof rid, &rid_len, &body, &len))
            return;
        atomic_fetch_add (&c->load->live.replies, 1);
        uint32_t event = UINT32_MAX;
        uint16_t attempt = 0;
        if (rid_len == RID_LEN) {
            event = 0;
            for (int i = 0; i < 4; i++)
                event |= (uint32_t) rid [i] << (8 * i);
            attempt = (uint16_t) (rid [4] | rid [5] << 8);
        }
        if (event >= o->events->count || (int) (event % (uint32_t) o->clients) != c->index) {
            c->result.bad_replies++;
        } else if (ok) {
            chaos_load_ok (c, &o->events->items [event], body, len);
        } else {
            chaos_load_err (c, &o->events->items [event], attempt, body, len);
        }
        free (body);
    }
}

/* Read the monitor's events: on a lost connection, resend what is in
 * flight. */
static void
chaos_load_monitor (chaos_client_t *c)
{
    for (;;) {
        zmq_msg_t first, second;
        zmq_msg_init (&first);
        if (zmq_msg_recv (&first, c->monitor, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close (&first);
            return;
        }
        uint16_t event = 0;
        if (zmq_msg_size (&first) >= 2)
            memcpy (&event, zmq_msg_data (&first), sizeof event);
        zmq_msg_close (&first);
        zmq_msg_init (&second);
        zmq_msg_recv (&second, c->monitor, 0);
        zmq_msg_close (&second);
        if (event != ZMQ_EVENT_DISCONNECTED)
            continue;
        c->result.disconnects++;
        for (int s = 0; s < c->load->options.window; s++)
            if (c->slots [s].used) {
                c->result.resent_disconnect++;
                chaos_load_resend (c, &c->slots [s]);
            }
    }
}

static void
chaos_load_timeouts (chaos_client_t *c, int64_t now)
{
    for (int s = 0; s < c->load->options.window; s++) {
        chaos_slot_t *slot = &c->slots [s];
        if (slot->used && now - slot->sent_ms >= c->load->options.reply_timeout_ms) {
            c->result.resent_timeout++;
            chaos_load_resend (c, slot);
        }
    }
}

/* ------------------------------------------------------------------ */
/*  A client                                                            */
/* ------------------------------------------------------------------ */

static void *
chaos_load_client (void *arg)
{
    chaos_client_t *c = arg;
    const chaos_load_options_t *o = &c->load->options;
    double per_ms = (double) o->events->count / (double) o->clients / (double) (o->load_ms > 0 ? o->load_ms : 1);
    int64_t start = dlq_time_mono_ms (), resolve_by = 0;
    size_t next = (size_t) c->index, sent = 0;
    bool sending = true;
    zmq_pollitem_t items [2] = {
        { .socket = c->sock, .events = ZMQ_POLLIN },
        { .socket = c->monitor, .events = ZMQ_POLLIN },
    };
    for (;;) {
        int64_t now = dlq_time_mono_ms ();
        int64_t elapsed = now - start;
        if (sending && (next >= o->events->count || atomic_load (&c->load->stop)
                        || elapsed >= o->load_ms + o->resolve_ms)) {
            sending = false;
            resolve_by = now + o->resolve_ms;
        }
        if (!sending && (c->in_flight == 0 || now >= resolve_by || atomic_load (&c->load->stop)))
            break;
        int wait = POLL_MAX_MS;
        if (sending) {
            size_t due = (size_t) ((double) (elapsed < o->load_ms ? elapsed : o->load_ms) * per_ms) + 1;
            while (c->in_flight < o->window && next < o->events->count && sent < due) {
                chaos_load_send_new (c, (uint32_t) next);
                next += (size_t) o->clients;
                sent++;
            }
            if (sent >= due)
                wait = 1 + (int) ((double) (sent + 1 - due) / (per_ms > 0 ? per_ms : 1));
            if (wait > POLL_MAX_MS)
                wait = POLL_MAX_MS;
        }
        chaos_load_timeouts (c, now);
        if (zmq_poll (items, 2, wait) < 0)
            continue;
        if (items [1].revents & ZMQ_POLLIN)
            chaos_load_monitor (c);
        if (items [0].revents & ZMQ_POLLIN)
            chaos_load_replies (c);
    }
    for (int s = 0; s < o->window; s++)
        if (c->slots [s].used) {
            c->result.unresolved++;
            o->events->items [c->slots [s].event].uncertain = true;
        }
    return NULL;
}

static void
chaos_load_close_client (chaos_client_t *c)
{
    if (c->sock)
        zmq_socket_monitor (c->sock, NULL, 0);
    if (c->monitor)
        zmq_close (c->monitor);
    if (c->sock)
        zmq_close (c->sock);
    free (c->slots);
}

/* The client's socket and monitor, connected. */
static bool
chaos_load_open_client (chaos_load_t *self, chaos_client_t *c, char *err, size_t err_len)
{
    char monitor [64];
    snprintf (monitor, sizeof monitor, "inproc://dlqd-chaos-monitor-%p-%d", (void *) self, c->index);
    c->sock = zmq_socket (self->options.zmq_ctx, ZMQ_DEALER);
    int linger = 0, reconnect = 20, hwm = 100000;
    bool ok = c->sock
              && zmq_setsockopt (c->sock, ZMQ_LINGER, &linger, sizeof linger) == 0
              && zmq_setsockopt (c->sock, ZMQ_RECONNECT_IVL, &reconnect, sizeof reconnect) == 0
              && zmq_setsockopt (c->sock, ZMQ_SNDHWM, &hwm, sizeof hwm) == 0
              && zmq_setsockopt (c->sock, ZMQ_RCVHWM, &hwm, sizeof hwm) == 0
              && zmq_socket_monitor (c->sock, monitor, ZMQ_EVENT_DISCONNECTED) == 0;
    if (ok) {
        c->monitor = zmq_socket (self->options.zmq_ctx, ZMQ_PAIR);
        ok = c->monitor && zmq_connect (c->monitor, monitor) == 0
             && zmq_connect (c->sock, self->options.endpoint) == 0;
    }
    if (!ok)
        snprintf (err, err_len, "client %d: %s", c->index, zmq_strerror (zmq_errno ()));
    return ok;
}

chaos_load_t *
chaos_load_start (const chaos_load_options_t *options, char *err, size_t err_len)
{
    chaos_load_t *self = dlq_calloc (1, sizeof *self);
    self->options = *options;
    self->clients = dlq_calloc ((size_t) options->clients, sizeof *self->clients);
    for (int i = 0; i < options->clients; i++) {
        chaos_client_t *c = &self->clients [i];
        c->load = self;
        c->index = i;
        c->slots = dlq_calloc ((size_t) options->window, sizeof *c->slots);
        if (!chaos_load_open_client (self, c, err, err_len))
            break;
        c->started = pthread_create (&c->thread, NULL, chaos_load_client, c) == 0;
        if (!c->started) {
            snprintf (err, err_len, "client %d: cannot start its thread", i);
            break;
        }
    }
    if (self->clients [options->clients - 1].started)
        return self;
    chaos_load_stop (self);
    chaos_load_result_t ignored;
    chaos_load_join (&self, &ignored);
    return NULL;
}

chaos_load_live_t *
chaos_load_live (chaos_load_t *self)
{
    return &self->live;
}

void
chaos_load_stop (chaos_load_t *self)
{
    atomic_store (&self->stop, true);
}

static void
chaos_load_add (chaos_load_result_t *sum, const chaos_load_result_t *r)
{
    sum->sent += r->sent;
    sum->puts += r->puts;
    sum->unresolved += r->unresolved;
    sum->disconnects += r->disconnects;
    sum->resent_disconnect += r->resent_disconnect;
    sum->resent_timeout += r->resent_timeout;
    sum->late_replies += r->late_replies;
    sum->bad_replies += r->bad_replies;
    if (!sum->first_rejection [0])
        memcpy (sum->first_rejection, r->first_rejection, sizeof sum->first_rejection);
}

void
chaos_load_join (chaos_load_t **self_p, chaos_load_result_t *result)
{
    chaos_load_t *self = *self_p;
    memset (result, 0, sizeof *result);
    for (int i = 0; i < self->options.clients; i++) {
        chaos_client_t *c = &self->clients [i];
        if (c->started)
            pthread_join (c->thread, NULL);
        chaos_load_add (result, &c->result);
        chaos_load_close_client (c);
    }
    const chaos_events_t *events = self->options.events;
    for (size_t i = 0; i < events->count; i++) {
        const chaos_event_t *e = &events->items [i];
        result->acked += e->acked;
        result->dup_acked += e->acked && e->dup_acked;
        result->refused += !e->acked && e->refused;
        result->rejected += !e->acked && e->rejected;
    }
    free (self->clients);
    free (self);
    *self_p = NULL;
}
