/*  test_support — helpers for the integration suites: temporary
 *  directories, a dlqd process started on a free loopback port with its own
 *  config, and a plain DEALER client speaking the wire protocol.
 */
#ifndef TEST_SUPPORT_H
#define TEST_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* CURVE keys of a test client (Z85): none when server is empty. */
typedef struct {
    char server [41];
    char public_key [41];
    char secret_key [41];
} test_curve_t;

typedef struct {
    pid_t pid;
    int   port;
    char  endpoint [64];
    char  dir [256];            /* temp dir holding config and data */
    char  config [320];
    char  data_dir [320];
    char  log [320];
    test_curve_t curve;         /* set before start for a dlqd with security.curve: how to PING it */
} test_dlqd_t;

/* Make a fresh temporary directory into out (256 bytes). */
void test_tmpdir (char *out);

/* Remove a directory tree. */
void test_rmtree (const char *dir);

/* Make the running dlqd's disk "full" (or not): after PUTs of stream
 * "filler" (1 KiB messages) that grow the spool 64 KiB past its log, its
 * file size limit (prlimit
 * RLIMIT_FSIZE) is set to the size of its newest spool segment, so the
 * next spool write fails with EFBIG ("File too large"; dlqd ignores
 * SIGXFSZ) while its log and smaller files go on; or the limit is lifted.
 * For a dlqd started with gateway.spool_preallocate = false: a write into
 * a zeroed segment grows no file (nor does it fail on a full disk, whose
 * blocks it has already). */
void test_dlqd_fill_disk (const test_dlqd_t *d, bool full);

/* The path of the newest segment of the running (or stopped) dlqd's spool
 * (data_dir/spool/<position>.seg) into path. */
void test_dlqd_newest_segment (const test_dlqd_t *d, char *path, size_t len);

/* A TCP port on 127.0.0.1 that was free a moment ago. */
int test_free_port (void);

/* Write a config (gateway section from the template plus extra, appended
 * verbatim at top level) into d->dir, then start dlqd and wait until it
 * answers PING. d->dir must be set (test_tmpdir) or it is created.
 * gateway_extra is inserted inside gateway: { ... }. Returns false when
 * dlqd did not come up within 10 s (its log is printed). */
bool test_dlqd_start (test_dlqd_t *d, const char *gateway_extra, const char *extra);

/* Start dlqd again with the same config and data: after a stop or kill,
 * or, while it runs, after stopping it (SIGTERM, waited for). */
bool test_dlqd_restart (test_dlqd_t *d);

/* Send sig and wait for the process; returns its wait status. */
int test_dlqd_signal_wait (test_dlqd_t *d, int sig);

/* Stop (SIGTERM), wait, and remove the temp dir. */
void test_dlqd_cleanup (test_dlqd_t *d);

/* One request over a fresh DEALER socket (5 s timeout). status_out gets
 * "OK"/"ERR" (8 bytes), *body_out a malloc'd NUL-terminated body.
 * Returns false on timeout. */
bool test_request (const char *endpoint, const char *verb, const void *body, size_t len,
                   char *status_out, char **body_out);

/* test_request as a CURVE client with curve's keys (NULL: none). */
bool test_request_curve (const test_curve_t *curve, const char *endpoint, const char *verb, const void *body,
                         size_t len, char *status_out, char **body_out);

/* Run a helper script (pg-server.sh, rabbitmq-server.sh) with args (shell
 * words); its first stdout line goes to out (when not NULL), the rest is
 * read and dropped. True when it exited 0; else says so on stderr. */
bool test_run_script (const char *script, const char *args, char *out, size_t out_len);

/* Start a server of the test's own with such a script: a fresh directory
 * from dir_template (under /tmp: the server's user must reach it) into dir
 * (dir_len bytes; "" when it cannot be made), a free port below the
 * kernel's ephemeral ones into *port, then "start 'DIR' PORT PID", whose
 * first line goes to out (the script's watchdog removes the server should
 * this process die first). A failed start is tried again on another port
 * (the free one may have been taken meanwhile), three times in all. False
 * when it never started. */
bool test_script_server_start (const char *script, const char *dir_template, char *dir, size_t dir_len,
                               int *port, char *out, size_t out_len);

/* Run "script COMMAND 'DIR'" for the server of the test's own in dir
 * (false at once when dir is "": not ours); its first line goes to out
 * (when not NULL). */
bool test_script_server_command (const char *script, const char *command, const char *dir,
                                 char *out, size_t out_len);

/* A random number (/dev/urandom; the time and pid without it), for names
 * no other test uses. */
uint64_t test_random_u64 (void);

/* Read a whole file into a malloc'd NUL-terminated string, or NULL. */
char *test_read_file (const char *path, size_t *len_out);

/* Say on stderr, as one line "who: message", what a helper could not do. */
void test_complain (const char *who, const char *fmt, ...)
    __attribute__ ((format (printf, 2, 3)));

#endif
