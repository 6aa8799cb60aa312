/*  id_index — every stored event's id, in memory, by a 64-bit hash: how
 *  the ack path knows a PUT is a duplicate without asking SQLite, and how
 *  GET finds an event the primary has not indexed yet (its position in the
 *  spool).
 *
 *  An entry is the id's hash (XXH3-64), the position of its record and
 *  when it expires: 24 bytes, in an open-addressing table kept at most 80%
 *  full (about 30 MB per million stored events). Two ids share a hash with
 *  a probability of about n / 2^64 for n stored ids (5e-14 per PUT with a
 *  million stored): the index takes such a pair for one id.
 *
 *  Thread-safe: one thread writes (put, remove, purge), any thread reads;
 *  each call takes a read-write lock.
 */
#ifndef ID_INDEX_H
#define ID_INDEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct dlq_id_index dlq_id_index_t;

/* The hash of an id's len bytes (never 0). */
uint64_t dlq_id_index_hash (const char *id, size_t len);

dlq_id_index_t *dlq_id_index_new (void);

/* Accepts NULL and NULLs the pointer. */
void dlq_id_index_destroy (dlq_id_index_t **self_p);

/* Add an id by its hash, with its record's position and expiry
 * (DLQ_TIME_NONE: never). */
void dlq_id_index_put (dlq_id_index_t *self, uint64_t hash, uint64_t position, int64_t expires_at);

/* Is an id with this hash stored and unexpired at now_ms? Its position
 * (the highest, should two share the hash) in *position_out. */
bool dlq_id_index_get (dlq_id_index_t *self, uint64_t hash, int64_t now_ms, uint64_t *position_out);

/* Remove the entry (hash, position); false when there is none. */
bool dlq_id_index_remove (dlq_id_index_t *self, uint64_t hash, uint64_t position);

/* Remove the entries expired at now_ms among the next max_slots slots,
 * going on from where the last call stopped; how many were removed. */
size_t dlq_id_index_purge (dlq_id_index_t *self, int64_t now_ms, size_t max_slots);

/* Entries held, and the bytes the table takes. */
size_t dlq_id_index_count (dlq_id_index_t *self);
size_t dlq_id_index_bytes (dlq_id_index_t *self);

#endif
