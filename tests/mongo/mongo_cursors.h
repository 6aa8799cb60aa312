/*  mongo_cursors — the open cursors of the MongoDB test server, and the
 *  batches of a reply ({cursor: {firstBatch | nextBatch, id, ns}}).
 *
 *  A query's result is computed whole; what the first batch does not
 *  carry stays here under a fresh cursor id until getMore has handed it
 *  all out (the cursor then expires: id 0), killCursors kills it, or the
 *  server goes. A batch holds at most batchSize documents (the first one
 *  101 when the command gives none, later ones no count limit) and stops
 *  before 16 MiB of documents (at least one document each).
 *
 *  Thread-safe.
 */
#ifndef DLQ_MONGO_CURSORS_H
#define DLQ_MONGO_CURSORS_H

#include "mongo_error.h"

#include <bson/bson.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MONGO_CURSORS_DEFAULT_FIRST_BATCH 101

typedef struct mongo_cursors mongo_cursors_t;

mongo_cursors_t *mongo_cursors_new (void);

/* Kill every cursor; *self_p becomes NULL. */
void mongo_cursors_destroy (mongo_cursors_t **self_p);

/* Append cursor: {firstBatch: [...], id, ns} to reply, taking ownership
 * of docs (count documents, bson_malloc'd array). batch_size < 0: the
 * default; single_batch: no cursor stays open, whatever is left is
 * dropped. */
void mongo_cursors_first_batch (mongo_cursors_t *self, const char *ns, bson_t **docs,
                                size_t count, int64_t batch_size, bool single_batch,
                                bson_t *reply);

/* Append cursor: {nextBatch: [...], id, ns} of cursor id to reply
 * (batch_size <= 0: no count limit). False, err filled, when there is no
 * such cursor (CursorNotFound) or it belongs to another namespace
 * (Unauthorized, as MongoDB answers). */
bool mongo_cursors_next_batch (mongo_cursors_t *self, int64_t id, const char *ns,
                               int64_t batch_size, bson_t *reply, mongo_error_t *err);

/* Kill cursor id of ns; false when there was none. */
bool mongo_cursors_kill (mongo_cursors_t *self, int64_t id, const char *ns);

/* How many cursors are open. */
size_t mongo_cursors_count (mongo_cursors_t *self);

#endif
