/*  mongo_workbench — the replay state of the mongo sink's events and the
 *  scheduled replay's claim (state, mark, claim of
 *  dlq_sink_workbench_ops_t), and the sink's workbench table (with
 *  mongo_query.h and mongo_groups.h).
 *
 *  state: the event's collection from _fw_dlq_index, then its document
 *  (mongo_state.h reads the state; absent fields are the defaults).
 *
 *  mark: one findAndModify (new: true) on the event's document, whose
 *  query also says "unexpired". A mark that changes the status also
 *  rewrites _fw_body (body_status.h: only the status value changes, every
 *  other byte stays), so it first reads the body and makes its update
 *  conditional on that body being still there ({_fw_body: <as read>}):
 *  a concurrent mark that changed it in between makes the query match
 *  nothing, and the mark reads the body again and retries (a few times:
 *  marks of one event are rare and short). Counts use $inc, so
 *  concurrent marks never lose one. REPLAYED leaves the body: a single
 *  unconditional findAndModify.
 *
 *  claim: the pass lock first (mongo_state.h: a conditional upsert in
 *  _fw_dlq_locks; DuplicateKey says another owner holds it: LOCKED,
 *  nothing changed; since two first passes at once may both try to make
 *  the lock document, a DuplicateKey is tried once more against the
 *  document now there), then up to batch_size findAndModify on the stream's
 *  collection, each taking the oldest due event (sort {createdAt: 1,
 *  _id: 1}) and setting its retryAfter to the lease in the same atomic
 *  write, so that it is no longer due for anyone: two claimers never take
 *  one event (MongoDB's SKIP LOCKED, one document at a time). A failure
 *  after some events were leased returns those (logged): they are leased,
 *  so the caller must send them. A batch costs batch_size round trips.
 */
#ifndef DLQ_MONGO_WORKBENCH_H
#define DLQ_MONGO_WORKBENCH_H

#include "dlq_sink.h"

#define DLQ_MONGO_MARK_TRIES 16     /* reads of a body that keeps changing */

extern const dlq_sink_workbench_ops_t dlq_mongo_workbench_ops;

#endif
