/*  dlq_buf — a growable byte buffer, always NUL-terminated.
 *
 *  A small value type (like Redis' sds, but a struct): declare one with
 *  DLQ_BUF_INIT, append to it, free it with dlq_buf_free. data is NULL
 *  until the first append.
 */
#ifndef DLQ_BUF_H
#define DLQ_BUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    char  *data;    /* NUL-terminated contents, owned by the buffer */
    size_t len;     /* bytes used, not counting the NUL */
    size_t cap;     /* bytes allocated */
} dlq_buf_t;

#define DLQ_BUF_INIT { NULL, 0, 0 }

/* Make room for at least extra more bytes (plus the NUL). */
void dlq_buf_reserve (dlq_buf_t *buf, size_t extra);
/* Append len bytes. */
void dlq_buf_append (dlq_buf_t *buf, const void *bytes, size_t len);
/* Append a NUL-terminated string. */
void dlq_buf_puts (dlq_buf_t *buf, const char *s);
/* Append one byte. */
void dlq_buf_putc (dlq_buf_t *buf, char c);
/* Append printf-formatted text. */
void dlq_buf_printf (dlq_buf_t *buf, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));
/* Append a signed integer in decimal. */
void dlq_buf_put_int (dlq_buf_t *buf, int64_t value);
/* Forget the contents, keep the allocation. */
void dlq_buf_reset (dlq_buf_t *buf);
/* Take ownership of the contents (never NULL); the buffer is left empty. */
char *dlq_buf_steal (dlq_buf_t *buf, size_t *len_p);
/* Free the contents; the buffer is left empty and reusable. */
void dlq_buf_free (dlq_buf_t *buf);

#endif
