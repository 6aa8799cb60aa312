/*  json_support — JSON a formatter wrote, parsed for a test: the members
 *  of an object a module appends without braces (dlq_counters_format,
 *  dlq_delivery_health_format, ...) checked to be one object with no
 *  member twice.
 */
#ifndef JSON_SUPPORT_H
#define JSON_SUPPORT_H

#include "dlq_buf.h"
#include "dlq_json.h"

/* "{" members "}" parsed; the test fails when that is not one JSON object
 * or a member name stands twice in it. Caller destroys the document. */
dlq_json_doc_t *json_members_parse (const dlq_buf_t *members);

#endif
