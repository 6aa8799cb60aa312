/*  table — fixed-width text tables for dlqctl.
 *
 *  Columns have a width fixed up front, so rows can be printed as they
 *  arrive (page after page of `list --all`) and still line up. Cells are
 *  made to fit: control characters become spaces and text too wide is cut
 *  at a character boundary, marked with "…" (at the end, or at the start
 *  for columns whose tail matters more, such as Java exception class
 *  names). Widths count code points, not bytes. Tables whose rows are all
 *  known up front (the sinks of `stats`, the deliveries of `get`) can
 *  have their columns narrowed to what the cells need.
 */
#ifndef DLQ_TABLE_H
#define DLQ_TABLE_H

#include "dlq_buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct {
    const char *title;
    size_t      width;          /* in characters; the last column is not padded */
    bool        keep_tail;      /* cut the start rather than the end */
} table_column_t;

/* The width left for a last column after used characters of others: the
 * rest of the terminal's width (at least 20), or 60 when stdout is not a
 * terminal. */
size_t table_rest_width (size_t used);

/* Size the columns of a table whose cells are all known: rows x count
 * cells, row after row (NULL cells count as "-"). Each column but the
 * last is narrowed to its title or widest cell, its width being the most
 * it may keep; the last gets table_rest_width() of the others. */
void table_fit_columns (table_column_t *columns, size_t count, const char *const *cells, size_t rows);

/* Print a whole table whose cells are all known (rows x count, as for
 * table_fit_columns, which it applies first): the header, then the rows. */
void table_print_cells (FILE *out, table_column_t *columns, size_t count, const char *const *cells, size_t rows);

/* Append s fitted into width characters to out (no padding). */
void table_fit (dlq_buf_t *out, const char *s, size_t width, bool keep_tail);

/* Print the header line (the column titles). */
void table_print_header (FILE *out, const table_column_t *columns, size_t count);

/* Print one row of count cells (NULL cells print as "-"). */
void table_print_row (FILE *out, const table_column_t *columns, size_t count, const char *const *cells);

#endif
