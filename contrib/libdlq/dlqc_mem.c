/*  dlqc_mem — allocation wrappers of libdlq that abort on out-of-memory. */
#include "dlqc_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *
checked (void *p, size_t size)
{
    if (!p) {
        fprintf (stderr, "libdlq: out of memory allocating %zu bytes\n", size);
        abort ();
    }
    return p;
}

void *
dlqc_malloc (size_t size)
{
    return checked (malloc (size ? size : 1), size);
}

void *
dlqc_calloc (size_t count, size_t size)
{
    return checked (calloc (count ? count : 1, size ? size : 1), count * size);
}

void *
dlqc_realloc (void *ptr, size_t size)
{
    return checked (realloc (ptr, size ? size : 1), size);
}

char *
dlqc_strndup (const char *s, size_t len)
{
    char *copy = dlqc_malloc (len + 1);
    if (len)
        memcpy (copy, s, len);
    copy [len] = '\0';
    return copy;
}

char *
dlqc_strdup (const char *s)
{
    return dlqc_strndup (s, strlen (s));
}
