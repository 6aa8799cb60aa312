/*  dlq_alloc — the one out-of-memory policy: allocation failure aborts.
 *
 *  Every allocation in dlqd, and in libdlq (which compiles this file with
 *  hidden visibility), goes through these wrappers, so error paths only
 *  ever deal with I/O, never with a NULL from malloc. The message names the
 *  process (program_invocation_short_name).
 */
#ifndef DLQ_ALLOC_H
#define DLQ_ALLOC_H

#include <stddef.h>

/* malloc that aborts with a message on failure. Never returns NULL. */
void *dlq_malloc(size_t size);
/* calloc that aborts on failure. */
void *dlq_calloc(size_t count, size_t size);
/* realloc that aborts on failure. */
void *dlq_realloc(void *ptr, size_t size);
/* size bytes of zeroed pages mapped for this use alone (mmap), so that
 * dlq_pages_free gives them back to the system at once, whatever malloc's
 * thresholds: for large tables replaced as they grow. Aborts on failure. */
void *dlq_pages_alloc(size_t size);
/* Unmap what dlq_pages_alloc (size) returned; accepts NULL. */
void dlq_pages_free(void *pages, size_t size);
/* Copy of a NUL-terminated string; caller frees. */
char *dlq_strdup(const char *s);
/* Copy of len bytes plus a terminating NUL; caller frees. s may be NULL
 * when len is 0. */
char *dlq_strndup(const char *s, size_t len);

#endif
