/*  pg_ckpt_sql — the checkpoint calls' SQL and parameters (see
 *  pg_ckpt_sql.h). Pure: the identifiers come quoted, every value is a $n
 *  parameter.
 */
#include "pg_ckpt_sql.h"

#include <string.h>

/* Each column a write may set: its name and the cast of its parameter. */
typedef struct {
    const char *name;
    const char *cast;
} column_t;

static const column_t columns [DLQ_PG_CKPT_COLUMN_COUNT] = {
    [DLQ_PG_CKPT_STREAM]          = { "stream_name", "" },
    [DLQ_PG_CKPT_INSTANCE]        = { "instance_id", "" },
    [DLQ_PG_CKPT_SEEN_TOKEN]      = { "last_seen_token", "::jsonb" },
    [DLQ_PG_CKPT_SEEN_TEXT]       = { "last_seen_token_text", "" },
    [DLQ_PG_CKPT_SEEN_TS]         = { "last_seen_ts", "::timestamptz" },
    [DLQ_PG_CKPT_PROCESSED_TOKEN] = { "last_processed_token", "::jsonb" },
    [DLQ_PG_CKPT_PROCESSED_TEXT]  = { "last_processed_token_text", "" },
    [DLQ_PG_CKPT_PROCESSED_TS]    = { "last_processed_ts", "::timestamptz" },
    [DLQ_PG_CKPT_METADATA]        = { "metadata", "::jsonb" },
    [DLQ_PG_CKPT_METADATA_TEXT]   = { "metadata_text", "" },
    [DLQ_PG_CKPT_UPDATED]         = { "updated_at", "::timestamptz" },
};

/* Most characters of a number JSONB is sure to take, and of its exponent. */
#define NUMBER_MAX   1000
#define EXPONENT_MAX 3

/* ---- parameters ------------------------------------------------------------------- */

/* Is column one of first..last? */
static bool
between (dlq_pg_ckpt_column_t column, dlq_pg_ckpt_column_t first, dlq_pg_ckpt_column_t last)
{
    return column >= first && column <= last;
}

bool
dlq_pg_ckpt_sets (dlq_sink_ckpt_write_t kind, dlq_pg_ckpt_column_t column)
{
    bool always = column == DLQ_PG_CKPT_STREAM || column == DLQ_PG_CKPT_UPDATED;
    switch (kind) {
        case DLQ_SINK_CKPT_SAVE:
            return between (column, DLQ_PG_CKPT_STREAM, DLQ_PG_CKPT_UPDATED);
        case DLQ_SINK_CKPT_SEEN:
            return always || between (column, DLQ_PG_CKPT_SEEN_TOKEN, DLQ_PG_CKPT_SEEN_TS);
        case DLQ_SINK_CKPT_PROCESSED:
            return always || between (column, DLQ_PG_CKPT_PROCESSED_TOKEN, DLQ_PG_CKPT_PROCESSED_TS);
        default:
            return false;
    }
}

/* The end of the JSON string that starts at quote; *nul set when it holds
 * a \u0000 escape. */
static const char *
skip_string (const char *quote, bool *nul)
{
    const char *p = quote + 1;
    while (*p && *p != '"') {
        if (*p == '\\' && p [1] == 'u' && strncmp (p + 2, "0000", 4) == 0)
            *nul = true;
        p += *p == '\\' && p [1] ? 2 : 1;
    }
    return *p ? p + 1 : p;
}

/* The end of the number that starts at p; *wide set when NUMERIC might
 * not hold it. */
static const char *
skip_number (const char *p, bool *wide)
{
    const char *start = p, *exponent = NULL;
    while (*p && strchr ("0123456789+-.eE", *p)) {
        if (*p == 'e' || *p == 'E')
            exponent = p + 1;
        p++;
    }
    if (exponent) {
        exponent += *exponent == '+' || *exponent == '-';
        while (*exponent == '0' && exponent + 1 < p)
            exponent++;
    }
    if (p - start > NUMBER_MAX || (exponent && p - exponent > EXPONENT_MAX))
        *wide = true;
    return p;
}

bool
dlq_pg_jsonb_holds (const char *json)
{
    bool nul = false, wide = false;
    const char *p = json;
    while (*p && !nul && !wide) {
        if (*p == '"')
            p = skip_string (p, &nul);
        else if (*p == '-' || (*p >= '0' && *p <= '9'))
            p = skip_number (p, &wide);
        else
            p++;
    }
    return !nul && !wide;
}

/* The value of column in a write of record (before JSONB's check): text,
 * or a timestamp formatted into p; NULL when absent. */
static const char *
value_of (dlq_pg_ckpt_params_t *p, dlq_pg_ckpt_column_t column, const dlq_sink_checkpoint_t *r, int64_t now_ms)
{
    switch (column) {
        case DLQ_PG_CKPT_STREAM:          return r->stream_name;
        case DLQ_PG_CKPT_INSTANCE:        return r->instance_id;
        case DLQ_PG_CKPT_SEEN_TOKEN:
        case DLQ_PG_CKPT_SEEN_TEXT:       return r->last_seen_token;
        case DLQ_PG_CKPT_PROCESSED_TOKEN:
        case DLQ_PG_CKPT_PROCESSED_TEXT:  return r->last_processed_token;
        case DLQ_PG_CKPT_METADATA:
        case DLQ_PG_CKPT_METADATA_TEXT:   return r->metadata;
        case DLQ_PG_CKPT_SEEN_TS:
            if (r->last_seen_at == DLQ_SINK_TIME_NONE)
                return NULL;
            dlq_pg_format_time (r->last_seen_at, p->seen_ts);
            return p->seen_ts;
        case DLQ_PG_CKPT_PROCESSED_TS:
            if (r->last_processed_at == DLQ_SINK_TIME_NONE)
                return NULL;
            dlq_pg_format_time (r->last_processed_at, p->processed_ts);
            return p->processed_ts;
        default:
            dlq_pg_format_time (now_ms, p->updated_at);
            return p->updated_at;
    }
}

/* Is column the JSONB copy of a text? */
static bool
is_jsonb (dlq_pg_ckpt_column_t column)
{
    return column == DLQ_PG_CKPT_SEEN_TOKEN || column == DLQ_PG_CKPT_PROCESSED_TOKEN
        || column == DLQ_PG_CKPT_METADATA;
}

void
dlq_pg_ckpt_params (dlq_pg_ckpt_params_t *p, dlq_sink_ckpt_write_t kind, const dlq_sink_checkpoint_t *record,
                    int64_t now_ms)
{
    memset (p, 0, sizeof *p);
    for (int c = 0; c < DLQ_PG_CKPT_COLUMN_COUNT; c++) {
        if (!dlq_pg_ckpt_sets (kind, (dlq_pg_ckpt_column_t) c))
            continue;
        const char *v = value_of (p, (dlq_pg_ckpt_column_t) c, record, now_ms);
        if (v && is_jsonb ((dlq_pg_ckpt_column_t) c) && !dlq_pg_jsonb_holds (v))
            v = NULL;
        p->values [p->count] = v;
        p->lengths [p->count] = v ? (int) strlen (v) : 0;
        p->count++;
    }
}

/* ---- statements ------------------------------------------------------------------ */

/* The record's columns (dlq_pg_ckpt_row_t), for SELECT and RETURNING. */
static void
record_columns (dlq_buf_t *out)
{
    dlq_buf_puts (out, "stream_name, instance_id, last_seen_token_text, ");
    dlq_pg_sql_ms (out, "last_seen_ts");
    dlq_buf_puts (out, ", last_processed_token_text, ");
    dlq_pg_sql_ms (out, "last_processed_ts");
    dlq_buf_puts (out, ", metadata_text, ");
    dlq_pg_sql_ms (out, "updated_at");
}

/* "(name, ...) VALUES ($1cast, ...)" of the columns kind sets. */
static void
insert_columns (dlq_buf_t *out, dlq_sink_ckpt_write_t kind)
{
    dlq_buf_t values = DLQ_BUF_INIT;
    int n = 0;
    dlq_buf_putc (out, '(');
    for (int c = 0; c < DLQ_PG_CKPT_COLUMN_COUNT; c++) {
        if (!dlq_pg_ckpt_sets (kind, (dlq_pg_ckpt_column_t) c))
            continue;
        n++;
        dlq_buf_printf (out, "%s%s", n > 1 ? ", " : "", columns [c].name);
        dlq_buf_printf (&values, "%s$%d%s", n > 1 ? ", " : "", n, columns [c].cast);
    }
    dlq_buf_printf (out, ") VALUES (%s)", values.data ? values.data : "");
    dlq_buf_free (&values);
}

/* "name = EXCLUDED.name, ..." of the columns kind sets but the key. */
static void
update_columns (dlq_buf_t *out, dlq_sink_ckpt_write_t kind)
{
    bool first = true;
    for (int c = DLQ_PG_CKPT_STREAM + 1; c < DLQ_PG_CKPT_COLUMN_COUNT; c++) {
        if (!dlq_pg_ckpt_sets (kind, (dlq_pg_ckpt_column_t) c))
            continue;
        dlq_buf_printf (out, "%s%s = EXCLUDED.%s", first ? "" : ", ", columns [c].name, columns [c].name);
        first = false;
    }
}

void
dlq_pg_ckpt_sql_write (dlq_buf_t *out, const dlq_pg_names_t *names, dlq_sink_ckpt_write_t kind)
{
    dlq_buf_puts (out, "INSERT INTO ");
    dlq_pg_sql_qualified_ckpt (out, names);
    dlq_buf_putc (out, ' ');
    insert_columns (out, kind);
    dlq_buf_puts (out, " ON CONFLICT (stream_name) DO UPDATE SET ");
    update_columns (out, kind);
    dlq_buf_puts (out, " RETURNING ");
    record_columns (out);
}

/* "SELECT <record> FROM <checkpoint table>". */
static void
select_records (dlq_buf_t *out, const dlq_pg_names_t *names)
{
    dlq_buf_puts (out, "SELECT ");
    record_columns (out);
    dlq_buf_puts (out, " FROM ");
    dlq_pg_sql_qualified_ckpt (out, names);
}

void
dlq_pg_ckpt_sql_get (dlq_buf_t *out, const dlq_pg_names_t *names)
{
    select_records (out, names);
    dlq_buf_puts (out, " WHERE stream_name = $1");
}

void
dlq_pg_ckpt_sql_list (dlq_buf_t *out, const dlq_pg_names_t *names, bool prefix, bool after)
{
    select_records (out, names);
    int n = 1;
    if (prefix)
        dlq_buf_printf (out, " WHERE stream_name COLLATE \"C\" LIKE $%d", ++n);
    if (after)
        dlq_buf_printf (out, " %s stream_name COLLATE \"C\" > $%d", prefix ? "AND" : "WHERE", ++n);
    dlq_buf_puts (out, " ORDER BY stream_name COLLATE \"C\" LIMIT $1::int8");
}

void
dlq_pg_ckpt_sql_remove (dlq_buf_t *out, const dlq_pg_names_t *names)
{
    dlq_buf_puts (out, "DELETE FROM ");
    dlq_pg_sql_qualified_ckpt (out, names);
    dlq_buf_puts (out, " WHERE stream_name = $1 RETURNING stream_name");
}

void
dlq_pg_like_prefix (dlq_buf_t *out, const char *prefix)
{
    for (const char *p = prefix; *p; p++) {
        if (*p == '%' || *p == '_' || *p == '\\')
            dlq_buf_putc (out, '\\');
        dlq_buf_putc (out, *p);
    }
    dlq_buf_putc (out, '%');
}
