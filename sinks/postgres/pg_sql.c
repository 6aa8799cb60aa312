/*  pg_sql — the SQL text of the postgres sink (see pg_sql.h). Pure: the
 *  identifiers come quoted, every value is a $n parameter.
 */
#include "pg_sql.h"

#include "dlq_hash.h"
#include "pg_format.h"
#include "sink_mark.h"

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
    [DLQ_PG_INDEX_STREAM_STATUS_RETRY] = "stream_status_retry_idx",
    [DLQ_PG_INDEX_FINGERPRINT]  = "fingerprint_idx",
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
    [DLQ_PG_INDEX_STREAM_STATUS_RETRY] = "(stream_name, status, retry_after)",
    [DLQ_PG_INDEX_FINGERPRINT]  = "(fingerprint, created_at DESC, id DESC)",
};

/* "<table>_<suffix>" into out, shortened with a hash of table when longer
 * than DLQ_PG_NAME_MAX bytes (dlq_pg_index_name). */
static void
derived_name (const char *table, const char *suffix, char *out)
{
    size_t len = strlen (table), suffix_len = strlen (suffix);
    char hash [12] = "_";
    if (len + 1 + suffix_len > DLQ_PG_NAME_MAX) {
        len = DLQ_PG_NAME_MAX - suffix_len - 10;    /* "_" 8 hex digits "_" */
        while (len > 0 && ((unsigned char) table [len] & 0xC0) == 0x80)
            len--;
        snprintf (hash, sizeof hash, "_%08x_", (unsigned) dlq_hash_fnv32_str (table));
    }
    size_t hash_len = strlen (hash);
    memcpy (out, table, len);
    memcpy (out + len, hash, hash_len);
    memcpy (out + len + hash_len, suffix, suffix_len + 1);
}

void
dlq_pg_index_name (const char *table, dlq_pg_index_t which, char *out)
{
    derived_name (table, index_suffix [which], out);
}

void
dlq_pg_lock_table_name (const char *table, char *out)
{
    derived_name (table, DLQ_PG_LOCK_TABLE_SUFFIX, out);
}

void
dlq_pg_ckpt_table_name (const char *table, char *out)
{
    derived_name (table, DLQ_PG_CKPT_TABLE_SUFFIX, out);
}

int32_t
dlq_pg_lock_key (const char *text)
{
    return (int32_t) dlq_hash_fnv32_str (text);
}

void
dlq_pg_sql_qualified (dlq_buf_t *out, const dlq_pg_names_t *names)
{
    dlq_buf_printf (out, "%s.%s", names->schema, names->table);
}

void
dlq_pg_sql_qualified_lock (dlq_buf_t *out, const dlq_pg_names_t *names)
{
    dlq_buf_printf (out, "%s.%s", names->schema, names->lock_table);
}

void
dlq_pg_sql_qualified_ckpt (dlq_buf_t *out, const dlq_pg_names_t *names)
{
    dlq_buf_printf (out, "%s.%s", names->schema, names->ckpt_table);
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

/* Version 1's table: the dlq_events table with the FailedEvent's columns. */
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

/* CREATE INDEX IF NOT EXISTS of index which. */
static void
create_index (dlq_buf_t *out, const dlq_pg_names_t *names, dlq_pg_index_t which)
{
    dlq_buf_printf (out, "CREATE INDEX IF NOT EXISTS %s ON ", names->index [which]);
    dlq_pg_sql_qualified (out, names);
    dlq_buf_printf (out, " %s", index_columns [which]);
}

/* Step step of version 1: the table, then each of its indexes. */
static bool
migration_v1 (dlq_buf_t *out, const dlq_pg_names_t *names, size_t step)
{
    if (step == 0) {
        dlq_buf_puts (out, "CREATE TABLE IF NOT EXISTS ");
        create_table_v1 (out, names);
        return true;
    }
    if (step > DLQ_PG_INDEX_V1_COUNT)
        return false;
    create_index (out, names, (dlq_pg_index_t) (step - 1));
    return true;
}

/* Version 2's columns (instant: no default to compute per row; old rows
 * keep fingerprint NULL) and the wider status (no rewrite). */
static void
alter_table_v2 (dlq_buf_t *out, const dlq_pg_names_t *names)
{
    dlq_buf_puts (out, "ALTER TABLE ");
    dlq_pg_sql_qualified (out, names);
    dlq_buf_puts (out, " ADD COLUMN IF NOT EXISTS replay_count INT NOT NULL DEFAULT 0, "
                       "ADD COLUMN IF NOT EXISTS fingerprint TEXT, "
                       "ALTER COLUMN status TYPE VARCHAR(32)");
}

/* The scheduler's lock table: one row per stream whose pass was taken. */
static void
create_lock_table (dlq_buf_t *out, const dlq_pg_names_t *names)
{
    dlq_buf_puts (out, "CREATE TABLE IF NOT EXISTS ");
    dlq_pg_sql_qualified_lock (out, names);
    dlq_buf_puts (out, " (stream_name TEXT PRIMARY KEY, owner TEXT NOT NULL, locked_until TIMESTAMPTZ NOT NULL)");
}

/* Step step of version 2: the columns, the lock table, the new indexes. */
static bool
migration_v2 (dlq_buf_t *out, const dlq_pg_names_t *names, size_t step)
{
    if (step == 0)
        alter_table_v2 (out, names);
    else if (step == 1)
        create_lock_table (out, names);
    else if (step - 2 < DLQ_PG_INDEX_COUNT - DLQ_PG_INDEX_V1_COUNT)
        create_index (out, names, (dlq_pg_index_t) (DLQ_PG_INDEX_V1_COUNT + step - 2));
    else
        return false;
    return true;
}

/* Version 3's checkpoint table (the Checkpoint record of FlowWarden's
 * CheckpointStore contract): each token and the metadata as JSONB for SQL
 * and as the exact text for the calls, whose answers must show them byte
 * for byte. */
static void
create_ckpt_table (dlq_buf_t *out, const dlq_pg_names_t *names)
{
    dlq_buf_puts (out, "CREATE TABLE IF NOT EXISTS ");
    dlq_pg_sql_qualified_ckpt (out, names);
    dlq_buf_puts (out, " ("
        "stream_name TEXT COLLATE \"C\" PRIMARY KEY, "
        "instance_id TEXT, "
        "last_seen_token JSONB, "
        "last_seen_token_text TEXT, "
        "last_seen_ts TIMESTAMPTZ, "
        "last_processed_token JSONB, "
        "last_processed_token_text TEXT, "
        "last_processed_ts TIMESTAMPTZ, "
        "metadata JSONB, "
        "metadata_text TEXT, "
        "updated_at TIMESTAMPTZ NOT NULL)");
}

/* Step step of version 3: the checkpoint table. */
static bool
migration_v3 (dlq_buf_t *out, const dlq_pg_names_t *names, size_t step)
{
    if (step > 0)
        return false;
    create_ckpt_table (out, names);
    return true;
}

bool
dlq_pg_sql_migration (dlq_buf_t *out, const dlq_pg_names_t *names, int version, size_t step)
{
    switch (version) {
        case 1:  return migration_v1 (out, names, step);
        case 2:  return migration_v2 (out, names, step);
        case 3:  return migration_v3 (out, names, step);
        default: return false;
    }
}

/* ---- delivery --------------------------------------------------------------------- */

/* One column of the INSERT: its name, the parameter it takes and the
 * cast of that parameter (one parameter may feed two columns); with a
 * preferred parameter, the column takes that one when it is not NULL. */
typedef struct {
    const char     *name;
    dlq_pg_param_t  param;
    const char     *cast;
    dlq_pg_param_t  preferred;          /* 0 (the id): none */
} insert_column_t;

static const insert_column_t insert_columns [] = {
    { "id",               DLQ_PG_PARAM_ID,               "::uuid", 0 },
    { "stream_name",      DLQ_PG_PARAM_STREAM_NAME,      "", 0 },
    { "operation_type",   DLQ_PG_PARAM_OPERATION_TYPE,   "", 0 },
    { "payload",          DLQ_PG_PARAM_PAYLOAD,          "::jsonb", DLQ_PG_PARAM_PAYLOAD_JSONB },
    { "payload_text",     DLQ_PG_PARAM_PAYLOAD,          "", 0 },
    { "document_key",     DLQ_PG_PARAM_DOCUMENT_KEY,     "::jsonb", 0 },
    { "full_document",    DLQ_PG_PARAM_FULL_DOCUMENT,    "::jsonb", 0 },
    { "resume_token",     DLQ_PG_PARAM_RESUME_TOKEN,     "::jsonb", 0 },
    { "error_type",       DLQ_PG_PARAM_ERROR_TYPE,       "", 0 },
    { "error_message",    DLQ_PG_PARAM_ERROR_MESSAGE,    "", 0 },
    { "error_stacktrace", DLQ_PG_PARAM_ERROR_STACKTRACE, "", 0 },
    { "status",           DLQ_PG_PARAM_STATUS,           "", 0 },
    { "attempts",         DLQ_PG_PARAM_ATTEMPTS,         "::int4", 0 },
    { "first_attempt_at", DLQ_PG_PARAM_FIRST_ATTEMPT_AT, "::timestamptz", 0 },
    { "last_attempt_at",  DLQ_PG_PARAM_LAST_ATTEMPT_AT,  "::timestamptz", 0 },
    { "created_at",       DLQ_PG_PARAM_CREATED_AT,       "::timestamptz", 0 },
    { "expires_at",       DLQ_PG_PARAM_EXPIRES_AT,       "::timestamptz", 0 },
    { "metadata",         DLQ_PG_PARAM_METADATA,         "::jsonb", 0 },
    { "fingerprint",      DLQ_PG_PARAM_FINGERPRINT,      "", 0 },
    { "retry_after",      DLQ_PG_PARAM_CREATED_AT,       "::timestamptz", 0 },
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
        if (col->preferred)
            dlq_buf_printf (out, "coalesce($%zu::text,$%zu::text)%s", first + (size_t) col->preferred,
                            first + (size_t) col->param, col->cast);
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

/* ---- workbench: replay state and claim ------------------------------------------ */

void
dlq_pg_sql_ms (dlq_buf_t *out, const char *column)
{
    dlq_buf_printf (out, "CASE WHEN isfinite(%s) THEN floor(extract(epoch FROM %s) * 1000)::int8 "
                    "WHEN %s > 'epoch' THEN 9223372036854775807 WHEN %s < 'epoch' THEN -9223372036854775807 END",
                    column, column, column, column);
}

/* The columns of a replay state: status, retry_count, replay_count, retry_after in ms. */
static void
state_columns (dlq_buf_t *out)
{
    dlq_buf_puts (out, "status, retry_count, replay_count, ");
    dlq_pg_sql_ms (out, "retry_after");
}

void
dlq_pg_sql_state (dlq_buf_t *out, const dlq_pg_names_t *names)
{
    dlq_buf_puts (out, "SELECT ");
    state_columns (out);
    dlq_buf_puts (out, " FROM ");
    dlq_pg_sql_qualified (out, names);
    dlq_buf_puts (out, " WHERE id = $1::uuid AND ");
    unexpired (out, 2);
}

const char *
dlq_pg_mark_status (dlq_sink_mark_t mark)
{
    const dlq_sink_mark_effect_t *e = dlq_sink_mark_effect (mark);
    return e ? e->status : NULL;
}

/* The SET list of mark (without updated_at; sink_mark.h). */
static void
mark_set (dlq_buf_t *out, dlq_sink_mark_t mark)
{
    const dlq_sink_mark_effect_t *e = dlq_sink_mark_effect (mark);
    if (!e)
        return;
    if (e->status)
        dlq_buf_puts (out, "status = $3, payload = jsonb_set(payload, '{status}', to_jsonb($3::text)), ");
    if (e->retry_gain)
        dlq_buf_printf (out, "retry_count = retry_count + %d, ", (int) e->retry_gain);
    if (e->replay_gain)
        dlq_buf_printf (out, "replay_count = replay_count + %d, ", (int) e->replay_gain);
    if (e->sets_retry_after)
        dlq_buf_puts (out, "retry_after = $4::timestamptz, ");
}

void
dlq_pg_sql_mark (dlq_buf_t *out, const dlq_pg_names_t *names, dlq_sink_mark_t mark)
{
    dlq_buf_puts (out, "UPDATE ");
    dlq_pg_sql_qualified (out, names);
    dlq_buf_puts (out, " SET ");
    mark_set (out, mark);
    dlq_buf_puts (out, "updated_at = now() WHERE id = $1::uuid AND ");
    unexpired (out, 2);
    dlq_buf_puts (out, " RETURNING ");
    state_columns (out);
    dlq_buf_puts (out, ", payload_text");
}

void
dlq_pg_sql_set_text (dlq_buf_t *out, const dlq_pg_names_t *names)
{
    dlq_buf_puts (out, "UPDATE ");
    dlq_pg_sql_qualified (out, names);
    dlq_buf_puts (out, " SET payload_text = $2 WHERE id = $1::uuid");
}

void
dlq_pg_sql_take_pass (dlq_buf_t *out, const dlq_pg_names_t *names)
{
    dlq_buf_puts (out, "INSERT INTO ");
    dlq_pg_sql_qualified_lock (out, names);
    dlq_buf_puts (out, " AS l (stream_name, owner, locked_until) VALUES ($1, $2, $3::timestamptz) "
                       "ON CONFLICT (stream_name) DO UPDATE SET owner = EXCLUDED.owner, "
                       "locked_until = EXCLUDED.locked_until "
                       "WHERE l.locked_until <= $4::timestamptz OR l.owner = EXCLUDED.owner RETURNING l.owner");
}

void
dlq_pg_sql_claim (dlq_buf_t *out, const dlq_pg_names_t *names)
{
    dlq_buf_puts (out, "WITH picked AS (SELECT id FROM ");
    dlq_pg_sql_qualified (out, names);
    dlq_buf_puts (out, " WHERE stream_name = $1 AND status = 'PENDING' AND retry_count < $2::int4 "
                       "AND retry_after <= $3::timestamptz AND ");
    unexpired (out, 3);
    dlq_buf_puts (out, " ORDER BY created_at, id LIMIT $4::int8 FOR UPDATE SKIP LOCKED), "
                       "leased AS (UPDATE ");
    dlq_pg_sql_qualified (out, names);
    dlq_buf_puts (out, " AS e SET retry_after = $5::timestamptz, updated_at = now() FROM picked "
                       "WHERE e.id = picked.id RETURNING e.replay_count, e.payload_text, e.created_at, e.id) "
                       "SELECT replay_count, payload_text FROM leased ORDER BY created_at, id");
}
