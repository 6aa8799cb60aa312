/*  dispatcher — one sink's delivery loop, on its own thread (an actor) with
 *  its own sink instance, its own reader of the spool (core/spool), its own
 *  connection to the state file (the ledger) and its own QUERY instance of
 *  the store the log feeds (log_store.h: the archive).
 *
 *  It reads the sink's backlog (events past the sink's cursor) in seq order
 *  from the spool by position — sequential reads, no SQL; from the archive
 *  only what the spool no longer holds (after a restart behind a released
 *  segment, or a data_dir from before the spool) —, and a failed event it
 *  is asked to REDELIVER from its ledger row when neither holds it; skips
 *  events whose
 *  stream's chain does not name the sink, delivers batches, and records the
 *  outcome of each event in the delivery ledger (through the indexer). Its
 *  cursor + 1 is its consumer position in the spool: no segment it still
 *  needs is deleted. The router owns retry: RETRY outcomes are tried
 *  again after a capped exponential backoff with full jitter, up to
 *  max_attempts; a circuit breaker stops sending after consecutive failed
 *  batches and probes with one batch at the backoff interval. A dead sink
 *  never slows ingest or another sink: its backlog waits on disk.
 *
 *  The owner forwards REDELIVER requests ([identity][verb][request id]
 *  [body]) to the dispatcher and forwards its replies to the ROUTER.
 */
#ifndef DLQ_DISPATCHER_H
#define DLQ_DISPATCHER_H

#include "actor.h"
#include "ledger_channel.h"
#include "spool.h"
#include "plugin_config.h"
#include "delivery_health.h"
#include "dlqd_config.h"
#include "stream_policy.h"

#include <stdbool.h>
#include <stddef.h>
#include <zmq.h>

typedef struct {
    void                     *zmq_ctx;
    const char               *data_dir;
    const char               *tip_endpoint;     /* the committer's PUB of the last seq */
    dlq_spool_t              *spool;            /* where the backlog is read from */
    const dlq_sink_config_t  *sink;
    const dlqd_config_t      *config;           /* its store (log_store.h): the events the spool no
                                                 * longer holds */
    const dlq_policy_table_t *policies;
    dlq_ledger_channel_t     *ledger;
    dlq_delivery_health_t        *status;
} dlq_dispatcher_args_t;

typedef struct dlq_dispatcher dlq_dispatcher_t;

/* Start the dispatcher: open the spool, init the sink instance, load the
 * sink's cursor and retry queue. NULL with a message in err when the sink's
 * init fails (a startup error) or the spool cannot be read. */
dlq_dispatcher_t *dlq_dispatcher_new (const dlq_dispatcher_args_t *args, char *err, size_t err_len);

/* The socket to poll for replies to forwarded requests. */
void *dlq_dispatcher_socket (dlq_dispatcher_t *self);

/* Forward a REDELIVER request (the four messages move in). */
void dlq_dispatcher_submit (dlq_dispatcher_t *self, zmq_msg_t frames [DLQ_REQUEST_FRAMES]);

/* Move one finished reply to out (a ROUTER socket); false when out
 * refused it (dlq_actor_relay). */
bool dlq_dispatcher_forward (dlq_dispatcher_t *self, void *out);

/* Requests submitted and not yet answered. */
size_t dlq_dispatcher_outstanding (const dlq_dispatcher_t *self);

/* Stop after the batch in hand (its outcome is recorded) and free. Accepts
 * NULL and NULLs the pointer. */
void dlq_dispatcher_destroy (dlq_dispatcher_t **self_p);

#endif
