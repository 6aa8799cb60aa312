/*  pg_sql — the SQL text of the postgres sink, as pure functions of the
 *  already quoted identifiers (the sink quotes them with
 *  PQescapeIdentifier): the versioned DDL of the table, the multi-row
 *  INSERT, the queries of the store calls, the workbench's state changes
 *  and claim (the filtered queries are pg_filter's, the checkpoint calls'
 *  pg_ckpt_sql's), and the names and lock keys derived from the table's
 *  name.
 *
 *  Every value is a parameter ($n). Parameters are declared text by the
 *  sink and cast here to their column's type, so one parameter may feed two
 *  columns: the canonical body goes to payload_text as is and to payload
 *  as ::jsonb.
 *
 *  Each builder appends to out (it does not reset it).
 */
#ifndef DLQ_PG_SQL_H
#define DLQ_PG_SQL_H

#include "dlq_buf.h"
#include "dlq_sink.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The table's version this sink writes; an older table is migrated in
 * place, a newer one is an error. */
#define DLQ_PG_SCHEMA_VERSION 3

/* The table that records each DLQ table's version, in the same schema. */
#define DLQ_PG_VERSION_TABLE "dlq_schema_version"

/* Postgres' limit on an identifier, in bytes (NAMEDATALEN - 1). */
#define DLQ_PG_NAME_MAX 63

/* Room for one quoted identifier (every byte doubled, two quotes, NUL). */
#define DLQ_PG_QUOTED_MAX (2 * DLQ_PG_NAME_MAX + 3)

/* The first key of the sink's advisory locks ("dlqd"). */
#define DLQ_PG_LOCK_CLASS 0x646c7164

/* The indexes of the table. */
typedef enum {
    DLQ_PG_INDEX_STATUS = 0,        /* (status): dlq_events' idx_dlq_status */
    DLQ_PG_INDEX_STATUS_RETRY,      /* (status, retry_after): the dlq_events scheduled replay */
    DLQ_PG_INDEX_STREAM,            /* (stream_name) */
    DLQ_PG_INDEX_ERROR_TYPE,        /* (error_type): dlq_events' event_type */
    DLQ_PG_INDEX_CREATED,           /* (created_at) */
    DLQ_PG_INDEX_LIST,              /* (stream_name, created_at DESC, id DESC): LIST */
    DLQ_PG_INDEX_EXPIRES,           /* (expires_at) WHERE expires_at IS NOT NULL: the sweep */
    DLQ_PG_INDEX_STREAM_STATUS_RETRY, /* (stream_name, status, retry_after): the claim (version 2) */
    DLQ_PG_INDEX_FINGERPRINT,       /* (fingerprint, created_at DESC, id DESC): a group's LIST (version 2) */
    DLQ_PG_INDEX_COUNT
} dlq_pg_index_t;

/* The indexes version 1 creates: those before DLQ_PG_INDEX_STREAM_STATUS_RETRY. */
#define DLQ_PG_INDEX_V1_COUNT DLQ_PG_INDEX_STREAM_STATUS_RETRY

/* The suffix of the scheduler's lock table: "<table>_scheduler_lock". */
#define DLQ_PG_LOCK_TABLE_SUFFIX "scheduler_lock"

/* The suffix of the checkpoint table: "<table>_checkpoints" (version 3). */
#define DLQ_PG_CKPT_TABLE_SUFFIX "checkpoints"

/* The quoted identifiers the SQL is made of. */
typedef struct {
    char schema [DLQ_PG_QUOTED_MAX];
    char table [DLQ_PG_QUOTED_MAX];
    char index [DLQ_PG_INDEX_COUNT][DLQ_PG_QUOTED_MAX];
    char lock_table [DLQ_PG_QUOTED_MAX];    /* the scheduler's lock table, same schema */
    char ckpt_table [DLQ_PG_QUOTED_MAX];    /* the checkpoint table, same schema */
} dlq_pg_names_t;

/* The name (unquoted) of index which of table, into out (at least
 * DLQ_PG_NAME_MAX + 1 bytes): "<table>_<suffix>", or, when that would pass
 * DLQ_PG_NAME_MAX bytes, the table's name cut (at a UTF-8 character
 * boundary), "_", 8 hex digits of a hash of the whole name, "_<suffix>".
 * Distinct tables thus get distinct index names that Postgres would not
 * truncate. */
void dlq_pg_index_name (const char *table, dlq_pg_index_t which, char *out);

/* The name (unquoted) of table's scheduler lock table, into out (at least
 * DLQ_PG_NAME_MAX + 1 bytes): "<table>_scheduler_lock", shortened as index
 * names are. */
void dlq_pg_lock_table_name (const char *table, char *out);

/* The name (unquoted) of table's checkpoint table, into out (at least
 * DLQ_PG_NAME_MAX + 1 bytes): "<table>_checkpoints", shortened as index
 * names are. */
void dlq_pg_ckpt_table_name (const char *table, char *out);

/* A 32-bit key (FNV-1a) of text, for pg_advisory_xact_lock (DLQ_PG_LOCK_CLASS, key). */
int32_t dlq_pg_lock_key (const char *text);

/* "schema"."table", for a regclass parameter. */
void dlq_pg_sql_qualified (dlq_buf_t *out, const dlq_pg_names_t *names);

/* "schema"."<table>_scheduler_lock". */
void dlq_pg_sql_qualified_lock (dlq_buf_t *out, const dlq_pg_names_t *names);

/* "schema"."<table>_checkpoints". */
void dlq_pg_sql_qualified_ckpt (dlq_buf_t *out, const dlq_pg_names_t *names);

/* ---- schema setup, run in one transaction --------------------------------- */

/* SELECT pg_advisory_xact_lock (DLQ_PG_LOCK_CLASS, $1::int4). */
void dlq_pg_sql_lock (dlq_buf_t *out);

/* Whether schema $1 exists: one row when it does. */
void dlq_pg_sql_schema_exists (dlq_buf_t *out);

/* CREATE SCHEMA "schema". */
void dlq_pg_sql_create_schema (dlq_buf_t *out, const dlq_pg_names_t *names);

/* CREATE TABLE IF NOT EXISTS "schema".dlq_schema_version (...). */
void dlq_pg_sql_create_version_table (dlq_buf_t *out, const dlq_pg_names_t *names);

/* The version of table $1, one row (none when it has no version yet). */
void dlq_pg_sql_select_version (dlq_buf_t *out, const dlq_pg_names_t *names);

/* Whether the relation named $1 ("schema"."table") exists: one row, a boolean. */
void dlq_pg_sql_table_exists (dlq_buf_t *out);

/* Set the version of table $1 to $2. */
void dlq_pg_sql_set_version (dlq_buf_t *out, const dlq_pg_names_t *names);

/* Statement step (0, 1, ...) of the migration to version, each idempotent
 * (IF NOT EXISTS): 1 creates the table and its first indexes; 2 adds the
 * columns replay_count and fingerprint, widens status to VARCHAR(32) (a
 * FailedEvent's status has up to 32 characters; no rewrite), creates the
 * lock table and the workbench's indexes; 3 creates the checkpoint table
 * (its stream_name in the "C" collation: the primary key's index is in
 * byte order, for the checkpoint LIST's order, cursor and prefix). False,
 * appending nothing, when the migration has no such step. */
bool dlq_pg_sql_migration (dlq_buf_t *out, const dlq_pg_names_t *names, int version, size_t step);

/* ---- delivery ------------------------------------------------------------- */

/* Set statement_timeout to $1 (ms) for this transaction, or for the session. */
#define DLQ_PG_SQL_LOCAL_TIMEOUT "SELECT set_config('statement_timeout', $1, true)"
#define DLQ_PG_SQL_SESSION_TIMEOUT "SELECT set_config('statement_timeout', $1, false)"

/* INSERT of rows rows (>= 1): row r binds parameters
 * r * DLQ_PG_PARAM_COUNT + 1 ... (r + 1) * DLQ_PG_PARAM_COUNT, in the
 * order of dlq_pg_param_t; status is the event's, retry_after its
 * created_at; ON CONFLICT (id) DO NOTHING, so an event already there is
 * skipped (the command's row count says how many were inserted). */
void dlq_pg_sql_insert (dlq_buf_t *out, const dlq_pg_names_t *names, size_t rows);

/* ---- store calls ------------------------------------------------------------ */

/* payload_text of id $1 unless it expired at $2 (timestamptz). */
void dlq_pg_sql_get (dlq_buf_t *out, const dlq_pg_names_t *names);

/* One page of stream $1, unexpired at $2, at most $3 rows, newest first
 * (created_at DESC, id DESC): payload_text, created_at in µs since the
 * epoch, id. With after, only rows past the cursor: (created_at, id) <
 * ($4::timestamptz, $5::uuid). */
void dlq_pg_sql_list (dlq_buf_t *out, const dlq_pg_names_t *names, bool after);

/* stream_name and count per stream, expired rows included. */
void dlq_pg_sql_stats (dlq_buf_t *out, const dlq_pg_names_t *names);

/* pg_total_relation_size ($1::regclass): the table with its indexes and TOAST. */
void dlq_pg_sql_size (dlq_buf_t *out);

/* Delete at most $2 rows expired at $1 (expires_at <= $1); one row: the count. */
void dlq_pg_sql_sweep (dlq_buf_t *out, const dlq_pg_names_t *names);

/* ---- workbench: replay state and claim ---------------------------------------- */

/* An int8 of ms since the epoch for the timestamptz expression column
 * (+/-9223372036854775807 for +/-infinity, NULL for NULL). */
void dlq_pg_sql_ms (dlq_buf_t *out, const char *column);

/* The replay state of id $1 unless it expired at $2: status,
 * retry_count, replay_count, retry_after in ms. */
void dlq_pg_sql_state (dlq_buf_t *out, const dlq_pg_names_t *names);

/* The status a mark sets (SUCCEEDED, PENDING, QUARANTINED), or NULL for
 * one that leaves it (REPLAYED). */
const char *dlq_pg_mark_status (dlq_sink_mark_t mark);

/* Apply mark to id $1 unless it expired at $2, in one UPDATE (counters
 * computed by the server): status $3 (in the column and payload's
 * "status"; not for REPLAYED), retry_after $4 (FAILED, REPLAYED),
 * updated_at now(). Returns the new state as dlq_pg_sql_state, then
 * payload_text (still with the old status: dlq_pg_sql_set_text). */
void dlq_pg_sql_mark (dlq_buf_t *out, const dlq_pg_names_t *names, dlq_sink_mark_t mark);

/* payload_text of id $1 becomes $2. */
void dlq_pg_sql_set_text (dlq_buf_t *out, const dlq_pg_names_t *names);

/* Take stream $1's pass for owner $2 until $3: insert or update its lock
 * row unless another owner holds it past $4 (now). One row (the owner)
 * when taken, none when another owner holds it. */
void dlq_pg_sql_take_pass (dlq_buf_t *out, const dlq_pg_names_t *names);

/* Lease up to $4 events of stream $1 with status PENDING, retry_count <
 * $2, retry_after <= $3 (now) and unexpired at $3, oldest first, skipping
 * rows other transactions hold (FOR UPDATE SKIP LOCKED): retry_after
 * becomes $5. Rows: replay_count, payload_text, oldest first. */
void dlq_pg_sql_claim (dlq_buf_t *out, const dlq_pg_names_t *names);

#endif
