/*  json_view — dotted-path lookup, display text and pretty-printing of
 *  parsed JSON for dlqctl.
 */
#include "json_view.h"
#include "dlq_alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

dlq_json_doc_t *
json_view_parse_reply (const char *verb, const char *body, size_t len)
{
    dlq_json_doc_t *doc = NULL;
    dlq_json_error_t err;
    if (dlq_json_parse (body, len, &doc, &err) != DLQ_JSON_OK) {
        fprintf (stderr, "dlqctl: PROTOCOL: %s reply is not JSON: %s at byte %zu\n",
                 verb, err.message, err.offset);
        return NULL;
    }
    if (dlq_json_root (doc)->type != DLQ_JSON_OBJECT) {
        fprintf (stderr, "dlqctl: PROTOCOL: %s reply is not a JSON object\n", verb);
        dlq_json_doc_destroy (&doc);
        return NULL;
    }
    return doc;
}

const dlq_json_value_t *
json_view_path (const dlq_json_value_t *obj, const char *path)
{
    const dlq_json_value_t *v = obj;
    while (v && *path) {
        const char *dot = strchr (path, '.');
        size_t len = dot ? (size_t) (dot - path) : strlen (path);
        const dlq_json_value_t *member = NULL;
        if (v->type == DLQ_JSON_OBJECT)
            for (const dlq_json_value_t *m = v->child; m && !member; m = m->next)
                if (m->key_len == len && memcmp (m->key, path, len) == 0)
                    member = m;
        v = member;
        path += len + (dot ? 1 : 0);
    }
    return v;
}

static bool
is_text (const dlq_json_value_t *v)
{
    return v->type == DLQ_JSON_STRING || v->type == DLQ_JSON_NUMBER;
}

/* An array whose elements are all strings and numbers (and not empty). */
static bool
is_text_list (const dlq_json_value_t *v)
{
    if (v->type != DLQ_JSON_ARRAY || v->count == 0)
        return false;
    for (const dlq_json_value_t *e = v->child; e; e = e->next)
        if (!is_text (e))
            return false;
    return true;
}

void
json_view_text (dlq_buf_t *out, const dlq_json_value_t *v, const char *fallback)
{
    if (!v)
        dlq_buf_puts (out, fallback);
    else
    if (is_text (v))
        dlq_buf_append (out, v->str, v->len);
    else
    if (is_text_list (v))
        for (const dlq_json_value_t *e = v->child; e; e = e->next) {
            dlq_buf_append (out, e->str, e->len);
            dlq_buf_puts (out, e->next ? ", " : "");
        }
    else
        dlq_json_write (out, v);
}

void
json_view_cells (const dlq_json_value_t *obj, const char *const *paths, size_t count,
                 dlq_buf_t *text, const char **cells)
{
    for (size_t i = 0; i < count; i++) {
        dlq_buf_t empty = DLQ_BUF_INIT;
        text [i] = empty;
        if (paths [i])
            json_view_text (&text [i], json_view_path (obj, paths [i]), "-");
        else
        if (obj->key)
            dlq_buf_append (&text [i], obj->key, obj->key_len);
        cells [i] = text [i].data;
    }
}

size_t
json_view_table (FILE *out, table_column_t *columns, const char *const *paths, size_t count,
                 const dlq_json_value_t *rows)
{
    size_t n = rows && (rows->type == DLQ_JSON_ARRAY || rows->type == DLQ_JSON_OBJECT) ? rows->count : 0;
    if (n == 0)
        return 0;
    dlq_buf_t *text = dlq_calloc (n * count, sizeof *text);
    const char **cells = dlq_calloc (n * count, sizeof *cells);
    size_t r = 0;
    for (const dlq_json_value_t *row = rows->child; row; row = row->next, r++)
        json_view_cells (row, paths, count, text + r * count, cells + r * count);
    table_print_cells (out, columns, count, cells, n);
    for (size_t i = 0; i < n * count; i++)
        dlq_buf_free (&text [i]);
    free (text);
    free (cells);
    return n;
}

static void
newline_indent (dlq_buf_t *out, int spaces)
{
    dlq_buf_putc (out, '\n');
    for (int i = 0; i < spaces; i++)
        dlq_buf_putc (out, ' ');
}

/* Print one value at nesting level depth (recursion is bounded by the
 * parser's DLQ_JSON_MAX_DEPTH). */
static void
pretty (dlq_buf_t *out, const dlq_json_value_t *v, int indent, int depth)
{
    bool object = v->type == DLQ_JSON_OBJECT;
    if ((!object && v->type != DLQ_JSON_ARRAY) || v->count == 0) {
        dlq_json_write (out, v);
        return;
    }
    dlq_buf_putc (out, object ? '{' : '[');
    for (const dlq_json_value_t *c = v->child; c; c = c->next) {
        newline_indent (out, indent * (depth + 1));
        if (object) {
            dlq_json_write_string (out, c->key, c->key_len);
            dlq_buf_puts (out, ": ");
        }
        pretty (out, c, indent, depth + 1);
        if (c->next)
            dlq_buf_putc (out, ',');
    }
    newline_indent (out, indent * depth);
    dlq_buf_putc (out, object ? '}' : ']');
}

void
json_view_pretty (dlq_buf_t *out, const dlq_json_value_t *v, int indent)
{
    pretty (out, v, indent, 0);
}
