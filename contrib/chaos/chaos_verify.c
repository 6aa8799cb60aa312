/*  chaos_verify — GET everything, read every sink; see chaos_verify.h. */
#include "chaos_verify.h"

#include "chaos_amqp.h"
#include "chaos_gateway.h"
#include "chaos_jsonl.h"
#include "chaos_pg.h"
#include "dlq_buf.h"
#include "dlq_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#define WINDOW          256
#define REPLY_WAIT_MS   10000
#define RID_LEN         4

/* The reply to GET of event e: mark it stored and add what GET gave. */
static void
chaos_verify_found (chaos_event_t *e, const char *body, size_t len, chaos_tally_t *tally,
                    chaos_verify_get_t *out)
{
    dlq_json_doc_t *doc = NULL;
    if (dlq_json_parse (body, len, &doc, NULL) != DLQ_JSON_OK) {
        out->get_errors++;
        return;
    }
    const dlq_json_value_t *event = dlq_json_get (dlq_json_root (doc), "event");
    dlq_buf_t text = DLQ_BUF_INIT;
    if (event)
        dlq_json_write (&text, event);
    e->stored = true;
    e->get_altered = text.len != e->body_len || memcmp (text.data, e->body, e->body_len) != 0;
    chaos_tally_add (tally, e->id, strlen (e->id), text.data ? text.data : "", text.len);
    dlq_buf_free (&text);
    dlq_json_doc_destroy (&doc);
}

static void
chaos_verify_reply (chaos_events_t *events, bool ok, const unsigned char *rid, const char *body,
                    size_t len, chaos_tally_t *tally, chaos_verify_get_t *out)
{
    uint32_t i = (uint32_t) rid [0] | (uint32_t) rid [1] << 8 | (uint32_t) rid [2] << 16
                 | (uint32_t) rid [3] << 24;
    if (i >= events->count)
        return;
    out->gets++;
    if (ok) {
        chaos_verify_found (&events->items [i], body, len, tally, out);
    } else if (!strstr (body, "\"NOT_FOUND\"")) {
        out->get_errors++;
        if (!out->first_error [0])
            snprintf (out->first_error, sizeof out->first_error, "GET %s: %s", events->items [i].id, body);
    }
}

static bool
chaos_verify_send (void *sock, const chaos_event_t *e, uint32_t i)
{
    unsigned char rid [RID_LEN] = { (unsigned char) i, (unsigned char) (i >> 8),
                                    (unsigned char) (i >> 16), (unsigned char) (i >> 24) };
    char body [64];
    int len = snprintf (body, sizeof body, "{\"id\":\"%s\"}", e->id);
    return zmq_send (sock, "GET", 3, ZMQ_SNDMORE) >= 0 && zmq_send (sock, rid, RID_LEN, ZMQ_SNDMORE) >= 0
           && zmq_send (sock, body, (size_t) len, 0) >= 0;
}

bool
chaos_verify_get (void *zmq_ctx, const char *endpoint, chaos_events_t *events, chaos_tally_t *tally,
                  chaos_verify_get_t *out, char *err, size_t err_len)
{
    memset (out, 0, sizeof *out);
    void *sock = chaos_gateway_connect (zmq_ctx, endpoint);
    if (!sock) {
        snprintf (err, err_len, "cannot connect to %s", endpoint);
        return false;
    }
    size_t next = 0, in_flight = 0;
    bool ok = true;
    for (;;) {
        while (in_flight < WINDOW && next < events->count) {
            if (events->items [next].attempts && chaos_verify_send (sock, &events->items [next], (uint32_t) next))
                in_flight++;
            next++;
        }
        if (in_flight == 0)
            break;
        bool reply_ok = false;
        unsigned char rid [RID_LEN];
        size_t rid_len = 0, len = 0;
        char *body = NULL;
        if (!chaos_gateway_receive (sock, REPLY_WAIT_MS, &reply_ok, rid, sizeof rid, &rid_len, &body, &len)) {
            snprintf (err, err_len, "GET: no reply in %d ms (%zu in flight)", REPLY_WAIT_MS, in_flight);
            ok = false;
            break;
        }
        in_flight--;
        if (rid_len == RID_LEN)
            chaos_verify_reply (events, reply_ok, rid, body, len, tally, out);
        free (body);
    }
    zmq_close (sock);
    for (size_t i = 0; i < events->count; i++) {
        const chaos_event_t *e = &events->items [i];
        out->refused_stored += e->refused && !e->acked && !e->uncertain && e->stored;
    }
    tally->read = ok;
    if (!ok)
        snprintf (tally->error, sizeof tally->error, "%s", err);
    return ok;
}

void
chaos_verify_sinks (const chaos_verify_sinks_t *where, chaos_tally_t *pg, size_t *pg_duplicate_rows,
                    chaos_tally_t *amqp, chaos_tally_t *kafka, chaos_tally_t *jsonl)
{
    size_t count = 0;
    pg->read = chaos_pg_read (where->pg_conninfo, where->pg_table, chaos_tally_add_record, pg, &count,
                              pg_duplicate_rows, pg->error, sizeof pg->error);
    amqp->read = chaos_amqp_read (where->amqp_url, where->amqp_queue, where->timeout_ms,
                                  chaos_tally_add_record, amqp, &count, amqp->error, sizeof amqp->error);
    kafka->read = true;
    for (int s = 0; s < CHAOS_EVENTS_STREAMS && kafka->read; s++)
        kafka->read = chaos_kafka_read (where->kafka, where->kafka_topics [s], where->kafka_partitions,
                                        where->timeout_ms, chaos_tally_add_record, kafka, &count,
                                        kafka->error, sizeof kafka->error);
    jsonl->read = chaos_jsonl_read (where->jsonl_path, where->jsonl_keep, chaos_tally_add_record, jsonl,
                                    &count, jsonl->error, sizeof jsonl->error);
}
