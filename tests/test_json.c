/*  test_json — the strict JSON parser, UTF-8 validation and the compact writer. */
#include "dlq_json.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A literal with its exact length, so embedded NUL bytes count. */
#define LIT(s) s, sizeof (s) - 1

static const char *
result_name (dlq_json_result_t rc)
{
    switch (rc) {
    case DLQ_JSON_OK:         return "OK";
    case DLQ_JSON_ERR_EMPTY:  return "EMPTY";
    case DLQ_JSON_ERR_UTF8:   return "UTF8";
    case DLQ_JSON_ERR_SYNTAX: return "SYNTAX";
    case DLQ_JSON_ERR_DEPTH:  return "DEPTH";
    }
    return "?";
}

/* Parse, write compactly, and return the output (caller frees), or NULL. */
static char *
compact (const char *in, size_t len, size_t *out_len)
{
    dlq_json_doc_t *doc;
    if (dlq_json_parse (in, len, &doc, NULL) != DLQ_JSON_OK)
        return NULL;
    dlq_buf_t buf = DLQ_BUF_INIT;
    dlq_json_write (&buf, dlq_json_root (doc));
    dlq_json_doc_destroy (&doc);
    return dlq_buf_steal (&buf, out_len);
}

/* ---------------------------------------------------------------- valid */

typedef struct {
    const char *in;
    size_t      in_len;
    const char *out;            /* exact compact output */
    size_t      out_len;
} valid_case_t;

static const valid_case_t valid_cases [] = {
    { LIT ("null"), LIT ("null") },
    { LIT ("true"), LIT ("true") },
    { LIT ("false"), LIT ("false") },
    { LIT ("0"), LIT ("0") },
    { LIT ("-0"), LIT ("-0") },
    { LIT ("1.0"), LIT ("1.0") },
    { LIT ("1e400"), LIT ("1e400") },
    { LIT ("-1.5E+10"), LIT ("-1.5E+10") },
    { LIT ("2.5e-3"), LIT ("2.5e-3") },
    { LIT ("123456789012345678901234567890"), LIT ("123456789012345678901234567890") },
    { LIT ("\"\""), LIT ("\"\"") },
    { LIT ("[]"), LIT ("[]") },
    { LIT ("{}"), LIT ("{}") },
    { LIT (" \t\r\n[ 1 , 2 ]\n "), LIT ("[1,2]") },
    { LIT ("{ \"k\" : \"v\" , \"n\" : [ ] }"), LIT ("{\"k\":\"v\",\"n\":[]}") },
    { LIT ("{\"a\":{\"b\":[true,false,null,{}]}}"), LIT ("{\"a\":{\"b\":[true,false,null,{}]}}") },
    { LIT ("[[[]],[[]]]"), LIT ("[[[]],[[]]]") },
    { LIT ("{\"a\":1,\"a\":2}"), LIT ("{\"a\":1,\"a\":2}") },
    { LIT ("\"\\/\""), LIT ("\"/\"") },
    { LIT ("\"\\u00e9\""), LIT ("\"\xc3\xa9\"") },
    { LIT ("\"\\u0001\\u001F\\u007f\""), LIT ("\"\\u0001\\u001f\x7f\"") },
    { LIT ("\"\\b\\f\\n\\r\\t\""), LIT ("\"\\b\\f\\n\\r\\t\"") },
    { LIT ("\"\\\"\\\\\""), LIT ("\"\\\"\\\\\"") },
    { LIT ("\"\\u0000\""), LIT ("\"\\u0000\"") },
    { LIT ("\"\\ud83d\\ude00\""), LIT ("\"\xf0\x9f\x98\x80\"") },
    { LIT ("\"\xe2\x82\xac and \xf0\x9f\x98\x80\""), LIT ("\"\xe2\x82\xac and \xf0\x9f\x98\x80\"") },
    { LIT ("{\"\\u006b\\u0065y\":\"x\"}"), LIT ("{\"key\":\"x\"}") },
    { LIT ("{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\",\"streamName\":\"orders\","
           "\"attempts\":3,\"error\":{\"type\":\"Timeout\",\"message\":\"line1\\nline2\"}}"),
      LIT ("{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\",\"streamName\":\"orders\","
           "\"attempts\":3,\"error\":{\"type\":\"Timeout\",\"message\":\"line1\\nline2\"}}") },
};

Test (json, valid_corpus_writes_exact_compact_output)
{
    for (size_t i = 0; i < sizeof valid_cases / sizeof *valid_cases; i++) {
        const valid_case_t *c = &valid_cases [i];
        size_t len;
        char *out = compact (c->in, c->in_len, &len);
        cr_assert_not_null (out, "case %zu (%s) did not parse", i, c->in);
        cr_expect_eq (len, c->out_len, "case %zu: length %zu, want %zu (%s)", i, len, c->out_len, out);
        cr_expect (len == c->out_len && memcmp (out, c->out, len) == 0,
                   "case %zu: got %s, want %s", i, out, c->out);
        free (out);
    }
}

Test (json, write_is_a_fixed_point)
{
    for (size_t i = 0; i < sizeof valid_cases / sizeof *valid_cases; i++) {
        size_t len1, len2;
        char *once = compact (valid_cases [i].in, valid_cases [i].in_len, &len1);
        cr_assert_not_null (once);
        char *twice = compact (once, len1, &len2);
        cr_assert_not_null (twice, "case %zu: output %s does not parse", i, once);
        cr_expect (len1 == len2 && memcmp (once, twice, len1) == 0, "case %zu: %s -> %s", i, once, twice);
        free (once);
        free (twice);
    }
}

/* ---------------------------------------------------------------- invalid */

typedef struct {
    const char       *in;
    size_t            len;
    dlq_json_result_t rc;
    size_t            offset;
    const char       *message;  /* substring the message must contain, or NULL */
} invalid_case_t;

static const invalid_case_t invalid_cases [] = {
    /* empty */
    { LIT (""), DLQ_JSON_ERR_EMPTY, 0, NULL },
    { LIT (" \t\r\n "), DLQ_JSON_ERR_EMPTY, 5, NULL },
    /* numbers */
    { LIT ("01"), DLQ_JSON_ERR_SYNTAX, 1, "leading zero" },
    { LIT ("-01"), DLQ_JSON_ERR_SYNTAX, 2, "leading zero" },
    { LIT ("[00]"), DLQ_JSON_ERR_SYNTAX, 2, "leading zero" },
    { LIT ("-"), DLQ_JSON_ERR_SYNTAX, 1, "digit" },
    { LIT ("[-]"), DLQ_JSON_ERR_SYNTAX, 2, "digit" },
    { LIT ("1."), DLQ_JSON_ERR_SYNTAX, 2, "digit" },
    { LIT ("1.e5"), DLQ_JSON_ERR_SYNTAX, 2, "digit" },
    { LIT (".5"), DLQ_JSON_ERR_SYNTAX, 0, NULL },
    { LIT ("+1"), DLQ_JSON_ERR_SYNTAX, 0, NULL },
    { LIT ("1e"), DLQ_JSON_ERR_SYNTAX, 2, "exponent" },
    { LIT ("1e+"), DLQ_JSON_ERR_SYNTAX, 3, "exponent" },
    { LIT ("0x10"), DLQ_JSON_ERR_SYNTAX, 1, NULL },
    { LIT ("NaN"), DLQ_JSON_ERR_SYNTAX, 0, NULL },
    { LIT ("Infinity"), DLQ_JSON_ERR_SYNTAX, 0, NULL },
    { LIT ("-Infinity"), DLQ_JSON_ERR_SYNTAX, 1, NULL },
    { LIT ("[NaN]"), DLQ_JSON_ERR_SYNTAX, 1, NULL },
    /* literals */
    { LIT ("tru"), DLQ_JSON_ERR_SYNTAX, 3, "end of input" },
    { LIT ("trUe"), DLQ_JSON_ERR_SYNTAX, 2, NULL },
    { LIT ("nul"), DLQ_JSON_ERR_SYNTAX, 3, NULL },
    { LIT ("True"), DLQ_JSON_ERR_SYNTAX, 0, NULL },
    { LIT ("'a'"), DLQ_JSON_ERR_SYNTAX, 0, NULL },
    /* structure */
    { LIT ("[1,]"), DLQ_JSON_ERR_SYNTAX, 3, "trailing comma" },
    { LIT ("{\"a\":1,}"), DLQ_JSON_ERR_SYNTAX, 7, "trailing comma" },
    { LIT ("[1,,2]"), DLQ_JSON_ERR_SYNTAX, 3, NULL },
    { LIT ("[,1]"), DLQ_JSON_ERR_SYNTAX, 1, NULL },
    { LIT ("[1 2]"), DLQ_JSON_ERR_SYNTAX, 3, "expected ',' or ']'" },
    { LIT ("{\"a\":1 \"b\":2}"), DLQ_JSON_ERR_SYNTAX, 7, "expected ',' or '}'" },
    { LIT ("{\"a\" 1}"), DLQ_JSON_ERR_SYNTAX, 5, "expected ':' after object key" },
    { LIT ("{\"a\"}"), DLQ_JSON_ERR_SYNTAX, 4, "expected ':' after object key" },
    { LIT ("{\"a\":}"), DLQ_JSON_ERR_SYNTAX, 5, "expected a value" },
    { LIT ("{1:2}"), DLQ_JSON_ERR_SYNTAX, 1, "object key" },
    { LIT ("{,}"), DLQ_JSON_ERR_SYNTAX, 1, "object key" },
    { LIT ("[1,2"), DLQ_JSON_ERR_SYNTAX, 4, "end of input" },
    { LIT ("{\"a\":1"), DLQ_JSON_ERR_SYNTAX, 6, "end of input" },
    { LIT ("["), DLQ_JSON_ERR_SYNTAX, 1, "end of input" },
    { LIT ("{"), DLQ_JSON_ERR_SYNTAX, 1, NULL },
    { LIT ("]"), DLQ_JSON_ERR_SYNTAX, 0, NULL },
    { LIT ("[]]"), DLQ_JSON_ERR_SYNTAX, 2, "end of input" },
    { LIT ("[1]x"), DLQ_JSON_ERR_SYNTAX, 3, NULL },
    { LIT ("1 2"), DLQ_JSON_ERR_SYNTAX, 2, NULL },
    { LIT ("{} {}"), DLQ_JSON_ERR_SYNTAX, 3, NULL },
    { LIT ("[1;2]"), DLQ_JSON_ERR_SYNTAX, 2, NULL },
    /* comments */
    { LIT ("// c\n1"), DLQ_JSON_ERR_SYNTAX, 0, NULL },
    { LIT ("/* c */ 1"), DLQ_JSON_ERR_SYNTAX, 0, NULL },
    { LIT ("[1] // c"), DLQ_JSON_ERR_SYNTAX, 4, NULL },
    { LIT ("# c\n1"), DLQ_JSON_ERR_SYNTAX, 0, NULL },
    /* strings */
    { LIT ("\"abc"), DLQ_JSON_ERR_SYNTAX, 0, "unterminated string" },
    { LIT ("[\"abc\\\"]"), DLQ_JSON_ERR_SYNTAX, 1, "unterminated string" },
    { LIT ("\"abc\\"), DLQ_JSON_ERR_SYNTAX, 0, "unterminated string" },
    { LIT ("\"a\tb\""), DLQ_JSON_ERR_SYNTAX, 2, "control character" },
    { LIT ("\"a\nb\""), DLQ_JSON_ERR_SYNTAX, 2, "control character" },
    { LIT ("\"a\x01\""), DLQ_JSON_ERR_SYNTAX, 2, "control character" },
    { LIT ("\"\x1f\""), DLQ_JSON_ERR_SYNTAX, 1, "control character" },
    { LIT ("\"\\x41\""), DLQ_JSON_ERR_SYNTAX, 1, "escape" },
    { LIT ("\"\\\xc3\xa9\""), DLQ_JSON_ERR_SYNTAX, 1, "escape" },
    { LIT ("\"\\u12\""), DLQ_JSON_ERR_SYNTAX, 1, "hex" },
    { LIT ("\"\\uZZZZ\""), DLQ_JSON_ERR_SYNTAX, 1, "hex" },
    { LIT ("\"\\U0041\""), DLQ_JSON_ERR_SYNTAX, 1, "escape" },
    { LIT ("\"\\ud800\""), DLQ_JSON_ERR_SYNTAX, 1, "surrogate" },
    { LIT ("\"ab\\udbff\""), DLQ_JSON_ERR_SYNTAX, 3, "surrogate" },
    { LIT ("\"\\udc00\""), DLQ_JSON_ERR_SYNTAX, 1, "surrogate" },
    { LIT ("\"\\ud800\\u0041\""), DLQ_JSON_ERR_SYNTAX, 1, "surrogate" },
    { LIT ("\"\\ud800\\ud800\""), DLQ_JSON_ERR_SYNTAX, 1, "surrogate" },
    { LIT ("\"\\ud800x\""), DLQ_JSON_ERR_SYNTAX, 1, "surrogate" },
    { LIT ("\"\\ude00\\ud83d\""), DLQ_JSON_ERR_SYNTAX, 1, "surrogate" },
    { LIT ("{\"a\\q\":1}"), DLQ_JSON_ERR_SYNTAX, 3, "escape" },
    /* NUL bytes */
    { LIT ("\0"), DLQ_JSON_ERR_SYNTAX, 0, "NUL" },
    { LIT ("1\0"), DLQ_JSON_ERR_SYNTAX, 1, "NUL" },
    { LIT ("[1,\0]"), DLQ_JSON_ERR_SYNTAX, 3, "NUL" },
    { LIT ("\"a\0b\""), DLQ_JSON_ERR_SYNTAX, 2, "control character" },
    /* non-JSON but valid UTF-8 outside strings */
    { LIT ("\xef\xbb\xbf{}"), DLQ_JSON_ERR_SYNTAX, 0, NULL },
    { LIT ("\"ok\" \xc3\xa9"), DLQ_JSON_ERR_SYNTAX, 5, NULL },
    /* UTF-8 inside strings */
    { LIT ("\"\xc0\x80\""), DLQ_JSON_ERR_UTF8, 1, "UTF-8" },
    { LIT ("\"\xc1\xbf\""), DLQ_JSON_ERR_UTF8, 1, "UTF-8" },
    { LIT ("\"\xe0\x80\x80\""), DLQ_JSON_ERR_UTF8, 1, "UTF-8" },
    { LIT ("\"\xe0\x9f\xbf\""), DLQ_JSON_ERR_UTF8, 1, "UTF-8" },
    { LIT ("\"\xf0\x80\x80\x80\""), DLQ_JSON_ERR_UTF8, 1, "UTF-8" },
    { LIT ("\"\xf0\x8f\xbf\xbf\""), DLQ_JSON_ERR_UTF8, 1, "UTF-8" },
    { LIT ("\"\xed\xa0\x80\""), DLQ_JSON_ERR_UTF8, 1, "UTF-8" },
    { LIT ("\"\xed\xbf\xbf\""), DLQ_JSON_ERR_UTF8, 1, "UTF-8" },
    { LIT ("\"\xf4\x90\x80\x80\""), DLQ_JSON_ERR_UTF8, 1, "UTF-8" },
    { LIT ("\"\xf5\x80\x80\x80\""), DLQ_JSON_ERR_UTF8, 1, "UTF-8" },
    { LIT ("\"\xf8\x88\x80\x80\x80\""), DLQ_JSON_ERR_UTF8, 1, "UTF-8" },
    { LIT ("\"\xfe\""), DLQ_JSON_ERR_UTF8, 1, "UTF-8" },
    { LIT ("\"\xff\""), DLQ_JSON_ERR_UTF8, 1, "UTF-8" },
    { LIT ("\"\x80\""), DLQ_JSON_ERR_UTF8, 1, "UTF-8" },
    { LIT ("\"\xbf\""), DLQ_JSON_ERR_UTF8, 1, "UTF-8" },
    { LIT ("\"\xc3\""), DLQ_JSON_ERR_UTF8, 1, "UTF-8" },
    { LIT ("\"\xe2\x82\""), DLQ_JSON_ERR_UTF8, 1, "UTF-8" },
    { LIT ("\"\xf0\x9f\x98\""), DLQ_JSON_ERR_UTF8, 1, "UTF-8" },
    { LIT ("\"ab\xe2\x82"), DLQ_JSON_ERR_UTF8, 3, "UTF-8" },
    { LIT ("\"ab\xf0\x9f\x98"), DLQ_JSON_ERR_UTF8, 3, "UTF-8" },
    { LIT ("\"\xc3\xa9\xc3\""), DLQ_JSON_ERR_UTF8, 3, "UTF-8" },
    { LIT ("\"aaaaaaaaaaaaaaaaaaaa\xff\""), DLQ_JSON_ERR_UTF8, 21, "UTF-8" },
    { LIT ("{\"k\xff\":1}"), DLQ_JSON_ERR_UTF8, 3, "UTF-8" },
    /* UTF-8 errors outside strings, and after other errors, still win */
    { LIT ("[\xff]"), DLQ_JSON_ERR_UTF8, 1, "UTF-8" },
    { LIT ("\xc0\x80"), DLQ_JSON_ERR_UTF8, 0, "UTF-8" },
    { LIT ("[1,]\xff"), DLQ_JSON_ERR_UTF8, 4, "UTF-8" },
    { LIT ("\"abc\xed\xa0\x80"), DLQ_JSON_ERR_UTF8, 4, "UTF-8" },
    { LIT ("{\"a\":1} \"\xe0\x80\x80\""), DLQ_JSON_ERR_UTF8, 9, "UTF-8" },
};

Test (json, invalid_corpus_is_rejected_with_code_and_offset)
{
    for (size_t i = 0; i < sizeof invalid_cases / sizeof *invalid_cases; i++) {
        const invalid_case_t *c = &invalid_cases [i];
        dlq_json_doc_t *doc = (dlq_json_doc_t *) 1;
        dlq_json_error_t err;
        dlq_json_result_t rc = dlq_json_parse (c->in, c->len, &doc, &err);
        cr_expect_eq (rc, c->rc, "case %zu: got %s, want %s (%s at %zu)", i, result_name (rc),
                      result_name (c->rc), err.message, err.offset);
        cr_expect_null (doc, "case %zu: doc not NULL on error", i);
        cr_expect_eq (err.offset, c->offset, "case %zu: offset %zu, want %zu (%s)", i, err.offset,
                      c->offset, err.message);
        cr_expect (err.message [0] != '\0', "case %zu: empty message", i);
        if (c->message)
            cr_expect (strstr (err.message, c->message) != NULL,
                       "case %zu: message \"%s\" lacks \"%s\"", i, err.message, c->message);
        cr_expect_eq (dlq_json_parse (c->in, c->len, &doc, NULL), c->rc, "case %zu without err", i);
    }
}

/* The string scanner looks at eight bytes at a time: a bad byte must be
 * found at every position of the word and of the tail. */
Test (json, bad_byte_found_at_every_position)
{
    static const struct {
        const char       *bad;
        size_t            len;
        dlq_json_result_t rc;
    } bad [] = {
        { LIT ("\x01"), DLQ_JSON_ERR_SYNTAX },
        { LIT ("\x1f"), DLQ_JSON_ERR_SYNTAX },
        { LIT ("\xff"), DLQ_JSON_ERR_UTF8 },
        { LIT ("\xc0\x80"), DLQ_JSON_ERR_UTF8 },
        { LIT ("\xed\xa0\x80"), DLQ_JSON_ERR_UTF8 },
    };
    char in [64];
    for (size_t b = 0; b < sizeof bad / sizeof *bad; b++)
        for (size_t pos = 0; pos < 24; pos++) {
            size_t n = 0;
            in [n++] = '"';
            memset (in + n, 'a', pos);
            n += pos;
            memcpy (in + n, bad [b].bad, bad [b].len);
            n += bad [b].len;
            memcpy (in + n, "bcdefghijk\"", 11);
            n += 11;
            dlq_json_doc_t *doc;
            dlq_json_error_t err;
            cr_expect_eq (dlq_json_parse (in, n, &doc, &err), bad [b].rc, "bad %zu at %zu", b, pos);
            cr_expect_eq (err.offset, pos + 1, "bad %zu at %zu: offset %zu", b, pos, err.offset);
        }
}

Test (json, quote_and_backslash_found_at_every_position)
{
    char in [64];
    for (size_t pos = 0; pos < 24; pos++) {
        size_t n = 0;
        in [n++] = '"';
        memset (in + n, 'x', pos);
        n += pos;
        memcpy (in + n, "\\\"\xc3\xa9\"", 5);
        n += 5;
        dlq_json_doc_t *doc;
        cr_assert_eq (dlq_json_parse (in, n, &doc, NULL), DLQ_JSON_OK, "pos %zu", pos);
        const dlq_json_value_t *v = dlq_json_root (doc);
        cr_expect_eq (v->len, pos + 3, "pos %zu", pos);
        cr_expect (memcmp (v->str + pos, "\"\xc3\xa9", 3) == 0, "pos %zu", pos);
        dlq_json_doc_destroy (&doc);
    }
}

/* ---------------------------------------------------------------- strings */

typedef struct {
    const char *in;
    size_t      in_len;
    const char *bytes;          /* decoded string */
    size_t      len;
} string_case_t;

static const string_case_t string_cases [] = {
    { LIT ("\"\""), LIT ("") },
    { LIT ("\"plain ascii\""), LIT ("plain ascii") },
    { LIT ("\"\\u0041\""), LIT ("A") },
    { LIT ("\"\\u00e9\""), LIT ("\xc3\xa9") },
    { LIT ("\"\\u07FF\""), LIT ("\xdf\xbf") },
    { LIT ("\"\\u0800\""), LIT ("\xe0\xa0\x80") },
    { LIT ("\"\\u20AC\""), LIT ("\xe2\x82\xac") },
    { LIT ("\"\\uffff\""), LIT ("\xef\xbf\xbf") },
    { LIT ("\"\\ud83d\\ude00\""), LIT ("\xf0\x9f\x98\x80") },
    { LIT ("\"\\uD834\\uDD1E\""), LIT ("\xf0\x9d\x84\x9e") },
    { LIT ("\"\\ud800\\udc00\""), LIT ("\xf0\x90\x80\x80") },
    { LIT ("\"\\udbff\\udfff\""), LIT ("\xf4\x8f\xbf\xbf") },
    { LIT ("\"\\u0000\""), LIT ("\0") },
    { LIT ("\"a\\u0000b\""), LIT ("a\0b") },
    { LIT ("\"a\\nb\""), LIT ("a\nb") },
    { LIT ("\"\\\"\\\\\\/\\b\\f\\n\\r\\t\""), LIT ("\"\\/\b\f\n\r\t") },
    { LIT ("\"x\\u0041y\\u00e9z\\ud83d\\ude00!\""), LIT ("xAy\xc3\xa9z\xf0\x9f\x98\x80!") },
    /* raw UTF-8 at the edges of every range */
    { LIT ("\"\xc2\x80\xdf\xbf\""), LIT ("\xc2\x80\xdf\xbf") },
    { LIT ("\"\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80\xef\xbf\xbf\""), LIT ("\xe0\xa0\x80\xed\x9f\xbf\xee\x80\x80\xef\xbf\xbf") },
    { LIT ("\"\xf0\x90\x80\x80\xf4\x8f\xbf\xbf\""), LIT ("\xf0\x90\x80\x80\xf4\x8f\xbf\xbf") },
    { LIT ("\"\x7f\""), LIT ("\x7f") },
};

Test (json, strings_decode_to_the_right_bytes)
{
    for (size_t i = 0; i < sizeof string_cases / sizeof *string_cases; i++) {
        const string_case_t *c = &string_cases [i];
        dlq_json_doc_t *doc;
        dlq_json_error_t err;
        cr_assert_eq (dlq_json_parse (c->in, c->in_len, &doc, &err), DLQ_JSON_OK,
                      "case %zu: %s at %zu", i, err.message, err.offset);
        const dlq_json_value_t *v = dlq_json_root (doc);
        cr_expect_eq (v->type, DLQ_JSON_STRING, "case %zu", i);
        cr_expect_eq (v->len, c->len, "case %zu: len %zu, want %zu", i, v->len, c->len);
        cr_expect (v->len == c->len && memcmp (v->str, c->bytes, c->len) == 0, "case %zu: bytes differ", i);
        cr_expect_eq (v->str [v->len], '\0', "case %zu: not NUL-terminated", i);
        dlq_json_doc_destroy (&doc);
    }
}

Test (json, write_string_escapes_canonically)
{
    static const struct {
        const char *in;
        size_t      in_len;
        const char *out;
    } cases [] = {
        { LIT (""), "\"\"" },
        { LIT ("abc"), "\"abc\"" },
        { LIT ("\"\\"), "\"\\\"\\\\\"" },
        { LIT ("/"), "\"/\"" },
        { LIT ("\b\f\n\r\t"), "\"\\b\\f\\n\\r\\t\"" },
        { LIT ("\0\x01\x1b\x1f"), "\"\\u0000\\u0001\\u001b\\u001f\"" },
        { LIT (" \x7f"), "\" \x7f\"" },
        { LIT ("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"), "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"" },
        { LIT ("line1\nline2\ttab \"q\""), "\"line1\\nline2\\ttab \\\"q\\\"\"" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        dlq_buf_t buf = DLQ_BUF_INIT;
        dlq_buf_puts (&buf, "<");
        dlq_json_write_string (&buf, cases [i].in, cases [i].in_len);
        cr_expect_str_eq (buf.data + 1, cases [i].out, "case %zu", i);
        cr_expect_eq (buf.len, 1 + strlen (cases [i].out), "case %zu", i);
        dlq_buf_free (&buf);
    }
}

/* Escapes grow the output up to six-fold: the buffer must keep up, from
 * empty and from a buffer that already holds text. */
Test (json, write_string_grows_the_buffer)
{
    size_t n = 32 * 1000, want = 2;
    char *s = malloc (n);
    for (size_t i = 0; i < n; i++) {
        s [i] = (char) (i % 32);
        want += strchr ("\b\f\n\r\t", s [i]) && s [i] ? 2 : 6;
    }
    for (int prefilled = 0; prefilled <= 1; prefilled++) {
        dlq_buf_t buf = DLQ_BUF_INIT;
        if (prefilled)
            dlq_buf_puts (&buf, "xyz");
        dlq_json_write_string (&buf, s, n);
        cr_expect_eq (buf.len, want + 3 * (size_t) prefilled);
        cr_expect_eq (buf.data [buf.len], '\0');
        dlq_json_doc_t *doc;
        cr_assert_eq (dlq_json_parse (buf.data + 3 * prefilled, buf.len - 3 * (size_t) prefilled, &doc, NULL),
                      DLQ_JSON_OK);
        cr_expect_eq (dlq_json_root (doc)->len, n);
        cr_expect (memcmp (dlq_json_root (doc)->str, s, n) == 0);
        dlq_json_doc_destroy (&doc);
        dlq_buf_free (&buf);
    }
    free (s);
}

/* ---------------------------------------------------------------- UTF-8 */

typedef struct {
    const char *s;
    size_t      len;
    bool        valid;
    size_t      bad;
} utf8_case_t;

static const utf8_case_t utf8_cases [] = {
    { LIT (""), true, 0 },
    { LIT ("plain ascii, long enough for the word loop"), true, 0 },
    { LIT ("a\0b"), true, 0 },
    { LIT ("\xc2\x80"), true, 0 },
    { LIT ("\xdf\xbf"), true, 0 },
    { LIT ("\xe0\xa0\x80"), true, 0 },
    { LIT ("\xed\x9f\xbf"), true, 0 },
    { LIT ("\xee\x80\x80"), true, 0 },
    { LIT ("\xef\xbf\xbf"), true, 0 },
    { LIT ("\xf0\x90\x80\x80"), true, 0 },
    { LIT ("\xf4\x8f\xbf\xbf"), true, 0 },
    { LIT ("12345678\xc3\xa9" "12345678"), true, 0 },
    { LIT ("\xc0\x80"), false, 0 },
    { LIT ("\xc1\xbf"), false, 0 },
    { LIT ("\xe0\x80\x80"), false, 0 },
    { LIT ("\xe0\x9f\xbf"), false, 0 },
    { LIT ("\xf0\x80\x80\x80"), false, 0 },
    { LIT ("\xf0\x8f\xbf\xbf"), false, 0 },
    { LIT ("\xed\xa0\x80"), false, 0 },
    { LIT ("\xed\xbf\xbf"), false, 0 },
    { LIT ("\xf4\x90\x80\x80"), false, 0 },
    { LIT ("\xf5\x80\x80\x80"), false, 0 },
    { LIT ("\xff"), false, 0 },
    { LIT ("\x80"), false, 0 },
    { LIT ("ab\xc3"), false, 2 },
    { LIT ("ab\xe2\x82"), false, 2 },
    { LIT ("ab\xf0\x9f\x98"), false, 2 },
    { LIT ("ab\xe2\x82" "c"), false, 2 },
    { LIT ("\xc3\xa9\xc3\xa9\x80"), false, 4 },
    { LIT ("0123456789abcdef\xff"), false, 16 },
};

Test (json, utf8_valid_matches_the_table)
{
    for (size_t i = 0; i < sizeof utf8_cases / sizeof *utf8_cases; i++) {
        const utf8_case_t *c = &utf8_cases [i];
        size_t bad = 999;
        cr_expect_eq (dlq_utf8_valid (c->s, c->len, &bad), c->valid, "case %zu", i);
        if (!c->valid)
            cr_expect_eq (bad, c->bad, "case %zu: bad offset %zu, want %zu", i, bad, c->bad);
        cr_expect_eq (dlq_utf8_valid (c->s, c->len, NULL), c->valid, "case %zu without offset", i);
    }
}

/* Every code point U+0000..U+10FFFF, encoded, is valid unless a surrogate. */
Test (json, utf8_every_code_point)
{
    for (uint32_t cp = 0; cp <= 0x10FFFF; cp++) {
        unsigned char b [4];
        size_t n;
        if (cp < 0x80) {
            b [0] = (unsigned char) cp;
            n = 1;
        } else if (cp < 0x800) {
            b [0] = (unsigned char) (0xC0 | cp >> 6);
            b [1] = (unsigned char) (0x80 | (cp & 0x3F));
            n = 2;
        } else if (cp < 0x10000) {
            b [0] = (unsigned char) (0xE0 | cp >> 12);
            b [1] = (unsigned char) (0x80 | (cp >> 6 & 0x3F));
            b [2] = (unsigned char) (0x80 | (cp & 0x3F));
            n = 3;
        } else {
            b [0] = (unsigned char) (0xF0 | cp >> 18);
            b [1] = (unsigned char) (0x80 | (cp >> 12 & 0x3F));
            b [2] = (unsigned char) (0x80 | (cp >> 6 & 0x3F));
            b [3] = (unsigned char) (0x80 | (cp & 0x3F));
            n = 4;
        }
        bool want = cp < 0xD800 || cp > 0xDFFF;
        if (dlq_utf8_valid ((const char *) b, n, NULL) != want)
            cr_assert_fail ("U+%04X: wrong verdict", cp);
    }
}

/* ---------------------------------------------------------------- tree */

Test (json, tree_shape_and_get)
{
    static const char in [] = "{\"a\":1,\"b\":[true,null,\"s\"],\"c\":{},\"a\":2,\"k\\u0000\":3}";
    dlq_json_doc_t *doc;
    cr_assert_eq (dlq_json_parse (in, sizeof in - 1, &doc, NULL), DLQ_JSON_OK);
    const dlq_json_value_t *root = dlq_json_root (doc);
    cr_assert_eq (root->type, DLQ_JSON_OBJECT);
    cr_expect_eq (root->count, 5);
    cr_expect_null (root->key);

    const char *keys [] = { "a", "b", "c", "a" };
    const dlq_json_value_t *m = root->child;
    for (size_t i = 0; i < 4; i++, m = m->next) {
        cr_assert_not_null (m);
        cr_expect_eq (m->key_len, 1);
        cr_expect_str_eq (m->key, keys [i]);
    }
    cr_expect_eq (m->key_len, 2, "key with \\u0000 keeps its length");
    cr_expect (memcmp (m->key, "k\0", 3) == 0);
    cr_expect_null (m->next);

    const dlq_json_value_t *a = dlq_json_get (root, "a");
    cr_assert_not_null (a);
    cr_expect_str_eq (a->str, "1", "first match wins");
    const dlq_json_value_t *b = dlq_json_get (root, "b");
    cr_assert_not_null (b);
    cr_expect_eq (b->type, DLQ_JSON_ARRAY);
    cr_expect_eq (b->count, 3);
    cr_expect_eq (b->child->type, DLQ_JSON_TRUE);
    cr_expect_null (b->child->key, "array elements have no key");
    cr_expect_eq (b->child->next->type, DLQ_JSON_NULL);
    cr_expect_str_eq (b->child->next->next->str, "s");
    cr_expect_eq (dlq_json_get (root, "c")->count, 0);
    cr_expect_null (dlq_json_get (root, "c")->child);
    cr_expect_null (dlq_json_get (root, "missing"));
    cr_expect_null (dlq_json_get (root, "k"), "the key \"k\\0\" is not \"k\"");
    cr_expect_null (dlq_json_get (b, "a"), "not an object");
    cr_expect_null (dlq_json_get (NULL, "a"));

    dlq_json_doc_destroy (&doc);
    cr_expect_null (doc);
    dlq_json_doc_destroy (&doc);
    dlq_json_doc_destroy (NULL);
}

Test (json, number_text_is_preserved)
{
    static const char *numbers [] = {
        "0", "-0", "1.0", "-0.0", "1e400", "1E-400", "123456789012345678901234567890",
        "3.141592653589793238462643383279", "-9223372036854775809", "0.1e+1",
    };
    for (size_t i = 0; i < sizeof numbers / sizeof *numbers; i++) {
        char in [64];
        int n = snprintf (in, sizeof in, "[%s]", numbers [i]);
        dlq_json_doc_t *doc;
        cr_assert_eq (dlq_json_parse (in, (size_t) n, &doc, NULL), DLQ_JSON_OK, "%s", numbers [i]);
        const dlq_json_value_t *v = dlq_json_root (doc)->child;
        cr_expect_eq (v->type, DLQ_JSON_NUMBER);
        cr_expect_eq (v->len, strlen (numbers [i]));
        cr_expect_str_eq (v->str, numbers [i]);
        dlq_json_doc_destroy (&doc);
    }
}

Test (json, as_int64_bounds)
{
    static const struct {
        const char *in;
        bool        ok;
        int64_t     value;
    } cases [] = {
        { "0", true, 0 },
        { "-0", true, 0 },
        { "42", true, 42 },
        { "-42", true, -42 },
        { "9223372036854775807", true, INT64_MAX },
        { "9223372036854775808", false, 0 },
        { "-9223372036854775808", true, INT64_MIN },
        { "-9223372036854775809", false, 0 },
        { "18446744073709551616", false, 0 },
        { "123456789012345678901234567890", false, 0 },
        { "1.0", false, 0 },
        { "1e2", false, 0 },
        { "-1E0", false, 0 },
        { "\"1\"", false, 0 },
        { "true", false, 0 },
        { "null", false, 0 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        dlq_json_doc_t *doc;
        cr_assert_eq (dlq_json_parse (cases [i].in, strlen (cases [i].in), &doc, NULL), DLQ_JSON_OK);
        int64_t v = 12345;
        bool ok = dlq_json_as_int64 (dlq_json_root (doc), &v);
        cr_expect_eq (ok, cases [i].ok, "%s", cases [i].in);
        if (cases [i].ok)
            cr_expect_eq (v, cases [i].value, "%s -> %lld", cases [i].in, (long long) v);
        dlq_json_doc_destroy (&doc);
    }
    cr_expect_not (dlq_json_as_int64 (NULL, NULL));
}

/* ---------------------------------------------------------------- depth */

/* depth opening brackets of kind open ('[' or '{"k":'), then the closers. */
static char *
nested (size_t depth, bool objects, size_t *len)
{
    dlq_buf_t buf = DLQ_BUF_INIT;
    for (size_t i = 0; i < depth; i++)
        dlq_buf_puts (&buf, objects ? "{\"k\":" : "[");
    dlq_buf_puts (&buf, "1");
    for (size_t i = 0; i < depth; i++)
        dlq_buf_putc (&buf, objects ? '}' : ']');
    return dlq_buf_steal (&buf, len);
}

Test (json, depth_limit)
{
    for (int objects = 0; objects <= 1; objects++) {
        size_t len, step = objects ? 5 : 1;
        char *ok = nested (DLQ_JSON_MAX_DEPTH, objects, &len);
        dlq_json_doc_t *doc;
        cr_expect_eq (dlq_json_parse (ok, len, &doc, NULL), DLQ_JSON_OK, "depth 64, objects %d", objects);
        const dlq_json_value_t *v = dlq_json_root (doc);
        size_t levels = 0;
        for (; v->type != DLQ_JSON_NUMBER; v = v->child)
            levels++;
        cr_expect_eq (levels, DLQ_JSON_MAX_DEPTH);
        size_t out_len;
        char *out = compact (ok, len, &out_len);
        cr_expect (out_len == len && memcmp (out, ok, len) == 0);
        free (out);
        dlq_json_doc_destroy (&doc);
        free (ok);

        char *deep = nested (DLQ_JSON_MAX_DEPTH + 1, objects, &len);
        dlq_json_error_t err;
        cr_expect_eq (dlq_json_parse (deep, len, &doc, &err), DLQ_JSON_ERR_DEPTH, "depth 65, objects %d", objects);
        cr_expect_eq (err.offset, DLQ_JSON_MAX_DEPTH * step);
        cr_expect_null (doc);
        free (deep);
    }
}

Test (json, hostile_nesting_does_not_recurse)
{
    size_t n = 1000000;
    char *in = malloc (n);
    memset (in, '[', n);
    dlq_json_doc_t *doc;
    dlq_json_error_t err;
    cr_expect_eq (dlq_json_parse (in, n, &doc, &err), DLQ_JSON_ERR_DEPTH);
    cr_expect_eq (err.offset, DLQ_JSON_MAX_DEPTH);
    free (in);
}

/* ---------------------------------------------------------------- size */

/* Documents far larger than the first arena chunk: many nodes, long strings. */
Test (json, large_documents_round_trip)
{
    dlq_buf_t in = DLQ_BUF_INIT;
    dlq_buf_putc (&in, '[');
    for (int i = 0; i < 100000; i++) {
        if (i)
            dlq_buf_putc (&in, ',');
        dlq_buf_put_int (&in, i);
    }
    dlq_buf_puts (&in, ",\"");
    for (int i = 0; i < 200000; i++)
        dlq_buf_puts (&in, i % 7 ? "abc\xc3\xa9" : "\\n\\u00e9");
    dlq_buf_puts (&in, "\"]");

    dlq_json_doc_t *doc;
    cr_assert_eq (dlq_json_parse (in.data, in.len, &doc, NULL), DLQ_JSON_OK);
    cr_expect_eq (dlq_json_root (doc)->count, 100001);
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_json_write (&out, dlq_json_root (doc));
    dlq_json_doc_destroy (&doc);
    size_t len;
    char *again = compact (out.data, out.len, &len);
    cr_assert_not_null (again);
    cr_expect (len == out.len && memcmp (again, out.data, len) == 0);
    free (again);
    dlq_buf_free (&out);
    dlq_buf_free (&in);
}

/* ---------------------------------------------------------------- fuzz */

static uint64_t
next_rand (uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* Random byte mutations of valid documents never crash, never leak, and
 * whatever still parses writes to a fixed point; failures carry an offset
 * inside the input. */
Test (json, mutations_are_handled)
{
    static const char alphabet [] = "{}[],:\"\\ 0-1.eE+tfnu\x01\x7f\x80\xbf\xc3\xe2\xed\xf0\xf4\xff";
    uint64_t seed = 0x9E3779B97F4A7C15ull;
    for (int round = 0; round < 20000; round++) {
        const valid_case_t *c = &valid_cases [next_rand (&seed) % (sizeof valid_cases / sizeof *valid_cases)];
        char in [512];
        size_t len = c->in_len;
        memcpy (in, c->in, len);
        int edits = 1 + (int) (next_rand (&seed) % 3);
        for (int e = 0; e < edits && len; e++) {
            size_t at = next_rand (&seed) % len;
            char b = alphabet [next_rand (&seed) % (sizeof alphabet - 1)];
            switch (next_rand (&seed) % 3) {
            case 0:
                in [at] = b;
                break;
            case 1:
                memmove (in + at, in + at + 1, len - at - 1);
                len--;
                break;
            default:
                memmove (in + at + 1, in + at, len - at);
                in [at] = b;
                len++;
            }
        }
        dlq_json_doc_t *doc;
        dlq_json_error_t err;
        dlq_json_result_t rc = dlq_json_parse (in, len, &doc, &err);
        if (rc != DLQ_JSON_OK) {
            cr_assert_leq (err.offset, len, "round %d: offset %zu past %zu", round, err.offset, len);
            cr_assert_null (doc);
            if (rc == DLQ_JSON_ERR_UTF8) {
                size_t bad;
                cr_assert_not (dlq_utf8_valid (in, len, &bad));
                cr_assert_eq (bad, err.offset, "round %d", round);
            }
            continue;
        }
        cr_assert (dlq_utf8_valid (in, len, NULL), "round %d: accepted invalid UTF-8", round);
        dlq_buf_t once = DLQ_BUF_INIT;
        dlq_json_write (&once, dlq_json_root (doc));
        dlq_json_doc_destroy (&doc);
        size_t len2;
        char *twice = compact (once.data, once.len, &len2);
        cr_assert_not_null (twice, "round %d: output does not parse", round);
        cr_assert (len2 == once.len && memcmp (twice, once.data, len2) == 0, "round %d", round);
        free (twice);
        dlq_buf_free (&once);
    }
}

/* Repeated names: found in any object at any depth, by byte-for-byte
 * comparison (NULs count), in large objects too (the hash set), and named
 * by their path. */
Test (json, find_duplicate_names_the_repeated_member)
{
    static const struct { const char *json, *path; } cases [] = {
        { "{\"a\":1,\"b\":2}", NULL },
        { "{\"a\":1,\"a\":2}", "a" },
        { "{\"a\":{\"b\":[{\"c\":1},{\"c\":1,\"d\":2,\"c\":3}]}}", "a.b.1.c" },
        { "[1,{\"x\":1},[{\"y\":1,\"y\":2}]]", "2.0.y" },
        { "{\"a\\u0000\":1,\"a\":2}", NULL },
        { "{\"a\\u0000\":1,\"a\\u0000\":2}", "a\\u0000" },
        { "{\"\":1,\"\":2}", "" },
        { "{\"k\":{\"k\":{\"k\":1}}}", NULL },
        { "\"text\"", NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases [0]; i++) {
        dlq_json_doc_t *doc = NULL;
        cr_assert_eq (dlq_json_parse (cases [i].json, strlen (cases [i].json), &doc, NULL), DLQ_JSON_OK);
        char path [128];
        const dlq_json_value_t *m = dlq_json_find_duplicate (dlq_json_root (doc), path, sizeof path);
        if (cases [i].path) {
            cr_expect_not_null (m, "%s", cases [i].json);
            cr_expect_str_eq (path, cases [i].path, "%s", cases [i].json);
        } else {
            cr_expect_null (m, "%s: %s", cases [i].json, path);
            cr_expect_str_eq (path, "");
        }
        dlq_json_doc_destroy (&doc);
    }
    dlq_buf_t big = DLQ_BUF_INIT;              /* past the pairwise size: the hash set */
    dlq_buf_puts (&big, "{");
    for (int i = 0; i < 5000; i++)
        dlq_buf_printf (&big, "\"m%d\":0,", i);
    dlq_buf_puts (&big, "\"last\":0}");
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (big.data, big.len, &doc, NULL), DLQ_JSON_OK);
    cr_expect_null (dlq_json_find_duplicate (dlq_json_root (doc), NULL, 0));
    dlq_json_doc_destroy (&doc);
    big.len -= strlen ("\"last\":0}");
    dlq_buf_puts (&big, "\"m4321\":1}");
    cr_assert_eq (dlq_json_parse (big.data, big.len, &doc, NULL), DLQ_JSON_OK);
    char path [16];
    const dlq_json_value_t *m = dlq_json_find_duplicate (dlq_json_root (doc), path, sizeof path);
    cr_expect (m && m->type == DLQ_JSON_NUMBER && m->str [0] == '1', "the later of the two is named");
    cr_expect_str_eq (path, "m4321");
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&big);
}

Test (json, number_valid_is_the_grammar)
{
    static const char *const good [] = { "0", "-0", "12", "1.5", "-1.5e+10", "1E3", "0.0e-0" };
    static const char *const bad [] = { "", "-", "01", "1.", ".5", "+1", "1e", "0x10", " 1", "1 ", "inf", "nan",
                                        "NaN", "Infinity", "1e+", "--1" };
    for (size_t i = 0; i < sizeof good / sizeof good [0]; i++)
        cr_expect (dlq_json_number_valid (good [i], strlen (good [i])), "%s", good [i]);
    for (size_t i = 0; i < sizeof bad / sizeof bad [0]; i++)
        cr_expect_not (dlq_json_number_valid (bad [i], strlen (bad [i])), "%s", bad [i]);
    cr_expect_not (dlq_json_number_valid ("12\0garbage", 10), "a NUL ends no number");
}

Test (utf8, a_prefix_never_cuts_a_character)
{
    const char *text = "a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80";    /* a, é (2), € (3), 😀 (4): 10 bytes */
    size_t len = strlen (text);
    cr_expect_eq (dlq_utf8_prefix (text, len, 100), len, "what fits is whole");
    cr_expect_eq (dlq_utf8_prefix (text, len, len), len);
    static const size_t want [] = { 0, 1, 1, 3, 3, 3, 6, 6, 6, 6 };
    for (size_t max = 0; max < len; max++) {
        size_t n = dlq_utf8_prefix (text, len, max);
        cr_expect_eq (n, want [max], "max %zu: %zu", max, n);
        cr_expect (dlq_utf8_valid (text, n, NULL), "max %zu: the prefix is UTF-8", max);
    }
}
