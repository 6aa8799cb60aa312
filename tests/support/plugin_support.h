/*  plugin_support — a sink plugin loaded in the test process as the
 *  gateway loads it: a dlqd.conf of the test's own (in a temporary
 *  directory) naming the plugin, the sink's section, its ops and the
 *  gateway's host table, and instances opened as the gateway opens them
 *  (pg_support.h loads the postgres plugin with it; itest_mongo_workbench
 *  the mongo plugin).
 */
#ifndef PLUGIN_SUPPORT_H
#define PLUGIN_SUPPORT_H

#include "dlq_sink.h"
#include "dlqd_config.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct {
    char                   dir [256];       /* holds the dlqd.conf; "" when not loaded */
    dlqd_config_t         *config;
    dlq_sink_config_t     *sink;
    const dlq_sink_ops_t  *ops;
    const dlq_sink_host_t *host;
} test_plugin_t;

/* Write config (the text of a dlqd.conf) into a fresh directory, load it,
 * and take the sink named sink: call ops with host and sink. False with
 * why in err. */
bool test_plugin_load (test_plugin_t *p, const char *config, const char *sink, char *err, size_t err_len);

/* A new instance in mode (init), or NULL with init's message in err. */
void *test_plugin_open (const test_plugin_t *p, dlq_sink_mode_t mode, char *err, size_t err_len);

/* Unload: the config and its directory (destroy the instances first);
 * nothing when not loaded. */
void test_plugin_unload (test_plugin_t *p);

#endif
