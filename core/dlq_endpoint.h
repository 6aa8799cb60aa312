/*  dlq_endpoint — what a ZeroMQ endpoint or an HTTP listen address that
 *  dlqd binds exposes: whether only this host can reach it. The rule that a non-loopback listen needs
 *  CURVE (security.allow_insecure) rests on it. Pure.
 */
#ifndef DLQ_ENDPOINT_H
#define DLQ_ENDPOINT_H

#include <stdbool.h>
#include <stddef.h>

/* True when only processes of this host can connect to endpoint bound as
 * written: ipc:// and inproc://, and tcp:// on a loopback address
 * (127.0.0.0/8, [::1], localhost, or the interface lo). Everything else —
 * tcp:// on every interface ('*') or 0.0.0.0, on any other address or
 * interface, and every other transport — is reachable from the network. */
bool dlq_endpoint_is_local (const char *endpoint);

/* Split an HTTP listen address "HOST:PORT" into host (without the
 * brackets of "[::1]"; "" for "*") and port (1-65535); false when it is
 * not that shape. */
bool dlq_endpoint_split_http (const char *listen, char *host, size_t host_len, unsigned *port);

/* True when only this host can reach the HTTP listen address (a loopback
 * host, as for tcp:// endpoints above); false for anything else,
 * malformed addresses included. */
bool dlq_endpoint_http_is_local (const char *listen);

#endif
