/*  dlq_json — strict RFC 8259 parser into an arena-allocated tree, UTF-8
 *  validation and the canonical compact writer.
 *
 *  The parser is iterative: an explicit stack of at most DLQ_JSON_MAX_DEPTH
 *  open containers, so hostile nesting never touches the C stack. Strings are
 *  scanned eight bytes at a time for the few bytes that need attention
 *  ('"', '\\', controls, non-ASCII) and copied with memcpy when they hold no
 *  escapes. Every node and decoded string of a document lives in one arena.
 *
 *  Error offsets name the first byte at which the input stops being a prefix
 *  of valid JSON (the end of input when it is merely truncated), except an
 *  unterminated string, which points at its opening quote. Invalid UTF-8
 *  takes precedence over every other error: a body that is not UTF-8 is
 *  reported as DLQ_JSON_ERR_UTF8 at the first byte of the first ill-formed
 *  sequence, wherever that is.
 */
#include "dlq_json.h"
#include "dlq_alloc.h"
#include "dlq_hash.h"

#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef unsigned char uchar;

/* ---------------------------------------------------------------- arena */

/* A chunk hands out nodes from the bottom up (aligned) and string bytes from
 * the top down (unaligned), so neither wastes space on padding. */
typedef struct arena_chunk arena_chunk_t;
struct arena_chunk {
    arena_chunk_t *next;        /* older chunk */
    size_t         cap;         /* bytes in data */
    alignas (max_align_t) char data [];
};

struct dlq_json_doc {
    arena_chunk_t    *chunks;   /* newest first; the oldest holds this struct */
    char             *lo;       /* next free node byte in the newest chunk */
    char             *hi;       /* one past the last free byte */
    dlq_json_value_t *root;
};

#define ARENA_MIN_CHUNK   1024u
#define ARENA_FIRST_MAX   (1u << 20)
#define ARENA_GROW_MAX    (8u << 20)
#define NODE_ALIGN        alignof (dlq_json_value_t)

/* Room for the document itself plus a guess that fits a typical event
 * (about four bytes of nodes and strings per input byte) in one malloc. */
static dlq_json_doc_t *
doc_new (size_t input_len)
{
    size_t cap = input_len < ARENA_FIRST_MAX / 4 ? input_len * 4 + 256 : ARENA_FIRST_MAX;
    if (cap < ARENA_MIN_CHUNK)
        cap = ARENA_MIN_CHUNK;
    arena_chunk_t *chunk = dlq_malloc (sizeof *chunk + cap);
    chunk->next = NULL;
    chunk->cap = cap;
    dlq_json_doc_t *doc = (dlq_json_doc_t *) chunk->data;
    doc->chunks = chunk;
    doc->lo = chunk->data + (sizeof *doc + NODE_ALIGN - 1) / NODE_ALIGN * NODE_ALIGN;
    doc->hi = chunk->data + cap;
    doc->root = NULL;
    return doc;
}

static void
arena_grow (dlq_json_doc_t *doc, size_t need)
{
    size_t cap = doc->chunks->cap < ARENA_GROW_MAX ? doc->chunks->cap * 2 : ARENA_GROW_MAX;
    if (cap < need + NODE_ALIGN)
        cap = need + NODE_ALIGN;
    arena_chunk_t *chunk = dlq_malloc (sizeof *chunk + cap);
    chunk->next = doc->chunks;
    chunk->cap = cap;
    doc->chunks = chunk;
    doc->lo = chunk->data;
    doc->hi = chunk->data + cap;
}

static dlq_json_value_t *
arena_node (dlq_json_doc_t *doc, dlq_json_type_t type)
{
    if ((size_t) (doc->hi - doc->lo) < sizeof (dlq_json_value_t))
        arena_grow (doc, sizeof (dlq_json_value_t));
    dlq_json_value_t *v = (dlq_json_value_t *) doc->lo;
    doc->lo += sizeof *v;
    *v = (dlq_json_value_t) { .type = type };
    return v;
}

static char *
arena_bytes (dlq_json_doc_t *doc, size_t n)
{
    if ((size_t) (doc->hi - doc->lo) < n)
        arena_grow (doc, n);
    doc->hi -= n;
    return doc->hi;
}

const dlq_json_value_t *
dlq_json_root (const dlq_json_doc_t *doc)
{
    return doc ? doc->root : NULL;
}

void
dlq_json_doc_destroy (dlq_json_doc_t **doc_p)
{
    if (!doc_p || !*doc_p)
        return;
    arena_chunk_t *chunk = (*doc_p)->chunks;
    *doc_p = NULL;
    while (chunk) {
        arena_chunk_t *next = chunk->next;
        free (chunk);
        chunk = next;
    }
}

/* ---------------------------------------------------------------- UTF-8 */

/* Length of the well-formed multi-byte sequence at p (Unicode table 3-7:
 * no overlongs, no surrogates, nothing past U+10FFFF), or 0 when p does not
 * start one. p [0] must be >= 0x80 and p < end. */
static size_t
utf8_sequence (const uchar *p, const uchar *end)
{
    uchar c = p [0];
    size_t avail = (size_t) (end - p);
    if (c < 0xC2 || c > 0xF4)
        return 0;
    if (c < 0xE0)
        return avail >= 2 && (p [1] & 0xC0) == 0x80 ? 2 : 0;

    uchar lo = 0x80, hi = 0xBF;
    if (c == 0xE0)
        lo = 0xA0;
    else if (c == 0xED)
        hi = 0x9F;
    else if (c == 0xF0)
        lo = 0x90;
    else if (c == 0xF4)
        hi = 0x8F;

    size_t n = c < 0xF0 ? 3 : 4;
    if (avail < n || p [1] < lo || p [1] > hi || (p [2] & 0xC0) != 0x80)
        return 0;
    if (n == 4 && (p [3] & 0xC0) != 0x80)
        return 0;
    return n;
}

#define ONES  0x0101010101010101ull
#define HIGHS 0x8080808080808080ull

#if defined (__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define DLQ_JSON_SWAR 1
#endif

static inline uint64_t
load64 (const uchar *p)
{
    uint64_t w;
    memcpy (&w, p, sizeof w);
    return w;
}

bool
dlq_utf8_valid (const char *s, size_t len, size_t *bad_offset)
{
    const uchar *start = (const uchar *) s, *p = start, *end = start + len;
    while (p < end) {
        while (end - p >= 8 && !(load64 (p) & HIGHS))
            p += 8;
        while (p < end && *p < 0x80)
            p++;
        if (p == end)
            break;
        size_t n = utf8_sequence (p, end);
        if (!n) {
            if (bad_offset)
                *bad_offset = (size_t) (p - start);
            return false;
        }
        p += n;
    }
    return true;
}

/* ---------------------------------------------------------------- parser */

typedef struct {
    dlq_json_value_t  *container;
    dlq_json_value_t **tail;    /* where the next child is linked */
} frame_t;

typedef struct {
    const uchar      *start;
    const uchar      *p;
    const uchar      *end;
    dlq_json_doc_t   *doc;
    dlq_json_error_t *err;
    frame_t           stack [DLQ_JSON_MAX_DEPTH];
    int               depth;
} parser_t;

/* Bytes a string scan must stop at: '"', '\\', controls and non-ASCII. */
static const uchar string_stop [256] = {
    [0x00 ... 0x1F] = 1, ['"'] = 1, ['\\'] = 1, [0x80 ... 0xFF] = 1,
};

static const uchar json_space [256] = {
    [' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1,
};

static dlq_json_result_t
fail (parser_t *ps, dlq_json_result_t code, const uchar *at, const char *message)
{
    if (ps->err) {
        ps->err->offset = (size_t) (at - ps->start);
        snprintf (ps->err->message, sizeof ps->err->message, "%s", message);
    }
    return code;
}

/* An unexpected byte where a value or punctuation was wanted. */
static dlq_json_result_t
fail_unexpected (parser_t *ps, const char *wanted)
{
    if (ps->p == ps->end)
        return fail (ps, DLQ_JSON_ERR_SYNTAX, ps->p, "unexpected end of input");
    if (ps->err) {
        uchar c = *ps->p;
        ps->err->offset = (size_t) (ps->p - ps->start);
        if (c == 0)
            snprintf (ps->err->message, sizeof ps->err->message, "unexpected NUL byte, %s", wanted);
        else if (c > 0x20 && c < 0x7F)
            snprintf (ps->err->message, sizeof ps->err->message, "unexpected '%c', %s", c, wanted);
        else
            snprintf (ps->err->message, sizeof ps->err->message, "unexpected byte 0x%02x, %s", c, wanted);
    }
    return DLQ_JSON_ERR_SYNTAX;
}

static inline void
skip_space (parser_t *ps)
{
    while (ps->p < ps->end && json_space [*ps->p])
        ps->p++;
}

#ifdef DLQ_JSON_SWAR
/* High bit set in each byte of w that is '"', '\\' or below 0x20. Borrows
 * can flag bytes above a real hit, never below one, so the lowest flag (the
 * first byte, on little-endian) is exact. */
static inline uint64_t
escape_bytes (uint64_t w)
{
    uint64_t q = w ^ (ONES * '"');
    uint64_t b = w ^ (ONES * '\\');
    return ((q - ONES) & ~q) | ((b - ONES) & ~b) | ((w - ONES * 0x20) & ~w);
}
#endif

/* Advance p to the first byte of [p, end) that string_stop flags, or end. */
static inline const uchar *
scan_plain (const uchar *p, const uchar *end)
{
#ifdef DLQ_JSON_SWAR
    while (end - p >= 8) {
        uint64_t w = load64 (p);
        uint64_t hit = (escape_bytes (w) | w) & HIGHS;
        if (hit)
            return p + (__builtin_ctzll (hit) >> 3);
        p += 8;
    }
#endif
    while (p < end && !string_stop [*p])
        p++;
    return p;
}

/* First pass over a string body starting after the opening quote: find the
 * closing quote, validate UTF-8, reject raw controls. Sets *escaped when a
 * backslash was seen (escapes themselves are checked when decoding). */
static dlq_json_result_t
scan_string (parser_t *ps, const uchar *quote, const uchar **close, bool *escaped)
{
    const uchar *p = quote + 1, *end = ps->end;
    *escaped = false;
    for (;;) {
        p = scan_plain (p, end);
        if (p == end)
            return fail (ps, DLQ_JSON_ERR_SYNTAX, quote, "unterminated string");
        uchar c = *p;
        if (c == '"') {
            *close = p;
            return DLQ_JSON_OK;
        }
        if (c == '\\') {
            *escaped = true;
            do                          /* escapes back to back: one tight loop */
                p += (p + 1 < end && p [1] < 0x80) ? 2 : 1;
            while (p < end && *p == '\\');
        } else if (c < 0x20) {
            return fail (ps, DLQ_JSON_ERR_SYNTAX, p, "control character in string");
        } else {
            size_t n = utf8_sequence (p, end);
            if (!n)
                return fail (ps, DLQ_JSON_ERR_UTF8, p, "invalid UTF-8 sequence");
            p += n;
        }
    }
}

static inline int
hex_digit (uchar c)
{
    if ((unsigned) (c - '0') < 10)
        return c - '0';
    c |= 0x20;
    if ((unsigned) (c - 'a') < 6)
        return c - 'a' + 10;
    return -1;
}

/* The four hex digits of a \u escape at esc ("\uXXXX"), or -1. */
static long
hex4 (const uchar *esc, const uchar *end)
{
    if (end - esc < 6)
        return -1;
    long v = 0;
    for (int i = 2; i < 6; i++) {
        int h = hex_digit (esc [i]);
        if (h < 0)
            return -1;
        v = v << 4 | h;
    }
    return v;
}

static size_t
utf8_encode (uint32_t cp, char *out)
{
    if (cp < 0x80) {
        out [0] = (char) cp;
        return 1;
    }
    if (cp < 0x800) {
        out [0] = (char) (0xC0 | cp >> 6);
        out [1] = (char) (0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out [0] = (char) (0xE0 | cp >> 12);
        out [1] = (char) (0x80 | (cp >> 6 & 0x3F));
        out [2] = (char) (0x80 | (cp & 0x3F));
        return 3;
    }
    out [0] = (char) (0xF0 | cp >> 18);
    out [1] = (char) (0x80 | (cp >> 12 & 0x3F));
    out [2] = (char) (0x80 | (cp >> 6 & 0x3F));
    out [3] = (char) (0x80 | (cp & 0x3F));
    return 4;
}

/* Decode the \u escape (or surrogate pair) at *esc, advancing past it. */
static dlq_json_result_t
decode_unicode (parser_t *ps, const uchar **esc, const uchar *end, char **out)
{
    const uchar *e = *esc;
    long hi = hex4 (e, end);
    if (hi < 0)
        return fail (ps, DLQ_JSON_ERR_SYNTAX, e, "expected four hex digits after \\u");
    uint32_t cp = (uint32_t) hi;
    e += 6;
    if (cp >= 0xDC00 && cp <= 0xDFFF)
        return fail (ps, DLQ_JSON_ERR_SYNTAX, *esc, "lone low surrogate in \\u escape");
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        long lo = end - e >= 2 && e [0] == '\\' && e [1] == 'u' ? hex4 (e, end) : -1;
        if (lo < 0xDC00 || lo > 0xDFFF)
            return fail (ps, DLQ_JSON_ERR_SYNTAX, *esc, "lone high surrogate in \\u escape");
        cp = 0x10000 + ((cp - 0xD800) << 10) + ((uint32_t) lo - 0xDC00);
        e += 6;
    }
    *out += utf8_encode (cp, *out);
    *esc = e;
    return DLQ_JSON_OK;
}

/* Second pass for strings with escapes: decode [p, end) into out, which has
 * room for end - p bytes (no escape decodes to more bytes than it spans). */
static dlq_json_result_t
decode_escapes (parser_t *ps, const uchar *p, const uchar *end, char *out, size_t *out_len)
{
    char *o = out;
    for (;;) {
        if (p < end && *p != '\\') {     /* a run up to the next escape (none between two) */
            const uchar *bs = memchr (p, '\\', (size_t) (end - p));
            const uchar *run_end = bs ? bs : end;
            memcpy (o, p, (size_t) (run_end - p));
            o += run_end - p;
            p = run_end;
        }
        if (p == end)
            break;
        static const char simple [256] = {
            ['"'] = '"', ['\\'] = '\\', ['/'] = '/', ['b'] = '\b', ['f'] = '\f', ['n'] = '\n',
            ['r'] = '\r', ['t'] = '\t',
        };
        while (p < end && *p == '\\' && simple [p [1]]) {     /* escapes back to back: one tight loop */
            *o++ = simple [p [1]];
            p += 2;
        }
        if (p == end || *p != '\\')
            continue;
        if (p [1] != 'u')
            return fail (ps, DLQ_JSON_ERR_SYNTAX, p, "invalid escape in string");
        if (decode_unicode (ps, &p, end, &o) != DLQ_JSON_OK)
            return DLQ_JSON_ERR_SYNTAX;
    }
    *out_len = (size_t) (o - out);
    return DLQ_JSON_OK;
}

/* Parse the string whose opening quote is at ps->p into the arena. */
static dlq_json_result_t
parse_string (parser_t *ps, const char **str, size_t *len)
{
    const uchar *close;
    bool escaped;
    dlq_json_result_t rc = scan_string (ps, ps->p, &close, &escaped);
    if (rc != DLQ_JSON_OK)
        return rc;
    const uchar *body = ps->p + 1;
    size_t raw = (size_t) (close - body);
    char *out = arena_bytes (ps->doc, raw + 1);
    if (!escaped) {
        memcpy (out, body, raw);
        *len = raw;
    } else if ((rc = decode_escapes (ps, body, close, out, len)) != DLQ_JSON_OK) {
        return rc;
    }
    out [*len] = '\0';
    *str = out;
    ps->p = close + 1;
    return DLQ_JSON_OK;
}

static inline const uchar *
skip_digits (const uchar *p, const uchar *end)
{
    while (p < end && (unsigned) (*p - '0') < 10)
        p++;
    return p;
}

/* The end of the number that starts at p (the RFC 8259 grammar), or NULL
 * with *bad at the offending byte and *why saying what was expected. */
static const uchar *
number_end (const uchar *p, const uchar *end, const uchar **bad, const char **why)
{
    if (p < end && *p == '-')
        p++;
    *bad = p;
    if (p == end || (unsigned) (*p - '0') >= 10) {
        *why = "expected digit after '-'";
        return NULL;
    }
    if (*p == '0') {
        p++;
        *bad = p;
        if (p < end && (unsigned) (*p - '0') < 10) {
            *why = "leading zeros are not allowed";
            return NULL;
        }
    } else {
        p = skip_digits (p, end);
    }
    if (p < end && *p == '.') {
        p++;
        *bad = p;
        if (p == end || (unsigned) (*p - '0') >= 10) {
            *why = "expected digit after '.'";
            return NULL;
        }
        p = skip_digits (p, end);
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        *bad = p;
        if (p == end || (unsigned) (*p - '0') >= 10) {
            *why = "expected digit in exponent";
            return NULL;
        }
        p = skip_digits (p, end);
    }
    return p;
}

/* Check the number grammar at ps->p; on success *stop is one past it. */
static dlq_json_result_t
scan_number (parser_t *ps, const uchar **stop)
{
    const uchar *bad;
    const char *why;
    *stop = number_end (ps->p, ps->end, &bad, &why);
    return *stop ? DLQ_JSON_OK : fail (ps, DLQ_JSON_ERR_SYNTAX, bad, why);
}

bool
dlq_json_number_valid (const char *s, size_t len)
{
    const uchar *bad;
    const char *why;
    const uchar *p = (const uchar *) s;
    return len > 0 && number_end (p, p + len, &bad, &why) == p + len;
}

static dlq_json_result_t
parse_number (parser_t *ps, dlq_json_value_t **out)
{
    const uchar *stop;
    dlq_json_result_t rc = scan_number (ps, &stop);
    if (rc != DLQ_JSON_OK)
        return rc;
    size_t len = (size_t) (stop - ps->p);
    char *text = arena_bytes (ps->doc, len + 1);
    memcpy (text, ps->p, len);
    text [len] = '\0';
    dlq_json_value_t *v = arena_node (ps->doc, DLQ_JSON_NUMBER);
    v->str = text;
    v->len = len;
    ps->p = stop;
    *out = v;
    return DLQ_JSON_OK;
}

static dlq_json_result_t
parse_literal (parser_t *ps, const char *word, size_t n, dlq_json_type_t type, dlq_json_value_t **out)
{
    const uchar *p = ps->p;
    for (size_t i = 1; i < n; i++)
        if (p + i == ps->end || p [i] != (uchar) word [i]) {
            ps->p = p + i;
            return fail_unexpected (ps, "invalid literal");
        }
    ps->p = p + n;
    *out = arena_node (ps->doc, type);
    return DLQ_JSON_OK;
}

/* Link v as the next child of the innermost open container (or the root). */
static inline void
attach (parser_t *ps, dlq_json_value_t *v, const char *key, size_t key_len)
{
    if (ps->depth == 0) {
        ps->doc->root = v;
        return;
    }
    frame_t *top = &ps->stack [ps->depth - 1];
    v->key = key;
    v->key_len = key_len;
    *top->tail = v;
    top->tail = &v->next;
    top->container->count++;
}

/* Open an array or object at ps->p; *empty tells whether it closed at once. */
static dlq_json_result_t
open_container (parser_t *ps, dlq_json_type_t type, const char *key, size_t key_len, bool *empty)
{
    if (ps->depth == DLQ_JSON_MAX_DEPTH)
        return fail (ps, DLQ_JSON_ERR_DEPTH, ps->p, "nesting too deep");
    dlq_json_value_t *v = arena_node (ps->doc, type);
    attach (ps, v, key, key_len);
    ps->stack [ps->depth++] = (frame_t) { v, &v->child };
    ps->p++;
    skip_space (ps);
    uchar close = type == DLQ_JSON_ARRAY ? ']' : '}';
    *empty = ps->p < ps->end && *ps->p == close;
    if (*empty) {
        ps->p++;
        ps->depth--;
    }
    return DLQ_JSON_OK;
}

/* Parse one value at ps->p (after whitespace). Containers are only opened:
 * their contents are driven by the loop in parse_document. *opened is set
 * when a non-empty container was pushed. */
static dlq_json_result_t
parse_value (parser_t *ps, const char *key, size_t key_len, bool *opened)
{
    dlq_json_value_t *v = NULL;
    dlq_json_result_t rc;
    bool empty;
    *opened = false;
    if (ps->p == ps->end)
        return fail (ps, DLQ_JSON_ERR_SYNTAX, ps->p, "unexpected end of input, expected a value");
    switch (*ps->p) {
    case '{':
        rc = open_container (ps, DLQ_JSON_OBJECT, key, key_len, &empty);
        *opened = rc == DLQ_JSON_OK && !empty;
        return rc;
    case '[':
        rc = open_container (ps, DLQ_JSON_ARRAY, key, key_len, &empty);
        *opened = rc == DLQ_JSON_OK && !empty;
        return rc;
    case '"':
        v = arena_node (ps->doc, DLQ_JSON_STRING);
        rc = parse_string (ps, &v->str, &v->len);
        break;
    case '-': case '0': case '1': case '2': case '3': case '4':
    case '5': case '6': case '7': case '8': case '9':
        rc = parse_number (ps, &v);
        break;
    case 't':
        rc = parse_literal (ps, "true", 4, DLQ_JSON_TRUE, &v);
        break;
    case 'f':
        rc = parse_literal (ps, "false", 5, DLQ_JSON_FALSE, &v);
        break;
    case 'n':
        rc = parse_literal (ps, "null", 4, DLQ_JSON_NULL, &v);
        break;
    default:
        return fail_unexpected (ps, "expected a value");
    }
    if (rc == DLQ_JSON_OK)
        attach (ps, v, key, key_len);
    return rc;
}

/* Parse an object key and its ':' at ps->p (after whitespace). */
static dlq_json_result_t
parse_key (parser_t *ps, const char **key, size_t *key_len, bool after_comma)
{
    if (ps->p == ps->end || *ps->p != '"') {
        if (after_comma && ps->p < ps->end && *ps->p == '}')
            return fail (ps, DLQ_JSON_ERR_SYNTAX, ps->p, "trailing comma in object");
        return fail_unexpected (ps, "expected string for object key");
    }
    dlq_json_result_t rc = parse_string (ps, key, key_len);
    if (rc != DLQ_JSON_OK)
        return rc;
    skip_space (ps);
    if (ps->p == ps->end || *ps->p != ':')
        return fail_unexpected (ps, "expected ':' after object key");
    ps->p++;
    skip_space (ps);
    return DLQ_JSON_OK;
}

/* After a value inside a container: consume ',' or the closing bracket(s).
 * Returns with *more set when another element follows. */
static dlq_json_result_t
parse_separator (parser_t *ps, bool *more)
{
    for (;;) {
        skip_space (ps);
        dlq_json_value_t *c = ps->stack [ps->depth - 1].container;
        bool is_object = c->type == DLQ_JSON_OBJECT;
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            skip_space (ps);
            if (!is_object && ps->p < ps->end && *ps->p == ']')
                return fail (ps, DLQ_JSON_ERR_SYNTAX, ps->p, "trailing comma in array");
            *more = true;
            return DLQ_JSON_OK;
        }
        if (ps->p == ps->end || *ps->p != (is_object ? '}' : ']'))
            return fail_unexpected (ps, is_object ? "expected ',' or '}' after object member"
                                                  : "expected ',' or ']' after array element");
        ps->p++;
        if (--ps->depth == 0) {
            *more = false;
            return DLQ_JSON_OK;
        }
    }
}

static dlq_json_result_t
parse_document (parser_t *ps)
{
    const char *key = NULL;
    size_t key_len = 0;
    bool opened, more, after_comma = false;
    for (;;) {
        bool in_object = ps->depth > 0 && ps->stack [ps->depth - 1].container->type == DLQ_JSON_OBJECT;
        if (in_object) {
            dlq_json_result_t rc = parse_key (ps, &key, &key_len, after_comma);
            if (rc != DLQ_JSON_OK)
                return rc;
        }
        dlq_json_result_t rc = parse_value (ps, in_object ? key : NULL, in_object ? key_len : 0, &opened);
        if (rc != DLQ_JSON_OK)
            return rc;
        if (opened) {
            after_comma = false;
            continue;
        }
        if (ps->depth == 0)
            return DLQ_JSON_OK;
        if ((rc = parse_separator (ps, &more)) != DLQ_JSON_OK)
            return rc;
        if (!more)
            return DLQ_JSON_OK;
        after_comma = true;
    }
}

dlq_json_result_t
dlq_json_parse (const char *data, size_t len, dlq_json_doc_t **doc_p, dlq_json_error_t *err)
{
    parser_t ps = {
        .start = (const uchar *) data, .p = (const uchar *) data,
        .end = (const uchar *) data + len, .err = err,
    };
    *doc_p = NULL;
    if (err) {
        err->offset = 0;
        err->message [0] = '\0';
    }
    skip_space (&ps);
    if (ps.p == ps.end)
        return fail (&ps, DLQ_JSON_ERR_EMPTY, ps.p, "empty input");

    ps.doc = doc_new (len);
    dlq_json_result_t rc = parse_document (&ps);
    if (rc == DLQ_JSON_OK) {
        skip_space (&ps);
        if (ps.p != ps.end)
            rc = fail_unexpected (&ps, "expected end of input after the JSON value");
    }
    if (rc != DLQ_JSON_OK) {
        size_t bad;
        if (rc != DLQ_JSON_ERR_UTF8 && !dlq_utf8_valid (data, len, &bad)) {
            ps.p = ps.start + bad;
            rc = fail (&ps, DLQ_JSON_ERR_UTF8, ps.p, "invalid UTF-8 sequence");
        }
        dlq_json_doc_destroy (&ps.doc);
        return rc;
    }
    *doc_p = ps.doc;
    return DLQ_JSON_OK;
}

/* ---------------------------------------------------------------- access */

const dlq_json_value_t *
dlq_json_get (const dlq_json_value_t *obj, const char *key)
{
    if (!obj || obj->type != DLQ_JSON_OBJECT || !key)
        return NULL;
    size_t n = strlen (key);
    for (const dlq_json_value_t *m = obj->child; m; m = m->next)
        if (m->key_len == n && memcmp (m->key, key, n) == 0)
            return m;
    return NULL;
}

/* Members of objects up to this size are compared pairwise; larger ones
 * go through a hash set, so the check stays linear in the object's size. */
#define DUPLICATE_PAIRWISE_MAX 8

static bool
same_key (const dlq_json_value_t *a, const dlq_json_value_t *b)
{
    return a->key_len == b->key_len && memcmp (a->key, b->key, a->key_len) == 0;
}

static uint64_t
key_hash (const dlq_json_value_t *m)
{
    return dlq_hash_fnv64 (m->key, m->key_len);
}

/* The first member of obj whose name an earlier member already has. */
static const dlq_json_value_t *
repeated_member (const dlq_json_value_t *obj)
{
    if (obj->count <= DUPLICATE_PAIRWISE_MAX) {
        for (const dlq_json_value_t *m = obj->child; m; m = m->next)
            for (const dlq_json_value_t *e = obj->child; e != m; e = e->next)
                if (same_key (e, m))
                    return m;
        return NULL;
    }
    size_t slots = 16;
    while (slots < obj->count * 2)
        slots *= 2;
    const dlq_json_value_t **set = dlq_calloc (slots, sizeof *set);
    const dlq_json_value_t *found = NULL;
    for (const dlq_json_value_t *m = obj->child; m && !found; m = m->next) {
        size_t i = (size_t) key_hash (m) & (slots - 1);
        while (set [i] && !same_key (set [i], m))
            i = (i + 1) & (slots - 1);
        if (set [i])
            found = m;
        set [i] = m;
    }
    free (set);
    return found;
}

static bool
find_duplicate (const dlq_json_value_t *v, dlq_json_path_t *chain)
{
    if (v->type != DLQ_JSON_OBJECT && v->type != DLQ_JSON_ARRAY)
        return false;
    const dlq_json_value_t *repeated = v->type == DLQ_JSON_OBJECT ? repeated_member (v) : NULL;
    if (repeated)
        return dlq_json_path_push (chain, repeated, 0);
    size_t index = 0, depth = chain->depth;
    for (const dlq_json_value_t *m = v->child; m; m = m->next, index++) {
        if (m->type != DLQ_JSON_OBJECT && m->type != DLQ_JSON_ARRAY)
            continue;
        chain->depth = depth;
        if (dlq_json_path_push (chain, m, index) && find_duplicate (m, chain))
            return true;
    }
    chain->depth = depth;
    return false;
}

bool
dlq_json_path_push (dlq_json_path_t *path, const dlq_json_value_t *member, size_t index)
{
    if (path->depth > DLQ_JSON_MAX_DEPTH)
        return false;
    path->member [path->depth] = member;
    path->index [path->depth++] = index;
    return true;
}

char *
dlq_json_name_text (const char *name, size_t len, char *out, size_t size)
{
    size_t used = 0;
    for (size_t i = 0; i < len && used + 1 < size; i++) {
        if (name [i] != '\0')
            out [used++] = name [i];
        else
        if (used + 6 < size) {
            memcpy (out + used, "\\u0000", 6);
            used += 6;
        }
        else
            break;
    }
    if (size)
        out [used] = '\0';
    return out;
}

void
dlq_json_path_format (const dlq_json_path_t *path, const char *prefix, char *out, size_t size)
{
    if (!size)
        return;
    int n = snprintf (out, size, "%s", prefix ? prefix : "");
    size_t used = n < 0 ? 0 : (size_t) n < size ? (size_t) n : size - 1;
    for (size_t i = 0; i < path->depth && used + 1 < size; i++) {
        const dlq_json_value_t *m = path->member [i];
        char name [101];
        n = m->key ? snprintf (out + used, size - used, "%s%s", used ? "." : "",
                               dlq_json_name_text (m->key, m->key_len, name, sizeof name))
                   : snprintf (out + used, size - used, "%s%zu", used ? "." : "", path->index [i]);
        used = n < 0 ? used : used + (size_t) n < size ? used + (size_t) n : size - 1;
    }
}

const dlq_json_value_t *
dlq_json_find_duplicate (const dlq_json_value_t *v, char *path, size_t path_size)
{
    dlq_json_path_t chain;
    chain.depth = 0;
    if (path && path_size)
        path [0] = '\0';
    if (!v || !find_duplicate (v, &chain))
        return NULL;
    if (path && path_size)
        dlq_json_path_format (&chain, NULL, path, path_size);
    return chain.member [chain.depth - 1];
}

bool
dlq_json_as_int64 (const dlq_json_value_t *v, int64_t *out)
{
    if (!v || v->type != DLQ_JSON_NUMBER || v->len == 0)
        return false;
    const char *p = v->str, *end = v->str + v->len;
    bool negative = *p == '-';
    if (negative)
        p++;
    if (p == end)
        return false;
    uint64_t limit = negative ? (uint64_t) INT64_MAX + 1 : (uint64_t) INT64_MAX;
    uint64_t acc = 0;
    for (; p < end; p++) {
        unsigned d = (unsigned) (*p - '0');
        if (d >= 10 || acc > (limit - d) / 10)
            return false;
        acc = acc * 10 + d;
    }
    if (out)
        *out = negative ? (int64_t) (0 - acc) : (int64_t) acc;
    return true;
}

/* ---------------------------------------------------------------- writer */

/* Bytes a string literal must escape: '"', '\\' and C0 controls. */
static const uchar needs_escape [256] = {
    [0x00 ... 0x1F] = 1, ['"'] = 1, ['\\'] = 1,
};

/* Advance p to the first byte of [p, end) that needs_escape flags, or end. */
static inline const uchar *
scan_unescaped (const uchar *p, const uchar *end)
{
#ifdef DLQ_JSON_SWAR
    while (end - p >= 8) {
        uint64_t hit = escape_bytes (load64 (p)) & HIGHS;
        if (hit)
            return p + (__builtin_ctzll (hit) >> 3);
        p += 8;
    }
#endif
    while (p < end && !needs_escape [*p])
        p++;
    return p;
}

/* Write the escape for byte c (one needs_escape flags) at o; returns its length. */
static size_t
escape_byte (uchar c, char *o)
{
    static const char hex [] = "0123456789abcdef";
    static const char short_form [0x20] = {
        ['\b'] = 'b', ['\f'] = 'f', ['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't',
    };
    o [0] = '\\';
    if (c == '"' || c == '\\') {
        o [1] = (char) c;
        return 2;
    }
    if (short_form [c]) {
        o [1] = short_form [c];
        return 2;
    }
    memcpy (o + 1, "u00", 3);
    o [4] = hex [c >> 4];
    o [5] = hex [c & 0xF];
    return 6;
}

/* Writes straight into the buffer: room for the unescaped rest of the string
 * and the closing quote is reserved up front and again after each escape. */
void
dlq_json_write_string (dlq_buf_t *out, const char *s, size_t len)
{
    const uchar *p = (const uchar *) s, *end = p + len;
    dlq_buf_reserve (out, len + 2);
    out->data [out->len++] = '"';
    for (;;) {
        const uchar *run = p;
        p = scan_unescaped (p, end);
        if (p != run) {
            memcpy (out->data + out->len, run, (size_t) (p - run));
            out->len += (size_t) (p - run);
        }
        if (p == end)
            break;
        do {                            /* bytes to escape back to back: one tight loop */
            if (out->cap - out->len < (size_t) (end - p) + 6 + 2)  /* this escape, the rest and '"' */
                dlq_buf_reserve (out, (size_t) (end - p) + 6 + 1);
            out->len += escape_byte (*p++, out->data + out->len);
        } while (p < end && needs_escape [*p]);
    }
    out->data [out->len++] = '"';
    out->data [out->len] = '\0';
}

static inline void
put_char (dlq_buf_t *out, char c)
{
    if (out->len + 2 > out->cap)
        dlq_buf_reserve (out, 1);
    out->data [out->len++] = c;
    out->data [out->len] = '\0';
}

/* Recursion follows the tree's nesting, which the parser caps at
 * DLQ_JSON_MAX_DEPTH. */
void
dlq_json_write (dlq_buf_t *out, const dlq_json_value_t *v)
{
    switch (v->type) {
    case DLQ_JSON_NULL:
        dlq_buf_append (out, "null", 4);
        return;
    case DLQ_JSON_FALSE:
        dlq_buf_append (out, "false", 5);
        return;
    case DLQ_JSON_TRUE:
        dlq_buf_append (out, "true", 4);
        return;
    case DLQ_JSON_NUMBER:
        dlq_buf_append (out, v->str, v->len);
        return;
    case DLQ_JSON_STRING:
        dlq_json_write_string (out, v->str, v->len);
        return;
    case DLQ_JSON_ARRAY:
    case DLQ_JSON_OBJECT:
        break;
    }
    bool is_object = v->type == DLQ_JSON_OBJECT;
    put_char (out, is_object ? '{' : '[');
    for (const dlq_json_value_t *c = v->child; c; c = c->next) {
        if (c != v->child)
            put_char (out, ',');
        if (is_object) {
            dlq_json_write_string (out, c->key, c->key_len);
            put_char (out, ':');
        }
        dlq_json_write (out, c);
    }
    put_char (out, is_object ? '}' : ']');
}

size_t
dlq_utf8_prefix (const char *s, size_t len, size_t max)
{
    if (len <= max)
        return len;
    size_t n = max;
    while (n > 0 && ((unsigned char) s [n] & 0xC0) == 0x80)
        n--;
    return n;
}
