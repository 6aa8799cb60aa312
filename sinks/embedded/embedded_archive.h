/*  embedded_archive — the store's reads of events by seq, for the
 *  dispatchers when the log no longer holds an event (a data_dir from
 *  before the log, a retry or a REDELIVER of an event whose segment went),
 *  and GET's lookup of an event's seq. Any connection.
 */
#ifndef DLQ_EMBEDDED_ARCHIVE_H
#define DLQ_EMBEDDED_ARCHIVE_H

#include "embedded_store.h"
#include "failed_event.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The highest seq ever assigned (0 for an empty store), or -1 on error. */
int64_t dlq_embedded_last_seq (dlq_embedded_t *self);

/* The reads hand out a PARTIAL event: enough to route and deliver it;
 * the canonical body is in json. It is built from the columns of the stored
 * row, without parsing the body. Filled: id, stream_name, operation_type
 * (NULL when absent), status, error_type, document_key (extended JSON text,
 * NULL when absent), attempts, first_attempt_at (DLQ_TIME_NONE when
 * absent), created_at, expires_at (DLQ_TIME_NONE: kept forever), and json /
 * json_len (the stored body, byte for byte, NUL-terminated). Not filled:
 * full_document, resume_token, error_message, error_stack_trace and
 * metadata stay NULL, last_attempt_at is DLQ_TIME_NONE; decode json for
 * those. dlq_event_destroy frees it as usual.
 *
 * A row whose columns do not have the types the store writes (a damaged
 * file) fails the read with a message naming its seq. The body itself is
 * not checked. */

/* Called once per event read; the event moves to the callee (it destroys it). */
typedef void (dlq_spool_event_fn) (int64_t seq, dlq_event_t *event, void *arg);

/* Read up to limit events with seq > after in seq order, expired or not, as
 * partial events (above); returns how many (0: none), or -1 on error, in
 * which case none was handed out. */
ssize_t dlq_embedded_read_after (dlq_embedded_t *self, int64_t after, size_t limit,
                                 dlq_spool_event_fn *fn, void *arg);

/* Read the event with this seq as a partial event (above);
 * DLQ_STORE_NOT_FOUND once it was swept. */
dlq_store_result_t dlq_embedded_read_seq (dlq_embedded_t *self, int64_t seq, dlq_event_t **event_out);

/* Number of events with after < seq < below (a sink's backlog in the
 * store from before the spool), or -1. */
int64_t dlq_embedded_count_between (dlq_embedded_t *self, int64_t after, int64_t below);

/* The seq of the event id (expired or not); DLQ_STORE_NOT_FOUND when none. */
dlq_store_result_t dlq_embedded_seq_of (dlq_embedded_t *self, const char *id, int64_t *seq_out);

#endif
