/*  embedded_workbench — the replay state of events and the scheduled
 *  replay's claim (schema version 5); see embedded_workbench.h.
 *
 *  A mark is one UPDATE ... RETURNING (its own transaction): the status
 *  column and the body's "status" member change together, through
 *  json_set, which keeps the other members, their order and their text
 *  (string escapes, number spellings) byte for byte on a minified body, so
 *  a canonical body stays canonical. A body that is not JSON (a damaged
 *  row) keeps its text; its column changes all the same. stream_counts and
 *  fingerprint_counts count rows, which a mark neither adds nor removes.
 *
 *  A claim is one IMMEDIATE transaction: take the stream's lock row (a
 *  conditional upsert that changes nothing while another owner holds it),
 *  read the due events oldest first along events_by_stream, and lease them
 *  (retry_after), so a claimer after the commit no longer finds them due.
 */
#include "embedded_workbench.h"

#include "dlq_alloc.h"
#include "dlq_time.h"
#include "embedded_internal.h"
#include "sink_mark.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define UNEXPIRED     "(expires_at IS NULL OR expires_at > ?2)"
#define STATE_COLUMNS "status, retry_count, replay_count, coalesce (retry_after, created_at)"

/* WB_MARK: ?3 the new status (NULL: unchanged), ?4 / ?5 what retry_count /
 * replay_count gain, ?6 whether retry_after becomes ?7. The SET
 * expressions all see the row as it was.
 * WB_DUE: the stream's due events, oldest first; the equality on
 * stream_name and the order are served by events_by_stream read backwards
 * (no sort), the other conditions filter along it. */
static const char *const workbench_sql [WB_STMT_COUNT] = {
    [WB_MARK]      = "UPDATE events SET status = coalesce (?3, status),"
                     " body = CASE WHEN ?3 IS NOT NULL AND json_valid (body)"
                     " THEN json_set (body, '$.status', ?3) ELSE body END,"
                     " retry_count = retry_count + ?4, replay_count = replay_count + ?5,"
                     " retry_after = CASE WHEN ?6 THEN ?7 ELSE retry_after END"
                     " WHERE id = ?1 AND " UNEXPIRED " RETURNING " STATE_COLUMNS,
    [WB_LOCK_TAKE] = "INSERT INTO scheduler_locks (stream_name, owner, locked_until) VALUES (?1, ?2, ?3)"
                     " ON CONFLICT (stream_name) DO UPDATE SET owner = excluded.owner,"
                     " locked_until = excluded.locked_until"
                     " WHERE scheduler_locks.owner = excluded.owner OR scheduler_locks.locked_until <= ?4",
    [WB_LEASE]     = "UPDATE events SET retry_after = ?2 WHERE seq = ?1",
    [WB_STATE]     = "SELECT " STATE_COLUMNS " FROM events WHERE id = ?1 AND " UNEXPIRED,
    [WB_DUE]       = "SELECT seq, replay_count, body FROM events"
                     " WHERE stream_name = ?1 AND status = 'PENDING' AND retry_count < ?2"
                     " AND coalesce (retry_after, created_at) <= ?3"
                     " AND (expires_at IS NULL OR expires_at > ?3)"
                     " ORDER BY created_at, seq LIMIT ?4",
};

/* The seqs a claim leases. */
typedef struct {
    int64_t *seqs;
    size_t   count, cap;
} seq_list_t;


bool
embedded_workbench_prepare (dlq_embedded_t *self)
{
    if (self->schema_version < SCHEMA_VERSION_REPLAY)
        return true;
    int first = self->mode == DLQ_EMBEDDED_READER ? WB_FIRST_READ : 0;
    return embedded_prepare (self, workbench_sql, self->workbench, first, WB_STMT_COUNT);
}

static int64_t
clamp_limit (size_t n)
{
    return n > (size_t) INT64_MAX ? INT64_MAX : (int64_t) n;
}


/* ------------------------------------------------------------------------ */
/* State and marks */

static void
read_state (sqlite3_stmt *stmt, dlq_sink_event_state_t *state_out)
{
    const unsigned char *status = sqlite3_column_text (stmt, 0);
    memset (state_out, 0, sizeof *state_out);
    snprintf (state_out->status, sizeof state_out->status, "%s", status ? (const char *) status : "");
    state_out->retry_count = sqlite3_column_int (stmt, 1);
    state_out->replay_count = sqlite3_column_int (stmt, 2);
    state_out->retry_after = sqlite3_column_int64 (stmt, 3);
}

/* Step a bound statement that yields the state columns of at most one row
 * (a SELECT, or an UPDATE ... RETURNING, which is stepped to its end so
 * that its autocommit transaction commits), then release it. */
static dlq_store_result_t
step_state (dlq_embedded_t *self, sqlite3_stmt *stmt, const char *what,
            dlq_sink_event_state_t *state_out)
{
    dlq_store_result_t result = DLQ_STORE_NOT_FOUND;
    int rc = sqlite3_step (stmt);
    if (rc == SQLITE_ROW) {
        if (state_out)
            read_state (stmt, state_out);
        result = DLQ_STORE_OK;
        rc = sqlite3_step (stmt);
    }
    if (rc != SQLITE_DONE) {
        embedded_fail_sqlite (self, what);
        result = DLQ_STORE_ERROR;
    }
    embedded_stmt_release (stmt);
    return result;
}

dlq_store_result_t
dlq_embedded_state (dlq_embedded_t *self, const char *id, int64_t now_ms,
                    dlq_sink_event_state_t *state_out)
{
    sqlite3_stmt *stmt = embedded_replay_stmt (self, self->workbench, WB_STATE, "state");
    if (!stmt)
        return DLQ_STORE_ERROR;
    embedded_bind_text (stmt, 1, id);
    sqlite3_bind_int64 (stmt, 2, now_ms);
    return step_state (self, stmt, "state", state_out);
}

dlq_store_result_t
dlq_embedded_mark (dlq_embedded_t *self, const char *id, dlq_sink_mark_t mark,
                   int64_t now_ms, int64_t retry_after_ms, dlq_sink_event_state_t *state_out)
{
    const dlq_sink_mark_effect_t *effect = dlq_sink_mark_effect (mark);
    if (!effect) {
        embedded_fail_text (self, "mark: unknown mark %d", (int) mark);
        return DLQ_STORE_ERROR;
    }
    sqlite3_stmt *stmt = embedded_replay_stmt (self, self->workbench, WB_MARK, "mark");
    if (!stmt)
        return DLQ_STORE_ERROR;
    embedded_bind_text (stmt, 1, id);
    sqlite3_bind_int64 (stmt, 2, now_ms);
    if (effect->status)
        embedded_bind_text (stmt, 3, effect->status);
    else
        sqlite3_bind_null (stmt, 3);
    sqlite3_bind_int (stmt, 4, effect->retry_gain);
    sqlite3_bind_int (stmt, 5, effect->replay_gain);
    sqlite3_bind_int (stmt, 6, effect->sets_retry_after);
    sqlite3_bind_int64 (stmt, 7, retry_after_ms);
    return step_state (self, stmt, "mark", state_out);
}

dlq_store_result_t
dlq_embedded_mark_all (dlq_embedded_t *self, const char *const *ids, size_t count, dlq_sink_mark_t mark,
                       int64_t now_ms, int64_t retry_after_ms)
{
    if (count == 0)
        return DLQ_STORE_OK;
    if (!embedded_txn_begin (self, "mark: cannot begin"))
        return DLQ_STORE_ERROR;
    for (size_t i = 0; i < count; i++)
        if (dlq_embedded_mark (self, ids [i], mark, now_ms, retry_after_ms, NULL) == DLQ_STORE_ERROR) {
            embedded_txn_rollback (self);
            return DLQ_STORE_ERROR;
        }
    if (!embedded_txn_commit (self, "mark: cannot commit")) {
        embedded_txn_rollback (self);
        return DLQ_STORE_ERROR;
    }
    return DLQ_STORE_OK;
}


/* ------------------------------------------------------------------------ */
/* Claim */

/* Take (or keep) stream's lock for owner until locked_until; *taken false
 * when another owner holds it past now_ms (the upsert then changes no row). */
static bool
take_lock (dlq_embedded_t *self, const char *stream, const char *owner,
           int64_t locked_until, int64_t now_ms, bool *taken)
{
    sqlite3_stmt *stmt = self->workbench [WB_LOCK_TAKE];
    embedded_bind_text (stmt, 1, stream);
    embedded_bind_text (stmt, 2, owner);
    sqlite3_bind_int64 (stmt, 3, locked_until);
    sqlite3_bind_int64 (stmt, 4, now_ms);
    bool ok = embedded_step_done (self, stmt, "claim: cannot take the lock");
    *taken = ok && sqlite3_changes (self->db) > 0;
    sqlite3_clear_bindings (stmt);
    return ok;
}

static void
remember_seq (seq_list_t *list, int64_t seq)
{
    if (list->count == list->cap) {
        list->cap = list->cap ? 2 * list->cap : 16;
        list->seqs = dlq_realloc (list->seqs, list->cap * sizeof *list->seqs);
    }
    list->seqs [list->count++] = seq;
}

/* The due events of stream into events_out ([{"replayCount":n,"event":
 * {...}},...]) and their seqs into leased. */
static bool
select_due (dlq_embedded_t *self, const char *stream, int32_t max_retries, size_t batch_size,
            int64_t now_ms, dlq_buf_t *events_out, seq_list_t *leased)
{
    sqlite3_stmt *stmt = self->workbench [WB_DUE];
    embedded_bind_text (stmt, 1, stream);
    sqlite3_bind_int (stmt, 2, max_retries);
    sqlite3_bind_int64 (stmt, 3, now_ms);
    sqlite3_bind_int64 (stmt, 4, clamp_limit (batch_size));
    int rc;
    dlq_buf_putc (events_out, '[');
    while ((rc = sqlite3_step (stmt)) == SQLITE_ROW) {
        if (leased->count)
            dlq_buf_putc (events_out, ',');
        remember_seq (leased, sqlite3_column_int64 (stmt, 0));
        dlq_buf_printf (events_out, "{\"replayCount\":%lld,\"event\":",
                        (long long) sqlite3_column_int64 (stmt, 1));
        dlq_buf_append (events_out, sqlite3_column_text (stmt, 2), (size_t) sqlite3_column_bytes (stmt, 2));
        dlq_buf_putc (events_out, '}');
    }
    dlq_buf_putc (events_out, ']');
    bool ok = rc == SQLITE_DONE;
    if (!ok)
        embedded_fail_sqlite (self, "claim: cannot read the due events");
    embedded_stmt_release (stmt);
    return ok;
}

/* retry_after = lease_until_ms for every leased row, once the read is done. */
static bool
lease_rows (dlq_embedded_t *self, const seq_list_t *leased, int64_t lease_until_ms)
{
    sqlite3_stmt *stmt = self->workbench [WB_LEASE];
    bool ok = true;
    for (size_t i = 0; ok && i < leased->count; i++) {
        sqlite3_bind_int64 (stmt, 1, leased->seqs [i]);
        sqlite3_bind_int64 (stmt, 2, lease_until_ms);
        ok = embedded_step_done (self, stmt, "claim: cannot lease");
    }
    return ok;
}

/* The transaction's body; *locked true when another owner holds the pass
 * (then nothing was read or written). */
static bool
claim_in_transaction (dlq_embedded_t *self, const char *stream, const char *owner, int64_t pass_ms,
                      int32_t max_retries, size_t batch_size, int64_t now_ms,
                      int64_t lease_until_ms, dlq_buf_t *events_out, bool *locked)
{
    bool taken = false;
    if (!take_lock (self, stream, owner, dlq_time_add (now_ms, pass_ms), now_ms, &taken))
        return false;
    *locked = !taken;
    if (!taken)
        return true;
    seq_list_t leased = { NULL, 0, 0 };
    bool ok = select_due (self, stream, max_retries, batch_size, now_ms, events_out, &leased)
           && lease_rows (self, &leased, lease_until_ms);
    free (leased.seqs);
    return ok;
}

dlq_store_result_t
dlq_embedded_claim (dlq_embedded_t *self, const char *stream, const char *owner,
                    int64_t pass_ms, int32_t max_retries, size_t batch_size,
                    int64_t now_ms, int64_t lease_until_ms, dlq_buf_t *events_out)
{
    dlq_buf_reset (events_out);
    if (!stream || !owner) {
        embedded_fail_text (self, "claim: stream and owner are required");
        return DLQ_STORE_ERROR;
    }
    if (!embedded_replay_stmt (self, self->workbench, WB_LOCK_TAKE, "claim")
        || !embedded_txn_begin (self, "claim: cannot begin"))
        return DLQ_STORE_ERROR;
    bool locked = false;
    bool ok = claim_in_transaction (self, stream, owner, pass_ms, max_retries, batch_size,
                                    now_ms, lease_until_ms, events_out, &locked)
           && (locked || embedded_txn_commit (self, "claim: cannot commit"));
    if (!ok || locked) {
        embedded_txn_rollback (self);
        dlq_buf_reset (events_out);
    }
    if (!ok)
        return DLQ_STORE_ERROR;
    return locked ? DLQ_STORE_LOCKED : DLQ_STORE_OK;
}
