/*  committer — the group-commit actor: one thread owning the spool's
 *  writing end (core/spool). It takes a whole batch of PUTs, tells each
 *  event new or duplicate by the id index (core/spool/id_index.h: every
 *  stored id, in memory), appends the new ones as records and syncs them
 *  with one write and one fdatasync, and hands the batch back with each
 *  event's duplicate flag; only then does the front end acknowledge. No
 *  SQL on that path: the embedded store indexes the spool behind the ack
 *  (indexer.h).
 *
 *  Checkpoint writes in the batch (CKPT.* on the embedded primary) are
 *  records of the same sync (core/checkpoint_record.h): each is merged
 *  into the checkpoint table (every checkpoint in memory, as the synced
 *  writes left it: what CKPT.GET and CKPT.LIST read) and appended as the
 *  record it leaves; the table changes once the sync succeeded, and the
 *  embedded store applies the records behind (indexer.h). A write that
 *  would take the table past max_checkpoint_bytes is refused (the write's
 *  refused flag, its reply why); one that does not grow it never is.
 *
 *  At start it opens (creating and upgrading) the store the log feeds
 *  (log_store.h: the embedded store, or the state file's ids), opens the
 *  spool in DATA_DIR/spool (a new spool starts past the store's last seq,
 *  so positions and older seqs never meet) and fills the id index and the
 *  checkpoint table from the store and the spool records not indexed yet. After every sync
 *  it publishes the position of the spool's last record (8 bytes, int64:
 *  the highest seq) on a PUB socket bound at spool_tip_endpoint, which
 *  the indexer and the sinks' dispatchers read. Each event record it
 *  appends carries the next ordinal (event_record.h), so event counts
 *  between positions are subtractions (event_ordinal.h).
 *
 *  Marks (RESOLVE, FAIL, a replay's marks on the embedded primary) reach
 *  it through its mark channel (mark_channel.h): it appends a record of
 *  each queued mark (core/mark_record.h) and syncs them, between batches;
 *  the indexer applies them behind.
 *
 *  The front end talks to it over an inproc PAIR socket, passing batch
 *  pointers; at most one batch is in the committer at a time.
 */
#ifndef DLQ_COMMITTER_H
#define DLQ_COMMITTER_H

#include "checkpoint_table.h"
#include "commit_batch.h"
#include "dlq_sink.h"
#include "dlqd_config.h"
#include "id_index.h"
#include "mark_channel.h"
#include "spool.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct dlq_committer dlq_committer_t;

/* Start the thread: before it answers, it opens the spool in
 * config->data_dir and loads the id index and the checkpoints from the
 * store the log feeds (log_store.h; config outlives the committer) and
 * from the spool past what the store indexed. NULL with a message in err
 * on failure (nothing left running). */
dlq_committer_t *dlq_committer_new (void *zmq_ctx, const dlqd_config_t *config, const char *spool_tip_endpoint, size_t max_checkpoint_bytes, bool preallocate,
                                    char *err, size_t err_len);

/* The spool (its readers are any thread's) and the id index (readable
 * from any thread); owned by the committer, alive until it is destroyed. */
dlq_spool_t *dlq_committer_spool (dlq_committer_t *self);
dlq_id_index_t *dlq_committer_ids (dlq_committer_t *self);
dlq_checkpoint_table_t *dlq_committer_checkpoints (dlq_committer_t *self);

/* Its mark channel, alive until it is destroyed (closed first). */
dlq_mark_channel_t *dlq_committer_marks (dlq_committer_t *self);

/* Event records the spool holds past where the embedded store stood at
 * start, plus every one appended since (any thread): less the indexer's
 * count since start, the events not indexed yet. */
uint64_t dlq_committer_events (dlq_committer_t *self);

/* The ordinal of the newest event synced (event_record.h; 0: none yet),
 * any thread: less a consumer's ordinal, the events past it. It moves
 * just after the spool's tip does, so a reader can be one batch ahead. */
uint64_t dlq_committer_ordinal (dlq_committer_t *self);

/* The socket to poll for ZMQ_POLLIN: a committed batch is ready. */
void *dlq_committer_socket (dlq_committer_t *self);

/* Hand batch to the committer (the caller must not touch it until it comes
 * back from dlq_committer_receive). */
void dlq_committer_submit (dlq_committer_t *self, dlq_commit_batch_t *batch);

/* The batch committed last, once the socket is readable (blocks otherwise). */
dlq_commit_batch_t *dlq_committer_receive (dlq_committer_t *self);

/* Stop the thread and close the spool; a submitted batch must have been
 * received first, and every reader of the spool destroyed. Accepts NULL
 * and NULLs the pointer. */
void dlq_committer_destroy (dlq_committer_t **self_p);

#endif
