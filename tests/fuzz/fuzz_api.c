/*  fuzz_api — an HTTP API request as router/http reads it before the
 *  gateway sees it: its route (api_routes: method and path), the verb's
 *  body made from the path's segment, the query parameters and the request
 *  body, and the browser guards (api_guard: Host, Origin, Sec-Fetch-Site,
 *  Content-Type).
 *
 *  Input: frames separated by FUZZ_US: [method][url][body][host][origin]
 *  [fetch site][content type] and then query parameters as name, value
 *  pairs (at most DLQ_API_QUERY_MAX); a frame holding a NUL byte is cut
 *  there (as the HTTP server hands over C strings).
 *
 *  Oracles: a route is found only for a path under /api/v1/, its segment
 *  has no '/' and the route's method is the request's; NO_METHOD lists
 *  methods in Allow; a body made DLQ_OK is one JSON object (the project's
 *  parser) whose first member is the route's member with the segment as
 *  its value, and, for a query route, has each parameter's name once; a
 *  refusal is a bad-input code with a message; the status of every code
 *  is an HTTP error status; a request the guard lets through on a
 *  loopback listener has a loopback Host, no foreign Origin, and for a
 *  state-changing method a JSON Content-Type; every frame read as an
 *  Authorization header gives a bearer token only when it is "Bearer"
 *  (any case), spaces, 1 to DLQ_TOKEN_MAX visible ASCII bytes and nothing
 *  but blanks after them, and the token read again from "Bearer TOKEN" is
 *  itself.
 */
#include "api_guard.h"
#include "api_routes.h"
#include "dlq_json.h"
#include "dlq_token.h"
#include "fuzz_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define FRAMES (7 + 2 * DLQ_API_QUERY_MAX)

/* A frame as the C string the HTTP server would give (cut at a NUL). */
static char *
cstring (const fuzz_span_t *f)
{
    char *s = malloc (f->len + 1);
    memcpy (s, f->data, f->len);
    s [f->len] = '\0';
    return s;
}

static void
check_body (const dlq_api_route_t *route, const char *segment, const dlq_api_param_t *params, size_t n,
            const char *body, size_t body_len)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_error_t err = { DLQ_OK, "", "" };
    dlq_code_t code = dlq_api_route_body (route, segment, params, n, body, body_len, &out, &err);
    unsigned status = dlq_api_route_status (code);
    FUZZ_CHECK (code == DLQ_OK ? status == 200 : status >= 400 && status < 600);
    if (code != DLQ_OK) {
        FUZZ_CHECK (code == DLQ_ERR_INVALID_REQUEST || code == DLQ_ERR_INVALID_JSON || code == DLQ_ERR_INVALID_UTF8);
        FUZZ_CHECK (err.code == code && err.message [0]);
        dlq_buf_free (&out);
        return;
    }
    dlq_json_doc_t *doc = NULL;
    FUZZ_CHECK (dlq_json_parse (out.data, out.len, &doc, NULL) == DLQ_JSON_OK);
    const dlq_json_value_t *root = dlq_json_root (doc);
    FUZZ_CHECK (root->type == DLQ_JSON_OBJECT);
    if (route->member) {
        const dlq_json_value_t *first = root->child;
        FUZZ_CHECK (first && first->key_len == strlen (route->member)
                    && memcmp (first->key, route->member, first->key_len) == 0);
        FUZZ_CHECK (first->type == DLQ_JSON_STRING && first->len == strlen (segment)
                    && memcmp (first->str, segment, first->len) == 0);
    }
    if (route->body == DLQ_API_BODY_QUERY)
        for (size_t i = 0; i < n; i++) {
            if (strncmp (params [i].name, "metadata.", 9) == 0)
                continue;
            size_t seen = 0;
            for (const dlq_json_value_t *m = root->child; m; m = m->next)
                seen += m->key_len == strlen (params [i].name) && memcmp (m->key, params [i].name, m->key_len) == 0;
            FUZZ_CHECK (seen == 1);
        }
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&out);
}

static void
check_guard (const char *method, const char *host, const char *origin, const char *site, const char *type)
{
    const char *why = dlq_api_guard_check (method, host, origin, site, type, true);
    if (why)
        return;
    FUZZ_CHECK (host && host [0]);
    FUZZ_CHECK (!site || strcasecmp (site, "cross-site") != 0);
    FUZZ_CHECK (!origin || strncasecmp (origin, "http://", 7) == 0);
    if (!strcmp (method, "POST") || !strcmp (method, "PUT") || !strcmp (method, "DELETE"))
        FUZZ_CHECK (type && strncasecmp (type, "application/json", 16) == 0);
    /* a Host the guard takes on loopback names loopback, with or without a port */
    FUZZ_CHECK (dlq_api_guard_check (method, host, origin, site, type, false) == NULL);
}

static void
check_bearer (const char *header)
{
    const char *token = NULL;
    size_t len = 0;
    if (!dlq_api_guard_bearer (header, &token, &len))
        return;
    FUZZ_CHECK (strncasecmp (header, "bearer ", 7) == 0);
    FUZZ_CHECK (token >= header + 7 && len >= 1 && len <= DLQ_TOKEN_MAX && token + len <= header + strlen (header));
    for (const char *c = header + 7; c < token; c++)
        FUZZ_CHECK (*c == ' ');
    for (size_t i = 0; i < len; i++)
        FUZZ_CHECK (token [i] > ' ' && token [i] < 0x7f);
    for (const char *c = token + len; *c; c++)
        FUZZ_CHECK (*c == ' ' || *c == '\t');
    char again [8 + DLQ_TOKEN_MAX + 1];
    snprintf (again, sizeof again, "Bearer %.*s", (int) len, token);
    const char *t2 = NULL;
    size_t len2 = 0;
    FUZZ_CHECK (dlq_api_guard_bearer (again, &t2, &len2) && len2 == len && memcmp (t2, token, len) == 0);
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    fuzz_span_t f [FRAMES];
    size_t n = fuzz_split (data, size, FUZZ_US, f, FRAMES);
    char *s [FRAMES] = { NULL };
    for (size_t i = 0; i < n; i++)
        s [i] = cstring (&f [i]);
    const char *method = n > 0 ? s [0] : "GET", *url = n > 1 ? s [1] : "/api/v1/events";
    const char *body = n > 2 ? (const char *) f [2].data : NULL;
    size_t body_len = n > 2 ? f [2].len : 0;
    dlq_api_param_t params [DLQ_API_QUERY_MAX];
    size_t count = 0;
    for (size_t i = 7; i + 1 < n && count < DLQ_API_QUERY_MAX; i += 2)
        params [count++] = (dlq_api_param_t) { s [i], s [i + 1] };

    const dlq_api_route_t *route = NULL;
    char segment [512], allow [64];
    dlq_api_match_t match = dlq_api_route_find (method, url, &route, segment, sizeof segment, allow, sizeof allow);
    if (match == DLQ_API_MATCHED) {
        FUZZ_CHECK (route && strncmp (url, DLQ_API_PREFIX, strlen (DLQ_API_PREFIX)) == 0);
        FUZZ_CHECK (strcmp (route->method, method) == 0);
        FUZZ_CHECK (!route->member || (segment [0] && !strchr (segment, '/')));
        check_body (route, route->member ? segment : "", params, count, body, body_len);
    }
    else {
        FUZZ_CHECK (route == NULL);
        FUZZ_CHECK (match == DLQ_API_NO_PATH || allow [0]);
    }
    check_guard (method, n > 3 ? s [3] : NULL, n > 4 && f [4].len ? s [4] : NULL, n > 5 && f [5].len ? s [5] : NULL,
                 n > 6 && f [6].len ? s [6] : NULL);
    for (size_t i = 0; i < n; i++) {
        check_bearer (s [i]);
        free (s [i]);
    }
    return 0;
}
