/*  fuzz_support — splitting, failing and scratch space for the harnesses. */
#include "fuzz_support.h"

#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

size_t
fuzz_split (const uint8_t *data, size_t len, uint8_t sep, fuzz_span_t *out, size_t max)
{
    size_t n = 0, start = 0;
    for (size_t i = 0; i < len && n + 1 < max; i++)
        if (data [i] == sep) {
            out [n++] = (fuzz_span_t) { data + start, i - start };
            start = i + 1;
        }
    out [n++] = (fuzz_span_t) { data + start, len - start };
    return n;
}

void
fuzz_fail (const char *fmt, ...)
{
    va_list args;
    va_start (args, fmt);
    fputs ("fuzz oracle: ", stderr);
    vfprintf (stderr, fmt, args);
    fputc ('\n', stderr);
    va_end (args);
    abort ();
}

static int
remove_entry (const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void) st; (void) flag; (void) ftw;
    remove (path);
    return 0;
}

void
fuzz_remove_tree (const char *path)
{
    nftw (path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

#define SCRATCH_MAX 8
static char  *scratch [SCRATCH_MAX];
static size_t scratch_count;

static void
remove_scratch (void)
{
    for (size_t i = 0; i < scratch_count; i++) {
        fuzz_remove_tree (scratch [i]);
        free (scratch [i]);
    }
    scratch_count = 0;
}

const char *
fuzz_scratch_dir (const char *name)
{
    const char *tmp = getenv ("TMPDIR");
    char path [4096];
    snprintf (path, sizeof path, "%s/dlqd-%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
    if (scratch_count == SCRATCH_MAX || !mkdtemp (path))
        fuzz_fail ("cannot make a scratch directory %s", path);
    if (scratch_count == 0)
        atexit (remove_scratch);
    scratch [scratch_count] = strdup (path);
    if (!scratch [scratch_count])
        abort ();
    return scratch [scratch_count++];
}

bool
fuzz_write_file (const char *path, const void *data, size_t len)
{
    FILE *f = fopen (path, "wb");
    if (!f)
        return false;
    bool ok = fwrite (data, 1, len, f) == len;
    return fclose (f) == 0 && ok;
}
