/*  service_notify — what dlqd tells the service manager that started it
 *  (systemd's sd_notify protocol, through libsystemd; docs/operations.md,
 *  "Running under systemd"): READY=1 once every listener is bound and the
 *  store is open, STOPPING=1 when the drain starts, STATUS= lines of what
 *  it is doing, and WATCHDOG=1 from the ingest thread's loop at half of
 *  WatchdogSec=, so that a stuck loop gets the service restarted. Without
 *  NOTIFY_SOCKET (not started by systemd with Type=notify) every call does
 *  nothing. Any thread.
 */
#ifndef DLQ_SERVICE_NOTIFY_H
#define DLQ_SERVICE_NOTIFY_H

#include <stdint.h>

/* READY=1 with STATUS=status. */
void dlq_service_notify_ready (const char *status);

/* STOPPING=1 with STATUS=status. */
void dlq_service_notify_stopping (const char *status);

/* STATUS= a printf-formatted line. */
void dlq_service_notify_status (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

/* How often the loop must call dlq_service_notify_watchdog: half of
 * WatchdogSec=, in ms; 0 when the service manager wants no watchdog. */
int64_t dlq_service_notify_watchdog_ms (void);

/* WATCHDOG=1. */
void dlq_service_notify_watchdog (void);

#endif
