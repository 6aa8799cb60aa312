/*  spool_ledger — per-sink delivery state (core/delivery_ledger.h has the
 *  model) in the embedded store (schema v2), and the store's reads of
 *  events by seq that the dispatchers use.
 *
 *    sink_state(sink TEXT PRIMARY KEY, cursor INTEGER, attempted INTEGER,
 *               delivered INTEGER, failed INTEGER, redelivered INTEGER)
 *    deliveries(sink TEXT, seq INTEGER, state TEXT, attempts INTEGER,
 *               last_error TEXT, next_attempt_at INTEGER, updated_at INTEGER,
 *               PRIMARY KEY (sink, seq))
 *
 *  Writes happen only on the writer connection, inside a commit of its
 *  (dlq_embedded_commit, and the indexer's dlq_embedded_index), so ledger
 *  changes ride the transaction of the next page of events. Reads work on
 *  any connection.
 */
#ifndef DLQ_SPOOL_LEDGER_H
#define DLQ_SPOOL_LEDGER_H

#include "delivery_ledger.h"
#include "embedded_checkpoints.h"
#include "embedded_store.h"
#include "failed_event.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Writer: in ONE transaction, append count events (as dlq_embedded_append
 * does, duplicate[] likewise; count may be 0) and apply update_count ledger
 * updates; then commit (durable on return). *last_seq_out (may be NULL)
 * receives the highest seq in the store after the commit. On
 * DLQ_STORE_ERROR nothing of either is stored. */
dlq_store_result_t dlq_embedded_commit (dlq_embedded_t *self, dlq_event_t *const *events,
                                        size_t count, bool *duplicate,
                                        dlq_ledger_update_t *const *updates, size_t update_count,
                                        int64_t *last_seq_out, char *err, size_t err_len);

/* The same, with count checkpoint writes (embedded_checkpoints.h) applied
 * in the same transaction, after the events and ledger updates, in order;
 * each write's reply is filled in. On DLQ_STORE_ERROR nothing is stored
 * (replies are then meaningless). */
dlq_store_result_t dlq_embedded_commit_all (dlq_embedded_t *self, dlq_event_t *const *events,
                                            size_t count, bool *duplicate,
                                            dlq_ledger_update_t *const *updates, size_t update_count,
                                            dlq_ckpt_write_t *ckpts, size_t ckpt_count,
                                            int64_t *last_seq_out, char *err, size_t err_len);

/* The highest seq ever assigned (0 for an empty store), or -1 on error. */
int64_t dlq_embedded_last_seq (dlq_embedded_t *self);

/* A sink's cursor, marker and counters (all zero for a sink never seen). */
dlq_store_result_t dlq_embedded_sink_state (dlq_embedded_t *self, const char *sink,
                                            dlq_sink_state_t *out);

/* The spool reads hand out a PARTIAL event: enough to route and deliver it;
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

/* Number of a sink's rows in state, or -1. */
int64_t dlq_embedded_count_state (dlq_embedded_t *self, const char *sink, dlq_delivery_state_t state);

/* Called once per row read. */
typedef void (dlq_delivery_row_fn) (const char *sink, const dlq_delivery_row_t *row, void *arg);

/* A sink's rows in state (e.g. every RETRYING row, to rebuild the retry
 * queue at start), in seq order, optionally only those of events of stream
 * (NULL: all) or of the event id (NULL: all). Returns how many, or -1. */
ssize_t dlq_embedded_rows_of_sink (dlq_embedded_t *self, const char *sink, dlq_delivery_state_t state,
                                   const char *stream, const char *id,
                                   dlq_delivery_row_fn *fn, void *arg);

/* Every sink's row for the event seq (for GET). Returns how many, or -1. */
ssize_t dlq_embedded_rows_of_seq (dlq_embedded_t *self, int64_t seq, dlq_delivery_row_fn *fn, void *arg);

/* The seq of the event id (expired or not); DLQ_STORE_NOT_FOUND when none. */
dlq_store_result_t dlq_embedded_seq_of (dlq_embedded_t *self, const char *id, int64_t *seq_out);

#endif
