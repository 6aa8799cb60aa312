/*  pg_support — a PostgreSQL server for the tests of the postgres sink,
 *  through contrib/scripts/pg-server.sh, and the postgres plugin loaded in
 *  the test process as the gateway loads it (no libpq here: every test
 *  binary links this helper library).
 *
 *  The server a test uses is the one contrib/scripts/test.sh started for
 *  the whole run (its conninfo in DLQD_TEST_PG_CONNINFO), or, when that is
 *  unset (ctest or a test binary run alone), one started for the test and
 *  stopped after it. A test that stops and restarts the server always gets
 *  its own. Tests share a server by using tables of their own
 *  (pg_table_name).
 */
#ifndef PG_SUPPORT_H
#define PG_SUPPORT_H

#include "dlq_sink.h"
#include "dlqd_config.h"

#include <stdbool.h>
#include <stddef.h>

#define PG_CONNINFO_ENV "DLQD_TEST_PG_CONNINFO"

typedef struct {
    char dir [256];             /* the cluster's directory; "" when not ours */
    int  port;
    char conninfo [256];        /* host=127.0.0.1 port=P user=dlq dbname=postgres */
} pg_server_t;

/* Start a server of our own: a fresh directory under /tmp, a free port.
 * False when the script failed (its messages are on stderr). */
bool pg_server_start (pg_server_t *s);

/* DLQD_TEST_PG_CONNINFO when set (s->dir stays empty), else a server of
 * our own (pg_server_start). */
bool pg_server_shared (pg_server_t *s);

/* Stop our server (fast shutdown) keeping its data, and start it again on
 * the same port. Only for a server of our own. */
bool pg_server_pause (pg_server_t *s);
bool pg_server_resume (pg_server_t *s);

/* Stop our server and remove its directory; nothing for the shared one. */
void pg_server_stop (pg_server_t *s);

/* A table name no other test uses: dlq_t_<16 hex digits>. */
void pg_table_name (char *out, size_t len);

/* The postgres plugin (DLQD_PLUGIN_DIR/libdlq_sink_postgres.so) loaded
 * through a dlqd.conf of its own, as sink "pg", with the gateway's host
 * table: call ops with host and sink. */
typedef struct {
    char                   dir [256];       /* holds the dlqd.conf */
    dlqd_config_t         *config;
    dlq_sink_config_t     *sink;
    const dlq_sink_ops_t  *ops;
    const dlq_sink_host_t *host;
} pg_plugin_t;

/* Load the plugin with conninfo and table (and extra settings of the
 * section, libconfig syntax, may be NULL). False with why in err. */
bool pg_plugin_load (pg_plugin_t *p, const char *conninfo, const char *table, const char *extra,
                     char *err, size_t err_len);

/* A new instance in mode (init), or NULL with init's message in err. */
void *pg_plugin_open (const pg_plugin_t *p, dlq_sink_mode_t mode, char *err, size_t err_len);

/* Unload: the config and its directory (destroy the instances first). */
void pg_plugin_unload (pg_plugin_t *p);

#endif
