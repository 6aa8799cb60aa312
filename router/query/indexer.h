/*  indexer — the store the log feeds (log_store.h: the embedded store, or
 *  with a sink primary the state file's ids) as a consumer of the spool,
 *  behind the ack: one thread owning its INDEX instance (the log calls,
 *  dlq_sink.h) reads the spool from the
 *  position the store has indexed up to and hands it the records of many
 *  per transaction (the store keeps each event at its record's position as
 *  its seq, and applies the checkpoint writes and the marks: RESOLVE, FAIL,
 *  a replay's, core/mark_record.h, in log order). It commits the
 *  dispatchers' ledger updates to the state file beside each page, tells
 *  the marks' askers their outcome (mark_channel.h), sweeps expired events
 *  while idle (their ids leave the id index ids with them), publishes the
 *  highest seq indexed after each commit (8 bytes, int64, on a PUB socket),
 *  and releases the spool segments no consumer (itself, each sink's
 *  dispatcher) needs any more.
 *
 *  It learns of new records from the committer's spool tip (a SUB socket
 *  connected to spool_tip_endpoint), reads at most max_batch records per
 *  transaction, and runs nice more than the rest by nice (the gateway
 *  passes 0: every sink waits for its ledger updates to be committed here,
 *  and at gateway.query_nice a starved indexer held the kafka sink's drain
 *  to 0.27 of a raw producer against 0.42 at 0).
 */
#ifndef DLQ_INDEXER_H
#define DLQ_INDEXER_H

#include "dlq_sink.h"
#include "dlqd_config.h"
#include "id_index.h"
#include "ledger_channel.h"
#include "mark_channel.h"
#include "spool.h"

#include <stddef.h>
#include <stdint.h>

typedef struct dlq_indexer dlq_indexer_t;

typedef struct {
    uint64_t position;          /* the spool position indexed up to */
    uint64_t events;            /* events indexed since start */
    int64_t  lag_ms;            /* age of the oldest record not indexed yet (0 when none) */
    uint64_t behind_bytes;      /* spool bytes not indexed yet */
} dlq_indexer_stats_t;

/* Start the thread on the store the log feeds (log_store.h: config's,
 * which outlives the indexer; created and upgraded by the committer
 * before) and the state file in config->data_dir. NULL with err set on
 * failure. */
dlq_indexer_t *dlq_indexer_new (void *zmq_ctx, const dlqd_config_t *config,
                                dlq_spool_t *spool, dlq_id_index_t *ids,
                                const char *spool_tip_endpoint, const char *tip_endpoint,
                                int64_t sweep_interval_ms, int64_t sweep_batch, size_t max_batch, int nice,
                                dlq_ledger_channel_t *ledger, dlq_mark_channel_t *marks, char *err, size_t err_len);

/* Any thread. */
void dlq_indexer_stats (dlq_indexer_t *self, dlq_indexer_stats_t *out);

/* The spool position indexed up to (any thread). */
uint64_t dlq_indexer_position (dlq_indexer_t *self);

/* A sink primary the gateway sweeps (a query thread does:
 * query_service.c; dlq_primary_config_sweeps) has deleted every event
 * that expired by until_ms. The indexer's sweep forgets only the ids
 * expired by then, and none before the first such call: an id forgotten
 * while the primary still held its old event would let a PUT of it be
 * taken as new and meet the old row there (any thread). */
void dlq_indexer_primary_swept (dlq_indexer_t *self, int64_t until_ms);

/* Why indexing stopped for good — a record of the spool that does not
 * check (spool.h: named by segment and offset) — or NULL while it goes on.
 * The gateway stops on it: nothing past that record can be indexed, and
 * nothing is dropped. Any thread. */
const char *dlq_indexer_fatal (dlq_indexer_t *self);

/* Stop (committing what the stopped dispatchers queued); accepts NULL and
 * NULLs the pointer. */
void dlq_indexer_destroy (dlq_indexer_t **self_p);

#endif
