/*  itest_postgres — the postgres sink end to end: dlqd as a process with a
 *  chain to a real PostgreSQL server (contrib/scripts/pg-server.sh), the
 *  table read back with libpq.
 *
 *    - every column of a row holds what was sent (the example event of the
 *      flowwarden-amqp wire format);
 *    - the sink as the primary store: GET / LIST / STATS come from the table;
 *    - the server stopped and restarted under load: every event lands exactly
 *      once, after retries, none failed;
 *    - a NUL character (\u0000, which jsonb cannot hold) is stored: U+FFFD
 *      in the jsonb columns, the body byte for byte in payload_text;
 *    - a data error on one event of a batch fails that event only.
 *
 *  The server is the one contrib/scripts/test.sh started for the run
 *  (DLQD_TEST_PG_CONNINFO), else one started for each test (pg_support.h);
 *  the stop/restart test always starts its own. Each test writes to a table
 *  of its own and drops it at the end.
 *
 *  Needs libpq: tests/CMakeLists.txt links this suite with PkgConfig::PQ.
 *  Built without it, the suite only says so (skipped).
 */
#include "dlq_buf.h"
#include "dlq_json.h"
#include "dlq_time.h"
#include "dlq_uuid.h"
#include "pg_support.h"
#include "sink_support.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

#if defined(__has_include)
#   if __has_include(<libpq-fe.h>)
#       include <libpq-fe.h>
#       define HAVE_LIBPQ 1
#   endif
#endif

#ifndef HAVE_LIBPQ

Test (postgres, needs_libpq)
{
    cr_skip_test ("itest_postgres was built without libpq (<libpq-fe.h> not found): "
                  "tests/CMakeLists.txt must link it with PkgConfig::PQ");
}

#else

#define SINK            "pg"
#define RETENTION_DAYS  3650
#define DAY_MS          (86400LL * 1000)
#define EXAMPLE_ID      "c2e8a5b6-0f1e-4c3a-9b7d-2a1f0e9d8c7b"

static test_dlqd_t d;
static pg_server_t pg;
static char table [64];
static PGconn *db;

static void
setup (void)
{
    memset (&d, 0, sizeof d);
    memset (&pg, 0, sizeof pg);
    db = NULL;
    test_tmpdir (d.dir);
    pg_table_name (table, sizeof table);
}

static void
teardown (void)
{
    test_dlqd_cleanup (&d);
    if (db) {
        if (!pg.dir [0]) {                  /* the shared server: leave it clean */
            char sql [128];
            snprintf (sql, sizeof sql, "DROP TABLE IF EXISTS \"%s\"", table);
            PQclear (PQexec (db, sql));
        }
        PQfinish (db);
        db = NULL;
    }
    pg_server_stop (&pg);
}

TestSuite (postgres, .init = setup, .fini = teardown, .timeout = 300);

/* ---- PostgreSQL -------------------------------------------------------- */

/* Connect to the shared server, or (own) to a server of the test's own. */
static void
connect_server (bool own)
{
    cr_assert (own ? pg_server_start (&pg) : pg_server_shared (&pg),
               "no PostgreSQL server (contrib/scripts/pg-server.sh failed, see above)");
    db = PQconnectdb (pg.conninfo);
    cr_assert_eq (PQstatus (db), CONNECTION_OK, "cannot connect to %s: %s", pg.conninfo,
                  PQerrorMessage (db));
    PQclear (PQexec (db, "SET TimeZone = 'UTC'"));
}

/* Run sql with text params; the result must be tuples. Caller PQclears. */
static PGresult *
query (const char *sql, int n, const char *const *params)
{
    PGresult *r = PQexecParams (db, sql, n, NULL, params, NULL, NULL, 0);
    cr_assert_eq (PQresultStatus (r), PGRES_TUPLES_OK, "%s\n-> %s", sql, PQerrorMessage (db));
    return r;
}

/* One number from sql (one row, one column). */
static long long
query_count (const char *sql, int n, const char *const *params)
{
    PGresult *r = query (sql, n, params);
    cr_assert_eq (PQntuples (r), 1, "%s", sql);
    long long v = atoll (PQgetvalue (r, 0, 0));
    PQclear (r);
    return v;
}

static void
command (const char *sql, int n, const char *const *params)
{
    PGresult *r = PQexecParams (db, sql, n, NULL, params, NULL, NULL, 0);
    cr_assert_eq (PQresultStatus (r), PGRES_COMMAND_OK, "%s\n-> %s", sql, PQerrorMessage (db));
    PQclear (r);
}

/* sql with every %T replaced by the quoted table name. */
static char *
sql_for (const char *sql)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    const char *at;
    while ((at = strstr (sql, "%T"))) {
        dlq_buf_append (&out, sql, (size_t) (at - sql));
        dlq_buf_printf (&out, "\"%s\"", table);
        sql = at + 2;
    }
    dlq_buf_puts (&out, sql);
    return dlq_buf_steal (&out, NULL);
}

static long long
table_count (const char *sql_with_table, int n, const char *const *params)
{
    char *sql = sql_for (sql_with_table);
    long long v = query_count (sql, n, params);
    free (sql);
    return v;
}

/* ---- dlqd ------------------------------------------------------------------ */

/* dlqd with sink "pg" (the postgres sink on our server and table, plus
 * sink_extra) in the default chain, stream "quiet" outside it, and
 * top_extra at top level. */
static bool
start (const char *sink_extra, const char *top_extra)
{
    char extra [4096];
    snprintf (extra, sizeof extra,
              "sinks: { " SINK ": { type = \"postgres\"; conninfo = \"%s\"; table = \"%s\"; %s }; };\n"
              "defaults: { retention_days = %d; chain = [\"" SINK "\"]; };\n"
              "streams = ( { name = \"quiet\"; chain = []; } );\n%s\n",
              pg.conninfo, table, sink_extra ? sink_extra : "", RETENTION_DAYS,
              top_extra ? top_extra : "");
    return test_dlqd_start (&d, "sweep: { interval_ms = 200; };", extra);
}

/* text with every from replaced by to. Caller frees. */
static char *
replace_all (const char *text, const char *from, const char *to)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    const char *at;
    while ((at = strstr (text, from))) {
        dlq_buf_append (&out, text, (size_t) (at - text));
        dlq_buf_puts (&out, to);
        text = at + strlen (from);
    }
    dlq_buf_puts (&out, text);
    return dlq_buf_steal (&out, NULL);
}

/* The compact JSON of member path (a.b) of root. Caller frees. */
static char *
member_json (const dlq_json_value_t *root, const char *key, const char *sub)
{
    const dlq_json_value_t *v = dlq_json_get (root, key);
    if (sub)
        v = dlq_json_get (v, sub);
    cr_assert_not_null (v, "the example event has no %s%s%s", key, sub ? "." : "", sub ? sub : "");
    if (v->type == DLQ_JSON_STRING)
        return strndup (v->str, v->len);
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_json_write (&out, v);
    return dlq_buf_steal (&out, NULL);
}

/* ---- tests ------------------------------------------------------------- */

Test (postgres, every_column_holds_the_sent_value)
{
    connect_server (false);
    cr_assert (start ("", NULL));
    size_t len = 0;
    char *example = test_read_file (DLQ_SOURCE_DIR "/tests/data/flowwarden_amqp_event.json", &len);
    cr_assert_not_null (example, "tests/data/flowwarden_amqp_event.json is missing");
    char id [DLQ_UUID_LEN + 1];
    dlq_uuid_v7 (dlq_time_now_ms (), id);
    char *body = replace_all (example, EXAMPLE_ID, id);
    sink_put_bodies (d.endpoint, &body, 1);
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", 1, 30), 1, "the event did not reach the sink");

    /* what was sent, member by member */
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (body, strlen (body), &doc, NULL), DLQ_JSON_OK);
    const dlq_json_value_t *root = dlq_json_root (doc);
    char *stream = member_json (root, "streamName", NULL), *op = member_json (root, "operationType", NULL);
    char *error_type = member_json (root, "error", "type"), *error_message = member_json (root, "error", "message");
    char *stack = member_json (root, "error", "stackTrace"), *attempts = member_json (root, "attempts", NULL);
    char *document_key = member_json (root, "documentKey", NULL);
    char *full_document = member_json (root, "fullDocument", NULL);
    char *resume_token = member_json (root, "resumeToken", NULL), *metadata = member_json (root, "metadata", NULL);
    char *first = member_json (root, "firstAttemptAt", NULL), *last = member_json (root, "lastAttemptAt", NULL);
    char *created = member_json (root, "createdAt", NULL);
    int64_t created_ms = 0;
    cr_assert (dlq_time_parse_iso (created, strlen (created), &created_ms));
    char expires [DLQ_TIME_ISO_LEN + 1];
    dlq_time_format_iso (created_ms + RETENTION_DAYS * DAY_MS, expires);

    /* the canonical body, as dlqd's own store gives it */
    char *reply = sink_get (d.endpoint, id, "OK");
    char *canonical = sink_event_of_get (reply);
    cr_expect_not_null (strstr (reply, "{\"sink\":\"" SINK "\",\"state\":\"delivered\",\"attempts\":1}"), "%s", reply);

    char days [16];
    snprintf (days, sizeof days, "%d", RETENTION_DAYS);
    const char *params [] = { id, body, expires, document_key, full_document, resume_token, metadata,
                              first, last, created, days, canonical };
    char *sql = sql_for (
        "SELECT id::text, stream_name, operation_type, error_type, error_message, error_stacktrace,"
        "       status, attempts::text, retry_count::text, retry_after <= now(),"
        "       payload = jsonb_set($2::jsonb, '{expiresAt}', to_jsonb($3::text)),"
        "       payload = $12::jsonb, payload_text,"
        "       document_key = $4::jsonb, full_document = $5::jsonb, resume_token = $6::jsonb,"
        "       metadata = $7::jsonb, first_attempt_at = $8::timestamptz,"
        "       last_attempt_at = $9::timestamptz, created_at = $10::timestamptz,"
        "       expires_at = $3::text::timestamptz, expires_at - created_at = make_interval (days => $11::int),"
        "       updated_at <= now(), (SELECT count(*) FROM %T)"
        "  FROM %T WHERE id = $1::uuid");
    PGresult *r = query (sql, 12, params);
    free (sql);
    cr_assert_eq (PQntuples (r), 1, "no row for %s in %s", id, table);
    const dlq_json_value_t *status = dlq_json_get (root, "status");      /* the event's own, as in the body */
    const char *want_text [] = { id, stream, op, error_type, error_message, stack,
                                 status ? status->str : "PENDING", attempts, "0" };
    const char *text_columns [] = { "id", "stream_name", "operation_type", "error_type", "error_message",
                                    "error_stacktrace", "status", "attempts", "retry_count" };
    for (int c = 0; c < 9; c++)
        cr_expect_str_eq (PQgetvalue (r, 0, c), want_text [c], "column %s", text_columns [c]);
    const char *checks [] = {
        "retry_after is set, not in the future", "payload = the sent JSON (expiresAt set by the stream policy)",
        "payload = the canonical JSON", NULL, "document_key = the sent documentKey",
        "full_document = the sent fullDocument", "resume_token = the sent resumeToken",
        "metadata = the sent metadata", "first_attempt_at = the sent firstAttemptAt",
        "last_attempt_at = the sent lastAttemptAt", "created_at = the sent createdAt",
        "expires_at = createdAt + retention", "expires_at - created_at = retention_days",
        "updated_at is set, not in the future"
    };
    for (int c = 9; c < 23; c++) {
        if (!checks [c - 9])
            continue;
        cr_expect_str_eq (PQgetvalue (r, 0, c), "t", "%s (column %d: %s)", checks [c - 9], c + 1,
                          PQfname (r, c));
    }
    const char *text = PQgetvalue (r, 0, 12);
    cr_expect (strlen (text) == strlen (canonical) && strcmp (text, canonical) == 0,
               "payload_text is not the canonical body:\n got %s\nwant %s", text, canonical);
    cr_expect_str_eq (PQgetvalue (r, 0, 23), "1", "one row in the table");
    PQclear (r);

    free (stream); free (op); free (error_type); free (error_message); free (stack); free (attempts);
    free (document_key); free (full_document); free (resume_token); free (metadata);
    free (first); free (last); free (created);
    dlq_json_doc_destroy (&doc);
    free (canonical);
    free (reply);
    free (body);
    free (example);
}

/* Ids of a LIST page into ids (from *count on); returns nextCursor or NULL. */
static char *
list_page (const char *stream, int limit, const char *cursor, char ids [][DLQ_UUID_LEN + 1],
           int *count, int max, int64_t *last_created)
{
    char body [512];
    if (cursor)
        snprintf (body, sizeof body, "{\"streamName\":\"%s\",\"limit\":%d,\"cursor\":\"%s\"}", stream, limit, cursor);
    else
        snprintf (body, sizeof body, "{\"streamName\":\"%s\",\"limit\":%d}", stream, limit);
    char *reply = sink_request (d.endpoint, "LIST", body, "OK");
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (reply, strlen (reply), &doc, NULL), DLQ_JSON_OK, "%s", reply);
    const dlq_json_value_t *events = dlq_json_get (dlq_json_root (doc), "events");
    cr_assert (events && events->type == DLQ_JSON_ARRAY, "%s", reply);
    cr_expect_leq (events->count, (size_t) limit, "a page of more than limit events");
    for (const dlq_json_value_t *e = events->child; e; e = e->next) {
        const dlq_json_value_t *id = dlq_json_get (e, "id"), *created = dlq_json_get (e, "createdAt");
        cr_assert (id && created && id->len == DLQ_UUID_LEN, "%s", reply);
        int64_t ms = 0;
        cr_assert (dlq_time_parse_iso (created->str, created->len, &ms));
        cr_expect_leq (ms, *last_created, "LIST is not newest first");
        *last_created = ms;
        cr_assert_lt (*count, max, "LIST gives more events than there are");
        memcpy (ids [*count], id->str, DLQ_UUID_LEN + 1);
        (*count)++;
    }
    const dlq_json_value_t *next = dlq_json_get (dlq_json_root (doc), "nextCursor");
    char *cursor_out = next && next->type == DLQ_JSON_STRING ? strndup (next->str, next->len) : NULL;
    dlq_json_doc_destroy (&doc);
    free (reply);
    return cursor_out;
}

static bool
listed (char ids [][DLQ_UUID_LEN + 1], int count, const char *id)
{
    for (int i = 0; i < count; i++)
        if (strcmp (ids [i], id) == 0)
            return true;
    return false;
}

Test (postgres, the_sink_as_primary_answers_get_list_and_stats_from_the_table)
{
    enum { ORDERS = 25, QUIET = 3 };
    connect_server (false);
    cr_assert (start ("", "primary = \"" SINK "\";"));
    char *bodies [ORDERS + QUIET];
    char ids [ORDERS + QUIET][DLQ_UUID_LEN + 1];
    int64_t base = dlq_time_now_ms () - 3600 * 1000;
    for (int i = 0; i < ORDERS + QUIET; i++)
        bodies [i] = sink_small_event (i < ORDERS ? "orders" : "quiet", base + i * 1000, i, ids [i]);
    sink_put_bodies (d.endpoint, bodies, ORDERS + QUIET);
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", ORDERS, 30), ORDERS);
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "backlog", 0, 10), 0);
    cr_assert_eq (table_count ("SELECT count(*) FROM %T", 0, NULL), ORDERS);

    /* GET: the table's payload_text, byte for byte */
    char *reply = sink_get (d.endpoint, ids [3], "OK");
    char *event = sink_event_of_get (reply);
    const char *p1 [] = { ids [3] };
    char *sql = sql_for ("SELECT payload_text FROM %T WHERE id = $1::uuid");
    PGresult *r = query (sql, 1, p1);
    cr_assert_eq (PQntuples (r), 1);
    cr_expect_str_eq (event, PQgetvalue (r, 0, 0), "GET is not the table's payload_text");
    PQclear (r);
    free (sql);
    free (event);
    free (reply);

    /* in the spool but not in the table: NOT_FOUND */
    reply = sink_get (d.endpoint, ids [ORDERS], "ERR");
    cr_expect_not_null (strstr (reply, "NOT_FOUND"), "%s", reply);
    free (reply);
    /* deleted from the table (still in the spool): NOT_FOUND */
    const char *p2 [] = { ids [4] };
    sql = sql_for ("DELETE FROM %T WHERE id = $1::uuid");
    command (sql, 1, p2);
    free (sql);
    reply = sink_get (d.endpoint, ids [4], "ERR");
    cr_expect_not_null (strstr (reply, "NOT_FOUND"), "%s", reply);
    free (reply);
    /* only in the table (never sent to dlqd): found */
    char only [DLQ_UUID_LEN + 1];
    dlq_uuid_v7 (dlq_time_now_ms (), only);
    const char *p3 [] = { ids [5], only };
    sql = sql_for (
        "INSERT INTO %T SELECT (jsonb_populate_record (NULL::%T, to_jsonb (t) || jsonb_build_object ("
        "  'id', $2::text, 'payload_text', replace (t.payload_text, $1::text, $2::text),"
        "  'payload', replace (t.payload_text, $1::text, $2::text)::jsonb))).*"
        "  FROM %T t WHERE t.id = $1::text::uuid");
    command (sql, 2, p3);
    free (sql);
    reply = sink_get (d.endpoint, only, "OK");
    event = sink_event_of_get (reply);
    cr_expect_not_null (strstr (event, only), "%s", reply);
    free (event);
    free (reply);

    /* LIST: pages of 10 of the table's events, newest first, each once */
    char got [ORDERS + 8][DLQ_UUID_LEN + 1];
    int count = 0, pages = 0;
    int64_t last_created = INT64_MAX;
    char *cursor = NULL;
    do {
        char *next = list_page ("orders", 10, cursor, got, &count, ORDERS + 8, &last_created);
        free (cursor);
        cursor = next;
        pages++;
    } while (cursor && pages < 10);
    cr_expect_eq (count, ORDERS, "LIST gave %d events, the table holds %d", count, ORDERS);
    cr_expect_eq (pages, 3);
    for (int i = 0; i < count; i++)
        for (int j = i + 1; j < count; j++)
            cr_expect_str_neq (got [i], got [j], "listed twice");
    cr_expect (listed (got, count, only), "the event only in the table is not listed");
    cr_expect_not (listed (got, count, ids [4]), "an event deleted from the table is listed");
    reply = sink_request (d.endpoint, "LIST", "{\"streamName\":\"quiet\"}", "OK");
    cr_expect_str_eq (reply, "{\"events\":[]}", "quiet is in the spool, not in the table");
    free (reply);

    /* STATS: the table's counts */
    dlq_json_doc_t *doc = sink_stats (d.endpoint);
    int64_t events = -1, orders = -1;
    const dlq_json_value_t *root = dlq_json_root (doc);
    cr_expect (dlq_json_as_int64 (dlq_json_get (root, "events"), &events));
    cr_expect_eq (events, ORDERS, "STATS events");
    const dlq_json_value_t *streams = dlq_json_get (root, "streams");
    cr_expect (dlq_json_as_int64 (dlq_json_get (streams, "orders"), &orders));
    cr_expect_eq (orders, ORDERS);
    cr_expect_null (dlq_json_get (streams, "quiet"), "STATS counts the spool's stream quiet");
    dlq_json_doc_destroy (&doc);

    /* Postgres has no TTL: the gateway's sweep deletes expired rows */
    const char *p4 [] = { ids [6] };
    sql = sql_for ("UPDATE %T SET expires_at = now () - interval '1 minute' WHERE id = $1::uuid");
    command (sql, 1, p4);
    free (sql);
    long long left = -1;
    for (int i = 0; i < 200 && left != 0; i++) {
        left = table_count ("SELECT count(*) FROM %T WHERE id = $1::uuid", 1, p4);
        if (left)
            usleep (50 * 1000);
    }
    cr_expect_eq (left, 0, "the expired row was swept");
    cr_expect_eq (table_count ("SELECT count(*) FROM %T", 0, NULL), ORDERS - 1, "only the expired row went");
    for (int i = 0; i < ORDERS + QUIET; i++)
        free (bodies [i]);
}

Test (postgres, a_server_restart_under_load_loses_and_duplicates_nothing)
{
    enum { N = 3000, PART = N / 3 };
    connect_server (true);                  /* it is stopped: a server of our own */
    cr_assert (start ("retry = { max_attempts = 0; backoff_ms = 20; backoff_max_ms = 500; };"
                      " circuit = { failures = 3; }; timeout_ms = 10000;", NULL));
    char (*ids) [DLQ_UUID_LEN + 1] = calloc (N, sizeof *ids);
    char **bodies = sink_small_events ("orders", dlq_time_now_ms () - 3600 * 1000, N, ids);

    sink_put_bodies (d.endpoint, bodies, PART);
    cr_assert (pg_server_pause (&pg), "cannot stop the server");
    sink_put_bodies (d.endpoint, bodies + PART, PART);
    char *error = sink_wait_error (d.endpoint, SINK, 30);
    cr_expect_neq (error [0], '\0', "the sink never reported the server as down");
    int64_t delivered_while_down = sink_stat (d.endpoint, SINK, "delivered");
    cr_assert_leq (delivered_while_down, PART, "events were delivered while the server was down");
    cr_assert (pg_server_resume (&pg), "cannot start the server again");
    PQreset (db);                           /* ours was cut by the stop too */
    cr_assert_eq (PQstatus (db), CONNECTION_OK, "%s", PQerrorMessage (db));
    PQclear (PQexec (db, "SET TimeZone = 'UTC'"));
    sink_put_bodies (d.endpoint, bodies + 2 * PART, N - 2 * PART);

    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", N, 120), N, "not every event was delivered");
    cr_expect_eq (sink_wait_stat (d.endpoint, SINK, "backlog", 0, 10), 0);
    cr_expect_eq (sink_wait_stat (d.endpoint, SINK, "retrying", 0, 10), 0);
    cr_expect_eq (sink_stat (d.endpoint, SINK, "failed"), 0, "an event failed");
    cr_expect_eq (table_count ("SELECT count(*) FROM %T", 0, NULL), N, "rows in the table");
    cr_expect_eq (table_count ("SELECT count(DISTINCT id) FROM %T", 0, NULL), N, "distinct ids");
    dlq_buf_t array = DLQ_BUF_INIT;
    dlq_buf_putc (&array, '{');
    for (int i = 0; i < N; i++)
        dlq_buf_printf (&array, "%s%s", i ? "," : "", ids [i]);
    dlq_buf_putc (&array, '}');
    const char *params [] = { array.data };
    cr_expect_eq (table_count ("SELECT count(*) FROM %T WHERE id = ANY ($1::uuid[])", 1, params), N,
                  "every event sent is in the table");
    cr_log_info ("with the server down, %lld of the %d events sent before the stop had been"
                 " delivered; the sink said: %s; rows already there when sent again: %lld",
                 (long long) delivered_while_down, PART, error, (long long) sink_counter (d.endpoint, SINK, "conflicts"));
    dlq_buf_free (&array);
    free (error);
    sink_free_events (bodies, N);
    free (ids);
}

/* jsonb holds no NUL character: an event with \u0000 in a string is
 * stored all the same, its payload_text (what GET answers) the body byte
 * for byte, its jsonb columns with U+FFFD in the NUL's place. */
Test (postgres, a_nul_character_is_stored_with_the_replacement_character_in_jsonb)
{
    connect_server (false);
    cr_assert (start ("", "primary = \"" SINK "\";"));
    char id [DLQ_UUID_LEN + 1], body [512];
    dlq_uuid_v7 (dlq_time_now_ms (), id);
    snprintf (body, sizeof body, "{\"id\":\"%s\",\"streamName\":\"orders\",\"error\":{\"type\":\"T\"},"
              "\"fullDocument\":{\"k\":\"a\\u0000b\"},\"metadata\":{\"note\":\"x\\u0000y\"}}", id);
    char *put = sink_request (d.endpoint, "PUT", body, "OK");
    free (put);
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", 1, 30), 1, "delivered, not failed");
    char *reply = sink_get (d.endpoint, id, "OK");
    cr_expect_not_null (strstr (reply, "\"metadata\":{\"note\":\"x\\u0000y\"}"), "GET keeps the NUL: %s", reply);
    free (reply);
    const char *params [] = { id };
    cr_expect_eq (table_count ("SELECT count(*) FROM %T WHERE id = $1::uuid AND metadata->>'note' = 'x' || chr(65533) || 'y'"
                               " AND full_document->>'k' = 'a' || chr(65533) || 'b'"
                               " AND payload->'metadata' = metadata AND position('\\u0000' in payload_text) > 0",
                               1, params), 1, "jsonb has U+FFFD, payload_text the escape");
    reply = sink_request (d.endpoint, "LIST", "{\"streamName\":\"orders\"}", "OK");
    cr_expect_not_null (strstr (reply, id), "LIST shows it: %s", reply);
    free (reply);
}

Test (postgres, a_data_error_fails_that_event_only)
{
    enum { N = 21, BAD = 10 };
    connect_server (false);
    /* one batch: the events arrive within the linger */
    cr_assert (start ("batch = { max_events = 64; linger_ms = 1000; };"
                      " retry = { max_attempts = 5; backoff_ms = 20; backoff_max_ms = 100; };"
                      " circuit = { failures = 1000; };", NULL));
    char *bodies [N];
    char ids [N][DLQ_UUID_LEN + 1];
    int64_t base = dlq_time_now_ms () - 3600 * 1000;
    for (int i = 0; i < N; i++)
        bodies [i] = sink_small_event ("orders", base + i, i, ids [i]);
    /* a number past jsonb's numeric range: SQLSTATE 22003 for this event alone */
    free (bodies [BAD]);
    char iso [DLQ_TIME_ISO_LEN + 1];
    dlq_time_format_iso (base + BAD, iso);
    cr_assert (asprintf (&bodies [BAD], "{\"id\":\"%s\",\"streamName\":\"orders\",\"createdAt\":\"%s\","
                         "\"error\":{\"type\":\"T\"},\"metadata\":{\"huge\":1e200000}}",
                         ids [BAD], iso) > 0);
    sink_put_bodies (d.endpoint, bodies, N);

    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "failed", 1, 30), 1, "the bad event did not fail");
    cr_expect_eq (sink_wait_stat (d.endpoint, SINK, "delivered", N - 1, 30), N - 1, "the good events were not all delivered");
    cr_expect_eq (sink_wait_stat (d.endpoint, SINK, "backlog", 0, 10), 0);
    cr_expect_eq (sink_stat (d.endpoint, SINK, "retrying"), 0);
    char *reply = sink_get (d.endpoint, ids [BAD], "OK");
    cr_expect_not_null (strstr (reply, "{\"sink\":\"" SINK "\",\"state\":\"failed\",\"attempts\":1,"
                                       "\"lastError\":\""), "failed at the first attempt: %s", reply);
    cr_expect_not_null (strstr (reply, "numeric"), "the server's message: %s", reply);
    free (reply);
    reply = sink_get (d.endpoint, ids [BAD + 1], "OK");
    cr_expect_not_null (strstr (reply, "{\"sink\":\"" SINK "\",\"state\":\"delivered\",\"attempts\":1}"),
                        "a good event of the same batch: %s", reply);
    free (reply);
    cr_expect_eq (table_count ("SELECT count(*) FROM %T", 0, NULL), N - 1);
    const char *params [] = { ids [BAD] };
    cr_expect_eq (table_count ("SELECT count(*) FROM %T WHERE id = $1::uuid", 1, params), 0);
    for (int i = 0; i < N; i++)
        free (bodies [i]);
}

#endif
