/*  json_view — reading and showing gateway replies in dlqctl, on top of
 *  the project's JSON parser (core/dlq_json.h).
 *
 *  Replies parsed, field lookup by dotted path ("error.type"), a value as
 *  display text, the cells of a table row, tables of rows, and an
 *  indenting pretty-printer.
 */
#ifndef DLQ_JSON_VIEW_H
#define DLQ_JSON_VIEW_H

#include "dlq_buf.h"
#include "dlq_json.h"
#include "table.h"

#include <stddef.h>
#include <stdio.h>

/* Parse the reply body of a verb: the document (caller destroys), or
 * NULL after printing "dlqctl: PROTOCOL: ..." on stderr when it is not a
 * JSON object. */
dlq_json_doc_t *json_view_parse_reply (const char *verb, const char *body, size_t len);

/* The value at a dotted path of object members below obj ("error.type"),
 * or NULL when some step is missing or not an object. Owned by obj's
 * document. */
const dlq_json_value_t *json_view_path (const dlq_json_value_t *obj, const char *path);

/* Append a value as one line of display text: a string's own text, a
 * number's source text, true/false/null, the elements of an array of
 * strings and numbers so, separated by ", " ("orders, payments"), or
 * compact JSON for another container; fallback when v is NULL. */
void json_view_text (dlq_buf_t *out, const dlq_json_value_t *v, const char *fallback);

/* The cells of a table row made from obj: text[i] (count buffers, which
 * this initialises; free each with dlq_buf_free) receives the display
 * text of the value at paths[i] ("-" when missing), or obj's own member
 * name for a NULL path, and cells[i] points at it (NULL when empty). */
void json_view_cells (const dlq_json_value_t *obj, const char *const *paths, size_t count,
                      dlq_buf_t *text, const char **cells);

/* Print a table (table.h) with one row per child of rows (the elements
 * of an array or the members of an object, all objects), the cells made
 * by json_view_cells, the columns narrowed to fit (table_print_cells).
 * Returns the number of rows; nothing is printed, not even the header,
 * when rows is NULL or has no children. */
size_t json_view_table (FILE *out, table_column_t *columns, const char *const *paths, size_t count,
                        const dlq_json_value_t *rows);

/* Append v as indented JSON: one member or element per line, indent
 * spaces per level, "key": value with a space after the colon, empty
 * containers as {} and [], no trailing newline. */
void json_view_pretty (dlq_buf_t *out, const dlq_json_value_t *v, int indent);

#endif
