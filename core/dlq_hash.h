/*  dlq_hash — FNV-1a, the one non-cryptographic hash of the project: hash
 *  tables (dlq_strmap, the JSON parser's duplicate-member check), the log's
 *  repeat keys, the gateway's client-to-worker routing, error fingerprints
 *  (fingerprint.h) and the postgres sink's derived names and lock keys.
 *
 *  The standard FNV-1a parameters (offset basis 14695981039346656037 and
 *  prime 1099511628211 for 64 bits; 2166136261 and 16777619 for 32 bits),
 *  byte at a time. What is stored or shared with other processes
 *  (fingerprints, postgres names and advisory-lock keys) depends on these
 *  exact values: never change them. Pure.
 */
#ifndef DLQ_HASH_H
#define DLQ_HASH_H

#include <stddef.h>
#include <stdint.h>

#define DLQ_HASH_FNV64_OFFSET UINT64_C (14695981039346656037)
#define DLQ_HASH_FNV64_PRIME  UINT64_C (1099511628211)
#define DLQ_HASH_FNV32_OFFSET UINT32_C (2166136261)
#define DLQ_HASH_FNV32_PRIME  UINT32_C (16777619)

/* FNV-1a 64 of len bytes of data (data may be NULL when len is 0). */
uint64_t dlq_hash_fnv64 (const void *data, size_t len);

/* The hash h continued over len more bytes: dlq_hash_fnv64 of a + b is
 * dlq_hash_fnv64_more (dlq_hash_fnv64 (a), b). */
uint64_t dlq_hash_fnv64_more (uint64_t h, const void *data, size_t len);

/* FNV-1a 64 of a NUL-terminated string (without its NUL). */
uint64_t dlq_hash_fnv64_str (const char *s);

/* FNV-1a 32 of a NUL-terminated string (without its NUL). */
uint32_t dlq_hash_fnv32_str (const char *s);

#endif
