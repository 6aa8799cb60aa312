/*  pg_workbench — the mutable replay state of the postgres sink's events
 *  and the scheduled replay's claim: state, mark and claim of
 *  dlq_sink_workbench_ops_t (dlq_sink.h), and the workbench ops table
 *  (with pg_query.h's queries).
 *
 *  The state lives in the row (table version 2): status, retry_count,
 *  replay_count, retry_after (created_at until a mark or a claim sets it).
 *      state   one SELECT; NOT_FOUND when missing or expired
 *      mark    one UPDATE ... RETURNING that changes the counters on the
 *              server (no read-modify-write): RESOLVED -> status
 *              SUCCEEDED; FAILED -> status PENDING, retry_count + 1,
 *              retry_after; REPLAYED -> replay_count + 1, retry_after;
 *              QUARANTINED -> status QUARANTINED; updated_at = now(). A
 *              status change also sets payload's "status" (jsonb_set) and,
 *              in the same transaction (the row stays locked), payload_text
 *              with its top-level "status" value replaced and every other
 *              byte kept (core/body_status.h), so GET and LIST show the new status.
 *      claim   one transaction: take the stream's pass in the lock table
 *              "<table>_scheduler_lock" (a row per stream: owner,
 *              locked_until = now_ms + pass_ms) unless another owner's row
 *              has locked_until > now_ms (LOCKED, nothing changed), then
 *              lease up to batch_size events of the stream (status PENDING,
 *              retry_count < max_retries, retry_after <= now_ms,
 *              unexpired; oldest first) with FOR UPDATE SKIP LOCKED,
 *              setting their retry_after to lease_until_ms.
 *  Every time compared is the caller's now_ms, never the server's clock;
 *  updated_at alone is the server's now().
 */
#ifndef DLQ_PG_WORKBENCH_H
#define DLQ_PG_WORKBENCH_H

#include "dlq_sink.h"

/* The workbench calls of the ABI. */
extern const dlq_sink_workbench_ops_t dlq_pg_workbench_ops;

#endif
