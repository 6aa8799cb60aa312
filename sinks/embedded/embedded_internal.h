/*  embedded_internal — what the store's files share.
 *
 *  Private to this directory: the layout of the store object, the
 *  statement tables, the error / statement helpers and the SQL that derives
 *  the routing columns of schema version 3 from a stored body.
 *  embedded_store.c owns the connection, the schema, the events and
 *  stream_counts tables; embedded_index.c the indexer's write transaction
 *  (dlq_embedded_index: the events read from the spool, the checkpoint
 *  writes and marks, and the spool position, in one commit);
 *  embedded_archive.c the reads of events by seq and the version 2
 *  upgrade. embedded_workbench.c owns the
 *  statements of schema version 5 (the replay state of events,
 *  scheduler_locks); their short transactions of their own run
 *  on the writer's or an updater's connection.
 */
#ifndef DLQ_EMBEDDED_INTERNAL_H
#define DLQ_EMBEDDED_INTERNAL_H

#include "embedded_checkpoints.h"
#include "embedded_store.h"
#include "embedded_wal.h"
#include "embedded_archive.h"

#include <sqlite3.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ERRMSG_MAX       512

/* Schema versions: 1 the events, 2 adds the delivery ledger (sink_state,
 * deliveries), 3 adds the routing columns of events (operation_type,
 * document_key, attempts, first_attempt_at), so the spool reads need not
 * parse bodies, 4 adds the columns and indexes of the workbench's filters
 * (fingerprint; embedded_query.h), 5 adds the replay state of events
 * (retry_count, replay_count, retry_after) and the tables scheduler_locks
 * and replay_jobs (embedded_workbench.h; replay_jobs is unread since the
 * daemon's state file took its jobs, router/state/job_store.h), 6 adds the
 * table checkpoints (embedded_checkpoints.h). SCHEMA_VERSION
 * is the newest this code knows. */
#define SCHEMA_VERSION_LEDGER   2
#define SCHEMA_VERSION_COLUMNS  3
#define SCHEMA_VERSION_FILTERS  4
#define SCHEMA_VERSION_REPLAY   5
#define SCHEMA_VERSION_CHECKPOINTS 6
#define SCHEMA_VERSION          6

/* The routing columns of version 3 as SQLite computes them from a stored
 * (canonical) body: the version 3 upgrade backfills old rows with them, and
 * a reader of an older file that no writer has upgraded yet reads them this
 * way. Each is what dlq_event_decode gives for that body: operationType's
 * text; documentKey's JSON text as it stands in the body (-> returns the
 * subvalue's own text: a string keeps its quotes and escapes, a number its
 * digits, where json (json_extract (...)) would turn 1.50 into 1.5);
 * attempts, 0 when absent; firstAttemptAt ("YYYY-MM-DDTHH:MM:SS.mmmZ", years
 * 0001-9999) as ms since the epoch, NULL when absent. julianday is exact to
 * well under a ms over that range, so ROUND gives the ms back. A body that
 * is not JSON, or a member of the wrong type, gives NULL / 0 rather than an
 * error, so one damaged row cannot stop the upgrade (and the writer) cold. */
#define BODY_OPERATION_TYPE \
    "(CASE WHEN json_valid (body) AND json_type (body, '$.operationType') = 'text'" \
    " THEN json_extract (body, '$.operationType') END)"
#define BODY_DOCUMENT_KEY \
    "(CASE WHEN json_valid (body) AND json_type (body, '$.documentKey') <> 'null'" \
    " THEN body -> '$.documentKey' END)"
#define BODY_ATTEMPTS \
    "(CASE WHEN json_valid (body) AND json_type (body, '$.attempts') = 'integer'" \
    " AND json_extract (body, '$.attempts') BETWEEN 0 AND 2147483647" \
    " THEN json_extract (body, '$.attempts') ELSE 0 END)"
#define BODY_FIRST_ATTEMPT_AT \
    "(CASE WHEN json_valid (body) AND json_type (body, '$.firstAttemptAt') = 'text'" \
    " THEN CAST (round ((julianday (json_extract (body, '$.firstAttemptAt')) - 2440587.5)" \
    " * 86400000.0) AS INTEGER) END)"

/* The store's statements (embedded_store.c). Transaction control is
 * prepared by the writer and updaters, the other writing ones by the writer
 * only. */
typedef enum {
    ST_BEGIN,
    ST_COMMIT,
    ST_ROLLBACK,
    ST_FIRST_WRITER_ONLY,
    ST_INSERT = ST_FIRST_WRITER_ONLY,
    ST_COUNT_ADD,
    ST_COUNT_SUB,
    ST_COUNT_DROP,
    ST_SWEEP,
    ST_GROUP_ADD,
    ST_GROUP_SUB,
    ST_GROUP_DROP,
    ST_INSERT_SEQ,              /* an event at the seq given: its spool position */
    ST_META_SET,
    ST_FIRST_READ,              /* statements from here on are read-only */
    ST_GET = ST_FIRST_READ,
    ST_LIST_FIRST,
    ST_LIST_AFTER,
    ST_STATS,
    ST_STMT_COUNT
} stmt_id_t;

/* The reads of events by seq (embedded_archive.c), on every connection. */
typedef enum {
    AR_LAST_SEQ,
    AR_READ_AFTER,
    AR_READ_SEQ,
    AR_COUNT_BETWEEN,
    AR_SEQ_OF,
    AR_STMT_COUNT
} archive_stmt_id_t;

/* The statements of schema version 5: writing ones (writer and updaters),
 * then reads (every connection); none on a file below version 5. */
typedef enum {
    WB_MARK,
    WB_LOCK_TAKE,
    WB_LEASE,
    WB_FIRST_READ,
    WB_STATE = WB_FIRST_READ,
    WB_DUE,
    WB_STMT_COUNT
} workbench_stmt_id_t;

/* The checkpoint statements of schema version 6: writing ones (the writer
 * only: checkpoints are written in its commit), then reads. */
typedef enum {
    CK_SAVE,
    CK_SEEN,
    CK_PROCESSED,
    CK_DELETE,
    CK_FIRST_READ,
    CK_GET = CK_FIRST_READ,
    CK_LIST,
    CK_ALL,
    CK_STMT_COUNT
} ckpt_stmt_id_t;

struct dlq_embedded {
    sqlite3             *db;
    dlq_embedded_mode_t  mode;
    char                *path;                  /* the database file */
    char                *wal_path;              /* path + "-wal" */
    int64_t              schema_version;        /* of the file once open (the writer upgrades it) */
    sqlite3_stmt        *stmt [ST_STMT_COUNT];
    sqlite3_stmt        *archive [AR_STMT_COUNT];
    sqlite3_stmt        *workbench [WB_STMT_COUNT];
    sqlite3_stmt        *ckpt [CK_STMT_COUNT];
    const char         **names;                 /* commit's scratch: stream names of new rows */
    size_t               names_cap;
    embedded_wal_t       wal;                   /* the writer's checkpoints (embedded_wal.h) */
    char                 errmsg [ERRMSG_MAX];   /* why the last call failed */
};


/* Helpers (embedded_store.c) ---------------------------------------------- */

/* Record "<what> (<path>): <sqlite's message>" as the last error. */
void embedded_fail_sqlite (dlq_embedded_t *self, const char *what);

/* Record a formatted message as the last error. */
void embedded_fail_text (dlq_embedded_t *self, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* Step a statement that returns no rows (or whose rows are ignored) and
 * reset it. Returns true on success. */
bool embedded_step_done (dlq_embedded_t *self, sqlite3_stmt *stmt, const char *what);

/* Reset a statement and drop its bindings, so it references no caller
 * memory (text is bound SQLITE_STATIC) once the call returns. */
void embedded_stmt_release (sqlite3_stmt *stmt);

/* Prepare sql [first .. end) into stmts [first .. end), once per connection. */
bool embedded_prepare (dlq_embedded_t *self, const char *const *sql, sqlite3_stmt **stmts,
                       int first, int end);

/* A transaction of the writer or an updater: BEGIN IMMEDIATE (so the busy
 * timeout applies to taking the write lock), COMMIT, and a ROLLBACK that is
 * a no-op when no transaction is open. */
/* The events part of a commit, inside the open transaction: each event
 * inserted (at seqs [i] when seqs is not NULL, else at the next seq),
 * duplicate [i] (may be NULL) set when its id was stored already; the
 * stream and fingerprint counts follow. */
bool embedded_insert_rows (dlq_embedded_t *self, dlq_event_t *const *events, const int64_t *seqs, size_t count,
                           bool *duplicate);

/* Set meta key to value inside the open transaction. */
bool embedded_meta_set (dlq_embedded_t *self, const char *key, const char *value);

/* The meta value of key into out; false (no error set) when absent or on
 * error (then the last error is set and *failed true). */
bool embedded_meta_get (dlq_embedded_t *self, const char *key, char *out, size_t out_len, bool *failed);

bool embedded_txn_begin (dlq_embedded_t *self, const char *what);
bool embedded_txn_commit (dlq_embedded_t *self, const char *what);
void embedded_txn_rollback (dlq_embedded_t *self);

/* Statement id of stmts (self->workbench), or NULL with the
 * last error set when this connection has none: the file is below schema
 * version 5 (a reader of a file no writer has upgraded yet), or a write on
 * a reader. */
sqlite3_stmt *embedded_replay_stmt (dlq_embedded_t *self, sqlite3_stmt *const *stmts, int id,
                                    const char *what);

static inline void
embedded_bind_text (sqlite3_stmt *stmt, int index, const char *text)
{
    sqlite3_bind_text (stmt, index, text, -1, SQLITE_STATIC);
}

/* Bind text that may be absent (NULL). */
static inline void
embedded_bind_optional_text (sqlite3_stmt *stmt, int index, const char *text)
{
    if (text)
        embedded_bind_text (stmt, index, text);
    else
        sqlite3_bind_null (stmt, index);
}

/* Bind a time in ms, NULL for DLQ_TIME_NONE (= DLQ_SINK_TIME_NONE). */
static inline void
embedded_bind_time (sqlite3_stmt *stmt, int index, int64_t ms)
{
    if (ms == INT64_MIN)
        sqlite3_bind_null (stmt, index);
    else
        sqlite3_bind_int64 (stmt, index, ms);
}


/* Reads by seq (embedded_archive.c) --------------------------------------- */

/* Writer, inside the schema transaction: bring a version 1 schema to
 * version 2 (idempotent) and record the new version. (embedded_store.c
 * then takes it to version 3.) */
bool embedded_archive_upgrade (dlq_embedded_t *self);

/* Prepare the reads by seq on this connection. */
bool embedded_archive_prepare (dlq_embedded_t *self);

/* The highest seq ever assigned, inside or outside a transaction. */
bool embedded_archive_last_seq (dlq_embedded_t *self, int64_t *seq_out);

/* LIST cursors, "<created_at>.<seq>" (embedded_store.c), and a page of a
 * bound statement selecting (created_at, seq, body) newest first, limit + 1
 * rows: up to limit bodies into events_out as a JSON array, the cursor of
 * the last one into next_cursor_out when one more row came. */
bool embedded_parse_cursor (const char *cursor, int64_t *created_at, int64_t *seq);
bool embedded_collect_page (dlq_embedded_t *self, sqlite3_stmt *stmt, size_t limit,
                            dlq_buf_t *events_out, dlq_buf_t *next_cursor_out);


/* Schema version 5 (embedded_workbench.c) -------------------------------- */

/* Prepare the statements of schema version 5 this connection can run:
 * none below version 5, the reads on a reader, all on the writer and
 * updaters. */
bool embedded_workbench_prepare (dlq_embedded_t *self);
bool embedded_ckpt_prepare (dlq_embedded_t *self);

/* Apply count checkpoint writes inside the writer's open transaction
 * (embedded_checkpoints.c); false with the error on the first failure. */
bool embedded_ckpt_apply (dlq_embedded_t *self, dlq_ckpt_write_t *writes, size_t count);

#endif
