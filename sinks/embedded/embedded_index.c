/*  embedded_index — the indexer's transaction and its resume point.
 */
#include "embedded_index.h"

#include "dlq_time.h"
#include "embedded_internal.h"
#include "embedded_workbench.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define POSITION_KEY "spool_position"

static dlq_store_result_t
fail (dlq_embedded_t *self, char *err, size_t err_len)
{
    snprintf (err, err_len, "%s", self->errmsg);
    return DLQ_STORE_ERROR;
}

/* Apply the marks in order inside the open transaction; false (the
 * transaction to roll back) when one fails. */
static bool
apply_marks (dlq_embedded_t *self, dlq_embedded_mark_write_t *marks, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        marks [i].rc = dlq_embedded_mark (self, marks [i].id, marks [i].mark, marks [i].now_ms,
                                          marks [i].retry_after_ms, &marks [i].state);
        if (marks [i].rc == DLQ_STORE_ERROR)
            return false;
    }
    return true;
}

dlq_store_result_t
dlq_embedded_index (dlq_embedded_t *self, dlq_event_t *const *events, const int64_t *seqs, size_t count,
                    dlq_ckpt_write_t *ckpts, size_t ckpt_count, dlq_embedded_mark_write_t *marks, size_t mark_count, uint64_t position,
                    int64_t *last_seq_out, char *err, size_t err_len)
{
    if (self->mode != DLQ_EMBEDDED_WRITER) {
        embedded_fail_text (self, "index: %s is not open as the writer", self->path);
        return fail (self, err, err_len);
    }
    char value [32];
    snprintf (value, sizeof value, "%" PRIu64, position);
    bool ok = embedded_txn_begin (self, "index: cannot begin")
           && (count == 0 || embedded_insert_rows (self, events, seqs, count, NULL))
           && (ckpt_count == 0 || embedded_ckpt_apply (self, ckpts, ckpt_count))
           && apply_marks (self, marks, mark_count)
           && embedded_meta_set (self, POSITION_KEY, value)
           && (!last_seq_out || embedded_archive_last_seq (self, last_seq_out))
           && embedded_txn_commit (self, "index: cannot commit");
    embedded_stmt_release (self->stmt [ST_INSERT_SEQ]);
    if (!ok) {
        embedded_txn_rollback (self);
        return fail (self, err, err_len);
    }
    return DLQ_STORE_OK;
}

bool
dlq_embedded_spool_position (dlq_embedded_t *self, uint64_t *position_out, bool *failed, char *err, size_t err_len)
{
    char value [32];
    if (!embedded_meta_get (self, POSITION_KEY, value, sizeof value, failed)) {
        if (*failed)
            snprintf (err, err_len, "%s", self->errmsg);
        return false;
    }
    char *end = NULL;
    *position_out = strtoull (value, &end, 10);
    if (!end || *end) {
        snprintf (err, err_len, "%s: the meta table's %s is '%s', not a position", self->path, POSITION_KEY, value);
        *failed = true;
        return false;
    }
    return true;
}

dlq_store_result_t
dlq_embedded_relax_sync (dlq_embedded_t *self, bool relaxed, char *err, size_t err_len)
{
    char *msg = NULL;
    if (sqlite3_exec (self->db, relaxed ? "PRAGMA synchronous = NORMAL" : "PRAGMA synchronous = FULL",
                      NULL, NULL, &msg) != SQLITE_OK) {
        snprintf (err, err_len, "cannot set synchronous (%s): %s", self->path, msg ? msg : "?");
        sqlite3_free (msg);
        return DLQ_STORE_ERROR;
    }
    return DLQ_STORE_OK;
}

bool
dlq_embedded_checkpoint_behind (dlq_embedded_t *self, char *err, size_t err_len)
{
    if (self->mode != DLQ_EMBEDDED_WRITER) {
        snprintf (err, err_len, "only the writer's connection makes checkpoints (%s)", self->path);
        return false;
    }
    return self->wal.behind || embedded_wal_behind_start (&self->wal, self->path, err, err_len);
}

int64_t
dlq_embedded_each_id (dlq_embedded_t *self, dlq_embedded_id_fn *fn, void *arg)
{
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_prepare_v2 (self->db, "SELECT id, seq, expires_at FROM events ORDER BY seq", -1, &stmt, NULL)
        != SQLITE_OK) {
        embedded_fail_sqlite (self, "cannot read the stored ids");
        return -1;
    }
    int64_t n = 0;
    int rc;
    while ((rc = sqlite3_step (stmt)) == SQLITE_ROW) {
        const char *id = (const char *) sqlite3_column_text (stmt, 0);
        size_t len = (size_t) sqlite3_column_bytes (stmt, 0);
        int64_t expires = sqlite3_column_type (stmt, 2) == SQLITE_NULL ? DLQ_TIME_NONE
                                                                       : sqlite3_column_int64 (stmt, 2);
        if (id)
            fn (id, len, sqlite3_column_int64 (stmt, 1), expires, arg);
        n++;
    }
    if (rc != SQLITE_DONE) {
        embedded_fail_sqlite (self, "cannot read the stored ids");
        n = -1;
    }
    sqlite3_finalize (stmt);
    return n;
}
