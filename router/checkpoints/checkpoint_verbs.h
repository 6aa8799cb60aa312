/*  checkpoint_verbs — the CKPT.* verbs (FlowWarden's CheckpointStore contract
 *  over the wire; docs/protocol.md, "Checkpoints"). On the embedded primary the writes
 *  (SAVE, SEEN, PROCESSED, DELETE) are read by the front end and committed
 *  with the next group commit (records of the spool's sync), answered once
 *  durable; GET and LIST are answered by a query thread from the
 *  committer's checkpoint table (every checkpoint as the synced writes
 *  left it). On a sink primary with the checkpoint calls, a query thread
 *  answers every verb through them.
 */
#ifndef DLQ_CHECKPOINT_VERBS_H
#define DLQ_CHECKPOINT_VERBS_H

#include "checkpoint.h"
#include "checkpoint_table.h"
#include "dlq_buf.h"
#include "dlq_code.h"
#include "dlq_json.h"
#include "primary.h"
#include "protocol.h"

#include <stdbool.h>
#include <stddef.h>

/* Read the body (len bytes) of write verb into value (cleared first) and
 * *remove (CKPT.DELETE). DLQ_OK, or the error to answer (EMPTY_BODY,
 * INVALID_JSON, INVALID_REQUEST, INVALID_TIMESTAMP, ...). */
dlq_code_t dlq_ckpt_read_write (dlq_verb_t verb, const void *body, size_t len, dlq_checkpoint_t *value,
                                bool *remove, dlq_error_t *err);

/* Answer verb with its parsed request root (NULL: empty body) on a query
 * thread: GET / LIST on any primary that keeps checkpoints (from table
 * when not NULL: the embedded primary's), the writes on a sink primary.
 * The OK body into out, or an error code with err. */
dlq_code_t dlq_ckpt_verbs_answer (dlq_primary_t *primary, dlq_checkpoint_table_t *table, dlq_verb_t verb,
                                  const dlq_json_value_t *root, dlq_buf_t *out, dlq_error_t *err);

#endif
