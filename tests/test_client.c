/*  test_client — libdlq against a fake gateway in the test process.
 *
 *  The fake gateway is a ROUTER socket on an ephemeral loopback TCP port,
 *  served by a thread that hands each request to a scenario handler. The
 *  handlers provoke what a real gateway cannot easily be made to do:
 *  answer out of order, hold replies to count the requests in flight, stay
 *  silent so the client resends on a new connection, answer a superseded
 *  request late, answer with malformed messages or ERR. The last suite runs
 *  the dlqctl binary against the same fake gateway, to check its output
 *  and exit statuses. End-to-end tests against the real dlqd live in the
 *  integration suites.
 */
#include "dlq_client.h"
#include "dlqctl_support.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <locale.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

#define FAKE_MAX_HELD  256
#define FAKE_MAX_PEERS 16
#define FAST_TIMEOUT_MS 200
#define HOLD_TIMEOUT_MS 3000    /* for clients whose replies the fake holds back on purpose */

typedef struct {
    char   peer [256];
    size_t peer_len;
    char   verb [16];
    char   id [256];
    size_t id_len;
    char  *body;
    size_t body_len;
} request_t;

typedef struct fake fake_t;

/* Called for each request; may reply at once, or hold it (fake_hold). */
typedef void (fake_handler_fn) (fake_t *fake, request_t *req);

struct fake {
    void            *ctx;
    void            *router;
    char             endpoint [64];
    pthread_t        thread;
    atomic_bool      stop;
    fake_handler_fn *handler;
    int              quiet_ms;          /* held requests are released after this much silence */
    int              release_at;        /* ... or as soon as this many are held (0: never) */
    /* Touched by the server thread only; read by the test after fake_stop. */
    request_t        held [FAKE_MAX_HELD];
    int              held_count;
    int              max_held;
    int              received;
    char             peers [FAKE_MAX_PEERS][256];
    size_t           peer_lens [FAKE_MAX_PEERS];
    int              peer_count;
    char             ids [FAKE_MAX_HELD][256];  /* request ids seen, in order */
    size_t           id_lens [FAKE_MAX_HELD];
    char             last_verb [16];
    char             last_body [1024];
    bool             frames_ok;         /* every request had 3 frames and a 12-byte id */
};

static int64_t
now_ms (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the fake gateway -------------------------------------------------- */

static void
fake_send (fake_t *fake, const request_t *req, const char *status, const void *id, size_t id_len,
           const char *body)
{
    zmq_send (fake->router, req->peer, req->peer_len, ZMQ_SNDMORE);
    zmq_send (fake->router, status, strlen (status), ZMQ_SNDMORE);
    zmq_send (fake->router, id, id_len, ZMQ_SNDMORE);
    zmq_send (fake->router, body, strlen (body), 0);
}

/* Reply to req with its own request id. */
static void
fake_reply (fake_t *fake, const request_t *req, const char *status, const char *body)
{
    fake_send (fake, req, status, req->id, req->id_len, body);
}

/* The event id in a PUT body made by make_event(), or "" when none. */
static void
body_event_id (const request_t *req, char out [37])
{
    const char *at = req->body ? strstr (req->body, "\"id\":\"") : NULL;
    out [0] = '\0';
    if (at && strlen (at + 6) >= 36) {
        memcpy (out, at + 6, 36);
        out [36] = '\0';
    }
}

/* Reply to a PUT as a gateway that stores it: the id it carries. */
static void
fake_reply_stored (fake_t *fake, const request_t *req, bool duplicate)
{
    char id [37], body [128];
    body_event_id (req, id);
    snprintf (body, sizeof body, "{\"id\":\"%s\",\"duplicate\":%s}", id, duplicate ? "true" : "false");
    fake_reply (fake, req, "OK", body);
}

static void
fake_hold (fake_t *fake, request_t *req)
{
    cr_assert_lt (fake->held_count, FAKE_MAX_HELD);
    fake->held [fake->held_count++] = *req;
    req->body = NULL;
    if (fake->held_count > fake->max_held)
        fake->max_held = fake->held_count;
}

static void release_held (fake_t *fake);

static void
note_peer (fake_t *fake, const request_t *req)
{
    for (int i = 0; i < fake->peer_count; i++)
        if (fake->peer_lens [i] == req->peer_len && memcmp (fake->peers [i], req->peer, req->peer_len) == 0)
            return;
    if (fake->peer_count < FAKE_MAX_PEERS) {
        memcpy (fake->peers [fake->peer_count], req->peer, req->peer_len);
        fake->peer_lens [fake->peer_count++] = req->peer_len;
    }
}

/* Read one frame into buf (truncating); says whether more follow. */
static bool
recv_frame (void *sock, char *buf, size_t size, size_t *len_out, char **heap_out)
{
    zmq_msg_t frame;
    zmq_msg_init (&frame);
    zmq_msg_recv (&frame, sock, 0);
    size_t len = zmq_msg_size (&frame);
    if (heap_out) {
        *heap_out = malloc (len + 1);
        memcpy (*heap_out, zmq_msg_data (&frame), len);
        (*heap_out) [len] = '\0';
    }
    else {
        size_t n = len < size - 1 ? len : size - 1;
        memcpy (buf, zmq_msg_data (&frame), n);
        buf [n] = '\0';
    }
    if (len_out)
        *len_out = len;
    bool more = zmq_msg_more (&frame);
    zmq_msg_close (&frame);
    return more;
}

static void
record (fake_t *fake, request_t *req, int frames)
{
    if (frames != 4 || req->id_len != 12)
        fake->frames_ok = false;
    if (fake->received < FAKE_MAX_HELD) {
        memcpy (fake->ids [fake->received], req->id, req->id_len);
        fake->id_lens [fake->received] = req->id_len;
    }
    fake->received++;
    note_peer (fake, req);
    snprintf (fake->last_verb, sizeof fake->last_verb, "%s", req->verb);
    snprintf (fake->last_body, sizeof fake->last_body, "%s", req->body ? req->body : "");
}

/* Read one request, [peer][verb][id][body], into a request_t (extra
 * frames are counted and dropped), record it and hand it to the handler. */
static void
take_request (fake_t *fake)
{
    request_t req;
    memset (&req, 0, sizeof req);
    int frames = 0;
    bool more = true;
    while (more) {
        char sink [8];
        frames++;
        if (frames == 1)
            more = recv_frame (fake->router, req.peer, sizeof req.peer, &req.peer_len, NULL);
        else
        if (frames == 2)
            more = recv_frame (fake->router, req.verb, sizeof req.verb, NULL, NULL);
        else
        if (frames == 3)
            more = recv_frame (fake->router, req.id, sizeof req.id, &req.id_len, NULL);
        else
        if (frames == 4)
            more = recv_frame (fake->router, NULL, 0, &req.body_len, &req.body);
        else
            more = recv_frame (fake->router, sink, sizeof sink, NULL, NULL);
    }
    record (fake, &req, frames);
    fake->handler (fake, &req);
    free (req.body);
}

/* Answer every held request, newest first (so replies come back in the
 * reverse of the order the requests were sent). */
static void
release_held (fake_t *fake)
{
    while (fake->held_count > 0) {
        request_t *req = &fake->held [--fake->held_count];
        fake_reply_stored (fake, req, false);
        free (req->body);
    }
}

static void *
fake_run (void *arg)
{
    fake_t *fake = arg;
    int64_t last_activity = now_ms ();
    while (!atomic_load (&fake->stop)) {
        zmq_pollitem_t item = { fake->router, 0, ZMQ_POLLIN, 0 };
        zmq_poll (&item, 1, 5);
        if (item.revents & ZMQ_POLLIN) {
            take_request (fake);
            last_activity = now_ms ();
        }
        else
        if (fake->held_count > 0 && now_ms () - last_activity >= fake->quiet_ms)
            release_held (fake);
    }
    return NULL;
}

/* Start a fake gateway whose handler may hold requests: they are released
 * after quiet_ms without a new request, or once release_at are held. */
static fake_t *
fake_start_holding (fake_handler_fn *handler, int quiet_ms, int release_at)
{
    fake_t *fake = calloc (1, sizeof *fake);
    fake->handler = handler;
    fake->quiet_ms = quiet_ms;
    fake->release_at = release_at;
    fake->frames_ok = true;
    fake->ctx = zmq_ctx_new ();
    fake->router = zmq_socket (fake->ctx, ZMQ_ROUTER);
    int linger = 0;
    zmq_setsockopt (fake->router, ZMQ_LINGER, &linger, sizeof linger);
    cr_assert_eq (zmq_bind (fake->router, "tcp://127.0.0.1:*"), 0);
    size_t size = sizeof fake->endpoint;
    zmq_getsockopt (fake->router, ZMQ_LAST_ENDPOINT, fake->endpoint, &size);
    pthread_create (&fake->thread, NULL, fake_run, fake);
    return fake;
}

static fake_t *
fake_start (fake_handler_fn *handler, int quiet_ms)
{
    return fake_start_holding (handler, quiet_ms, 0);
}

static void
fake_stop (fake_t *fake)
{
    atomic_store (&fake->stop, true);
    pthread_join (fake->thread, NULL);
    for (int i = 0; i < fake->held_count; i++)
        free (fake->held [i].body);
    zmq_close (fake->router);
    zmq_ctx_term (fake->ctx);
}

static void
fake_destroy (fake_t **fake_p)
{
    free (*fake_p);
    *fake_p = NULL;
}

/* ---- handlers ------------------------------------------------------------ */

static void
hold_all (fake_t *fake, request_t *req)
{
    fake_hold (fake, req);
    if (fake->held_count == fake->release_at)
        release_held (fake);
}

static void
stay_silent (fake_t *fake, request_t *req)
{
}

/* Ignore the first request; when the resend arrives (on a new
 * connection), first answer the superseded request late, under its old id,
 * with a wrong event id, then answer the resend properly. */
static void
drop_first_then_answer_late (fake_t *fake, request_t *req)
{
    if (fake->received == 1)
        return;
    fake_send (fake, req, "OK", fake->ids [0], fake->id_lens [0],
               "{\"id\":\"00000000-0000-7000-8000-000000000bad\",\"duplicate\":true}");
    fake_reply_stored (fake, req, false);
}

static void
reject_event (fake_t *fake, request_t *req)
{
    fake_reply (fake, req, "ERR",
                "{\"code\":\"INVALID_EVENT\",\"message\":\"error.type is \\\"required\\\" \\u00e9\","
                "\"field\":\"error.type\"}");
}

/* Answer each request with junk first: a 2-frame message, a reply to an
 * unknown request id, a reply with a bad status for nobody; then properly. */
static void
junk_then_answer (fake_t *fake, request_t *req)
{
    zmq_send (fake->router, req->peer, req->peer_len, ZMQ_SNDMORE);
    zmq_send (fake->router, "OK", 2, ZMQ_SNDMORE);
    zmq_send (fake->router, req->id, req->id_len, 0);
    fake_send (fake, req, "OK", "\0\0\0\0\0\0\0\x7f\0\0\0\0", 12, "{\"id\":\"x\"}");
    fake_send (fake, req, "OK", "short", 5, "{}");
    fake_reply_stored (fake, req, true);
}

/* REDELIVER as a gateway whose sink "s" has 3 failed deliveries: sink
 * "nosuch" is not configured, and sink "mute" gets a reply without a
 * count. */
static void
answer_redeliver (fake_t *fake, request_t *req)
{
    if (strstr (req->body, "\"sink\":\"nosuch\""))
        fake_reply (fake, req, "ERR", "{\"code\":\"INVALID_REQUEST\",\"message\":\"sink must name a configured sink\","
                    "\"field\":\"sink\"}");
    else
    if (strstr (req->body, "\"sink\":\"mute\""))
        fake_reply (fake, req, "OK", "{\"sink\":\"mute\"}");
    else
    if (strstr (req->body, "\"sink\":\"broken\""))     /* a code, then no JSON: no code at all */
        fake_reply (fake, req, "ERR", "{\"code\":\"INVALID_REQUEST\":\"x\"}");
    else
        fake_reply (fake, req, "OK", "{\"sink\":\"s\",\"requeued\":3}");
}

/* COUNT: 42, but a reply without a count for status "mute", and the
 * gateway's refusal of a createdAfter that is not a time. */
static void
answer_count (fake_t *fake, request_t *req)
{
    if (strstr (req->body, "\"status\":\"mute\""))
        fake_reply (fake, req, "OK", "{\"total\":1}");
    else
    if (strstr (req->body, "\"createdAfter\":\"yesterday\""))
        fake_reply (fake, req, "ERR", "{\"code\":\"INVALID_REQUEST\",\"message\":\"expected an ISO-8601 instant\","
                    "\"field\":\"createdAfter\"}");
    else
        fake_reply (fake, req, "OK", "{\"count\":42}");
}

/* GROUPS: three groups (the first of two streams, with a long message and
 * a long error type; the last without a message), none for stream
 * "quiet". */
static void
answer_groups (fake_t *fake, request_t *req)
{
    if (strstr (req->body, "\"streamName\":\"quiet\""))
        fake_reply (fake, req, "OK", "{\"groups\":[]}");
    else
        fake_reply (fake, req, "OK",
                    "{\"groups\":[{\"fingerprint\":\"c8ece6878338f747\",\"count\":412,"
                    "\"firstSeen\":\"2026-06-09T10:02:11.000Z\",\"lastSeen\":\"2026-06-09T14:32:13.500Z\","
                    "\"streams\":[\"orders\",\"payments\"],\"errorType\":"
                    "\"org.springframework.web.client.ResourceAccessException\",\"message\":\"I/O error on POST"
                    " request for <str>: Read timed out after <num> ms calling <ip>\",\"sampleId\":"
                    "\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\"},{\"fingerprint\":\"fe63519f123bf281\",\"count\":3,"
                    "\"firstSeen\":\"2026-06-09T11:00:00.000Z\",\"lastSeen\":\"2026-06-09T11:00:00.000Z\","
                    "\"streams\":[\"payments\"],\"errorType\":\"com.acme.NotFound\",\"message\":"
                    "\"Order <hex> not found\",\"sampleId\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607183\"},"
                    "{\"fingerprint\":\"00000000000000e1\",\"count\":1,\"firstSeen\":\"2026-06-09T09:00:00.000Z\","
                    "\"lastSeen\":\"2026-06-09T09:00:00.000Z\",\"streams\":[\"ops\"],\"errorType\":\"E\",\"message\":\"\","
                    "\"sampleId\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607184\"}]}");
}

/* The replay jobs of answer_replay: A runs to DONE, F ends DONE with
 * failed events, C is cancelled on its way. */
#define JOB_A "0190f1d2-6c4e-7a01-8b2c-00000000000a"
#define JOB_F "0190f1d2-6c4e-7a01-8b2c-00000000000f"
#define JOB_C "0190f1d2-6c4e-7a01-8b2c-00000000000c"
#define JOB_TOTAL 5

/* REPLAY.STATUS calls the fake has answered for a job so far (the job
 * moves one event on with each), and the body of the last REPLAY (the
 * fake's thread writes both; a test reads them after fake_stop, or
 * after the dlqctl it ran has exited). */
static int status_calls;
static char replay_body [1024];

/* A job as the gateway reports it. */
static void
job_json (char *out, size_t size, const char *id, const char *state, int done, int failed, const char *last_error)
{
    snprintf (out, size, "{\"job\":\"%s\",\"state\":\"%s\",\"target\":\"endpoint\",\"rate\":50,\"total\":%d,"
              "\"done\":%d,\"replayed\":%d,\"skipped\":0,\"quarantined\":0,\"failed\":%d,"
              "\"createdAt\":\"2026-06-09T14:32:13.500Z\",\"updatedAt\":\"2026-06-09T14:32:14.500Z\"%s%s%s}",
              id, state, JOB_TOTAL, done, done - failed, failed, last_error ? ",\"lastError\":\"" : "",
              last_error ? last_error : "", last_error ? "\"" : "");
}

/* The job id in a request body {"job":"..."}, or "". */
static void
body_job_id (const request_t *req, char out [40])
{
    const char *at = strstr (req->body, "\"job\":\"");
    snprintf (out, 40, "%.36s", at ? at + 7 : "");
}

/* REPLAY: a dry run of 3 events (2 in the sample; none for stream
 * "mute"), or a new job (F for stream payments, C for stream stop, A
 * otherwise); target endpoint of stream "closed" is refused. */
static void
answer_replay_start (fake_t *fake, request_t *req)
{
    char job [1024];
    snprintf (replay_body, sizeof replay_body, "%s", req->body);
    const char *id = strstr (req->body, "\"streamName\":\"payments\"") ? JOB_F
                   : strstr (req->body, "\"streamName\":\"stop\"") ? JOB_C : JOB_A;
    if (strstr (req->body, "\"streamName\":\"closed\""))
        fake_reply (fake, req, "ERR", "{\"code\":\"INVALID_REQUEST\",\"message\":\"no replay endpoint\","
                    "\"field\":\"target\"}");
    else
    if (strstr (req->body, "\"status\":\"mute\""))
        fake_reply (fake, req, "OK", strstr (req->body, "\"dryRun\":true") ? "{\"dryRun\":true}" : "{\"job\":\"x\"}");
    else
    if (strstr (req->body, "\"dryRun\":true"))
        fake_reply (fake, req, "OK",
                    "{\"dryRun\":true,\"count\":3,\"sample\":[{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\","
                    "\"streamName\":\"orders\",\"error\":{\"type\":\"java.net.SocketTimeoutException\"},"
                    "\"status\":\"PENDING\"},{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607183\",\"streamName\":"
                    "\"payments\",\"error\":{\"type\":\"com.acme.NotFound\"},\"status\":\"DLQ\"}]}");
    else {
        job_json (job, sizeof job, id, "RUNNING", 0, 0, NULL);
        fake_reply (fake, req, "OK", job);
    }
}

/* REPLAY.STATUS of a job: one event further on each call, then DONE (F
 * with 2 failed), or CANCELLED after 2 calls (C). */
static void
answer_job_status (fake_t *fake, request_t *req, const char *id)
{
    char job [1024];
    int done = ++status_calls < JOB_TOTAL ? status_calls : JOB_TOTAL;
    bool cancelled = strcmp (id, JOB_C) == 0 && done >= 2;
    const char *state = cancelled ? "CANCELLED" : done == JOB_TOTAL ? "DONE" : "RUNNING";
    bool f = strcmp (id, JOB_F) == 0;
    job_json (job, sizeof job, id, state, cancelled ? 2 : done, f && done == JOB_TOTAL ? 2 : 0,
              f ? "stream payments has no replay_route" : NULL);
    fake_reply (fake, req, "OK", job);
}

/* REPLAY.STATUS {}: jobs A (done) and C (cancelled); {"job":...}: as
 * answer_job_status; an unknown job is NOT_FOUND. */
static void
answer_replay_status (fake_t *fake, request_t *req)
{
    char id [40], a [1024], c [1024], body [2100];
    body_job_id (req, id);
    if (strcmp (req->body, "{}") == 0) {
        job_json (a, sizeof a, JOB_A, "DONE", JOB_TOTAL, 0, NULL);
        job_json (c, sizeof c, JOB_C, "CANCELLED", 2, 0, NULL);
        snprintf (body, sizeof body, "{\"jobs\":[%s,%s]}", c, a);
        fake_reply (fake, req, "OK", body);
    }
    else
    if (strcmp (id, JOB_A) == 0 || strcmp (id, JOB_F) == 0 || strcmp (id, JOB_C) == 0)
        answer_job_status (fake, req, id);
    else
        fake_reply (fake, req, "ERR", "{\"code\":\"NOT_FOUND\",\"message\":\"no such job\",\"field\":\"job\"}");
}

/* REPLAY.PAUSE / RESUME / CANCEL: the job in the state asked for, except
 * that job A is DONE (INVALID_STATE) and other jobs than A, F, C are not
 * known. */
static void
answer_replay_move (fake_t *fake, request_t *req)
{
    char id [40], job [1024];
    body_job_id (req, id);
    const char *state = strcmp (req->verb, "REPLAY.PAUSE") == 0 ? "PAUSED"
                      : strcmp (req->verb, "REPLAY.RESUME") == 0 ? "RUNNING" : "CANCELLED";
    if (strcmp (id, JOB_A) == 0)
        fake_reply (fake, req, "ERR", "{\"code\":\"INVALID_STATE\",\"message\":\"job is DONE\"}");
    else
    if (strcmp (id, JOB_F) == 0 || strcmp (id, JOB_C) == 0) {
        job_json (job, sizeof job, id, state, 2, 0, NULL);
        fake_reply (fake, req, "OK", job);
    }
    else
        fake_reply (fake, req, "ERR", "{\"code\":\"NOT_FOUND\",\"message\":\"no such job\",\"field\":\"job\"}");
}

/* RESOLVE / FAIL: the event's state after it; id "nosuch" is NOT_FOUND,
 * id "mute" gets a reply without the counts. */
static void
answer_outcome (fake_t *fake, request_t *req)
{
    bool resolve = strcmp (req->verb, "RESOLVE") == 0;
    if (strstr (req->body, "\"nosuch\""))
        fake_reply (fake, req, "ERR", "{\"code\":\"NOT_FOUND\",\"message\":\"no such event\",\"field\":\"id\"}");
    else
    if (strstr (req->body, "\"mute\""))
        fake_reply (fake, req, "OK", "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\",\"status\":\"PENDING\"}");
    else
        fake_reply (fake, req, "OK", resolve
                    ? "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\",\"status\":\"SUCCEEDED\",\"retryCount\":0,"
                      "\"replayCount\":1,\"retryAfter\":\"2026-06-09T14:42:13.500Z\"}"
                    : "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\",\"status\":\"PENDING\",\"retryCount\":2,"
                      "\"replayCount\":1,\"retryAfter\":\"2026-06-09T14:34:13.500Z\"}");
}

/* The replay verbs; false when verb is not one. */
static bool
answer_replay (fake_t *fake, request_t *req)
{
    if (strcmp (req->verb, "REPLAY") == 0)
        answer_replay_start (fake, req);
    else
    if (strcmp (req->verb, "REPLAY.STATUS") == 0)
        answer_replay_status (fake, req);
    else
    if (strncmp (req->verb, "REPLAY.", 7) == 0)
        answer_replay_move (fake, req);
    else
    if (strcmp (req->verb, "RESOLVE") == 0 || strcmp (req->verb, "FAIL") == 0)
        answer_outcome (fake, req);
    else
        return false;
    return true;
}

/* A gateway that stores every PUT and answers the query verbs with fixed
 * bodies, REDELIVER as answer_redeliver, COUNT as answer_count, GROUPS
 * as answer_groups and the replay verbs as answer_replay. */
static void
answer_queries (fake_t *fake, request_t *req)
{
    if (answer_replay (fake, req))
        return;
    if (strcmp (req->verb, "PUT") == 0)
        fake_reply_stored (fake, req, false);
    else
    if (strcmp (req->verb, "GET") == 0)
        fake_reply (fake, req, "OK", "{\"event\":{\"id\":\"e1\",\"tags\":[1,{\"a\":\"}\"}]}}");
    else
    if (strcmp (req->verb, "LIST") == 0)
        fake_reply (fake, req, "OK", "{\"events\":[],\"nextCursor\":\"17.2\"}");
    else
    if (strcmp (req->verb, "STATS") == 0)
        fake_reply (fake, req, "OK", "{\"events\":3}");
    else
    if (strcmp (req->verb, "PING") == 0)
        fake_reply (fake, req, "OK", "{\"pong\":true,\"version\":\"0.1.0\",\"protocol\":1}");
    else
    if (strcmp (req->verb, "REDELIVER") == 0)
        answer_redeliver (fake, req);
    else
    if (strcmp (req->verb, "COUNT") == 0)
        answer_count (fake, req);
    else
    if (strcmp (req->verb, "GROUPS") == 0)
        answer_groups (fake, req);
    else
        fake_reply (fake, req, "ERR", "{\"code\":\"UNKNOWN_VERB\",\"message\":\"no\"}");
}

/* What dlqctl's tests talk to: PUTs are stored, except that an event of
 * error type "bad" is rejected and one of stream "dup" is a duplicate; a
 * LIST page has one event and a next cursor; a pong tells maxMessageBytes;
 * STATS tells two sinks, GET of event "e2" its deliveries to them and GET
 * of "e3" its replay state; the rest as answer_queries. */
static void
dlqctl_gateway (fake_t *fake, request_t *req)
{
    if (strcmp (req->verb, "PUT") == 0 && strstr (req->body, "\"type\":\"bad\""))
        fake_reply (fake, req, "ERR",
                    "{\"code\":\"INVALID_EVENT\",\"message\":\"error.type is required\",\"field\":\"error.type\"}");
    else
    if (strcmp (req->verb, "PUT") == 0)
        fake_reply_stored (fake, req, strstr (req->body, "\"streamName\":\"dup\"") != NULL);
    else
    if (strcmp (req->verb, "LIST") == 0)
        fake_reply (fake, req, "OK",
                    "{\"events\":[{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\",\"streamName\":\"orders\","
                    "\"operationType\":\"INSERT\",\"error\":{\"type\":\"java.lang.IllegalStateException\","
                    "\"message\":\"downstream\\ncall failed\"},\"attempts\":3,\"status\":\"PENDING\","
                    "\"createdAt\":\"2026-06-09T14:32:13.500Z\"}],\"nextCursor\":\"17.2\"}");
    else
    if (strcmp (req->verb, "PING") == 0)
        fake_reply (fake, req, "OK", "{\"pong\":true,\"version\":\"0.1.0\",\"protocol\":1,\"maxMessageBytes\":1048576}");
    else
    if (strcmp (req->verb, "STATS") == 0)
        fake_reply (fake, req, "OK",
                    "{\"events\":2,\"sinks\":{\"s\":{\"type\":\"scripted\",\"backlog\":0,\"delivered\":5,"
                    "\"retrying\":1,\"failed\":2,\"redelivered\":0,\"circuit\":\"half-open\",\"lastError\":"
                    "\"scripted\\npermanent failure of a sink whose error message goes on and on\","
                    "\"lastErrorAt\":\"2026-06-09T14:32:13.500Z\",\"counters\":{\"calls\":8}},"
                    "\"archive\":{\"type\":\"jsonl\",\"backlog\":12,\"delivered\":0,\"retrying\":0,\"failed\":0,"
                    "\"redelivered\":1234567,\"circuit\":\"closed\",\"counters\":{}}}}");
    else
    if (strcmp (req->verb, "GET") == 0 && strstr (req->body, "\"e3\""))
        fake_reply (fake, req, "OK",
                    "{\"event\":{\"id\":\"e3\",\"status\":\"PENDING\"},\"replay\":{\"retryCount\":2,\"replayCount\":1,"
                    "\"retryAfter\":\"2026-06-09T14:34:13.500Z\"}}");
    else
    if (strcmp (req->verb, "GET") == 0 && strstr (req->body, "\"e2\""))
        fake_reply (fake, req, "OK",
                    "{\"event\":{\"id\":\"e2\"},\"deliveries\":[{\"sink\":\"s\",\"state\":\"retrying\","
                    "\"attempts\":2,\"nextAttemptAt\":\"2026-06-09T14:32:13.500Z\",\"lastError\":\"timeout\"},"
                    "{\"sink\":\"archive\",\"state\":\"delivered\",\"attempts\":1}]}");
    else
        answer_queries (fake, req);
}

/* ---- helpers ------------------------------------------------------------- */

/* Run "dlqctl -e <fake's endpoint> ARGS" in dir and check its exit status
 * and its standard output and error (each only when not NULL). */
static void
expect_dlqctl (const char *dir, const fake_t *fake, const char *args, int status,
               const char *want_out, const char *want_err)
{
    char command [1024], *out, *err;
    snprintf (command, sizeof command, "-e %s %s", fake->endpoint, args);
    cr_assert_eq (dlqctl_run (dir, command, &out, &err), status, "dlqctl %s\nstdout: %s\nstderr: %s", args, out, err);
    if (want_out)
        cr_assert_str_eq (out, want_out, "dlqctl %s\nstdout:\n%s", args, out);
    if (want_err)
        cr_assert_str_eq (err, want_err, "dlqctl %s\nstderr:\n%s", args, err);
    free (out);
    free (err);
}

/* Stop the fake gateway, check that it received nothing since it had
 * received sent requests (the usage errors run since then sent nothing),
 * and clean up. */
static void
end_usage_checks (fake_t *fake, int sent, const char *dir)
{
    fake_stop (fake);
    cr_assert_eq (fake->received, sent, "usage errors send nothing");
    fake_destroy (&fake);
    test_rmtree (dir);
}

/* The fake gateway of the dlqctl tests (dlqctl_gateway), with a fresh
 * directory for dlqctl's output made into dir. */
static fake_t *
dlqctl_start (char *dir)
{
    test_tmpdir (dir);
    return fake_start (dlqctl_gateway, 1000);
}

/* Stop fake, free it and remove dir. */
static void
dlqctl_finish (fake_t *fake, const char *dir)
{
    fake_stop (fake);
    fake_destroy (&fake);
    test_rmtree (dir);
}

/* "dlqctl COMMAND ARGS" is a usage error: exit status 64, nothing on
 * stdout, and "dlqctl: COMMAND: MESSAGE" with the hint of COMMAND's help
 * on stderr (message NULL: what it prints is not looked at). */
static void
expect_usage_error (const char *dir, const fake_t *fake, const char *command, const char *args, const char *message)
{
    char line [512], want [1024];
    snprintf (line, sizeof line, "%s%s%s", command, args [0] ? " " : "", args);
    snprintf (want, sizeof want, "dlqctl: %s: %s\nTry 'dlqctl %s --help'.\n", command, message ? message : "",
              command);
    expect_dlqctl (dir, fake, line, 64, message ? "" : NULL, message ? want : NULL);
}

typedef struct {
    const char *args;           /* after the command */
    const char *message;        /* NULL: not looked at */
} usage_case_t;

/* Each of cases [0, count) is a usage error of command
 * (expect_usage_error) and "COMMAND --help" exits 0 saying nothing on
 * stderr; then stop fake, which must have received nothing since, and
 * remove dir (end_usage_checks). */
static void
expect_usage_errors (const char *dir, fake_t *fake, const char *command, const usage_case_t *cases, size_t count)
{
    int sent = fake->received;
    for (size_t i = 0; i < count; i++)
        expect_usage_error (dir, fake, command, cases [i].args, cases [i].message);
    char help [128];
    snprintf (help, sizeof help, "%s --help", command);
    expect_dlqctl (dir, fake, help, 0, NULL, "");
    end_usage_checks (fake, sent, dir);
}

static void
write_file (const char *path, const char *text)
{
    FILE *file = fopen (path, "w");
    cr_assert_not_null (file);
    fputs (text, file);
    fclose (file);
}

static size_t
make_event (char *out, size_t size, const char *id)
{
    return (size_t) snprintf (out, size,
                              "{\"id\":\"%s\",\"streamName\":\"orders\",\"error\":{\"type\":\"E\"}}", id);
}

static dlq_client_t *
fast_client (const char *endpoint)
{
    dlq_client_t *client = dlq_client_new (endpoint);
    cr_assert_not_null (client);
    cr_assert_eq (dlq_client_set_timeout (client, FAST_TIMEOUT_MS), DLQ_CLIENT_OK);
    return client;
}

/* What the completion callback saw, per tag. */
typedef struct {
    int                 count;
    dlq_client_result_t results [64];
    char                ids [64][37];
    bool                duplicates [64];
    char                codes [64][32];
    char                fields [64][32];
    uint64_t            order [64];     /* tags in delivery order */
} seen_t;

static void
on_completion (const dlq_client_completion_t *done, void *arg)
{
    seen_t *seen = arg;
    cr_assert_lt (done->tag, 64);
    cr_assert_not_null (done->id);
    cr_assert_not_null (done->code);
    cr_assert_not_null (done->message);
    cr_assert_not_null (done->field);
    seen->order [seen->count++] = done->tag;
    seen->results [done->tag] = done->result;
    snprintf (seen->ids [done->tag], 37, "%s", done->id);
    seen->duplicates [done->tag] = done->duplicate;
    snprintf (seen->codes [done->tag], 32, "%s", done->code);
    snprintf (seen->fields [done->tag], 32, "%s", done->field);
}

/* Submit n events tagged 0..n-1, with ids kept in ids. */
static void
submit_events (dlq_client_t *client, int n, char ids [][37])
{
    char body [256];
    for (int i = 0; i < n; i++) {
        dlq_client_uuid_v7 (ids [i]);
        size_t len = make_event (body, sizeof body, ids [i]);
        cr_assert_eq (dlq_client_put_async (client, body, len, (uint64_t) i), DLQ_CLIENT_OK);
    }
}

/* ---- tests --------------------------------------------------------------- */

Test (client, blocking_put_returns_id_and_duplicate_flag)
{
    fake_t *fake = fake_start (junk_then_answer, 1000);
    dlq_client_t *client = fast_client (fake->endpoint);
    char id [37], stored [DLQ_CLIENT_ID_SIZE], body [256];
    bool duplicate = false;
    dlq_client_uuid_v7 (id);
    size_t len = make_event (body, sizeof body, id);
    cr_assert_eq (dlq_client_put (client, body, len, stored, &duplicate), DLQ_CLIENT_OK,
                  "put: %s", dlq_client_error_message (client));
    cr_assert_str_eq (stored, id);
    cr_assert (duplicate);
    cr_assert_str_eq (dlq_client_error_message (client), "");
    cr_assert_eq (dlq_client_ignored_replies (client), 3, "three junk replies dropped");
    dlq_client_destroy (&client);
    cr_assert_null (client);
    fake_stop (fake);
    cr_assert (fake->frames_ok, "requests must be [verb][12-byte id][body]");
    cr_assert_str_eq (fake->last_verb, "PUT");
    cr_assert_str_eq (fake->last_body, body);
    cr_assert_eq (fake->received, 1, "junk replies must not cause a resend");
    fake_destroy (&fake);
}

Test (client, out_of_order_replies_are_matched_by_request_id)
{
    fake_t *fake = fake_start_holding (hold_all, 2000, 20);
    dlq_client_t *client = fast_client (fake->endpoint);
    cr_assert_eq (dlq_client_set_timeout (client, HOLD_TIMEOUT_MS), DLQ_CLIENT_OK);
    char ids [20][37];
    seen_t seen = { 0 };
    submit_events (client, 20, ids);
    cr_assert_eq (dlq_client_flush (client, 5000, on_completion, &seen), DLQ_CLIENT_OK);
    cr_assert_eq (seen.count, 20);
    for (int i = 0; i < 20; i++) {
        cr_assert_eq (seen.results [i], DLQ_CLIENT_OK);
        cr_assert_str_eq (seen.ids [i], ids [i], "completion %d got the reply of another request", i);
    }
    cr_assert_eq (seen.order [0], 19, "the fake answers newest first");
    cr_assert_eq (dlq_client_outstanding (client), 0);
    dlq_client_destroy (&client);
    fake_stop (fake);
    cr_assert_eq (fake->received, 20);
    fake_destroy (&fake);
}

Test (client, window_bounds_requests_in_flight)
{
    fake_t *fake = fake_start (hold_all, 100);
    dlq_client_t *client = fast_client (fake->endpoint);
    cr_assert_eq (dlq_client_set_timeout (client, HOLD_TIMEOUT_MS), DLQ_CLIENT_OK);
    cr_assert_eq (dlq_client_set_window (client, 4), DLQ_CLIENT_OK);
    cr_assert_eq (dlq_client_window (client), 4);
    char ids [30][37];
    seen_t seen = { 0 };
    submit_events (client, 30, ids);
    cr_assert_eq (dlq_client_flush (client, 10000, on_completion, &seen), DLQ_CLIENT_OK);
    cr_assert_eq (seen.count, 30);
    for (int i = 0; i < 30; i++)
        cr_assert_str_eq (seen.ids [i], ids [i]);
    dlq_client_destroy (&client);
    fake_stop (fake);
    cr_assert_eq (fake->received, 30, "no resends expected");
    cr_assert_leq (fake->max_held, 4, "at most the window (4) may be in flight, saw %d", fake->max_held);
    cr_assert_gt (fake->max_held, 1, "requests are pipelined");
    fake_destroy (&fake);
}

Test (client, nowait_submit_reports_a_full_window)
{
    fake_t *fake = fake_start (hold_all, 300);
    dlq_client_t *client = fast_client (fake->endpoint);
    cr_assert_eq (dlq_client_set_timeout (client, HOLD_TIMEOUT_MS), DLQ_CLIENT_OK);
    cr_assert_eq (dlq_client_set_window (client, 2), DLQ_CLIENT_OK);
    char body [256], id [37];
    dlq_client_uuid_v7 (id);
    size_t len = make_event (body, sizeof body, id);
    cr_assert_eq (dlq_client_put_async_nowait (client, body, len, 0), DLQ_CLIENT_OK);
    cr_assert_eq (dlq_client_put_async_nowait (client, body, len, 1), DLQ_CLIENT_OK);
    cr_assert_eq (dlq_client_put_async_nowait (client, body, len, 2), DLQ_CLIENT_ERR_WINDOW_FULL);
    cr_assert_eq (dlq_client_outstanding (client), 2);
    cr_assert_eq (dlq_client_set_window (client, 8), DLQ_CLIENT_ERR_ARGS, "no resize while busy");
    seen_t seen = { 0 };
    cr_assert_eq (dlq_client_flush (client, 5000, on_completion, &seen), DLQ_CLIENT_OK);
    cr_assert_eq (seen.count, 2);
    cr_assert_eq (dlq_client_put_async_nowait (client, body, len, 2), DLQ_CLIENT_OK);
    cr_assert_eq (dlq_client_flush (client, 5000, on_completion, &seen), DLQ_CLIENT_OK);
    cr_assert_eq (seen.count, 3);
    dlq_client_destroy (&client);
    fake_stop (fake);
    cr_assert_eq (fake->max_held, 2);
    fake_destroy (&fake);
}

Test (client, timeout_resends_on_a_new_connection_and_ignores_the_late_reply)
{
    fake_t *fake = fake_start (drop_first_then_answer_late, 1000);
    dlq_client_t *client = fast_client (fake->endpoint);
    char id [37], stored [DLQ_CLIENT_ID_SIZE], body [256];
    bool duplicate = true;
    dlq_client_uuid_v7 (id);
    size_t len = make_event (body, sizeof body, id);
    int64_t start = now_ms ();
    cr_assert_eq (dlq_client_put (client, body, len, stored, &duplicate), DLQ_CLIENT_OK,
                  "put: %s", dlq_client_error_message (client));
    cr_assert_geq (now_ms () - start, FAST_TIMEOUT_MS - 5, "resent before the timeout");
    cr_assert_str_eq (stored, id, "the late reply to the superseded request was taken");
    cr_assert_not (duplicate);
    cr_assert_eq (dlq_client_ignored_replies (client), 1, "the late reply arrived and was dropped");
    dlq_client_destroy (&client);
    fake_stop (fake);
    cr_assert_eq (fake->received, 2);
    cr_assert_eq (fake->peer_count, 2, "the resend must come on a new connection");
    cr_assert (fake->id_lens [0] != fake->id_lens [1]
               || memcmp (fake->ids [0], fake->ids [1], fake->id_lens [0]) != 0,
               "the resend must carry a new request id");
    fake_destroy (&fake);
}

Test (client, pipelined_put_resends_after_timeout)
{
    fake_t *fake = fake_start (drop_first_then_answer_late, 1000);
    dlq_client_t *client = fast_client (fake->endpoint);
    char ids [1][37];
    seen_t seen = { 0 };
    submit_events (client, 1, ids);
    cr_assert_eq (dlq_client_poll (client, 0, on_completion, &seen), 0);
    while (seen.count == 0)
        dlq_client_poll (client, -1, on_completion, &seen);
    cr_assert_eq (seen.results [0], DLQ_CLIENT_OK);
    cr_assert_str_eq (seen.ids [0], ids [0]);
    cr_assert_not (seen.duplicates [0]);
    dlq_client_destroy (&client);
    fake_stop (fake);
    cr_assert_eq (fake->peer_count, 2);
    fake_destroy (&fake);
}

Test (client, retries_run_out_with_timeout)
{
    fake_t *fake = fake_start (stay_silent, 1000);
    dlq_client_t *client = fast_client (fake->endpoint);
    cr_assert_eq (dlq_client_set_timeout (client, 100), DLQ_CLIENT_OK);
    cr_assert_eq (dlq_client_set_retries (client, 2), DLQ_CLIENT_OK);
    int64_t start = now_ms ();
    cr_assert_eq (dlq_client_ping (client, NULL), DLQ_CLIENT_ERR_TIMEOUT);
    int64_t elapsed = now_ms () - start;
    cr_assert_geq (elapsed, 300 - 5);
    cr_assert_lt (elapsed, 2000);
    cr_assert_str_eq (dlq_client_error_code (client), "");
    cr_assert_neq (strstr (dlq_client_error_message (client), "no reply"), NULL,
                   "message: %s", dlq_client_error_message (client));
    dlq_client_destroy (&client);
    fake_stop (fake);
    cr_assert_eq (fake->received, 3, "one send and two retries");
    cr_assert_eq (fake->peer_count, 3, "each retry on a new connection");
    fake_destroy (&fake);
}

Test (client, err_reply_exposes_code_message_and_field)
{
    fake_t *fake = fake_start (reject_event, 1000);
    dlq_client_t *client = fast_client (fake->endpoint);
    char body [256];
    size_t len = make_event (body, sizeof body, "not-a-uuid");
    cr_assert_eq (dlq_client_put (client, body, len, NULL, NULL), DLQ_CLIENT_ERR_SERVER);
    cr_assert_str_eq (dlq_client_error_code (client), "INVALID_EVENT");
    cr_assert_str_eq (dlq_client_error_message (client), "error.type is \"required\" \xc3\xa9");
    cr_assert_str_eq (dlq_client_error_field (client), "error.type");
    dlq_client_destroy (&client);
    fake_stop (fake);
    fake_destroy (&fake);
}

Test (client, err_reply_reaches_the_completion)
{
    fake_t *fake = fake_start (reject_event, 1000);
    dlq_client_t *client = fast_client (fake->endpoint);
    char ids [3][37];
    seen_t seen = { 0 };
    submit_events (client, 3, ids);
    cr_assert_eq (dlq_client_flush (client, 5000, on_completion, &seen), DLQ_CLIENT_OK);
    cr_assert_eq (seen.count, 3);
    for (int i = 0; i < 3; i++) {
        cr_assert_eq (seen.results [i], DLQ_CLIENT_ERR_SERVER);
        cr_assert_str_eq (seen.codes [i], "INVALID_EVENT");
        cr_assert_str_eq (seen.fields [i], "error.type");
        cr_assert_str_eq (seen.ids [i], "");
    }
    dlq_client_destroy (&client);
    fake_stop (fake);
    fake_destroy (&fake);
}

Test (client, nothing_listening_is_a_transport_error)
{
    /* Find a free port: bind, note it, close. */
    void *ctx = zmq_ctx_new ();
    void *probe = zmq_socket (ctx, ZMQ_ROUTER);
    char endpoint [64];
    size_t size = sizeof endpoint;
    cr_assert_eq (zmq_bind (probe, "tcp://127.0.0.1:*"), 0);
    zmq_getsockopt (probe, ZMQ_LAST_ENDPOINT, endpoint, &size);
    zmq_close (probe);
    zmq_ctx_term (ctx);

    dlq_client_t *client = fast_client (endpoint);
    int64_t start = now_ms ();
    cr_assert_eq (dlq_client_ping (client, NULL), DLQ_CLIENT_ERR_TRANSPORT);
    cr_assert_lt (now_ms () - start, 1000, "a missing gateway must not cost every retry");
    cr_assert_neq (strstr (dlq_client_error_message (client), "no connection"), NULL,
                   "message: %s", dlq_client_error_message (client));
    char ids [2][37];
    seen_t seen = { 0 };
    submit_events (client, 2, ids);
    cr_assert_eq (dlq_client_flush (client, 5000, on_completion, &seen), DLQ_CLIENT_OK);
    cr_assert_eq (seen.count, 2);
    cr_assert_eq (seen.results [0], DLQ_CLIENT_ERR_TRANSPORT);
    cr_assert_eq (seen.results [1], DLQ_CLIENT_ERR_TRANSPORT);
    dlq_client_destroy (&client);
}

Test (client, malformed_endpoint_is_refused)
{
    cr_assert_null (dlq_client_new ("not-an-endpoint"));
    cr_assert_null (dlq_client_new (NULL));
    dlq_client_t *client = NULL;
    dlq_client_destroy (&client);
    dlq_client_destroy (NULL);
}

Test (client, query_calls_send_their_bodies_and_return_raw_replies)
{
    fake_t *fake = fake_start (answer_queries, 1000);
    dlq_client_t *client = fast_client (fake->endpoint);
    char *body = NULL;
    size_t len = 0;

    cr_assert_eq (dlq_client_get (client, "e1", &body, &len), DLQ_CLIENT_OK);
    cr_assert_str_eq (body, "{\"id\":\"e1\",\"tags\":[1,{\"a\":\"}\"}]}");
    cr_assert_eq (len, strlen (body));
    free (body);

    cr_assert_eq (dlq_client_get_reply (client, "e1", &body, &len), DLQ_CLIENT_OK);
    cr_assert_str_eq (body, "{\"event\":{\"id\":\"e1\",\"tags\":[1,{\"a\":\"}\"}]}}");
    cr_assert_eq (len, strlen (body));
    free (body);
    cr_assert_str_eq (fake->last_body, "{\"id\":\"e1\"}");

    cr_assert_eq (dlq_client_list (client, "ord\"ers", 50, "17.1", &body, NULL), DLQ_CLIENT_OK);
    cr_assert_str_eq (body, "{\"events\":[],\"nextCursor\":\"17.2\"}");
    free (body);
    cr_assert_str_eq (fake->last_body, "{\"streamName\":\"ord\\\"ers\",\"limit\":50,\"cursor\":\"17.1\"}");

    cr_assert_eq (dlq_client_list (client, "orders", 0, NULL, &body, NULL), DLQ_CLIENT_OK);
    free (body);
    cr_assert_str_eq (fake->last_body, "{\"streamName\":\"orders\"}");

    cr_assert_eq (dlq_client_stats (client, &body, &len), DLQ_CLIENT_OK);
    cr_assert_str_eq (body, "{\"events\":3}");
    free (body);

    dlq_client_pong_t pong;
    cr_assert_eq (dlq_client_ping (client, &pong), DLQ_CLIENT_OK);
    cr_assert_str_eq (pong.version, "0.1.0");
    cr_assert_eq (pong.protocol, 1);
    cr_assert_geq (pong.round_trip_us, 0);
    dlq_client_destroy (&client);
    fake_stop (fake);
    cr_assert_str_eq (fake->last_verb, "PING");
    cr_assert_str_eq (fake->last_body, "");
    fake_destroy (&fake);
}

Test (client, redeliver_sends_its_filter_and_returns_the_count)
{
    static const struct {
        const char *sink, *stream, *id, *body;
    } calls [] = {
        { "s\"1", NULL, NULL, "{\"sink\":\"s\\\"1\"}" },
        { "s", "bad", NULL, "{\"sink\":\"s\",\"streamName\":\"bad\"}" },
        { "s", NULL, "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182",
          "{\"sink\":\"s\",\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\"}" },
    };
    fake_t *fake = fake_start (answer_queries, 1000);
    dlq_client_t *client = fast_client (fake->endpoint);
    for (size_t i = 0; i < sizeof calls / sizeof calls [0]; i++) {
        int64_t requeued = -1;
        cr_assert_eq (dlq_client_redeliver (client, calls [i].sink, calls [i].stream, calls [i].id, &requeued),
                      DLQ_CLIENT_OK, "%s", dlq_client_error_message (client));
        cr_assert_eq (requeued, 3);
        cr_assert_str_eq (fake->last_verb, "REDELIVER");
        cr_assert_str_eq (fake->last_body, calls [i].body);
    }
    cr_assert_eq (dlq_client_redeliver (client, "s", NULL, NULL, NULL), DLQ_CLIENT_OK, "no place for the count");

    int sent = fake->received;
    cr_assert_eq (dlq_client_redeliver (client, "s", "bad", "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182", NULL),
                  DLQ_CLIENT_ERR_ARGS);
    cr_assert_neq (strstr (dlq_client_error_message (client), "not both"), NULL);
    cr_assert_eq (dlq_client_redeliver (client, NULL, NULL, NULL, NULL), DLQ_CLIENT_ERR_ARGS);
    cr_assert_eq (fake->received, sent, "nothing sent for bad arguments");

    cr_assert_eq (dlq_client_redeliver (client, "nosuch", "bad", NULL, NULL), DLQ_CLIENT_ERR_SERVER);
    cr_assert_str_eq (dlq_client_error_code (client), "INVALID_REQUEST");
    cr_assert_str_eq (dlq_client_error_message (client), "sink must name a configured sink");
    cr_assert_str_eq (dlq_client_error_field (client), "sink");
    cr_assert_eq (dlq_client_redeliver (client, "mute", NULL, NULL, NULL), DLQ_CLIENT_ERR_PROTOCOL);
    cr_assert_neq (strstr (dlq_client_error_message (client), "requeued"), NULL);
    cr_assert_eq (dlq_client_redeliver (client, "broken", NULL, NULL, NULL), DLQ_CLIENT_ERR_PROTOCOL,
                  "an ERR body that is no JSON object has no code, whatever it starts with");
    cr_assert_str_eq (dlq_client_error_code (client), "");
    dlq_client_destroy (&client);
    fake_stop (fake);
    fake_destroy (&fake);
}

/* A filter with every member, the strings needing escapes. */
static dlq_client_filter_t *
full_filter (void)
{
    dlq_client_filter_t *f = dlq_client_filter_new ();
    cr_assert_not_null (f);
    dlq_client_result_t results [] = {
        dlq_client_filter_set_stream (f, "ord\"ers"),
        dlq_client_filter_set_status (f, "DLQ"),
        dlq_client_filter_set_error_type (f, "java.net.SocketTimeoutException"),
        dlq_client_filter_set_fingerprint (f, "c8ece6878338f747"),
        dlq_client_filter_set_message_contains (f, "say \"hi\" \\ to\n\x01 caf\xc3\xa9"),
        dlq_client_filter_set_created_after (f, "2026-06-09T00:00:00Z"),
        dlq_client_filter_set_created_before (f, "2026-06-10T00:00:00+02:00"),
        dlq_client_filter_set_attempts_min (f, 2),
        dlq_client_filter_set_attempts_max (f, 5),
        dlq_client_filter_set_metadata_string (f, "tenant\"Id", "x"),
        dlq_client_filter_set_metadata_number (f, "shard", 3),
        dlq_client_filter_set_metadata_number (f, "ratio", 0.1),
        dlq_client_filter_set_metadata_number (f, "third", 1.0 / 3),
        dlq_client_filter_set_metadata_number (f, "big", -1e21),
        dlq_client_filter_set_metadata_bool (f, "vip", true),
        dlq_client_filter_set_metadata_string (f, "tenant\"Id", "ac\\me"),     /* replaces "x" */
    };
    for (size_t i = 0; i < sizeof results / sizeof results [0]; i++)
        cr_assert_eq (results [i], DLQ_CLIENT_OK, "setter %zu", i);
    return f;
}

#define FULL_FILTER_JSON                                                                                    \
    "\"streamName\":\"ord\\\"ers\",\"status\":\"DLQ\",\"errorType\":\"java.net.SocketTimeoutException\","    \
    "\"fingerprint\":\"c8ece6878338f747\",\"messageContains\":\"say \\\"hi\\\" \\\\ to\\u000a\\u0001 caf\xc3\xa9\"," \
    "\"createdAfter\":\"2026-06-09T00:00:00Z\",\"createdBefore\":\"2026-06-10T00:00:00+02:00\","              \
    "\"attemptsMin\":2,\"attemptsMax\":5,\"metadata\":{\"tenant\\\"Id\":\"ac\\\\me\",\"shard\":3,"            \
    "\"ratio\":0.1,\"third\":0.33333333333333331,\"big\":-1e+21,\"vip\":true}"

Test (client, workbench_calls_send_the_filter_escaped)
{
    fake_t *fake = fake_start (answer_queries, 1000);
    dlq_client_t *client = fast_client (fake->endpoint);
    dlq_client_filter_t *f = full_filter ();
    char *body = NULL;
    size_t len = 0;
    cr_assert_eq (dlq_client_list_filtered (client, f, 50, "17.1", &body, &len), DLQ_CLIENT_OK,
                  "%s", dlq_client_error_message (client));
    cr_assert_str_eq (body, "{\"events\":[],\"nextCursor\":\"17.2\"}");
    cr_assert_eq (len, strlen (body));
    free (body);
    cr_assert_str_eq (fake->last_verb, "LIST");
    cr_assert_str_eq (fake->last_body, "{" FULL_FILTER_JSON ",\"limit\":50,\"cursor\":\"17.1\"}");

    int64_t count = -1;
    cr_assert_eq (dlq_client_count (client, f, &count), DLQ_CLIENT_OK, "%s", dlq_client_error_message (client));
    cr_assert_eq (count, 42);
    cr_assert_str_eq (fake->last_verb, "COUNT");
    cr_assert_str_eq (fake->last_body, "{" FULL_FILTER_JSON "}");

    cr_assert_eq (dlq_client_groups (client, f, 5, &body, NULL), DLQ_CLIENT_OK);
    cr_assert_eq (strncmp (body, "{\"groups\":[{\"fingerprint\":\"c8ece6878338f747\",", 45), 0, "%s", body);
    free (body);
    cr_assert_str_eq (fake->last_verb, "GROUPS");
    cr_assert_str_eq (fake->last_body, "{" FULL_FILTER_JSON ",\"limit\":5}");
    dlq_client_filter_destroy (&f);
    cr_assert_null (f);
    dlq_client_filter_destroy (&f);
    dlq_client_filter_destroy (NULL);
    dlq_client_destroy (&client);
    fake_stop (fake);
    fake_destroy (&fake);
}

Test (client, filters_are_unset_cleared_and_optional)
{
    fake_t *fake = fake_start (answer_queries, 1000);
    dlq_client_t *client = fast_client (fake->endpoint);
    char *body = NULL;
    int64_t count = -1;
    cr_assert_eq (dlq_client_list_filtered (client, NULL, 0, NULL, &body, NULL), DLQ_CLIENT_OK);
    free (body);
    cr_assert_str_eq (fake->last_body, "{}", "no filter: every stream");
    cr_assert_eq (dlq_client_count (client, NULL, &count), DLQ_CLIENT_OK);
    cr_assert_str_eq (fake->last_body, "{}");
    cr_assert_eq (dlq_client_groups (client, NULL, 0, &body, NULL), DLQ_CLIENT_OK);
    free (body);
    cr_assert_str_eq (fake->last_body, "{}");

    dlq_client_filter_t *f = full_filter ();
    dlq_client_filter_clear (f);
    cr_assert_eq (dlq_client_count (client, f, NULL), DLQ_CLIENT_OK, "no place for the count");
    cr_assert_str_eq (fake->last_body, "{}", "cleared");
    dlq_client_filter_set_stream (f, "orders");
    dlq_client_filter_set_status (f, "DLQ");
    dlq_client_filter_set_attempts_min (f, 0);
    dlq_client_filter_set_attempts_max (f, 7);
    cr_assert_eq (dlq_client_count (client, f, &count), DLQ_CLIENT_OK);
    cr_assert_str_eq (fake->last_body, "{\"streamName\":\"orders\",\"status\":\"DLQ\",\"attemptsMin\":0,\"attemptsMax\":7}");
    dlq_client_filter_set_status (f, NULL);
    dlq_client_filter_set_attempts_min (f, -1);
    dlq_client_filter_set_attempts_max (f, -5);
    cr_assert_eq (dlq_client_list_filtered (client, f, 10, NULL, &body, NULL), DLQ_CLIENT_OK);
    free (body);
    cr_assert_str_eq (fake->last_body, "{\"streamName\":\"orders\",\"limit\":10}", "what dlq_client_list sends");
    dlq_client_filter_destroy (&f);
    dlq_client_destroy (&client);
    fake_stop (fake);
    fake_destroy (&fake);
}

Test (client, workbench_calls_refuse_what_cannot_be_sent)
{
    fake_t *fake = fake_start (answer_queries, 1000);
    dlq_client_t *client = fast_client (fake->endpoint);
    dlq_client_filter_t *f = dlq_client_filter_new ();
    cr_assert_eq (dlq_client_filter_set_metadata_number (f, "n", NAN), DLQ_CLIENT_ERR_ARGS);
    cr_assert_eq (dlq_client_filter_set_metadata_number (f, "n", INFINITY), DLQ_CLIENT_ERR_ARGS);
    cr_assert_eq (dlq_client_filter_set_metadata_string (f, NULL, "v"), DLQ_CLIENT_ERR_ARGS);
    cr_assert_eq (dlq_client_filter_set_metadata_bool (f, NULL, true), DLQ_CLIENT_ERR_ARGS);
    cr_assert_eq (dlq_client_filter_set_status (NULL, "DLQ"), DLQ_CLIENT_ERR_ARGS);
    cr_assert_eq (dlq_client_filter_set_attempts_min (NULL, 1), DLQ_CLIENT_ERR_ARGS);
    dlq_client_filter_clear (NULL);
    cr_assert_eq (dlq_client_list_filtered (client, f, 0, NULL, NULL, NULL), DLQ_CLIENT_ERR_ARGS);
    cr_assert_eq (dlq_client_groups (client, f, 0, NULL, NULL), DLQ_CLIENT_ERR_ARGS);
    cr_assert_eq (dlq_client_count (NULL, f, NULL), DLQ_CLIENT_ERR_ARGS);
    /* a refused value refuses the filter: no query runs without its member */
    dlq_client_filter_set_stream (f, "orders");
    cr_assert_eq (dlq_client_count (client, f, NULL), DLQ_CLIENT_ERR_ARGS);
    cr_assert_not_null (strstr (dlq_client_error_message (client), "refused"), "%s", dlq_client_error_message (client));
    char *page = NULL;
    cr_assert_eq (dlq_client_list_filtered (client, f, 0, NULL, &page, NULL), DLQ_CLIENT_ERR_ARGS);
    dlq_client_selection_t by_filter = { .filter = f };
    dlq_client_job_t job;
    cr_assert_eq (dlq_client_replay (client, &by_filter, DLQ_CLIENT_TARGET_ROUTE, 0, &job), DLQ_CLIENT_ERR_ARGS);
    cr_assert_eq (fake->received, 0, "nothing sent for bad arguments");
    dlq_client_filter_clear (f);
    cr_assert_eq (dlq_client_replay (client, &by_filter, DLQ_CLIENT_TARGET_ROUTE, -1, &job), DLQ_CLIENT_ERR_ARGS,
                  "a negative rate");
    cr_assert_eq (fake->received, 0, "nothing sent for bad arguments");
    cr_assert_eq (dlq_client_count (client, f, NULL), DLQ_CLIENT_OK, "cleared: accepted again");
    cr_assert_str_eq (fake->last_body, "{}", "the refused metadata was not kept");
    /* a NULL string value removes a metadata key, whatever its type */
    dlq_client_filter_set_metadata_number (f, "shard", 3);
    dlq_client_filter_set_metadata_bool (f, "vip", true);
    cr_assert_eq (dlq_client_filter_set_metadata_string (f, "shard", NULL), DLQ_CLIENT_OK);
    cr_assert_eq (dlq_client_filter_set_metadata_string (f, "absent", NULL), DLQ_CLIENT_OK);
    cr_assert_eq (dlq_client_count (client, f, NULL), DLQ_CLIENT_OK);
    cr_assert_str_eq (fake->last_body, "{\"metadata\":{\"vip\":true}}");
    dlq_client_filter_clear (f);

    dlq_client_filter_set_status (f, "mute");
    int64_t count = -1;
    cr_assert_eq (dlq_client_count (client, f, &count), DLQ_CLIENT_ERR_PROTOCOL);
    cr_assert_str_eq (dlq_client_error_message (client), "COUNT reply without a \"count\"");
    cr_assert_eq (count, -1, "untouched on failure");
    dlq_client_filter_set_status (f, NULL);
    dlq_client_filter_set_created_after (f, "yesterday");
    cr_assert_eq (dlq_client_count (client, f, &count), DLQ_CLIENT_ERR_SERVER);
    cr_assert_str_eq (dlq_client_error_code (client), "INVALID_REQUEST");
    cr_assert_str_eq (dlq_client_error_field (client), "createdAfter");
    dlq_client_filter_destroy (&f);
    dlq_client_destroy (&client);
    fake_stop (fake);
    fake_destroy (&fake);
}

/* Numbers are sent with a '.' even when the program's locale writes them
 * with a ',' (a de_DE locale made with localedef; skipped without it). */
Test (client, metadata_numbers_ignore_the_locale)
{
    char dir [256], command [600];
    test_tmpdir (dir);
    snprintf (command, sizeof command, "localedef -i de_DE -f UTF-8 %s/de_DE.UTF-8 >/dev/null 2>&1", dir);
    if (system (command) != 0) {
        test_rmtree (dir);
        cr_skip_test ("localedef cannot make a de_DE locale here");
    }
    setenv ("LOCPATH", dir, 1);
    char *previous = strdup (setlocale (LC_NUMERIC, NULL));
    cr_assert_not_null (setlocale (LC_NUMERIC, "de_DE.UTF-8"));
    char check [16];
    snprintf (check, sizeof check, "%.1f", 1.5);
    cr_assert_str_eq (check, "1,5", "the locale is in force");
    fake_t *fake = fake_start (answer_queries, 1000);
    dlq_client_t *client = fast_client (fake->endpoint);
    dlq_client_filter_t *f = dlq_client_filter_new ();
    dlq_client_filter_set_metadata_number (f, "ratio", 1.5);
    cr_assert_eq (dlq_client_count (client, f, NULL), DLQ_CLIENT_OK);
    setlocale (LC_NUMERIC, previous);
    free (previous);
    unsetenv ("LOCPATH");
    cr_assert_str_eq (fake->last_body, "{\"metadata\":{\"ratio\":1.5}}");
    dlq_client_filter_destroy (&f);
    dlq_client_destroy (&client);
    dlqctl_finish (fake, dir);
}

Test (client, blocking_call_keeps_pipelined_completions_for_poll)
{
    fake_t *fake = fake_start (answer_queries, 1000);
    dlq_client_t *client = fast_client (fake->endpoint);
    char ids [5][37];
    seen_t seen = { 0 };
    submit_events (client, 5, ids);
    cr_assert_eq (dlq_client_ping (client, NULL), DLQ_CLIENT_OK);
    cr_assert_eq (seen.count, 0, "completions are only delivered by poll/flush");
    cr_assert_eq (dlq_client_outstanding (client), 5);
    size_t delivered = 0;
    while (delivered < 5)
        delivered += dlq_client_poll (client, 1000, on_completion, &seen);
    cr_assert_eq (delivered, 5);
    cr_assert_eq (dlq_client_outstanding (client), 0);
    cr_assert_eq (dlq_client_poll (client, -1, on_completion, &seen), 0, "nothing outstanding: no wait");
    for (int i = 0; i < 5; i++)
        cr_assert_str_eq (seen.ids [i], ids [i]);
    dlq_client_destroy (&client);
    fake_stop (fake);
    fake_destroy (&fake);
}

Test (client, options_are_range_checked)
{
    dlq_client_t *client = dlq_client_new ("tcp://127.0.0.1:1");
    cr_assert_not_null (client);
    cr_assert_str_eq (dlq_client_endpoint (client), "tcp://127.0.0.1:1");
    cr_assert_eq (dlq_client_timeout (client), DLQ_CLIENT_DEFAULT_TIMEOUT_MS);
    cr_assert_eq (dlq_client_retries (client), DLQ_CLIENT_DEFAULT_RETRIES);
    cr_assert_eq (dlq_client_window (client), DLQ_CLIENT_DEFAULT_WINDOW);
    cr_assert_eq (dlq_client_set_timeout (client, 0), DLQ_CLIENT_ERR_ARGS);
    cr_assert_eq (dlq_client_set_retries (client, -1), DLQ_CLIENT_ERR_ARGS);
    cr_assert_eq (dlq_client_set_window (client, 0), DLQ_CLIENT_ERR_ARGS);
    cr_assert_eq (dlq_client_put (client, NULL, 3, NULL, NULL), DLQ_CLIENT_ERR_ARGS);
    cr_assert_str_eq (dlq_client_result_name (DLQ_CLIENT_ERR_WINDOW_FULL), "WINDOW_FULL");
    dlq_client_destroy (&client);
}

Test (client, uuid_v7_is_well_formed_and_ordered)
{
    char previous [DLQ_CLIENT_ID_SIZE] = "";
    for (int i = 0; i < 5000; i++) {
        char id [DLQ_CLIENT_ID_SIZE];
        dlq_client_uuid_v7 (id);
        cr_assert_eq (strlen (id), 36);
        cr_assert (id [8] == '-' && id [13] == '-' && id [18] == '-' && id [23] == '-');
        cr_assert_eq (id [14], '7', "version 7: %s", id);
        cr_assert (strchr ("89ab", id [19]), "variant 10: %s", id);
        cr_assert_gt (strcmp (id, previous), 0, "%s after %s", id, previous);
        memcpy (previous, id, sizeof id);
    }
}

/* ---- replay ----------------------------------------------------------------- */

static const char *const two_ids [] = {
    "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182", "0190f1d2-6c4e-7a01-8b2c-3d4e5f60718\"",
};

Test (client, replay_sends_the_selection_and_reads_the_job)
{
    fake_t *fake = fake_start (answer_queries, 1000);
    dlq_client_t *client = fast_client (fake->endpoint);
    dlq_client_filter_t *f = full_filter ();
    dlq_client_selection_t by_filter = { .filter = f };
    dlq_client_job_t job;
    memset (&job, 0x55, sizeof job);
    cr_assert_eq (dlq_client_replay (client, &by_filter, DLQ_CLIENT_TARGET_ROUTE, 0, &job), DLQ_CLIENT_OK,
                  "%s", dlq_client_error_message (client));
    cr_assert_str_eq (fake->last_verb, "REPLAY");
    cr_assert_str_eq (fake->last_body, "{" FULL_FILTER_JSON ",\"target\":\"route\"}");
    cr_assert_str_eq (job.id, JOB_A);
    cr_assert_eq (job.state, DLQ_CLIENT_JOB_RUNNING);
    cr_assert_eq (job.target, DLQ_CLIENT_TARGET_ENDPOINT);
    cr_assert_eq (job.rate, 50);
    cr_assert_eq (job.total, JOB_TOTAL);
    cr_assert_eq (job.done + job.replayed + job.skipped + job.quarantined + job.failed, 0);
    cr_assert_str_eq (job.created_at, "2026-06-09T14:32:13.500Z");
    cr_assert_str_eq (job.updated_at, "2026-06-09T14:32:14.500Z");
    cr_assert_str_eq (job.last_error, "", "no lastError: empty");

    dlq_client_selection_t by_ids = { .ids = two_ids, .id_count = 2 };
    cr_assert_eq (dlq_client_replay (client, &by_ids, DLQ_CLIENT_TARGET_ENDPOINT, 250, NULL), DLQ_CLIENT_OK);
    cr_assert_str_eq (fake->last_body, "{\"ids\":[\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\","
                      "\"0190f1d2-6c4e-7a01-8b2c-3d4e5f60718\\\"\"],\"target\":\"endpoint\",\"rate\":250}");
    dlq_client_selection_t all = { .all = true };
    cr_assert_eq (dlq_client_replay (client, &all, DLQ_CLIENT_TARGET_ROUTE, 0, NULL), DLQ_CLIENT_OK);
    cr_assert_str_eq (fake->last_body, "{\"all\":true,\"target\":\"route\"}", "rate 0: the default");
    dlq_client_filter_clear (f);
    dlq_client_filter_set_stream (f, "payments");
    dlq_client_selection_t both = { .filter = f, .ids = two_ids, .id_count = 1, .all = true };
    cr_assert_eq (dlq_client_replay (client, &both, DLQ_CLIENT_TARGET_ROUTE, 1, &job), DLQ_CLIENT_OK);
    cr_assert_str_eq (fake->last_body, "{\"streamName\":\"payments\",\"ids\":[\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\"],"
                      "\"all\":true,\"target\":\"route\",\"rate\":1}", "all sent as given: the gateway judges");
    cr_assert_str_eq (job.id, JOB_F);
    dlq_client_filter_destroy (&f);
    dlq_client_destroy (&client);
    fake_stop (fake);
    fake_destroy (&fake);
}

Test (client, replay_dry_run_returns_the_count_and_the_sample)
{
    fake_t *fake = fake_start (answer_queries, 1000);
    dlq_client_t *client = fast_client (fake->endpoint);
    dlq_client_filter_t *f = dlq_client_filter_new ();
    dlq_client_filter_set_error_type (f, "com.acme.NotFound");
    dlq_client_selection_t selection = { .filter = f };
    int64_t count = -1;
    char *body = NULL;
    size_t len = 0;
    cr_assert_eq (dlq_client_replay_dry_run (client, &selection, DLQ_CLIENT_TARGET_ENDPOINT, 2, &count, &body, &len),
                  DLQ_CLIENT_OK, "%s", dlq_client_error_message (client));
    cr_assert_str_eq (fake->last_body, "{\"errorType\":\"com.acme.NotFound\",\"target\":\"endpoint\",\"dryRun\":true,"
                      "\"sample\":2}");
    cr_assert_eq (count, 3);
    cr_assert_eq (strncmp (body, "{\"dryRun\":true,\"count\":3,\"sample\":[{\"id\":", 41), 0, "%s", body);
    cr_assert_eq (len, strlen (body));
    free (body);
    cr_assert_eq (dlq_client_replay_dry_run (client, &selection, DLQ_CLIENT_TARGET_ROUTE, -1, &count, NULL, NULL),
                  DLQ_CLIENT_OK);
    cr_assert_str_eq (fake->last_body, "{\"errorType\":\"com.acme.NotFound\",\"target\":\"route\",\"dryRun\":true}",
                      "no sample: the gateway's default");
    cr_assert_eq (dlq_client_replay_dry_run (client, &selection, DLQ_CLIENT_TARGET_ROUTE, 0, NULL, NULL, NULL),
                  DLQ_CLIENT_OK);
    cr_assert_str_eq (fake->last_body, "{\"errorType\":\"com.acme.NotFound\",\"target\":\"route\",\"dryRun\":true,"
                      "\"sample\":0}");
    dlq_client_filter_set_status (f, "mute");
    count = -1;
    cr_assert_eq (dlq_client_replay_dry_run (client, &selection, DLQ_CLIENT_TARGET_ROUTE, 1, &count, &body, NULL),
                  DLQ_CLIENT_ERR_PROTOCOL);
    cr_assert_str_eq (dlq_client_error_message (client), "dry-run REPLAY reply without a \"count\"");
    cr_assert_eq (count, -1, "untouched on failure");
    dlq_client_filter_destroy (&f);
    dlq_client_destroy (&client);
    fake_stop (fake);
    fake_destroy (&fake);
}

Test (client, replay_refuses_what_cannot_be_sent)
{
    fake_t *fake = fake_start (answer_queries, 1000);
    dlq_client_t *client = fast_client (fake->endpoint);
    const char *with_null [] = { "a", NULL };
    dlq_client_selection_t no_ids = { .id_count = 2 };
    dlq_client_selection_t null_id = { .ids = with_null, .id_count = 2 };
    dlq_client_selection_t all = { .all = true };
    dlq_client_job_t job;
    cr_assert_eq (dlq_client_replay (client, NULL, DLQ_CLIENT_TARGET_ROUTE, 0, &job), DLQ_CLIENT_ERR_ARGS);
    cr_assert_eq (dlq_client_replay (client, &no_ids, DLQ_CLIENT_TARGET_ROUTE, 0, &job), DLQ_CLIENT_ERR_ARGS);
    cr_assert_eq (dlq_client_replay (client, &null_id, DLQ_CLIENT_TARGET_ROUTE, 0, &job), DLQ_CLIENT_ERR_ARGS);
    cr_assert_eq (dlq_client_replay (client, &all, (dlq_client_target_t) 7, 0, &job), DLQ_CLIENT_ERR_ARGS);
    cr_assert_eq (dlq_client_replay (NULL, &all, DLQ_CLIENT_TARGET_ROUTE, 0, &job), DLQ_CLIENT_ERR_ARGS);
    cr_assert_eq (dlq_client_replay_dry_run (client, &null_id, DLQ_CLIENT_TARGET_ROUTE, 0, NULL, NULL, NULL),
                  DLQ_CLIENT_ERR_ARGS);
    cr_assert_eq (dlq_client_replay_status (client, NULL, &job), DLQ_CLIENT_ERR_ARGS);
    cr_assert_eq (dlq_client_replay_pause (client, NULL, &job), DLQ_CLIENT_ERR_ARGS);
    cr_assert_eq (dlq_client_replay_jobs (client, NULL, NULL), DLQ_CLIENT_ERR_ARGS);
    cr_assert_eq (dlq_client_resolve (client, NULL, NULL), DLQ_CLIENT_ERR_ARGS);
    cr_assert_eq (dlq_client_fail (NULL, "x", NULL), DLQ_CLIENT_ERR_ARGS);
    cr_assert_eq (fake->received, 0, "nothing sent for bad arguments");

    dlq_client_filter_t *f = dlq_client_filter_new ();
    dlq_client_filter_set_status (f, "mute");
    dlq_client_selection_t mute = { .filter = f };
    cr_assert_eq (dlq_client_replay (client, &mute, DLQ_CLIENT_TARGET_ROUTE, 0, &job), DLQ_CLIENT_ERR_PROTOCOL);
    cr_assert_str_eq (dlq_client_error_message (client), "reply is not a replay job");
    dlq_client_filter_set_status (f, NULL);
    dlq_client_filter_set_stream (f, "closed");
    cr_assert_eq (dlq_client_replay (client, &mute, DLQ_CLIENT_TARGET_ENDPOINT, 0, &job), DLQ_CLIENT_ERR_SERVER);
    cr_assert_str_eq (dlq_client_error_code (client), "INVALID_REQUEST");
    cr_assert_str_eq (dlq_client_error_field (client), "target");
    dlq_client_filter_destroy (&f);
    dlq_client_destroy (&client);
    fake_stop (fake);
    fake_destroy (&fake);
}

Test (client, replay_jobs_are_followed_and_moved)
{
    fake_t *fake = fake_start (answer_queries, 1000);
    dlq_client_t *client = fast_client (fake->endpoint);
    dlq_client_job_t job;
    for (int i = 1; i <= JOB_TOTAL; i++) {
        cr_assert_eq (dlq_client_replay_status (client, JOB_F, &job), DLQ_CLIENT_OK,
                      "%s", dlq_client_error_message (client));
        cr_assert_eq (job.done, i);
    }
    cr_assert_str_eq (fake->last_verb, "REPLAY.STATUS");
    cr_assert_str_eq (fake->last_body, "{\"job\":\"" JOB_F "\"}");
    cr_assert_eq (job.state, DLQ_CLIENT_JOB_DONE);
    cr_assert_eq (job.failed, 2);
    cr_assert_eq (job.replayed, 3);
    cr_assert_str_eq (job.last_error, "stream payments has no replay_route");

    char *body = NULL;
    size_t len = 0;
    cr_assert_eq (dlq_client_replay_jobs (client, &body, &len), DLQ_CLIENT_OK);
    cr_assert_str_eq (fake->last_body, "{}");
    cr_assert_eq (strncmp (body, "{\"jobs\":[{\"job\":\"" JOB_C "\",\"state\":\"CANCELLED\"", 63), 0, "%s", body);
    cr_assert_eq (len, strlen (body));
    free (body);

    static const struct {
        dlq_client_result_t (*move) (dlq_client_t *, const char *, dlq_client_job_t *);
        const char            *verb;
        dlq_client_job_state_t state;
        const char            *state_name;
    } moves [] = {
        { dlq_client_replay_pause,  "REPLAY.PAUSE",  DLQ_CLIENT_JOB_PAUSED,    "PAUSED" },
        { dlq_client_replay_resume, "REPLAY.RESUME", DLQ_CLIENT_JOB_RUNNING,   "RUNNING" },
        { dlq_client_replay_cancel, "REPLAY.CANCEL", DLQ_CLIENT_JOB_CANCELLED, "CANCELLED" },
    };
    for (size_t i = 0; i < sizeof moves / sizeof moves [0]; i++) {
        cr_assert_eq (moves [i].move (client, JOB_C, &job), DLQ_CLIENT_OK, "%s", moves [i].verb);
        cr_assert_str_eq (fake->last_verb, moves [i].verb);
        cr_assert_str_eq (fake->last_body, "{\"job\":\"" JOB_C "\"}");
        cr_assert_eq (job.state, moves [i].state);
        cr_assert_str_eq (dlq_client_job_state_name (job.state), moves [i].state_name);
        cr_assert_eq (moves [i].move (client, JOB_A, &job), DLQ_CLIENT_ERR_SERVER);
        cr_assert_str_eq (dlq_client_error_code (client), "INVALID_STATE");
        cr_assert_str_eq (dlq_client_error_message (client), "job is DONE");
        cr_assert_eq (moves [i].move (client, "0190f1d2-6c4e-7a01-8b2c-000000000000", NULL), DLQ_CLIENT_ERR_SERVER);
        cr_assert_str_eq (dlq_client_error_code (client), "NOT_FOUND");
        cr_assert_str_eq (dlq_client_error_field (client), "job");
    }
    cr_assert_str_eq (dlq_client_job_state_name (DLQ_CLIENT_JOB_DONE), "DONE");
    cr_assert_str_eq (dlq_client_job_state_name ((dlq_client_job_state_t) 9), "UNKNOWN");
    cr_assert_str_eq (dlq_client_target_name (DLQ_CLIENT_TARGET_ENDPOINT), "endpoint");
    dlq_client_destroy (&client);
    fake_stop (fake);
    fake_destroy (&fake);
}

Test (client, resolve_and_fail_report_the_event_state)
{
    fake_t *fake = fake_start (answer_queries, 1000);
    dlq_client_t *client = fast_client (fake->endpoint);
    dlq_client_event_state_t state;
    cr_assert_eq (dlq_client_resolve (client, "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182", &state), DLQ_CLIENT_OK,
                  "%s", dlq_client_error_message (client));
    cr_assert_str_eq (fake->last_verb, "RESOLVE");
    cr_assert_str_eq (fake->last_body, "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\"}");
    cr_assert_str_eq (state.id, "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182");
    cr_assert_str_eq (state.status, "SUCCEEDED");
    cr_assert_eq (state.retry_count, 0);
    cr_assert_eq (state.replay_count, 1);
    cr_assert_str_eq (state.retry_after, "2026-06-09T14:42:13.500Z");
    cr_assert_eq (dlq_client_fail (client, "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182", &state), DLQ_CLIENT_OK);
    cr_assert_str_eq (fake->last_verb, "FAIL");
    cr_assert_str_eq (state.status, "PENDING");
    cr_assert_eq (state.retry_count, 2);
    cr_assert_eq (dlq_client_fail (client, "nosuch", &state), DLQ_CLIENT_ERR_SERVER);
    cr_assert_str_eq (dlq_client_error_code (client), "NOT_FOUND");
    cr_assert_eq (dlq_client_resolve (client, "mute", NULL), DLQ_CLIENT_ERR_PROTOCOL);
    cr_assert_str_eq (dlq_client_error_message (client), "reply is not an event's replay state");
    dlq_client_destroy (&client);
    fake_stop (fake);
    fake_destroy (&fake);
}

/* ---- the replay receiver ------------------------------------------------------ */

/* A PUSH socket bound on a loopback port, as the gateway's replay
 * endpoint; its endpoint into endpoint (64 bytes). */
static void *
push_start (void *ctx, char *endpoint)
{
    void *push = zmq_socket (ctx, ZMQ_PUSH);
    int linger = 0;
    zmq_setsockopt (push, ZMQ_LINGER, &linger, sizeof linger);
    cr_assert_eq (zmq_bind (push, "tcp://127.0.0.1:*"), 0);
    size_t size = 64;
    zmq_getsockopt (push, ZMQ_LAST_ENDPOINT, endpoint, &size);
    return push;
}

/* Send count frames (NUL-terminated texts, sent without the NUL). */
static void
push_frames (void *push, const char *const *frames, int count)
{
    for (int i = 0; i < count; i++)
        cr_assert_geq (zmq_send (push, frames [i], strlen (frames [i]), i + 1 < count ? ZMQ_SNDMORE : 0), 0);
}

Test (client, replay_receiver_takes_three_frames)
{
    void *ctx = zmq_ctx_new ();
    char endpoint [64];
    void *push = push_start (ctx, endpoint);
    dlq_replay_receiver_t *r = dlq_replay_receiver_new (endpoint);
    cr_assert_not_null (r);
    char job [DLQ_CLIENT_ID_SIZE], id [DLQ_CLIENT_ID_SIZE], *event = NULL;
    size_t len = 0;
    int64_t start = now_ms ();
    cr_assert_eq (dlq_replay_receiver_recv (r, 100, job, id, &event, &len), DLQ_CLIENT_ERR_TIMEOUT);
    cr_assert_geq (now_ms () - start, 90, "waited for the timeout");
    cr_assert_eq (dlq_replay_receiver_recv (r, 0, job, id, &event, &len), DLQ_CLIENT_ERR_TIMEOUT);

    const char *const good [] = { JOB_A, "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182",
                                  "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\",\"metadata\":{\"replayOf\":"
                                  "\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\",\"replayCount\":1}}" };
    const char *const two [] = { "schedule", "x" };
    const char *const four [] = { "schedule", "x", "{}", "more" };
    const char *const long_id [] = { "0190f1d2-6c4e-7a01-8b2c-3d4e5f6071820", "x", "{}" };
    const char *const scheduled [] = { "schedule", "0190f1d2-6c4e-7a01-8b2c-3d4e5f607183", "{}" };
    push_frames (push, good, 3);
    push_frames (push, two, 2);
    push_frames (push, four, 4);
    push_frames (push, long_id, 3);
    push_frames (push, scheduled, 3);

    cr_assert_eq (dlq_replay_receiver_recv (r, 5000, job, id, &event, &len), DLQ_CLIENT_OK);
    cr_assert_str_eq (job, JOB_A);
    cr_assert_str_eq (id, "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182");
    cr_assert_str_eq (event, good [2]);
    cr_assert_eq (len, strlen (good [2]));
    free (event);
    for (int i = 0; i < 3; i++)
        cr_assert_eq (dlq_replay_receiver_recv (r, 5000, job, id, &event, NULL), DLQ_CLIENT_ERR_PROTOCOL,
                      "malformed message %d dropped", i);
    cr_assert_eq (dlq_replay_receiver_recv (r, -1, job, id, &event, NULL), DLQ_CLIENT_OK);
    cr_assert_str_eq (job, "schedule");
    cr_assert_str_eq (id, "0190f1d2-6c4e-7a01-8b2c-3d4e5f607183");
    cr_assert_str_eq (event, "{}");
    free (event);
    cr_assert_eq (dlq_replay_receiver_recv (r, 0, NULL, id, &event, NULL), DLQ_CLIENT_ERR_ARGS);
    cr_assert_eq (dlq_replay_receiver_recv (NULL, 0, job, id, &event, NULL), DLQ_CLIENT_ERR_ARGS);
    dlq_replay_receiver_destroy (&r);
    cr_assert_null (r);
    dlq_replay_receiver_destroy (&r);
    dlq_replay_receiver_destroy (NULL);
    cr_assert_null (dlq_replay_receiver_new ("nonsense"));
    cr_assert_null (dlq_replay_receiver_new (NULL));
    zmq_close (push);
    zmq_ctx_term (ctx);
}

/* Two receivers share the events (round-robin), as workers do. */
Test (client, replay_receivers_share_the_events)
{
    void *ctx = zmq_ctx_new ();
    char endpoint [64];
    void *push = push_start (ctx, endpoint);
    dlq_replay_receiver_t *r [2] = { dlq_replay_receiver_new (endpoint), dlq_replay_receiver_new (endpoint) };
    char job [DLQ_CLIENT_ID_SIZE], id [DLQ_CLIENT_ID_SIZE], *event;
    /* Both connected before sending: one message each, through each. */
    const char *const probe [] = { "p", "p", "{}" };
    int64_t until = now_ms () + 5000;
    bool got [2] = { false, false };
    while (!(got [0] && got [1]) && now_ms () < until) {
        push_frames (push, probe, 3);
        for (int i = 0; i < 2; i++)
            if (dlq_replay_receiver_recv (r [i], 20, job, id, &event, NULL) == DLQ_CLIENT_OK) {
                got [i] = true;
                free (event);
            }
    }
    cr_assert (got [0] && got [1], "both receivers connected");
    for (int i = 0; i < 2; i++)
        while (dlq_replay_receiver_recv (r [i], 100, job, id, &event, NULL) == DLQ_CLIENT_OK)
            free (event);
    const char *const message [] = { "j", "e", "{}" };
    for (int i = 0; i < 10; i++)
        push_frames (push, message, 3);
    int counts [2] = { 0, 0 };
    for (int i = 0; i < 2; i++)
        while (dlq_replay_receiver_recv (r [i], 300, job, id, &event, NULL) == DLQ_CLIENT_OK) {
            counts [i]++;
            free (event);
        }
    cr_assert_eq (counts [0] + counts [1], 10);
    cr_assert_eq (counts [0], 5, "round-robin: %d and %d", counts [0], counts [1]);
    dlq_replay_receiver_destroy (&r [0]);
    dlq_replay_receiver_destroy (&r [1]);
    zmq_close (push);
    zmq_ctx_term (ctx);
}

/* ---- dlqctl against the fake gateway --------------------------------------- */

Test (dlqctl, put_reports_rejected_lines_and_a_summary)
{
    char dir [256], path [320], args [512], *out, *err;
    fake_t *fake = dlqctl_start (dir);
    snprintf (path, sizeof path, "%s/events.jsonl", dir);
    write_file (path,
                "{\"streamName\":\"s\",\"error\":{\"type\":\"A\"}}\n"
                "   \n"
                "{\"streamName\":\"s\",\"error\":{\"type\":\"bad\"}}\n"
                "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\",\"streamName\":\"dup\",\"error\":{\"type\":\"A\"}}\n"
                "{}\n");
    snprintf (args, sizeof args, "--endpoint %s put %s", fake->endpoint, path);
    int status = dlqctl_run (dir, args, &out, &err);
    cr_assert_eq (status, 1, "exit status; stderr: %s", err);
    cr_assert_str_eq (out, "2 stored, 1 duplicates, 1 rejected\n");
    cr_assert_neq (strstr (err, "line 3: INVALID_EVENT: error.type is required (error.type)\n"), NULL, "stderr: %s", err);
    free (out);
    free (err);
    fake_stop (fake);
    cr_assert_eq (fake->received, 4, "the blank line is skipped");
    cr_assert_str_eq (fake->last_verb, "PUT");
    cr_assert_eq (strncmp (fake->last_body, "{\"id\":\"", 7), 0, "an id is added: %s", fake->last_body);
    cr_assert_eq (strlen (fake->last_body), 7 + 36 + 2, "{} becomes {\"id\":\"...\"}: %s", fake->last_body);
    fake_destroy (&fake);
    test_rmtree (dir);
}

Test (dlqctl, list_prints_a_table_and_the_next_cursor)
{
    char dir [256], args [512], *out, *err;
    fake_t *fake = dlqctl_start (dir);
    snprintf (args, sizeof args, "list --stream orders --limit 10 -e %s", fake->endpoint);
    cr_assert_eq (dlqctl_run (dir, args, &out, &err), 0, "stderr: %s", err);
    const char *expected =
        "ID                                    CREATED AT                OPERATION  ERROR TYPE                        "
        "ATTEMPTS  STATUS       MESSAGE\n"
        "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182  2026-06-09T14:32:13.500Z  INSERT     java.lang.IllegalStateException   "
        "3         PENDING      downstream call failed\n"
        "next cursor: 17.2\n";
    cr_assert_str_eq (out, expected);
    free (out);
    free (err);
    fake_stop (fake);
    cr_assert_str_eq (fake->last_body, "{\"streamName\":\"orders\",\"limit\":10}");
    fake_destroy (&fake);
    test_rmtree (dir);
}

Test (dlqctl, get_pretty_prints_and_json_prints_raw)
{
    char dir [256], args [512], *out, *err;
    fake_t *fake = dlqctl_start (dir);
    snprintf (args, sizeof args, "-e %s get e1", fake->endpoint);
    cr_assert_eq (dlqctl_run (dir, args, &out, &err), 0, "stderr: %s", err);
    cr_assert_str_eq (out, "{\n  \"id\": \"e1\",\n  \"tags\": [\n    1,\n    {\n      \"a\": \"}\"\n    }\n  ]\n}\n");
    free (out);
    free (err);
    snprintf (args, sizeof args, "-e %s --json get e1", fake->endpoint);
    cr_assert_eq (dlqctl_run (dir, args, &out, &err), 0);
    cr_assert_str_eq (out, "{\"event\":{\"id\":\"e1\",\"tags\":[1,{\"a\":\"}\"}]}}\n", "--json: the reply as is");
    free (out);
    free (err);
    dlqctl_finish (fake, dir);
}

Test (dlqctl, ping_prints_the_pong_line)
{
    /* dlqctl_gateway tells maxMessageBytes; answer_queries, like an older
     * gateway, does not. */
    fake_t *fakes [2] = { fake_start (dlqctl_gateway, 1000), fake_start (answer_queries, 1000) };
    static const char *const max_text [2] = { ", max message 1048576 bytes", "" };
    static const char *const max_json [2] = { "1048576", "null" };
    char dir [256], args [512], expected [256], *out, *err;
    test_tmpdir (dir);
    for (int i = 0; i < 2; i++) {
        snprintf (args, sizeof args, "-e %s ping", fakes [i]->endpoint);
        cr_assert_eq (dlqctl_run (dir, args, &out, &err), 0, "stderr: %s", err);
        snprintf (expected, sizeof expected, "pong from %s (version 0.1.0, protocol 1%s) in ",
                  fakes [i]->endpoint, max_text [i]);
        cr_assert_eq (strncmp (out, expected, strlen (expected)), 0, "stdout: %s", out);
        cr_assert_neq (strstr (out, " ms\n"), NULL);
        free (out);
        free (err);
        snprintf (args, sizeof args, "-e %s ping --json", fakes [i]->endpoint);
        cr_assert_eq (dlqctl_run (dir, args, &out, &err), 0, "stderr: %s", err);
        snprintf (expected, sizeof expected, ",\"protocol\":1,\"maxMessageBytes\":%s,\"roundTripMs\":", max_json [i]);
        cr_assert_neq (strstr (out, expected), NULL, "stdout: %s", out);
        free (out);
        free (err);
        fake_stop (fakes [i]);
        fake_destroy (&fakes [i]);
    }
    test_rmtree (dir);
}

Test (dlqctl, exit_statuses_for_errors)
{
    char dir [256], args [512], *out, *err;
    test_tmpdir (dir);
    snprintf (args, sizeof args, "-e tcp://127.0.0.1:%d -t 200 ping", test_free_port ());
    cr_assert_eq (dlqctl_run (dir, args, &out, &err), 2);
    cr_assert_eq (strncmp (err, "dlqctl: TRANSPORT: no connection", 32), 0, "stderr: %s", err);
    free (out);
    free (err);
    cr_assert_eq (dlqctl_run (dir, "list --meta tenantId", &out, &err), 64);
    cr_assert_str_eq (err, "dlqctl: list: --meta wants KEY=VALUE, not 'tenantId'\nTry 'dlqctl list --help'.\n");
    free (out);
    free (err);
    cr_assert_eq (dlqctl_run (dir, "frobnicate", &out, &err), 64);
    free (out);
    free (err);
    cr_assert_eq (dlqctl_run (dir, "--help", &out, &err), 0);
    cr_assert_eq (strncmp (out, "usage: dlqctl", 13), 0);
    free (out);
    free (err);

    fake_t *fake = fake_start (reject_event, 1000);
    snprintf (args, sizeof args, "-e %s get some-id", fake->endpoint);
    cr_assert_eq (dlqctl_run (dir, args, &out, &err), 1);
    cr_assert_str_eq (err, "dlqctl: INVALID_EVENT: error.type is \"required\" \xc3\xa9 (error.type)\n");
    free (out);
    free (err);
    dlqctl_finish (fake, dir);
}

Test (dlqctl, redeliver_prints_the_count_and_sends_the_filter)
{
    char dir [256];
    fake_t *fake = dlqctl_start (dir);
    expect_dlqctl (dir, fake, "redeliver --sink s", 0, "requeued 3 failed deliveries to s\n", "");
    cr_assert_str_eq (fake->last_body, "{\"sink\":\"s\"}");
    expect_dlqctl (dir, fake, "redeliver --sink s -s bad", 0, "requeued 3 failed deliveries to s\n", "");
    cr_assert_str_eq (fake->last_body, "{\"sink\":\"s\",\"streamName\":\"bad\"}");
    expect_dlqctl (dir, fake, "redeliver --id 0190f1d2-6c4e-7a01-8b2c-3d4e5f607182 --sink s --json", 0,
                   "{\"sink\":\"s\",\"requeued\":3}\n", "");
    cr_assert_str_eq (fake->last_body, "{\"sink\":\"s\",\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\"}");

    expect_dlqctl (dir, fake, "redeliver --sink nosuch --stream bad", 1, "",
                   "dlqctl: INVALID_REQUEST: sink must name a configured sink (sink)\n");
    expect_dlqctl (dir, fake, "redeliver --sink mute", 2, "",
                   "dlqctl: PROTOCOL: REDELIVER reply without a \"requeued\" count\n");
    static const usage_case_t usage [] = {
        { "--stream bad", "--sink is required" },
        { "--sink s --stream bad --id x", "give --stream or --id, not both" },
        { "--sink s bad", NULL },
    };
    expect_usage_errors (dir, fake, "redeliver", usage, sizeof usage / sizeof usage [0]);
}

Test (dlqctl, stats_and_get_show_the_sinks_and_the_replay_state)
{
    char dir [256];
    fake_t *fake = dlqctl_start (dir);
    expect_dlqctl (dir, fake, "stats", 0,
        "events stored  2\n"
        "\n"
        "SINK     TYPE      BACKLOG  DELIVERED  RETRYING  FAILED  REDELIVERED  CIRCUIT    LAST ERROR\n"
        "s        scripted  0        5          1         2       0            half-open  "
        "scripted permanent failure of a sink whose error message go\xe2\x80\xa6\n"
        "archive  jsonl     12       0          0         0       1234567      closed     -\n", "");
    expect_dlqctl (dir, fake, "get e2", 0,
        "{\n  \"id\": \"e2\"\n}\n"
        "\n"
        "SINK     STATE      ATTEMPTS  NEXT ATTEMPT              LAST ERROR\n"
        "s        retrying   2         2026-06-09T14:32:13.500Z  timeout\n"
        "archive  delivered  1         -                         -\n", "");
    expect_dlqctl (dir, fake, "get e2 --json", 0, "{\"event\":{\"id\":\"e2\"},\"deliveries\":[{\"sink\":\"s\","
                   "\"state\":\"retrying\",\"attempts\":2,\"nextAttemptAt\":\"2026-06-09T14:32:13.500Z\",\"lastError\":"
                   "\"timeout\"},{\"sink\":\"archive\",\"state\":\"delivered\",\"attempts\":1}]}\n", "");
    expect_dlqctl (dir, fake, "get e3", 0,
        "{\n  \"id\": \"e3\",\n  \"status\": \"PENDING\"\n}\n"
        "\n"
        "replay: retry count 2, replay count 1, retry after 2026-06-09T14:34:13.500Z\n", "");
    dlqctl_finish (fake, dir);
}

Test (dlqctl, list_sends_every_filter)
{
    char dir [256];
    fake_t *fake = dlqctl_start (dir);
    expect_dlqctl (dir, fake, "list -s orders --status DLQ --error-type java.lang.IllegalStateException"
                   " --fingerprint c8ece6878338f747 --since 2026-06-09T00:00:00Z --until 2026-06-10T00:00:00+02:00"
                   " --attempts-min 1 --attempts-max 3 --meta tenantId=acme --meta shard=3 --meta ratio=-1.5e2"
                   " --meta vip=false --meta 'code=\"404\"' --meta 'note= a b' --meta eq=x=y --meta empty="
                   " --meta shard=4 --message 'timed \"out\" \\' -n 10", 0,
        "ID                                    CREATED AT                OPERATION  ERROR TYPE                        "
        "ATTEMPTS  STATUS       MESSAGE\n"
        "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182  2026-06-09T14:32:13.500Z  INSERT     java.lang.IllegalStateException   "
        "3         PENDING      downstream call failed\n"
        "next cursor: 17.2\n", "");
    cr_assert_str_eq (fake->last_body,
                      "{\"streamName\":\"orders\",\"status\":\"DLQ\",\"errorType\":\"java.lang.IllegalStateException\","
                      "\"fingerprint\":\"c8ece6878338f747\",\"messageContains\":\"timed \\\"out\\\" \\\\\","
                      "\"createdAfter\":\"2026-06-09T00:00:00Z\",\"createdBefore\":\"2026-06-10T00:00:00+02:00\","
                      "\"attemptsMin\":1,\"attemptsMax\":3,\"metadata\":{\"tenantId\":\"acme\",\"shard\":4,"
                      "\"ratio\":-150,\"vip\":false,\"code\":\"404\",\"note\":\" a b\",\"eq\":\"x=y\",\"empty\":\"\"},"
                      "\"limit\":10}");
    dlqctl_finish (fake, dir);
}

Test (dlqctl, list_without_a_stream_shows_the_streams)
{
    char dir [256];
    fake_t *fake = dlqctl_start (dir);
    expect_dlqctl (dir, fake, "list --status PENDING", 0,
        "ID                                    STREAM            CREATED AT                OPERATION  "
        "ERROR TYPE                        ATTEMPTS  STATUS       MESSAGE\n"
        "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182  orders            2026-06-09T14:32:13.500Z  INSERT     "
        "java.lang.IllegalStateException   3         PENDING      downstream call failed\n"
        "next cursor: 17.2\n", "");
    cr_assert_str_eq (fake->last_body, "{\"status\":\"PENDING\"}");
    expect_dlqctl (dir, fake, "list --json", 0, NULL, "");
    cr_assert_str_eq (fake->last_body, "{}", "every event of every stream");
    dlqctl_finish (fake, dir);
}

Test (dlqctl, count_prints_the_number)
{
    char dir [256];
    fake_t *fake = dlqctl_start (dir);
    expect_dlqctl (dir, fake, "count", 0, "42\n", "");
    cr_assert_str_eq (fake->last_verb, "COUNT");
    cr_assert_str_eq (fake->last_body, "{}");
    expect_dlqctl (dir, fake, "count --error-type com.acme.NotFound --json", 0, "{\"count\":42}\n", "");
    cr_assert_str_eq (fake->last_body, "{\"errorType\":\"com.acme.NotFound\"}");
    expect_dlqctl (dir, fake, "count --since yesterday", 1, "",
                   "dlqctl: INVALID_REQUEST: expected an ISO-8601 instant (createdAfter)\n");
    expect_dlqctl (dir, fake, "count --status mute", 2, "", "dlqctl: PROTOCOL: COUNT reply without a \"count\"\n");
    static const usage_case_t usage [] = {
        { "--limit 5", "unknown or incomplete option '--limit'" },
        { "orders", "unexpected argument 'orders'" },
        { "--attempts-max many", "--attempts-max wants a number from 0 to 2147483647, not 'many'" },
        { "--meta =acme", "--meta wants KEY=VALUE, not '=acme'" },
    };
    expect_usage_errors (dir, fake, "count", usage, sizeof usage / sizeof usage [0]);
}

Test (dlqctl, groups_prints_what_is_failing)
{
    char dir [256];
    fake_t *fake = dlqctl_start (dir);
    expect_dlqctl (dir, fake, "groups --since 2026-06-09T00:00:00Z -n 5", 0,
        "COUNT  FINGERPRINT       ERROR TYPE                                STREAMS           "
        "LAST SEEN                 MESSAGE\n"
        "412    c8ece6878338f747  \xe2\x80\xa6work.web.client.ResourceAccessException  orders, payments  "
        "2026-06-09T14:32:13.500Z  I/O error on POST request for <str>: Read timed out after <\xe2\x80\xa6\n"
        "3      fe63519f123bf281  com.acme.NotFound                         payments          "
        "2026-06-09T11:00:00.000Z  Order <hex> not found\n"
        "1      00000000000000e1  E                                         ops               "
        "2026-06-09T09:00:00.000Z  -\n", "");
    cr_assert_str_eq (fake->last_verb, "GROUPS");
    cr_assert_str_eq (fake->last_body, "{\"createdAfter\":\"2026-06-09T00:00:00Z\",\"limit\":5}");
    expect_dlqctl (dir, fake, "groups --stream quiet", 0, "no events match\n", "");
    expect_dlqctl (dir, fake, "groups --stream quiet --json", 0, "{\"groups\":[]}\n", "");
    static const usage_case_t usage [] = {
        { "--limit 1001", "--limit wants a number from 1 to 1000, not '1001'" },
        { "--all", NULL },
    };
    expect_usage_errors (dir, fake, "groups", usage, sizeof usage / sizeof usage [0]);
}

Test (dlqctl, replay_dry_run_prints_the_count_and_the_sample)
{
    char dir [256];
    fake_t *fake = dlqctl_start (dir);
    expect_dlqctl (dir, fake, "replay --stream orders --dry-run --sample 2", 0,
        "3 events would be replayed\n"
        "ID                                    STREAM    STATUS   ERROR TYPE\n"
        "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182  orders    PENDING  java.net.SocketTimeoutException\n"
        "0190f1d2-6c4e-7a01-8b2c-3d4e5f607183  payments  DLQ      com.acme.NotFound\n", "");
    cr_assert_str_eq (fake->last_verb, "REPLAY");
    cr_assert_str_eq (fake->last_body, "{\"streamName\":\"orders\",\"target\":\"route\",\"dryRun\":true,\"sample\":2}");
    expect_dlqctl (dir, fake, "replay --all --dry-run --target endpoint --json", 0, NULL, "");
    cr_assert_str_eq (fake->last_body, "{\"all\":true,\"target\":\"endpoint\",\"dryRun\":true}");
    expect_dlqctl (dir, fake, "replay --status mute --dry-run", 2, "",
                   "dlqctl: PROTOCOL: dry-run REPLAY reply without a \"count\"\n");
    dlqctl_finish (fake, dir);
}

Test (dlqctl, replay_follows_the_job_with_plain_lines)
{
    char dir [256], args [512], *out, *err;
    fake_t *fake = dlqctl_start (dir);
    snprintf (args, sizeof args, "-e %s replay --ids a,b --id c --target endpoint --rate 50", fake->endpoint);
    cr_assert_eq (dlqctl_run (dir, args, &out, &err), 0, "stdout: %s\nstderr: %s", out, err);
    cr_assert_str_eq (replay_body, "{\"ids\":[\"a\",\"b\",\"c\"],\"target\":\"endpoint\",\"rate\":50}");
    cr_assert_str_eq (err, "");
    const char *start = "job " JOB_A ": replaying 5 events to endpoint at 50 events/s\n"
                        "0/5 (0%), 0.0 events/s, 00:00 elapsed, ETA --:--\n";
    cr_assert_eq (strncmp (out, start, strlen (start)), 0, "%s", out);
    cr_assert_null (strchr (out, '\r'), "no carriage returns when not on a terminal: %s", out);
    cr_assert_not_null (strstr (out, "\n5/5 (100%), "), "the last figures: %s", out);
    const char *summary = strstr (out, "\njob " JOB_A " DONE: 5 replayed, 0 skipped, 0 quarantined, 0 failed of 5 in 00:0");
    cr_assert_not_null (summary, "the summary line: %s", out);
    cr_assert_eq (strchr (summary + 1, '\n') [1], '\0', "the summary comes last: %s", out);
    cr_assert_not_null (strstr (summary, " events/s)\n"), "%s", out);
    free (out);
    free (err);
    fake_stop (fake);
    cr_assert_str_eq (fake->last_verb, "REPLAY.STATUS");
    cr_assert_str_eq (fake->last_body, "{\"job\":\"" JOB_A "\"}");
    cr_assert_geq (status_calls, JOB_TOTAL, "polled until DONE");
    fake_destroy (&fake);
    test_rmtree (dir);
}

Test (dlqctl, replay_with_failed_events_or_cancelled_exits_1)
{
    char dir [256], args [512], *out, *err;
    fake_t *fake = dlqctl_start (dir);
    snprintf (args, sizeof args, "-e %s replay --stream payments", fake->endpoint);
    cr_assert_eq (dlqctl_run (dir, args, &out, &err), 1, "stdout: %s\nstderr: %s", out, err);
    cr_assert_str_eq (err, "dlqctl: 2 events could not be replayed: stream payments has no replay_route\n");
    cr_assert_not_null (strstr (out, "\njob " JOB_F " DONE: 3 replayed, 0 skipped, 0 quarantined, 2 failed of 5 in "),
                        "%s", out);
    free (out);
    free (err);
    snprintf (args, sizeof args, "-e %s replay --stream stop", fake->endpoint);
    cr_assert_eq (dlqctl_run (dir, args, &out, &err), 1, "stdout: %s\nstderr: %s", out, err);
    cr_assert_str_eq (err, "dlqctl: job " JOB_C " was cancelled\n");
    cr_assert_not_null (strstr (out, "\njob " JOB_C " CANCELLED: 2 replayed, 0 skipped, 0 quarantined, 0 failed of 5"),
                        "%s", out);
    free (out);
    free (err);
    expect_dlqctl (dir, fake, "replay --stream closed --target endpoint", 1, "",
                   "dlqctl: INVALID_REQUEST: no replay endpoint (target)\n");
    dlqctl_finish (fake, dir);
}

Test (dlqctl, replay_detach_and_json)
{
    char dir [256], running [1024], done [1024], want [2100];
    fake_t *fake = dlqctl_start (dir);
    job_json (running, sizeof running, JOB_A, "RUNNING", 0, 0, NULL);
    job_json (done, sizeof done, JOB_A, "DONE", JOB_TOTAL, 0, NULL);
    expect_dlqctl (dir, fake, "replay --all --detach", 0, JOB_A "\n", "");
    cr_assert_eq (status_calls, 0, "not followed");
    snprintf (want, sizeof want, "%s\n", running);
    expect_dlqctl (dir, fake, "replay --all --detach --json", 0, want, "");
    snprintf (want, sizeof want, "%s\n%s\n", running, done);
    expect_dlqctl (dir, fake, "replay --all --json", 0, want, "");
    cr_assert_str_eq (replay_body, "{\"all\":true,\"target\":\"route\"}");
    dlqctl_finish (fake, dir);
}

Test (dlqctl, replay_status_pause_resume_cancel)
{
    char dir [256], job [1024], want [1100];
    fake_t *fake = dlqctl_start (dir);
    expect_dlqctl (dir, fake, "replay status", 0,
        "JOB                                   STATE      TARGET    RATE  DONE  TOTAL  REPLAYED  SKIPPED  "
        "QUARANTINED  FAILED  CREATED AT                LAST ERROR\n"
        JOB_C "  CANCELLED  endpoint  50    2     5      2         0        0            0       "
        "2026-06-09T14:32:13.500Z  -\n"
        JOB_A "  DONE       endpoint  50    5     5      5         0        0            0       "
        "2026-06-09T14:32:13.500Z  -\n", "");
    cr_assert_str_eq (fake->last_verb, "REPLAY.STATUS");
    cr_assert_str_eq (fake->last_body, "{}");
    expect_dlqctl (dir, fake, "replay status --json", 0, NULL, "");
    expect_dlqctl (dir, fake, "replay status " JOB_F, 0,
        "job          " JOB_F "\n"
        "state        RUNNING\n"
        "target       endpoint\n"
        "rate         50 events/s\n"
        "progress     1/5 (20%)\n"
        "replayed     1\n"
        "skipped      0\n"
        "quarantined  0\n"
        "failed       0\n"
        "created at   2026-06-09T14:32:13.500Z\n"
        "updated at   2026-06-09T14:32:14.500Z\n"
        "last error   stream payments has no replay_route\n", "");
    job_json (job, sizeof job, JOB_F, "RUNNING", 2, 0, "stream payments has no replay_route");
    snprintf (want, sizeof want, "%s\n", job);
    expect_dlqctl (dir, fake, "replay status --json " JOB_F, 0, want, "");

    expect_dlqctl (dir, fake, "replay pause " JOB_C, 0, "job " JOB_C " PAUSED: 2/5 done\n", "");
    cr_assert_str_eq (fake->last_verb, "REPLAY.PAUSE");
    cr_assert_str_eq (fake->last_body, "{\"job\":\"" JOB_C "\"}");
    expect_dlqctl (dir, fake, "replay resume " JOB_C, 0, "job " JOB_C " RUNNING: 2/5 done\n", "");
    cr_assert_str_eq (fake->last_verb, "REPLAY.RESUME");
    job_json (job, sizeof job, JOB_C, "CANCELLED", 2, 0, NULL);
    snprintf (want, sizeof want, "%s\n", job);
    expect_dlqctl (dir, fake, "replay cancel --json " JOB_C, 0, want, "");
    cr_assert_str_eq (fake->last_verb, "REPLAY.CANCEL");
    expect_dlqctl (dir, fake, "replay resume " JOB_A, 1, "", "dlqctl: INVALID_STATE: job is DONE\n");
    expect_dlqctl (dir, fake, "replay cancel 0190f1d2-6c4e-7a01-8b2c-000000000000", 1, "",
                   "dlqctl: NOT_FOUND: no such job (job)\n");
    expect_dlqctl (dir, fake, "replay status 0190f1d2-6c4e-7a01-8b2c-000000000000", 1, "",
                   "dlqctl: NOT_FOUND: no such job (job)\n");
    int sent = fake->received;
    expect_usage_error (dir, fake, "replay pause", "", "wants exactly one job id");
    expect_usage_error (dir, fake, "replay status", "a b", "wants one job id at most");
    expect_dlqctl (dir, fake, "replay cancel --help", 0, NULL, "");
    expect_dlqctl (dir, fake, "replay status --help", 0, NULL, "");
    end_usage_checks (fake, sent, dir);
}

Test (dlqctl, resolve_and_fail_print_the_event_state)
{
    char dir [256];
    fake_t *fake = dlqctl_start (dir);
    expect_dlqctl (dir, fake, "resolve 0190f1d2-6c4e-7a01-8b2c-3d4e5f607182", 0,
                   "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182 SUCCEEDED (retry count 0, replay count 1,"
                   " retry after 2026-06-09T14:42:13.500Z)\n", "");
    cr_assert_str_eq (fake->last_verb, "RESOLVE");
    cr_assert_str_eq (fake->last_body, "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\"}");
    expect_dlqctl (dir, fake, "fail --json 0190f1d2-6c4e-7a01-8b2c-3d4e5f607182", 0,
                   "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\",\"status\":\"PENDING\",\"retryCount\":2,"
                   "\"replayCount\":1,\"retryAfter\":\"2026-06-09T14:34:13.500Z\"}\n", "");
    cr_assert_str_eq (fake->last_verb, "FAIL");
    expect_dlqctl (dir, fake, "fail nosuch", 1, "", "dlqctl: NOT_FOUND: no such event (id)\n");
    expect_dlqctl (dir, fake, "resolve mute", 2, "", "dlqctl: PROTOCOL: reply is not an event's replay state\n");
    int sent = fake->received;
    expect_usage_error (dir, fake, "resolve", "", "wants exactly one event id");
    expect_usage_error (dir, fake, "fail", "a b", NULL);
    expect_dlqctl (dir, fake, "fail --help", 0, NULL, "");
    end_usage_checks (fake, sent, dir);
}

Test (dlqctl, replay_usage_errors_send_nothing)
{
    static const usage_case_t usage [] = {
        { "", "give filters, --ids / --id, or --all to replay every event" },
        { "--target endpoint --rate 5", "give filters, --ids / --id, or --all to replay every event" },
        { "--stream orders --id a", "give filters or ids, not both" },
        { "--all --sample 3", "--sample goes with --dry-run" },
        { "--all --dry-run --detach", "--dry-run replays nothing: no --detach with it" },
        { "--all --dry-run --rate 5", "--dry-run replays nothing: no --rate with it" },
        { "--all --rate 0", "--rate wants a number from 1 to 100000, not '0'" },
        { "--all --dry-run --sample 101", "--sample wants a number from 0 to 100, not '101'" },
        { "--all --target sink", "--target wants route or endpoint, not 'sink'" },
        { "--ids a,", "--ids wants ids separated by commas, not 'a,'" },
        { "--ids ''", "--ids wants ids separated by commas, not ''" },
        { "--all extra", "unexpected argument 'extra'" },
        { "--all --limit 5", "unknown or incomplete option '--limit'" },
    };
    char dir [256];
    fake_t *fake = dlqctl_start (dir);
    expect_usage_errors (dir, fake, "replay", usage, sizeof usage / sizeof usage [0]);
}
