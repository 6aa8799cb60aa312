/*  job_store — durable replay jobs in the daemon's state file; see
 *  job_store.h.
 *
 *  States are stored by name. Progress and state are written by different
 *  statements that name disjoint columns (but for updated_at), so the
 *  replayer's progress and a PAUSE / CANCEL never undo each other. A state
 *  change reads the job and updates it in one IMMEDIATE transaction, so the
 *  check of from_mask holds when the update lands.
 */
#include "job_store.h"

#include "dlq_alloc.h"
#include "state_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JOB_COLUMNS \
    "id, state, request, cursor, total, done, replayed, skipped, quarantined, failed," \
    " last_error, created_at, updated_at"

typedef enum {
    JC_ID, JC_STATE, JC_REQUEST, JC_CURSOR, JC_TOTAL, JC_DONE, JC_REPLAYED, JC_SKIPPED,
    JC_QUARANTINED, JC_FAILED, JC_LAST_ERROR, JC_CREATED_AT, JC_UPDATED_AT
} job_col_t;

/* Newest first: created_at, then id (UUIDv7 ids of one ms sort by time),
 * along replay_jobs_by_created read backwards. */
#define SQL_INSERT       "INSERT INTO replay_jobs (" JOB_COLUMNS ")" \
                         " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?12)"
#define SQL_PROGRESS     "UPDATE replay_jobs SET cursor = ?2, total = ?3, done = ?4, replayed = ?5," \
                         " skipped = ?6, quarantined = ?7, failed = ?8," \
                         " last_error = coalesce (?9, last_error), updated_at = ?10 WHERE id = ?1"
#define SQL_SET_STATE    "UPDATE replay_jobs SET state = ?2, updated_at = ?3 WHERE id = ?1"
#define SQL_GET          "SELECT " JOB_COLUMNS " FROM replay_jobs WHERE id = ?1"
#define SQL_LIST         "SELECT " JOB_COLUMNS " FROM replay_jobs" \
                         " ORDER BY created_at DESC, id DESC LIMIT ?1"
#define SQL_LIST_RUNNING "SELECT " JOB_COLUMNS " FROM replay_jobs WHERE state = 'RUNNING'" \
                         " ORDER BY created_at DESC, id DESC LIMIT ?1"

static char *
column_strdup (sqlite3_stmt *stmt, int col)
{
    const unsigned char *text = sqlite3_column_text (stmt, col);
    return text ? dlq_strndup ((const char *) text, (size_t) sqlite3_column_bytes (stmt, col)) : NULL;
}

/* The job of the current row into job (cleared first); false (last error
 * set) for a row whose state is not a job state. */
static bool
read_job (dlq_state_store_t *self, sqlite3_stmt *stmt, dlq_replay_job_t *job)
{
    dlq_replay_job_clear (job);
    const char *id = (const char *) sqlite3_column_text (stmt, JC_ID);
    const char *state = (const char *) sqlite3_column_text (stmt, JC_STATE);
    snprintf (job->id, sizeof job->id, "%s", id ? id : "");
    if (!dlq_job_state_parse (state, &job->state)) {
        state_store_fail_text (self, "replay job %s has an unknown state '%s'", job->id, state ? state : "");
        return false;
    }
    job->request = column_strdup (stmt, JC_REQUEST);
    job->cursor = column_strdup (stmt, JC_CURSOR);
    job->total = sqlite3_column_int64 (stmt, JC_TOTAL);
    job->done = sqlite3_column_int64 (stmt, JC_DONE);
    job->replayed = sqlite3_column_int64 (stmt, JC_REPLAYED);
    job->skipped = sqlite3_column_int64 (stmt, JC_SKIPPED);
    job->quarantined = sqlite3_column_int64 (stmt, JC_QUARANTINED);
    job->failed = sqlite3_column_int64 (stmt, JC_FAILED);
    job->last_error = column_strdup (stmt, JC_LAST_ERROR);
    job->created_at = sqlite3_column_int64 (stmt, JC_CREATED_AT);
    job->updated_at = sqlite3_column_int64 (stmt, JC_UPDATED_AT);
    return true;
}

/* Bind the counters of job at ?first .. ?first + 5 (total, done, replayed,
 * skipped, quarantined, failed). */
static void
bind_counters (sqlite3_stmt *stmt, int first, const dlq_replay_job_t *job)
{
    const int64_t counters [] = {
        job->total, job->done, job->replayed, job->skipped, job->quarantined, job->failed,
    };
    for (int i = 0; i < (int) (sizeof counters / sizeof counters [0]); i++)
        sqlite3_bind_int64 (stmt, first + i, counters [i]);
}


/* ------------------------------------------------------------------------ */
/* Writes */

dlq_store_result_t
dlq_job_store_create (dlq_state_store_t *self, const dlq_replay_job_t *job)
{
    sqlite3_stmt *stmt = state_store_stmt (self, STATE_JOB_INSERT, SQL_INSERT);
    if (!stmt)
        return DLQ_STORE_ERROR;
    if ((size_t) job->state > DLQ_JOB_DONE || !job->request) {
        state_store_fail_text (self, "job create: job %s needs a known state and a request", job->id);
        return DLQ_STORE_ERROR;
    }
    state_store_bind_text (stmt, 1, job->id);
    state_store_bind_text (stmt, 2, dlq_job_state_name (job->state));
    state_store_bind_text (stmt, 3, job->request);
    state_store_bind_text (stmt, 4, job->cursor);
    bind_counters (stmt, 5, job);
    state_store_bind_text (stmt, 11, job->last_error);
    sqlite3_bind_int64 (stmt, 12, job->created_at);
    bool ok = state_store_step_done (self, stmt, "job create");
    sqlite3_clear_bindings (stmt);
    return ok ? DLQ_STORE_OK : DLQ_STORE_ERROR;
}

dlq_store_result_t
dlq_job_store_progress (dlq_state_store_t *self, const dlq_replay_job_t *job, int64_t now_ms)
{
    sqlite3_stmt *stmt = state_store_stmt (self, STATE_JOB_PROGRESS, SQL_PROGRESS);
    if (!stmt)
        return DLQ_STORE_ERROR;
    state_store_bind_text (stmt, 1, job->id);
    state_store_bind_text (stmt, 2, job->cursor);
    bind_counters (stmt, 3, job);
    state_store_bind_text (stmt, 9, job->last_error);
    sqlite3_bind_int64 (stmt, 10, now_ms);
    bool ok = state_store_step_done (self, stmt, "job progress");
    sqlite3_clear_bindings (stmt);
    if (!ok)
        return DLQ_STORE_ERROR;
    return sqlite3_changes (state_store_db (self)) > 0 ? DLQ_STORE_OK : DLQ_STORE_NOT_FOUND;
}


/* ------------------------------------------------------------------------ */
/* Reads */

/* Job id into job_out, inside or outside a transaction. */
static dlq_store_result_t
read_job_by_id (dlq_state_store_t *self, sqlite3_stmt *stmt, const char *id, dlq_replay_job_t *job_out)
{
    state_store_bind_text (stmt, 1, id);
    dlq_store_result_t result = DLQ_STORE_NOT_FOUND;
    int rc = sqlite3_step (stmt);
    if (rc == SQLITE_ROW) {
        result = read_job (self, stmt, job_out) ? DLQ_STORE_OK : DLQ_STORE_ERROR;
        rc = SQLITE_DONE;
    }
    if (rc != SQLITE_DONE) {
        state_store_fail_sqlite (self, "job get");
        result = DLQ_STORE_ERROR;
    }
    state_store_stmt_release (stmt);
    return result;
}

dlq_store_result_t
dlq_job_store_get (dlq_state_store_t *self, const char *id, dlq_replay_job_t *job_out)
{
    dlq_replay_job_clear (job_out);
    sqlite3_stmt *stmt = state_store_stmt (self, STATE_JOB_GET, SQL_GET);
    if (!stmt)
        return DLQ_STORE_ERROR;
    return read_job_by_id (self, stmt, id, job_out);
}

static void
free_jobs (dlq_replay_job_t *jobs, size_t count)
{
    for (size_t i = 0; i < count; i++)
        dlq_replay_job_clear (&jobs [i]);
    free (jobs);
}

/* Step a bound list statement into a new array. */
static bool
collect_jobs (dlq_state_store_t *self, sqlite3_stmt *stmt, dlq_replay_job_t **jobs_out, size_t *count_out)
{
    dlq_replay_job_t *jobs = NULL;
    size_t count = 0, cap = 0;
    int rc;
    bool ok = true;
    while (ok && (rc = sqlite3_step (stmt)) == SQLITE_ROW) {
        if (count == cap) {
            cap = cap ? 2 * cap : 8;
            jobs = dlq_realloc (jobs, cap * sizeof *jobs);
        }
        memset (&jobs [count], 0, sizeof jobs [count]);
        ok = read_job (self, stmt, &jobs [count++]);
    }
    if (ok && rc != SQLITE_DONE) {
        state_store_fail_sqlite (self, "job list");
        ok = false;
    }
    if (!ok) {
        free_jobs (jobs, count);
        return false;
    }
    *jobs_out = jobs;
    *count_out = count;
    return true;
}

dlq_store_result_t
dlq_job_store_list (dlq_state_store_t *self, bool only_running, size_t limit,
                       dlq_replay_job_t **jobs_out, size_t *count_out)
{
    *jobs_out = NULL;
    *count_out = 0;
    sqlite3_stmt *stmt = only_running ? state_store_stmt (self, STATE_JOB_LIST_RUNNING, SQL_LIST_RUNNING)
                                       : state_store_stmt (self, STATE_JOB_LIST, SQL_LIST);
    if (!stmt)
        return DLQ_STORE_ERROR;
    sqlite3_bind_int64 (stmt, 1, limit > (size_t) INT64_MAX ? INT64_MAX : (int64_t) limit);
    bool ok = collect_jobs (self, stmt, jobs_out, count_out);
    state_store_stmt_release (stmt);
    return ok ? DLQ_STORE_OK : DLQ_STORE_ERROR;
}


/* ------------------------------------------------------------------------ */
/* State changes */

/* Set job id's state inside the open transaction, as set_state says;
 * *result gets its outcome when the transaction is to commit (OK, NOT_FOUND,
 * CONFLICT). job holds the job as it is afterwards. */
static bool
change_state (dlq_state_store_t *self, const char *id, unsigned from_mask, dlq_job_state_t to,
              int64_t now_ms, dlq_replay_job_t *job, dlq_store_result_t *result)
{
    *result = read_job_by_id (self, state_store_stmt (self, STATE_JOB_GET, SQL_GET), id, job);
    if (*result != DLQ_STORE_OK)
        return *result != DLQ_STORE_ERROR;
    if (!(from_mask & (1u << job->state))) {
        *result = DLQ_STORE_CONFLICT;
        return true;
    }
    if (job->state == to)
        return true;
    sqlite3_stmt *stmt = state_store_stmt (self, STATE_JOB_SET_STATE, SQL_SET_STATE);
    state_store_bind_text (stmt, 1, id);
    state_store_bind_text (stmt, 2, dlq_job_state_name (to));
    sqlite3_bind_int64 (stmt, 3, now_ms);
    bool ok = state_store_step_done (self, stmt, "job set state");
    sqlite3_clear_bindings (stmt);
    if (ok) {
        job->state = to;
        job->updated_at = now_ms;
    }
    return ok;
}

dlq_store_result_t
dlq_job_store_set_state (dlq_state_store_t *self, const char *id, unsigned from_mask,
                            dlq_job_state_t to, int64_t now_ms, dlq_replay_job_t *job_out)
{
    if ((size_t) to > DLQ_JOB_DONE) {
        state_store_fail_text (self, "job set state: unknown state %d", (int) to);
        return DLQ_STORE_ERROR;
    }
    dlq_replay_job_clear (job_out);
    if (!state_store_stmt (self, STATE_JOB_SET_STATE, SQL_SET_STATE)
        || !state_store_stmt (self, STATE_JOB_GET, SQL_GET)
        || !state_store_begin (self, "job set state: cannot begin"))
        return DLQ_STORE_ERROR;
    dlq_replay_job_t job = { .state = DLQ_JOB_RUNNING };
    dlq_store_result_t result = DLQ_STORE_ERROR;
    bool ok = change_state (self, id, from_mask, to, now_ms, &job, &result)
           && state_store_commit (self, "job set state: cannot commit");
    if (!ok) {
        state_store_rollback (self);
        result = DLQ_STORE_ERROR;
    }
    if (job_out && (result == DLQ_STORE_OK || result == DLQ_STORE_CONFLICT))
        *job_out = job;
    else
        dlq_replay_job_clear (&job);
    return result;
}
