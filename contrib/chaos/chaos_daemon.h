/*  chaos_daemon — the dlqd of a chaos run: started, SIGKILLed and started
 *  again, always with the same config, on the same endpoint and data_dir.
 *
 *  Every start appends to one log file, after a marker line
 *  ("=== dlqd_chaos: start N ==="), so the log tells the whole run. dlqd
 *  is started with PR_SET_PDEATHSIG: it dies with the thread that started
 *  it, so start, kill and stop it from the thread that lives longest (the
 *  chaos run's main thread). Not thread-safe.
 */
#ifndef DLQ_CHAOS_DAEMON_H
#define DLQ_CHAOS_DAEMON_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct chaos_daemon chaos_daemon_t;

/* A daemon that runs binary -c config_path, its output appended to
 * log_path (both strings are copied). Not started yet. */
chaos_daemon_t *chaos_daemon_new (const char *binary, const char *config_path, const char *log_path);

/* Stop it (SIGKILL, when it still runs) and free it; *self_p becomes
 * NULL. NULL or *self_p NULL: no-op. */
void chaos_daemon_destroy (chaos_daemon_t **self_p);

/* Start it (it must not be running). False with err when fork fails. */
bool chaos_daemon_start (chaos_daemon_t *self, char *err, size_t err_len);

/* True while the process started last has not been reaped. */
bool chaos_daemon_running (const chaos_daemon_t *self);

/* Reap the process if it has exited, without waiting: true when it had
 * (its wait status in *status), false when it still runs or none was
 * started. */
bool chaos_daemon_exited (chaos_daemon_t *self, int *status);

/* SIGKILL it and wait until it is reaped; *status gets its wait status
 * (a process that had exited by itself before the signal keeps its own).
 * False when none was running. */
bool chaos_daemon_kill (chaos_daemon_t *self, int *status);

/* SIGTERM it and wait up to wait_ms for it to exit (then SIGKILL);
 * *status gets its wait status. False when none was running or it did
 * not exit in time. */
bool chaos_daemon_stop (chaos_daemon_t *self, int wait_ms, int *status);

/* Starts so far. */
size_t chaos_daemon_starts (const chaos_daemon_t *self);

const char *chaos_daemon_log_path (const chaos_daemon_t *self);

#endif
