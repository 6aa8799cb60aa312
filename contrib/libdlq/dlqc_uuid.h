/*  dlqc_uuid — UUIDv7 generation for libdlq (internal, not installed).
 *
 *  Behind the public dlq_client_uuid_v7(): RFC 9562 version 7, with the
 *  12 bits of rand_a used as a per-process counter (method 1 of RFC 9562
 *  section 6.2), so ids made in the same millisecond still sort in the
 *  order they were made.
 */
#ifndef DLQC_UUID_H
#define DLQC_UUID_H

#include <stdint.h>

/* Length of the text form, without NUL. */
#define DLQC_UUID_LEN 36

/* Write a new UUIDv7 for wall-clock time now as lowercase text plus NUL
 * into out (DLQC_UUID_LEN + 1 bytes). Thread-safe. */
void dlqc_uuid_v7 (char *out);

#endif
