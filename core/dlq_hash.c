/*  dlq_hash — FNV-1a, 64 and 32 bits. */
#include "dlq_hash.h"

uint64_t
dlq_hash_fnv64_more (uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p [i]) * DLQ_HASH_FNV64_PRIME;
    return h;
}

uint64_t
dlq_hash_fnv64 (const void *data, size_t len)
{
    return dlq_hash_fnv64_more (DLQ_HASH_FNV64_OFFSET, data, len);
}

uint64_t
dlq_hash_fnv64_str (const char *s)
{
    uint64_t h = DLQ_HASH_FNV64_OFFSET;
    for (const unsigned char *p = (const unsigned char *) s; *p; p++)
        h = (h ^ *p) * DLQ_HASH_FNV64_PRIME;
    return h;
}

uint32_t
dlq_hash_fnv32_str (const char *s)
{
    uint32_t h = DLQ_HASH_FNV32_OFFSET;
    for (const unsigned char *p = (const unsigned char *) s; *p; p++)
        h = (h ^ *p) * DLQ_HASH_FNV32_PRIME;
    return h;
}
