/*  dlq_endpoint — whether an endpoint is reachable only from this host
 *  (see the header).
 */
#include "dlq_endpoint.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

/* The host part of "tcp://HOST:PORT" into out (brackets of an IPv6
 * address removed); false when endpoint has no ':PORT'. */
static bool
tcp_host (const char *rest, char *out, size_t max)
{
    const char *colon = strrchr (rest, ':');
    if (!colon || colon == rest)
        return false;
    size_t len = (size_t) (colon - rest);
    if (rest [0] == '[' && len >= 2 && rest [len - 1] == ']') {
        rest++;
        len -= 2;
    }
    if (len == 0 || len >= max)
        return false;
    memcpy (out, rest, len);
    out [len] = '\0';
    return true;
}

bool
dlq_endpoint_is_local (const char *endpoint)
{
    if (strncmp (endpoint, "ipc://", 6) == 0 || strncmp (endpoint, "inproc://", 9) == 0)
        return true;
    if (strncmp (endpoint, "tcp://", 6) != 0)
        return false;
    const char *rest = endpoint + 6;
    if (strchr (rest, ';'))             /* a source address: only for connects */
        return false;
    char host [256];
    if (!tcp_host (rest, host, sizeof host))
        return false;
    if (strcmp (host, "localhost") == 0 || strcmp (host, "lo") == 0)
        return true;
    struct in_addr v4;
    if (inet_pton (AF_INET, host, &v4) == 1)
        return (ntohl (v4.s_addr) >> 24) == 127;
    struct in6_addr v6;
    if (inet_pton (AF_INET6, host, &v6) == 1)
        return memcmp (&v6, &in6addr_loopback, sizeof v6) == 0;
    return false;
}
