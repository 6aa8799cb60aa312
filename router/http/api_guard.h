/*  api_guard — what keeps a web page in the operator's browser from using
 *  the HTTP API behind the operator's back (docs/api.md, "Browsers"):
 *    - DNS rebinding: on a listener bound to loopback only, the Host header
 *      must name a loopback host (localhost, 127.x.y.z, [::1]), so a page of
 *      another site whose name was pointed at 127.0.0.1 reads nothing;
 *    - cross-site requests: a request whose Origin is another origin than
 *      http://HOST, or that the browser marks Sec-Fetch-Site: cross-site, is
 *      refused; and a state-changing request (POST, PUT, DELETE) must say
 *      Content-Type: application/json, which a page of another site can only
 *      send after a CORS preflight that the API never allows;
 *  and the token of a request's Authorization header (security.md, "HTTP
 *  tokens"), which a browser never adds by itself.
 *  Pure.
 */
#ifndef DLQ_API_GUARD_H
#define DLQ_API_GUARD_H

#include <stdbool.h>
#include <stddef.h>

/* True when host ("NAME[:PORT]", "[::1]:PORT", any case) names this
 * machine's loopback: localhost, 127.0.0.0/8 or ::1. The Host check of
 * every path of a loopback-only listener (/metrics included). */
bool dlq_api_guard_host (const char *host);

/* NULL when the request may go on, else why not (for a 403 body). Any
 * header may be NULL (absent); loopback_only: every http.listen address
 * is a loopback one. */
const char *dlq_api_guard_check (const char *method, const char *host, const char *origin,
                                 const char *fetch_site, const char *content_type, bool loopback_only);

/* The token of an Authorization header "Bearer TOKEN" (the scheme in any
 * case, spaces after it, TOKEN 1 to DLQ_TOKEN_MAX bytes of visible ASCII,
 * spaces or tabs after it): true with *token pointing into header and
 * *len, else false (NULL, another scheme, a second word, a control byte). */
bool dlq_api_guard_bearer (const char *header, const char **token, size_t *len);

#endif
