/*  mongo_regex — $regex on POSIX extended regular expressions; see
 *  mongo_regex.h.
 */
#include "mongo_regex.h"

#include <bson/bson.h>

#include <ctype.h>
#include <pthread.h>
#include <regex.h>
#include <string.h>

/* A thread's last compiled expression. */
typedef struct {
    char   *pattern;
    int     flags;
    regex_t compiled;
} cached_t;

static pthread_key_t  cache_key;
static pthread_once_t cache_once = PTHREAD_ONCE_INIT;

static void
cached_free (void *p)
{
    cached_t *c = p;
    if (!c)
        return;
    regfree (&c->compiled);
    bson_free (c->pattern);
    bson_free (c);
}

static void
make_key (void)
{
    pthread_key_create (&cache_key, cached_free);
}

/* The regcomp flags of options; false (err) for an option not served. */
static bool
flags_of (const char *options, int *flags, mongo_error_t *err)
{
    *flags = REG_EXTENDED | REG_NOSUB;
    for (const char *o = options ? options : ""; *o; o++) {
        if (*o == 'i')
            *flags |= REG_ICASE;
        else {
            mongo_error_set (err, MONGO_ERR_NOT_IMPLEMENTED,
                             "the MongoDB test server takes no regex option '%c' (only i)", *o);
            return false;
        }
    }
    return true;
}

/* PCRE constructs that POSIX reads otherwise: \<letter or digit>, (?. */
static bool
shared_syntax (const char *pattern, mongo_error_t *err)
{
    for (const char *p = pattern; *p; p++) {
        if (*p == '\\' && p [1] && isalnum ((unsigned char) p [1])) {
            mongo_error_set (err, MONGO_ERR_NOT_IMPLEMENTED,
                             "the MongoDB test server does not evaluate \\%c in a regex", p [1]);
            return false;
        }
        if (*p == '(' && p [1] == '?') {
            mongo_error_set (err, MONGO_ERR_NOT_IMPLEMENTED,
                             "the MongoDB test server does not evaluate (? in a regex");
            return false;
        }
        if (*p == '\\' && p [1])
            p++;
    }
    return true;
}

bool
mongo_regex_check (const char *pattern, const char *options, mongo_error_t *err)
{
    int flags;
    if (!flags_of (options, &flags, err) || !shared_syntax (pattern, err))
        return false;
    regex_t re;
    int rc = regcomp (&re, pattern, flags);
    if (rc != 0) {
        char why [128];
        regerror (rc, &re, why, sizeof why);
        mongo_error_set (err, MONGO_ERR_BAD_VALUE, "Regular expression is invalid: %s", why);
        return false;
    }
    regfree (&re);
    return true;
}

/* The thread's compiled pattern (compiled now unless it was the last). */
static const regex_t *
compiled (const char *pattern, int flags)
{
    pthread_once (&cache_once, make_key);
    cached_t *c = pthread_getspecific (cache_key);
    if (c && c->flags == flags && strcmp (c->pattern, pattern) == 0)
        return &c->compiled;
    cached_free (c);
    c = bson_malloc0 (sizeof *c);
    if (regcomp (&c->compiled, pattern, flags) != 0) {
        bson_free (c);
        pthread_setspecific (cache_key, NULL);
        return NULL;
    }
    c->pattern = bson_strdup (pattern);
    c->flags = flags;
    pthread_setspecific (cache_key, c);
    return &c->compiled;
}

bool
mongo_regex_matches (const char *pattern, const char *options, const char *text)
{
    int flags;
    mongo_error_t err;
    if (!flags_of (options, &flags, &err))
        return false;
    const regex_t *re = compiled (pattern, flags);
    return re && regexec (re, text, 0, NULL, 0) == 0;
}
