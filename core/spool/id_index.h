/*  id_index — every stored event's id, in memory, by a 64-bit hash: how
 *  the ack path knows a PUT is a duplicate without asking SQLite, and how
 *  GET finds an event the primary has not indexed yet (its position in the
 *  spool).
 *
 *  An entry is the id's hash (XXH3-64) and the position of its record: 16
 *  bytes, in open-addressing tables kept at most 80% full (about 20 MB
 *  per million stored events), one per 16th of the hashes: a table that
 *  grows replaces a 16th of the index, so growing adds a 16th of its size
 *  to the memory in use for a moment, not all of it. An entry stays until its event is removed
 *  (the expiry sweep removes it with the event). Two ids share a hash with
 *  a probability of about n / 2^64 for n stored ids (5e-14 per PUT with a
 *  million stored): the index takes such a pair for one id.
 *
 *  Thread-safe: each call takes the read-write lock of the table its hash
 *  falls in (the counts, each table's in turn).
 */
#ifndef DLQ_ID_INDEX_H
#define DLQ_ID_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct dlq_id_index dlq_id_index_t;

/* The hash of an id's len bytes (never 0). */
uint64_t dlq_id_index_hash (const char *id, size_t len);

dlq_id_index_t *dlq_id_index_new (void);

/* Accepts NULL and NULLs the pointer. */
void dlq_id_index_destroy (dlq_id_index_t **self_p);

/* Make room for count entries in all (one rehash now rather than many
 * while they are put). */
void dlq_id_index_reserve (dlq_id_index_t *self, size_t count);

/* Add an id by its hash, with its record's position. */
void dlq_id_index_put (dlq_id_index_t *self, uint64_t hash, uint64_t position);

/* Is an id with this hash stored? Its position (the highest, should two
 * share the hash) in *position_out. */
bool dlq_id_index_get (dlq_id_index_t *self, uint64_t hash, uint64_t *position_out);

/* Remove the entry (hash, position); false when there is none. */
bool dlq_id_index_remove (dlq_id_index_t *self, uint64_t hash, uint64_t position);

/* Entries held, and the bytes the table takes. */
size_t dlq_id_index_count (dlq_id_index_t *self);
size_t dlq_id_index_bytes (dlq_id_index_t *self);

#endif
