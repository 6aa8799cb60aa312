/*  plugin_host — what the gateway offers sink plugins. */
#include "plugin_host.h"

#include "dlq_log.h"
#include "dlq_time.h"
#include "plugin_config.h"

#include <stdarg.h>
#include <stdio.h>

static void
host_log (const dlq_sink_config_t *config, dlq_sink_log_level_t level, const char *fmt, ...)
{
    char text [1024];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (text, sizeof text, fmt, ap);
    va_end (ap);
    dlq_log ((dlq_log_level_t) level, "sink %s: %s", dlq_plugin_config_name (config), text);
}

static void
host_count (const dlq_sink_config_t *config, const char *name, uint64_t n)
{
    dlq_plugin_config_count (config, name, n);
}

static const char *host_name (const dlq_sink_config_t *config) { return dlq_plugin_config_name (config); }

static void
host_append (dlq_sink_buf_t *buf, const char *data, size_t len)
{
    dlq_buf_append ((dlq_buf_t *) buf, data, len);
}

static const dlq_sink_host_t host = {
    .abi_version   = DLQ_SINK_ABI_VERSION,
    .struct_size   = sizeof (dlq_sink_host_t),
    .log           = host_log,
    .count         = host_count,
    .now_ms        = dlq_time_now_ms,
    .mono_ms       = dlq_time_mono_ms,
    .name          = host_name,
    .config_int    = dlq_plugin_config_int,
    .config_bool   = dlq_plugin_config_bool,
    .config_string = dlq_plugin_config_string,
    .config_list   = dlq_plugin_config_list,
    .append        = host_append,
    .streams       = dlq_plugin_config_streams,
    .config_float  = dlq_plugin_config_float,
};

const dlq_sink_host_t *dlq_plugin_host (void) { return &host; }

dlq_sink_buf_t *dlq_plugin_host_buf (dlq_buf_t *buf) { return (dlq_sink_buf_t *) buf; }
