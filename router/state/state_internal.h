/*  state_internal — what state_store.c shares with the modules that keep
 *  their tables in the daemon's state file (job_store.c, ledger_store.c, id_store.c).
 *  Private to router/state/.
 */
#ifndef DLQ_STATE_INTERNAL_H
#define DLQ_STATE_INTERNAL_H

#include "state_store.h"

#include <sqlite3.h>

#include <stdbool.h>

/* The prepared statements of the state file, one slot each, prepared on
 * first use. */
typedef enum {
    STATE_JOB_INSERT,
    STATE_JOB_PROGRESS,
    STATE_JOB_SET_STATE,
    STATE_JOB_GET,
    STATE_JOB_LIST,
    STATE_JOB_LIST_RUNNING,
    STATE_LEDGER_STATE_UPSERT,
    STATE_LEDGER_ROW_UPSERT,
    STATE_LEDGER_DURABLE,
    STATE_LEDGER_SINK_STATE,
    STATE_LEDGER_COUNT_STATE,
    STATE_LEDGER_ROWS_OF_SINK,
    STATE_LEDGER_ROWS_OF_SINK_ID,
    STATE_LEDGER_ROWS_OF_SEQ,
    STATE_LEDGER_SWEEP,
    STATE_LEDGER_RECORD,
    STATE_IDS_INSERT,
    STATE_IDS_META_GET,
    STATE_IDS_META_SET,
    STATE_IDS_EACH,
    STATE_IDS_COUNT,
    STATE_IDS_SEQ_OF,
    STATE_IDS_EXPIRED,
    STATE_IDS_DELETE,
    STATE_STMT_COUNT
} state_stmt_id_t;

/* The statement of slot id, prepared from sql at its first use; NULL with
 * the last error set when sql does not prepare. */
sqlite3_stmt *state_store_stmt (dlq_state_store_t *self, state_stmt_id_t id, const char *sql);

/* The connection (for sqlite3_changes and the like). */
sqlite3 *state_store_db (dlq_state_store_t *self);

/* Record "<what> (<path>): <sqlite's message>" as the last error. */
void state_store_fail_sqlite (dlq_state_store_t *self, const char *what);

/* Record a formatted message as the last error. */
void state_store_fail_text (dlq_state_store_t *self, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

/* Step a statement that returns no rows, then reset it and drop its
 * bindings; false with the last error set on failure. */
bool state_store_step_done (dlq_state_store_t *self, sqlite3_stmt *stmt, const char *what);

/* Reset a statement and drop its bindings (text is bound SQLITE_STATIC, so
 * it must reference no caller memory once the call returns). */
void state_store_stmt_release (sqlite3_stmt *stmt);

/* Commits from now on wait for the disk (synchronous FULL, the default) or
 * not (NORMAL: durable at the next FULL commit or checkpoint). Outside a
 * transaction only. */
bool state_store_sync_each_commit (dlq_state_store_t *self, bool full);

/* BEGIN IMMEDIATE (the busy timeout applies to taking the write lock),
 * COMMIT, and a ROLLBACK that is a no-op when no transaction is open. */
bool state_store_begin (dlq_state_store_t *self, const char *what);
bool state_store_commit (dlq_state_store_t *self, const char *what);
void state_store_rollback (dlq_state_store_t *self);

/* Bind text, or NULL when text is NULL (SQLITE_STATIC). */
static inline void
state_store_bind_text (sqlite3_stmt *stmt, int index, const char *text)
{
    if (text)
        sqlite3_bind_text (stmt, index, text, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null (stmt, index);
}

#endif
