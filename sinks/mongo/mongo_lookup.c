/*  mongo_lookup — shared reads and errors of the store and workbench
 *  calls; see mongo_lookup.h.
 */
#include "mongo_lookup.h"

#include "dlq_alloc.h"
#include "mongo_filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

dlq_sink_status_t
dlq_mongo_fail (dlq_mongo_sink_t *self, const char *what, const bson_error_t *error)
{
    return dlq_mongo_fail_text (self, "mongo %s: %.200s", what, error->message);
}

dlq_sink_status_t
dlq_mongo_fail_text (dlq_mongo_sink_t *self, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (self->last_error, sizeof self->last_error, fmt, ap);
    va_end (ap);
    self->host->log (self->config, DLQ_SINK_LOG_DEBUG, "%s", self->last_error);
    return DLQ_SINK_STATUS_ERROR;
}

const char *
dlq_mongo_utf8_of (const bson_t *doc, const char *key, uint32_t *len)
{
    bson_iter_t it;
    if (bson_iter_init_find (&it, doc, key) && BSON_ITER_HOLDS_UTF8 (&it))
        return bson_iter_utf8 (&it, len);
    return NULL;
}

bool
dlq_mongo_expired (const bson_t *doc, int64_t now_ms)
{
    bson_iter_t it;
    return bson_iter_init_find (&it, doc, "expiresAt") && BSON_ITER_HOLDS_DATE_TIME (&it)
        && bson_iter_date_time (&it) <= now_ms;
}

dlq_sink_status_t
dlq_mongo_find_by_id (dlq_mongo_sink_t *self, const char *collection_name, const char *id,
                      const bson_t *projection, bson_t *out, bool *found)
{
    mongoc_collection_t *collection = mongoc_database_get_collection (self->db, collection_name);
    bson_t *filter = BCON_NEW ("_id", BCON_UTF8 (id));
    bson_t *opts = BCON_NEW ("limit", BCON_INT64 (1));
    if (projection)
        BSON_APPEND_DOCUMENT (opts, "projection", projection);
    mongoc_cursor_t *cursor = mongoc_collection_find_with_opts (collection, filter, opts, NULL);
    const bson_t *doc;
    *found = mongoc_cursor_next (cursor, &doc);
    if (*found)
        bson_copy_to (doc, out);
    bson_error_t error;
    dlq_sink_status_t status = DLQ_SINK_STATUS_OK;
    if (mongoc_cursor_error (cursor, &error)) {
        status = dlq_mongo_fail (self, collection_name, &error);
        if (*found)
            bson_destroy (out);
        *found = false;
    }
    mongoc_cursor_destroy (cursor);
    bson_destroy (opts);
    bson_destroy (filter);
    mongoc_collection_destroy (collection);
    return status;
}

bool
dlq_mongo_find_and_modify (dlq_mongo_sink_t *self, const char *collection_name, const dlq_mongo_modify_t *m,
                           bson_t *value, bool *found, bson_error_t *error)
{
    mongoc_collection_t *collection = mongoc_database_get_collection (self->db, collection_name);
    mongoc_find_and_modify_opts_t *opts = mongoc_find_and_modify_opts_new ();
    mongoc_find_and_modify_opts_set_update (opts, m->update);
    mongoc_find_and_modify_opts_set_flags (opts, MONGOC_FIND_AND_MODIFY_RETURN_NEW
                                                 | (m->upsert ? MONGOC_FIND_AND_MODIFY_UPSERT : 0));
    if (m->sort)
        mongoc_find_and_modify_opts_set_sort (opts, m->sort);
    if (m->fields)
        mongoc_find_and_modify_opts_set_fields (opts, m->fields);
    bson_t reply;
    bool ok = mongoc_collection_find_and_modify_with_opts (collection, m->query, opts, &reply, error);
    bson_iter_t it;
    *found = ok && bson_iter_init_find (&it, &reply, "value") && BSON_ITER_HOLDS_DOCUMENT (&it);
    if (*found) {
        uint32_t len;
        const uint8_t *data;
        bson_t view;
        bson_iter_document (&it, &len, &data);
        *found = bson_init_static (&view, data, len);
        if (*found)
            bson_copy_to (&view, value);
    }
    bson_destroy (&reply);
    mongoc_find_and_modify_opts_destroy (opts);
    mongoc_collection_destroy (collection);
    return ok;
}

dlq_sink_status_t
dlq_mongo_locate (dlq_mongo_sink_t *self, const char *id, char *collection)
{
    if (self->located_id [0] && strcmp (self->located_id, id) == 0) {
        snprintf (collection, DLQ_MONGO_COLLECTION_MAX + 1, "%s", self->located);
        return DLQ_SINK_STATUS_OK;
    }
    bson_t *projection = BCON_NEW ("c", BCON_INT32 (1));
    bson_t entry;
    bool found = false;
    dlq_sink_status_t status = dlq_mongo_find_by_id (self, DLQ_MONGO_INDEX_COLLECTION, id, projection, &entry,
                                                     &found);
    bson_destroy (projection);
    if (status != DLQ_SINK_STATUS_OK)
        return status;
    if (!found)
        return DLQ_SINK_STATUS_NOT_FOUND;
    uint32_t len = 0;
    const char *c = dlq_mongo_utf8_of (&entry, "c", &len);
    bool ok = c && len > 0 && len <= DLQ_MONGO_COLLECTION_MAX;
    if (ok) {
        snprintf (collection, DLQ_MONGO_COLLECTION_MAX + 1, "%s", c);
        if (strlen (id) < sizeof self->located_id) {
            snprintf (self->located_id, sizeof self->located_id, "%s", id);
            snprintf (self->located, sizeof self->located, "%s", c);
        }
    }
    bson_destroy (&entry);
    return ok ? DLQ_SINK_STATUS_OK : DLQ_SINK_STATUS_NOT_FOUND;
}

static void
add_name (dlq_mongo_names_t *names, const char *name)
{
    for (size_t i = 0; i < names->count; i++)
        if (strcmp (names->names [i], name) == 0)
            return;
    names->names = dlq_realloc (names->names, (names->count + 1) * sizeof *names->names);
    names->names [names->count++] = dlq_strdup (name);
}

/* Every collection _fw_dlq_streams names. */
static dlq_sink_status_t
registered (dlq_mongo_sink_t *self, dlq_mongo_names_t *out)
{
    mongoc_collection_t *streams = mongoc_database_get_collection (self->db, DLQ_MONGO_STREAMS_COLLECTION);
    bson_t *filter = bson_new ();
    bson_t *opts = BCON_NEW ("projection", "{", "c", BCON_INT32 (1), "}");
    mongoc_cursor_t *cursor = mongoc_collection_find_with_opts (streams, filter, opts, NULL);
    const bson_t *doc;
    while (mongoc_cursor_next (cursor, &doc)) {
        uint32_t len = 0;
        const char *c = dlq_mongo_utf8_of (doc, "c", &len);
        if (c && len > 0 && len <= DLQ_MONGO_COLLECTION_MAX)
            add_name (out, c);
    }
    bson_error_t error;
    dlq_sink_status_t status = mongoc_cursor_error (cursor, &error)
                             ? dlq_mongo_fail (self, DLQ_MONGO_STREAMS_COLLECTION, &error) : DLQ_SINK_STATUS_OK;
    mongoc_cursor_destroy (cursor);
    bson_destroy (opts);
    bson_destroy (filter);
    mongoc_collection_destroy (streams);
    return status;
}

dlq_sink_status_t
dlq_mongo_collections_of (dlq_mongo_sink_t *self, const char *stream, dlq_mongo_names_t *out)
{
    memset (out, 0, sizeof *out);
    if (!stream) {
        dlq_sink_status_t status = registered (self, out);
        if (status != DLQ_SINK_STATUS_OK)
            dlq_mongo_names_free (out);
        return status;
    }
    const dlq_mongo_route_t *route = dlq_mongo_collections_route (self->collections, stream);
    if (route->valid)
        add_name (out, route->collection);
    return DLQ_SINK_STATUS_OK;
}

void
dlq_mongo_names_free (dlq_mongo_names_t *names)
{
    for (size_t i = 0; i < names->count; i++)
        free (names->names [i]);
    free (names->names);
    memset (names, 0, sizeof *names);
}

bool
dlq_mongo_scope_open (dlq_mongo_sink_t *self, const char *filter_json, int64_t now_ms, dlq_mongo_scope_t *scope,
                      dlq_sink_status_t *status)
{
    char why [DLQ_MONGO_ERR_LEN];
    scope->filter = (dlq_event_filter_t) DLQ_EVENT_FILTER_INIT;
    if (!dlq_event_filter_from_json (filter_json, &scope->filter, why, sizeof why)) {
        *status = dlq_mongo_fail_text (self, "filter %s", why);
        return false;
    }
    *status = dlq_mongo_collections_of (self, scope->filter.stream, &scope->names);
    if (*status != DLQ_SINK_STATUS_OK) {
        dlq_event_filter_free (&scope->filter);
        return false;
    }
    dlq_mongo_filter_query (&scope->filter, now_ms, &scope->query);
    return true;
}

void
dlq_mongo_scope_free (dlq_mongo_scope_t *scope)
{
    bson_destroy (&scope->query);
    dlq_mongo_names_free (&scope->names);
    dlq_event_filter_free (&scope->filter);
}
