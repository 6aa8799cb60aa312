/*  chain — the configured sinks at run time: one dispatcher and one
 *  live status per sink, in config order (the order of the chain bits).
 */
#ifndef DLQ_CHAIN_H
#define DLQ_CHAIN_H

#include "actor.h"
#include "dlqd_config.h"
#include "ledger_channel.h"
#include "delivery_health.h"
#include "spool.h"

#include <stdbool.h>
#include <stddef.h>
#include <zmq.h>

typedef struct dlq_chain dlq_chain_t;

/* Start a dispatcher per configured sink. NULL with *err_p set (caller
 * frees) when a sink cannot start; none is left running then. */
dlq_chain_t *dlq_chain_new (void *zmq_ctx, const dlqd_config_t *config,
                                      dlq_ledger_channel_t *ledger, dlq_spool_t *spool,
                                      const char *tip_endpoint, char **err_p);

/* Stop every dispatcher; accepts NULL and NULLs the pointer. */
void dlq_chain_destroy (dlq_chain_t **self_p);

/* Number of sinks; the index of the sink called name, or -1. */
size_t dlq_chain_count (const dlq_chain_t *self);
int dlq_chain_find (const dlq_chain_t *self, const char *name);

/* Sink i's live status (shared with the query threads). */
dlq_delivery_health_t *dlq_chain_health (const dlq_chain_t *self, size_t i);

/* Requests to dispatchers: submit to sink i, poll socket i, forward replies. */
void dlq_chain_submit (dlq_chain_t *self, size_t i, zmq_msg_t frames [DLQ_REQUEST_FRAMES]);
void *dlq_chain_socket (dlq_chain_t *self, size_t i);
bool dlq_chain_forward (dlq_chain_t *self, size_t i, void *out);   /* false: out refused it */
size_t dlq_chain_outstanding (const dlq_chain_t *self);

#endif
