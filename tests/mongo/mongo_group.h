/*  mongo_group — the $group stage of the MongoDB test server's aggregate.
 *
 *  _id is a constant (every document in one group) or a field path
 *  ("$error.type": one group per value; a missing field groups as null;
 *  1, 1.0 and NumberLong(1) are one group, as MongoDB compares). The
 *  other fields are accumulators {name: {$op: <expression>}}, the
 *  expression a field path or a constant:
 *      $sum        the numbers' sum (others ignored): int when every one is
 *                  an int and it fits, long when they are integers,
 *                  double otherwise; a constant n counts n per document
 *      $min $max   the least / greatest value in BSON order, missing and
 *                  null ignored (null when there is none)
 *      $first $last  the value of the group's first / last document (null
 *                  when missing there)
 *      $push       every value, in order; $addToSet the distinct ones, in
 *                  order of first appearance (missing values left out)
 *  Groups come out in the order their first document came in. A field
 *  path goes through documents only (behind an array the value is
 *  missing: MongoDB would map the path over the array). A composite _id ({a: "$a", ...}), other
 *  accumulators ($avg, $count, ...) and expression operators are refused
 *  as NotImplemented.
 */
#ifndef DLQ_MONGO_GROUP_H
#define DLQ_MONGO_GROUP_H

#include "mongo_error.h"

#include <bson/bson.h>

#include <stdbool.h>
#include <stddef.h>

/* True when group (the stage's argument) can run here. */
bool mongo_group_check (const bson_t *group, mongo_error_t *err);

/* The groups of docs (count documents, left as they are) under group
 * (checked): a bson_malloc'd array of new documents, their number in
 * *count_out (none for no documents). */
bson_t **mongo_group_run (const bson_t *group, bson_t *const *docs, size_t count, size_t *count_out);

#endif
