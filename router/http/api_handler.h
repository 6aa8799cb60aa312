/*  api_handler — one request of the JSON HTTP API (/api/v1/, docs/api.md):
 *  its route (api_routes.h) and body, sent to the gateway as the verb it
 *  stands for (api_bridge.h), and the reply as an HTTP status and the
 *  wire protocol's JSON body. Without authentication on the HTTP side
 *  (not built yet), a gateway with security.curve answers every API
 *  request 403 FORBIDDEN.
 */
#ifndef DLQ_API_HANDLER_H
#define DLQ_API_HANDLER_H

#include "api_routes.h"
#include "dlq_buf.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct dlq_api_handler dlq_api_handler_t;

#define DLQ_API_TIMEOUT_MS 30000        /* how long a request waits for the gateway's reply */

/* Reach the gateway through endpoint (its ROUTER's inproc endpoint in
 * zmq_ctx); secured: the gateway authenticates its clients (CURVE). */
dlq_api_handler_t *dlq_api_handler_new (void *zmq_ctx, const char *endpoint, bool secured);

/* Requests give up from now on (the gateway is going): 503. Accepts NULL. */
void dlq_api_handler_close (dlq_api_handler_t *self);

/* Free; accepts NULL and NULLs the pointer. */
void dlq_api_handler_destroy (dlq_api_handler_t **self_p);

/* Answer method url (under /api/v1/, no query string) with the query's
 * params and the request body: the HTTP status, the JSON body into out,
 * and for 405 the methods the path takes into allow. */
unsigned dlq_api_handler_answer (dlq_api_handler_t *self, const char *method, const char *url,
                                 const dlq_api_param_t *params, size_t param_count, const char *body,
                                 size_t body_len, dlq_buf_t *out, char *allow, size_t allow_len);

#endif
