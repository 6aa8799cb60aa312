/*  dlq_names — a linear search of a short table. */
#include "dlq_names.h"

#include <string.h>

const char *
dlq_names_name (const char *const *names, size_t count, size_t value, const char *unknown)
{
    return value < count ? names [value] : unknown;
}

bool
dlq_names_find (const char *const *names, size_t count, const char *name, size_t *value_out)
{
    for (size_t i = 0; name && i < count; i++) {
        if (strcmp (name, names [i]) == 0) {
            *value_out = i;
            return true;
        }
    }
    return false;
}
