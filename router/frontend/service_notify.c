/*  service_notify — sd_notify for the service manager (see the header). */
#include "service_notify.h"

#include <stdarg.h>
#include <stdio.h>
#include <systemd/sd-daemon.h>

void
dlq_service_notify_ready (const char *status)
{
    sd_notifyf (0, "READY=1\nSTATUS=%s", status);
}

void
dlq_service_notify_stopping (const char *status)
{
    sd_notifyf (0, "STOPPING=1\nSTATUS=%s", status);
}

void
dlq_service_notify_status (const char *fmt, ...)
{
    char line [512];
    va_list args;
    va_start (args, fmt);
    vsnprintf (line, sizeof line, fmt, args);
    va_end (args);
    sd_notifyf (0, "STATUS=%s", line);
}

int64_t
dlq_service_notify_watchdog_ms (void)
{
    uint64_t usec = 0;
    if (sd_watchdog_enabled (0, &usec) <= 0 || usec == 0)
        return 0;
    int64_t half = (int64_t) (usec / 2000);
    return half > 0 ? half : 1;
}

void
dlq_service_notify_watchdog (void)
{
    sd_notify (0, "WATCHDOG=1");
}
