/*  test_sink_plugin — the loader refuses a wrong plugin cleanly, naming the
 *  file and the cause; a sink section is validated against the plugin's
 *  schema; a sink whose init fails stops dlqd at startup with the reason.
 */
#include "dlqd_config.h"
#include "plugin_host.h"
#include "plugin.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define PLUGIN(type) DLQD_PLUGIN_DIR "/libdlq_sink_" type ".so"

static void
expect_refused (const char *path, const char *cause)
{
    char err [1024] = "";
    dlq_plugin_t *p = dlq_plugin_load (path, err, sizeof err);
    cr_expect_null (p, "%s was loaded", path);
    dlq_plugin_destroy (&p);
    cr_expect_not_null (strstr (err, path), "the error names the file: %s", err);
    cr_expect_not_null (strstr (err, cause), "the error says '%s': %s", cause, err);
}

Test (sink_plugin, wrong_plugins_are_refused_with_the_cause)
{
    expect_refused (PLUGIN ("bad_abi"), "ABI version 99");
    expect_refused (PLUGIN ("bad_size"), "dlq_sink_ops_t is");
    expect_refused (PLUGIN ("bad_noentry"), "does not export the symbol dlq_sink_entry");
    expect_refused (DLQD_PLUGIN_DIR "/no-such-plugin.so", "cannot load");
}

Test (sink_plugin, a_plugin_of_version_1s_first_header_still_loads)
{
    char err [1024] = "";
    dlq_plugin_t *p = dlq_plugin_load (PLUGIN ("bad_older"), err, sizeof err);
    cr_assert_not_null (p, "%s", err);
    const dlq_sink_ops_t *ops = dlq_plugin_ops (p);
    cr_expect_eq (ops->struct_size, DLQ_SINK_OPS_V1_SIZE);
    cr_expect_not (DLQ_SINK_OPS_HAS (ops, check), "check is past its table: never read");
    dlq_plugin_destroy (&p);
}

Test (sink_plugin, built_in_sinks_load_by_type)
{
    char err [1024] = "";
    dlq_plugin_t *p = dlq_plugin_find ("noop", "/nonexistent:" DLQD_PLUGIN_DIR, err, sizeof err);
    cr_assert_not_null (p, "%s", err);
    cr_expect_str_eq (dlq_plugin_ops (p)->type, "noop");
    cr_expect_eq (dlq_plugin_ops (p)->abi_version, DLQ_SINK_ABI_VERSION);
    dlq_plugin_destroy (&p);
    cr_expect_null (p);
    cr_expect_null (dlq_plugin_find ("nosuch", DLQD_PLUGIN_DIR, err, sizeof err));
    cr_expect_not_null (strstr (err, "no sink of type \"nosuch\""), "%s", err);
}

/* A sink linked into the program: what dlq_plugin_use_linked finds. */
static void
linked_destroy (void *instance)
{
    (void) instance;
}

static dlq_sink_status_t
linked_init (const dlq_sink_host_t *host, const dlq_sink_config_t *config, dlq_sink_mode_t mode,
             void **instance, char *err, size_t err_len)
{
    *instance = NULL;
    return DLQ_SINK_STATUS_OK;
}

static void
linked_deliver (void *instance, const dlq_sink_event_t *events, size_t count, dlq_sink_outcome_t *outcomes,
                int64_t deadline_mono_ms)
{
}

static const dlq_sink_setting_t linked_settings [] = {
    { "depth", DLQ_SINK_SETTING_INT, "1", 1, 9, false, "a setting of the linked sink" },
    { NULL }
};

static const dlq_sink_ops_t linked_ops = {
    .abi_version = DLQ_SINK_ABI_VERSION, .struct_size = sizeof (dlq_sink_ops_t), .type = "linkedtest",
    .description = "linked into the test", .settings = linked_settings,
    .init = linked_init, .deliver = linked_deliver, .destroy = linked_destroy
};

static const dlq_sink_ops_t linked_bad_abi = {
    .abi_version = 99, .struct_size = sizeof (dlq_sink_ops_t), .type = "linkedbad",
    .init = linked_init, .deliver = linked_deliver, .destroy = linked_destroy
};

static const dlq_sink_ops_t *const linked_table [] = { &linked_ops, &linked_bad_abi, NULL };

Test (sink_plugin, linked_plugins_are_found_without_any_file_and_paths_are_refused)
{
    char err [1024] = "";
    dlq_plugin_use_linked (linked_table);
    dlq_plugin_t *p = dlq_plugin_find ("linkedtest", "/nonexistent", err, sizeof err);
    cr_assert_not_null (p, "%s", err);
    cr_expect_eq (dlq_plugin_ops (p), &linked_ops);
    cr_expect_str_eq (dlq_plugin_path (p), "linked:linkedtest");
    dlq_plugin_destroy (&p);
    cr_expect_null (dlq_plugin_find ("noop", DLQD_PLUGIN_DIR, err, sizeof err), "noop is a file, not linked");
    cr_expect_not_null (strstr (err, "no sink of type \"noop\" is linked"), "%s", err);
    cr_expect_null (dlq_plugin_find ("linkedbad", NULL, err, sizeof err));
    cr_expect_not_null (strstr (err, "ABI version 99"), "linked ops are checked as loaded ones: %s", err);
    cr_expect_null (dlq_plugin_load (PLUGIN ("noop"), err, sizeof err), "nothing is dlopen'd");
    cr_expect_not_null (strstr (err, "only the plugins linked into it"), "%s", err);
    dlq_plugin_use_linked (NULL);
    p = dlq_plugin_load (PLUGIN ("noop"), err, sizeof err);
    cr_expect_not_null (p, "files load again: %s", err);
    dlq_plugin_destroy (&p);
}

/* Load a config with text; returns the error (caller frees) or NULL. */
/* Load text (after a gateway section naming the built plugins); the
 * error, or NULL and *config_out (when not NULL) the config. */
static char *
load_config (const char *text, dlqd_config_t **config_out)
{
    char dir [256], path [320];
    test_tmpdir (dir);
    snprintf (path, sizeof path, "%s/dlqd.conf", dir);
    FILE *f = fopen (path, "w");
    fprintf (f, "gateway: { sink_dir = \"%s\"; };\n%s\n", DLQD_PLUGIN_DIR, text);
    fclose (f);
    dlqd_config_t *c = NULL;
    char *err = NULL;
    dlqd_config_load (path, &c, &err);
    if (config_out && !err)
        *config_out = c;
    else
        dlqd_config_destroy (&c);
    test_rmtree (dir);
    return err;
}

static char *
config_error (const char *text)
{
    return load_config (text, NULL);
}

static void
expect_config_error (const char *text, const char *needle)
{
    char *err = config_error (text);
    cr_expect_not_null (err, "accepted: %s", text);
    if (err)
        cr_expect_not_null (strstr (err, needle), "'%s' not in: %s", needle, err);
    free (err);
}

/* The names of sink's routed streams, joined with ','. */
static void
expect_routed (const dlqd_config_t *c, const char *sink, const char *want)
{
    const dlq_sink_config_t *config = dlqd_config_sink (c, sink);
    cr_assert_not_null (config, "no sink %s", sink);
    const char *const *names = NULL;
    size_t n = dlq_plugin_host ()->streams (config, &names);
    char got [256] = "";
    for (size_t i = 0; i < n; i++)
        snprintf (got + strlen (got), sizeof got - strlen (got), "%s%s", i ? "," : "", names [i]);
    cr_expect_str_eq (got, want, "the streams routed to %s", sink);
}

Test (sink_plugin, the_host_tells_a_sink_its_configured_streams)
{
    dlqd_config_t *c = NULL;
    char *err = load_config ("sinks: { a: { type = \"noop\"; }; b: { type = \"noop\"; }; quiet: { type = \"noop\"; }; };\n"
                             "defaults: { chain = [\"a\"]; };\n"
                             "streams = ( { name = \"s1\"; }, { name = \"s2\"; chain = [\"b\"]; },"
                             " { name = \"s3\"; chain = [\"a\", \"b\"]; } );", &c);
    cr_assert_null (err, "%s", err);
    cr_expect (DLQ_SINK_HOST_HAS (dlq_plugin_host (), streams));
    expect_routed (c, "a", "s1,s3");        /* s1 takes the default chain */
    expect_routed (c, "b", "s2,s3");
    expect_routed (c, "quiet", "");
    dlqd_config_destroy (&c);
}

Test (sink_plugin, sink_sections_follow_the_plugin_schema)
{
    char *ok = config_error ("sinks: { a: { type = \"scripted\"; retry_times = 3; retry = { max_attempts = 0; }; };"
                             " b: { type = \"noop\"; }; };\n"
                             "defaults: { chain = [\"a\", \"b\"]; };\n"
                             "streams = ( { name = \"s\"; chain = [\"b\"]; } );");
    cr_expect_null (ok, "%s", ok);
    free (ok);
    expect_config_error ("sinks: { a: { type = \"scripted\"; retry_tims = 3; }; };", "sinks.a.retry_tims: unknown setting");
    expect_config_error ("sinks: { a: { type = \"scripted\"; retry_times = -1; }; };", "sinks.a.retry_times: expected an integer from 0");
    expect_config_error ("sinks: { a: { type = \"scripted\"; down = \"yes\"; }; };", "sinks.a.down: expected true or false");
    expect_config_error ("sinks: { a: { type = \"noop\"; retry = { backoff_ms = 0; }; }; };", "sinks.a.retry.backoff_ms");
    expect_config_error ("sinks: { a: { type = \"noop\"; retry = { multiplier = 0.5; }; }; };", "multiplier");
    expect_config_error ("sinks: { a: { type = \"nosuch\"; }; };", "no sink of type \"nosuch\"");
    expect_config_error ("sinks: { a: { path = \"/x.so\"; }; };", "type");
    expect_config_error ("sinks: { a: { type = \"plugin\"; path = \"" PLUGIN ("bad_abi") "\"; }; };", "ABI version 99");
    expect_config_error ("sinks: { a: { type = \"noop\"; }; };\ndefaults: { chain = [\"b\"]; };", "names sink \"b\"");
    expect_config_error ("sinks: { a: { type = \"scripted\"; }; };\n"
                         "streams = ( { name = \"s\"; a = { retry_times = 1; }; } );", "streams.[0].a.retry_times: unknown setting");
    expect_config_error ("sinks: { embedded: { type = \"noop\"; }; };", "built-in store");
}

Test (sink_plugin, a_sink_whose_init_fails_stops_dlqd_at_startup)
{
    char dir [256], conf [320], cmd [1024];
    test_tmpdir (dir);
    snprintf (conf, sizeof conf, "%s/dlqd.conf", dir);
    FILE *f = fopen (conf, "w");
    fprintf (f, "gateway: { listen = [\"tcp://127.0.0.1:%d\"]; data_dir = \"%s/data\"; };\n"
                "sinks: { broken: { type = \"plugin\"; path = \"%s\"; }; };\n", test_free_port (), dir, PLUGIN ("bad_init"));
    fclose (f);
    snprintf (cmd, sizeof cmd, "%s -c %s > %s/out 2>&1", DLQD_BINARY, conf, dir);
    int status = system (cmd);
    char out [400];
    snprintf (out, sizeof out, "%s/out", dir);
    char *log = test_read_file (out, NULL);
    cr_expect (WIFEXITED (status) && WEXITSTATUS (status) == 1, "dlqd exits 1: %s", log);
    cr_expect_not_null (strstr (log, "sink broken (bad): init failed: cannot reach the backend"), "%s", log);
    free (log);
    test_rmtree (dir);
}

/* dlqd --check-config on a config of one sink s (section text) and more
 * top-level settings (rest, may be NULL); its exit status, and its output
 * into out (caller frees). */
static int
check_config_with (const char *sink_section, const char *rest, char **out)
{
    char dir [256], conf [320], cmd [1024], path [400];
    test_tmpdir (dir);
    snprintf (conf, sizeof conf, "%s/dlqd.conf", dir);
    FILE *f = fopen (conf, "w");
    fprintf (f, "gateway: { sink_dir = \"%s\"; data_dir = \"%s/data\"; };\nsinks: { s: { %s }; };\n%s\n",
             DLQD_PLUGIN_DIR, dir, sink_section, rest ? rest : "");
    fclose (f);
    snprintf (path, sizeof path, "%s/out", dir);
    snprintf (cmd, sizeof cmd, "%s --check-config %s > %s 2>&1", DLQD_BINARY, conf, path);
    int status = system (cmd);
    *out = test_read_file (path, NULL);
    test_rmtree (dir);
    return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

/* A stream whose chain leaves out a sink primary: valid, but its events
 * would never be found; --check-config says so (and exits 0). */
Test (sink_plugin, check_config_warns_of_a_chain_without_the_primary)
{
    char *out = NULL;
#if DLQD_WITH_POSTGRES
    const char *store = "type = \"postgres\"; conninfo = \"host=127.0.0.1\";";
#else
    const char *store = "type = \"embedded\"; data_dir = \"/tmp/dlqd-test-sink-plugin-unused\";";
#endif
    cr_expect_eq (check_config_with (store,
                                     "primary = \"s\";\ndefaults: { chain = [\"s\"]; };\n"
                                     "streams = ( { name = \"kept\"; }, { name = \"offchain\"; chain = []; } );",
                                     &out), 0, "%s", out);
    cr_expect_not_null (strstr (out, "warning: "), "%s", out);
    cr_expect_not_null (strstr (out, "stream \"offchain\": its chain leaves out the primary \"s\""), "%s", out);
    cr_expect_null (strstr (out, "\"kept\""), "a stream with the primary in its chain is fine: %s", out);
    free (out);
}

/* (the plugins of the backends in this build: DLQD_WITH_<BACKEND>) */
#if DLQD_WITH_KAFKA || DLQD_WITH_MONGO || DLQD_WITH_AMQP || DLQD_WITH_POSTGRES
static int
check_config (const char *sink_section, char **out)
{
    return check_config_with (sink_section, NULL, out);
}

Test (sink_plugin, check_config_asks_each_plugin_about_its_settings)
{
    static const struct { const char *section, *want; } cases [] = {
#if DLQD_WITH_KAFKA
        { "type = \"kafka\"; bootstrap_servers = \"k:9092\"; rdkafka = [ \"no.such.setting=1\" ];",
          "sinks.s: rdkafka: no.such.setting=1: No such configuration property" },
        { "type = \"kafka\"; bootstrap_servers = \"k:9092\"; rdkafka = [ \"linger.ms=soon\" ];",
          "sinks.s: rdkafka: linger.ms=soon:" },
#endif
#if DLQD_WITH_MONGO
        { "type = \"mongo\"; uri = \"mongodb://h/\"; mongoc = [ \"noSuchOption=1\" ];",
          "sinks.s: mongoc: noSuchOption: not a URI option mongo-c-driver knows" },
        { "type = \"mongo\"; uri = \"notmongodb://h/\";", "sinks.s: uri:" },
#endif
#if DLQD_WITH_AMQP
        { "type = \"amqp\"; confirm_mode = false; on_return = \"retry\";",
          "sinks.s: on_return = \"retry\" needs confirm_mode = true" },
        { "type = \"amqp\"; url = \"http://x/\";", "sinks.s: url: not an amqp://" },
#endif
#if DLQD_WITH_POSTGRES
        { "type = \"postgres\"; conninfo = \"nonsense\";", "sinks.s: conninfo:" },
#endif
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases [0]; i++) {
        char *out = NULL;
        cr_expect_eq (check_config (cases [i].section, &out), 1, "accepted: %s\n%s", cases [i].section, out);
        cr_expect_not_null (strstr (out ? out : "", cases [i].want), "want \"%s\" in: %s", cases [i].want, out);
        free (out);
    }
#if DLQD_WITH_KAFKA
    char *out = NULL;
    cr_expect_eq (check_config ("type = \"kafka\"; bootstrap_servers = \"k:9092\"; rdkafka = [ \"linger.ms=5\" ];", &out),
                  0, "a good kafka section: %s", out);
    free (out);
#endif
}
#endif
