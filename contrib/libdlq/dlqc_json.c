/*  dlqc_json — a purpose-built JSON scanner for gateway replies, and a
 *  JSON string escaper for request bodies.
 */
#include "dlqc_json.h"
#include "dlq_alloc.h"

#include <stdlib.h>
#include <string.h>

/* Values nested deeper than this are refused (the gateway accepts 64
 * levels in an event, and a reply wraps the event in one more object). */
#define SCAN_MAX_DEPTH 128

typedef struct {
    const char *p;
    const char *end;
} cursor_t;

static bool skip_value (cursor_t *cur, int depth, dlqc_json_type_t *type);

static void
skip_ws (cursor_t *cur)
{
    while (cur->p < cur->end
           && (*cur->p == ' ' || *cur->p == '\t' || *cur->p == '\n' || *cur->p == '\r'))
        cur->p++;
}

static bool
at (const cursor_t *cur, char c)
{
    return cur->p < cur->end && *cur->p == c;
}

static bool
is_hex (char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool
is_digit (char c)
{
    return c >= '0' && c <= '9';
}

/* Step over a string starting at its opening quote, checking that every
 * escape is complete and no raw control character appears. */
static bool
skip_string (cursor_t *cur)
{
    cur->p++;
    while (cur->p < cur->end) {
        unsigned char c = (unsigned char) *cur->p++;
        if (c == '"')
            return true;
        if (c < 0x20)
            return false;
        if (c != '\\')
            continue;
        if (cur->p >= cur->end)
            return false;
        char e = *cur->p++;
        if (e == 'u') {
            for (int i = 0; i < 4; i++, cur->p++)
                if (cur->p >= cur->end || !is_hex (*cur->p))
                    return false;
        }
        else
        if (!strchr ("\"\\/bfnrt", e) || e == '\0')
            return false;
    }
    return false;
}

static bool
skip_digits (cursor_t *cur)
{
    const char *start = cur->p;
    while (cur->p < cur->end && is_digit (*cur->p))
        cur->p++;
    return cur->p > start;
}

static bool
skip_number (cursor_t *cur)
{
    if (at (cur, '-'))
        cur->p++;
    if (!skip_digits (cur))
        return false;
    if (at (cur, '.')) {
        cur->p++;
        if (!skip_digits (cur))
            return false;
    }
    if (at (cur, 'e') || at (cur, 'E')) {
        cur->p++;
        if (at (cur, '+') || at (cur, '-'))
            cur->p++;
        if (!skip_digits (cur))
            return false;
    }
    return true;
}

static bool
skip_literal (cursor_t *cur, const char *word)
{
    size_t len = strlen (word);
    if ((size_t) (cur->end - cur->p) < len || memcmp (cur->p, word, len) != 0)
        return false;
    cur->p += len;
    return true;
}

/* Step over the members (or elements) of an object (or array) whose
 * opening bracket has been consumed, and over its closing bracket. */
static bool
skip_container (cursor_t *cur, bool object, int depth)
{
    char close = object ? '}' : ']';
    dlqc_json_type_t type;
    skip_ws (cur);
    if (at (cur, close)) {
        cur->p++;
        return true;
    }
    while (true) {
        if (object) {
            if (!at (cur, '"') || !skip_string (cur))
                return false;
            skip_ws (cur);
            if (!at (cur, ':'))
                return false;
            cur->p++;
        }
        if (!skip_value (cur, depth + 1, &type))
            return false;
        skip_ws (cur);
        if (at (cur, close)) {
            cur->p++;
            return true;
        }
        if (!at (cur, ','))
            return false;
        cur->p++;
        skip_ws (cur);
    }
}

/* Step over one value (and the whitespace before it), saying its type. */
static bool
skip_value (cursor_t *cur, int depth, dlqc_json_type_t *type)
{
    if (depth > SCAN_MAX_DEPTH)
        return false;
    skip_ws (cur);
    if (cur->p >= cur->end)
        return false;
    switch (*cur->p) {
        case '"':
            *type = DLQC_JSON_STRING;
            return skip_string (cur);
        case '{':
            *type = DLQC_JSON_OBJECT;
            cur->p++;
            return skip_container (cur, true, depth);
        case '[':
            *type = DLQC_JSON_ARRAY;
            cur->p++;
            return skip_container (cur, false, depth);
        case 't':
            *type = DLQC_JSON_TRUE;
            return skip_literal (cur, "true");
        case 'f':
            *type = DLQC_JSON_FALSE;
            return skip_literal (cur, "false");
        case 'n':
            *type = DLQC_JSON_NULL;
            return skip_literal (cur, "null");
        default:
            *type = DLQC_JSON_NUMBER;
            return skip_number (cur);
    }
}

/* True when the string literal [start, end) (quotes included) says key. */
static bool
key_equals (const char *start, const char *end, const char *key)
{
    size_t raw_len = (size_t) (end - start) - 2;
    if (!memchr (start + 1, '\\', raw_len))
        return raw_len == strlen (key) && memcmp (start + 1, key, raw_len) == 0;
    dlqc_json_span_t span = { DLQC_JSON_STRING, start, (size_t) (end - start) };
    size_t len;
    char *decoded = dlqc_json_string (&span, &len);
    bool equal = decoded && len == strlen (key) && memcmp (decoded, key, len) == 0;
    free (decoded);
    return equal;
}

bool
dlqc_json_member (const char *data, size_t len, const char *key, dlqc_json_span_t *out)
{
    cursor_t cur = { data, data + len };
    skip_ws (&cur);
    if (!at (&cur, '{'))
        return false;
    cur.p++;
    skip_ws (&cur);
    if (at (&cur, '}'))
        return false;
    while (true) {
        const char *key_start = cur.p;
        if (!at (&cur, '"') || !skip_string (&cur))
            return false;
        const char *key_end = cur.p;
        skip_ws (&cur);
        if (!at (&cur, ':'))
            return false;
        cur.p++;
        skip_ws (&cur);
        const char *value_start = cur.p;
        dlqc_json_type_t type;
        if (!skip_value (&cur, 1, &type))
            return false;
        if (key_equals (key_start, key_end, key)) {
            *out = (dlqc_json_span_t) { type, value_start, (size_t) (cur.p - value_start) };
            return true;
        }
        skip_ws (&cur);
        if (!at (&cur, ','))
            return false;
        cur.p++;
        skip_ws (&cur);
    }
}

bool
dlqc_json_is_object (const char *data, size_t len)
{
    cursor_t cur = { data, data + len };
    dlqc_json_type_t type;
    if (!skip_value (&cur, 1, &type) || type != DLQC_JSON_OBJECT)
        return false;
    skip_ws (&cur);
    return cur.p == cur.end;
}

static unsigned
hex4 (const char *p)
{
    unsigned value = 0;
    for (int i = 0; i < 4; i++) {
        char c = p [i];
        unsigned digit = is_digit (c) ? (unsigned) (c - '0')
                       : (c >= 'a' && c <= 'f') ? (unsigned) (c - 'a' + 10)
                       : (unsigned) (c - 'A' + 10);
        value = value * 16 + digit;
    }
    return value;
}

static size_t
put_utf8 (char *out, unsigned cp)
{
    if (cp < 0x80) {
        out [0] = (char) cp;
        return 1;
    }
    if (cp < 0x800) {
        out [0] = (char) (0xC0 | (cp >> 6));
        out [1] = (char) (0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out [0] = (char) (0xE0 | (cp >> 12));
        out [1] = (char) (0x80 | ((cp >> 6) & 0x3F));
        out [2] = (char) (0x80 | (cp & 0x3F));
        return 3;
    }
    out [0] = (char) (0xF0 | (cp >> 18));
    out [1] = (char) (0x80 | ((cp >> 12) & 0x3F));
    out [2] = (char) (0x80 | ((cp >> 6) & 0x3F));
    out [3] = (char) (0x80 | (cp & 0x3F));
    return 4;
}

/* Decode the \uXXXX escape at p (p points at the 'u'), joining a
 * surrogate pair when one follows; advances *p_p past what it used. */
static unsigned
decode_unicode (const char **p_p, const char *end)
{
    const char *p = *p_p;
    unsigned cp = hex4 (p + 1);
    p += 5;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        if (end - p >= 6 && p [0] == '\\' && p [1] == 'u') {
            unsigned low = hex4 (p + 2);
            if (low >= 0xDC00 && low <= 0xDFFF) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                p += 6;
            }
            else
                cp = 0xFFFD;
        }
        else
            cp = 0xFFFD;
    }
    else
    if (cp >= 0xDC00 && cp <= 0xDFFF)
        cp = 0xFFFD;
    *p_p = p;
    return cp;
}

static char
simple_escape (char e)
{
    switch (e) {
        case 'b': return '\b';
        case 'f': return '\f';
        case 'n': return '\n';
        case 'r': return '\r';
        case 't': return '\t';
        default:  return e;     /* '"', '\\' and '/' stand for themselves */
    }
}

char *
dlqc_json_string (const dlqc_json_span_t *span, size_t *len_out)
{
    if (span->type != DLQC_JSON_STRING || span->len < 2)
        return NULL;
    const char *p = span->start + 1;
    const char *end = span->start + span->len - 1;
    char *out = dlq_malloc (span->len);      /* decoding never grows the text */
    size_t n = 0;
    while (p < end) {
        if (*p != '\\') {
            out [n++] = *p++;
            continue;
        }
        p++;
        if (*p == 'u')
            n += put_utf8 (out + n, decode_unicode (&p, end));
        else
            out [n++] = simple_escape (*p++);
    }
    out [n] = '\0';
    if (len_out)
        *len_out = n;
    return out;
}

char *
dlqc_json_member_string (const char *data, size_t len, const char *key)
{
    dlqc_json_span_t span;
    if (!dlqc_json_member (data, len, key, &span))
        return NULL;
    return dlqc_json_string (&span, NULL);
}

bool
dlqc_json_int (const dlqc_json_span_t *span, int64_t *out)
{
    if (span->type != DLQC_JSON_NUMBER || span->len == 0 || span->len > 20)
        return false;
    const char *p = span->start;
    const char *end = p + span->len;
    bool negative = *p == '-';
    if (negative)
        p++;
    if (p == end)
        return false;
    uint64_t magnitude = 0;
    for (; p < end; p++) {
        if (!is_digit (*p))
            return false;
        uint64_t digit = (uint64_t) (*p - '0');
        if (magnitude > (UINT64_MAX - digit) / 10)
            return false;
        magnitude = magnitude * 10 + digit;
    }
    uint64_t limit = negative ? (uint64_t) INT64_MAX + 1 : (uint64_t) INT64_MAX;
    if (magnitude > limit)
        return false;
    *out = negative ? (int64_t) (0 - magnitude) : (int64_t) magnitude;
    return true;
}

size_t
dlqc_json_escape (char *out, const char *s, size_t len)
{
    static const char hex [] = "0123456789abcdef";
    size_t n = 0;
    out [n++] = '"';
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char) s [i];
        if (c == '"' || c == '\\') {
            out [n++] = '\\';
            out [n++] = (char) c;
        }
        else
        if (c < 0x20) {
            memcpy (out + n, "\\u00", 4);
            out [n + 4] = hex [c >> 4];
            out [n + 5] = hex [c & 0xF];
            n += 6;
        }
        else
            out [n++] = (char) c;
    }
    out [n++] = '"';
    return n;
}
