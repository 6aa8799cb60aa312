/*  state_store — the daemon's own state beside the log: what is neither an
 *  event nor a query store's index of events, and so must not live in a
 *  store that is only one of the primaries (docs/design.md, "Where the
 *  daemon keeps its state"). The replay jobs (job_store.h), the
 *  delivery ledger (ledger_store.h) and, with a sink primary, the ids of
 *  the stored events (id_store.h).
 *
 *  One SQLite file, data_dir/state.sqlite (WAL, synchronous=FULL but for
 *  the indexer's relaxed commits of what the log holds again). Every connection may read and
 *  write; SQLite serialises the writers (busy timeout 5 s). Opening creates
 *  the file and its schema when missing, and takes over once what the
 *  embedded store's file (dlq.sqlite) held of this state before (its
 *  replay_jobs table, left there unchanged), in the same transaction that
 *  records the take-over, so a crash during it leaves it to do again.
 *
 *  Schema (version 2, which added event_ids and deliveries.record; meta
 *  records it):
 *    meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)
 *    replay_jobs(...)      -- job_store.h
 *    sink_state(...), deliveries(...)  -- ledger_store.h
 *    event_ids(...)        -- id_store.h
 *
 *  One object is used by one thread at a time.
 */
#ifndef DLQ_STATE_STORE_H
#define DLQ_STATE_STORE_H

#include <stddef.h>

#define DLQ_STATE_STORE_FILE "state.sqlite"

typedef struct dlq_state_store dlq_state_store_t;

/* Open (creating when missing) DLQ_STATE_STORE_FILE inside data_dir, which
 * must exist. NULL with a message in err (err_len bytes) on failure: the
 * directory, a file that is no SQLite database, a schema newer than this
 * code knows, a take-over that failed. */
dlq_state_store_t *dlq_state_store_open (const char *data_dir, char *err, size_t err_len);

/* Close; accepts NULL and NULLs the pointer. */
void dlq_state_store_destroy (dlq_state_store_t **self_p);

/* Why the last call that failed did, "" before any failure. Owned by the
 * object; valid until its next call. */
const char *dlq_state_store_last_error (const dlq_state_store_t *self);

#endif
