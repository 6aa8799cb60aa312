/*  log_store — the embedded store as the gateway feeds and reads it: an
 *  instance of its plugin (config->store, type embedded) and the plugin's
 *  log calls (dlq_sink.h, "log calls"), with the results in the gateway's
 *  own types. The indexer feeds it through an INDEX instance, the committer
 *  loads the duplicate check and the checkpoints from one at start, the
 *  dispatchers read the events the log no longer holds (the archive) and
 *  the query threads an event's seq through QUERY instances.
 *
 *  The gateway includes no header of the store: everything goes through
 *  the plugin's ops table, loaded like any sink's. One object is used by
 *  one thread at a time.
 */
#ifndef DLQ_LOG_STORE_H
#define DLQ_LOG_STORE_H

#include "dlq_buf.h"
#include "dlq_sink.h"
#include "failed_event.h"
#include "store_result.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct dlq_log_store dlq_log_store_t;

/* An instance of store (a config whose plugin has log calls: dlqd_config.h)
 * in mode, on the calling thread. NULL with err set on failure. */
dlq_log_store_t *dlq_log_store_open (const dlq_sink_config_t *store, dlq_sink_mode_t mode, char *err,
                                     size_t err_len);

/* Destroy the instance; accepts NULL and NULLs the pointer. */
void dlq_log_store_close (dlq_log_store_t **self_p);

/* The plugin's log calls and the instance, for calls this module does not
 * wrap (index, sweep_each, each_id, each_checkpoint: the ABI's types). */
const dlq_sink_log_ops_t *dlq_log_store_ops (const dlq_log_store_t *self);
void *dlq_log_store_instance (const dlq_log_store_t *self);

/* INDEX: the log position indexed up to; false when none was (a new store,
 * or one from before the log), and false with *failed set on error. */
bool dlq_log_store_position (dlq_log_store_t *self, uint64_t *position_out, bool *failed);

/* How many events are stored, or -1. */
int64_t dlq_log_store_count (dlq_log_store_t *self);

/* The highest seq ever stored (0: none), or -1. */
int64_t dlq_log_store_last_seq (dlq_log_store_t *self);

/* The seq of stored event id; NOT_FOUND when none, ERROR. */
dlq_store_result_t dlq_log_store_seq_of (dlq_log_store_t *self, const char *id, int64_t *seq_out);

/* The canonical body of unexpired event id into out (reset first). */
dlq_store_result_t dlq_log_store_get (dlq_log_store_t *self, const char *id, int64_t now_ms, dlq_buf_t *out);

/* Called per event read from the archive; the event moves to the callee. */
typedef void (dlq_log_store_event_fn) (int64_t seq, dlq_event_t *event, void *arg);

/* Up to limit stored events with seq > after, in seq order, as partial
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
