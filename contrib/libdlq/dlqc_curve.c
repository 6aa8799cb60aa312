/*  dlqc_curve — CURVE keys of libdlq's sockets (see the header). */
#include "dlqc_curve.h"

#include "dlq_cert.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <zmq.h>

static bool
refuse (char *err, size_t err_len, const char *what, const char *why)
{
    if (err && err_len)
        snprintf (err, err_len, "%s%s", what, why);
    errno = EINVAL;
    return false;
}

bool
dlqc_curve_load (dlqc_curve_t *curve, const char *server_key, const char *client_cert, char *err, size_t err_len)
{
    memset (curve, 0, sizeof *curve);
    if (!server_key || !client_cert)
        return refuse (err, err_len, "CURVE needs the gateway's public key and a client certificate", "");
    dlq_cert_t *cert = NULL;
    char why [512];
    if (dlq_cert_key_valid (server_key))
        snprintf (curve->server, sizeof curve->server, "%s", server_key);
    else
    if (dlq_cert_load (server_key, false, &cert, why, sizeof why) == DLQ_CERT_OK) {
        snprintf (curve->server, sizeof curve->server, "%s", dlq_cert_public (cert));
        dlq_cert_destroy (&cert);
    }
    else {
        strncat (why, " (give 40 Z85 characters or the gateway's public certificate)", sizeof why - strlen (why) - 1);
        return refuse (err, err_len, "server key: ", why);
    }
    if (dlq_cert_load (client_cert, true, &cert, why, sizeof why) != DLQ_CERT_OK)
        return refuse (err, err_len, "client certificate: ", why);
    snprintf (curve->public_key, sizeof curve->public_key, "%s", dlq_cert_public (cert));
    snprintf (curve->secret_key, sizeof curve->secret_key, "%s", dlq_cert_secret (cert));
    dlq_cert_destroy (&cert);
    curve->on = true;
    return true;
}

void
dlqc_curve_done (dlqc_curve_t *curve, bool opened, const char *endpoint, char *err, size_t err_len)
{
    int saved = errno;
    memset (curve, 0, sizeof *curve);
    if (!opened && err && err_len)
        snprintf (err, err_len, "%s: %s", endpoint ? endpoint : "(no endpoint)", zmq_strerror (saved));
    errno = saved;
}

bool
dlqc_curve_apply (const dlqc_curve_t *curve, void *sock)
{
    if (!curve || !curve->on)
        return true;
    return zmq_setsockopt (sock, ZMQ_CURVE_SERVERKEY, curve->server, 40) == 0
        && zmq_setsockopt (sock, ZMQ_CURVE_PUBLICKEY, curve->public_key, 40) == 0
        && zmq_setsockopt (sock, ZMQ_CURVE_SECRETKEY, curve->secret_key, 40) == 0;
}
