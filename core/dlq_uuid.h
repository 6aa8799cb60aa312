/*  dlq_uuid — UUID text validation and time-ordered UUIDv7 generation. */
#ifndef DLQ_UUID_H
#define DLQ_UUID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Length of the canonical text form, without NUL. */
#define DLQ_UUID_LEN 36

/* Write a new UUIDv7 (RFC 9562: 48-bit unix ms, version 7, 12 bits of a
 * per-process monotonic counter so ids made in the same ms still sort in
 * creation order, variant 10, 62 random bits) as lowercase text into out
 * (DLQ_UUID_LEN + 1 bytes). Thread-safe. ms is the timestamp to embed. */
void dlq_uuid_v7 (int64_t ms, char *out);

/* True when len bytes of s are a UUID in 8-4-4-4-12 hex form (any version,
 * either case). If out is not NULL it receives the lowercase form (NUL-
 * terminated, DLQ_UUID_LEN + 1 bytes). */
bool dlq_uuid_parse (const char *s, size_t len, char *out);

#endif
