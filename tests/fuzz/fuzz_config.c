/*  fuzz_config — the config loader (config/: libconfig syntax, the
 *  schema, sink sections against their plugin's schema, streams, replay)
 *  and the sinks' own checks, as `dlqd --check-config` runs them, over
 *  any file. No plugin is ever dlopen'd: the sink types are the ones
 *  linked into the harness (fuzz_sinks.h), and a type = "plugin" path is
 *  refused. Inputs with libconfig's @include are skipped (they would read
 *  other files).
 *
 *  Oracles: a refused file gets a message that names the file; a loaded
 *  config holds what docs/configuration.md promises (an endpoint, a frame limit at
 *  least the message limit, a policy for every stream listed).
 */
#include "dlqd_config.h"
#include "fuzz_sinks.h"
#include "fuzz_support.h"
#include "plugin_config.h"
#include "plugin_host.h"

#include <libconfig.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char path [4200];

int
LLVMFuzzerInitialize (int *argc, char ***argv)
{
    fuzz_sinks_link ();
    snprintf (path, sizeof path, "%s/dlqd.conf", fuzz_scratch_dir ("fuzz-config"));
    return 0;
}

/* What main.c's --check-config asks every sink after loading. */
static bool
check_sinks (const dlqd_config_t *config)
{
    for (size_t i = 0; i < config->sink_count; i++) {
        const dlq_sink_ops_t *ops = dlq_plugin_config_ops (config->sinks [i]);
        char why [512] = "";
        if (DLQ_SINK_OPS_HAS (ops, check) && ops->check
        &&  ops->check (dlq_plugin_host (), config->sinks [i], why, sizeof why) != DLQ_SINK_STATUS_OK)
            return false;
    }
    return true;
}

static void
check_config (const dlqd_config_t *c)
{
    FUZZ_CHECK (c->listen_count >= 1 && c->listen && c->data_dir && c->primary);
    FUZZ_CHECK (c->max_frame_bytes >= c->max_message_bytes && c->max_message_bytes >= 1024);
    FUZZ_CHECK (c->commit_max_batch >= 1 && c->query_threads >= 1);
    FUZZ_CHECK (c->policies && c->sink_count <= 64);
    FUZZ_CHECK (!c->primary_sink || dlq_plugin_config_ops (c->primary_sink)->store);
    FUZZ_CHECK ((strcmp (c->primary, "embedded") == 0) == !c->primary_sink);
    for (size_t i = 0; i < c->sink_count; i++)
        FUZZ_CHECK (dlq_plugin_config_index (c->sinks [i]) == (int) i
                    && dlqd_config_sink (c, dlq_plugin_config_name (c->sinks [i])) == c->sinks [i]);
    for (size_t i = 0; i < c->replay.scheduled_count; i++)
        FUZZ_CHECK (dlq_policy_table_lookup (c->policies, c->replay.scheduled [i])->schedule.enabled);
    for (size_t i = 0; i < c->warning_count; i++)
        FUZZ_CHECK (c->warnings [i] && c->warnings [i][0]);
}

/* Does @include occur in the input? (memchr first: a memcmp per byte
 * would feed libFuzzer's comparison hooks thousands of times an input) */
static bool
includes (const uint8_t *data, size_t size)
{
    static const char directive [] = "@include";
    const uint8_t *at = data, *end = data + size;
    while ((at = memchr (at, '@', (size_t) (end - at))) && (size_t) (end - at) >= sizeof directive - 1) {
        if (memcmp (at, directive, sizeof directive - 1) == 0)
            return true;
        at++;
    }
    return false;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
    if (includes (data, size) || !fuzz_write_file (path, data, size))
        return 0;
    dlqd_config_t *config = NULL;
    char *err = NULL;
    dlqd_config_result_t rc = dlqd_config_load (path, &config, &err);
    if (rc != DLQD_CONFIG_OK) {
        FUZZ_CHECK (config == NULL && err != NULL);
        FUZZ_CHECK (rc == DLQD_CONFIG_ERR_SYNTAX || rc == DLQD_CONFIG_ERR_INVALID);
        if (!strstr (err, path))
            fuzz_fail ("a config error does not name the file: %s", err);
        free (err);
        return 0;
    }
    FUZZ_CHECK (config != NULL && err == NULL);
    check_config (config);
    check_sinks (config);
    dlqd_config_destroy (&config);
    FUZZ_CHECK (config == NULL);
    return 0;
}
