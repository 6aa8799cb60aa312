/*  dlq_secret — credentials in setting texts (see the header). */
#include "dlq_secret.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

/* scheme://user:password@...: a ':' with something after it before the
 * '@' that ends the authority's user part. */
static bool
url_password (const char *text)
{
    const char *p = strstr (text, "://");
    if (!p)
        return false;
    p += 3;
    size_t authority = strcspn (p, "/?#");
    const char *at = memchr (p, '@', authority);
    if (!at)
        return false;
    const char *colon = memchr (p, ':', (size_t) (at - p));
    return colon && colon + 1 < at;
}

/* "password=" at the start or after a space, '.' or ','; a value after it. */
static bool
password_pair (const char *text)
{
    for (const char *p = text; (p = strcasestr (p, "password")) != NULL; p += 8) {
        bool starts = p == text || p [-1] == ' ' || p [-1] == '.' || p [-1] == ',' || p [-1] == '\t';
        const char *q = p + 8;
        while (*q == ' ' || *q == '\t')
            q++;
        if (starts && *q == '=') {
            q++;
            while (*q == ' ' || *q == '\t')
                q++;
            if (*q && *q != ' ')
                return true;
        }
    }
    return false;
}

bool
dlq_secret_in (const char *text)
{
    return text && (url_password (text) || password_pair (text));
}
