/*  bench_daemon — a private dlqd for one benchmark run.
 *
 *  Writes a minimal config (one loopback endpoint on a free port, data_dir
 *  inside the benchmark's temp dir, plus whatever the caller adds, e.g. a
 *  sink chain), fork/execs dlqd with its output in a
 *  log file, waits until it answers PING, and at the end stops it with
 *  SIGTERM and checks that it drained and exited 0.
 */
#ifndef DLQ_BENCH_DAEMON_H
#define DLQ_BENCH_DAEMON_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* What a comparison of fresh dlqds needs (bench_chain, bench_curve,
 * bench_scrape): the binary, the load, how many runs and the waits. */
typedef struct {
    const char *dlqd;               /* binary to start (finds plugins in <its dir>/../plugins) */
    int         clients;
    int         window;
    size_t      repeat;             /* runs of each kind */
    bool        keep;               /* keep every run's directory */
    int         ready_ms;
    int         reply_timeout_ms;
    int         stop_ms;
} bench_runs_options_t;

typedef struct {
    pid_t  pid;                 /* 0 when not running */
    int    status;              /* wait status once it exited */
    char   endpoint [64];
    char   config_path [4096];
    char   log_path [4096];
    const char *gateway_settings;   /* set before start (may be NULL): more settings of the gateway
                                       section, e.g. "spool_preallocate = false;" */
} bench_daemon_t;

/* Start binary with a config in dir and data in dir/gateway, then wait up
 * to ready_ms for a PING reply. extra_config (may be NULL) is appended to
 * the config as it is: top-level libconfig settings such as sinks and
 * defaults. False with a message in err (the daemon is stopped again and
 * its log tail included). */
bool bench_daemon_start (bench_daemon_t *self, void *zmq_ctx, const char *binary,
                         const char *dir, const char *extra_config, int ready_ms,
                         char *err, size_t err_len);

/* SIGTERM, then wait up to wait_ms for the exit (SIGKILL after that).
 * *drain_s is the time from the signal to the exit. True when it exited
 * with status 0; otherwise err says how it ended. */
bool bench_daemon_stop (bench_daemon_t *self, int wait_ms, double *drain_s,
                        char *err, size_t err_len);

/* A new directory TMPDIR/NAME.XXXXXX (/tmp without TMPDIR) into dir (len
 * bytes); false with the reason on stderr, after "program: ". */
bool bench_daemon_temp_dir (char *dir, size_t len, const char *name, const char *program);

/* The end of a run in dir: stop the daemon when it runs (bench_daemon_stop,
 * wait_ms), then remove dir, or unless keep say on stdout it was kept.
 * False when the daemon did not exit 0 (why on stderr, after "program: "). */
bool bench_daemon_finish (bench_daemon_t *self, const char *dir, bool keep, int wait_ms, const char *program);

/* A TCP port of 127.0.0.1 free right now (-1 when none): the kernel's
 * pick, released at once (another process could take it before use). */
int bench_free_port (void);

/* Remove path and everything under it (what cannot be removed is reported
 * on stderr). */
void bench_remove_tree (const char *path);

#endif
