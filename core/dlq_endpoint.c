/*  dlq_endpoint — whether an endpoint is reachable only from this host
 *  (see the header).
 */
#include "dlq_endpoint.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
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

bool
dlq_endpoint_split_http (const char *listen, char *host, size_t host_len, unsigned *port)
{
    const char *colon = strrchr (listen, ':');
    if (!colon || colon == listen || !colon [1] || strspn (colon + 1, "0123456789") != strlen (colon + 1)
        || strlen (colon + 1) > 5)
        return false;
    unsigned long p = strtoul (colon + 1, NULL, 10);
    if (p == 0 || p > 65535)
        return false;
    const char *start = listen, *end = colon;
    if (*start == '[') {
        if (end [-1] != ']')
            return false;
        start++, end--;
    }
    size_t n = (size_t) (end - start);
    if (n == 0 || n >= host_len || (memchr (start, ':', n) && listen [0] != '['))
        return false;
    memcpy (host, start, n);
    host [n] = '\0';
    if (!strcmp (host, "*"))
        host [0] = '\0';
    *port = (unsigned) p;
    return true;
}

bool
dlq_endpoint_http_is_local (const char *listen)
{
    char host [256], endpoint [300];
    unsigned port;
    if (!dlq_endpoint_split_http (listen, host, sizeof host, &port) || !host [0])
        return false;
    snprintf (endpoint, sizeof endpoint, strchr (host, ':') ? "tcp://[%s]:%u" : "tcp://%s:%u", host, port);
    return dlq_endpoint_is_local (endpoint);
}
