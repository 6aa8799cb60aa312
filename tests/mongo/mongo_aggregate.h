/*  mongo_aggregate — the few aggregation stages the MongoDB test server
 *  runs, enough for mongoc_collection_count_documents ([{$match}, {$group:
 *  {_id: 1, n: {$sum: 1}}}]) and simple reads: $match, $sort, $skip,
 *  $limit, $project (as find's projection), $count, and $group by a
 *  constant or a field path with the accumulators of mongo_group.h. Any
 *  other stage or form is refused as NotImplemented.
 */
#ifndef DLQ_MONGO_AGGREGATE_H
#define DLQ_MONGO_AGGREGATE_H

#include "mongo_error.h"

#include <bson/bson.h>

#include <stdbool.h>
#include <stddef.h>

/* True when every stage of pipeline (a BSON array) can run here. */
bool mongo_aggregate_check (const bson_t *pipeline, mongo_error_t *err);

/* The filter of a leading $match stage of pipeline, as a static view in
 * *filter; false when it does not start with one. */
bool mongo_aggregate_leading_match (const bson_t *pipeline, bson_t *filter);

/* Run pipeline (checked) over docs (count documents, bson_malloc'd
 * array, both taken), from stage number first on; returns the output
 * documents (same ownership) and their number in *count_out. */
bson_t **mongo_aggregate_run (const bson_t *pipeline, size_t first, bson_t **docs, size_t count,
                              size_t *count_out);

#endif
