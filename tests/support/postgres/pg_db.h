/*  pg_db — a libpq connection to the tests' PostgreSQL server (pg_support.h)
 *  for the suites that look at the tables behind the postgres plugin
 *  (itest_postgres_workbench, itest_postgres_ckpt): the server and a table
 *  name of the test's own, SQL with the table names put in, the one value
 *  a query gives, and the tables dropped at the end.
 *
 *  Every function but pg_db_drop and pg_db_close fails the calling test
 *  (Criterion asserts) when the server does not answer as required.
 *  It is in dlq_test_postgres (tests/support/CMakeLists.txt), with
 *  pg_support, libpq and dlq_pg_format, for the postgres sink's suites
 *  (DLQD_WITH_POSTGRES).
 */
#ifndef PG_DB_H
#define PG_DB_H

#include "pg_sql.h"
#include "pg_support.h"

#include <libpq-fe.h>

typedef struct {
    pg_server_t server;
    PGconn     *conn;           /* NULL until connected */
    char        table [DLQ_PG_NAME_MAX + 1];    /* %T in SQL */
    char        lock [DLQ_PG_NAME_MAX + 1];     /* %L: the table's lock table */
    char        ckpt [DLQ_PG_NAME_MAX + 1];     /* %C: the table's checkpoint table */
} pg_db_t;

/* The shared server (pg_server_shared), a fresh table name (pg_table_name)
 * with its lock and checkpoint tables as the plugin names them (pg_sql.h),
 * and a connection that keeps notices below warnings quiet. */
void pg_db_open (pg_db_t *db);

/* sql with every %T, %L and %C replaced by the quoted name (up to the
 * first other %). Caller frees. */
char *pg_db_sql (const pg_db_t *db, const char *sql);

/* Run sql (with %T, %L, %C: pg_db_sql); it must succeed. */
void pg_db_command (const pg_db_t *db, const char *sql);

/* The one value sql (with %T, %L, %C) gives for parameter param (may be
 * NULL); NULL for SQL NULL. Caller frees. */
char *pg_db_value (const pg_db_t *db, const char *sql, const char *param);

/* Make db's table as the plugin made it at version (1, 2, ...): the
 * migrations up to that version (pg_sql.h, schema public) and the table's
 * row of dlq_schema_version. */
void pg_db_create_version (const pg_db_t *db, int version);

/* Drop the table name, its lock and checkpoint tables if they exist, and
 * its row of dlq_schema_version. */
void pg_db_drop (const pg_db_t *db, const char *name);

/* Drop db's tables (pg_db_drop), close the connection and stop the server
 * (pg_server_stop); also after a pg_db_open that failed. */
void pg_db_close (pg_db_t *db);

#endif
