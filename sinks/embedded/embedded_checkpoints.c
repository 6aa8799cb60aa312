/*  embedded_checkpoints — checkpoint records in SQLite (see the header).
 *  Each write is one statement with RETURNING, so the reply is the row as
 *  stored, read in the same transaction.
 */
#include "embedded_checkpoints.h"

#include "checkpoint.h"
#include "dlq_alloc.h"
#include "dlq_json.h"
#include "embedded_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CKPT_COLUMNS \
    "stream_name, instance_id, last_seen_token, last_seen_at, last_processed_token," \
    " last_processed_at, metadata, updated_at"

static const char *const ckpt_sql [CK_STMT_COUNT] = {
    [CK_SAVE]      = "INSERT INTO checkpoints (" CKPT_COLUMNS ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
                     " ON CONFLICT (stream_name) DO UPDATE SET instance_id = excluded.instance_id,"
                     " last_seen_token = excluded.last_seen_token, last_seen_at = excluded.last_seen_at,"
                     " last_processed_token = excluded.last_processed_token,"
                     " last_processed_at = excluded.last_processed_at, metadata = excluded.metadata,"
                     " updated_at = excluded.updated_at RETURNING " CKPT_COLUMNS,
    [CK_SEEN]      = "INSERT INTO checkpoints (stream_name, last_seen_token, last_seen_at, updated_at)"
                     " VALUES (?1, ?3, ?4, ?8) ON CONFLICT (stream_name) DO UPDATE SET"
                     " last_seen_token = excluded.last_seen_token, last_seen_at = excluded.last_seen_at,"
                     " updated_at = excluded.updated_at RETURNING " CKPT_COLUMNS,
    [CK_PROCESSED] = "INSERT INTO checkpoints (stream_name, last_processed_token, last_processed_at, updated_at)"
                     " VALUES (?1, ?5, ?6, ?8) ON CONFLICT (stream_name) DO UPDATE SET"
                     " last_processed_token = excluded.last_processed_token,"
                     " last_processed_at = excluded.last_processed_at,"
                     " updated_at = excluded.updated_at RETURNING " CKPT_COLUMNS,
    [CK_DELETE]    = "DELETE FROM checkpoints WHERE stream_name = ?1 RETURNING stream_name",
    [CK_GET]       = "SELECT " CKPT_COLUMNS " FROM checkpoints WHERE stream_name = ?1",
    /* ?2 = prefix: from the prefix on, while the name starts with it. */
    [CK_LIST]      = "SELECT " CKPT_COLUMNS " FROM checkpoints WHERE stream_name > ?1 AND stream_name >= ?2"
                     " AND substr (stream_name, 1, length (?2)) = ?2 ORDER BY stream_name LIMIT ?3",
    [CK_ALL]       = "SELECT " CKPT_COLUMNS " FROM checkpoints",
};

bool
embedded_ckpt_prepare (dlq_embedded_t *self)
{
    if (self->schema_version < SCHEMA_VERSION_CHECKPOINTS)
        return true;
    int first = self->mode == DLQ_EMBEDDED_WRITER ? 0 : CK_FIRST_READ;
    return embedded_prepare (self, ckpt_sql, self->ckpt, first, CK_STMT_COUNT);
}

static const char *
column_text (sqlite3_stmt *stmt, int i)
{
    return (const char *) sqlite3_column_text (stmt, i);
}

static int64_t
column_time (sqlite3_stmt *stmt, int i)
{
    return sqlite3_column_type (stmt, i) == SQLITE_NULL ? DLQ_SINK_TIME_NONE : sqlite3_column_int64 (stmt, i);
}

/* The current row of a statement selecting CKPT_COLUMNS (valid until the
 * next step). */
static dlq_sink_checkpoint_t
row_record (sqlite3_stmt *stmt)
{
    return (dlq_sink_checkpoint_t) {
        .stream_name = column_text (stmt, 0), .instance_id = column_text (stmt, 1),
        .last_seen_token = column_text (stmt, 2), .last_seen_at = column_time (stmt, 3),
        .last_processed_token = column_text (stmt, 4), .last_processed_at = column_time (stmt, 5),
        .metadata = column_text (stmt, 6), .updated_at = column_time (stmt, 7),
    };
}

/* The current row, as JSON. */
static void
format_row (sqlite3_stmt *stmt, dlq_buf_t *out)
{
    dlq_sink_checkpoint_t r = row_record (stmt);
    dlq_checkpoint_format (&r, out);
}

/* One write inside the open transaction; its reply into w->reply. */
static bool
apply_one (dlq_embedded_t *self, dlq_ckpt_write_t *w)
{
    const dlq_sink_checkpoint_t *r = &w->record;
    int id = w->remove ? CK_DELETE : w->kind == DLQ_SINK_CKPT_SEEN ? CK_SEEN
           : w->kind == DLQ_SINK_CKPT_PROCESSED ? CK_PROCESSED : CK_SAVE;
    sqlite3_stmt *stmt = self->ckpt [id];
    if (!stmt) {
        embedded_fail_text (self, "commit: %s cannot write checkpoints", self->path);
        return false;
    }
    embedded_bind_optional_text (stmt, 1, r->stream_name);
    if (!w->remove) {
        embedded_bind_optional_text (stmt, 2, r->instance_id);
        embedded_bind_optional_text (stmt, 3, r->last_seen_token);
        embedded_bind_time (stmt, 4, r->last_seen_at);
        embedded_bind_optional_text (stmt, 5, r->last_processed_token);
        embedded_bind_time (stmt, 6, r->last_processed_at);
        embedded_bind_optional_text (stmt, 7, r->metadata);
        sqlite3_bind_int64 (stmt, 8, w->now_ms);
    }
    int rc = sqlite3_step (stmt);
    dlq_buf_reset (&w->reply);
    if (rc == SQLITE_ROW && !w->remove)
        format_row (stmt, &w->reply);
    else
    if (rc == SQLITE_ROW || rc == SQLITE_DONE) {
        dlq_buf_puts (&w->reply, "{\"streamName\":");
        dlq_json_write_string (&w->reply, r->stream_name, strlen (r->stream_name));
        dlq_buf_printf (&w->reply, ",\"deleted\":%s}", rc == SQLITE_ROW ? "true" : "false");
    }
    bool ok = rc == SQLITE_ROW || (rc == SQLITE_DONE && w->remove);
    if (!ok)
        embedded_fail_sqlite (self, "commit: cannot write a checkpoint");
    embedded_stmt_release (stmt);
    return ok;
}

bool
embedded_ckpt_apply (dlq_embedded_t *self, dlq_ckpt_write_t *writes, size_t count)
{
    for (size_t i = 0; i < count; i++)
        if (!apply_one (self, &writes [i]))
            return false;
    return true;
}

/* The read statement id, or NULL (with the error) on a file without checkpoints. */
static sqlite3_stmt *
read_stmt (dlq_embedded_t *self, int id)
{
    if (!self->ckpt [id])
        embedded_fail_text (self, "%s has schema version %lld, without checkpoints;"
                            " opening it with a dlqd writer upgrades it",
                            self->path, (long long) self->schema_version);
    return self->ckpt [id];
}

dlq_store_result_t
dlq_embedded_ckpt_get (dlq_embedded_t *self, const char *stream, dlq_buf_t *out)
{
    sqlite3_stmt *stmt = read_stmt (self, CK_GET);
    if (!stmt)
        return DLQ_STORE_ERROR;
    sqlite3_bind_text (stmt, 1, stream, -1, SQLITE_STATIC);
    int rc = sqlite3_step (stmt);
    if (rc == SQLITE_ROW) {
        dlq_buf_reset (out);
        format_row (stmt, out);
    }
    else
    if (rc != SQLITE_DONE)
        embedded_fail_sqlite (self, "cannot read a checkpoint");
    embedded_stmt_release (stmt);
    return rc == SQLITE_ROW ? DLQ_STORE_OK : rc == SQLITE_DONE ? DLQ_STORE_NOT_FOUND : DLQ_STORE_ERROR;
}

dlq_store_result_t
dlq_embedded_ckpt_list (dlq_embedded_t *self, const char *prefix, size_t limit, const char *cursor,
                        dlq_buf_t *records_out, dlq_buf_t *cursor_out)
{
    /* a cursor is a stream name this call gave out: UTF-8, at most DLQ_CKPT_STREAM_MAX bytes */
    size_t cursor_len = cursor ? strnlen (cursor, DLQ_CKPT_STREAM_MAX + 1) : 0;
    if (cursor && (cursor_len > DLQ_CKPT_STREAM_MAX || !dlq_utf8_valid (cursor, cursor_len, NULL)))
        return DLQ_STORE_BAD_CURSOR;
    sqlite3_stmt *stmt = read_stmt (self, CK_LIST);
    if (!stmt)
        return DLQ_STORE_ERROR;
    sqlite3_bind_text (stmt, 1, cursor ? cursor : "", -1, SQLITE_STATIC);
    sqlite3_bind_text (stmt, 2, prefix ? prefix : "", -1, SQLITE_STATIC);
    sqlite3_bind_int64 (stmt, 3, (sqlite3_int64) limit + 1);      /* one more: is there a next page? */
    dlq_buf_reset (records_out);
    dlq_buf_reset (cursor_out);
    dlq_buf_putc (records_out, '[');
    size_t n = 0;
    int rc;
    char *last = NULL;
    while ((rc = sqlite3_step (stmt)) == SQLITE_ROW) {
        if (n == limit) {
            dlq_buf_puts (cursor_out, last);
            break;
        }
        dlq_buf_puts (records_out, n++ ? "," : "");
        format_row (stmt, records_out);
        free (last);
        last = dlq_strdup (column_text (stmt, 0));
    }
    free (last);
    dlq_buf_putc (records_out, ']');
    bool ok = rc == SQLITE_ROW || rc == SQLITE_DONE;
    if (!ok)
        embedded_fail_sqlite (self, "cannot list checkpoints");
    embedded_stmt_release (stmt);
    return ok ? DLQ_STORE_OK : DLQ_STORE_ERROR;
}

int64_t
dlq_embedded_ckpt_each (dlq_embedded_t *self, dlq_embedded_ckpt_fn *fn, void *arg)
{
    if (!self->ckpt [CK_ALL])
        return 0;                       /* a file from before checkpoints holds none */
    sqlite3_stmt *stmt = self->ckpt [CK_ALL];
    int64_t n = 0;
    int rc;
    while ((rc = sqlite3_step (stmt)) == SQLITE_ROW) {
        dlq_sink_checkpoint_t r = row_record (stmt);
        fn (&r, arg);
        n++;
    }
    if (rc != SQLITE_DONE)
        embedded_fail_sqlite (self, "cannot read the checkpoints");
    embedded_stmt_release (stmt);
    return rc == SQLITE_DONE ? n : -1;
}
