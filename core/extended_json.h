/*  extended_json — checks of the MongoDB extended JSON forms in BSON-valued
 *  fields, so that an event a BSON sink cannot convert is refused at the door
 *  instead of failing later, downstream, after it was acked.
 */
#ifndef DLQ_EXTENDED_JSON_H
#define DLQ_EXTENDED_JSON_H

#include "dlq_code.h"
#include "dlq_json.h"

/* Check every object inside v whose first key is one of the extended JSON v2
 * type wrappers ($oid, $date, $numberLong, $numberInt, $numberDouble,
 * $numberDecimal, $binary, $uuid, $timestamp, $regularExpression, $minKey,
 * $maxKey): it must have exactly the shape the spec gives. path names v in
 * error messages ("documentKey"). Returns DLQ_OK or DLQ_ERR_INVALID_EVENT
 * with err->field set to the path of the bad wrapper. Pure. */
dlq_code_t dlq_extjson_check (const dlq_json_value_t *v, const char *path, dlq_error_t *err);

#endif
