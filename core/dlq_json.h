/*  dlq_json — a strict, fast JSON parser (RFC 8259) into a read-only tree,
 *  and the compact writer used for every canonical body dlqd emits.
 *
 *  Parsing validates UTF-8 (no overlongs, no surrogates, no code points past
 *  U+10FFFF), rejects trailing bytes, NUL bytes outside strings, leading zeros,
 *  lone surrogate escapes, and nesting deeper than DLQ_JSON_MAX_DEPTH. All
 *  nodes live in one arena owned by the document, so freeing is one call.
 *  Numbers keep their source text (so 1.0 stays 1.0 and 2^70 stays exact);
 *  strings are decoded to UTF-8 (NUL-terminated; may contain NUL via \u0000,
 *  so always use len).
 */
#ifndef DLQ_JSON_H
#define DLQ_JSON_H

#include "dlq_buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DLQ_JSON_MAX_DEPTH 64

typedef enum {
    DLQ_JSON_NULL,
    DLQ_JSON_FALSE,
    DLQ_JSON_TRUE,
    DLQ_JSON_NUMBER,
    DLQ_JSON_STRING,
    DLQ_JSON_ARRAY,
    DLQ_JSON_OBJECT
} dlq_json_type_t;

typedef struct dlq_json_value dlq_json_value_t;
struct dlq_json_value {
    dlq_json_type_t   type;
    const char       *str;      /* STRING: decoded UTF-8; NUMBER: source text; else NULL */
    size_t            len;      /* length of str in bytes */
    const char       *key;      /* member name when this value sits in an object, else NULL */
    size_t            key_len;
    size_t            count;    /* ARRAY/OBJECT: number of children */
    dlq_json_value_t *child;    /* ARRAY/OBJECT: first child, in document order */
    dlq_json_value_t *next;     /* next sibling, NULL at the end */
};

typedef enum {
    DLQ_JSON_OK = 0,
    DLQ_JSON_ERR_EMPTY,         /* no bytes, or only whitespace */
    DLQ_JSON_ERR_UTF8,          /* bytes that are not valid UTF-8 */
    DLQ_JSON_ERR_SYNTAX,        /* anything else that is not JSON */
    DLQ_JSON_ERR_DEPTH          /* nesting deeper than DLQ_JSON_MAX_DEPTH */
} dlq_json_result_t;

typedef struct {
    size_t offset;              /* byte offset of the problem in the input */
    char   message [96];        /* e.g. "expected ',' or '}' after object member" */
} dlq_json_error_t;

typedef struct dlq_json_doc dlq_json_doc_t;

/* Parse len bytes. On DLQ_JSON_OK *doc_p receives a new document (caller
 * destroys it); otherwise *doc_p is NULL and err (if not NULL) says where and
 * why. The input need not be NUL-terminated and is not referenced after. */
dlq_json_result_t dlq_json_parse (const char *data, size_t len,
                                  dlq_json_doc_t **doc_p, dlq_json_error_t *err);

/* The root value of a parsed document; owned by the document. */
const dlq_json_value_t *dlq_json_root (const dlq_json_doc_t *doc);

/* Free a document and every value in it; accepts NULL, NULLs the pointer. */
void dlq_json_doc_destroy (dlq_json_doc_t **doc_p);

/* Member of an object by name (first match), or NULL; NULL when obj is not an object. */
const dlq_json_value_t *dlq_json_get (const dlq_json_value_t *obj, const char *key);

/* The way from a value down to one inside it: the member (or array
 * element, with its index) at each level. Filled by the finders below and
 * by checks of their own, formatted only once something is found, so a
 * walk over a large document costs no formatting. */
typedef struct {
    const dlq_json_value_t *member [DLQ_JSON_MAX_DEPTH + 1];
    size_t                  index [DLQ_JSON_MAX_DEPTH + 1];
    size_t                  depth;
} dlq_json_path_t;

/* Add one level to path; false (nothing added) when it is full. */
bool dlq_json_path_push (dlq_json_path_t *path, const dlq_json_value_t *member, size_t index);

/* A member name as text for an error's field or message, into out (size
 * bytes, NUL-terminated): a NUL in the name is written as the six
 * characters \u0000, so "limit\u0000" never reads as "limit"; the whole is
 * cut to size - 1 bytes. Returns out. Pure. */
char *dlq_json_name_text (const char *name, size_t len, char *out, size_t size);

/* path as text after prefix (may be NULL): "prefix.a.b.0.c" (each name
 * as dlq_json_name_text writes it, cut to 100 bytes), the whole cut to
 * size - 1 bytes. */
void dlq_json_path_format (const dlq_json_path_t *path, const char *prefix, char *out, size_t size);

/* The first member, depth first in document order, whose name repeats an
 * earlier member of the same object (names compared byte for byte, NULs
 * included), or NULL when every object in v has unique names. When path is
 * not NULL it receives the member's path from v, "a.b" (array elements by
 * index, "a.0.b"; names as dlq_json_name_text writes them), cut to
 * path_size - 1 bytes; "" when there is none.
 * Linear in the size of v. */
const dlq_json_value_t *dlq_json_find_duplicate (const dlq_json_value_t *v, char *path, size_t path_size);

/* True when len bytes of s are exactly one number of the JSON grammar
 * (no sign but '-', no leading zeros, no hex, no NaN or Infinity). Pure. */
bool dlq_json_number_valid (const char *s, size_t len);

/* True when v is a NUMBER that is an integer in [INT64_MIN, INT64_MAX]
 * written without fraction or exponent; stores it in *out. */
bool dlq_json_as_int64 (const dlq_json_value_t *v, int64_t *out);

/* Append v as compact JSON (no insignificant whitespace; strings re-escaped
 * canonically: only ", \\ and control characters escaped, as \n \t etc. or
 * \u00XX; numbers as their source text). Pure: the same value always gives
 * the same bytes. */
void dlq_json_write (dlq_buf_t *out, const dlq_json_value_t *v);

/* Append a JSON string literal (with quotes) for len bytes of UTF-8 s. */
void dlq_json_write_string (dlq_buf_t *out, const char *s, size_t len);

/* Validate that len bytes are UTF-8 (same rules as the parser). Returns true
 * when valid; otherwise false and, if bad_offset is not NULL, the offset of
 * the first bad byte. */
bool dlq_utf8_valid (const char *s, size_t len, size_t *bad_offset);

/* How many of the len bytes of UTF-8 s fit in max bytes without cutting a
 * character: len when len <= max, else max moved back to the start of the
 * character it would split. Pure. */
size_t dlq_utf8_prefix (const char *s, size_t len, size_t max);

#endif
