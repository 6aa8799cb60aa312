/*  pg_filter — the workbench's filtered LIST, COUNT and GROUPS as SQL
 *  with parameters (see pg_filter.h). Pure: no libpq, no I/O.
 */
#include "pg_filter.h"

#include "dlq_json.h"
#include "pg_format.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* ---- parameters ------------------------------------------------------------------ */

/* Add a parameter of len bytes; returns its number ($n). */
static int
param (dlq_pg_query_t *q, const char *value, size_t len)
{
    q->offset [q->count] = q->text.len;
    q->lengths [q->count] = (int) len;
    dlq_buf_append (&q->text, value, len);
    dlq_buf_putc (&q->text, '\0');
    return ++q->count;
}

static int
param_text (dlq_pg_query_t *q, const char *value)
{
    return param (q, value, strlen (value));
}

static int
param_time (dlq_pg_query_t *q, int64_t ms)
{
    char text [DLQ_PG_TIME_LEN];
    dlq_pg_format_time (ms, text);
    return param_text (q, text);
}

static int
param_int (dlq_pg_query_t *q, int64_t n)
{
    char text [24];
    snprintf (text, sizeof text, "%" PRId64, n);
    return param_text (q, text);
}

/* A parameter made in a buffer (freed here). */
static int
param_buf (dlq_pg_query_t *q, dlq_buf_t *value)
{
    int n = param (q, value->data ? value->data : "", value->len);
    dlq_buf_free (value);
    return n;
}

/* Point the values at their text, now that it no longer moves. */
static void
settle (dlq_pg_query_t *q)
{
    for (int i = 0; i < q->count; i++)
        q->values [i] = q->text.data + q->offset [i];
}

/* ---- conditions ------------------------------------------------------------------ */

/* " AND column = $n" when the string filter is set. */
static void
equal (dlq_pg_query_t *q, const char *column, const char *value)
{
    if (value)
        dlq_buf_printf (&q->sql, " AND %s = $%d", column, param_text (q, value));
}

/* " AND column op $n::cast". */
static void
compare (dlq_pg_query_t *q, const char *column, const char *op, int n, const char *cast)
{
    dlq_buf_printf (&q->sql, " AND %s %s $%d::%s", column, op, n, cast);
}

void
dlq_pg_like_contains (dlq_buf_t *out, const char *text)
{
    dlq_buf_putc (out, '%');
    for (const char *p = text; *p; p++) {
        if (*p == '%' || *p == '_' || *p == '\\')
            dlq_buf_putc (out, '\\');
        dlq_buf_putc (out, *p);
    }
    dlq_buf_putc (out, '%');
}

/* error_message contains text, ASCII letters without case. */
static void
contains (dlq_pg_query_t *q, const char *text)
{
    if (!text)
        return;
    dlq_buf_t pattern = DLQ_BUF_INIT;
    dlq_pg_like_contains (&pattern, text);
    dlq_buf_printf (&q->sql, " AND error_message ILIKE $%d COLLATE \"C\"", param_buf (q, &pattern));
}

/* metadata.key equals the pair's value, as JSON. */
static void
metadata_pair (dlq_pg_query_t *q, const dlq_filter_pair_t *pair)
{
    int key = param_text (q, pair->key);
    dlq_buf_t value = DLQ_BUF_INIT;
    if (pair->type == DLQ_JSON_STRING)
        dlq_json_write_string (&value, pair->text, strlen (pair->text));
    else
        dlq_buf_puts (&value, pair->text);          /* a number's source text, true, false */
    dlq_buf_printf (&q->sql, " AND metadata -> $%d = $%d::jsonb", key, param_buf (q, &value));
}

/* " FROM table WHERE <unexpired> AND <each filter>". */
static void
where (dlq_pg_query_t *q, const dlq_pg_names_t *names, const dlq_event_filter_t *f, int64_t now_ms)
{
    dlq_buf_puts (&q->sql, " FROM ");
    dlq_pg_sql_qualified (&q->sql, names);
    int now = param_time (q, now_ms);
    dlq_buf_printf (&q->sql, " WHERE (expires_at IS NULL OR expires_at > $%d::timestamptz)", now);
    equal (q, "stream_name", f->stream);
    equal (q, "status", f->status);
    equal (q, "error_type", f->error_type);
    equal (q, "fingerprint", f->fingerprint);
    if (f->has_created_after)
        compare (q, "created_at", ">=", param_time (q, f->created_after), "timestamptz");
    if (f->has_created_before)
        compare (q, "created_at", "<", param_time (q, f->created_before), "timestamptz");
    if (f->has_attempts_min)
        compare (q, "attempts", ">=", param_int (q, f->attempts_min), "int8");
    if (f->has_attempts_max)
        compare (q, "attempts", "<=", param_int (q, f->attempts_max), "int8");
    contains (q, f->message_contains);
    for (size_t i = 0; i < f->metadata_count; i++)
        metadata_pair (q, &f->metadata [i]);
}

/* ---- statements ------------------------------------------------------------------ */

void
dlq_pg_filter_list (dlq_pg_query_t *q, const dlq_pg_names_t *names, const dlq_event_filter_t *filter,
                    int64_t now_ms, const dlq_pg_after_t *after, size_t fetch)
{
    dlq_buf_puts (&q->sql, "SELECT payload_text, (extract(epoch FROM created_at) * 1000000)::int8, id::text");
    where (q, names, filter, now_ms);
    if (after) {
        char time [DLQ_PG_TIME_LEN] = "";
        dlq_pg_format_time_us (after->created_us, time);
        int at = param_text (q, time);
        dlq_buf_printf (&q->sql, " AND (created_at, id) < ($%d::timestamptz, $%d::uuid)", at,
                        param_text (q, after->id));
    }
    dlq_buf_printf (&q->sql, " ORDER BY created_at DESC, id DESC LIMIT $%d::int8", param_int (q, (int64_t) fetch));
    settle (q);
}

void
dlq_pg_filter_count (dlq_pg_query_t *q, const dlq_pg_names_t *names, const dlq_event_filter_t *filter,
                     int64_t now_ms)
{
    dlq_buf_puts (&q->sql, "SELECT count(*)");
    where (q, names, filter, now_ms);
    settle (q);
}

void
dlq_pg_filter_groups (dlq_pg_query_t *q, const dlq_pg_names_t *names, const dlq_event_filter_t *filter,
                      int64_t now_ms, size_t limit)
{
    dlq_buf_puts (&q->sql, "WITH g AS (SELECT fingerprint, count(*) AS n, min(created_at) AS first_seen, "
                           "max(created_at) AS last_seen, json_agg(DISTINCT stream_name) AS streams, "
                           "max(id::text) AS sample");
    where (q, names, filter, now_ms);
    dlq_buf_printf (&q->sql, " GROUP BY fingerprint ORDER BY n DESC, last_seen DESC, fingerprint LIMIT $%d::int8) "
                    "SELECT g.fingerprint, g.n, ", param_int (q, (int64_t) limit));
    dlq_pg_sql_ms (&q->sql, "g.first_seen");
    dlq_buf_puts (&q->sql, ", ");
    dlq_pg_sql_ms (&q->sql, "g.last_seen");
    dlq_buf_puts (&q->sql, ", g.streams, s.error_type, s.error_message, g.sample FROM g JOIN ");
    dlq_pg_sql_qualified (&q->sql, names);
    dlq_buf_puts (&q->sql, " AS s ON s.id = g.sample::uuid ORDER BY g.n DESC, g.last_seen DESC, g.fingerprint");
    settle (q);
}

void
dlq_pg_query_free (dlq_pg_query_t *q)
{
    dlq_buf_free (&q->sql);
    dlq_buf_free (&q->text);
    memset (q, 0, sizeof *q);
}
