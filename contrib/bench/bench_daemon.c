/*  bench_daemon — start, probe and stop a private dlqd.
 *
 *  The port comes from binding an ephemeral loopback port and releasing it
 *  just before dlqd binds it again; another process could take it in
 *  between, in which case dlqd fails to start and the log says so.
 */
#include "bench_daemon.h"

#include "bench_gateway.h"
#include "dlq_time.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define PING_RETRY_MS 100
#define LOG_TAIL_BYTES 1500

int
bench_free_port (void)
{
    int fd = socket (AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = 0 };
    addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    int port = -1;
    if (bind (fd, (struct sockaddr *) &addr, sizeof addr) == 0
    &&  getsockname (fd, (struct sockaddr *) &addr, &len) == 0)
        port = ntohs (addr.sin_port);
    close (fd);
    return port;
}

static bool
write_config (bench_daemon_t *self, const char *dir, const char *extra, char *err, size_t err_len)
{
    FILE *file = fopen (self->config_path, "w");
    if (!file) {
        snprintf (err, err_len, "cannot write %s: %s", self->config_path, strerror (errno));
        return false;
    }
    fprintf (file, "# written by dlqd_bench\n"
                   "gateway: { listen = [\"%s\"]; data_dir = \"%s/gateway\"; %s };\n",
             self->endpoint, dir, self->gateway_settings ? self->gateway_settings : "");
    if (extra)
        fprintf (file, "%s\n", extra);
    chmod (self->config_path, 0600);    /* it may hold a sink's password (docs/security.md) */
    return fclose (file) == 0;
}

/* In the child: output to the log, then become dlqd. */
static void
exec_daemon (const bench_daemon_t *self, const char *binary)
{
    prctl (PR_SET_PDEATHSIG, SIGTERM);         /* no orphaned dlqd if the bench dies */
    int fd = open (self->log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) {
        dup2 (fd, STDOUT_FILENO);
        dup2 (fd, STDERR_FILENO);
        close (fd);
    }
    execl (binary, binary, "-c", self->config_path, (char *) NULL);
    fprintf (stderr, "dlqd_bench: cannot exec %s: %s\n", binary, strerror (errno));
    _exit (127);
}

/* Whether the child still runs; reaps it (keeping the status) if not. */
static bool
still_running (void *arg)
{
    bench_daemon_t *self = arg;
    if (self->pid == 0)
        return false;
    if (waitpid (self->pid, &self->status, WNOHANG) == self->pid) {
        self->pid = 0;
        return false;
    }
    return true;
}

/* Append the last LOG_TAIL_BYTES of the daemon's log to err. */
static void
append_log_tail (const bench_daemon_t *self, char *err, size_t err_len)
{
    FILE *file = fopen (self->log_path, "r");
    if (!file)
        return;
    char tail [LOG_TAIL_BYTES + 1];
    if (fseek (file, -LOG_TAIL_BYTES, SEEK_END) != 0)
        rewind (file);
    size_t n = fread (tail, 1, LOG_TAIL_BYTES, file);
    tail [n] = '\0';
    fclose (file);
    size_t used = strlen (err);
    if (n && used + 1 < err_len)
        snprintf (err + used, err_len - used, "\n--- %s ---\n%s", self->log_path, tail);
}

/* Describe a wait status: "exit status 3", "killed by signal 9". */
static void
describe_status (int status, char *out, size_t len)
{
    if (WIFEXITED (status))
        snprintf (out, len, "exit status %d", WEXITSTATUS (status));
    else
    if (WIFSIGNALED (status))
        snprintf (out, len, "killed by signal %d (%s)", WTERMSIG (status), strsignal (WTERMSIG (status)));
    else
        snprintf (out, len, "wait status 0x%x", (unsigned) status);
}

static bool
wait_ready (bench_daemon_t *self, void *zmq_ctx, int ready_ms, char *err, size_t err_len)
{
    bool ok = false;
    char reply [256] = "";
    if (bench_gateway_call (zmq_ctx, self->endpoint, "PING", "", ready_ms, PING_RETRY_MS,
                            still_running, self, &ok, reply, sizeof reply) && ok)
        return true;
    if (self->pid == 0) {
        char how [96];
        describe_status (self->status, how, sizeof how);
        snprintf (err, err_len, "dlqd exited during start-up (%s)", how);
    }
    else
        snprintf (err, err_len, "dlqd did not answer PING on %s within %d ms%s%s",
                  self->endpoint, ready_ms, reply [0] ? ": " : "", reply);
    return false;
}

bool
bench_daemon_start (bench_daemon_t *self, void *zmq_ctx, const char *binary,
                    const char *dir, const char *extra_config, int ready_ms,
                    char *err, size_t err_len)
{
    const char *gateway_settings = self->gateway_settings;
    memset (self, 0, sizeof *self);
    self->gateway_settings = gateway_settings;
    int port = bench_free_port ();
    if (port < 0) {
        snprintf (err, err_len, "cannot find a free loopback port: %s", strerror (errno));
        return false;
    }
    snprintf (self->endpoint, sizeof self->endpoint, "tcp://127.0.0.1:%d", port);
    snprintf (self->config_path, sizeof self->config_path, "%s/dlqd.conf", dir);
    snprintf (self->log_path, sizeof self->log_path, "%s/dlqd.log", dir);
    if (!write_config (self, dir, extra_config, err, err_len))
        return false;
    fflush (NULL);
    self->pid = fork ();
    if (self->pid < 0) {
        self->pid = 0;
        snprintf (err, err_len, "fork: %s", strerror (errno));
        return false;
    }
    if (self->pid == 0)
        exec_daemon (self, binary);
    if (wait_ready (self, zmq_ctx, ready_ms, err, err_len))
        return true;
    double ignored;
    char stop_err [256];
    bench_daemon_stop (self, 2000, &ignored, stop_err, sizeof stop_err);
    append_log_tail (self, err, err_len);
    return false;
}

/* Wait for the exit until deadline_ms (monotonic); true when it exited. */
static bool
reap_until (bench_daemon_t *self, int64_t deadline_ms)
{
    while (still_running (self)) {
        if (dlq_time_mono_ms () >= deadline_ms)
            return false;
        usleep (2000);
    }
    return true;
}

bool
bench_daemon_stop (bench_daemon_t *self, int wait_ms, double *drain_s, char *err, size_t err_len)
{
    *drain_s = 0;
    if (self->pid == 0) {
        snprintf (err, err_len, "dlqd was no longer running");
        return false;
    }
    int64_t start = dlq_time_mono_ns ();
    kill (self->pid, SIGTERM);
    if (!reap_until (self, dlq_time_mono_ms () + wait_ms)) {
        kill (self->pid, SIGKILL);
        reap_until (self, dlq_time_mono_ms () + 5000);
        snprintf (err, err_len, "dlqd did not exit within %d ms of SIGTERM; killed", wait_ms);
        return false;
    }
    *drain_s = (double) (dlq_time_mono_ns () - start) / 1e9;
    if (WIFEXITED (self->status) && WEXITSTATUS (self->status) == 0)
        return true;
    char how [96];
    describe_status (self->status, how, sizeof how);
    snprintf (err, err_len, "dlqd ended with %s after SIGTERM (expected exit status 0)", how);
    append_log_tail (self, err, err_len);
    return false;
}

static int
remove_entry (const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void) st;
    (void) flag;
    (void) ftw;
    if (remove (path) != 0)
        fprintf (stderr, "bench: cannot remove %s: %s\n", path, strerror (errno));
    return 0;
}

void
bench_remove_tree (const char *path)
{
    nftw (path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

bool
bench_daemon_temp_dir (char *dir, size_t len, const char *name, const char *program)
{
    const char *base = getenv ("TMPDIR");
    snprintf (dir, len, "%s/%s.XXXXXX", base && *base ? base : "/tmp", name);
    if (mkdtemp (dir))
        return true;
    fprintf (stderr, "%s: cannot create %s: %s\n", program, dir, strerror (errno));
    return false;
}

bool
bench_daemon_finish (bench_daemon_t *self, const char *dir, bool keep, int wait_ms, const char *program)
{
    bool ok = true;
    char err [4096];
    double drain = 0;
    if (self->pid && !bench_daemon_stop (self, wait_ms, &drain, err, sizeof err)) {
        fprintf (stderr, "%s: %s\n", program, err);
        ok = false;
    }
    if (!keep)
        bench_remove_tree (dir);
    else
        printf ("kept %s\n", dir);
    return ok;
}
