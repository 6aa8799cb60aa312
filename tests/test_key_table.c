/*  test_key_table — the clients directory: each certificate becomes a
 *  principal under its public key; a file that is no usable client
 *  certificate is left out with a line naming it while the others load;
 *  secrets and hidden files are not read; the signature changes with any
 *  change to the files and only then; a token whose SHA-256 a certificate
 *  names is that certificate's principal, and a file with a malformed or
 *  taken token hash is left out.
 */
#include "key_table.h"

#include "dlq_cert.h"
#include "dlq_token.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char dir [256];

static void setup (void) { test_tmpdir (dir); }
static void teardown (void) { test_rmtree (dir); }

TestSuite (key_table, .init = setup, .fini = teardown);

/* A pair NAME.key (+ _secret) in dir with metadata; its public key into key. */
static void
make (const char *name, const char *role, const char *streams, char key [DLQ_CERT_KEY_LEN + 1])
{
    char path [512], err [512];
    snprintf (path, sizeof path, "%s/%s.key", dir, name);
    const char *meta [] = { "name", name, "role", role, "streams", streams };
    size_t count = role ? (streams ? 3 : 2) : 1;
    cr_assert_eq (dlq_cert_generate (path, meta, count, err, sizeof err), DLQ_CERT_OK, "%s", err);
    dlq_cert_t *cert = NULL;
    cr_assert_eq (dlq_cert_load (path, false, &cert, err, sizeof err), DLQ_CERT_OK);
    if (key)
        snprintf (key, DLQ_CERT_KEY_LEN + 1, "%s", dlq_cert_public (cert));
    dlq_cert_destroy (&cert);
}

Test (key_table, each_certificate_is_a_principal)
{
    char w [41], v [41], a [41];
    make ("w7", "worker", "orders,billing.*", w);
    make ("v1", "viewer", "*", v);
    make ("root", "admin", NULL, a);
    dlq_buf_t problems = DLQ_BUF_INIT;
    char err [512];
    dlq_key_table_t *t = dlq_key_table_load (dir, &problems, err, sizeof err);
    cr_assert_not_null (t, "%s", err);
    cr_expect_eq (dlq_key_table_count (t), 3, "the _secret files are not read: %s", problems.data);
    cr_expect_eq (problems.len, 0, "%s", problems.data);
    dlq_principal_t *p = dlq_key_table_find (t, w);
    cr_assert_not_null (p);
    cr_expect_str_eq (dlq_principal_name (p), "w7");
    cr_expect_eq (dlq_principal_role (p), DLQ_ROLE_WORKER);
    cr_expect (dlq_principal_may_stream (p, "billing.eu", 10));
    cr_expect_not (dlq_principal_may_stream (p, "payments", 8));
    cr_expect (dlq_principal_all_streams (dlq_key_table_find (t, v)));
    cr_expect (dlq_principal_all_streams (dlq_key_table_find (t, a)), "an admin needs no streams");
    cr_expect_null (dlq_key_table_find (t, "0000000000000000000000000000000000000000"));
    dlq_key_table_destroy (&t);
    dlq_buf_free (&problems);
}

Test (key_table, a_bad_file_is_left_out_and_named)
{
    char good [41];
    make ("good", "worker", "a", good);
    make ("norole", NULL, NULL, NULL);
    make ("badrole", "root", "a", NULL);
    make ("nostreams", "worker", NULL, NULL);
    char path [512];
    snprintf (path, sizeof path, "%s/junk.key", dir);
    FILE *f = fopen (path, "w");
    fputs ("garbage\n", f);
    fclose (f);
    snprintf (path, sizeof path, "%s/.hidden", dir);
    f = fopen (path, "w");
    fputs ("garbage\n", f);
    fclose (f);
    char copy [512], src [512];
    snprintf (src, sizeof src, "%s/good.key", dir);
    snprintf (copy, sizeof copy, "%s/zz-copy.key", dir);
    char *text = test_read_file (src, NULL);
    f = fopen (copy, "w");
    fputs (text, f);
    fclose (f);
    free (text);
    dlq_buf_t problems = DLQ_BUF_INIT;
    char err [512];
    dlq_key_table_t *t = dlq_key_table_load (dir, &problems, err, sizeof err);
    cr_assert_not_null (t);
    cr_expect_eq (dlq_key_table_count (t), 1, "only good: %s", problems.data);
    cr_expect_not_null (dlq_key_table_find (t, good));
    static const char *const named [] = { "norole.key", "badrole.key", "nostreams.key", "junk.key", "zz-copy.key" };
    for (size_t i = 0; i < sizeof named / sizeof named [0]; i++)
        cr_expect (strstr (problems.data, named [i]) != NULL, "%s not named in:\n%s", named [i], problems.data);
    cr_expect (strstr (problems.data, ".hidden") == NULL, "hidden files are not read");
    cr_expect (strstr (problems.data, "the same public key") != NULL, "%s", problems.data);
    dlq_key_table_destroy (&t);
    dlq_buf_free (&problems);
}

Test (key_table, an_unreadable_directory_is_an_error)
{
    char missing [512], err [512] = "";
    snprintf (missing, sizeof missing, "%s/none", dir);
    dlq_buf_t problems = DLQ_BUF_INIT;
    cr_expect_null (dlq_key_table_load (missing, &problems, err, sizeof err));
    cr_expect (strstr (err, missing) != NULL, "%s", err);
    uint64_t sig;
    cr_expect_not (dlq_key_table_signature (missing, &sig));
    dlq_buf_free (&problems);
}

Test (key_table, the_signature_follows_the_files)
{
    uint64_t s0, s1, s2, s3, s4;
    cr_assert (dlq_key_table_signature (dir, &s0));
    make ("a", "worker", "x", NULL);
    cr_assert (dlq_key_table_signature (dir, &s1));
    cr_expect_neq (s0, s1, "a file added");
    cr_assert (dlq_key_table_signature (dir, &s2));
    cr_expect_eq (s1, s2, "nothing changed");
    char from [512], to [512];
    snprintf (from, sizeof from, "%s/a.key", dir);
    snprintf (to, sizeof to, "%s/b.key", dir);
    cr_assert_eq (rename (from, to), 0);
    cr_assert (dlq_key_table_signature (dir, &s3));
    cr_expect_neq (s2, s3, "a file renamed");
    cr_assert_eq (unlink (to), 0);
    cr_assert (dlq_key_table_signature (dir, &s4));
    cr_expect_neq (s3, s4, "a file removed");
}

/* A pair NAME.key with a token_sha256 value as given. */
static void
make_with_tokens (const char *name, const char *role, const char *tokens)
{
    char path [512], err [512];
    snprintf (path, sizeof path, "%s/%s.key", dir, name);
    const char *meta [] = { "name", name, "role", role, "streams", "*", "token_sha256", tokens };
    cr_assert_eq (dlq_cert_generate (path, meta, 4, err, sizeof err), DLQ_CERT_OK, "%s", err);
}

Test (key_table, a_token_is_its_certificates_principal)
{
    char one [DLQ_TOKEN_HASH_LEN + 1], two [DLQ_TOKEN_HASH_LEN + 1], three [DLQ_TOKEN_HASH_LEN + 1];
    dlq_token_hash ("token-one", 9, one);
    dlq_token_hash ("token-two", 9, two);
    dlq_token_hash ("token-three", 11, three);
    char both [2 * DLQ_TOKEN_HASH_LEN + 2];
    snprintf (both, sizeof both, "%s,%s", one, two);
    make_with_tokens ("anna", "operator", both);
    make_with_tokens ("bob", "viewer", three);
    make ("carl", "viewer", "*", NULL);
    dlq_buf_t problems = DLQ_BUF_INIT;
    char err [512];
    dlq_key_table_t *t = dlq_key_table_load (dir, &problems, err, sizeof err);
    cr_assert_not_null (t, "%s", err);
    cr_expect_eq (problems.len, 0, "%s", problems.data);
    dlq_principal_t *anna = dlq_key_table_find_token (t, "token-one", 9);
    cr_assert_not_null (anna);
    cr_expect_str_eq (dlq_principal_name (anna), "anna");
    cr_expect_eq (dlq_key_table_find_token (t, "token-two", 9), anna, "each token of the list is hers");
    cr_expect_str_eq (dlq_principal_name (dlq_key_table_find_token (t, "token-three", 11)), "bob");
    cr_expect_null (dlq_key_table_find_token (t, "token-on", 8), "a prefix of a token is none");
    cr_expect_null (dlq_key_table_find_token (t, "token-one\n", 10));
    cr_expect_null (dlq_key_table_find_token (t, "", 0), "an empty token is none");
    cr_expect_null (dlq_key_table_find_token (t, one, DLQ_TOKEN_HASH_LEN), "the hash is not the token");
    static char huge [DLQ_TOKEN_MAX + 1];
    memset (huge, 'a', sizeof huge);
    cr_expect_null (dlq_key_table_find_token (t, huge, sizeof huge));
    dlq_key_table_destroy (&t);
    dlq_buf_free (&problems);
}

Test (key_table, a_bad_or_taken_token_hash_leaves_the_file_out)
{
    char one [DLQ_TOKEN_HASH_LEN + 1], upper [DLQ_TOKEN_HASH_LEN + 1];
    dlq_token_hash ("token-one", 9, one);
    snprintf (upper, sizeof upper, "%s", one);
    for (char *c = upper; *c; c++)
        if (*c >= 'a' && *c <= 'f')
            *c = (char) (*c - 'a' + 'A');
    char other [DLQ_TOKEN_HASH_LEN + 1], trailing [DLQ_TOKEN_HASH_LEN + 2];
    dlq_token_hash ("token-other", 11, other);
    snprintf (trailing, sizeof trailing, "%s,", other);
    make_with_tokens ("a-first", "viewer", one);
    make_with_tokens ("b-same", "admin", one);
    make_with_tokens ("c-short", "admin", "abc123");
    make_with_tokens ("d-upper", "admin", upper);
    make_with_tokens ("e-comma", "admin", trailing);
    dlq_buf_t problems = DLQ_BUF_INIT;
    char err [512];
    dlq_key_table_t *t = dlq_key_table_load (dir, &problems, err, sizeof err);
    cr_assert_not_null (t, "%s", err);
    cr_expect_eq (dlq_key_table_count (t), 1, "only the first: %s", problems.data);
    cr_expect_str_eq (dlq_principal_name (dlq_key_table_find_token (t, "token-one", 9)), "a-first",
                      "the token stays the first file's");
    cr_expect (strstr (problems.data, "b-same.key: a token_sha256 of a file read before it") != NULL, "%s",
               problems.data);
    cr_expect (strstr (problems.data, "c-short.key: metadata token_sha256 must be") != NULL, "%s", problems.data);
    cr_expect (strstr (problems.data, "d-upper.key: metadata token_sha256 must be") != NULL, "%s", problems.data);
    cr_expect (strstr (problems.data, "e-comma.key: metadata token_sha256 must be") != NULL, "an empty entry: %s",
               problems.data);
    dlq_key_table_destroy (&t);
    dlq_buf_free (&problems);
}
