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

/* What a SIGHUP reloads besides the clients directory (the log level from
 * the config file: main.c); called on the gateway's thread. */
typedef void (dlq_gateway_reload_fn) (void *arg);

/* Serve until a byte other than SIGHUP can be read from stop_fd (a signal
 * handler writes the signal's number to it; blocking or not) or it reaches
 * end of file, then drain: every request already received is answered
 * (PUTs committed and acked), and return 0. A SIGHUP byte reloads the
 * clients directory and calls reload (when not NULL) with arg. The service
 * manager hears READY=1 as it starts serving, STOPPING=1 as the drain
 * starts, a STATUS= line every DLQ_GATEWAY_STATUS_MS, and WATCHDOG=1 from
 * this loop when it asks for it (service_notify.h). Returns non-zero on a
 * fatal error. */
#define DLQ_GATEWAY_STATUS_MS 10000
int dlq_gateway_run (dlq_gateway_t *self, int stop_fd, dlq_gateway_reload_fn *reload, void *arg);

/* Stop the threads and free everything; accepts NULL and NULLs the pointer. */
void dlq_gateway_destroy (dlq_gateway_t **self_p);

#endif
