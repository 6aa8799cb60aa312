/*  pg_support — PostgreSQL servers for the tests, via pg-server.sh, and
 *  the postgres plugin loaded in the test process. */
#include "pg_support.h"

#include "dlq_buf.h"
#include "test_support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef DLQ_SOURCE_DIR
#error "DLQ_SOURCE_DIR must be defined (tests/CMakeLists.txt)"
#endif

#ifndef DLQD_PLUGIN_DIR
#error "DLQD_PLUGIN_DIR must be defined (tests/CMakeLists.txt)"
#endif

#define PG_SCRIPT DLQ_SOURCE_DIR "/contrib/scripts/pg-server.sh"
#define PG_PLUGIN DLQD_PLUGIN_DIR "/libdlq_sink_postgres.so"

bool
pg_server_start (pg_server_t *s)
{
    memset (s, 0, sizeof *s);
    /* /tmp, not $TMPDIR: the server's user must reach it, and the socket
     * path in it must stay short */
    return test_script_server_start (PG_SCRIPT, "/tmp/dlqd-pg-XXXXXX", s->dir, sizeof s->dir, &s->port,
                                     s->conninfo, sizeof s->conninfo)
        && s->conninfo [0];
}

bool
pg_server_shared (pg_server_t *s)
{
    const char *env = getenv (PG_CONNINFO_ENV);
    if (env && *env) {
        memset (s, 0, sizeof *s);
        snprintf (s->conninfo, sizeof s->conninfo, "%s", env);
        return true;
    }
    return pg_server_start (s);
}

bool
pg_server_pause (pg_server_t *s)
{
    return test_script_server_command (PG_SCRIPT, "pause", s->dir, NULL, 0);
}

bool
pg_server_resume (pg_server_t *s)
{
    char conninfo [256];
    return test_script_server_command (PG_SCRIPT, "resume", s->dir, conninfo, sizeof conninfo);
}

void
pg_server_stop (pg_server_t *s)
{
    test_script_server_command (PG_SCRIPT, "stop", s->dir, NULL, 0);
    memset (s, 0, sizeof *s);
}

void
pg_table_name (char *out, size_t len)
{
    snprintf (out, len, "dlq_t_%016llx", (unsigned long long) test_random_u64 ());
}

bool
pg_plugin_load (test_plugin_t *p, const char *conninfo, const char *table, const char *extra, char *err,
                size_t err_len)
{
    dlq_buf_t config = DLQ_BUF_INIT;
    dlq_buf_printf (&config, "sinks: { pg: { type = \"plugin\"; path = \"%s\"; conninfo = \"%s\"; table = \"%s\"; "
                    "%s }; };\n", PG_PLUGIN, conninfo, table, extra ? extra : "");
    bool loaded = test_plugin_load (p, config.data, "pg", err, err_len);
    dlq_buf_free (&config);
    return loaded;
}
