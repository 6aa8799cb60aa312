/*  id_store — the ids of the stored events in the daemon's state file
 *  (state_store.h), for a gateway whose primary is a sink: what the
 *  duplicate check loads at start and the sweep forgets, kept by the
 *  daemon rather than by a query store it does not query.
 *
 *    event_ids(id TEXT PRIMARY KEY, seq INTEGER NOT NULL, expires_at INTEGER)
 *    meta: ids_position (the log position indexed up to), ids_last_seq,
 *          ids_taken_over (once the ids the embedded store held are here)
 *
 *  It is fed from the log as the embedded store is, and answers the same
 *  log calls (dlq_sink.h): dlq_id_store_log_ops is that table, on an
 *  instance from dlq_id_store_open. It keeps no event, checkpoint or mark:
 *  each_checkpoint finds none, read_after and count_between none (the
 *  events are in the log, and in the primary), a MARK record is NOT_FOUND.
 *  An event is kept at its record's position (its seq) until it expires.
 *
 *  Commits are relaxed unless durable, as the embedded store's: after a
 *  crash the indexer reads the records past ids_position again.
 *  One object is used by one thread at a time.
 */
#ifndef DLQ_ID_STORE_H
#define DLQ_ID_STORE_H

#include "dlq_sink.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct dlq_id_store dlq_id_store_t;

/* Open data_dir's state file (creating it when missing). NULL with err
 * set on failure. */
dlq_id_store_t *dlq_id_store_open (const char *data_dir, char *err, size_t err_len);

/* Close; accepts NULL and NULLs the pointer. */
void dlq_id_store_destroy (dlq_id_store_t **self_p);

/* The log calls on an instance of this module (void * is a dlq_id_store_t). */
const dlq_sink_log_ops_t *dlq_id_store_log_ops (void);

/* Have the ids of the embedded store been taken over? False with the last
 * error set when it cannot tell (*done unset). */
bool dlq_id_store_taken_over (dlq_id_store_t *self, bool *done);

/* Take over, in one transaction that records it, the ids and the indexed
 * position of a store with log calls (from, on its instance): what a
 * gateway whose primary was the embedded store, or that fed it beside a
 * sink primary, left there. Ids here already are kept. False with the
 * last error set (nothing kept) on failure. */
bool dlq_id_store_take_over (dlq_id_store_t *self, const dlq_sink_log_ops_t *from, void *instance);

/* Why the last call that failed did. */
const char *dlq_id_store_last_error (const dlq_id_store_t *self);

#endif
