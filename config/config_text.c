/*  config_text — 64-bit integers for libconfig 1.5 (see the header).
 */
#include "config_text.h"

#include "dlq_buf.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* A character of a setting's name (libconfig: [A-Za-z*][-A-Za-z0-9_*]*). */
static bool
name_char (char c)
{
    return isalnum ((unsigned char) c) || c == '_' || c == '-' || c == '*';
}

/* Past a comment or string starting at p (or p itself when none starts). */
static size_t
skip_opaque (const char *t, size_t len, size_t p)
{
    if (t [p] == '#' || (t [p] == '/' && p + 1 < len && t [p + 1] == '/')) {
        while (p < len && t [p] != '\n')
            p++;
        return p;
    }
    if (t [p] == '/' && p + 1 < len && t [p + 1] == '*') {
        p += 2;
        while (p + 1 < len && !(t [p] == '*' && t [p + 1] == '/'))
            p++;
        return p + 1 < len ? p + 2 : len;
    }
    if (t [p] == '"') {
        for (p++; p < len && t [p] != '"'; p++)
            if (t [p] == '\\' && p + 1 < len)
                p++;
        return p < len ? p + 1 : len;
    }
    return p;
}

/* The integer literal at p (a digit, not inside a name), negative when a
 * '-' is before it: its end in *end, and whether it needs 64 bits (not a
 * float, no L yet, a value past the 32 bits libconfig reads). */
static bool
needs_wide (const char *t, size_t len, size_t p, bool negative, size_t *end)
{
    bool hex = t [p] == '0' && p + 1 < len && (t [p + 1] == 'x' || t [p + 1] == 'X');
    size_t q = hex ? p + 2 : p;
    uint64_t value = 0;
    bool over = false;                  /* past any 64-bit value: libconfig's to refuse */
    for (; q < len && (hex ? isxdigit ((unsigned char) t [q]) : isdigit ((unsigned char) t [q])); q++) {
        unsigned digit = isdigit ((unsigned char) t [q]) ? (unsigned) (t [q] - '0')
                       : (unsigned) (tolower ((unsigned char) t [q]) - 'a' + 10);
        if (value > (UINT64_MAX - digit) / (hex ? 16 : 10))
            over = true;
        value = value * (hex ? 16 : 10) + digit;
    }
    if (!hex && q < len && (t [q] == '.' || t [q] == 'e' || t [q] == 'E')) {
        while (q < len && (isdigit ((unsigned char) t [q]) || strchr (".eE+-", t [q])))
            q++;                        /* a float: as it is */
        *end = q;
        return false;
    }
    *end = q;
    if (q < len && (t [q] == 'L' || name_char (t [q])))
        return false;                   /* 64 bits already, or no number at all */
    uint64_t limit = hex ? UINT32_MAX : negative ? (uint64_t) INT32_MAX + 1 : INT32_MAX;
    return over || value > limit;
}

char *
dlq_config_text_widen (const char *text, size_t len, size_t *len_out)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_buf_reserve (&out, len + 16);
    size_t p = 0, copied = 0;
    while (p < len) {
        size_t past = skip_opaque (text, len, p);
        if (past != p) {
            p = past;
            continue;
        }
        bool starts = isdigit ((unsigned char) text [p]) && (p == 0 || !name_char (text [p - 1])
                                                             || text [p - 1] == '-');
        if (starts && p > 0 && text [p - 1] == '-' && p > 1 && name_char (text [p - 2]))
            starts = false;             /* a '-' inside a name, e.g. max-2 */
        if (!starts) {
            p++;
            continue;
        }
        size_t end;
        bool wide = needs_wide (text, len, p, p > 0 && text [p - 1] == '-', &end);
        if (wide) {
            dlq_buf_append (&out, text + copied, end - copied);
            dlq_buf_putc (&out, 'L');
            copied = end;
        }
        p = end;
    }
    dlq_buf_append (&out, text + copied, len - copied);
    return dlq_buf_steal (&out, len_out);
}
