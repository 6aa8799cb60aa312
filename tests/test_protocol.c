/*  test_protocol — the reply bodies of wire protocol version 1 as
 *  docs/protocol.md has them: an ERR body is {"code","message"[,"field"]}
 *  (field only when one field is at fault), valid UTF-8 JSON whatever the
 *  message holds (quotes, control characters, a cut multibyte character);
 *  the PUT reply {"id","duplicate"}; the PING reply {"pong":true,"version",
 *  "protocol":1,"maxMessageBytes"}. Each body is parsed back as JSON and
 *  read member by member, and appended after what the buffer holds.
 */
#include "protocol.h"

#include "dlq_buf.h"
#include "dlq_code.h"
#include "dlq_json.h"

#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Parse out (which must be one JSON object, or the test fails). */
static dlq_json_doc_t *
parse_object (const dlq_buf_t *out)
{
    dlq_json_doc_t *doc = NULL;
    dlq_json_error_t jerr = { 0 };
    cr_assert_eq (dlq_json_parse (out->data, out->len, &doc, &jerr), DLQ_JSON_OK, "not JSON (%s at %zu): %s",
                  jerr.message, jerr.offset, out->data);
    cr_assert_eq (dlq_json_root (doc)->type, DLQ_JSON_OBJECT, "%s", out->data);
    cr_assert_null (dlq_json_find_duplicate (dlq_json_root (doc), NULL, 0), "a member twice: %s", out->data);
    return doc;
}

static const dlq_json_value_t *
member (const dlq_json_doc_t *doc, const char *name, dlq_json_type_t type)
{
    const dlq_json_value_t *v = dlq_json_get (dlq_json_root (doc), name);
    cr_assert_not_null (v, "no %s", name);
    cr_assert_eq (v->type, type, "%s has type %d", name, v->type);
    return v;
}

static void
expect_string (const dlq_json_doc_t *doc, const char *name, const char *want, size_t want_len)
{
    const dlq_json_value_t *v = member (doc, name, DLQ_JSON_STRING);
    cr_expect_eq (v->len, want_len, "%s: %zu bytes, want %zu", name, v->len, want_len);
    cr_expect (v->len == want_len && memcmp (v->str, want, want_len) == 0, "%s is %.*s", name, (int) v->len, v->str);
}

/* ---- the ERR body ---------------------------------------------------- */

Test (protocol, an_error_body_has_the_code_message_and_field)
{
    dlq_error_t err;
    dlq_error_set (&err, DLQ_ERR_INVALID_EVENT, "error.type", "error.type is required (the exception class name)");
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_protocol_error_body (&out, &err);
    cr_expect_str_eq (out.data, "{\"code\":\"INVALID_EVENT\",\"message\":\"error.type is required (the exception "
                      "class name)\",\"field\":\"error.type\"}", "the example of docs/protocol.md");
    dlq_json_doc_t *doc = parse_object (&out);
    cr_expect_eq (dlq_json_root (doc)->count, 3);
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&out);
}

Test (protocol, an_error_body_has_no_field_when_none_is_at_fault)
{
    dlq_error_t err;
    dlq_error_set (&err, DLQ_ERR_EMPTY_BODY, NULL, "this verb needs a JSON body");
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_protocol_error_body (&out, &err);
    dlq_json_doc_t *doc = parse_object (&out);
    cr_expect_eq (dlq_json_root (doc)->count, 2, "code and message only: %s", out.data);
    cr_expect_null (dlq_json_get (dlq_json_root (doc), "field"));
    expect_string (doc, "code", "EMPTY_BODY", 10);
    expect_string (doc, "message", "this verb needs a JSON body", 27);
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&out);
}

Test (protocol, every_code_is_named_by_its_stable_name)
{
    for (int code = DLQ_ERR_BAD_FRAMES; code < DLQ_CODE_COUNT; code++) {
        dlq_error_t err;
        dlq_error_set (&err, (dlq_code_t) code, NULL, "m");
        dlq_buf_t out = DLQ_BUF_INIT;
        dlq_protocol_error_body (&out, &err);
        dlq_json_doc_t *doc = parse_object (&out);
        const char *name = dlq_code_name ((dlq_code_t) code);
        expect_string (doc, "code", name, strlen (name));
        dlq_json_doc_destroy (&doc);
        dlq_buf_free (&out);
    }
}

Test (protocol, quotes_backslashes_and_control_characters_are_escaped)
{
    static const char text [] = "say \"hi\" \\ tab\there\nnew line \x01 end";
    dlq_error_t err;
    dlq_error_set (&err, DLQ_ERR_INVALID_REQUEST, "a\"b\\c\n", "%s", text);
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_protocol_error_body (&out, &err);
    cr_expect_null (memchr (out.data, '\n', out.len), "no raw newline in the body");
    cr_expect_null (memchr (out.data, '\x01', out.len), "no raw control character");
    dlq_json_doc_t *doc = parse_object (&out);
    expect_string (doc, "message", text, sizeof text - 1);
    expect_string (doc, "field", "a\"b\\c\n", 6);
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&out);
}

Test (protocol, a_message_filling_its_whole_array_is_read_within_it)
{
    /* a message array with no NUL at all (e.g. copied in by memcpy):
     * the body holds at most its 256 bytes, never what follows */
    dlq_error_t err;
    memset (&err, 0, sizeof err);
    err.code = DLQ_ERR_INTERNAL;
    memset (err.message, 'm', sizeof err.message);
    memset (err.field, 'f', sizeof err.field);
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_protocol_error_body (&out, &err);
    dlq_json_doc_t *doc = parse_object (&out);
    const dlq_json_value_t *m = member (doc, "message", DLQ_JSON_STRING);
    cr_expect_leq (m->len, sizeof err.message);
    cr_expect_geq (m->len, sizeof err.message - 1);
    cr_expect_eq (strspn (m->str, "m"), m->len, "only the message's bytes");
    const dlq_json_value_t *f = member (doc, "field", DLQ_JSON_STRING);
    cr_expect_leq (f->len, sizeof err.field);
    cr_expect_eq (strspn (f->str, "f"), f->len, "only the field's bytes");
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&out);
}

Test (protocol, a_long_message_is_cut_and_stays_utf8)
{
    /* docs/protocol.md: message holds at most 255 bytes and field 127; a
     * longer one is cut there, the bytes of a character the cut splits
     * become '?', and both stay UTF-8 */
    char text [1024] = "";
    for (int i = 0; i < 300; i++)
        strcat (text, "\xc3\xa9");                  /* é, two bytes: 255 splits one */
    dlq_error_t err;
    dlq_error_set (&err, DLQ_ERR_INVALID_REQUEST, text, "%s", text);
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_protocol_error_body (&out, &err);
    cr_expect (dlq_utf8_valid (out.data, out.len, NULL), "the body is UTF-8");
    dlq_json_doc_t *doc = parse_object (&out);
    const dlq_json_value_t *m = member (doc, "message", DLQ_JSON_STRING);
    cr_expect_eq (m->len, 255, "cut at 255 bytes");
    cr_expect_eq (m->str [254], '?', "the split character's byte");
    cr_expect_eq (memcmp (m->str, text, 254), 0, "the 127 whole characters before it");
    const dlq_json_value_t *f = member (doc, "field", DLQ_JSON_STRING);
    cr_expect_eq (f->len, 127, "field cut at 127 bytes");
    cr_expect_eq (f->str [126], '?');
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&out);
}

Test (protocol, bodies_are_appended_after_what_the_buffer_holds)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_buf_puts (&out, "prefix:");
    dlq_error_t err;
    dlq_error_set (&err, DLQ_ERR_NOT_FOUND, "id", "no event");
    dlq_protocol_error_body (&out, &err);
    cr_expect (strncmp (out.data, "prefix:{", 8) == 0, "%s", out.data);
    size_t at = out.len;
    dlq_protocol_put_body (&out, "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182", false);
    dlq_protocol_ping_body (&out, 1, NULL);
    cr_expect_eq (out.data [at], '{');
    cr_expect_eq (out.len, strlen (out.data), "no NUL inside");
    dlq_buf_free (&out);
}

/* ---- the PUT reply --------------------------------------------------- */

Test (protocol, a_put_reply_has_the_id_and_whether_it_was_a_duplicate)
{
    static const char id [] = "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182";
    for (int duplicate = 0; duplicate <= 1; duplicate++) {
        dlq_buf_t out = DLQ_BUF_INIT;
        dlq_protocol_put_body (&out, id, duplicate);
        dlq_json_doc_t *doc = parse_object (&out);
        cr_expect_eq (dlq_json_root (doc)->count, 2, "%s", out.data);
        expect_string (doc, "id", id, sizeof id - 1);
        const dlq_json_value_t *d = dlq_json_get (dlq_json_root (doc), "duplicate");
        cr_assert_not_null (d);
        cr_expect_eq (d->type, duplicate ? DLQ_JSON_TRUE : DLQ_JSON_FALSE, "%s", out.data);
        dlq_json_doc_destroy (&doc);
        dlq_buf_free (&out);
    }
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_protocol_put_body (&out, id, false);
    cr_expect_str_eq (out.data, "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\",\"duplicate\":false}",
                      "the example of docs/protocol.md");
    dlq_buf_free (&out);
}

/* ---- the PING reply -------------------------------------------------- */

Test (protocol, a_ping_reply_has_the_version_protocol_and_limit)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_protocol_ping_body (&out, 1048576, NULL);
    dlq_json_doc_t *doc = parse_object (&out);
    cr_expect_eq (dlq_json_root (doc)->count, 4, "%s", out.data);
    member (doc, "pong", DLQ_JSON_TRUE);
    expect_string (doc, "version", DLQD_VERSION, strlen (DLQD_VERSION));
    int64_t n = 0;
    cr_expect (dlq_json_as_int64 (member (doc, "protocol", DLQ_JSON_NUMBER), &n));
    cr_expect_eq (n, 1);
    cr_expect_eq (n, DLQ_PROTOCOL_VERSION);
    cr_expect (dlq_json_as_int64 (member (doc, "maxMessageBytes", DLQ_JSON_NUMBER), &n));
    cr_expect_eq (n, 1048576);
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&out);
}

Test (protocol, the_ping_limit_is_exact_for_any_size)
{
    static const long long sizes [] = { 0, 1, 65536, 4294967296LL, LLONG_MAX };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes [0]; i++) {
        dlq_buf_t out = DLQ_BUF_INIT;
        dlq_protocol_ping_body (&out, sizes [i], NULL);
        dlq_json_doc_t *doc = parse_object (&out);
        int64_t n = -1;
        cr_expect (dlq_json_as_int64 (member (doc, "maxMessageBytes", DLQ_JSON_NUMBER), &n));
        cr_expect_eq (n, sizes [i], "%lld", sizes [i]);
        dlq_json_doc_destroy (&doc);
        dlq_buf_free (&out);
    }
}

Test (protocol, the_limits_are_those_of_the_docs)
{
    cr_expect_eq (DLQ_PROTOCOL_VERSION, 1);
    cr_expect_eq (DLQ_REQUEST_ID_MAX, 255, "a request id longer than 255 bytes is BAD_FRAMES");
}
