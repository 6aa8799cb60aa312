/*  bench_ceiling — the transport ceiling: a ROUTER on its own thread that
 *  answers every PUT at once with OK and a fixed body, doing nothing else.
 *  The same bench clients against it measure what ZeroMQ and the clients
 *  allow on this machine, the bound of any gateway's ack rate.
 */
#ifndef DLQ_BENCH_CEILING_H
#define DLQ_BENCH_CEILING_H

#include <stdbool.h>
#include <stddef.h>

typedef struct bench_ceiling bench_ceiling_t;

/* Bind a ROUTER on a free loopback port and start answering. NULL with err
 * set on failure. */
bench_ceiling_t *bench_ceiling_start (void *zmq_ctx, char *err, size_t err_len);

/* Its endpoint (tcp://127.0.0.1:PORT). */
const char *bench_ceiling_endpoint (const bench_ceiling_t *self);

/* Stop the thread; accepts NULL and NULLs the pointer. */
void bench_ceiling_stop (bench_ceiling_t **self_p);

#endif
