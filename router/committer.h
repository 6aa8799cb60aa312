/*  committer — the group-commit actor: one thread owning the embedded
 *  store's writer connection. It takes a whole batch of PUTs, appends it in
 *  one transaction (one fsync), and hands the batch back with each event's
 *  duplicate flag; only then does the front end acknowledge. While it is
 *  idle it sweeps expired events.
 *
 *  The front end talks to it over an inproc PAIR socket, passing batch
 *  pointers; at most one batch is in the committer at a time.
 */
#ifndef COMMITTER_H
#define COMMITTER_H

#include "commit_batch.h"
#include "ledger_channel.h"

#include <stddef.h>
#include <stdint.h>

typedef struct dlq_committer dlq_committer_t;

/* Open the store in data_dir as its writer and start the thread. Ledger
 * updates queued on ledger are committed with the next batch (or alone when
 * no batch comes); after every commit the highest seq is published (8
 * bytes, int64) on a PUB socket bound at tip_endpoint. NULL with a message
 * in err on failure (nothing left running). */
dlq_committer_t *dlq_committer_new (void *zmq_ctx, const char *data_dir,
                                    int64_t sweep_interval_ms, int64_t sweep_batch,
                                    dlq_ledger_channel_t *ledger, const char *tip_endpoint,
                                    char *err, size_t err_len);

/* The socket to poll for ZMQ_POLLIN: a committed batch is ready. */
void *dlq_committer_socket (dlq_committer_t *self);

/* Hand batch to the committer (the caller must not touch it until it comes
 * back from dlq_committer_receive). */
void dlq_committer_submit (dlq_committer_t *self, dlq_commit_batch_t *batch);

/* The batch committed last, once the socket is readable (blocks otherwise). */
dlq_commit_batch_t *dlq_committer_receive (dlq_committer_t *self);

/* Stop the thread and close the store; a submitted batch must have been
 * received first. Accepts NULL and NULLs the pointer. */
void dlq_committer_destroy (dlq_committer_t **self_p);

#endif
