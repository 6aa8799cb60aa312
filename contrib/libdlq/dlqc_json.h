/*  dlqc_json — the little JSON libdlq needs (internal, not installed).
 *
 *  Replies from the gateway are small objects of which the client reads a
 *  few top-level members ("id", "duplicate", "code", "message", "field",
 *  "event", "version", "protocol", "pong", "requeued", "count", a replay
 *  job's, an event state's and a checkpoint's members). This is a
 *  scanner for exactly that: find a member of the top-level object and say
 *  where its value lies, decode a string value, read an integer; plus the
 *  string escaper that request bodies are built with (dlqc_body.h). It checks
 *  structure as it goes (brackets, strings, separators) but is not a
 *  validating parser: the gateway validates, and bodies handed to the
 *  caller stay raw.
 */
#ifndef DLQC_JSON_H
#define DLQC_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum {
    DLQC_JSON_STRING,
    DLQC_JSON_NUMBER,
    DLQC_JSON_OBJECT,
    DLQC_JSON_ARRAY,
    DLQC_JSON_TRUE,
    DLQC_JSON_FALSE,
    DLQC_JSON_NULL
} dlqc_json_type_t;

/* Where one value lies in the scanned text (not copied). */
typedef struct {
    dlqc_json_type_t type;
    const char      *start;     /* first byte of the value (the '"' of a string) */
    size_t           len;       /* bytes up to and including its last byte */
} dlqc_json_span_t;

/* Find the member named key of the JSON object that makes up len bytes of
 * data (leading and trailing whitespace allowed). True and *out filled
 * when found; false when absent or when data is not a well-formed object
 * up to that member. */
bool dlqc_json_member (const char *data, size_t len, const char *key, dlqc_json_span_t *out);

/* True when len bytes of data are exactly one well-formed JSON object
 * (whitespace around it allowed): what a checkpoint token or metadata
 * given as text must be before it is put into a request body. */
bool dlqc_json_is_object (const char *data, size_t len);

/* Decode a STRING span into a new NUL-terminated UTF-8 string (escapes
 * resolved; a lone surrogate becomes U+FFFD), owned by the caller; its
 * length in *len_out if not NULL. NULL when span is not a string. */
char *dlqc_json_string (const dlqc_json_span_t *span, size_t *len_out);

/* Find key as with dlqc_json_member and decode it as a string; NULL when
 * absent or not a string. Caller frees. */
char *dlqc_json_member_string (const char *data, size_t len, const char *key);

/* True when span is a NUMBER holding an integer that fits an int64_t,
 * written without fraction or exponent; stores it in *out. */
bool dlqc_json_int (const dlqc_json_span_t *span, int64_t *out);

/* Append len bytes of s as a JSON string literal (quotes included) at out,
 * which must have room for 6 * len + 2 bytes; returns the bytes written
 * (no NUL is added). */
size_t dlqc_json_escape (char *out, const char *s, size_t len);

#endif
