/*  test_cert — CURVE certificate files: a generated pair loads back with
 *  its metadata (and is what zcert writes, so other tools read it), the
 *  secret file is 0600 and never overwritten, and every way a key file can
 *  be unusable is an error that names the file: missing, a directory,
 *  unreadable, not a certificate, a key that does not decode, no secret
 *  where one is needed, a secret of another key, a secret others can read.
 */
#include "dlq_cert.h"

#include "test_support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir [256];

static void setup (void) { test_tmpdir (dir); }
static void teardown (void) { test_rmtree (dir); }

TestSuite (cert, .init = setup, .fini = teardown);

static void
path_of (char *out, const char *name)
{
    snprintf (out, 512, "%s/%s", dir, name);
}

static void
write_file (const char *path, const char *text, mode_t mode)
{
    FILE *f = fopen (path, "w");
    cr_assert_not_null (f);
    fputs (text, f);
    fclose (f);
    chmod (path, mode);
}

static void
generate (const char *name, char *path)
{
    path_of (path, name);
    const char *meta [] = { "name", "w7", "role", "worker", "streams", "orders,billing.*" };
    char err [512];
    cr_assert_eq (dlq_cert_generate (path, meta, 3, err, sizeof err), DLQ_CERT_OK, "%s", err);
}

Test (cert, a_generated_pair_loads_back)
{
    char path [512], secret [600];
    generate ("w7.key", path);
    snprintf (secret, sizeof secret, "%s_secret", path);
    struct stat st;
    cr_assert_eq (stat (secret, &st), 0);
    cr_expect_eq (st.st_mode & 0777, 0600, "mode %o", st.st_mode & 0777);
    cr_assert_eq (stat (path, &st), 0);
    cr_expect_eq (st.st_mode & 0777, 0644);
    char err [512];
    dlq_cert_t *pub = NULL, *full = NULL, *via_public = NULL;
    cr_assert_eq (dlq_cert_load (path, false, &pub, err, sizeof err), DLQ_CERT_OK, "%s", err);
    cr_assert_eq (dlq_cert_load (secret, true, &full, err, sizeof err), DLQ_CERT_OK, "%s", err);
    cr_assert_eq (dlq_cert_load (path, true, &via_public, err, sizeof err), DLQ_CERT_OK, "%s", err);
    cr_expect_str_eq (dlq_cert_public (pub), dlq_cert_public (full));
    cr_expect_str_eq (dlq_cert_secret (full), dlq_cert_secret (via_public));
    cr_expect_null (dlq_cert_secret (pub), "a public load holds no secret");
    cr_expect (dlq_cert_key_valid (dlq_cert_public (pub)));
    cr_expect_str_eq (dlq_cert_meta (pub, "role"), "worker");
    cr_expect_str_eq (dlq_cert_meta (pub, "streams"), "orders,billing.*");
    cr_expect_str_eq (dlq_cert_meta (full, "name"), "w7");
    cr_expect_null (dlq_cert_meta (pub, "nothing"));
    char *text = test_read_file (path, NULL);
    cr_expect (strstr (text, "secret-key") == NULL, "the public file holds no secret:\n%s", text);
    cr_expect (strstr (text, dlq_cert_secret (full)) == NULL);
    free (text);
    dlq_cert_destroy (&pub);
    dlq_cert_destroy (&full);
    dlq_cert_destroy (&via_public);
    cr_expect_null (pub);
}

Test (cert, a_pair_is_never_overwritten)
{
    char path [512], err [512];
    generate ("a.key", path);
    char *before = test_read_file (path, NULL);
    const char *meta [] = { "name", "other" };
    cr_expect_eq (dlq_cert_generate (path, meta, 1, err, sizeof err), DLQ_CERT_ERR_EXISTS);
    cr_expect (strstr (err, path) != NULL, "%s", err);
    char *after = test_read_file (path, NULL);
    cr_expect_str_eq (before, after);
    free (before);
    free (after);
    char lone [512], lone_secret [600];
    path_of (lone, "b.key");
    snprintf (lone_secret, sizeof lone_secret, "%s_secret", lone);
    write_file (lone_secret, "keep me", 0600);
    cr_expect_eq (dlq_cert_generate (lone, meta, 1, err, sizeof err), DLQ_CERT_ERR_EXISTS, "a secret in the way");
    cr_expect_neq (access (lone, F_OK), 0, "nothing written");
    char *kept = test_read_file (lone_secret, NULL);
    cr_expect_str_eq (kept, "keep me");
    free (kept);
}

Test (cert, every_unusable_file_is_an_error_naming_it)
{
    char path [512], err [512];
    dlq_cert_t *cert = NULL;
    path_of (path, "missing.key");
    cr_expect_eq (dlq_cert_load (path, false, &cert, err, sizeof err), DLQ_CERT_ERR_MISSING);
    cr_expect (strstr (err, path) != NULL, "%s", err);
    cr_expect_eq (dlq_cert_load (dir, false, &cert, err, sizeof err), DLQ_CERT_ERR_UNREADABLE, "a directory");
    path_of (path, "junk.key");
    write_file (path, "this is not ZPL {{{", 0644);
    cr_expect_eq (dlq_cert_load (path, false, &cert, err, sizeof err), DLQ_CERT_ERR_MALFORMED);
    cr_expect (strstr (err, path) != NULL, "%s", err);
    write_file (path, "curve\n    public-key = \"short\"\n", 0644);
    cr_expect_eq (dlq_cert_load (path, false, &cert, err, sizeof err), DLQ_CERT_ERR_MALFORMED, "a short key");
    write_file (path, "curve\n    public-key = \"~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~\"\n", 0644);
    cr_expect_eq (dlq_cert_load (path, false, &cert, err, sizeof err), DLQ_CERT_ERR_MALFORMED,
                  "40 characters that are not Z85");
    write_file (path, "", 0644);
    cr_expect_eq (dlq_cert_load (path, false, &cert, err, sizeof err), DLQ_CERT_ERR_MALFORMED, "empty");
    cr_expect_null (cert);
}

Test (cert, a_secret_must_be_there_be_its_own_and_be_private)
{
    char path [512], secret [600], err [512];
    generate ("w.key", path);
    snprintf (secret, sizeof secret, "%s_secret", path);
    dlq_cert_t *cert = NULL;
    char lone [512];
    path_of (lone, "lone.key");
    char *pub = test_read_file (path, NULL);
    write_file (lone, pub, 0644);
    free (pub);
    cr_expect_eq (dlq_cert_load (lone, true, &cert, err, sizeof err), DLQ_CERT_ERR_MISSING,
                  "a public file without its _secret");
    char copy [512];
    path_of (copy, "copy.key_secret");
    char *text = test_read_file (path, NULL);
    write_file (copy, text, 0600);
    free (text);
    cr_expect_eq (dlq_cert_load (copy, true, &cert, err, sizeof err), DLQ_CERT_ERR_NO_SECRET);
    cr_expect (strstr (err, copy) != NULL, "%s", err);
    /* another pair's secret under this public key */
    char other [512], other_secret [600];
    generate ("other.key", other);
    snprintf (other_secret, sizeof other_secret, "%s_secret", other);
    char *o = test_read_file (other_secret, NULL), *mine = test_read_file (secret, NULL);
    char *okey = strstr (o, "secret-key"), *mkey = strstr (mine, "secret-key");
    cr_assert (okey && mkey);
    memcpy (mkey, okey, 55);            /* secret-key = "<40 characters>" */
    char mixed [512];
    path_of (mixed, "mixed.key_secret");
    write_file (mixed, mine, 0600);
    free (o);
    free (mine);
    cr_expect_eq (dlq_cert_load (mixed, true, &cert, err, sizeof err), DLQ_CERT_ERR_MALFORMED);
    cr_expect (strstr (err, "does not belong") != NULL, "%s", err);
    chmod (secret, 0640);
    cr_expect_eq (dlq_cert_load (secret, true, &cert, err, sizeof err), DLQ_CERT_ERR_EXPOSED);
    cr_expect (strstr (err, "chmod 600") != NULL && strstr (err, secret) != NULL, "%s", err);
    chmod (secret, 0400);
    cr_expect_eq (dlq_cert_load (secret, true, &cert, err, sizeof err), DLQ_CERT_OK, "0400 is private: %s", err);
    dlq_cert_destroy (&cert);
}
