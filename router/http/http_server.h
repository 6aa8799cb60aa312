/*  http_server — the HTTP listener (http.listen), served by libmicrohttpd
 *  on threads of its own, never the ingest thread: GET /metrics (the
 *  Prometheus text format, metrics.h), GET /healthz (200 while the process
 *  serves), GET /readyz (readiness.h) — HEAD works as GET without the
 *  body, any other method is 405 — and the JSON API under /api/v1/
 *  (api_handler.h), its live events at /api/v1/events/stream
 *  (event_stream.h); any other path is 404. A thread serves each
 *  connection. Every answer carries
 *  Cache-Control: no-store, X-Content-Type-Options: nosniff and a
 *  Content-Security-Policy that allows nothing to load or frame it.
 *  docs/metrics.md, docs/api.md.
 */
#ifndef DLQ_HTTP_SERVER_H
#define DLQ_HTTP_SERVER_H

#include "api_handler.h"
#include "event_stream.h"
#include "metrics.h"
#include "readiness.h"

#include <stddef.h>

typedef struct dlq_http_server dlq_http_server_t;

/* Bind every "HOST:PORT" of listen ("127.0.0.1:9560", "[::1]:9560",
 * "localhost:9560", "*:9560" or "0.0.0.0:9560" for every interface) and
 * serve. metrics, readiness, api and events are not owned; a request body over
 * max_body bytes is refused 413. NULL with a message in err (naming the
 * address) when one cannot be bound: nothing is left running. */
dlq_http_server_t *dlq_http_server_new (char *const *listen, size_t listen_count, dlq_metrics_t *metrics,
                                        dlq_readiness_t *readiness, dlq_api_handler_t *api,
                                        dlq_event_streams_t *events, size_t max_body, char *err, size_t err_len);

/* Stop serving and free; accepts NULL and NULLs the pointer. */
void dlq_http_server_destroy (dlq_http_server_t **self_p);

#endif
