/*  pg_checkpoint — the workers' stream positions (FlowWarden's
 *  CheckpointStore contract) in the postgres sink's table
 *  "<table>_checkpoints" (version 3): write, get, list and remove of
 *  dlq_sink_checkpoint_ops_t (dlq_sink.h), and that ops table.
 *
 *      write   one INSERT ... ON CONFLICT (stream_name) DO UPDATE ...
 *              RETURNING (pg_ckpt_sql.h): SAVE replaces every column,
 *              SEEN / PROCESSED set only their token, its timestamp and
 *              updated_at (= the caller's now_ms), with no read first, so
 *              two writers of one stream never undo each other; committed
 *              (durable) when it returns
 *      get     one SELECT; NOT_FOUND when there is no record
 *      list    one SELECT of up to limit + 1 rows in byte order of the
 *              name; the cursor is the name of the page's last record, a
 *              name that cannot be one (not UTF-8, longer than a
 *              streamName) is BAD_CURSOR
 *      remove  one DELETE ... RETURNING: deleted when a row came back
 *  A record is answered as dlq_checkpoint_format (core) writes it, from
 *  the texts the write was given (tokens and metadata byte for byte) and
 *  the timestamps to the millisecond.
 */
#ifndef DLQ_PG_CHECKPOINT_H
#define DLQ_PG_CHECKPOINT_H

#include "dlq_sink.h"

/* The checkpoint calls of the ABI. */
extern const dlq_sink_checkpoint_ops_t dlq_pg_checkpoint_ops;

#endif
