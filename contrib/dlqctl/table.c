/*  table — fitted, padded columns of text for dlqctl's tables. */
#include "table.h"

#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define ELLIPSIS "\xe2\x80\xa6"     /* U+2026, one character wide */

static bool
is_continuation (unsigned char c)
{
    return (c & 0xC0) == 0x80;
}

/* Number of characters (code points) in s. */
static size_t
char_count (const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        if (!is_continuation ((unsigned char) *s))
            n++;
    return n;
}

/* Byte offset where character number index starts in s. */
static size_t
char_offset (const char *s, size_t index)
{
    size_t n = 0, i = 0;
    for (; s [i]; i++) {
        if (!is_continuation ((unsigned char) s [i])) {
            if (n == index)
                return i;
            n++;
        }
    }
    return i;
}

/* Copy s with control characters (newlines, tabs, ...) as spaces. */
static void
sanitize (dlq_buf_t *out, const char *s)
{
    for (; *s; s++) {
        unsigned char c = (unsigned char) *s;
        dlq_buf_putc (out, c < 0x20 || c == 0x7F ? ' ' : (char) c);
    }
}

size_t
table_rest_width (size_t used)
{
    struct winsize ws;
    if (!isatty (STDOUT_FILENO) || ioctl (STDOUT_FILENO, TIOCGWINSZ, &ws) != 0 || ws.ws_col == 0)
        return 60;
    return ws.ws_col > used + 20 ? ws.ws_col - used : 20;
}

void
table_fit_columns (table_column_t *columns, size_t count, const char *const *cells, size_t rows)
{
    size_t used = 0;
    for (size_t i = 0; i + 1 < count; i++) {
        size_t need = char_count (columns [i].title);
        for (size_t r = 0; r < rows; r++) {
            const char *cell = cells [r * count + i];
            size_t n = char_count (cell && *cell ? cell : "-");
            if (n > need)
                need = n;
        }
        if (need < columns [i].width)
            columns [i].width = need;
        used += columns [i].width + 2;
    }
    if (count)
        columns [count - 1].width = table_rest_width (used);
}

void
table_fit (dlq_buf_t *out, const char *s, size_t width, bool keep_tail)
{
    dlq_buf_t clean = DLQ_BUF_INIT;
    sanitize (&clean, s);
    const char *text = clean.data ? clean.data : "";
    size_t chars = char_count (text);
    if (chars <= width)
        dlq_buf_puts (out, text);
    else
    if (width > 0 && keep_tail) {
        dlq_buf_puts (out, ELLIPSIS);
        dlq_buf_puts (out, text + char_offset (text, chars - (width - 1)));
    }
    else
    if (width > 0) {
        dlq_buf_append (out, text, char_offset (text, width - 1));
        dlq_buf_puts (out, ELLIPSIS);
    }
    dlq_buf_free (&clean);
}

/* Print cell fitted into its column, then padding up to the next one. */
static void
print_cell (FILE *out, const table_column_t *column, const char *cell, bool last)
{
    dlq_buf_t fitted = DLQ_BUF_INIT;
    table_fit (&fitted, cell && *cell ? cell : "-", column->width, column->keep_tail);
    const char *text = fitted.data ? fitted.data : "";
    fputs (text, out);
    if (!last)
        for (size_t n = char_count (text); n < column->width + 2; n++)
            fputc (' ', out);
    dlq_buf_free (&fitted);
}

void
table_print_header (FILE *out, const table_column_t *columns, size_t count)
{
    for (size_t i = 0; i < count; i++)
        print_cell (out, &columns [i], columns [i].title, i + 1 == count);
    fputc ('\n', out);
}

void
table_print_row (FILE *out, const table_column_t *columns, size_t count, const char *const *cells)
{
    for (size_t i = 0; i < count; i++)
        print_cell (out, &columns [i], cells [i], i + 1 == count);
    fputc ('\n', out);
}

void
table_print_cells (FILE *out, table_column_t *columns, size_t count, const char *const *cells, size_t rows)
{
    table_fit_columns (columns, count, cells, rows);
    table_print_header (out, columns, count);
    for (size_t r = 0; r < rows; r++)
        table_print_row (out, columns, count, cells + r * count);
}
