/*  dlq_endpoint — what a ZeroMQ endpoint that dlqd binds exposes: whether
 *  only this host can reach it. The rule that a non-loopback listen needs
 *  CURVE (security.allow_insecure) rests on it. Pure.
 */
#ifndef DLQ_ENDPOINT_H
#define DLQ_ENDPOINT_H

#include <stdbool.h>

/* True when only processes of this host can connect to endpoint bound as
 * written: ipc:// and inproc://, and tcp:// on a loopback address
 * (127.0.0.0/8, [::1], localhost, or the interface lo). Everything else —
 * tcp:// on every interface ('*') or 0.0.0.0, on any other address or
 * interface, and every other transport — is reachable from the network. */
bool dlq_endpoint_is_local (const char *endpoint);

#endif
