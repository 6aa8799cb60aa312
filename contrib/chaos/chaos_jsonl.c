/*  chaos_jsonl — lines of the jsonl sink's files; see chaos_jsonl.h. A
 *  missing rotated file is no error; a last line without its line break
 *  (a batch cut by a kill and not yet truncated) is read as a line.
 */
#include "chaos_jsonl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ID_PREFIX "{\"id\":\""
#define ID_LEN    36

static void
chaos_jsonl_line (const char *line, size_t len, chaos_jsonl_line_fn *fn, void *arg)
{
    size_t prefix = strlen (ID_PREFIX);
    bool has_id = len > prefix + ID_LEN && memcmp (line, ID_PREFIX, prefix) == 0
                  && line [prefix + ID_LEN] == '"';
    fn (arg, has_id ? line + prefix : NULL, has_id ? ID_LEN : 0, line, len);
}

/* Read one file; false (errno set) when it cannot be opened. */
static bool
chaos_jsonl_file (const char *path, chaos_jsonl_line_fn *fn, void *arg, size_t *lines)
{
    FILE *file = fopen (path, "r");
    if (!file)
        return false;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline (&line, &cap, file)) > 0) {
        size_t len = (size_t) n;
        if (line [len - 1] == '\n')
            len--;
        chaos_jsonl_line (line, len, fn, arg);
        (*lines)++;
    }
    free (line);
    fclose (file);
    return true;
}

bool
chaos_jsonl_read (const char *path, int keep, chaos_jsonl_line_fn *fn, void *arg, size_t *lines,
                  char *err, size_t err_len)
{
    *lines = 0;
    char rotated [4096 + 16];
    for (int i = keep; i >= 1; i--) {
        snprintf (rotated, sizeof rotated, "%s.%d", path, i);
        chaos_jsonl_file (rotated, fn, arg, lines);
    }
    if (chaos_jsonl_file (path, fn, arg, lines))
        return true;
    snprintf (err, err_len, "jsonl: cannot read %s: %s", path, strerror (errno));
    return false;
}
