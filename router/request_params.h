/*  request_params — reading the parameters of a query request body (a JSON
 *  object): unknown members refused by name, a limit in range, a UUID
 *  member. Shared by the query verbs and the replay verbs.
 */
#ifndef REQUEST_PARAMS_H
#define REQUEST_PARAMS_H

#include "dlq_code.h"
#include "dlq_json.h"
#include "dlq_uuid.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
