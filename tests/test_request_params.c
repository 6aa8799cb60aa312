/*  test_request_params — reading the body of every verb but PUT, as
 *  request_params.h and docs/protocol.md promise: an empty (or whitespace)
 *  body is no document when optional and EMPTY_BODY otherwise; bad UTF-8 is
 *  INVALID_UTF8 and bad JSON INVALID_JSON, both with the byte offset; a
 *  value that is not an object, or a name repeated in any object of it, is
 *  INVALID_REQUEST with field the member's path (names compared byte for
 *  byte, NULs included); no document is left on any error. Then the
 *  parameters: unknown members refused by name (filters allowed only when
 *  asked), integers in range (bounds inclusive, default when absent),
 *  booleans, strings up to a byte limit without NUL (copied, caller
 *  frees), and UUIDs (lowercased, required).
 */
#include "request_params.h"

#include "dlq_code.h"
#include "dlq_json.h"

#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A non-NULL value the functions must overwrite. */
static dlq_json_doc_t *const STALE = (dlq_json_doc_t *) &STALE;

/* Parse a string body (its strlen bytes); the code, the document in *doc_p. */
static dlq_code_t
parse (const char *body, bool optional, dlq_json_doc_t **doc_p, dlq_error_t *err)
{
    *doc_p = STALE;
    memset (err, 0, sizeof *err);
    return dlq_params_parse_body (body, strlen (body), optional, doc_p, err);
}

/* Parse body, which must be a valid request object (the test fails otherwise). */
static dlq_json_doc_t *
request (const char *body, size_t len)
{
    dlq_json_doc_t *doc = NULL;
    dlq_error_t err = { 0 };
    cr_assert_eq (dlq_params_parse_body (body, len, false, &doc, &err), DLQ_OK, "%s: %s", body, err.message);
    cr_assert_not_null (doc);
    return doc;
}

#define REQUEST(s) request (s, sizeof s - 1)

/* ---- dlq_params_parse_body ------------------------------------------- */

Test (request_params, an_empty_body_is_no_document_when_optional)
{
    dlq_json_doc_t *doc;
    dlq_error_t err;
    cr_expect_eq (parse ("", true, &doc, &err), DLQ_OK);
    cr_expect_null (doc);
    cr_expect_eq (parse (" \t\r\n ", true, &doc, &err), DLQ_OK, "only whitespace is empty too");
    cr_expect_null (doc);
}

Test (request_params, an_empty_body_is_empty_body_when_required)
{
    dlq_json_doc_t *doc;
    dlq_error_t err;
    cr_expect_eq (parse ("", false, &doc, &err), DLQ_ERR_EMPTY_BODY);
    cr_expect_eq (err.code, DLQ_ERR_EMPTY_BODY);
    cr_expect_null (doc);
    cr_expect_str_eq (err.message, "this verb needs a JSON body", "the message docs/protocol.md quotes");
    cr_expect_eq (parse ("  \n\t", false, &doc, &err), DLQ_ERR_EMPTY_BODY, "only whitespace");
    cr_expect_null (doc);
}

Test (request_params, an_object_is_a_document_whose_root_is_that_object)
{
    dlq_json_doc_t *doc;
    dlq_error_t err;
    cr_assert_eq (parse ("{\"limit\":5,\"cursor\":\"x\"}", false, &doc, &err), DLQ_OK);
    cr_assert_not_null (doc);
    const dlq_json_value_t *root = dlq_json_root (doc);
    cr_expect_eq (root->type, DLQ_JSON_OBJECT);
    cr_expect_eq (root->count, 2);
    cr_expect_not_null (dlq_json_get (root, "limit"));
    dlq_json_doc_destroy (&doc);
    cr_assert_eq (parse ("{}", true, &doc, &err), DLQ_OK, "an optional body may still be given");
    cr_expect_not_null (doc);
    dlq_json_doc_destroy (&doc);
}

Test (request_params, only_len_bytes_are_read)
{
    const char body [] = "{\"a\":1}garbage that is not JSON";
    dlq_json_doc_t *doc = STALE;
    dlq_error_t err;
    cr_assert_eq (dlq_params_parse_body (body, 7, false, &doc, &err), DLQ_OK);
    cr_expect_eq (dlq_json_root (doc)->count, 1);
    dlq_json_doc_destroy (&doc);
    cr_expect_eq (dlq_params_parse_body (body, 0, false, &doc, &err), DLQ_ERR_EMPTY_BODY, "len 0 is empty");
    cr_expect_null (doc);
}

Test (request_params, bad_utf8_is_invalid_utf8_with_its_offset)
{
    dlq_json_doc_t *doc;
    dlq_error_t err;
    cr_expect_eq (parse ("{\"a\":\"\xff\"}", false, &doc, &err), DLQ_ERR_INVALID_UTF8);
    cr_expect_null (doc);
    cr_expect (strstr (err.message, "at byte 6") != NULL, "offset of the bad byte: %s", err.message);
    cr_expect_eq (parse ("{\"a\":\"\xc0\xaf\"}", false, &doc, &err), DLQ_ERR_INVALID_UTF8, "an overlong");
    cr_expect_null (doc);
    cr_expect_eq (parse ("{\"a\":\"\xed\xa0\x80\"}", false, &doc, &err), DLQ_ERR_INVALID_UTF8, "a surrogate");
    cr_expect_null (doc);
}

Test (request_params, bad_json_is_invalid_json_with_its_offset)
{
    static const struct { const char *body; size_t offset; } cases [] = {
        { "{", 1 },
        { "{\"a\":1,}", 7 },
        { "{} {}", 3 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases [0]; i++) {
        dlq_json_doc_t *doc;
        dlq_error_t err;
        cr_expect_eq (parse (cases [i].body, false, &doc, &err), DLQ_ERR_INVALID_JSON, "%s", cases [i].body);
        cr_expect_null (doc, "%s", cases [i].body);
        char where [32];
        snprintf (where, sizeof where, "at byte %zu", cases [i].offset);
        cr_expect (strstr (err.message, where) != NULL, "%s: \"%s\" should say %s", cases [i].body,
                   err.message, where);
    }
}

Test (request_params, a_nul_byte_outside_a_string_is_invalid_json)
{
    const char body [] = "{\"a\":1}\0";
    dlq_json_doc_t *doc = STALE;
    dlq_error_t err;
    cr_expect_eq (dlq_params_parse_body (body, sizeof body - 1, false, &doc, &err), DLQ_ERR_INVALID_JSON);
    cr_expect_null (doc);
    const char inside [] = "{\"a\0\":1}";
    cr_expect_eq (dlq_params_parse_body (inside, sizeof inside - 1, false, &doc, &err), DLQ_ERR_INVALID_JSON,
                  "a raw NUL inside a string is a control character");
    cr_expect_null (doc);
}

Test (request_params, nesting_too_deep_is_refused_without_a_document)
{
    size_t depth = DLQ_JSON_MAX_DEPTH + 10;
    char *body = malloc (2 * depth + 16);
    size_t n = 0;
    body [n++] = '{';
    memcpy (body + n, "\"a\":", 4);
    n += 4;
    for (size_t i = 0; i < depth; i++)
        body [n++] = '[';
    for (size_t i = 0; i < depth; i++)
        body [n++] = ']';
    body [n++] = '}';
    dlq_json_doc_t *doc = STALE;
    dlq_error_t err;
    dlq_code_t code = dlq_params_parse_body (body, n, false, &doc, &err);
    cr_expect_eq (code, DLQ_ERR_INVALID_JSON, "got %s", dlq_code_name (code));
    cr_expect_null (doc);
    free (body);
}

Test (request_params, a_value_that_is_not_an_object_is_invalid_request)
{
    static const char *const bodies [] = { "[]", "[{}]", "null", "true", "1", "\"{}\"" };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies [0]; i++) {
        dlq_json_doc_t *doc;
        dlq_error_t err;
        cr_expect_eq (parse (bodies [i], true, &doc, &err), DLQ_ERR_INVALID_REQUEST, "%s", bodies [i]);
        cr_expect_null (doc, "%s: no document on error", bodies [i]);
        cr_expect_str_eq (err.field, "", "%s: no one member at fault", bodies [i]);
    }
}

Test (request_params, a_repeated_name_is_invalid_request_naming_its_path)
{
    static const struct { const char *body; const char *path; } cases [] = {
        { "{\"metadata\":1,\"metadata\":2}", "metadata" },
        { "{\"metadata\":{\"tenantId\":\"a\",\"tenantId\":\"b\"}}", "metadata.tenantId" },
        { "{\"fullDocument\":{\"items\":[{\"sku\":1,\"sku\":2}]}}", "fullDocument.items.0.sku" },
        { "{\"a\":[1,{\"x\":0},{\"y\":1,\"y\":1}]}", "a.2.y" },
        { "{\"limit\":1,\"cursor\":\"c\",\"limit\":1}", "limit" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases [0]; i++) {
        dlq_json_doc_t *doc;
        dlq_error_t err;
        cr_expect_eq (parse (cases [i].body, false, &doc, &err), DLQ_ERR_INVALID_REQUEST, "%s", cases [i].body);
        cr_expect_null (doc, "%s", cases [i].body);
        cr_expect_str_eq (err.field, cases [i].path, "%s", cases [i].body);
        char message [256];
        snprintf (message, sizeof message, "parameter \"%s\" appears twice", cases [i].path);
        cr_expect_str_eq (err.message, message, "%s", cases [i].body);
    }
}

Test (request_params, names_are_compared_byte_for_byte)
{
    dlq_json_doc_t *doc;
    dlq_error_t err;
    cr_expect_eq (parse ("{\"type\":1,\"type\\u0000x\":2}", false, &doc, &err), DLQ_OK,
                  "\"type\\u0000x\" is not \"type\"");
    dlq_json_doc_destroy (&doc);
    cr_expect_eq (parse ("{\"Limit\":1,\"limit\":2}", false, &doc, &err), DLQ_OK, "case matters");
    dlq_json_doc_destroy (&doc);
    cr_expect_eq (parse ("{\"a\":1,\"\\u0061\":2}", false, &doc, &err), DLQ_ERR_INVALID_REQUEST,
                  "an escape of the same name is the same name");
    cr_expect_null (doc);
    cr_expect_str_eq (err.field, "a");
}

Test (request_params, a_repeated_name_with_a_nul_is_named_with_the_nul_visible)
{
    dlq_json_doc_t *doc;
    dlq_error_t err;
    cr_expect_eq (parse ("{\"a\\u0000\":1,\"a\\u0000\":2}", false, &doc, &err), DLQ_ERR_INVALID_REQUEST);
    cr_expect_null (doc);
    cr_expect_str_eq (err.field, "a\\u0000", "never reads as \"a\"");
}

Test (request_params, a_repeat_deep_in_a_large_body_is_found)
{
    enum { MEMBERS = 20000 };
    dlq_buf_t body = DLQ_BUF_INIT;
    dlq_buf_putc (&body, '{');
    for (int i = 0; i < MEMBERS; i++)
        dlq_buf_printf (&body, "%s\"m%d\":%d", i ? "," : "", i, i);
    dlq_buf_putc (&body, '}');
    dlq_json_doc_t *doc = NULL;
    dlq_error_t err;
    cr_expect_eq (dlq_params_parse_body (body.data, body.len, false, &doc, &err), DLQ_OK, "all unique");
    cr_expect_eq (doc ? dlq_json_root (doc)->count : 0, MEMBERS);
    dlq_json_doc_destroy (&doc);
    body.len--;                                         /* drop the '}' */
    dlq_buf_puts (&body, ",\"m12345\":0}");
    cr_expect_eq (dlq_params_parse_body (body.data, body.len, false, &doc, &err), DLQ_ERR_INVALID_REQUEST);
    cr_expect_null (doc);
    cr_expect_str_eq (err.field, "m12345");
    dlq_buf_free (&body);
}

/* ---- dlq_params_check ------------------------------------------------ */

static const char *const LIST_ALLOWED [] = { "limit", "cursor", NULL };

Test (request_params, no_body_and_known_members_pass_the_check)
{
    dlq_error_t err = { 0 };
    cr_expect_eq (dlq_params_check (NULL, LIST_ALLOWED, false, &err), DLQ_OK, "no body");
    cr_expect_eq (dlq_params_check (NULL, LIST_ALLOWED, true, &err), DLQ_OK, "no body, filters");
    dlq_json_doc_t *doc = REQUEST ("{\"cursor\":\"c\",\"limit\":3}");
    cr_expect_eq (dlq_params_check (dlq_json_root (doc), LIST_ALLOWED, false, &err), DLQ_OK);
    dlq_json_doc_destroy (&doc);
    doc = REQUEST ("{}");
    static const char *const none [] = { NULL };
    cr_expect_eq (dlq_params_check (dlq_json_root (doc), none, false, &err), DLQ_OK, "{} with nothing allowed");
    dlq_json_doc_destroy (&doc);
}

Test (request_params, an_unknown_member_is_refused_by_name)
{
    dlq_json_doc_t *doc = REQUEST ("{\"limit\":3,\"limt\":4,\"bogus\":1}");
    dlq_error_t err = { 0 };
    cr_expect_eq (dlq_params_check (dlq_json_root (doc), LIST_ALLOWED, false, &err), DLQ_ERR_INVALID_REQUEST);
    cr_expect_eq (err.code, DLQ_ERR_INVALID_REQUEST);
    cr_expect_str_eq (err.field, "limt", "the first unknown member, in document order");
    cr_expect_str_eq (err.message, "unknown parameter \"limt\"");
    dlq_json_doc_destroy (&doc);
}

Test (request_params, prefixes_and_extensions_of_a_name_are_not_that_name)
{
    static const char *const bodies [] = { "{\"limi\":1}", "{\"limitx\":1}", "{\"LIMIT\":1}", "{\"\":1}",
                                           "{\"limit\\u0000\":1}" };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies [0]; i++) {
        dlq_json_doc_t *doc = request (bodies [i], strlen (bodies [i]));
        dlq_error_t err = { 0 };
        cr_expect_eq (dlq_params_check (dlq_json_root (doc), LIST_ALLOWED, false, &err), DLQ_ERR_INVALID_REQUEST,
                      "%s", bodies [i]);
        dlq_json_doc_destroy (&doc);
    }
    dlq_json_doc_t *doc = REQUEST ("{\"limit\\u0000\":1}");
    dlq_error_t err = { 0 };
    dlq_params_check (dlq_json_root (doc), LIST_ALLOWED, false, &err);
    cr_expect_str_eq (err.field, "limit\\u0000", "the NUL shows in the field, never read as \"limit\"");
    dlq_json_doc_destroy (&doc);
}

Test (request_params, filter_members_pass_only_with_filters)
{
    dlq_json_doc_t *doc = REQUEST ("{\"limit\":3,\"streamName\":\"orders\",\"status\":\"DLQ\",\"attemptsMin\":1}");
    dlq_error_t err = { 0 };
    cr_expect_eq (dlq_params_check (dlq_json_root (doc), LIST_ALLOWED, true, &err), DLQ_OK);
    cr_expect_eq (dlq_params_check (dlq_json_root (doc), LIST_ALLOWED, false, &err), DLQ_ERR_INVALID_REQUEST);
    cr_expect_str_eq (err.field, "streamName");
    dlq_json_doc_destroy (&doc);
    doc = REQUEST ("{\"streamname\":\"orders\"}");
    cr_expect_eq (dlq_params_check (dlq_json_root (doc), LIST_ALLOWED, true, &err), DLQ_ERR_INVALID_REQUEST,
                  "filters are named exactly");
    cr_expect_str_eq (err.field, "streamname");
    dlq_json_doc_destroy (&doc);
}

Test (request_params, a_long_unknown_name_stays_within_the_field)
{
    char body [2100];
    int n = snprintf (body, sizeof body, "{\"");
    for (int i = 0; i < 2000; i++)
        body [n++] = 'x';
    n += snprintf (body + n, sizeof body - (size_t) n, "\":1}");
    dlq_json_doc_t *doc = request (body, (size_t) n);
    dlq_error_t err = { 0 };
    cr_expect_eq (dlq_params_check (dlq_json_root (doc), LIST_ALLOWED, false, &err), DLQ_ERR_INVALID_REQUEST);
    size_t len = strnlen (err.field, sizeof err.field);
    cr_expect_lt (len, sizeof err.field, "NUL-terminated");
    cr_expect_leq (len, 127, "field holds at most 127 bytes");
    cr_expect_gt (len, 0);
    cr_expect (strspn (err.field, "x") == len, "a cut of the name: %s", err.field);
    dlq_json_doc_destroy (&doc);
}

/* ---- dlq_params_int -------------------------------------------------- */

Test (request_params, an_absent_integer_is_the_default)
{
    dlq_json_doc_t *doc = REQUEST ("{\"other\":1}");
    int64_t v = -1;
    dlq_error_t err = { 0 };
    cr_expect_eq (dlq_params_int (dlq_json_root (doc), "limit", 100, 1, 1000, &v, &err), DLQ_OK);
    cr_expect_eq (v, 100);
    v = -1;
    cr_expect_eq (dlq_params_int (NULL, "limit", 7, 1, 1000, &v, &err), DLQ_OK, "no body");
    cr_expect_eq (v, 7);
    dlq_json_doc_destroy (&doc);
}

Test (request_params, an_integer_in_range_is_read_bounds_included)
{
    static const struct { const char *body; int64_t value; } cases [] = {
        { "{\"limit\":1}", 1 }, { "{\"limit\":1000}", 1000 }, { "{\"limit\":500}", 500 },
        { "{\"limit\":-0}", 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases [0]; i++) {
        dlq_json_doc_t *doc = request (cases [i].body, strlen (cases [i].body));
        int64_t v = -1;
        dlq_error_t err = { 0 };
        cr_expect_eq (dlq_params_int (dlq_json_root (doc), "limit", 100, cases [i].value == 0 ? 0 : 1, 1000, &v,
                                      &err), DLQ_OK, "%s: %s", cases [i].body, err.message);
        cr_expect_eq (v, cases [i].value, "%s", cases [i].body);
        dlq_json_doc_destroy (&doc);
    }
}

Test (request_params, the_whole_int64_range_can_be_read)
{
    dlq_json_doc_t *doc = REQUEST ("{\"lo\":-9223372036854775808,\"hi\":9223372036854775807}");
    int64_t v = 0;
    dlq_error_t err = { 0 };
    cr_expect_eq (dlq_params_int (dlq_json_root (doc), "lo", 0, INT64_MIN, INT64_MAX, &v, &err), DLQ_OK);
    cr_expect_eq (v, INT64_MIN);
    cr_expect_eq (dlq_params_int (dlq_json_root (doc), "hi", 0, INT64_MIN, INT64_MAX, &v, &err), DLQ_OK);
    cr_expect_eq (v, INT64_MAX);
    dlq_json_doc_destroy (&doc);
}

Test (request_params, an_integer_out_of_range_or_ill_typed_is_refused_by_name)
{
    static const char *const bodies [] = {
        "{\"limit\":0}", "{\"limit\":1001}", "{\"limit\":-1}", "{\"limit\":1.5}", "{\"limit\":1.0}",
        "{\"limit\":1e2}", "{\"limit\":\"5\"}", "{\"limit\":true}", "{\"limit\":null}", "{\"limit\":[5]}",
        "{\"limit\":{}}", "{\"limit\":9223372036854775808}", "{\"limit\":-9223372036854775809}",
        "{\"limit\":100000000000000000000000000000}",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies [0]; i++) {
        dlq_json_doc_t *doc = request (bodies [i], strlen (bodies [i]));
        int64_t v = 0;
        dlq_error_t err = { 0 };
        cr_expect_eq (dlq_params_int (dlq_json_root (doc), "limit", 100, 1, 1000, &v, &err),
                      DLQ_ERR_INVALID_REQUEST, "%s", bodies [i]);
        cr_expect_eq (err.code, DLQ_ERR_INVALID_REQUEST);
        cr_expect_str_eq (err.field, "limit", "%s", bodies [i]);
        cr_expect_str_eq (err.message, "limit must be an integer from 1 to 1000", "%s", bodies [i]);
        dlq_json_doc_destroy (&doc);
    }
}

/* ---- dlq_params_bool ------------------------------------------------- */

Test (request_params, booleans_are_true_false_or_absent)
{
    dlq_json_doc_t *doc = REQUEST ("{\"t\":true,\"f\":false}");
    const dlq_json_value_t *root = dlq_json_root (doc);
    bool v = false;
    dlq_error_t err = { 0 };
    cr_expect_eq (dlq_params_bool (root, "t", &v, &err), DLQ_OK);
    cr_expect (v);
    cr_expect_eq (dlq_params_bool (root, "f", &v, &err), DLQ_OK);
    cr_expect_not (v);
    v = true;
    cr_expect_eq (dlq_params_bool (root, "absent", &v, &err), DLQ_OK);
    cr_expect_not (v, "false when absent");
    v = true;
    cr_expect_eq (dlq_params_bool (NULL, "t", &v, &err), DLQ_OK, "no body");
    cr_expect_not (v);
    dlq_json_doc_destroy (&doc);
}

Test (request_params, anything_but_a_boolean_is_refused_by_name)
{
    static const char *const bodies [] = { "{\"dryRun\":\"true\"}", "{\"dryRun\":1}", "{\"dryRun\":0}",
                                           "{\"dryRun\":null}", "{\"dryRun\":[true]}", "{\"dryRun\":{}}" };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies [0]; i++) {
        dlq_json_doc_t *doc = request (bodies [i], strlen (bodies [i]));
        bool v;
        dlq_error_t err = { 0 };
        cr_expect_eq (dlq_params_bool (dlq_json_root (doc), "dryRun", &v, &err), DLQ_ERR_INVALID_REQUEST,
                      "%s", bodies [i]);
        cr_expect_str_eq (err.field, "dryRun", "%s", bodies [i]);
        dlq_json_doc_destroy (&doc);
    }
}

/* ---- dlq_params_string ----------------------------------------------- */

Test (request_params, a_string_is_copied_for_the_caller)
{
    dlq_json_doc_t *doc = REQUEST ("{\"prefix\":\"ord\\u00e9rs\\n\"}");
    char *s = (char *) "stale";
    dlq_error_t err = { 0 };
    cr_assert_eq (dlq_params_string (dlq_json_root (doc), "prefix", 64, &s, &err), DLQ_OK);
    dlq_json_doc_destroy (&doc);                        /* the copy outlives the document */
    cr_assert_not_null (s);
    cr_expect_str_eq (s, "ord\xc3\xa9rs\n", "decoded");
    free (s);
}

Test (request_params, an_absent_or_null_string_is_null)
{
    dlq_json_doc_t *doc = REQUEST ("{\"prefix\":null}");
    char *s = (char *) "stale";
    dlq_error_t err = { 0 };
    cr_expect_eq (dlq_params_string (dlq_json_root (doc), "prefix", 64, &s, &err), DLQ_OK);
    cr_expect_null (s, "null");
    s = (char *) "stale";
    cr_expect_eq (dlq_params_string (dlq_json_root (doc), "cursor", 64, &s, &err), DLQ_OK);
    cr_expect_null (s, "absent");
    s = (char *) "stale";
    cr_expect_eq (dlq_params_string (NULL, "cursor", 64, &s, &err), DLQ_OK);
    cr_expect_null (s, "no body");
    dlq_json_doc_destroy (&doc);
}

Test (request_params, an_empty_string_is_an_empty_string_not_null)
{
    dlq_json_doc_t *doc = REQUEST ("{\"prefix\":\"\"}");
    char *s = NULL;
    dlq_error_t err = { 0 };
    cr_expect_eq (dlq_params_string (dlq_json_root (doc), "prefix", 64, &s, &err), DLQ_OK);
    cr_assert_not_null (s);
    cr_expect_str_eq (s, "");
    free (s);
    dlq_json_doc_destroy (&doc);
}

Test (request_params, the_string_limit_is_in_bytes_and_inclusive)
{
    /* "é" is two bytes: "aé" is 3 bytes, 2 characters */
    dlq_json_doc_t *doc = REQUEST ("{\"p\":\"a\\u00e9\"}");
    char *s = NULL;
    dlq_error_t err = { 0 };
    cr_expect_eq (dlq_params_string (dlq_json_root (doc), "p", 3, &s, &err), DLQ_OK, "3 bytes at most 3");
    cr_expect_str_eq (s ? s : "", "a\xc3\xa9");
    free (s);
    s = (char *) "stale";
    cr_expect_eq (dlq_params_string (dlq_json_root (doc), "p", 2, &s, &err), DLQ_ERR_INVALID_REQUEST,
                  "3 bytes over a limit of 2, though 2 characters");
    cr_expect_null (s, "nothing to free on error");
    cr_expect_str_eq (err.field, "p");
    dlq_json_doc_destroy (&doc);
}

Test (request_params, a_long_string_is_refused)
{
    enum { LEN = 100000 };
    dlq_buf_t body = DLQ_BUF_INIT;
    dlq_buf_puts (&body, "{\"prefix\":\"");
    for (int i = 0; i < LEN; i++)
        dlq_buf_putc (&body, 'a' + i % 26);
    dlq_buf_puts (&body, "\"}");
    dlq_json_doc_t *doc = request (body.data, body.len);
    char *s = NULL;
    dlq_error_t err = { 0 };
    cr_expect_eq (dlq_params_string (dlq_json_root (doc), "prefix", 1024, &s, &err), DLQ_ERR_INVALID_REQUEST);
    cr_expect_null (s);
    cr_expect_eq (dlq_params_string (dlq_json_root (doc), "prefix", LEN, &s, &err), DLQ_OK, "exactly the limit");
    cr_expect_eq (s ? strlen (s) : 0, LEN);
    free (s);
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&body);
}

Test (request_params, a_string_with_a_nul_is_refused)
{
    static const char *const bodies [] = { "{\"p\":\"a\\u0000b\"}", "{\"p\":\"\\u0000\"}", "{\"p\":\"ab\\u0000\"}" };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies [0]; i++) {
        dlq_json_doc_t *doc = request (bodies [i], strlen (bodies [i]));
        char *s = (char *) "stale";
        dlq_error_t err = { 0 };
        cr_expect_eq (dlq_params_string (dlq_json_root (doc), "p", 64, &s, &err), DLQ_ERR_INVALID_REQUEST,
                      "%s", bodies [i]);
        cr_expect_null (s, "%s", bodies [i]);
        cr_expect_str_eq (err.field, "p");
        dlq_json_doc_destroy (&doc);
    }
}

Test (request_params, a_string_parameter_of_another_type_is_refused)
{
    static const char *const bodies [] = { "{\"p\":1}", "{\"p\":true}", "{\"p\":[\"a\"]}", "{\"p\":{}}" };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies [0]; i++) {
        dlq_json_doc_t *doc = request (bodies [i], strlen (bodies [i]));
        char *s = (char *) "stale";
        dlq_error_t err = { 0 };
        cr_expect_eq (dlq_params_string (dlq_json_root (doc), "p", 64, &s, &err), DLQ_ERR_INVALID_REQUEST,
                      "%s", bodies [i]);
        cr_expect_null (s, "%s", bodies [i]);
        cr_expect_str_eq (err.field, "p", "%s", bodies [i]);
        dlq_json_doc_destroy (&doc);
    }
}

/* ---- dlq_params_uuid ------------------------------------------------- */

#define UUID_LOWER "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182"
#define UUID_UPPER "0190F1D2-6C4E-7A01-8B2C-3D4E5F607182"

Test (request_params, a_uuid_is_read_lowercased)
{
    dlq_json_doc_t *doc = REQUEST ("{\"id\":\"" UUID_UPPER "\",\"job\":\"" UUID_LOWER "\"}");
    char out [DLQ_UUID_LEN + 1];
    dlq_error_t err = { 0 };
    cr_expect_eq (dlq_params_uuid (dlq_json_root (doc), "id", out, &err), DLQ_OK);
    cr_expect_str_eq (out, UUID_LOWER);
    memset (out, 'x', sizeof out);
    cr_expect_eq (dlq_params_uuid (dlq_json_root (doc), "job", out, &err), DLQ_OK);
    cr_expect_str_eq (out, UUID_LOWER);
    dlq_json_doc_destroy (&doc);
}

Test (request_params, a_uuid_is_required)
{
    dlq_json_doc_t *doc = REQUEST ("{\"other\":\"" UUID_LOWER "\"}");
    char out [DLQ_UUID_LEN + 1];
    dlq_error_t err = { 0 };
    cr_expect_eq (dlq_params_uuid (dlq_json_root (doc), "id", out, &err), DLQ_ERR_INVALID_REQUEST);
    cr_expect_str_eq (err.field, "id");
    cr_expect_eq (dlq_params_uuid (NULL, "id", out, &err), DLQ_ERR_INVALID_REQUEST, "no body");
    cr_expect_str_eq (err.field, "id");
    dlq_json_doc_destroy (&doc);
}

Test (request_params, anything_but_a_uuid_string_is_refused)
{
    static const char *const bodies [] = {
        "{\"id\":null}", "{\"id\":1}", "{\"id\":[\"" UUID_LOWER "\"]}", "{\"id\":\"\"}",
        "{\"id\":\"0190f1d26c4e7a018b2c3d4e5f607182\"}",            /* no dashes */
        "{\"id\":\"{" UUID_LOWER "}\"}",                            /* braces */
        "{\"id\":\"" UUID_LOWER " \"}",                             /* trailing space */
        "{\"id\":\"" UUID_LOWER "\\u0000\"}",                       /* trailing NUL */
        "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f60718\"}",         /* one digit short */
        "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f60718g\"}",        /* not hex */
        "{\"id\":\"0190f1d2-6c4e7-a01-8b2c-3d4e5f607182\"}",        /* dash moved */
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies [0]; i++) {
        dlq_json_doc_t *doc = request (bodies [i], strlen (bodies [i]));
        char out [DLQ_UUID_LEN + 1];
        dlq_error_t err = { 0 };
        cr_expect_eq (dlq_params_uuid (dlq_json_root (doc), "id", out, &err), DLQ_ERR_INVALID_REQUEST,
                      "%s", bodies [i]);
        cr_expect_str_eq (err.field, "id", "%s", bodies [i]);
        dlq_json_doc_destroy (&doc);
    }
}

Test (request_params, errors_name_the_parameter_even_when_err_is_reused)
{
    dlq_json_doc_t *doc = REQUEST ("{\"limit\":0,\"id\":\"x\"}");
    dlq_error_t err = { 0 };
    int64_t v;
    char out [DLQ_UUID_LEN + 1];
    cr_expect_eq (dlq_params_int (dlq_json_root (doc), "limit", 1, 1, 10, &v, &err), DLQ_ERR_INVALID_REQUEST);
    cr_expect_str_eq (err.field, "limit");
    cr_expect_eq (dlq_params_uuid (dlq_json_root (doc), "id", out, &err), DLQ_ERR_INVALID_REQUEST);
    cr_expect_str_eq (err.field, "id", "the second error replaces the first");
    dlq_json_doc_destroy (&doc);
}
