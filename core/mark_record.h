/*  mark_record — a change of an event's replay state (RESOLVE, FAIL, a
 *  replay's REPLAYED or QUARANTINED mark, RELEASED) as one record of the
 *  spool (core/spool), so that it is durable once the spool's sync covers
 *  it and the store applies it in log order behind the ack, as it indexes
 *  the events.
 *
 *    u8   version (1)
 *    u8   mark (dlq_sink_mark_t)
 *    u64  events: the ordinal of the newest event before it in the log
 *         (event_record.h), as a checkpoint record carries it
 *    i64  now_ms: when it was asked for (an event expired by then is not
 *         changed), and retry_after_ms: the time the mark sets (FAILED,
 *         REPLAYED, RELEASED), so applying it again gives the same state
 *    then the event's id: u32 length (1 or more) and its bytes (no NUL)
 *
 *  Integers little-endian. Decoding reads in place and refuses whatever
 *  encoding would not have written.
 */
#ifndef DLQ_MARK_RECORD_H
#define DLQ_MARK_RECORD_H

#include "dlq_buf.h"
#include "dlq_sink.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DLQ_MARK_RECORD_VERSION 1

typedef struct {
    dlq_sink_mark_t mark;
    uint64_t        events;
    int64_t         now_ms;
    int64_t         retry_after_ms;
    const char     *id;             /* in the record's bytes: not NUL-terminated */
    size_t          id_len;
} dlq_mark_record_t;

/* Append the record of record (its id id_len bytes) to out. */
void dlq_mark_record_encode (const dlq_mark_record_t *record, dlq_buf_t *out);

/* Read the record's len bytes into *out (its id in place); false when
 * they are not a mark record of this version. */
bool dlq_mark_record_decode (const uint8_t *bytes, size_t len, dlq_mark_record_t *out);

#endif
