/*  table — fixed-width text tables for dlqctl.
 *
 *  Columns have a width fixed up front, so rows can be printed as they
 *  arrive (page after page of `list --all`) and still line up. Cells are
 *  made to fit: control characters become spaces and text too wide is cut
 *  at a character boundary, marked with "…" (at the end, or at the start
 *  for columns whose tail matters more, such as Java exception class
 *  names). Widths count code points, not bytes.
 */
#ifndef TABLE_H
#define TABLE_H

#include "dlq_buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct {
    const char *title;
    size_t      width;          /* in characters; the last column is not padded */
    bool        keep_tail;      /* cut the start rather than the end */
} table_column_t;

/* Append s fitted into width characters to out (no padding). */
void table_fit (dlq_buf_t *out, const char *s, size_t width, bool keep_tail);

/* Print the header line (the column titles). */
void table_print_header (FILE *out, const table_column_t *columns, size_t count);

/* Print one row of count cells (NULL cells print as "-"). */
void table_print_row (FILE *out, const table_column_t *columns, size_t count, const char *const *cells);

#endif
