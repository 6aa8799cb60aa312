/*  dlq_cert — CURVE certificates through CZMQ's zcert (see the header).
 */
#include "dlq_cert.h"

#include "dlq_alloc.h"

#include <czmq.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PATH_MAX_CERT 240       /* a path and "_secret" fit zcert's 256 bytes */
#define CERT_FILE_MAX 65536     /* a certificate is a few hundred bytes */
#define SECRET_SUFFIX "_secret"

/* CZMQ starts its zsys layer by itself the first time it logs (zconfig
 * does, on a file it cannot parse), and zsys then takes SIGINT and SIGTERM
 * for its own: dlqd's drain on SIGTERM would never run. Told first that
 * there is no handler to install, it leaves the process's signals alone. */
static pthread_once_t czmq_once = PTHREAD_ONCE_INIT;

static void
czmq_leave_signals (void)
{
    zsys_handler_set (NULL);
}

struct dlq_cert {
    zcert_t *cert;
    bool     has_secret;
};

bool
dlq_cert_key_valid (const char *text)
{
    uint8_t key [32];
    return text && strlen (text) == DLQ_CERT_KEY_LEN && zmq_z85_decode (key, text) != NULL;
}

static bool
ends_with_secret (const char *path)
{
    size_t n = strlen (path), s = strlen (SECRET_SUFFIX);
    return n > s && strcmp (path + n - s, SECRET_SUFFIX) == 0;
}

static bool
all_zero (const uint8_t *key)
{
    for (int i = 0; i < 32; i++)
        if (key [i])
            return false;
    return true;
}

/* Can path be opened for reading? An error naming it otherwise. */
static dlq_cert_result_t
check_readable (const char *path, bool secret, char *err, size_t err_len)
{
    struct stat st;
    if (stat (path, &st) != 0) {
        snprintf (err, err_len, "%s: %s", path, strerror (errno));
        return errno == ENOENT ? DLQ_CERT_ERR_MISSING : DLQ_CERT_ERR_UNREADABLE;
    }
    if (!S_ISREG (st.st_mode)) {
        snprintf (err, err_len, "%s: not a regular file", path);
        return DLQ_CERT_ERR_UNREADABLE;
    }
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf (err, err_len, "%s: %s", path, strerror (errno));
        return DLQ_CERT_ERR_UNREADABLE;
    }
    close (fd);
    if (secret && (st.st_mode & 077)) {
        snprintf (err, err_len, "%s holds a secret key and others can read it (mode %04o); "
                  "run: chmod 600 %s", path, (unsigned) (st.st_mode & 07777), path);
        return DLQ_CERT_ERR_EXPOSED;
    }
    return DLQ_CERT_OK;
}

/* The whole of the file at path (NUL-terminated, at most CERT_FILE_MAX
 * bytes), or NULL with errno set. */
static char *
read_small_file (const char *path)
{
    FILE *f = fopen (path, "re");
    if (!f)
        return NULL;
    char *text = dlq_malloc (CERT_FILE_MAX + 1);
    size_t n = fread (text, 1, CERT_FILE_MAX + 1, f);
    bool failed = ferror (f) != 0;
    fclose (f);
    if (failed || n > CERT_FILE_MAX) {
        free (text);
        errno = failed ? EIO : EFBIG;
        return NULL;
    }
    text [n] = '\0';
    return text;
}

/* The key at name in root decoded into key, when it is 40 Z85 characters. */
static bool
zpl_key (zconfig_t *root, const char *name, uint8_t key [32])
{
    char *text = zconfig_get (root, name, NULL);
    return dlq_cert_key_valid (text) && zmq_z85_decode (key, text) != NULL;
}

/* The certificate in the ZPL file at path: its public key, its secret key
 * when need_secret (all zeros when absent) and its metadata; NULL when the
 * file is no ZPL or has no valid public key. The text is read here and
 * parsed with zconfig_str_load: CZMQ's own zcert_load / zconfig_load leak
 * their file object on a file they cannot parse, and zcert_load reads a
 * "<path>_secret" beside a public file by itself. */
static zcert_t *
load_zpl (const char *path, bool need_secret)
{
    char *text = read_small_file (path);
    if (!text)
        return NULL;
    zconfig_t *root = zconfig_str_load (text);
    free (text);
    if (!root)
        return NULL;
    zcert_t *cert = NULL;
    uint8_t public_key [32], secret_key [32] = { 0 };
    if (zpl_key (root, "/curve/public-key", public_key)) {
        if (need_secret && !zpl_key (root, "/curve/secret-key", secret_key))
            memset (secret_key, 0, sizeof secret_key);
        cert = zcert_new_from (public_key, secret_key);
        zconfig_t *meta = zconfig_locate (root, "/metadata");
        for (zconfig_t *item = meta ? zconfig_child (meta) : NULL; item; item = zconfig_next (item))
            if (zconfig_name (item) && zconfig_value (item))
                zcert_set_meta (cert, zconfig_name (item), "%s", zconfig_value (item));
    }
    zconfig_destroy (&root);
    return cert;
}

/* The secret text of the ZPL file at path is a key of the public one? */
static bool
secret_matches (zcert_t *cert)
{
    char derived [DLQ_CERT_KEY_LEN + 1];
    return zmq_curve_public (derived, zcert_secret_txt (cert)) == 0
        && strcmp (derived, zcert_public_txt (cert)) == 0;
}

dlq_cert_result_t
dlq_cert_load (const char *path, bool need_secret, dlq_cert_t **cert_out, char *err, size_t err_len)
{
    pthread_once (&czmq_once, czmq_leave_signals);
    *cert_out = NULL;
    if (strlen (path) > PATH_MAX_CERT) {
        snprintf (err, err_len, "%.64s...: the path is longer than %d bytes", path, PATH_MAX_CERT);
        return DLQ_CERT_ERR_UNREADABLE;
    }
    char file [PATH_MAX_CERT + sizeof SECRET_SUFFIX];
    snprintf (file, sizeof file, "%s%s", path, need_secret && !ends_with_secret (path) ? SECRET_SUFFIX : "");
    dlq_cert_result_t rc = check_readable (file, need_secret, err, err_len);
    if (rc != DLQ_CERT_OK)
        return rc;
    zcert_t *cert = load_zpl (file, need_secret);
    if (!cert || all_zero (zcert_public_key (cert))) {
        snprintf (err, err_len, "%s: not a CURVE certificate (expected a ZPL file with curve/public-key, "
                  "40 Z85 characters)", file);
        zcert_destroy (&cert);
        return DLQ_CERT_ERR_MALFORMED;
    }
    if (need_secret && all_zero (zcert_secret_key (cert))) {
        snprintf (err, err_len, "%s: no secret key (curve/secret-key): give the _secret file of the pair", file);
        zcert_destroy (&cert);
        return DLQ_CERT_ERR_NO_SECRET;
    }
    if (need_secret && !secret_matches (cert)) {
        snprintf (err, err_len, "%s: its secret key does not belong to its public key", file);
        zcert_destroy (&cert);
        return DLQ_CERT_ERR_MALFORMED;
    }
    dlq_cert_t *self = dlq_calloc (1, sizeof *self);
    self->cert = cert;
    self->has_secret = need_secret;
    *cert_out = self;
    return DLQ_CERT_OK;
}

const char *dlq_cert_public (const dlq_cert_t *self) { return zcert_public_txt (self->cert); }

const char *
dlq_cert_secret (const dlq_cert_t *self)
{
    return self->has_secret ? zcert_secret_txt (self->cert) : NULL;
}

const char *
dlq_cert_meta (const dlq_cert_t *self, const char *name)
{
    return zcert_meta (self->cert, name);
}

void
dlq_cert_destroy (dlq_cert_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    zcert_destroy (&(*self_p)->cert);
    free (*self_p);
    *self_p = NULL;
}

/* Create path (exclusively) with mode, empty; zcert then writes into it. */
static dlq_cert_result_t
create_exclusive (const char *path, mode_t mode, char *err, size_t err_len)
{
    int fd = open (path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    if (fd < 0) {
        snprintf (err, err_len, errno == EEXIST ? "%s exists: not overwritten (remove it first, or pick another name)"
                  : "%s: %s", path, strerror (errno));
        return errno == EEXIST ? DLQ_CERT_ERR_EXISTS : DLQ_CERT_ERR_IO;
    }
    fchmod (fd, mode);                  /* whatever the umask */
    close (fd);
    return DLQ_CERT_OK;
}

dlq_cert_result_t
dlq_cert_generate (const char *path, const char *const *meta, size_t count, char *err, size_t err_len)
{
    pthread_once (&czmq_once, czmq_leave_signals);
    if (strlen (path) > PATH_MAX_CERT) {
        snprintf (err, err_len, "%.64s...: the path is longer than %d bytes", path, PATH_MAX_CERT);
        return DLQ_CERT_ERR_IO;
    }
    char secret [PATH_MAX_CERT + sizeof SECRET_SUFFIX];
    snprintf (secret, sizeof secret, "%s%s", path, SECRET_SUFFIX);
    struct stat st;
    if (stat (path, &st) == 0) {
        snprintf (err, err_len, "%s exists: not overwritten (remove it first, or pick another name)", path);
        return DLQ_CERT_ERR_EXISTS;
    }
    dlq_cert_result_t rc = create_exclusive (secret, 0600, err, err_len);
    if (rc != DLQ_CERT_OK)
        return rc;
    rc = create_exclusive (path, 0644, err, err_len);
    if (rc != DLQ_CERT_OK) {
        unlink (secret);
        return rc;
    }
    zcert_t *cert = zcert_new ();
    for (size_t i = 0; i < count; i++)
        zcert_set_meta (cert, meta [2 * i], "%s", meta [2 * i + 1]);
    if (!cert || zcert_save_secret (cert, secret) != 0 || zcert_save_public (cert, path) != 0) {
        snprintf (err, err_len, "%s: cannot write the certificate pair: %s", path, strerror (errno));
        unlink (secret);
        unlink (path);
        zcert_destroy (&cert);
        return DLQ_CERT_ERR_IO;
    }
    zcert_destroy (&cert);
    return DLQ_CERT_OK;
}
