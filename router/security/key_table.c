/*  key_table — the client certificates of a directory, by public key (see
 *  the header).
 */
#include "key_table.h"

#include "dlq_alloc.h"
#include "dlq_cert.h"
#include "dlq_hash.h"
#include "dlq_strmap.h"
#include "dlq_token.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct dlq_key_table {
    dlq_strmap_t *by_key;           /* public key -> dlq_principal_t (owned) */
    dlq_strmap_t *by_token;         /* token_sha256 -> the same principal (borrowed) */
};

static void
free_principal (void *p)
{
    dlq_principal_t *principal = p;
    dlq_principal_destroy (&principal);
}

/* Files of dir that are read: not hidden, not a secret. */
static bool
is_certificate_name (const char *name)
{
    size_t n = strlen (name);
    return name [0] != '.' && !(n >= 7 && strcmp (name + n - 7, "_secret") == 0);
}

/* The principal of the certificate at path, or NULL and why. */
static dlq_principal_t *
principal_of (const dlq_cert_t *cert, char *why, size_t why_len)
{
    const char *name = dlq_cert_meta (cert, "name"), *role_text = dlq_cert_meta (cert, "role");
    const char *streams = dlq_cert_meta (cert, "streams");
    dlq_role_t role;
    if (!name) {
        snprintf (why, why_len, "no metadata name");
        return NULL;
    }
    if (!dlq_principal_role_parse (role_text, &role)) {
        snprintf (why, why_len, "metadata role is %s%s%s; expected worker, viewer, operator or admin",
                  role_text ? "\"" : "", role_text ? role_text : "missing", role_text ? "\"" : "");
        return NULL;
    }
    if (!streams && role == DLQ_ROLE_ADMIN)
        streams = "*";
    char err [256];
    dlq_principal_t *p = dlq_principal_new (name, role, streams, err, sizeof err);
    if (!p)
        snprintf (why, why_len, "metadata: %s", err);
    return p;
}

/* The certificate's token_sha256 hashes, each valid and not taken by a
 * file read before: true, or false and why. */
static bool
tokens_valid (const dlq_key_table_t *self, const char *tokens, char *why, size_t why_len)
{
    for (const char *p = tokens; p; ) {
        size_t n = strcspn (p, ",");
        if (!dlq_token_hash_valid (p, n)) {
            snprintf (why, why_len, "metadata token_sha256 must be SHA-256s of tokens, each 64 lower-case hex "
                      "digits, separated by commas");
            return false;
        }
        char hash [DLQ_TOKEN_HASH_LEN + 1];
        memcpy (hash, p, n);
        hash [n] = '\0';
        if (dlq_strmap_get (self->by_token, hash)) {
            snprintf (why, why_len, "a token_sha256 of a file read before it");
            return false;
        }
        p = p [n] ? p + n + 1 : NULL;
    }
    return true;
}

/* Index the principal by each of its token hashes (tokens_valid said yes). */
static void
put_tokens (dlq_key_table_t *self, const char *tokens, dlq_principal_t *p)
{
    for (const char *t = tokens; tokens && *t; t += DLQ_TOKEN_HASH_LEN + (t [DLQ_TOKEN_HASH_LEN] == ',')) {
        char hash [DLQ_TOKEN_HASH_LEN + 1];
        memcpy (hash, t, DLQ_TOKEN_HASH_LEN);
        hash [DLQ_TOKEN_HASH_LEN] = '\0';
        dlq_strmap_put (self->by_token, hash, p);
    }
}

/* Read the certificate file at path into self, or say why not. */
static void
load_one (dlq_key_table_t *self, const char *path, dlq_buf_t *problems)
{
    char why [512];
    dlq_cert_t *cert = NULL;
    if (dlq_cert_load (path, false, &cert, why, sizeof why) != DLQ_CERT_OK) {
        dlq_buf_printf (problems, "%s\n", why);
        return;
    }
    dlq_principal_t *p = principal_of (cert, why, sizeof why);
    const char *tokens = dlq_cert_meta (cert, "token_sha256");
    if (p && dlq_strmap_get (self->by_key, dlq_cert_public (cert)))
        snprintf (why, sizeof why, "the same public key as a file read before it");
    if (!p || dlq_strmap_get (self->by_key, dlq_cert_public (cert)) || !tokens_valid (self, tokens, why, sizeof why)) {
        dlq_buf_printf (problems, "%s: %s\n", path, why);
        dlq_principal_destroy (&p);
    }
    else {
        dlq_strmap_put (self->by_key, dlq_cert_public (cert), p);
        put_tokens (self, tokens, p);
    }
    dlq_cert_destroy (&cert);
}

static int
by_name (const void *a, const void *b)
{
    return strcmp (*(char *const *) a, *(char *const *) b);
}

/* The certificate names of dir, sorted (caller frees each and the array);
 * NULL when dir cannot be read. */
static char **
list_dir (const char *dir, size_t *count)
{
    DIR *d = opendir (dir);
    if (!d)
        return NULL;
    char **names = NULL;
    size_t n = 0;
    for (struct dirent *e; (e = readdir (d)) != NULL; )
        if (is_certificate_name (e->d_name)) {
            names = dlq_realloc (names, (n + 1) * sizeof *names);
            names [n++] = dlq_strdup (e->d_name);
        }
    closedir (d);
    if (n)
        qsort (names, n, sizeof *names, by_name);
    *count = n;
    return names ? names : dlq_calloc (1, sizeof *names);
}

static void
free_names (char **names, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free (names [i]);
    free (names);
}

dlq_key_table_t *
dlq_key_table_load (const char *dir, dlq_buf_t *problems, char *err, size_t err_len)
{
    size_t count = 0;
    char **names = list_dir (dir, &count);
    if (!names) {
        snprintf (err, err_len, "%s: %s", dir, strerror (errno));
        return NULL;
    }
    dlq_key_table_t *self = dlq_calloc (1, sizeof *self);
    self->by_key = dlq_strmap_new (free_principal);
    self->by_token = dlq_strmap_new (NULL);
    for (size_t i = 0; i < count; i++) {
        dlq_buf_t path = DLQ_BUF_INIT;
        dlq_buf_printf (&path, "%s/%s", dir, names [i]);
        struct stat st;
        if (stat (path.data, &st) == 0 && S_ISREG (st.st_mode))
            load_one (self, path.data, problems);
        dlq_buf_free (&path);
    }
    free_names (names, count);
    return self;
}

dlq_principal_t *
dlq_key_table_find (const dlq_key_table_t *self, const char *public_key)
{
    return dlq_strmap_get (self->by_key, public_key);
}

dlq_principal_t *
dlq_key_table_find_token (const dlq_key_table_t *self, const void *token, size_t len)
{
    if (len == 0 || len > DLQ_TOKEN_MAX)
        return NULL;
    char hash [DLQ_TOKEN_HASH_LEN + 1];
    dlq_token_hash (token, len, hash);
    return dlq_strmap_get (self->by_token, hash);
}

size_t dlq_key_table_count (const dlq_key_table_t *self) { return dlq_strmap_size (self->by_key); }

bool
dlq_key_table_signature (const char *dir, uint64_t *signature)
{
    size_t count = 0;
    char **names = list_dir (dir, &count);
    if (!names)
        return false;
    uint64_t h = dlq_hash_fnv64 (NULL, 0);
    for (size_t i = 0; i < count; i++) {
        dlq_buf_t path = DLQ_BUF_INIT;
        dlq_buf_printf (&path, "%s/%s", dir, names [i]);
        struct stat st;
        int64_t facts [4] = { 0 };
        if (stat (path.data, &st) == 0) {
            facts [0] = (int64_t) st.st_size;
            facts [1] = (int64_t) st.st_mtim.tv_sec;
            facts [2] = (int64_t) st.st_mtim.tv_nsec;
            facts [3] = (int64_t) st.st_ino;
        }
        h = dlq_hash_fnv64_more (h, names [i], strlen (names [i]) + 1);
        h = dlq_hash_fnv64_more (h, facts, sizeof facts);
        dlq_buf_free (&path);
    }
    free_names (names, count);
    *signature = h;
    return true;
}

void
dlq_key_table_destroy (dlq_key_table_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_strmap_destroy (&(*self_p)->by_token);
    dlq_strmap_destroy (&(*self_p)->by_key);
    free (*self_p);
    *self_p = NULL;
}
