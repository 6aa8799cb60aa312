/*  mongo_match — how the MongoDB test server compares values, matches
 *  query filters and orders documents, the way MongoDB does (no
 *  collation: strings compare bytewise).
 *
 *  Values compare in MongoDB's canonical type order: MinKey < null
 *  (= undefined = missing) < numbers < strings (= symbols) < objects <
 *  arrays < binary < ObjectId < booleans < dates < timestamps < regular
 *  expressions < DBPointer < code < code with scope < MaxKey; within a
 *  class by value (int32, int64, double and decimal128 numerically, NaN
 *  below every number; objects and arrays field by field: type class,
 *  then name, then value).
 *
 *  Filters: equality on top-level and dotted fields ({"a.b": 1}: through
 *  embedded documents and arrays of them; an array field matches a value
 *  equal to it or to one of its elements; null matches a missing field),
 *  $eq $ne $gt $gte $lt $lte (only within one type class, as MongoDB's
 *  type bracketing), $in $nin $exists $not, and $and $or $nor; $comment is
 *  ignored. Regular expressions ({a: /re/i}, {a: {$regex: "re", $options:
 *  "i"}}) match strings (mongo_regex.h says which). Anything else ($expr,
 *  $elemMatch, a regex in $in, ...) is refused as
 *  NotImplemented by mongo_filter_check, so a test never passes through a
 *  filter this server silently misreads.
 *
 *  Sort: {field: 1 | -1, ...}, dotted fields too; a missing field sorts as
 *  null, an array by its smallest element ascending, its largest
 *  descending.
 */
#ifndef DLQ_MONGO_MATCH_H
#define DLQ_MONGO_MATCH_H

#include "mongo_error.h"

#include <bson/bson.h>

#include <stdbool.h>
#include <stdint.h>

/* The class of a type in the canonical order (lower sorts first); null,
 * undefined and a missing value (BSON_TYPE_EOD) share one. */
int mongo_value_type_class (bson_type_t type);

/* <0, 0, >0 as a sorts before, with or after b. */
int mongo_value_compare (const bson_value_t *a, const bson_value_t *b);

/* mongo_value_compare (a, b) == 0. */
bool mongo_value_equal (const bson_value_t *a, const bson_value_t *b);

/* A hash equal for every two values mongo_value_equal calls equal (1,
 * 1.0 and NumberLong(1) hash alike). */
uint64_t mongo_value_hash (const bson_value_t *value);

/* True when filter (NULL or {}: everything) is one this server evaluates
 * as MongoDB would; else err says what is wrong (BadValue) or missing
 * (NotImplemented). */
bool mongo_filter_check (const bson_t *filter, mongo_error_t *err);

/* Whether doc matches filter (NULL: yes). filter must have passed
 * mongo_filter_check. */
bool mongo_filter_matches (const bson_t *filter, const bson_t *doc);

/* True when sort (NULL or {}: none) is {field: 1 | -1, ...}. */
bool mongo_sort_check (const bson_t *sort, mongo_error_t *err);

/* <0, 0, >0 as a sorts before, with or after b under sort (checked). */
int mongo_sort_compare (const bson_t *sort, const bson_t *a, const bson_t *b);

#endif
