/*  dlqd_config — load dlqd.conf and validate it against the schema below.
 *
 *  The schema tables are the single source of truth for setting names,
 *  types, bounds and the one-line descriptions used in error messages.
 */
#include "dlqd_config.h"

#include "config_schema.h"
#include "config_text.h"
#include "dlq_alloc.h"
#include "dlq_buf.h"
#include "replay_config.h"

#include <libconfig.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIB (1024LL * 1024)

static const dlq_setting_spec_t top_schema [] = {
    { "gateway",  DLQ_SETTING_GROUP, 0, 0, "the gateway's sockets, data directory and limits" },
    { "primary",  DLQ_SETTING_STRING, 1, 64, "the store that answers queries: \"embedded\" or a sink that can" },
    { "defaults", DLQ_SETTING_GROUP, 0, 0, "the stream policy of every stream not listed in streams" },
    { "streams",  DLQ_SETTING_LIST, 0, 0, "per-stream policy overrides, ( { name = \"...\"; ... }, ... )" },
    { "sinks",    DLQ_SETTING_GROUP, 0, 0, "the sinks events fan out to, { name: { type = \"...\"; ... }; ... }" },
    { "replay",   DLQ_SETTING_GROUP, 0, 0, "replay: listen, rate, max_replays, backoff_ms, backoff_max_ms, lease_ms, owner" },
    { NULL }
};

static const dlq_setting_spec_t gateway_schema [] = {
    { "listen",            DLQ_SETTING_STRING_LIST, 1, 1024, "ZeroMQ endpoints to bind, e.g. [\"tcp://127.0.0.1:5560\"]" },
    { "data_dir",          DLQ_SETTING_STRING, 1, 4096, "directory of the embedded store" },
    { "max_message_bytes", DLQ_SETTING_INT, 1024, 64 * MIB, "largest request body accepted" },
    { "max_frame_bytes",   DLQ_SETTING_INT, 1024, 1024 * MIB, "largest frame the transport reads; bigger drops the connection" },
    { "commit",            DLQ_SETTING_GROUP, 0, 0, "group commit: max_batch, max_batch_bytes, max_delay_ms" },
    { "max_connections",   DLQ_SETTING_INT, 1, 1000000, "most client connections at once; more are closed as they come" },
    { "request_hwm",       DLQ_SETTING_INT, 1, 1000000, "requests ZeroMQ queues per connection before the gateway reads them" },
    { "reply_hwm",         DLQ_SETTING_INT, 1, 10000000, "replies queued per connection; past that they are dropped" },
    { "max_checkpoint_bytes", DLQ_SETTING_INT, MIB, 1024 * 1024 * MIB, "memory the checkpoints may take; a write past it is refused" },
    { "spool_preallocate", DLQ_SETTING_BOOL, 0, 0, "start each spool segment from a zeroed file made ahead (off on copy-on-write filesystems)" },
    { "query_threads",     DLQ_SETTING_INT, 1, 64, "threads answering GET, LIST and STATS" },
    { "query_nice",        DLQ_SETTING_INT, 0, 19, "how much lower the query threads' priority is (nice increment)" },
    { "index_nice",        DLQ_SETTING_INT, 0, 19, "how much lower the indexer thread's priority is (nice increment)" },
    { "sweep",             DLQ_SETTING_GROUP, 0, 0, "expired-event sweep: interval_ms, batch" },
    { "sink_dir",          DLQ_SETTING_STRING, 1, 4096, "where built-in sink plugins are found (':'-separated)" },
    { NULL }
};

static const dlq_setting_spec_t commit_schema [] = {
    { "max_batch",    DLQ_SETTING_INT, 1, 100000, "most events in one transaction" },
    { "max_batch_bytes", DLQ_SETTING_INT, 65536, 1024 * MIB, "most bytes of events (canonical JSON) in one transaction" },
    { "max_delay_ms", DLQ_SETTING_INT, 0, 1000, "extra wait for a batch to fill before committing" },
    { NULL }
};

static const dlq_setting_spec_t sweep_schema [] = {
    { "interval_ms", DLQ_SETTING_INT, 100, 86400000, "how often expired events are deleted" },
    { "batch",       DLQ_SETTING_INT, 1, 1000000, "most events deleted per transaction" },
    { NULL }
};

static const dlq_setting_spec_t policy_schema [] = {
    { "name",                      DLQ_SETTING_STRING, 1, 255, "the stream name" },
    { "retention_days",            DLQ_SETTING_INT, 0, DLQ_RETENTION_DAYS_MAX, "days an event is kept; 0 = forever" },
    { "include_original_document", DLQ_SETTING_BOOL, 0, 0, "keep fullDocument" },
    { "include_stack_trace",       DLQ_SETTING_BOOL, 0, 0, "keep error.stackTrace" },
    { "chain",                     DLQ_SETTING_STRING_LIST, 0, 0, "the sinks (names in sinks) events go to, in order" },
    { "replay_route",              DLQ_SETTING_STRING, 1, 255, "where replays go: \"endpoint\" or a sink's name" },
    { "schedule",                  DLQ_SETTING_GROUP, 0, 0, "scheduled replay: enabled, max_retries, batch_size, interval_ms" },
    { NULL }
};

int64_t
dlqd_config_request_hwm (int64_t max_message_bytes)
{
    int64_t hwm = DLQD_REQUEST_QUEUE_BYTES / max_message_bytes;
    return hwm < 8 ? 8 : hwm > 1000 ? 1000 : hwm;
}

static void
set_defaults (dlqd_config_t *c)
{
    c->data_dir = dlq_strdup ("./var");
    c->max_message_bytes = MIB;
    c->max_frame_bytes = 0;             /* derived from max_message_bytes below */
    c->commit_max_batch = 4096;
    c->commit_max_batch_bytes = 16 * MIB;
    c->max_connections = 0;             /* derived from the open-files limit at start */
    c->request_hwm = 0;                 /* derived from max_message_bytes below */
    c->reply_hwm = 10000;
    c->max_checkpoint_bytes = 256 * MIB;
    c->spool_preallocate = true;
    c->commit_max_delay_ms = 0;
    c->query_threads = 2;
    c->query_nice = 19;
    c->index_nice = 19;
    c->sweep_interval_ms = 60000;
    c->sweep_batch = 1000;
    c->primary = dlq_strdup ("embedded");
    c->defaults = (dlq_policy_t) { .retention_days = 30, .include_original_document = true, .include_stack_trace = true };
    dlq_replay_config_defaults (&c->replay);
}

static bool
read_listen (const config_setting_t *gateway, dlqd_config_t *c)
{
    const config_setting_t *listen = gateway ? config_setting_get_member (gateway, "listen") : NULL;
    if (!listen) {
        c->listen = dlq_calloc (1, sizeof (char *));
        c->listen [0] = dlq_strdup ("tcp://127.0.0.1:5560");
        c->listen_count = 1;
        return true;
    }
    c->listen_count = (size_t) config_setting_length (listen);
    c->listen = dlq_calloc (c->listen_count ? c->listen_count : 1, sizeof (char *));
    for (size_t i = 0; i < c->listen_count; i++)
        c->listen [i] = dlq_strdup (config_setting_get_string_elem (listen, (int) i));
    return true;
}

static bool
read_gateway (const config_setting_t *g, dlqd_config_t *c, dlq_config_error_t *err)
{
    if (!g)
        return read_listen (NULL, c);
    char *data_dir = NULL;
    bool ok = dlq_config_check_group (g, gateway_schema, err)
           && read_listen (g, c)
           && dlq_config_string (g, gateway_schema, "data_dir", &data_dir, err)
           && dlq_config_int (g, gateway_schema, "max_message_bytes", &c->max_message_bytes, err)
           && dlq_config_int (g, gateway_schema, "max_frame_bytes", &c->max_frame_bytes, err)
           && dlq_config_int (g, gateway_schema, "query_threads", &c->query_threads, err)
           && dlq_config_int (g, gateway_schema, "query_nice", &c->query_nice, err)
           && dlq_config_int (g, gateway_schema, "index_nice", &c->index_nice, err)
           && dlq_config_int (g, gateway_schema, "max_connections", &c->max_connections, err)
           && dlq_config_int (g, gateway_schema, "request_hwm", &c->request_hwm, err)
           && dlq_config_int (g, gateway_schema, "reply_hwm", &c->reply_hwm, err)
           && dlq_config_int (g, gateway_schema, "max_checkpoint_bytes", &c->max_checkpoint_bytes, err)
           && dlq_config_bool (g, "spool_preallocate", &c->spool_preallocate)
           && dlq_config_string (g, gateway_schema, "sink_dir", &c->sink_search, err);
    if (data_dir) {
        free (c->data_dir);
        c->data_dir = data_dir;
    }
    if (ok && c->listen_count == 0)
        ok = dlq_config_fail (err, config_setting_get_member (g, "listen"),
                              "expected at least one endpoint");
    const config_setting_t *commit = config_setting_get_member (g, "commit");
    if (ok && commit)
        ok = dlq_config_check_group (commit, commit_schema, err)
          && dlq_config_int (commit, commit_schema, "max_batch", &c->commit_max_batch, err)
          && dlq_config_int (commit, commit_schema, "max_batch_bytes", &c->commit_max_batch_bytes, err)
          && dlq_config_int (commit, commit_schema, "max_delay_ms", &c->commit_max_delay_ms, err);
    const config_setting_t *sweep = config_setting_get_member (g, "sweep");
    if (ok && sweep)
        ok = dlq_config_check_group (sweep, sweep_schema, err)
          && dlq_config_int (sweep, sweep_schema, "interval_ms", &c->sweep_interval_ms, err)
          && dlq_config_int (sweep, sweep_schema, "batch", &c->sweep_batch, err);
    if (ok && c->max_frame_bytes && c->max_frame_bytes < c->max_message_bytes)
        ok = dlq_config_fail (err, config_setting_get_member (g, "max_frame_bytes"),
                              "expected at least max_message_bytes (%lld)",
                              (long long) c->max_message_bytes);
    return ok;
}

/* The chain of a policy group: sink names into a bit set. */
static bool
read_chain (const config_setting_t *g, const dlqd_config_t *c, uint64_t *chain, dlq_config_error_t *err)
{
    const config_setting_t *list = config_setting_get_member (g, "chain");
    if (!list)
        return true;
    *chain = 0;
    for (int i = 0; i < config_setting_length (list); i++) {
        const char *name = config_setting_get_string_elem (list, i);
        const dlq_sink_config_t *sink = dlqd_config_sink (c, name);
        if (!sink)
            return dlq_config_fail (err, list, "names sink \"%s\", which is not in sinks", name);
        *chain |= 1ULL << dlq_sink_config_index (sink);
    }
    return true;
}

/* Read retention, include flags, chain and replay settings of a policy
 * group over base; stream is NULL for the defaults. */
static bool
read_policy (const config_setting_t *g, dlqd_config_t *c, const char *stream, dlq_policy_t *policy,
             dlq_config_error_t *err)
{
    int64_t days = policy->retention_days;
    bool ok = dlq_config_int (g, policy_schema, "retention_days", &days, err)
           && dlq_config_bool (g, "include_original_document", &policy->include_original_document)
           && dlq_config_bool (g, "include_stack_trace", &policy->include_stack_trace)
           && read_chain (g, c, &policy->chain, err)
           && dlq_replay_policy_read (g, c, stream, policy, stream != NULL, err);
    policy->retention_days = (int) days;
    return ok;
}

static bool
read_defaults (const config_setting_t *g, dlqd_config_t *c, dlq_config_error_t *err)
{
    if (!g)
        return true;
    if (config_setting_get_member (g, "name"))
        return dlq_config_fail (err, config_setting_get_member (g, "name"),
                                "unknown setting; the defaults apply to every stream and have no name");
    return dlq_config_check_group (g, policy_schema, err) && read_policy (g, c, NULL, &c->defaults, err);
}

/* Check a streams entry: policy settings plus, for each sink, a group of
 * that sink's per-stream settings (the member named after the sink). */
static bool
check_stream_entry (const config_setting_t *s, dlqd_config_t *c, dlq_config_error_t *err)
{
    for (int i = 0; i < config_setting_length (s); i++) {
        const config_setting_t *m = config_setting_get_elem (s, (unsigned) i);
        const char *name = config_setting_name (m);
        dlq_sink_config_t *sink = name ? dlqd_config_sink (c, name) : NULL;
        const char *stream = NULL;
        config_setting_lookup_string (s, "name", &stream);
        if (sink && !dlq_sink_config_add_stream (sink, stream ? stream : "", m, err))
            return false;
    }
    return true;
}

/* The policy members of a stream entry, without the per-sink groups. */
static bool
check_policy_members (const config_setting_t *s, dlqd_config_t *c, dlq_config_error_t *err)
{
    dlq_setting_spec_t schema [16 + DLQ_SINKS_MAX];
    size_t n = 0;
    for (; policy_schema [n].name; n++)
        schema [n] = policy_schema [n];
    for (size_t i = 0; i < c->sink_count; i++)
        schema [n++] = (dlq_setting_spec_t) { dlq_sink_config_name (c->sinks [i]), DLQ_SETTING_GROUP, 0, 0,
                                              "this sink's settings for the stream" };
    schema [n] = (dlq_setting_spec_t) { NULL };
    return dlq_config_check_group (s, schema, err);
}

static bool
read_streams (const config_setting_t *list, dlqd_config_t *c, dlq_config_error_t *err)
{
    c->policies = dlq_policy_table_new (&c->defaults);
    for (int i = 0; list && i < config_setting_length (list); i++) {
        const config_setting_t *s = config_setting_get_elem (list, (unsigned) i);
        if (config_setting_type (s) != CONFIG_TYPE_GROUP)
            return dlq_config_fail (err, s, "expected a group { name = \"...\"; ... }");
        char *name = NULL;
        dlq_policy_t policy = c->defaults;
        bool ok = check_policy_members (s, c, err)
               && dlq_config_string (s, policy_schema, "name", &name, err)
               && name
               && read_policy (s, c, name, &policy, err);
        if (!name && !err->text)
            ok = dlq_config_fail (err, s, "expected a name = \"stream name\"; setting");
        if (ok && dlq_policy_table_has (c->policies, name))
            ok = dlq_config_fail (err, s, "stream \"%s\" is listed twice", name);
        if (ok)
            ok = check_stream_entry (s, c, err);
        if (ok) {
            dlq_policy_table_set (c->policies, name, &policy);
            for (size_t k = 0; k < c->sink_count; k++)
                if (policy.chain & (1ULL << k))
                    dlq_sink_config_route_stream (c->sinks [k], name);
        }
        free (name);
        if (!ok)
            return false;
    }
    return true;
}

static bool
read_sinks (const config_setting_t *group, dlqd_config_t *c, dlq_config_error_t *err)
{
    if (!group)
        return true;
    int count = config_setting_length (group);
    if (count > DLQ_SINKS_MAX)
        return dlq_config_fail (err, group, "expected at most %d sinks", DLQ_SINKS_MAX);
    c->sinks = dlq_calloc ((size_t) count + 1, sizeof (dlq_sink_config_t *));
    const char *search = c->sink_search ? c->sink_search : dlqd_config_default_sink_search ();
    for (int i = 0; i < count; i++) {
        const config_setting_t *s = config_setting_get_elem (group, (unsigned) i);
        if (config_setting_type (s) != CONFIG_TYPE_GROUP)
            return dlq_config_fail (err, s, "expected a group { type = \"...\"; ... }");
        if (strcmp (config_setting_name (s), "embedded") == 0)
            return dlq_config_fail (err, s, "\"embedded\" is the name of the built-in store; "
                                    "name this sink otherwise");
        c->sinks [i] = dlq_sink_config_new (s, i, search, err);
        if (!c->sinks [i])
            return false;
        c->sink_count++;
    }
    return true;
}

const char *
dlqd_config_default_sink_search (void)
{
    static char search [PATH_MAX * 2 + 16];
    char exe [PATH_MAX];
    ssize_t n = readlink ("/proc/self/exe", exe, sizeof exe - 1);
    exe [n > 0 ? n : 0] = '\0';
    char *slash = strrchr (exe, '/');
    if (slash)
        *slash = '\0';
    snprintf (search, sizeof search, "%s/../plugins:%s", exe, DLQD_INSTALL_PLUGIN_DIR);
    return search;
}

dlq_sink_config_t *
dlqd_config_sink (const dlqd_config_t *config, const char *name)
{
    for (size_t i = 0; i < config->sink_count; i++)
        if (strcmp (dlq_sink_config_name (config->sinks [i]), name) == 0)
            return config->sinks [i];
    return NULL;
}

static void
add_warning (dlqd_config_t *c, const char *format, ...) __attribute__ ((format (printf, 2, 3)));

static void
add_warning (dlqd_config_t *c, const char *format, ...)
{
    char line [1024];
    va_list args;
    va_start (args, format);
    vsnprintf (line, sizeof line, format, args);
    va_end (args);
    c->warnings = dlq_realloc (c->warnings, (c->warning_count + 1) * sizeof (char *));
    c->warnings [c->warning_count++] = dlq_strdup (line);
}

/* A sink primary answers only for the events delivered to it: a stream
 * whose chain leaves it out is acknowledged but never found. Valid (the
 * events are kept in the spool and go to the other sinks), but say so. */
static void
warn_chains_without_primary (const config_setting_t *streams, dlqd_config_t *c)
{
    uint64_t bit = 1ULL << dlq_sink_config_index (c->primary_sink);
    if (!(c->defaults.chain & bit))
        add_warning (c, "defaults.chain leaves out the primary \"%s\": events of streams not listed in streams "
                     "are acknowledged but never found by GET, LIST or a replay", c->primary);
    for (int i = 0; streams && i < config_setting_length (streams); i++) {
        const char *name = NULL;
        config_setting_lookup_string (config_setting_get_elem (streams, (unsigned) i), "name", &name);
        if (name && !(dlq_policy_table_lookup (c->policies, name)->chain & bit))
            add_warning (c, "stream \"%s\": its chain leaves out the primary \"%s\": its events are acknowledged "
                         "but never found by GET, LIST or a replay", name, c->primary);
    }
}

static bool
read_top (const config_setting_t *root, dlqd_config_t *c, dlq_config_error_t *err)
{
    char *primary = NULL;
    bool ok = dlq_config_check_group (root, top_schema, err)
           && read_gateway (config_setting_get_member (root, "gateway"), c, err)
           && read_sinks (config_setting_get_member (root, "sinks"), c, err)
           && dlq_replay_config_read (config_setting_get_member (root, "replay"), &c->replay, err)
           && dlq_config_string (root, top_schema, "primary", &primary, err)
           && read_defaults (config_setting_get_member (root, "defaults"), c, err)
           && read_streams (config_setting_get_member (root, "streams"), c, err);
    if (primary) {
        free (c->primary);
        c->primary = primary;
        if (ok && strcmp (primary, "embedded") != 0) {
            c->primary_sink = dlqd_config_sink (c, primary);
            if (!c->primary_sink)
                ok = dlq_config_fail (err, config_setting_get_member (root, "primary"),
                                      "expected \"embedded\" or the name of a sink in sinks, got \"%s\"",
                                      primary);
            else
            if (!dlq_sink_config_ops (c->primary_sink)->store)
                ok = dlq_config_fail (err, config_setting_get_member (root, "primary"),
                                      "sink \"%s\" (type %s) cannot answer queries", primary,
                                      dlq_sink_config_ops (c->primary_sink)->type);
            else
            if (c->replay.scheduled_count && !dlq_replay_primary_keeps_state (dlq_sink_config_ops (c->primary_sink)))
                ok = dlq_config_fail (err, config_setting_get_member (root, "primary"),
                                      "stream \"%s\" has a schedule, but sink \"%s\" (type %s) keeps no replay "
                                      "state: use \"embedded\" or a postgres or mongo sink", c->replay.scheduled [0],
                                      primary, dlq_sink_config_ops (c->primary_sink)->type);
        }
    }
    if (ok && c->max_frame_bytes == 0)
        c->max_frame_bytes = 4 * c->max_message_bytes + 65536;
    if (ok && c->request_hwm == 0)
        c->request_hwm = dlqd_config_request_hwm (c->max_message_bytes);
    if (ok && c->primary_sink)
        warn_chains_without_primary (config_setting_get_member (root, "streams"), c);
    return ok;
}

/* The file's text with its 64-bit integers marked for libconfig
 * (config_text.h), or NULL when it cannot be read. */
static char *
read_widened (const char *path)
{
    FILE *f = fopen (path, "rb");
    if (!f)
        return NULL;
    dlq_buf_t raw = DLQ_BUF_INIT;
    char chunk [65536];
    size_t n;
    while ((n = fread (chunk, 1, sizeof chunk, f)) > 0)
        dlq_buf_append (&raw, chunk, n);
    bool failed = ferror (f) != 0;
    fclose (f);
    char *text = failed ? NULL : dlq_config_text_widen (raw.data ? raw.data : "", raw.len, NULL);
    dlq_buf_free (&raw);
    return text;
}

dlqd_config_result_t
dlqd_config_load (const char *path, dlqd_config_t **config_p, char **err_p)
{
    *config_p = NULL;
    *err_p = NULL;
    config_t cf;
    config_init (&cf);
    dlqd_config_result_t rc = DLQD_CONFIG_OK;
    char *text = read_widened (path);
    if (!text || !config_read_string (&cf, text)) {
        dlq_buf_t msg = DLQ_BUF_INIT;
        if (!text || config_error_type (&cf) == CONFIG_ERR_FILE_IO) {
            dlq_buf_printf (&msg, "%s: cannot read the file", path);
            rc = DLQD_CONFIG_ERR_IO;
        }
        else {
            dlq_buf_printf (&msg, "%s:%d: %s", config_error_file (&cf) ? config_error_file (&cf) : path,
                            config_error_line (&cf), config_error_text (&cf));
            rc = DLQD_CONFIG_ERR_SYNTAX;
        }
        *err_p = dlq_buf_steal (&msg, NULL);
        config_destroy (&cf);
        free (text);
        return rc;
    }
    free (text);
    config_setting_set_hook (config_root_setting (&cf), (void *) path);     /* names the file in errors */
    dlqd_config_t *c = dlq_calloc (1, sizeof *c);
    set_defaults (c);
    dlq_config_error_t err = { NULL };
    if (!read_top (config_root_setting (&cf), c, &err)) {
        *err_p = err.text;
        dlqd_config_destroy (&c);
        rc = DLQD_CONFIG_ERR_INVALID;
    }
    else
    if (!c->policies)
        c->policies = dlq_policy_table_new (&c->defaults);
    config_destroy (&cf);
    *config_p = c;
    return rc;
}

void
dlqd_config_destroy (dlqd_config_t **config_p)
{
    if (!config_p || !*config_p)
        return;
    dlqd_config_t *c = *config_p;
    for (size_t i = 0; i < c->listen_count; i++)
        free (c->listen [i]);
    free (c->listen);
    free (c->data_dir);
    free (c->primary);
    free (c->sink_search);
    for (size_t i = 0; i < c->sink_count; i++)
        dlq_sink_config_destroy (&c->sinks [i]);
    free (c->sinks);
    dlq_policy_table_destroy (&c->policies);
    dlq_replay_config_free (&c->replay);
    for (size_t i = 0; i < c->warning_count; i++)
        free (c->warnings [i]);
    free (c->warnings);
    free (c);
    *config_p = NULL;
}
