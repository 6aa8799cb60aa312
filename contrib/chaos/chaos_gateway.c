/*  chaos_gateway — requests and STATS; see chaos_gateway.h. */
#include "chaos_gateway.h"

#include "dlq_alloc.h"
#include "dlq_json.h"
#include "dlq_time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#define REQUEST_TIMEOUT_MS 5000

void *
chaos_gateway_connect (void *zmq_ctx, const char *endpoint)
{
    void *sock = zmq_socket (zmq_ctx, ZMQ_DEALER);
    if (!sock)
        return NULL;
    int linger = 0, reconnect = 20, hwm = 100000;
    zmq_setsockopt (sock, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt (sock, ZMQ_RECONNECT_IVL, &reconnect, sizeof reconnect);
    zmq_setsockopt (sock, ZMQ_SNDHWM, &hwm, sizeof hwm);
    zmq_setsockopt (sock, ZMQ_RCVHWM, &hwm, sizeof hwm);
    if (zmq_connect (sock, endpoint) != 0) {
        zmq_close (sock);
        return NULL;
    }
    return sock;
}

/* Receive one frame into a new buffer; *more tells whether more follow. */
static bool
chaos_gateway_frame (void *sock, zmq_msg_t *msg, bool *more)
{
    zmq_msg_init (msg);
    if (zmq_msg_recv (msg, sock, 0) < 0) {
        zmq_msg_close (msg);
        return false;
    }
    *more = zmq_msg_more (msg);
    return true;
}

bool
chaos_gateway_receive (void *sock, int timeout_ms, bool *ok, unsigned char *id, size_t id_size,
                       size_t *id_len, char **body, size_t *body_len)
{
    zmq_pollitem_t item = { .socket = sock, .events = ZMQ_POLLIN };
    if (zmq_poll (&item, 1, timeout_ms) <= 0 || !(item.revents & ZMQ_POLLIN))
        return false;
    zmq_msg_t frames [3];
    size_t total = 0;
    bool more = true;
    while (more) {
        zmq_msg_t msg;
        if (!chaos_gateway_frame (sock, &msg, &more))
            break;
        if (total < 3)
            frames [total] = msg;
        else
            zmq_msg_close (&msg);
        total++;
    }
    bool good = total == 3 && !more;
    if (good) {
        size_t status_len = zmq_msg_size (&frames [0]);
        *ok = status_len == 2 && memcmp (zmq_msg_data (&frames [0]), "OK", 2) == 0;
        *id_len = zmq_msg_size (&frames [1]) < id_size ? zmq_msg_size (&frames [1]) : id_size;
        memcpy (id, zmq_msg_data (&frames [1]), *id_len);
        *body_len = zmq_msg_size (&frames [2]);
        *body = dlq_strndup (zmq_msg_data (&frames [2]), *body_len);
    }
    for (size_t i = 0; i < total && i < 3; i++)
        zmq_msg_close (&frames [i]);
    return good;
}

bool
chaos_gateway_request (void *sock, const char *verb, const char *body, int timeout_ms, bool *ok,
                       char **reply, size_t *reply_len)
{
    static _Thread_local unsigned serial;
    char rid [32];
    int rid_len = snprintf (rid, sizeof rid, "q%u", ++serial);
    if (zmq_send (sock, verb, strlen (verb), ZMQ_SNDMORE) < 0
        || zmq_send (sock, rid, (size_t) rid_len, ZMQ_SNDMORE) < 0
        || zmq_send (sock, body, strlen (body), 0) < 0)
        return false;
    int64_t deadline = dlq_time_mono_ms () + timeout_ms;
    for (;;) {
        int64_t left = deadline - dlq_time_mono_ms ();
        if (left <= 0)
            return false;
        unsigned char id [64];
        size_t id_len;
        if (!chaos_gateway_receive (sock, (int) left, ok, id, sizeof id, &id_len, reply, reply_len))
            continue;
        if (id_len == (size_t) rid_len && memcmp (id, rid, id_len) == 0)
            return true;
        free (*reply);
        *reply = NULL;
    }
}

static long long
chaos_gateway_number (const dlq_json_value_t *obj, const char *name)
{
    int64_t v = -1;
    if (!dlq_json_as_int64 (dlq_json_get (obj, name), &v))
        return -1;
    return (long long) v;
}

static void
chaos_gateway_text (const dlq_json_value_t *obj, const char *name, char *out, size_t len)
{
    const dlq_json_value_t *v = dlq_json_get (obj, name);
    snprintf (out, len, "%.*s", v && v->type == DLQ_JSON_STRING ? (int) v->len : 0,
              v && v->type == DLQ_JSON_STRING ? v->str : "");
}

bool
chaos_gateway_sink_stats (const char *stats, size_t len, const char *sink, chaos_sink_stats_t *out)
{
    memset (out, 0, sizeof *out);
    dlq_json_doc_t *doc = NULL;
    if (dlq_json_parse (stats, len, &doc, NULL) != DLQ_JSON_OK)
        return false;
    const dlq_json_value_t *s = dlq_json_get (dlq_json_get (dlq_json_root (doc), "sinks"), sink);
    bool found = s && s->type == DLQ_JSON_OBJECT;
    if (found) {
        out->backlog = chaos_gateway_number (s, "backlog");
        out->delivered = chaos_gateway_number (s, "delivered");
        out->retrying = chaos_gateway_number (s, "retrying");
        out->failed = chaos_gateway_number (s, "failed");
        out->redelivered = chaos_gateway_number (s, "redelivered");
        chaos_gateway_text (s, "circuit", out->circuit, sizeof out->circuit);
        chaos_gateway_text (s, "lastError", out->last_error, sizeof out->last_error);
        found = out->backlog >= 0 && out->retrying >= 0;
    }
    dlq_json_doc_destroy (&doc);
    return found;
}

/* The top-level "events" of a STATS reply (what the primary holds), or -1. */
static long long
chaos_gateway_events (const char *stats, size_t len)
{
    dlq_json_doc_t *doc = NULL;
    if (dlq_json_parse (stats, len, &doc, NULL) != DLQ_JSON_OK)
        return -1;
    long long events = chaos_gateway_number (dlq_json_root (doc), "events");
    dlq_json_doc_destroy (&doc);
    return events;
}

/* Whether one STATS reply shows every sink drained; err says why not. */
static bool
chaos_gateway_drained (const char *reply, size_t len, const char *const *sinks, size_t count,
                       chaos_sink_stats_t *out, char *err, size_t err_len)
{
    long long events = chaos_gateway_events (reply, len);
    bool drained = true;
    for (size_t i = 0; i < count; i++) {
        chaos_sink_stats_t *s = &out [i];
        if (!chaos_gateway_sink_stats (reply, len, sinks [i], s)) {
            snprintf (err, err_len, "STATS has no figures of sink %s", sinks [i]);
            drained = false;
        } else if (s->backlog > 0 || s->retrying > 0 || s->delivered + s->failed < events) {
            snprintf (err, err_len, "sink %s: backlog %lld, retrying %lld, delivered %lld of %lld events "
                                    "(last error: %s)", sinks [i], s->backlog, s->retrying, s->delivered,
                      events, s->last_error [0] ? s->last_error : "none");
            drained = false;
        }
    }
    return drained;
}

bool
chaos_gateway_drain (void *sock, const char *const *sinks, size_t count, int64_t deadline_ms,
                     int poll_ms, chaos_sink_stats_t *out, char *err, size_t err_len)
{
    snprintf (err, err_len, "no STATS reply");
    for (;;) {
        bool ok = false, drained = false;
        char *reply = NULL;
        size_t len = 0;
        if (chaos_gateway_request (sock, "STATS", "", REQUEST_TIMEOUT_MS, &ok, &reply, &len) && ok)
            drained = chaos_gateway_drained (reply, len, sinks, count, out, err, err_len);
        free (reply);
        if (drained)
            return true;
        if (dlq_time_mono_ms () + poll_ms > deadline_ms)
            return false;
        usleep ((useconds_t) poll_ms * 1000);
    }
}
