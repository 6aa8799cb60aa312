/*  chaos_daemon — dlqd's process across kills; see chaos_daemon.h.
 */
#include "chaos_daemon.h"

#include "chaos_proc.h"
#include "dlq_alloc.h"
#include "dlq_time.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define REAP_POLL_US 2000

struct chaos_daemon {
    char   *binary;
    char   *config_path;
    char   *log_path;
    pid_t   pid;                /* 0 when not running */
    size_t  starts;
};

chaos_daemon_t *
chaos_daemon_new (const char *binary, const char *config_path, const char *log_path)
{
    chaos_daemon_t *self = dlq_calloc (1, sizeof *self);
    self->binary = dlq_strdup (binary);
    self->config_path = dlq_strdup (config_path);
    self->log_path = dlq_strdup (log_path);
    return self;
}

void
chaos_daemon_destroy (chaos_daemon_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    chaos_daemon_t *self = *self_p;
    int status;
    chaos_daemon_kill (self, &status);
    free (self->binary);
    free (self->config_path);
    free (self->log_path);
    free (self);
    *self_p = NULL;
}

bool
chaos_daemon_start (chaos_daemon_t *self, char *err, size_t err_len)
{
    int log_fd = open (self->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0) {
        snprintf (err, err_len, "cannot open %s: %s", self->log_path, strerror (errno));
        return false;
    }
    dprintf (log_fd, "=== dlqd_chaos: start %zu ===\n", self->starts + 1);
    char *argv [] = { self->binary, "-c", self->config_path, NULL };
    pid_t pid = chaos_proc_spawn (argv, log_fd, log_fd, true);
    int saved = errno;
    close (log_fd);
    if (pid < 0) {
        snprintf (err, err_len, "cannot start %s: %s", self->binary, strerror (saved));
        return false;
    }
    self->pid = pid;
    self->starts++;
    return true;
}

bool
chaos_daemon_running (const chaos_daemon_t *self)
{
    return self->pid != 0;
}

bool
chaos_daemon_exited (chaos_daemon_t *self, int *status)
{
    if (self->pid == 0)
        return false;
    pid_t got = waitpid (self->pid, status, WNOHANG);
    if (got == 0 || (got < 0 && errno == EINTR))
        return false;
    self->pid = 0;
    return true;
}

/* Wait until the process is reaped or deadline (monotonic ms) passes. */
static bool
chaos_daemon_reap_until (chaos_daemon_t *self, int64_t deadline, int *status)
{
    while (!chaos_daemon_exited (self, status)) {
        if (self->pid == 0 || dlq_time_mono_ms () >= deadline)
            return self->pid == 0;
        usleep (REAP_POLL_US);
    }
    return true;
}

bool
chaos_daemon_kill (chaos_daemon_t *self, int *status)
{
    if (self->pid == 0)
        return false;
    kill (self->pid, SIGKILL);
    while (waitpid (self->pid, status, 0) < 0)
        if (errno != EINTR)
            break;
    self->pid = 0;
    return true;
}

bool
chaos_daemon_stop (chaos_daemon_t *self, int wait_ms, int *status)
{
    if (self->pid == 0)
        return false;
    kill (self->pid, SIGTERM);
    if (chaos_daemon_reap_until (self, dlq_time_mono_ms () + wait_ms, status))
        return true;
    chaos_daemon_kill (self, status);
    return false;
}

size_t
chaos_daemon_starts (const chaos_daemon_t *self)
{
    return self->starts;
}

const char *
chaos_daemon_log_path (const chaos_daemon_t *self)
{
    return self->log_path;
}
