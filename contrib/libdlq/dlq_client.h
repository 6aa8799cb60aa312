/*  dlq_client — libdlq, the C client of the dlqd dead-letter gateway: the
 *  client (this header), the workbench's filters (dlq_filter.h), the
 *  replay receiver (dlq_replay_receiver.h) and what they share
 *  (dlq_result.h). This header includes the other three; dlq.h includes
 *  them all and says which version of libdlq they are.
 *
 *  Speaks wire protocol version 1 (docs/protocol.md): one ZeroMQ
 *  DEALER socket connected to the gateway's ROUTER, requests
 *  [verb][request-id][body], replies [status][request-id][body]. Request ids
 *  are made by the client (a per-client sequence number plus the slot of the
 *  request in the window) and every reply is matched on its id, so replies
 *  may come back in any order.
 *
 *  Two ways to talk to the gateway, usable on the same client:
 *
 *    * blocking calls (put, get, list, stats, ping, redeliver, the
 *      failure workbench's list_filtered, count and groups, and the
 *      replay verbs: replay, replay_dry_run, replay_status, replay_jobs,
 *      replay_pause / _resume / _cancel, resolve and fail, and the
 *      checkpoint calls ckpt_save, _seen, _processed, _get, _list and
 *      _delete) send one request and wait for its reply;
 *    * pipelined requests: dlq_client_put_async() (and, for checkpoint
 *      writes, dlq_client_ckpt_seen_async() / _processed_async()) submit
 *      without waiting, up to a window of requests in flight (default
 *      1000), and dlq_client_poll() / dlq_client_flush() hand each
 *      completion to a callback.
 *
 *  Timeouts, resends and reconnection. A request unanswered within the
 *  timeout (default 5000 ms) is sent again, up to the retry count (default
 *  3), on a *new* DEALER socket: the old connection is closed and a fresh
 *  one made, so a gateway that lost track of it cannot answer twice, and a
 *  late reply that does arrive (any reply whose request id is no longer
 *  outstanding, e.g. because the request was resent under a new id) is
 *  ignored. When the retries are used up the request fails with
 *  DLQ_CLIENT_ERR_TIMEOUT. A request that cannot even be handed to a
 *  connected gateway within the timeout (nothing listens, or the gateway
 *  is down) fails with DLQ_CLIENT_ERR_TRANSPORT instead.
 *
 *  Errors the gateway reports (ERR replies) are never retried by the
 *  client: they come back as DLQ_CLIENT_ERR_SERVER with the gateway's
 *  code (as text: "NOT_FOUND", "INVALID_STATE", ...; the client passes
 *  on codes it does not know as they are), message and field. Only
 *  UNAVAILABLE (nothing was stored: the store failed or the gateway is
 *  stopping) is worth retrying, later.
 *
 *  Workers that process replayed events take them from the gateway's
 *  replay endpoint with a dlq_replay_receiver_t (a PULL socket;
 *  dlq_replay_receiver.h) and report each outcome with
 *  dlq_client_resolve() or dlq_client_fail() on a client.
 *
 *  A resent PUT is only idempotent when the event carries its own "id":
 *  the gateway then stores it once and answers the resend as a duplicate.
 *  An event without an id gets a fresh UUIDv7 from the gateway each time
 *  it arrives, so a resend after a lost reply can store it twice. Give
 *  every event an id before sending it; dlq_client_uuid_v7() makes one.
 *
 *  Socket options. ZMQ_LINGER is 0: the client only closes a socket when it
 *  gives up on that connection (a resend follows on a new socket) or when
 *  it is destroyed (unanswered requests are then abandoned anyway), and a
 *  non-zero linger would make destroying a client wait for a gateway that
 *  is not there. ZMQ_IMMEDIATE is 1: requests are queued only to a
 *  completed connection, never to one still being made. With the default
 *  (0) a request sent before the gateway is up waits in ZeroMQ's queue and
 *  a dead gateway is indistinguishable from a slow one until the timeout
 *  and every retry have passed; with 1 the client holds unsent requests
 *  itself, knows which ones the gateway can have seen, and reports "no
 *  connection" as DLQ_CLIENT_ERR_TRANSPORT after one timeout. The high
 *  water marks are unlimited: the window is what bounds the queues.
 *
 *  Threads: a client belongs to one thread at a time (ZeroMQ sockets are
 *  not thread-safe); use one client per thread. dlq_client_uuid_v7() is
 *  thread-safe. Memory: allocation failure aborts the process. Strings
 *  passed in are copied; nothing passed in is kept.
 */
#ifndef DLQ_CLIENT_H
#define DLQ_CLIENT_H

#include "dlq_filter.h"
#include "dlq_replay_receiver.h"
#include "dlq_result.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DLQ_CLIENT_PROTOCOL            1
#define DLQ_CLIENT_DEFAULT_ENDPOINT    "tcp://127.0.0.1:5560"
#define DLQ_CLIENT_DEFAULT_TIMEOUT_MS  5000
#define DLQ_CLIENT_DEFAULT_WINDOW      1000
#define DLQ_CLIENT_DEFAULT_RETRIES     3
#define DLQ_CLIENT_MAX_WINDOW          1000000
#define DLQ_CLIENT_MAX_RETRIES         100

typedef struct dlq_client dlq_client_t;

/* Where a replay job sends the events it replays. */
typedef enum {
    DLQ_CLIENT_TARGET_ROUTE = 0,    /* each event's stream's replay_route: a sink, or the endpoint */
    DLQ_CLIENT_TARGET_ENDPOINT      /* the gateway's ZeroMQ replay endpoint, whatever the route */
} dlq_client_target_t;

/* The state of a replay job. */
typedef enum {
    DLQ_CLIENT_JOB_RUNNING = 0,     /* replaying, at its rate (or waiting for a worker) */
    DLQ_CLIENT_JOB_PAUSED,          /* stopped until resumed */
    DLQ_CLIENT_JOB_CANCELLED,       /* stopped for good before the end */
    DLQ_CLIENT_JOB_DONE             /* every selected event handled */
} dlq_client_job_state_t;

/* Which events a replay is about: those that match filter (its members
 * as for dlq_client_list_filtered), or the id_count events whose ids are
 * in ids, or, with all set and no filter member, every event. Give
 * filters or ids (not both: INVALID_REQUEST), or all: the gateway refuses
 * a replay without a selection (INVALID_REQUEST, field "all"), so that a
 * forgotten filter never replays the whole store. Nothing is kept: the
 * filter and the ids are read during the call. */
typedef struct {
    const dlq_client_filter_t *filter;  /* NULL, or a filter (its members are sent) */
    const char *const         *ids;     /* id_count event ids (1 to 10000), or NULL */
    size_t                     id_count;
    bool                       all;     /* every event (sent as "all": true) */
} dlq_client_selection_t;

/* A replay job, as the gateway reported it. done = replayed + skipped +
 * quarantined + failed; skipped counts events already SUCCEEDED or
 * QUARANTINED, quarantined those the loop guard (replay.max_replays)
 * stopped, failed those that could not be replayed (last_error says
 * why, e.g. a stream without a replay_route). Strings are truncated to
 * their buffers; "" when the gateway did not send them. */
typedef struct {
    char                   id [DLQ_CLIENT_ID_SIZE];    /* the job's id (UUID) */
    dlq_client_job_state_t state;
    dlq_client_target_t    target;
    int64_t                rate;            /* events per second, at most */
    int64_t                total;           /* events selected */
    int64_t                done;
    int64_t                replayed;
    int64_t                skipped;
    int64_t                quarantined;
    int64_t                failed;
    char                   created_at [32]; /* ISO-8601, e.g. "2026-06-09T14:32:11.123Z" */
    char                   updated_at [32];
    char                   last_error [512];
} dlq_client_job_t;

/* An event's replay state after RESOLVE or FAIL (and in GET's "replay"). */
typedef struct {
    char    id [DLQ_CLIENT_ID_SIZE];    /* the event's id */
    char    status [33];                /* its status now: "SUCCEEDED" after resolve, "PENDING" after fail */
    int64_t retry_count;                /* FAILs reported so far */
    int64_t replay_count;               /* times replayed so far */
    char    retry_after [32];           /* when it is due again (ISO-8601); "" when not told */
} dlq_client_event_state_t;

/* What PING answered. */
typedef struct {
    char    version [32];       /* the gateway's version, e.g. "0.1.0" (truncated if longer) */
    int     protocol;           /* the protocol version it speaks (1) */
    int64_t round_trip_us;      /* from sending the request to receiving the reply */
    int64_t max_message_bytes;  /* largest PUT body the gateway accepts (0: not told) */
} dlq_client_pong_t;

/* The outcome of one pipelined request (a PUT, or a checkpoint write:
 * see verb), as handed to a completion callback. Every pointer is valid
 * only during the callback; copy what you keep. Strings that do not apply
 * are "" (never NULL). */
typedef struct {
    uint64_t            tag;        /* the tag given when it was submitted */
    dlq_client_result_t result;     /* OK, ERR_SERVER, ERR_TIMEOUT, ERR_TRANSPORT or ERR_PROTOCOL */
    const char         *id;         /* PUT, OK: the stored event's id (lowercase UUID) */
    bool                duplicate;  /* PUT, OK: the id was already stored; this body was discarded */
    const char         *code;       /* ERR_SERVER: the error code, e.g. "INVALID_EVENT" */
    const char         *message;    /* any error: what went wrong */
    const char         *field;      /* ERR_SERVER: JSON path of the offending field, if one */
    /* Added with the checkpoint calls. */
    const char         *verb;       /* "PUT", "CKPT.SEEN" or "CKPT.PROCESSED" */
    const char         *body;       /* OK: the reply body (a checkpoint write: the stored
                                     * record, see dlq_client_checkpoint_read); "" otherwise */
    size_t              body_len;
} dlq_client_completion_t;

/* Called once per completed pipelined request, from dlq_client_poll() or
 * dlq_client_flush() only (never from another call). It may submit new
 * requests with dlq_client_put_async*() or dlq_client_ckpt_*_async(); it
 * must not destroy the client. */
typedef void (dlq_client_completion_fn) (const dlq_client_completion_t *completion, void *arg);

/* ---- life cycle ------------------------------------------------------ */

/* Create a client for a ZeroMQ endpoint (e.g. "tcp://127.0.0.1:5560") with
 * its own ZeroMQ context and the default options, and start connecting
 * (asynchronously: no error if nothing listens yet). Returns a new client
 * (destroy it with dlq_client_destroy), or NULL with errno set when the
 * endpoint is malformed or ZeroMQ cannot create the socket. */
DLQ_CLIENT_EXPORT dlq_client_t *dlq_client_new (const char *endpoint);

/* Like dlq_client_new() but on a ZeroMQ context the caller owns (a void *
 * from zmq_ctx_new), shared with other sockets. The context is not
 * terminated by dlq_client_destroy() and must outlive the client. */
DLQ_CLIENT_EXPORT dlq_client_t *dlq_client_new_shared (const char *endpoint, void *zmq_context);

/* Like dlq_client_new() for a gateway with CURVE (security.curve;
 * docs/security.md): every connection is encrypted and authenticated.
 * server_key is the gateway's public key (40 Z85 characters) or the path
 * of its public certificate; client_cert the path of this client's
 * certificate (its _secret file, or the public file beside it), made by
 * `dlqctl keygen` or any zcert tool. A key the gateway does not know gets
 * no connection: requests fail with ERR_TIMEOUT. NULL with errno set and,
 * when err is not NULL, a message naming the file in err (err_len bytes)
 * when a key cannot be read (missing, unreadable, malformed, or a secret
 * file others can read). */
DLQ_CLIENT_EXPORT dlq_client_t *dlq_client_new_curve (const char *endpoint, const char *server_key,
                                                      const char *client_cert, char *err, size_t err_len);

/* Close the socket (unanswered requests and undelivered completions are
 * dropped: flush first to keep them), terminate the context if the client
 * owns it, and free the client. Accepts NULL; sets *self_p to NULL. */
DLQ_CLIENT_EXPORT void dlq_client_destroy (dlq_client_t **self_p);

/* ---- options --------------------------------------------------------- */

/* Set how long to wait for each reply, and for a connection, in ms (> 0).
 * Applies to requests sent from now on. ERR_ARGS when out of range. */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_set_timeout (dlq_client_t *self, int timeout_ms);

/* Set how many times an unanswered request is resent (0 to
 * DLQ_CLIENT_MAX_RETRIES) before failing with ERR_TIMEOUT. */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_set_retries (dlq_client_t *self, int retries);

/* Set the most requests in flight at once (1 to DLQ_CLIENT_MAX_WINDOW).
 * Only while nothing is outstanding (dlq_client_outstanding() == 0);
 * ERR_ARGS otherwise. */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_set_window (dlq_client_t *self, size_t window);

/* The endpoint this client connects to; owned by the client. */
DLQ_CLIENT_EXPORT const char *dlq_client_endpoint (const dlq_client_t *self);

/* The current timeout in ms, retry count and window size. */
DLQ_CLIENT_EXPORT int dlq_client_timeout (const dlq_client_t *self);
DLQ_CLIENT_EXPORT int dlq_client_retries (const dlq_client_t *self);
DLQ_CLIENT_EXPORT size_t dlq_client_window (const dlq_client_t *self);

/* ---- blocking calls ---------------------------------------------------
 * Each sends one request and waits for its reply (resending as described
 * above). On any result other than OK, the error accessors below say why.
 * Pipelined PUTs that complete meanwhile are kept for dlq_client_poll(). */

/* Store one FailedEvent: body is len bytes of UTF-8 JSON (copied). On OK,
 * id_out (if not NULL, DLQ_CLIENT_ID_SIZE bytes) receives the event's id
 * and *duplicate_out (if not NULL) whether it was already stored. */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_put (dlq_client_t *self, const void *body, size_t len,
                                                      char *id_out, bool *duplicate_out);

/* Fetch one event by id. On OK, *event_out receives the stored event as a
 * NUL-terminated JSON object (the "event" member of the reply), owned by
 * the caller (free() it), and *len_out (if not NULL) its length. A missing
 * event is ERR_SERVER with code "NOT_FOUND". */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_get (dlq_client_t *self, const char *id,
                                                      char **event_out, size_t *len_out);

/* Like dlq_client_get(), but on OK *body_out receives the whole reply body
 * (NUL-terminated, owned by the caller: free() it; its length in *len_out
 * if not NULL): {"event":{...},"deliveries":[...]}, where "deliveries"
 * (only from a gateway with sinks) tells, for each sink of the event's
 * chain, {"sink","state","attempts"} and, when they apply,
 * "nextAttemptAt" and "lastError". */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_get_reply (dlq_client_t *self, const char *id,
                                                            char **body_out, size_t *len_out);

/* List a stream's events, newest first. limit 0 means the gateway's
 * default (100); cursor NULL asks for the first page, otherwise pass the
 * "nextCursor" of the previous page. On OK, *body_out receives the raw
 * reply body {"events":[...],"nextCursor":"..."} (NUL-terminated, owned by
 * the caller: free() it) and *len_out (if not NULL) its length. */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_list (dlq_client_t *self, const char *stream_name,
                                                       unsigned limit, const char *cursor,
                                                       char **body_out, size_t *len_out);

/* Fetch the gateway's counters (and, from a gateway with sinks, each
 * sink's figures under "sinks"). On OK, *body_out receives the raw reply
 * body (NUL-terminated JSON object, owned by the caller: free() it) and
 * *len_out (if not NULL) its length. */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_stats (dlq_client_t *self, char **body_out, size_t *len_out);

/* Deliver again the deliveries to the sink named sink that ended failed:
 * all of them when stream_name and id are NULL, else only those of the
 * events of stream stream_name, or only that of the event with this id
 * (give one of the two at most: both is ERR_ARGS, and nothing is sent).
 * They are queued for delivery at once, as if new. On OK, *requeued_out
 * (if not NULL) receives how many were queued (0 when none matched). A
 * sink the gateway does not have is ERR_SERVER with code
 * "INVALID_REQUEST" and field "sink"; ERR_PROTOCOL when the reply has no
 * "requeued" count. */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_redeliver (dlq_client_t *self, const char *sink,
                                                            const char *stream_name, const char *id,
                                                            int64_t *requeued_out);

/* ---- the failure workbench: filtered LIST, COUNT, GROUPS --------------
 * Each takes a filter (NULL: every event of every stream) and, like the
 * calls above, blocks until the reply. A filter the gateway refuses (a
 * member of the wrong form, more than 16 metadata pairs, ...) is
 * ERR_SERVER with code "INVALID_REQUEST" and the member's name as the
 * field ("createdAfter", "metadata.shard", ...). The embedded, postgres
 * and mongo primaries answer them (and any sink store with the workbench
 * calls); with another sink as the primary they are INVALID_REQUEST
 * (dlq_client_list() still works). Filters: dlq_filter.h. */

/* List the events that match filter, newest first, across streams unless
 * the filter names one. limit (1 to 1000; 0: the gateway's default, 100)
 * and cursor (NULL: the first page; else the "nextCursor" of the previous
 * page, with the same filter) as for dlq_client_list(). On OK, *body_out
 * receives the raw reply body {"events":[...],"nextCursor":"..."}
 * (NUL-terminated, owned by the caller: free() it) and *len_out (if not
 * NULL) its length. With a filter of a stream name alone this sends what
 * dlq_client_list() sends. */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_list_filtered (dlq_client_t *self,
                                                                const dlq_client_filter_t *filter,
                                                                unsigned limit, const char *cursor,
                                                                char **body_out, size_t *len_out);

/* Count the (unexpired) events that match filter. On OK, *count_out
 * receives the count; ERR_PROTOCOL when the reply has none. */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_count (dlq_client_t *self, const dlq_client_filter_t *filter,
                                                        int64_t *count_out);

/* Group the events that match filter by error fingerprint: "what is
 * failing". limit (1 to 1000; 0: the gateway's default, 20) bounds the
 * number of groups. On OK, *body_out receives the raw reply body
 * (NUL-terminated, owned by the caller: free() it; its length in *len_out
 * if not NULL): {"groups":[{"fingerprint","count","firstSeen","lastSeen",
 * "streams":[...],"errorType","message","sampleId"},...]}, the group with
 * the most events first; "message" is normalised (numbers, ids, addresses
 * ... replaced by <num>, <uuid>, <ip> ...) and "sampleId" is one event of
 * the group. */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_groups (dlq_client_t *self, const dlq_client_filter_t *filter,
                                                         unsigned limit, char **body_out, size_t *len_out);

/* ---- replay: send stored events again -----------------------------------
 * A replay job sends the selected events, at most rate per second, to
 * their stream's replay_route or to the replay endpoint (target); each
 * replayed event is the stored one with metadata.replayOf (its id) and
 * metadata.replayCount (1 the first time) added. The job is durable: it
 * goes on across restarts of the gateway, whatever becomes of the client
 * that made it. Job calls on an unknown job id are ERR_SERVER with code
 * "NOT_FOUND"; a move a job's state does not allow (resuming a DONE job,
 * ...) is code "INVALID_STATE". Calls with a job_out or state_out fill
 * it (when not NULL) on OK; ERR_PROTOCOL when the reply does not hold
 * one. */

/* Start a replay job of the events selected, to target, at rate events
 * per second (0: the gateway's replay.rate). The job is RUNNING
 * and durable when this returns OK; *job_out receives it as created.
 * ERR_ARGS (nothing sent) when selection is NULL or has ids NULL with
 * an id_count, or a NULL id, or its filter refused a value, or target is
 * not one of the enum, or rate is negative. The
 * gateway refuses filters and ids together, and a target of ENDPOINT
 * when it has no replay.listen (INVALID_REQUEST, field "target"). */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_replay (dlq_client_t *self, const dlq_client_selection_t *selection,
                                                         dlq_client_target_t target, int rate,
                                                         dlq_client_job_t *job_out);

/* Replay the one stored event id as a corrected copy: replacement (a
 * NUL-terminated FailedEvent JSON object, e.g. the stored event with its
 * fullDocument or metadata fixed) is sent instead of the stored body,
 * with the lineage (metadata.replayOf, replayCount) as any replay; the
 * stored event never changes. The gateway validates it as a PUT's body
 * (INVALID_EVENT naming "replacement.FIELD"); its id and streamName must
 * be the stored event's, or left out (INVALID_REQUEST); an id not stored
 * is NOT_FOUND. To target at rate as dlq_client_replay; *job_out receives
 * the job. ERR_ARGS (nothing sent) when id or replacement is NULL, target
 * is not one of the enum, or rate is negative. */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_replay_replacement (dlq_client_t *self, const char *id,
                                                                     const char *replacement,
                                                                     dlq_client_target_t target, int rate,
                                                                     dlq_client_job_t *job_out);

/* What dlq_client_replay() would replay, without replaying anything: on
 * OK *count_out (if not NULL) receives how many events are selected and
 * *body_out (if not NULL) the raw reply body {"dryRun":true,"count":N,
 * "sample":[<event>,...]} (NUL-terminated, owned by the caller: free()
 * it; its length in *len_out if not NULL), with up to sample events
 * (0 to 100; less than 0: the gateway's default, 10). ERR_PROTOCOL when
 * the reply has no count. */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_replay_dry_run (dlq_client_t *self,
                                                                 const dlq_client_selection_t *selection,
                                                                 dlq_client_target_t target, int sample,
                                                                 int64_t *count_out, char **body_out,
                                                                 size_t *len_out);

/* The job with this id, as it is now. */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_replay_status (dlq_client_t *self, const char *job,
                                                                dlq_client_job_t *job_out);

/* Every job (at most the 100 newest): on OK *body_out receives the raw
 * reply body {"jobs":[<job>,...]}, newest first (NUL-terminated, owned by
 * the caller: free() it; its length in *len_out if not NULL). Each job
 * has the members of dlq_client_job_t: "job", "state", "target", "rate",
 * "total", "done", "replayed", "skipped", "quarantined", "failed",
 * "createdAt", "updatedAt" and, when set, "lastError". */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_replay_jobs (dlq_client_t *self, char **body_out, size_t *len_out);

/* Pause a RUNNING job, resume a PAUSED one, cancel a RUNNING or PAUSED
 * one (for good). Asking for the state the job is in already is OK and
 * changes nothing; any other move is INVALID_STATE. *job_out receives
 * the job after the change. */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_replay_pause (dlq_client_t *self, const char *job,
                                                               dlq_client_job_t *job_out);
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_replay_resume (dlq_client_t *self, const char *job,
                                                                dlq_client_job_t *job_out);
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_replay_cancel (dlq_client_t *self, const char *job,
                                                                dlq_client_job_t *job_out);

/* A worker's report on a replayed event (by its id): resolve when it
 * processed the event (status SUCCEEDED: never replayed again), fail when
 * it did not (status PENDING, retry count + 1, due again after the
 * gateway's backoff). *state_out receives the event's state after the
 * change. An unknown id is ERR_SERVER with code "NOT_FOUND". */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_resolve (dlq_client_t *self, const char *id,
                                                          dlq_client_event_state_t *state_out);
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_fail (dlq_client_t *self, const char *id,
                                                       dlq_client_event_state_t *state_out);

/* Check that the gateway answers. On OK, *pong_out (if not NULL) receives
 * its version, protocol and the round trip time. ERR_PROTOCOL when the
 * reply is not a pong. */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_ping (dlq_client_t *self, dlq_client_pong_t *pong_out);

/* The error code of the last failed blocking call: the gateway's code
 * ("NOT_FOUND", ...) for ERR_SERVER, "" otherwise. Owned by the client,
 * valid until the next call on it. */
DLQ_CLIENT_EXPORT const char *dlq_client_error_code (const dlq_client_t *self);

/* A readable explanation of the last failed blocking call ("" after OK).
 * Owned by the client, valid until the next call on it. */
DLQ_CLIENT_EXPORT const char *dlq_client_error_message (const dlq_client_t *self);

/* The JSON path of the offending field of the last ERR_SERVER reply ("" if
 * none). Owned by the client, valid until the next call on it. */
DLQ_CLIENT_EXPORT const char *dlq_client_error_field (const dlq_client_t *self);

/* ---- pipelined requests: PUT (checkpoint writes: see "checkpoints") ---- */

/* Submit one FailedEvent (len bytes of JSON, copied) without waiting for
 * its reply; tag is yours, handed back in its completion. When the window
 * is full this waits for a slot, i.e. for some earlier request to complete
 * (at most about (retries + 1) x timeout). Returns OK once submitted, or
 * ERR_ARGS. The outcome comes later through dlq_client_poll/flush. */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_put_async (dlq_client_t *self, const void *body, size_t len,
                                                            uint64_t tag);

/* Like dlq_client_put_async() but never waits: returns ERR_WINDOW_FULL
 * (nothing submitted) when the window is still full after taking in the
 * replies that have already arrived. */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_put_async_nowait (dlq_client_t *self, const void *body,
                                                                   size_t len, uint64_t tag);

/* Wait up to timeout_ms (0: do not wait; -1: as long as it takes) until at
 * least one pipelined request has completed, then call fn (may be NULL: the
 * completions are dropped) once for each completed one, in completion
 * order. Returns how many were delivered; 0 at once when nothing is
 * outstanding. */
DLQ_CLIENT_EXPORT size_t dlq_client_poll (dlq_client_t *self, int timeout_ms,
                                          dlq_client_completion_fn *fn, void *arg);

/* Deliver completions as in dlq_client_poll() until no pipelined request
 * is outstanding. Returns OK, or ERR_TIMEOUT when timeout_ms (-1: no limit;
 * each request still fails by itself after its retries) ran out first. */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_flush (dlq_client_t *self, int timeout_ms,
                                                        dlq_client_completion_fn *fn, void *arg);

/* Number of pipelined requests submitted whose completion has not yet
 * been delivered (in flight, waiting to be sent, or completed and
 * queued). */
DLQ_CLIENT_EXPORT size_t dlq_client_outstanding (const dlq_client_t *self);

/* ---- checkpoints: workers' stream positions -----------------------------
 * The gateway keeps, per stream name, the position a worker reached in its
 * source (FlowWarden's CheckpointStore contract): two resume tokens that
 * advance independently, lastSeenToken (every event the worker saw, also
 * those it skipped: a heartbeat) and lastProcessedToken (events it
 * processed), each with its timestamp. CKPT.SEEN changes only the seen pair
 * and CKPT.PROCESSED only the processed pair, so the two may be sent
 * concurrently from different threads or processes without one undoing the
 * other. Every write is durable when its reply comes (like a PUT).
 *
 * Tokens and metadata are JSON objects, passed and returned as text (a
 * token is a BSON document in MongoDB extended JSON, e.g.
 * {"_data":"8263..."}); the gateway stores them compacted and returns them
 * byte for byte in that form. Timestamps are ISO-8601 text; the gateway
 * stores them in UTC to the millisecond and returns them as
 * "2026-06-09T14:32:13.500Z". A token or metadata text that is not one
 * JSON object is ERR_ARGS (nothing sent); what the gateway refuses
 * (a malformed extended JSON wrapper, a bad timestamp, a stream name
 * over 1024 bytes, ...) is ERR_SERVER with code INVALID_REQUEST or
 * INVALID_TIMESTAMP and the member as the field. */

/* One checkpoint record. Absent members are NULL. In a checkpoint the
 * library filled (ckpt_save's stored_out, ckpt_get, ...), every string
 * points into storage: release it with dlq_client_checkpoint_clear(). In
 * one you fill for dlq_client_ckpt_save(), point the members at your own
 * strings and leave storage NULL (nothing is kept). A checkpoint given
 * as an output is overwritten (cleared first, so that it holds nothing
 * to release when the call fails): release what it held before. */
typedef struct {
    const char *stream_name;                /* the key: 1 to 1024 bytes of UTF-8 */
    const char *instance_id;                /* the worker that wrote it (at most 255 bytes) */
    const char *last_seen_token;            /* a JSON object */
    const char *last_seen_timestamp;        /* ISO-8601 */
    const char *last_processed_token;       /* a JSON object */
    const char *last_processed_timestamp;   /* ISO-8601 */
    const char *metadata;                   /* a JSON object */
    const char *updated_at;                 /* ISO-8601, set by the gateway on every write;
                                             * not sent by ckpt_save */
    char       *storage;                    /* the library's: what the strings point into */
} dlq_client_checkpoint_t;

/* Replace the whole record of checkpoint->stream_name (create it when
 * there is none): every member is set as given, and a member that is
 * NULL becomes absent, even when the stored record had it. On OK,
 * *stored_out (if not NULL) receives the record as stored; stored_out
 * may be checkpoint itself (a record read, changed and saved back: what
 * it held is released once the request is made). ERR_ARGS when
 * checkpoint or its stream name is NULL, or a token or the metadata is
 * not a JSON object. */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_ckpt_save (dlq_client_t *self,
                                                            const dlq_client_checkpoint_t *checkpoint,
                                                            dlq_client_checkpoint_t *stored_out);

/* Advance only lastSeenToken / lastSeenTimestamp of stream_name (seen)
 * or only lastProcessedToken / lastProcessedTimestamp (processed) to
 * token (a JSON object as text) and timestamp (ISO-8601; NULL: now, by
 * this machine's clock); every other member stays as it is. A stream
 * without a record gets one holding only that pair. On OK, *stored_out
 * (if not NULL) receives the record after the write. */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_ckpt_seen (dlq_client_t *self, const char *stream_name,
                                                            const char *token, const char *timestamp,
                                                            dlq_client_checkpoint_t *stored_out);
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_ckpt_processed (dlq_client_t *self, const char *stream_name,
                                                                 const char *token, const char *timestamp,
                                                                 dlq_client_checkpoint_t *stored_out);

/* The same writes, pipelined: submitted without waiting for the reply
 * (waiting for a slot when the window is full, as dlq_client_put_async),
 * their outcome handed later to the callback of dlq_client_poll() /
 * _flush(), with tag, verb "CKPT.SEEN" or "CKPT.PROCESSED" and, on OK,
 * the stored record as body. The writes of one client reach the gateway
 * in the order submitted (the replies may come in any order). Returns OK
 * once submitted, or ERR_ARGS (nothing submitted). */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_ckpt_seen_async (dlq_client_t *self, const char *stream_name,
                                                                  const char *token, const char *timestamp,
                                                                  uint64_t tag);
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_ckpt_processed_async (dlq_client_t *self,
                                                                       const char *stream_name,
                                                                       const char *token,
                                                                       const char *timestamp, uint64_t tag);

/* The record of stream_name into *checkpoint_out (release it with
 * dlq_client_checkpoint_clear). A stream without a record is ERR_SERVER
 * with code "NOT_FOUND" (field "streamName"): a worker then starts from
 * wherever it starts when it has no position. */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_ckpt_get (dlq_client_t *self, const char *stream_name,
                                                           dlq_client_checkpoint_t *checkpoint_out);

/* One page of records, ordered by stream name (byte order): those whose
 * name starts with prefix (NULL or "": all), at most limit (1 to 1000; 0:
 * the gateway's default, 100), after cursor (NULL: the first page; else
 * the "nextCursor" of the previous page, with the same prefix). On OK,
 * *body_out receives the raw reply body {"checkpoints":[<record>,...],
 * "nextCursor":"..."} ("nextCursor" absent on the last page;
 * NUL-terminated, owned by the caller: free() it; its length in *len_out
 * if not NULL). */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_ckpt_list (dlq_client_t *self, const char *prefix,
                                                            unsigned limit, const char *cursor,
                                                            char **body_out, size_t *len_out);

/* Delete the record of stream_name. On OK, *deleted_out (if not NULL)
 * says whether there was one (deleting a stream without a record is not
 * an error). ERR_PROTOCOL when the reply has no "deleted" flag. */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_ckpt_delete (dlq_client_t *self, const char *stream_name,
                                                              bool *deleted_out);

/* Read a record as the gateway writes it (len bytes of a JSON object: a
 * completion's body, an element of a list page) into *checkpoint_out
 * (release it with dlq_client_checkpoint_clear). ERR_PROTOCOL (the
 * checkpoint cleared) when it is not a record with a streamName;
 * ERR_ARGS for a NULL argument. */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_checkpoint_read (const char *json, size_t len,
                                                                  dlq_client_checkpoint_t *checkpoint_out);

/* Free what a checkpoint filled by the library holds and clear every
 * member (NULL). Accepts NULL, and a cleared checkpoint. */
DLQ_CLIENT_EXPORT void dlq_client_checkpoint_clear (dlq_client_checkpoint_t *checkpoint);

/* ---- helpers ----------------------------------------------------------- */

/* A job state ("RUNNING", "PAUSED", "CANCELLED", "DONE") or a target
 * ("route", "endpoint") as the protocol spells it; static storage. */
DLQ_CLIENT_EXPORT const char *dlq_client_job_state_name (dlq_client_job_state_t state);
DLQ_CLIENT_EXPORT const char *dlq_client_target_name (dlq_client_target_t target);

/* Write a new UUIDv7 (RFC 9562: unix time in ms, then a counter so ids
 * made by this process in the same ms still sort in creation order, then
 * random bits) as 36 lowercase characters plus NUL into out. Thread-safe.
 * Put it in an event's "id" to make resending that event safe. */
DLQ_CLIENT_EXPORT void dlq_client_uuid_v7 (char out [DLQ_CLIENT_ID_SIZE]);

/* Number of replies this client received and dropped: late replies to
 * requests that had since been resent or had failed, replies to request
 * ids it never used, and messages that are not three frames. For
 * diagnostics. */
DLQ_CLIENT_EXPORT uint64_t dlq_client_ignored_replies (const dlq_client_t *self);

#ifdef __cplusplus
}
#endif

#endif
