/*  chaos_pg — one connection, two queries; see chaos_pg.h. The table name
 *  is quoted with PQescapeIdentifier, as the sink names it.
 */
#include "chaos_pg.h"

#include <libpq-fe.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Run sql; the result when it returned rows, else NULL with err. */
static PGresult *
chaos_pg_query (PGconn *conn, const char *sql, char *err, size_t err_len)
{
    PGresult *res = PQexec (conn, sql);
    if (PQresultStatus (res) == PGRES_TUPLES_OK)
        return res;
    snprintf (err, err_len, "postgres: %s: %s", sql, PQerrorMessage (conn));
    PQclear (res);
    return NULL;
}

bool
chaos_pg_read (const char *conninfo, const char *table, chaos_pg_row_fn *fn, void *arg,
               size_t *rows, size_t *duplicate_rows, char *err, size_t err_len)
{
    *rows = 0;
    *duplicate_rows = 0;
    PGconn *conn = PQconnectdb (conninfo);
    if (PQstatus (conn) != CONNECTION_OK) {
        snprintf (err, err_len, "postgres: cannot connect (%s): %s", conninfo, PQerrorMessage (conn));
        PQfinish (conn);
        return false;
    }
    char *name = PQescapeIdentifier (conn, table, strlen (table));
    char sql [512];
    bool ok = name != NULL;
    if (ok) {
        snprintf (sql, sizeof sql, "SELECT count(*) - count(DISTINCT id) FROM %s", name);
        PGresult *res = chaos_pg_query (conn, sql, err, err_len);
        ok = res != NULL;
        if (ok)
            *duplicate_rows = (size_t) strtoull (PQgetvalue (res, 0, 0), NULL, 10);
        PQclear (res);
    } else {
        snprintf (err, err_len, "postgres: %s", PQerrorMessage (conn));
    }
    if (ok) {
        snprintf (sql, sizeof sql, "SELECT id::text, payload_text FROM %s", name);
        PGresult *res = chaos_pg_query (conn, sql, err, err_len);
        ok = res != NULL;
        for (int i = 0; ok && i < PQntuples (res); i++)
            fn (arg, PQgetvalue (res, i, 0), (size_t) PQgetlength (res, i, 0),
                PQgetvalue (res, i, 1), (size_t) PQgetlength (res, i, 1));
        if (ok)
            *rows = (size_t) PQntuples (res);
        PQclear (res);
    }
    PQfreemem (name);
    PQfinish (conn);
    return ok;
}
