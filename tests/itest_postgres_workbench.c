/*  itest_postgres_workbench — what the postgres sink's workbench calls
 *  (dlq_sink_workbench_ops_t) keep in its tables, against a real
 *  PostgreSQL server, the plugin loaded in the test process as the gateway
 *  loads it and the tables read with libpq:
 *
 *    - each mark shows in the row: payload_text, the status column and
 *      the payload's status follow (the nested "status" members untouched),
 *      updated_at is set;
 *    - a claimed row keeps its body and carries the lease in retry_after;
 *      the lock row names the owner of a pass until it is over;
 *    - a version 1 table is migrated in place, and a dropped lock table
 *      is created again.
 *
 *  What every store with workbench calls must answer (filters against the
 *  reference predicate, marks, NOT_FOUND, claims, LOCKED, two connections
 *  claiming at once) is the contract suite's (tests/contract,
 *  contract_workbench.c), run on this sink by contract_postgres.
 *
 *  The server is the one contrib/scripts/test.sh started for the run
 *  (DLQD_TEST_PG_CONNINFO), else one started for each test (pg_support.h).
 *  Each test uses tables of its own and drops them at the end.
 *
 *  Needs libpq (to look at the table behind the plugin): tests/CMakeLists.txt
 *  links this suite with PkgConfig::PQ, and with dlq_pg_format for the
 *  version 1 DDL.
 */
#include "dlq_time.h"
#include "failed_event.h"
#include "filter_oracle.h"
#include "pg_db.h"
#include "pg_format.h"
#include "pg_support.h"
#include "plugin_workbench.h"
#include "plugin_host.h"

#include <criterion/criterion.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N           FILTER_ORACLE_EVENTS
#define NOW         FILTER_ORACLE_NOW
#define LEASE_MS    PLUGIN_WB_LEASE_MS

static pg_db_t db;                  /* the server, the table (pg_db.h) */
static plugin_wb_t wb;              /* the plugin, its writer and reader (plugin_workbench.h) */
static dlq_event_t *events [N];
static size_t stored;               /* events [0, stored) are in the table */

static void
setup (void)
{
    memset (&wb, 0, sizeof wb);
    stored = 0;
    pg_db_open (&db);
}

/* Load the plugin and open a DELIVER and a QUERY instance. */
static void
open_plugin (void)
{
    char err [512];
    cr_assert (pg_plugin_load (&wb.plugin, db.server.conninfo, db.table, NULL, err, sizeof err), "%s", err);
    plugin_wb_open (&wb);
}

static void
teardown (void)
{
    plugin_wb_close (&wb);
    pg_db_close (&db);
    for (int i = 0; i < N; i++)
        dlq_event_destroy (&events [i]);
}

TestSuite (postgres_workbench, .init = setup, .fini = teardown, .timeout = 300);

/* ---- marks ------------------------------------------------------------------------------ */

/* payload_text, the status column and the payload's status say status;
 * the nested ones are untouched. */
static void
expect_status_in_the_row (const dlq_event_t *e, const char *status)
{
    char *want = plugin_wb_body_with_status (e, status);
    char *text = pg_db_value (&db, "SELECT payload_text FROM %T WHERE id = $1::uuid", e->id);
    cr_expect_str_eq (text, want, "payload_text");
    char *column = pg_db_value (&db, "SELECT status || ' ' || (payload->>'status') || ' ' "
                                     "|| (payload->'fullDocument'->>'status')"
                                     " || ' ' || (payload->'metadata'->>'status') FROM %T WHERE id = $1::uuid", e->id);
    char want_columns [128];
    snprintf (want_columns, sizeof want_columns, "%s %s PAID meta", status, status);
    cr_expect_str_eq (column, want_columns, "status, payload's status, the nested ones untouched");
    free (column);
    free (text);
    free (want);
}

Test (postgres_workbench, each_mark_shows_in_the_row)
{
    open_plugin ();
    stored = plugin_wb_store_marked (&wb, events);
    plugin_wb_expect_marks (&wb, events [0], expect_status_in_the_row);
    char *updated = pg_db_value (&db, "SELECT updated_at > created_at FROM %T WHERE id = $1::uuid", events [0]->id);
    cr_expect_str_eq (updated, "t", "updated_at is set");
    free (updated);
}

/* ---- claim -------------------------------------------------------------------------------- */

/* The rows of the table whose retry_after is at. */
static int64_t
leased_rows (int64_t at)
{
    char iso [DLQ_TIME_ISO_LEN + 1];
    dlq_time_format_iso (at, iso);
    char *count = pg_db_value (&db, "SELECT count(*) FROM %T WHERE retry_after = $1::timestamptz", iso);
    int64_t n = count ? strtoll (count, NULL, 10) : -1;
    free (count);
    return n;
}

/* Deliver 3 PENDING events of stream "s" into events [0, 3). */
static void
store_three (void)
{
    const char *const stream [] = { "s", "s", "s" };
    const int64_t ago [] = { 3000, 2000, 1000 }, expires [] = { DLQ_TIME_NONE, DLQ_TIME_NONE, DLQ_TIME_NONE };
    const char *const status [] = { "PENDING", "PENDING", "PENDING" };
    plugin_wb_store_simple (&wb, events, stream, ago, status, expires, 3);
    stored = 3;
}

Test (postgres_workbench, a_claimed_row_keeps_its_body_and_carries_the_lease)
{
    open_plugin ();
    store_three ();
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (plugin_wb_claim (&wb, wb.reader, "s", "a", 0, 10, 2, NOW, &out), DLQ_SINK_STATUS_OK, "%s",
                  plugin_wb_error (&wb, wb.reader));
    static const int first [] = { 0, 1, -1 };
    plugin_wb_expect_claimed (&out, events, stored, first, NULL, "the two oldest");
    for (int k = 0; first [k] >= 0; k++) {
        char *body = pg_db_value (&db, "SELECT payload_text FROM %T WHERE id = $1::uuid", events [k]->id);
        cr_expect_str_eq (body, events [k]->json, "the claim leaves the body");
        free (body);
    }
    cr_expect_eq (leased_rows (NOW + LEASE_MS), 2, "retry_after is the lease, in the claimed rows only");
    dlq_buf_free (&out);
}

/* The lock row of "s": host-a's, until NOW + 60 s. */
static void
expect_lock_row (void)
{
    char *owner = pg_db_value (&db, "SELECT owner || ' ' || (locked_until = $1::timestamptz) FROM %L",
                               "2026-06-09T14:33:13.500Z");
    cr_expect_str_eq (owner, "host-a true", "the lock row: its owner, until NOW + pass_ms: %s", owner);
    free (owner);
}

Test (postgres_workbench, the_lock_row_names_the_owner_until_the_pass_is_over)
{
    open_plugin ();
    store_three ();
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (plugin_wb_claim (&wb, wb.reader, "s", "host-a", 60000, 10, 1, NOW, &out), DLQ_SINK_STATUS_OK, "%s",
                  plugin_wb_error (&wb, wb.reader));
    expect_lock_row ();
    dlq_buf_free (&out);
}

/* ---- migration ------------------------------------------------------------------------------- */

/* Make table at version 1 (its DDL, its version row) with one row of
 * event e in version 1's shape (no fingerprint, status PENDING). */
static void
create_version_1 (const dlq_event_t *e)
{
    pg_db_create_version (&db, 1);
    char *text = pg_db_sql (&db, "INSERT INTO %T (id, stream_name, payload, payload_text, error_type, attempts, "
                                 "created_at) VALUES ($1::uuid, $2, $3::jsonb, $3, 'X', 1, $4::timestamptz)");
    char created [DLQ_PG_TIME_LEN];
    dlq_pg_format_time (e->created_at, created);
    const char *const params [] = { e->id, e->stream_name, e->json, created };
    PGresult *r = PQexecParams (db.conn, text, 4, NULL, params, NULL, NULL, 0);
    cr_assert_eq (PQresultStatus (r), PGRES_COMMAND_OK, "%s", PQerrorMessage (db.conn));
    PQclear (r);
    free (text);
}

Test (postgres_workbench, a_version_1_table_is_migrated_in_place)
{
    events [0] = plugin_wb_simple ("old", 1000, "DLQ", DLQ_TIME_NONE);
    events [1] = plugin_wb_simple ("old", 500, "DLQ", DLQ_TIME_NONE);
    events [2] = plugin_wb_simple ("new", 500, "A_STATUS_OF_THIRTY_TWO_CHARACTER", DLQ_TIME_NONE);
    create_version_1 (events [0]);
    open_plugin ();
    plugin_wb_deliver (&wb, events + 1, 2);
    stored = 3;
    char *version = pg_db_value (&db, "SELECT version FROM dlq_schema_version WHERE table_name = $1", db.table);
    cr_expect_str_eq (version, "3");
    free (version);
    char *width = pg_db_value (&db, "SELECT character_maximum_length FROM information_schema.columns "
                                    "WHERE table_name = $1 AND column_name = 'status'", db.table);
    cr_expect_str_eq (width, "32", "status holds a FailedEvent's 32 characters");
    free (width);
    char *old = pg_db_value (&db, "SELECT coalesce(fingerprint, 'none') || ' ' || status || ' ' || replay_count "
                                  "FROM %T WHERE id = $1::uuid", events [0]->id);
    cr_expect_str_eq (old, "none PENDING 0", "a version 1 row keeps its status, has no fingerprint");
    free (old);
    char *fresh = pg_db_value (&db, "SELECT fingerprint || ' ' || status FROM %T WHERE id = $1::uuid", events [1]->id);
    char want [64];
    snprintf (want, sizeof want, "%s DLQ", events [1]->fingerprint);
    cr_expect_str_eq (fresh, want, "a new row has its fingerprint and its own status");
    free (fresh);

    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (wb.plugin.ops->workbench->query_groups (wb.reader, "{}", 10, NOW, dlq_plugin_host_buf (&out)),
                  DLQ_SINK_STATUS_OK, "%s", plugin_wb_error (&wb, wb.reader));
    cr_expect_not_null (strstr (out.data, "{\"fingerprint\":null,\"count\":1,"), "%s", out.data);
    cr_expect_not_null (strstr (out.data, events [2]->fingerprint), "%s", out.data);
    /* version 1 set retry_after to the time of the INSERT (now()) */
    int64_t later = dlq_time_now_ms () + 1000;
    cr_assert_eq (plugin_wb_claim (&wb, wb.reader, "old", "a", 0, 10, 10, later, &out), DLQ_SINK_STATUS_OK);
    char *got = plugin_wb_claimed (&out, events, 0);
    cr_expect_not_null (strstr (got, events [0]->id), "the version 1 row (PENDING) is claimed: %s", got);
    free (got);

    pg_db_command (&db, "DROP TABLE %L");
    dlq_sink_status_t first = plugin_wb_claim (&wb, wb.reader, "old", "a", 0, 10, 10, later + LEASE_MS, &out);
    if (first != DLQ_SINK_STATUS_OK)
        cr_assert_eq (plugin_wb_claim (&wb, wb.reader, "old", "a", 0, 10, 10, later + LEASE_MS, &out),
                      DLQ_SINK_STATUS_OK, "the lock table is created again: %s", plugin_wb_error (&wb, wb.reader));
    got = plugin_wb_claimed (&out, events, 0);
    cr_expect_not_null (strstr (got, events [0]->id), "due again after its lease: %s", got);
    free (got);
    dlq_buf_free (&out);
}
