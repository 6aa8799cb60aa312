/*  mongo_store — the store calls of the mongo sink (it can be the
 *  primary): GET, LIST and STATS answered from MongoDB.
 *
 *  get: _fw_dlq_index by _id gives the event's collection, then that
 *  collection by _id: two lookups on _id, never a scan of every stream's
 *  collection. The answer is _fw_body, the canonical JSON byte for byte.
 *  list: the stream's collection newest first (sort createdAt -1, _id -1,
 *  the LIST index), from after the cursor "<createdAt ms>.<id>"; read in
 *  batches until the page is full and one more event is known to exist.
 *  An event is expired when expiresAt <= now: get and list skip it (the
 *  TTL index makes MongoDB delete it within its monitor's minute), stats
 *  counts it until then. stats: the `count` of each collection named in
 *  _fw_dlq_streams; storeBytes is not known (0). No sweep: the TTL index
 *  does it.
 */
#include "mongo_sink.h"

#include "dlq_buf.h"
#include "dlq_json.h"
#include "mongo_doc.h"
#include "mongo_lookup.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *
mongo_last_error (void *instance)
{
    return ((dlq_mongo_sink_t *) instance)->last_error;
}

/* ---- get ------------------------------------------------------------------------ */

static dlq_sink_status_t
mongo_get (void *instance, const char *id, int64_t now_ms, dlq_sink_buf_t *event_out)
{
    dlq_mongo_sink_t *self = instance;
    char collection [DLQ_MONGO_COLLECTION_MAX + 1];
    dlq_sink_status_t status = dlq_mongo_locate (self, id, collection);
    if (status != DLQ_SINK_STATUS_OK)
        return status;
    bson_t *projection = BCON_NEW (DLQ_MONGO_BODY_FIELD, BCON_INT32 (1), "expiresAt", BCON_INT32 (1));
    bson_t event;
    bool found = false;
    status = dlq_mongo_find_by_id (self, collection, id, projection, &event, &found);
    bson_destroy (projection);
    if (status != DLQ_SINK_STATUS_OK || !found)
        return status == DLQ_SINK_STATUS_OK ? DLQ_SINK_STATUS_NOT_FOUND : status;
    uint32_t len = 0;
    const char *body = dlq_mongo_utf8_of (&event, DLQ_MONGO_BODY_FIELD, &len);
    if (!body || dlq_mongo_expired (&event, now_ms))
        status = DLQ_SINK_STATUS_NOT_FOUND;
    else
        self->host->append (event_out, body, len);
    bson_destroy (&event);
    return status;
}

/* ---- list ----------------------------------------------------------------------- */

/* The filter of a page: after the cursor, or everything. */
static bson_t *
page_filter (int64_t created_at, const char *id, bool after)
{
    if (!after)
        return bson_new ();
    return BCON_NEW ("$or", "[",
                         "{", "createdAt", "{", "$lt", BCON_DATE_TIME (created_at), "}", "}",
                         "{", "createdAt", BCON_DATE_TIME (created_at), "_id", "{", "$lt", BCON_UTF8 (id), "}", "}",
                     "]");
}

typedef struct {
    size_t  shown;
    bool    more;
    int64_t last_created_at;
    char    last_id [80];
} page_t;

/* Append the unexpired documents of cursor to events_out, up to limit;
 * page->more when one more exists. */
static void
read_page (dlq_mongo_sink_t *self, mongoc_cursor_t *cursor, size_t limit, int64_t now_ms,
           dlq_sink_buf_t *events_out, page_t *page)
{
    const bson_t *doc;
    self->host->append (events_out, "[", 1);
    while (!page->more && mongoc_cursor_next (cursor, &doc)) {
        uint32_t len = 0, id_len = 0;
        const char *body = dlq_mongo_utf8_of (doc, DLQ_MONGO_BODY_FIELD, &len);
        const char *id = dlq_mongo_utf8_of (doc, "_id", &id_len);
        bson_iter_t it;
        if (!body || !id || dlq_mongo_expired (doc, now_ms))
            continue;
        if (page->shown == limit) {
            page->more = true;
            break;
        }
        if (page->shown++ > 0)
            self->host->append (events_out, ",", 1);
        self->host->append (events_out, body, len);
        page->last_created_at = bson_iter_init_find (&it, doc, "createdAt") && BSON_ITER_HOLDS_DATE_TIME (&it)
                              ? bson_iter_date_time (&it) : 0;
        snprintf (page->last_id, sizeof page->last_id, "%s", id);
    }
    self->host->append (events_out, "]", 1);
}

static dlq_sink_status_t
mongo_list (void *instance, const char *stream, size_t limit, const char *cursor_text, int64_t now_ms,
            dlq_sink_buf_t *events_out, dlq_sink_buf_t *cursor_out)
{
    dlq_mongo_sink_t *self = instance;
    int64_t created_at = 0;
    char id [80] = "";
    bool after = cursor_text && *cursor_text;
    if (after && !dlq_mongo_cursor_parse (cursor_text, &created_at, id, sizeof id))
        return DLQ_SINK_STATUS_BAD_CURSOR;
    const dlq_mongo_route_t *route = dlq_mongo_collections_route (self->collections, stream);
    if (!route->valid) {
        self->host->append (events_out, "[]", 2);
        return DLQ_SINK_STATUS_OK;
    }
    mongoc_collection_t *collection = mongoc_database_get_collection (self->db, route->collection);
    bson_t *filter = page_filter (created_at, id, after);
    bson_t *opts = BCON_NEW ("sort", "{", "createdAt", BCON_INT32 (-1), "_id", BCON_INT32 (-1), "}",
                             "projection", "{", DLQ_MONGO_BODY_FIELD, BCON_INT32 (1), "expiresAt", BCON_INT32 (1),
                                                "createdAt", BCON_INT32 (1), "}",
                             "batchSize", BCON_INT32 ((int32_t) (limit < 1000 ? limit + 1 : 1000)));
    mongoc_cursor_t *cursor = mongoc_collection_find_with_opts (collection, filter, opts, NULL);
    dlq_buf_t page_json = DLQ_BUF_INIT;
    page_t page = { 0 };
    read_page (self, cursor, limit, now_ms, (dlq_sink_buf_t *) &page_json, &page);
    bson_error_t error;
    dlq_sink_status_t status = DLQ_SINK_STATUS_OK;
    if (mongoc_cursor_error (cursor, &error))
        status = dlq_mongo_fail (self, "list", &error);
    else {
        self->host->append (events_out, page_json.data, page_json.len);
        if (page.more && page.shown) {
            char next [DLQ_MONGO_CURSOR_LEN];
            dlq_mongo_cursor_format (page.last_created_at, page.last_id, next);
            self->host->append (cursor_out, next, strlen (next));
        }
    }
    dlq_buf_free (&page_json);
    mongoc_cursor_destroy (cursor);     /* killCursors when it was not exhausted */
    bson_destroy (opts);
    bson_destroy (filter);
    mongoc_collection_destroy (collection);
    return status;
}

/* ---- stats ------------------------------------------------------------------------- */

/* The `count` of collection, or -1 (error set). */
static int64_t
count_of (dlq_mongo_sink_t *self, const char *collection, bson_error_t *error)
{
    bson_t *command = BCON_NEW ("count", BCON_UTF8 (collection));
    bson_t reply;
    int64_t n = -1;
    if (mongoc_database_command_simple (self->db, command, NULL, &reply, error)) {
        bson_iter_t it;
        n = bson_iter_init_find (&it, &reply, "n") ? bson_iter_as_int64 (&it) : 0;
    }
    bson_destroy (&reply);
    bson_destroy (command);
    return n;
}

static dlq_sink_status_t
mongo_stats (void *instance, dlq_sink_buf_t *streams_out, int64_t *events_out, int64_t *bytes_out)
{
    dlq_mongo_sink_t *self = instance;
    mongoc_collection_t *streams = mongoc_database_get_collection (self->db, DLQ_MONGO_STREAMS_COLLECTION);
    bson_t *filter = bson_new ();
    mongoc_cursor_t *cursor = mongoc_collection_find_with_opts (streams, filter, NULL, NULL);
    dlq_buf_t json = DLQ_BUF_INIT;
    dlq_buf_putc (&json, '{');
    int64_t total = 0;
    size_t listed = 0;
    bson_error_t error;
    bool ok = true;
    const bson_t *doc;
    while (ok && mongoc_cursor_next (cursor, &doc)) {
        uint32_t stream_len = 0;
        const char *stream = dlq_mongo_utf8_of (doc, "_id", &stream_len), *collection = dlq_mongo_utf8_of (doc, "c", NULL);
        if (!stream || !collection)
            continue;
        int64_t n = count_of (self, collection, &error);
        ok = n >= 0;
        if (!ok || n == 0)
            continue;
        if (listed++)
            dlq_buf_putc (&json, ',');
        dlq_json_write_string (&json, stream, stream_len);
        dlq_buf_printf (&json, ":%" PRId64, n);
        total += n;
    }
    dlq_buf_putc (&json, '}');
    if (ok && mongoc_cursor_error (cursor, &error))
        ok = false;
    dlq_sink_status_t status = ok ? DLQ_SINK_STATUS_OK : dlq_mongo_fail (self, "stats", &error);
    if (ok) {
        self->host->append (streams_out, json.data, json.len);
        *events_out = total;
        *bytes_out = 0;
    }
    dlq_buf_free (&json);
    mongoc_cursor_destroy (cursor);
    bson_destroy (filter);
    mongoc_collection_destroy (streams);
    return status;
}

const dlq_sink_store_ops_t dlq_mongo_store_ops = {
    .get        = mongo_get,
    .list       = mongo_list,
    .stats      = mongo_stats,
    .sweep      = NULL,
    .last_error = mongo_last_error,
};
