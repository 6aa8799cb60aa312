/*  checkpoint — a worker's stream position (the Checkpoint record of
 *  FlowWarden's CheckpointStore contract): the CKPT.* write requests read
 *  and checked from their JSON bodies, and the record's JSON form, the same
 *  from every store (pure).
 *
 *  The record: {"streamName","instanceId","lastSeenToken",
 *  "lastSeenTimestamp","lastProcessedToken","lastProcessedTimestamp",
 *  "metadata","updatedAt"}, absent fields omitted; tokens (BSON documents
 *  in MongoDB extended JSON) and metadata as compact JSON objects,
 *  timestamps as ISO-8601 UTC with milliseconds.
 */
#ifndef DLQ_CHECKPOINT_H
#define DLQ_CHECKPOINT_H

#include "dlq_buf.h"
#include "dlq_code.h"
#include "dlq_json.h"
#include "dlq_sink.h"

#include <stdbool.h>

#define DLQ_CKPT_STREAM_MAX   1024          /* bytes of a streamName */
#define DLQ_CKPT_INSTANCE_MAX 255
#define DLQ_CKPT_TOKEN_MAX    16384         /* bytes of a token's compact JSON */
#define DLQ_CKPT_METADATA_MAX 65536

/* A write request: what it changes and the values, owning its strings. */
typedef struct {
    dlq_sink_ckpt_write_t kind;
    dlq_sink_checkpoint_t record;       /* points into the strings below */
    char                 *owned [5];
} dlq_checkpoint_t;

/* Read the body of CKPT.SAVE (kind SAVE: the record's members, null or
 * absent = absent) or CKPT.SEEN / CKPT.PROCESSED (streamName, token,
 * timestamp: all required) into out (cleared first). DLQ_OK, or
 * INVALID_REQUEST / INVALID_TIMESTAMP with err->field naming the member;
 * out is then empty. */
dlq_code_t dlq_checkpoint_parse (dlq_sink_ckpt_write_t kind, const dlq_json_value_t *root,
                                 dlq_checkpoint_t *out, dlq_error_t *err);

/* The streamName member of a CKPT.GET / CKPT.DELETE body (only member),
 * pointing into root. */
dlq_code_t dlq_checkpoint_parse_stream (const dlq_json_value_t *root, const char **stream, size_t *len,
                                        dlq_error_t *err);

/* Set c (cleared first) to a record of stream alone (len bytes), e.g. for
 * CKPT.DELETE. */
void dlq_checkpoint_for_stream (dlq_checkpoint_t *c, const char *stream, size_t len);

/* A record's strings, in this order: stream_name, instance_id,
 * last_seen_token, last_processed_token, metadata. */
#define DLQ_CHECKPOINT_STRINGS 5

/* The record with the times of *times and the strings strings [i] (lens [i]
 * bytes, no NUL needed; NULL: absent), copied NUL-terminated into one new
 * block (*block_out: the caller frees it). */
dlq_sink_checkpoint_t dlq_checkpoint_with_strings (const dlq_sink_checkpoint_t *times,
                                                   const char *const strings [DLQ_CHECKPOINT_STRINGS],
                                                   const size_t lens [DLQ_CHECKPOINT_STRINGS], char **block_out);

/* A copy of record whose strings are in one new block (*block_out: the
 * caller frees it). */
dlq_sink_checkpoint_t dlq_checkpoint_copy (const dlq_sink_checkpoint_t *record, char **block_out);

/* Free what c owns; it is cleared. */
void dlq_checkpoint_clear (dlq_checkpoint_t *c);

/* Append record as its JSON object. Pure. */
void dlq_checkpoint_format (const dlq_sink_checkpoint_t *record, dlq_buf_t *out);

/* A record with nothing set but the stream name (the fields absent). */
dlq_sink_checkpoint_t dlq_checkpoint_empty (const char *stream);

#endif
