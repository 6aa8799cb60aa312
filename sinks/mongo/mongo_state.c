/*  mongo_state — replay state and the workbench's write documents; see
 *  mongo_state.h.
 */
#include "mongo_state.h"

#include "dlq_time.h"
#include "mongo_doc.h"
#include "sink_mark.h"

#include <stdio.h>
#include <string.h>

static int32_t
count_of (const bson_t *doc, const char *field)
{
    bson_iter_t it;
    if (!bson_iter_init_find (&it, doc, field) || !BSON_ITER_HOLDS_NUMBER (&it))
        return 0;
    int64_t n = bson_iter_as_int64 (&it);
    return n < 0 ? 0 : n > INT32_MAX ? INT32_MAX : (int32_t) n;
}

static bool
date_of (const bson_t *doc, const char *field, int64_t *ms)
{
    bson_iter_t it;
    if (!bson_iter_init_find (&it, doc, field) || !BSON_ITER_HOLDS_DATE_TIME (&it))
        return false;
    *ms = bson_iter_date_time (&it);
    return true;
}

void
dlq_mongo_state_of (const bson_t *doc, dlq_sink_event_state_t *state)
{
    bson_iter_t it;
    memset (state, 0, sizeof *state);
    if (bson_iter_init_find (&it, doc, "status") && BSON_ITER_HOLDS_UTF8 (&it))
        snprintf (state->status, sizeof state->status, "%s", bson_iter_utf8 (&it, NULL));
    state->retry_count = count_of (doc, DLQ_MONGO_RETRY_COUNT);
    state->replay_count = count_of (doc, DLQ_MONGO_REPLAY_COUNT);
    if (!date_of (doc, DLQ_MONGO_RETRY_AFTER, &state->retry_after))
        date_of (doc, "createdAt", &state->retry_after);
}

void
dlq_mongo_state_fields (bson_t *fields)
{
    bson_init (fields);
    BCON_APPEND (fields, "status", BCON_INT32 (1), DLQ_MONGO_RETRY_COUNT, BCON_INT32 (1),
                 DLQ_MONGO_REPLAY_COUNT, BCON_INT32 (1), DLQ_MONGO_RETRY_AFTER, BCON_INT32 (1),
                 "createdAt", BCON_INT32 (1));
}

bool
dlq_mongo_mark_known (dlq_sink_mark_t mark)
{
    return dlq_sink_mark_effect (mark) != NULL;
}

const char *
dlq_mongo_mark_status (dlq_sink_mark_t mark)
{
    const dlq_sink_mark_effect_t *e = dlq_sink_mark_effect (mark);
    return e ? e->status : NULL;
}

void
dlq_mongo_mark_update (dlq_sink_mark_t mark, int64_t retry_after_ms, const char *body, size_t body_len,
                       bson_t *update)
{
    bson_init (update);
    const dlq_sink_mark_effect_t *e = dlq_sink_mark_effect (mark);
    if (!e)
        return;
    bson_t set, inc;
    BSON_APPEND_DOCUMENT_BEGIN (update, "$set", &set);
    if (e->status)
        BSON_APPEND_UTF8 (&set, "status", e->status);
    if (e->status && body)
        bson_append_utf8 (&set, DLQ_MONGO_BODY_FIELD, -1, body, (int) body_len);
    if (e->sets_retry_after)
        BSON_APPEND_DATE_TIME (&set, DLQ_MONGO_RETRY_AFTER, retry_after_ms);
    bson_append_document_end (update, &set);
    if (!e->retry_gain && !e->replay_gain)
        return;
    BSON_APPEND_DOCUMENT_BEGIN (update, "$inc", &inc);
    if (e->retry_gain)
        BSON_APPEND_INT32 (&inc, DLQ_MONGO_RETRY_COUNT, e->retry_gain);
    if (e->replay_gain)
        BSON_APPEND_INT32 (&inc, DLQ_MONGO_REPLAY_COUNT, e->replay_gain);
    bson_append_document_end (update, &inc);
}

/* retryCount < max_retries, an absent one counting as 0. */
static void
under_max_retries (bson_t *clauses, int32_t max_retries)
{
    bson_t clause, alternatives;
    BSON_APPEND_DOCUMENT_BEGIN (clauses, "0", &clause);
    BSON_APPEND_ARRAY_BEGIN (&clause, "$or", &alternatives);
    BCON_APPEND (&alternatives, "0", "{", DLQ_MONGO_RETRY_COUNT, "{", "$lt", BCON_INT32 (max_retries), "}", "}");
    if (max_retries > 0)
        BCON_APPEND (&alternatives, "1", "{", DLQ_MONGO_RETRY_COUNT, "{", "$exists", BCON_BOOL (false), "}", "}");
    bson_append_array_end (&clause, &alternatives);
    bson_append_document_end (clauses, &clause);
}

void
dlq_mongo_due_query (const char *stream, int32_t max_retries, int64_t now_ms, bson_t *query)
{
    bson_init (query);
    BCON_APPEND (query, "streamName", BCON_UTF8 (stream), "status", BCON_UTF8 ("PENDING"),
                 DLQ_MONGO_BODY_FIELD, "{", "$exists", BCON_BOOL (true), "}",
                 "expiresAt", "{", "$not", "{", "$lte", BCON_DATE_TIME (now_ms), "}", "}");
    bson_t clauses;
    BSON_APPEND_ARRAY_BEGIN (query, "$and", &clauses);
    under_max_retries (&clauses, max_retries);
    BCON_APPEND (&clauses, "1", "{", "$or", "[",
                     "{", DLQ_MONGO_RETRY_AFTER, "{", "$lte", BCON_DATE_TIME (now_ms), "}", "}",
                     "{", DLQ_MONGO_RETRY_AFTER, "{", "$exists", BCON_BOOL (false), "}",
                          "createdAt", "{", "$lte", BCON_DATE_TIME (now_ms), "}", "}",
                 "]", "}");
    bson_append_array_end (query, &clauses);
}

void
dlq_mongo_lock_query (const char *stream, const char *owner, int64_t now_ms, bson_t *query)
{
    bson_init (query);
    BCON_APPEND (query, "_id", BCON_UTF8 (stream), "$or", "[",
                     "{", "lockedUntil", "{", "$lte", BCON_DATE_TIME (now_ms), "}", "}",
                     "{", "owner", BCON_UTF8 (owner), "}",
                 "]");
}

void
dlq_mongo_lock_update (const char *owner, int64_t locked_until_ms, bson_t *update)
{
    bson_init (update);
    BCON_APPEND (update, "$set", "{", "owner", BCON_UTF8 (owner), "lockedUntil", BCON_DATE_TIME (locked_until_ms),
                 "}");
}

int64_t
dlq_mongo_lock_until (int64_t now_ms, int64_t pass_ms)
{
    return dlq_time_add (now_ms, pass_ms);
}
