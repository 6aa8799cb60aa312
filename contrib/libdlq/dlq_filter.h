/*  dlq_filter — which events a workbench query is about: the filter given
 *  to dlq_client_list_filtered(), dlq_client_count(), dlq_client_groups()
 *  and, in a dlq_client_selection_t, to the replay calls (dlq_client.h).
 */
#ifndef DLQ_FILTER_H
#define DLQ_FILTER_H

#include "dlq_result.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Which events a workbench query is about. Opaque. */
typedef struct dlq_client_filter dlq_client_filter_t;

/* A filter holds the members set so far; every member set must hold for
 * an event to match (AND). The gateway checks them when the filter is
 * used: the calls below only refuse what could not be sent at all
 * (ERR_ARGS: a NULL filter, key or value where one is needed, a number
 * that is not finite). Strings are copied. A filter is not tied to a
 * client: use it with any, and as often as you like; it is not
 * thread-safe to change one while another thread uses it. */

/* A new filter that matches every event (destroy it with
 * dlq_client_filter_destroy). */
DLQ_CLIENT_EXPORT dlq_client_filter_t *dlq_client_filter_new (void);

/* Free a filter. Accepts NULL; sets *self_p to NULL. */
DLQ_CLIENT_EXPORT void dlq_client_filter_destroy (dlq_client_filter_t **self_p);

/* Unset every member: the filter matches every event again. */
DLQ_CLIENT_EXPORT void dlq_client_filter_clear (dlq_client_filter_t *self);

/* Members with a text value; NULL unsets the member. Sent as is (the
 * gateway refuses "" and more than 1024 bytes):
 *   stream         streamName is this (unset: every stream)
 *   status         status is this, exactly ("PENDING", "DLQ", ...)
 *   error_type     error.type is this, exactly
 *   fingerprint    the error fingerprint is this: 16 lowercase hex digits,
 *                  as dlq_client_groups() reports them
 *   message_contains  error.message contains this text, ASCII letters
 *                  compared without case
 *   created_after  createdAt is at or after this ISO-8601 instant
 *                  ("2026-06-09T14:00:00Z", "2026-06-09T16:00:00+02:00")
 *   created_before createdAt is before this instant (exclusive) */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_filter_set_stream (dlq_client_filter_t *self,
                                                                    const char *stream_name);
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_filter_set_status (dlq_client_filter_t *self, const char *status);
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_filter_set_error_type (dlq_client_filter_t *self,
                                                                        const char *error_type);
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_filter_set_fingerprint (dlq_client_filter_t *self,
                                                                         const char *fingerprint);
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_filter_set_message_contains (dlq_client_filter_t *self,
                                                                              const char *text);
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_filter_set_created_after (dlq_client_filter_t *self,
                                                                           const char *iso_time);
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_filter_set_created_before (dlq_client_filter_t *self,
                                                                            const char *iso_time);

/* attempts is at least (min) or at most (max) this many; a negative
 * number unsets the member. */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_filter_set_attempts_min (dlq_client_filter_t *self, int attempts);
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_filter_set_attempts_max (dlq_client_filter_t *self, int attempts);

/* metadata.KEY equals value: a string, a number (compared as a number:
 * 3 matches 3.0; not finite is ERR_ARGS) or a boolean. key is a top-level
 * metadata key (the gateway refuses "" and keys with '.' or '"'); setting
 * a key again replaces its value, a NULL string value removes the key
 * (whatever its type). The gateway takes 16 keys at most.
 *
 * A setter that answers ERR_ARGS (a NULL key, a number not finite) marks
 * the filter refused: every call given it answers ERR_ARGS, nothing sent,
 * until dlq_client_filter_clear() — a query never runs without a member
 * it was meant to have. */
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_filter_set_metadata_string (dlq_client_filter_t *self,
                                                                             const char *key, const char *value);
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_filter_set_metadata_number (dlq_client_filter_t *self,
                                                                             const char *key, double value);
DLQ_CLIENT_EXPORT dlq_client_result_t dlq_client_filter_set_metadata_bool (dlq_client_filter_t *self,
                                                                           const char *key, bool value);

#ifdef __cplusplus
}
#endif

#endif
