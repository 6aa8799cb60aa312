/*  gateway — the ZeroMQ front end, group-commit pipeline and drain.
 *
 *  Two commit batches take turns: one gathers PUTs while the other is in
 *  the committer. A PUT is answered only when the batch holding it comes
 *  back committed, so an ack always means "on disk". When the gathering
 *  batch is full and the committer busy, the front end stops reading the
 *  socket: ZeroMQ's queues and TCP push back on the clients.
 */
#include "gateway.h"

#include "dir_lock.h"

#include "authorizer.h"
#include "zap_handler.h"
#include "http_server.h"
#include "metrics.h"
#include "readiness.h"
#include "commit_batch.h"
#include "committer.h"
#include "indexer.h"
#include "connection_limit.h"
#include "counters.h"
#include "dlq_alloc.h"
#include "dlq_audit.h"
#include "dlq_buf.h"
#include "dlq_hash.h"
#include "dlq_json.h"
#include "dlq_log.h"
#include "dlq_time.h"
#include "failed_event.h"
#include "protocol.h"
#include "request_params.h"
#include "verb_table.h"
#include "ledger_channel.h"
#include "checkpoint_verbs.h"
#include "query_service.h"
#include "replayer.h"
#include "chain.h"
#include "dlq_uuid.h"
#include "fd_limit.h"
#include "stream_policy.h"
#include "service_notify.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

#define READ_BURST 512          /* requests read per wake-up before looking at commits */
#define DRAIN_LINGER_MS 5000    /* how long unsent replies may delay the exit */
#define QUERY_BACKLOG_MAX 4096  /* queries in the workers before reading pauses */
#define INDEX_MAX_BATCH 8192     /* events the indexer inserts per transaction, at most */
#define DLQ_DATA_DIR_LOCK "dlqd.lock"  /* data_dir's lock file (core/dir_lock.h), held while running */

struct dlq_gateway {
    const dlqd_config_t  *config;
    dlq_dir_lock_t       *lock;             /* data_dir is this process's (DLQ_DATA_DIR_LOCK) */
    void                 *ctx;
    void                 *router;
    dlq_counters_t       *counters;
    dlq_committer_t      *committer;
    dlq_indexer_t        *indexer;
    dlq_query_service_t  *queries;
    dlq_replayer_t       *replayer;
    dlq_replay_control_t *replay_control;  /* between the query threads and the replayer */
    dlq_ledger_channel_t *ledger;       /* dispatchers -> committer */
    dlq_connection_limit_t *connections;    /* counts them, enforces gateway.max_connections */
    dlq_chain_t     *sinks;
    dlq_commit_batch_t   *gathering;    /* PUTs waiting for the next commit */
    dlq_commit_batch_t   *spare;        /* the other batch, when not in the committer */
    bool                  committing;   /* a batch is in the committer */
    int64_t               gather_started_ms;
    dlq_buf_t             verb_names;   /* every verb, for the UNKNOWN_VERB message */
    dlq_authorizer_t     *auth;         /* CURVE: who may call what; NULL without security.curve */
    dlq_principal_t      *caller;       /* with auth: who sent the request being handled */
    dlq_verb_t            answering;    /* the verb of the replies sent now, for the counters */
    int64_t               commit_started_ns;    /* the batch in the committer was handed over then */
    dlq_readiness_t      *readiness;    /* what /readyz says */
    dlq_metrics_t        *metrics;      /* what /metrics says; NULL without http.listen */
    dlq_http_server_t    *http;
    dlq_api_handler_t    *api;          /* the HTTP API's way in: the ROUTER's inproc endpoint */
    dlq_event_streams_t  *events;       /* its live events (GET /api/v1/events/stream) */
    bool                  stopping;     /* SIGTERM or SIGINT came */
    dlq_gateway_reload_fn *reload;      /* what SIGHUP reloads besides the keys */
    void                 *reload_arg;
};

/* Send [identity][status][request id][body]; identity and request id move
 * out. Never waits: a client whose reply queue is full (gateway.reply_hwm)
 * or who has gone is not sent the reply, which is counted instead (the
 * ROUTER is ZMQ_ROUTER_MANDATORY, so its first frame says). */
static void
send_reply (dlq_gateway_t *self, zmq_msg_t *identity, zmq_msg_t *request_id,
            bool ok, const char *body, size_t len)
{
    if (ok)
        dlq_counters_reply (self->counters, self->answering, DLQ_OK);
    if (zmq_msg_send (identity, self->router, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0) {
        dlq_counters_reply_dropped (self->counters, 1);
        return;
    }
    zmq_send (self->router, ok ? "OK" : "ERR", ok ? 2 : 3, ZMQ_SNDMORE | ZMQ_DONTWAIT);
    zmq_msg_send (request_id, self->router, ZMQ_SNDMORE | ZMQ_DONTWAIT);
    zmq_send (self->router, body, len, ZMQ_DONTWAIT);
}

static void
send_error (dlq_gateway_t *self, zmq_msg_t *identity, zmq_msg_t *request_id, const dlq_error_t *err)
{
    dlq_counters_reply (self->counters, self->answering, err->code);
    dlq_buf_t body = DLQ_BUF_INIT;
    dlq_protocol_error_body (&body, err);
    send_reply (self, identity, request_id, false, body.data, body.len);
    dlq_buf_free (&body);
}

/* Answer every checkpoint write of a batch the committer handed back. */
static void
acknowledge_checkpoints (dlq_gateway_t *self, dlq_commit_batch_t *batch)
{
    static const dlq_verb_t verbs [] = {
        [DLQ_SINK_CKPT_SAVE] = DLQ_VERB_CKPT_SAVE, [DLQ_SINK_CKPT_SEEN] = DLQ_VERB_CKPT_SEEN,
        [DLQ_SINK_CKPT_PROCESSED] = DLQ_VERB_CKPT_PROCESSED
    };
    for (size_t i = 0; i < batch->ckpt_count; i++) {
        self->answering = batch->ckpts [i].remove ? DLQ_VERB_CKPT_DELETE : verbs [batch->ckpts [i].kind];
        if (batch->ckpt_failed) {
            dlq_error_t err;
            dlq_error_set (&err, DLQ_ERR_UNAVAILABLE, NULL, "the store could not commit: %s; "
                           "nothing was changed, send again", batch->ckpt_error);
            send_error (self, &batch->ckpt_identities [i], &batch->ckpt_request_ids [i], &err);
            continue;
        }
        const dlq_buf_t *reply = &batch->ckpts [i].reply;
        if (batch->ckpts [i].refused) {
            dlq_error_t err;
            dlq_error_set (&err, DLQ_ERR_UNAVAILABLE, NULL, "%.*s", (int) reply->len, reply->data);
            send_error (self, &batch->ckpt_identities [i], &batch->ckpt_request_ids [i], &err);
            continue;
        }
        send_reply (self, &batch->ckpt_identities [i], &batch->ckpt_request_ids [i], true, reply->data, reply->len);
    }
}

/* Acknowledge every PUT of a batch the committer handed back. */
static void
acknowledge (dlq_gateway_t *self, dlq_commit_batch_t *batch)
{
    acknowledge_checkpoints (self, batch);
    self->answering = DLQ_VERB_PUT;
    dlq_buf_t body = DLQ_BUF_INIT;
    uint64_t duplicates = 0;
    int64_t now_ns = dlq_time_mono_ns ();
    for (size_t i = 0; i < batch->count; i++) {
        dlq_counters_ack_latency (self->counters, (double) (now_ns - batch->received_ns [i]) / 1e9);
        if (batch->failed) {
            dlq_error_t err;
            dlq_error_set (&err, DLQ_ERR_UNAVAILABLE, NULL, "the store could not commit: %s; "
                           "nothing was stored, send again", batch->error);
            send_error (self, &batch->identities [i], &batch->request_ids [i], &err);
            continue;
        }
        dlq_buf_reset (&body);
        dlq_protocol_put_body (&body, batch->events [i]->id, batch->duplicate [i]);
        send_reply (self, &batch->identities [i], &batch->request_ids [i], true, body.data, body.len);
        duplicates += batch->duplicate [i];
    }
    if (!batch->failed) {
        dlq_counters_accepted (self->counters, batch->count - duplicates);
        dlq_counters_duplicate (self->counters, duplicates);
    }
    dlq_buf_free (&body);
}

/* Give the gathering batch to the committer if it is idle and the batch is
 * ready: full, or max_delay_ms old, or we are draining. */
static void
maybe_commit (dlq_gateway_t *self, bool draining)
{
    if (self->committing || dlq_commit_batch_size (self->gathering) == 0)
        return;
    int64_t age = dlq_time_mono_ms () - self->gather_started_ms;
    if (!draining && !dlq_commit_batch_full (self->gathering)
    &&  age < self->config->commit_max_delay_ms)
        return;
    self->commit_started_ns = dlq_time_mono_ns ();
    dlq_committer_submit (self->committer, self->gathering);
    self->committing = true;
    self->gathering = self->spare;
    self->spare = NULL;
}

static void
on_committed (dlq_gateway_t *self, bool draining)
{
    dlq_commit_batch_t *batch = dlq_committer_receive (self->committer);
    dlq_counters_commit (self->counters, batch->count + batch->ckpt_count,
                         (double) (dlq_time_mono_ns () - self->commit_started_ns) / 1e9);
    dlq_readiness_commit (self->readiness, batch->failed ? batch->error : batch->ckpt_failed ? batch->ckpt_error : NULL);
    acknowledge (self, batch);
    dlq_commit_batch_clear (batch);
    self->spare = batch;
    self->committing = false;
    maybe_commit (self, draining);
}

/* A body over gateway.max_message_bytes is answered TOO_LARGE here: true.
 * Asked for every verb before its handler, so no verb parses a body the
 * limit refuses (the query threads included). */
static bool
refuse_too_large (dlq_gateway_t *self, zmq_msg_t frames [DLQ_REQUEST_FRAMES])
{
    size_t len = zmq_msg_size (&frames [3]);
    if (len <= (size_t) self->config->max_message_bytes)
        return false;
    dlq_error_t err;
    dlq_error_set (&err, DLQ_ERR_TOO_LARGE, NULL, "the body is %zu bytes; the limit "
                   "(gateway.max_message_bytes) is %lld", len, (long long) self->config->max_message_bytes);
    send_error (self, &frames [0], &frames [2], &err);
    return true;
}

/* Start the gathering batch's clock with its first write. */
static void
gathering_starts (dlq_gateway_t *self)
{
    if (dlq_commit_batch_size (self->gathering) == 0)
        self->gather_started_ms = dlq_time_mono_ms ();
}

static void
handle_put (dlq_gateway_t *self, zmq_msg_t frames [DLQ_REQUEST_FRAMES])
{
    size_t len = zmq_msg_size (&frames [3]);
    dlq_error_t err;
    if (len == 0) {
        dlq_error_set (&err, DLQ_ERR_EMPTY_BODY, NULL, "PUT needs a FailedEvent JSON body");
        send_error (self, &frames [0], &frames [2], &err);
        return;
    }
    dlq_event_t *event = dlq_event_decode_in (zmq_msg_data (&frames [3]), len, dlq_time_now_ms (),
                                              self->gathering->arena, &err);
    if (!event) {
        send_error (self, &frames [0], &frames [2], &err);
        return;
    }
    if (self->caller && dlq_authorizer_check_stream (self->auth, self->caller, dlq_verb_table_get (DLQ_VERB_PUT),
                                                     event->stream_name, strlen (event->stream_name), &err)
                        != DLQ_OK) {
        send_error (self, &frames [0], &frames [2], &err);
        return;                         /* the batch's arena takes the event back with the batch */
    }
    dlq_policy_apply (dlq_policy_table_lookup (self->config->policies, event->stream_name), event);
    dlq_event_fingerprint (event);          /* of what is stored: every store computes the same */
    dlq_event_encode (event);
    gathering_starts (self);
    dlq_commit_batch_add (self->gathering, &event, &frames [0], &frames [2]);
}

/* FNV-1a of a client's ROUTER identity: its requests keyed to one worker. */
static uint64_t
identity_key (zmq_msg_t *identity)
{
    return dlq_hash_fnv64 (zmq_msg_data (identity), zmq_msg_size (identity));
}

/* A checkpoint write on the embedded primary: checked here, committed with
 * the next group commit, answered when durable. */
static void
handle_ckpt_write (dlq_gateway_t *self, dlq_verb_t verb, zmq_msg_t frames [DLQ_REQUEST_FRAMES])
{
    dlq_error_t err;
    dlq_checkpoint_t value;
    bool remove = false;
    if (dlq_ckpt_read_write (verb, zmq_msg_data (&frames [3]), zmq_msg_size (&frames [3]), &value, &remove, &err)
        != DLQ_OK) {
        send_error (self, &frames [0], &frames [2], &err);
        return;
    }
    if (dlq_verb_table_get (verb)->audited)     /* CKPT.DELETE: taken into the next commit */
        dlq_audit (self->caller ? dlq_principal_name (self->caller) : NULL, dlq_verb_table_get (verb)->name,
                   zmq_msg_data (&frames [3]), zmq_msg_size (&frames [3]), DLQ_OK, "taken into the next commit");
    gathering_starts (self);
    dlq_commit_batch_add_ckpt (self->gathering, &value, remove, dlq_time_now_ms (), &frames [0], &frames [2]);
}

/* PING's body is optional (empty or only whitespace) but, when present,
 * must be {} (as for STATS). */
static void
handle_ping (dlq_gateway_t *self, zmq_msg_t frames [DLQ_REQUEST_FRAMES])
{
    dlq_error_t err = { DLQ_OK, "", "" };
    dlq_json_doc_t *doc = NULL;
    if (dlq_params_parse_body (zmq_msg_data (&frames [3]), zmq_msg_size (&frames [3]), true, &doc, &err) == DLQ_OK
        && doc && dlq_json_root (doc)->count != 0)
        dlq_error_set (&err, DLQ_ERR_INVALID_REQUEST, NULL, "PING takes no parameters: "
                       "the body must be empty or {}");
    dlq_json_doc_destroy (&doc);
    if (err.code != DLQ_OK) {
        send_error (self, &frames [0], &frames [2], &err);
        return;
    }
    dlq_buf_t body = DLQ_BUF_INIT;
    dlq_protocol_ping_body (&body, (long long) self->config->max_message_bytes, self->caller);
    send_reply (self, &frames [0], &frames [2], true, body.data, body.len);
    dlq_buf_free (&body);
}

/* REDELIVER {"sink": S [, "streamName": X | "id": ID]}: check it here and
 * hand it to that sink's dispatcher, which answers. */
static void
handle_redeliver (dlq_gateway_t *self, zmq_msg_t frames [DLQ_REQUEST_FRAMES])
{
    dlq_error_t err = { DLQ_OK, "", "" };
    dlq_json_doc_t *doc = NULL;
    int sink = -1;
    static const char *const allowed [] = { "sink", "streamName", "id", NULL };
    dlq_code_t code = dlq_params_parse_body (zmq_msg_data (&frames [3]), zmq_msg_size (&frames [3]), false,
                                             &doc, &err);
    if (code == DLQ_ERR_EMPTY_BODY)
        dlq_error_set (&err, code, NULL, "REDELIVER needs {\"sink\": ...}");
    if (code == DLQ_OK)
        code = dlq_params_check (dlq_json_root (doc), allowed, false, &err);
    if (code == DLQ_OK) {
        const dlq_json_value_t *root = dlq_json_root (doc);
        const dlq_json_value_t *name = dlq_json_get (root, "sink");
        const dlq_json_value_t *stream = dlq_json_get (root, "streamName");
        const dlq_json_value_t *id = dlq_json_get (root, "id");
        if (!name || name->type != DLQ_JSON_STRING || memchr (name->str, '\0', name->len)
        ||  (sink = dlq_chain_find (self->sinks, name->str)) < 0)
            dlq_error_set (&err, DLQ_ERR_INVALID_REQUEST, "sink", "sink must name a configured sink");
        else
        if (stream && id)
            dlq_error_set (&err, DLQ_ERR_INVALID_REQUEST, "id", "give streamName or id, not both");
        else
        if (stream && (stream->type != DLQ_JSON_STRING || stream->len == 0 || memchr (stream->str, '\0', stream->len)))
            dlq_error_set (&err, DLQ_ERR_INVALID_REQUEST, "streamName", "streamName must be a non-empty string "
                           "without \\u0000");
        else
        if (id && (id->type != DLQ_JSON_STRING || !dlq_uuid_parse (id->str, id->len, NULL)))
            dlq_error_set (&err, DLQ_ERR_INVALID_REQUEST, "id", "id must be a UUID string");
    }
    dlq_json_doc_destroy (&doc);
    if (err.code != DLQ_OK)
        send_error (self, &frames [0], &frames [2], &err);
    else {
        dlq_counters_reply (self->counters, DLQ_VERB_REDELIVER, DLQ_OK);    /* its dispatcher answers OK */
        dlq_chain_submit (self->sinks, (size_t) sink, frames);
    }
}

/* Read one whole message: identity plus at most 4 frames kept. Returns the
 * number of frames after the identity (more than 3 when there were extra),
 * or -1 when no message is waiting. */
static int
read_message (dlq_gateway_t *self, zmq_msg_t frames [5])
{
    int n = 0, total = 0, more = 1;
    while (more) {
        zmq_msg_t frame;
        zmq_msg_init (&frame);
        if (zmq_msg_recv (&frame, self->router, total ? 0 : ZMQ_DONTWAIT) < 0) {
            zmq_msg_close (&frame);
            if (total == 0 && zmq_errno () != EINTR)
                return -1;
            continue;
        }
        more = zmq_msg_more (&frame);
        total++;
        if (n < 5) {
            zmq_msg_init (&frames [n]);
            zmq_msg_move (&frames [n++], &frame);
        }
        zmq_msg_close (&frame);
    }
    for (int i = n; i < 5; i++)
        zmq_msg_init (&frames [i]);
    return total - 1;
}

/* Answer BAD_FRAMES to a message of count frames (after the identity)
 * that is not [verb][request id][body]. Its request id is the second
 * frame when that is at most DLQ_REQUEST_ID_MAX bytes, else empty. A
 * message that starts with an empty frame and is not 3 frames is a REQ
 * socket's: its empty delimiter, then the request. The reply goes behind
 * an empty frame too, with the id of the request after the delimiter: a
 * REQ socket drops every reply that does not start with its delimiter, so
 * its client would wait for ever. */
static void
refuse_frames (dlq_gateway_t *self, zmq_msg_t frames [5], int count)
{
    bool enveloped = count != 3 && count >= 2 && zmq_msg_size (&frames [1]) == 0;
    int id_frame = enveloped ? 3 : 2;
    bool id_usable = count >= id_frame && zmq_msg_size (&frames [id_frame]) <= DLQ_REQUEST_ID_MAX;
    dlq_error_t err;
    if (count != 3)
        dlq_error_set (&err, DLQ_ERR_BAD_FRAMES, NULL, enveloped
                       ? "a request is 3 frames (verb, request id, body), without the empty delimiter "
                         "frame of a REQ socket; got %d frames" : "a request is 3 frames "
                         "(verb, request id, body); got %d", count);
    else
        dlq_error_set (&err, DLQ_ERR_BAD_FRAMES, NULL, "the request id is longer than %d bytes",
                       DLQ_REQUEST_ID_MAX);
    zmq_msg_t empty;
    zmq_msg_init (&empty);
    zmq_msg_t *id = id_usable ? &frames [id_frame] : &empty;
    if (enveloped) {
        zmq_msg_send (&frames [0], self->router, ZMQ_SNDMORE);     /* to the client, */
        send_error (self, &frames [1], id, &err);                   /* behind its delimiter */
    }
    else
        send_error (self, &frames [0], id, &err);
    zmq_msg_close (&empty);
}

/* Hand a request of a known verb to its lane (verb_table.h). */
static void
dispatch (dlq_gateway_t *self, const dlq_verb_spec_t *spec, zmq_msg_t frames [DLQ_REQUEST_FRAMES])
{
    switch (spec->lane) {
    case DLQ_LANE_INGEST:
        handle_put (self, frames);
        break;
    case DLQ_LANE_FRONT:
        handle_ping (self, frames);
        break;
    case DLQ_LANE_DELIVERY:
        handle_redeliver (self, frames);
        break;
    case DLQ_LANE_CHECKPOINT_WRITE:
        if (!self->config->primary_sink)
            handle_ckpt_write (self, spec->verb, frames);
        else                                    /* a sink primary's: in order per client */
            dlq_query_service_submit_keyed (self->queries, frames, identity_key (&frames [0]));
        break;
    case DLQ_LANE_QUERY:
    case DLQ_LANE_CHECKPOINT_READ:
    case DLQ_LANE_REPLAY:
    case DLQ_LANE_COUNT:
        dlq_query_service_submit (self->queries, frames);
        break;
    }
}

/* With CURVE, may the request go on (authorizer.h)? Refused, it is
 * answered FORBIDDEN (or UNAUTHENTICATED) here. The HTTP API's request
 * brings its caller's token in the fifth frame; a BY_ID verb of a caller
 * limited to some streams takes their scope along in that frame instead,
 * for the thread that reads the event, and any other request none. */
static bool
authorized (dlq_gateway_t *self, const dlq_verb_spec_t *spec, zmq_msg_t frames [DLQ_REQUEST_FRAMES], bool token)
{
    if (!self->auth)
        return true;
    dlq_authorizer_grant_t grant;
    dlq_error_t err;
    zmq_msg_t credential;
    zmq_msg_init (&credential);
    zmq_msg_move (&credential, &frames [4]);
    dlq_code_t code = dlq_authorizer_check (self->auth, spec, &frames [1], token ? &credential : NULL,
                                            zmq_msg_data (&frames [3]), zmq_msg_size (&frames [3]), &grant, &err);
    zmq_msg_close (&credential);
    if (code != DLQ_OK) {
        send_error (self, &frames [0], &frames [2], &err);
        return false;
    }
    self->caller = grant.principal;
    if (grant.scope.len) {
        zmq_msg_close (&frames [4]);
        zmq_msg_init_size (&frames [4], grant.scope.len);
        memcpy (zmq_msg_data (&frames [4]), grant.scope.data, grant.scope.len);
    }
    dlq_buf_free (&grant.scope);
    return true;
}

/* Is this the HTTP API's request, [verb][request id][body][token]? Only
 * with CURVE, and only without a User-Id: every endpoint but the API's
 * in-process one is a CURVE server then, so no client on the network
 * can send one. */
static bool
api_request (dlq_gateway_t *self, zmq_msg_t frames [5], int count)
{
    return count == 4 && self->auth && !zmq_msg_gets (&frames [1], "User-Id");
}

/* Read and answer (or queue) one request; false when none was waiting. */
static bool
handle_request (dlq_gateway_t *self)
{
    zmq_msg_t frames [5];
    int count = read_message (self, frames);
    if (count < 0)
        return false;
    self->answering = DLQ_VERB_UNKNOWN;
    bool token = api_request (self, frames, count);
    if ((count != 3 && !token) || zmq_msg_size (&frames [2]) > DLQ_REQUEST_ID_MAX)
        refuse_frames (self, frames, count);
    else {
        const dlq_verb_spec_t *spec = dlq_verb_table_find (zmq_msg_data (&frames [1]), zmq_msg_size (&frames [1]));
        if (spec)
            self->answering = spec->verb;
        if (!spec) {
            dlq_error_t err;
            dlq_error_set (&err, DLQ_ERR_UNKNOWN_VERB, NULL, "unknown verb; expected %s (upper case)",
                           self->verb_names.data);
            send_error (self, &frames [0], &frames [2], &err);
        }
        else
        if (!refuse_too_large (self, frames) && authorized (self, spec, frames, token))
            dispatch (self, spec, frames);
        self->caller = NULL;
    }
    for (int i = 0; i < 5; i++)
        zmq_msg_close (&frames [i]);
    return true;
}

/* Read what is waiting, up to max requests, while the batch has room. */
static void
read_burst (dlq_gateway_t *self, int max, bool draining)
{
    for (int i = 0; i < max; i++) {
        if (dlq_commit_batch_full (self->gathering))
            break;
        if (!handle_request (self))
            break;
    }
    maybe_commit (self, draining);
}

/* Wait for commit and query completions; timeout_ms -1 waits forever. */
/* Wait for commit, query and dispatcher completions; timeout_ms -1 waits
 * forever. */
static void
poll_once (dlq_gateway_t *self, int stop_fd, bool read_router, bool draining, int64_t timeout_ms)
{
    size_t nq = dlq_query_service_sockets (self->queries);
    size_t ns = dlq_chain_count (self->sinks);
    zmq_pollitem_t items [3 + 64 + 64 + 1];
    items [0] = (zmq_pollitem_t) { dlq_committer_socket (self->committer), 0, ZMQ_POLLIN, 0 };
    items [1] = (zmq_pollitem_t) { NULL, stop_fd, ZMQ_POLLIN, 0 };
    items [2] = (zmq_pollitem_t) { self->router, 0, read_router ? ZMQ_POLLIN : 0, 0 };
    for (size_t i = 0; i < nq; i++)
        items [3 + i] = (zmq_pollitem_t) { dlq_query_service_socket (self->queries, i), 0, ZMQ_POLLIN, 0 };
    for (size_t i = 0; i < ns; i++)
        items [3 + nq + i] = (zmq_pollitem_t) { dlq_chain_socket (self->sinks, i), 0, ZMQ_POLLIN, 0 };
    items [3 + nq + ns] = (zmq_pollitem_t) { dlq_connection_limit_socket (self->connections), 0, ZMQ_POLLIN, 0 };
    if (zmq_poll (items, (int) (3 + nq + ns + 1), (long) timeout_ms) < 0)
        return;                         /* EINTR: the caller looks at stop_fd again */
    if (items [0].revents & ZMQ_POLLIN)
        on_committed (self, draining);
    for (size_t i = 0; i < nq; i++)
        if (items [3 + i].revents & ZMQ_POLLIN)
            if (!dlq_query_service_forward (self->queries, i, self->router))
                dlq_counters_reply_dropped (self->counters, 1);
    for (size_t i = 0; i < ns; i++)
        if (items [3 + nq + i].revents & ZMQ_POLLIN)
            if (!dlq_chain_forward (self->sinks, i, self->router))
                dlq_counters_reply_dropped (self->counters, 1);
    if (items [3 + nq + ns].revents & ZMQ_POLLIN)
        dlq_connection_limit_handle (self->connections);
    if (items [2].revents & ZMQ_POLLIN)
        read_burst (self, READ_BURST, draining);
    maybe_commit (self, draining);
}

static int64_t
commit_timeout (dlq_gateway_t *self)
{
    if (self->committing || dlq_commit_batch_size (self->gathering) == 0)
        return -1;
    int64_t left = self->gather_started_ms + self->config->commit_max_delay_ms - dlq_time_mono_ms ();
    return left > 0 ? left : 0;
}

/* Read what the signal handler wrote to stop_fd (one byte per signal):
 * SIGHUP reloads what can be reloaded (the clients directory), any other
 * signal stops. True once stopping. Reads only while poll says there is
 * something to read, so that a blocking stop_fd works as well as a
 * non-blocking one; end of file also stops. */
static bool
stop_requested (dlq_gateway_t *self, int stop_fd)
{
    char sigs [64];
    struct pollfd ready = { .fd = stop_fd, .events = POLLIN };
    while (!self->stopping && poll (&ready, 1, 0) == 1) {
        ssize_t n = read (stop_fd, sigs, sizeof sigs);
        if (n <= 0 && !(n < 0 && (errno == EINTR || errno == EAGAIN))) {
            self->stopping = true;
            break;
        }
        for (ssize_t i = 0; i < n; i++) {
            if (sigs [i] != SIGHUP)
                self->stopping = true;
            else {
                if (self->reload)
                    self->reload (self->reload_arg);
                if (self->auth)
                    dlq_authorizer_reload (self->auth);
                else
                    dlq_log (DLQ_LOG_INFO, "SIGHUP: no clients directory to reload (no security.curve)");
            }
        }
    }
    return self->stopping;
}

/* Answer everything already received, then return. */
static void
drain (dlq_gateway_t *self)
{
    /* no zmq_unbind here: it would also drop the connections made through
     * the endpoint, and with them the replies we are about to send */
    while (true) {
        if (dlq_commit_batch_full (self->gathering)) {
            maybe_commit (self, true);
            if (dlq_commit_batch_full (self->gathering))
                on_committed (self, true);      /* waits for the batch in the committer */
            continue;
        }
        if (!handle_request (self))
            break;
    }
    maybe_commit (self, true);
    while (self->committing || dlq_commit_batch_size (self->gathering) || dlq_query_service_outstanding (self->queries)
        || dlq_chain_outstanding (self->sinks))
        poll_once (self, -1, false, true, -1);
}

/* timeout_ms (-1: forever), cut so that the loop wakes by tick_at (mono ms). */
static int64_t
until_tick (int64_t timeout_ms, int64_t tick_at)
{
    int64_t left = tick_at - dlq_time_mono_ms ();
    left = left > 0 ? left : 0;
    return timeout_ms < 0 || timeout_ms > left ? left : timeout_ms;
}

/* The loop also ticks the log at least every DLQ_LOG_TICK_MS, so that the
 * count of a suppressed repeat is written even when nothing else is. */
int
dlq_gateway_run (dlq_gateway_t *self, int stop_fd, dlq_gateway_reload_fn *reload, void *arg)
{
    self->reload = reload;
    self->reload_arg = arg;
    dlq_log (DLQ_LOG_INFO, "dlqd %s serving %s (data in %s)", DLQD_VERSION,
             self->config->listen [0], self->config->data_dir);
    char serving [300];
    snprintf (serving, sizeof serving, "serving %s (data in %s)", self->config->listen [0], self->config->data_dir);
    dlq_service_notify_ready (serving);
    int64_t watchdog_ms = dlq_service_notify_watchdog_ms ();
    int64_t now = dlq_time_mono_ms ();
    int64_t log_tick_at = now + DLQ_LOG_TICK_MS, status_at = now + DLQ_GATEWAY_STATUS_MS;
    int64_t watchdog_at = watchdog_ms ? now + watchdog_ms : INT64_MAX;
    const char *fatal = NULL;
    while (!stop_requested (self, stop_fd) && !(fatal = dlq_indexer_fatal (self->indexer))) {
        bool room = !dlq_commit_batch_full (self->gathering)
                 && dlq_query_service_outstanding (self->queries) < QUERY_BACKLOG_MAX;
        poll_once (self, stop_fd, room, false,
                   until_tick (commit_timeout (self), log_tick_at < watchdog_at ? log_tick_at : watchdog_at));
        now = dlq_time_mono_ms ();
        if (now >= watchdog_at) {               /* this loop goes round: the ingest thread is not stuck */
            dlq_service_notify_watchdog ();
            watchdog_at = now + watchdog_ms;
        }
        if (now >= log_tick_at) {
            dlq_log_tick ();
            if (self->auth)
                dlq_authorizer_tick (self->auth, now);
            log_tick_at = now + DLQ_LOG_TICK_MS;
        }
        if (now >= status_at) {
            dlq_counters_reading_t reading;
            dlq_counters_read (self->counters, &reading);
            dlq_service_notify_status ("%s: %llu events accepted, %llu duplicates, %llu rejected since start",
                                       serving, (unsigned long long) reading.accepted,
                                       (unsigned long long) reading.duplicate, (unsigned long long) reading.rejected);
            status_at = now + DLQ_GATEWAY_STATUS_MS;
        }
    }
    if (fatal)
        dlq_log (DLQ_LOG_ERROR, "stopping: the spool is corrupt (%s); nothing was dropped: move the segment "
                 "aside or restore it, and start again", fatal);
    dlq_service_notify_stopping (fatal ? "stopping: the spool is corrupt" : "stopping: answering every request "
                                 "already received");
    dlq_log (DLQ_LOG_INFO, "stopping: answering every request already received");
    dlq_replayer_destroy (&self->replayer);     /* no replay starts once stopping (progress is saved) */
    dlq_readiness_stopping (self->readiness);
    drain (self);
    dlq_log (DLQ_LOG_INFO, fatal ? "stopped" : "stopped cleanly");
    return fatal ? 1 : 0;
}

static bool
make_dirs (const char *path, char **err_p)
{
    char *copy = dlq_strdup (path);
    for (char *p = copy + 1; ; p++) {
        bool end = *p == '\0';
        if (*p == '/' || end) {
            *p = '\0';
            if (mkdir (copy, 0750) != 0 && errno != EEXIST) {
                dlq_buf_t msg = DLQ_BUF_INIT;
                dlq_buf_printf (&msg, "cannot create data_dir %s: %s", copy, strerror (errno));
                *err_p = dlq_buf_steal (&msg, NULL);
                free (copy);
                return false;
            }
            if (end)
                break;
            *p = '/';
        }
    }
    free (copy);
    return true;
}

static bool
bind_all (dlq_gateway_t *self, char **err_p)
{
    int64_t max_frame = self->config->max_frame_bytes;
    int request_hwm = (int) self->config->request_hwm, reply_hwm = (int) self->config->reply_hwm, mandatory = 1;
    zmq_setsockopt (self->router, ZMQ_MAXMSGSIZE, &max_frame, sizeof max_frame);
    zmq_setsockopt (self->router, ZMQ_RCVHWM, &request_hwm, sizeof request_hwm);
    zmq_setsockopt (self->router, ZMQ_SNDHWM, &reply_hwm, sizeof reply_hwm);
    zmq_setsockopt (self->router, ZMQ_ROUTER_MANDATORY, &mandatory, sizeof mandatory);
    if (self->auth && !dlq_authorizer_secure (self->auth, self->router, DLQ_ZAP_DOMAIN_GATEWAY)) {
        *err_p = dlq_strdup ("security.curve: this libzmq has no CURVE support");
        return false;
    }
    for (size_t i = 0; i < self->config->listen_count; i++)
        if (zmq_bind (self->router, self->config->listen [i]) != 0) {
            dlq_buf_t msg = DLQ_BUF_INIT;
            dlq_buf_printf (&msg, "cannot listen on %s: %s", self->config->listen [i],
                            zmq_strerror (zmq_errno ()));
            *err_p = dlq_buf_steal (&msg, NULL);
            return false;
        }
    return true;
}

/* Raise the open-files limit (fd_limit.h); gateway.max_connections, or
 * what that limit allows. */
static int64_t
max_connections (const dlqd_config_t *config)
{
    int64_t before = 0, limit = dlq_fd_limit_raise (&before);
    if (limit != before)
        dlq_log (DLQ_LOG_INFO, "open files limit raised from %lld to %lld", (long long) before, (long long) limit);
    int64_t allowed = dlq_fd_limit_connections (limit < 0 ? 1024 : limit);
    if (!config->max_connections)
        return allowed;
    if (config->max_connections > allowed)
        dlq_log (DLQ_LOG_WARN, "gateway.max_connections is %lld but the open files limit (%lld) leaves room for "
                 "%lld: past that, clients wait for a descriptor", (long long) config->max_connections,
                 (long long) limit, (long long) allowed);
    return config->max_connections;
}

/* The endpoint of the indexer's tip: the highest seq indexed. */
static void
store_tip (dlq_gateway_t *self, char *out, size_t len)
{
    snprintf (out, len, "inproc://dlq-store-tip-%p", (void *) self);
}

/* The HTTP listener (http.listen), once every ZeroMQ endpoint is bound;
 * none without addresses. */
static bool
start_http (dlq_gateway_t *self, char **err_p)
{
    const dlqd_http_config_t *http = &self->config->http;
    if (http->listen.count == 0)
        return true;
    char err [600];
    dlq_metrics_sources_t sources = { self->config, self->counters, self->committer, self->indexer, self->sinks,
                                      self->readiness };
    self->metrics = dlq_metrics_new (&sources, err, sizeof err);
    char endpoint [64];
    snprintf (endpoint, sizeof endpoint, "inproc://dlqd-api-%p", (void *) self);
    if (self->metrics && zmq_bind (self->router, endpoint) != 0)
        snprintf (err, sizeof err, "cannot bind %s: %s", endpoint, zmq_strerror (zmq_errno ()));
    else
    if (self->metrics && !(self->api = dlq_api_handler_new (self->ctx, endpoint, self->auth != NULL, self->counters)))
        snprintf (err, sizeof err, "cannot connect the HTTP API to %s", endpoint);
    char tip [64];
    store_tip (self, tip, sizeof tip);
    if (self->api)
        self->events = dlq_event_streams_new (self->ctx, tip, self->api);
    if (self->api)
        self->http = dlq_http_server_new (http->listen.items, http->listen.count, self->metrics, self->readiness,
                                          self->api, self->events, (size_t) self->config->max_message_bytes, err,
                                          sizeof err);
    if (!self->http)
        *err_p = dlq_strdup (err);
    return self->http != NULL;
}

dlq_gateway_t *
dlq_gateway_new (const dlqd_config_t *config, char **err_p)
{
    *err_p = NULL;
    if (!make_dirs (config->data_dir, err_p))
        return NULL;
    /* two gateways appending to one log would interleave their records */
    dlq_dir_lock_t *lock = NULL;
    char why [PATH_MAX + 200];
    if (dlq_dir_lock_take (config->data_dir, DLQ_DATA_DIR_LOCK, &lock, why, sizeof why) != DLQ_DIR_LOCK_OK) {
        size_t len = strlen (why) + 80;
        *err_p = dlq_malloc (len);
        snprintf (*err_p, len, "data_dir %s: another dlqd runs on it", why);
        return NULL;
    }
    dlq_gateway_t *self = dlq_calloc (1, sizeof *self);
    self->config = config;
    self->lock = lock;
    self->ctx = zmq_ctx_new ();
    self->counters = dlq_counters_new ();
    self->readiness = dlq_readiness_new (config->data_dir, config->http.min_free_bytes);
    dlq_verb_table_names (&self->verb_names);
    char auth_err [600];
    if (!dlq_audit_open (config->security.audit_log, auth_err, sizeof auth_err)) {
        *err_p = dlq_strdup (auth_err);
        dlq_gateway_destroy (&self);
        return NULL;
    }
    if (config->security.server_secret_key
        && !(self->auth = dlq_authorizer_new (self->ctx, &config->security, self->counters, auth_err, sizeof auth_err))) {
        *err_p = dlq_strdup (auth_err);
        dlq_gateway_destroy (&self);
        return NULL;
    }
    self->gathering = dlq_commit_batch_new ((size_t) config->commit_max_batch, (size_t) config->commit_max_batch_bytes);
    self->spare = dlq_commit_batch_new ((size_t) config->commit_max_batch, (size_t) config->commit_max_batch_bytes);
    char err [512] = "", tip [64], spool_tip [64];
    store_tip (self, tip, sizeof tip);
    snprintf (spool_tip, sizeof spool_tip, "inproc://dlq-spool-tip-%p", (void *) self);
    self->ledger = dlq_ledger_channel_new ();
    self->committer = dlq_committer_new (self->ctx, config, spool_tip, (size_t) config->max_checkpoint_bytes,
                                         config->spool_preallocate, err, sizeof err);
    if (self->committer)
        self->indexer = dlq_indexer_new (self->ctx, config, dlq_committer_spool (self->committer),
                                         dlq_committer_ids (self->committer), spool_tip, tip, config->sweep_interval_ms, config->sweep_batch,
                                         INDEX_MAX_BATCH, (int) config->index_nice,
                                         self->ledger, dlq_committer_marks (self->committer), err, sizeof err);
    if (self->indexer)
        self->sinks = dlq_chain_new (self->ctx, config, self->ledger, dlq_committer_spool (self->committer),
                                          spool_tip, err_p);
    self->replay_control = dlq_replay_control_new ();
    if (self->sinks)
        self->queries = dlq_query_service_new (self->ctx, config, self->sinks, self->counters,
                                               self->replay_control, self->committer, self->indexer,
                                               err, sizeof err);
    if (self->queries)
        self->replayer = dlq_replayer_new (self->ctx, config, self->replay_control,
                                           dlq_committer_marks (self->committer), err, sizeof err);
    if (!self->committer || !self->sinks || !self->queries || !self->replayer) {
        if (!*err_p)
            *err_p = dlq_strdup (err);
        dlq_gateway_destroy (&self);
        return NULL;
    }
    self->router = zmq_socket (self->ctx, ZMQ_ROUTER);
    self->connections = dlq_connection_limit_new (self->ctx, self->router, max_connections (config), self->counters,
                                                  err, sizeof err);
    if (!self->connections)
        *err_p = dlq_strdup (err);
    if (!self->connections || !bind_all (self, err_p) || !start_http (self, err_p)) {
        dlq_gateway_destroy (&self);
        return NULL;
    }
    dlq_readiness_bound (self->readiness);
    return self;
}

void
dlq_gateway_destroy (dlq_gateway_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_gateway_t *self = *self_p;
    dlq_api_handler_close (self->api);          /* the loop is over: nothing answers the API now */
    dlq_http_server_destroy (&self->http);      /* first: a scrape reads everything below */
    dlq_event_streams_destroy (&self->events);
    dlq_api_handler_destroy (&self->api);
    dlq_metrics_destroy (&self->metrics);
    dlq_readiness_destroy (&self->readiness);
    dlq_connection_limit_destroy (&self->connections);
    if (self->router) {
        int linger = DRAIN_LINGER_MS;
        zmq_setsockopt (self->router, ZMQ_LINGER, &linger, sizeof linger);
        zmq_close (self->router);
    }
    dlq_replayer_destroy (&self->replayer);
    if (self->replay_control)
        dlq_replay_control_close (self->replay_control);     /* no replayer may have started */
    dlq_query_service_destroy (&self->queries);
    dlq_replay_control_destroy (&self->replay_control);
    dlq_chain_destroy (&self->sinks);          /* before the indexer: they hand it updates */
    dlq_indexer_destroy (&self->indexer);
    dlq_committer_destroy (&self->committer);       /* last: it owns the spool the others read */
    if (self->ledger)
        dlq_ledger_channel_close (self->ledger);
    dlq_ledger_channel_destroy (&self->ledger);
    dlq_commit_batch_destroy (&self->gathering);
    dlq_commit_batch_destroy (&self->spare);
    dlq_counters_destroy (&self->counters);
    dlq_buf_free (&self->verb_names);
    dlq_authorizer_destroy (&self->auth);       /* after every socket it answers for */
    if (self->config->security.audit_log)
        dlq_audit_close ();
    zmq_ctx_term (self->ctx);
    dlq_dir_lock_release (&self->lock);         /* last: every thread that wrote data_dir is gone */
    free (self);
    *self_p = NULL;
}
