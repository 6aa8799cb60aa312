/*  test_hash — FNV-1a against the published test vectors (Fowler, Noll,
 *  Vo: the standard offset bases) and its continuation. The values that
 *  are stored or shared are held by their own suites: error fingerprints
 *  (test_fingerprint), postgres names and lock keys (test_pg_format).
 */
#include "dlq_hash.h"

#include <criterion/criterion.h>
#include <string.h>

Test (hash, fnv64_gives_the_published_vectors)
{
    cr_expect_eq (dlq_hash_fnv64 ("", 0), UINT64_C (0xcbf29ce484222325));
    cr_expect_eq (dlq_hash_fnv64 (NULL, 0), UINT64_C (0xcbf29ce484222325));
    cr_expect_eq (dlq_hash_fnv64 ("a", 1), UINT64_C (0xaf63dc4c8601ec8c));
    cr_expect_eq (dlq_hash_fnv64 ("foobar", 6), UINT64_C (0x85944171f73967e8));
    cr_expect_eq (dlq_hash_fnv64_str ("foobar"), UINT64_C (0x85944171f73967e8));
    cr_expect_eq (dlq_hash_fnv64_str (""), DLQ_HASH_FNV64_OFFSET);
}

Test (hash, fnv32_gives_the_published_vectors)
{
    cr_expect_eq (dlq_hash_fnv32_str (""), UINT32_C (0x811c9dc5));
    cr_expect_eq (dlq_hash_fnv32_str ("a"), UINT32_C (0xe40c292c));
    cr_expect_eq (dlq_hash_fnv32_str ("foobar"), UINT32_C (0xbf9cf968));
}

Test (hash, more_continues_over_the_next_bytes)
{
    const char *text = "java.lang.IllegalStateException\0boom";
    size_t len = 36;
    for (size_t cut = 0; cut <= len; cut++)
        cr_expect_eq (dlq_hash_fnv64_more (dlq_hash_fnv64 (text, cut), text + cut, len - cut),
                      dlq_hash_fnv64 (text, len), "cut at %zu", cut);
}

Test (hash, embedded_nul_bytes_count)
{
    cr_expect_neq (dlq_hash_fnv64 ("a\0", 2), dlq_hash_fnv64 ("a", 1));
}
