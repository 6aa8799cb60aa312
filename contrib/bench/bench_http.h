/*  bench_http — the HTTP side of a benchmark's dlqd: a free loopback port
 *  for its http.listen, and one GET on a fresh connection (HTTP/1.0),
 *  timed by the caller.
 */
#ifndef DLQ_BENCH_HTTP_H
#define DLQ_BENCH_HTTP_H

#include <stdbool.h>
#include <stddef.h>

/* A TCP port of 127.0.0.1 nobody listens on now, or -1. */
int bench_http_free_port (void);

/* GET path from 127.0.0.1:port: the status into *status and the body (NUL-
 * terminated, at most max bytes; the caller frees) into *body_out. False
 * when it could not connect or the answer was not HTTP. */
bool bench_http_get (int port, const char *path, size_t max, int *status, char **body_out);

#endif
