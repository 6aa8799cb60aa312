/*  log_json — a log line as one JSON object (see the header). */
#include "log_json.h"

#include "dlq_json.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define FIELD_MAX 128           /* bytes of a derived field's value, at most */
#define FIELD_ROOM (FIELD_MAX + 24)    /* a derived field written, at most */
#define TAIL_ROOM (4 * FIELD_ROOM + 8) /* kept free for the fields after the message */

typedef struct {
    char  *out;
    size_t cap, len;
} sink_t;

static void
put (sink_t *s, const char *bytes, size_t n)
{
    if (s->len + n >= s->cap)
        n = s->cap - s->len - 1;
    memcpy (s->out + s->len, bytes, n);
    s->len += n;
}

static void putz (sink_t *s, const char *z) { put (s, z, strlen (z)); }

/* n bytes of text escaped for a JSON string, stopping (at a character)
 * before the output reaches stop. */
static void
put_escaped (sink_t *s, const char *text, size_t n, size_t stop)
{
    for (size_t i = 0; i < n; ) {
        char esc [8];
        size_t step = 1;
        const char *piece = esc;
        size_t piece_len;
        unsigned char c = (unsigned char) text [i];
        if (c == '"' || c == '\\')
            piece_len = (size_t) snprintf (esc, sizeof esc, "\\%c", c);
        else
        if (c < 0x20)
            piece_len = (size_t) snprintf (esc, sizeof esc, "\\u%04x", c);
        else
        if (c < 0x80) {
            piece = text + i;
            piece_len = 1;
        }
        else {
            size_t bad = 0, want = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;
            if (want > 1 && i + want <= n && dlq_utf8_valid (text + i, want, &bad)) {
                piece = text + i;
                piece_len = step = want;
            }
            else
                piece = "\\ufffd", piece_len = 6;
        }
        if (s->len + piece_len + 1 > stop)
            break;
        put (s, piece, piece_len);
        i += step;
    }
}

/* A JSON string of n bytes of text, at most limit bytes written. */
static void
put_string (sink_t *s, const char *text, size_t n, size_t limit)
{
    size_t stop = s->len + limit < s->cap ? s->len + limit : s->cap - 1;
    putz (s, "\"");
    put_escaped (s, text, n, stop - 1);
    putz (s, "\"");
}

/* The word after prefix at the start of text, up to one of stops. */
static bool
word_after (const char *text, size_t len, const char *prefix, const char *stops, const char **word, size_t *n)
{
    size_t p = strlen (prefix);
    if (len <= p || memcmp (text, prefix, p) != 0)
        return false;
    size_t end = p;
    while (end < len && !strchr (stops, text [end]))
        end++;
    if (end == p || end == len || end - p > FIELD_MAX)
        return false;
    *word = text + p;
    *n = end - p;
    return true;
}

static bool
is_uuid_at (const char *t, size_t left)
{
    if (left < 36)
        return false;
    for (size_t i = 0; i < 36; i++) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? t [i] != '-' : !isxdigit ((unsigned char) t [i]))
            return false;
    }
    return left == 36 || !isxdigit ((unsigned char) t [36]);
}

static void
field (sink_t *s, const char *name, const char *value, size_t n)
{
    putz (s, ",\"");
    putz (s, name);
    putz (s, "\":");
    put_string (s, value, n, FIELD_MAX + 2);
}

size_t
dlq_log_json_line (char *out, size_t cap, const char *iso_time, const char *level, int pid,
                   const char *text, size_t len, const char *suffix)
{
    sink_t s = { out, cap, 0 };
    char head [128];
    snprintf (head, sizeof head, "{\"time\":\"%s\",\"level\":\"%s\",\"pid\":%d,\"message\":", iso_time, level, pid);
    putz (&s, head);
    /* the message and its suffix as one string: the suffix never cut */
    size_t tail = strlen (suffix);
    size_t reserve = TAIL_ROOM + tail * 6 + 4;
    size_t stop = cap > s.len + reserve + 16 ? cap - reserve : s.len + 16;
    putz (&s, "\"");
    put_escaped (&s, text, len, stop);
    put_escaped (&s, suffix, tail, cap - TAIL_ROOM);
    putz (&s, "\"");
    const char *w;
    size_t n;
    if (word_after (text, len, "sink ", ": (", &w, &n))
        field (&s, "sink", w, n);
    if (word_after (text, len, "schedule ", ": ", &w, &n))
        field (&s, "stream", w, n);
    bool audit = len > 7 && memcmp (text, "audit: {", 8) == 0;     /* its ids are jobs' too: not eventId */
    for (size_t i = 0; !audit && i + 36 <= len; i++)
        if ((i == 0 || !isxdigit ((unsigned char) text [i - 1])) && is_uuid_at (text + i, len - i)) {
            field (&s, "eventId", text + i, 36);
            break;
        }
    static const char principal [] = "\"principal\":\"";
    if (audit) {
        const char *at = memmem (text, len, principal, sizeof principal - 1);
        if (at) {
            const char *v = at + sizeof principal - 1, *end = v;
            while (end < text + len && *end != '"' && end - v < FIELD_MAX)
                end += *end == '\\' ? 2 : 1;
            if (end < text + len && *end == '"' && !memchr (v, '\\', (size_t) (end - v)))
                field (&s, "principal", v, (size_t) (end - v));
        }
    }
    putz (&s, "}\n");
    return s.len;
}
