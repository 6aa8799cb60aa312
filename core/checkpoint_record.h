/*  checkpoint_record — a checkpoint write as one record of the spool
 *  (core/spool): the record as it is after the write, or its removal, so
 *  that applying the records in log order gives every checkpoint as the
 *  writes acknowledged left it, whatever was applied before.
 *
 *    u8   version (1)
 *    u8   what: 1 the record after a write, 2 the stream's record removed
 *    u64  events: the ordinal of the newest event before it in the log
 *         (event_record.h), so the log's last record, whatever its kind,
 *         tells how many events the log has held
 *    i64  last_seen_at, last_processed_at, updated_at (DLQ_SINK_TIME_NONE
 *         when absent)
 *    then five strings, each u32 length (0xFFFFFFFF: absent) and its bytes:
 *    stream_name, instance_id, last_seen_token, last_processed_token,
 *    metadata (a removal holds the stream name, the others absent)
 *
 *  Integers little-endian. Encoding appends to a caller's buffer; decoding
 *  copies the strings into one block, and refuses whatever encoding would
 *  not have written (so encoding what it decoded gives the same bytes).
 */
#ifndef DLQ_CHECKPOINT_RECORD_H
#define DLQ_CHECKPOINT_RECORD_H

#include "dlq_buf.h"
#include "dlq_sink.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DLQ_CHECKPOINT_RECORD_VERSION 1

/* Append the record of record (removed: the removal of its stream), after
 * events events in the log, to out. */
void dlq_checkpoint_record_encode (const dlq_sink_checkpoint_t *record, bool removed, uint64_t events,
                                   dlq_buf_t *out);

/* The events field read in place; false when not a checkpoint record. */
bool dlq_checkpoint_record_events (const uint8_t *bytes, size_t len, uint64_t *events_out);

/* Decode len bytes: the record (its strings copied into *block_out, NUL
 * terminated; the caller frees it) and whether it is a removal. False
 * when the bytes are not a checkpoint record of this version. */
bool dlq_checkpoint_record_decode (const uint8_t *bytes, size_t len, dlq_sink_checkpoint_t *record_out,
                                   bool *removed_out, char **block_out);

#endif
