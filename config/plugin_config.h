/*  plugin_config — one configured sink: its plugin, the gateway-owned
 *  dispatch settings (retry, batch, timeout, circuit) and its own settings,
 *  validated against the schema the plugin declares, with per-stream
 *  overrides. Also the sink's own counters (host->count).
 *
 *  Precedence of a setting's value: the stream's override > the sink
 *  section > the schema's default (as flowwarden-amqp has it: annotation >
 *  properties > built-in defaults).
 */
#ifndef DLQ_PLUGIN_CONFIG_H
#define DLQ_PLUGIN_CONFIG_H

#include "config_schema.h"
#include "dlq_buf.h"
#include "dlq_sink.h"
#include "plugin.h"

#include <libconfig.h>
#include <stdbool.h>
#include <stdint.h>

/* How the gateway drives a sink (not the plugin's business). */
typedef struct {
    int64_t max_attempts;       /* deliveries tried per event before FAILED; 0 = forever */
    int64_t backoff_ms;         /* ceiling of the first retry delay */
    int64_t backoff_max_ms;     /* cap of the retry delay */
    double  multiplier;         /* ceiling growth per attempt */
    int64_t batch_max;          /* events per deliver call, at most */
    int64_t linger_ms;          /* wait for a batch to fill before delivering */
    int64_t timeout_ms;         /* a deliver call taking longer is retried */
    int64_t circuit_failures;   /* consecutive failed batches that open the circuit */
    int64_t max_backlog_bytes;  /* spool bytes its backlog may hold before PUTs are refused; 0: no limit */
} dlq_dispatch_settings_t;

/* The gateway's settings of a sink section, as rows of the settings table
 * (config_schema.h; named "sinks.NAME.retry.max_attempts", ...); *count_out
 * their number. */
const dlq_setting_t *dlq_plugin_config_rows (size_t *count_out);

/* Read sink `section` (a group named after the sink) of a config file:
 * type (or type = "plugin" with path), dispatch settings, the plugin's own
 * settings. search is the plugin directory search path. index is the sink's
 * position among the configured sinks. NULL with err set on any problem. */
dlq_sink_config_t *dlq_plugin_config_new (const config_setting_t *section, int index,
                                        const char *search, dlq_config_error_t *err);

/* Read a stream's overrides of this sink's per-stream settings from group
 * (the member of a streams entry named after the sink). */
bool dlq_plugin_config_add_stream (dlq_sink_config_t *self, const char *stream,
                                 const config_setting_t *group, dlq_config_error_t *err);

/* The name of a setting of the sink's section written in the file itself
 * (not through <name>_file or <name>_env) whose value holds a credential
 * (dlq_secret.h), or NULL. */
const char *dlq_plugin_config_inline_secret (const dlq_sink_config_t *self);

/* Free; unloads the plugin. Accepts NULL and NULLs the pointer. */
/* Note that stream, listed in the config's streams, has this sink in its
 * chain (for dlq_plugin_config_streams). */
void dlq_plugin_config_route_stream (dlq_sink_config_t *self, const char *stream);

/* The streams listed in the config whose chain names this sink, in the
 * config's order; *names lives as long as the config. */
size_t dlq_plugin_config_streams (const dlq_sink_config_t *self, const char *const **names);

void dlq_plugin_config_destroy (dlq_sink_config_t **self_p);

const char *dlq_plugin_config_name (const dlq_sink_config_t *self);
int dlq_plugin_config_index (const dlq_sink_config_t *self);
/* The file its plugin was loaded from. */
const char *dlq_plugin_config_path (const dlq_sink_config_t *self);
const dlq_sink_ops_t *dlq_plugin_config_ops (const dlq_sink_config_t *self);
const dlq_dispatch_settings_t *dlq_plugin_config_dispatch (const dlq_sink_config_t *self);

/* Setting values, as the host table gives them to the plugin. */
int64_t dlq_plugin_config_int (const dlq_sink_config_t *self, const char *stream, const char *name);
double dlq_plugin_config_float (const dlq_sink_config_t *self, const char *stream, const char *name);
bool dlq_plugin_config_bool (const dlq_sink_config_t *self, const char *stream, const char *name);
const char *dlq_plugin_config_string (const dlq_sink_config_t *self, const char *stream, const char *name);
size_t dlq_plugin_config_list (const dlq_sink_config_t *self, const char *stream, const char *name,
                             const char *const **items);

/* The sink's own counters: add n to name; append them as "name":n,... */
void dlq_plugin_config_count (const dlq_sink_config_t *self, const char *name, uint64_t n);
void dlq_plugin_config_format_counters (const dlq_sink_config_t *self, dlq_buf_t *out);

#endif
