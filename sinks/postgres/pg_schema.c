/*  pg_schema — the table's creation and migrations under advisory locks
 *  (see pg_schema.h). A few round trips, once per connection.
 */
#include "pg_schema.h"

#include "dlq_alloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The statements of one pipeline, with the SQL they own. */
typedef struct {
    dlq_pg_stmt_t *stmts;
    dlq_buf_t     *sql;
    size_t         count;
    size_t         capacity;
} batch_t;

#define BATCH_INIT { NULL, NULL, 0, 0 }

/* Add a statement; the caller writes its SQL into the returned buffer. */
static dlq_buf_t *
add (batch_t *b, int nparams, const char *const *values, const int *lengths)
{
    if (b->count == b->capacity) {
        b->capacity = b->capacity ? 2 * b->capacity : 8;
        b->stmts = dlq_realloc (b->stmts, b->capacity * sizeof *b->stmts);
        b->sql = dlq_realloc (b->sql, b->capacity * sizeof *b->sql);
    }
    b->sql [b->count] = (dlq_buf_t) DLQ_BUF_INIT;
    b->stmts [b->count] = (dlq_pg_stmt_t) { .nparams = nparams, .values = values, .lengths = lengths };
    return &b->sql [b->count++];
}

/* Run the batch (pointing each statement at its SQL); results has room
 * for every statement, or is NULL to drop them. */
static bool
run (dlq_pg_conn_t *conn, batch_t *b, PGresult **results, int64_t deadline, dlq_pg_error_t *error)
{
    for (size_t i = 0; i < b->count; i++)
        b->stmts [i].sql = b->sql [i].data;
    if (!results)
        return dlq_pg_conn_exec (conn, b->stmts, b->count, deadline, error);
    return dlq_pg_conn_run (conn, b->stmts, b->count, results, deadline, error);
}

/* Free the batch. */
static void
batch_free (batch_t *b)
{
    for (size_t i = 0; i < b->count; i++)
        dlq_buf_free (&b->sql [i]);
    free (b->sql);
    free (b->stmts);
    *b = (batch_t) BATCH_INIT;
}

/* Lengths of NUL-terminated values, for a statement's parameters. */
static void
lengths_of (const char *const *values, int *lengths, int n)
{
    for (int i = 0; i < n; i++)
        lengths [i] = (int) strlen (values [i]);
}

/* BEGIN, the two locks, and whether the schema exists. */
static bool
begin_locked (dlq_pg_conn_t *conn, const char *schema, const char *table, int64_t deadline,
              bool *schema_exists, dlq_pg_error_t *error)
{
    char key_schema [16], key_table [16];
    char *qualified = dlq_malloc (strlen (schema) + strlen (table) + 2);
    sprintf (qualified, "%s.%s", schema, table);
    snprintf (key_schema, sizeof key_schema, "%" PRId32, dlq_pg_lock_key (schema));
    snprintf (key_table, sizeof key_table, "%" PRId32, dlq_pg_lock_key (qualified));
    free (qualified);
    const char *const v_schema [] = { key_schema }, *const v_table [] = { key_table }, *const v_name [] = { schema };
    int l_schema [1], l_table [1], l_name [1];
    lengths_of (v_schema, l_schema, 1);
    lengths_of (v_table, l_table, 1);
    lengths_of (v_name, l_name, 1);
    batch_t b = BATCH_INIT;
    dlq_buf_puts (add (&b, 0, NULL, NULL), "BEGIN");
    dlq_pg_sql_lock (add (&b, 1, v_schema, l_schema));
    dlq_pg_sql_lock (add (&b, 1, v_table, l_table));
    dlq_pg_sql_schema_exists (add (&b, 1, v_name, l_name));
    PGresult *results [4];
    bool ok = run (conn, &b, results, deadline, error);
    *schema_exists = ok && PQntuples (results [3]) > 0;
    dlq_pg_results_clear (results, b.count);
    batch_free (&b);
    return ok;
}

/* Which of the version's tables exist (the recorded version trusted
 * only as far as they do). */
typedef struct {
    bool table;
    bool lock;              /* version 2's scheduler lock table */
    bool ckpt;              /* version 3's checkpoint table */
} tables_t;

/* The version to migrate from, given the recorded one: 0 when the table
 * is missing (it was dropped: it is created again), 1 when the lock table
 * of version 2 is (created again, with version 2's other idempotent
 * steps), 2 when the checkpoint table of version 3 is. A version newer
 * than the sink's is left as it is. */
static int
effective_version (int recorded, const tables_t *exists)
{
    if (recorded > DLQ_PG_SCHEMA_VERSION)
        return recorded;
    if (!exists->table)
        return 0;
    if (recorded >= 2 && !exists->lock)
        return 1;
    return recorded >= 3 && !exists->ckpt ? 2 : recorded;
}

/* True when the one-boolean result r says "t". */
static bool
is_true (const PGresult *r)
{
    return strcmp (PQgetvalue (r, 0, 0), "t") == 0;
}

/* Add "whether the relation named qualified exists" to b. */
static void
add_exists (batch_t *b, const char *const *qualified, int *length)
{
    lengths_of (qualified, length, 1);
    dlq_pg_sql_table_exists (add (b, 1, qualified, length));
}

/* Create the schema, then dlq_schema_version if need be; read the table's
 * version (effective_version). */
static bool
read_version (dlq_pg_conn_t *conn, const dlq_pg_names_t *names, bool schema_exists, const char *table,
              int64_t deadline, int *version, dlq_pg_error_t *error)
{
    dlq_buf_t qualified = DLQ_BUF_INIT, lock = DLQ_BUF_INIT, ckpt = DLQ_BUF_INIT;
    dlq_pg_sql_qualified (&qualified, names);
    dlq_pg_sql_qualified_lock (&lock, names);
    dlq_pg_sql_qualified_ckpt (&ckpt, names);
    const char *const v_table [] = { table }, *const v_qualified [] = { qualified.data };
    const char *const v_lock [] = { lock.data }, *const v_ckpt [] = { ckpt.data };
    int l_table [1], l_qualified [1], l_lock [1], l_ckpt [1];
    lengths_of (v_table, l_table, 1);
    batch_t b = BATCH_INIT;
    if (!schema_exists)
        dlq_pg_sql_create_schema (add (&b, 0, NULL, NULL), names);
    dlq_pg_sql_create_version_table (add (&b, 0, NULL, NULL), names);
    dlq_pg_sql_select_version (add (&b, 1, v_table, l_table), names);
    add_exists (&b, v_qualified, l_qualified);
    add_exists (&b, v_lock, l_lock);
    add_exists (&b, v_ckpt, l_ckpt);
    PGresult *results [6];
    bool ok = run (conn, &b, results, deadline, error);
    if (ok) {
        const PGresult *select = results [b.count - 4];
        int recorded = PQntuples (select) > 0 ? atoi (PQgetvalue (select, 0, 0)) : 0;
        tables_t exists = { is_true (results [b.count - 3]), is_true (results [b.count - 2]),
                            is_true (results [b.count - 1]) };
        *version = effective_version (recorded, &exists);
    }
    dlq_pg_results_clear (results, b.count);
    batch_free (&b);
    dlq_buf_free (&qualified);
    dlq_buf_free (&lock);
    dlq_buf_free (&ckpt);
    return ok;
}

/* Add every statement of the migration to version v. */
static void
add_migration (batch_t *b, const dlq_pg_names_t *names, int v)
{
    for (size_t step = 0;; step++) {
        dlq_buf_t sql = DLQ_BUF_INIT;
        if (!dlq_pg_sql_migration (&sql, names, v, step)) {
            dlq_buf_free (&sql);
            return;
        }
        *add (b, 0, NULL, NULL) = sql;
    }
}

/* Every migration step past version, the new version, and COMMIT. */
static bool
migrate_and_commit (dlq_pg_conn_t *conn, const dlq_pg_names_t *names, const char *table, int version,
                    int64_t deadline, dlq_pg_error_t *error)
{
    char to [16];
    snprintf (to, sizeof to, "%d", DLQ_PG_SCHEMA_VERSION);
    const char *const values [] = { table, to };
    int lengths [2];
    lengths_of (values, lengths, 2);
    batch_t b = BATCH_INIT;
    for (int v = version + 1; v <= DLQ_PG_SCHEMA_VERSION; v++)
        add_migration (&b, names, v);
    if (version < DLQ_PG_SCHEMA_VERSION)
        dlq_pg_sql_set_version (add (&b, 2, values, lengths), names);
    dlq_buf_puts (add (&b, 0, NULL, NULL), "COMMIT");
    bool ok = run (conn, &b, NULL, deadline, error);
    batch_free (&b);
    return ok;
}

bool
dlq_pg_schema_ensure (dlq_pg_conn_t *conn, const dlq_pg_names_t *names, const char *schema,
                      const char *table, int64_t deadline_mono_ms, dlq_pg_error_t *error)
{
    bool schema_exists = false;
    int version = 0;
    bool ok = begin_locked (conn, schema, table, deadline_mono_ms, &schema_exists, error)
           && read_version (conn, names, schema_exists, table, deadline_mono_ms, &version, error);
    if (ok && version > DLQ_PG_SCHEMA_VERSION) {
        memset (error, 0, sizeof *error);
        error->fault = DLQ_PG_FAULT_OTHER;
        snprintf (error->message, sizeof error->message,
                  "the table is at version %d, newer than this sink's %d: upgrade dlqd",
                  version, DLQ_PG_SCHEMA_VERSION);
        ok = false;
    }
    ok = ok && migrate_and_commit (conn, names, table, version, deadline_mono_ms, error);
    if (!ok)
        dlq_pg_conn_rollback (conn);
    return ok;
}
