/*  http_server — the HTTP listener (http.listen), served by libmicrohttpd
 *  on threads of its own, never the ingest thread: GET /metrics (the
 *  Prometheus text format, metrics.h), GET /healthz (200 while the process
 *  serves) and GET /readyz (readiness.h). HEAD works as GET without the
 *  body; any other method is 405, any other path 404. docs/metrics.md.
 */
#ifndef DLQ_HTTP_SERVER_H
#define DLQ_HTTP_SERVER_H

#include "metrics.h"
#include "readiness.h"

#include <stddef.h>

typedef struct dlq_http_server dlq_http_server_t;

/* Bind every "HOST:PORT" of listen ("127.0.0.1:9560", "[::1]:9560",
 * "localhost:9560", "*:9560" or "0.0.0.0:9560" for every interface) and
 * serve. metrics and readiness are not owned. NULL with a message in err
 * (naming the address) when one cannot be bound: nothing is left running. */
dlq_http_server_t *dlq_http_server_new (char *const *listen, size_t listen_count, dlq_metrics_t *metrics,
                                        dlq_readiness_t *readiness, char *err, size_t err_len);

/* Stop serving and free; accepts NULL and NULLs the pointer. */
void dlq_http_server_destroy (dlq_http_server_t **self_p);

#endif
