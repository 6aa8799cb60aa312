/*  json_view — dotted-path lookup, display text and pretty-printing of
 *  parsed JSON for dlqctl.
 */
#include "json_view.h"

#include <string.h>

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

void
json_view_text (dlq_buf_t *out, const dlq_json_value_t *v, const char *fallback)
{
    if (!v)
        dlq_buf_puts (out, fallback);
    else
    if (v->type == DLQ_JSON_STRING || v->type == DLQ_JSON_NUMBER)
        dlq_buf_append (out, v->str, v->len);
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
