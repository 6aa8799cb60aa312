/*  primary — the store that answers GET / LIST / STATS, the failure
 *  workbench and the checkpoints: the embedded store the gateway feeds from
 *  its log (primary = "embedded"), or a sink that can serve queries
 *  (primary = "<sink name>"). Either is a plugin, and is asked through its
 *  calls (dlq_sink.h) on an instance in QUERY mode: the caller's embedded
 *  store's (log_store.h), or one of the sink's the primary opens. One per
 *  query thread, used on it only.
 */
#ifndef DLQ_PRIMARY_H
#define DLQ_PRIMARY_H

#include "dlq_buf.h"
#include "dlqd_config.h"
#include "dlq_sink.h"
#include "event_filter.h"
#include "log_store.h"
#include "mark_channel.h"
#include "store_result.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct dlq_primary dlq_primary_t;

/* Open on the calling thread. store is this thread's QUERY instance of the
 * embedded store, used when the primary is "embedded" (not owned: it
 * outlives the primary). NULL with err set when the primary sink's init
 * fails, or the embedded store's plugin lacks the workbench or checkpoint
 * calls. */
dlq_primary_t *dlq_primary_open (const dlqd_config_t *config, dlq_log_store_t *store, char *err, size_t err_len);
void dlq_primary_close (dlq_primary_t **self_p);

/* On the embedded store, write marks through marks (mark_channel.h:
 * appended to the spool, applied by the indexer) rather than the store's
 * workbench calls. Nothing on a sink primary. */
void dlq_primary_use_marks (dlq_primary_t *self, dlq_mark_channel_t *marks);

/* Is the primary the embedded store (rather than a sink)? */
bool dlq_primary_is_embedded (const dlq_primary_t *self);

/* As dlq_embedded_get / _list / _stats (same outputs and results). */
dlq_store_result_t dlq_primary_get (dlq_primary_t *self, const char *id, int64_t now_ms, dlq_buf_t *out);
dlq_store_result_t dlq_primary_list (dlq_primary_t *self, const char *stream, size_t limit,
                                     const char *cursor, int64_t now_ms,
                                     dlq_buf_t *events_out, dlq_buf_t *cursor_out);
dlq_store_result_t dlq_primary_stats (dlq_primary_t *self, dlq_buf_t *streams_out,
                                      int64_t *events_out, int64_t *bytes_out);

/* Does this primary serve the failure workbench: its queries (LIST with
 * filters or across streams, COUNT, GROUPS; embedded_query.h) and the
 * replay state (RESOLVE, FAIL, REPLAY, scheduled passes)? The spool does;
 * a sink store does when its plugin has the workbench calls (dlq_sink.h). */
bool dlq_primary_workbench (const dlq_primary_t *self);

/* As dlq_embedded_query_list / _count / _groups; only when
 * dlq_primary_workbench. */
dlq_store_result_t dlq_primary_query_list (dlq_primary_t *self, const dlq_event_filter_t *filter, size_t limit,
                                           const char *cursor, int64_t now_ms,
                                           dlq_buf_t *events_out, dlq_buf_t *cursor_out);
dlq_store_result_t dlq_primary_query_count (dlq_primary_t *self, const dlq_event_filter_t *filter, int64_t now_ms,
                                            int64_t *count_out);
dlq_store_result_t dlq_primary_query_groups (dlq_primary_t *self, const dlq_event_filter_t *filter, size_t limit,
                                             int64_t now_ms, dlq_buf_t *groups_out);

/* As dlq_embedded_state / _mark / _claim (embedded_workbench.h); only when
 * dlq_primary_workbench. On the spool, marks go through the spool's mark
 * channel once dlq_primary_use_marks gave one (mark of an event missing
 * or expired answers NOT_FOUND without a record); claims, and marks
 * without a channel, write through a read-write connection of the
 * primary's own, opened at first use. */
dlq_store_result_t dlq_primary_state (dlq_primary_t *self, const char *id, int64_t now_ms,
                                      dlq_sink_event_state_t *state_out);
dlq_store_result_t dlq_primary_mark (dlq_primary_t *self, const char *id, dlq_sink_mark_t mark, int64_t now_ms,
                                     int64_t retry_after_ms, dlq_sink_event_state_t *state_out);
/* mark of each of the count ids (missing ones passed by): on the spool
 * one sync and one index transaction for all (or, without a channel, one
 * transaction: dlq_embedded_mark_all), on a sink one call each. */
dlq_store_result_t dlq_primary_mark_all (dlq_primary_t *self, const char *const *ids, size_t count,
                                         dlq_sink_mark_t mark, int64_t now_ms, int64_t retry_after_ms);
dlq_store_result_t dlq_primary_claim (dlq_primary_t *self, const char *stream, const char *owner, int64_t pass_ms,
                                      int32_t max_retries, size_t batch_size, int64_t now_ms,
                                      int64_t lease_until_ms, dlq_buf_t *events_out);

/* Does this primary keep checkpoints (CKPT.*)? The spool does (its writes
 * go through the committer); a sink store with the checkpoint calls. */
bool dlq_primary_checkpoints (const dlq_primary_t *self);

/* A checkpoint write on a SINK primary (the spool's are committed by the
 * committer): the record's kind of write, or its deletion when remove;
 * out gets the reply body (the record, or {"streamName":..,"deleted":b}). */
dlq_store_result_t dlq_primary_ckpt_write (dlq_primary_t *self, const dlq_sink_checkpoint_t *record,
                                           dlq_sink_ckpt_write_t kind, bool remove, int64_t now_ms,
                                           dlq_buf_t *out);

/* A record (NOT_FOUND when none), and a page of records, as
 * dlq_embedded_ckpt_get / _list. */
dlq_store_result_t dlq_primary_ckpt_get (dlq_primary_t *self, const char *stream, dlq_buf_t *out);
dlq_store_result_t dlq_primary_ckpt_list (dlq_primary_t *self, const char *prefix, size_t limit,
                                          const char *cursor, dlq_buf_t *records_out, dlq_buf_t *cursor_out);

/* True when this primary must be swept by the gateway: a sink store with a
 * sweep call (the embedded store is swept by the indexer). The same for
 * config's primary, before any is opened. */
bool dlq_primary_sweeps (const dlq_primary_t *self);
bool dlq_primary_config_sweeps (const dlqd_config_t *config);

/* Delete up to max_rows expired events of a sink primary; how many, or -1. */
int64_t dlq_primary_sweep (dlq_primary_t *self, int64_t now_ms, int64_t max_rows);

/* Why the last call failed. */
const char *dlq_primary_last_error (const dlq_primary_t *self);

#endif
