/*  mongo_lookup — what the store, workbench and checkpoint calls of the
 *  mongo sink share: a failure kept as the instance's last_error, a
 *  document's string field, an event's collection (its _fw_dlq_index
 *  entry: one lookup by _id, never a scan of every collection), the one
 *  document of a collection by _id, one findAndModify, the
 *  collections a query runs on (the stream's, or every one
 *  _fw_dlq_streams registers, each once), and the scope of a workbench
 *  query (its filter, as a query, and those collections).
 */
#ifndef DLQ_MONGO_LOOKUP_H
#define DLQ_MONGO_LOOKUP_H

#include "event_filter.h"
#include "mongo_doc.h"
#include "mongo_sink.h"

#include <stdarg.h>

/* Keep "mongo <what>: <the driver's message>" as last_error (logged at
 * DEBUG); returns DLQ_SINK_STATUS_ERROR. */
dlq_sink_status_t dlq_mongo_fail (dlq_mongo_sink_t *self, const char *what, const bson_error_t *error);

/* The same with a message of ours. */
dlq_sink_status_t dlq_mongo_fail_text (dlq_mongo_sink_t *self, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* doc's string field key (its length in *len when not NULL); NULL when
 * absent or not a string. */
const char *dlq_mongo_utf8_of (const bson_t *doc, const char *key, uint32_t *len);

/* Is doc expired at now_ms (expiresAt a date <= now_ms)? */
bool dlq_mongo_expired (const bson_t *doc, int64_t now_ms);

/* The one document of collection with _id = id, projected (NULL: whole),
 * copied into out (initialised when found); *found false when none. */
dlq_sink_status_t dlq_mongo_find_by_id (dlq_mongo_sink_t *self, const char *collection, const char *id,
                                        const bson_t *projection, bson_t *out, bool *found);

/* One findAndModify (new: true): its query, sort, update and projection
 * (sort and fields may be NULL), and whether it upserts. */
typedef struct {
    const bson_t *query;
    const bson_t *sort;
    const bson_t *update;
    const bson_t *fields;
    bool          upsert;
} dlq_mongo_modify_t;

/* Run m on collection: *found (and value, initialised then) when a
 * document was updated or upserted. False with error when the command
 * failed. */
bool dlq_mongo_find_and_modify (dlq_mongo_sink_t *self, const char *collection, const dlq_mongo_modify_t *m,
                                bson_t *value, bool *found, bson_error_t *error);

/* The collection of event id (DLQ_MONGO_COLLECTION_MAX + 1 bytes) from
 * its _fw_dlq_index entry; NOT_FOUND when it has none. The instance
 * remembers the last one found (an event never changes collection), so
 * GET and the replay state the gateway reads right after it, or a state
 * then a mark, look the index up once. */
dlq_sink_status_t dlq_mongo_locate (dlq_mongo_sink_t *self, const char *id, char *collection);

/* The collections a query of stream (NULL: every stream) runs on: the
 * stream's (none when its name cannot be a collection), or those of
 * _fw_dlq_streams, each once. Free with dlq_mongo_names_free. */
typedef struct {
    char  **names;
    size_t  count;
} dlq_mongo_names_t;

dlq_sink_status_t dlq_mongo_collections_of (dlq_mongo_sink_t *self, const char *stream, dlq_mongo_names_t *out);
void dlq_mongo_names_free (dlq_mongo_names_t *names);

/* What a filtered workbench call (LIST, COUNT, GROUPS) runs: the filter
 * of its filter_json, the query of the unexpired events it matches at
 * now_ms (mongo_filter.h), and the collections of the filter's stream. */
typedef struct {
    dlq_event_filter_t filter;
    bson_t             query;
    dlq_mongo_names_t  names;
} dlq_mongo_scope_t;

/* The scope of filter_json at now_ms; false, the status in *status and
 * nothing to free, when the filter or the collections cannot be had.
 * Free with dlq_mongo_scope_free. */
bool dlq_mongo_scope_open (dlq_mongo_sink_t *self, const char *filter_json, int64_t now_ms,
                           dlq_mongo_scope_t *scope, dlq_sink_status_t *status);
void dlq_mongo_scope_free (dlq_mongo_scope_t *scope);

#endif
