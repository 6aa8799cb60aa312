/*  commit_batch — the writes of one group commit: PUTs (each event with the
 *  identity and request id to acknowledge it to, and, once committed, its
 *  duplicate flag) and checkpoint writes (CKPT.SAVE / SEEN / PROCESSED /
 *  DELETE on the embedded primary, each with its reply once committed).
 *  Moved between the front end and the committer thread by pointer; only
 *  one thread touches a batch at a time.
 */
#ifndef DLQ_COMMIT_BATCH_H
#define DLQ_COMMIT_BATCH_H

#include "checkpoint.h"
#include "checkpoint_write.h"
#include "failed_event.h"

#include <stdbool.h>
#include <stddef.h>
#include <zmq.h>

typedef struct {
    size_t         count;
    size_t         capacity;
    size_t         bytes;           /* canonical JSON of the events in the batch */
    size_t         max_bytes;       /* full from this many bytes on */
    dlq_event_t  **events;          /* owned (those decoded in arena: the arena's) */
    dlq_arena_t   *arena;           /* the events decoded for this batch, and their strings: reset with it */
    zmq_msg_t     *identities;      /* ROUTER identity of each event's client */
    zmq_msg_t     *request_ids;
    bool          *duplicate;       /* filled by the commit */
    int64_t       *received_ns;     /* when each event was added (dlq_time_mono_ns): its ack latency */
    size_t             ckpt_count;
    dlq_ckpt_write_t  *ckpts;       /* the checkpoint writes (their replies filled by the commit) */
    dlq_checkpoint_t  *ckpt_values; /* what each write points into (owned) */
    zmq_msg_t         *ckpt_identities;
    zmq_msg_t         *ckpt_request_ids;
    bool           failed;          /* the events' sync failed: none of them was stored */
    char           error [256];     /* why, when failed */
    bool           ckpt_failed;     /* the checkpoint writes' commit failed: none was made */
    char           ckpt_error [256];
} dlq_commit_batch_t;

/* New empty batch able to hold capacity writes, full once its events'
 * canonical JSON adds up to max_bytes (it always takes one event). */
dlq_commit_batch_t *dlq_commit_batch_new (size_t capacity, size_t max_bytes);

/* Add event (ownership moves in) with the messages identity and request_id
 * (moved in: the caller's messages are left empty). The batch must not be
 * full. */
void dlq_commit_batch_add (dlq_commit_batch_t *self, dlq_event_t **event_p,
                           zmq_msg_t *identity, zmq_msg_t *request_id);

/* Add a checkpoint write: the parsed request (moved in: *value is left
 * empty), a delete of its stream when remove, with now_ms as its
 * updated_at, and the messages to answer (moved in). The batch must not
 * be full. */
void dlq_commit_batch_add_ckpt (dlq_commit_batch_t *self, dlq_checkpoint_t *value, bool remove, int64_t now_ms,
                                zmq_msg_t *identity, zmq_msg_t *request_id);

/* Writes in the batch (events and checkpoint writes). */
size_t dlq_commit_batch_size (const dlq_commit_batch_t *self);

/* True when no more writes fit: capacity writes, or max_bytes of events. */
bool dlq_commit_batch_full (const dlq_commit_batch_t *self);

/* Free the events and messages and empty the batch for reuse (its arena
 * reset: every event decoded in it is gone). */
void dlq_commit_batch_clear (dlq_commit_batch_t *self);

/* Free; accepts NULL and NULLs the pointer. */
void dlq_commit_batch_destroy (dlq_commit_batch_t **self_p);

#endif
