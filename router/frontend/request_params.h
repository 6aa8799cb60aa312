/*  request_params — reading the body of every verb but PUT: one JSON
 *  object whose names are unique (in every object it holds), then its
 *  parameters: unknown members refused by name, a limit in range, a UUID
 *  member. Shared by the query, replay, checkpoint and gateway verbs.
 */
#ifndef DLQ_REQUEST_PARAMS_H
#define DLQ_REQUEST_PARAMS_H

#include "dlq_code.h"
#include "dlq_json.h"
#include "dlq_uuid.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Parse len bytes of a request body into *doc_p (caller destroys it).
 * An empty body (or only whitespace) is DLQ_OK with *doc_p NULL when
 * optional, else EMPTY_BODY; then INVALID_UTF8 or INVALID_JSON (with the
 * byte offset), INVALID_REQUEST when the value is not an object or when a
 * name repeats in any object of it (field: the member's path). On error
 * *doc_p is NULL. */
dlq_code_t dlq_params_parse_body (const void *data, size_t len, bool optional, dlq_json_doc_t **doc_p,
                                  dlq_error_t *err);

/* INVALID_REQUEST naming the first member of root (may be NULL: no body)
 * that is not in allowed (NULL-ended), or, with filters, not a filter
 * member (event_filter.h) either. */
dlq_code_t dlq_params_check (const dlq_json_value_t *root, const char *const *allowed, bool filters,
                             dlq_error_t *err);

/* Member name as an integer from min to max; default_value when absent. */
dlq_code_t dlq_params_int (const dlq_json_value_t *root, const char *name, int64_t default_value,
                           int64_t min, int64_t max, int64_t *out, dlq_error_t *err);

/* Member name as true or false; false when absent. */
dlq_code_t dlq_params_bool (const dlq_json_value_t *root, const char *name, bool *out, dlq_error_t *err);

/* Member name as a string of at most max bytes without NUL, copied into
 * *out (caller frees); *out NULL when absent or null. */
dlq_code_t dlq_params_string (const dlq_json_value_t *root, const char *name, size_t max, char **out,
                              dlq_error_t *err);

/* Member name as a UUID (lowercased into out); INVALID_REQUEST when absent
 * or not a UUID string. */
dlq_code_t dlq_params_uuid (const dlq_json_value_t *root, const char *name, char out [DLQ_UUID_LEN + 1],
                            dlq_error_t *err);

#endif
