/*  event_filter — which stored events a query (LIST, COUNT, GROUPS,
 *  REPLAY) is about: the filters of the failure workbench, read from a
 *  request body, and what they mean, as a pure reference predicate.
 *
 *  Request members (all optional, combined with AND):
 *      streamName        the stream (absent: every stream)
 *      status            FailedEvent.status, exactly ("PENDING", "DLQ", ...)
 *      errorType         error.type, exactly
 *      fingerprint       the error fingerprint (fingerprint.h), 16 hex digits
 *      createdAfter      createdAt >= this ISO-8601 instant
 *      createdBefore     createdAt <  this ISO-8601 instant
 *      attemptsMin       attempts >= n
 *      attemptsMax       attempts <= n
 *      metadata          {"key": value, ...}: metadata.key equals value (a
 *                        string, a number compared as a number, true,
 *                        false); every pair must hold
 *      messageContains   error.message contains this text, ASCII letters
 *                        compared without case
 *  A member of the wrong type or out of range is INVALID_REQUEST naming
 *  it; unknown members are left to the caller (LIST also has limit and
 *  cursor).
 *
 *  Stores answer filters with their own indexed queries; the predicate
 *  here is what those queries must agree with (the tests check them
 *  against it), and a fallback for a store that has none.
 */
#ifndef DLQ_EVENT_FILTER_H
#define DLQ_EVENT_FILTER_H

#include "dlq_code.h"
#include "dlq_json.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DLQ_FILTER_METADATA_MAX 16
#define DLQ_FILTER_TEXT_MAX     1024        /* bytes of a string filter */

typedef struct {
    char                   *key;
    dlq_json_type_t         type;           /* STRING, NUMBER, TRUE or FALSE */
    char                   *text;           /* the string, or the number's source text */
    double                  number;
} dlq_filter_pair_t;

typedef struct {
    char              *stream;              /* NULL: not filtered (the same for each) */
    char              *status;
    char              *error_type;
    char              *fingerprint;
    char              *message_contains;
    bool               has_created_after, has_created_before;
    int64_t            created_after;       /* ms, inclusive */
    int64_t            created_before;      /* ms, exclusive */
    bool               has_attempts_min, has_attempts_max;
    int64_t            attempts_min, attempts_max;
    dlq_filter_pair_t  metadata [DLQ_FILTER_METADATA_MAX];
    size_t             metadata_count;
} dlq_event_filter_t;

#define DLQ_EVENT_FILTER_INIT { 0 }

/* Read the filter members of a request object into filter (which must be
 * empty: DLQ_EVENT_FILTER_INIT). DLQ_OK, or INVALID_REQUEST with err
 * naming the member; filter is then empty again. */
dlq_code_t dlq_event_filter_parse (const dlq_json_value_t *request, dlq_event_filter_t *filter, dlq_error_t *err);

/* Read filter_json (a JSON object of filter members, as
 * dlq_event_filter_to_json writes it and a store's workbench calls get it;
 * NULL or "" is "{}") into filter (empty). False with why in err (err_len
 * bytes: "not JSON", or the member and what is wrong with it); filter is
 * then empty. */
bool dlq_event_filter_from_json (const char *filter_json, dlq_event_filter_t *filter, char *err, size_t err_len);

/* Is this member name one of the filters? */
bool dlq_event_filter_is_member (const char *name, size_t len);

/* No filter at all (every event)? */
bool dlq_event_filter_is_empty (const dlq_event_filter_t *filter);

/* Does the event (its canonical body, and its fingerprint) match? */
bool dlq_event_filter_matches (const dlq_event_filter_t *filter, const char *json, size_t len,
                               const char *fingerprint);

/* Append filter as a JSON object of its request members ("{}" when
 * empty): what dlq_event_filter_parse reads back into the same filter
 * (a sink store's workbench calls take this form). Pure. */
void dlq_event_filter_to_json (const dlq_event_filter_t *filter, dlq_buf_t *out);

/* Free what filter holds; it is empty afterwards. */
void dlq_event_filter_free (dlq_event_filter_t *filter);

/* ASCII-case-insensitive substring search (the messageContains rule). */
bool dlq_event_filter_contains (const char *haystack, size_t len, const char *needle);

#endif
