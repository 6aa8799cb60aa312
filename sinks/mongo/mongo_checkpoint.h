/*  mongo_checkpoint — the workers' stream positions (FlowWarden's
 *  CheckpointStore contract) in the mongo sink's collection _fw_checkpoints
 *  of its database (documents: mongo_ckpt_doc.h): write, get, list and
 *  remove of dlq_sink_checkpoint_ops_t (dlq_sink.h), and that ops table.
 *
 *      write   one findAndModify {_id: stream}, upsert, new: true, whose
 *              answer is the document after the write (one round trip):
 *              SAVE replaces the document, SEEN / PROCESSED $set only
 *              their pair and updatedAt (= the caller's now_ms), with no
 *              read first, so two writers of one stream never undo each
 *              other (each findAndModify is atomic on the document). Two
 *              first writes of a stream at once may both try to insert
 *              it: the loser's DuplicateKey (11000) is tried once more,
 *              now against the document there. Acknowledged as the uri's
 *              write concern says (w, journal).
 *      get     find {_id: stream}; NOT_FOUND when there is no document
 *      list    find {_id: {$gte: prefix, $gt: cursor}} sorted {_id: 1}
 *              (the _id index; strings compare byte for byte under the
 *              collection's default, simple collation), limit + 1
 *              documents, stopping at the first name outside the prefix;
 *              the cursor is the name of the page's last record, a name
 *              that cannot be one (not UTF-8, longer than a streamName)
 *              is BAD_CURSOR
 *      remove  delete_one {_id: stream}: deleted when deletedCount is 1
 *  The collection is made by the first write (MongoDB creates it on
 *  insert); no index beyond _id's.
 */
#ifndef DLQ_MONGO_CHECKPOINT_H
#define DLQ_MONGO_CHECKPOINT_H

#include "dlq_sink.h"

#define DLQ_MONGO_CKPT_PAGE_MAX 1000    /* records of a LIST page */

/* The checkpoint calls of the ABI. */
extern const dlq_sink_checkpoint_ops_t dlq_mongo_checkpoint_ops;

#endif
