/*  pg_schema — creating and migrating the postgres sink's table.
 *
 *  One transaction, serialized between instances (and gateways) by two
 *  advisory locks taken in a fixed order: one on the schema (it covers
 *  creating the schema and the shared dlq_schema_version table), one on
 *  schema.table. Under them: create the schema if it does not exist, create
 *  dlq_schema_version if it does not exist, read the table's version, and
 *  run the migrations from that version up to DLQ_PG_SCHEMA_VERSION
 *  (version 1 creates the table and its indexes; version 2 adds the
 *  workbench's columns, its lock table and indexes; every step IF NOT
 *  EXISTS), recording the new version. A missing table (or lock table) is
 *  created again by running its migrations once more. A table at a newer version than this sink's is an
 *  error, and nothing is changed.
 */
#ifndef DLQ_PG_SCHEMA_H
#define DLQ_PG_SCHEMA_H

#include "pg_conn.h"
#include "pg_sql.h"

/* Make sure table (unquoted) in schema (unquoted), named by names
 * (quoted), exists at DLQ_PG_SCHEMA_VERSION. True when it does; false
 * with error otherwise (the transaction is rolled back). */
bool dlq_pg_schema_ensure (dlq_pg_conn_t *conn, const dlq_pg_names_t *names, const char *schema,
                           const char *table, int64_t deadline_mono_ms, dlq_pg_error_t *error);

#endif
