/*  ledger_store — the delivery ledger (core/delivery_ledger.h has the
 *  model) in the daemon's state file (state_store.h), whatever the primary:
 *
 *    sink_state(sink TEXT PRIMARY KEY, cursor, attempted, delivered, failed,
 *               redelivered INTEGER NOT NULL)
 *    deliveries(sink TEXT, seq INTEGER, state TEXT, attempts INTEGER,
 *               last_error TEXT, next_attempt_at INTEGER, updated_at INTEGER,
 *               id TEXT, stream_name TEXT, expires_at INTEGER, record BLOB,
 *               PRIMARY KEY (sink, seq))
 *
 *  A row carries its event's id, stream and expiry, so it is found by id or
 *  stream and swept once its event expired without asking any store; a
 *  FAILED row also keeps the event (its log record) until it is delivered
 *  or swept, so that a REDELIVER does not depend on the log or a store
 *  still holding it.
 *
 *  One writer: the indexer thread applies the dispatchers' updates
 *  (ledger_channel.h) with relaxed commits (synchronous NORMAL: a power cut
 *  may take the last ones back, and the log still holds what they covered),
 *  and a durable one whenever the log is about to let segments go. The
 *  others read, each on its own connection.
 */
#ifndef DLQ_LEDGER_STORE_H
#define DLQ_LEDGER_STORE_H

#include "delivery_ledger.h"
#include "dlq_buf.h"
#include "failed_event.h"
#include "state_store.h"
#include "store_result.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Apply count updates (each checked first: nothing is written when one is
 * unfit) in ONE transaction. A cursor or marker moves only forward, the
 * counters add, a row is upserted by (sink, seq). With durable, the
 * commit waits for the disk, and with it every relaxed commit before it;
 * count may then be 0. DLQ_STORE_ERROR (last error set) when nothing was
 * written. */
dlq_store_result_t dlq_ledger_store_apply (dlq_state_store_t *self, dlq_ledger_update_t *const *updates,
                                           size_t count, bool durable);

/* A sink's cursor, marker and counters (all zero for a sink never seen). */
dlq_store_result_t dlq_ledger_store_sink_state (dlq_state_store_t *self, const char *sink, dlq_sink_state_t *out);

/* Number of a sink's rows in state, or -1. */
int64_t dlq_ledger_store_count_state (dlq_state_store_t *self, const char *sink, dlq_delivery_state_t state);

/* Called once per row read (stream is NULL in it: see delivery_ledger.h). */
typedef void (dlq_ledger_row_fn) (const char *sink, const dlq_delivery_row_t *row, void *arg);

/* A sink's rows in state, in seq order, only those of events of stream
 * (NULL: all) and of event id (NULL: all). Returns how many, or -1. */
ssize_t dlq_ledger_store_rows_of_sink (dlq_state_store_t *self, const char *sink, dlq_delivery_state_t state,
                                       const char *stream, const char *id, dlq_ledger_row_fn *fn, void *arg);

/* Every sink's row for the event at seq, in sink name order. Returns how
 * many, or -1. */
ssize_t dlq_ledger_store_rows_of_seq (dlq_state_store_t *self, int64_t seq, dlq_ledger_row_fn *fn, void *arg);

/* The event a sink's row at seq keeps (the log record of a failed
 * delivery's event) into out (reset first); NOT_FOUND when it keeps none. */
dlq_store_result_t dlq_ledger_store_record (dlq_state_store_t *self, const char *sink, int64_t seq, dlq_buf_t *out);

/* The same event decoded (core/event_record.h; the caller destroys it),
 * or NULL when the row keeps none or it does not decode. */
dlq_event_t *dlq_ledger_store_failed_event (dlq_state_store_t *self, const char *sink, int64_t seq);

/* Delete at most max_rows rows of events that expired (expires_at <=
 * now_ms) in one transaction. Returns how many, or -1. */
int64_t dlq_ledger_store_sweep (dlq_state_store_t *self, int64_t now_ms, int max_rows);

#endif
