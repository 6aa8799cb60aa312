/*  api_guard — Host, Origin, Sec-Fetch-Site and Content-Type checks of an
 *  API request, and its bearer token (see the header). */
#include "api_guard.h"

#include "dlq_endpoint.h"
#include "dlq_token.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

bool
dlq_api_guard_host (const char *host)
{
    char with_port [300];
    if (!host || !host [0] || strlen (host) > 255)
        return false;
    /* dlq_endpoint_http_is_local wants HOST:PORT, and a lower-case name */
    bool has_port = host [0] == '[' ? strstr (host, "]:") != NULL : strchr (host, ':') != NULL;
    snprintf (with_port, sizeof with_port, has_port ? "%s" : "%s:80", host);
    for (char *p = with_port; *p; p++)
        *p = (char) tolower ((unsigned char) *p);
    return dlq_endpoint_http_is_local (with_port);
}

const char *
dlq_api_guard_check (const char *method, const char *host, const char *origin, const char *fetch_site,
                     const char *content_type, bool loopback_only)
{
    if (!host || !host [0])
        return "the request has no Host header";
    if (loopback_only && !dlq_api_guard_host (host))
        return "the Host header does not name this machine (localhost, 127.0.0.1 or [::1]): "
               "the HTTP listener is on loopback only";
    if (fetch_site && strcasecmp (fetch_site, "cross-site") == 0)
        return "a cross-site request (Sec-Fetch-Site: cross-site)";
    if (origin && strcmp (origin, "null") != 0) {
        char same [320];
        snprintf (same, sizeof same, "http://%s", host);
        if (strcasecmp (origin, same) != 0)
            return "the request's Origin is another site";
    }
    else
    if (origin)
        return "the request's Origin is null (a sandboxed or file page)";
    bool changes = !strcmp (method, "POST") || !strcmp (method, "PUT") || !strcmp (method, "DELETE");
    if (changes) {
        size_t n = strlen ("application/json");
        if (!content_type || strncasecmp (content_type, "application/json", n) != 0
            || (content_type [n] && content_type [n] != ';' && content_type [n] != ' '))
            return "a POST, PUT or DELETE must have Content-Type: application/json";
    }
    return NULL;
}

bool
dlq_api_guard_bearer (const char *header, const char **token, size_t *len)
{
    static const char scheme [] = "bearer ";
    if (!header || strncasecmp (header, scheme, sizeof scheme - 1) != 0)
        return false;
    const char *t = header + sizeof scheme - 1;
    while (*t == ' ')
        t++;
    size_t n = 0;
    while (t [n] > ' ' && t [n] < 0x7f)
        n++;
    for (size_t i = n; t [i]; i++)
        if (t [i] != ' ' && t [i] != '\t')
            return false;
    *token = t;
    *len = n;
    return n > 0 && n <= DLQ_TOKEN_MAX;
}
