/*  itest_postgres_workbench — the postgres sink's workbench calls
 *  (dlq_sink_workbench_ops_t) against a real PostgreSQL server, the plugin
 *  loaded in the test process as the gateway loads it:
 *
 *    - filtered LIST (paged to the end), COUNT and GROUPS over a table of
 *      varied events (streams, statuses, error types and messages,
 *      attempts, metadata of each JSON type, creation times, some expired)
 *      agree with the reference predicate (the oracle of filter_oracle.h,
 *      its typed variety), as test_embedded_query checks the embedded store;
 *    - each mark changes the state as the contract says, and payload_text,
 *      payload and GET show the new status (every other byte kept);
 *    - a claim leases the stream's eligible events, oldest first, in
 *      batches, and sets their lease; another owner is LOCKED out for the
 *      pass; two connections claiming at once claim every event once;
 *    - a version 1 table is migrated in place, and a dropped lock table
 *      is created again.
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
#define CONCURRENT  2000            /* events two connections claim */

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

/* ---- filtered queries: the oracle of filter_oracle.h ------------------------------- */

/* Store the N varied events. */
static void
store_varied (void)
{
    open_plugin ();
    stored = plugin_wb_store_varied (&wb, events, FILTER_ORACLE_TYPED);
}

Test (postgres_workbench, filters_agree_with_the_reference_predicate)
{
    store_varied ();
    filter_oracle_t o = plugin_wb_oracle (&wb, events, stored);
    filter_oracle_expect_filters (&o, FILTER_ORACLE_TYPED);
}

Test (postgres_workbench, a_fingerprint_filter_per_group)
{
    store_varied ();
    filter_oracle_t o = plugin_wb_oracle (&wb, events, stored);
    filter_oracle_expect_fingerprints (&o);
}

Test (postgres_workbench, a_cursor_it_did_not_issue_is_bad)
{
    store_varied ();
    plugin_wb_expect_bad_cursors (&wb);
}

Test (postgres_workbench, groups_agree_with_the_reference_predicate)
{
    store_varied ();
    filter_oracle_t o = plugin_wb_oracle (&wb, events, stored);
    filter_oracle_expect_all_groups (&o, FILTER_ORACLE_TYPED);
}

/* ---- replay state and marks ------------------------------------------------------------- */

/* payload_text, GET, the payload's status and the column all say status. */
static void
expect_status_everywhere (const dlq_event_t *e, const char *status)
{
    char *want = plugin_wb_body_with_status (e, status);
    char *text = pg_db_value (&db, "SELECT payload_text FROM %T WHERE id = $1::uuid", e->id);
    cr_expect_str_eq (text, want, "payload_text");
    dlq_buf_t got = DLQ_BUF_INIT;
    cr_assert_eq (wb.plugin.ops->store->get (wb.reader, e->id, NOW, dlq_plugin_host_buf (&got)), DLQ_SINK_STATUS_OK);
    cr_expect_str_eq (got.data, want, "GET");
    char *column = pg_db_value (&db, "SELECT status || ' ' || (payload->>'status') || ' ' "
                                     "|| (payload->'fullDocument'->>'status')"
                                     " || ' ' || (payload->'metadata'->>'status') FROM %T WHERE id = $1::uuid", e->id);
    char want_columns [128];
    snprintf (want_columns, sizeof want_columns, "%s %s PAID meta", status, status);
    cr_expect_str_eq (column, want_columns, "status, payload's status, the nested ones untouched");
    free (column);
    dlq_buf_free (&got);
    free (text);
    free (want);
}

Test (postgres_workbench, each_mark_changes_the_state_and_the_body_follows)
{
    open_plugin ();
    stored = plugin_wb_store_marked (&wb, events);
    plugin_wb_expect_marks (&wb, events [0], expect_status_everywhere);
    char *updated = pg_db_value (&db, "SELECT updated_at > created_at FROM %T WHERE id = $1::uuid", events [0]->id);
    cr_expect_str_eq (updated, "t", "updated_at is set");
    free (updated);
}

Test (postgres_workbench, a_missing_or_expired_event_is_not_found)
{
    open_plugin ();
    stored = plugin_wb_store_marked (&wb, events);
    plugin_wb_expect_not_found (&wb, events [1]);
    dlq_sink_event_state_t st = plugin_wb_mark (&wb, events [0]->id, DLQ_SINK_MARK_RESOLVED, 0);
    cr_expect_str_eq (st.status, "SUCCEEDED", "the connection is fine after NOT_FOUND");
}

/* ---- claim -------------------------------------------------------------------------------- */

/* payload_text is still e's body. */
static void
expect_body_kept (const dlq_event_t *e)
{
    char *body = pg_db_value (&db, "SELECT payload_text FROM %T WHERE id = $1::uuid", e->id);
    cr_expect_str_eq (body, e->json, "the claim leaves the body");
    free (body);
}

Test (postgres_workbench, a_claim_leases_the_eligible_events_oldest_first_in_batches)
{
    open_plugin ();
    stored = plugin_wb_expect_claims (&wb, events, false, expect_body_kept);
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

Test (postgres_workbench, another_owner_is_locked_out_for_the_pass)
{
    open_plugin ();
    stored = plugin_wb_expect_locked_out (&wb, events, false, expect_lock_row);
}

/* ---- two connections claiming at once ------------------------------------------------------- */

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

Test (postgres_workbench, two_connections_claim_every_event_exactly_once)
{
    open_plugin ();
    plugin_wb_expect_claimed_once (&wb, CONCURRENT, 50, leased_rows);
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
