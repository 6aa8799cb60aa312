/*  mongo_store — the data of the MongoDB test server, in memory:
 *  databases, their collections, each collection's documents in insertion
 *  order and its index specifications.
 *
 *  Documents are kept as copies (bson_t) with _id unique per collection
 *  (a hash on _id, equal as MongoDB compares: 1, 1.0 and NumberLong(1)
 *  collide). Index specifications are recorded, not maintained: only the
 *  _id index constrains anything (no unique secondary index, no TTL
 *  expiry). A collection exists once something was inserted into it, it
 *  was created, or an index was made on it.
 *
 *  Thread-safe: every call holds one lock for its whole duration, so each
 *  is atomic; results are copies the caller owns.
 */
#ifndef DLQ_MONGO_STORE_H
#define DLQ_MONGO_STORE_H

#include "mongo_error.h"

#include <bson/bson.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct mongo_store mongo_store_t;

mongo_store_t *mongo_store_new (void);

/* Free every database; *self_p becomes NULL (NULL, *self_p NULL: no-op). */
void mongo_store_destroy (mongo_store_t **self_p);

/* Free an array of documents (or of strings, below) and the documents. */
void mongo_store_docs_free (bson_t **docs, size_t count);
void mongo_store_names_free (char **names, size_t count);

/* ------------------------------------------------------------------ */
/*  Documents                                                           */
/* ------------------------------------------------------------------ */

/* Add a copy of doc, which has an _id, to db.coll (created if missing).
 * False when a document with an equal _id is there already. */
bool mongo_store_insert (mongo_store_t *self, const char *db, const char *coll,
                         const bson_t *doc);

/* A query: documents matching filter (NULL: all; mongo_filter_check'ed),
 * ordered by sort (NULL: insertion order; mongo_sort_check'ed), the first
 * skip left out, at most limit (0: no limit). */
typedef struct {
    const bson_t *filter;
    const bson_t *sort;
    int64_t       skip;
    int64_t       limit;
} mongo_query_t;

/* Copies of what query selects in db.coll (none when it does not exist);
 * *count_out gets their number. Free with mongo_store_docs_free. */
bson_t **mongo_store_find (mongo_store_t *self, const char *db, const char *coll,
                           const mongo_query_t *query, size_t *count_out);

/* How many documents query selects. */
size_t mongo_store_count (mongo_store_t *self, const char *db, const char *coll,
                          const mongo_query_t *query);

/* Remove the documents matching filter (just_one: the first). Returns
 * how many were removed. */
size_t mongo_store_delete (mongo_store_t *self, const char *db, const char *coll,
                           const bson_t *filter, bool just_one);

/* Apply update (mongo_update_check'ed) to the documents matching filter
 * (multi false: the first). *matched and *modified get the counts. False,
 * err filled, when the update could not apply to a document (the ones
 * before it stay updated). */
bool mongo_store_update (mongo_store_t *self, const char *db, const char *coll,
                         const bson_t *filter, const bson_t *update, bool multi,
                         size_t *matched, size_t *modified, mongo_error_t *err);

/* What findAndModify does to the one document it takes: the first
 * matching filter in sort order (NULL: insertion order), removed, or
 * updated with update (mongo_update_check'ed). */
typedef struct {
    const bson_t *filter;
    const bson_t *sort;
    const bson_t *update;
    bool          remove;
} mongo_modify_t;

/* Find and modify one document of db.coll, atomically: *before gets it
 * as it was, *after as it became (NULL when removed), both NULL when none
 * matched (the caller destroys them). False, err filled and nothing
 * changed, when the update could not apply. Upserts are the caller's. */
bool mongo_store_find_and_modify (mongo_store_t *self, const char *db, const char *coll,
                                  const mongo_modify_t *modify, bson_t **before, bson_t **after,
                                  mongo_error_t *err);

/* ------------------------------------------------------------------ */
/*  Collections and databases                                           */
/* ------------------------------------------------------------------ */

bool mongo_store_has_collection (mongo_store_t *self, const char *db, const char *coll);

/* Create db.coll; false when it exists. */
bool mongo_store_create_collection (mongo_store_t *self, const char *db, const char *coll);

/* Drop db.coll with its documents and indexes; false when it does not exist. */
bool mongo_store_drop_collection (mongo_store_t *self, const char *db, const char *coll);

/* Drop every collection of db. */
void mongo_store_drop_database (mongo_store_t *self, const char *db);

/* The names of the collections of db, or of the databases holding one,
 * in creation order. Free with mongo_store_names_free. */
char **mongo_store_collection_names (mongo_store_t *self, const char *db, size_t *count_out);
char **mongo_store_database_names (mongo_store_t *self, size_t *count_out);

/* ------------------------------------------------------------------ */
/*  Indexes                                                             */
/* ------------------------------------------------------------------ */

typedef struct {
    bool   created_collection;  /* db.coll did not exist */
    size_t before;              /* indexes before, the _id index included */
    size_t after;
} mongo_index_result_t;

/* Record the index specs (each {v, key, name, options...}, validated by
 * the caller), creating db.coll if missing. A spec whose name and
 * options equal an existing one's is already there (not counted twice);
 * the same name with another key (IndexKeySpecsConflict) or other
 * options, or the same key under another name (IndexOptionsConflict),
 * fails the whole call, err filled, nothing recorded. */
bool mongo_store_create_indexes (mongo_store_t *self, const char *db, const char *coll,
                                 const bson_t *const *specs, size_t count,
                                 mongo_index_result_t *result, mongo_error_t *err);

/* Copies of the index specs of db.coll, the _id index first; NULL when
 * the collection does not exist. Free with mongo_store_docs_free. */
bson_t **mongo_store_indexes (mongo_store_t *self, const char *db, const char *coll,
                              size_t *count_out);

/* Drop the index called name ("*": every index but _id's). *before gets
 * the number of indexes there were. False, err filled, when db.coll does
 * not exist (NamespaceNotFound), there is no such index (IndexNotFound),
 * or name is "_id_" (InvalidOptions). */
bool mongo_store_drop_index (mongo_store_t *self, const char *db, const char *coll,
                             const char *name, size_t *before, mongo_error_t *err);

#endif
