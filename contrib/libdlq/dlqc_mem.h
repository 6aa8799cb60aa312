/*  dlqc_mem — libdlq's allocation wrappers (internal, not installed).
 *
 *  The project's out-of-memory policy, applied to the client library: an
 *  allocation failure aborts, so no error path deals with a NULL.
 */
#ifndef DLQC_MEM_H
#define DLQC_MEM_H

#include <stddef.h>

/* malloc that aborts on failure; never returns NULL. */
void *dlqc_malloc (size_t size);
/* calloc that aborts on failure; never returns NULL. */
void *dlqc_calloc (size_t count, size_t size);
/* realloc that aborts on failure; never returns NULL. */
void *dlqc_realloc (void *ptr, size_t size);
/* A NUL-terminated copy of len bytes of s; caller frees. */
char *dlqc_strndup (const char *s, size_t len);
/* A copy of the NUL-terminated s; caller frees. */
char *dlqc_strdup (const char *s);

#endif
