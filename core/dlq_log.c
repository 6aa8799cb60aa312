/*  dlq_log — leveled logging to stderr. */
#include "dlq_log.h"

#include "dlq_time.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static atomic_int threshold = DLQ_LOG_INFO;
static const char *const names [] = { "DEBUG", "INFO", "WARN", "ERROR" };

void
dlq_log_set_level (dlq_log_level_t level)
{
    atomic_store (&threshold, (int) level);
}

int
dlq_log_parse_level (const char *name, dlq_log_level_t *level)
{
    static const char *const lower [] = { "debug", "info", "warn", "error" };
    for (int i = 0; i < 4; i++)
        if (strcmp (name, lower [i]) == 0) {
            *level = (dlq_log_level_t) i;
            return 1;
        }
    return 0;
}

void
dlq_log (dlq_log_level_t level, const char *fmt, ...)
{
    if ((int) level < atomic_load (&threshold))
        return;
    char line [2048], iso [DLQ_TIME_ISO_LEN + 1];
    dlq_time_format_iso (dlq_time_now_ms (), iso);
    int n = snprintf (line, sizeof line, "%s dlqd[%d] %s ", iso, (int) getpid (), names [level]);
    va_list ap;
    va_start (ap, fmt);
    int m = vsnprintf (line + n, sizeof line - (size_t) n - 1, fmt, ap);
    va_end (ap);
    size_t len = (size_t) n + (m < 0 ? 0 : (size_t) m);
    if (len > sizeof line - 2)
        len = sizeof line - 2;
    line [len++] = '\n';
    ssize_t ignored = write (STDERR_FILENO, line, len);
    (void) ignored;
}
