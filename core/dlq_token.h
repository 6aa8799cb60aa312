/*  dlq_token — the bearer tokens of the HTTP API (docs/security.md, "HTTP
 *  tokens"): a token is 32 random bytes written as "dlqd_" and 43
 *  characters of unpadded base64url; a client certificate names the
 *  tokens of its principal by their SHA-256, never the token itself
 *  (metadata token_sha256: 64 lower-case hex digits, comma-separated for
 *  more than one). Pure, except dlq_token_generate (the kernel's entropy,
 *  through libsodium).
 */
#ifndef DLQ_TOKEN_H
#define DLQ_TOKEN_H

#include <stdbool.h>
#include <stddef.h>

#define DLQ_TOKEN_PREFIX    "dlqd_"
#define DLQ_TOKEN_TEXT_LEN  48          /* "dlqd_" + 43 base64url characters */
#define DLQ_TOKEN_HASH_LEN  64          /* hex digits of a SHA-256 */
#define DLQ_TOKEN_MAX       512         /* longer credentials are refused before hashing */

/* A new token into out (DLQ_TOKEN_TEXT_LEN characters and a NUL); false
 * when libsodium cannot start (no entropy). */
bool dlq_token_generate (char out [DLQ_TOKEN_TEXT_LEN + 1]);

/* The SHA-256 of len bytes of token as 64 lower-case hex digits and a NUL. */
void dlq_token_hash (const void *token, size_t len, char out [DLQ_TOKEN_HASH_LEN + 1]);

/* Is text (len bytes) one token hash: exactly 64 hex digits, lower case? */
bool dlq_token_hash_valid (const char *text, size_t len);

#endif
