/*  dlq_buf — growable byte buffer. */
#include "dlq_buf.h"
#include "dlq_alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
dlq_buf_reserve (dlq_buf_t *buf, size_t extra)
{
    size_t need = buf->len + extra + 1;
    if (need <= buf->cap)
        return;
    size_t cap = buf->cap ? buf->cap : 256;
    while (cap < need)
        cap *= 2;
    buf->data = dlq_realloc (buf->data, cap);
    buf->cap = cap;
}

void
dlq_buf_append (dlq_buf_t *buf, const void *bytes, size_t len)
{
    dlq_buf_reserve (buf, len);
    if (len)
        memcpy (buf->data + buf->len, bytes, len);
    buf->len += len;
    buf->data [buf->len] = '\0';
}

void dlq_buf_puts (dlq_buf_t *buf, const char *s) { dlq_buf_append (buf, s, strlen (s)); }

void
dlq_buf_putc (dlq_buf_t *buf, char c)
{
    dlq_buf_reserve (buf, 1);
    buf->data [buf->len++] = c;
    buf->data [buf->len] = '\0';
}

void
dlq_buf_printf (dlq_buf_t *buf, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    char small [256];
    int n = vsnprintf (small, sizeof small, fmt, ap);
    va_end (ap);
    if (n < 0)
        return;
    if ((size_t) n < sizeof small) {
        dlq_buf_append (buf, small, (size_t) n);
        return;
    }
    dlq_buf_reserve (buf, (size_t) n);
    va_start (ap, fmt);
    vsnprintf (buf->data + buf->len, (size_t) n + 1, fmt, ap);
    va_end (ap);
    buf->len += (size_t) n;
}

void
dlq_buf_put_int (dlq_buf_t *buf, int64_t value)
{
    char digits [24];
    char *end = digits + sizeof digits, *p = end;
    uint64_t v = value < 0 ? (uint64_t) 0 - (uint64_t) value : (uint64_t) value;
    do {
        *--p = (char) ('0' + v % 10);
        v /= 10;
    } while (v);
    if (value < 0)
        *--p = '-';
    dlq_buf_append (buf, p, (size_t) (end - p));
}

void
dlq_buf_reset (dlq_buf_t *buf)
{
    buf->len = 0;
    if (buf->data)
        buf->data [0] = '\0';
}

char *
dlq_buf_steal (dlq_buf_t *buf, size_t *len_p)
{
    if (!buf->data)
        dlq_buf_reserve (buf, 0), buf->data [0] = '\0';
    char *data = buf->data;
    if (len_p)
        *len_p = buf->len;
    buf->data = NULL;
    buf->len = buf->cap = 0;
    return data;
}

void
dlq_buf_free (dlq_buf_t *buf)
{
    free (buf->data);
    buf->data = NULL;
    buf->len = buf->cap = 0;
}
