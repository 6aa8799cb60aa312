/*  test_token — the HTTP API's tokens: a new token is "dlqd_" and 43
 *  base64url characters, never the same twice; the hash is SHA-256 in
 *  lower-case hex (the FIPS 180-2 vectors); what a certificate may name
 *  as a hash is exactly 64 lower-case hex digits.
 */
#include "dlq_token.h"

#include <criterion/criterion.h>
#include <string.h>

Test (token, a_new_token_is_prefixed_base64url_and_unique)
{
    char a [DLQ_TOKEN_TEXT_LEN + 1], b [DLQ_TOKEN_TEXT_LEN + 1];
    cr_assert (dlq_token_generate (a));
    cr_assert (dlq_token_generate (b));
    cr_expect_eq (strlen (a), DLQ_TOKEN_TEXT_LEN);
    cr_expect_eq (strncmp (a, DLQ_TOKEN_PREFIX, strlen (DLQ_TOKEN_PREFIX)), 0, "%s", a);
    cr_expect_eq (strspn (a + strlen (DLQ_TOKEN_PREFIX), "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                          "0123456789-_"), DLQ_TOKEN_TEXT_LEN - strlen (DLQ_TOKEN_PREFIX), "%s", a);
    cr_expect_str_neq (a, b);
}

Test (token, the_hash_is_sha256_in_hex)
{
    char out [DLQ_TOKEN_HASH_LEN + 1];
    dlq_token_hash ("abc", 3, out);
    cr_expect_str_eq (out, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    dlq_token_hash ("", 0, out);
    cr_expect_str_eq (out, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    dlq_token_hash ("a\0b", 3, out);
    cr_expect_str_neq (out, "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb",
                       "bytes after a NUL count (that is the hash of \"a\")");
    cr_expect (dlq_token_hash_valid (out, strlen (out)));
}

Test (token, a_hash_is_64_lower_case_hex_digits)
{
    const char *good = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
    cr_expect (dlq_token_hash_valid (good, 64));
    cr_expect_not (dlq_token_hash_valid (good, 63));
    cr_expect_not (dlq_token_hash_valid ("BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD", 64));
    cr_expect_not (dlq_token_hash_valid ("ga7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", 64));
    cr_expect_not (dlq_token_hash_valid ("", 0));
}
