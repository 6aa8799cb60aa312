/*  pg_sqlstate — SQLSTATE to fault (see pg_sqlstate.h). The codes are
 *  those of PostgreSQL's Appendix A, "PostgreSQL Error Codes".
 */
#include "pg_sqlstate.h"

#include <string.h>

/* True when sqlstate is in class (its first two characters). */
static bool
in_class (const char *sqlstate, const char *cls)
{
    return strncmp (sqlstate, cls, 2) == 0;
}

/* True when sqlstate is one of the codes, a NULL-terminated list. */
static bool
is_one_of (const char *sqlstate, const char *const *codes)
{
    for (; *codes; codes++)
        if (strcmp (sqlstate, *codes) == 0)
            return true;
    return false;
}

/* The server is going away or refusing sessions: admin_shutdown,
 * crash_shutdown, cannot_connect_now, database_dropped,
 * idle_session_timeout. */
static const char *const connection_codes [] = { "57P01", "57P02", "57P03", "57P04", "57P05", NULL };

/* undefined_table, undefined_column, invalid_schema_name. */
static const char *const schema_codes [] = { "42P01", "42703", "3F000", NULL };

/* invalid_sql_statement_name, duplicate_prepared_statement. */
static const char *const prepared_codes [] = { "26000", "42P05", NULL };

dlq_pg_fault_t
dlq_pg_classify (const char *sqlstate, bool connection_ok)
{
    if (!connection_ok)
        return DLQ_PG_FAULT_CONNECTION;
    if (!sqlstate || strlen (sqlstate) != 5)
        return DLQ_PG_FAULT_OTHER;
    if (in_class (sqlstate, "08") || is_one_of (sqlstate, connection_codes))
        return DLQ_PG_FAULT_CONNECTION;
    if (in_class (sqlstate, "22") || in_class (sqlstate, "23") || strcmp (sqlstate, "54000") == 0)
        return DLQ_PG_FAULT_DATA;
    if (in_class (sqlstate, "53") || in_class (sqlstate, "40") || strcmp (sqlstate, "57014") == 0)
        return DLQ_PG_FAULT_TRANSIENT;
    if (is_one_of (sqlstate, schema_codes))
        return DLQ_PG_FAULT_SCHEMA;
    if (is_one_of (sqlstate, prepared_codes))
        return DLQ_PG_FAULT_PREPARED;
    return DLQ_PG_FAULT_OTHER;
}

const char *
dlq_pg_fault_name (dlq_pg_fault_t fault)
{
    switch (fault) {
        case DLQ_PG_FAULT_NONE:         return "none";
        case DLQ_PG_FAULT_DATA:         return "data";
        case DLQ_PG_FAULT_TRANSIENT:    return "transient";
        case DLQ_PG_FAULT_CONNECTION:   return "connection";
        case DLQ_PG_FAULT_SCHEMA:       return "schema";
        case DLQ_PG_FAULT_PREPARED:     return "prepared";
        default:                        return "other";
    }
}
