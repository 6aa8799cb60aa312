/*  embedded_store — the SQLite store behind the spool: the default primary
 *  (its events, workbench indexes and running group counts), the delivery
 *  ledger and checkpoints.
 *
 *  One SQLite database file (WAL mode) in data_dir. The acks do not wait
 *  for it: they wait for the spool (core/spool), and the indexer's writer
 *  connection takes the spool's records in large transactions behind them
 *  (embedded_index.h: synchronous=NORMAL, with a durable commit now and
 *  then that lets the spool release what it covers). Reader connections
 *  (one per query thread) answer queries concurrently with the writer,
 *  which WAL allows. Updater connections make the workbench's small writes
 *  (replay state, scheduler claims) in short transactions of their own, which
 *  SQLite serialises with the writer's. dlq_embedded_append is the same
 *  store written directly, as the embedded sink plugin and the tests do.
 *
 *  Schema (version 5; the meta table records it):
 *    events(seq INTEGER PRIMARY KEY AUTOINCREMENT  -- spool offset; never reused,
 *                                                  -- so a per-sink cursor stays valid
 *           id TEXT NOT NULL UNIQUE, stream_name TEXT NOT NULL,
 *           created_at INTEGER NOT NULL, expires_at INTEGER NULL,
 *           status TEXT NOT NULL, error_type TEXT NOT NULL,
 *           body TEXT NOT NULL,                     -- canonical JSON
 *           operation_type TEXT NULL, document_key TEXT NULL,     -- version 3
 *           attempts INTEGER NOT NULL DEFAULT 0, first_attempt_at INTEGER NULL,
 *           fingerprint TEXT NULL,                                -- version 4
 *           retry_count INTEGER NOT NULL DEFAULT 0,               -- version 5
 *           replay_count INTEGER NOT NULL DEFAULT 0, retry_after INTEGER NULL)
 *    stream_counts(stream_name TEXT PRIMARY KEY, events INTEGER NOT NULL)
 *    meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)
 *  Version 2 adds the delivery ledger keyed by (sink, seq): sink_state and
 *  deliveries, which only the daemon's state file reads now, once, when it
 *  takes them over (router/state/ledger_store.h). Version 3 adds the routing columns of
 *  events (copies of body members, so the spool reads need not parse the
 *  body). Version 4 adds the fingerprint column, fingerprint_counts and the
 *  indexes of the workbench's filters (embedded_query.h). Version 5 adds
 *  the replay state of events (retry_count, replay_count, retry_after; see
 *  embedded_workbench.h) and the tables scheduler_locks and replay_jobs
 *  (the daemon's jobs are in its state file now, router/state/job_store.h,
 *  which took this table's over once); an append writes none of it. A writer upgrades an
 *  older file in place when it opens it (backfilling the version 3 and 4
 *  columns from the bodies); readers open any version up to 5 and refuse a
 *  newer one; an updater needs version 5 exactly.
 *
 *  One object is used by one thread at a time.
 */
#ifndef DLQ_EMBEDDED_STORE_H
#define DLQ_EMBEDDED_STORE_H

#include "checkpoint_write.h"
#include "dlq_buf.h"
#include "failed_event.h"
#include "store_result.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DLQ_EMBEDDED_FILE "dlq.sqlite"

typedef enum {
    DLQ_EMBEDDED_WRITER,        /* creates the file and schema if missing */
    DLQ_EMBEDDED_READER,        /* read-only; the file must exist */
    DLQ_EMBEDDED_UPDATER        /* read-write for the workbench's updates (embedded_workbench.h);
                                   the file must exist at the current
                                   version (the writer creates and upgrades it) */
} dlq_embedded_mode_t;

typedef struct dlq_embedded dlq_embedded_t;

/* Open DLQ_EMBEDDED_FILE inside data_dir (the directory must exist). Returns
 * NULL with a message in err (err_len bytes) on failure. */
dlq_embedded_t *dlq_embedded_open (const char *data_dir, dlq_embedded_mode_t mode,
                                   char *err, size_t err_len);

/* Close; accepts NULL and NULLs the pointer. */
void dlq_embedded_destroy (dlq_embedded_t **self_p);

/* Append count encoded events (event->json set) in ONE transaction, then
 * commit (durable on return). duplicate[i] is set true when an event with
 * the same id was already stored, by an earlier append or earlier in this
 * batch; such an event is not stored again. On DLQ_STORE_ERROR nothing of
 * the batch is stored. Writer only. */
dlq_store_result_t dlq_embedded_append (dlq_embedded_t *self, dlq_event_t *const *events,
                                        size_t count, bool *duplicate,
                                        char *err, size_t err_len);

/* The same, with count checkpoint writes (embedded_checkpoints.h) applied
 * in the same transaction after the events, in order; each write's reply
 * is filled in. *last_seq_out (may be NULL) receives the highest seq in
 * the store after the commit. count and ckpt_count may be 0. On
 * DLQ_STORE_ERROR nothing is stored (replies are then meaningless). */
dlq_store_result_t dlq_embedded_commit_all (dlq_embedded_t *self, dlq_event_t *const *events,
                                            size_t count, bool *duplicate,
                                            dlq_ckpt_write_t *ckpts, size_t ckpt_count,
                                            int64_t *last_seq_out, char *err, size_t err_len);

/* The canonical JSON of event id into json_out (replacing its contents);
 * DLQ_STORE_NOT_FOUND when missing or expired (expires_at <= now_ms). */
dlq_store_result_t dlq_embedded_get (dlq_embedded_t *self, const char *id, int64_t now_ms,
                                     dlq_buf_t *json_out);

/* One page of stream's unexpired events, newest first (created_at desc, then
 * seq desc). events_out receives a JSON array of canonical bodies, e.g.
 * [{...},{...}] or []; next_cursor_out receives an opaque cursor for the next
 * page, or is left empty when this page is the last. cursor NULL or "" starts
 * at the newest. limit >= 1. */
dlq_store_result_t dlq_embedded_list (dlq_embedded_t *self, const char *stream, size_t limit,
                                      const char *cursor, int64_t now_ms,
                                      dlq_buf_t *events_out, dlq_buf_t *next_cursor_out);

/* Store statistics: streams_out receives a JSON object {"stream":count,...}
 * (stored events per stream, from stream_counts); *events_out the total,
 * *bytes_out the size of the database file plus its WAL. */
dlq_store_result_t dlq_embedded_stats (dlq_embedded_t *self, dlq_buf_t *streams_out,
                                       int64_t *events_out, int64_t *bytes_out);

/* Delete at most max_rows events with expires_at <= now_ms in one
 * transaction (keeping stream_counts right). Returns how many were deleted,
 * or -1 on error. Writer only. */
int64_t dlq_embedded_sweep (dlq_embedded_t *self, int64_t now_ms, int max_rows);

/* Called once per event a sweep deleted, after its commit. */
typedef void (dlq_embedded_swept_fn) (const char *id, size_t len, int64_t seq, void *arg);

/* The same, calling fn (may be NULL) for each deleted event. */
int64_t dlq_embedded_sweep_each (dlq_embedded_t *self, int64_t now_ms, int max_rows,
                                 dlq_embedded_swept_fn *fn, void *arg);

/* Why the last call that returned DLQ_STORE_ERROR (or -1) failed, e.g. for
 * the log line of a failed GET / LIST / STATS / sweep; "" before any error.
 * Owned by the object; valid until its next call. */
const char *dlq_embedded_last_error (const dlq_embedded_t *self);

#endif
