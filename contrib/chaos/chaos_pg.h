/*  chaos_pg — the postgres sink's table read back at the end of a chaos
 *  run (libpq): every row's id and payload_text, and how many rows share
 *  an id with another.
 */
#ifndef DLQ_CHAOS_PG_H
#define DLQ_CHAOS_PG_H

#include <stdbool.h>
#include <stddef.h>

typedef void (chaos_pg_row_fn) (void *arg, const char *id, size_t id_len,
                                const char *payload, size_t payload_len);

/* Read every row of table (a plain name, quoted here) on conninfo,
 * calling fn for each; *rows gets how many, *duplicate_rows how many rows
 * beyond the first of their id (what SQL sees: count(*) - count(DISTINCT
 * id)). False with err. */
bool chaos_pg_read (const char *conninfo, const char *table, chaos_pg_row_fn *fn, void *arg,
                    size_t *rows, size_t *duplicate_rows, char *err, size_t err_len);

#endif
