/*  bench_sqlite — the reference loops the gateway is measured against.
 *
 *  Both insert the same rows the gateway stores, into a fresh database with
 *  the embedded store's own schema (created by opening a dlq_embedded
 *  writer) and the same pragmas (WAL, synchronous=FULL, same cache and WAL
 *  limits), through raw SQLite with prepared statements reused:
 *    - naive:   one BEGIN / INSERT / COMMIT per event (one fsync each);
 *    - batched: rows_per_txn rows per transaction.
 *  Each transaction also maintains stream_counts the way the store does
 *  (one upsert per distinct stream in the transaction), so a row costs the
 *  reference what it costs the gateway's store.
 */
#ifndef DLQ_BENCH_SQLITE_H
#define DLQ_BENCH_SQLITE_H

#include "bench_events.h"

#include <stdbool.h>
#include <stddef.h>

/* Create dir, build the schema in it, then insert rows [0, count) with
 * rows_per_txn rows per transaction; *seconds is the time of the insert
 * loop alone (first BEGIN to last COMMIT). Afterwards the number of stored
 * rows is checked. False with a message in err on any failure. */
bool bench_sqlite_run (const char *dir, const bench_row_t *rows, size_t count,
                       size_t rows_per_txn, double *seconds, char *err, size_t err_len);

#endif
