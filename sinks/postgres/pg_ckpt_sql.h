/*  pg_ckpt_sql — the SQL text and the parameters of the postgres sink's
 *  checkpoint calls (dlq_sink_checkpoint_ops_t) on the table
 *  "<table>_checkpoints" of version 3 (pg_sql.h), as pure functions (no
 *  libpq).
 *
 *  Every write is one INSERT ... ON CONFLICT (stream_name) DO UPDATE:
 *      SAVE        sets every column (an absent field becomes NULL)
 *      SEEN        sets last_seen_token(_text), last_seen_ts, updated_at
 *      PROCESSED   sets last_processed_token(_text), last_processed_ts,
 *                  updated_at
 *  touching no other column, without reading the row first (a missing row
 *  is inserted with the other columns NULL), so a SEEN and a PROCESSED of
 *  one stream never undo each other however they interleave: the row lock
 *  of the upsert orders them. RETURNING gives the row after the write.
 *
 *  A token and the metadata go to two columns: the text as given (the
 *  calls answer it byte for byte) and its JSONB copy, for SQL. The copy is
 *  NULL for the rare text JSONB refuses (a \u0000 escape, a number past
 *  NUMERIC's range: dlq_pg_jsonb_holds), so such a write never fails.
 *
 *  LIST orders by stream_name in the "C" collation (byte order; the
 *  column's own collation, so the primary key's index serves it), its
 *  cursor is the name of the page's last record (keyset: the next page
 *  has the names after it), and its prefix is a LIKE pattern with LIKE's
 *  own characters escaped, which the planner turns into a range of the
 *  index.
 *
 *  Each builder appends to out (it does not reset it).
 */
#ifndef DLQ_PG_CKPT_SQL_H
#define DLQ_PG_CKPT_SQL_H

#include "dlq_buf.h"
#include "dlq_sink.h"
#include "pg_format.h"
#include "pg_sql.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The columns a write may set, in the order its statement names them. */
typedef enum {
    DLQ_PG_CKPT_STREAM = 0,
    DLQ_PG_CKPT_INSTANCE,
    DLQ_PG_CKPT_SEEN_TOKEN,         /* JSONB copy */
    DLQ_PG_CKPT_SEEN_TEXT,          /* the token as given */
    DLQ_PG_CKPT_SEEN_TS,
    DLQ_PG_CKPT_PROCESSED_TOKEN,
    DLQ_PG_CKPT_PROCESSED_TEXT,
    DLQ_PG_CKPT_PROCESSED_TS,
    DLQ_PG_CKPT_METADATA,
    DLQ_PG_CKPT_METADATA_TEXT,
    DLQ_PG_CKPT_UPDATED,
    DLQ_PG_CKPT_COLUMN_COUNT
} dlq_pg_ckpt_column_t;

/* The columns of a record as every statement returns them. */
typedef enum {
    DLQ_PG_CKPT_ROW_STREAM = 0,
    DLQ_PG_CKPT_ROW_INSTANCE,       /* NULL when absent, as the texts */
    DLQ_PG_CKPT_ROW_SEEN_TOKEN,     /* the text */
    DLQ_PG_CKPT_ROW_SEEN_MS,        /* int8 ms since the epoch, NULL when absent */
    DLQ_PG_CKPT_ROW_PROCESSED_TOKEN,
    DLQ_PG_CKPT_ROW_PROCESSED_MS,
    DLQ_PG_CKPT_ROW_METADATA,
    DLQ_PG_CKPT_ROW_UPDATED_MS,
    DLQ_PG_CKPT_ROW_COUNT
} dlq_pg_ckpt_row_t;

/* Does a write of kind set column? (SAVE: every one.) */
bool dlq_pg_ckpt_sets (dlq_sink_ckpt_write_t kind, dlq_pg_ckpt_column_t column);

/* The parameters of a write, one per column it sets, in column order:
 * values [i] NULL for SQL NULL, else lengths [i] bytes followed by a NUL.
 * They point into the record and into the struct itself (do not copy it
 * once filled). */
typedef struct {
    const char *values [DLQ_PG_CKPT_COLUMN_COUNT];
    int         lengths [DLQ_PG_CKPT_COLUMN_COUNT];
    int         count;
    char        seen_ts [DLQ_PG_TIME_LEN];
    char        processed_ts [DLQ_PG_TIME_LEN];
    char        updated_at [DLQ_PG_TIME_LEN];
} dlq_pg_ckpt_params_t;

/* Fill p for a write of kind of record, updated_at now_ms: absent fields
 * (NULL, DLQ_SINK_TIME_NONE) are NULL, the JSONB copy of a text too when
 * JSONB cannot hold it. */
void dlq_pg_ckpt_params (dlq_pg_ckpt_params_t *p, dlq_sink_ckpt_write_t kind, const dlq_sink_checkpoint_t *record,
                         int64_t now_ms);

/* True when JSONB takes the compact JSON text json as it is: no \u0000
 * escape (JSONB refuses it) and every number within NUMERIC's range (at
 * most 1000 characters, an exponent of at most 3 digits). Conservative: a
 * false answer only costs the JSONB copy. */
bool dlq_pg_jsonb_holds (const char *json);

/* The upsert of a write of kind, parameters as dlq_pg_ckpt_params gives
 * them ($1 ...), returning the record (dlq_pg_ckpt_row_t). */
void dlq_pg_ckpt_sql_write (dlq_buf_t *out, const dlq_pg_names_t *names, dlq_sink_ckpt_write_t kind);

/* The record of stream $1: one row or none. */
void dlq_pg_ckpt_sql_get (dlq_buf_t *out, const dlq_pg_names_t *names);

/* One LIST page: at most $1 records in byte order of stream_name; with
 * prefix, only names LIKE $2 (dlq_pg_like_prefix); with after, only names
 * after the next parameter (the cursor). */
void dlq_pg_ckpt_sql_list (dlq_buf_t *out, const dlq_pg_names_t *names, bool prefix, bool after);

/* Delete the record of stream $1, returning its name (no row: none). */
void dlq_pg_ckpt_sql_remove (dlq_buf_t *out, const dlq_pg_names_t *names);

/* The LIKE pattern 'prefix%' (LIKE's %, _ and \ escaped with a backslash),
 * appended to out. */
void dlq_pg_like_prefix (dlq_buf_t *out, const char *prefix);

#endif
