/*  mongo_projection — the projection of find (and $project): which fields
 *  of a document a reply carries.
 *
 *  Inclusion ({a: 1, b: true}: those fields and _id, unless {_id: 0}) and
 *  exclusion ({a: 0}: every field but those) of top-level fields, in the
 *  document's own field order. Dotted fields, expressions and the
 *  projection operators ($slice, $elemMatch, $meta) are refused as
 *  NotImplemented; mixing inclusion and exclusion as MongoDB refuses it.
 */
#ifndef DLQ_MONGO_PROJECTION_H
#define DLQ_MONGO_PROJECTION_H

#include "mongo_error.h"

#include <bson/bson.h>

#include <stdbool.h>

/* True when projection (NULL or {}: the whole document) can be applied. */
bool mongo_projection_check (const bson_t *projection, mongo_error_t *err);

/* A new document: doc under projection (checked). */
bson_t *mongo_projection_apply (const bson_t *projection, const bson_t *doc);

#endif
