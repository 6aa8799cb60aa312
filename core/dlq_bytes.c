/*  dlq_bytes — record payload fields (see the header). */
#include "dlq_bytes.h"

#define ABSENT 0xFFFFFFFFu

void
dlq_bytes_put_u32 (dlq_buf_t *out, uint32_t v)
{
    uint8_t b [4] = { (uint8_t) v, (uint8_t) (v >> 8), (uint8_t) (v >> 16), (uint8_t) (v >> 24) };
    dlq_buf_append (out, b, 4);
}

void
dlq_bytes_put_u64 (dlq_buf_t *out, uint64_t v)
{
    dlq_bytes_put_u32 (out, (uint32_t) v);
    dlq_bytes_put_u32 (out, (uint32_t) (v >> 32));
}

void
dlq_bytes_put_string (dlq_buf_t *out, const char *s, size_t len)
{
    dlq_bytes_put_u32 (out, s ? (uint32_t) len : ABSENT);
    if (s)
        dlq_buf_append (out, s, len);
}

bool
dlq_bytes_get_u8 (dlq_bytes_reader_t *r, uint8_t *v)
{
    if (r->end - r->p < 1)
        return false;
    *v = *r->p++;
    return true;
}

bool
dlq_bytes_get_u32 (dlq_bytes_reader_t *r, uint32_t *v)
{
    if (r->end - r->p < 4)
        return false;
    *v = (uint32_t) r->p [0] | (uint32_t) r->p [1] << 8 | (uint32_t) r->p [2] << 16 | (uint32_t) r->p [3] << 24;
    r->p += 4;
    return true;
}

bool
dlq_bytes_get_u64 (dlq_bytes_reader_t *r, uint64_t *v)
{
    if (r->end - r->p < 8)
        return false;
    uint32_t lo, hi;
    dlq_bytes_get_u32 (r, &lo);
    dlq_bytes_get_u32 (r, &hi);
    *v = (uint64_t) lo | (uint64_t) hi << 32;
    return true;
}

bool
dlq_bytes_get_span (dlq_bytes_reader_t *r, const char **s, size_t *len)
{
    const uint8_t *start = r->p;
    uint32_t n;
    if (!dlq_bytes_get_u32 (r, &n))
        return false;
    if (n == ABSENT) {
        *s = NULL;
        *len = 0;
        return true;
    }
    if ((size_t) (r->end - r->p) < n) {
        r->p = start;
        return false;
    }
    *s = (const char *) r->p;
    *len = n;
    r->p += n;
    return true;
}
