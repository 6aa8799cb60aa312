/*  mongo_update — what an update ({update: ..., updates: [{q, u, upsert,
 *  multi}]}) does to a document.
 *
 *  u is either a replacement document (no field starting with '$'; the
 *  document keeps its _id) or a document of update operators on
 *  top-level fields: $set, $unset, $inc and, when an upsert inserts,
 *  $setOnInsert. Fields keep their place; new ones go last, in the order
 *  of the update. Dotted paths, other operators and pipelines are refused
 *  as NotImplemented; changing _id as MongoDB refuses it (ImmutableField).
 */
#ifndef DLQ_MONGO_UPDATE_H
#define DLQ_MONGO_UPDATE_H

#include "mongo_error.h"

#include <bson/bson.h>

#include <stdbool.h>

/* True when update is one this server applies. */
bool mongo_update_check (const bson_t *update, mongo_error_t *err);

/* True when update (checked) replaces the whole document. */
bool mongo_update_is_replacement (const bson_t *update);

/* A new document: doc under update (checked); inserting: the document of
 * an upsert (its $setOnInsert applies). NULL, err filled, when the update
 * cannot apply ($inc on a string, a new _id). */
bson_t *mongo_update_apply (const bson_t *update, const bson_t *doc, bool inserting,
                            mongo_error_t *err);

/* A new document: what an upsert of query starts from, its top-level
 * equality fields ({a: 1} and {a: {$eq: 1}}). */
bson_t *mongo_update_upsert_base (const bson_t *query);

#endif
