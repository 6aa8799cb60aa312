/*  mongo_groups — GROUPS by aggregate per collection, merged here; see
 *  mongo_groups.h.
 */
#include "mongo_groups.h"

#include "dlq_alloc.h"
#include "dlq_buf.h"
#include "dlq_json.h"
#include "dlq_strmap.h"
#include "dlq_time.h"
#include "fingerprint.h"
#include "mongo_lookup.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NULL_GROUP "null"           /* the map's key of the group without a fingerprint */

/* One fingerprint's group, merged over the collections. */
typedef struct {
    char             *fingerprint;  /* NULL: documents without one */
    int64_t           count, first, last;
    dlq_mongo_names_t streams;
    char             *error_type;   /* the sample's; NULL when it has none */
    char             *message;
    char             *sample_id;
} group_t;

typedef struct {
    group_t      **groups;
    size_t         count;
    dlq_strmap_t  *by_fingerprint;  /* fingerprint or NULL_GROUP -> group */
} groups_t;

static void
groups_free (groups_t *g)
{
    for (size_t i = 0; i < g->count; i++) {
        group_t *x = g->groups [i];
        free (x->fingerprint);
        dlq_mongo_names_free (&x->streams);
        free (x->error_type);
        free (x->message);
        free (x->sample_id);
        free (x);
    }
    free (g->groups);
    dlq_strmap_destroy (&g->by_fingerprint);
}

static char *
text_of (const bson_t *doc, const char *key)
{
    uint32_t len = 0;
    const char *s = dlq_mongo_utf8_of (doc, key, &len);
    return s ? dlq_strndup (s, len) : NULL;
}

static int64_t
date_or (const bson_t *doc, const char *key, int64_t otherwise)
{
    bson_iter_t it;
    return bson_iter_init_find (&it, doc, key) && BSON_ITER_HOLDS_DATE_TIME (&it) ? bson_iter_date_time (&it)
                                                                                   : otherwise;
}

/* The group of an aggregate's answer (made, with its sample, when new). */
static group_t *
group_for (groups_t *g, const bson_t *answer)
{
    char *fingerprint = text_of (answer, "_id");
    group_t *x = dlq_strmap_get (g->by_fingerprint, fingerprint ? fingerprint : NULL_GROUP);
    if (x) {
        free (fingerprint);
        return x;
    }
    x = dlq_calloc (1, sizeof *x);
    x->fingerprint = fingerprint;
    x->first = INT64_MAX;
    x->last = INT64_MIN;
    x->error_type = text_of (answer, "errorType");
    x->message = text_of (answer, "message");
    x->sample_id = text_of (answer, "sampleId");
    g->groups = dlq_realloc (g->groups, (g->count + 1) * sizeof *g->groups);
    g->groups [g->count++] = x;
    dlq_strmap_put (g->by_fingerprint, fingerprint ? fingerprint : NULL_GROUP, x);
    return x;
}

/* Merge one group of one collection. */
static void
merge (groups_t *g, const bson_t *answer)
{
    group_t *x = group_for (g, answer);
    bson_iter_t it, streams;
    if (bson_iter_init_find (&it, answer, "n") && BSON_ITER_HOLDS_NUMBER (&it))
        x->count += bson_iter_as_int64 (&it);
    int64_t first = date_or (answer, "first", INT64_MAX), last = date_or (answer, "last", INT64_MIN);
    x->first = first < x->first ? first : x->first;
    x->last = last > x->last ? last : x->last;
    if (!bson_iter_init_find (&it, answer, "streams") || !BSON_ITER_HOLDS_ARRAY (&it)
        || !bson_iter_recurse (&it, &streams))
        return;
    while (bson_iter_next (&streams)) {
        if (!BSON_ITER_HOLDS_UTF8 (&streams))
            continue;
        const char *name = bson_iter_utf8 (&streams, NULL);
        bool known = false;
        for (size_t i = 0; i < x->streams.count && !known; i++)
            known = strcmp (x->streams.names [i], name) == 0;
        if (!known) {
            x->streams.names = dlq_realloc (x->streams.names, (x->streams.count + 1) * sizeof (char *));
            x->streams.names [x->streams.count++] = dlq_strdup (name);
        }
    }
}

static bson_t *
pipeline_of (const bson_t *query)
{
    return BCON_NEW ("pipeline", "[",
                         "{", "$match", BCON_DOCUMENT (query), "}",
                         "{", "$group", "{",
                             "_id", BCON_UTF8 ("$" DLQ_MONGO_FINGERPRINT_FIELD),
                             "n", "{", "$sum", BCON_INT32 (1), "}",
                             "first", "{", "$min", BCON_UTF8 ("$createdAt"), "}",
                             "last", "{", "$max", BCON_UTF8 ("$createdAt"), "}",
                             "streams", "{", "$addToSet", BCON_UTF8 ("$streamName"), "}",
                             "errorType", "{", "$first", BCON_UTF8 ("$error.type"), "}",
                             "message", "{", "$first", BCON_UTF8 ("$error.message"), "}",
                             "sampleId", "{", "$first", BCON_UTF8 ("$_id"), "}",
                         "}", "}",
                     "]");
}

/* The groups of query in one collection, merged into g. */
static dlq_sink_status_t
aggregate (dlq_mongo_sink_t *self, const char *name, const bson_t *pipeline, groups_t *g)
{
    mongoc_collection_t *collection = mongoc_database_get_collection (self->db, name);
    mongoc_cursor_t *cursor = mongoc_collection_aggregate (collection, MONGOC_QUERY_NONE, pipeline, NULL, NULL);
    const bson_t *answer;
    while (mongoc_cursor_next (cursor, &answer))
        merge (g, answer);
    bson_error_t error;
    dlq_sink_status_t status = mongoc_cursor_error (cursor, &error) ? dlq_mongo_fail (self, name, &error)
                             : DLQ_SINK_STATUS_OK;
    mongoc_cursor_destroy (cursor);
    mongoc_collection_destroy (collection);
    return status;
}

/* Most events first, then the most recently seen. */
static int
most_first (const void *a, const void *b)
{
    const group_t *x = *(group_t *const *) a, *y = *(group_t *const *) b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return (x->last < y->last) - (x->last > y->last);
}

static void
put_text (dlq_buf_t *out, const char *name, const char *text)
{
    dlq_buf_printf (out, ",\"%s\":", name);
    if (text)
        dlq_json_write_string (out, text, strlen (text));
    else
        dlq_buf_puts (out, "null");
}

static void
put_time (dlq_buf_t *out, const char *name, int64_t ms)
{
    char iso [DLQ_TIME_ISO_LEN + 1] = "";
    dlq_time_format_iso (ms, iso);
    dlq_buf_printf (out, ",\"%s\":\"%s\"", name, iso);
}

static void
write_group (dlq_buf_t *out, const group_t *x)
{
    dlq_buf_puts (out, "{\"fingerprint\":");
    if (x->fingerprint)
        dlq_json_write_string (out, x->fingerprint, strlen (x->fingerprint));
    else
        dlq_buf_puts (out, "null");
    dlq_buf_printf (out, ",\"count\":%lld", (long long) x->count);
    put_time (out, "firstSeen", x->first);
    put_time (out, "lastSeen", x->last);
    dlq_buf_puts (out, ",\"streams\":[");
    for (size_t i = 0; i < x->streams.count; i++) {
        dlq_buf_puts (out, i ? "," : "");
        dlq_json_write_string (out, x->streams.names [i], strlen (x->streams.names [i]));
    }
    dlq_buf_putc (out, ']');
    put_text (out, "errorType", x->error_type);
    dlq_buf_t normalised = DLQ_BUF_INIT;
    if (x->message)
        dlq_fingerprint_normalise_message (x->message, strlen (x->message), &normalised);
    put_text (out, "message", normalised.data ? normalised.data : "");
    dlq_buf_free (&normalised);
    put_text (out, "sampleId", x->sample_id);
    dlq_buf_putc (out, '}');
}

static void
write_groups (dlq_mongo_sink_t *self, groups_t *g, size_t limit, dlq_sink_buf_t *groups_out)
{
    if (g->count)
        qsort (g->groups, g->count, sizeof *g->groups, most_first);
    dlq_buf_t json = DLQ_BUF_INIT;
    dlq_buf_putc (&json, '[');
    for (size_t i = 0; i < g->count && i < limit; i++) {
        if (i)
            dlq_buf_putc (&json, ',');
        write_group (&json, g->groups [i]);
    }
    dlq_buf_putc (&json, ']');
    self->host->append (groups_out, json.data, json.len);
    dlq_buf_free (&json);
}

dlq_sink_status_t
dlq_mongo_query_groups (void *instance, const char *filter_json, size_t limit, int64_t now_ms,
                        dlq_sink_buf_t *groups_out)
{
    dlq_mongo_sink_t *self = instance;
    dlq_mongo_scope_t scope;
    dlq_sink_status_t status;
    if (!dlq_mongo_scope_open (self, filter_json, now_ms, &scope, &status))
        return status;
    bson_t *pipeline = pipeline_of (&scope.query);
    groups_t g = { .by_fingerprint = dlq_strmap_new (NULL) };
    for (size_t i = 0; i < scope.names.count && status == DLQ_SINK_STATUS_OK; i++)
        status = aggregate (self, scope.names.names [i], pipeline, &g);
    if (status == DLQ_SINK_STATUS_OK)
        write_groups (self, &g, limit, groups_out);
    groups_free (&g);
    bson_destroy (pipeline);
    dlq_mongo_scope_free (&scope);
    return status;
}
