/*  checkpoint_write — one checkpoint write as the committer hands it to
 *  a store's commit (the indexer's, from the spool's records, or a test's):
 *  the write, and the reply the commit fills in.
 */
#ifndef DLQ_CHECKPOINT_WRITE_H
#define DLQ_CHECKPOINT_WRITE_H

#include "dlq_buf.h"
#include "dlq_sink.h"

#include <stdbool.h>
#include <stdint.h>

/* One checkpoint write of a commit. */
typedef struct {
    bool                   remove;      /* CKPT.DELETE of record.stream_name */
    dlq_sink_ckpt_write_t  kind;        /* else SAVE / SEEN / PROCESSED */
    dlq_sink_checkpoint_t  record;      /* the stream name, and the values kind writes */
    int64_t                now_ms;      /* updated_at */
    dlq_buf_t              reply;       /* filled by the commit: the record after the
                                         * write, or {"streamName":...,"deleted":bool};
                                         * or, refused, why */
    bool                   refused;     /* set by the daemon's committer: not made (the
                                         * checkpoints' memory is full) */
} dlq_ckpt_write_t;

#endif
