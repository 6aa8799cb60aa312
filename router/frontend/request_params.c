/*  request_params — parameters of request bodies (see the header). */
#include "request_params.h"

#include "dlq_alloc.h"
#include "event_filter.h"

#include <string.h>

dlq_code_t
dlq_params_parse_body (const void *data, size_t len, bool optional, dlq_json_doc_t **doc_p, dlq_error_t *err)
{
    dlq_json_error_t jerr;
    dlq_code_t code = DLQ_OK;
    *doc_p = NULL;
    switch (len ? dlq_json_parse (data, len, doc_p, &jerr) : DLQ_JSON_ERR_EMPTY) {
        case DLQ_JSON_OK:
            break;
        case DLQ_JSON_ERR_EMPTY:
            return optional ? DLQ_OK : dlq_error_set (err, DLQ_ERR_EMPTY_BODY, NULL, "this verb needs a JSON body");
        case DLQ_JSON_ERR_UTF8:
            return dlq_error_set (err, DLQ_ERR_INVALID_UTF8, NULL, "invalid UTF-8 at byte %zu", jerr.offset);
        default:
            return dlq_error_set (err, DLQ_ERR_INVALID_JSON, NULL, "%s at byte %zu", jerr.message, jerr.offset);
    }
    const dlq_json_value_t *root = dlq_json_root (*doc_p);
    char path [128];
    if (root->type != DLQ_JSON_OBJECT)
        code = dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, NULL, "the body must be a JSON object");
    else
    if (dlq_json_find_duplicate (root, path, sizeof path))
        code = dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, path, "parameter \"%s\" appears twice", path);
    if (code != DLQ_OK)
        dlq_json_doc_destroy (doc_p);
    return code;
}

dlq_code_t
dlq_params_check (const dlq_json_value_t *root, const char *const *allowed, bool filters, dlq_error_t *err)
{
    for (const dlq_json_value_t *m = root ? root->child : NULL; m; m = m->next) {
        bool known = filters && dlq_event_filter_is_member (m->key, m->key_len);
        for (size_t i = 0; allowed [i] && !known; i++)
            known = strlen (allowed [i]) == m->key_len && memcmp (allowed [i], m->key, m->key_len) == 0;
        char name [101];
        if (!known)
            return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, dlq_json_name_text (m->key, m->key_len, name, sizeof name),
                                  "unknown parameter \"%s\"", name);
    }
    return DLQ_OK;
}

dlq_code_t
dlq_params_int (const dlq_json_value_t *root, const char *name, int64_t default_value, int64_t min,
                int64_t max, int64_t *out, dlq_error_t *err)
{
    const dlq_json_value_t *v = root ? dlq_json_get (root, name) : NULL;
    *out = default_value;
    if (v && (!dlq_json_as_int64 (v, out) || *out < min || *out > max))
        return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, name, "%s must be an integer from %lld to %lld",
                              name, (long long) min, (long long) max);
    return DLQ_OK;
}

dlq_code_t
dlq_params_bool (const dlq_json_value_t *root, const char *name, bool *out, dlq_error_t *err)
{
    const dlq_json_value_t *v = root ? dlq_json_get (root, name) : NULL;
    *out = v && v->type == DLQ_JSON_TRUE;
    if (v && v->type != DLQ_JSON_TRUE && v->type != DLQ_JSON_FALSE)
        return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, name, "%s must be true or false", name);
    return DLQ_OK;
}

dlq_code_t
dlq_params_string (const dlq_json_value_t *root, const char *name, size_t max, char **out, dlq_error_t *err)
{
    const dlq_json_value_t *v = root ? dlq_json_get (root, name) : NULL;
    *out = NULL;
    if (!v || v->type == DLQ_JSON_NULL)
        return DLQ_OK;
    if (v->type != DLQ_JSON_STRING || v->len > max || memchr (v->str, '\0', v->len))
        return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, name, "%s must be a string of at most %zu bytes "
                              "without a NUL", name, max);
    *out = dlq_strndup (v->str, v->len);
    return DLQ_OK;
}

dlq_code_t
dlq_params_uuid (const dlq_json_value_t *root, const char *name, char out [DLQ_UUID_LEN + 1], dlq_error_t *err)
{
    const dlq_json_value_t *v = root ? dlq_json_get (root, name) : NULL;
    if (!v || v->type != DLQ_JSON_STRING || !dlq_uuid_parse (v->str, v->len, out))
        return dlq_error_set (err, DLQ_ERR_INVALID_REQUEST, name, "%s must be a UUID string", name);
    return DLQ_OK;
}
