/*  replay_lineage — the body of a replayed event: the stored canonical
 *  body with metadata.replayOf (the event's id) and metadata.replayCount
 *  (how many times it has been replayed, this one included) set. Every
 *  other member keeps its bytes and order; a body without metadata gets it
 *  as its last member. Pure.
 */
#ifndef DLQ_REPLAY_LINEAGE_H
#define DLQ_REPLAY_LINEAGE_H

#include "dlq_buf.h"
#include "dlq_json.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Append the replayed body of json (len bytes, a JSON object) to out.
 * False (out unchanged) when json is not a JSON object. */
bool dlq_replay_lineage (const char *json, size_t len, const char *id, int64_t replay_count,
                         dlq_buf_t *out);

/* The same for a body already parsed: root, a JSON object (as a page of
 * LIST gives it). */
void dlq_replay_lineage_of (const dlq_json_value_t *root, const char *id, int64_t replay_count, dlq_buf_t *out);

#endif
