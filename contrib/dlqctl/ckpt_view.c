/*  ckpt_view — checkpoint records as JSON, labelled lines and table rows.
 */
#include "ckpt_view.h"
#include "dlqctl.h"
#include "dlq_json.h"
#include "json_view.h"

#include <stdlib.h>
#include <string.h>

/* A member of the record: its key, its label, and whether its value is
 * JSON text (a token, the metadata) rather than a string. */
typedef struct {
    const char *key;
    const char *label;
    bool        json;
} field_t;

static const field_t fields [] = {
    { "streamName",             "stream",               false },
    { "instanceId",             "instance",             false },
    { "lastSeenToken",          "last seen token",      true  },
    { "lastSeenTimestamp",      "last seen at",         false },
    { "lastProcessedToken",     "last processed token", true  },
    { "lastProcessedTimestamp", "last processed at",    false },
    { "metadata",               "metadata",             true  },
    { "updatedAt",              "updated at",           false },
};

#define FIELD_COUNT (sizeof fields / sizeof fields [0])

/* The record's values, in the order of fields. */
static void
values_of (const dlq_client_checkpoint_t *c, const char *values [FIELD_COUNT])
{
    values [0] = c->stream_name;
    values [1] = c->instance_id;
    values [2] = c->last_seen_token;
    values [3] = c->last_seen_timestamp;
    values [4] = c->last_processed_token;
    values [5] = c->last_processed_timestamp;
    values [6] = c->metadata;
    values [7] = c->updated_at;
}

void
ckpt_view_json (dlq_buf_t *out, const dlq_client_checkpoint_t *checkpoint)
{
    const char *values [FIELD_COUNT];
    values_of (checkpoint, values);
    dlq_buf_putc (out, '{');
    for (size_t i = 0; i < FIELD_COUNT; i++) {
        if (!values [i])
            continue;
        dlq_buf_printf (out, "%s\"%s\":", out->data [out->len - 1] == '{' ? "" : ",", fields [i].key);
        if (fields [i].json)
            dlq_buf_puts (out, values [i]);
        else
            dlq_json_write_string (out, values [i], strlen (values [i]));
    }
    dlq_buf_putc (out, '}');
}

void
ckpt_view_print (FILE *out, const dlq_client_checkpoint_t *checkpoint)
{
    const char *values [FIELD_COUNT];
    values_of (checkpoint, values);
    for (size_t i = 0; i < FIELD_COUNT; i++)
        fprintf (out, "%-22s%s\n", fields [i].label, values [i] ? values [i] : "-");
}

/* ---- ckpt ls ------------------------------------------------------------ */

static const table_column_t table_columns [CKPT_VIEW_COLUMNS] = {
    { "STREAM",            32, false },
    { "INSTANCE",          16, false },
    { "LAST SEEN AT",      24, false },
    { "LAST PROCESSED AT", 24, false },
    { "UPDATED AT",        24, false },
};

static const char *const table_paths [CKPT_VIEW_COLUMNS] = {
    "streamName", "instanceId", "lastSeenTimestamp", "lastProcessedTimestamp", "updatedAt"
};

void
ckpt_view_table_init (ckpt_view_table_t *table)
{
    memset (table, 0, sizeof *table);
    memcpy (table->columns, table_columns, sizeof table_columns);
}

static void
print_row (const ckpt_view_table_t *table, const dlq_json_value_t *record)
{
    dlq_buf_t text [CKPT_VIEW_COLUMNS];
    const char *cells [CKPT_VIEW_COLUMNS];
    json_view_cells (record, table_paths, CKPT_VIEW_COLUMNS, text, cells);
    table_print_row (stdout, table->columns, CKPT_VIEW_COLUMNS, cells);
    for (size_t i = 0; i < CKPT_VIEW_COLUMNS; i++)
        dlq_buf_free (&text [i]);
}

/* The page's nextCursor into *next_out (caller frees), or NULL. */
static void
next_cursor (const dlq_json_value_t *root, char **next_out)
{
    const dlq_json_value_t *next = dlq_json_get (root, "nextCursor");
    *next_out = next && next->type == DLQ_JSON_STRING ? strndup (next->str, next->len) : NULL;
}

int
ckpt_view_print_page (ckpt_view_table_t *table, const char *body, size_t len, char **next_out)
{
    *next_out = NULL;
    dlq_json_doc_t *doc = json_view_parse_reply ("CKPT.LIST", body, len);
    if (!doc)
        return DLQCTL_EXIT_NO_ANSWER;
    const dlq_json_value_t *root = dlq_json_root (doc);
    const dlq_json_value_t *records = dlq_json_get (root, "checkpoints");
    for (const dlq_json_value_t *r = records && records->type == DLQ_JSON_ARRAY ? records->child : NULL;
         r; r = r->next) {
        if (table->rows++ == 0)
            table_print_header (stdout, table->columns, CKPT_VIEW_COLUMNS);
        print_row (table, r);
    }
    next_cursor (root, next_out);
    dlq_json_doc_destroy (&doc);
    return DLQCTL_EXIT_OK;
}

int
ckpt_view_page_cursor (const char *body, size_t len, char **next_out)
{
    *next_out = NULL;
    dlq_json_doc_t *doc = json_view_parse_reply ("CKPT.LIST", body, len);
    if (!doc)
        return DLQCTL_EXIT_NO_ANSWER;
    next_cursor (dlq_json_root (doc), next_out);
    dlq_json_doc_destroy (&doc);
    return DLQCTL_EXIT_OK;
}
