/*  api_handler — one request of the JSON HTTP API (/api/v1/, docs/api.md):
 *  its route (api_routes.h) and body, sent to the gateway as the verb it
 *  stands for (api_bridge.h), and the reply as an HTTP status and the
 *  wire protocol's JSON body. A gateway with security.curve takes each
 *  request's token (Authorization: Bearer) along to the gateway, which
 *  decides it as it decides a CURVE client's (authorizer.h): without one
 *  the request is 401 UNAUTHENTICATED here.
 */
#ifndef DLQ_API_HANDLER_H
#define DLQ_API_HANDLER_H

#include "api_routes.h"
#include "dlq_buf.h"
#include "counters.h"
#include "protocol.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct dlq_api_handler dlq_api_handler_t;

#define DLQ_API_TIMEOUT_MS 30000        /* how long a request waits for the gateway's reply */

/* Reach the gateway through endpoint (its ROUTER's inproc endpoint in
 * zmq_ctx); secured: the gateway authenticates its clients (CURVE), and a
 * request without a usable token is counted in counters and audited
 * here, as the gateway counts an unknown one. */
dlq_api_handler_t *dlq_api_handler_new (void *zmq_ctx, const char *endpoint, bool secured,
                                        dlq_counters_t *counters);

/* Requests give up from now on (the gateway is going): 503. Accepts NULL. */
void dlq_api_handler_close (dlq_api_handler_t *self);

/* Has dlq_api_handler_close been called? Any thread. */
bool dlq_api_handler_closed (dlq_api_handler_t *self);

/* Free; accepts NULL and NULLs the pointer. */
void dlq_api_handler_destroy (dlq_api_handler_t **self_p);

/* What a request brings besides its route: the query's params, the body
 * and the Authorization header (NULL: none). */
typedef struct {
    const dlq_api_param_t *params;
    size_t                 param_count;
    const char            *body;
    size_t                 body_len;
    const char            *authorization;
} dlq_api_request_t;

/* Answer method url (under /api/v1/, no query string) with request: the
 * HTTP status, the JSON body into out, and for 405 the methods the path
 * takes into allow. */
unsigned dlq_api_handler_answer (dlq_api_handler_t *self, const char *method, const char *url,
                                 const dlq_api_request_t *request, dlq_buf_t *out, char *allow, size_t allow_len);

/* Send verb with body (len bytes) to the gateway — with the token of the
 * Authorization header (NULL: none) when it authenticates, else 401
 * without sending —: the HTTP status and the reply's body into out. */
unsigned dlq_api_handler_call (dlq_api_handler_t *self, dlq_verb_t verb, const char *body, size_t len,
                               const char *authorization, dlq_buf_t *out);

/* May a request (method url) with this Authorization header (NULL: none)
 * go on — the API, /metrics —, before anything else of it is read? 200:
 * always without security.curve; with it, when the token is a
 * principal's (a PING with it). Otherwise the status and error body in
 * out (401, 503). */
unsigned dlq_api_handler_authenticate (dlq_api_handler_t *self, const char *authorization, const char *method,
                                       const char *url, dlq_buf_t *out);

#endif
