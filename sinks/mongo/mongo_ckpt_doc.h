/*  mongo_ckpt_doc — the documents of the mongo sink's checkpoints
 *  (FlowWarden's CheckpointStore contract, dlq_sink_checkpoint_ops_t) as
 *  pure functions (no server, no mongoc client): the update of each kind of
 *  write, the LIST filter, and the record's JSON read back from a document.
 *  Unit-tested in tests/test_mongo_doc.c.
 *
 *  One document per stream in the collection _fw_checkpoints, in the
 *  layout of FlowWarden's MongoCheckpointStore, with native BSON types:
 *      _id                     the stream name (string)
 *      instanceId              string
 *      lastSeenToken           document, from the token's extended JSON
 *                              (libbson's reader: $numberLong an int64,
 *                              $binary binary data, $date a date, ...)
 *      lastSeenTimestamp       date
 *      lastProcessedToken, lastProcessedTimestamp      the same
 *      metadata                document (from plain JSON)
 *      updatedAt               date: the write's now_ms
 *      _fw_lastSeenToken, _fw_lastProcessedToken, _fw_metadata
 *                              strings: the compact JSON text as given,
 *                              what the calls answer byte for byte (BSON
 *                              cannot give back the same bytes: number
 *                              forms, wrapper key order, -0, integers
 *                              past int64 that libbson wraps)
 *  A field absent from the record is absent from the document.
 *
 *  Writes (all upserts keyed by _id, new: true):
 *      SAVE        a replacement document: every field above
 *      SEEN        {$set: {lastSeenToken, _fw_lastSeenToken,
 *                  lastSeenTimestamp, updatedAt}}: nothing else, so a
 *                  concurrent PROCESSED is never undone; an upsert
 *                  creates the document with only these fields. An
 *                  absent token or timestamp is $unset instead.
 *      PROCESSED   the mirror on lastProcessed*
 *  A token libbson cannot read (a key with \u0000, a number past a
 *  double's range) is refused: BAD_TOKEN. Metadata libbson cannot read
 *  is kept as its text alone (no metadata field).
 *
 *  Reading: a token (or metadata) is answered from its text field while
 *  that text still describes the BSON field (libbson reads it into the same
 *  bytes): a writer that sets only the BSON field (FlowWarden's own
 *  MongoCheckpointStore, on the same collection) makes the text stale, and
 *  the BSON field is answered instead, as compact extended JSON (canonical
 *  for tokens, which keeps their BSON types; relaxed for metadata). A text
 *  without a BSON field counts when libbson cannot read it (the metadata
 *  case above), else the field was removed: absent. Timestamps are the
 *  dates to the millisecond; a field of another type is absent.
 */
#ifndef DLQ_MONGO_CKPT_DOC_H
#define DLQ_MONGO_CKPT_DOC_H

#include "dlq_buf.h"
#include "dlq_sink.h"

#include <bson/bson.h>
#include <stddef.h>
#include <stdint.h>

#define DLQ_MONGO_CKPT_COLLECTION       "_fw_checkpoints"
#define DLQ_MONGO_CKPT_INSTANCE         "instanceId"
#define DLQ_MONGO_CKPT_SEEN_TOKEN       "lastSeenToken"
#define DLQ_MONGO_CKPT_SEEN_TEXT        "_fw_lastSeenToken"
#define DLQ_MONGO_CKPT_SEEN_AT          "lastSeenTimestamp"
#define DLQ_MONGO_CKPT_PROCESSED_TOKEN  "lastProcessedToken"
#define DLQ_MONGO_CKPT_PROCESSED_TEXT   "_fw_lastProcessedToken"
#define DLQ_MONGO_CKPT_PROCESSED_AT     "lastProcessedTimestamp"
#define DLQ_MONGO_CKPT_METADATA         "metadata"
#define DLQ_MONGO_CKPT_METADATA_TEXT    "_fw_metadata"
#define DLQ_MONGO_CKPT_UPDATED_AT       "updatedAt"

typedef enum {
    DLQ_MONGO_CKPT_OK = 0,
    DLQ_MONGO_CKPT_BAD_TOKEN,       /* a token libbson cannot read (the message says which) */
    DLQ_MONGO_CKPT_BAD_KIND,        /* not a dlq_sink_ckpt_write_t */
    DLQ_MONGO_CKPT_NOT_A_RECORD     /* a document whose _id is not a string */
} dlq_mongo_ckpt_result_t;

/* The update of a write of kind of record at now_ms into update
 * (initialised by the call whatever it returns: destroy it): a
 * replacement for SAVE, $set (and $unset) of one pair and updatedAt for
 * SEEN / PROCESSED. BAD_TOKEN (why in err) when libbson cannot read a
 * token the write stores. */
dlq_mongo_ckpt_result_t dlq_mongo_ckpt_update (dlq_sink_ckpt_write_t kind, const dlq_sink_checkpoint_t *record,
                                               int64_t now_ms, bson_t *update, char *err, size_t err_len);

/* The filter of a LIST page into filter (initialised): string _ids from
 * prefix on (NULL or "": all) and after cursor (NULL or "": from the
 * first). A page sorts {_id: 1} and stops at the first name that does
 * not start with prefix (byte order keeps those together). */
void dlq_mongo_ckpt_list_filter (const char *prefix, const char *cursor, bson_t *filter);

/* Does name (len bytes) start with prefix (NULL: yes)? */
bool dlq_mongo_ckpt_has_prefix (const char *name, size_t len, const char *prefix);

/* Can cursor be the name of a record (UTF-8, at most a streamName's
 * length)? Only such a name is a cursor this store issues. */
bool dlq_mongo_ckpt_cursor_valid (const char *cursor);

/* Append the record of doc as dlq_checkpoint_format (core) writes it;
 * NOT_A_RECORD (nothing appended) when its _id is not a string. */
dlq_mongo_ckpt_result_t dlq_mongo_ckpt_format (const bson_t *doc, dlq_buf_t *json);

#endif
