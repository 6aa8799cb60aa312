/*  replay_lineage — rewrite a canonical body with its replay lineage. The
 *  canonical bodies are written by dlq_json_write's rules, so writing the
 *  parsed members back gives their bytes unchanged.
 */
#include "replay_lineage.h"

#include "dlq_json.h"

#include <inttypes.h>
#include <string.h>

static bool
key_is (const dlq_json_value_t *m, const char *key)
{
    return m->key_len == strlen (key) && memcmp (m->key, key, m->key_len) == 0;
}

static void
write_key (dlq_buf_t *out, const dlq_json_value_t *m)
{
    dlq_json_write_string (out, m->key, m->key_len);
    dlq_buf_putc (out, ':');
}

/* The metadata object (NULL: none before) with the lineage members last. */
static void
write_metadata (dlq_buf_t *out, const dlq_json_value_t *metadata, const char *id, int64_t count)
{
    dlq_buf_putc (out, '{');
    for (const dlq_json_value_t *m = metadata ? metadata->child : NULL; m; m = m->next) {
        if (key_is (m, "replayOf") || key_is (m, "replayCount"))
            continue;
        write_key (out, m);
        dlq_json_write (out, m);
        dlq_buf_putc (out, ',');
    }
    dlq_buf_puts (out, "\"replayOf\":");
    dlq_json_write_string (out, id, strlen (id));
    dlq_buf_printf (out, ",\"replayCount\":%" PRId64 "}", count);
}

void
dlq_replay_lineage_of (const dlq_json_value_t *root, const char *id, int64_t replay_count, dlq_buf_t *out)
{
    bool seen = false;
    dlq_buf_putc (out, '{');
    for (const dlq_json_value_t *m = root->child; m; m = m->next) {
        if (m != root->child)
            dlq_buf_putc (out, ',');
        write_key (out, m);
        if (key_is (m, "metadata") && !seen) {
            write_metadata (out, m->type == DLQ_JSON_OBJECT ? m : NULL, id, replay_count);
            seen = true;
        }
        else
            dlq_json_write (out, m);
    }
    if (!seen) {
        dlq_buf_puts (out, root->child ? ",\"metadata\":" : "\"metadata\":");
        write_metadata (out, NULL, id, replay_count);
    }
    dlq_buf_putc (out, '}');
}

bool
dlq_replay_lineage (const char *json, size_t len, const char *id, int64_t replay_count, dlq_buf_t *out)
{
    dlq_json_doc_t *doc = NULL;
    if (dlq_json_parse (json, len, &doc, NULL) != DLQ_JSON_OK)
        return false;
    bool object = dlq_json_root (doc)->type == DLQ_JSON_OBJECT;
    if (object)
        dlq_replay_lineage_of (dlq_json_root (doc), id, replay_count, out);
    dlq_json_doc_destroy (&doc);
    return object;
}
