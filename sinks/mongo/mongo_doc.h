/*  mongo_doc — the MongoDB documents of one event, as pure functions (no
 *  server, no mongoc client): unit-tested without a server
 *  (tests/test_mongo_doc.c).
 *
 *  The event document (in the stream's collection, _fw_dlq_<stream>), the
 *  shape of FlowWarden's MongoDlqStore with native BSON types:
 *      _id             the event id (string)
 *      streamName, operationType, status      strings
 *      documentKey, fullDocument, resumeToken BSON, from their extended JSON
 *                      ($oid -> ObjectId, $numberDecimal -> Decimal128, ...)
 *      error           { type, message, stackTrace }
 *      attempts        int32
 *      firstAttemptAt, lastAttemptAt, createdAt, expiresAt   BSON dates
 *                      (expiresAt absent when the event is kept forever)
 *      metadata        a document
 *      _fw_body        the canonical JSON, as is: what GET answers, byte
 *                      for byte (BSON cannot give back the same bytes)
 *      _fw_fingerprint the error's fingerprint (fingerprint.h), computed
 *                      from the body (after the stream policy: a stripped
 *                      stack trace takes no part)
 *      retryCount      int32 0: FAILs reported (the workbench's replay state)
 *      replayCount     int32 0: times replayed
 *      retryAfter      date = createdAt: not due for a scheduled replay before
 *  Members the record gains later keep their JSON types (objects become
 *  documents, numbers int32 / int64 / double). Documents written before
 *  the replay state existed lack the last four: readers take an absent
 *  retryCount / replayCount as 0, an absent retryAfter as createdAt, and
 *  an absent fingerprint as none (null).
 *
 *  The index document (in _fw_dlq_index), so that GET by id is two
 *  lookups by _id, never a scan of every stream's collection:
 *      { _id: id, c: collection, s: streamName, expiresAt: date }
 *
 *  Collection names: the stream's `collection`, else prefix + streamName;
 *  MongoDB refuses "", names with '$' or NUL, and "system." ones.
 */
#ifndef DLQ_MONGO_DOC_H
#define DLQ_MONGO_DOC_H

#include "dlq_sink.h"

#include <bson/bson.h>
#include <stdbool.h>
#include <stddef.h>

#define DLQ_MONGO_BODY_FIELD        "_fw_body"
#define DLQ_MONGO_FINGERPRINT_FIELD "_fw_fingerprint"
#define DLQ_MONGO_RETRY_COUNT       "retryCount"
#define DLQ_MONGO_REPLAY_COUNT      "replayCount"
#define DLQ_MONGO_RETRY_AFTER       "retryAfter"
#define DLQ_MONGO_INDEX_COLLECTION  "_fw_dlq_index"
#define DLQ_MONGO_STREAMS_COLLECTION "_fw_dlq_streams"
#define DLQ_MONGO_COLLECTION_MAX    200             /* bytes of a collection name */

/* The event document of event into doc (initialised by the call); false
 * with why in err when its body is not the JSON object it must be. */
bool dlq_mongo_event_doc (const dlq_sink_event_t *event, bson_t *doc, char *err, size_t err_len);

/* The index document of event, stored in collection, into doc. */
void dlq_mongo_index_doc (const dlq_sink_event_t *event, const char *collection, bson_t *doc);

/* The collection of a stream into out (DLQ_MONGO_COLLECTION_MAX + 1
 * bytes): override when set (non-NULL, non-empty), else prefix + stream.
 * False (out "") when MongoDB would refuse the name. */
bool dlq_mongo_collection (const char *prefix, const char *stream, const char *override, char *out);

/* The LIST cursor after an event: "<createdAt ms>.<id>" into out
 * (DLQ_MONGO_CURSOR_LEN); and back (false for a cursor not made here: the
 * id must be a lowercase UUID, as every event id is; id_len > 36). */
#define DLQ_MONGO_CURSOR_LEN 72
void dlq_mongo_cursor_format (int64_t created_at, const char *id, char *out);
bool dlq_mongo_cursor_parse (const char *cursor, int64_t *created_at, char *id, size_t id_len);

#endif
