/*  plugin_config — a sink's section validated against its plugin's schema.
 *
 *  The plugin is loaded while the config is read, because only the plugin
 *  knows which settings its section may hold. Values are stored per schema
 *  entry: the section's (or the default) and, per stream, the overrides.
 */
#include "plugin_config.h"

#include "dlq_alloc.h"
#include "dlq_json.h"
#include "dlq_secret.h"

#include <errno.h>
#include <pthread.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    char    *stream;
    dlq_setting_value_t *values;            /* one per schema entry; only set ones count */
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
    dlq_plugin_t   *plugin;
    const dlq_sink_ops_t *ops;
    dlq_dispatch_settings_t  dispatch;
    size_t               settings;      /* entries in ops->settings */
    dlq_setting_value_t             *section;       /* section value or default, per entry */
    stream_values_t     *streams;
    size_t               stream_count;
    char               **routed;        /* configured streams whose chain names the sink */
    size_t               routed_count;
    counters_t          *counters;
};

/* The gateway's settings of a sink section (the rest of a section is the
 * plugin's own, checked against the schema it declares). */
#define DISPATCH 0      /* the home of the rows that keep a value: a dlq_dispatch_settings_t */
#define SETTING(path, type, def, min, max, desc, home, offset, type_docs, default_docs, docs) \
    { { path, DLQ_SINK_SETTING_##type, def, min, max, false, desc }, DLQ_SHAPE_VALUE, home, offset, \
      type_docs, default_docs, docs }

static const dlq_setting_t rows [] = {
    { { "sinks.NAME", DLQ_SINK_SETTING_STRING, NULL, 0, 0, false, "one sink" }, DLQ_SHAPE_GROUP, DLQ_HOME_CODE, 0,
      NULL, "", "one sink; `NAME` is how chains, `STATS`, `GET` and `REDELIVER` call it (any name but `embedded`). "
      "Its settings are the gateway's, below, and the plugin's own, checked against the schema it declares "
      "(see each sink)" },
    SETTING ("sinks.NAME.type", STRING, NULL, 1, 64,
             "the sink type: a built-in (\"noop\", ...) or \"plugin\"",
             DLQ_HOME_CODE, 0, NULL, "required",
             "a built-in type (`noop`, ...) found in `sink_dir`, or `\"plugin\"` with `path`"),
    SETTING ("sinks.NAME.path", STRING, NULL, 1, 4096,
             "the plugin file, with type = \"plugin\"",
             DLQ_HOME_CODE, 0, NULL, NULL,
             "with `type = \"plugin\"`: the plugin file"),
    SETTING ("sinks.NAME.retry.max_attempts", INT, "10", 0, 1000000,
             "deliveries tried per event; 0 = forever",
             DISPATCH, offsetof (dlq_dispatch_settings_t, max_attempts), NULL, NULL,
             "deliveries tried per event before it is `failed`; 0 = retry forever"),
    SETTING ("sinks.NAME.retry.backoff_ms", INT, "200", 1, 86400000,
             "ceiling of the first retry delay",
             DISPATCH, offsetof (dlq_dispatch_settings_t, backoff_ms), NULL, NULL,
             "ceiling of the delay before the first retry"),
    SETTING ("sinks.NAME.retry.backoff_max_ms", INT, "30000", 1, 86400000,
             "cap of the retry delay",
             DISPATCH, offsetof (dlq_dispatch_settings_t, backoff_max_ms), "integer `backoff_ms`–86400000 (1 day)", NULL,
             "cap of the delay ceiling"),
    SETTING ("sinks.NAME.retry.multiplier", FLOAT, "2.0", 1, 100,
             "growth of the delay ceiling per attempt",
             DISPATCH, offsetof (dlq_dispatch_settings_t, multiplier), NULL, NULL,
             "growth of the ceiling per attempt; the delay is drawn uniformly from [0, ceiling] (full jitter)"),
    SETTING ("sinks.NAME.batch.max_events", INT, "1000", 1, 100000,
             "events per deliver call, at most",
             DISPATCH, offsetof (dlq_dispatch_settings_t, batch_max), NULL, NULL,
             "events per delivery call, at most (a plugin may lower it)"),
    SETTING ("sinks.NAME.batch.linger_ms", INT, "0", 0, 60000,
             "wait for a batch to fill",
             DISPATCH, offsetof (dlq_dispatch_settings_t, linger_ms), NULL, NULL,
             "how long a partial batch waits to fill; 0 sends at once"),
    SETTING ("sinks.NAME.timeout_ms", INT, "30000", 1, 3600000,
             "a deliver call taking longer is retried",
             DISPATCH, offsetof (dlq_dispatch_settings_t, timeout_ms), NULL, NULL,
             "a delivery call that takes longer has all its events retried"),
    SETTING ("sinks.NAME.max_backlog_bytes", INT, "10737418240", 0, INT64_MAX,
             "spool bytes kept for the sink's backlog before PUTs answer UNAVAILABLE; 0 = no limit",
             DISPATCH, offsetof (dlq_dispatch_settings_t, max_backlog_bytes), NULL, NULL,
             "the spool the sink's backlog may hold (from its cursor's next event, or its oldest retry, to the tip); past it every PUT is answered `UNAVAILABLE` naming the sink until it catches up; 0: no limit"),
    SETTING ("sinks.NAME.circuit.failures", INT, "5", 1, 1000000,
             "consecutive failed batches that open the circuit",
             DISPATCH, offsetof (dlq_dispatch_settings_t, circuit_failures), NULL, NULL,
             "consecutive failed batches (every event `RETRY`) that open the circuit"),
};

#define ROW_COUNT (sizeof rows / sizeof rows [0])
#define PREFIX "sinks.NAME."

const dlq_setting_t *
dlq_plugin_config_rows (size_t *count_out)
{
    *count_out = ROW_COUNT;
    return rows;
}

/* ---- schema ------------------------------------------------------------ */

static int
spec_index (const dlq_sink_config_t *self, const char *name)
{
    for (size_t i = 0; i < self->settings; i++)
        if (strcmp (self->ops->settings [i].name, name) == 0)
            return (int) i;
    return -1;
}

/* The STRING setting a member named "<setting>_file" or "<setting>_env"
 * stands for (docs/security.md: a secret kept out of the file), or -1. */
static int
indirect_index (const dlq_sink_config_t *self, const char *name)
{
    size_t n = strlen (name);
    static const char *const suffixes [] = { "_file", "_env" };
    for (size_t k = 0; k < 2; k++) {
        size_t s = strlen (suffixes [k]);
        if (n <= s || strcmp (name + n - s, suffixes [k]) != 0)
            continue;
        char base [128];
        if (n - s >= sizeof base)
            return -1;
        memcpy (base, name, n - s);
        base [n - s] = '\0';
        int i = spec_index (self, base);
        return i >= 0 && self->ops->settings [i].type == DLQ_SINK_SETTING_STRING ? i : -1;
    }
    return -1;
}

/* ---- values ------------------------------------------------------------ */

/* The text of a secret's file (its trailing newlines dropped) into *out;
 * false and err when it cannot be read, is empty, or others can read it. */
static bool
read_secret_file (const config_setting_t *m, const char *path, char **out, dlq_config_error_t *err)
{
    struct stat st;
    if (stat (path, &st) != 0)
        return dlq_config_fail (err, m, "%s: %s", path, strerror (errno));
    if (st.st_mode & 077)
        return dlq_config_fail (err, m, "%s holds a secret and others can read it (mode %04o); run: chmod 600 %s",
                                path, (unsigned) (st.st_mode & 07777), path);
    FILE *f = fopen (path, "rb");
    if (!f)
        return dlq_config_fail (err, m, "%s: %s", path, strerror (errno));
    dlq_buf_t text = DLQ_BUF_INIT;
    char chunk [4096];
    size_t n;
    while ((n = fread (chunk, 1, sizeof chunk, f)) > 0 && text.len < 65536)
        dlq_buf_append (&text, chunk, n);
    fclose (f);
    while (text.len && (text.data [text.len - 1] == '\n' || text.data [text.len - 1] == '\r'))
        text.data [--text.len] = '\0';
    if (!text.len || memchr (text.data, '\0', text.len)) {
        dlq_buf_free (&text);
        return dlq_config_fail (err, m, "%s: expected the value on its own (not empty, no NUL byte)", path);
    }
    *out = dlq_buf_steal (&text, NULL);
    return true;
}

/* Set STRING setting spec from a member "<name>_file" (the file's text)
 * or "<name>_env" (the variable's value), within spec's bounds. */
static bool
read_indirect (const config_setting_t *m, const dlq_sink_setting_t *spec, dlq_setting_value_t *v,
               dlq_config_error_t *err)
{
    const char *name = config_setting_name (m), *ref = config_setting_get_string (m);
    char *text = NULL;
    bool from_file = strlen (name) > 5 && strcmp (name + strlen (name) - 5, "_file") == 0;
    if (from_file && !read_secret_file (m, ref, &text, err))
        return false;
    if (!from_file) {
        const char *value = getenv (ref);
        if (!value || !*value)
            return dlq_config_fail (err, m, "the environment variable %s is not set", ref);
        text = dlq_strdup (value);
    }
    size_t len = strlen (text);
    if ((int64_t) len < spec->min || (spec->max && (int64_t) len > spec->max)) {
        free (text);
        return dlq_config_fail (err, m, "expected %lld to %lld bytes for %s (the value is not shown)",
                                (long long) spec->min, (long long) spec->max, spec->name);
    }
    dlq_setting_value_free (v);
    v->s = text;
    v->set = true;
    v->indirect = true;
    return true;
}

/* Read every plugin setting present in group into values. */
static bool
read_values (const dlq_sink_config_t *self, const config_setting_t *group, dlq_setting_value_t *values,
             dlq_config_error_t *err)
{
    for (size_t i = 0; i < self->settings; i++) {
        const config_setting_t *m = config_setting_get_member (group, self->ops->settings [i].name);
        if (m && !dlq_setting_value_read (m, &self->ops->settings [i], &values [i], err))
            return false;
    }
    for (int k = 0; k < config_setting_length (group); k++) {
        const config_setting_t *m = config_setting_get_elem (group, (unsigned) k);
        int i = config_setting_name (m) ? indirect_index (self, config_setting_name (m)) : -1;
        if (i >= 0 && !read_indirect (m, &self->ops->settings [i], &values [i], err))
            return false;
    }
    return true;
}

/* Does group have both name_file and name_env? */
static bool
indirect_twice (const config_setting_t *group, const char *name)
{
    char file [160], env [160];
    snprintf (file, sizeof file, "%s_file", name);
    snprintf (env, sizeof env, "%s_env", name);
    return config_setting_get_member (group, file) && config_setting_get_member (group, env);
}

/* Check the members of group: the plugin's settings (only those it lets a
 * stream override, when per_stream) and, for a sink section, the
 * gateway's (the rows above). */
static bool
check_members (const dlq_sink_config_t *self, const config_setting_t *group, bool per_stream,
               dlq_config_error_t *err)
{
    for (int k = 0; k < config_setting_length (group); k++) {
        const config_setting_t *m = config_setting_get_elem (group, (unsigned) k);
        int i = config_setting_name (m) ? spec_index (self, config_setting_name (m)) : -1;
        const dlq_sink_setting_t *spec = i >= 0 ? &self->ops->settings [i] : NULL;
        dlq_member_result_t rc = DLQ_MEMBER_UNKNOWN;
        int indirect = !per_stream && !spec && config_setting_name (m)
                     ? indirect_index (self, config_setting_name (m)) : -1;
        if (indirect >= 0) {
            if (config_setting_type (m) != CONFIG_TYPE_STRING)
                return dlq_config_fail (err, m, "expected a string: %s", strstr (config_setting_name (m), "_env")
                                        ? "the name of an environment variable" : "the path of a file");
            if (config_setting_get_member (group, self->ops->settings [indirect].name)
            ||  indirect_twice (group, self->ops->settings [indirect].name))
                return dlq_config_fail (err, m, "give %s, %s_file or %s_env, not two of them",
                                        self->ops->settings [indirect].name, self->ops->settings [indirect].name,
                                        self->ops->settings [indirect].name);
            continue;
        }
        if (spec && (!per_stream || spec->per_stream))
            rc = dlq_setting_type_matches (m, spec->type) ? DLQ_MEMBER_OK
               : (dlq_setting_type_fail (m, spec, err), DLQ_MEMBER_BAD);
        else
        if (!per_stream)
            rc = dlq_config_check_member (m, rows, ROW_COUNT, PREFIX, err);
        if (rc == DLQ_MEMBER_BAD)
            return false;
        if (rc == DLQ_MEMBER_UNKNOWN) {
            dlq_buf_t known = DLQ_BUF_INIT;
            for (size_t j = 0; j < self->settings; j++)
                if (!per_stream || self->ops->settings [j].per_stream)
                    dlq_buf_printf (&known, "%s%s", known.len ? ", " : "", self->ops->settings [j].name);
            if (!per_stream) {
                if (known.len)
                    dlq_buf_puts (&known, ", ");
                dlq_config_member_names (rows, ROW_COUNT, PREFIX, &known);
            }
            dlq_config_fail (err, m, "unknown setting; expected one of: %s", known.data ? known.data : "(none)");
            dlq_buf_free (&known);
            return false;
        }
    }
    return true;
}

/* ---- dispatch settings ---------------------------------------------------- */

static bool
read_dispatch (const config_setting_t *section, dlq_dispatch_settings_t *d, dlq_config_error_t *err)
{
    if (!dlq_config_set_defaults (rows, ROW_COUNT, PREFIX, DISPATCH, d))
        return dlq_config_fail (err, section, "a default of the sink settings table does not parse (a bug)");
    if (!dlq_config_read (section, rows, ROW_COUNT, PREFIX, DISPATCH, d, err))
        return false;
    const config_setting_t *retry = config_setting_get_member (section, "retry");
    if (retry && d->backoff_max_ms < d->backoff_ms)
        return dlq_config_fail (err, retry, "expected backoff_max_ms (%lld) >= backoff_ms (%lld)",
                                (long long) d->backoff_max_ms, (long long) d->backoff_ms);
    return true;
}

/* ---- the plugin ---------------------------------------------------------- */

static dlq_plugin_t *
load_plugin (const config_setting_t *section, const char *search, dlq_config_error_t *err)
{
    const char *type = NULL, *path = NULL;
    config_setting_lookup_string (section, "type", &type);
    config_setting_lookup_string (section, "path", &path);
    char why [1024];
    dlq_plugin_t *plugin = NULL;
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
        if (!(plugin = dlq_plugin_load (path, why, sizeof why)))
            dlq_config_fail (err, config_setting_get_member (section, "path"), "%s", why);
    }
    else
    if (!(plugin = dlq_plugin_find (type, search, why, sizeof why)))
        dlq_config_fail (err, config_setting_get_member (section, "type"), "%s", why);
    else
    if (strcmp (dlq_plugin_ops (plugin)->type, type) != 0) {
        dlq_config_fail (err, config_setting_get_member (section, "type"), "%s is a sink of type \"%s\", not \"%s\"",
                         dlq_plugin_path (plugin), dlq_plugin_ops (plugin)->type, type);
        dlq_plugin_destroy (&plugin);
    }
    return plugin;
}

/* The plugin's defaults; a setting of a type this gateway does not know
 * (from a newer ABI) or a default that does not parse is refused. */
static bool
plugin_defaults (dlq_sink_config_t *self, const config_setting_t *section, dlq_config_error_t *err)
{
    for (size_t i = 0; i < self->settings; i++) {
        const dlq_sink_setting_t *spec = &self->ops->settings [i];
        if (!dlq_setting_type_known (spec->type))
            return dlq_config_fail (err, section, "sink plugin %s declares %s of a type this dlqd does not know "
                                    "(%d): a newer plugin than the gateway", dlq_plugin_path (self->plugin),
                                    spec->name, (int) spec->type);
        if (!dlq_setting_value_default (spec, &self->section [i]))
            return dlq_config_fail (err, section, "sink plugin %s declares a bad default for %s",
                                    dlq_plugin_path (self->plugin), spec->name);
    }
    return true;
}

dlq_sink_config_t *
dlq_plugin_config_new (const config_setting_t *section, int index, const char *search,
                     dlq_config_error_t *err)
{
    dlq_plugin_t *plugin = load_plugin (section, search, err);
    if (!plugin)
        return NULL;
    dlq_sink_config_t *self = dlq_calloc (1, sizeof *self);
    self->name = dlq_strdup (config_setting_name (section));
    self->index = index;
    self->plugin = plugin;
    self->ops = dlq_plugin_ops (plugin);
    while (self->ops->settings && self->ops->settings [self->settings].name)
        self->settings++;
    self->section = dlq_calloc (self->settings + 1, sizeof (dlq_setting_value_t));
    self->counters = dlq_calloc (1, sizeof (counters_t));
    pthread_mutex_init (&self->counters->lock, NULL);
    bool ok = plugin_defaults (self, section, err)
           && check_members (self, section, false, err)
           && read_values (self, section, self->section, err)
           && read_dispatch (section, &self->dispatch, err);
    if (!ok)
        dlq_plugin_config_destroy (&self);
    return self;
}

bool
dlq_plugin_config_add_stream (dlq_sink_config_t *self, const char *stream,
                            const config_setting_t *group, dlq_config_error_t *err)
{
    if (config_setting_type (group) != CONFIG_TYPE_GROUP)
        return dlq_config_fail (err, group, "expected a group of %s's per-stream settings", self->name);
    if (!check_members (self, group, true, err))
        return false;
    self->streams = dlq_realloc (self->streams, (self->stream_count + 1) * sizeof (stream_values_t));
    stream_values_t *sv = &self->streams [self->stream_count++];
    sv->stream = dlq_strdup (stream);
    sv->values = dlq_calloc (self->settings + 1, sizeof (dlq_setting_value_t));
    return read_values (self, group, sv->values, err);
}

void
dlq_plugin_config_route_stream (dlq_sink_config_t *self, const char *stream)
{
    self->routed = dlq_realloc (self->routed, (self->routed_count + 2) * sizeof *self->routed);
    self->routed [self->routed_count++] = dlq_strdup (stream);
    self->routed [self->routed_count] = NULL;
}

size_t
dlq_plugin_config_streams (const dlq_sink_config_t *self, const char *const **names)
{
    *names = (const char *const *) self->routed;
    return self->routed_count;
}

void
dlq_plugin_config_destroy (dlq_sink_config_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_sink_config_t *self = *self_p;
    for (size_t i = 0; i < self->routed_count; i++)
        free (self->routed [i]);
    free (self->routed);
    for (size_t i = 0; i < self->settings; i++)
        dlq_setting_value_free (&self->section [i]);
    free (self->section);
    for (size_t s = 0; s < self->stream_count; s++) {
        for (size_t i = 0; i < self->settings; i++)
            dlq_setting_value_free (&self->streams [s].values [i]);
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
    dlq_plugin_destroy (&self->plugin);
    free (self->name);
    free (self);
    *self_p = NULL;
}

const char *
dlq_plugin_config_inline_secret (const dlq_sink_config_t *self)
{
    for (size_t i = 0; i < self->settings; i++) {
        const dlq_setting_value_t *v = &self->section [i];
        if (v->set && !v->indirect && v->s && dlq_secret_in (v->s))
            return self->ops->settings [i].name;
        for (size_t k = 0; v->set && k < v->count; k++)
            if (dlq_secret_in (v->list [k]))
                return self->ops->settings [i].name;
    }
    return NULL;
}

const char *dlq_plugin_config_name (const dlq_sink_config_t *self) { return self->name; }
int dlq_plugin_config_index (const dlq_sink_config_t *self) { return self->index; }
const char *dlq_plugin_config_path (const dlq_sink_config_t *self) { return dlq_plugin_path (self->plugin); }
const dlq_sink_ops_t *dlq_plugin_config_ops (const dlq_sink_config_t *self) { return self->ops; }
const dlq_dispatch_settings_t *dlq_plugin_config_dispatch (const dlq_sink_config_t *self) { return &self->dispatch; }

/* The value of setting name for stream, following the precedence. */
static const dlq_setting_value_t *
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
dlq_plugin_config_int (const dlq_sink_config_t *self, const char *stream, const char *name)
{
    const dlq_setting_value_t *v = lookup (self, stream, name);
    return v && v->set ? v->i : 0;
}

double
dlq_plugin_config_float (const dlq_sink_config_t *self, const char *stream, const char *name)
{
    const dlq_setting_value_t *v = lookup (self, stream, name);
    return v && v->set ? v->f : 0;
}

bool
dlq_plugin_config_bool (const dlq_sink_config_t *self, const char *stream, const char *name)
{
    const dlq_setting_value_t *v = lookup (self, stream, name);
    return v && v->set && v->i;
}

const char *
dlq_plugin_config_string (const dlq_sink_config_t *self, const char *stream, const char *name)
{
    const dlq_setting_value_t *v = lookup (self, stream, name);
    return v && v->set ? v->s : NULL;
}

size_t
dlq_plugin_config_list (const dlq_sink_config_t *self, const char *stream, const char *name,
                      const char *const **items)
{
    const dlq_setting_value_t *v = lookup (self, stream, name);
    *items = v && v->set ? (const char *const *) v->list : NULL;
    return v && v->set ? v->count : 0;
}

void
dlq_plugin_config_count (const dlq_sink_config_t *self, const char *name, uint64_t n)
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
dlq_plugin_config_format_counters (const dlq_sink_config_t *self, dlq_buf_t *out)
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
