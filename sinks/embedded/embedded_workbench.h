/*  embedded_workbench — the mutable replay state of events in the embedded
 *  store (schema version 5): RESOLVE / FAIL / replay lineage / the loop
 *  guard, and the scheduled replay's claim.
 *
 *  Schema version 5 adds to events
 *      retry_count  INTEGER NOT NULL DEFAULT 0   -- FAILs reported by workers
 *      replay_count INTEGER NOT NULL DEFAULT 0   -- times replayed
 *      retry_after  INTEGER NULL                 -- ms; NULL = created_at
 *  and the table scheduler_locks(stream_name TEXT PRIMARY KEY, owner TEXT
 *  NOT NULL, locked_until INTEGER NOT NULL) (one row per stream's pass).
 *  Adding columns with defaults is instant: ingest writes nothing new.
 *  A status change rewrites the status column and the body's "status"
 *  member (json_set), so GET and LIST show it.
 *
 *  These calls write: use them on a connection opened with
 *  DLQ_EMBEDDED_WRITER or DLQ_EMBEDDED_UPDATER (embedded_store.h). Each is
 *  one short transaction; SQLite serialises it with the committer's.
 */
#ifndef DLQ_EMBEDDED_WORKBENCH_H
#define DLQ_EMBEDDED_WORKBENCH_H

#include "dlq_buf.h"
#include "dlq_sink.h"
#include "embedded_store.h"

#include <stddef.h>
#include <stdint.h>

/* The replay state of event id (retry_after: created_at while never set);
 * DLQ_STORE_NOT_FOUND when missing or expired (expires_at <= now_ms).
 * Works on readers too. */
dlq_store_result_t dlq_embedded_state (dlq_embedded_t *self, const char *id, int64_t now_ms,
                                       dlq_sink_event_state_t *state_out);

/* Change event id's state as mark says (dlq_sink.h: RESOLVED -> status
 * SUCCEEDED; FAILED -> status PENDING, retry_count + 1, retry_after =
 * retry_after_ms; REPLAYED -> replay_count + 1, retry_after =
 * retry_after_ms; QUARANTINED -> status QUARANTINED) and give the new
 * state (state_out may be NULL); DLQ_STORE_NOT_FOUND when missing or
 * expired. A status change rewrites the body's "status" member in place,
 * the rest of the body byte for byte as it was. */
dlq_store_result_t dlq_embedded_mark (dlq_embedded_t *self, const char *id, dlq_sink_mark_t mark,
                                      int64_t now_ms, int64_t retry_after_ms,
                                      dlq_sink_event_state_t *state_out);

/* dlq_embedded_mark of each of the count ids, in one transaction (one
 * fsync); ids missing or expired are passed by. DLQ_STORE_ERROR (nothing
 * changed) when a step fails. */
dlq_store_result_t dlq_embedded_mark_all (dlq_embedded_t *self, const char *const *ids, size_t count,
                                          dlq_sink_mark_t mark, int64_t now_ms, int64_t retry_after_ms);

/* One scheduled pass of stream for owner, as dlq_sink_workbench_ops_t's
 * claim: DLQ_STORE_LOCKED (nothing changed, events_out empty) when another
 * owner's row in scheduler_locks has locked_until > now_ms (the same owner
 * is never locked out); else the row becomes (owner, now_ms + pass_ms) and
 * up to batch_size events of the stream with status 'PENDING',
 * retry_count < max_retries, coalesce(retry_after, created_at) <= now_ms,
 * unexpired, oldest first (created_at, seq), get retry_after =
 * lease_until_ms, in one transaction. events_out gets
 * [{"replayCount":n,"event":{...}},...] oldest first. */
dlq_store_result_t dlq_embedded_claim (dlq_embedded_t *self, const char *stream, const char *owner,
                                       int64_t pass_ms, int32_t max_retries, size_t batch_size,
                                       int64_t now_ms, int64_t lease_until_ms, dlq_buf_t *events_out);

#endif
