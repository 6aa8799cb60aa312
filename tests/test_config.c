/*  test_config — dlqd.conf loading: defaults, the shipped file, and errors
 *  that name the file, line and setting and say what was expected.
 */
#include "dlqd_config.h"
#include "plugin_config.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char dir [256];
static char path [320];

static void setup (void) { test_tmpdir (dir); snprintf (path, sizeof path, "%s/dlqd.conf", dir); }
static void teardown (void) { test_rmtree (dir); }

TestSuite (config, .init = setup, .fini = teardown);

static dlqd_config_result_t
load_text (const char *text, dlqd_config_t **config, char **err)
{
    FILE *f = fopen (path, "w");
    fputs (text, f);
    fclose (f);
    return dlqd_config_load (path, config, err);
}

/* Expect text to be refused with a message containing each of the needles. */
static void
expect_error (const char *text, dlqd_config_result_t want, const char *needle1, const char *needle2)
{
    dlqd_config_t *config = NULL;
    char *err = NULL;
    cr_assert_eq (load_text (text, &config, &err), want, "accepted or wrong result for: %s", text);
    cr_expect_null (config);
    cr_assert_not_null (err);
    cr_expect_not_null (strstr (err, path), "error names the file: %s", err);
    cr_expect_not_null (strstr (err, needle1), "error mentions '%s': %s", needle1, err);
    if (needle2)
        cr_expect_not_null (strstr (err, needle2), "error mentions '%s': %s", needle2, err);
    free (err);
}

Test (config, empty_file_gives_documented_defaults)
{
    dlqd_config_t *c = NULL;
    char *err = NULL;
    cr_assert_eq (load_text ("", &c, &err), DLQD_CONFIG_OK, "%s", err);
    cr_expect_eq (c->listen_count, 1);
    cr_expect_str_eq (c->listen [0], "tcp://127.0.0.1:5560");
    cr_expect_str_eq (c->data_dir, "./var");
    cr_expect_eq (c->max_message_bytes, 1048576);
    cr_expect_eq (c->max_frame_bytes, 4 * 1048576 + 65536);
    cr_expect_eq (c->commit_max_batch, 4096);
    cr_expect_eq (c->commit_max_batch_bytes, 16 * 1048576);
    cr_expect_eq (c->request_hwm, 16, "16 MiB of requests per connection at 1 MiB each");
    cr_expect_eq (c->reply_hwm, 10000);
    cr_expect_eq (c->max_checkpoint_bytes, 256 << 20);
    cr_expect_eq (c->max_connections, 0, "derived from the open-files limit at start");
    cr_expect_eq (c->query_nice, 19);
    cr_expect_str_eq (c->primary, "embedded");
    cr_expect_eq (c->defaults.retention_days, 30);
    cr_expect (c->defaults.include_original_document);
    cr_expect (c->defaults.include_stack_trace);
    dlqd_config_destroy (&c);
    cr_expect_null (c);
}

Test (config, shipped_config_is_valid)
{
    dlqd_config_t *c = NULL;
    char *err = NULL;
    cr_assert_eq (dlqd_config_load (DLQ_SOURCE_DIR "/config/dlqd.conf", &c, &err), DLQD_CONFIG_OK, "%s", err);
    cr_expect_str_eq (c->listen [0], "tcp://127.0.0.1:5560");
    cr_expect_eq (c->http.listen.count, 1, "the shipped config serves /metrics");
    cr_expect_str_eq (c->http.listen.items [0], "127.0.0.1:9560", "on loopback");
    dlqd_config_destroy (&c);
}

Test (config, http_and_log_format_settings)
{
    dlqd_config_t *c = NULL;
    char *err = NULL;
    cr_assert_eq (load_text ("", &c, &err), DLQD_CONFIG_OK, "%s", err);
    cr_expect_eq (c->http.listen.count, 0, "no HTTP listener unless asked for");
    cr_expect_eq (c->http.min_free_bytes, 104857600);
    cr_expect_str_eq (c->log_format, "text");
    dlqd_config_destroy (&c);
    cr_assert_eq (load_text ("http: { listen = [\"127.0.0.1:9560\", \"[::1]:9561\", \"localhost:9562\"]; "
                             "min_free_bytes = 0; }; log_format = \"json\";", &c, &err), DLQD_CONFIG_OK, "%s", err);
    cr_expect_eq (c->http.listen.count, 3);
    cr_expect_str_eq (c->http.listen.items [1], "[::1]:9561");
    cr_expect_eq (c->http.min_free_bytes, 0);
    cr_expect_str_eq (c->log_format, "json");
    dlqd_config_destroy (&c);
    expect_error ("http: { listen = [\"0.0.0.0:9560\"]; };", DLQD_CONFIG_ERR_INVALID, "http.listen",
                  "0.0.0.0:9560 is reachable from the network");
    expect_error ("http: { listen = [\"*:9560\"]; };", DLQD_CONFIG_ERR_INVALID, "*:9560", "allow_insecure");
    expect_error ("http: { listen = [\"10.1.2.3:80\"]; };", DLQD_CONFIG_ERR_INVALID, "10.1.2.3:80", "reachable");
    expect_error ("http: { listen = [\"127.0.0.1\"]; };", DLQD_CONFIG_ERR_INVALID, "http.listen", "HOST:PORT");
    expect_error ("http: { listen = [\"127.0.0.1:0\"]; };", DLQD_CONFIG_ERR_INVALID, "http.listen", "HOST:PORT");
    expect_error ("http: { listen = [\"127.0.0.1:65536\"]; };", DLQD_CONFIG_ERR_INVALID, "http.listen", "HOST:PORT");
    expect_error ("http: { listen = \"127.0.0.1:9560\"; };", DLQD_CONFIG_ERR_INVALID, "http.listen", NULL);
    expect_error ("http: { min_free_bytes = -1; };", DLQD_CONFIG_ERR_INVALID, "http.min_free_bytes", NULL);
    expect_error ("log_format = \"xml\";", DLQD_CONFIG_ERR_INVALID, "log_format", "\"text\" or \"json\"");
    expect_error ("http: { listen = [\"127.0.0.1:9560\", \"127.0.0.1:9560\"]; };", DLQD_CONFIG_ERR_INVALID,
                  "http.listen", "127.0.0.1:9560 is given twice");
    char many [2048] = "http: { listen = [";
    for (int i = 0; i < 17; i++)
        snprintf (many + strlen (many), sizeof many - strlen (many), "%s\"127.0.0.1:%d\"", i ? ", " : "", 9000 + i);
    strcat (many, "]; };");
    expect_error (many, DLQD_CONFIG_ERR_INVALID, "http.listen", "at most 16 addresses, got 17");
    cr_assert_eq (load_text ("security: { allow_insecure = true; }; http: { listen = [\"0.0.0.0:9560\"]; };",
                             &c, &err), DLQD_CONFIG_OK, "allow_insecure allows it: %s", err);
    dlqd_config_destroy (&c);
}

Test (config, streams_override_the_defaults)
{
    dlqd_config_t *c = NULL;
    char *err = NULL;
    const char *text =
        "gateway: { listen = [\"tcp://127.0.0.1:7000\", \"ipc:///tmp/x\"]; data_dir = \"/srv/dlq\"; "
        "  max_message_bytes = 65536; commit: { max_batch = 128; max_delay_ms = 2; }; };\n"
        "defaults: { retention_days = 7; include_stack_trace = false; };\n"
        "streams = ( { name = \"payments.v2\"; retention_days = 0; include_original_document = false; } );\n";
    cr_assert_eq (load_text (text, &c, &err), DLQD_CONFIG_OK, "%s", err);
    cr_expect_eq (c->listen_count, 2);
    cr_expect_str_eq (c->data_dir, "/srv/dlq");
    cr_expect_eq (c->commit_max_batch, 128);
    cr_expect_eq (c->commit_max_delay_ms, 2);
    cr_expect_eq (c->request_hwm, 256, "16 MiB of requests per connection at 64 KiB each");
    const dlq_policy_t *p = dlq_policy_table_lookup (c->policies, "payments.v2");
    cr_expect_eq (p->retention_days, 0);
    cr_expect_not (p->include_original_document);
    cr_expect_not (p->include_stack_trace, "an override starts from the defaults");
    const dlq_policy_t *d = dlq_policy_table_lookup (c->policies, "orders");
    cr_expect_eq (d->retention_days, 7);
    cr_expect (d->include_original_document);
    dlqd_config_destroy (&c);
}

Test (config, unknown_settings_are_errors)
{
    expect_error ("gateway: { listne = [\"tcp://127.0.0.1:1\"]; };", DLQD_CONFIG_ERR_INVALID,
                  ":1: gateway.listne", "unknown setting");
    expect_error ("\n\ndefaults: { retention = 3; };", DLQD_CONFIG_ERR_INVALID, ":3: defaults.retention", "retention_days");
    expect_error ("colour = \"red\";", DLQD_CONFIG_ERR_INVALID, "colour", "unknown setting");
    expect_error ("streams = ( { name = \"a\"; chains = 1; } );", DLQD_CONFIG_ERR_INVALID, "streams.[0].chains", NULL);
}

Test (config, values_out_of_range_or_of_the_wrong_type_are_errors)
{
    expect_error ("gateway: { max_message_bytes = 10; };", DLQD_CONFIG_ERR_INVALID,
                  "gateway.max_message_bytes", "expected an integer from 1024");
    expect_error ("gateway: { max_message_bytes = \"1MB\"; };", DLQD_CONFIG_ERR_INVALID,
                  "gateway.max_message_bytes", "expected an integer");
    expect_error ("defaults: { retention_days = -1; };", DLQD_CONFIG_ERR_INVALID, "retention_days", "from 0");
    expect_error ("defaults: { include_stack_trace = 1; };", DLQD_CONFIG_ERR_INVALID, "include_stack_trace", "true or false");
    expect_error ("gateway: { listen = [ ]; };", DLQD_CONFIG_ERR_INVALID, "gateway.listen", "at least one");
    expect_error ("gateway: { listen = \"tcp://127.0.0.1:1\"; };", DLQD_CONFIG_ERR_INVALID, "gateway.listen", "array of strings");
    expect_error ("gateway: { commit: { max_batch = 0; }; };", DLQD_CONFIG_ERR_INVALID, "gateway.commit.max_batch", "from 1");
    expect_error ("gateway: { max_checkpoint_bytes = 4096; };", DLQD_CONFIG_ERR_INVALID,
                  "gateway.max_checkpoint_bytes", "expected an integer from 1048576");
    expect_error ("primary = \"mongo\";", DLQD_CONFIG_ERR_INVALID, "primary", "embedded");
    expect_error ("gateway: { max_message_bytes = 65536; max_frame_bytes = 2048; };", DLQD_CONFIG_ERR_INVALID,
                  "max_frame_bytes", "at least max_message_bytes");
}

Test (config, stream_entries_need_a_unique_name)
{
    expect_error ("streams = ( { retention_days = 3; } );", DLQD_CONFIG_ERR_INVALID, "streams.[0]", "name");
    expect_error ("streams = ( { name = \"a\"; }, { name = \"a\"; } );", DLQD_CONFIG_ERR_INVALID, "streams.[1]", "twice");
    expect_error ("streams = ( { name = \"\"; } );", DLQD_CONFIG_ERR_INVALID, "streams.[0].name", NULL);
}

Test (config, syntax_errors_name_the_line)
{
    expect_error ("gateway: {\n  listen = [\"x\"];\n  data_dir = \"a\" \"b\" = 1;\n};", DLQD_CONFIG_ERR_SYNTAX, ":3:", "syntax error");
}

Test (config, a_missing_file_is_an_io_error)
{
    dlqd_config_t *c = NULL;
    char *err = NULL;
    cr_expect_eq (dlqd_config_load ("/nonexistent/dlqd.conf", &c, &err), DLQD_CONFIG_ERR_IO);
    cr_expect_not_null (strstr (err, "/nonexistent/dlqd.conf"), "%s", err);
    free (err);
}

/* The replay endpoint, for the routes that name it. */
#define REPLAY_LISTEN "replay: { listen = \"tcp://127.0.0.1:5561\"; };\n"

Test (config, replay_settings_and_schedules)
{
    dlqd_config_t *c = NULL;
    char *err = NULL;
    cr_assert_eq (load_text ("replay: { listen = \"tcp://127.0.0.1:5561\"; rate = 7; max_replays = 3;\n"
                             "          backoff_ms = 1000; backoff_max_ms = 8000; lease_ms = 5; owner = \"a\"; };\n"
                             "defaults: { replay_route = \"endpoint\"; };\n"
                             "streams = ( { name = \"orders\";\n"
                             "              schedule = { max_retries = 9; batch_size = 3; interval_ms = 200; }; },\n"
                             "            { name = \"quiet\"; schedule = { enabled = false; }; } );",
                             &c, &err), DLQD_CONFIG_OK, "%s", err ? err : "");
    cr_expect_str_eq (c->replay.listen, "tcp://127.0.0.1:5561");
    cr_expect_eq (c->replay.rate, 7);
    cr_expect_eq (c->replay.max_replays, 3);
    cr_expect_eq (c->replay.backoff_max_ms, 8000);
    cr_expect_str_eq (c->replay.owner, "a");
    cr_assert_eq (c->replay.scheduled_count, 1, "only enabled schedules run");
    cr_expect_str_eq (c->replay.scheduled [0], "orders");
    const dlq_policy_t *p = dlq_policy_table_lookup (c->policies, "orders");
    cr_expect_eq (p->replay_route, DLQ_REPLAY_ROUTE_ENDPOINT, "the route comes from the defaults");
    cr_expect (p->schedule.enabled);
    cr_expect_eq (p->schedule.max_retries, 9);
    cr_expect_eq (p->schedule.batch_size, 3);
    cr_expect_eq (p->schedule.interval_ms, 200);
    cr_expect_not (dlq_policy_table_lookup (c->policies, "other")->schedule.enabled);
    dlqd_config_destroy (&c);
    /* the dlq_events scheduled replay's values when a schedule says nothing else */
    cr_assert_eq (load_text (REPLAY_LISTEN
                             "streams = ( { name = \"s\"; replay_route = \"endpoint\"; schedule = { }; } );",
                             &c, &err), DLQD_CONFIG_OK, "%s", err ? err : "");
    p = dlq_policy_table_lookup (c->policies, "s");
    cr_expect_eq (p->schedule.max_retries, 240);
    cr_expect_eq (p->schedule.batch_size, 50);
    cr_expect_eq (p->schedule.interval_ms, 21600000);
    cr_expect_eq (c->replay.rate, 100);
    cr_expect_eq (c->replay.max_replays, 10);
    dlqd_config_destroy (&c);
}

Test (config, bad_replay_settings_are_errors)
{
    expect_error ("streams = ( { name = \"s\"; schedule = { enabled = true; }; } );", DLQD_CONFIG_ERR_INVALID,
                  "streams.[0].schedule", "replay_route");
    expect_error (REPLAY_LISTEN "defaults: { replay_route = \"endpoint\"; schedule = { }; };", DLQD_CONFIG_ERR_INVALID,
                  "defaults.schedule", "not to the defaults");
    expect_error ("streams = ( { name = \"s\"; replay_route = \"kafka\"; } );", DLQD_CONFIG_ERR_INVALID,
                  "streams.[0].replay_route", "\"kafka\"");
    expect_error ("replay: { rate = 0; };", DLQD_CONFIG_ERR_INVALID, "replay.rate", "from 1");
    expect_error ("replay: { backoff_ms = 10; backoff_max_ms = 5; };", DLQD_CONFIG_ERR_INVALID,
                  "replay.backoff_max_ms", "at least backoff_ms");
    /* found by fuzz_config: without backoff_max_ms in the file, the error
     * named no file, line or setting */
    expect_error ("replay: {\n  backoff_ms = 2092258644;\n};", DLQD_CONFIG_ERR_INVALID,
                  ":2: replay.backoff_ms", "at most backoff_max_ms (21600000, its default)");
    expect_error ("replay: { port = 1; };", DLQD_CONFIG_ERR_INVALID, "replay.port", "unknown setting");
    expect_error (REPLAY_LISTEN "streams = ( { name = \"s\"; replay_route = \"endpoint\"; schedule = { interval_ms = 5; }; } );",
                  DLQD_CONFIG_ERR_INVALID, "streams.[0].schedule.interval_ms", "from 100");
    expect_error ("streams = ( { name = \"s\"; replay_route = \"endpoint\"; } );", DLQD_CONFIG_ERR_INVALID,
                  "streams.[0].replay_route", "\"endpoint\" needs replay.listen");
    expect_error ("defaults: { replay_route = \"endpoint\"; };", DLQD_CONFIG_ERR_INVALID,
                  "defaults.replay_route", "\"endpoint\" needs replay.listen");
}

Test (config, integers_past_32_bits_are_read_whole_with_or_without_their_l)
{
    /* libconfig 1.5 reads 10737418240 without its L as 32 bits: -2147483648 */
    dlqd_config_t *c = NULL;
    char *err = NULL;
    char text [1024];
    snprintf (text, sizeof text, "gateway: { sink_dir = \"%s\"; max_checkpoint_bytes = 4296015872; };\n"
              "sinks: { a: { type = \"noop\"; max_backlog_bytes = 10737418240; };\n"
              "         b: { type = \"noop\"; max_backlog_bytes = 10737418240L; }; };\n", DLQD_PLUGIN_DIR);
    cr_assert_eq (load_text (text, &c, &err), DLQD_CONFIG_OK, "%s", err);
    cr_expect_eq (c->max_checkpoint_bytes, 4296015872LL, "not 1048576 (its low 32 bits)");
    cr_expect_eq (dlq_plugin_config_dispatch (c->sinks [0])->max_backlog_bytes, 10LL << 30);
    cr_expect_eq (dlq_plugin_config_dispatch (c->sinks [1])->max_backlog_bytes, 10LL << 30);
    dlqd_config_destroy (&c);
    expect_error ("gateway: { max_checkpoint_bytes = 2000000000000; };", DLQD_CONFIG_ERR_INVALID,
                  "gateway.max_checkpoint_bytes", "got 2000000000000");
    expect_error ("gateway: {\n  query_threads = 2;\n  max_checkpoint_bytes = 5000000000 = 3; };", DLQD_CONFIG_ERR_SYNTAX,
                  ":3:", NULL);
}

Test (config, a_sinks_backlog_limit_defaults_to_10_gib_and_zero_means_none)
{
    dlqd_config_t *c = NULL;
    char *err = NULL;
    char text [1024];
    snprintf (text, sizeof text, "gateway: { sink_dir = \"%s\"; };\n"
              "sinks: { a: { type = \"noop\"; }; b: { type = \"noop\"; max_backlog_bytes = 0; };\n"
              "         c: { type = \"noop\"; max_backlog_bytes = 4096; }; };\n", DLQD_PLUGIN_DIR);
    cr_assert_eq (load_text (text, &c, &err), DLQD_CONFIG_OK, "%s", err);
    cr_assert_eq (c->sink_count, 3);
    cr_expect_eq (dlq_plugin_config_dispatch (c->sinks [0])->max_backlog_bytes, 10LL << 30);
    cr_expect_eq (dlq_plugin_config_dispatch (c->sinks [1])->max_backlog_bytes, 0);
    cr_expect_eq (dlq_plugin_config_dispatch (c->sinks [2])->max_backlog_bytes, 4096);
    dlqd_config_destroy (&c);
    snprintf (text, sizeof text, "gateway: { sink_dir = \"%s\"; };\n"
              "sinks: { a: { type = \"noop\"; max_backlog_bytes = -1; }; };\n", DLQD_PLUGIN_DIR);
    expect_error (text, DLQD_CONFIG_ERR_INVALID, "max_backlog_bytes", NULL);
}

Test (config, the_embedded_stores_plugin_is_needed_and_must_be_this_releases)
{
    /* every gateway runs the embedded store, so every config loads its
     * plugin: one missing, or one of a release before the log calls, is
     * refused with a message that says which and where it was looked for */
    char plugins [256], text [1024], link_path [512];
    test_tmpdir (plugins);
    snprintf (text, sizeof text, "gateway: { sink_dir = \"%s\"; };\n", plugins);
    expect_error (text, DLQD_CONFIG_ERR_INVALID, "the embedded store", "libdlq_sink_embedded.so");
    snprintf (link_path, sizeof link_path, "%s/libdlq_sink_embedded.so", plugins);
    cr_assert_eq (symlink (DLQD_PLUGIN_DIR "/libdlq_sink_bad_nolog.so", link_path), 0);
    expect_error (text, DLQD_CONFIG_ERR_INVALID, "was not built with this gateway", link_path);
    test_rmtree (plugins);
    snprintf (text, sizeof text, "gateway: { sink_dir = \"%s\"; };\n", DLQD_PLUGIN_DIR);
    dlqd_config_t *c = NULL;
    char *err = NULL;
    cr_assert_eq (load_text (text, &c, &err), DLQD_CONFIG_OK, "%s", err);
    cr_expect_str_eq (dlq_plugin_config_ops (c->store)->type, "embedded");
    cr_expect_eq (dlq_plugin_config_ops (c->store)->log->log_format, DLQ_SINK_LOG_FORMAT);
    dlqd_config_destroy (&c);
}
