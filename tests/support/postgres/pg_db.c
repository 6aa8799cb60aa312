/*  pg_db — a libpq connection to the tests' server; see the header. */
#include "pg_db.h"

#include "dlq_buf.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
pg_db_open (pg_db_t *db)
{
    memset (db, 0, sizeof *db);
    pg_table_name (db->table, sizeof db->table);
    dlq_pg_lock_table_name (db->table, db->lock);
    dlq_pg_ckpt_table_name (db->table, db->ckpt);
    cr_assert (pg_server_shared (&db->server), "no PostgreSQL server (contrib/scripts/pg-server.sh failed, see above)");
    db->conn = PQconnectdb (db->server.conninfo);
    cr_assert_eq (PQstatus (db->conn), CONNECTION_OK, "cannot connect to %s: %s", db->server.conninfo,
                  PQerrorMessage (db->conn));
    PQclear (PQexec (db->conn, "SET client_min_messages = warning"));
}

/* The name placeholder at stands for (%T, %L, %C), or NULL. */
static const char *
name_at (const pg_db_t *db, const char *at)
{
    switch (at [1]) {
        case 'T': return db->table;
        case 'L': return db->lock;
        case 'C': return db->ckpt;
        default:  return NULL;
    }
}

char *
pg_db_sql (const pg_db_t *db, const char *sql)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    const char *at, *name;
    while ((at = strchr (sql, '%')) && (name = name_at (db, at))) {
        dlq_buf_append (&out, sql, (size_t) (at - sql));
        dlq_buf_printf (&out, "\"%s\"", name);
        sql = at + 2;
    }
    dlq_buf_puts (&out, sql);
    return dlq_buf_steal (&out, NULL);
}

void
pg_db_command (const pg_db_t *db, const char *sql_with_names)
{
    char *sql = pg_db_sql (db, sql_with_names);
    PGresult *r = PQexec (db->conn, sql);
    cr_assert (PQresultStatus (r) == PGRES_COMMAND_OK || PQresultStatus (r) == PGRES_TUPLES_OK,
               "%s\n-> %s", sql, PQerrorMessage (db->conn));
    PQclear (r);
    free (sql);
}

char *
pg_db_value (const pg_db_t *db, const char *sql_with_names, const char *param)
{
    char *sql = pg_db_sql (db, sql_with_names);
    const char *const params [] = { param };
    PGresult *r = PQexecParams (db->conn, sql, param ? 1 : 0, NULL, params, NULL, NULL, 0);
    cr_assert_eq (PQresultStatus (r), PGRES_TUPLES_OK, "%s\n-> %s", sql, PQerrorMessage (db->conn));
    cr_assert_eq (PQntuples (r), 1, "%s: %d rows", sql, PQntuples (r));
    char *v = PQgetisnull (r, 0, 0) ? NULL : strdup (PQgetvalue (r, 0, 0));
    PQclear (r);
    free (sql);
    return v;
}

/* db's names, quoted, in schema public (what the migrations name). */
static void
quoted_names (const pg_db_t *db, dlq_pg_names_t *names)
{
    memset (names, 0, sizeof *names);
    snprintf (names->schema, sizeof names->schema, "\"public\"");
    snprintf (names->table, sizeof names->table, "\"%s\"", db->table);
    for (int i = 0; i < DLQ_PG_INDEX_COUNT; i++) {
        char name [DLQ_PG_NAME_MAX + 1];
        dlq_pg_index_name (db->table, (dlq_pg_index_t) i, name);
        snprintf (names->index [i], sizeof names->index [i], "\"%s\"", name);
    }
    snprintf (names->lock_table, sizeof names->lock_table, "\"%s\"", db->lock);
    snprintf (names->ckpt_table, sizeof names->ckpt_table, "\"%s\"", db->ckpt);
}

void
pg_db_create_version (const pg_db_t *db, int version)
{
    dlq_pg_names_t names;
    quoted_names (db, &names);
    pg_db_command (db, "CREATE TABLE IF NOT EXISTS dlq_schema_version "
                       "(table_name TEXT PRIMARY KEY, version INT NOT NULL)");
    dlq_buf_t sql = DLQ_BUF_INIT;
    for (int v = 1; v <= version; v++)
        for (size_t step = 0; dlq_pg_sql_migration (&sql, &names, v, step); step++) {
            pg_db_command (db, sql.data);
            dlq_buf_reset (&sql);
        }
    dlq_buf_free (&sql);
    char insert [160];
    snprintf (insert, sizeof insert, "INSERT INTO dlq_schema_version VALUES ('%s', %d)", db->table, version);
    pg_db_command (db, insert);
}

void
pg_db_drop (const pg_db_t *db, const char *name)
{
    char lock [DLQ_PG_NAME_MAX + 1], ckpt [DLQ_PG_NAME_MAX + 1], sql [512];
    dlq_pg_lock_table_name (name, lock);
    dlq_pg_ckpt_table_name (name, ckpt);
    snprintf (sql, sizeof sql, "DROP TABLE IF EXISTS \"%s\", \"%s\", \"%s\"", name, lock, ckpt);
    PQclear (PQexec (db->conn, sql));
    const char *const params [] = { name };
    PQclear (PQexecParams (db->conn, "DELETE FROM dlq_schema_version WHERE table_name = $1", 1, NULL, params, NULL,
                           NULL, 0));
}

void
pg_db_close (pg_db_t *db)
{
    if (db->conn) {
        pg_db_drop (db, db->table);
        PQfinish (db->conn);
        db->conn = NULL;
    }
    pg_server_stop (&db->server);
}
