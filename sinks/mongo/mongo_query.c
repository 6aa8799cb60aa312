/*  mongo_query — filtered LIST and COUNT across collections; see
 *  mongo_query.h.
 */
#include "mongo_query.h"

#include "dlq_alloc.h"
#include "mongo_filter.h"
#include "mongo_lookup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One event of a page: where it sorts, and its body. */
typedef struct {
    int64_t  created_at;
    char     id [DLQ_MONGO_CURSOR_LEN];
    char    *body;
    uint32_t len;
} row_t;

typedef struct {
    row_t  *rows;
    size_t  count, cap;
} rows_t;

static void
rows_free (rows_t *r)
{
    for (size_t i = 0; i < r->count; i++)
        free (r->rows [i].body);
    free (r->rows);
}

/* Keep doc as a row when it has a body and an _id. */
static void
keep_row (rows_t *r, const bson_t *doc)
{
    uint32_t len = 0, id_len = 0;
    const char *body = dlq_mongo_utf8_of (doc, DLQ_MONGO_BODY_FIELD, &len);
    const char *id = dlq_mongo_utf8_of (doc, "_id", &id_len);
    bson_iter_t it;
    if (!body || !id || id_len >= sizeof r->rows [0].id)
        return;
    if (r->count == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->rows = dlq_realloc (r->rows, r->cap * sizeof *r->rows);
    }
    row_t *row = &r->rows [r->count++];
    row->created_at = bson_iter_init_find (&it, doc, "createdAt") && BSON_ITER_HOLDS_DATE_TIME (&it)
                    ? bson_iter_date_time (&it) : 0;
    snprintf (row->id, sizeof row->id, "%s", id);
    row->body = dlq_strndup (body, len);
    row->len = len;
}

/* LIST order: createdAt desc, then _id desc. */
static int
newest_first (const void *a, const void *b)
{
    const row_t *x = a, *y = b;
    if (x->created_at != y->created_at)
        return x->created_at > y->created_at ? -1 : 1;
    return -strcmp (x->id, y->id);
}

/* The first limit + 1 events of query in collection, in LIST order. */
static dlq_sink_status_t
read_collection (dlq_mongo_sink_t *self, const char *name, const bson_t *query, size_t limit, rows_t *rows)
{
    mongoc_collection_t *collection = mongoc_database_get_collection (self->db, name);
    int64_t wanted = (int64_t) limit + 1;
    bson_t *opts = BCON_NEW ("sort", "{", "createdAt", BCON_INT32 (-1), "_id", BCON_INT32 (-1), "}",
                             "projection", "{", DLQ_MONGO_BODY_FIELD, BCON_INT32 (1), "createdAt", BCON_INT32 (1), "}",
                             "limit", BCON_INT64 (wanted),
                             "batchSize", BCON_INT32 ((int32_t) (wanted < 1000 ? wanted : 1000)));
    mongoc_cursor_t *cursor = mongoc_collection_find_with_opts (collection, query, opts, NULL);
    const bson_t *doc;
    while (mongoc_cursor_next (cursor, &doc))
        keep_row (rows, doc);
    bson_error_t error;
    dlq_sink_status_t status = mongoc_cursor_error (cursor, &error) ? dlq_mongo_fail (self, name, &error)
                             : DLQ_SINK_STATUS_OK;
    mongoc_cursor_destroy (cursor);
    bson_destroy (opts);
    mongoc_collection_destroy (collection);
    return status;
}

/* The page: the first limit rows (sorted), and the cursor after the last
 * one shown when more exist. */
static void
write_page (dlq_mongo_sink_t *self, rows_t *rows, size_t limit, dlq_sink_buf_t *events_out,
            dlq_sink_buf_t *cursor_out)
{
    if (rows->count)
        qsort (rows->rows, rows->count, sizeof *rows->rows, newest_first);
    size_t shown = rows->count < limit ? rows->count : limit;
    self->host->append (events_out, "[", 1);
    for (size_t i = 0; i < shown; i++) {
        if (i)
            self->host->append (events_out, ",", 1);
        self->host->append (events_out, rows->rows [i].body, rows->rows [i].len);
    }
    self->host->append (events_out, "]", 1);
    if (rows->count > shown && shown > 0) {
        char next [DLQ_MONGO_CURSOR_LEN];
        dlq_mongo_cursor_format (rows->rows [shown - 1].created_at, rows->rows [shown - 1].id, next);
        self->host->append (cursor_out, next, strlen (next));
    }
}

dlq_sink_status_t
dlq_mongo_query_list (void *instance, const char *filter_json, size_t limit, const char *cursor, int64_t now_ms,
                      dlq_sink_buf_t *events_out, dlq_sink_buf_t *cursor_out)
{
    dlq_mongo_sink_t *self = instance;
    int64_t created_at = 0;
    char id [DLQ_MONGO_CURSOR_LEN] = "";
    bool after = cursor && *cursor;
    if (after && !dlq_mongo_cursor_parse (cursor, &created_at, id, sizeof id))
        return DLQ_SINK_STATUS_BAD_CURSOR;
    dlq_mongo_scope_t scope;
    dlq_sink_status_t status;
    if (!dlq_mongo_scope_open (self, filter_json, now_ms, &scope, &status))
        return status;
    if (after)
        dlq_mongo_filter_after (&scope.query, created_at, id);
    rows_t rows = { 0 };
    for (size_t i = 0; i < scope.names.count && status == DLQ_SINK_STATUS_OK; i++)
        status = read_collection (self, scope.names.names [i], &scope.query, limit, &rows);
    if (status == DLQ_SINK_STATUS_OK)
        write_page (self, &rows, limit, events_out, cursor_out);
    rows_free (&rows);
    dlq_mongo_scope_free (&scope);
    return status;
}

dlq_sink_status_t
dlq_mongo_query_count (void *instance, const char *filter_json, int64_t now_ms, int64_t *count_out)
{
    dlq_mongo_sink_t *self = instance;
    dlq_mongo_scope_t scope;
    dlq_sink_status_t status;
    if (!dlq_mongo_scope_open (self, filter_json, now_ms, &scope, &status))
        return status;
    int64_t total = 0;
    for (size_t i = 0; i < scope.names.count && status == DLQ_SINK_STATUS_OK; i++) {
        const char *name = scope.names.names [i];
        mongoc_collection_t *collection = mongoc_database_get_collection (self->db, name);
        bson_error_t error;
        int64_t n = mongoc_collection_count_documents (collection, &scope.query, NULL, NULL, NULL, &error);
        if (n < 0)
            status = dlq_mongo_fail (self, name, &error);
        else
            total += n;
        mongoc_collection_destroy (collection);
    }
    if (status == DLQ_SINK_STATUS_OK)
        *count_out = total;
    dlq_mongo_scope_free (&scope);
    return status;
}
