/*  json_view — reading and showing gateway replies in dlqctl, on top of
 *  the project's JSON parser (core/dlq_json.h).
 *
 *  Field lookup by dotted path ("error.type"), a value as display text,
 *  and an indenting pretty-printer.
 */
#ifndef JSON_VIEW_H
#define JSON_VIEW_H

#include "dlq_buf.h"
#include "dlq_json.h"

#include <stddef.h>

/* The value at a dotted path of object members below obj ("error.type"),
 * or NULL when some step is missing or not an object. Owned by obj's
 * document. */
const dlq_json_value_t *json_view_path (const dlq_json_value_t *obj, const char *path);

/* Append a value as one line of display text: a string's own text, a
 * number's source text, true/false/null, or compact JSON for a container;
 * fallback when v is NULL. */
void json_view_text (dlq_buf_t *out, const dlq_json_value_t *v, const char *fallback);

/* Append v as indented JSON: one member or element per line, indent
 * spaces per level, "key": value with a space after the colon, empty
 * containers as {} and [], no trailing newline. */
void json_view_pretty (dlq_buf_t *out, const dlq_json_value_t *v, int indent);

#endif
