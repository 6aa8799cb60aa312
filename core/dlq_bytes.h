/*  dlq_bytes — the little-endian integers and length-prefixed strings the
 *  spool's record payloads are made of (event_record, checkpoint_record):
 *  writing them to a buffer, and reading them back in place with every
 *  read bounds-checked. A string is a u32 length and its bytes, or the
 *  length 0xFFFFFFFF alone for an absent one (NULL).
 */
#ifndef DLQ_BYTES_H
#define DLQ_BYTES_H

#include "dlq_buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void dlq_bytes_put_u32 (dlq_buf_t *out, uint32_t v);
void dlq_bytes_put_u64 (dlq_buf_t *out, uint64_t v);
/* s NULL: absent. */
void dlq_bytes_put_string (dlq_buf_t *out, const char *s, size_t len);

/* A reader over [p, end): each get moves p past what it read, or returns
 * false (p unmoved) when the bytes left are too few. */
typedef struct {
    const uint8_t *p, *end;
} dlq_bytes_reader_t;

bool dlq_bytes_get_u8 (dlq_bytes_reader_t *r, uint8_t *v);
bool dlq_bytes_get_u32 (dlq_bytes_reader_t *r, uint32_t *v);
bool dlq_bytes_get_u64 (dlq_bytes_reader_t *r, uint64_t *v);
/* A string in place: *s NULL (len 0) when absent. */
bool dlq_bytes_get_span (dlq_bytes_reader_t *r, const char **s, size_t *len);

#endif
