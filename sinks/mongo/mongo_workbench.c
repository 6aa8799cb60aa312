/*  mongo_workbench — replay state, marks and claims; see
 *  mongo_workbench.h.
 */
#include "mongo_workbench.h"

#include "body_status.h"
#include "dlq_alloc.h"
#include "dlq_buf.h"
#include "mongo_groups.h"
#include "mongo_lookup.h"
#include "mongo_query.h"
#include "mongo_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- state ------------------------------------------------------------------------ */

static dlq_sink_status_t
mongo_state (void *instance, const char *id, int64_t now_ms, dlq_sink_event_state_t *state_out)
{
    dlq_mongo_sink_t *self = instance;
    char collection [DLQ_MONGO_COLLECTION_MAX + 1];
    dlq_sink_status_t status = dlq_mongo_locate (self, id, collection);
    if (status != DLQ_SINK_STATUS_OK)
        return status;
    bson_t fields, doc;
    dlq_mongo_state_fields (&fields);
    BSON_APPEND_INT32 (&fields, "expiresAt", 1);
    bool found = false;
    status = dlq_mongo_find_by_id (self, collection, id, &fields, &doc, &found);
    bson_destroy (&fields);
    if (status != DLQ_SINK_STATUS_OK || !found)
        return status == DLQ_SINK_STATUS_OK ? DLQ_SINK_STATUS_NOT_FOUND : status;
    if (dlq_mongo_expired (&doc, now_ms))
        status = DLQ_SINK_STATUS_NOT_FOUND;
    else
        dlq_mongo_state_of (&doc, state_out);
    bson_destroy (&doc);
    return status;
}

/* ---- marks ------------------------------------------------------------------------ */

/* The body of event id as it is now (caller frees); NOT_FOUND when the
 * event is gone, expired or has none. */
static dlq_sink_status_t
read_body (dlq_mongo_sink_t *self, const char *collection, const char *id, int64_t now_ms, char **body,
           uint32_t *len)
{
    bson_t *fields = BCON_NEW (DLQ_MONGO_BODY_FIELD, BCON_INT32 (1), "expiresAt", BCON_INT32 (1));
    bson_t doc;
    bool found = false;
    dlq_sink_status_t status = dlq_mongo_find_by_id (self, collection, id, fields, &doc, &found);
    bson_destroy (fields);
    if (status != DLQ_SINK_STATUS_OK || !found)
        return status == DLQ_SINK_STATUS_OK ? DLQ_SINK_STATUS_NOT_FOUND : status;
    const char *text = dlq_mongo_utf8_of (&doc, DLQ_MONGO_BODY_FIELD, len);
    if (!text || dlq_mongo_expired (&doc, now_ms))
        status = DLQ_SINK_STATUS_NOT_FOUND;
    else
        *body = dlq_strndup (text, *len);
    bson_destroy (&doc);
    return status;
}

/* The query of a mark: event id, unexpired, and (body not NULL) with
 * that very body. */
static void
mark_query (const char *id, int64_t now_ms, const char *body, uint32_t len, bson_t *query)
{
    bson_init (query);
    BCON_APPEND (query, "_id", BCON_UTF8 (id),
                 "expiresAt", "{", "$not", "{", "$lte", BCON_DATE_TIME (now_ms), "}", "}");
    if (body)
        bson_append_utf8 (query, DLQ_MONGO_BODY_FIELD, -1, body, (int) len);
    else
        BCON_APPEND (query, DLQ_MONGO_BODY_FIELD, "{", "$exists", BCON_BOOL (true), "}");
}

/* Apply update where query holds: *done and the new state when it did. */
static dlq_sink_status_t
apply_mark (dlq_mongo_sink_t *self, const char *collection, const bson_t *query, const bson_t *update,
            dlq_sink_event_state_t *state_out, bool *done)
{
    bson_t fields, value;
    dlq_mongo_state_fields (&fields);
    dlq_mongo_modify_t m = { .query = query, .update = update, .fields = &fields };
    bson_error_t error;
    dlq_sink_status_t status = DLQ_SINK_STATUS_OK;
    if (!dlq_mongo_find_and_modify (self, collection, &m, &value, done, &error))
        status = dlq_mongo_fail (self, "mark", &error);
    else if (*done) {
        dlq_mongo_state_of (&value, state_out);
        bson_destroy (&value);
    }
    bson_destroy (&fields);
    return status;
}

/* A mark that keeps the status (and the body): one findAndModify. */
static dlq_sink_status_t
mark_counts (dlq_mongo_sink_t *self, const char *collection, const char *id, dlq_sink_mark_t mark,
             int64_t now_ms, int64_t retry_after_ms, dlq_sink_event_state_t *state_out)
{
    bson_t query, update;
    bool done = false;
    mark_query (id, now_ms, NULL, 0, &query);
    dlq_mongo_mark_update (mark, retry_after_ms, NULL, 0, &update);
    dlq_sink_status_t status = apply_mark (self, collection, &query, &update, state_out, &done);
    bson_destroy (&update);
    bson_destroy (&query);
    return status == DLQ_SINK_STATUS_OK && !done ? DLQ_SINK_STATUS_NOT_FOUND : status;
}

/* One try of a mark that sets the status: read the body, write it back
 * with the new status where it is still the one read. */
static dlq_sink_status_t
mark_status_once (dlq_mongo_sink_t *self, const char *collection, const char *id, dlq_sink_mark_t mark,
                  int64_t now_ms, int64_t retry_after_ms, dlq_sink_event_state_t *state_out, bool *done)
{
    char *body = NULL;
    uint32_t len = 0;
    dlq_sink_status_t status = read_body (self, collection, id, now_ms, &body, &len);
    if (status != DLQ_SINK_STATUS_OK)
        return status;
    dlq_buf_t rewritten = DLQ_BUF_INIT;
    bool valid = dlq_body_set_status (body, len, dlq_mongo_mark_status (mark), &rewritten) == DLQ_BODY_STATUS_OK;
    bson_t query, update;
    mark_query (id, now_ms, body, len, &query);
    dlq_mongo_mark_update (mark, retry_after_ms, valid ? rewritten.data : NULL, rewritten.len, &update);
    status = apply_mark (self, collection, &query, &update, state_out, done);
    bson_destroy (&update);
    bson_destroy (&query);
    dlq_buf_free (&rewritten);
    free (body);
    return status;
}

static dlq_sink_status_t
mongo_mark (void *instance, const char *id, dlq_sink_mark_t mark, int64_t now_ms, int64_t retry_after_ms,
            dlq_sink_event_state_t *state_out)
{
    dlq_mongo_sink_t *self = instance;
    if (!dlq_mongo_mark_known (mark))
        return dlq_mongo_fail_text (self, "mark: unknown mark %d", (int) mark);
    char collection [DLQ_MONGO_COLLECTION_MAX + 1];
    dlq_sink_status_t status = dlq_mongo_locate (self, id, collection);
    if (status != DLQ_SINK_STATUS_OK)
        return status;
    if (!dlq_mongo_mark_status (mark))
        return mark_counts (self, collection, id, mark, now_ms, retry_after_ms, state_out);
    bool done = false;
    for (int tries = 0; tries < DLQ_MONGO_MARK_TRIES && status == DLQ_SINK_STATUS_OK && !done; tries++)
        status = mark_status_once (self, collection, id, mark, now_ms, retry_after_ms, state_out, &done);
    if (status == DLQ_SINK_STATUS_OK && !done)
        return dlq_mongo_fail_text (self, "mark %s: its body changed under %d tries in a row", id,
                                    DLQ_MONGO_MARK_TRIES);
    return status;
}

/* ---- claims ----------------------------------------------------------------------- */

/* One try at stream's lock: OK (taken), LOCKED (the upsert met the lock
 * document: *raced, since it may have been made by a concurrent first
 * try just now), or ERROR. */
static dlq_sink_status_t
try_lock (dlq_mongo_sink_t *self, const bson_t *query, const bson_t *update, bool *raced)
{
    bson_t value;
    dlq_mongo_modify_t m = { .query = query, .update = update, .upsert = true };
    bson_error_t error;
    bool found = false;
    *raced = false;
    if (!dlq_mongo_find_and_modify (self, DLQ_MONGO_LOCKS_COLLECTION, &m, &value, &found, &error)) {
        *raced = error.code == DLQ_MONGO_DUPLICATE_KEY;
        return *raced ? DLQ_SINK_STATUS_LOCKED : dlq_mongo_fail (self, "claim: the lock", &error);
    }
    if (found)
        bson_destroy (&value);
    return found ? DLQ_SINK_STATUS_OK : DLQ_SINK_STATUS_LOCKED;
}

/* Take (or keep) stream's pass for owner until now_ms + pass_ms. A
 * duplicate key means the lock document exists: when two passes made
 * the first one at once, the loser tries again, now against it. */
static dlq_sink_status_t
take_lock (dlq_mongo_sink_t *self, const char *stream, const char *owner, int64_t pass_ms, int64_t now_ms)
{
    bson_t query, update;
    dlq_mongo_lock_query (stream, owner, now_ms, &query);
    dlq_mongo_lock_update (owner, dlq_mongo_lock_until (now_ms, pass_ms), &update);
    bool raced = false;
    dlq_sink_status_t status = try_lock (self, &query, &update, &raced);
    if (raced)
        status = try_lock (self, &query, &update, &raced);
    bson_destroy (&update);
    bson_destroy (&query);
    return status;
}

/* One leased event into out: {"replayCount":n,"event":<body>}. */
static void
put_leased (dlq_buf_t *out, const bson_t *doc, size_t already)
{
    bson_iter_t it;
    int64_t replays = bson_iter_init_find (&it, doc, DLQ_MONGO_REPLAY_COUNT) && BSON_ITER_HOLDS_NUMBER (&it)
                    ? bson_iter_as_int64 (&it) : 0;
    uint32_t len = 0;
    const char *body = dlq_mongo_utf8_of (doc, DLQ_MONGO_BODY_FIELD, &len);
    dlq_buf_printf (out, "%s{\"replayCount\":%lld,\"event\":", already ? "," : "", (long long) replays);
    dlq_buf_append (out, body ? body : "null", body ? len : 4);
    dlq_buf_putc (out, '}');
}

/* The query of the next event to lease: due, and (when a lease does not
 * put the events out of reach: lease_until_ms <= now_ms) not leased by
 * this claim already. */
static void
next_query (const char *stream, int32_t max_retries, int64_t now_ms, const bson_t *leased, bool exclude,
            bson_t *query)
{
    dlq_mongo_due_query (stream, max_retries, now_ms, query);
    if (exclude)
        BCON_APPEND (query, "_id", "{", "$nin", BCON_ARRAY (leased), "}");
}

static void
remember (bson_t *leased, uint32_t at, const bson_t *doc)
{
    char key [16];
    const char *key_p;
    bson_uint32_to_string (at, &key_p, key, sizeof key);
    const char *id = dlq_mongo_utf8_of (doc, "_id", NULL);
    bson_append_utf8 (leased, key_p, -1, id ? id : "", -1);
}

typedef struct {
    const char *stream;
    int32_t     max_retries;
    size_t      batch_size;
    int64_t     now_ms;
    int64_t     lease_until_ms;
} claim_t;

/* Lease up to batch_size due events of collection, oldest first, into
 * out (a JSON array); *count gets how many. False with error when a
 * findAndModify failed (the ones before it are leased and in out). */
static bool
lease_events (dlq_mongo_sink_t *self, const char *collection, const claim_t *c, dlq_buf_t *out, size_t *count,
              bson_error_t *error)
{
    bson_t *sort = BCON_NEW ("createdAt", BCON_INT32 (1), "_id", BCON_INT32 (1));
    bson_t *update = BCON_NEW ("$set", "{", DLQ_MONGO_RETRY_AFTER, BCON_DATE_TIME (c->lease_until_ms), "}");
    bson_t *fields = BCON_NEW (DLQ_MONGO_BODY_FIELD, BCON_INT32 (1), DLQ_MONGO_REPLAY_COUNT, BCON_INT32 (1));
    bson_t leased = BSON_INITIALIZER;
    bool ok = true, found = true, exclude = c->lease_until_ms <= c->now_ms;
    *count = 0;
    while (ok && found && *count < c->batch_size) {
        bson_t query, doc;
        next_query (c->stream, c->max_retries, c->now_ms, &leased, exclude, &query);
        dlq_mongo_modify_t m = { .query = &query, .sort = sort, .update = update, .fields = fields };
        ok = dlq_mongo_find_and_modify (self, collection, &m, &doc, &found, error);
        if (ok && found) {
            put_leased (out, &doc, *count);
            remember (&leased, (uint32_t) (*count)++, &doc);
            bson_destroy (&doc);
        }
        bson_destroy (&query);
    }
    bson_destroy (&leased);
    bson_destroy (fields);
    bson_destroy (update);
    bson_destroy (sort);
    return ok;
}

static dlq_sink_status_t
mongo_claim (void *instance, const char *stream, const char *owner, int64_t pass_ms, int32_t max_retries,
             size_t batch_size, int64_t now_ms, int64_t lease_until_ms, dlq_sink_buf_t *events_out)
{
    dlq_mongo_sink_t *self = instance;
    if (!stream || !owner)
        return dlq_mongo_fail_text (self, "claim: stream and owner are required");
    dlq_sink_status_t status = take_lock (self, stream, owner, pass_ms, now_ms);
    if (status != DLQ_SINK_STATUS_OK)
        return status;
    const dlq_mongo_route_t *route = dlq_mongo_collections_route (self->collections, stream);
    claim_t c = { stream, max_retries, batch_size, now_ms, lease_until_ms };
    dlq_buf_t json = DLQ_BUF_INIT;
    size_t count = 0;
    bson_error_t error;
    dlq_buf_putc (&json, '[');
    bool ok = !route->valid || lease_events (self, route->collection, &c, &json, &count, &error);
    dlq_buf_putc (&json, ']');
    if (!ok && count == 0)
        status = dlq_mongo_fail (self, "claim", &error);
    else if (!ok)
        self->host->log (self->config, DLQ_SINK_LOG_WARN, "claim %s: %zu events leased, then: %s", stream, count,
                         error.message);
    if (status == DLQ_SINK_STATUS_OK)
        self->host->append (events_out, json.data, json.len);
    dlq_buf_free (&json);
    return status;
}

const dlq_sink_workbench_ops_t dlq_mongo_workbench_ops = {
    .struct_size  = sizeof (dlq_sink_workbench_ops_t),
    .query_list   = dlq_mongo_query_list,
    .query_count  = dlq_mongo_query_count,
    .query_groups = dlq_mongo_query_groups,
    .state        = mongo_state,
    .mark         = mongo_mark,
    .claim        = mongo_claim,
};
