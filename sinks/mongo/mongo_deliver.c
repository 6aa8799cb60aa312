/*  mongo_deliver — deliver of the mongo sink: each collection's events in
 *  one unordered bulk insert, then their entries in _fw_dlq_index.
 *
 *  Per event: inserted, or already there (duplicate key 11000 on _id: the
 *  sink is idempotent) → OK; a write error with a transient code → RETRY;
 *  any other write error (document validation 121, ...) → FAIL for that
 *  event alone, with the server's words. A command or network error (no
 *  per-document answer: connection lost, "not primary", timeout) → RETRY
 *  for every event of the bulk: what the server took is found again as a
 *  duplicate next time. An event is OK only once its index entry is in
 *  too (GET finds events through it).
 */
#include "mongo_sink.h"

#include "dlq_alloc.h"
#include "mongo_doc.h"
#include "sink_outcome.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One bulk: which event each insert is. */
typedef struct {
    size_t *event;                  /* insert k -> event index */
    size_t  count;
} bulk_map_t;

/* Every insert of the bulk: result, because of why. */
static void
settle_all (const bulk_map_t *map, dlq_sink_outcome_t *outcomes, dlq_sink_result_t result, const char *why)
{
    for (size_t k = 0; k < map->count; k++)
        dlq_sink_outcome_set (&outcomes [map->event [k]], result, "%s", why);
}

/* Apply the writeErrors of a bulk reply; returns how many there were
 * (mongoc's reply always has the array, empty after a command error). */
static size_t
apply_write_errors (const bson_t *reply, const bulk_map_t *map, dlq_sink_outcome_t *outcomes)
{
    bson_iter_t it, errors;
    size_t count = 0;
    if (!bson_iter_init_find (&it, reply, "writeErrors") || !BSON_ITER_HOLDS_ARRAY (&it)
        || !bson_iter_recurse (&it, &errors))
        return 0;
    while (bson_iter_next (&errors)) {
        count++;
        bson_iter_t e;
        if (!BSON_ITER_HOLDS_DOCUMENT (&errors) || !bson_iter_recurse (&errors, &e))
            continue;
        int64_t index = -1;
        int32_t code = 0;
        const char *message = "";
        while (bson_iter_next (&e)) {
            const char *key = bson_iter_key (&e);
            if (strcmp (key, "index") == 0)
                index = bson_iter_as_int64 (&e);
            else if (strcmp (key, "code") == 0)
                code = (int32_t) bson_iter_as_int64 (&e);
            else if (strcmp (key, "errmsg") == 0 && BSON_ITER_HOLDS_UTF8 (&e))
                message = bson_iter_utf8 (&e, NULL);
        }
        if (index < 0 || (size_t) index >= map->count || code == DLQ_MONGO_DUPLICATE_KEY)
            continue;                               /* already stored: OK */
        dlq_sink_result_t result = dlq_mongo_code_is_transient (code) ? DLQ_SINK_RETRY : DLQ_SINK_FAIL;
        dlq_sink_outcome_set (&outcomes [map->event [index]], result, "write error %d: %s", code, message);
    }
    return count;
}

/* Execute bulk over map: outcomes of its events (OK unless said). */
static void
execute (mongoc_bulk_operation_t *bulk, const char *what, const bulk_map_t *map, dlq_sink_outcome_t *outcomes)
{
    bson_t reply;
    bson_error_t error;
    uint32_t ok = mongoc_bulk_operation_execute (bulk, &reply, &error);
    if (!ok && apply_write_errors (&reply, map, outcomes) == 0) {
        char why [DLQ_MONGO_ERR_LEN];
        snprintf (why, sizeof why, "%.40s: %.190s", what, error.message);
        settle_all (map, outcomes, DLQ_SINK_RETRY, why);     /* no per-document answer */
    }
    else if (!ok) {
        bson_iter_t it;     /* write errors read; a write concern error makes the rest uncertain */
        if (bson_iter_init_find (&it, &reply, "writeConcernErrors") && bson_iter_type (&it) == BSON_TYPE_ARRAY) {
            char why [DLQ_MONGO_ERR_LEN];
            snprintf (why, sizeof why, "%.40s: write concern: %.160s", what, error.message);
            for (size_t k = 0; k < map->count; k++)
                if (outcomes [map->event [k]].result == DLQ_SINK_OK)
                    dlq_sink_outcome_set (&outcomes [map->event [k]], DLQ_SINK_RETRY, "%s", why);
        }
    }
    bson_destroy (&reply);
}

static mongoc_bulk_operation_t *
unordered_bulk (mongoc_collection_t *collection)
{
    bson_t *opts = BCON_NEW ("ordered", BCON_BOOL (false));
    mongoc_bulk_operation_t *bulk = mongoc_collection_create_bulk_operation_with_opts (collection, opts);
    bson_destroy (opts);
    return bulk;
}

/* Insert the events of map (all of one collection) there. */
static void
insert_events (dlq_mongo_sink_t *self, const char *collection_name, const dlq_sink_event_t *events,
               bulk_map_t *map, dlq_sink_outcome_t *outcomes)
{
    mongoc_collection_t *collection = mongoc_database_get_collection (self->db, collection_name);
    mongoc_bulk_operation_t *bulk = unordered_bulk (collection);
    bulk_map_t inserted = { .event = dlq_calloc (map->count + 1, sizeof (size_t)), .count = 0 };
    for (size_t k = 0; k < map->count; k++) {
        size_t i = map->event [k];
        bson_t doc;
        char err [DLQ_MONGO_ERR_LEN] = "";
        bson_error_t error;
        if (!dlq_mongo_event_doc (&events [i], &doc, err, sizeof err))
            dlq_sink_outcome_set (&outcomes [i], DLQ_SINK_FAIL, "%s", err);
        else if (!mongoc_bulk_operation_insert_with_opts (bulk, &doc, NULL, &error))
            dlq_sink_outcome_set (&outcomes [i], DLQ_SINK_FAIL, "%s", error.message);
        else
            inserted.event [inserted.count++] = i;
        bson_destroy (&doc);
    }
    if (inserted.count)
        execute (bulk, collection_name, &inserted, outcomes);
    mongoc_bulk_operation_destroy (bulk);
    mongoc_collection_destroy (collection);
    free (inserted.event);
}

/* The index entries of map's events that are OK so far. */
static void
index_events (dlq_mongo_sink_t *self, const char *collection_name, const dlq_sink_event_t *events,
              const bulk_map_t *map, dlq_sink_outcome_t *outcomes)
{
    mongoc_collection_t *index = mongoc_database_get_collection (self->db, DLQ_MONGO_INDEX_COLLECTION);
    mongoc_bulk_operation_t *bulk = unordered_bulk (index);
    bulk_map_t entries = { .event = dlq_calloc (map->count + 1, sizeof (size_t)), .count = 0 };
    for (size_t k = 0; k < map->count; k++) {
        size_t i = map->event [k];
        if (outcomes [i].result != DLQ_SINK_OK)
            continue;
        bson_t doc;
        dlq_mongo_index_doc (&events [i], collection_name, &doc);
        mongoc_bulk_operation_insert_with_opts (bulk, &doc, NULL, NULL);
        entries.event [entries.count++] = i;
        bson_destroy (&doc);
    }
    if (entries.count)
        execute (bulk, DLQ_MONGO_INDEX_COLLECTION, &entries, outcomes);
    mongoc_bulk_operation_destroy (bulk);
    mongoc_collection_destroy (index);
    free (entries.event);
}

/* The events of collection c among those not grouped yet (group [i] 0). */
static void
group_of (dlq_mongo_sink_t *self, const dlq_sink_event_t *events, size_t count, const char *c, char *grouped,
          bulk_map_t *map)
{
    map->count = 0;
    for (size_t i = 0; i < count; i++) {
        if (grouped [i])
            continue;
        const dlq_mongo_route_t *route = dlq_mongo_collections_route (self->collections, events [i].stream_name);
        if (strcmp (route->collection, c) == 0) {
            grouped [i] = 1;
            map->event [map->count++] = i;
        }
    }
}

/* Make the collections and stream entries of map's events ready: events
 * whose stream cannot be made ready are settled. False when the server
 * cannot be reached (the caller gives up on the rest: err says why). */
static bool
prepare (dlq_mongo_sink_t *self, const dlq_sink_event_t *events, bulk_map_t *map, dlq_sink_outcome_t *outcomes,
         char *err, size_t err_len)
{
    size_t kept = 0;
    const char *refused = NULL;             /* a stream the server refused, and why */
    char refused_why [DLQ_MONGO_ERR_LEN] = "";
    for (size_t k = 0; k < map->count; k++) {
        size_t i = map->event [k];
        const char *stream = events [i].stream_name;
        bool transient;
        if (refused && strcmp (refused, stream) == 0)
            dlq_sink_outcome_set (&outcomes [i], DLQ_SINK_FAIL, "%s", refused_why);
        else if (dlq_mongo_collections_ready (self->collections, self->db, stream, &transient, err, err_len))
            map->event [kept++] = i;
        else if (transient)
            return false;
        else {
            refused = stream;
            snprintf (refused_why, sizeof refused_why, "%s", err);
            dlq_sink_outcome_set (&outcomes [i], DLQ_SINK_FAIL, "%s", err);
        }
    }
    map->count = kept;
    return true;
}

/* Every event not settled yet (not grouped yet, or in map with no
 * outcome) RETRY. */
static void
retry_rest (const bulk_map_t *map, const char *grouped, size_t count, dlq_sink_outcome_t *outcomes, const char *why)
{
    for (size_t k = 0; k < map->count; k++)
        if (outcomes [map->event [k]].result == DLQ_SINK_OK)
            dlq_sink_outcome_set (&outcomes [map->event [k]], DLQ_SINK_RETRY, "%s", why);
    for (size_t i = 0; i < count; i++)
        if (!grouped [i])
            dlq_sink_outcome_set (&outcomes [i], DLQ_SINK_RETRY, "%s", why);
}

void
dlq_mongo_sink_deliver (void *instance, const dlq_sink_event_t *events, size_t count,
                        dlq_sink_outcome_t *outcomes, int64_t deadline_mono_ms)
{
    (void) deadline_mono_ms;        /* socketTimeoutMS bounds each operation */
    dlq_mongo_sink_t *self = instance;
    char *grouped = dlq_calloc (count, 1);
    bulk_map_t map = { .event = dlq_calloc (count, sizeof (size_t)), .count = 0 };
    for (size_t i = 0; i < count; i++) {
        const dlq_mongo_route_t *route = dlq_mongo_collections_route (self->collections, events [i].stream_name);
        if (!route->valid) {
            grouped [i] = 1;
            dlq_sink_outcome_set (&outcomes [i], DLQ_SINK_FAIL, "stream %s: no collection can be named after it"
                                  " (set the stream's collection)", events [i].stream_name);
        }
    }
    for (size_t i = 0; i < count; i++) {
        if (grouped [i])
            continue;
        char collection [DLQ_MONGO_COLLECTION_MAX + 1];
        snprintf (collection, sizeof collection, "%s",
                  dlq_mongo_collections_route (self->collections, events [i].stream_name)->collection);
        group_of (self, events, count, collection, grouped, &map);
        char err [DLQ_MONGO_ERR_LEN];
        if (!prepare (self, events, &map, outcomes, err, sizeof err)) {
            retry_rest (&map, grouped, count, outcomes, err);   /* the server is out of reach */
            break;
        }
        if (!map.count)
            continue;
        insert_events (self, collection, events, &map, outcomes);
        index_events (self, collection, events, &map, outcomes);
    }
    free (map.event);
    free (grouped);
}
