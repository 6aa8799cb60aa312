/*  id_store — the ids of the stored events in the state file; see
 *  id_store.h.
 */
#include "id_store.h"

#include "dlq_alloc.h"
#include "dlq_time.h"
#include "event_record.h"
#include "state_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dlq_id_store {
    dlq_state_store_t *state;
};

#define SQL_INSERT "INSERT INTO event_ids (id, seq, expires_at) VALUES (?1, ?2, ?3) ON CONFLICT (id) DO NOTHING"
#define SQL_META_GET "SELECT CAST (value AS INTEGER) FROM meta WHERE key = ?1"
#define SQL_META_SET \
    "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
#define SQL_EACH "SELECT id, seq, expires_at FROM event_ids INDEXED BY event_ids_by_seq ORDER BY seq"
#define SQL_COUNT "SELECT count(*) FROM event_ids"
#define SQL_SEQ_OF "SELECT seq FROM event_ids WHERE id = ?1"
#define SQL_EXPIRED \
    "SELECT id, seq FROM event_ids INDEXED BY event_ids_by_expiry" \
    " WHERE expires_at IS NOT NULL AND expires_at <= ?1 ORDER BY expires_at LIMIT ?2"
#define SQL_DELETE "DELETE FROM event_ids WHERE id = ?1"

#define KEY_POSITION   "ids_position"
#define KEY_LAST_SEQ   "ids_last_seq"
#define KEY_TAKEN_OVER "ids_taken_over"

dlq_id_store_t *
dlq_id_store_open (const char *data_dir, char *err, size_t err_len)
{
    dlq_state_store_t *state = dlq_state_store_open (data_dir, err, err_len);
    if (!state)
        return NULL;
    dlq_id_store_t *self = dlq_calloc (1, sizeof *self);
    self->state = state;
    return self;
}

void
dlq_id_store_destroy (dlq_id_store_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_state_store_destroy (&(*self_p)->state);
    free (*self_p);
    *self_p = NULL;
}

const char *dlq_id_store_last_error (const dlq_id_store_t *self) { return dlq_state_store_last_error (self->state); }

/* ---- meta ------------------------------------------------------------------ */

/* The integer under key: *found false when there is none. */
static bool
meta_get (dlq_id_store_t *self, const char *key, int64_t *out, bool *found)
{
    sqlite3_stmt *stmt = state_store_stmt (self->state, STATE_IDS_META_GET, SQL_META_GET);
    if (!stmt)
        return false;
    state_store_bind_text (stmt, 1, key);
    int rc = sqlite3_step (stmt);
    *found = rc == SQLITE_ROW;
    if (*found)
        *out = sqlite3_column_int64 (stmt, 0);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        state_store_fail_sqlite (self->state, "ids: cannot read meta");
    state_store_stmt_release (stmt);
    return rc == SQLITE_ROW || rc == SQLITE_DONE;
}

static bool
meta_set (dlq_id_store_t *self, const char *key, int64_t value)
{
    sqlite3_stmt *stmt = state_store_stmt (self->state, STATE_IDS_META_SET, SQL_META_SET);
    if (!stmt)
        return false;
    state_store_bind_text (stmt, 1, key);
    sqlite3_bind_int64 (stmt, 2, value);
    return state_store_step_done (self->state, stmt, "ids: cannot write meta");
}

/* The integer under key, or fallback when there is none; -1 on error. */
static int64_t
meta_or (dlq_id_store_t *self, const char *key, int64_t fallback)
{
    int64_t value = 0;
    bool found = false;
    if (!meta_get (self, key, &value, &found))
        return -1;
    return found ? value : fallback;
}

/* ---- writing ---------------------------------------------------------------- */

static bool
insert (dlq_id_store_t *self, const char *id, size_t len, int64_t seq, int64_t expires_at)
{
    sqlite3_stmt *stmt = state_store_stmt (self->state, STATE_IDS_INSERT, SQL_INSERT);
    if (!stmt)
        return false;
    sqlite3_bind_text (stmt, 1, id, (int) len, SQLITE_STATIC);
    sqlite3_bind_int64 (stmt, 2, seq);
    if (expires_at == DLQ_TIME_NONE)
        sqlite3_bind_null (stmt, 3);
    else
        sqlite3_bind_int64 (stmt, 3, expires_at);
    return state_store_step_done (self->state, stmt, "ids: cannot insert");
}

/* The page's event ids, the indexed position and the last seq, inside the
 * open transaction; *last_seq updated. */
static bool
insert_page (dlq_id_store_t *self, dlq_sink_record_t *records, size_t count, uint64_t end, int64_t *last_seq)
{
    for (size_t i = 0; i < count; i++) {
        dlq_sink_record_t *r = &records [i];
        r->status = DLQ_SINK_STATUS_NOT_FOUND;      /* a MARK: no event state is kept here */
        if (r->kind != DLQ_SINK_RECORD_EVENT)
            continue;
        const char *id;
        size_t len;
        int64_t expires_at;
        if (!dlq_event_record_id (r->payload, r->length, &id, &len)
        ||  !dlq_event_record_expires_at (r->payload, r->length, &expires_at))
            continue;                               /* not an event record: the log's reader checked it */
        if (!insert (self, id, len, (int64_t) r->position, expires_at))
            return false;
        r->status = DLQ_SINK_STATUS_OK;
        if ((int64_t) r->position > *last_seq)
            *last_seq = (int64_t) r->position;
    }
    return meta_set (self, KEY_POSITION, (int64_t) end) && meta_set (self, KEY_LAST_SEQ, *last_seq);
}

static dlq_sink_status_t
ids_index (void *instance, dlq_sink_record_t *records, size_t count, uint64_t end, bool durable,
           int64_t *last_seq_out)
{
    dlq_id_store_t *self = instance;
    int64_t last_seq = meta_or (self, KEY_LAST_SEQ, 0);
    bool ok = last_seq >= 0
           && state_store_sync_each_commit (self->state, durable)
           && state_store_begin (self->state, "ids: cannot begin")
           && insert_page (self, records, count, end, &last_seq)
           && state_store_commit (self->state, "ids: cannot commit");
    if (!ok)
        state_store_rollback (self->state);
    if (!durable)
        state_store_sync_each_commit (self->state, true);
    if (ok && last_seq_out)
        *last_seq_out = last_seq;
    return ok ? DLQ_SINK_STATUS_OK : DLQ_SINK_STATUS_ERROR;
}

static bool
delete_id (dlq_id_store_t *self, const char *id)
{
    sqlite3_stmt *stmt = state_store_stmt (self->state, STATE_IDS_DELETE, SQL_DELETE);
    if (!stmt)
        return false;
    state_store_bind_text (stmt, 1, id);
    return state_store_step_done (self->state, stmt, "ids: cannot delete");
}

/* Read up to max_rows expired ids (copies: the statement is reset before
 * they are deleted) into *ids / seqs; how many, or -1. */
static int64_t
read_expired (dlq_id_store_t *self, int64_t now_ms, int64_t max_rows, char ***ids, int64_t **seqs)
{
    sqlite3_stmt *stmt = state_store_stmt (self->state, STATE_IDS_EXPIRED, SQL_EXPIRED);
    if (!stmt)
        return -1;
    sqlite3_bind_int64 (stmt, 1, now_ms);
    sqlite3_bind_int64 (stmt, 2, max_rows);
    int64_t n = 0, capacity = 0;
    int rc;
    while ((rc = sqlite3_step (stmt)) == SQLITE_ROW) {
        if (n == capacity) {
            capacity = capacity ? 2 * capacity : 64;
            *ids = dlq_realloc (*ids, (size_t) capacity * sizeof **ids);
            *seqs = dlq_realloc (*seqs, (size_t) capacity * sizeof **seqs);
        }
        (*ids) [n] = dlq_strdup ((const char *) sqlite3_column_text (stmt, 0));
        (*seqs) [n++] = sqlite3_column_int64 (stmt, 1);
    }
    if (rc != SQLITE_DONE)
        state_store_fail_sqlite (self->state, "ids: cannot read the expired ones");
    state_store_stmt_release (stmt);
    return rc == SQLITE_DONE ? n : -1;
}

static int64_t
ids_sweep_each (void *instance, int64_t now_ms, int64_t max_rows, dlq_sink_swept_fn *fn, void *arg)
{
    dlq_id_store_t *self = instance;
    char **ids = NULL;
    int64_t *seqs = NULL;
    int64_t n = read_expired (self, now_ms, max_rows, &ids, &seqs);
    bool ok = n >= 0 && (n == 0 || state_store_begin (self->state, "ids: cannot begin the sweep"));
    for (int64_t i = 0; ok && i < n; i++)
        ok = delete_id (self, ids [i]);
    ok = ok && (n == 0 || state_store_commit (self->state, "ids: cannot commit the sweep"));
    if (!ok)
        state_store_rollback (self->state);
    for (int64_t i = 0; i < (n > 0 ? n : 0); i++) {
        if (ok && fn)
            fn (ids [i], strlen (ids [i]), seqs [i], arg);
        free (ids [i]);
    }
    free (ids);
    free (seqs);
    return ok ? n : -1;
}

/* ---- reading ---------------------------------------------------------------- */

static dlq_sink_status_t
ids_position (void *instance, uint64_t *position_out, bool *indexed_out)
{
    int64_t value = 0;
    bool found = false;
    if (!meta_get (instance, KEY_POSITION, &value, &found))
        return DLQ_SINK_STATUS_ERROR;
    *indexed_out = found;
    *position_out = found ? (uint64_t) value : 0;
    return DLQ_SINK_STATUS_OK;
}

static int64_t
ids_each_id (void *instance, dlq_sink_id_fn *fn, void *arg)
{
    dlq_id_store_t *self = instance;
    sqlite3_stmt *stmt = state_store_stmt (self->state, STATE_IDS_EACH, SQL_EACH);
    if (!stmt)
        return -1;
    int64_t n = 0;
    int rc;
    while ((rc = sqlite3_step (stmt)) == SQLITE_ROW) {
        int64_t expires_at = sqlite3_column_type (stmt, 2) == SQLITE_NULL ? DLQ_SINK_TIME_NONE
                           : sqlite3_column_int64 (stmt, 2);
        fn ((const char *) sqlite3_column_text (stmt, 0), (size_t) sqlite3_column_bytes (stmt, 0),
            sqlite3_column_int64 (stmt, 1), expires_at, arg);
        n++;
    }
    if (rc != SQLITE_DONE)
        state_store_fail_sqlite (self->state, "ids: cannot read them");
    state_store_stmt_release (stmt);
    return rc == SQLITE_DONE ? n : -1;
}

static int64_t
ids_count (void *instance)
{
    dlq_id_store_t *self = instance;
    sqlite3_stmt *stmt = state_store_stmt (self->state, STATE_IDS_COUNT, SQL_COUNT);
    if (!stmt)
        return -1;
    int rc = sqlite3_step (stmt);
    int64_t n = rc == SQLITE_ROW ? sqlite3_column_int64 (stmt, 0) : -1;
    if (rc != SQLITE_ROW)
        state_store_fail_sqlite (self->state, "ids: cannot count them");
    state_store_stmt_release (stmt);
    return n;
}

static int64_t
ids_each_checkpoint (void *instance, dlq_sink_checkpoint_fn *fn, void *arg)
{
    (void) instance, (void) fn, (void) arg;
    return 0;                       /* a sink primary keeps the checkpoints */
}

static int64_t ids_last_seq (void *instance) { return meta_or (instance, KEY_LAST_SEQ, 0); }

static dlq_sink_status_t
ids_seq_of (void *instance, const char *id, int64_t *seq_out)
{
    dlq_id_store_t *self = instance;
    sqlite3_stmt *stmt = state_store_stmt (self->state, STATE_IDS_SEQ_OF, SQL_SEQ_OF);
    if (!stmt)
        return DLQ_SINK_STATUS_ERROR;
    state_store_bind_text (stmt, 1, id);
    int rc = sqlite3_step (stmt);
    if (rc == SQLITE_ROW)
        *seq_out = sqlite3_column_int64 (stmt, 0);
    else
    if (rc != SQLITE_DONE)
        state_store_fail_sqlite (self->state, "ids: cannot look one up");
    state_store_stmt_release (stmt);
    return rc == SQLITE_ROW ? DLQ_SINK_STATUS_OK : rc == SQLITE_DONE ? DLQ_SINK_STATUS_NOT_FOUND
                                                                     : DLQ_SINK_STATUS_ERROR;
}

static int64_t
ids_read_after (void *instance, int64_t after, size_t limit, dlq_sink_archive_fn *fn, void *arg)
{
    (void) instance, (void) after, (void) limit, (void) fn, (void) arg;
    return 0;                       /* no archive: the events are in the log and the primary */
}

static int64_t
ids_count_between (void *instance, int64_t after, int64_t below)
{
    (void) instance, (void) after, (void) below;
    return 0;
}

static const dlq_sink_log_ops_t log_ops = {
    .struct_size = sizeof (dlq_sink_log_ops_t),
    .log_format = DLQ_SINK_LOG_FORMAT,
    .position = ids_position,
    .index = ids_index,
    .sweep_each = ids_sweep_each,
    .each_id = ids_each_id,
    .count = ids_count,
    .each_checkpoint = ids_each_checkpoint,
    .last_seq = ids_last_seq,
    .seq_of = ids_seq_of,
    .read_after = ids_read_after,
    .count_between = ids_count_between,
};

const dlq_sink_log_ops_t *dlq_id_store_log_ops (void) { return &log_ops; }

/* ---- the take-over ------------------------------------------------------------ */

bool
dlq_id_store_taken_over (dlq_id_store_t *self, bool *done)
{
    int64_t ignored;
    return meta_get (self, KEY_TAKEN_OVER, &ignored, done);
}

typedef struct {
    dlq_id_store_t *self;
    bool            ok;
} take_arg_t;

static void
take_id (const char *id, size_t len, int64_t seq, int64_t expires_at, void *arg)
{
    take_arg_t *a = arg;
    a->ok = a->ok && insert (a->self, id, len, seq, expires_at == DLQ_SINK_TIME_NONE ? DLQ_TIME_NONE : expires_at);
}

/* Inside the open transaction: the ids, the position (when the store
 * indexed one) and the last seq of from. */
static bool
take_all (dlq_id_store_t *self, const dlq_sink_log_ops_t *from, void *instance)
{
    take_arg_t a = { self, true };
    uint64_t position = 0;
    bool indexed = false;
    int64_t last_seq = from->last_seq (instance), mine = meta_or (self, KEY_LAST_SEQ, 0);
    if (last_seq < 0 || mine < 0 || from->position (instance, &position, &indexed) != DLQ_SINK_STATUS_OK) {
        state_store_fail_text (self->state, "ids: cannot read the embedded store to take over its ids");
        return false;
    }
    if (from->each_id (instance, take_id, &a) < 0) {
        state_store_fail_text (self->state, "ids: cannot read the embedded store's ids to take them over");
        return false;
    }
    return a.ok
        && (!indexed || meta_set (self, KEY_POSITION, (int64_t) position))
        && meta_set (self, KEY_LAST_SEQ, last_seq > mine ? last_seq : mine)
        && meta_set (self, KEY_TAKEN_OVER, dlq_time_now_ms ());
}

bool
dlq_id_store_take_over (dlq_id_store_t *self, const dlq_sink_log_ops_t *from, void *instance)
{
    bool ok = state_store_begin (self->state, "ids: cannot begin the take-over")
           && take_all (self, from, instance)
           && state_store_commit (self->state, "ids: cannot commit the take-over");
    if (!ok)
        state_store_rollback (self->state);
    return ok;
}
