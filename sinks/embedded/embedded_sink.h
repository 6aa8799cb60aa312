/*  embedded_sink — what the files of the embedded store's plugin share
 *  (embedded_sink.c: the entry, deliver and the store calls;
 *  embedded_sink_workbench.c: the workbench and checkpoint calls;
 *  embedded_sink_log.c: the log calls, by which the gateway feeds it). Not
 *  part of the store's library: the plugin's own.
 */
#ifndef DLQ_EMBEDDED_SINK_H
#define DLQ_EMBEDDED_SINK_H

#include "dlq_sink.h"

#include "checkpoint_write.h"
#include "dlq_buf.h"
#include "embedded_index.h"
#include "embedded_store.h"

#include <stdbool.h>
#include <stddef.h>

/* One instance: its store connection(s) and the buffers its calls reuse. */
typedef struct {
    const dlq_sink_host_t   *host;
    const dlq_sink_config_t *config;
    dlq_sink_mode_t          mode;
    const char              *data_dir;  /* lives as long as the config */
    dlq_embedded_t          *store;     /* DELIVER, INDEX: the writer; QUERY: a reader */
    dlq_embedded_t          *sweeper;   /* QUERY: a writer, opened on the first sweep or checkpoint write */
    dlq_embedded_t          *updater;   /* QUERY: the workbench's marks and claims, opened on the first */
    dlq_event_t            **batch;     /* DELIVER: the decoded events of a batch */
    size_t                  *slot;      /* batch [k] is events [slot [k]] */
    bool                    *duplicate;
    size_t                   capacity;
    dlq_buf_t                out;       /* a store call's main output */
    dlq_buf_t                cursor;    /* list's next cursor */
    /* INDEX: one index call's records, decoded (embedded_sink_log.c) */
    dlq_event_t            **events;
    int64_t                 *seqs;
    dlq_ckpt_write_t        *ckpts;
    char                   **ckpt_blocks;
    dlq_embedded_mark_write_t *marks;
    size_t                  *mark_records;  /* marks [k] is records [mark_records [k]] */
    size_t                   page_capacity;
    bool                     relaxed;       /* the writer commits without waiting for the disk */
    bool                     behind;        /* its WAL checkpoints run on a thread of their own */
} embedded_sink_t;

/* The ABI status of a store result; an error is logged with the store's
 * words, prefixed with what. */
dlq_sink_status_t embedded_sink_status (const embedded_sink_t *self, const dlq_embedded_t *store,
                                        dlq_store_result_t result, const char *what);

/* Copy a local buffer into a host buffer. */
void embedded_sink_put (const embedded_sink_t *self, dlq_sink_buf_t *to, const dlq_buf_t *from);

/* The writer connection: a DELIVER or INDEX instance's own, or one a QUERY
 * instance opens once. NULL (logged) when it cannot be opened. */
dlq_embedded_t *embedded_sink_writer (embedded_sink_t *self);

/* Free what the INDEX calls keep (embedded_sink_log.c). */
void embedded_sink_log_free (embedded_sink_t *self);

extern const dlq_sink_workbench_ops_t embedded_sink_workbench_ops;
extern const dlq_sink_checkpoint_ops_t embedded_sink_checkpoint_ops;
extern const dlq_sink_log_ops_t embedded_sink_log_ops;

#endif
