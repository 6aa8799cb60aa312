/*  key_table — the client certificates of a directory, by public key (see
 *  the header).
 */
#include "key_table.h"

#include "dlq_alloc.h"
#include "dlq_cert.h"
#include "dlq_hash.h"
#include "dlq_strmap.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct dlq_key_table {
    dlq_strmap_t *by_key;           /* public key -> dlq_principal_t (owned) */
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
    if (!p)
        dlq_buf_printf (problems, "%s: %s\n", path, why);
    else
    if (dlq_strmap_get (self->by_key, dlq_cert_public (cert))) {
        dlq_buf_printf (problems, "%s: the same public key as a file read before it\n", path);
        dlq_principal_destroy (&p);
    }
    else
        dlq_strmap_put (self->by_key, dlq_cert_public (cert), p);
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
    dlq_strmap_destroy (&(*self_p)->by_key);
    free (*self_p);
    *self_p = NULL;
}
