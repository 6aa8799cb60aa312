/*  sink_config — a sink's section validated against its plugin's schema.
 *
 *  The plugin is loaded while the config is read, because only the plugin
 *  knows which settings its section may hold. Values are stored per schema
 *  entry: the section's (or the default) and, per stream, the overrides.
 */
#include "sink_config.h"

#include "dlq_alloc.h"
#include "dlq_json.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    bool     set;
    int64_t  i;                 /* INT, BOOL */
    char    *s;                 /* STRING */
    char   **list;              /* STRING_LIST */
    size_t   count;
} value_t;

typedef struct {
    char    *stream;
    value_t *values;            /* one per schema entry; only set ones count */
} stream_values_t;

typedef struct {
    pthread_mutex_t lock;
    char          **names;
    uint64_t       *values;
    size_t          count;
} counters_t;

struct dlq_sink_config {
    char                *name;
    int                  index;
    dlq_sink_plugin_t   *plugin;
    const dlq_sink_ops_t *ops;
    dlq_sink_dispatch_t  dispatch;
    size_t               settings;      /* entries in ops->settings */
    value_t             *section;       /* section value or default, per entry */
    stream_values_t     *streams;
    size_t               stream_count;
    char               **routed;        /* configured streams whose chain names the sink */
    size_t               routed_count;
    counters_t          *counters;
};

/* Keys of a sink section that belong to the gateway, not the plugin. */
static const dlq_setting_spec_t gateway_keys [] = {
    { "type",       DLQ_SETTING_STRING, 1, 64, "the sink type: a built-in (\"noop\", ...) or \"plugin\"" },
    { "path",       DLQ_SETTING_STRING, 1, 4096, "the plugin file, with type = \"plugin\"" },
    { "retry",      DLQ_SETTING_GROUP, 0, 0, "max_attempts, backoff_ms, backoff_max_ms, multiplier" },
    { "batch",      DLQ_SETTING_GROUP, 0, 0, "max_events, linger_ms" },
    { "timeout_ms", DLQ_SETTING_INT, 1, 3600000, "a deliver call taking longer is retried" },
    { "circuit",    DLQ_SETTING_GROUP, 0, 0, "failures: consecutive failed batches that open the circuit" },
    { "max_backlog_bytes", DLQ_SETTING_INT, 0, INT64_MAX,
      "spool bytes kept for the sink's backlog before PUTs answer UNAVAILABLE; 0 = no limit" },
    { NULL }
};

static const dlq_setting_spec_t retry_keys [] = {
    { "max_attempts",   DLQ_SETTING_INT, 0, 1000000, "deliveries tried per event; 0 = forever" },
    { "backoff_ms",     DLQ_SETTING_INT, 1, 86400000, "ceiling of the first retry delay" },
    { "backoff_max_ms", DLQ_SETTING_INT, 1, 86400000, "cap of the retry delay" },
    { "multiplier",     DLQ_SETTING_FLOAT, 1, 100, "growth of the delay ceiling per attempt" },
    { NULL }
};

static const dlq_setting_spec_t batch_keys [] = {
    { "max_events", DLQ_SETTING_INT, 1, 100000, "events per deliver call, at most" },
    { "linger_ms",  DLQ_SETTING_INT, 0, 60000, "wait for a batch to fill" },
    { NULL }
};

static const dlq_setting_spec_t circuit_keys [] = {
    { "failures", DLQ_SETTING_INT, 1, 1000000, "consecutive failed batches that open the circuit" },
    { NULL }
};

static const dlq_sink_dispatch_t dispatch_defaults = {
    .max_attempts = 10, .backoff_ms = 200, .backoff_max_ms = 30000, .multiplier = 2.0,
    .batch_max = 1000, .linger_ms = 0, .timeout_ms = 30000, .circuit_failures = 5,
    .max_backlog_bytes = 10LL << 30,
};

/* ---- schema ------------------------------------------------------------ */

static dlq_setting_type_t
setting_type (dlq_sink_setting_type_t type)
{
    switch (type) {
        case DLQ_SINK_SETTING_INT:  return DLQ_SETTING_INT;
        case DLQ_SINK_SETTING_BOOL: return DLQ_SETTING_BOOL;
        case DLQ_SINK_SETTING_STRING: return DLQ_SETTING_STRING;
        default: return DLQ_SETTING_STRING_LIST;
    }
}

/* The plugin's schema plus the gateway's keys, as a config_schema table. */
static dlq_setting_spec_t *
full_schema (const dlq_sink_ops_t *ops, bool per_stream_only)
{
    size_t n = 0;
    while (ops->settings && ops->settings [n].name)
        n++;
    dlq_setting_spec_t *schema = dlq_calloc (n + 8, sizeof *schema);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const dlq_sink_setting_t *s = &ops->settings [i];
        if (per_stream_only && !s->per_stream)
            continue;
        schema [k++] = (dlq_setting_spec_t) { s->name, setting_type (s->type), s->min, s->max, s->description };
    }
    for (size_t i = 0; !per_stream_only && gateway_keys [i].name; i++)
        schema [k++] = gateway_keys [i];
    return schema;
}

static int
spec_index (const dlq_sink_config_t *self, const char *name)
{
    for (size_t i = 0; i < self->settings; i++)
        if (strcmp (self->ops->settings [i].name, name) == 0)
            return (int) i;
    return -1;
}

/* ---- values ------------------------------------------------------------ */

static void
value_free (value_t *v)
{
    free (v->s);
    for (size_t i = 0; i < v->count; i++)
        free (v->list [i]);
    free (v->list);
    memset (v, 0, sizeof *v);
}

/* The schema default of entry s into v (an INT or BOOL default that does not
 * parse is a plugin bug: reported as a config error). */
static bool
value_default (const dlq_sink_setting_t *s, value_t *v)
{
    memset (v, 0, sizeof *v);
    if (!s->default_value)
        return true;
    v->set = true;
    switch (s->type) {
        case DLQ_SINK_SETTING_INT: {
            char *end;
            errno = 0;
            v->i = strtoll (s->default_value, &end, 10);
            return errno == 0 && *end == '\0';
        }
        case DLQ_SINK_SETTING_BOOL:
            v->i = strcmp (s->default_value, "true") == 0;
            return v->i || strcmp (s->default_value, "false") == 0;
        case DLQ_SINK_SETTING_STRING:
            v->s = dlq_strdup (s->default_value);
            return true;
        default:
            v->set = false;     /* lists have no text default */
            return true;
    }
}

/* Read setting member (of the entry's type, already checked) into v. */
static bool
value_read (const config_setting_t *member, const dlq_sink_setting_t *s, value_t *v,
            dlq_config_error_t *err)
{
    value_free (v);
    v->set = true;
    switch (s->type) {
        case DLQ_SINK_SETTING_INT:
            v->i = config_setting_get_int64 (member);
            if (v->i < s->min || v->i > s->max)
                return dlq_config_fail (err, member, "expected an integer from %lld to %lld (%s), got %lld",
                                        (long long) s->min, (long long) s->max, s->description,
                                        (long long) v->i);
            return true;
        case DLQ_SINK_SETTING_BOOL:
            v->i = config_setting_get_bool (member);
            return true;
        case DLQ_SINK_SETTING_STRING: {
            const char *text = config_setting_get_string (member);
            int64_t len = (int64_t) strlen (text);
            if (len < s->min || (s->max > 0 && len > s->max))
                return dlq_config_fail (err, member, "expected a string of %lld to %lld characters (%s)",
                                        (long long) s->min, (long long) s->max, s->description);
            v->s = dlq_strdup (text);
            return true;
        }
        default:
            v->count = (size_t) config_setting_length (member);
            v->list = dlq_calloc (v->count ? v->count : 1, sizeof (char *));
            for (size_t i = 0; i < v->count; i++)
                v->list [i] = dlq_strdup (config_setting_get_string_elem (member, (int) i));
            return true;
    }
}

/* Read every plugin setting present in group into values. */
static bool
read_values (const dlq_sink_config_t *self, const config_setting_t *group, value_t *values,
             dlq_config_error_t *err)
{
    for (size_t i = 0; i < self->settings; i++) {
        const config_setting_t *m = config_setting_get_member (group, self->ops->settings [i].name);
        if (m && !value_read (m, &self->ops->settings [i], &values [i], err))
            return false;
    }
    return true;
}

/* ---- dispatch settings ---------------------------------------------------- */

static bool
read_group (const config_setting_t *section, const char *name, const dlq_setting_spec_t *keys,
            const config_setting_t **group, dlq_config_error_t *err)
{
    *group = config_setting_get_member (section, name);
    return !*group || dlq_config_check_group (*group, keys, err);
}

static bool
read_dispatch (const config_setting_t *section, dlq_sink_dispatch_t *d, dlq_config_error_t *err)
{
    *d = dispatch_defaults;
    const config_setting_t *retry, *batch, *circuit;
    bool ok = dlq_config_int (section, gateway_keys, "timeout_ms", &d->timeout_ms, err)
           && dlq_config_int (section, gateway_keys, "max_backlog_bytes", &d->max_backlog_bytes, err)
           && read_group (section, "retry", retry_keys, &retry, err)
           && read_group (section, "batch", batch_keys, &batch, err)
           && read_group (section, "circuit", circuit_keys, &circuit, err);
    if (ok && retry)
        ok = dlq_config_int (retry, retry_keys, "max_attempts", &d->max_attempts, err)
          && dlq_config_int (retry, retry_keys, "backoff_ms", &d->backoff_ms, err)
          && dlq_config_int (retry, retry_keys, "backoff_max_ms", &d->backoff_max_ms, err)
          && dlq_config_float (retry, retry_keys, "multiplier", &d->multiplier, err);
    if (ok && retry && d->backoff_max_ms < d->backoff_ms)
        ok = dlq_config_fail (err, retry, "expected backoff_max_ms (%lld) >= backoff_ms (%lld)",
                              (long long) d->backoff_max_ms, (long long) d->backoff_ms);
    if (ok && batch)
        ok = dlq_config_int (batch, batch_keys, "max_events", &d->batch_max, err)
          && dlq_config_int (batch, batch_keys, "linger_ms", &d->linger_ms, err);
    if (ok && circuit)
        ok = dlq_config_int (circuit, circuit_keys, "failures", &d->circuit_failures, err);
    return ok;
}

/* ---- the plugin ---------------------------------------------------------- */

static dlq_sink_plugin_t *
load_plugin (const config_setting_t *section, const char *search, dlq_config_error_t *err)
{
    const char *type = NULL, *path = NULL;
    config_setting_lookup_string (section, "type", &type);
    config_setting_lookup_string (section, "path", &path);
    char why [1024];
    dlq_sink_plugin_t *plugin = NULL;
    if (!type)
        dlq_config_fail (err, section, "expected a type = \"...\"; setting (a sink type, or \"plugin\" with a path)");
    else
    if (strcmp (type, "plugin") == 0 && !path)
        dlq_config_fail (err, config_setting_get_member (section, "type"),
                         "type = \"plugin\" needs a path = \"/path/to/plugin.so\"; setting");
    else
    if (strcmp (type, "plugin") != 0 && path)
        dlq_config_fail (err, config_setting_get_member (section, "path"),
                         "path is only for type = \"plugin\"; built-in types are found by name");
    else
    if (strcmp (type, "plugin") == 0) {
        if (!(plugin = dlq_sink_plugin_load (path, why, sizeof why)))
            dlq_config_fail (err, config_setting_get_member (section, "path"), "%s", why);
    }
    else
    if (!(plugin = dlq_sink_plugin_find (type, search, why, sizeof why)))
        dlq_config_fail (err, config_setting_get_member (section, "type"), "%s", why);
    else
    if (strcmp (dlq_sink_plugin_ops (plugin)->type, type) != 0) {
        dlq_config_fail (err, config_setting_get_member (section, "type"), "%s is a sink of type \"%s\", not \"%s\"",
                         dlq_sink_plugin_path (plugin), dlq_sink_plugin_ops (plugin)->type, type);
        dlq_sink_plugin_destroy (&plugin);
    }
    return plugin;
}

static bool
check_defaults (dlq_sink_config_t *self, const config_setting_t *section, dlq_config_error_t *err)
{
    for (size_t i = 0; i < self->settings; i++)
        if (!value_default (&self->ops->settings [i], &self->section [i]))
            return dlq_config_fail (err, section, "sink plugin %s declares a bad default for %s",
                                    dlq_sink_plugin_path (self->plugin), self->ops->settings [i].name);
    return true;
}

dlq_sink_config_t *
dlq_sink_config_new (const config_setting_t *section, int index, const char *search,
                     dlq_config_error_t *err)
{
    dlq_sink_plugin_t *plugin = load_plugin (section, search, err);
    if (!plugin)
        return NULL;
    dlq_sink_config_t *self = dlq_calloc (1, sizeof *self);
    self->name = dlq_strdup (config_setting_name (section));
    self->index = index;
    self->plugin = plugin;
    self->ops = dlq_sink_plugin_ops (plugin);
    while (self->ops->settings && self->ops->settings [self->settings].name)
        self->settings++;
    self->section = dlq_calloc (self->settings + 1, sizeof (value_t));
    self->counters = dlq_calloc (1, sizeof (counters_t));
    pthread_mutex_init (&self->counters->lock, NULL);
    dlq_setting_spec_t *schema = full_schema (self->ops, false);
    bool ok = dlq_config_check_group (section, schema, err)
           && check_defaults (self, section, err)
           && read_values (self, section, self->section, err)
           && read_dispatch (section, &self->dispatch, err);
    free (schema);
    if (!ok)
        dlq_sink_config_destroy (&self);
    return self;
}

bool
dlq_sink_config_add_stream (dlq_sink_config_t *self, const char *stream,
                            const config_setting_t *group, dlq_config_error_t *err)
{
    if (config_setting_type (group) != CONFIG_TYPE_GROUP)
        return dlq_config_fail (err, group, "expected a group of %s's per-stream settings", self->name);
    dlq_setting_spec_t *schema = full_schema (self->ops, true);
    bool ok = dlq_config_check_group (group, schema, err);
    free (schema);
    if (!ok)
        return false;
    self->streams = dlq_realloc (self->streams, (self->stream_count + 1) * sizeof (stream_values_t));
    stream_values_t *sv = &self->streams [self->stream_count++];
    sv->stream = dlq_strdup (stream);
    sv->values = dlq_calloc (self->settings + 1, sizeof (value_t));
    return read_values (self, group, sv->values, err);
}

void
dlq_sink_config_route_stream (dlq_sink_config_t *self, const char *stream)
{
    self->routed = dlq_realloc (self->routed, (self->routed_count + 2) * sizeof *self->routed);
    self->routed [self->routed_count++] = dlq_strdup (stream);
    self->routed [self->routed_count] = NULL;
}

size_t
dlq_sink_config_streams (const dlq_sink_config_t *self, const char *const **names)
{
    *names = (const char *const *) self->routed;
    return self->routed_count;
}

void
dlq_sink_config_destroy (dlq_sink_config_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_sink_config_t *self = *self_p;
    for (size_t i = 0; i < self->routed_count; i++)
        free (self->routed [i]);
    free (self->routed);
    for (size_t i = 0; i < self->settings; i++)
        value_free (&self->section [i]);
    free (self->section);
    for (size_t s = 0; s < self->stream_count; s++) {
        for (size_t i = 0; i < self->settings; i++)
            value_free (&self->streams [s].values [i]);
        free (self->streams [s].values);
        free (self->streams [s].stream);
    }
    free (self->streams);
    if (self->counters) {
        for (size_t i = 0; i < self->counters->count; i++)
            free (self->counters->names [i]);
        free (self->counters->names);
        free (self->counters->values);
        pthread_mutex_destroy (&self->counters->lock);
        free (self->counters);
    }
    dlq_sink_plugin_destroy (&self->plugin);
    free (self->name);
    free (self);
    *self_p = NULL;
}

const char *dlq_sink_config_name (const dlq_sink_config_t *self) { return self->name; }
int dlq_sink_config_index (const dlq_sink_config_t *self) { return self->index; }
const dlq_sink_ops_t *dlq_sink_config_ops (const dlq_sink_config_t *self) { return self->ops; }
const dlq_sink_dispatch_t *dlq_sink_config_dispatch (const dlq_sink_config_t *self) { return &self->dispatch; }

/* The value of setting name for stream, following the precedence. */
static const value_t *
lookup (const dlq_sink_config_t *self, const char *stream, const char *name)
{
    int i = spec_index (self, name);
    if (i < 0)
        return NULL;
    for (size_t s = 0; stream && s < self->stream_count; s++)
        if (strcmp (self->streams [s].stream, stream) == 0 && self->streams [s].values [i].set)
            return &self->streams [s].values [i];
    return &self->section [i];
}

int64_t
dlq_sink_config_int (const dlq_sink_config_t *self, const char *stream, const char *name)
{
    const value_t *v = lookup (self, stream, name);
    return v && v->set ? v->i : 0;
}

bool
dlq_sink_config_bool (const dlq_sink_config_t *self, const char *stream, const char *name)
{
    const value_t *v = lookup (self, stream, name);
    return v && v->set && v->i;
}

const char *
dlq_sink_config_string (const dlq_sink_config_t *self, const char *stream, const char *name)
{
    const value_t *v = lookup (self, stream, name);
    return v && v->set ? v->s : NULL;
}

size_t
dlq_sink_config_list (const dlq_sink_config_t *self, const char *stream, const char *name,
                      const char *const **items)
{
    const value_t *v = lookup (self, stream, name);
    *items = v && v->set ? (const char *const *) v->list : NULL;
    return v && v->set ? v->count : 0;
}

void
dlq_sink_config_count (const dlq_sink_config_t *self, const char *name, uint64_t n)
{
    counters_t *c = self->counters;
    pthread_mutex_lock (&c->lock);
    size_t i = 0;
    while (i < c->count && strcmp (c->names [i], name) != 0)
        i++;
    if (i == c->count) {
        c->names = dlq_realloc (c->names, (c->count + 1) * sizeof (char *));
        c->values = dlq_realloc (c->values, (c->count + 1) * sizeof (uint64_t));
        c->names [i] = dlq_strdup (name);
        c->values [i] = 0;
        c->count++;
    }
    c->values [i] += n;
    pthread_mutex_unlock (&c->lock);
}

void
dlq_sink_config_format_counters (const dlq_sink_config_t *self, dlq_buf_t *out)
{
    counters_t *c = self->counters;
    pthread_mutex_lock (&c->lock);
    for (size_t i = 0; i < c->count; i++) {
        dlq_buf_puts (out, i ? "," : "");
        dlq_json_write_string (out, c->names [i], strlen (c->names [i]));
        dlq_buf_printf (out, ":%llu", (unsigned long long) c->values [i]);
    }
    pthread_mutex_unlock (&c->lock);
}
