/*  embedded_checkpoints — the workers' stream positions (FlowWarden's
 *  CheckpointStore contract) in the spool file, schema version 6:
 *
 *      checkpoints(stream_name TEXT PRIMARY KEY, instance_id TEXT,
 *                  last_seen_token TEXT, last_seen_at INTEGER,
 *                  last_processed_token TEXT, last_processed_at INTEGER,
 *                  metadata TEXT, updated_at INTEGER NOT NULL) WITHOUT ROWID
 *
 *  Tokens and metadata are compact JSON text, times ms since the epoch.
 *  Writes are applied by the writer inside its commit transaction
 *  (dlq_embedded_index, embedded_index.h; dlq_embedded_commit_all,
 *  embedded_store.h). The daemon's checkpoint writes are durable in the spool
 *  first (core/checkpoint_record.h): the indexer applies each as a SAVE of
 *  the whole record as the write left it, or a DELETE. CKPT.SEEN and
 *  CKPT.PROCESSED as statements are each one upsert naming only their two
 *  columns (and updated_at): they never overwrite each other's fields.
 */
#ifndef DLQ_EMBEDDED_CHECKPOINTS_H
#define DLQ_EMBEDDED_CHECKPOINTS_H

#include "checkpoint_write.h"
#include "dlq_buf.h"
#include "dlq_sink.h"
#include "embedded_store.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The record of stream (its JSON, dlq_checkpoint_format) into out;
 * DLQ_STORE_NOT_FOUND when there is none. Every connection. */
dlq_store_result_t dlq_embedded_ckpt_get (dlq_embedded_t *self, const char *stream, dlq_buf_t *out);

/* Records whose name starts with prefix ("" : all), in byte order, after
 * cursor (a nextCursor of this call, NULL: from the first), at most limit:
 * records_out gets a JSON array, cursor_out the next page's cursor (left
 * empty on the last page). DLQ_STORE_BAD_CURSOR for a cursor that cannot
 * be a stream name (not UTF-8, over DLQ_CKPT_STREAM_MAX bytes). */
dlq_store_result_t dlq_embedded_ckpt_list (dlq_embedded_t *self, const char *prefix, size_t limit,
                                           const char *cursor, dlq_buf_t *records_out, dlq_buf_t *cursor_out);

/* Call fn with every record (valid during the call only), in no order;
 * how many, or -1 (the error in dlq_embedded_last_error). */
typedef void dlq_embedded_ckpt_fn (const dlq_sink_checkpoint_t *record, void *arg);
int64_t dlq_embedded_ckpt_each (dlq_embedded_t *self, dlq_embedded_ckpt_fn *fn, void *arg);

#endif
