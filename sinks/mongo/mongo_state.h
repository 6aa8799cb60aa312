/*  mongo_state — an event document's replay state (status, retryCount,
 *  replayCount, retryAfter: mongo_doc.h) and the documents of the
 *  workbench's writes, as pure functions (no server): the update of each
 *  mark, the query of a stream's due events, and the scheduler's lock.
 *  Unit-tested in tests/test_mongo_doc.c.
 *
 *  A document written before the replay state existed has none of it:
 *  retryCount and replayCount count as 0 and retryAfter as createdAt, in
 *  what is read and in the due query alike.
 *
 *  The lock of a stream's scheduled pass is a document of
 *  _fw_dlq_locks: {_id: stream, owner, lockedUntil: date}. It is taken
 *  with one findAndModify (upsert) whose query holds only when the lock
 *  is free (lockedUntil <= now) or already the owner's; when another
 *  owner holds it the query matches nothing and the upsert's insert meets
 *  the document's _id: DuplicateKey (11000), which says LOCKED.
 */
#ifndef DLQ_MONGO_STATE_H
#define DLQ_MONGO_STATE_H

#include "dlq_sink.h"

#include <bson/bson.h>
#include <stdbool.h>
#include <stdint.h>

#define DLQ_MONGO_LOCKS_COLLECTION "_fw_dlq_locks"

/* The replay state of an event document (its status field; the counts;
 * retryAfter, else createdAt, else 0). */
void dlq_mongo_state_of (const bson_t *doc, dlq_sink_event_state_t *state);

/* The status mark gives the event (NULL: it keeps its own); false for a
 * mark this sink does not know. */
bool dlq_mongo_mark_known (dlq_sink_mark_t mark);
const char *dlq_mongo_mark_status (dlq_sink_mark_t mark);

/* The update of mark into update (initialised by the call): the status,
 * the counts ($inc), retryAfter = retry_after_ms for FAILED and
 * REPLAYED, and _fw_body = body (body_len bytes) when body is not NULL
 * (the body with its new status: body_status.h). */
void dlq_mongo_mark_update (dlq_sink_mark_t mark, int64_t retry_after_ms, const char *body, size_t body_len,
                            bson_t *update);

/* The projection of what dlq_mongo_state_of reads. */
void dlq_mongo_state_fields (bson_t *fields);

/* The query of stream's events due at now_ms into query (initialised):
 * status PENDING, retryCount < max_retries, retryAfter <= now_ms,
 * unexpired, with a body. */
void dlq_mongo_due_query (const char *stream, int32_t max_retries, int64_t now_ms, bson_t *query);

/* The lock's findAndModify: query (free or owner's at now_ms) and
 * update ({$set: {owner, lockedUntil}}), both initialised by the call. */
void dlq_mongo_lock_query (const char *stream, const char *owner, int64_t now_ms, bson_t *query);
void dlq_mongo_lock_update (const char *owner, int64_t locked_until_ms, bson_t *update);

/* now_ms + pass_ms, saturating (the lock's lockedUntil). */
int64_t dlq_mongo_lock_until (int64_t now_ms, int64_t pass_ms);

#endif
