/*  pg_support — a PostgreSQL server for the tests of the postgres sink,
 *  through contrib/scripts/pg-server.sh, and the postgres plugin loaded in
 *  the test process as the gateway loads it (plugin_support.h).
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

#include "plugin_support.h"

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
 * (plugin_support.h) as sink "pg" with conninfo and table (and extra
 * settings of the section, libconfig syntax, may be NULL). False with why
 * in err. */
bool pg_plugin_load (test_plugin_t *p, const char *conninfo, const char *table, const char *extra,
                     char *err, size_t err_len);

#endif
