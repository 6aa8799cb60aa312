/*  dlqc_curve — CURVE keys of libdlq's sockets (see the header). */
#include "dlqc_curve.h"

#include "dlq_cert.h"

#include <stdio.h>
#include <string.h>
#include <zmq.h>

bool
dlqc_curve_load (dlqc_curve_t *curve, const char *server_key, const char *client_cert, char *err, size_t err_len)
{
    memset (curve, 0, sizeof *curve);
    if (!server_key || !client_cert) {
        snprintf (err, err_len, "CURVE needs the gateway's public key and a client certificate");
        return false;
    }
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
        snprintf (err, err_len, "server key: %s (give 40 Z85 characters or the gateway's public certificate)",
                  why);
        return false;
    }
    if (dlq_cert_load (client_cert, true, &cert, why, sizeof why) != DLQ_CERT_OK) {
        snprintf (err, err_len, "client certificate: %s", why);
        return false;
    }
    snprintf (curve->public_key, sizeof curve->public_key, "%s", dlq_cert_public (cert));
    snprintf (curve->secret_key, sizeof curve->secret_key, "%s", dlq_cert_secret (cert));
    dlq_cert_destroy (&cert);
    curve->on = true;
    return true;
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
