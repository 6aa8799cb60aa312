/*  checkpoint_table — every checkpoint record in memory, by stream name:
 *  what CKPT.GET and CKPT.LIST answer from on the embedded primary, and
 *  what a write merges into (CKPT.SEEN keeps the processed fields, and
 *  the other way round), so a write's reply — the record after it — needs
 *  no store. Kept sorted by name (byte order), so LIST pages with a prefix
 *  and a cursor are a binary search and a walk.
 *
 *  Thread-safe: one writer (the committer), any number of readers (a
 *  read-write lock). Records are copied in; what a reader gets is a copy.
 */
#ifndef DLQ_CHECKPOINT_TABLE_H
#define DLQ_CHECKPOINT_TABLE_H

#include "dlq_buf.h"
#include "dlq_sink.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct dlq_checkpoint_table dlq_checkpoint_table_t;

dlq_checkpoint_table_t *dlq_checkpoint_table_new (void);

/* Accepts NULL and NULLs the pointer. */
void dlq_checkpoint_table_destroy (dlq_checkpoint_table_t **self_p);

/* Set the record of record->stream_name to a copy of record. */
void dlq_checkpoint_table_put (dlq_checkpoint_table_t *self, const dlq_sink_checkpoint_t *record);

/* Remove the record of stream; false when there was none. */
bool dlq_checkpoint_table_remove (dlq_checkpoint_table_t *self, const char *stream);

/* The record of stream as its JSON (dlq_checkpoint_format) appended to
 * out; false (out untouched) when there is none. */
bool dlq_checkpoint_table_get (dlq_checkpoint_table_t *self, const char *stream, dlq_buf_t *out);

/* The record of stream in place, or NULL: for the one thread that changes
 * the table, valid until its next put or remove (no lock, no copy). */
const dlq_sink_checkpoint_t *dlq_checkpoint_table_peek (const dlq_checkpoint_table_t *self, const char *stream);

/* The records whose name starts with prefix ("": all), in byte order,
 * after cursor (NULL or "": from the first), at most limit, as a JSON
 * array appended to records_out; cursor_out gets the last name of the
 * page when there are more (left as it is on the last page). */
void dlq_checkpoint_table_list (dlq_checkpoint_table_t *self, const char *prefix, size_t limit, const char *cursor,
                                dlq_buf_t *records_out, dlq_buf_t *cursor_out);

/* Records held, and the memory they take (dlq_checkpoint_table_cost each). */
size_t dlq_checkpoint_table_size (dlq_checkpoint_table_t *self);
size_t dlq_checkpoint_table_bytes (dlq_checkpoint_table_t *self);

/* The memory a record takes in a table: its strings and the entry. Pure. */
size_t dlq_checkpoint_table_cost (const dlq_sink_checkpoint_t *record);

/* The record kind asks for, written over current (the record of its
 * stream now, NULL: none) at now_ms: SAVE is the request's record whole,
 * SEEN / PROCESSED change only their token and timestamp. Pure: the
 * result points into current and request. */
dlq_sink_checkpoint_t dlq_checkpoint_table_merge (const dlq_sink_checkpoint_t *current,
                                                  const dlq_sink_checkpoint_t *request, dlq_sink_ckpt_write_t kind,
                                                  int64_t now_ms);

#endif
