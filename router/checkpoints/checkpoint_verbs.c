/*  checkpoint_verbs — CKPT.* requests (see the header). */
#include "checkpoint_verbs.h"

#include "dlq_alloc.h"
#include "dlq_log.h"
#include "dlq_time.h"
#include "request_params.h"

#include <stdlib.h>
#include <string.h>

#define LIST_LIMIT_DEFAULT 100
#define LIST_LIMIT_MAX 1000

static dlq_sink_ckpt_write_t
kind_of (dlq_verb_t verb)
{
    return verb == DLQ_VERB_CKPT_SEEN ? DLQ_SINK_CKPT_SEEN
         : verb == DLQ_VERB_CKPT_PROCESSED ? DLQ_SINK_CKPT_PROCESSED : DLQ_SINK_CKPT_SAVE;
}

/* The request's parsed root into value / remove. */
static dlq_code_t
read_root (dlq_verb_t verb, const dlq_json_value_t *root, dlq_checkpoint_t *value, bool *remove, dlq_error_t *err)
{
    *remove = verb == DLQ_VERB_CKPT_DELETE;
    if (!*remove)
        return dlq_checkpoint_parse (kind_of (verb), root, value, err);
    const char *stream = NULL;
    size_t len = 0;
    dlq_code_t code = dlq_checkpoint_parse_stream (root, &stream, &len, err);
    if (code == DLQ_OK)
        dlq_checkpoint_for_stream (value, stream, len);
    return code;
}

dlq_code_t
dlq_ckpt_read_write (dlq_verb_t verb, const void *body, size_t len, dlq_checkpoint_t *value, bool *remove,
                     dlq_error_t *err)
{
    memset (value, 0, sizeof *value);
    dlq_json_doc_t *doc = NULL;
    dlq_code_t code = dlq_params_parse_body (body, len, false, &doc, err);
    if (code == DLQ_OK)
        code = read_root (verb, dlq_json_root (doc), value, remove, err);
    dlq_json_doc_destroy (&doc);
    return code;
}

static dlq_code_t
unavailable (dlq_primary_t *primary, dlq_error_t *err)
{
    dlq_log (DLQ_LOG_ERROR, "checkpoint call failed: %s", dlq_primary_last_error (primary));
    return dlq_error_set (err, DLQ_ERR_UNAVAILABLE, NULL, "the store failed; nothing was changed, send again");
}

static dlq_code_t
do_get (dlq_primary_t *primary, dlq_checkpoint_table_t *table, const dlq_json_value_t *root, dlq_buf_t *out,
        dlq_error_t *err)
{
    const char *stream = NULL;
    size_t len = 0;
    dlq_code_t code = dlq_checkpoint_parse_stream (root, &stream, &len, err);
    if (code != DLQ_OK)
        return code;
    char *name = dlq_strndup (stream, len);
    dlq_store_result_t rc = !table ? dlq_primary_ckpt_get (primary, name, out)
                          : dlq_checkpoint_table_get (table, name, out) ? DLQ_STORE_OK : DLQ_STORE_NOT_FOUND;
    if (rc == DLQ_STORE_NOT_FOUND)
        code = dlq_error_set (err, DLQ_ERR_NOT_FOUND, "streamName", "no checkpoint for stream %s", name);
    else
    if (rc != DLQ_STORE_OK)
        code = unavailable (primary, err);
    free (name);
    return code;
}

static dlq_code_t
do_list (dlq_primary_t *primary, dlq_checkpoint_table_t *table, const dlq_json_value_t *root, dlq_buf_t *out,
         dlq_error_t *err)
{
    static const char *const allowed [] = { "limit", "cursor", "prefix", NULL };
    int64_t limit = 0;
    char *prefix = NULL, *cursor = NULL;
    dlq_code_t code = dlq_params_check (root, allowed, false, err);
    if (code == DLQ_OK)
        code = dlq_params_int (root, "limit", LIST_LIMIT_DEFAULT, 1, LIST_LIMIT_MAX, &limit, err);
    if (code == DLQ_OK)
        code = dlq_params_string (root, "prefix", DLQ_CKPT_STREAM_MAX, &prefix, err);
    if (code == DLQ_OK)
        code = dlq_params_string (root, "cursor", DLQ_CKPT_STREAM_MAX + 64, &cursor, err);
    dlq_buf_t records = DLQ_BUF_INIT, next = DLQ_BUF_INIT;
    dlq_store_result_t rc = DLQ_STORE_OK;
    if (code == DLQ_OK && table)
        dlq_checkpoint_table_list (table, prefix ? prefix : "", (size_t) limit, cursor, &records, &next);
    else
    if (code == DLQ_OK)
        rc = dlq_primary_ckpt_list (primary, prefix ? prefix : "", (size_t) limit, cursor, &records, &next);
    if (code == DLQ_OK && rc == DLQ_STORE_OK) {
        dlq_buf_puts (out, "{\"checkpoints\":");
        dlq_buf_append (out, records.data, records.len);
        if (next.len) {
            dlq_buf_puts (out, ",\"nextCursor\":");
            dlq_json_write_string (out, next.data, next.len);
        }
        dlq_buf_putc (out, '}');
    }
    else
    if (code == DLQ_OK)
        code = rc == DLQ_STORE_BAD_CURSOR
             ? dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, "cursor", "cursor is not a nextCursor of CKPT.LIST")
             : unavailable (primary, err);
    dlq_buf_free (&records);
    dlq_buf_free (&next);
    free (prefix);
    free (cursor);
    return code;
}

/* A write on a sink primary. */
static dlq_code_t
do_write (dlq_primary_t *primary, dlq_verb_t verb, const dlq_json_value_t *root, dlq_buf_t *out,
          dlq_error_t *err)
{
    dlq_checkpoint_t value = { 0 };
    bool remove = false;
    dlq_code_t code = read_root (verb, root, &value, &remove, err);
    if (code != DLQ_OK)
        return code;
    dlq_buf_t reply = DLQ_BUF_INIT;
    dlq_store_result_t rc = dlq_primary_ckpt_write (primary, &value.record, value.kind, remove,
                                                    dlq_time_now_ms (), &reply);
    if (rc == DLQ_STORE_OK)
        dlq_buf_append (out, reply.data, reply.len);
    else
        code = unavailable (primary, err);
    dlq_buf_free (&reply);
    dlq_checkpoint_clear (&value);
    return code;
}

dlq_code_t
dlq_ckpt_verbs_answer (dlq_primary_t *primary, dlq_checkpoint_table_t *table, dlq_verb_t verb,
                       const dlq_json_value_t *root, dlq_buf_t *out, dlq_error_t *err)
{
    if (!dlq_primary_checkpoints (primary))
        return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, NULL, "checkpoints need a primary that keeps them "
                              "(embedded, postgres or mongo)");
    if (verb == DLQ_VERB_CKPT_GET)
        return do_get (primary, table, root, out, err);
    if (verb == DLQ_VERB_CKPT_LIST)
        return do_list (primary, table, root, out, err);
    return do_write (primary, verb, root, out, err);
}
