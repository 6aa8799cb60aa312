/*  body_status — the body's top-level status rewritten in place (see
 *  body_status.h). Pure: no I/O.
 */
#include "body_status.h"

#include "dlq_json.h"

#include <stdbool.h>
#include <string.h>

/* ---- scanning validated JSON text ----------------------------------------------- */

static size_t
skip_space (const char *s, size_t len, size_t i)
{
    while (i < len && (s [i] == ' ' || s [i] == '\t' || s [i] == '\n' || s [i] == '\r'))
        i++;
    return i;
}

/* Past the string that opens at s [i] (a quote). */
static size_t
skip_string (const char *s, size_t len, size_t i)
{
    for (i++; i < len; i++) {
        if (s [i] == '\\')
            i++;
        else if (s [i] == '"')
            return i + 1;
    }
    return len;
}

/* Past the array or object that opens at s [i]. */
static size_t
skip_container (const char *s, size_t len, size_t i)
{
    size_t depth = 0;
    while (i < len) {
        char c = s [i];
        if (c == '"') {
            i = skip_string (s, len, i);
            continue;
        }
        if (c == '{' || c == '[')
            depth++;
        else if ((c == '}' || c == ']') && --depth == 0)
            return i + 1;
        i++;
    }
    return len;
}

/* Past the value that starts at s [i]. */
static size_t
skip_value (const char *s, size_t len, size_t i)
{
    if (i >= len)
        return len;
    if (s [i] == '"')
        return skip_string (s, len, i);
    if (s [i] == '{' || s [i] == '[')
        return skip_container (s, len, i);
    while (i < len && !strchr (",}] \t\n\r", s [i]))
        i++;
    return i;
}

/* Where the value of the top-level member written "status" lies in the
 * object text s: [*start, *end). False when no key is written so. */
static bool
find_status (const char *s, size_t len, size_t *start, size_t *end)
{
    static const char key [] = "\"status\"";
    size_t i = skip_space (s, len, 0) + 1;         /* past '{' */
    for (;;) {
        i = skip_space (s, len, i);
        if (i >= len || s [i] != '"')
            return false;
        size_t key_at = i;
        i = skip_string (s, len, i);
        bool match = i - key_at == sizeof key - 1 && memcmp (s + key_at, key, sizeof key - 1) == 0;
        i = skip_space (s, len, skip_space (s, len, i) + 1);    /* past ':' */
        *start = i;
        i = skip_value (s, len, i);
        if (match) {
            *end = i;
            return true;
        }
        i = skip_space (s, len, i);
        if (i >= len || s [i] != ',')
            return false;
        i++;
    }
}

/* ---- rewriting ----------------------------------------------------------------- */

/* The object root written compactly with its status member set (added
 * last when it has none). */
static void
rewrite (const dlq_json_value_t *root, const char *status, dlq_buf_t *out)
{
    bool replaced = false;
    dlq_buf_putc (out, '{');
    for (const dlq_json_value_t *m = root->child; m; m = m->next) {
        if (m != root->child)
            dlq_buf_putc (out, ',');
        dlq_json_write_string (out, m->key, m->key_len);
        dlq_buf_putc (out, ':');
        bool is_status = !replaced && m->key_len == 6 && memcmp (m->key, "status", 6) == 0;
        if (is_status)
            dlq_json_write_string (out, status, strlen (status));
        else
            dlq_json_write (out, m);
        replaced = replaced || is_status;
    }
    if (!replaced) {
        dlq_buf_puts (out, root->child ? ",\"status\":" : "\"status\":");
        dlq_json_write_string (out, status, strlen (status));
    }
    dlq_buf_putc (out, '}');
}

dlq_body_status_result_t
dlq_body_set_status (const char *json, size_t len, const char *status, dlq_buf_t *out)
{
    dlq_json_doc_t *doc = NULL;
    if (dlq_json_parse (json, len, &doc, NULL) != DLQ_JSON_OK)
        return DLQ_BODY_STATUS_INVALID;
    const dlq_json_value_t *root = dlq_json_root (doc);
    dlq_body_status_result_t result = root->type == DLQ_JSON_OBJECT ? DLQ_BODY_STATUS_OK : DLQ_BODY_STATUS_INVALID;
    size_t start = 0, end = 0;
    if (result == DLQ_BODY_STATUS_OK && find_status (json, len, &start, &end)) {
        dlq_buf_append (out, json, start);
        dlq_json_write_string (out, status, strlen (status));
        dlq_buf_append (out, json + end, len - end);
    }
    else if (result == DLQ_BODY_STATUS_OK)
        rewrite (root, status, out);
    dlq_json_doc_destroy (&doc);
    return result;
}
