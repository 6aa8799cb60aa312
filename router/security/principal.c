/*  principal — a caller's name, role and stream scope, and whether they
 *  may use a stream (see the header).
 */
#include "principal.h"

#include "dlq_alloc.h"
#include "dlq_strmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CACHE_MAX 4096          /* decisions kept per principal before the cache starts again */
#define STREAM_CACHE_MAX 1024   /* longer stream names are decided afresh each time */

static const struct {
    const char *name;
    dlq_role_t  role;
} roles [] = {
    { "worker", DLQ_ROLE_WORKER },
    { "viewer", DLQ_ROLE_VIEWER },
    { "operator", DLQ_ROLE_OPERATOR },
    { "admin", DLQ_ROLE_ADMIN },
};

#define ROLE_COUNT (sizeof roles / sizeof roles [0])

struct dlq_principal {
    char          *name;
    dlq_role_t     role;
    bool           all;             /* every stream */
    dlq_strmap_t  *exact;           /* names without '*' */
    char         **entries;         /* every name and pattern, as given */
    size_t         entry_count;
    char         **patterns;        /* the entries with '*' (pointers into entries) */
    size_t         pattern_count;
    dlq_strmap_t  *cache;           /* stream -> ALLOWED / DENIED */
};

static char allowed_mark, denied_mark;
#define ALLOWED ((void *) &allowed_mark)
#define DENIED  ((void *) &denied_mark)

bool
dlq_principal_role_parse (const char *name, dlq_role_t *role)
{
    for (size_t i = 0; name && i < ROLE_COUNT; i++)
        if (strcmp (name, roles [i].name) == 0) {
            *role = roles [i].role;
            return true;
        }
    return false;
}

const char *
dlq_principal_role_name (dlq_role_t role)
{
    for (size_t i = 0; i < ROLE_COUNT; i++)
        if (roles [i].role == role)
            return roles [i].name;
    return "?";
}

void
dlq_principal_roles_text (unsigned bits, dlq_buf_t *out)
{
    size_t total = 0, n = 0;
    for (size_t i = 0; i < ROLE_COUNT; i++)
        total += (bits & roles [i].role) != 0;
    for (size_t i = 0; i < ROLE_COUNT; i++)
        if (bits & roles [i].role) {
            dlq_buf_printf (out, "%s%s", n == 0 ? "" : n + 1 == total ? " or " : ", ", roles [i].name);
            n++;
        }
}

static bool
has_control (const char *s)
{
    for (; *s; s++)
        if ((unsigned char) *s < 0x20 || *s == 0x7f)
            return true;
    return false;
}

/* Add one entry of len bytes at s to the scope. */
static void
add_entry (dlq_principal_t *self, const char *s, size_t len)
{
    char *entry = dlq_strndup (s, len);
    self->entries = dlq_realloc (self->entries, (self->entry_count + 1) * sizeof *self->entries);
    self->entries [self->entry_count++] = entry;
    if (strcmp (entry, "*") == 0)
        self->all = true;
    if (strchr (entry, '*')) {
        self->patterns = dlq_realloc (self->patterns, (self->pattern_count + 1) * sizeof *self->patterns);
        self->patterns [self->pattern_count++] = entry;
    }
    else
    if (!dlq_strmap_get (self->exact, entry))
        dlq_strmap_put (self->exact, entry, ALLOWED);
}

static bool
read_scope (dlq_principal_t *self, const char *streams, char *err, size_t err_len)
{
    const char *p = streams;
    while (true) {
        const char *end = strchr (p, ',');
        size_t len = end ? (size_t) (end - p) : strlen (p);
        while (len && (*p == ' ' || *p == '\t')) {
            p++;
            len--;
        }
        while (len && (p [len - 1] == ' ' || p [len - 1] == '\t'))
            len--;
        if (len == 0) {
            snprintf (err, err_len, "streams \"%s\" has an empty entry (expected names or patterns "
                      "separated by commas, e.g. \"orders, billing.*\")", streams);
            return false;
        }
        add_entry (self, p, len);
        if (!end)
            return true;
        p = end + 1;
    }
}

dlq_principal_t *
dlq_principal_new (const char *name, dlq_role_t role, const char *streams, char *err, size_t err_len)
{
    if (!name || !*name || has_control (name)) {
        snprintf (err, err_len, "name must be non-empty text without control characters");
        return NULL;
    }
    if (!streams || has_control (streams)) {
        snprintf (err, err_len, "streams must be given (names or patterns separated by commas, or \"*\")");
        return NULL;
    }
    dlq_principal_t *self = dlq_calloc (1, sizeof *self);
    self->name = dlq_strdup (name);
    self->role = role;
    self->exact = dlq_strmap_new (NULL);
    self->cache = dlq_strmap_new (NULL);
    if (!read_scope (self, streams, err, err_len)) {
        dlq_principal_destroy (&self);
        return NULL;
    }
    if (role == DLQ_ROLE_ADMIN)
        self->all = true;
    return self;
}

void
dlq_principal_destroy (dlq_principal_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_principal_t *self = *self_p;
    for (size_t i = 0; i < self->entry_count; i++)
        free (self->entries [i]);
    free (self->entries);
    free (self->patterns);
    dlq_strmap_destroy (&self->exact);
    dlq_strmap_destroy (&self->cache);
    free (self->name);
    free (self);
    *self_p = NULL;
}

const char *dlq_principal_name (const dlq_principal_t *self) { return self->name; }
dlq_role_t dlq_principal_role (const dlq_principal_t *self) { return self->role; }
bool dlq_principal_all_streams (const dlq_principal_t *self) { return self->all; }
size_t dlq_principal_entry_count (const dlq_principal_t *self) { return self->entry_count; }

const char *
dlq_principal_entry (const dlq_principal_t *self, size_t i)
{
    return i < self->entry_count ? self->entries [i] : NULL;
}

bool
dlq_principal_glob (const char *pattern, size_t pattern_len, const char *text, size_t len)
{
    size_t p = 0, t = 0, star = (size_t) -1, resume = 0;
    while (t < len) {
        if (p < pattern_len && pattern [p] == '*') {
            star = p++;
            resume = t;
        }
        else
        if (p < pattern_len && pattern [p] == text [t]) {
            p++;
            t++;
        }
        else
        if (star != (size_t) -1) {
            p = star + 1;
            t = ++resume;
        }
        else
            return false;
    }
    while (p < pattern_len && pattern [p] == '*')
        p++;
    return p == pattern_len;
}

static bool
decide (const dlq_principal_t *self, const char *stream, size_t len)
{
    if (self->all)
        return true;
    if (!memchr (stream, '\0', len) && dlq_strmap_get_n (self->exact, stream, len))
        return true;
    for (size_t i = 0; i < self->pattern_count; i++)
        if (dlq_principal_glob (self->patterns [i], strlen (self->patterns [i]), stream, len))
            return true;
    return false;
}

bool
dlq_principal_may_stream (dlq_principal_t *self, const char *stream, size_t len)
{
    if (self->all)
        return true;
    if (len > STREAM_CACHE_MAX || memchr (stream, '\0', len))
        return decide (self, stream, len);
    char key [STREAM_CACHE_MAX + 1];
    memcpy (key, stream, len);
    key [len] = '\0';
    void *known = dlq_strmap_get (self->cache, key);
    if (known)
        return known == ALLOWED;
    bool ok = decide (self, key, len);
    if (dlq_strmap_size (self->cache) >= CACHE_MAX) {
        dlq_strmap_destroy (&self->cache);
        self->cache = dlq_strmap_new (NULL);
    }
    dlq_strmap_put (self->cache, key, ok ? ALLOWED : DENIED);
    return ok;
}

void
dlq_principal_scope_frame (const dlq_principal_t *self, dlq_buf_t *out)
{
    dlq_buf_append (out, self->name, strlen (self->name) + 1);
    if (self->all)
        return;
    for (size_t i = 0; i < self->entry_count; i++)
        dlq_buf_append (out, self->entries [i], strlen (self->entries [i]) + 1);
}

bool
dlq_principal_scope_allows (const void *frame, size_t len, const char *stream, size_t stream_len)
{
    if (dlq_principal_scope_all (frame, len))
        return true;
    const char *p = frame, *end = p + len;
    const char *name_end = memchr (p, '\0', len);
    p = name_end ? name_end + 1 : end;              /* the name is no pattern */
    while (p < end) {
        const char *nul = memchr (p, '\0', (size_t) (end - p));
        size_t n = nul ? (size_t) (nul - p) : (size_t) (end - p);
        if (dlq_principal_glob (p, n, stream, stream_len))
            return true;
        p += n + 1;
    }
    return false;
}

bool
dlq_principal_scope_all (const void *frame, size_t len)
{
    const char *nul = len ? memchr (frame, '\0', len) : NULL;
    return len == 0 || !nul || (size_t) (nul - (const char *) frame) + 1 == len;
}

const char *
dlq_principal_scope_name (const void *frame, size_t len)
{
    return len && memchr (frame, '\0', len) ? frame : NULL;
}
