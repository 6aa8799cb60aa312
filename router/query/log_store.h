/*  log_store — what the gateway feeds from its log behind the ack and
 *  reads back: the duplicate check's ids, and the events the log no longer
 *  holds (the archive). With primary = "embedded" that is the embedded
 *  store: an instance of its plugin (config->store, type embedded) and the
 *  plugin's log calls (dlq_sink.h, "log calls"). With a sink primary it is
 *  the daemon's own store of ids in the state file (id_store.h), which
 *  answers the same calls; the embedded store is not fed then. A data_dir
 *  that held an embedded store before (dlq.sqlite: an earlier primary, an
 *  earlier release) has its ids taken over once, and its events stay
 *  readable as the archive (read only) for the sinks and failed
 *  deliveries that still need them.
 *
 *  The indexer feeds it through an INDEX instance, the committer loads the
 *  duplicate check and the checkpoints from one at start, the dispatchers
 *  read the archive and the query threads an event's seq through QUERY
 *  instances.
 *
 *  The gateway includes no header of the embedded store: everything goes
 *  through the plugin's ops table, loaded like any sink's. One object is
 *  used by one thread at a time.
 */
#ifndef DLQ_LOG_STORE_H
#define DLQ_LOG_STORE_H

#include "dlq_buf.h"
#include "dlq_sink.h"
#include "dlqd_config.h"
#include "failed_event.h"
#include "store_result.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct dlq_log_store dlq_log_store_t;

/* The store of config (above) in mode, on the calling thread: an
 * instance of config->store when the primary is the embedded store, else
 * the state file's ids (taking over the embedded store's, once). NULL with
 * err set on failure. */
dlq_log_store_t *dlq_log_store_open (const dlqd_config_t *config, dlq_sink_mode_t mode, char *err, size_t err_len);

/* Destroy the instance; accepts NULL and NULLs the pointer. */
void dlq_log_store_close (dlq_log_store_t **self_p);

/* The log calls and the instance they take (the embedded store's plugin,
 * or the id store's), for calls this module does not wrap (index,
 * sweep_each, each_id, each_checkpoint: the ABI's types). */
const dlq_sink_log_ops_t *dlq_log_store_ops (const dlq_log_store_t *self);
void *dlq_log_store_instance (const dlq_log_store_t *self);

/* INDEX: the log position indexed up to; false when none was (a new store,
 * or one from before the log), and false with *failed set on error. */
bool dlq_log_store_position (dlq_log_store_t *self, uint64_t *position_out, bool *failed);

/* How many events are stored, or -1. */
int64_t dlq_log_store_count (dlq_log_store_t *self);

/* The highest seq ever stored (0: none; the archive's too), or -1. */
int64_t dlq_log_store_last_seq (dlq_log_store_t *self);

/* The seq of stored event id; NOT_FOUND when none, ERROR. */
dlq_store_result_t dlq_log_store_seq_of (dlq_log_store_t *self, const char *id, int64_t *seq_out);

/* The canonical body of unexpired event id into out (reset first), from
 * the embedded store (the primary's, or the archive's); NOT_FOUND without
 * one. */
dlq_store_result_t dlq_log_store_get (dlq_log_store_t *self, const char *id, int64_t now_ms, dlq_buf_t *out);

/* Called per event read from the archive; the event moves to the callee. */
typedef void (dlq_log_store_event_fn) (int64_t seq, dlq_event_t *event, void *arg);

/* The archive: the embedded store's events (none with a sink primary and
 * no dlq.sqlite from before). Up to limit stored events with seq > after,
 * in seq order, as partial
 * events (the routing members and json, as core/event_record.h decodes
 * them; error_type and fingerprint unset); how many, or -1. */
int64_t dlq_log_store_read_after (dlq_log_store_t *self, int64_t after, size_t limit, dlq_log_store_event_fn *fn,
                                  void *arg);

/* The stored event of seq (as read_after's); NOT_FOUND when there is none. */
dlq_store_result_t dlq_log_store_read_seq (dlq_log_store_t *self, int64_t seq, dlq_event_t **event_out);

/* Stored events with after < seq < below, or -1. */
int64_t dlq_log_store_count_between (dlq_log_store_t *self, int64_t after, int64_t below);

/* The store's message for the last failed call. */
const char *dlq_log_store_last_error (const dlq_log_store_t *self);

#endif
