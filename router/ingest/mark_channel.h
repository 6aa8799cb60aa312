/*  mark_channel — how a change of an event's replay state (RESOLVE, FAIL,
 *  a replay's marks) goes through the spool like every write acknowledged
 *  as durable: the asking thread (a query worker, the replayer) queues the
 *  marks; the committer appends a record of each (core/mark_record.h) and
 *  syncs; the indexer applies the records in log order in its next store
 *  transaction, and the asker, woken then, has each mark's result (the
 *  event's new state, or NOT_FOUND) to answer with. So a mark is durable
 *  once acknowledged (in the spool: after a crash the indexer applies it
 *  from there), two marks of one event both count, and no mark commits
 *  to SQLite on its own.
 *
 *  Thread-safe. The marks are the channel's: an asker that stops waiting
 *  (its timeout, or the channel closed) leaves them behind, and whatever
 *  is durable of them is still applied.
 */
#ifndef DLQ_MARK_CHANNEL_H
#define DLQ_MARK_CHANNEL_H

#include "dlq_sink.h"
#include "store_result.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct dlq_mark_channel dlq_mark_channel_t;

/* One mark asked for, as the committer and the indexer see it. */
typedef struct {
    char                  *id;
    dlq_sink_mark_t        mark;
    int64_t                now_ms;
    int64_t                retry_after_ms;
    uint64_t               position;    /* of its record, once appended */
    int                    stage;       /* the channel's */
    bool                   abandoned;   /* its asker no longer waits */
    dlq_store_result_t     rc;          /* once applied */
    dlq_sink_event_state_t state;
} dlq_mark_t;

dlq_mark_channel_t *dlq_mark_channel_new (void);

/* Frees every mark still held. Accepts NULL and NULLs the pointer. */
void dlq_mark_channel_destroy (dlq_mark_channel_t **self_p);

/* Asker: change the state of the count ids as mark says (at now_ms;
 * retry_after_ms for the marks that set it) through the spool, and wait
 * until every one was applied, at most timeout_ms. DLQ_STORE_OK then, with
 * each mark's own result in rc_out [i] (OK or NOT_FOUND; may be NULL) and
 * the state it left in states_out [i] (may be NULL). DLQ_STORE_ERROR with
 * err set when the spool refused them (a full disk: none is kept), the
 * channel was closed, or the wait ran out (what was synced is applied
 * later all the same). */
dlq_store_result_t dlq_mark_channel_apply (dlq_mark_channel_t *self, const char *const *ids, size_t count,
                                           dlq_sink_mark_t mark, int64_t now_ms, int64_t retry_after_ms,
                                           int timeout_ms, dlq_store_result_t *rc_out,
                                           dlq_sink_event_state_t *states_out, char *err, size_t err_len);

/* Committer: a descriptor readable while marks are queued. */
int dlq_mark_channel_fd (dlq_mark_channel_t *self);

/* Committer: take every queued mark (*count_out; the array is the
 * channel's, valid until dlq_mark_channel_synced). */
dlq_mark_t **dlq_mark_channel_take (dlq_mark_channel_t *self, size_t *count_out);

/* Committer: the taken marks' records are appended (each position set);
 * the indexer may apply them as soon as they are synced. */
void dlq_mark_channel_appended (dlq_mark_channel_t *self);

/* Committer: the sync that covers the taken marks' records succeeded (ok),
 * or it failed or a record could not be appended (none of them is in the
 * spool: their askers get err). Ends the take. */
void dlq_mark_channel_synced (dlq_mark_channel_t *self, bool ok, const char *err);

/* Indexer: the mark record at position was applied (committed) with rc
 * and the state it left. A position no asker waits for (a record applied
 * again after a restart) is passed by. */
void dlq_mark_channel_applied (dlq_mark_channel_t *self, uint64_t position, dlq_store_result_t rc,
                               const dlq_sink_event_state_t *state);

/* Wake every asker with failure; later asks fail at once (shutdown). */
void dlq_mark_channel_close (dlq_mark_channel_t *self);

#endif
