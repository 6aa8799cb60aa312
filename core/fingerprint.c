/*  fingerprint — failure fingerprints: message normalisation, top stack
 *  frames and the FNV-1a 64 hash over them (the rules are in fingerprint.h).
 *
 *  Everything is a pure scan over the input bytes: ASCII character classes
 *  of our own (no locale), no globals, no I/O. The message scanner is one
 *  left-to-right pass that stops as soon as the output passes the cap; a
 *  token may reach far ahead (a quoted value to its closing quote), but no
 *  byte is scanned more than a fixed number of times, so the cost is linear
 *  in the message (at most its length, often only its first few hundred
 *  bytes), whatever its shape.
 */
#include "fingerprint.h"

#include "dlq_hash.h"
#include "dlq_json.h"

#include <stdint.h>
#include <string.h>

/* ---------------------------------------------------------------- bytes */

static bool is_digit (unsigned char c) { return c >= '0' && c <= '9'; }
static bool is_alpha (unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'z'; }
static bool is_hex_letter (unsigned char c) { return (c | 0x20) >= 'a' && (c | 0x20) <= 'f'; }
static bool is_hex (unsigned char c) { return is_digit (c) || is_hex_letter (c); }
/* Word characters: ASCII letters and digits, and every non-ASCII byte. */
static bool is_word (unsigned char c) { return is_digit (c) || is_alpha (c) || c >= 0x80; }
/* Whitespace for collapsing: space and every ASCII control character. */
static bool is_blank (unsigned char c) { return c <= 0x20 || c == 0x7f; }
static bool is_quote (unsigned char c) { return c == '\'' || c == '"' || c == '`'; }

/* Byte i of s, or 0 past the end (0 is no class's member but is_blank's). */
static unsigned char
at (const char *s, size_t len, size_t i)
{
    return i < len ? (unsigned char) s [i] : 0;
}

static bool
word_starts_at (const char *s, size_t i)
{
    return i == 0 || !is_word ((unsigned char) s [i - 1]);
}

static size_t
skip_digits (const char *s, size_t len, size_t i)
{
    while (i < len && is_digit ((unsigned char) s [i]))
        i++;
    return i;
}

/* Exactly n digits at i: their value, or -1. */
static int
fixed_digits (const char *s, size_t len, size_t i, size_t n)
{
    int value = 0;
    for (size_t k = 0; k < n; k++) {
        if (!is_digit (at (s, len, i + k)))
            return -1;
        value = value * 10 + (s [i + k] - '0');
    }
    return value;
}

/* ------------------------------------------------------- token matchers */
/* Each returns the end of the token that starts at i, or 0 for no match. */

static size_t
match_uuid (const char *s, size_t len, size_t i)
{
    if (len - i < 36)
        return 0;
    for (size_t k = 0; k < 36; k++) {
        bool dash = k == 8 || k == 13 || k == 18 || k == 23;
        if (dash ? s [i + k] != '-' : !is_hex ((unsigned char) s [i + k]))
            return 0;
    }
    return is_word (at (s, len, i + 36)) ? 0 : i + 36;
}

/* HH:MM[:SS[.fraction]] */
static size_t
match_clock (const char *s, size_t len, size_t i)
{
    if (fixed_digits (s, len, i, 2) < 0 || at (s, len, i + 2) != ':'
        || fixed_digits (s, len, i + 3, 2) < 0)
        return 0;
    size_t j = i + 5;
    if (at (s, len, j) != ':' || fixed_digits (s, len, j + 1, 2) < 0)
        return j;
    j += 3;
    if ((at (s, len, j) == '.' || at (s, len, j) == ',') && is_digit (at (s, len, j + 1)))
        j = skip_digits (s, len, j + 1);
    return j;
}

/* Z, z, +HH, +HHMM or +HH:MM (or -) */
static size_t
match_zone (const char *s, size_t len, size_t j)
{
    unsigned char c = at (s, len, j);
    if (c == 'Z' || c == 'z')
        return j + 1;
    if ((c != '+' && c != '-') || fixed_digits (s, len, j + 1, 2) < 0)
        return j;
    j += 3;
    size_t m = at (s, len, j) == ':' ? j + 1 : j;
    return fixed_digits (s, len, m, 2) >= 0 ? m + 2 : j;
}

static size_t
match_time (const char *s, size_t len, size_t i)
{
    int month = fixed_digits (s, len, i + 5, 2);
    int day = fixed_digits (s, len, i + 8, 2);
    if (fixed_digits (s, len, i, 4) < 0 || at (s, len, i + 4) != '-'
        || at (s, len, i + 7) != '-' || month < 1 || month > 12 || day < 1 || day > 31)
        return 0;
    size_t j = i + 10;
    unsigned char sep = at (s, len, j);
    size_t clock = (sep == 'T' || sep == 't' || sep == ' ') ? match_clock (s, len, j + 1) : 0;
    if (clock)
        j = match_zone (s, len, clock);
    return is_digit (at (s, len, j)) ? 0 : j;
}

/* The basic format: YYYYMMDDTHHMMSS[.fraction][zone] (20260609T143211Z). */
static size_t
match_time_basic (const char *s, size_t len, size_t i)
{
    int month = fixed_digits (s, len, i + 4, 2);
    int day = fixed_digits (s, len, i + 6, 2);
    if (fixed_digits (s, len, i, 4) < 0 || month < 1 || month > 12 || day < 1 || day > 31
        || (at (s, len, i + 8) | 0x20) != 't' || fixed_digits (s, len, i + 9, 6) < 0)
        return 0;
    size_t j = i + 15;
    if ((at (s, len, j) == '.' || at (s, len, j) == ',') && is_digit (at (s, len, j + 1)))
        j = skip_digits (s, len, j + 1);
    j = match_zone (s, len, j);
    return is_word (at (s, len, j)) ? 0 : j;
}

/* One IPv4 octet (1-3 digits, <= 255) at *j. */
static bool
octet (const char *s, size_t len, size_t *j)
{
    size_t end = skip_digits (s, len, *j);
    if (end == *j || end - *j > 3 || fixed_digits (s, len, *j, end - *j) > 255)
        return false;
    *j = end;
    return true;
}

static size_t
match_ipv4 (const char *s, size_t len, size_t i)
{
    size_t j = i;
    for (int k = 0; k < 4; k++) {
        if (k > 0 && at (s, len, j++) != '.')
            return 0;
        if (!octet (s, len, &j))
            return 0;
    }
    if (is_word (at (s, len, j)) || (at (s, len, j) == '.' && is_digit (at (s, len, j + 1))))
        return 0;
    if (at (s, len, j) == ':' && is_digit (at (s, len, j + 1))) {
        size_t port = skip_digits (s, len, j + 1);
        if (port - j <= 6 && !is_word (at (s, len, port)))
            j = port;
    }
    return j;
}

static size_t
match_hex (const char *s, size_t len, size_t i)
{
    if (s [i] == '0' && (at (s, len, i + 1) | 0x20) == 'x' && is_hex (at (s, len, i + 2))) {
        size_t j = i + 2;
        while (is_hex (at (s, len, j)))
            j++;
        return j;
    }
    size_t j = i, digits = 0, letters = 0;
    for (; j < len && is_hex ((unsigned char) s [j]); j++) {
        if (is_digit ((unsigned char) s [j]))
            digits++;
        else
            letters++;
    }
    return j - i >= 8 && digits && letters && !is_word (at (s, len, j)) ? j : 0;
}

/* Object@1b6d358: a hash code (any length, at least one digit) after '@'. */
static size_t
match_hash_code (const char *s, size_t len, size_t i)
{
    size_t j = i, digits = 0;
    for (; j < len && is_hex ((unsigned char) s [j]); j++)
        digits += is_digit ((unsigned char) s [j]);
    return digits && !is_word (at (s, len, j)) ? j : 0;
}

static size_t
match_number (const char *s, size_t len, size_t i)
{
    size_t j = skip_digits (s, len, i);
    while ((at (s, len, j) == '.' || at (s, len, j) == ',') && is_digit (at (s, len, j + 1)))
        j = skip_digits (s, len, j + 1);
    if ((at (s, len, j) | 0x20) == 'e') {
        size_t k = j + 1;
        if (at (s, len, k) == '+' || at (s, len, k) == '-')
            k++;
        if (is_digit (at (s, len, k)))
            j = skip_digits (s, len, k);
    }
    return j;
}

/* What the last scan for a closing quote found, per kind of quote: from
 * start on, the first closer (or the newline or end that stops a value)
 * is at stop. Whether a byte closes a value does not depend on where the
 * value opened, so a later opener before stop has the same answer and
 * need not scan again: every byte is scanned once per kind of quote, and
 * a line of unclosed quotes costs linear time, not quadratic. */
typedef struct {
    size_t start, stop;
    bool   closed;          /* stop is a closing quote (else a newline or the end) */
    bool   valid;
} quote_scan_t;

typedef struct {
    quote_scan_t by_quote [3];  /* ', ", ` */
} quote_memo_t;

/* A quoted value at i (s [i] is a quote that starts a word). */
static size_t
match_quoted (const char *s, size_t len, size_t i, quote_memo_t *memo)
{
    char quote = s [i];
    quote_scan_t *scan = &memo->by_quote [quote == '\'' ? 0 : quote == '"' ? 1 : 2];
    if (!scan->valid || i < scan->start || i >= scan->stop) {
        size_t j = i + 1;
        while (j < len && s [j] != '\n'
               && !(s [j] == quote && (quote != '\'' || !is_word (at (s, len, j + 1)))))
            j++;
        *scan = (quote_scan_t) { i, j, j < len && s [j] == quote, true };
    }
    return scan->closed ? scan->stop + 1 : 0;
}

typedef enum {
    TOKEN_NONE,
    TOKEN_UUID,
    TOKEN_TIME,
    TOKEN_IP,
    TOKEN_HEX,
    TOKEN_NUM,
    TOKEN_STR
} token_kind_t;

typedef struct {
    token_kind_t kind;
    size_t       end;
} token_t;

static const char *const placeholders [] = {
    [TOKEN_UUID] = "<uuid>", [TOKEN_TIME] = "<time>", [TOKEN_IP] = "<ip>",
    [TOKEN_HEX] = "<hex>", [TOKEN_NUM] = "<num>", [TOKEN_STR] = "<str>",
};

static token_t
token (token_kind_t kind, size_t end)
{
    return (token_t) { end ? kind : TOKEN_NONE, end };
}

/* The variable token that starts the word at i, first match wins. */
static token_t
match_word (const char *s, size_t len, size_t i)
{
    unsigned char c = (unsigned char) s [i];
    token_t t = token (TOKEN_NONE, 0);
    if (is_hex (c))
        t = token (TOKEN_UUID, match_uuid (s, len, i));
    if (!t.kind && is_digit (c))
        t = token (TOKEN_TIME, match_time (s, len, i));
    if (!t.kind && is_digit (c))
        t = token (TOKEN_TIME, match_time_basic (s, len, i));
    if (!t.kind && is_digit (c))
        t = token (TOKEN_IP, match_ipv4 (s, len, i));
    if (!t.kind && is_hex (c) && i > 0 && s [i - 1] == '@')
        t = token (TOKEN_HEX, match_hash_code (s, len, i));
    if (!t.kind && is_hex (c))
        t = token (TOKEN_HEX, match_hex (s, len, i));
    if (!t.kind && is_digit (c))
        t = token (TOKEN_NUM, match_number (s, len, i));
    return t;
}

/* The token at i, if any: a quoted value, a word token, or a signed number. */
static token_t
match_at (const char *s, size_t len, size_t i, quote_memo_t *memo)
{
    unsigned char c = (unsigned char) s [i];
    if (!word_starts_at (s, i))
        return token (TOKEN_NONE, 0);
    if (is_quote (c))
        return token (TOKEN_STR, match_quoted (s, len, i, memo));
    if (is_word (c))
        return match_word (s, len, i);
    if ((c == '-' || c == '+') && is_digit (at (s, len, i + 1))) {
        token_t t = match_word (s, len, i + 1);
        return t.kind == TOKEN_NUM ? t : token (TOKEN_NONE, 0);
    }
    return token (TOKEN_NONE, 0);
}

/* ---------------------------------------------------- message normaliser */

/* Cut the text appended since start to the cap, on a UTF-8 boundary. */
static void
cap_message (dlq_buf_t *out, size_t start)
{
    if (out->len - start <= DLQ_FINGERPRINT_MESSAGE_MAX)
        return;
    size_t n = DLQ_FINGERPRINT_MESSAGE_MAX;
    while (n > 0 && ((unsigned char) out->data [start + n] & 0xc0) == 0x80)
        n--;
    while (n > 0 && out->data [start + n - 1] == ' ')
        n--;
    out->len = start + n;
    out->data [out->len] = '\0';
}

void
dlq_fingerprint_normalise_message (const char *message, size_t len, dlq_buf_t *out)
{
    size_t start = out->len;
    bool pending_space = false;
    quote_memo_t memo = { 0 };
    dlq_buf_reserve (out, 0);
    out->data [out->len] = '\0';        /* data may be new: NUL-terminate it */
    for (size_t i = 0; i < len && out->len - start <= DLQ_FINGERPRINT_MESSAGE_MAX; ) {
        if (is_blank ((unsigned char) message [i])) {
            pending_space = out->len > start;
            i++;
            continue;
        }
        if (pending_space)
            dlq_buf_putc (out, ' ');
        pending_space = false;
        token_t t = match_at (message, len, i, &memo);
        if (t.kind) {
            dlq_buf_puts (out, placeholders [t.kind]);
            i = t.end;
        } else {
            dlq_buf_putc (out, message [i++]);
        }
    }
    cap_message (out, start);
}

/* ------------------------------------------------------------ spans */

typedef struct {
    const char *p;
    size_t      n;
} span_t;

static span_t
span (const char *p, size_t n)
{
    return (span_t) { p, n };
}

/* The empty span: "" rather than NULL, so that arithmetic and memcpy on
 * any span's p are defined. */
static span_t
empty (void)
{
    return span ("", 0);
}

static span_t
trim (span_t s)
{
    while (s.n && (s.p [0] == ' ' || s.p [0] == '\t'))
        s.p++, s.n--;
    while (s.n && is_blank ((unsigned char) s.p [s.n - 1]))
        s.n--;
    return s;
}

static bool
starts_with (span_t s, const char *prefix)
{
    size_t n = strlen (prefix);
    return s.n >= n && memcmp (s.p, prefix, n) == 0;
}

static bool
ends_with_char (span_t s, char c)
{
    return s.n && s.p [s.n - 1] == c;
}

/* Offset of the first / last occurrence of needle in s, or SIZE_MAX. */
static size_t
find (span_t s, const char *needle)
{
    size_t n = strlen (needle);
    for (size_t i = 0; i + n <= s.n; i++) {
        const char *first = memchr (s.p + i, needle [0], s.n - n + 1 - i);
        if (!first)
            break;
        i = (size_t) (first - s.p);
        if (memcmp (first, needle, n) == 0)
            return i;
    }
    return SIZE_MAX;
}

static size_t
rfind (span_t s, const char *needle)
{
    size_t n = strlen (needle);
    for (size_t i = s.n; i >= n; i--)
        if (s.p [i - n] == needle [0] && memcmp (s.p + i - n, needle, n) == 0)
            return i - n;
    return SIZE_MAX;
}

static span_t
before (span_t s, size_t i)
{
    return span (s.p, i < s.n ? i : s.n);
}

static span_t
after (span_t s, size_t i)
{
    return i < s.n ? span (s.p + i, s.n - i) : span (s.p + s.n, 0);
}

/* s without a trailing ":<digits>" (or ":line <digits>" when line_word). */
static span_t
strip_line_suffix (span_t s, bool line_word)
{
    size_t end = s.n;
    while (end && is_digit ((unsigned char) s.p [end - 1]))
        end--;
    if (end == s.n)
        return s;
    const char *marker = line_word ? ":line " : ":";
    size_t m = strlen (marker);
    if (end < m || memcmp (s.p + end - m, marker, m) != 0)
        return s;
    return before (s, end - m);
}

/* --------------------------------------------------------------- lines */

typedef struct {
    const char *s;
    size_t      len;
    size_t      pos;        /* forward: start of the next line; backward: its end */
    bool        done;
} lines_t;

static lines_t
lines_of (const char *s, size_t len, bool backward)
{
    return (lines_t) { s, len, backward ? len : 0, len == 0 };
}

static bool
next_line (lines_t *it, span_t *line)
{
    if (it->done)
        return false;
    const char *here = it->s + it->pos;        /* an empty line needs no search */
    const char *nl = it->pos < it->len && *here == '\n' ? here : memchr (here, '\n', it->len - it->pos);
    size_t end = nl ? (size_t) (nl - it->s) : it->len;
    *line = span (it->s + it->pos, end - it->pos);
    it->pos = end + 1;
    it->done = nl == NULL;
    return true;
}

static bool
prev_line (lines_t *it, span_t *line)
{
    if (it->done)
        return false;
    size_t start = it->pos;
    while (start > 0 && it->s [start - 1] != '\n')
        start--;
    *line = span (it->s + start, it->pos - start);
    it->done = start == 0;
    it->pos = start ? start - 1 : 0;
    return true;
}

/* The line after the iterator's position, without moving it. */
static span_t
peek_line (lines_t it)
{
    span_t line = empty ();
    next_line (&it, &line);
    return line;
}

/* --------------------------------------------------------------- frames */

typedef enum {
    FRAME_NONE,
    FRAME_JAVA,
    FRAME_DOTNET,
    FRAME_JS,
    FRAME_PYTHON,
    FRAME_GO
} frame_style_t;

typedef struct {
    frame_style_t style;
    span_t        identity;
    span_t        location;     /* file as printed, with line etc.; may be empty */
    size_t        lines;        /* lines the frame takes (Go: 2) */
} frame_t;

static frame_t
frame (frame_style_t style, span_t identity, span_t location, size_t lines)
{
    return (frame_t) { style, trim (identity), trim (location), lines };
}

static const frame_t no_frame = { FRAME_NONE, { "", 0 }, { "", 0 }, 0 };

/* File "x.py", line 12, in f */
static frame_t
parse_python (span_t line)
{
    if (!starts_with (line, "File \""))
        return no_frame;
    span_t rest = after (line, 6);
    size_t quote = find (rest, "\"");
    if (quote == SIZE_MAX || !starts_with (after (rest, quote + 1), ", line "))
        return no_frame;
    span_t tail = after (rest, quote + 1);
    size_t in = find (tail, ", in ");
    span_t function = in == SIZE_MAX ? empty () : after (tail, in + 5);
    return frame (FRAME_PYTHON, function, before (rest, quote), 1);
}

/* The text in a Java frame's parentheses is a location, not parameters. */
static bool
is_java_location (span_t s)
{
    if (strip_line_suffix (s, false).n != s.n)
        return true;
    if ((s.n == 13 && memcmp (s.p, "Native Method", 13) == 0)
        || (s.n == 14 && memcmp (s.p, "Unknown Source", 14) == 0))
        return true;
    return s.n && find (s, " ") == SIZE_MAX && find (s, ",") == SIZE_MAX
        && find (s, ".") != SIZE_MAX;
}

/* A Java frame without the packaging data logback / log4j2 append:
 * "...(Orders.java:42) ~[app.jar:1.2.3]" or " [app.jar:?]". */
static span_t
without_packaging (span_t s)
{
    size_t open = rfind (s, "[");
    if (!ends_with_char (s, ']') || open == SIZE_MAX || open == 0)
        return s;
    span_t head = before (s, open);
    if (ends_with_char (head, '~'))
        head = before (head, head.n - 1);
    return ends_with_char (head, ' ') ? trim (head) : s;
}

/* "at ..." lines: .NET, JS (V8) and Java. */
static frame_t
parse_at (span_t line)
{
    if (!starts_with (line, "at "))
        return no_frame;
    span_t rest = without_packaging (trim (after (line, 3)));
    size_t in = find (rest, " in ");
    if (in != SIZE_MAX && find (after (rest, in), ":line ") != SIZE_MAX)
        return frame (FRAME_DOTNET, before (rest, in), after (rest, in + 4), 1);
    size_t paren = find (rest, " (");
    if (paren != SIZE_MAX && ends_with_char (rest, ')'))
        return frame (FRAME_JS, before (rest, paren),
                      span (rest.p + paren + 2, rest.n - paren - 3), 1);
    paren = find (rest, "(");
    if (paren != SIZE_MAX && ends_with_char (rest, ')')) {
        span_t inside = span (rest.p + paren + 1, rest.n - paren - 2);
        return is_java_location (inside)
             ? frame (FRAME_JAVA, before (rest, paren), inside, 1)
             : frame (FRAME_DOTNET, rest, empty (), 1);
    }
    span_t no_column = strip_line_suffix (rest, false);
    if (no_column.n != rest.n && strip_line_suffix (no_column, false).n != no_column.n
        && find (rest, " ") == SIZE_MAX)
        return frame (FRAME_JS, empty (), rest, 1);
    return no_frame;
}

/* A Go source line: <path>.go:<line>, optionally " +0x1d". */
static bool
is_go_location (span_t s)
{
    size_t offset = rfind (s, " +0x");
    if (offset != SIZE_MAX)
        s = before (s, offset);
    span_t file = strip_line_suffix (s, false);
    return file.n != s.n && file.n > 3 && memcmp (file.p + file.n - 3, ".go", 3) == 0;
}

/* main.f(...) followed by <tab>/path/x.go:12 +0x1d (the line after it,
 * looked at only when this one can start a Go frame). */
static frame_t
parse_go (span_t line, lines_t after_line)
{
    if (!ends_with_char (line, ')'))
        return no_frame;
    size_t paren = rfind (line, "(");
    span_t next = peek_line (after_line);
    if (paren == SIZE_MAX || paren == 0 || !is_go_location (trim (next)))
        return no_frame;
    return frame (FRAME_GO, before (line, paren), next, 2);
}

static frame_t
parse_frame (span_t line, lines_t after_line)
{
    line = trim (line);
    if (line.n == 0)
        return no_frame;                /* blank lines are common, and cheap to pass */
    frame_t f = parse_python (line);
    if (f.style == FRAME_NONE)
        f = parse_at (line);
    if (f.style == FRAME_NONE)
        f = parse_go (line, after_line);
    return f;
}

/* The base name of a frame's file: no line/column, offset, query or directories. */
static span_t
file_base_name (span_t loc, frame_style_t style)
{
    size_t offset = rfind (loc, " +0x");
    if (style == FRAME_GO && offset != SIZE_MAX)
        loc = before (loc, offset);
    loc = strip_line_suffix (loc, true);
    loc = strip_line_suffix (loc, false);
    loc = strip_line_suffix (loc, false);
    size_t slash = rfind (loc, "/");
    size_t backslash = rfind (loc, "\\");
    if (slash != SIZE_MAX && (backslash == SIZE_MAX || slash > backslash))
        loc = after (loc, slash + 1);
    else if (backslash != SIZE_MAX)
        loc = after (loc, backslash + 1);
    size_t query = find (loc, "?");
    return query == SIZE_MAX ? loc : before (loc, query);
}

/* An edit of a frame's text: [i, end) becomes text; end 0 = no edit at i. */
typedef struct {
    size_t      end;
    const char *text;
} edit_t;

static const edit_t no_edit = { 0, NULL };

/* 0x... or a long hex word at i -> <hex>. */
static edit_t
hex_edit (span_t s, size_t i)
{
    if (!is_hex ((unsigned char) s.p [i]) || !word_starts_at (s.p, i))
        return no_edit;
    return (edit_t) { match_hex (s.p, s.n, i), "<hex>" };
}

/* "<name><digits>" at i -> name. */
static edit_t
counter_edit (span_t s, size_t i, const char *prefix, const char *name)
{
    size_t n = strlen (prefix);
    if (s.n - i < n || memcmp (s.p + i, prefix, n) != 0 || !is_digit (at (s.p, s.n, i + n)))
        return no_edit;
    return (edit_t) { skip_digits (s.p, s.n, i + n), name };
}

/* A hidden class suffix "/0x..." or "/1234" (up to the next '.') -> nothing. */
static edit_t
hidden_suffix_edit (span_t s, size_t i)
{
    size_t end = i;
    while (end < s.n && s.p [end] != '.')
        end++;
    return (edit_t) { end, "" };
}

/* The per-run parts of generated Java classes, then hex. */
static edit_t
java_edit (span_t s, size_t i)
{
    edit_t e = no_edit;
    if (s.p [i] == '/')
        e = hidden_suffix_edit (s, i);
    else if (s.p [i] == '$')
        e = counter_edit (s, i, "$$Lambda$", "$$Lambda");
    if (!e.end && s.p [i] == '$')
        e = counter_edit (s, i, "$Proxy", "$Proxy");
    if (!e.end && s.p [i] == 'A')
        e = counter_edit (s, i, "Accessor", "Accessor");
    return e.end ? e : hex_edit (s, i);
}

/* Append s with the edits edit_at finds, copying the bytes between as runs. */
static void
put_edited (dlq_buf_t *out, span_t s, edit_t (*edit_at) (span_t, size_t))
{
    size_t plain = 0;           /* start of the bytes not yet appended */
    for (size_t i = 0; i < s.n; ) {
        edit_t e = edit_at (s, i);
        if (!e.end) {
            i++;
            continue;
        }
        dlq_buf_append (out, s.p + plain, i - plain);
        dlq_buf_puts (out, e.text);
        i = plain = e.end;
    }
    dlq_buf_append (out, s.p + plain, s.n - plain);
}

/* Offset after a Java class loader / module prefix ("app//",
 * "java.base@17/"): after the last '/' that is not followed by a digit. */
static size_t
java_prefix_end (span_t s)
{
    size_t start = 0;
    for (size_t i = 0; i + 1 < s.n; i++)
        if (s.p [i] == '/' && !is_digit ((unsigned char) s.p [i + 1]))
            start = i + 1;
    return start;
}

static void
put_frame (dlq_buf_t *out, frame_t f)
{
    if (f.style == FRAME_JAVA)
        put_edited (out, after (f.identity, java_prefix_end (f.identity)), java_edit);
    else
        put_edited (out, f.identity, hex_edit);
    span_t file = file_base_name (f.location, f.style);
    if (!file.n)
        return;
    if (f.identity.n)
        dlq_buf_putc (out, ' ');
    dlq_buf_putc (out, '(');
    put_edited (out, file, hex_edit);
    dlq_buf_putc (out, ')');
}

/* Python prints the innermost call last: its last frames, last first. */
static size_t
python_frames (const char *stack, size_t len, size_t max_frames, dlq_buf_t *out)
{
    lines_t it = lines_of (stack, len, true);
    span_t line;
    size_t count = 0;
    while (count < max_frames && prev_line (&it, &line)) {
        frame_t f = parse_python (trim (line));
        if (f.style == FRAME_NONE)
            continue;
        if (count++)
            dlq_buf_putc (out, '\n');
        put_frame (out, f);
    }
    return count;
}

size_t
dlq_fingerprint_top_frames (const char *stack, size_t len, size_t max_frames, dlq_buf_t *out)
{
    lines_t it = lines_of (stack, stack ? len : 0, false);
    span_t line;
    size_t count = 0;
    while (count < max_frames && next_line (&it, &line)) {
        if (line.n == 0) {
            while (it.pos < it.len && it.s [it.pos] == '\n')
                it.pos++;               /* a run of empty lines, passed at once */
            continue;
        }
        frame_t f = parse_frame (line, it);
        if (f.style == FRAME_NONE)
            continue;
        if (f.style == FRAME_PYTHON && count == 0)
            return python_frames (stack, len, max_frames, out);
        if (f.lines == 2)
            next_line (&it, &line);
        if (count++)
            dlq_buf_putc (out, '\n');
        put_frame (out, f);
    }
    return count;
}

/* ---------------------------------------------------------- fingerprint */

static void
hex64 (uint64_t h, char out [DLQ_FINGERPRINT_HEX_LEN + 1])
{
    static const char digits [] = "0123456789abcdef";
    for (int i = DLQ_FINGERPRINT_HEX_LEN - 1; i >= 0; i--, h >>= 4)
        out [i] = digits [h & 0xf];
    out [DLQ_FINGERPRINT_HEX_LEN] = '\0';
}

static void
fingerprint_of_spans (span_t type, span_t message, span_t stack, dlq_fingerprint_t *fp)
{
    dlq_buf_t normalised = DLQ_BUF_INIT, frames = DLQ_BUF_INIT;
    dlq_fingerprint_normalise_message (message.p, message.n, &normalised);
    dlq_fingerprint_top_frames (stack.p, stack.n, DLQ_FINGERPRINT_FRAMES, &frames);
    uint64_t h = dlq_hash_fnv64 (type.p, type.n);
    h = dlq_hash_fnv64_more (h, "", 1);
    h = dlq_hash_fnv64_more (h, normalised.data, normalised.len);
    h = dlq_hash_fnv64_more (h, "", 1);
    h = dlq_hash_fnv64_more (h, frames.data, frames.len);
    hex64 (h, fp->hex);
    memcpy (fp->normalised, normalised.data, normalised.len + 1);
    fp->normalised_len = normalised.len;
    dlq_buf_free (&normalised);
    dlq_buf_free (&frames);
}

static span_t
span_or_empty (const char *p, size_t n)
{
    return p ? span (p, n) : empty ();
}

void
dlq_fingerprint_of (const char *error_type, const char *message, size_t message_len,
                    const char *stack, size_t stack_len, dlq_fingerprint_t *fp)
{
    fingerprint_of_spans (span_or_empty (error_type, error_type ? strlen (error_type) : 0),
                          span_or_empty (message, message_len),
                          span_or_empty (stack, stack_len), fp);
}

/* A string member of obj, or the empty span. */
static span_t
string_member (const dlq_json_value_t *obj, const char *key)
{
    const dlq_json_value_t *v = dlq_json_get (obj, key);
    return v && v->type == DLQ_JSON_STRING ? span (v->str, v->len) : empty ();
}

bool
dlq_fingerprint_of_event (const char *json, size_t len, dlq_fingerprint_t *fp)
{
    dlq_json_doc_t *doc = NULL;
    if (dlq_json_parse (json, len, &doc, NULL) != DLQ_JSON_OK)
        return false;
    const dlq_json_value_t *root = dlq_json_root (doc);
    bool ok = root->type == DLQ_JSON_OBJECT;
    if (ok) {
        const dlq_json_value_t *error = dlq_json_get (root, "error");
        fingerprint_of_spans (string_member (error, "type"), string_member (error, "message"),
                              string_member (error, "stackTrace"), fp);
    }
    dlq_json_doc_destroy (&doc);
    return ok;
}
