/*  json_support — a formatter's members parsed as one object (see the header). */
#include "json_support.h"

#include <criterion/criterion.h>

dlq_json_doc_t *
json_members_parse (const dlq_buf_t *members)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_buf_putc (&out, '{');
    dlq_buf_append (&out, members->data, members->len);
    dlq_buf_putc (&out, '}');
    dlq_json_doc_t *doc = NULL;
    dlq_json_error_t jerr = { 0 };
    cr_assert_eq (dlq_json_parse (out.data, out.len, &doc, &jerr), DLQ_JSON_OK, "%s at %zu: %s", jerr.message,
                  jerr.offset, out.data);
    cr_assert_null (dlq_json_find_duplicate (dlq_json_root (doc), NULL, 0), "a member twice: %s", out.data);
    dlq_buf_free (&out);
    return doc;
}
