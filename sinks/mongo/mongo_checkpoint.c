/*  mongo_checkpoint — the checkpoint calls on _fw_checkpoints; see
 *  mongo_checkpoint.h.
 */
#include "mongo_checkpoint.h"

#include "dlq_alloc.h"
#include "dlq_buf.h"
#include "mongo_ckpt_doc.h"
#include "mongo_lookup.h"

#include <stdlib.h>
#include <string.h>

/* The record of doc into out; ERROR when doc is not one. */
static dlq_sink_status_t
put_record (dlq_mongo_sink_t *self, const bson_t *doc, dlq_sink_buf_t *out)
{
    dlq_buf_t json = DLQ_BUF_INIT;
    dlq_sink_status_t status = DLQ_SINK_STATUS_OK;
    if (dlq_mongo_ckpt_format (doc, &json) != DLQ_MONGO_CKPT_OK)
        status = dlq_mongo_fail_text (self, "mongo checkpoint: a document of %s without a string _id",
                                      DLQ_MONGO_CKPT_COLLECTION);
    else
        self->host->append (out, json.data, json.len);
    dlq_buf_free (&json);
    return status;
}

/* ---- write ------------------------------------------------------------------------ */

/* One findAndModify upsert of update where query holds: the document
 * after it into doc (initialised on OK). A DuplicateKey (a concurrent
 * first write inserted the document meanwhile) is tried once more. */
static dlq_sink_status_t
upsert (dlq_mongo_sink_t *self, const bson_t *query, const bson_t *update, bson_t *doc)
{
    dlq_mongo_modify_t m = { .query = query, .update = update, .upsert = true };
    bson_error_t error;
    bool found = false;
    bool ok = dlq_mongo_find_and_modify (self, DLQ_MONGO_CKPT_COLLECTION, &m, doc, &found, &error);
    if (!ok && error.code == DLQ_MONGO_DUPLICATE_KEY)
        ok = dlq_mongo_find_and_modify (self, DLQ_MONGO_CKPT_COLLECTION, &m, doc, &found, &error);
    if (!ok)
        return dlq_mongo_fail (self, "checkpoint write", &error);
    if (!found)
        return dlq_mongo_fail_text (self, "mongo checkpoint write: the upsert answered no document");
    return DLQ_SINK_STATUS_OK;
}

static dlq_sink_status_t
mongo_ckpt_write (void *instance, dlq_sink_ckpt_write_t kind, const dlq_sink_checkpoint_t *ckpt, int64_t now_ms,
                  dlq_sink_buf_t *record_out)
{
    dlq_mongo_sink_t *self = instance;
    if (!ckpt || !ckpt->stream_name)
        return dlq_mongo_fail_text (self, "mongo checkpoint write: no stream name");
    bson_t update, doc;
    char why [DLQ_MONGO_ERR_LEN];
    dlq_sink_status_t status = DLQ_SINK_STATUS_OK;
    if (dlq_mongo_ckpt_update (kind, ckpt, now_ms, &update, why, sizeof why) != DLQ_MONGO_CKPT_OK)
        status = dlq_mongo_fail_text (self, "mongo checkpoint write %.64s: %s", ckpt->stream_name, why);
    bson_t *query = BCON_NEW ("_id", BCON_UTF8 (ckpt->stream_name));
    if (status == DLQ_SINK_STATUS_OK)
        status = upsert (self, query, &update, &doc);
    if (status == DLQ_SINK_STATUS_OK) {
        status = put_record (self, &doc, record_out);
        bson_destroy (&doc);
    }
    bson_destroy (query);
    bson_destroy (&update);
    return status;
}

/* ---- get and remove ---------------------------------------------------------------- */

static dlq_sink_status_t
mongo_ckpt_get (void *instance, const char *stream, dlq_sink_buf_t *record_out)
{
    dlq_mongo_sink_t *self = instance;
    bson_t doc;
    bool found = false;
    dlq_sink_status_t status = dlq_mongo_find_by_id (self, DLQ_MONGO_CKPT_COLLECTION, stream, NULL, &doc, &found);
    if (status != DLQ_SINK_STATUS_OK || !found)
        return status == DLQ_SINK_STATUS_OK ? DLQ_SINK_STATUS_NOT_FOUND : status;
    status = put_record (self, &doc, record_out);
    bson_destroy (&doc);
    return status;
}

static dlq_sink_status_t
mongo_ckpt_remove (void *instance, const char *stream, bool *deleted_out)
{
    dlq_mongo_sink_t *self = instance;
    *deleted_out = false;
    mongoc_collection_t *collection = mongoc_database_get_collection (self->db, DLQ_MONGO_CKPT_COLLECTION);
    bson_t *selector = BCON_NEW ("_id", BCON_UTF8 (stream));
    bson_t reply;
    bson_error_t error;
    dlq_sink_status_t status = DLQ_SINK_STATUS_OK;
    if (mongoc_collection_delete_one (collection, selector, NULL, &reply, &error)) {
        bson_iter_t it;
        *deleted_out = bson_iter_init_find (&it, &reply, "deletedCount") && BSON_ITER_HOLDS_NUMBER (&it)
                    && bson_iter_as_int64 (&it) > 0;
    }
    else
        status = dlq_mongo_fail (self, "checkpoint remove", &error);
    bson_destroy (&reply);
    bson_destroy (selector);
    mongoc_collection_destroy (collection);
    return status;
}

/* ---- list ---------------------------------------------------------------------------- */

typedef struct {
    size_t  size;               /* records a page shows */
    size_t  shown;
    bool    more;               /* another record follows the page */
    char   *last;               /* the name of the last record shown */
} page_t;

/* The records of cursor (sorted by name) that start with prefix, as a
 * JSON array into json, up to page->size; page->more when one more is
 * there. */
static void
read_page (mongoc_cursor_t *cursor, const char *prefix, dlq_buf_t *json, page_t *page)
{
    const bson_t *doc;
    dlq_buf_putc (json, '[');
    while (!page->more && mongoc_cursor_next (cursor, &doc)) {
        uint32_t len = 0;
        const char *name = dlq_mongo_utf8_of (doc, "_id", &len);
        if (!name)
            continue;
        if (!dlq_mongo_ckpt_has_prefix (name, len, prefix))
            break;
        if (page->shown == page->size) {
            page->more = true;
            break;
        }
        if (page->shown++ > 0)
            dlq_buf_putc (json, ',');
        dlq_mongo_ckpt_format (doc, json);
        free (page->last);
        page->last = dlq_strndup (name, len);
    }
    dlq_buf_putc (json, ']');
}

/* Run the page's find: names from prefix, after cursor. */
static dlq_sink_status_t
find_page (dlq_mongo_sink_t *self, const char *prefix, const char *after, dlq_buf_t *json, page_t *page)
{
    mongoc_collection_t *collection = mongoc_database_get_collection (self->db, DLQ_MONGO_CKPT_COLLECTION);
    bson_t filter;
    dlq_mongo_ckpt_list_filter (prefix, after, &filter);
    bson_t *opts = BCON_NEW ("sort", "{", "_id", BCON_INT32 (1), "}",
                             "limit", BCON_INT64 ((int64_t) page->size + 1),
                             "batchSize", BCON_INT32 ((int32_t) page->size + 1));
    mongoc_cursor_t *cursor = mongoc_collection_find_with_opts (collection, &filter, opts, NULL);
    read_page (cursor, prefix, json, page);
    bson_error_t error;
    dlq_sink_status_t status = DLQ_SINK_STATUS_OK;
    if (mongoc_cursor_error (cursor, &error))
        status = dlq_mongo_fail (self, "checkpoint list", &error);
    mongoc_cursor_destroy (cursor);     /* killCursors when a page stopped early */
    bson_destroy (opts);
    bson_destroy (&filter);
    mongoc_collection_destroy (collection);
    return status;
}

static dlq_sink_status_t
mongo_ckpt_list (void *instance, const char *prefix, size_t limit, const char *cursor, dlq_sink_buf_t *records_out,
                 dlq_sink_buf_t *cursor_out)
{
    dlq_mongo_sink_t *self = instance;
    bool after = cursor && *cursor;
    if (after && !dlq_mongo_ckpt_cursor_valid (cursor))
        return DLQ_SINK_STATUS_BAD_CURSOR;
    if (limit == 0) {
        self->host->append (records_out, "[]", 2);
        return DLQ_SINK_STATUS_OK;
    }
    page_t page = { .size = limit < DLQ_MONGO_CKPT_PAGE_MAX ? limit : DLQ_MONGO_CKPT_PAGE_MAX };
    dlq_buf_t json = DLQ_BUF_INIT;
    dlq_sink_status_t status = find_page (self, prefix, after ? cursor : NULL, &json, &page);
    if (status == DLQ_SINK_STATUS_OK) {
        self->host->append (records_out, json.data, json.len);
        if (page.more && page.last)
            self->host->append (cursor_out, page.last, strlen (page.last));
    }
    free (page.last);
    dlq_buf_free (&json);
    return status;
}

const dlq_sink_checkpoint_ops_t dlq_mongo_checkpoint_ops = {
    .struct_size = sizeof (dlq_sink_checkpoint_ops_t),
    .write       = mongo_ckpt_write,
    .get         = mongo_ckpt_get,
    .list        = mongo_ckpt_list,
    .remove      = mongo_ckpt_remove,
};
