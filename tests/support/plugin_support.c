/*  plugin_support — a sink plugin loaded in the test process; see the
 *  header.
 */
#include "plugin_support.h"

#include "plugin_host.h"
#include "test_support.h"

#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

/* Write text to path; false when it cannot. */
static bool
write_config (const char *path, const char *text)
{
    FILE *f = fopen (path, "w");
    if (!f)
        return false;
    fputs (text, f);
    chmod (path, 0600);                 /* it may hold a sink's password (docs/security.md) */
    return fclose (f) == 0;
}

bool
test_plugin_load (test_plugin_t *p, const char *config, const char *sink, char *err, size_t err_len)
{
    memset (p, 0, sizeof *p);
    test_tmpdir (p->dir);
    char path [320];
    snprintf (path, sizeof path, "%s/dlqd.conf", p->dir);
    if (!write_config (path, config)) {
        snprintf (err, err_len, "cannot write %s", path);
        return false;
    }
    char *why = NULL;
    if (dlqd_config_load (path, &p->config, &why) != DLQD_CONFIG_OK) {
        snprintf (err, err_len, "the config is refused: %s", why ? why : "?");
        free (why);
        return false;
    }
    p->sink = dlqd_config_sink (p->config, sink);
    p->ops = p->sink ? dlq_plugin_config_ops (p->sink) : NULL;
    p->host = dlq_plugin_host ();
    if (!p->ops)
        snprintf (err, err_len, "no sink %s in the config", sink);
    return p->ops != NULL;
}

void *
test_plugin_open (const test_plugin_t *p, dlq_sink_mode_t mode, char *err, size_t err_len)
{
    void *instance = NULL;
    err [0] = '\0';
    if (p->ops->init (p->host, p->sink, mode, &instance, err, err_len) != DLQ_SINK_STATUS_OK)
        return NULL;
    return instance;
}

void
test_plugin_unload (test_plugin_t *p)
{
    dlqd_config_destroy (&p->config);
    if (p->dir [0])
        test_rmtree (p->dir);
    memset (p, 0, sizeof *p);
}
