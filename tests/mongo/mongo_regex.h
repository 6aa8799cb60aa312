/*  mongo_regex — the regular expressions of the MongoDB test server's
 *  filters ({field: /re/opts}, {field: {$regex: ..., $options: ...}}),
 *  on POSIX extended regular expressions (regcomp, the C library's).
 *
 *  MongoDB runs PCRE; this server takes the part of PCRE that POSIX
 *  extended syntax reads the same way: literal characters, escaped
 *  punctuation (\. \( \[ \\ ...), ., [...] classes, * + ? {n,m}, |,
 *  (...) groups, ^ and $; and the option "i" (case-insensitive: ASCII
 *  letters, as the C locale folds them; MongoDB's PCRE in UTF-8 mode also
 *  folds other letters). A backslash before a letter or digit (\d, \w,
 *  \b, back references), "(?" (PCRE's extensions) and every other option
 *  (m, s, x, u) are refused as NotImplemented, never misread. Known
 *  difference left in: '.' and [^...] also match a newline here (PCRE's
 *  do not without the "s" option). Matching is a search (unanchored, as
 *  $regex is), bytewise, up to the string's first NUL.
 *
 *  Thread-safe: each thread keeps its last compiled expression.
 */
#ifndef DLQ_MONGO_REGEX_H
#define DLQ_MONGO_REGEX_H

#include "mongo_error.h"

#include <stdbool.h>
#include <stddef.h>

/* True when pattern with options (NULL: none) is one this server
 * evaluates as MongoDB would; else err says why (BadValue: it does not
 * compile; NotImplemented: a construct or option it lacks). */
bool mongo_regex_check (const char *pattern, const char *options, mongo_error_t *err);

/* Whether pattern (checked) with options finds a match in text. */
bool mongo_regex_matches (const char *pattern, const char *options, const char *text);

#endif
