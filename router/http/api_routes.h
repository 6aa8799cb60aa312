/*  api_routes — the JSON HTTP API under /api/v1/ (docs/api.md,
 *  docs/openapi.yaml) as the wire protocol's verbs: which verb a method and
 *  path stand for, the verb's JSON body made from the path's parameters,
 *  the query string and the request body, and the HTTP status of each
 *  reply code. The request then goes through the gateway as any client's
 *  (api_bridge.h), so the API answers exactly what the wire protocol
 *  answers, with the same JSON bodies. Pure.
 */
#ifndef DLQ_API_ROUTES_H
#define DLQ_API_ROUTES_H

#include "dlq_buf.h"
#include "dlq_code.h"
#include "protocol.h"

#include <stdbool.h>
#include <stddef.h>

#define DLQ_API_PREFIX "/api/v1/"
#define DLQ_API_QUERY_MAX 64            /* query parameters per request, at most */

/* Where a route's body comes from. */
typedef enum {
    DLQ_API_BODY_NONE = 0,              /* nothing but the path's parameter (a request body is refused) */
    DLQ_API_BODY_QUERY,                 /* the query string's parameters */
    DLQ_API_BODY_JSON                   /* the request body, a JSON object (may be empty: {}) */
} dlq_api_body_t;

typedef struct {
    const char     *method;             /* "GET", "POST", "PUT", "DELETE" */
    const char     *path;               /* under /api/v1/; "{}" stands for one segment */
    dlq_verb_t      verb;
    const char     *member;             /* the segment's member in the body ("id", "job", "sink"), or NULL */
    dlq_api_body_t  body;
    const char     *summary;            /* one line, for the docs */
} dlq_api_route_t;

/* One query parameter, as the HTTP server decoded it. */
typedef struct {
    const char *name;
    const char *value;
} dlq_api_param_t;

typedef enum {
    DLQ_API_MATCHED = 0,
    DLQ_API_NO_PATH,                    /* no route has this path: 404 */
    DLQ_API_NO_METHOD                   /* the path is known, not with this method: 405 */
} dlq_api_match_t;

/* The route of method and url (a path that starts with DLQ_API_PREFIX,
 * without its query string); the one "{}" segment it holds (at most
 * segment_len - 1 bytes) into segment. With NO_METHOD, allow gets the
 * methods the path takes ("GET, POST"). */
dlq_api_match_t dlq_api_route_find (const char *method, const char *url, const dlq_api_route_t **route_out,
                                    char *segment, size_t segment_len, char *allow, size_t allow_len);

/* The verb's JSON body for route into out: the segment as route->member,
 * then the query parameters (BODY_QUERY: a parameter of a number's name —
 * limit, sample, rate, attemptsMin, attemptsMax — as a number; dryRun and
 * all as true or false; metadata.KEY=VALUE as the member KEY of metadata,
 * VALUE a number, true or false when it reads as one, else a string; any
 * other as a string; a name given twice is refused) or the request body's
 * members (BODY_JSON: an object; empty is {}). A member given both by the
 * path and the body is refused. DLQ_OK, or a code with err set
 * (INVALID_REQUEST, INVALID_JSON, INVALID_UTF8). */
dlq_code_t dlq_api_route_body (const dlq_api_route_t *route, const char *segment, const dlq_api_param_t *params,
                               size_t param_count, const char *body, size_t body_len, dlq_buf_t *out,
                               dlq_error_t *err);

/* The HTTP status of a reply code (DLQ_OK: 200). */
unsigned dlq_api_route_status (dlq_code_t code);

/* Every route, in the order of the docs. */
const dlq_api_route_t *dlq_api_routes (size_t *count_out);

#endif
