/*  dlq_cert — CURVE certificates in the ZPL format of CZMQ's zcert (a
 *  public file, and beside it a file of the same name plus "_secret" that
 *  also holds the secret key), read and written through zcert, so that
 *  keys made by other ZeroMQ tools (zcert, curve_keygen + a ZPL file,
 *  pyzmq's zmq.auth) work here and the other way round.
 *
 *  Loading checks what zcert does not: that the file exists and can be
 *  read, that its keys are 40 Z85 characters that decode, that a secret
 *  key belongs to its public key, and that a secret file is not readable
 *  by anyone but its owner (as ssh does). Every error names the file.
 */
#ifndef DLQ_CERT_H
#define DLQ_CERT_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    DLQ_CERT_OK = 0,
    DLQ_CERT_ERR_MISSING,       /* no such file */
    DLQ_CERT_ERR_UNREADABLE,    /* it exists, but cannot be read */
    DLQ_CERT_ERR_MALFORMED,     /* not a certificate: no valid curve public-key, or a secret that is not its */
    DLQ_CERT_ERR_NO_SECRET,     /* a secret key is needed and the file has none */
    DLQ_CERT_ERR_EXPOSED,       /* a secret file that others can read */
    DLQ_CERT_ERR_EXISTS,        /* generate: a file is in the way */
    DLQ_CERT_ERR_IO             /* generate: cannot write */
} dlq_cert_result_t;

#define DLQ_CERT_KEY_LEN 40     /* a key in Z85 text */

typedef struct dlq_cert dlq_cert_t;

/* Load the certificate at path. With need_secret the secret key must be
 * there: path is then the secret file itself, or a public file whose
 * "_secret" file is read instead. Without, path is a public file (its
 * "_secret" file, if any, is not read). On DLQ_CERT_OK *cert_out gets the
 * certificate (caller destroys); otherwise err gets a message naming the
 * file and, for an exposed one, the chmod that fixes it. */
dlq_cert_result_t dlq_cert_load (const char *path, bool need_secret, dlq_cert_t **cert_out,
                                 char *err, size_t err_len);

/* The public key, 40 Z85 characters. */
const char *dlq_cert_public (const dlq_cert_t *self);

/* The secret key, 40 Z85 characters, or NULL when it was not loaded. */
const char *dlq_cert_secret (const dlq_cert_t *self);

/* The metadata value called name, or NULL. */
const char *dlq_cert_meta (const dlq_cert_t *self, const char *name);

void dlq_cert_destroy (dlq_cert_t **self_p);

/* A new key pair with metadata (pairs of name, value; count pairs) into
 * path (the public certificate, mode 0644) and path + "_secret" (mode
 * 0600, created so: never readable by others, not even for a moment).
 * Refuses (DLQ_CERT_ERR_EXISTS) when either file exists; nothing is then
 * written. */
dlq_cert_result_t dlq_cert_generate (const char *path, const char *const *meta, size_t count,
                                     char *err, size_t err_len);

/* True when text is 40 Z85 characters that decode to a key. Pure. */
bool dlq_cert_key_valid (const char *text);

#endif
