/*  pg_sqlstate — what the postgres sink does about a failed statement,
 *  from its SQLSTATE (pure; no libpq).
 *
 *  The sink never retries by itself: a fault either fails the rows that
 *  caused it (DATA: the batch is searched row by row for the culprits) or
 *  makes the whole batch RETRY, dropping the connection when it is gone or
 *  going (CONNECTION), creating the table again when it is missing
 *  (SCHEMA), and preparing its statements afresh when the session does not
 *  hold what the sink prepared (PREPARED).
 */
#ifndef DLQ_PG_SQLSTATE_H
#define DLQ_PG_SQLSTATE_H

#include <stdbool.h>

typedef enum {
    DLQ_PG_FAULT_NONE = 0,
    DLQ_PG_FAULT_DATA,          /* a row's value is refused (classes 22, 23, 54000): FAIL it */
    DLQ_PG_FAULT_TRANSIENT,     /* timeout, cancel, resources, serialization: RETRY */
    DLQ_PG_FAULT_CONNECTION,    /* lost or shutting down (class 08, 57P0x): RETRY, reconnect */
    DLQ_PG_FAULT_SCHEMA,        /* the table, schema or a column is missing: RETRY, create it again */
    DLQ_PG_FAULT_PREPARED,      /* a prepared statement is missing or already there (26000,
                                 * 42P05: a pooler between): RETRY, prepare afresh */
    DLQ_PG_FAULT_OTHER          /* anything else: RETRY */
} dlq_pg_fault_t;

/* The fault of a statement that failed with sqlstate (NULL or "" when the
 * client reported it: no server answer), on a connection that is
 * connection_ok (PQstatus CONNECTION_OK) or not. */
dlq_pg_fault_t dlq_pg_classify (const char *sqlstate, bool connection_ok);

/* A word for a fault, for messages ("data", "transient", ...). */
const char *dlq_pg_fault_name (dlq_pg_fault_t fault);

#endif
