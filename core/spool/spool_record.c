/*  spool_record — encoding and checking one record. CRC32C comes from
 *  ISA-L (libisal: hardware CRC32 instructions where the CPU has them).
 */
#include "spool_record.h"

#include <isa-l/crc.h>
#include <string.h>

uint32_t
dlq_spool_record_crc32c (uint32_t crc, const void *bytes, size_t len)
{
    /* ISA-L keeps the register un-inverted: start at ~0, invert at the end */
    uint32_t state = ~crc;
    const unsigned char *p = bytes;
    while (len > 0) {
        int chunk = len > (1u << 30) ? 1 << 30 : (int) len;
        state = crc32_iscsi ((unsigned char *) p, chunk, state);
        p += chunk;
        len -= (size_t) chunk;
    }
    return ~state;
}

static void
put_u32 (uint8_t *out, uint32_t v)
{
    out [0] = (uint8_t) v;
    out [1] = (uint8_t) (v >> 8);
    out [2] = (uint8_t) (v >> 16);
    out [3] = (uint8_t) (v >> 24);
}

static uint32_t
get_u32 (const uint8_t *in)
{
    return (uint32_t) in [0] | (uint32_t) in [1] << 8 | (uint32_t) in [2] << 16 | (uint32_t) in [3] << 24;
}

static uint32_t
checksum (const uint8_t *header, const void *payload, uint32_t length)
{
    uint32_t crc = dlq_spool_record_crc32c (0, header + 4, DLQ_SPOOL_RECORD_HEADER - 4);
    return dlq_spool_record_crc32c (crc, payload, length);
}

void
dlq_spool_record_header (uint8_t out [DLQ_SPOOL_RECORD_HEADER], uint8_t kind, const void *payload, uint32_t length)
{
    memset (out, 0, DLQ_SPOOL_RECORD_HEADER);
    put_u32 (out + 4, length);
    out [8] = kind;
    put_u32 (out, checksum (out, payload, length));
}

size_t
dlq_spool_record_size (const uint8_t header [DLQ_SPOOL_RECORD_HEADER])
{
    return DLQ_SPOOL_RECORD_HEADER + (size_t) get_u32 (header + 4);
}

bool
dlq_spool_record_declared (const uint8_t header [DLQ_SPOOL_RECORD_HEADER], uint32_t max_length, uint32_t *length_out)
{
    uint32_t length = get_u32 (header + 4);
    if (header [8] == 0 || header [9] || header [10] || header [11] || length > max_length)
        return false;
    *length_out = length;
    return true;
}

dlq_spool_record_result_t
dlq_spool_record_parse (const uint8_t *bytes, size_t avail, uint32_t max_length,
                        dlq_spool_record_t *record_out, size_t *needed_out)
{
    if (needed_out)
        *needed_out = 0;
    if (avail < DLQ_SPOOL_RECORD_HEADER)
        return DLQ_SPOOL_RECORD_SHORT;
    uint32_t length = 0;
    if (!dlq_spool_record_declared (bytes, max_length, &length))
        return DLQ_SPOOL_RECORD_BAD;
    size_t needed = DLQ_SPOOL_RECORD_HEADER + (size_t) length;
    if (needed_out)
        *needed_out = needed;
    if (avail < needed)
        return DLQ_SPOOL_RECORD_SHORT;
    if (checksum (bytes, bytes + DLQ_SPOOL_RECORD_HEADER, length) != get_u32 (bytes))
        return DLQ_SPOOL_RECORD_BAD;
    if (record_out) {
        record_out->kind = bytes [8];
        record_out->payload = bytes + DLQ_SPOOL_RECORD_HEADER;
        record_out->length = length;
    }
    return DLQ_SPOOL_RECORD_OK;
}
