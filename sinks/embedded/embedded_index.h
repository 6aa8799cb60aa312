/*  embedded_index — the embedded store as a consumer of the spool
 *  (core/spool): the indexer's writes and what it resumes from.
 *
 *  The indexer inserts the events of many spool records in one
 *  transaction, each at its record's position as its seq, and records in
 *  the same transaction
 *  the spool position it has indexed up to (meta key spool_position). So
 *  the store never needs to fsync each transaction: after a crash that
 *  lost the last ones, the position went back with them and the indexer
 *  reads those records again.
 */
#ifndef DLQ_EMBEDDED_INDEX_H
#define DLQ_EMBEDDED_INDEX_H

#include "embedded_checkpoints.h"
#include "embedded_store.h"
#include "embedded_archive.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A change of an event's replay state read from the spool
 * (core/mark_record.h), as dlq_embedded_mark takes it; rc and state are
 * what applying it gave. */
typedef struct {
    const char             *id;
    dlq_sink_mark_t         mark;
    int64_t                 now_ms;
    int64_t                 retry_after_ms;
    dlq_store_result_t      rc;         /* OK, or NOT_FOUND (missing or expired at now_ms) */
    dlq_sink_event_state_t  state;      /* the state it left, when OK */
} dlq_embedded_mark_write_t;

/* Writer: in ONE transaction insert count events at seqs (ascending; an id
 * already stored is passed over), apply the checkpoint writes (in order; their replies are filled and not needed)
 * and the marks (in order, after the events: each one's rc and state
 * filled), and set the indexed spool position to position; then commit.
 * *last_seq_out (may be NULL) receives the highest seq after the commit.
 * Nothing is stored on DLQ_STORE_ERROR. */
dlq_store_result_t dlq_embedded_index (dlq_embedded_t *self, dlq_event_t *const *events, const int64_t *seqs,
                                       size_t count, dlq_ckpt_write_t *ckpts, size_t ckpt_count,
                                       dlq_embedded_mark_write_t *marks, size_t mark_count, uint64_t position,
                                       int64_t *last_seq_out, char *err, size_t err_len);

/* The spool position indexed up to; false when the store has never
 * indexed one (a new store, or one written before the spool), and false
 * with err set on error (*failed true). */
bool dlq_embedded_spool_position (dlq_embedded_t *self, uint64_t *position_out, bool *failed,
                                  char *err, size_t err_len);

/* Writer: relaxed, commit without waiting for the disk (synchronous =
 * NORMAL), for a connection whose writes can be made again from the
 * spool; or not (FULL): the next commit waits until it and every commit
 * before it are on disk. */
dlq_store_result_t dlq_embedded_relax_sync (dlq_embedded_t *self, bool relaxed, char *err, size_t err_len);

/* Writer: make the WAL's checkpoints on a thread of their own beside the
 * commits (embedded_wal.h), until the store is destroyed. False with err
 * set when the thread cannot start; the commits make them then, as
 * without this call. */
bool dlq_embedded_checkpoint_behind (dlq_embedded_t *self, char *err, size_t err_len);

/* Called once per stored event by dlq_embedded_each_id. */
typedef void (dlq_embedded_id_fn) (const char *id, size_t len, int64_t seq, int64_t expires_at, void *arg);

/* Every stored event (expired ones too, until the sweep deletes them), in
 * seq order; how many, or -1. */
int64_t dlq_embedded_each_id (dlq_embedded_t *self, dlq_embedded_id_fn *fn, void *arg);

#endif
