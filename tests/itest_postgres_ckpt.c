/*  itest_postgres_ckpt — what the postgres sink's checkpoint calls
 *  (dlq_sink_checkpoint_ops_t) keep in its checkpoint table, against a
 *  real PostgreSQL server, the plugin loaded in the test process as the
 *  gateway loads it and the tables read with libpq:
 *
 *    - each kind of write in the row: SEEN / PROCESSED on a missing record
 *      create a row with only their pair's columns (updated_at the
 *      caller's now), on a record touch no other column; SAVE makes an
 *      absent field NULL;
 *    - a token or metadata has a text column, byte for byte, and a JSONB
 *      copy unless JSONB refuses the text (a NUL, a number out of range:
 *      they still come back byte for byte), which answers SQL;
 *    - a LIST prefix page is a range scan of the primary key's index (the
 *      "C" collation);
 *    - a version 2 table is migrated in place (version 3), a dropped
 *      checkpoint table is created again, and a long table name gets a
 *      hashed checkpoint table name.
 *
 *  What every store that keeps checkpoints must answer (each kind of
 *  write, tokens byte for byte, timestamps, NOT_FOUND, remove, LIST's
 *  order, prefix and cursor, writers at once) is the contract suite's
 *  (tests/contract, contract_checkpoints.c), run on this sink by
 *  contract_postgres; the checks are plugin_checkpoints.h's, which this
 *  suite calls where it looks behind them.
 *
 *  The server is the one contrib/scripts/test.sh started for the run
 *  (DLQD_TEST_PG_CONNINFO), else one started for each test (pg_support.h).
 *  Each test uses tables of its own and drops them at the end.
 *
 *  Needs libpq (to look at the tables behind the plugin) and dlq_pg_format
 *  (the version 2 DDL, the derived table names, the LIST statement):
 *  tests/CMakeLists.txt links them.
 */
#include "checkpoint.h"
#include "dlq_time.h"
#include "pg_ckpt_sql.h"
#include "pg_format.h"
#include "pg_sql.h"
#include "pg_db.h"
#include "pg_support.h"
#include "plugin_checkpoints.h"
#include "plugin_host.h"

#include <criterion/criterion.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOW PLUGIN_CKPT_NOW

static pg_db_t db;                              /* the server, the table (pg_db.h) */
static char long_table [DLQ_PG_NAME_MAX + 1];   /* "" unless a test uses one */
static plugin_ckpt_t ck;                        /* the plugin as sink "pg", its reader */

static void
setup (void)
{
    memset (&ck, 0, sizeof ck);
    long_table [0] = '\0';
    pg_db_open (&db);
}

static void
teardown (void)
{
    plugin_ckpt_close (&ck);
    if (db.conn && long_table [0])
        pg_db_drop (&db, long_table);
    pg_db_close (&db);
}

TestSuite (postgres_ckpt, .init = setup, .fini = teardown, .timeout = 300);

/* ---- helpers ---------------------------------------------------------------------- */

/* Load the plugin for table name and open a QUERY instance (the reader). */
static void
open_plugin_on (const char *name)
{
    char err [512];
    cr_assert (pg_plugin_load (&ck.plugin, db.server.conninfo, name, NULL, err, sizeof err), "%s", err);
    plugin_ckpt_open (&ck);
}

static void
open_plugin (void)
{
    open_plugin_on (db.table);
}

/* sql (with %T, %C) for stream must give "t". */
static void
expect_true (const char *sql_with_table, const char *stream, const char *what)
{
    char *v = pg_db_value (&db, sql_with_table, stream);
    cr_expect (v && strcmp (v, "t") == 0, "%s: %s", what, v ? v : "NULL");
    free (v);
}

/* ---- writes --------------------------------------------------------------------------- */

#define ONLY_SEEN "SELECT instance_id IS NULL AND last_processed_token IS NULL AND last_processed_token_text IS NULL " \
                  "AND last_processed_ts IS NULL AND metadata IS NULL AND metadata_text IS NULL " \
                  "AND last_seen_token = last_seen_token_text::jsonb FROM %C WHERE stream_name = $1"
#define ONLY_PROCESSED "SELECT instance_id IS NULL AND last_seen_token IS NULL AND last_seen_token_text IS NULL " \
                       "AND last_seen_ts IS NULL AND metadata IS NULL AND metadata_text IS NULL " \
                       "AND last_processed_token = last_processed_token_text::jsonb FROM %C WHERE stream_name = $1"

/* stream's row has only the pair of kind. */
static void
only_pair (const char *stream, dlq_sink_ckpt_write_t kind)
{
    if (kind == DLQ_SINK_CKPT_SEEN)
        expect_true (ONLY_SEEN, stream, "SEEN created the row with only its pair");
    else
        expect_true (ONLY_PROCESSED, stream, "PROCESSED created the row with only its pair");
}

static void
instance_and_metadata_untouched (const char *stream)
{
    expect_true ("SELECT instance_id = 'worker-7' AND metadata = metadata_text::jsonb FROM %C WHERE stream_name = $1",
                 stream, "instance and metadata untouched");
}

static void
absent_fields_are_null (const char *stream)
{
    expect_true ("SELECT last_seen_token IS NULL AND last_seen_token_text IS NULL AND last_seen_ts IS NULL "
                 "AND last_processed_token IS NULL AND last_processed_token_text IS NULL AND last_processed_ts IS NULL "
                 "AND metadata IS NULL AND metadata_text IS NULL AND instance_id = 'worker-8' "
                 "FROM %C WHERE stream_name = $1", stream, "absent fields are NULL");
}

Test (postgres_ckpt, each_kind_of_write_shows_in_the_row)
{
    open_plugin ();
    plugin_ckpt_expect_first_writes (&ck, only_pair);
    expect_true ("SELECT updated_at = '2026-06-09T14:32:13.501Z'::timestamptz FROM %C WHERE stream_name = $1",
                 "payments", "updated_at is the caller's now_ms");
    plugin_ckpt_expect_pairs_only (&ck, instance_and_metadata_untouched);
    dlq_sink_checkpoint_t partial = dlq_checkpoint_empty ("orders");
    partial.instance_id = "worker-8";
    plugin_ckpt_expect_saves (&ck, &partial, absent_fields_are_null, NULL);
}

/* Texts as the gateway's dlq_json_write makes them: key order, escapes,
 * numbers as written; the last two JSONB refuses (and the contract suite
 * has not: a store may refuse them, as mongo does). */
static const char *const texts [] = {
    "{\"_data\":\"826A\",\"z\":1,\"a\":{\"$numberLong\":\"9007199254740993\"}}",
    "{\"k\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\",\"esc\":\"\\\"\\\\\\n\\t\\u0001\"}",
    "{\"n\":1.50,\"m\":-0,\"e\":1E+2,\"f\":[0.1e-3,100000000000000000000000000001]}",
    "{\"a\":1,\"a\":2}",
    "{\"nested\":{\"deep\":[{\"x\":[]},{}]},\"empty\":\"\"}",
    "{\"nul\":\"a\\u0000b\"}",
    "{\"big\":1e99999}",
};

/* The text column holds text, and a JSONB copy when JSONB holds it. */
static void
text_and_copy (const char *stream, const char *text)
{
    char *column = pg_db_value (&db, "SELECT last_seen_token_text FROM %C WHERE stream_name = $1", stream);
    cr_expect_str_eq (column, text, "the text column");
    free (column);
    char *copy = pg_db_value (&db, "SELECT last_seen_token IS NOT NULL FROM %C WHERE stream_name = $1", stream);
    cr_expect_str_eq (copy, dlq_pg_jsonb_holds (text) ? "t" : "f", "the JSONB copy of %s", text);
    free (copy);
}

Test (postgres_ckpt, a_token_has_a_jsonb_copy_unless_jsonb_refuses_it)
{
    open_plugin ();
    plugin_ckpt_expect_texts (&ck, texts, sizeof texts / sizeof texts [0], text_and_copy);
    expect_true ("SELECT count(*) = 2 FROM %C WHERE metadata IS NULL AND metadata_text IS NOT NULL", NULL,
                 "the metadata JSONB refuses has no copy, and only that");
    expect_true ("SELECT last_processed_token->'a'->>'$numberLong' = '9007199254740993' FROM %C "
                 "WHERE stream_name = $1", "stream-6", "the JSONB copy answers SQL");
}

/* ---- list ------------------------------------------------------------------------------- */

Test (postgres_ckpt, a_prefix_page_is_a_range_of_the_primary_key)
{
    open_plugin ();
    plugin_ckpt_store_names (&ck);
    char *collation = pg_db_value (&db, "SELECT collation_name FROM information_schema.columns "
                                        "WHERE table_name = $1 AND column_name = 'stream_name'", db.ckpt);
    cr_expect_str_eq (collation, "C", "stream_name is in byte order whatever the database's locale");
    free (collation);
    dlq_pg_names_t quoted;
    memset (&quoted, 0, sizeof quoted);
    snprintf (quoted.schema, sizeof quoted.schema, "\"public\"");
    snprintf (quoted.ckpt_table, sizeof quoted.ckpt_table, "\"%s\"", db.ckpt);
    dlq_buf_t sql = DLQ_BUF_INIT;
    dlq_buf_puts (&sql, "EXPLAIN ");
    dlq_pg_ckpt_sql_list (&sql, &quoted, true, true);
    pg_db_command (&db, "SET enable_seqscan = off");
    const char *const params [] = { "11", "orders\\_%", "orders" };
    PGresult *r = PQexecParams (db.conn, sql.data, 3, NULL, params, NULL, NULL, 0);
    cr_assert_eq (PQresultStatus (r), PGRES_TUPLES_OK, "%s", PQerrorMessage (db.conn));
    dlq_buf_t plan = DLQ_BUF_INIT;
    for (int i = 0; i < PQntuples (r); i++)
        dlq_buf_printf (&plan, "%s\n", PQgetvalue (r, i, 0));
    PQclear (r);
    cr_expect_not_null (strstr (plan.data, "Index Cond: ((stream_name >= 'orders_'::text) AND "
                                           "(stream_name < 'orders`'::text)"), "%s", plan.data);
    pg_db_command (&db, "RESET enable_seqscan");
    dlq_buf_free (&plan);
    dlq_buf_free (&sql);
}

/* ---- migration and names -------------------------------------------------------------------------- */

/* Make table at version 2 (its DDL, its version row) with one event row. */
static void
create_version_2 (void)
{
    pg_db_create_version (&db, 2);
    pg_db_command (&db, "INSERT INTO %T (id, stream_name, payload, payload_text, error_type, attempts, created_at) "
                        "VALUES ('0190f1d2-6c4e-7a01-8b2c-3d4e5f607182', 'old', '{}', '{\"kept\":true}', 'X', 1, "
                        "now())");
}

Test (postgres_ckpt, a_version_2_table_is_migrated_in_place)
{
    create_version_2 ();
    char *before = pg_db_value (&db, "SELECT to_regclass($1) IS NULL", db.ckpt);
    cr_expect_str_eq (before, "t", "no checkpoint table at version 2");
    free (before);
    open_plugin ();
    char *version = pg_db_value (&db, "SELECT version FROM dlq_schema_version WHERE table_name = $1", db.table);
    cr_expect_str_eq (version, "3");
    free (version);
    dlq_buf_t event = DLQ_BUF_INIT;
    cr_assert_eq (ck.plugin.ops->store->get (ck.reader, "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182", NOW,
                                             dlq_plugin_host_buf (&event)),
                  DLQ_SINK_STATUS_OK, "%s", plugin_ckpt_error (&ck, ck.reader));
    dlq_buf_putc (&event, '\0');
    cr_expect_str_eq (event.data, "{\"kept\":true}", "the version 2 rows are kept");
    dlq_buf_free (&event);
    dlq_sink_checkpoint_t record = plugin_ckpt_full ("orders");
    dlq_sink_checkpoint_t want = record;
    want.updated_at = NOW;
    plugin_ckpt_expect_write (&ck, DLQ_SINK_CKPT_SAVE, &record, NOW, &want);

    pg_db_command (&db, "DROP TABLE %C");
    dlq_sink_checkpoint_t seen = plugin_ckpt_token (DLQ_SINK_CKPT_SEEN, "orders", "{\"_data\":\"1\"}", NOW);
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_sink_status_t first = plugin_ckpt_ops (&ck)->write (ck.reader, DLQ_SINK_CKPT_SEEN, &seen, NOW,
                                                            dlq_plugin_host_buf (&out));
    const char *why = plugin_ckpt_error (&ck, ck.reader);
    if (first != DLQ_SINK_STATUS_OK)
        cr_expect_not_null (strstr (why, "42P01"), "%s", why);
    dlq_buf_free (&out);
    want = seen;
    want.updated_at = NOW + 1;
    plugin_ckpt_expect_write (&ck, DLQ_SINK_CKPT_SEEN, &seen, NOW + 1, &want);
    version = pg_db_value (&db, "SELECT version FROM dlq_schema_version WHERE table_name = $1", db.table);
    cr_expect_str_eq (version, "3", "the checkpoint table is created again, the version stays");
    free (version);
}

Test (postgres_ckpt, a_long_table_name_gets_a_hashed_checkpoint_table)
{
    static const char padding [] = "_padding_to_sixty_three_bytes_padding_to_sixty_three_bytes";
    size_t len = strlen (db.table);
    memcpy (long_table, db.table, len);
    memcpy (long_table + len, padding, DLQ_PG_NAME_MAX - len);
    long_table [DLQ_PG_NAME_MAX] = '\0';
    cr_assert_eq (strlen (long_table), DLQ_PG_NAME_MAX);
    open_plugin_on (long_table);
    dlq_sink_checkpoint_t record = plugin_ckpt_full ("orders");
    free (plugin_ckpt_write (&ck, ck.reader, DLQ_SINK_CKPT_SAVE, &record, NOW));
    char name [DLQ_PG_NAME_MAX + 1];
    dlq_pg_ckpt_table_name (long_table, name);
    cr_expect_leq (strlen (name), DLQ_PG_NAME_MAX, "%s", name);
    cr_expect_eq (strcmp (name + strlen (name) - strlen ("_checkpoints"), "_checkpoints"), 0, "%s", name);
    char *count = pg_db_value (&db, "SELECT count(*) FROM pg_catalog.pg_class WHERE relname = $1", name);
    cr_expect_str_eq (count, "1", "the checkpoint table is %s", name);
    free (count);
}
