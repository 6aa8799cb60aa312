/*  bench_sqlite — naive and batched SQLite insert loops on the store schema.
 *
 *  The schema comes from the embedded store itself (a writer is opened on
 *  the fresh directory and closed again), so the DDL cannot drift from the
 *  gateway's. The pragmas and the INSERT / stream_counts statements are the
 *  store's, copied here because the store keeps them private; if the store
 *  changes them, change them here too.
 */
#include "bench_sqlite.h"

#include "dlq_time.h"
#include "embedded_store.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_STREAMS 64          /* distinct streams per transaction */

static const char pragmas [] =
    "PRAGMA synchronous = FULL;"
    "PRAGMA foreign_keys = OFF;"
    "PRAGMA temp_store = MEMORY;"
    "PRAGMA cache_size = -32768;"
    "PRAGMA journal_size_limit = 67108864;";

static const char insert_sql [] =
    "INSERT INTO events (id, stream_name, created_at, expires_at, status, error_type, body,"
    " operation_type, document_key, attempts, first_attempt_at)"
    " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) ON CONFLICT (id) DO NOTHING";

static const char count_sql [] =
    "INSERT INTO stream_counts (stream_name, events) VALUES (?1, ?2)"
    " ON CONFLICT (stream_name) DO UPDATE SET events = events + excluded.events";

typedef struct {
    sqlite3      *db;
    sqlite3_stmt *begin, *commit, *insert, *count;
    char         *err;
    size_t        err_len;
} loop_t;

/* Per-stream tally of the rows of one transaction. */
typedef struct {
    const char *name [MAX_STREAMS];
    int64_t     rows [MAX_STREAMS];
    size_t      used;
} tally_t;


static bool
fail (loop_t *l, const char *what)
{
    snprintf (l->err, l->err_len, "%s: %s", what, sqlite3_errmsg (l->db));
    return false;
}

/* Step a statement that returns no rows, then reset it. */
static bool
run_stmt (loop_t *l, sqlite3_stmt *stmt, const char *what)
{
    int rc = sqlite3_step (stmt);
    sqlite3_reset (stmt);
    return rc == SQLITE_DONE || fail (l, what);
}

/* Make dir and let the embedded store create its schema inside it. */
static bool
create_store (const char *dir, char *err, size_t err_len)
{
    if (mkdir (dir, 0700) != 0 && errno != EEXIST) {
        snprintf (err, err_len, "cannot create %s: %s", dir, strerror (errno));
        return false;
    }
    dlq_embedded_t *store = dlq_embedded_open (dir, DLQ_EMBEDDED_WRITER, err, err_len);
    if (!store)
        return false;
    dlq_embedded_destroy (&store);
    return true;
}

static bool
open_loop (loop_t *l, const char *dir)
{
    char path [4096];
    snprintf (path, sizeof path, "%s/%s", dir, DLQ_EMBEDDED_FILE);
    if (sqlite3_open_v2 (path, &l->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
        return fail (l, "cannot open the reference database");
    if (sqlite3_exec (l->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL) != SQLITE_OK
    ||  sqlite3_exec (l->db, pragmas, NULL, NULL, NULL) != SQLITE_OK)
        return fail (l, "cannot configure the reference database");
    if (sqlite3_prepare_v3 (l->db, "BEGIN IMMEDIATE", -1, SQLITE_PREPARE_PERSISTENT, &l->begin, NULL)
    ||  sqlite3_prepare_v3 (l->db, "COMMIT", -1, SQLITE_PREPARE_PERSISTENT, &l->commit, NULL)
    ||  sqlite3_prepare_v3 (l->db, insert_sql, -1, SQLITE_PREPARE_PERSISTENT, &l->insert, NULL)
    ||  sqlite3_prepare_v3 (l->db, count_sql, -1, SQLITE_PREPARE_PERSISTENT, &l->count, NULL))
        return fail (l, "cannot prepare the reference statements");
    return true;
}

static void
close_loop (loop_t *l)
{
    sqlite3_finalize (l->begin);
    sqlite3_finalize (l->commit);
    sqlite3_finalize (l->insert);
    sqlite3_finalize (l->count);
    sqlite3_close (l->db);
}

static void
tally_add (tally_t *t, const char *stream)
{
    for (size_t i = 0; i < t->used; i++)
        if (t->name [i] == stream || strcmp (t->name [i], stream) == 0) {
            t->rows [i]++;
            return;
        }
    if (t->used < MAX_STREAMS) {
        t->name [t->used] = stream;
        t->rows [t->used++] = 1;
    }
}

static bool
insert_row (loop_t *l, const bench_row_t *row)
{
    sqlite3_stmt *s = l->insert;
    sqlite3_bind_text (s, 1, row->id, -1, SQLITE_STATIC);
    sqlite3_bind_text (s, 2, row->stream_name, -1, SQLITE_STATIC);
    sqlite3_bind_int64 (s, 3, row->created_at);
    if (row->expires_at == DLQ_TIME_NONE)
        sqlite3_bind_null (s, 4);
    else
        sqlite3_bind_int64 (s, 4, row->expires_at);
    sqlite3_bind_text (s, 5, row->status, -1, SQLITE_STATIC);
    sqlite3_bind_text (s, 6, row->error_type, -1, SQLITE_STATIC);
    sqlite3_bind_text64 (s, 7, row->json, row->json_len, SQLITE_STATIC, SQLITE_UTF8);
    if (row->operation_type)
        sqlite3_bind_text (s, 8, row->operation_type, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null (s, 8);
    if (row->document_key)
        sqlite3_bind_text (s, 9, row->document_key, -1, SQLITE_STATIC);
    else
        sqlite3_bind_null (s, 9);
    sqlite3_bind_int (s, 10, row->attempts);
    if (row->first_attempt_at == DLQ_TIME_NONE)
        sqlite3_bind_null (s, 11);
    else
        sqlite3_bind_int64 (s, 11, row->first_attempt_at);
    return run_stmt (l, s, "insert");
}

static bool
update_counts (loop_t *l, const tally_t *t)
{
    for (size_t i = 0; i < t->used; i++) {
        sqlite3_bind_text (l->count, 1, t->name [i], -1, SQLITE_STATIC);
        sqlite3_bind_int64 (l->count, 2, t->rows [i]);
        if (!run_stmt (l, l->count, "stream_counts upsert"))
            return false;
    }
    return true;
}

/* One transaction: rows [0, n). */
static bool
insert_txn (loop_t *l, const bench_row_t *rows, size_t n)
{
    tally_t tally = { .used = 0 };
    if (!run_stmt (l, l->begin, "begin"))
        return false;
    for (size_t i = 0; i < n; i++) {
        if (!insert_row (l, &rows [i]))
            return false;
        tally_add (&tally, rows [i].stream_name);
    }
    return update_counts (l, &tally) && run_stmt (l, l->commit, "commit");
}

static bool
insert_all (loop_t *l, const bench_row_t *rows, size_t count, size_t per_txn)
{
    for (size_t done = 0; done < count; done += per_txn) {
        size_t n = count - done < per_txn ? count - done : per_txn;
        if (!insert_txn (l, rows + done, n))
            return false;
    }
    return true;
}

/* Outside the timing: every row must be there. */
static bool
check_rows (loop_t *l, size_t expected)
{
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_prepare_v2 (l->db, "SELECT count(*) FROM events", -1, &stmt, NULL) != SQLITE_OK)
        return fail (l, "cannot count rows");
    int64_t stored = sqlite3_step (stmt) == SQLITE_ROW ? sqlite3_column_int64 (stmt, 0) : -1;
    sqlite3_finalize (stmt);
    if (stored != (int64_t) expected) {
        snprintf (l->err, l->err_len, "the reference database holds %lld rows, expected %zu",
                  (long long) stored, expected);
        return false;
    }
    return true;
}

bool
bench_sqlite_run (const char *dir, const bench_row_t *rows, size_t count,
                  size_t rows_per_txn, double *seconds, char *err, size_t err_len)
{
    err [0] = '\0';
    if (!create_store (dir, err, err_len))
        return false;
    loop_t l = { .err = err, .err_len = err_len };
    bool ok = open_loop (&l, dir);
    if (ok) {
        int64_t start = dlq_time_mono_ns ();
        ok = insert_all (&l, rows, count, rows_per_txn ? rows_per_txn : 1);
        *seconds = (double) (dlq_time_mono_ns () - start) / 1e9;
    }
    ok = ok && check_rows (&l, count);
    close_loop (&l);
    return ok;
}
