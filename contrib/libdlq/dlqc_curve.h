/*  dlqc_curve — the CURVE keys of a libdlq socket (internal, not
 *  installed): the gateway's public key and the client's key pair, read
 *  from the certificate files dlqctl keygen (or any zcert tool) writes
 *  (core/dlq_cert.h), and set on every socket the client opens.
 */
#ifndef DLQC_CURVE_H
#define DLQC_CURVE_H

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    bool on;                    /* false: no CURVE (the keys are unset) */
    char server [41];           /* Z85 */
    char public_key [41];
    char secret_key [41];
} dlqc_curve_t;

/* Fill curve from server_key (the gateway's public key as 40 Z85
 * characters, or the path of its public certificate) and client_cert (the
 * path of the client's certificate: its _secret file, or the public file
 * beside it). False with errno EINVAL and, when err is not NULL, a message
 * naming the file in err otherwise. */
bool dlqc_curve_load (dlqc_curve_t *curve, const char *server_key, const char *client_cert,
                      char *err, size_t err_len);

/* After a CURVE constructor made its socket (opened true) or could not:
 * wipe the keys from curve and, when it could not, say why in err (when
 * not NULL), keeping errno. */
void dlqc_curve_done (dlqc_curve_t *curve, bool opened, const char *endpoint, char *err, size_t err_len);

/* Make sock a CURVE client with curve's keys (nothing when curve is NULL
 * or off). False with errno set when libzmq refused. */
bool dlqc_curve_apply (const dlqc_curve_t *curve, void *sock);

#endif
