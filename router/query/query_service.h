/*  query_service — the query threads: they answer the verbs of the query,
 *  checkpoint-read and replay lanes (verb_table.h: GET, LIST, COUNT,
 *  GROUPS, STATS, CKPT.GET / LIST, REPLAY and its job controls, RESOLVE,
 *  FAIL) and a sink primary's checkpoint writes, each thread with its own
 *  connections to the embedded store and to the primary, at a lower
 *  priority (gateway.query_nice), so a slow query never delays the acks.
 *  A verb that waits for the index is answered once the indexer has what
 *  was acknowledged before it; GET reads an event not indexed yet from the
 *  spool (spool_lookup.h).
 *
 *  The front end forwards a request as [identity][verb][request-id][body]
 *  to a worker (round robin, or keyed by client where order matters) and
 *  later reads the finished reply [identity][status][request-id][body]
 *  from that worker's socket, to send on as is.
 */
#ifndef DLQ_QUERY_SERVICE_H
#define DLQ_QUERY_SERVICE_H

#include "actor.h"
#include "counters.h"
#include "dlqd_config.h"
#include "replay_control.h"
#include "chain.h"

#include "committer.h"
#include "indexer.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zmq.h>

typedef struct dlq_query_service dlq_query_service_t;

/* Start config->query_threads workers over the store in config->data_dir;
 * sinks gives the live sink statuses for STATS and GET; replay_control is
 * shared with the replayer (replay_control.h; not owned). NULL with a
 * message in err on failure (nothing left running). */
dlq_query_service_t *dlq_query_service_new (void *zmq_ctx, const dlqd_config_t *config,
                                            dlq_chain_t *sinks, dlq_counters_t *counters,
                                            dlq_replay_control_t *replay_control, dlq_committer_t *committer,
                                            dlq_indexer_t *indexer, char *err, size_t err_len);

/* Number of worker sockets, and socket i, to poll for ZMQ_POLLIN replies. */
size_t dlq_query_service_sockets (const dlq_query_service_t *self);
void *dlq_query_service_socket (dlq_query_service_t *self, size_t i);

/* Forward a request to the least busy worker. The four messages move in
 * (they are left empty). */
void dlq_query_service_submit (dlq_query_service_t *self, zmq_msg_t frames [DLQ_REQUEST_FRAMES]);

/* Forward a request to the worker key picks (the same key, the same
 * worker), so requests with one key are answered in the order sent: e.g.
 * a client's pipelined checkpoint writes on a sink primary. */
void dlq_query_service_submit_keyed (dlq_query_service_t *self, zmq_msg_t frames [DLQ_REQUEST_FRAMES], uint64_t key);

/* Move one finished reply from worker i to out (a ROUTER socket); false
 * when out refused it (dlq_actor_relay). */
bool dlq_query_service_forward (dlq_query_service_t *self, size_t i, void *out);

/* Requests submitted and not yet forwarded back. */
size_t dlq_query_service_outstanding (const dlq_query_service_t *self);

/* Stop the workers (after they answer what they hold) and free everything.
 * Accepts NULL and NULLs the pointer. */
void dlq_query_service_destroy (dlq_query_service_t **self_p);

#endif
