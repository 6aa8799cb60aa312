/*  pg_insert — the INSERT statements of a delivery: the batch cut into
 *  chunks (pg_format's limits), each chunk sent as a prepared statement
 *  when its size recurs, else as one-off SQL.
 *
 *  Parsing and planning a multi-row INSERT costs the server about as much
 *  as running it, so the INSERT of a chunk size that is seen twice in a
 *  row (a loaded gateway sends full batches) is prepared on the connection
 *  ("dlq_insert_<epoch>_<rows>") in the same pipeline as its first run,
 *  and run by name afterwards. At most DLQ_PG_PREPARED_MAX sizes are
 *  prepared per connection (no DEALLOCATE needed: the server's memory is
 *  bounded); other sizes go as SQL with parameters. A new connection
 *  prepares again; a session that does not hold what was prepared (a
 *  connection pooler in transaction mode) gets new names (the epoch).
 */
#ifndef DLQ_PG_INSERT_H
#define DLQ_PG_INSERT_H

#include "dlq_buf.h"
#include "pg_conn.h"
#include "pg_format.h"
#include "pg_sql.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Chunk sizes prepared per connection, at most. */
#define DLQ_PG_PREPARED_MAX 8

/* The most statements dlq_pg_inserts_add adds per row. */
#define DLQ_PG_INSERT_STMTS_PER_ROW 2

/* Most bytes of parameters in one INSERT (past its first row): a Bind
 * message must stay under 1 GB, and smaller ones spread the work. */
#define DLQ_PG_CHUNK_BYTES (32u << 20)

/* What a statement of a delivery's pipeline is, for settling it after. */
typedef enum {
    DLQ_PG_STEP_OTHER = 0,      /* BEGIN, COMMIT, a SAVEPOINT... */
    DLQ_PG_STEP_PREPARE,        /* prepares the INSERT of cache slot `slot` */
    DLQ_PG_STEP_INSERT          /* an INSERT: its row count is the rows inserted */
} dlq_pg_step_kind_t;

typedef struct {
    dlq_pg_step_kind_t kind;
    size_t             slot;
} dlq_pg_step_t;

/* One INSERT text, by row count. */
typedef struct {
    size_t    rows;             /* 0: unused */
    bool      prepared;         /* as name, on the connection of the owner's generation */
    char      name [48];
    dlq_buf_t sql;
} dlq_pg_insert_text_t;

/* The INSERT texts of one sink instance. */
typedef struct {
    dlq_pg_insert_text_t  prepared [DLQ_PG_PREPARED_MAX];
    dlq_pg_insert_text_t *oneoff;       /* by chunk position: the SQL of unprepared chunks */
    size_t                chunks;       /* entries in oneoff */
    uint64_t              generation;   /* the connection the prepared flags are about */
    unsigned              epoch;        /* part of the names; bumped by dlq_pg_inserts_forget */
    size_t                last_rows;    /* the first chunk's size in the previous call */
} dlq_pg_inserts_t;

/* Add the INSERT statements of the n rows (values and lengths: their
 * parameters, flat, DLQ_PG_PARAM_COUNT per row) to stmts and steps, for
 * the connection of generation; returns how many were added (at most
 * DLQ_PG_INSERT_STMTS_PER_ROW * n). The statements point into self until
 * the next call. */
size_t dlq_pg_inserts_add (dlq_pg_inserts_t *self, uint64_t generation, const dlq_pg_names_t *names,
                           const dlq_pg_row_t *rows, const char *const *values, const int *lengths,
                           size_t n, dlq_pg_stmt_t *stmts, dlq_pg_step_t *steps);

/* After the pipeline ran: note the prepares that took, and return how
 * many rows the INSERTs that succeeded inserted. */
size_t dlq_pg_inserts_settle (dlq_pg_inserts_t *self, const dlq_pg_step_t *steps, PGresult **results,
                              size_t count);

/* The session does not hold what was prepared: prepare afresh, under new names. */
void dlq_pg_inserts_forget (dlq_pg_inserts_t *self);

/* Free what self holds. */
void dlq_pg_inserts_free (dlq_pg_inserts_t *self);

#endif
