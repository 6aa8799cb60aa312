/*  sink_name — a stream's destination name; see the header. */
#include "sink_name.h"

#include <stdio.h>

bool
dlq_sink_stream_name (const char *prefix, const char *stream, const char *override, char *out, size_t max)
{
    int n = override && *override
          ? snprintf (out, max + 1, "%s", override)
          : snprintf (out, max + 1, "%s%s", prefix ? prefix : "", stream);
    if (n < 0 || (size_t) n > max) {
        out [0] = '\0';
        return false;
    }
    return true;
}
