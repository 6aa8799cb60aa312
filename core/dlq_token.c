/*  dlq_token — bearer tokens and their SHA-256 (see the header). */
#include "dlq_token.h"

#include <sodium.h>
#include <string.h>

bool
dlq_token_generate (char out [DLQ_TOKEN_TEXT_LEN + 1])
{
    if (sodium_init () < 0)
        return false;
    unsigned char raw [32];
    randombytes_buf (raw, sizeof raw);
    size_t prefix = strlen (DLQ_TOKEN_PREFIX);
    memcpy (out, DLQ_TOKEN_PREFIX, prefix);
    sodium_bin2base64 (out + prefix, DLQ_TOKEN_TEXT_LEN + 1 - prefix, raw, sizeof raw,
                       sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    sodium_memzero (raw, sizeof raw);
    return true;
}

void
dlq_token_hash (const void *token, size_t len, char out [DLQ_TOKEN_HASH_LEN + 1])
{
    unsigned char digest [crypto_hash_sha256_BYTES];
    crypto_hash_sha256 (digest, token, len);
    sodium_bin2hex (out, DLQ_TOKEN_HASH_LEN + 1, digest, sizeof digest);
}

bool
dlq_token_hash_valid (const char *text, size_t len)
{
    if (len != DLQ_TOKEN_HASH_LEN)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!((text [i] >= '0' && text [i] <= '9') || (text [i] >= 'a' && text [i] <= 'f')))
            return false;
    return true;
}
