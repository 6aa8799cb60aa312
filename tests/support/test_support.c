/*  test_support — dlqd processes and wire-protocol calls for the tests. */
#include "test_support.h"

#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

void
test_tmpdir (char *out)
{
    const char *base = getenv ("TMPDIR");
    snprintf (out, 256, "%s/dlqd-test-XXXXXX", base && *base ? base : "/tmp");
    if (!mkdtemp (out)) {
        perror ("mkdtemp");
        abort ();
    }
}

void
test_rmtree (const char *dir)
{
    if (!dir || !*dir)
        return;
    char cmd [600];
    snprintf (cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system (cmd) != 0)
        fprintf (stderr, "warning: could not remove %s\n", dir);
}

int
test_free_port (void)
{
    int fd = socket (AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = 0 };
    addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    bind (fd, (struct sockaddr *) &addr, sizeof addr);
    getsockname (fd, (struct sockaddr *) &addr, &len);
    close (fd);
    return ntohs (addr.sin_port);
}

bool
test_run_script (const char *script, const char *args, char *out, size_t out_len)
{
    char cmd [1024];
    snprintf (cmd, sizeof cmd, "'%s' %s", script, args);
    FILE *p = popen (cmd, "r");
    if (!p) {
        perror ("popen");
        return false;
    }
    char line [512] = "";
    if (!fgets (line, sizeof line, p))
        line [0] = '\0';
    char rest [256];
    while (fgets (rest, sizeof rest, p))
        ;
    int status = pclose (p);
    line [strcspn (line, "\n")] = '\0';
    if (out)
        snprintf (out, out_len, "%s", line);
    bool ok = status != -1 && WIFEXITED (status) && WEXITSTATUS (status) == 0;
    if (!ok)
        fprintf (stderr, "'%s' failed (status %d)\n", cmd, status);
    return ok;
}

/* Where free-port starts looking for the attempt'th time: spread by process
 * (parallel tests rarely race) and below the kernel's ephemeral ports
 * (32768 up), where outgoing connections would take ports from under us. */
static int
first_port_to_try (int attempt)
{
    return 20000 + (int) (((unsigned) getpid () * 7919u + (unsigned) attempt * 1009u) % 12000u);
}

/* One attempt: a fresh directory, a free port, "start". */
static bool
try_server_start (const char *script, const char *dir_template, char *dir, size_t dir_len, int attempt,
                  int *port, char *out, size_t out_len)
{
    snprintf (dir, dir_len, "%s", dir_template);
    if (!mkdtemp (dir)) {
        perror ("mkdtemp");
        dir [0] = '\0';
        return false;
    }
    char args [512], free_port [32];
    snprintf (args, sizeof args, "free-port %d", first_port_to_try (attempt));
    if (!test_run_script (script, args, free_port, sizeof free_port))
        return false;
    *port = atoi (free_port);
    snprintf (args, sizeof args, "start '%s' %d %d", dir, *port, (int) getpid ());
    return test_run_script (script, args, out, out_len);
}

bool
test_script_server_start (const char *script, const char *dir_template, char *dir, size_t dir_len,
                          int *port, char *out, size_t out_len)
{
    /* A port free when asked can be taken before the server binds it (by
     * another test's server): then the start fails, and another port is
     * tried in a new directory. */
    enum { ATTEMPTS = 3 };
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
        if (try_server_start (script, dir_template, dir, dir_len, attempt, port, out, out_len))
            return true;
        if (!dir [0])
            return false;
        test_script_server_command (script, "stop", dir, NULL, 0);
        test_rmtree (dir);
        fprintf (stderr, "%s: start failed, trying another port\n", script);
    }
    dir [0] = '\0';
    return false;
}

bool
test_script_server_command (const char *script, const char *command, const char *dir,
                            char *out, size_t out_len)
{
    if (!dir [0])
        return false;
    char args [512];
    snprintf (args, sizeof args, "%s '%s'", command, dir);
    return test_run_script (script, args, out, out_len);
}

uint64_t
test_random_u64 (void)
{
    uint64_t r = 0;
    int fd = open ("/dev/urandom", O_RDONLY);
    if (fd < 0 || read (fd, &r, sizeof r) != (ssize_t) sizeof r)
        r = (uint64_t) time (NULL) * 6364136223846793005ULL ^ (uint64_t) getpid ();
    if (fd >= 0)
        close (fd);
    return r;
}

char *
test_read_file (const char *path, size_t *len_out)
{
    FILE *f = fopen (path, "rb");
    if (!f)
        return NULL;
    fseek (f, 0, SEEK_END);
    long size = ftell (f);
    fseek (f, 0, SEEK_SET);
    char *data = malloc ((size_t) size + 1);
    size_t n = fread (data, 1, (size_t) size, f);
    fclose (f);
    data [n] = '\0';
    if (len_out)
        *len_out = n;
    return data;
}

void
test_complain (const char *who, const char *fmt, ...)
{
    va_list ap;
    va_start (ap, fmt);
    fprintf (stderr, "%s: ", who);
    vfprintf (stderr, fmt, ap);
    fputc ('\n', stderr);
    va_end (ap);
}

static void
print_log (const test_dlqd_t *d)
{
    char *log = test_read_file (d->log, NULL);
    fprintf (stderr, "---- dlqd log (%s) ----\n%s\n----\n", d->log, log ? log : "(none)");
    free (log);
}

static pid_t
spawn (test_dlqd_t *d)
{
    pid_t pid = fork ();
    if (pid == 0) {
        int fd = open (d->log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        dup2 (fd, STDOUT_FILENO);
        dup2 (fd, STDERR_FILENO);
        execl (DLQD_BINARY, "dlqd", "-c", d->config, (char *) NULL);
        _exit (127);
    }
    return pid;
}

/* Does something accept TCP connections on 127.0.0.1:port? */
static bool
port_open (int port)
{
    int fd = socket (AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) port) };
    addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    bool open = connect (fd, (struct sockaddr *) &addr, sizeof addr) == 0;
    close (fd);
    return open;
}

/* Wait until PING is answered, the process died, or 10 s passed. Until
 * the port is open, the process is watched every 20 ms, so that one that
 * fails at startup is known at once. */
static bool
wait_ready (test_dlqd_t *d)
{
    for (int i = 0; i < 500; i++) {
        int status;
        if (waitpid (d->pid, &status, WNOHANG) == d->pid) {
            d->pid = 0;
            break;
        }
        if (!port_open (d->port)) {
            usleep (20 * 1000);
            continue;
        }
        char st [8];
        char *body = NULL;
        bool ready = test_request_curve (&d->curve, d->endpoint, "PING", "", 0, st, &body) && strcmp (st, "OK") == 0;
        free (body);
        if (ready)
            return true;
    }
    print_log (d);
    return false;
}

bool
test_dlqd_start (test_dlqd_t *d, const char *gateway_extra, const char *extra)
{
    if (!d->dir [0])
        test_tmpdir (d->dir);
    d->port = test_free_port ();
    snprintf (d->endpoint, sizeof d->endpoint, "tcp://127.0.0.1:%d", d->port);
    snprintf (d->config, sizeof d->config, "%s/dlqd.conf", d->dir);
    snprintf (d->data_dir, sizeof d->data_dir, "%s/data", d->dir);
    snprintf (d->log, sizeof d->log, "%s/dlqd.log", d->dir);
    FILE *f = fopen (d->config, "w");
    fprintf (f, "gateway: { listen = [\"%s\"]; data_dir = \"%s\"; %s };\n%s\n",
             d->endpoint, d->data_dir, gateway_extra ? gateway_extra : "", extra ? extra : "");
    fclose (f);
    chmod (d->config, 0600);            /* it may hold a sink's password (docs/security.md) */
    d->pid = spawn (d);
    return wait_ready (d);
}

bool
test_dlqd_restart (test_dlqd_t *d)
{
    if (d->pid > 0)
        test_dlqd_signal_wait (d, SIGTERM);     /* still running: a restart stops it first */
    d->pid = spawn (d);
    return wait_ready (d);
}

int
test_dlqd_signal_wait (test_dlqd_t *d, int sig)
{
    int status = -1;
    if (d->pid <= 0)
        return status;
    kill (d->pid, sig);
    waitpid (d->pid, &status, 0);
    d->pid = 0;
    return status;
}

void
test_dlqd_cleanup (test_dlqd_t *d)
{
    if (d->pid > 0)
        test_dlqd_signal_wait (d, SIGTERM);
    test_rmtree (d->dir);
    d->dir [0] = '\0';
}

bool
test_request (const char *endpoint, const char *verb, const void *body, size_t len,
              char *status_out, char **body_out)
{
    return test_request_curve (NULL, endpoint, verb, body, len, status_out, body_out);
}

bool
test_request_curve (const test_curve_t *curve, const char *endpoint, const char *verb, const void *body,
                    size_t len, char *status_out, char **body_out)
{
    void *ctx = zmq_ctx_new ();
    void *s = zmq_socket (ctx, ZMQ_DEALER);
    int linger = 0, timeout = 5000;
    zmq_setsockopt (s, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt (s, ZMQ_RCVTIMEO, &timeout, sizeof timeout);
    if (curve && curve->server [0]) {
        zmq_setsockopt (s, ZMQ_CURVE_SERVERKEY, curve->server, 40);
        zmq_setsockopt (s, ZMQ_CURVE_PUBLICKEY, curve->public_key, 40);
        zmq_setsockopt (s, ZMQ_CURVE_SECRETKEY, curve->secret_key, 40);
    }
    zmq_connect (s, endpoint);
    zmq_send (s, verb, strlen (verb), ZMQ_SNDMORE);
    zmq_send (s, "t1", 2, ZMQ_SNDMORE);
    zmq_send (s, body, len, 0);
    bool ok = false;
    *body_out = NULL;
    zmq_msg_t frame;
    zmq_msg_init (&frame);
    for (int part = 0; part < 3; part++) {
        if (zmq_msg_recv (&frame, s, 0) < 0)
            break;
        size_t n = zmq_msg_size (&frame);
        if (part == 0)
            snprintf (status_out, 8, "%.*s", (int) (n < 7 ? n : 7), (char *) zmq_msg_data (&frame));
        if (part == 2) {
            *body_out = malloc (n + 1);
            memcpy (*body_out, zmq_msg_data (&frame), n);
            (*body_out) [n] = '\0';
            ok = true;
        }
    }
    zmq_msg_close (&frame);
    zmq_close (s);
    zmq_ctx_term (ctx);
    return ok;
}

void
test_dlqd_newest_segment (const test_dlqd_t *d, char *path, size_t len)
{
    char dir [600];
    snprintf (dir, sizeof dir, "%s/spool", d->data_dir);
    DIR *dh = opendir (dir);
    cr_assert_not_null (dh, "%s: %s", dir, strerror (errno));
    char newest [256] = "";
    struct dirent *e;
    while ((e = readdir (dh)))
        if (strstr (e->d_name, ".seg") && strcmp (e->d_name, newest) > 0)
            snprintf (newest, sizeof newest, "%s", e->d_name);
    closedir (dh);
    cr_assert (newest [0], "no spool segment in %s", dir);
    snprintf (path, len, "%s/%s", dir, newest);
}

/* The size of the newest segment of d's spool. */
static off_t
newest_segment_size (const test_dlqd_t *d)
{
    char path [1000];
    struct stat st;
    test_dlqd_newest_segment (d, path, sizeof path);
    cr_assert_eq (stat (path, &st), 0, "%s: %s", path, strerror (errno));
    return st.st_size;
}

void
test_dlqd_fill_disk (const test_dlqd_t *d, bool full)
{
    struct rlimit limit = { RLIM_INFINITY, RLIM_INFINITY };
    if (full) {
        /* a limit applies to every file the process writes: first grow the
         * spool 64 KiB past what the log holds, with events of stream
         * "filler" (1 KiB messages, under any max_message_bytes a test sets) */
        enum { FILLER = 1024 };
        char body [FILLER + 128];
        int n = snprintf (body, sizeof body, "{\"streamName\":\"filler\",\"error\":{\"type\":\"T\",\"message\":\"");
        memset (body + n, 'x', FILLER);
        snprintf (body + n + FILLER, sizeof body - (size_t) (n + FILLER), "\"}}");
        struct stat log;
        off_t want = (stat (d->log, &log) == 0 ? log.st_size : 0) + 64 * 1024;
        for (int i = 0; i < 1000 && newest_segment_size (d) < want; i++) {
            char status [8] = "";
            char *reply = NULL;
            cr_assert (test_request (d->endpoint, "PUT", body, strlen (body), status, &reply), "a filler PUT");
            cr_assert_str_eq (status, "OK", "a filler PUT: %s", reply);
            free (reply);
        }
        limit.rlim_cur = (rlim_t) newest_segment_size (d);
    }
    cr_assert_eq (prlimit (d->pid, RLIMIT_FSIZE, &limit, NULL), 0, "prlimit: %s", strerror (errno));
}
