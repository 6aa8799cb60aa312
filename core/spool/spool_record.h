/*  spool_record — the bytes of one record of the spool (spool.h): a
 *  12-byte header, then the payload.
 *
 *    offset 0   u32  CRC32C (Castagnoli) of bytes 4 .. 12 + length
 *    offset 4   u32  length of the payload in bytes
 *    offset 8   u8   kind (1 .. 255; what the payload is, the caller's to define)
 *    offset 9   3 bytes, zero
 *    offset 12  the payload
 *
 *  Integers are little-endian. The checksum covers the length and the kind,
 *  so a torn or overwritten header is caught as surely as a torn payload;
 *  an all-zero header (a file's unwritten tail) never checks. Pure
 *  functions: no I/O, no allocation.
 */
#ifndef DLQ_SPOOL_RECORD_H
#define DLQ_SPOOL_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DLQ_SPOOL_RECORD_HEADER 12

typedef enum {
    DLQ_SPOOL_RECORD_OK = 0,    /* a whole record whose checksum holds */
    DLQ_SPOOL_RECORD_SHORT,     /* the bytes end before the record does: *needed_out says how many it takes */
    DLQ_SPOOL_RECORD_BAD        /* not a record: checksum, kind 0, reserved bytes or a length over the limit */
} dlq_spool_record_result_t;

typedef struct {
    uint8_t        kind;
    const uint8_t *payload;     /* points into the bytes parsed */
    uint32_t       length;
} dlq_spool_record_t;

/* CRC32C of len bytes, continuing from crc (0 to start). */
uint32_t dlq_spool_record_crc32c (uint32_t crc, const void *bytes, size_t len);

/* Write the header of a record of kind with length payload bytes into out. */
void dlq_spool_record_header (uint8_t out [DLQ_SPOOL_RECORD_HEADER], uint8_t kind,
                              const void *payload, uint32_t length);

/* The bytes a record takes, header included, by its header's length
 * field alone (for records this process wrote; nothing is checked). */
size_t dlq_spool_record_size (const uint8_t header [DLQ_SPOOL_RECORD_HEADER]);

/* The payload length a header declares when its kind, reserved bytes and
 * length (at most max_length) are well formed; the checksum is not looked
 * at. False otherwise. */
bool dlq_spool_record_declared (const uint8_t header [DLQ_SPOOL_RECORD_HEADER], uint32_t max_length,
                                uint32_t *length_out);

/* The record at the start of the avail bytes at bytes, whose payload may
 * be at most max_length bytes. *needed_out (when not NULL) gets the bytes
 * the whole record takes, header included, when the header is complete
 * and well formed (OK and SHORT past the header), else 0. */
dlq_spool_record_result_t dlq_spool_record_parse (const uint8_t *bytes, size_t avail, uint32_t max_length,
                                                  dlq_spool_record_t *record_out, size_t *needed_out);

#endif
