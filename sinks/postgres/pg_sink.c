/*  pg_sink — the postgres sink plugin, type "postgres"
 *  (libdlq_sink_postgres.so): the dlq_events table of a Postgres DLQ
 *  extended with the FailedEvent's columns, written in batches, and a store
 *  that can be the primary and serve the failure workbench and the workers'
 *  checkpoints (table "<table>_checkpoints").
 *
 *  Settings: conninfo (required; a libpq connection string or URI),
 *  schema ("public"), table ("dlq_events"), connect_timeout_ms (5000),
 *  statement_timeout_ms (30000).
 *
 *  init checks the settings, connects and creates the table (pg_schema.h),
 *  in DELIVER and QUERY mode alike. A server that cannot be reached (or a
 *  transient fault: timeout, lock, resources) is not an init error, since
 *  the gateway must start and keep the backlog: init logs a warning and
 *  the first call connects and creates the table. Anything a restart
 *  cannot fix is: a conninfo that does not parse, a table at a newer
 *  version, a refused CREATE (permissions).
 *
 *  Every new connection forces client_encoding UTF8, sets the session's
 *  statement_timeout and runs the table setup again (cheap, idempotent),
 *  so a server that was replaced gets its table back.
 */
#include "pg_sink.h"

#include "dlq_alloc.h"
#include "pg_checkpoint.h"
#include "pg_schema.h"
#include "pg_workbench.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const dlq_sink_setting_t pg_settings [] = {
    { "conninfo", DLQ_SINK_SETTING_STRING, NULL, 1, 4096, false,
      "libpq connection string or URI, e.g. \"host=127.0.0.1 port=5432 dbname=dlq\"" },
    { "schema", DLQ_SINK_SETTING_STRING, "public", 1, DLQ_PG_NAME_MAX, false,
      "schema of the table (created if missing)" },
    { "table", DLQ_SINK_SETTING_STRING, "dlq_events", 1, DLQ_PG_NAME_MAX, false,
      "the DLQ table (created if missing)" },
    { "connect_timeout_ms", DLQ_SINK_SETTING_INT, "5000", 1, 600000, false,
      "longest wait for a connection, in ms" },
    { "statement_timeout_ms", DLQ_SINK_SETTING_INT, "30000", 1, 86400000, false,
      "the server's statement_timeout, in ms (a delivery's deadline lowers it)" },
    { .name = NULL }
};

/* ---- connection and table ---------------------------------------------------- */

/* Quote one identifier with PQescapeIdentifier into out (DLQ_PG_QUOTED_MAX bytes). */
static bool
quote (PGconn *pq, const char *name, char *out, dlq_pg_error_t *error)
{
    char *quoted = PQescapeIdentifier (pq, name, strlen (name));
    if (!quoted || strlen (quoted) >= DLQ_PG_QUOTED_MAX) {
        error->fault = DLQ_PG_FAULT_OTHER;
        snprintf (error->message, sizeof error->message, "cannot quote the identifier %s: %s",
                  name, quoted ? "too long" : PQerrorMessage (pq));
        PQfreemem (quoted);
        return false;
    }
    memcpy (out, quoted, strlen (quoted) + 1);
    PQfreemem (quoted);
    return true;
}

/* Quote the schema, table, index, lock table and checkpoint table names,
 * once (libpq needs a connection to quote). */
static bool
name_objects (dlq_pg_sink_t *self, dlq_pg_error_t *error)
{
    if (self->named)
        return true;
    PGconn *pq = dlq_pg_conn_pq (self->conn);
    if (!quote (pq, self->schema, self->names.schema, error) || !quote (pq, self->table, self->names.table, error))
        return false;
    for (int i = 0; i < DLQ_PG_INDEX_COUNT; i++) {
        char name [DLQ_PG_NAME_MAX + 1];
        dlq_pg_index_name (self->table, (dlq_pg_index_t) i, name);
        if (!quote (pq, name, self->names.index [i], error))
            return false;
    }
    char lock_table [DLQ_PG_NAME_MAX + 1], ckpt_table [DLQ_PG_NAME_MAX + 1];
    dlq_pg_lock_table_name (self->table, lock_table);
    dlq_pg_ckpt_table_name (self->table, ckpt_table);
    if (!quote (pq, lock_table, self->names.lock_table, error)
    ||  !quote (pq, ckpt_table, self->names.ckpt_table, error))
        return false;
    dlq_pg_sql_qualified (&self->qualified, &self->names);
    self->named = true;
    return true;
}

/* The session's statement_timeout, on a new connection. */
static bool
set_session (dlq_pg_sink_t *self, int64_t deadline, dlq_pg_error_t *error)
{
    char timeout [24];
    snprintf (timeout, sizeof timeout, "%" PRId64, self->statement_timeout_ms);
    const char *const values [] = { timeout };
    const int lengths [] = { (int) strlen (timeout) };
    dlq_pg_stmt_t stmt = { .sql = DLQ_PG_SQL_SESSION_TIMEOUT, .nparams = 1, .values = values, .lengths = lengths };
    return dlq_pg_conn_exec (self->conn, &stmt, 1, deadline, error);
}

bool
dlq_pg_sink_ready (dlq_pg_sink_t *self, int64_t deadline_mono_ms, dlq_pg_error_t *error)
{
    memset (error, 0, sizeof *error);
    if (!dlq_pg_conn_check (self->conn)) {
        int64_t now = self->host->mono_ms ();
        int64_t connect_by = now + self->connect_timeout_ms;
        self->table_ready = false;
        if (!dlq_pg_conn_open (self->conn, connect_by < deadline_mono_ms ? connect_by : deadline_mono_ms, error))
            return false;
        if (!name_objects (self, error) || !set_session (self, deadline_mono_ms, error)) {
            dlq_pg_conn_close (self->conn);
            return false;
        }
    }
    if (!self->table_ready)
        self->table_ready = dlq_pg_schema_ensure (self->conn, &self->names, self->schema, self->table,
                                                  deadline_mono_ms, error);
    return self->table_ready;
}

void
dlq_pg_sink_failed (dlq_pg_sink_t *self, const dlq_pg_error_t *error)
{
    if (error->fault == DLQ_PG_FAULT_SCHEMA || error->fault == DLQ_PG_FAULT_CONNECTION)
        self->table_ready = false;
}

/* A server notice (e.g. "relation already exists, skipping"), at debug level. */
static void
on_notice (void *arg, const char *message)
{
    const dlq_pg_sink_t *self = arg;
    self->host->log (self->config, DLQ_SINK_LOG_DEBUG, "server: %s", message);
}

/* ---- life ----------------------------------------------------------------------- */

/* Free an instance and close its connection. */
static void
pg_destroy (void *instance)
{
    dlq_pg_sink_t *self = instance;
    dlq_pg_conn_destroy (&self->conn);
    for (size_t k = 0; k < self->capacity; k++)
        dlq_pg_row_free (&self->rows [k]);
    free (self->rows);
    free (self->slot);
    free (self->values);
    free (self->lengths);
    dlq_pg_inserts_free (&self->inserts);
    dlq_buf_free (&self->qualified);
    free (self);
}

/* Read and check the settings; false with why in err. */
static bool
read_settings (dlq_pg_sink_t *self, char *err, size_t err_len)
{
    const dlq_sink_host_t *host = self->host;
    self->conninfo = host->config_string (self->config, NULL, "conninfo");
    self->schema = host->config_string (self->config, NULL, "schema");
    self->table = host->config_string (self->config, NULL, "table");
    self->connect_timeout_ms = host->config_int (self->config, NULL, "connect_timeout_ms");
    self->statement_timeout_ms = host->config_int (self->config, NULL, "statement_timeout_ms");
    if (!self->conninfo) {
        snprintf (err, err_len, "conninfo is required");
        return false;
    }
    if (strcmp (self->table, DLQ_PG_VERSION_TABLE) == 0) {
        snprintf (err, err_len, "table may not be %s: the sink keeps its versions there", DLQ_PG_VERSION_TABLE);
        return false;
    }
    char why [200];
    if (!dlq_pg_conninfo_check (self->conninfo, why, sizeof why)) {
        snprintf (err, err_len, "conninfo: %s", why);
        return false;
    }
    return true;
}

/* Make an instance, connect and create the table; see the banner for
 * what is an init error. */
static dlq_sink_status_t
pg_init (const dlq_sink_host_t *host, const dlq_sink_config_t *config, dlq_sink_mode_t mode,
         void **instance, char *err, size_t err_len)
{
    dlq_pg_sink_t *self = dlq_calloc (1, sizeof *self);
    self->host = host;
    self->config = config;
    if (!read_settings (self, err, err_len)) {
        pg_destroy (self);
        return DLQ_SINK_STATUS_ERROR;
    }
    dlq_pg_conn_hooks_t hooks = { .mono_ms = host->mono_ms, .notice = on_notice, .arg = self };
    self->conn = dlq_pg_conn_new (self->conninfo, &hooks);
    dlq_pg_error_t error;
    int64_t deadline = host->mono_ms () + self->connect_timeout_ms + self->statement_timeout_ms;
    if (!dlq_pg_sink_ready (self, deadline, &error)) {
        if (error.fault != DLQ_PG_FAULT_CONNECTION && error.fault != DLQ_PG_FAULT_TRANSIENT) {
            snprintf (err, err_len, "%s.%s: %s", self->schema, self->table, error.message);
            pg_destroy (self);
            return DLQ_SINK_STATUS_ERROR;
        }
        host->log (config, DLQ_SINK_LOG_WARN, "cannot connect yet (%s): connecting again at each call",
                   error.message);
    }
    *instance = self;
    return DLQ_SINK_STATUS_OK;
}

/* The settings as init reads them (conninfo parsed by libpq), without
 * connecting. */
static dlq_sink_status_t
pg_check (const dlq_sink_host_t *host, const dlq_sink_config_t *config, char *err, size_t err_len)
{
    dlq_pg_sink_t probe = { .host = host, .config = config };
    return read_settings (&probe, err, err_len) ? DLQ_SINK_STATUS_OK : DLQ_SINK_STATUS_ERROR;
}

DLQ_SINK_EXPORT const dlq_sink_ops_t dlq_sink_entry = {
    .abi_version = DLQ_SINK_ABI_VERSION,
    .struct_size = sizeof (dlq_sink_ops_t),
    .type        = "postgres",
    .description = "PostgreSQL: a dlq_events table with the FailedEvent's columns; answers queries, "
                   "the failure workbench and the checkpoint calls",
    .settings    = pg_settings,
    .max_batch   = 0,
    .init        = pg_init,
    .deliver     = dlq_pg_sink_deliver,
    .destroy     = pg_destroy,
    .store       = &dlq_pg_store_ops,
    .check       = pg_check,
    .workbench   = &dlq_pg_workbench_ops,
    .checkpoints = &dlq_pg_checkpoint_ops,
};
