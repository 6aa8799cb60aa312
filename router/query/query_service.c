/*  query_service — GET / LIST / STATS workers over read-only store
 *  connections. Each worker is an actor with its own pipe to the front end.
 */
#include "query_service.h"

#include "dlq_audit.h"
#include "principal.h"
#include "spool_lookup.h"
#include "indexer.h"
#include "committer.h"

#include "actor.h"
#include "dlq_alloc.h"
#include "dlq_buf.h"
#include "dlq_json.h"
#include "dlq_log.h"
#include "dlq_time.h"
#include "dlq_uuid.h"
#include "failed_event.h"
#include "primary.h"
#include "checkpoint_verbs.h"
#include "protocol.h"
#include "replay_verbs.h"
#include "request_params.h"
#include "ledger_store.h"
#include "thread_priority.h"
#include "verb_table.h"

#include <errno.h>
#include <time.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIST_LIMIT_DEFAULT 100
#define LIST_LIMIT_MAX 1000
#define GROUPS_LIMIT_DEFAULT 20
#define QUERY_CATCH_UP_MS 2000  /* how long a query waits for the indexer to reach the acks before it */

typedef struct {
    dlq_actor_t     *actor;
    const char      *data_dir;      /* the service's copy */
    dlq_log_store_t *store;         /* the embedded store: an event's seq; used on the worker's thread only */
    dlq_state_store_t *state;       /* the daemon's state file: the delivery ledger; likewise */
    dlq_primary_t   *primary;       /* answers GET / LIST / STATS: the spool or a sink */
    dlq_spool_lookup_t *unindexed;  /* GET of an event the primary has not got yet */
    dlq_replay_verbs_t *replay;     /* REPLAY..., RESOLVE, FAIL */
    dlq_counters_t  *counters;
    const dlqd_config_t *config;
    dlq_chain_t *sinks;
    dlq_replay_control_t *replay_control;
    struct dlq_query_service *service;
    size_t           outstanding;   /* front end's count of requests in this worker */
    char             error [512];   /* why the store could not be opened */
} worker_t;

struct dlq_query_service {
    worker_t *workers;
    size_t    count;
    char     *data_dir;
    dlq_spool_t    *spool;
    dlq_id_index_t *ids;
    dlq_committer_t *committer;
    dlq_indexer_t  *indexer;
};

/* A request's parameters as parsed from its JSON body. */
typedef struct {
    dlq_json_doc_t         *doc;
    const dlq_json_value_t *root;
} request_t;

static dlq_code_t
parse_body (const zmq_msg_t *body, bool optional, request_t *req, dlq_error_t *err)
{
    req->root = NULL;
    dlq_code_t code = dlq_params_parse_body (zmq_msg_data ((zmq_msg_t *) body), zmq_msg_size (body), optional,
                                             &req->doc, err);
    if (req->doc)
        req->root = dlq_json_root (req->doc);
    return code;
}

/* Reject members of the request object not named in allowed (NULL-ended). */
static dlq_code_t
check_members (const request_t *req, const char *const *allowed, dlq_error_t *err)
{
    return dlq_params_check (req->root, allowed, false, err);
}

/* A store read failed: log why, answer UNAVAILABLE. */
static dlq_code_t
store_unavailable (worker_t *w, dlq_error_t *err)
{
    dlq_log (DLQ_LOG_ERROR, "query failed: %s", dlq_primary_last_error (w->primary));
    return dlq_error_set (err, DLQ_ERR_UNAVAILABLE, NULL, "the store could not be read");
}

typedef struct {
    const dlqd_config_t *config;
    dlq_delivery_row_t  *rows;          /* per sink index; state PENDING = none */
} rows_ctx_t;

static void
keep_row (const char *sink, const dlq_delivery_row_t *row, void *arg)
{
    rows_ctx_t *ctx = arg;
    dlq_sink_config_t *config = dlqd_config_sink (ctx->config, sink);
    if (config)
        ctx->rows [dlq_plugin_config_index (config)] = *row;
}

/* One sink's delivery of the event: its row, else implied by the cursor. */
static void
format_delivery (dlq_buf_t *out, const char *sink, const dlq_delivery_row_t *row,
                 int64_t seq, int64_t cursor)
{
    dlq_delivery_state_t state = row->state;
    uint32_t attempts = row->attempts;
    if (state == DLQ_DELIVERY_PENDING && seq <= cursor) {
        state = DLQ_DELIVERY_DELIVERED;     /* handled at the first try */
        attempts = 1;
    }
    dlq_buf_puts (out, "{\"sink\":");
    dlq_json_write_string (out, sink, strlen (sink));
    dlq_buf_printf (out, ",\"state\":\"%s\",\"attempts\":%u", dlq_delivery_state_name (state), attempts);
    char iso [DLQ_TIME_ISO_LEN + 1];
    if (state == DLQ_DELIVERY_RETRYING && dlq_time_format_iso (row->next_attempt_at, iso))
        dlq_buf_printf (out, ",\"nextAttemptAt\":\"%s\"", iso);
    if (row->last_error [0] && state != DLQ_DELIVERY_DELIVERED) {
        dlq_buf_puts (out, ",\"lastError\":");
        dlq_json_write_string (out, row->last_error, strlen (row->last_error));
    }
    dlq_buf_putc (out, '}');
}

/* ,"deliveries":[...] for every sink in the event's chain. */
static void
format_deliveries (worker_t *w, const char *id, const char *json, size_t len, dlq_buf_t *out)
{
    const dlqd_config_t *config = w->config;
    dlq_json_doc_t *doc = NULL;
    int64_t seq = 0;
    if (config->sink_count == 0 || dlq_json_parse (json, len, &doc, NULL) != DLQ_JSON_OK
    ||  dlq_log_store_seq_of (w->store, id, &seq) != DLQ_STORE_OK) {
        dlq_json_doc_destroy (&doc);
        return;
    }
    const dlq_json_value_t *stream = dlq_json_get (dlq_json_root (doc), "streamName");
    uint64_t chain = dlq_policy_table_lookup (config->policies, stream ? stream->str : "")->chain;
    dlq_delivery_row_t rows [DLQ_SINKS_MAX];
    memset (rows, 0, sizeof rows);
    rows_ctx_t ctx = { config, rows };
    dlq_ledger_store_rows_of_seq (w->state, seq, keep_row, &ctx);
    dlq_buf_puts (out, ",\"deliveries\":[");
    bool first = true;
    for (size_t i = 0; i < config->sink_count; i++) {
        if (!(chain & (1ULL << i)))
            continue;
        const char *name = dlq_plugin_config_name (config->sinks [i]);
        dlq_sink_state_t state = { 0, 0, 0, 0, 0 };
        dlq_ledger_store_sink_state (w->state, name, &state);
        dlq_buf_puts (out, first ? "" : ",");
        format_delivery (out, name, &rows [i], seq, state.cursor);
        first = false;
    }
    dlq_buf_putc (out, ']');
    dlq_json_doc_destroy (&doc);
}

/* Where the primary stands before a GET asks it: the spool position the
 * embedded store has indexed up to, or the sink primary's cursor. Taken
 * before the primary is asked, so that an event the primary took in
 * meanwhile still counts as not in it yet (and is read from the spool). */
static int64_t
primary_mark (worker_t *w)
{
    if (dlq_primary_is_embedded (w->primary))
        return (int64_t) dlq_indexer_position (w->service->indexer) - 1;
    dlq_sink_state_t state;
    return dlq_ledger_store_sink_state (w->state, w->config->primary, &state) == DLQ_STORE_OK ? state.cursor
                                                                                            : INT64_MAX;
}

typedef struct {
    const char *primary;
    bool        held;
} held_ctx_t;

static void
see_primary_row (const char *sink, const dlq_delivery_row_t *row, void *arg)
{
    held_ctx_t *ctx = arg;
    if (strcmp (sink, ctx->primary) == 0 && row->state != DLQ_DELIVERY_DELIVERED)
        ctx->held = true;
}

/* Is the sink primary's delivery of the event at seq retrying or failed
 * (its cursor passed it, yet the primary does not have it)? */
static bool
held_back (worker_t *w, int64_t seq)
{
    held_ctx_t ctx = { w->config->primary, false };
    dlq_ledger_store_rows_of_seq (w->state, seq, see_primary_row, &ctx);
    return ctx.held;
}

/* Read-your-writes: was id acknowledged but not in the primary yet when
 * it stood at mark (primary_mark)? On the embedded store, not indexed; on
 * a sink primary, past the sink's cursor (not delivered to it yet: once
 * delivered, or passed over because its stream's chain does not name the
 * sink, the primary is the one to answer), or its delivery there is
 * retrying or failed. */
static bool
not_in_primary_yet (worker_t *w, const char *id, int64_t now_ms, int64_t mark, int64_t *seq_out)
{
    uint64_t position;
    if (!dlq_id_index_get (w->service->ids, dlq_id_index_hash (id, strlen (id)), &position))
        return false;
    *seq_out = (int64_t) position;
    return (int64_t) position > mark || (!dlq_primary_is_embedded (w->primary) && held_back (w, *seq_out));
}

/* The event a sink primary's failed delivery row keeps (ledger_store.h),
 * when the log no longer holds it. */
static dlq_store_result_t
failed_at_primary (worker_t *w, int64_t seq, int64_t now_ms, dlq_buf_t *event)
{
    dlq_store_result_t rc = DLQ_STORE_NOT_FOUND;
    dlq_event_t *e = dlq_primary_is_embedded (w->primary) ? NULL
                   : dlq_ledger_store_failed_event (w->state, w->config->primary, seq);
    if (e && (e->expires_at == DLQ_TIME_NONE || e->expires_at > now_ms)) {
        dlq_buf_reset (event);
        dlq_buf_append (event, e->json, e->json_len);
        rc = DLQ_STORE_OK;
    }
    dlq_event_destroy (&e);
    return rc;
}

/* The stored JSON of event uuid into event: from the primary, or, not in
 * it yet, from the spool (*spooled, caller destroys) or the embedded store. */
static dlq_store_result_t
find_event (worker_t *w, const char *uuid, int64_t now, dlq_buf_t *event, dlq_event_t **spooled)
{
    int64_t mark = primary_mark (w), seq = 0;
    dlq_store_result_t rc = dlq_primary_get (w->primary, uuid, now, event);
    if (rc != DLQ_STORE_OK && not_in_primary_yet (w, uuid, now, mark, &seq)) {   /* the primary down too */
        *spooled = dlq_spool_lookup_get (w->unindexed, uuid, now);
        if (*spooled) {
            dlq_buf_append (event, (*spooled)->json, (*spooled)->json_len);
            rc = DLQ_STORE_OK;
        }
        else
        if ((rc = dlq_log_store_get (w->store, uuid, now, event)) == DLQ_STORE_NOT_FOUND)  /* indexed since */
            rc = failed_at_primary (w, seq, now, event);
    }
    return rc;
}

/* A BY_ID verb (verb_table.h) of a CURVE caller limited to some streams
 * (scope: principal.h): may they use the stream of the event the body's
 * id names? An id that names no event passes: the verb answers it. */
static dlq_code_t
check_scope (worker_t *w, const dlq_verb_spec_t *spec, const request_t *req, const zmq_msg_t *scope,
             dlq_error_t *err)
{
    size_t len = zmq_msg_size ((zmq_msg_t *) scope);
    const void *frame = zmq_msg_data ((zmq_msg_t *) scope);
    const dlq_json_value_t *id = dlq_json_get (req->root, "id");
    char uuid [DLQ_UUID_LEN + 1];
    if (spec->scope != DLQ_SCOPE_BY_ID || dlq_principal_scope_all (frame, len) || !id || id->type != DLQ_JSON_STRING
    ||  !dlq_uuid_parse (id->str, id->len, uuid))
        return DLQ_OK;
    dlq_buf_t event = DLQ_BUF_INIT;
    dlq_event_t *spooled = NULL;
    dlq_json_doc_t *doc = NULL;
    dlq_code_t code = DLQ_OK;
    if (find_event (w, uuid, dlq_time_now_ms (), &event, &spooled) == DLQ_STORE_OK
    &&  dlq_json_parse (event.data, event.len, &doc, NULL) == DLQ_JSON_OK) {
        const dlq_json_value_t *stream = dlq_json_get (dlq_json_root (doc), "streamName");
        if (stream && stream->type == DLQ_JSON_STRING
        &&  !dlq_principal_scope_allows (frame, len, stream->str, stream->len)) {
            const char *name = dlq_principal_scope_name (frame, len);
            code = dlq_error_set (err, DLQ_ERR_FORBIDDEN, NULL, "%s on stream \"%.*s\": key \"%s\" may not use it",
                                  spec->name, (int) (stream->len > 128 ? 128 : stream->len), stream->str, name);
            dlq_counters_forbidden (w->counters, name);     /* reply () audits it */
        }
    }
    dlq_json_doc_destroy (&doc);
    dlq_event_destroy (&spooled);
    dlq_buf_free (&event);
    return code;
}

static dlq_code_t
do_get (worker_t *w, const request_t *req, dlq_buf_t *out, dlq_error_t *err)
{
    static const char *const allowed [] = { "id", NULL };
    dlq_code_t code = check_members (req, allowed, err);
    if (code != DLQ_OK)
        return code;
    const dlq_json_value_t *id = dlq_json_get (req->root, "id");
    char uuid [DLQ_UUID_LEN + 1];
    if (!id || id->type != DLQ_JSON_STRING || !dlq_uuid_parse (id->str, id->len, uuid))
        return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, "id", "id must be a UUID string");
    dlq_buf_t event = DLQ_BUF_INIT;
    int64_t now = dlq_time_now_ms ();
    dlq_event_t *spooled = NULL;
    dlq_store_result_t rc = find_event (w, uuid, now, &event, &spooled);
    if (rc == DLQ_STORE_OK) {
        dlq_buf_puts (out, "{\"event\":");
        dlq_buf_append (out, event.data, event.len);
        format_deliveries (w, uuid, event.data, event.len, out);
        dlq_sink_event_state_t state;
        if (spooled && dlq_primary_workbench (w->primary)) {
            /* not in the primary yet: the state every new event starts in */
            memset (&state, 0, sizeof state);
            snprintf (state.status, sizeof state.status, "%s", spooled->status);
            state.retry_after = spooled->created_at;
            dlq_replay_state_format (&state, out);
        }
        else
        if (dlq_primary_workbench (w->primary)
        &&  dlq_primary_state (w->primary, uuid, dlq_time_now_ms (), &state) == DLQ_STORE_OK)
            dlq_replay_state_format (&state, out);
        dlq_buf_putc (out, '}');
    }
    dlq_event_destroy (&spooled);
    dlq_buf_free (&event);
    if (rc == DLQ_STORE_NOT_FOUND)
        return dlq_error_set (err, DLQ_ERR_NOT_FOUND, "id", "no event %s (never stored, or expired)", uuid);
    if (rc != DLQ_STORE_OK)
        return store_unavailable (w, err);
    return DLQ_OK;
}

/* cursor of a request: NULL when absent or null. */
static dlq_code_t
read_cursor (const request_t *req, const char **cursor, dlq_error_t *err)
{
    const dlq_json_value_t *c = dlq_json_get (req->root, "cursor");
    *cursor = NULL;
    if (c && c->type != DLQ_JSON_NULL) {
        if (c->type != DLQ_JSON_STRING || memchr (c->str, '\0', c->len))
            return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, "cursor",
                                  "cursor must be the nextCursor string of the previous page");
        *cursor = c->str;
    }
    return DLQ_OK;
}

static dlq_code_t
list_params (const request_t *req, const char **stream, int64_t *limit, const char **cursor, dlq_error_t *err)
{
    static const char *const allowed [] = { "streamName", "limit", "cursor", NULL };
    dlq_code_t code = check_members (req, allowed, err);
    if (code != DLQ_OK)
        return code;
    const dlq_json_value_t *s = dlq_json_get (req->root, "streamName");
    if (!s || s->type != DLQ_JSON_STRING || s->len == 0 || s->len > 4 * DLQ_STREAM_NAME_MAX
    ||  memchr (s->str, '\0', s->len))
        return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, "streamName", "streamName must be a string of 1 to %d "
                              "bytes without \\u0000", 4 * DLQ_STREAM_NAME_MAX);
    const dlq_json_value_t *l = dlq_json_get (req->root, "limit");
    *limit = LIST_LIMIT_DEFAULT;
    if (l && (!dlq_json_as_int64 (l, limit) || *limit < 1 || *limit > LIST_LIMIT_MAX))
        return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, "limit",
                              "limit must be an integer from 1 to %d", LIST_LIMIT_MAX);
    code = read_cursor (req, cursor, err);
    *stream = s->str;
    return code;
}

/* ---- the workbench's filters (LIST, COUNT, GROUPS) ------------------------------ */

/* Is the request more than LIST's streamName, limit and cursor? */
static bool
has_filters (const request_t *req)
{
    const dlq_json_value_t *s = dlq_json_get (req->root, "streamName");
    if (!s)
        return true;                        /* every stream */
    for (const dlq_json_value_t *m = req->root ? req->root->child : NULL; m; m = m->next)
        if (dlq_event_filter_is_member (m->key, m->key_len) && m != s)
            return true;
    return false;
}

/* The filters of a request, when the primary can answer them. */
static dlq_code_t
read_filter (worker_t *w, const request_t *req, const char *const *allowed, dlq_event_filter_t *filter,
             dlq_error_t *err)
{
    dlq_code_t code = dlq_params_check (req->root, allowed, true, err);
    if (code != DLQ_OK)
        return code;
    if (!dlq_primary_workbench (w->primary))
        return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, NULL, "filters, COUNT and GROUPS need a primary"
                              " that answers them (embedded, postgres or mongo); this one answers LIST by streamName only");
    static const dlq_json_value_t empty = { .type = DLQ_JSON_OBJECT };
    return dlq_event_filter_parse (req->root ? req->root : &empty, filter, err);
}

/* limit of a request: default when absent, else 1 to max. */
static dlq_code_t
read_limit (const request_t *req, int64_t default_value, int64_t max, int64_t *limit, dlq_error_t *err)
{
    return dlq_params_int (req->root, "limit", default_value, 1, max, limit, err);
}

static dlq_code_t
do_count (worker_t *w, const request_t *req, dlq_buf_t *out, dlq_error_t *err)
{
    static const char *const allowed [] = { NULL };
    dlq_event_filter_t filter = DLQ_EVENT_FILTER_INIT;
    dlq_code_t code = read_filter (w, req, allowed, &filter, err);
    if (code != DLQ_OK)
        return code;
    int64_t count = 0;
    dlq_store_result_t rc = dlq_primary_query_count (w->primary, &filter, dlq_time_now_ms (), &count);
    dlq_event_filter_free (&filter);
    if (rc != DLQ_STORE_OK)
        return store_unavailable (w, err);
    dlq_buf_printf (out, "{\"count\":%lld}", (long long) count);
    return DLQ_OK;
}

static dlq_code_t
do_groups (worker_t *w, const request_t *req, dlq_buf_t *out, dlq_error_t *err)
{
    static const char *const allowed [] = { "limit", NULL };
    dlq_event_filter_t filter = DLQ_EVENT_FILTER_INIT;
    int64_t limit = 0;
    dlq_code_t code = read_limit (req, GROUPS_LIMIT_DEFAULT, LIST_LIMIT_MAX, &limit, err);
    if (code == DLQ_OK)
        code = read_filter (w, req, allowed, &filter, err);
    if (code != DLQ_OK)
        return code;
    dlq_buf_t groups = DLQ_BUF_INIT;
    dlq_store_result_t rc = dlq_primary_query_groups (w->primary, &filter, (size_t) limit, dlq_time_now_ms (),
                                                      &groups);
    dlq_event_filter_free (&filter);
    if (rc == DLQ_STORE_OK) {
        dlq_buf_puts (out, "{\"groups\":");
        dlq_buf_append (out, groups.data, groups.len);
        dlq_buf_putc (out, '}');
    }
    dlq_buf_free (&groups);
    return rc == DLQ_STORE_OK ? DLQ_OK : store_unavailable (w, err);
}

/* The reply to a LIST whose page was read with result rc: the page, or
 * the error the result stands for. Frees events and next. */
static dlq_code_t
answer_page (worker_t *w, dlq_store_result_t rc, dlq_buf_t *events, dlq_buf_t *next, dlq_buf_t *out,
             dlq_error_t *err)
{
    if (rc == DLQ_STORE_OK) {
        dlq_buf_puts (out, "{\"events\":");
        dlq_buf_append (out, events->data, events->len);
        if (next->len) {
            dlq_buf_puts (out, ",\"nextCursor\":");
            dlq_json_write_string (out, next->data, next->len);
        }
        dlq_buf_putc (out, '}');
    }
    dlq_buf_free (events);
    dlq_buf_free (next);
    if (rc == DLQ_STORE_BAD_CURSOR)
        return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, "cursor",
                              "cursor is not a nextCursor this gateway issued");
    if (rc != DLQ_STORE_OK)
        return store_unavailable (w, err);
    return DLQ_OK;
}

/* LIST with filters, or across streams. */
static dlq_code_t
list_filtered (worker_t *w, const request_t *req, dlq_buf_t *out, dlq_error_t *err)
{
    static const char *const allowed [] = { "limit", "cursor", NULL };
    dlq_event_filter_t filter = DLQ_EVENT_FILTER_INIT;
    const char *cursor = NULL;
    int64_t limit = 0;
    dlq_code_t code = read_limit (req, LIST_LIMIT_DEFAULT, LIST_LIMIT_MAX, &limit, err);
    if (code == DLQ_OK)
        code = read_cursor (req, &cursor, err);
    if (code == DLQ_OK)
        code = read_filter (w, req, allowed, &filter, err);
    if (code != DLQ_OK)
        return code;
    dlq_buf_t events = DLQ_BUF_INIT, next = DLQ_BUF_INIT;
    dlq_store_result_t rc = dlq_primary_query_list (w->primary, &filter, (size_t) limit, cursor,
                                                     dlq_time_now_ms (), &events, &next);
    dlq_event_filter_free (&filter);
    return answer_page (w, rc, &events, &next, out, err);
}

static dlq_code_t
do_list (worker_t *w, const request_t *req, dlq_buf_t *out, dlq_error_t *err)
{
    if (has_filters (req))
        return list_filtered (w, req, out, err);
    const char *stream = NULL, *cursor = NULL;
    int64_t limit = LIST_LIMIT_DEFAULT;
    dlq_code_t code = list_params (req, &stream, &limit, &cursor, err);
    if (code != DLQ_OK)
        return code;
    dlq_buf_t events = DLQ_BUF_INIT, next = DLQ_BUF_INIT;
    dlq_store_result_t rc = dlq_primary_list (w->primary, stream, (size_t) limit, cursor, dlq_time_now_ms (),
                                              &events, &next);
    return answer_page (w, rc, &events, &next, out, err);
}

/* ,"sinks":{"name":{...},...}: ledger figures and live status per sink. */
static void
format_sinks (worker_t *w, dlq_buf_t *out)
{
    dlq_buf_puts (out, ",\"sinks\":{");
    for (size_t i = 0; i < w->config->sink_count; i++) {
        const dlq_sink_config_t *sink = w->config->sinks [i];
        const char *name = dlq_plugin_config_name (sink);
        dlq_sink_state_t state = { 0, 0, 0, 0, 0 };
        dlq_ledger_store_sink_state (w->state, name, &state);
        int64_t backlog = 0, retrying = 0;
        dlq_delivery_health_t *health = dlq_chain_health (w->sinks, i);
        dlq_delivery_health_queue (health, dlq_committer_ordinal (w->service->committer), &backlog, &retrying);
        dlq_buf_puts (out, i ? "," : "");
        dlq_json_write_string (out, name, strlen (name));
        dlq_buf_printf (out, ":{\"type\":\"%s\",\"backlog\":%lld,\"delivered\":%llu,"
                        "\"retrying\":%lld,\"failed\":%lld,\"redelivered\":%llu,",
                        dlq_plugin_config_ops (sink)->type, (long long) backlog,
                        (unsigned long long) state.delivered, (long long) retrying,
                        (long long) dlq_ledger_store_count_state (w->state, name, DLQ_DELIVERY_FAILED),
                        (unsigned long long) state.redelivered);
        dlq_delivery_health_format (health, out);
        dlq_buf_puts (out, ",\"counters\":{");
        dlq_plugin_config_format_counters (sink, out);
        dlq_buf_puts (out, "}}");
    }
    dlq_buf_putc (out, '}');
}

/* ,"spool":{...}: the log's size and positions, and how far the embedded
 * store's indexing trails the acks. */
static void
format_spool (worker_t *w, dlq_buf_t *out)
{
    dlq_spool_stats_t st;
    dlq_spool_stats (w->service->spool, &st);
    dlq_indexer_stats_t ix;
    dlq_indexer_stats (w->service->indexer, &ix);
    uint64_t appended = dlq_committer_events (w->service->committer);
    uint64_t behind = appended > ix.events ? appended - ix.events : 0;
    dlq_buf_printf (out, ",\"spool\":{\"bytes\":%llu,\"segments\":%llu,\"begin\":%llu,\"tip\":%llu,"
                    "\"indexed\":%llu,\"indexLagEvents\":%llu,\"indexLagMs\":%lld,\"tornTailBytes\":%llu,"
                    "\"ids\":%zu,\"idIndexBytes\":%zu,"
                    "\"spares\":{\"taken\":%llu,\"missed\":%llu,\"failed\":%llu}}",
                    (unsigned long long) st.bytes, (unsigned long long) st.segments,
                    (unsigned long long) st.begin, (unsigned long long) st.tip,
                    (unsigned long long) ix.position, (unsigned long long) behind, (long long) ix.lag_ms,
                    (unsigned long long) st.torn_bytes, dlq_id_index_count (w->service->ids),
                    dlq_id_index_bytes (w->service->ids), (unsigned long long) st.spares_taken,
                    (unsigned long long) st.spares_missed, (unsigned long long) st.spares_failed);
    out->len--;                         /* reopen the object for the consumers */
    dlq_buf_puts (out, ",\"consumers\":{");
    dlq_spool_consumers_format (w->service->spool, out);
    dlq_buf_puts (out, "}}");
}

static dlq_code_t
do_stats (worker_t *w, const request_t *req, dlq_buf_t *out, dlq_error_t *err)
{
    static const char *const allowed [] = { NULL };
    dlq_code_t code = check_members (req, allowed, err);
    if (code != DLQ_OK)
        return code;
    dlq_buf_t streams = DLQ_BUF_INIT;
    int64_t events = 0, bytes = 0;
    dlq_store_result_t rc = dlq_primary_stats (w->primary, &streams, &events, &bytes);
    if (rc == DLQ_STORE_OK) {
        dlq_buf_printf (out, "{\"events\":%lld,\"storeBytes\":%lld,\"streams\":",
                        (long long) events, (long long) bytes);
        dlq_buf_append (out, streams.data, streams.len);
        dlq_buf_putc (out, ',');
        dlq_counters_format (w->counters, out);
        format_spool (w, out);
        format_sinks (w, out);
        dlq_buf_putc (out, '}');
    }
    dlq_buf_free (&streams);
    if (rc != DLQ_STORE_OK)
        return store_unavailable (w, err);
    return DLQ_OK;
}

typedef dlq_code_t (query_fn) (worker_t *w, const request_t *req, dlq_buf_t *out, dlq_error_t *err);

/* The handlers of the query lane (verb_table.h). */
static const struct {
    dlq_verb_t verb;
    query_fn  *fn;
} query_handlers [] = {
    { DLQ_VERB_GET, do_get },
    { DLQ_VERB_LIST, do_list },
    { DLQ_VERB_COUNT, do_count },
    { DLQ_VERB_GROUPS, do_groups },
    { DLQ_VERB_STATS, do_stats },
};

/* Answer one request of verb spec: fill out with the OK body, or return an
 * error code. */
static dlq_code_t
answer (worker_t *w, const dlq_verb_spec_t *spec, const zmq_msg_t *body, const zmq_msg_t *scope,
        dlq_buf_t *out, dlq_error_t *err)
{
    request_t req;
    dlq_code_t code = parse_body (body, spec->body_optional, &req, err);
    if (code == DLQ_OK)
        code = check_scope (w, spec, &req, scope, err);
    if (code != DLQ_OK) {
        dlq_json_doc_destroy (&req.doc);
        return code;
    }
    if (spec->lane == DLQ_LANE_CHECKPOINT_READ || spec->lane == DLQ_LANE_CHECKPOINT_WRITE)
        code = dlq_ckpt_verbs_answer (w->primary, w->config->primary_sink ? NULL
                                      : dlq_committer_checkpoints (w->service->committer), spec->verb, req.root,
                                      out, err);
    else
    if (spec->lane == DLQ_LANE_REPLAY)
        code = dlq_replay_verbs_answer (w->replay, spec->verb, req.root, out, err);
    else {
        code = dlq_error_set (err, DLQ_ERR_INTERNAL, NULL, "%s is not served by the query threads", spec->name);
        for (size_t i = 0; i < sizeof query_handlers / sizeof query_handlers [0]; i++)
            if (query_handlers [i].verb == spec->verb)
                code = query_handlers [i].fn (w, &req, out, err);
    }
    dlq_json_doc_destroy (&req.doc);
    return code;
}

/* Let the embedded store catch up with every write acknowledged before
 * this request (the spool's tip now), for at most QUERY_CATCH_UP_MS, when
 * its verb says so (verb_table.h: GET reads the spool, CKPT.* the
 * checkpoint table or a sink primary): a query then sees what its client
 * was told is stored, unless the indexer is further behind than that
 * (STATS shows by how much). */
static void
catch_up (worker_t *w, const dlq_verb_spec_t *spec)
{
    if (!spec->catch_up)
        return;
    uint64_t tip = dlq_spool_tip (w->service->spool);
    int64_t deadline = dlq_time_mono_ms () + QUERY_CATCH_UP_MS;
    while (dlq_indexer_position (w->service->indexer) < tip && dlq_time_mono_ms () < deadline) {
        struct timespec pause = { 0, 500 * 1000 };
        nanosleep (&pause, NULL);
    }
}

static void
reply (worker_t *w, void *pipe, zmq_msg_t frames [DLQ_REQUEST_FRAMES])
{
    /* the front end only sends known verbs */
    const dlq_verb_spec_t *spec = dlq_verb_table_find (zmq_msg_data (&frames [1]), zmq_msg_size (&frames [1]));
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_error_t err = { DLQ_OK, "", "" };
    dlq_code_t code;
    if (!spec)
        code = dlq_error_set (&err, DLQ_ERR_INTERNAL, NULL, "a query thread was given an unknown verb");
    else {
        catch_up (w, spec);
        code = answer (w, spec, &frames [3], &frames [4], &out, &err);
        if (spec->audited || code == DLQ_ERR_FORBIDDEN)
            dlq_audit (dlq_principal_scope_name (zmq_msg_data (&frames [4]), zmq_msg_size (&frames [4])),
                       spec->name, zmq_msg_data (&frames [3]), zmq_msg_size (&frames [3]), code,
                       code == DLQ_OK ? NULL : err.message);
    }
    dlq_counters_reply (w->counters, spec ? spec->verb : DLQ_VERB_UNKNOWN, code);
    if (code != DLQ_OK) {
        dlq_buf_reset (&out);
        dlq_protocol_error_body (&out, &err);
    }
    dlq_actor_send_reply (pipe, &frames [0], code == DLQ_OK ? "OK" : "ERR", &frames [2],
                          out.data, out.len);
    dlq_buf_free (&out);
}

/* Delete one batch of a sink primary's expired events (the first worker
 * does it, since the primary has no committer); true when more remain. */
static bool
sweep_primary (worker_t *w)
{
    int64_t now = dlq_time_now_ms ();
    int64_t deleted = dlq_primary_sweep (w->primary, now, w->config->sweep_batch);
    if (deleted < 0)
        dlq_log (DLQ_LOG_ERROR, "sweep of the primary %s failed: %s", w->config->primary,
                 dlq_primary_last_error (w->primary));
    else
    if (deleted > 0)
        dlq_log (DLQ_LOG_INFO, "sweep of the primary %s deleted %lld events", w->config->primary,
                 (long long) deleted);
    if (deleted >= 0 && deleted < w->config->sweep_batch)
        dlq_indexer_primary_swept (w->service->indexer, now);   /* caught up: the ids may go */
    return deleted == w->config->sweep_batch;
}

/* The worker actor: read [identity][verb][request id][body], answer it.
 * Anything that is not 4 frames is the stop message. */
static void
run (void *pipe, void *arg)
{
    worker_t *w = arg;
    dlq_actor_name ("dlqd-query");
    if (!dlq_thread_priority_lower ((int) w->config->query_nice))
        dlq_log (DLQ_LOG_WARN, "cannot lower a query thread's priority: %s", strerror (errno));
    w->store = dlq_log_store_open (w->config, DLQ_SINK_MODE_QUERY, w->error, sizeof w->error);
    if (w->store)
        w->state = dlq_state_store_open (w->data_dir, w->error, sizeof w->error);
    if (w->state)
        w->primary = dlq_primary_open (w->config, w->store, w->error, sizeof w->error);
    if (w->primary)
        dlq_primary_use_marks (w->primary, dlq_committer_marks (w->service->committer));
    if (w->primary)
        w->replay = dlq_replay_verbs_new (w->config, w->primary, w->replay_control);
    w->unindexed = dlq_spool_lookup_new (w->service->spool, w->service->ids);
    dlq_actor_ready (pipe, w->primary != NULL);
    if (!w->primary) {
        dlq_log_store_close (&w->store);
        dlq_state_store_destroy (&w->state);
        return;
    }
    bool sweeper = w == &w->service->workers [0] && dlq_primary_sweeps (w->primary);
    int64_t next_sweep = dlq_time_mono_ms () + w->config->sweep_interval_ms;
    while (true) {
        if (sweeper) {
            zmq_pollitem_t item = { pipe, 0, ZMQ_POLLIN, 0 };
            int64_t wait = next_sweep - dlq_time_mono_ms ();
            if (zmq_poll (&item, 1, wait > 0 ? (long) wait : 0) == 0) {
                bool more = sweep_primary (w);
                next_sweep = dlq_time_mono_ms () + (more ? 0 : w->config->sweep_interval_ms);
                continue;
            }
        }
        zmq_msg_t frames [DLQ_REQUEST_FRAMES];
        size_t n = dlq_actor_recv_request (pipe, frames);
        if (n == DLQ_REQUEST_FRAMES)
            reply (w, pipe, frames);
        for (size_t i = 0; i < n; i++)
            zmq_msg_close (&frames [i]);
        if (n != DLQ_REQUEST_FRAMES)
            break;
    }
    dlq_replay_verbs_destroy (&w->replay);
    dlq_primary_close (&w->primary);
    dlq_log_store_close (&w->store);
    dlq_state_store_destroy (&w->state);
    dlq_spool_lookup_destroy (&w->unindexed);
}

dlq_query_service_t *
dlq_query_service_new (void *zmq_ctx, const dlqd_config_t *config, dlq_chain_t *sinks,
                       dlq_counters_t *counters, dlq_replay_control_t *replay_control, dlq_committer_t *committer,
                       dlq_indexer_t *indexer, char *err, size_t err_len)
{
    size_t threads = (size_t) config->query_threads;
    dlq_query_service_t *self = dlq_calloc (1, sizeof *self);
    self->committer = committer;
    self->spool = dlq_committer_spool (committer);
    self->ids = dlq_committer_ids (committer);
    self->indexer = indexer;
    self->workers = dlq_calloc (threads, sizeof (worker_t));
    self->data_dir = dlq_strdup (config->data_dir);
    for (size_t i = 0; i < threads; i++) {
        worker_t *w = &self->workers [i];
        w->counters = counters;
        w->config = config;
        w->sinks = sinks;
        w->replay_control = replay_control;
        w->service = self;
        w->data_dir = self->data_dir;
        snprintf (w->error, sizeof w->error, "cannot start a query thread");
        w->actor = dlq_actor_new (zmq_ctx, run, w);
        if (!w->actor) {
            snprintf (err, err_len, "%s", w->error);
            dlq_query_service_destroy (&self);
            return NULL;
        }
        self->count++;
    }
    return self;
}

size_t dlq_query_service_sockets (const dlq_query_service_t *self) { return self->count; }
void *dlq_query_service_socket (dlq_query_service_t *self, size_t i) { return dlq_actor_pipe (self->workers [i].actor); }

void
dlq_query_service_submit (dlq_query_service_t *self, zmq_msg_t frames [DLQ_REQUEST_FRAMES])
{
    worker_t *best = &self->workers [0];
    for (size_t i = 1; i < self->count; i++)
        if (self->workers [i].outstanding < best->outstanding)
            best = &self->workers [i];
    best->outstanding++;
    dlq_actor_send_request (dlq_actor_pipe (best->actor), frames);
}

void
dlq_query_service_submit_keyed (dlq_query_service_t *self, zmq_msg_t frames [DLQ_REQUEST_FRAMES], uint64_t key)
{
    worker_t *w = &self->workers [key % self->count];
    w->outstanding++;
    dlq_actor_send_request (dlq_actor_pipe (w->actor), frames);
}

bool
dlq_query_service_forward (dlq_query_service_t *self, size_t i, void *out)
{
    bool sent = dlq_actor_relay (dlq_actor_pipe (self->workers [i].actor), out);
    self->workers [i].outstanding--;
    return sent;
}

size_t
dlq_query_service_outstanding (const dlq_query_service_t *self)
{
    size_t n = 0;
    for (size_t i = 0; i < self->count; i++)
        n += self->workers [i].outstanding;
    return n;
}

void
dlq_query_service_destroy (dlq_query_service_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_query_service_t *self = *self_p;
    for (size_t i = 0; i < self->count; i++)
        dlq_actor_destroy (&self->workers [i].actor);
    free (self->workers);
    free (self->data_dir);
    free (self);
    *self_p = NULL;
}
