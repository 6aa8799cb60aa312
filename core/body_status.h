/*  body_status — the canonical body's top-level "status" member, rewritten
 *  when the workbench changes an event's status (pure): the postgres and
 *  mongo stores keep the body as text and rewrite it with this.
 *
 *  The stored text is what GET and LIST return byte for byte, so a status
 *  change must leave every other byte as it was: the value of the
 *  top-level "status" member is found by scanning the (validated) JSON
 *  text, at depth 1 only, so a "status" inside fullDocument, metadata or a
 *  string never matches, and only that value is replaced. A body whose
 *  status member cannot be found as written (a key spelled with escapes,
 *  or no status at all: never the case for a canonical body) is rewritten
 *  compactly with the member replaced, or added at the end.
 */
#ifndef DLQ_BODY_STATUS_H
#define DLQ_BODY_STATUS_H

#include "dlq_buf.h"

#include <stddef.h>

typedef enum {
    DLQ_BODY_STATUS_OK = 0,
    DLQ_BODY_STATUS_INVALID         /* not a JSON object: nothing written */
} dlq_body_status_result_t;

/* Append to out the len bytes of json with its top-level "status" member
 * set to the string status (NUL-terminated). */
dlq_body_status_result_t dlq_body_set_status (const char *json, size_t len, const char *status, dlq_buf_t *out);

#endif
