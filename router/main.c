/*  dlqd — the dead-letter gateway daemon: command line, signals, main.
 *
 *  dlqd [-c FILE]             serve with FILE (default: /etc/dlqd/dlqd.conf
 *                             installed, config/dlqd.conf in the build tree)
 *  dlqd --check-config FILE   validate FILE and exit 0 (valid) or 1
 *  dlqd --config-reference    print every setting (the settings table) as
 *                             docs/configuration.md has it
 */
#include "dlq_log.h"
#include "dlqd_config.h"
#include "gateway.h"
#include "plugin_config.h"
#include "plugin_host.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int stop_pipe [2] = { -1, -1 };

/* What SIGHUP reads again: the config file's log_level, unless the
 * command line set one. */
typedef struct {
    const char *path;
    bool        level_pinned;       /* --log-level */
} reload_t;

static void
on_signal (int sig)
{
    int saved = errno;
    char c = (char) sig;
    ssize_t ignored = write (stop_pipe [1], &c, 1);
    (void) ignored;
    errno = saved;
}

static int
usage (FILE *out, int code)
{
    fprintf (out,
             "usage: dlqd [-c FILE] [--log-level debug|info|warn|error]\n"
             "       dlqd --check-config FILE\n"
             "       dlqd --config-reference\n"
             "       dlqd --version\n"
             "Serves the dead-letter gateway described by FILE (default %s;\n"
             "%s when dlqd runs from its build tree).\n"
             "SIGTERM or SIGINT: answer every request already received, then exit 0.\n"
             "SIGHUP: read security.curve.clients again (keys added, changed or revoked)\n"
             "        and the config file's log_level (unless --log-level is given).\n",
             dlqd_config_installed_path (), DLQD_CONFIG_BUILD_TREE);
    return code;
}

/* Each sink's own deeper check of its settings (dlq_sink_ops_t.check). */
static bool
check_sinks (const char *path, const dlqd_config_t *config)
{
    for (size_t i = 0; i < config->sink_count; i++) {
        const dlq_sink_ops_t *ops = dlq_plugin_config_ops (config->sinks [i]);
        char why [512] = "";
        if (!DLQ_SINK_OPS_HAS (ops, check) || !ops->check
            || ops->check (dlq_plugin_host (), config->sinks [i], why, sizeof why) == DLQ_SINK_STATUS_OK)
            continue;
        fprintf (stderr, "dlqd: config error: %s: sinks.%s: %s\n", path,
                 dlq_plugin_config_name (config->sinks [i]), why [0] ? why : "refused by its plugin");
        return false;
    }
    return true;
}

static dlqd_config_t *
load (const char *path)
{
    dlqd_config_t *config = NULL;
    char *err = NULL;
    if (dlqd_config_load (path, &config, &err) != DLQD_CONFIG_OK) {
        fprintf (stderr, "dlqd: config error: %s\n", err);
        free (err);
        return NULL;
    }
    if (!check_sinks (path, config)) {
        dlqd_config_destroy (&config);
        return NULL;
    }
    for (size_t i = 0; i < config->warning_count; i++)
        fprintf (stderr, "dlqd: warning: %s: %s\n", path, config->warnings [i]);
    return config;
}

/* Is stderr the journal's stream (systemd's JOURNAL_STREAM, "DEV:INODE")? */
static bool
stderr_is_journal (void)
{
    const char *stream = getenv ("JOURNAL_STREAM");
    struct stat st;
    unsigned long long dev = 0, ino = 0;
    return stream && sscanf (stream, "%llu:%llu", &dev, &ino) == 2 && fstat (STDERR_FILENO, &st) == 0
        && (unsigned long long) st.st_dev == dev && (unsigned long long) st.st_ino == ino;
}

static void
apply_log_level (const dlqd_config_t *config, const reload_t *how)
{
    dlq_log_level_t level;
    if (!how->level_pinned && dlq_log_parse_level (config->log_level, &level))
        dlq_log_set_level (level);
}

/* SIGHUP: the file's log_level again; a file that no longer loads keeps
 * the level in use (and says why). */
static void
reload (void *arg)
{
    const reload_t *how = arg;
    dlqd_config_t *config = NULL;
    char *err = NULL;
    if (dlqd_config_load (how->path, &config, &err) != DLQD_CONFIG_OK) {
        dlq_log (DLQ_LOG_ERROR, "SIGHUP: %s no longer loads, the log level stays: %s", how->path, err);
        free (err);
        return;
    }
    dlq_log (DLQ_LOG_INFO, "SIGHUP: log_level %s%s", config->log_level, how->level_pinned ? " (--log-level wins)" : "");
    apply_log_level (config, how);
    dlqd_config_destroy (&config);
}

static int
serve (dlqd_config_t *config, reload_t *how)
{
    dlq_log_set_json (strcmp (config->log_format, "json") == 0);
    dlq_log_set_priority_prefix (stderr_is_journal ());
    apply_log_level (config, how);
    if (pipe2 (stop_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        perror ("dlqd: pipe");
        return 1;
    }
    struct sigaction sa;
    memset (&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset (&sa.sa_mask);
    sigaction (SIGTERM, &sa, NULL);
    sigaction (SIGINT, &sa, NULL);
    sigaction (SIGHUP, &sa, NULL);      /* reload: the gateway reads the byte and tells it from a stop */
    signal (SIGPIPE, SIG_IGN);
    signal (SIGXFSZ, SIG_IGN);     /* past a file size limit a write fails (EFBIG) and is answered UNAVAILABLE */

    char *err = NULL;
    dlq_gateway_t *gateway = dlq_gateway_new (config, &err);
    if (!gateway) {
        dlq_log (DLQ_LOG_ERROR, "cannot start: %s", err);
        free (err);
        dlq_log_flush ();
        return 1;
    }
    int rc = dlq_gateway_run (gateway, stop_pipe [0], reload, how);
    dlq_gateway_destroy (&gateway);
    dlq_log_flush ();                   /* every thread is gone: the last counts */
    return rc;
}

int
main (int argc, char **argv)
{
    const char *path = dlqd_config_default_path ();
    bool level_pinned = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv [i];
        if (strcmp (arg, "--help") == 0 || strcmp (arg, "-h") == 0)
            return usage (stdout, 0);
        if (strcmp (arg, "--version") == 0) {
            printf ("dlqd %s (wire protocol 1)\n", DLQD_VERSION);
            return 0;
        }
        if (strcmp (arg, "--config-reference") == 0) {
            dlq_buf_t reference = DLQ_BUF_INIT;
            dlqd_config_reference (&reference);
            fwrite (reference.data, 1, reference.len, stdout);
            dlq_buf_free (&reference);
            return 0;
        }
        if (strcmp (arg, "--check-config") == 0 && i + 1 < argc) {
            dlqd_config_t *config = load (argv [i + 1]);
            if (!config)
                return 1;
            printf ("%s: OK\n", argv [i + 1]);
            dlqd_config_destroy (&config);
            return 0;
        }
        if ((strcmp (arg, "-c") == 0 || strcmp (arg, "--config") == 0) && i + 1 < argc) {
            path = argv [++i];
            continue;
        }
        if (strcmp (arg, "--log-level") == 0 && i + 1 < argc) {
            dlq_log_level_t level;
            if (!dlq_log_parse_level (argv [++i], &level))
                return usage (stderr, 64);
            dlq_log_set_level (level);
            level_pinned = true;
            continue;
        }
        return usage (stderr, 64);
    }
    dlqd_config_t *config = load (path);
    if (!config)
        return 1;
    reload_t how = { path, level_pinned };
    int rc = serve (config, &how);
    dlqd_config_destroy (&config);
    return rc;
}
