/*  fuzz_libdlq — libdlq's reading of what a gateway sends it: replies to
 *  every call (contrib/libdlq: dlq_client.c's readers, dlqc_json,
 *  dlqc_replay, dlqc_ckpt, the reply matching of dlqc_table and
 *  dlqc_wire), a checkpoint record (dlq_client_checkpoint_read) and the
 *  replay endpoint's messages (dlq_replay_receiver_recv).
 *
 *  Input: records separated by FUZZ_RS. A record's first byte picks a
 *  call (calls [] below); the rest is the reply, frames separated by
 *  FUZZ_US, where a frame that is exactly "@" stands for the request id
 *  the client sent. A fake gateway (a ROUTER on inproc://, its own
 *  thread) answers the call's request with that reply, then with a
 *  fallback ERR {"code":"FALLBACK"} carrying the right id, so that a reply
 *  the client must ignore costs no time out.
 *
 *  Oracles: when the reply was [status][the request id][body], the call's
 *  result comes from it (OK or ERR_SERVER as its status says, else
 *  ERR_PROTOCOL), otherwise from the fallback (ERR_SERVER, FALLBACK); a
 *  reply core's strict parser reads as a valid PUT, PING, COUNT or ERR
 *  answer is taken as one, with its id, count and code.
 */
#include "dlq_client.h"
#include "dlq_json.h"
#include "fuzz_support.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#define ENDPOINT "inproc://dlqd-fuzz-libdlq"
#define RECORDS_MAX 16
#define FRAMES_MAX 6
#define TIMEOUT_MS 5000
#define FALLBACK "{\"code\":\"FALLBACK\",\"message\":\"the harness's second reply\"}"

static void *ctx, *push;
static dlq_client_t *client;
static dlq_replay_receiver_t *receiver;
static pthread_t server;

/* The reply the fake gateway gives to the next request. */
static struct {
    pthread_mutex_t lock;
    bool            armed, used, stop;
    fuzz_span_t     frames [FRAMES_MAX];
    size_t          count;
} script = { PTHREAD_MUTEX_INITIALIZER };

static bool
span_is (fuzz_span_t s, const char *text)
{
    return s.len == strlen (text) && memcmp (s.data, text, s.len) == 0;
}

/* Answer one request [identity][verb][id][body]: the script, then the fallback. */
static void
answer (void *router)
{
    zmq_msg_t frames [5];
    int n = 0, more = 1;
    while (more) {
        zmq_msg_t m;
        zmq_msg_init (&m);
        if (zmq_msg_recv (&m, router, 0) < 0)
            fuzz_fail ("the fake gateway cannot receive");
        more = zmq_msg_more (&m);
        if (n < 5) {
            zmq_msg_init (&frames [n]);
            zmq_msg_move (&frames [n++], &m);
        }
        zmq_msg_close (&m);
    }
    FUZZ_CHECK (n == 4);                        /* libdlq sends [verb][id][body] */
    pthread_mutex_lock (&script.lock);
    if (script.armed && !script.used) {
        script.used = true;
        zmq_send (router, zmq_msg_data (&frames [0]), zmq_msg_size (&frames [0]), ZMQ_SNDMORE);
        for (size_t i = 0; i < script.count; i++) {
            fuzz_span_t f = span_is (script.frames [i], "@")
                          ? (fuzz_span_t) { zmq_msg_data (&frames [2]), zmq_msg_size (&frames [2]) } : script.frames [i];
            zmq_send (router, f.data, f.len, i + 1 < script.count ? ZMQ_SNDMORE : 0);
        }
    }
    pthread_mutex_unlock (&script.lock);
    zmq_send (router, zmq_msg_data (&frames [0]), zmq_msg_size (&frames [0]), ZMQ_SNDMORE);
    zmq_send (router, "ERR", 3, ZMQ_SNDMORE);
    zmq_send (router, zmq_msg_data (&frames [2]), zmq_msg_size (&frames [2]), ZMQ_SNDMORE);
    zmq_send (router, FALLBACK, strlen (FALLBACK), 0);
    for (int i = 0; i < n; i++)
        zmq_msg_close (&frames [i]);
}

static void *
serve (void *arg)
{
    void *router = arg;
    while (true) {
        pthread_mutex_lock (&script.lock);
        bool stop = script.stop;
        pthread_mutex_unlock (&script.lock);
        if (stop)
            break;
        zmq_pollitem_t item = { router, 0, ZMQ_POLLIN, 0 };
        if (zmq_poll (&item, 1, 50) > 0)
            answer (router);
    }
    zmq_close (router);
    return NULL;
}

static void
at_exit (void)
{
    pthread_mutex_lock (&script.lock);
    script.stop = true;
    pthread_mutex_unlock (&script.lock);
    pthread_join (server, NULL);
    dlq_client_destroy (&client);
    dlq_replay_receiver_destroy (&receiver);
    zmq_close (push);
    zmq_ctx_term (ctx);
}

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
    ctx = zmq_ctx_new ();
    void *router = zmq_socket (ctx, ZMQ_ROUTER);
    if (zmq_bind (router, ENDPOINT) != 0 || pthread_create (&server, NULL, serve, router) != 0)
        fuzz_fail ("cannot start the fake gateway");
    client = dlq_client_new_shared (ENDPOINT, ctx);
    if (!client || dlq_client_set_timeout (client, TIMEOUT_MS) != DLQ_CLIENT_OK
    ||  dlq_client_set_retries (client, 0) != DLQ_CLIENT_OK)
        fuzz_fail ("cannot make the client");
    char replay [4200];
    snprintf (replay, sizeof replay, "ipc://%s/replay", fuzz_scratch_dir ("fuzz-libdlq"));
    push = zmq_socket (ctx, ZMQ_PUSH);
    int linger = 0;
    zmq_setsockopt (push, ZMQ_LINGER, &linger, sizeof linger);
    if (zmq_bind (push, replay) != 0 || !(receiver = dlq_replay_receiver_new (replay)))
        fuzz_fail ("cannot make the replay receiver");
    atexit (at_exit);
    return 0;
}

/* ---- the calls ---------------------------------------------------------- */

#define ID "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182"

typedef struct {
    dlq_client_result_t result;
    char                id [DLQ_CLIENT_ID_SIZE];    /* PUT */
    bool                duplicate;
    int64_t             count;                      /* COUNT */
    bool                async;                      /* a completion, not a blocking call */
    char                code [64];                  /* ERR_SERVER */
} outcome_t;

static void
on_completion (const dlq_client_completion_t *c, void *arg)
{
    outcome_t *o = arg;
    o->result = c->result;
    snprintf (o->id, sizeof o->id, "%s", c->id);
    o->duplicate = c->duplicate;
    snprintf (o->code, sizeof o->code, "%s", c->code);
    FUZZ_CHECK (c->message && c->field && c->verb && c->body);
    if (c->result == DLQ_CLIENT_OK && strcmp (c->verb, "PUT") != 0) {
        dlq_client_checkpoint_t record = { 0 };
        FUZZ_CHECK (dlq_client_checkpoint_read (c->body, c->body_len, &record) == DLQ_CLIENT_OK);
        dlq_client_checkpoint_clear (&record);
    }
}

/* Wait for the one pipelined request to complete. */
static void
complete (outcome_t *o)
{
    o->async = true;
    FUZZ_CHECK (dlq_client_flush (client, 2 * TIMEOUT_MS, on_completion, o) == DLQ_CLIENT_OK);
}

static void
release (char *body, size_t len)
{
    FUZZ_CHECK (body && strlen (body) <= len);
    free (body);
}

#define CALL_BODY(expr) do { char *b = NULL; size_t l = 0; o->result = (expr); \
                             if (o->result == DLQ_CLIENT_OK) release (b, l); } while (0)

/* Make call number which; its outcome into o. */
static const char *
call (unsigned which, outcome_t *o)
{
    static const char *const ids [] = { ID };
    dlq_client_filter_t *filter = dlq_client_filter_new ();
    dlq_client_filter_set_stream (filter, "orders");
    dlq_client_selection_t selection = { filter, NULL, 0, false }, by_ids = { NULL, ids, 1, false };
    dlq_client_job_t job;
    dlq_client_event_state_t state;
    dlq_client_pong_t pong;
    dlq_client_checkpoint_t record = { 0 }, save = { .stream_name = "orders", .last_seen_token = "{\"_data\":\"8\"}",
                                                     .metadata = "{}" };
    bool deleted;
    const char *name = "";
    switch (which) {
        case 0: name = "PUT"; o->result = dlq_client_put (client, "{}", 2, o->id, &o->duplicate); break;
        case 1: name = "GET"; CALL_BODY (dlq_client_get (client, ID, &b, &l)); break;
        case 2: name = "GET"; CALL_BODY (dlq_client_get_reply (client, ID, &b, &l)); break;
        case 3: name = "LIST"; CALL_BODY (dlq_client_list (client, "orders", 10, "c", &b, &l)); break;
        case 4: name = "STATS"; CALL_BODY (dlq_client_stats (client, &b, &l)); break;
        case 5: name = "REDELIVER"; o->result = dlq_client_redeliver (client, "audit", "orders", NULL, &o->count); break;
        case 6: name = "LIST"; CALL_BODY (dlq_client_list_filtered (client, filter, 5, NULL, &b, &l)); break;
        case 7: name = "COUNT"; o->result = dlq_client_count (client, filter, &o->count); break;
        case 8: name = "GROUPS"; CALL_BODY (dlq_client_groups (client, NULL, 5, &b, &l)); break;
        case 9: name = "REPLAY"; o->result = dlq_client_replay (client, &selection, DLQ_CLIENT_TARGET_ROUTE, 10, &job); break;
        case 10: name = "REPLAY"; CALL_BODY (dlq_client_replay_dry_run (client, &by_ids, DLQ_CLIENT_TARGET_ENDPOINT, 3,
                                                                       &o->count, &b, &l)); break;
        case 11: name = "REPLAY.STATUS"; o->result = dlq_client_replay_status (client, ID, &job); break;
        case 12: name = "REPLAY.STATUS"; CALL_BODY (dlq_client_replay_jobs (client, &b, &l)); break;
        case 13: name = "REPLAY.PAUSE"; o->result = dlq_client_replay_pause (client, ID, &job); break;
        case 14: name = "RESOLVE"; o->result = dlq_client_resolve (client, ID, &state); break;
        case 15: name = "FAIL"; o->result = dlq_client_fail (client, ID, &state); break;
        case 16: name = "PING"; o->result = dlq_client_ping (client, &pong); break;
        case 17: name = "CKPT.SAVE"; o->result = dlq_client_ckpt_save (client, &save, &record); break;
        case 18: name = "CKPT.SEEN"; o->result = dlq_client_ckpt_seen (client, "orders", "{}", NULL, &record); break;
        case 19: name = "CKPT.GET"; o->result = dlq_client_ckpt_get (client, "orders", &record); break;
        case 20: name = "CKPT.LIST"; CALL_BODY (dlq_client_ckpt_list (client, "o", 10, NULL, &b, &l)); break;
        case 21: name = "CKPT.DELETE"; o->result = dlq_client_ckpt_delete (client, "orders", &deleted); break;
        case 22: name = "PUT"; FUZZ_CHECK (dlq_client_put_async (client, "{}", 2, 7) == DLQ_CLIENT_OK); complete (o); break;
        default: name = "CKPT.PROCESSED";
                 FUZZ_CHECK (dlq_client_ckpt_processed_async (client, "orders", "{}", NULL, 8) == DLQ_CLIENT_OK);
                 complete (o);
    }
    dlq_client_checkpoint_clear (&record);
    dlq_client_filter_destroy (&filter);
    if (!o->async && o->result == DLQ_CLIENT_ERR_SERVER)
        snprintf (o->code, sizeof o->code, "%s", dlq_client_error_code (client));
    return name;
}

#define CALL_COUNT 24

/* ---- what the result must be --------------------------------------------- */

/* The string member key of obj, without NUL, or NULL. */
static const char *
member_text (const dlq_json_value_t *obj, const char *key)
{
    const dlq_json_value_t *v = dlq_json_get (obj, key);
    return v && v->type == DLQ_JSON_STRING && !memchr (v->str, '\0', v->len) ? v->str : NULL;
}

/* The reply was [status][request id][body]: what core's parser makes of
 * the body must be what the client made of it. */
static void
check_answered (const char *verb, fuzz_span_t status, fuzz_span_t body, const outcome_t *o)
{
    bool ok = span_is (status, "OK"), err = span_is (status, "ERR");
    if (!ok && !err) {
        FUZZ_CHECK (o->result == DLQ_CLIENT_ERR_PROTOCOL);
        return;
    }
    FUZZ_CHECK (o->result == (ok ? DLQ_CLIENT_OK : DLQ_CLIENT_ERR_SERVER) || o->result == DLQ_CLIENT_ERR_PROTOCOL);
    FUZZ_CHECK (o->result != DLQ_CLIENT_ERR_SERVER || strcmp (o->code, "FALLBACK") != 0);
    dlq_json_doc_t *doc = NULL;
    if (dlq_json_parse ((const char *) body.data, body.len, &doc, NULL) != DLQ_JSON_OK)
        return;
    const dlq_json_value_t *root = dlq_json_root (doc), *v;
    const char *text;
    int64_t n;
    if (err && (text = member_text (root, "code")) && *text && strlen (text) < sizeof o->code)
        FUZZ_CHECK (o->result == DLQ_CLIENT_ERR_SERVER && strcmp (o->code, text) == 0);
    if (ok && strcmp (verb, "PUT") == 0 && (text = member_text (root, "id")) && strlen (text) == DLQ_CLIENT_ID_SIZE - 1
    &&  (v = dlq_json_get (root, "duplicate")) && (v->type == DLQ_JSON_TRUE || v->type == DLQ_JSON_FALSE))
        FUZZ_CHECK (o->result == DLQ_CLIENT_OK && strcmp (o->id, text) == 0 && o->duplicate == (v->type == DLQ_JSON_TRUE));
    if (ok && strcmp (verb, "PING") == 0 && (v = dlq_json_get (root, "pong")) && v->type == DLQ_JSON_TRUE)
        FUZZ_CHECK (o->result == DLQ_CLIENT_OK);
    if (ok && strcmp (verb, "COUNT") == 0 && (v = dlq_json_get (root, "count")) && dlq_json_as_int64 (v, &n) && n >= 0)
        FUZZ_CHECK (o->result == DLQ_CLIENT_OK && o->count == n);
    dlq_json_doc_destroy (&doc);
}

/* A replay endpoint message of these frames, through the receiver. */
static void
receive_replay (const fuzz_span_t *frames, size_t n)
{
    for (size_t i = 0; i < n; i++)
        zmq_send (push, frames [i].data, frames [i].len, i + 1 < n ? ZMQ_SNDMORE : 0);
    char job [DLQ_CLIENT_ID_SIZE], id [DLQ_CLIENT_ID_SIZE];
    char *event = NULL;
    size_t len = 0;
    dlq_client_result_t rc = dlq_replay_receiver_recv (receiver, TIMEOUT_MS, job, id, &event, &len);
    FUZZ_CHECK (rc == DLQ_CLIENT_OK || rc == DLQ_CLIENT_ERR_PROTOCOL);
    FUZZ_CHECK (rc != DLQ_CLIENT_OK || (n == 3 && len == frames [2].len && memcmp (event, frames [2].data, len) == 0
                                        && strlen (job) == frames [0].len && strlen (id) == frames [1].len));
    free (event);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    fuzz_span_t records [RECORDS_MAX];
    size_t count = fuzz_split (data, size, FUZZ_RS, records, RECORDS_MAX);
    for (size_t r = 0; r < count; r++) {
        if (records [r].len == 0)
            continue;
        unsigned which = records [r].data [0] % (CALL_COUNT + 2);
        fuzz_span_t frames [FRAMES_MAX];
        size_t n = fuzz_split (records [r].data + 1, records [r].len - 1, FUZZ_US, frames, FRAMES_MAX);
        if (which == CALL_COUNT) {              /* a record as a completion's body */
            dlq_client_checkpoint_t record = { 0 };
            dlq_client_result_t rc = dlq_client_checkpoint_read ((const char *) frames [0].data, frames [0].len, &record);
            FUZZ_CHECK (rc == DLQ_CLIENT_OK || rc == DLQ_CLIENT_ERR_PROTOCOL);
            FUZZ_CHECK (rc != DLQ_CLIENT_OK || record.stream_name);
            dlq_client_checkpoint_clear (&record);
            continue;
        }
        if (which == CALL_COUNT + 1) {
            receive_replay (frames, n);
            continue;
        }
        pthread_mutex_lock (&script.lock);
        memcpy (script.frames, frames, n * sizeof frames [0]);
        script.count = n;
        script.armed = true;
        script.used = false;
        pthread_mutex_unlock (&script.lock);
        outcome_t o;
        memset (&o, 0, sizeof o);
        const char *verb = call (which, &o);
        pthread_mutex_lock (&script.lock);
        bool used = script.used;
        script.armed = false;
        pthread_mutex_unlock (&script.lock);
        FUZZ_CHECK (used && o.result != DLQ_CLIENT_ERR_TIMEOUT && o.result != DLQ_CLIENT_ERR_TRANSPORT);
        if (n == 3 && span_is (frames [1], "@"))
            check_answered (verb, frames [0], frames [2], &o);
        else
            FUZZ_CHECK (o.result == DLQ_CLIENT_ERR_SERVER && strcmp (o.code, "FALLBACK") == 0);
    }
    return 0;
}
