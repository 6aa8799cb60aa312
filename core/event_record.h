/*  event_record — a stored FailedEvent as one record of the spool
 *  (core/spool): the routing members a consumer needs without parsing
 *  JSON, then the canonical JSON body byte for byte.
 *
 *    u8   version (1)
 *    u64  ordinal: the event's number in the log (1 for the first event
 *         the log ever held, one more for each after), so the events
 *         between two records are the difference of their ordinals
 *    i64  created_at, expires_at, first_attempt_at (DLQ_TIME_NONE when absent)
 *    i32  attempts
 *    16 bytes: the fingerprint's hex digits
 *    then six strings, each u32 length (0xFFFFFFFF: absent) and its bytes:
 *    id, stream_name, status, error_type, operation_type, document_key
 *    u32  length of the canonical JSON, then the JSON
 *
 *  Integers little-endian. Encoding appends to a caller's buffer (reused
 *  from record to record: no allocation once it has grown); decoding
 *  builds the same partial event the store's reads by seq hand out (embedded_archive.h:
 *  the routing members and json; full_document, metadata and the error's
 *  message and stack trace stay NULL: decode json for those).
 */
#ifndef DLQ_EVENT_RECORD_H
#define DLQ_EVENT_RECORD_H

#include "dlq_buf.h"
#include "failed_event.h"

#include <stddef.h>
#include <stdint.h>

#define DLQ_EVENT_RECORD_VERSION 1

/* Append event's record (event->json set, fingerprint set), numbered
 * ordinal, to out. */
void dlq_event_record_encode (const dlq_event_t *event, uint64_t ordinal, dlq_buf_t *out);

/* A new partial event from the record's len bytes, or NULL when they are
 * not an event record of this version (a damaged or foreign record). */
dlq_event_t *dlq_event_record_decode (const uint8_t *bytes, size_t len);

/* The id and its length, read in place (no allocation); false when the
 * bytes are not an event record. */
bool dlq_event_record_id (const uint8_t *bytes, size_t len, const char **id_out, size_t *id_len_out);

/* The ordinal read in place; false when not an event record. */
bool dlq_event_record_ordinal (const uint8_t *bytes, size_t len, uint64_t *ordinal_out);

/* expires_at read in place; false when not an event record. */
bool dlq_event_record_expires_at (const uint8_t *bytes, size_t len, int64_t *expires_at_out);

#endif
