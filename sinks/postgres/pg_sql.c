/*  pg_sql — the SQL text of the postgres sink (see pg_sql.h). Pure: the
 *  identifiers come quoted, every value is a $n parameter.
 */
#include "pg_sql.h"

#include "pg_format.h"

#include <stdio.h>
#include <string.h>

/* ---- names and keys ---------------------------------------------------------- */

static const char *const index_suffix [DLQ_PG_INDEX_COUNT] = {
    [DLQ_PG_INDEX_STATUS]       = "status_idx",
    [DLQ_PG_INDEX_STATUS_RETRY] = "status_retry_after_idx",
    [DLQ_PG_INDEX_STREAM]       = "stream_name_idx",
    [DLQ_PG_INDEX_ERROR_TYPE]   = "error_type_idx",
    [DLQ_PG_INDEX_CREATED]      = "created_at_idx",
    [DLQ_PG_INDEX_LIST]         = "stream_created_id_idx",
    [DLQ_PG_INDEX_EXPIRES]      = "expires_at_idx",
};

/* The indexed columns (and predicate) of each index. */
static const char *const index_columns [DLQ_PG_INDEX_COUNT] = {
    [DLQ_PG_INDEX_STATUS]       = "(status)",
    [DLQ_PG_INDEX_STATUS_RETRY] = "(status, retry_after)",
    [DLQ_PG_INDEX_STREAM]       = "(stream_name)",
    [DLQ_PG_INDEX_ERROR_TYPE]   = "(error_type)",
    [DLQ_PG_INDEX_CREATED]      = "(created_at)",
    [DLQ_PG_INDEX_LIST]         = "(stream_name, created_at DESC, id DESC)",
    [DLQ_PG_INDEX_EXPIRES]      = "(expires_at) WHERE expires_at IS NOT NULL",
};

/* FNV-1a, 32 bits. */
static uint32_t
fnv1a (const char *text)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *) text; *p; p++)
        h = (h ^ *p) * 16777619u;
    return h;
}

void
dlq_pg_index_name (const char *table, dlq_pg_index_t which, char *out)
{
    const char *suffix = index_suffix [which];
    size_t len = strlen (table), suffix_len = strlen (suffix);
    char hash [12] = "_";
    if (len + 1 + suffix_len > DLQ_PG_NAME_MAX) {
        len = DLQ_PG_NAME_MAX - suffix_len - 10;    /* "_" 8 hex digits "_" */
        while (len > 0 && ((unsigned char) table [len] & 0xC0) == 0x80)
            len--;
        snprintf (hash, sizeof hash, "_%08x_", (unsigned) fnv1a (table));
    }
    size_t hash_len = strlen (hash);
    memcpy (out, table, len);
    memcpy (out + len, hash, hash_len);
    memcpy (out + len + hash_len, suffix, suffix_len + 1);
}

int32_t
dlq_pg_lock_key (const char *text)
{
    return (int32_t) fnv1a (text);
}

void
dlq_pg_sql_qualified (dlq_buf_t *out, const dlq_pg_names_t *names)
{
    dlq_buf_printf (out, "%s.%s", names->schema, names->table);
}

/* ---- schema setup --------------------------------------------------------------- */

void
dlq_pg_sql_lock (dlq_buf_t *out)
{
    dlq_buf_printf (out, "SELECT pg_advisory_xact_lock(%d, $1::int4)", DLQ_PG_LOCK_CLASS);
}

void
dlq_pg_sql_schema_exists (dlq_buf_t *out)
{
    dlq_buf_puts (out, "SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1");
}

void
dlq_pg_sql_create_schema (dlq_buf_t *out, const dlq_pg_names_t *names)
{
    dlq_buf_printf (out, "CREATE SCHEMA %s", names->schema);
}

void
dlq_pg_sql_create_version_table (dlq_buf_t *out, const dlq_pg_names_t *names)
{
    dlq_buf_printf (out, "CREATE TABLE IF NOT EXISTS %s.\"" DLQ_PG_VERSION_TABLE "\" ("
                    "table_name TEXT PRIMARY KEY, version INT NOT NULL)", names->schema);
}

void
dlq_pg_sql_select_version (dlq_buf_t *out, const dlq_pg_names_t *names)
{
    dlq_buf_printf (out, "SELECT version FROM %s.\"" DLQ_PG_VERSION_TABLE "\" WHERE table_name = $1",
                    names->schema);
}

void
dlq_pg_sql_table_exists (dlq_buf_t *out)
{
    dlq_buf_puts (out, "SELECT to_regclass($1) IS NOT NULL");
}

void
dlq_pg_sql_set_version (dlq_buf_t *out, const dlq_pg_names_t *names)
{
    dlq_buf_printf (out, "INSERT INTO %s.\"" DLQ_PG_VERSION_TABLE "\" (table_name, version) "
                    "VALUES ($1, $2::int4) ON CONFLICT (table_name) DO UPDATE SET version = EXCLUDED.version",
                    names->schema);
}

/* Version 1's table: seed 002's dlq_events with the FailedEvent's columns. */
static void
create_table_v1 (dlq_buf_t *out, const dlq_pg_names_t *names)
{
    dlq_pg_sql_qualified (out, names);
    dlq_buf_puts (out, " ("
        "id UUID PRIMARY KEY, "
        "stream_name TEXT NOT NULL, "
        "operation_type TEXT, "
        "payload JSONB NOT NULL, "
        "payload_text TEXT NOT NULL, "
        "document_key JSONB, "
        "full_document JSONB, "
        "resume_token JSONB, "
        "error_type TEXT NOT NULL, "
        "error_message TEXT, "
        "error_stacktrace TEXT, "
        "status VARCHAR(20) NOT NULL DEFAULT 'PENDING', "
        "attempts INT NOT NULL, "
        "retry_count INT NOT NULL DEFAULT 0, "
        "retry_after TIMESTAMPTZ NOT NULL DEFAULT now(), "
        "first_attempt_at TIMESTAMPTZ, "
        "last_attempt_at TIMESTAMPTZ, "
        "created_at TIMESTAMPTZ NOT NULL, "
        "updated_at TIMESTAMPTZ NOT NULL DEFAULT now(), "
        "expires_at TIMESTAMPTZ, "
        "metadata JSONB)");
}

/* Step step of version 1: the table, then each index. */
static bool
migration_v1 (dlq_buf_t *out, const dlq_pg_names_t *names, size_t step)
{
    if (step == 0) {
        dlq_buf_puts (out, "CREATE TABLE IF NOT EXISTS ");
        create_table_v1 (out, names);
        return true;
    }
    if (step > DLQ_PG_INDEX_COUNT)
        return false;
    dlq_buf_printf (out, "CREATE INDEX IF NOT EXISTS %s ON ", names->index [step - 1]);
    dlq_pg_sql_qualified (out, names);
    dlq_buf_printf (out, " %s", index_columns [step - 1]);
    return true;
}

bool
dlq_pg_sql_migration (dlq_buf_t *out, const dlq_pg_names_t *names, int version, size_t step)
{
    switch (version) {
        case 1:  return migration_v1 (out, names, step);
        default: return false;
    }
}

/* ---- delivery --------------------------------------------------------------------- */

/* One column of the INSERT: its name, the parameter it takes (or a
 * constant) and the cast of that parameter. */
typedef struct {
    const char *name;
    int         param;          /* a dlq_pg_param_t, or -1 for constant */
    const char *cast;           /* or the constant */
} insert_column_t;

static const insert_column_t insert_columns [] = {
    { "id",               DLQ_PG_PARAM_ID,               "::uuid" },
    { "stream_name",      DLQ_PG_PARAM_STREAM_NAME,      "" },
    { "operation_type",   DLQ_PG_PARAM_OPERATION_TYPE,   "" },
    { "payload",          DLQ_PG_PARAM_PAYLOAD,          "::jsonb" },
    { "payload_text",     DLQ_PG_PARAM_PAYLOAD,          "" },
    { "document_key",     DLQ_PG_PARAM_DOCUMENT_KEY,     "::jsonb" },
    { "full_document",    DLQ_PG_PARAM_FULL_DOCUMENT,    "::jsonb" },
    { "resume_token",     DLQ_PG_PARAM_RESUME_TOKEN,     "::jsonb" },
    { "error_type",       DLQ_PG_PARAM_ERROR_TYPE,       "" },
    { "error_message",    DLQ_PG_PARAM_ERROR_MESSAGE,    "" },
    { "error_stacktrace", DLQ_PG_PARAM_ERROR_STACKTRACE, "" },
    { "status",           -1,                            "'PENDING'" },
    { "attempts",         DLQ_PG_PARAM_ATTEMPTS,         "::int4" },
    { "first_attempt_at", DLQ_PG_PARAM_FIRST_ATTEMPT_AT, "::timestamptz" },
    { "last_attempt_at",  DLQ_PG_PARAM_LAST_ATTEMPT_AT,  "::timestamptz" },
    { "created_at",       DLQ_PG_PARAM_CREATED_AT,       "::timestamptz" },
    { "expires_at",       DLQ_PG_PARAM_EXPIRES_AT,       "::timestamptz" },
    { "metadata",         DLQ_PG_PARAM_METADATA,         "::jsonb" },
};

#define INSERT_COLUMNS (sizeof insert_columns / sizeof insert_columns [0])

/* The VALUES tuple of row r. */
static void
insert_tuple (dlq_buf_t *out, size_t r)
{
    size_t first = r * DLQ_PG_PARAM_COUNT + 1;
    dlq_buf_putc (out, '(');
    for (size_t c = 0; c < INSERT_COLUMNS; c++) {
        const insert_column_t *col = &insert_columns [c];
        if (c > 0)
            dlq_buf_putc (out, ',');
        if (col->param < 0)
            dlq_buf_puts (out, col->cast);
        else
            dlq_buf_printf (out, "$%zu%s", first + (size_t) col->param, col->cast);
    }
    dlq_buf_putc (out, ')');
}

void
dlq_pg_sql_insert (dlq_buf_t *out, const dlq_pg_names_t *names, size_t rows)
{
    dlq_buf_puts (out, "INSERT INTO ");
    dlq_pg_sql_qualified (out, names);
    dlq_buf_puts (out, " (");
    for (size_t c = 0; c < INSERT_COLUMNS; c++)
        dlq_buf_printf (out, "%s%s", c ? ", " : "", insert_columns [c].name);
    dlq_buf_puts (out, ") VALUES ");
    for (size_t r = 0; r < rows; r++) {
        if (r > 0)
            dlq_buf_putc (out, ',');
        insert_tuple (out, r);
    }
    dlq_buf_puts (out, " ON CONFLICT (id) DO NOTHING");
}

/* ---- store calls ------------------------------------------------------------------ */

/* The condition of a row not expired at the timestamptz parameter $n. */
static void
unexpired (dlq_buf_t *out, int n)
{
    dlq_buf_printf (out, "(expires_at IS NULL OR expires_at > $%d::timestamptz)", n);
}

void
dlq_pg_sql_get (dlq_buf_t *out, const dlq_pg_names_t *names)
{
    dlq_buf_puts (out, "SELECT payload_text FROM ");
    dlq_pg_sql_qualified (out, names);
    dlq_buf_puts (out, " WHERE id = $1::uuid AND ");
    unexpired (out, 2);
}

void
dlq_pg_sql_list (dlq_buf_t *out, const dlq_pg_names_t *names, bool after)
{
    dlq_buf_puts (out, "SELECT payload_text, (extract(epoch FROM created_at) * 1000000)::int8, id::text FROM ");
    dlq_pg_sql_qualified (out, names);
    dlq_buf_puts (out, " WHERE stream_name = $1 AND ");
    unexpired (out, 2);
    if (after)
        dlq_buf_puts (out, " AND (created_at, id) < ($4::timestamptz, $5::uuid)");
    dlq_buf_puts (out, " ORDER BY created_at DESC, id DESC LIMIT $3::int8");
}

void
dlq_pg_sql_stats (dlq_buf_t *out, const dlq_pg_names_t *names)
{
    dlq_buf_puts (out, "SELECT stream_name, count(*) FROM ");
    dlq_pg_sql_qualified (out, names);
    dlq_buf_puts (out, " GROUP BY stream_name ORDER BY stream_name");
}

void
dlq_pg_sql_size (dlq_buf_t *out)
{
    dlq_buf_puts (out, "SELECT pg_total_relation_size($1::regclass)");
}

void
dlq_pg_sql_sweep (dlq_buf_t *out, const dlq_pg_names_t *names)
{
    dlq_buf_puts (out, "WITH gone AS (DELETE FROM ");
    dlq_pg_sql_qualified (out, names);
    dlq_buf_puts (out, " WHERE id IN (SELECT id FROM ");
    dlq_pg_sql_qualified (out, names);
    dlq_buf_puts (out, " WHERE expires_at <= $1::timestamptz LIMIT $2::int8) RETURNING 1) "
                       "SELECT count(*) FROM gone");
}
