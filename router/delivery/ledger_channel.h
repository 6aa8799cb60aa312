/*  ledger_channel — how dispatchers hand their delivery-ledger updates to
 *  the indexer, which writes them in the same store transaction as the next
 *  page of the spool it indexes: one writer, no extra commits under load.
 *
 *  A dispatcher submits an update and gets a ticket; it may wait until the
 *  update is committed (dlq_ledger_channel_wait; on disk once a durable
 *  commit follows, indexer.c, and what a power cut takes back the spool
 *  still holds). The indexer polls the channel's file descriptor, takes
 *  every queued update, commits, and marks them committed. Thread-safe.
 *
 *  Updates are committed in the order they were submitted and none is ever
 *  skipped: an update whose commit failed (a full disk) goes back to the
 *  front of the queue and rides the next commit. A dispatcher does not wait
 *  for most of its updates (a batch's outcomes, its cursor), so dropping
 *  one would let a later cursor become durable without the rows and counts
 *  before it: after a crash an event retrying then would be past the cursor
 *  with no row, never delivered again, and the counters would stay short.
 */
#ifndef DLQ_LEDGER_CHANNEL_H
#define DLQ_LEDGER_CHANNEL_H

#include "delivery_ledger.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct dlq_ledger_channel dlq_ledger_channel_t;

dlq_ledger_channel_t *dlq_ledger_channel_new (void);
void dlq_ledger_channel_destroy (dlq_ledger_channel_t **self_p);

/* Queue update (ownership moves in; freed after the commit). Returns a
 * ticket for dlq_ledger_channel_wait; 0 when the update is unfit to commit
 * (dlq_ledger_update_problem: a bug, logged; the update is freed), for
 * which dlq_ledger_channel_wait returns false at once. */
uint64_t dlq_ledger_channel_submit (dlq_ledger_channel_t *self, dlq_ledger_update_t *update);

/* Wait until the update with ticket is committed. false when its commit
 * failed (the update is kept and goes with a later commit: the caller may
 * submit it again, which only repeats what is durable by then, or carry
 * on without it) or the channel was closed. */
bool dlq_ledger_channel_wait (dlq_ledger_channel_t *self, uint64_t ticket);

/* Has the update with ticket been committed (*ok_out true) or has its
 * commit failed (*ok_out false; as dlq_ledger_channel_wait)? false while
 * it waits, without waiting. */
bool dlq_ledger_channel_settled (dlq_ledger_channel_t *self, uint64_t ticket, bool *ok_out);

/* Indexer side: a descriptor that is readable while updates are queued. */
int dlq_ledger_channel_fd (dlq_ledger_channel_t *self);

/* Indexer side: take every queued update (*count_out of them; the array
 * and the updates are the caller's until dlq_ledger_channel_done). */
dlq_ledger_update_t **dlq_ledger_channel_take (dlq_ledger_channel_t *self, size_t *count_out,
                                               uint64_t *last_ticket_out);

/* Indexer side: the updates taken up to last_ticket were committed (ok:
 * they are freed) or not (they go back to the front of the queue, in
 * their order, to be taken again with the next commit: a failed
 * transaction applied none of them, so none is applied twice); wakes the
 * waiters. The descriptor is not made readable for updates put back: they
 * wait for the next submit or batch, so a failing store is not retried in
 * a loop. */
void dlq_ledger_channel_done (dlq_ledger_channel_t *self, dlq_ledger_update_t **updates,
                              size_t count, uint64_t last_ticket, bool ok);

/* Wake every waiter with failure (shutdown). */
void dlq_ledger_channel_close (dlq_ledger_channel_t *self);


#endif
