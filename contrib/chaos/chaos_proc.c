/*  chaos_proc — fork and exec for the chaos run; see chaos_proc.h.
 *
 *  The run has many threads (ZeroMQ's, librdkafka's, the clients'), so the
 *  child does only async-signal-safe calls between fork and exec: setpgid,
 *  dup2, close_range, prctl, execv. Each child leads a process group of
 *  its own, so that a Ctrl-C reaches the run alone, which then stops
 *  what it started in order.
 */
#include "chaos_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

pid_t
chaos_proc_spawn (char *const argv [], int out_fd, int err_fd, bool parent_death)
{
    int null_fd = open ("/dev/null", O_RDWR | O_CLOEXEC);
    if (null_fd < 0)
        return -1;
    pid_t pid = fork ();
    if (pid == 0) {
        setpgid (0, 0);
        if (parent_death)
            prctl (PR_SET_PDEATHSIG, SIGKILL);
        dup2 (null_fd, STDIN_FILENO);
        dup2 (out_fd >= 0 ? out_fd : null_fd, STDOUT_FILENO);
        dup2 (err_fd >= 0 ? err_fd : null_fd, STDERR_FILENO);
        close_range (3, ~0U, 0);
        execv (argv [0], argv);
        _exit (127);
    }
    int saved = errno;
    close (null_fd);
    errno = saved;
    return pid;
}

int
chaos_proc_run (char *const argv [], char *out, size_t out_len, const char *log_path)
{
    int pipe_fds [2];
    if (pipe2 (pipe_fds, O_CLOEXEC) != 0)
        return -1;
    int log_fd = log_path ? open (log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
    pid_t pid = chaos_proc_spawn (argv, pipe_fds [1], log_fd, false);
    close (pipe_fds [1]);
    if (log_fd >= 0)
        close (log_fd);
    if (pid < 0) {
        close (pipe_fds [0]);
        return -1;
    }
    size_t used = 0;
    char sink [512];
    for (;;) {
        char *to = out && used + 1 < out_len ? out + used : sink;
        size_t room = out && used + 1 < out_len ? out_len - 1 - used : sizeof sink;
        ssize_t n = read (pipe_fds [0], to, room);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        if (to != sink)
            used += (size_t) n;
    }
    close (pipe_fds [0]);
    if (out && out_len) {
        while (used > 0 && (out [used - 1] == '\n' || out [used - 1] == '\r'))
            used--;
        out [used] = '\0';
    }
    int status = 0;
    while (waitpid (pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return status;
}

void
chaos_proc_describe (int status, char *out, size_t len)
{
    if (WIFEXITED (status))
        snprintf (out, len, "exit status %d", WEXITSTATUS (status));
    else if (WIFSIGNALED (status))
        snprintf (out, len, "killed by signal %d (%s)", WTERMSIG (status), strsignal (WTERMSIG (status)));
    else
        snprintf (out, len, "wait status 0x%x", (unsigned) status);
}
