/*  dlq_alloc — allocation wrappers that abort on out-of-memory. */
#include "dlq_alloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static void *
check (void *p, size_t size)
{
    if (!p && size) {
        fprintf (stderr, "%s: out of memory allocating %zu bytes\n", program_invocation_short_name, size);
        abort ();
    }
    return p;
}

void *dlq_malloc (size_t size) { return check (malloc (size ? size : 1), size); }
void *dlq_calloc (size_t count, size_t size) { return check (calloc (count ? count : 1, size ? size : 1), count * size); }
void *dlq_realloc (void *ptr, size_t size) { return check (realloc (ptr, size ? size : 1), size); }

void *
dlq_pages_alloc (size_t size)
{
    void *p = mmap (NULL, size ? size : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return check (p == MAP_FAILED ? NULL : p, size ? size : 1);
}

void
dlq_pages_free (void *pages, size_t size)
{
    if (pages)
        munmap (pages, size ? size : 1);
}

char *
dlq_strndup (const char *s, size_t len)
{
    char *copy = dlq_malloc (len + 1);
    if (len)
        memcpy (copy, s, len);
    copy [len] = '\0';
    return copy;
}

char *
dlq_strdup (const char *s)
{
    return dlq_strndup (s, strlen (s));
}
