/*  gateway — the daemon's front end: the ZeroMQ ROUTER socket, request
 *  validation, the group-commit pipeline and the drain on shutdown.
 *
 *  One thread (the caller of dlq_gateway_run) owns the ROUTER socket. PUTs
 *  are decoded, policy-applied and encoded on it and gathered into a batch;
 *  whenever the committer is idle the batch goes to it, and the next one
 *  gathers while that one is fsync'd (natural group commit: the busier the
 *  gateway, the bigger the batches). Acks are sent when a batch comes back
 *  committed. Queries go to the query service threads.
 */
#ifndef DLQ_GATEWAY_H
#define DLQ_GATEWAY_H

#include "dlqd_config.h"

typedef struct dlq_gateway dlq_gateway_t;

/* Create the data directory, open the store, start the threads and bind
 * every endpoint. NULL with a message in *err_p (caller frees) on failure. */
dlq_gateway_t *dlq_gateway_new (const dlqd_config_t *config, char **err_p);

/* Serve until a byte other than SIGHUP can be read from stop_fd (a signal
 * handler writes the signal's number to it; blocking or not) or it reaches
 * end of file, then drain: every request already received is answered
 * (PUTs committed and acked), and return 0. A SIGHUP byte reloads the
 * clients directory. Returns non-zero on a fatal error. */
int dlq_gateway_run (dlq_gateway_t *self, int stop_fd);

/* Stop the threads and free everything; accepts NULL and NULLs the pointer. */
void dlq_gateway_destroy (dlq_gateway_t **self_p);

#endif
