/*  zmtp_pipeline — one pipelining client of the resource tests: a
 *  zmtp_peer connection with a writer thread that keeps a window of
 *  requests in flight and a reader thread that takes the replies, counting
 *  OK and ERR.
 */
#ifndef ZMTP_PIPELINE_H
#define ZMTP_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The body of request i (malloc'd: the pipeline frees it), its length in
 * *len. Called on the writer thread. */
typedef char *(zmtp_pipeline_body_fn) (void *arg, int64_t i, size_t *len);

typedef struct zmtp_pipeline zmtp_pipeline_t;

/* Connect to 127.0.0.1:port and send count requests verb with the bodies
 * make (arg) gives for first, first + 1, ..., keeping window of them in
 * flight. NULL when the connection was not made. */
zmtp_pipeline_t *zmtp_pipeline_start (int port, const char *verb, int64_t first, int64_t count, int window,
                                      zmtp_pipeline_body_fn *make, void *arg);

/* Wait until every request is answered (or the pipeline gave up: no reply
 * for 60 s, or a send that did not go through); *ok and *err get the
 * counts of OK and ERR replies. Closes and frees the pipeline; true when
 * every request was answered. */
bool zmtp_pipeline_finish (zmtp_pipeline_t **self_p, int64_t *ok, int64_t *err);

#endif
