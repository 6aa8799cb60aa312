/*  pg_sink — the instance of the postgres sink plugin, shared by its
 *  parts: pg_sink.c (settings, init, connection and table setup, the
 *  entry), pg_deliver.c (deliver), pg_store.c (the store calls),
 *  pg_query.c and pg_workbench.c (the workbench calls), pg_checkpoint.c
 *  (the checkpoint calls), pg_call.c (what the query calls share).
 *  Internal to the plugin.
 */
#ifndef DLQ_PG_SINK_H
#define DLQ_PG_SINK_H

#include "dlq_buf.h"
#include "dlq_sink.h"
#include "pg_conn.h"
#include "pg_format.h"
#include "pg_insert.h"
#include "pg_sql.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How long past a deadline the sink still waits for an answer, so that the
 * server's statement_timeout (set to the deadline) fires first and the
 * connection stays usable. */
#define DLQ_PG_GRACE_MS 1000

/* One instance: its settings, its connection and its scratch. */
typedef struct {
    const dlq_sink_host_t   *host;
    const dlq_sink_config_t *config;
    const char              *conninfo;      /* settings: live as long as the config */
    const char              *schema;
    const char              *table;
    int64_t                  connect_timeout_ms;
    int64_t                  statement_timeout_ms;
    dlq_pg_conn_t           *conn;
    bool                     named;         /* names is set (at the first connection) */
    dlq_pg_names_t           names;         /* quoted identifiers */
    dlq_buf_t                qualified;     /* "schema"."table", a regclass parameter */
    bool                     table_ready;   /* ensured on the current connection */
    dlq_pg_row_t            *rows;          /* deliver: the batch's rows */
    size_t                  *slot;          /* rows [k] is events [slot [k]] */
    const char             **values;        /* every row's parameters, flat */
    int                     *lengths;
    size_t                   capacity;      /* of rows, slot; values and lengths hold DLQ_PG_PARAM_COUNT times that */
    dlq_pg_inserts_t         inserts;       /* the INSERT texts and prepared statements */
    char                     last_error [512];
} dlq_pg_sink_t;

/* Connect if not connected (giving up at the sooner of deadline_mono_ms
 * and connect_timeout_ms from now), then set the session up and make sure
 * the table exists. True when the instance can run statements. */
bool dlq_pg_sink_ready (dlq_pg_sink_t *self, int64_t deadline_mono_ms, dlq_pg_error_t *error);

/* Note that a statement failed with error: the table is created again on
 * the next call when it was missing. */
void dlq_pg_sink_failed (dlq_pg_sink_t *self, const dlq_pg_error_t *error);

/* deliver of the ABI (pg_deliver.c). */
void dlq_pg_sink_deliver (void *instance, const dlq_sink_event_t *events, size_t count,
                          dlq_sink_outcome_t *outcomes, int64_t deadline_mono_ms);

/* The store calls of the ABI (pg_store.c). */
extern const dlq_sink_store_ops_t dlq_pg_store_ops;

#endif
