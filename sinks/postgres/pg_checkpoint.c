/*  pg_checkpoint — the checkpoint calls on "<table>_checkpoints" (see
 *  pg_checkpoint.h).
 */
#include "pg_checkpoint.h"

#include "checkpoint.h"
#include "dlq_json.h"
#include "pg_call.h"
#include "pg_ckpt_sql.h"
#include "pg_sink.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- records ------------------------------------------------------------------------ */

/* Column c of row i of r as text; NULL for SQL NULL. */
static const char *
text_at (const PGresult *r, int i, dlq_pg_ckpt_row_t c)
{
    return PQgetisnull (r, i, (int) c) ? NULL : PQgetvalue (r, i, (int) c);
}

/* Column c (ms) of row i of r; DLQ_SINK_TIME_NONE for SQL NULL. */
static int64_t
ms_at (const PGresult *r, int i, dlq_pg_ckpt_row_t c)
{
    return PQgetisnull (r, i, (int) c) ? DLQ_SINK_TIME_NONE : strtoll (PQgetvalue (r, i, (int) c), NULL, 10);
}

/* Append row i of r (dlq_pg_ckpt_row_t) as the record's JSON. */
static void
format_row (const PGresult *r, int i, dlq_buf_t *json)
{
    dlq_sink_checkpoint_t record = dlq_checkpoint_empty (PQgetvalue (r, i, DLQ_PG_CKPT_ROW_STREAM));
    record.instance_id = text_at (r, i, DLQ_PG_CKPT_ROW_INSTANCE);
    record.last_seen_token = text_at (r, i, DLQ_PG_CKPT_ROW_SEEN_TOKEN);
    record.last_seen_at = ms_at (r, i, DLQ_PG_CKPT_ROW_SEEN_MS);
    record.last_processed_token = text_at (r, i, DLQ_PG_CKPT_ROW_PROCESSED_TOKEN);
    record.last_processed_at = ms_at (r, i, DLQ_PG_CKPT_ROW_PROCESSED_MS);
    record.metadata = text_at (r, i, DLQ_PG_CKPT_ROW_METADATA);
    record.updated_at = ms_at (r, i, DLQ_PG_CKPT_ROW_UPDATED_MS);
    dlq_checkpoint_format (&record, json);
}

/* The record of r's first row into out. */
static void
put_record (const dlq_pg_sink_t *self, const PGresult *r, dlq_sink_buf_t *out)
{
    dlq_buf_t json = DLQ_BUF_INIT;
    format_row (r, 0, &json);
    dlq_pg_call_put (self, out, json.data, json.len);
    dlq_buf_free (&json);
}

/* ---- write ------------------------------------------------------------------------------ */

/* ERROR for a write the sink cannot make, recorded as last_error. */
static dlq_sink_status_t
refuse (dlq_pg_sink_t *self, const char *why)
{
    snprintf (self->last_error, sizeof self->last_error, "postgres checkpoint write: %s", why);
    return DLQ_SINK_STATUS_ERROR;
}

/* Upsert ckpt as kind says, in one statement; the record after it into record_out. */
static dlq_sink_status_t
pg_ckpt_write (void *instance, dlq_sink_ckpt_write_t kind, const dlq_sink_checkpoint_t *ckpt, int64_t now_ms,
               dlq_sink_buf_t *record_out)
{
    dlq_pg_sink_t *self = instance;
    if ((unsigned) kind > DLQ_SINK_CKPT_PROCESSED)
        return refuse (self, "unknown kind of write");
    if (!ckpt || !ckpt->stream_name)
        return refuse (self, "no stream name");
    if (!dlq_pg_call_ready (self, "checkpoint write"))
        return DLQ_SINK_STATUS_ERROR;
    dlq_pg_ckpt_params_t p;
    dlq_pg_ckpt_params (&p, kind, ckpt, now_ms);
    dlq_buf_t sql = DLQ_BUF_INIT;
    dlq_pg_ckpt_sql_write (&sql, &self->names, kind);
    dlq_pg_stmt_t stmt = { .sql = sql.data, .nparams = p.count, .values = p.values, .lengths = p.lengths };
    PGresult *result = NULL;
    dlq_sink_status_t status = dlq_pg_call_run (self, "checkpoint write", &stmt, 1, &result);
    dlq_buf_free (&sql);
    if (status == DLQ_SINK_STATUS_OK && PQntuples (result) != 1)
        status = refuse (self, "the upsert returned no row");
    if (status == DLQ_SINK_STATUS_OK)
        put_record (self, result, record_out);
    PQclear (result);
    return status;
}

/* ---- get and remove ---------------------------------------------------------------------- */

/* The record of stream; NOT_FOUND when there is none. */
static dlq_sink_status_t
pg_ckpt_get (void *instance, const char *stream, dlq_sink_buf_t *record_out)
{
    dlq_pg_sink_t *self = instance;
    if (!dlq_pg_call_ready (self, "checkpoint get"))
        return DLQ_SINK_STATUS_ERROR;
    const char *const values [] = { stream };
    dlq_buf_t sql = DLQ_BUF_INIT;
    dlq_pg_ckpt_sql_get (&sql, &self->names);
    PGresult *result = NULL;
    dlq_sink_status_t status = dlq_pg_call_query (self, "checkpoint get", sql.data, values, 1, &result);
    dlq_buf_free (&sql);
    if (status == DLQ_SINK_STATUS_OK && PQntuples (result) == 0)
        status = DLQ_SINK_STATUS_NOT_FOUND;
    if (status == DLQ_SINK_STATUS_OK)
        put_record (self, result, record_out);
    PQclear (result);
    return status;
}

/* Delete the record of stream; *deleted_out says whether there was one. */
static dlq_sink_status_t
pg_ckpt_remove (void *instance, const char *stream, bool *deleted_out)
{
    dlq_pg_sink_t *self = instance;
    *deleted_out = false;
    if (!dlq_pg_call_ready (self, "checkpoint remove"))
        return DLQ_SINK_STATUS_ERROR;
    const char *const values [] = { stream };
    dlq_buf_t sql = DLQ_BUF_INIT;
    dlq_pg_ckpt_sql_remove (&sql, &self->names);
    PGresult *result = NULL;
    dlq_sink_status_t status = dlq_pg_call_query (self, "checkpoint remove", sql.data, values, 1, &result);
    dlq_buf_free (&sql);
    if (status == DLQ_SINK_STATUS_OK)
        *deleted_out = PQntuples (result) > 0;
    PQclear (result);
    return status;
}

/* ---- list -------------------------------------------------------------------------------- */

/* Can cursor be the name of a record (one this store may have issued)? */
static bool
cursor_valid (const char *cursor)
{
    size_t len = strlen (cursor);
    return len <= DLQ_CKPT_STREAM_MAX && dlq_utf8_valid (cursor, len, NULL);
}

/* Write a page from r (up to one row more than the page): its records as
 * a JSON array into records_out (none for limit 0), and the name of its
 * last record into cursor_out when more rows came. */
static void
write_page (const dlq_pg_sink_t *self, const PGresult *r, size_t limit, dlq_sink_buf_t *records_out,
            dlq_sink_buf_t *cursor_out)
{
    size_t page = dlq_pg_call_page_size (limit), rows = (size_t) PQntuples (r);
    size_t shown = limit == 0 ? 0 : rows < page ? rows : page;
    dlq_buf_t json = DLQ_BUF_INIT;
    dlq_buf_putc (&json, '[');
    for (size_t i = 0; i < shown; i++) {
        if (i > 0)
            dlq_buf_putc (&json, ',');
        format_row (r, (int) i, &json);
    }
    dlq_buf_putc (&json, ']');
    dlq_pg_call_put (self, records_out, json.data, json.len);
    dlq_buf_free (&json);
    if (rows <= page || shown == 0)
        return;
    const char *last = PQgetvalue (r, (int) shown - 1, DLQ_PG_CKPT_ROW_STREAM);
    dlq_pg_call_put (self, cursor_out, last, strlen (last));
}

/* The records whose name starts with prefix, after cursor, at most limit. */
static dlq_sink_status_t
pg_ckpt_list (void *instance, const char *prefix, size_t limit, const char *cursor, dlq_sink_buf_t *records_out,
              dlq_sink_buf_t *cursor_out)
{
    dlq_pg_sink_t *self = instance;
    bool after = cursor && *cursor, narrowed = prefix && *prefix;
    if (after && !cursor_valid (cursor))
        return DLQ_SINK_STATUS_BAD_CURSOR;
    if (!dlq_pg_call_ready (self, "checkpoint list"))
        return DLQ_SINK_STATUS_ERROR;
    char fetch [24];
    snprintf (fetch, sizeof fetch, "%zu", dlq_pg_call_page_size (limit) + 1);
    dlq_buf_t pattern = DLQ_BUF_INIT, sql = DLQ_BUF_INIT;
    const char *values [3] = { fetch };
    int n = 1;
    if (narrowed) {
        dlq_pg_like_prefix (&pattern, prefix);
        values [n++] = pattern.data;
    }
    if (after)
        values [n++] = cursor;
    dlq_pg_ckpt_sql_list (&sql, &self->names, narrowed, after);
    PGresult *result = NULL;
    dlq_sink_status_t status = dlq_pg_call_query (self, "checkpoint list", sql.data, values, n, &result);
    if (status == DLQ_SINK_STATUS_OK)
        write_page (self, result, limit, records_out, cursor_out);
    PQclear (result);
    dlq_buf_free (&sql);
    dlq_buf_free (&pattern);
    return status;
}

const dlq_sink_checkpoint_ops_t dlq_pg_checkpoint_ops = {
    .struct_size = sizeof (dlq_sink_checkpoint_ops_t),
    .write       = pg_ckpt_write,
    .get         = pg_ckpt_get,
    .list        = pg_ckpt_list,
    .remove      = pg_ckpt_remove,
};
