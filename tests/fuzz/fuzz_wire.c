/*  fuzz_wire — the wire frames of every verb, through the real gateway
 *  (router/frontend/gateway.c, query_service.c, the replay and checkpoint verbs)
 *  running in this process on a scratch embedded store, with two linked
 *  sinks in its chains, a replay endpoint and a scheduled stream.
 *
 *  Input: up to 16 messages separated by FUZZ_RS, each of up to 6 frames
 *  separated by FUZZ_US ([verb][request id][body] when well formed), all
 *  sent at once (pipelined) on one DEALER socket over ipc:// (the
 *  gateway owns its ZeroMQ context, so inproc:// cannot reach it).
 *
 *  Oracles (docs/protocol.md, "Wire protocol"): every message gets exactly one
 *  reply within 20 s — [OK|ERR][its request id][a JSON object] — whose
 *  request id is the message's second frame (empty when there is none or
 *  it is over 255 bytes); an ERR body has a documented code, a message
 *  and at most a field; a malformed message is BAD_FRAMES and only it;
 *  an unknown verb is UNKNOWN_VERB; a body over max_message_bytes is
 *  TOO_LARGE, an empty one EMPTY_BODY where the verb needs one, one that
 *  is not UTF-8 INVALID_UTF8. A PUT acknowledged as new decodes here the
 *  same way, and GET then answers the same event (NOT_FOUND only when it
 *  has expired). The gateway is started again on an empty store every
 *  RESTART_EVERY inputs, so what inputs store stays bounded.
 */
#include "checkpoint_verbs.h"
#include "dlq_json.h"
#include "dlq_log.h"
#include "dlq_time.h"
#include "dlq_uuid.h"
#include "dlqd_config.h"
#include "failed_event.h"
#include "fuzz_sinks.h"
#include "fuzz_support.h"
#include "gateway.h"
#include "protocol.h"
#include "stream_policy.h"
#include "verb_table.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#define MESSAGES_MAX 16
#define FRAMES_MAX 6
#define MAX_MESSAGE_BYTES 2048
#define REPLY_WAIT_MS 20000
#define RESTART_EVERY 4096

static const char *dir;
static char endpoint [4200], replay_endpoint [4200], data_dir [4200];
static dlqd_config_t *config;
static dlq_gateway_t *gateway;
static pthread_t thread;
static int stop_pipe [2];
static void *ctx, *dealer, *replays;
static unsigned long inputs;

static const char *config_text =
    "gateway: { listen = [\"ipc://%s/gw\"]; data_dir = \"%s/data\"; max_message_bytes = %d;\n"
    "           query_threads = 2; sweep: { interval_ms = 100; }; };\n"
    "defaults: { chain = [\"audit\"]; replay_route = \"audit\"; };\n"
    "sinks: { audit: { type = \"noop\"; };\n"
    "         typed: { type = \"typed\"; depth = 7; retry = { max_attempts = 2; backoff_ms = 1; }; }; };\n"
    "streams = (\n"
    "  { name = \"s0\"; retention_days = 1; include_stack_trace = false; include_original_document = false;\n"
    "    chain = [\"audit\", \"typed\"]; replay_route = \"endpoint\"; typed = { depth = 9; }; },\n"
    "  { name = \"s1\"; retention_days = 0; chain = []; },\n"
    "  { name = \"s2\"; schedule = { enabled = true; batch_size = 5; interval_ms = 100; }; } );\n"
    "replay: { listen = \"ipc://%s/replay\"; rate = 100000; max_replays = 2; backoff_ms = 0; lease_ms = 0; };\n";

static void *
serve (void *arg)
{
    if (dlq_gateway_run (gateway, stop_pipe [0], NULL, NULL) != 0)
        fuzz_fail ("dlq_gateway_run failed");
    return NULL;
}

static void *
connect_socket (int type, const char *to)
{
    void *s = zmq_socket (ctx, type);
    int linger = 0;
    zmq_setsockopt (s, ZMQ_LINGER, &linger, sizeof linger);
    if (zmq_connect (s, to) != 0)
        fuzz_fail ("cannot connect to %s: %s", to, zmq_strerror (zmq_errno ()));
    return s;
}

/* A gateway on an empty store, serving on its own thread. */
static void
start (void)
{
    fuzz_remove_tree (data_dir);
    char *err = NULL;
    gateway = dlq_gateway_new (config, &err);
    if (!gateway)
        fuzz_fail ("cannot start the gateway: %s", err);
    if (pipe (stop_pipe) != 0 || pthread_create (&thread, NULL, serve, NULL) != 0)
        fuzz_fail ("cannot start the gateway's thread");
    dealer = connect_socket (ZMQ_DEALER, endpoint);
    replays = connect_socket (ZMQ_PULL, replay_endpoint);
}

static void
stop (void)
{
    zmq_close (dealer);
    zmq_close (replays);
    if (write (stop_pipe [1], "x", 1) != 1 || pthread_join (thread, NULL) != 0)
        fuzz_fail ("cannot stop the gateway");
    dlq_gateway_destroy (&gateway);
    close (stop_pipe [0]);
    close (stop_pipe [1]);
}

static void
at_exit (void)
{
    stop ();
    dlqd_config_destroy (&config);
    zmq_ctx_term (ctx);
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
    dlq_log_set_level (DLQ_LOG_ERROR);
    fuzz_sinks_link ();
    dir = fuzz_scratch_dir ("fuzz-wire");
    snprintf (endpoint, sizeof endpoint, "ipc://%s/gw", dir);
    snprintf (replay_endpoint, sizeof replay_endpoint, "ipc://%s/replay", dir);
    snprintf (data_dir, sizeof data_dir, "%s/data", dir);
    char text [8192], path [4300];
    snprintf (text, sizeof text, config_text, dir, dir, MAX_MESSAGE_BYTES, dir);
    snprintf (path, sizeof path, "%s/dlqd.conf", dir);
    char *err = NULL;
    if (!fuzz_write_file (path, text, strlen (text)) || dlqd_config_load (path, &config, &err) != DLQD_CONFIG_OK)
        fuzz_fail ("the harness's config: %s", err ? err : "cannot write it");
    ctx = zmq_ctx_new ();
    start ();
    atexit (at_exit);
    return 0;
}

/* ---- requests and replies -------------------------------------------------- */

typedef struct request request_t;
static void decode_here (request_t *q);

struct request {
    const uint8_t *id;          /* the id its reply must carry */
    size_t         id_len;
    bool           malformed;   /* not 3 frames, or an id over 255 bytes */
    bool           enveloped;   /* malformed, after an empty first frame: a REQ socket's */
    dlq_verb_t     verb;
    const uint8_t *verb_text;
    size_t         verb_len;
    const uint8_t *body;
    size_t         body_len;
    bool           decoded;     /* a PUT or a checkpoint write, read here as the gateway reads it: */
    dlq_code_t     decoded_code;    /* the code its reply must have */
    int            answer;      /* the reply paired with it, -1: none yet */
    char           put_id [DLQ_UUID_LEN + 1];   /* a PUT acknowledged as new: its id */
};

/* A PUT's or a checkpoint write's body read here as the gateway reads it
 * (dlq_event_decode, dlq_ckpt_read_write): its reply must say the same. */
static void
decode_here (request_t *q)
{
    dlq_error_t err = { DLQ_OK, "", "" };
    if (q->verb == DLQ_VERB_PUT) {
        dlq_event_t *event = dlq_event_decode ((const char *) q->body, q->body_len, dlq_time_now_ms (), &err);
        q->decoded = true;
        q->decoded_code = event ? DLQ_OK : err.code;
        dlq_event_destroy (&event);
    }
    else
    if (q->verb != DLQ_VERB_UNKNOWN && dlq_verb_table_get (q->verb)->lane == DLQ_LANE_CHECKPOINT_WRITE) {
        dlq_checkpoint_t value;
        bool remove;
        q->decoded = true;
        q->decoded_code = dlq_ckpt_read_write (q->verb, q->body, q->body_len, &value, &remove, &err);
        dlq_checkpoint_clear (&value);
    }
}

typedef struct {
    zmq_msg_t frames [4];
    int       count;            /* frames received (more than 4: only 4 kept) */
} reply_t;

static void
send_frames (const fuzz_span_t *frames, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (zmq_send (dealer, frames [i].data, frames [i].len, i + 1 < n ? ZMQ_SNDMORE : 0) < 0)
            fuzz_fail ("cannot send: %s", zmq_strerror (zmq_errno ()));
}

/* Wait until deadline (monotonic ms) for one reply; false on time out. */
static bool
receive (reply_t *r, int64_t deadline)
{
    zmq_pollitem_t item = { dealer, 0, ZMQ_POLLIN, 0 };
    while (true) {
        int64_t left = deadline - dlq_time_mono_ms ();
        if (left <= 0)
            return false;
        if (zmq_poll (&item, 1, (long) left) > 0)
            break;
    }
    r->count = 0;
    int more = 1;
    while (more) {
        zmq_msg_t frame;
        zmq_msg_init (&frame);
        if (zmq_msg_recv (&frame, dealer, 0) < 0)
            fuzz_fail ("cannot receive: %s", zmq_strerror (zmq_errno ()));
        more = zmq_msg_more (&frame);
        if (r->count < 4) {
            zmq_msg_init (&r->frames [r->count]);
            zmq_msg_move (&r->frames [r->count], &frame);
        }
        zmq_msg_close (&frame);
        r->count++;
    }
    return true;
}

static void
reply_close (reply_t *r)
{
    for (int i = 0; i < r->count && i < 4; i++)
        zmq_msg_close (&r->frames [i]);
}

static bool
frame_is (zmq_msg_t *frame, const char *text)
{
    return zmq_msg_size (frame) == strlen (text) && memcmp (zmq_msg_data (frame), text, strlen (text)) == 0;
}

static bool
only_whitespace (const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (data [i] != ' ' && data [i] != '\t' && data [i] != '\r' && data [i] != '\n')
            return false;
    return true;
}

/* The code an ERR body names, checked to be a documented one. */
static dlq_code_t
error_code (const dlq_json_value_t *body)
{
    const dlq_json_value_t *code = dlq_json_get (body, "code");
    const dlq_json_value_t *message = dlq_json_get (body, "message");
    const dlq_json_value_t *field = dlq_json_get (body, "field");
    FUZZ_CHECK (code && code->type == DLQ_JSON_STRING && message && message->type == DLQ_JSON_STRING);
    FUZZ_CHECK (!field || field->type == DLQ_JSON_STRING);
    FUZZ_CHECK (body->count == 2u + (field != NULL));
    for (int c = DLQ_OK + 1; c < DLQ_CODE_COUNT; c++)
        if (strcmp (code->str, dlq_code_name ((dlq_code_t) c)) == 0)
            return (dlq_code_t) c;
    fuzz_fail ("an undocumented error code %s", code->str);
}

/* The reply a request must get where docs/protocol.md says (ERR want): true,
 * or false with why. */
static bool
expect (const request_t *q, bool ok, dlq_code_t code, dlq_code_t want, const char *what, char *why, size_t len)
{
    if (!ok && code == want)
        return true;
    snprintf (why, len, "%.*s with %s: %s, not %s", q->malformed ? 9 : (int) q->verb_len,
              q->malformed ? "(frames?)" : (const char *) q->verb_text, what, ok ? "OK" : dlq_code_name (code),
              dlq_code_name (want));
    return false;
}

/* Can this reply be the one to q? */
static bool
fits (const request_t *q, bool ok, dlq_code_t code, char *why, size_t len)
{
    snprintf (why, len, "%s", "");
    if (q->malformed)
        return expect (q, ok, code, DLQ_ERR_BAD_FRAMES, "a message that is not [verb][id <= 255 bytes][body]",
                       why, len);
    if (!ok && code == DLQ_ERR_BAD_FRAMES)
        return snprintf (why, len, "BAD_FRAMES for a well-formed message") < 0;
    if (q->verb == DLQ_VERB_UNKNOWN)
        return expect (q, ok, code, DLQ_ERR_UNKNOWN_VERB, "an unknown verb", why, len);
    if (!ok && code == DLQ_ERR_UNKNOWN_VERB)
        return snprintf (why, len, "UNKNOWN_VERB for a known verb") < 0;
    if (q->body_len > MAX_MESSAGE_BYTES)
        return expect (q, ok, code, DLQ_ERR_TOO_LARGE, "a body over max_message_bytes", why, len);
    if (only_whitespace (q->body, q->body_len) && !dlq_verb_table_get (q->verb)->body_optional)
        return expect (q, ok, code, DLQ_ERR_EMPTY_BODY, "an empty body", why, len);
    if (!dlq_utf8_valid ((const char *) q->body, q->body_len, NULL))
        return expect (q, ok, code, DLQ_ERR_INVALID_UTF8, "a body that is not UTF-8", why, len);
    if (q->decoded && (ok ? DLQ_OK : code) != q->decoded_code) {
        snprintf (why, len, "%.*s: %s, but it decodes here as %s", (int) q->verb_len, (const char *) q->verb_text,
                  ok ? "OK" : dlq_code_name (code), dlq_code_name (q->decoded_code));
        return false;
    }
    return true;
}

/* The reply's JSON body (the caller destroys *doc_p) and its code:
 * DLQ_OK for OK, else the documented code it names. */
static dlq_code_t
read_body (bool ok, const void *data, size_t len, dlq_json_doc_t **doc_p)
{
    if (dlq_json_parse (data, len, doc_p, NULL) != DLQ_JSON_OK)
        fuzz_fail ("a reply body that is not JSON: %.*s", (int) len, (const char *) data);
    const dlq_json_value_t *body = dlq_json_root (*doc_p);
    FUZZ_CHECK (body->type == DLQ_JSON_OBJECT);
    return ok ? DLQ_OK : error_code (body);
}

/* One reply, as read off the socket and checked. */
typedef struct {
    bool       enveloped;           /* behind an empty frame: for an enveloped request */
    uint8_t    id [DLQ_REQUEST_ID_MAX + 1];
    size_t     id_len;
    bool       ok;
    dlq_code_t code;                /* DLQ_OK for OK */
    bool       put_shaped;          /* {"id": a UUID, "duplicate": true or false} */
    char       put_id [DLQ_UUID_LEN + 1];   /* ... with "duplicate": false: the id */
    int        request;             /* the request it answers, -1 until matched */
} answer_t;

/* Read one reply into a: its frames, its JSON body and its code. */
static void
read_answer (reply_t *r, answer_t *a)
{
    memset (a, 0, sizeof *a);
    a->enveloped = r->count == 4 && zmq_msg_size (&r->frames [0]) == 0;
    zmq_msg_t *f = r->frames + a->enveloped;
    if (r->count != 3 + a->enveloped)
        fuzz_fail ("a reply of %d frames", r->count);
    a->ok = frame_is (&f [0], "OK");
    FUZZ_CHECK (a->ok || frame_is (&f [0], "ERR"));
    FUZZ_CHECK (zmq_msg_size (&f [1]) <= DLQ_REQUEST_ID_MAX);
    a->id_len = zmq_msg_size (&f [1]);
    memcpy (a->id, zmq_msg_data (&f [1]), a->id_len);
    dlq_json_doc_t *doc = NULL;
    a->code = read_body (a->ok, zmq_msg_data (&f [2]), zmq_msg_size (&f [2]), &doc);
    const dlq_json_value_t *id = dlq_json_get (dlq_json_root (doc), "id");
    const dlq_json_value_t *dup = dlq_json_get (dlq_json_root (doc), "duplicate");
    a->put_shaped = a->ok && id && id->type == DLQ_JSON_STRING && id->len == DLQ_UUID_LEN && dup
                 && (dup->type == DLQ_JSON_TRUE || dup->type == DLQ_JSON_FALSE) && dlq_json_root (doc)->count == 2;
    if (a->put_shaped && dup->type == DLQ_JSON_FALSE)
        memcpy (a->put_id, id->str, DLQ_UUID_LEN + 1);
    a->request = -1;
    dlq_json_doc_destroy (&doc);
}

static bool
same_id (const request_t *q, const answer_t *a)
{
    return q->enveloped == a->enveloped && q->id_len == a->id_len
        && (!q->id_len || memcmp (q->id, a->id, q->id_len) == 0);
}

/* Can answer a be the reply to request q (same id, same envelope, and
 * what docs/protocol.md says q must get)? why says why not. */
static bool
answers (const request_t *q, const answer_t *a, char *why, size_t len)
{
    if (!same_id (q, a))
        return snprintf (why, len, "a reply whose request id (%zu bytes) no request has", a->id_len) < 0;
    if (!fits (q, a->ok, a->code, why, len))
        return false;
    if (a->ok && q->verb == DLQ_VERB_PUT && !a->put_shaped)
        return snprintf (why, len, "a PUT's OK is not {\"id\":..., \"duplicate\":...}") < 0;
    return true;
}

/* Kuhn's augmenting path: give reply i a request, moving others. */
static bool
assign (request_t *requests, size_t n, answer_t *got, int i, bool *seen)
{
    char why [512];
    for (size_t k = 0; k < n; k++) {
        if (seen [k] || !answers (&requests [k], &got [i], why, sizeof why))
            continue;
        seen [k] = true;
        int other = requests [k].answer;
        if (other < 0 || assign (requests, n, got, other, seen)) {
            requests [k].answer = i;
            got [i].request = (int) k;
            return true;
        }
    }
    return false;
}

/* Wait for one reply per request, then pair them: every reply must be
 * the one some request must get (ids may repeat, and replies come in the
 * order they are done, so the pairing is a matching). */
static void
collect (request_t *requests, size_t n)
{
    answer_t got [MESSAGES_MAX];
    int64_t deadline = dlq_time_mono_ms () + REPLY_WAIT_MS;
    for (size_t i = 0; i < n; i++) {
        reply_t r;
        if (!receive (&r, deadline))
            fuzz_fail ("%zu of %zu requests got no reply within %d ms", n - i, n, REPLY_WAIT_MS);
        read_answer (&r, &got [i]);
        reply_close (&r);
    }
    zmq_pollitem_t item = { dealer, 0, ZMQ_POLLIN, 0 };
    FUZZ_CHECK (zmq_poll (&item, 1, 0) == 0);       /* no second reply to anything */
    for (size_t k = 0; k < n; k++)
        requests [k].answer = -1;
    for (size_t i = 0; i < n; i++) {
        bool seen [MESSAGES_MAX] = { false };
        if (assign (requests, n, got, (int) i, seen))
            continue;
        char why [512] = "";
        for (size_t k = 0; k < n; k++)          /* the first reason against it */
            if (same_id (&requests [k], &got [i])) {
                answers (&requests [k], &got [i], why, sizeof why);
                break;
            }
        if (!why [0])
            snprintf (why, sizeof why, "a reply whose request id (%zu bytes) no request has", got [i].id_len);
        fuzz_fail ("no request fits reply %zu (%s): %s", i, got [i].ok ? "OK" : dlq_code_name (got [i].code), why);
    }
    /* a PUT stored as new, whose request id no other request has: GET it */
    for (size_t k = 0; k < n; k++) {
        request_t *q = &requests [k];
        bool unique = true;
        for (size_t j = 0; j < n; j++)
            unique = unique && (j == k || q->id_len != requests [j].id_len
                                || (q->id_len && memcmp (q->id, requests [j].id, q->id_len)));
        if (q->verb == DLQ_VERB_PUT && !q->malformed && unique)
            memcpy (q->put_id, got [q->answer].put_id, DLQ_UUID_LEN + 1);
    }
}

/* ---- what a PUT stored, seen by GET ------------------------------------------ */

static bool
same_text (const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp (a, b) == 0);
}

/* GET's event is what the PUT's body decodes to here (its status aside:
 * replays and RESOLVE / FAIL change it). */
static void
check_stored (const request_t *q, const char *json, size_t len)
{
    dlq_error_t err;
    dlq_event_t *sent = dlq_event_decode ((const char *) q->body, q->body_len, dlq_time_now_ms (), &err);
    dlq_event_t *got = dlq_event_decode (json, len, 0, &err);
    FUZZ_CHECK (sent && got && strcmp (got->id, q->put_id) == 0);
    dlq_json_doc_t *doc = NULL;
    FUZZ_CHECK (dlq_json_parse ((const char *) q->body, q->body_len, &doc, NULL) == DLQ_JSON_OK);
    bool had_created = dlq_json_get (dlq_json_root (doc), "createdAt") != NULL;
    dlq_json_doc_destroy (&doc);
    if (!had_created)
        sent->created_at = got->created_at;     /* the gateway's clock, not ours */
    dlq_policy_apply (dlq_policy_table_lookup (config->policies, sent->stream_name), sent);
    FUZZ_CHECK (same_text (got->stream_name, sent->stream_name) && same_text (got->operation_type, sent->operation_type));
    FUZZ_CHECK (same_text (got->document_key, sent->document_key) && same_text (got->full_document, sent->full_document));
    FUZZ_CHECK (same_text (got->resume_token, sent->resume_token) && same_text (got->error_type, sent->error_type));
    FUZZ_CHECK (same_text (got->error_message, sent->error_message));
    FUZZ_CHECK (same_text (got->error_stack_trace, sent->error_stack_trace) && got->attempts == sent->attempts);
    FUZZ_CHECK (got->first_attempt_at == sent->first_attempt_at && got->last_attempt_at == sent->last_attempt_at);
    FUZZ_CHECK (got->created_at == sent->created_at && got->expires_at == sent->expires_at);
    FUZZ_CHECK (same_text (got->metadata, sent->metadata));
    dlq_event_destroy (&sent);
    dlq_event_destroy (&got);
}

/* GET every event a PUT of this input stored as new. */
static void
get_stored (const request_t *requests, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const request_t *q = &requests [i];
        if (!q->put_id [0])
            continue;
        char body [64];
        int len = snprintf (body, sizeof body, "{\"id\":\"%s\"}", q->put_id);
        fuzz_span_t frames [3] = { { (const uint8_t *) "GET", 3 }, { (const uint8_t *) "g", 1 },
                                   { (const uint8_t *) body, (size_t) len } };
        send_frames (frames, 3);
        reply_t r;
        if (!receive (&r, dlq_time_mono_ms () + REPLY_WAIT_MS))
            fuzz_fail ("GET of a stored event got no reply");
        FUZZ_CHECK (r.count == 3 && frame_is (&r.frames [1], "g"));
        dlq_json_doc_t *doc = NULL;
        FUZZ_CHECK (dlq_json_parse (zmq_msg_data (&r.frames [2]), zmq_msg_size (&r.frames [2]), &doc, NULL)
                    == DLQ_JSON_OK);
        dlq_error_t err;
        dlq_event_t *sent = dlq_event_decode ((const char *) q->body, q->body_len, dlq_time_now_ms (), &err);
        FUZZ_CHECK (sent != NULL);
        dlq_policy_apply (dlq_policy_table_lookup (config->policies, sent->stream_name), sent);
        bool expired = sent->expires_at != DLQ_TIME_NONE && sent->expires_at <= dlq_time_now_ms ();
        dlq_event_destroy (&sent);
        if (frame_is (&r.frames [0], "OK")) {
            const dlq_json_value_t *event = dlq_json_get (dlq_json_root (doc), "event");
            FUZZ_CHECK (event && event->type == DLQ_JSON_OBJECT);
            dlq_buf_t json = DLQ_BUF_INIT;
            dlq_json_write (&json, event);
            check_stored (q, json.data, json.len);
            dlq_buf_free (&json);
        }
        else
        if (!expired)
            fuzz_fail ("GET of the event a PUT just stored is %.*s", (int) zmq_msg_size (&r.frames [2]),
                       (const char *) zmq_msg_data (&r.frames [2]));
        dlq_json_doc_destroy (&doc);
        reply_close (&r);
    }
}

/* Take in whatever the replay endpoint sent meanwhile. */
static void
drain_replays (void)
{
    zmq_msg_t frame;
    zmq_msg_init (&frame);
    while (zmq_msg_recv (&frame, replays, ZMQ_DONTWAIT) >= 0)
        ;
    zmq_msg_close (&frame);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    if (++inputs % RESTART_EVERY == 0) {
        stop ();
        start ();
    }
    fuzz_span_t messages [MESSAGES_MAX];
    size_t n = fuzz_split (data, size, FUZZ_RS, messages, MESSAGES_MAX);
    request_t requests [MESSAGES_MAX];
    memset (requests, 0, sizeof requests);
    for (size_t i = 0; i < n; i++) {
        fuzz_span_t frames [FRAMES_MAX];
        size_t count = fuzz_split (messages [i].data, messages [i].len, FUZZ_US, frames, FRAMES_MAX);
        request_t *q = &requests [i];
        q->malformed = count != 3 || frames [1].len > DLQ_REQUEST_ID_MAX;
        q->enveloped = count != 3 && count >= 2 && frames [0].len == 0;
        size_t id_frame = q->enveloped ? 2 : 1;
        if (count > id_frame && frames [id_frame].len <= DLQ_REQUEST_ID_MAX) {
            q->id = frames [id_frame].data;
            q->id_len = frames [id_frame].len;
        }
        if (!q->malformed) {
            const dlq_verb_spec_t *spec = dlq_verb_table_find (frames [0].data, frames [0].len);
            q->verb = spec ? spec->verb : DLQ_VERB_UNKNOWN;
            q->verb_text = frames [0].data;
            q->verb_len = frames [0].len;
            q->body = frames [2].data;
            q->body_len = frames [2].len;
            decode_here (q);
        }
        send_frames (frames, count);
    }
    collect (requests, n);
    get_stored (requests, n);
    drain_replays ();
    return 0;
}
