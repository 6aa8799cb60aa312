/*  dlq_client — libdlq's public API: client objects, blocking calls,
 *  pipelined requests and their completions, on top of the request engine
 *  (dlqc_engine.h). Interpreting reply bodies happens here (the replay
 *  verbs' bodies and replies in dlqc_replay.h, the checkpoint verbs' in
 *  dlqc_ckpt.h).
 */
#include "dlq_client.h"

#include "dlq_alloc.h"
#include "dlq_time.h"
#include "dlq_uuid.h"
#include "dlq_version.h"
#include "dlqc_body.h"
#include "dlqc_ckpt.h"
#include "dlqc_engine.h"
#include "dlqc_filter.h"
#include "dlqc_json.h"
#include "dlqc_replay.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

struct dlq_client {
    dlqc_engine_t engine;
    char         *error_code;       /* last blocking call: never NULL */
    char         *error_message;
    char         *error_field;
};

/* A reply interpreted: what a caller of put (blocking or pipelined) or of
 * any other call gets to see. Strings are owned and never NULL. */
typedef struct {
    dlq_client_result_t result;
    char                id [DLQ_CLIENT_ID_SIZE];
    bool                duplicate;
    char               *code;
    char               *message;
    char               *field;
} verdict_t;

/* ---- life cycle ---------------------------------------------------- */

static dlq_client_t *
client_new (const char *endpoint, void *ctx, bool own_ctx, const dlqc_curve_t *curve)
{
    if (!endpoint || !ctx) {
        errno = EINVAL;
        return NULL;
    }
    dlq_client_t *self = dlq_calloc (1, sizeof *self);
    if (!dlqc_engine_init (&self->engine, ctx, own_ctx, endpoint, curve, DLQ_CLIENT_DEFAULT_WINDOW)) {
        free (self);
        return NULL;
    }
    self->error_code = dlq_strdup ("");
    self->error_message = dlq_strdup ("");
    self->error_field = dlq_strdup ("");
    return self;
}

/* A client with a context of its own. */
static dlq_client_t *
client_new_owning (const char *endpoint, const dlqc_curve_t *curve)
{
    void *ctx = zmq_ctx_new ();
    if (!ctx)
        return NULL;
    dlq_client_t *self = client_new (endpoint, ctx, true, curve);
    if (!self) {
        int saved = errno;
        zmq_ctx_term (ctx);
        errno = saved;
    }
    return self;
}

dlq_client_t *
dlq_client_new (const char *endpoint)
{
    return client_new_owning (endpoint, NULL);
}

dlq_client_t *
dlq_client_new_shared (const char *endpoint, void *zmq_context)
{
    return client_new (endpoint, zmq_context, false, NULL);
}

dlq_client_t *
dlq_client_new_curve (const char *endpoint, const char *server_key, const char *client_cert,
                      char *err, size_t err_len)
{
    dlqc_curve_t curve;
    if (!dlqc_curve_load (&curve, server_key, client_cert, err, err_len))
        return NULL;
    dlq_client_t *self = client_new_owning (endpoint, &curve);
    dlqc_curve_done (&curve, self != NULL, endpoint, err, err_len);
    return self;
}

void
dlq_client_destroy (dlq_client_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_client_t *self = *self_p;
    dlqc_engine_fini (&self->engine);
    free (self->error_code);
    free (self->error_message);
    free (self->error_field);
    free (self);
    *self_p = NULL;
}

/* ---- options ------------------------------------------------------- */

dlq_client_result_t
dlq_client_set_timeout (dlq_client_t *self, int timeout_ms)
{
    if (!self || timeout_ms <= 0)
        return DLQ_CLIENT_ERR_ARGS;
    self->engine.timeout_ms = timeout_ms;
    return DLQ_CLIENT_OK;
}

dlq_client_result_t
dlq_client_set_retries (dlq_client_t *self, int retries)
{
    if (!self || retries < 0 || retries > DLQ_CLIENT_MAX_RETRIES)
        return DLQ_CLIENT_ERR_ARGS;
    self->engine.retries = retries;
    return DLQ_CLIENT_OK;
}

dlq_client_result_t
dlq_client_set_window (dlq_client_t *self, size_t window)
{
    if (!self || window < 1 || window > DLQ_CLIENT_MAX_WINDOW)
        return DLQ_CLIENT_ERR_ARGS;
    if (self->engine.async_pending > 0 || !dlqc_engine_resize (&self->engine, (uint32_t) window))
        return DLQ_CLIENT_ERR_ARGS;
    return DLQ_CLIENT_OK;
}

const char *
dlq_client_endpoint (const dlq_client_t *self)
{
    return self->engine.endpoint;
}

int
dlq_client_timeout (const dlq_client_t *self)
{
    return self->engine.timeout_ms;
}

int
dlq_client_retries (const dlq_client_t *self)
{
    return self->engine.retries;
}

size_t
dlq_client_window (const dlq_client_t *self)
{
    return self->engine.table.capacity;
}

/* ---- interpreting replies ------------------------------------------ */

static void
verdict_clear (verdict_t *verdict)
{
    free (verdict->code);
    free (verdict->message);
    free (verdict->field);
    memset (verdict, 0, sizeof *verdict);
}

static char *
member_or_empty (const dlqc_outcome_t *outcome, const char *key)
{
    char *value = dlqc_json_member_string (outcome->body, outcome->body_len, key);
    return value ? value : dlq_strdup ("");
}

/* Fill the error part of a verdict from an outcome that is not OK: the
 * code, message and field of an ERR body, or the local explanation. */
static void
judge_failure (const dlqc_outcome_t *outcome, verdict_t *verdict)
{
    verdict->result = outcome->result;
    if (outcome->result != DLQ_CLIENT_ERR_SERVER) {
        verdict->code = dlq_strdup ("");
        verdict->message = dlq_strdup (outcome->message ? outcome->message : "");
        verdict->field = dlq_strdup ("");
        return;
    }
    /* a code read from a body that is no JSON object is no code (the scan stops at the member) */
    verdict->code = dlqc_json_is_object (outcome->body, outcome->body_len)
                  ? dlqc_json_member_string (outcome->body, outcome->body_len, "code") : NULL;
    if (!verdict->code || !*verdict->code) {
        free (verdict->code);
        verdict->result = DLQ_CLIENT_ERR_PROTOCOL;
        verdict->code = dlq_strdup ("");
        verdict->message = dlq_strdup ("ERR reply without an error code");
        verdict->field = dlq_strdup ("");
        return;
    }
    verdict->message = member_or_empty (outcome, "message");
    verdict->field = member_or_empty (outcome, "field");
}

static void
judge_protocol_error (verdict_t *verdict, const char *message)
{
    verdict->result = DLQ_CLIENT_ERR_PROTOCOL;
    verdict->id [0] = '\0';
    free (verdict->message);
    verdict->message = dlq_strdup (message);
}

/* Start the verdict on an outcome: the error of one that failed (false),
 * else OK with empty strings (true). */
static bool
judge_ok (const dlqc_outcome_t *outcome, verdict_t *verdict)
{
    memset (verdict, 0, sizeof *verdict);
    if (outcome->result != DLQ_CLIENT_OK) {
        judge_failure (outcome, verdict);
        return false;
    }
    verdict->result = DLQ_CLIENT_OK;
    verdict->code = dlq_strdup ("");
    verdict->message = dlq_strdup ("");
    verdict->field = dlq_strdup ("");
    return true;
}

/* Interpret the outcome of a PUT: id and duplicate flag, or the error. */
static void
judge_put (const dlqc_outcome_t *outcome, verdict_t *verdict)
{
    if (!judge_ok (outcome, verdict))
        return;
    size_t id_len = 0;
    dlqc_json_span_t span;
    char *id = dlqc_json_member (outcome->body, outcome->body_len, "id", &span)
             ? dlqc_json_string (&span, &id_len) : NULL;
    if (id && id_len == DLQ_CLIENT_ID_SIZE - 1)
        memcpy (verdict->id, id, DLQ_CLIENT_ID_SIZE);
    else
        judge_protocol_error (verdict, "PUT reply without a valid \"id\"");
    free (id);
    if (dlqc_json_member (outcome->body, outcome->body_len, "duplicate", &span))
        verdict->duplicate = span.type == DLQC_JSON_TRUE;
}

/* Remember a verdict as the last error (or success) of a blocking call;
 * takes its strings. */
static dlq_client_result_t
remember (dlq_client_t *self, verdict_t *verdict)
{
    free (self->error_code);
    free (self->error_message);
    free (self->error_field);
    bool failed = verdict->result != DLQ_CLIENT_OK;
    self->error_code = failed ? verdict->code : dlq_strdup ("");
    self->error_message = failed ? verdict->message : dlq_strdup ("");
    self->error_field = failed ? verdict->field : dlq_strdup ("");
    if (!failed) {
        free (verdict->code);
        free (verdict->message);
        free (verdict->field);
    }
    dlq_client_result_t result = verdict->result;
    memset (verdict, 0, sizeof *verdict);
    return result;
}

/* Record a local failure (bad arguments, ...) of a blocking call. */
static dlq_client_result_t
remember_local (dlq_client_t *self, dlq_client_result_t result, const char *message)
{
    verdict_t verdict = {
        result, "", false, dlq_strdup (""), dlq_strdup (message), dlq_strdup ("")
    };
    return remember (self, &verdict);
}

/* ---- blocking calls ------------------------------------------------ */

/* Take a slot for a new request, waiting (and so letting earlier ones
 * complete) while the window is full. */
static uint32_t
submit_waiting (dlq_client_t *self, const char *verb, const void *body, size_t len,
                bool blocking, uint64_t tag)
{
    uint32_t slot;
    while ((slot = dlqc_engine_submit (&self->engine, verb, body, len, blocking, tag)) == DLQC_NO_SLOT)
        dlqc_engine_step (&self->engine, DLQC_FOREVER);
    return slot;
}

/* Send one request and wait until it is finished; *outcome receives how
 * (the caller clears it). */
static void
call (dlq_client_t *self, const char *verb, const void *body, size_t len, dlqc_outcome_t *outcome)
{
    uint32_t slot = submit_waiting (self, verb, body, len, true, 0);
    dlqc_request_t *r = &self->engine.table.slots [slot];
    while (r->state != DLQC_DONE)
        dlqc_engine_step (&self->engine, DLQC_FOREVER);
    *outcome = r->outcome;
    memset (&r->outcome, 0, sizeof r->outcome);
    dlqc_table_release (&self->engine.table, slot);
}

/* Call, and on OK hand over the raw reply body; else remember the error. */
static dlq_client_result_t
call_for_body (dlq_client_t *self, const char *verb, const void *body, size_t len,
               dlqc_outcome_t *outcome)
{
    call (self, verb, body, len, outcome);
    verdict_t verdict = { DLQ_CLIENT_OK, "", false, NULL, NULL, NULL };
    if (outcome->result != DLQ_CLIENT_OK)
        judge_failure (outcome, &verdict);
    return remember (self, &verdict);
}

dlq_client_result_t
dlq_client_put (dlq_client_t *self, const void *body, size_t len, char *id_out, bool *duplicate_out)
{
    if (!self)
        return DLQ_CLIENT_ERR_ARGS;
    if (!body && len)
        return remember_local (self, DLQ_CLIENT_ERR_ARGS, "no body");
    dlqc_outcome_t outcome;
    call (self, "PUT", body ? body : "", len, &outcome);
    verdict_t verdict;
    judge_put (&outcome, &verdict);
    dlqc_outcome_clear (&outcome);
    if (verdict.result == DLQ_CLIENT_OK) {
        if (id_out)
            memcpy (id_out, verdict.id, DLQ_CLIENT_ID_SIZE);
        if (duplicate_out)
            *duplicate_out = verdict.duplicate;
    }
    return remember (self, &verdict);
}

/* Take the raw body out of an outcome, as a caller-owned string. */
static void
hand_over_body (dlqc_outcome_t *outcome, char **body_out, size_t *len_out)
{
    *body_out = outcome->body;
    if (len_out)
        *len_out = outcome->body_len;
    outcome->body = NULL;
}

/* Close a request body built with dlqc_body, send it, and free it; as
 * call_for_body otherwise. */
static dlq_client_result_t
call_with (dlq_client_t *self, const char *verb, dlqc_body_t *request, dlqc_outcome_t *outcome)
{
    dlqc_body_close (request);
    dlq_client_result_t result = call_for_body (self, verb, request->data, request->len, outcome);
    dlqc_body_free (request);
    return result;
}

/* Reads what a call wants out of its OK reply into value; false when
 * the reply is not what the verb answers. May take the body over. */
typedef bool reply_reader_t (dlqc_outcome_t *outcome, void *value);

/* Send a request (a body built with dlqc_body, which this closes and
 * frees; NULL: an empty body) and read its OK reply with read into value;
 * a reply read refuses makes the call ERR_PROTOCOL, remembered with why. */
static dlq_client_result_t
call_and_read (dlq_client_t *self, const char *verb, dlqc_body_t *request, reply_reader_t *read, void *value,
               const char *why)
{
    dlqc_outcome_t outcome;
    dlq_client_result_t result = request ? call_with (self, verb, request, &outcome)
                                         : call_for_body (self, verb, "", 0, &outcome);
    if (result == DLQ_CLIENT_OK && !read (&outcome, value))
        result = remember_local (self, DLQ_CLIENT_ERR_PROTOCOL, why);
    dlqc_outcome_clear (&outcome);
    return result;
}

/* Where a reply body handed over goes. */
typedef struct {
    char  **body;
    size_t *len;        /* may be NULL */
} body_place_t;

static bool
read_whole_body (dlqc_outcome_t *outcome, void *value)
{
    const body_place_t *place = value;
    hand_over_body (outcome, place->body, place->len);
    return true;
}

/* Send a request (as call_and_read) and on OK hand the whole reply body
 * over. */
static dlq_client_result_t
fetch (dlq_client_t *self, const char *verb, dlqc_body_t *request, char **body_out, size_t *len_out)
{
    body_place_t place = { body_out, len_out };
    return call_and_read (self, verb, request, read_whole_body, &place, "");
}

/* Start the request {"<key>":"<value>"} of a call that has a client and
 * what it needs (given); else ERR_ARGS, remembered with why when there is
 * a client. */
static dlq_client_result_t
start_request (dlq_client_t *self, bool given, const char *why, dlqc_body_t *request, const char *key,
               const char *value)
{
    if (!self)
        return DLQ_CLIENT_ERR_ARGS;
    if (!given)
        return remember_local (self, DLQ_CLIENT_ERR_ARGS, why);
    dlqc_body_init (request);
    dlqc_body_string (request, key, value);
    return DLQ_CLIENT_OK;
}

/* Where GET's event goes: a copy of the reply's "event" object or, when
 * whole, the whole reply body. */
typedef struct {
    bool         whole;
    body_place_t place;
} event_place_t;

static bool
read_event (dlqc_outcome_t *outcome, void *value)
{
    event_place_t *e = value;
    dlqc_json_span_t event;
    if (!(dlqc_json_member (outcome->body, outcome->body_len, "event", &event) && event.type == DLQC_JSON_OBJECT))
        return false;
    if (e->whole)
        return read_whole_body (outcome, &e->place);
    *e->place.body = dlq_strndup (event.start, event.len);
    if (e->place.len)
        *e->place.len = event.len;
    return true;
}

/* GET {"id":...}: on OK *out receives a copy of the reply's "event" object
 * or, when whole, the whole reply body (caller frees), and *len_out (if
 * not NULL) its length. A reply without an "event" object is
 * ERR_PROTOCOL. */
static dlq_client_result_t
get_event (dlq_client_t *self, const char *id, bool whole, char **out, size_t *len_out)
{
    dlqc_body_t request;
    dlq_client_result_t started = start_request (self, id && out, "no id or no place for the event", &request, "id",
                                                 id);
    if (started != DLQ_CLIENT_OK)
        return started;
    event_place_t place = { whole, { out, len_out } };
    return call_and_read (self, "GET", &request, read_event, &place, "GET reply without an \"event\" object");
}

dlq_client_result_t
dlq_client_get (dlq_client_t *self, const char *id, char **event_out, size_t *len_out)
{
    return get_event (self, id, false, event_out, len_out);
}

dlq_client_result_t
dlq_client_get_reply (dlq_client_t *self, const char *id, char **body_out, size_t *len_out)
{
    return get_event (self, id, true, body_out, len_out);
}

/* Append LIST's or GROUPS' page members: "limit" (unless 0) and "cursor"
 * (unless NULL). */
static void
write_page (dlqc_body_t *request, unsigned limit, const char *cursor)
{
    if (limit)
        dlqc_body_int (request, "limit", limit);
    if (cursor)
        dlqc_body_string (request, "cursor", cursor);
}

dlq_client_result_t
dlq_client_list (dlq_client_t *self, const char *stream_name, unsigned limit, const char *cursor,
                 char **body_out, size_t *len_out)
{
    dlqc_body_t request;
    dlq_client_result_t started = start_request (self, stream_name && body_out,
                                                 "no stream name or no place for the body", &request, "streamName",
                                                 stream_name);
    if (started != DLQ_CLIENT_OK)
        return started;
    write_page (&request, limit, cursor);
    return fetch (self, "LIST", &request, body_out, len_out);
}

dlq_client_result_t
dlq_client_stats (dlq_client_t *self, char **body_out, size_t *len_out)
{
    if (!self)
        return DLQ_CLIENT_ERR_ARGS;
    if (!body_out)
        return remember_local (self, DLQ_CLIENT_ERR_ARGS, "no place for the body");
    return fetch (self, "STATS", NULL, body_out, len_out);
}

/* Why a call refuses a filter one of whose setters refused a value. */
#define FILTER_REFUSED "the filter has a value its setter refused (ERR_ARGS): clear it and set it again"

/* ---- the failure workbench ----------------------------------------- */

/* LIST or GROUPS: the filter and the page members, the whole reply body
 * handed over on OK. */
static dlq_client_result_t
fetch_filtered (dlq_client_t *self, const char *verb, const dlq_client_filter_t *filter, unsigned limit,
                const char *cursor, char **body_out, size_t *len_out)
{
    if (!self)
        return DLQ_CLIENT_ERR_ARGS;
    if (!body_out)
        return remember_local (self, DLQ_CLIENT_ERR_ARGS, "no place for the body");
    if (dlqc_filter_refused (filter))
        return remember_local (self, DLQ_CLIENT_ERR_ARGS, FILTER_REFUSED);
    dlqc_body_t request;
    dlqc_body_init (&request);
    dlqc_filter_write (filter, &request);
    write_page (&request, limit, cursor);
    return fetch (self, verb, &request, body_out, len_out);
}

dlq_client_result_t
dlq_client_list_filtered (dlq_client_t *self, const dlq_client_filter_t *filter, unsigned limit,
                          const char *cursor, char **body_out, size_t *len_out)
{
    return fetch_filtered (self, "LIST", filter, limit, cursor, body_out, len_out);
}

/* A reply's non-negative integer member key, and the body handed over
 * (when place.body is not NULL). */
typedef struct {
    const char  *key;
    int64_t      count;
    body_place_t place;
} counted_t;

static bool
read_count (dlqc_outcome_t *outcome, void *value)
{
    counted_t *c = value;
    dlqc_json_span_t span;
    if (!(dlqc_json_member (outcome->body, outcome->body_len, c->key, &span) && dlqc_json_int (&span, &c->count)
          && c->count >= 0))
        return false;
    if (c->place.body)
        hand_over_body (outcome, c->place.body, c->place.len);
    return true;
}

/* Send a request (as call_and_read) whose OK reply counts something in
 * member key; the count into *count_out (when not NULL). A reply without
 * it is ERR_PROTOCOL (why). */
static dlq_client_result_t
call_for_count (dlq_client_t *self, const char *verb, dlqc_body_t *request, const char *key, const char *why,
                int64_t *count_out)
{
    counted_t counted = { key, -1, { NULL, NULL } };
    dlq_client_result_t result = call_and_read (self, verb, request, read_count, &counted, why);
    if (result == DLQ_CLIENT_OK && count_out)
        *count_out = counted.count;
    return result;
}

dlq_client_result_t
dlq_client_count (dlq_client_t *self, const dlq_client_filter_t *filter, int64_t *count_out)
{
    if (!self)
        return DLQ_CLIENT_ERR_ARGS;
    if (dlqc_filter_refused (filter))
        return remember_local (self, DLQ_CLIENT_ERR_ARGS, FILTER_REFUSED);
    dlqc_body_t request;
    dlqc_body_init (&request);
    dlqc_filter_write (filter, &request);
    return call_for_count (self, "COUNT", &request, "count", "COUNT reply without a \"count\"", count_out);
}

dlq_client_result_t
dlq_client_groups (dlq_client_t *self, const dlq_client_filter_t *filter, unsigned limit,
                   char **body_out, size_t *len_out)
{
    return fetch_filtered (self, "GROUPS", filter, limit, NULL, body_out, len_out);
}

dlq_client_result_t
dlq_client_redeliver (dlq_client_t *self, const char *sink, const char *stream_name, const char *id,
                      int64_t *requeued_out)
{
    if (!self)
        return DLQ_CLIENT_ERR_ARGS;
    if (!sink)
        return remember_local (self, DLQ_CLIENT_ERR_ARGS, "no sink");
    if (stream_name && id)
        return remember_local (self, DLQ_CLIENT_ERR_ARGS, "give a stream name or an id, not both");
    dlqc_body_t request;
    dlqc_body_init (&request);
    dlqc_body_string (&request, "sink", sink);
    if (stream_name)
        dlqc_body_string (&request, "streamName", stream_name);
    if (id)
        dlqc_body_string (&request, "id", id);
    return call_for_count (self, "REDELIVER", &request, "requeued", "REDELIVER reply without a \"requeued\" count",
                           requeued_out);
}

/* ---- replay ------------------------------------------------------- */

/* Send a request whose OK reply is a job (the body is closed and freed)
 * and read it into *job_out (when not NULL). */
static bool
read_job (dlqc_outcome_t *outcome, void *job)
{
    return dlqc_replay_read_job (outcome->body, outcome->body_len, job);
}

static dlq_client_result_t
call_for_job (dlq_client_t *self, const char *verb, dlqc_body_t *request, dlq_client_job_t *job_out)
{
    dlq_client_job_t job;
    dlq_client_result_t result = call_and_read (self, verb, request, read_job, &job, "reply is not a replay job");
    if (result == DLQ_CLIENT_OK && job_out)
        *job_out = job;
    return result;
}

/* OK when a REPLAY with this selection and target can be sent; else
 * ERR_ARGS, remembered when there is a client to remember it. */
static dlq_client_result_t
check_replay (dlq_client_t *self, const dlq_client_selection_t *selection, dlq_client_target_t target)
{
    if (!self)
        return DLQ_CLIENT_ERR_ARGS;
    if (!dlqc_replay_selection_ok (selection) || !dlqc_replay_target_name (target))
        return remember_local (self, DLQ_CLIENT_ERR_ARGS, "no selection, a NULL id or an unknown target");
    if (dlqc_filter_refused (selection->filter))
        return remember_local (self, DLQ_CLIENT_ERR_ARGS, FILTER_REFUSED);
    return DLQ_CLIENT_OK;
}

dlq_client_result_t
dlq_client_replay (dlq_client_t *self, const dlq_client_selection_t *selection, dlq_client_target_t target,
                   int rate, dlq_client_job_t *job_out)
{
    dlq_client_result_t checked = check_replay (self, selection, target);
    if (checked != DLQ_CLIENT_OK)
        return checked;
    if (rate < 0)
        return remember_local (self, DLQ_CLIENT_ERR_ARGS, "a negative rate");
    dlqc_body_t request;
    dlqc_body_init (&request);
    dlqc_replay_write (&request, selection, target, false, rate, -1);
    return call_for_job (self, "REPLAY", &request, job_out);
}

dlq_client_result_t
dlq_client_replay_replacement (dlq_client_t *self, const char *id, const char *replacement,
                               dlq_client_target_t target, int rate, dlq_client_job_t *job_out)
{
    if (!self)
        return DLQ_CLIENT_ERR_ARGS;
    if (!id || !replacement || !dlqc_replay_target_name (target) || rate < 0)
        return remember_local (self, DLQ_CLIENT_ERR_ARGS, "no id, no replacement, an unknown target or a negative rate");
    dlq_client_selection_t selection = { .ids = &id, .id_count = 1 };
    dlqc_body_t request;
    dlqc_body_init (&request);
    dlqc_replay_write (&request, &selection, target, false, rate, -1);
    dlqc_body_literal (&request, "replacement", replacement);
    return call_for_job (self, "REPLAY", &request, job_out);
}

dlq_client_result_t
dlq_client_replay_dry_run (dlq_client_t *self, const dlq_client_selection_t *selection, dlq_client_target_t target,
                           int sample, int64_t *count_out, char **body_out, size_t *len_out)
{
    dlq_client_result_t checked = check_replay (self, selection, target);
    if (checked != DLQ_CLIENT_OK)
        return checked;
    dlqc_body_t request;
    dlqc_body_init (&request);
    dlqc_replay_write (&request, selection, target, true, 0, sample);
    counted_t counted = { "count", -1, { body_out, len_out } };
    dlq_client_result_t result = call_and_read (self, "REPLAY", &request, read_count, &counted,
                                                "dry-run REPLAY reply without a \"count\"");
    if (result == DLQ_CLIENT_OK && count_out)
        *count_out = counted.count;
    return result;
}

/* A job verb's request, {"job":"<id>"}, sent; its job read. */
static dlq_client_result_t
job_verb (dlq_client_t *self, const char *verb, const char *job, dlq_client_job_t *job_out)
{
    dlqc_body_t request;
    dlq_client_result_t started = start_request (self, job != NULL, "no job id", &request, "job", job);
    if (started != DLQ_CLIENT_OK)
        return started;
    return call_for_job (self, verb, &request, job_out);
}

dlq_client_result_t
dlq_client_replay_status (dlq_client_t *self, const char *job, dlq_client_job_t *job_out)
{
    return job_verb (self, "REPLAY.STATUS", job, job_out);
}

dlq_client_result_t
dlq_client_replay_jobs (dlq_client_t *self, char **body_out, size_t *len_out)
{
    if (!self)
        return DLQ_CLIENT_ERR_ARGS;
    if (!body_out)
        return remember_local (self, DLQ_CLIENT_ERR_ARGS, "no place for the body");
    dlqc_body_t request;
    dlqc_body_init (&request);
    return fetch (self, "REPLAY.STATUS", &request, body_out, len_out);
}

dlq_client_result_t
dlq_client_replay_pause (dlq_client_t *self, const char *job, dlq_client_job_t *job_out)
{
    return job_verb (self, "REPLAY.PAUSE", job, job_out);
}

dlq_client_result_t
dlq_client_replay_resume (dlq_client_t *self, const char *job, dlq_client_job_t *job_out)
{
    return job_verb (self, "REPLAY.RESUME", job, job_out);
}

dlq_client_result_t
dlq_client_replay_cancel (dlq_client_t *self, const char *job, dlq_client_job_t *job_out)
{
    return job_verb (self, "REPLAY.CANCEL", job, job_out);
}

static bool
read_event_state (dlqc_outcome_t *outcome, void *state)
{
    return dlqc_replay_read_event_state (outcome->body, outcome->body_len, state);
}

/* RESOLVE or FAIL {"id":"<id>"}: the event's state after it. */
static dlq_client_result_t
report_outcome (dlq_client_t *self, const char *verb, const char *id, dlq_client_event_state_t *state_out)
{
    dlqc_body_t request;
    dlq_client_result_t started = start_request (self, id != NULL, "no event id", &request, "id", id);
    if (started != DLQ_CLIENT_OK)
        return started;
    dlq_client_event_state_t state;
    dlq_client_result_t result = call_and_read (self, verb, &request, read_event_state, &state,
                                                "reply is not an event's replay state");
    if (result == DLQ_CLIENT_OK && state_out)
        *state_out = state;
    return result;
}

dlq_client_result_t
dlq_client_resolve (dlq_client_t *self, const char *id, dlq_client_event_state_t *state_out)
{
    return report_outcome (self, "RESOLVE", id, state_out);
}

dlq_client_result_t
dlq_client_fail (dlq_client_t *self, const char *id, dlq_client_event_state_t *state_out)
{
    return report_outcome (self, "FAIL", id, state_out);
}

/* ---- checkpoints ---------------------------------------------------- */

/* Clear *out (when not NULL) before a call that may fill it, so that it
 * holds nothing to free after a failure. */
static void
clear_record (dlq_client_checkpoint_t *out)
{
    if (out)
        memset (out, 0, sizeof *out);
}

/* Send a checkpoint request whose OK reply is a record (the body is
 * closed and freed) and read it into *stored_out (when not NULL; cleared
 * first, now that the request no longer needs what it points at). */
static bool
read_record (dlqc_outcome_t *outcome, void *record)
{
    return dlqc_ckpt_read (outcome->body, outcome->body_len, record);
}

static dlq_client_result_t
call_for_record (dlq_client_t *self, const char *verb, dlqc_body_t *request, dlq_client_checkpoint_t *stored_out)
{
    clear_record (stored_out);
    dlq_client_checkpoint_t record;
    dlq_client_result_t result = call_and_read (self, verb, request, read_record, &record,
                                                "reply is not a checkpoint record");
    if (result == DLQ_CLIENT_OK && stored_out)
        *stored_out = record;
    else
    if (result == DLQ_CLIENT_OK)
        dlqc_ckpt_clear (&record);
    return result;
}

dlq_client_result_t
dlq_client_ckpt_save (dlq_client_t *self, const dlq_client_checkpoint_t *checkpoint,
                      dlq_client_checkpoint_t *stored_out)
{
    if (!self || !dlqc_ckpt_record_ok (checkpoint)) {
        if (stored_out != checkpoint)
            clear_record (stored_out);
        return self ? remember_local (self, DLQ_CLIENT_ERR_ARGS, "no checkpoint or stream name, or a token or "
                                      "metadata that is not a JSON object") : DLQ_CLIENT_ERR_ARGS;
    }
    dlqc_body_t request;
    dlqc_body_init (&request);
    dlqc_ckpt_write_record (&request, checkpoint);
    if (stored_out && stored_out == checkpoint)
        dlqc_ckpt_clear (stored_out);           /* saving a record back into itself */
    return call_for_record (self, "CKPT.SAVE", &request, stored_out);
}

/* CKPT.SEEN or CKPT.PROCESSED, blocking. */
static dlq_client_result_t
write_token (dlq_client_t *self, const char *verb, const char *stream_name, const char *token,
             const char *timestamp, dlq_client_checkpoint_t *stored_out)
{
    if (!self || !dlqc_ckpt_token_ok (stream_name, token)) {
        clear_record (stored_out);
        return self ? remember_local (self, DLQ_CLIENT_ERR_ARGS, "no stream name, or a token that is not a JSON "
                                      "object") : DLQ_CLIENT_ERR_ARGS;
    }
    dlqc_body_t request;
    dlqc_body_init (&request);
    dlqc_ckpt_write_token (&request, stream_name, token, timestamp);
    return call_for_record (self, verb, &request, stored_out);
}

dlq_client_result_t
dlq_client_ckpt_seen (dlq_client_t *self, const char *stream_name, const char *token, const char *timestamp,
                      dlq_client_checkpoint_t *stored_out)
{
    return write_token (self, "CKPT.SEEN", stream_name, token, timestamp, stored_out);
}

dlq_client_result_t
dlq_client_ckpt_processed (dlq_client_t *self, const char *stream_name, const char *token, const char *timestamp,
                           dlq_client_checkpoint_t *stored_out)
{
    return write_token (self, "CKPT.PROCESSED", stream_name, token, timestamp, stored_out);
}

dlq_client_result_t
dlq_client_ckpt_get (dlq_client_t *self, const char *stream_name, dlq_client_checkpoint_t *checkpoint_out)
{
    if (!self || !stream_name || !checkpoint_out) {
        clear_record (checkpoint_out);
        return self ? remember_local (self, DLQ_CLIENT_ERR_ARGS, "no stream name or no place for the checkpoint")
                    : DLQ_CLIENT_ERR_ARGS;
    }
    dlqc_body_t request;
    dlqc_body_init (&request);
    dlqc_body_string (&request, "streamName", stream_name);
    return call_for_record (self, "CKPT.GET", &request, checkpoint_out);
}

dlq_client_result_t
dlq_client_ckpt_list (dlq_client_t *self, const char *prefix, unsigned limit, const char *cursor,
                      char **body_out, size_t *len_out)
{
    if (!self)
        return DLQ_CLIENT_ERR_ARGS;
    if (!body_out)
        return remember_local (self, DLQ_CLIENT_ERR_ARGS, "no place for the body");
    dlqc_body_t request;
    dlqc_body_init (&request);
    if (prefix && *prefix)
        dlqc_body_string (&request, "prefix", prefix);
    write_page (&request, limit, cursor);
    return fetch (self, "CKPT.LIST", &request, body_out, len_out);
}

/* The "deleted" flag of CKPT.DELETE's reply. */
static bool
read_deleted (dlqc_outcome_t *outcome, void *value)
{
    dlqc_json_span_t span;
    if (!dlqc_json_member (outcome->body, outcome->body_len, "deleted", &span)
        || (span.type != DLQC_JSON_TRUE && span.type != DLQC_JSON_FALSE))
        return false;
    *(bool *) value = span.type == DLQC_JSON_TRUE;
    return true;
}

dlq_client_result_t
dlq_client_ckpt_delete (dlq_client_t *self, const char *stream_name, bool *deleted_out)
{
    dlqc_body_t request;
    dlq_client_result_t started = start_request (self, stream_name != NULL, "no stream name", &request, "streamName",
                                                 stream_name);
    if (started != DLQ_CLIENT_OK)
        return started;
    bool deleted = false;
    dlq_client_result_t result = call_and_read (self, "CKPT.DELETE", &request, read_deleted, &deleted,
                                                "CKPT.DELETE reply without a \"deleted\" flag");
    if (result == DLQ_CLIENT_OK && deleted_out)
        *deleted_out = deleted;
    return result;
}

dlq_client_result_t
dlq_client_checkpoint_read (const char *json, size_t len, dlq_client_checkpoint_t *checkpoint_out)
{
    if (!json || !checkpoint_out)
        return DLQ_CLIENT_ERR_ARGS;
    return dlqc_ckpt_read (json, len, checkpoint_out) ? DLQ_CLIENT_OK : DLQ_CLIENT_ERR_PROTOCOL;
}

void
dlq_client_checkpoint_clear (dlq_client_checkpoint_t *checkpoint)
{
    if (checkpoint)
        dlqc_ckpt_clear (checkpoint);
}

/* ---- ping ------------------------------------------------------------ */

/* Read {"pong":true,"version":"...","protocol":N,"maxMessageBytes":M} into
 * a dlq_client_pong_t. */
static bool
read_pong (dlqc_outcome_t *outcome, void *value)
{
    dlq_client_pong_t *pong = value;
    dlqc_json_span_t span;
    int64_t protocol = 0;
    if (!dlqc_json_member (outcome->body, outcome->body_len, "pong", &span) || span.type != DLQC_JSON_TRUE)
        return false;
    memset (pong, 0, sizeof *pong);
    if (dlqc_json_member (outcome->body, outcome->body_len, "protocol", &span)
        && dlqc_json_int (&span, &protocol) && protocol >= 0 && protocol <= 1000000)
        pong->protocol = (int) protocol;
    int64_t max_bytes = 0;
    if (dlqc_json_member (outcome->body, outcome->body_len, "maxMessageBytes", &span)
        && dlqc_json_int (&span, &max_bytes) && max_bytes > 0)
        pong->max_message_bytes = max_bytes;
    char *version = dlqc_json_member_string (outcome->body, outcome->body_len, "version");
    snprintf (pong->version, sizeof pong->version, "%s", version ? version : "");
    free (version);
    pong->round_trip_us = outcome->round_trip_us;
    return true;
}

dlq_client_result_t
dlq_client_ping (dlq_client_t *self, dlq_client_pong_t *pong_out)
{
    if (!self)
        return DLQ_CLIENT_ERR_ARGS;
    dlq_client_pong_t pong;
    memset (&pong, 0, sizeof pong);
    dlq_client_result_t result = call_and_read (self, "PING", NULL, read_pong, &pong, "PING reply is not a pong");
    if (result == DLQ_CLIENT_OK && pong_out)
        *pong_out = pong;
    return result;
}

const char *
dlq_client_error_code (const dlq_client_t *self)
{
    return self->error_code;
}

const char *
dlq_client_error_message (const dlq_client_t *self)
{
    return self->error_message;
}

const char *
dlq_client_error_field (const dlq_client_t *self)
{
    return self->error_field;
}

/* ---- pipelined requests -------------------------------------------- */

dlq_client_result_t
dlq_client_put_async (dlq_client_t *self, const void *body, size_t len, uint64_t tag)
{
    if (!self || (!body && len))
        return DLQ_CLIENT_ERR_ARGS;
    submit_waiting (self, "PUT", body ? body : "", len, false, tag);
    return DLQ_CLIENT_OK;
}

/* A pipelined CKPT.SEEN or CKPT.PROCESSED. */
static dlq_client_result_t
write_token_async (dlq_client_t *self, const char *verb, const char *stream_name, const char *token,
                   const char *timestamp, uint64_t tag)
{
    if (!self || !dlqc_ckpt_token_ok (stream_name, token))
        return DLQ_CLIENT_ERR_ARGS;
    dlqc_body_t request;
    dlqc_body_init (&request);
    dlqc_ckpt_write_token (&request, stream_name, token, timestamp);
    dlqc_body_close (&request);
    submit_waiting (self, verb, request.data, request.len, false, tag);
    dlqc_body_free (&request);
    return DLQ_CLIENT_OK;
}

dlq_client_result_t
dlq_client_ckpt_seen_async (dlq_client_t *self, const char *stream_name, const char *token,
                            const char *timestamp, uint64_t tag)
{
    return write_token_async (self, "CKPT.SEEN", stream_name, token, timestamp, tag);
}

dlq_client_result_t
dlq_client_ckpt_processed_async (dlq_client_t *self, const char *stream_name, const char *token,
                                 const char *timestamp, uint64_t tag)
{
    return write_token_async (self, "CKPT.PROCESSED", stream_name, token, timestamp, tag);
}

dlq_client_result_t
dlq_client_put_async_nowait (dlq_client_t *self, const void *body, size_t len, uint64_t tag)
{
    if (!self || (!body && len))
        return DLQ_CLIENT_ERR_ARGS;
    if (dlqc_engine_free_slots (&self->engine) == 0)
        dlqc_engine_step (&self->engine, 0);
    uint32_t slot = dlqc_engine_submit (&self->engine, "PUT", body ? body : "", len, false, tag);
    return slot == DLQC_NO_SLOT ? DLQ_CLIENT_ERR_WINDOW_FULL : DLQ_CLIENT_OK;
}

/* Interpret the outcome of a pipelined checkpoint write: OK when the
 * reply is a record, or the error. */
static void
judge_record (const dlqc_outcome_t *outcome, verdict_t *verdict)
{
    if (!judge_ok (outcome, verdict))
        return;
    dlq_client_checkpoint_t record;    /* the reader the blocking calls use, so OK means dlq_client_checkpoint_read reads it */
    if (!dlqc_ckpt_read (outcome->body, outcome->body_len, &record))
        judge_protocol_error (verdict, "reply is not a checkpoint record");
    else
        dlqc_ckpt_clear (&record);
}

/* Hand one queued completion to fn. */
static void
deliver (dlq_client_t *self, dlqc_done_t *done, dlq_client_completion_fn *fn, void *arg)
{
    self->engine.async_pending--;
    if (fn) {
        verdict_t verdict;
        bool put = strcmp (done->verb, "PUT") == 0;
        if (put)
            judge_put (&done->outcome, &verdict);
        else
            judge_record (&done->outcome, &verdict);
        bool ok = verdict.result == DLQ_CLIENT_OK && done->outcome.body;
        dlq_client_completion_t completion = {
            done->tag, verdict.result, verdict.id, verdict.duplicate,
            verdict.code, verdict.message, verdict.field,
            done->verb, ok ? done->outcome.body : "", ok ? done->outcome.body_len : 0
        };
        fn (&completion, arg);
        verdict_clear (&verdict);
    }
    dlqc_outcome_clear (&done->outcome);
}

/* Deliver every completion queued now (not those queued by callbacks
 * meanwhile, so a callback that submits cannot keep this going). */
static size_t
deliver_queued (dlq_client_t *self, dlq_client_completion_fn *fn, void *arg)
{
    size_t count = dlqc_queue_count (&self->engine.done);
    dlqc_done_t done;
    for (size_t i = 0; i < count && dlqc_queue_pop (&self->engine.done, &done); i++)
        deliver (self, &done, fn, arg);
    return count;
}

static int64_t
deadline_after (int timeout_ms)
{
    return timeout_ms < 0 ? DLQC_FOREVER : dlqc_mono_ms () + timeout_ms;
}

size_t
dlq_client_poll (dlq_client_t *self, int timeout_ms, dlq_client_completion_fn *fn, void *arg)
{
    if (!self)
        return 0;
    int64_t until = deadline_after (timeout_ms);
    dlqc_engine_step (&self->engine, dlqc_mono_ms ());
    while (dlqc_queue_count (&self->engine.done) == 0
           && dlqc_engine_in_flight (&self->engine) > 0
           && dlqc_mono_ms () < until)
        dlqc_engine_step (&self->engine, until);
    return deliver_queued (self, fn, arg);
}

dlq_client_result_t
dlq_client_flush (dlq_client_t *self, int timeout_ms, dlq_client_completion_fn *fn, void *arg)
{
    if (!self)
        return DLQ_CLIENT_ERR_ARGS;
    int64_t until = deadline_after (timeout_ms);
    while (true) {
        deliver_queued (self, fn, arg);
        if (self->engine.async_pending == 0)
            return DLQ_CLIENT_OK;
        if (dlqc_mono_ms () >= until)
            return DLQ_CLIENT_ERR_TIMEOUT;
        dlqc_engine_step (&self->engine, until);
    }
}

size_t
dlq_client_outstanding (const dlq_client_t *self)
{
    return self->engine.async_pending;
}

/* ---- helpers ------------------------------------------------------- */

void
dlq_client_uuid_v7 (char out [DLQ_CLIENT_ID_SIZE])
{
    dlq_uuid_v7 (dlq_time_now_ms (), out);
}

uint64_t
dlq_client_ignored_replies (const dlq_client_t *self)
{
    return self->engine.ignored;
}

const char *
dlq_client_job_state_name (dlq_client_job_state_t state)
{
    const char *name = dlqc_replay_state_name (state);
    return name ? name : "UNKNOWN";
}

const char *
dlq_client_target_name (dlq_client_target_t target)
{
    const char *name = dlqc_replay_target_name (target);
    return name ? name : "unknown";
}

const char *
dlq_client_result_name (dlq_client_result_t result)
{
    switch (result) {
        case DLQ_CLIENT_OK:              return "OK";
        case DLQ_CLIENT_ERR_SERVER:      return "SERVER";
        case DLQ_CLIENT_ERR_TIMEOUT:     return "TIMEOUT";
        case DLQ_CLIENT_ERR_TRANSPORT:   return "TRANSPORT";
        case DLQ_CLIENT_ERR_PROTOCOL:    return "PROTOCOL";
        case DLQ_CLIENT_ERR_WINDOW_FULL: return "WINDOW_FULL";
        case DLQ_CLIENT_ERR_ARGS:        return "ARGS";
    }
    return "UNKNOWN";
}

void
dlq_version (int *major, int *minor, int *patch)
{
    if (major)
        *major = DLQ_VERSION_MAJOR;
    if (minor)
        *minor = DLQ_VERSION_MINOR;
    if (patch)
        *patch = DLQ_VERSION_PATCH;
}
