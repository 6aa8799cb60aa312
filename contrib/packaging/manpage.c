/*  manpage — a man page from a hand-written roff template and what the
 *  program itself prints, so that the pages say what the code says:
 *
 *      manpage TEMPLATE help  < "dlqd --help"              > dlqd.8
 *      manpage TEMPLATE table < "dlqd --config-reference"  > dlqd.conf.5
 *
 *  The template's line ".\" (generated here)" is replaced: by the help text as
 *  it is (.nf ... .fi), or by each row of a Markdown table (| `name` |
 *  type | default | meaning |) as a tagged paragraph, its `code` in bold
 *  and its [links](...) as their text. Every other line is copied.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MARKER ".\\\" (generated here)"

/* Does s (n bytes, at a '[') start a Markdown link, [text](url)? */
static int
starts_link (const char *s, size_t n)
{
    const char *close = memchr (s, ']', n);
    return close && (size_t) (close - s) + 1 < n && close [1] == '(';
}

/* Text as roff: a backslash doubled as \e, a line never starting with a
 * control character, and for Markdown `code` bold and [text](url) text. */
static void
roff (const char *s, size_t n, int markdown, FILE *out)
{
    if (n && (s [0] == '.' || s [0] == '\''))
        fputs ("\\&", out);
    int bold = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s [i];
        if (c == '\\')
            fputs ("\\e", out);
        else
        if (markdown && c == '`') {
            fputs (bold ? "\\fR" : "\\fB", out);
            bold = !bold;
        }
        else
        if (markdown && c == ']' && i + 1 < n && s [i + 1] == '(') {
            const char *close = memchr (s + i, ')', n - i);
            i = close ? (size_t) (close - s) : n;
        }
        else
        if (markdown && c == '[' && starts_link (s + i, n - i))
            ;
        else
        if (markdown && c == '*' && i + 1 < n && s [i + 1] == '*')
            i++;
        else
            fputc (c, out);
    }
    if (bold)
        fputs ("\\fR", out);
}

/* The cells of a table row "| a | b | c |" (at most max), trimmed. */
static size_t
cells (char *line, char **cell, size_t max)
{
    size_t n = 0;
    char *p = strchr (line, '|');
    while (p && n < max) {
        char *next = strchr (p + 1, '|');
        if (!next)
            break;
        *next = '\0';
        char *c = p + 1;
        while (*c == ' ')
            c++;
        for (char *e = next - 1; e >= c && *e == ' '; e--)
            *e = '\0';
        cell [n++] = c;
        p = next;
    }
    return n;
}

static void
generate (const char *mode, FILE *in, FILE *out)
{
    char line [16384];
    int table = strcmp (mode, "table") == 0, rows = 0;
    if (!table)
        fputs (".nf\n", out);
    while (fgets (line, sizeof line, in)) {
        line [strcspn (line, "\n")] = '\0';
        if (!table) {
            roff (line, strlen (line), 0, out);
            fputc ('\n', out);
            continue;
        }
        char *cell [4];
        if (cells (line, cell, 4) != 4 || !strcmp (cell [0], "setting") || !strncmp (cell [0], "---", 3))
            continue;
        fputs (".TP\n", out);
        roff (cell [0], strlen (cell [0]), 1, out);
        fputs (" \\(em ", out);
        roff (cell [1], strlen (cell [1]), 1, out);
        fputs ("; default ", out);
        roff (cell [2], strlen (cell [2]), 1, out);
        fputs ("\n", out);
        roff (cell [3], strlen (cell [3]), 1, out);
        fputs ("\n", out);
        rows++;
    }
    if (!table)
        fputs (".fi\n", out);
    if (table && rows == 0) {
        fprintf (stderr, "manpage: no table rows on standard input\n");
        exit (1);
    }
}

int
main (int argc, char **argv)
{
    if (argc != 3 || (strcmp (argv [2], "help") && strcmp (argv [2], "table"))) {
        fprintf (stderr, "usage: manpage TEMPLATE help|table < TEXT > PAGE\n");
        return 64;
    }
    FILE *template = fopen (argv [1], "r");
    if (!template) {
        perror (argv [1]);
        return 66;
    }
    char line [4096];
    int found = 0;
    while (fgets (line, sizeof line, template)) {
        if (strncmp (line, MARKER, strlen (MARKER)) == 0) {
            generate (argv [2], stdin, stdout);
            found = 1;
        }
        else
            fputs (line, stdout);
    }
    fclose (template);
    if (!found) {
        fprintf (stderr, "manpage: %s has no line %s\n", argv [1], MARKER);
        return 1;
    }
    return ferror (stdout) ? 1 : 0;
}
