/*  pg_insert — chunks, INSERT texts and prepared statements of a delivery
 *  (see pg_insert.h).
 */
#include "pg_insert.h"

#include "dlq_alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Make text hold the INSERT of rows rows (rebuilt when it held another). */
static void
build (dlq_pg_insert_text_t *text, const dlq_pg_names_t *names, size_t rows)
{
    if (text->rows == rows)
        return;
    dlq_buf_reset (&text->sql);
    dlq_pg_sql_insert (&text->sql, names, rows);
    text->rows = rows;
}

/* The prepared slot for rows rows: the one that has them, else a free one
 * when rows is the size of the call before (it recurs). NULL otherwise. */
static dlq_pg_insert_text_t *
prepared_slot (dlq_pg_inserts_t *self, size_t rows)
{
    dlq_pg_insert_text_t *free_slot = NULL;
    for (size_t s = 0; s < DLQ_PG_PREPARED_MAX; s++) {
        if (self->prepared [s].rows == rows)
            return &self->prepared [s];
        if (!free_slot && self->prepared [s].rows == 0)
            free_slot = &self->prepared [s];
    }
    return rows == self->last_rows ? free_slot : NULL;
}

/* The text of the one-off INSERT at chunk position chunk. */
static dlq_pg_insert_text_t *
oneoff_slot (dlq_pg_inserts_t *self, size_t chunk)
{
    if (chunk >= self->chunks) {
        self->oneoff = dlq_realloc (self->oneoff, (chunk + 1) * sizeof *self->oneoff);
        for (size_t c = self->chunks; c <= chunk; c++)
            self->oneoff [c] = (dlq_pg_insert_text_t) { .rows = 0, .sql = DLQ_BUF_INIT };
        self->chunks = chunk + 1;
    }
    return &self->oneoff [chunk];
}

/* A new connection holds nothing prepared. */
static void
follow_connection (dlq_pg_inserts_t *self, uint64_t generation)
{
    if (self->generation == generation)
        return;
    for (size_t s = 0; s < DLQ_PG_PREPARED_MAX; s++)
        self->prepared [s].prepared = false;
    self->generation = generation;
}

/* The statements of one chunk (a prepare when needed, then the INSERT)
 * into stmts and steps; returns how many. */
static size_t
add_chunk (dlq_pg_inserts_t *self, const dlq_pg_names_t *names, size_t chunk, size_t rows,
           const char *const *values, const int *lengths, dlq_pg_stmt_t *stmts, dlq_pg_step_t *steps)
{
    dlq_pg_stmt_t insert = { .nparams = (int) (rows * DLQ_PG_PARAM_COUNT), .values = values, .lengths = lengths };
    dlq_pg_insert_text_t *text = prepared_slot (self, rows);
    size_t added = 0;
    if (!text) {
        text = oneoff_slot (self, chunk);
        build (text, names, rows);
        insert.sql = text->sql.data;
    } else {
        if (text->rows != rows)
            snprintf (text->name, sizeof text->name, "dlq_insert_%u_%zu", self->epoch, rows);
        build (text, names, rows);
        insert.name = text->name;
        if (!text->prepared) {
            stmts [added] = (dlq_pg_stmt_t) { .sql = text->sql.data, .nparams = insert.nparams,
                                              .name = text->name, .prepare = true };
            steps [added++] = (dlq_pg_step_t) { DLQ_PG_STEP_PREPARE, (size_t) (text - self->prepared) };
        }
    }
    stmts [added] = insert;
    steps [added++] = (dlq_pg_step_t) { DLQ_PG_STEP_INSERT, 0 };
    return added;
}

size_t
dlq_pg_inserts_add (dlq_pg_inserts_t *self, uint64_t generation, const dlq_pg_names_t *names,
                    const dlq_pg_row_t *rows, const char *const *values, const int *lengths,
                    size_t n, dlq_pg_stmt_t *stmts, dlq_pg_step_t *steps)
{
    follow_connection (self, generation);
    size_t added = 0, first_rows = 0;
    for (size_t first = 0, chunk = 0; first < n; chunk++) {
        size_t count = dlq_pg_chunk_rows (&rows [first], n - first, DLQ_PG_CHUNK_BYTES);
        const size_t at = first * DLQ_PG_PARAM_COUNT;
        added += add_chunk (self, names, chunk, count, &values [at], &lengths [at], &stmts [added], &steps [added]);
        first_rows = first_rows ? first_rows : count;
        first += count;
    }
    self->last_rows = first_rows;
    return added;
}

size_t
dlq_pg_inserts_settle (dlq_pg_inserts_t *self, const dlq_pg_step_t *steps, PGresult **results, size_t count)
{
    size_t inserted = 0;
    for (size_t i = 0; i < count; i++) {
        bool ok = results [i] && PQresultStatus (results [i]) == PGRES_COMMAND_OK;
        if (steps [i].kind == DLQ_PG_STEP_PREPARE && ok)
            self->prepared [steps [i].slot].prepared = true;
        if (steps [i].kind == DLQ_PG_STEP_INSERT && ok)
            inserted += (size_t) strtoull (PQcmdTuples (results [i]), NULL, 10);
    }
    return inserted;
}

void
dlq_pg_inserts_forget (dlq_pg_inserts_t *self)
{
    for (size_t s = 0; s < DLQ_PG_PREPARED_MAX; s++) {
        self->prepared [s].prepared = false;
        self->prepared [s].rows = 0;
    }
    self->epoch++;
}

void
dlq_pg_inserts_free (dlq_pg_inserts_t *self)
{
    for (size_t s = 0; s < DLQ_PG_PREPARED_MAX; s++)
        dlq_buf_free (&self->prepared [s].sql);
    for (size_t c = 0; c < self->chunks; c++)
        dlq_buf_free (&self->oneoff [c].sql);
    free (self->oneoff);
    memset (self, 0, sizeof *self);
}
