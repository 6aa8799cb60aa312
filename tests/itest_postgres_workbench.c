/*  itest_postgres_workbench — the postgres sink's workbench calls
 *  (dlq_sink_workbench_ops_t) against a real PostgreSQL server, the plugin
 *  loaded in the test process as the gateway loads it:
 *
 *    - filtered LIST (paged to the end), COUNT and GROUPS over a table of
 *      varied events (streams, statuses, error types and messages,
 *      attempts, metadata of each JSON type, creation times, some expired)
 *      agree with the reference predicate (event_filter.h), as
 *      test_embedded_query checks the embedded store;
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
#include "dlq_json.h"
#include "dlq_time.h"
#include "event_filter.h"
#include "event_support.h"
#include "failed_event.h"
#include "fingerprint.h"
#include "pg_format.h"
#include "pg_sql.h"
#include "pg_support.h"
#include "sink_host.h"

#include <criterion/criterion.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N           600             /* the varied events */
#define NOW         1781015533500LL
#define HOUR_MS     3600000LL
#define DAY_MS      (24 * HOUR_MS)
#define LEASE_MS    600000LL
#define CONCURRENT  2000            /* events two connections claim */

static pg_server_t pg;
static char table [64];
static PGconn *db;
static pg_plugin_t plugin;
static void *writer, *reader;
static dlq_event_t *events [N];
static size_t stored;               /* events [0, stored) are in the table */

static void
setup (void)
{
    memset (&pg, 0, sizeof pg);
    db = NULL;
    writer = reader = NULL;
    stored = 0;
    pg_table_name (table, sizeof table);
    cr_assert (pg_server_shared (&pg), "no PostgreSQL server (contrib/scripts/pg-server.sh failed, see above)");
    db = PQconnectdb (pg.conninfo);
    cr_assert_eq (PQstatus (db), CONNECTION_OK, "cannot connect to %s: %s", pg.conninfo, PQerrorMessage (db));
    PQclear (PQexec (db, "SET client_min_messages = warning"));
}

/* Load the plugin and open a DELIVER and a QUERY instance. */
static void
open_plugin (void)
{
    char err [512];
    cr_assert (pg_plugin_load (&plugin, pg.conninfo, table, NULL, err, sizeof err), "%s", err);
    cr_assert (DLQ_SINK_OPS_HAS (plugin.ops, workbench) && plugin.ops->workbench, "no workbench calls");
    cr_assert_eq (plugin.ops->workbench->struct_size, sizeof (dlq_sink_workbench_ops_t));
    writer = pg_plugin_open (&plugin, DLQ_SINK_MODE_DELIVER, err, sizeof err);
    cr_assert_not_null (writer, "init (DELIVER): %s", err);
    reader = pg_plugin_open (&plugin, DLQ_SINK_MODE_QUERY, err, sizeof err);
    cr_assert_not_null (reader, "init (QUERY): %s", err);
}

static void
teardown (void)
{
    if (reader)
        plugin.ops->destroy (reader);
    if (writer)
        plugin.ops->destroy (writer);
    if (plugin.config)
        pg_plugin_unload (&plugin);
    if (db) {
        char sql [256];
        snprintf (sql, sizeof sql, "DROP TABLE IF EXISTS \"%s\", \"%s_scheduler_lock\", \"%s_checkpoints\"", table, table, table);
        PQclear (PQexec (db, sql));
        snprintf (sql, sizeof sql, "DELETE FROM dlq_schema_version WHERE table_name = '%s'", table);
        PQclear (PQexec (db, sql));
        PQfinish (db);
    }
    for (int i = 0; i < N; i++)
        dlq_event_destroy (&events [i]);
    pg_server_stop (&pg);
}

TestSuite (postgres_workbench, .init = setup, .fini = teardown, .timeout = 300);

/* ---- the table ----------------------------------------------------------------- */

/* sql with every %T replaced by the quoted table name, every %L by the
 * quoted lock table name. Caller frees. */
static char *
sql_for (const char *sql)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    const char *at;
    while ((at = strchr (sql, '%')) && (at [1] == 'T' || at [1] == 'L')) {
        dlq_buf_append (&out, sql, (size_t) (at - sql));
        dlq_buf_printf (&out, "\"%s%s\"", table, at [1] == 'L' ? "_scheduler_lock" : "");
        sql = at + 2;
    }
    dlq_buf_puts (&out, sql);
    return dlq_buf_steal (&out, NULL);
}

/* Run sql (with %T, %L: sql_for). */
static void
command (const char *sql_with_table)
{
    char *sql = sql_for (sql_with_table);
    PGresult *r = PQexec (db, sql);
    cr_assert (PQresultStatus (r) == PGRES_COMMAND_OK || PQresultStatus (r) == PGRES_TUPLES_OK,
               "%s\n-> %s", sql, PQerrorMessage (db));
    PQclear (r);
    free (sql);
}

/* The one value sql (with %T) gives for parameter param (may be NULL).
 * Caller frees. */
static char *
value_of (const char *sql_with_table, const char *param)
{
    char *sql = sql_for (sql_with_table);
    const char *const params [] = { param };
    PGresult *r = PQexecParams (db, sql, param ? 1 : 0, NULL, params, NULL, NULL, 0);
    cr_assert_eq (PQresultStatus (r), PGRES_TUPLES_OK, "%s\n-> %s", sql, PQerrorMessage (db));
    cr_assert_eq (PQntuples (r), 1, "%s: %d rows", sql, PQntuples (r));
    char *v = PQgetisnull (r, 0, 0) ? NULL : strdup (PQgetvalue (r, 0, 0));
    PQclear (r);
    free (sql);
    return v;
}

/* Deliver count events through the writer; every one must be OK. */
static void
deliver (dlq_event_t **batch, size_t count)
{
    dlq_sink_event_t *view = calloc (count, sizeof *view);
    dlq_sink_outcome_t *outcomes = calloc (count, sizeof *outcomes);
    for (size_t i = 0; i < count; i++)
        view [i] = event_for_sink (batch [i], NULL, 0, 30);
    plugin.ops->deliver (writer, view, count, outcomes, plugin.host->mono_ms () + 60000);
    for (size_t i = 0; i < count; i++)
        cr_assert_eq (outcomes [i].result, DLQ_SINK_OK, "event %zu: %s", i, outcomes [i].message);
    free (outcomes);
    free (view);
}

/* A canonical event from body (a FailedEvent), fingerprinted, expiring at
 * expires_at (DLQ_TIME_NONE: never). */
static dlq_event_t *
event_of (const char *body, int64_t expires_at)
{
    dlq_error_t err = { 0 };
    dlq_event_t *e = dlq_event_decode (body, strlen (body), NOW, &err);
    cr_assert_not_null (e, "%s: %s", body, err.message);
    dlq_event_fingerprint (e);
    e->expires_at = expires_at;
    dlq_event_encode (e);
    return e;
}

/* ---- the varied events ----------------------------------------------------------- */

static const char *const streams [] = { "orders", "payments", "audit.v2" };
static const char *const statuses [] = { "PENDING", "DLQ", "SUCCEEDED" };
static const char *const types [] = { "java.lang.IllegalStateException", "java.net.SocketTimeoutException",
                                      "com.acme.ValidationError" };
static const char *const messages [] = { "Order %d not found", "Read timed out after %d ms",
                                         "field 'sku-%d' is required", "Downstream CALL failed (%d)",
                                         "\xc3\x89" "chec 50%% de l'appel %d" };

/* Metadata of event i: none, tenant / shard (a number, sometimes written
 * 2.0) / vip, or a shard that is a string. */
static void
metadata_of (int i, char *out, size_t len)
{
    if (i % 5 == 0)
        snprintf (out, len, ",\"metadata\":{\"tenantId\":\"%s\",\"shard\":%d%s,\"vip\":%s}",
                  i % 2 ? "acme" : "globex", i % 4, i % 15 == 0 ? ".0" : "", i % 3 ? "true" : "false");
    else if (i % 7 == 1)
        snprintf (out, len, ",\"metadata\":{\"tenantId\":\"acme\",\"shard\":\"%d\"}", i % 4);
    else
        out [0] = '\0';
}

/* Event i: its fields cycle through the tables with different periods. */
static dlq_event_t *
make (int i)
{
    char body [1024], message [128], created [DLQ_TIME_ISO_LEN + 1], metadata [160];
    snprintf (message, sizeof message, messages [i % 5], 1000 + i);
    dlq_time_format_iso (NOW - (int64_t) (i % 97) * HOUR_MS - i, created);
    metadata_of (i, metadata, sizeof metadata);
    snprintf (body, sizeof body, "{\"streamName\":\"%s\",\"status\":\"%s\",\"createdAt\":\"%s\","
              "\"error\":{\"type\":\"%s\",\"message\":\"%s\","
              "\"stackTrace\":\"%s: x\\n\\tat com.acme.F%d.run(F.java:%d)\"},"
              "\"attempts\":%d%s}",
              streams [i % 3], statuses [i % 7 % 3], created, types [i % 11 % 3], message, types [i % 11 % 3],
              i % 2, i, i % 6, metadata);
    /* one in ten expired, one in ten kept forever, the rest 30 days */
    int64_t created_at = NOW - (int64_t) (i % 97) * HOUR_MS - i;
    return event_of (body, i % 10 == 3 ? NOW - 1 : i % 10 == 4 ? DLQ_TIME_NONE : created_at + 30 * DAY_MS);
}

/* Store the N varied events. */
static void
store_varied (void)
{
    open_plugin ();
    for (int i = 0; i < N; i++)
        events [i] = make (i);
    deliver (events, N);
    stored = N;
}

/* ---- filtered queries -------------------------------------------------------------- */

static void
parse_filter (const char *request, dlq_event_filter_t *f)
{
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (request, strlen (request), &doc, NULL), DLQ_JSON_OK, "%s", request);
    dlq_error_t err = { 0 };
    cr_assert_eq (dlq_event_filter_parse (dlq_json_root (doc), f, &err), DLQ_OK, "%s: %s", request, err.message);
    dlq_json_doc_destroy (&doc);
}

static bool
unexpired (const dlq_event_t *e)
{
    return e->expires_at == DLQ_TIME_NONE || e->expires_at > NOW;
}

/* Does x come after y in LIST order (created_at desc, then id desc)? */
static bool
listed_after (const dlq_event_t *x, const dlq_event_t *y)
{
    return x->created_at < y->created_at || (x->created_at == y->created_at && strcmp (x->id, y->id) < 0);
}

/* The events the reference predicate takes (unexpired), in LIST order:
 * indexes into events. */
static size_t
expected (const dlq_event_filter_t *f, int *out)
{
    size_t n = 0;
    for (size_t i = 0; i < stored; i++)
        if (unexpired (events [i])
            && dlq_event_filter_matches (f, events [i]->json, events [i]->json_len, events [i]->fingerprint))
            out [n++] = (int) i;
    for (size_t a = 1; a < n; a++)
        for (size_t b = a; b > 0 && listed_after (events [out [b - 1]], events [out [b]]); b--) {
            int t = out [b - 1];
            out [b - 1] = out [b];
            out [b] = t;
        }
    return n;
}

/* Page through query_list (pages of page_size) and compare with the
 * reference, event by event, body by body; then COUNT. */
static void
expect_list (const char *request, size_t page_size)
{
    dlq_event_filter_t f = DLQ_EVENT_FILTER_INIT;
    parse_filter (request, &f);
    int want [N];
    size_t n = expected (&f, want), got = 0;
    dlq_buf_t page = DLQ_BUF_INIT, next = DLQ_BUF_INIT;
    char *cursor = NULL;
    for (size_t pages = 0; pages <= N; pages++) {
        dlq_buf_reset (&page);
        dlq_buf_reset (&next);
        cr_assert_eq (plugin.ops->workbench->query_list (reader, request, page_size, cursor, NOW, dlq_sink_buf (&page),
                                                         dlq_sink_buf (&next)),
                      DLQ_SINK_STATUS_OK, "%s: %s", request, plugin.ops->store->last_error (reader));
        dlq_json_doc_t *doc = NULL;
        cr_assert_eq (dlq_json_parse (page.data, page.len, &doc, NULL), DLQ_JSON_OK, "%s", page.data);
        for (const dlq_json_value_t *e = dlq_json_root (doc)->child; e; e = e->next) {
            cr_assert_lt (got, n, "%s: more events than the %zu expected", request, n);
            const dlq_event_t *w = events [want [got]];
            dlq_buf_t body = DLQ_BUF_INIT;
            dlq_json_write (&body, e);
            cr_expect_str_eq (body.data, w->json, "%s: event %zu", request, got);
            dlq_buf_free (&body);
            got++;
        }
        cr_expect_leq (dlq_json_root (doc)->count, page_size);
        dlq_json_doc_destroy (&doc);
        free (cursor);
        cursor = next.len ? strdup (next.data) : NULL;
        if (!cursor)
            break;
    }
    cr_expect_eq (got, n, "%s: %zu listed, %zu expected", request, got, n);
    int64_t count = -1;
    cr_assert_eq (plugin.ops->workbench->query_count (reader, request, NOW, &count), DLQ_SINK_STATUS_OK);
    cr_expect_eq (count, (int64_t) n, "%s: COUNT", request);
    dlq_buf_free (&page);
    dlq_buf_free (&next);
    dlq_event_filter_free (&f);
}

static const char *const filters [] = {
    "{}",
    "{\"streamName\":\"orders\"}",
    "{\"streamName\":\"audit.v2\",\"status\":\"DLQ\"}",
    "{\"status\":\"SUCCEEDED\"}",
    "{\"errorType\":\"java.net.SocketTimeoutException\"}",
    "{\"messageContains\":\"TIMED OUT\"}",
    "{\"messageContains\":\"sku-1_\"}",
    "{\"messageContains\":\"%\"}",
    "{\"messageContains\":\"50% DE\"}",
    "{\"messageContains\":\"\xc3\x89" "CHEC\"}",
    "{\"messageContains\":\"\xc3\xa9" "chec\"}",
    "{\"messageContains\":\"l'appel 100\"}",
    "{\"createdAfter\":\"2026-06-08T00:00:00Z\",\"createdBefore\":\"2026-06-09T00:00:00Z\"}",
    "{\"createdAfter\":\"2026-06-09T13:32:13.499Z\"}",
    "{\"attemptsMin\":2,\"attemptsMax\":3}",
    "{\"attemptsMax\":0}",
    "{\"metadata\":{\"tenantId\":\"acme\"}}",
    "{\"metadata\":{\"shard\":2,\"vip\":true}}",
    "{\"metadata\":{\"shard\":0}}",
    "{\"metadata\":{\"shard\":\"2\"}}",
    "{\"metadata\":{\"shard\":1e0}}",
    "{\"metadata\":{\"vip\":false},\"streamName\":\"orders\"}",
    "{\"metadata\":{\"vip\":false},\"streamName\":\"payments\"}",
    "{\"metadata\":{\"missing\":true}}",
    "{\"streamName\":\"orders\",\"status\":\"PENDING\",\"errorType\":\"com.acme.ValidationError\",\"attemptsMin\":1}",
    "{\"streamName\":\"nowhere\"}",
};

Test (postgres_workbench, filters_agree_with_the_reference_predicate)
{
    store_varied ();
    for (size_t i = 0; i < sizeof filters / sizeof filters [0]; i++) {
        expect_list (filters [i], 7);
        expect_list (filters [i], 1000);
    }
}

Test (postgres_workbench, a_fingerprint_filter_per_group)
{
    store_varied ();
    for (size_t i = 0; i < stored; i += 37) {
        char request [64];
        snprintf (request, sizeof request, "{\"fingerprint\":\"%s\"}", events [i]->fingerprint);
        expect_list (request, 5);
    }
}

Test (postgres_workbench, a_cursor_it_did_not_issue_is_bad)
{
    store_varied ();
    dlq_buf_t page = DLQ_BUF_INIT, next = DLQ_BUF_INIT;
    static const char *const bad [] = { "nonsense", "1717940000000.42", "1.0190F1D2-6C4E-7A01-8B2C-3D4E5F607182" };
    for (size_t i = 0; i < sizeof bad / sizeof bad [0]; i++)
        cr_expect_eq (plugin.ops->workbench->query_list (reader, "{}", 10, bad [i], NOW, dlq_sink_buf (&page),
                                                         dlq_sink_buf (&next)),
                      DLQ_SINK_STATUS_BAD_CURSOR, "%s", bad [i]);
    cr_expect_eq (page.len + next.len, 0, "nothing written");
    dlq_buf_free (&page);
    dlq_buf_free (&next);
}

/* The reference's facts about the group of fingerprint fp among the
 * events filter f matches: count, first and last createdAt, streams. */
typedef struct {
    int64_t count, first, last;
    bool    stream [3];
} group_facts_t;

static group_facts_t
facts_of (const dlq_event_filter_t *f, const char *fp)
{
    group_facts_t g = { .first = INT64_MAX, .last = INT64_MIN };
    int want [N];
    size_t n = expected (f, want);
    for (size_t k = 0; k < n; k++) {
        const dlq_event_t *e = events [want [k]];
        if (strcmp (e->fingerprint, fp) != 0)
            continue;
        g.count++;
        g.first = e->created_at < g.first ? e->created_at : g.first;
        g.last = e->created_at > g.last ? e->created_at : g.last;
        for (int s = 0; s < 3; s++)
            g.stream [s] = g.stream [s] || strcmp (e->stream_name, streams [s]) == 0;
    }
    return g;
}

/* The stored event of id, or NULL. */
static const dlq_event_t *
event_by_id (const char *id, size_t len)
{
    for (size_t i = 0; i < stored; i++)
        if (strlen (events [i]->id) == len && memcmp (events [i]->id, id, len) == 0)
            return events [i];
    return NULL;
}

/* One group of a GROUPS answer against the reference facts. */
static void
expect_group (const char *request, const dlq_event_filter_t *f, const dlq_json_value_t *g)
{
    const dlq_json_value_t *fp = dlq_json_get (g, "fingerprint"), *sample = dlq_json_get (g, "sampleId");
    cr_assert (fp && fp->type == DLQ_JSON_STRING && fp->len == 16, "%s: a group without a fingerprint", request);
    group_facts_t want = facts_of (f, fp->str);
    int64_t count = 0;
    cr_assert (dlq_json_as_int64 (dlq_json_get (g, "count"), &count));
    cr_expect_eq (count, want.count, "%s: group %s", request, fp->str);
    char first [DLQ_TIME_ISO_LEN + 1], last [DLQ_TIME_ISO_LEN + 1];
    dlq_time_format_iso (want.first, first);
    dlq_time_format_iso (want.last, last);
    cr_expect_str_eq (dlq_json_get (g, "firstSeen")->str, first, "%s: group %s", request, fp->str);
    cr_expect_str_eq (dlq_json_get (g, "lastSeen")->str, last, "%s: group %s", request, fp->str);
    const dlq_json_value_t *in = dlq_json_get (g, "streams");
    size_t want_streams = (size_t) want.stream [0] + want.stream [1] + want.stream [2];
    cr_expect (in && in->type == DLQ_JSON_ARRAY && in->count == want_streams, "%s: streams of %s", request, fp->str);
    cr_assert (sample && sample->type == DLQ_JSON_STRING, "%s: no sampleId", request);
    const dlq_event_t *e = event_by_id (sample->str, sample->len);
    cr_assert_not_null (e, "%s: sampleId %s is no event", request, sample->str);
    cr_expect_str_eq (e->fingerprint, fp->str, "%s: the sample is of another group", request);
    cr_expect (dlq_event_filter_matches (f, e->json, e->json_len, e->fingerprint), "%s: the sample does not match",
               request);
    cr_expect_str_eq (dlq_json_get (g, "errorType")->str, e->error_type);
    dlq_buf_t normalised = DLQ_BUF_INIT;
    dlq_fingerprint_normalise_message (e->error_message, strlen (e->error_message), &normalised);
    cr_expect_str_eq (dlq_json_get (g, "message")->str, normalised.data, "%s: the message is normalised", request);
    dlq_buf_free (&normalised);
}

/* GROUPS of request: one group per fingerprint of the matching events,
 * most events first (then the latest), each with the reference's facts. */
static void
expect_groups (const char *request)
{
    dlq_event_filter_t f = DLQ_EVENT_FILTER_INIT;
    parse_filter (request, &f);
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (plugin.ops->workbench->query_groups (reader, request, 1000, NOW, dlq_sink_buf (&out)),
                  DLQ_SINK_STATUS_OK, "%s: %s", request, plugin.ops->store->last_error (reader));
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (out.data, out.len, &doc, NULL), DLQ_JSON_OK, "%s", out.data);
    int64_t total = 0, previous = INT64_MAX, previous_last = INT64_MAX;
    for (const dlq_json_value_t *g = dlq_json_root (doc)->child; g; g = g->next) {
        expect_group (request, &f, g);
        int64_t count = 0, last = 0;
        dlq_json_as_int64 (dlq_json_get (g, "count"), &count);
        const dlq_json_value_t *seen = dlq_json_get (g, "lastSeen");
        cr_assert (dlq_time_parse_iso (seen->str, seen->len, &last));
        cr_expect (count < previous || (count == previous && last <= previous_last),
                   "%s: not most events first, then the latest", request);
        previous = count;
        previous_last = last;
        total += count;
    }
    int want [N];
    cr_expect_eq (total, (int64_t) expected (&f, want), "%s: the groups cover every matching event", request);
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&out);
    dlq_event_filter_free (&f);
}

Test (postgres_workbench, groups_agree_with_the_reference_predicate)
{
    store_varied ();
    for (size_t i = 0; i < sizeof filters / sizeof filters [0]; i++)
        expect_groups (filters [i]);
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (plugin.ops->workbench->query_groups (reader, "{}", 2, NOW, dlq_sink_buf (&out)), DLQ_SINK_STATUS_OK);
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (out.data, out.len, &doc, NULL), DLQ_JSON_OK);
    cr_expect_eq (dlq_json_root (doc)->count, 2, "limit 2: two groups");
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&out);
}

/* ---- replay state and marks ------------------------------------------------------------- */

/* An event of stream created `ago` ms before NOW with status, expiring at expires_at. */
static dlq_event_t *
simple (const char *stream, int64_t ago, const char *status, int64_t expires_at)
{
    char body [768], created [DLQ_TIME_ISO_LEN + 1];
    dlq_time_format_iso (NOW - ago, created);
    snprintf (body, sizeof body, "{\"streamName\":\"%s\",\"status\":\"%s\",\"createdAt\":\"%s\","
              "\"fullDocument\":{\"status\":\"PAID\"},\"error\":{\"type\":\"X\",\"message\":\"boom\"},"
              "\"attempts\":1,\"metadata\":{\"status\":\"meta\"}}", stream, status, created);
    return event_of (body, expires_at);
}

/* Store events [0, count) made by simple. */
static void
store_simple (const char *const *stream, const int64_t *ago, const char *const *status, const int64_t *expires,
              size_t count)
{
    open_plugin ();
    for (size_t i = 0; i < count; i++)
        events [i] = simple (stream [i], ago [i], status [i], expires [i]);
    deliver (events, count);
    stored = count;
}

static dlq_sink_event_state_t
state_of (const char *id)
{
    dlq_sink_event_state_t st;
    memset (&st, 0x5a, sizeof st);
    cr_assert_eq (plugin.ops->workbench->state (reader, id, NOW, &st), DLQ_SINK_STATUS_OK, "state of %s: %s", id,
                  plugin.ops->store->last_error (reader));
    return st;
}

static dlq_sink_event_state_t
mark (const char *id, dlq_sink_mark_t how, int64_t retry_after)
{
    dlq_sink_event_state_t st;
    memset (&st, 0x5a, sizeof st);
    cr_assert_eq (plugin.ops->workbench->mark (reader, id, how, NOW, retry_after, &st), DLQ_SINK_STATUS_OK,
                  "mark %d of %s: %s", (int) how, id, plugin.ops->store->last_error (reader));
    return st;
}

/* The event's canonical body with its status replaced by status. Caller frees. */
static char *
body_with_status (const dlq_event_t *e, const char *status)
{
    const char *at = strstr (e->json, ",\"attempts\":1,\"status\":\"");
    cr_assert_not_null (at, "%s", e->json);
    at += strlen (",\"attempts\":1,\"status\":\"");
    const char *end = strchr (at, '"');
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_buf_append (&out, e->json, (size_t) (at - e->json));
    dlq_buf_puts (&out, status);
    dlq_buf_puts (&out, end);
    return dlq_buf_steal (&out, NULL);
}

/* payload_text, GET, the payload's status and the column all say status. */
static void
expect_status_everywhere (const dlq_event_t *e, const char *status)
{
    char *want = body_with_status (e, status);
    char *text = value_of ("SELECT payload_text FROM %T WHERE id = $1::uuid", e->id);
    cr_expect_str_eq (text, want, "payload_text");
    dlq_buf_t got = DLQ_BUF_INIT;
    cr_assert_eq (plugin.ops->store->get (reader, e->id, NOW, dlq_sink_buf (&got)), DLQ_SINK_STATUS_OK);
    cr_expect_str_eq (got.data, want, "GET");
    char *column = value_of ("SELECT status || ' ' || (payload->>'status') || ' ' "
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
    const char *const stream [] = { "s", "s" };
    const int64_t ago [] = { 5000, 4000 }, expires [] = { DLQ_TIME_NONE, NOW - 1 };
    const char *const status [] = { "DLQ", "PENDING" };
    store_simple (stream, ago, status, expires, 2);
    const dlq_event_t *e = events [0];

    dlq_sink_event_state_t st = state_of (e->id);
    cr_expect_str_eq (st.status, "DLQ", "the status is the event's own at first");
    cr_expect_eq (st.retry_count, 0);
    cr_expect_eq (st.replay_count, 0);
    cr_expect_eq (st.retry_after, e->created_at, "retry_after is createdAt until set");

    st = mark (e->id, DLQ_SINK_MARK_FAILED, NOW + 60000);
    cr_expect_str_eq (st.status, "PENDING");
    cr_expect_eq (st.retry_count, 1);
    cr_expect_eq (st.replay_count, 0);
    cr_expect_eq (st.retry_after, NOW + 60000);
    expect_status_everywhere (e, "PENDING");

    st = mark (e->id, DLQ_SINK_MARK_FAILED, NOW + 120000);
    cr_expect_eq (st.retry_count, 2, "counters add up on the server");
    cr_expect_eq (st.retry_after, NOW + 120000);

    st = mark (e->id, DLQ_SINK_MARK_REPLAYED, NOW + LEASE_MS);
    cr_expect_str_eq (st.status, "PENDING", "a replay leaves the status");
    cr_expect_eq (st.retry_count, 2);
    cr_expect_eq (st.replay_count, 1);
    cr_expect_eq (st.retry_after, NOW + LEASE_MS);
    expect_status_everywhere (e, "PENDING");

    st = mark (e->id, DLQ_SINK_MARK_QUARANTINED, 0);
    cr_expect_str_eq (st.status, "QUARANTINED");
    cr_expect_eq (st.replay_count, 1);
    cr_expect_eq (st.retry_after, NOW + LEASE_MS, "retry_after is kept");
    expect_status_everywhere (e, "QUARANTINED");

    st = mark (e->id, DLQ_SINK_MARK_RESOLVED, 0);
    cr_expect_str_eq (st.status, "SUCCEEDED");
    cr_expect_eq (st.retry_count, 2);
    cr_expect_eq (st.replay_count, 1);
    expect_status_everywhere (e, "SUCCEEDED");
    dlq_sink_event_state_t again = state_of (e->id);
    cr_expect_eq (memcmp (&again, &st, sizeof st), 0, "state gives what mark returned");
    char *updated = value_of ("SELECT updated_at > created_at FROM %T WHERE id = $1::uuid", e->id);
    cr_expect_str_eq (updated, "t", "updated_at is set");
    free (updated);
}

Test (postgres_workbench, a_missing_or_expired_event_is_not_found)
{
    const char *const stream [] = { "s", "s" };
    const int64_t ago [] = { 5000, 4000 }, expires [] = { DLQ_TIME_NONE, NOW - 1 };
    const char *const status [] = { "DLQ", "PENDING" };
    store_simple (stream, ago, status, expires, 2);
    const dlq_sink_workbench_ops_t *wb = plugin.ops->workbench;
    static const char *const ids [] = { "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182", "not a uuid" };
    dlq_sink_event_state_t st;
    for (size_t i = 0; i < 2; i++) {
        cr_expect_eq (wb->state (reader, ids [i], NOW, &st), DLQ_SINK_STATUS_NOT_FOUND, "%s", ids [i]);
        cr_expect_eq (wb->mark (reader, ids [i], DLQ_SINK_MARK_RESOLVED, NOW, 0, &st), DLQ_SINK_STATUS_NOT_FOUND);
    }
    cr_expect_eq (wb->state (reader, events [1]->id, NOW, &st), DLQ_SINK_STATUS_NOT_FOUND, "expired");
    for (int how = DLQ_SINK_MARK_RESOLVED; how <= DLQ_SINK_MARK_QUARANTINED; how++)
        cr_expect_eq (wb->mark (reader, events [1]->id, (dlq_sink_mark_t) how, NOW, NOW, &st),
                      DLQ_SINK_STATUS_NOT_FOUND, "mark %d of an expired event", how);
    cr_expect_eq (wb->state (reader, events [1]->id, NOW - 2, &st), DLQ_SINK_STATUS_OK, "not expired before");
    cr_expect_str_eq (st.status, "PENDING", "an expired event's marks changed nothing");
    cr_expect_eq (st.retry_count, 0);
    st = mark (events [0]->id, DLQ_SINK_MARK_RESOLVED, 0);
    cr_expect_str_eq (st.status, "SUCCEEDED", "the connection is fine after NOT_FOUND");
}

/* ---- claim -------------------------------------------------------------------------------- */

/* A claim of batch events of stream for owner at now; the status. */
static dlq_sink_status_t
claim (void *instance, const char *stream, const char *owner, int64_t pass_ms, int32_t max_retries, size_t batch,
       int64_t now, dlq_buf_t *out)
{
    dlq_buf_reset (out);
    return plugin.ops->workbench->claim (instance, stream, owner, pass_ms, max_retries, batch, now, now + LEASE_MS,
                                         dlq_sink_buf (out));
}

/* The claimed ids ("<id>:<replayCount>,...") of a claim's answer; each
 * event must be a stored one's body as it is stored. Caller frees. */
static char *
claimed (const dlq_buf_t *out)
{
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (out->data, out->len, &doc, NULL), DLQ_JSON_OK, "%s", out->data);
    cr_assert_eq (dlq_json_root (doc)->type, DLQ_JSON_ARRAY, "%s", out->data);
    dlq_buf_t ids = DLQ_BUF_INIT;
    dlq_buf_puts (&ids, "");
    for (const dlq_json_value_t *c = dlq_json_root (doc)->child; c; c = c->next) {
        const dlq_json_value_t *event = dlq_json_get (c, "event"), *id = dlq_json_get (event, "id");
        int64_t replays = -1;
        cr_assert (dlq_json_as_int64 (dlq_json_get (c, "replayCount"), &replays), "%s", out->data);
        cr_assert (id && id->type == DLQ_JSON_STRING, "%s", out->data);
        dlq_buf_printf (&ids, "%s:%lld,", id->str, (long long) replays);
    }
    dlq_json_doc_destroy (&doc);
    return dlq_buf_steal (&ids, NULL);
}

/* "<id of events [i]>:<replays>," for each index of order (-1 ends). */
static char *
ids_of (const int *order, const int *replays)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_buf_puts (&out, "");
    for (int k = 0; order [k] >= 0; k++)
        dlq_buf_printf (&out, "%s:%d,", events [order [k]]->id, replays ? replays [k] : 0);
    return dlq_buf_steal (&out, NULL);
}

Test (postgres_workbench, a_claim_leases_the_eligible_events_oldest_first_in_batches)
{
    /* 0-5 eligible (in age order 5, 0, 3, 1, 4, 2 after the marks below);
     * 6 SUCCEEDED; 7 status DLQ; 8 failed past max_retries; 9 due later;
     * 10 expired; 11 another stream */
    const char *const stream [] = { "s", "s", "s", "s", "s", "s", "s", "s", "s", "s", "s", "t" };
    const int64_t ago [] = { 9000, 7000, 5000, 8000, 6000, 9500, 9900, 9800, 9700, 9600, 9950, 9990 };
    const char *const status [] = { "PENDING", "PENDING", "PENDING", "PENDING", "PENDING", "PENDING", "PENDING",
                                    "DLQ", "PENDING", "PENDING", "PENDING", "PENDING" };
    int64_t expires [12];
    for (int i = 0; i < 12; i++)
        expires [i] = i == 10 ? NOW - 1 : DLQ_TIME_NONE;
    store_simple (stream, ago, status, expires, 12);
    mark (events [6]->id, DLQ_SINK_MARK_RESOLVED, 0);
    for (int k = 0; k < 3; k++)
        mark (events [8]->id, DLQ_SINK_MARK_FAILED, NOW - 1);
    mark (events [9]->id, DLQ_SINK_MARK_FAILED, NOW + 1);
    mark (events [0]->id, DLQ_SINK_MARK_REPLAYED, NOW - 10);    /* replayed before, due again */
    mark (events [3]->id, DLQ_SINK_MARK_FAILED, NOW);           /* due exactly now */

    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (claim (reader, "s", "a", 60000, 3, 4, NOW, &out), DLQ_SINK_STATUS_OK, "%s",
                  plugin.ops->store->last_error (reader));
    char *got = claimed (&out);
    static const int first [] = { 5, 0, 3, 1, -1 }, first_replays [] = { 0, 1, 0, 0 };
    char *want = ids_of (first, first_replays);
    cr_expect_str_eq (got, want, "the first batch: the four oldest eligible, oldest first");
    free (got);
    free (want);
    for (int k = 0; first [k] >= 0; k++) {
        dlq_sink_event_state_t st = state_of (events [first [k]]->id);
        cr_expect_eq (st.retry_after, NOW + LEASE_MS, "a leased event's retry_after is the lease");
        cr_expect_str_eq (st.status, "PENDING");
    }
    char *body = value_of ("SELECT payload_text FROM %T WHERE id = $1::uuid", events [5]->id);
    cr_expect_str_eq (body, events [5]->json, "the claim leaves the body");
    free (body);

    cr_assert_eq (claim (reader, "s", "a", 60000, 3, 4, NOW, &out), DLQ_SINK_STATUS_OK);
    got = claimed (&out);
    static const int second [] = { 4, 2, -1 };
    want = ids_of (second, NULL);
    cr_expect_str_eq (got, want, "the second batch: the rest");
    free (got);
    free (want);
    cr_assert_eq (claim (reader, "s", "a", 60000, 3, 4, NOW, &out), DLQ_SINK_STATUS_OK);
    cr_expect_str_eq (out.data, "[]", "nothing left");

    cr_assert_eq (claim (reader, "s", "a", 60000, 4, 10, NOW + 1, &out), DLQ_SINK_STATUS_OK);
    got = claimed (&out);
    static const int later [] = { 8, 9, -1 };
    want = ids_of (later, NULL);
    cr_expect_str_eq (got, want, "max_retries 4 takes the event failed 3 times; the one due at NOW + 1 is due");
    free (got);
    free (want);
    cr_assert_eq (claim (reader, "s", "a", 60000, 4, 10, NOW + LEASE_MS, &out), DLQ_SINK_STATUS_OK);
    got = claimed (&out);
    static const int leased_out [] = { 5, 0, 3, 1, 4, 2, -1 }, leased_replays [] = { 0, 1, 0, 0, 0, 0 };
    want = ids_of (leased_out, leased_replays);
    cr_expect_str_eq (got, want, "when the lease runs out the events are due again");
    free (got);
    free (want);
    cr_assert_eq (claim (reader, "t", "a", 60000, 4, 0, NOW, &out), DLQ_SINK_STATUS_OK);
    cr_expect_str_eq (out.data, "[]", "a batch of 0");
    dlq_buf_free (&out);
}

Test (postgres_workbench, another_owner_is_locked_out_for_the_pass)
{
    const char *const stream [] = { "s", "s", "u" };
    const int64_t ago [] = { 3000, 2000, 1000 }, expires [] = { DLQ_TIME_NONE, DLQ_TIME_NONE, DLQ_TIME_NONE };
    const char *const status [] = { "PENDING", "PENDING", "PENDING" };
    store_simple (stream, ago, status, expires, 3);
    char err [512];
    void *other = pg_plugin_open (&plugin, DLQ_SINK_MODE_QUERY, err, sizeof err);
    cr_assert_not_null (other, "%s", err);
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (claim (reader, "s", "host-a", 60000, 10, 1, NOW, &out), DLQ_SINK_STATUS_OK);
    cr_assert_eq (claim (other, "s", "host-b", 60000, 10, 1, NOW + 1000, &out), DLQ_SINK_STATUS_LOCKED);
    cr_expect_eq (out.len, 0, "LOCKED writes nothing");
    cr_expect_eq (state_of (events [1]->id).retry_after, events [1]->created_at, "LOCKED changes nothing");
    char *owner = value_of ("SELECT owner || ' ' || (locked_until = $1::timestamptz) FROM %L",
                            "2026-06-09T14:33:13.500Z");
    cr_expect_str_eq (owner, "host-a true", "the lock row: its owner, until NOW + pass_ms: %s", owner);
    free (owner);
    cr_assert_eq (claim (other, "u", "host-b", 60000, 10, 1, NOW + 1000, &out), DLQ_SINK_STATUS_OK,
                  "another stream's pass is free");
    cr_assert_eq (claim (reader, "s", "host-a", 60000, 10, 1, NOW + 1000, &out), DLQ_SINK_STATUS_OK,
                  "the owner may run its pass again");
    char *got = claimed (&out);
    static const int next [] = { 1, -1 };
    char *want = ids_of (next, NULL);
    cr_expect_str_eq (got, want);
    free (got);
    free (want);
    cr_assert_eq (claim (other, "s", "host-b", 60000, 10, 1, NOW + 60999, &out), DLQ_SINK_STATUS_LOCKED,
                  "the pass taken again at NOW + 1000 runs until NOW + 61000");
    cr_assert_eq (claim (other, "s", "host-b", 60000, 10, 1, NOW + 61000, &out), DLQ_SINK_STATUS_OK,
                  "the pass is over: another owner takes it");
    plugin.ops->destroy (other);
    dlq_buf_free (&out);
}

/* ---- two connections claiming at once ------------------------------------------------------- */

typedef struct {
    void     *instance;
    char      owner [16];
    char    **ids;                  /* what it claimed */
    size_t    count;
    size_t    capacity;
    int       locked, errors;
    char      error [512];
} claimer_t;

/* Claim batches of 50 until none is left; record every id. */
static void *
claimer (void *arg)
{
    claimer_t *c = arg;
    dlq_buf_t out = DLQ_BUF_INIT;
    for (int passes = 0; passes < 10 * CONCURRENT && c->errors < 5; passes++) {
        dlq_buf_reset (&out);
        dlq_sink_status_t status = plugin.ops->workbench->claim (c->instance, "busy", c->owner, 0, 10, 50, NOW,
                                                                 NOW + LEASE_MS, dlq_sink_buf (&out));
        if (status == DLQ_SINK_STATUS_LOCKED) {
            c->locked++;
            continue;
        }
        if (status != DLQ_SINK_STATUS_OK) {
            snprintf (c->error, sizeof c->error, "%s", plugin.ops->store->last_error (c->instance));
            c->errors++;
            continue;
        }
        dlq_json_doc_t *doc = NULL;
        if (dlq_json_parse (out.data, out.len, &doc, NULL) != DLQ_JSON_OK) {
            snprintf (c->error, sizeof c->error, "not JSON: %.200s", out.data);
            c->errors++;
            continue;
        }
        const dlq_json_value_t *root = dlq_json_root (doc);
        for (const dlq_json_value_t *e = root->child; e; e = e->next) {
            const dlq_json_value_t *id = dlq_json_get (dlq_json_get (e, "event"), "id");
            if (c->count == c->capacity) {
                c->capacity = c->capacity ? 2 * c->capacity : 256;
                c->ids = realloc (c->ids, c->capacity * sizeof *c->ids);
            }
            c->ids [c->count++] = strndup (id->str, id->len);
        }
        bool done = root->count == 0;
        dlq_json_doc_destroy (&doc);
        if (done)
            break;
    }
    dlq_buf_free (&out);
    return NULL;
}

static int
by_text (const void *a, const void *b)
{
    return strcmp (*(char *const *) a, *(char *const *) b);
}

Test (postgres_workbench, two_connections_claim_every_event_exactly_once)
{
    open_plugin ();
    dlq_event_t **busy = calloc (CONCURRENT, sizeof *busy);
    for (int i = 0; i < CONCURRENT; i++) {
        char body [256], created [DLQ_TIME_ISO_LEN + 1];
        dlq_time_format_iso (NOW - 1000000 + i * 7 % 1000, created);
        snprintf (body, sizeof body, "{\"streamName\":\"busy\",\"createdAt\":\"%s\",\"error\":{\"type\":\"X\"}}",
                  created);
        busy [i] = event_of (body, DLQ_TIME_NONE);
    }
    for (int i = 0; i < CONCURRENT; i += 500)
        deliver (busy + i, 500);
    claimer_t c [2];
    pthread_t threads [2];
    memset (c, 0, sizeof c);
    for (int t = 0; t < 2; t++) {
        char err [512];
        c [t].instance = pg_plugin_open (&plugin, DLQ_SINK_MODE_QUERY, err, sizeof err);
        cr_assert_not_null (c [t].instance, "%s", err);
        snprintf (c [t].owner, sizeof c [t].owner, "owner-%d", t);
    }
    for (int t = 0; t < 2; t++)
        cr_assert_eq (pthread_create (&threads [t], NULL, claimer, &c [t]), 0);
    for (int t = 0; t < 2; t++)
        pthread_join (threads [t], NULL);
    char **all = calloc (CONCURRENT * 2, sizeof *all);
    size_t n = 0;
    for (int t = 0; t < 2; t++) {
        cr_expect_eq (c [t].errors, 0, "%s: %s", c [t].owner, c [t].error);
        cr_expect_eq (c [t].locked, 0, "pass_ms 0: the pass is always free");
        for (size_t k = 0; k < c [t].count && n < CONCURRENT * 2; k++)
            all [n++] = c [t].ids [k];
    }
    cr_log_info ("claimed by owner-0: %zu, by owner-1: %zu", c [0].count, c [1].count);
    cr_expect_eq (n, CONCURRENT, "%zu claims for %d events", n, CONCURRENT);
    qsort (all, n, sizeof *all, by_text);
    for (size_t k = 1; k < n; k++)
        cr_expect_str_neq (all [k - 1], all [k], "%s claimed twice", all [k]);
    char **want = calloc (CONCURRENT, sizeof *want);
    for (int i = 0; i < CONCURRENT; i++)
        want [i] = busy [i]->id;
    qsort (want, CONCURRENT, sizeof *want, by_text);
    for (size_t k = 0; k < n && k < CONCURRENT; k++)
        cr_expect_str_eq (all [k], want [k], "claimed events are the stored ones");
    char *leased = value_of ("SELECT count(*) FROM %T WHERE retry_after = $1::timestamptz", "2026-06-09T14:42:13.500Z");
    cr_expect_str_eq (leased, "2000", "every event carries the lease");
    free (leased);
    for (int t = 0; t < 2; t++) {
        for (size_t k = 0; k < c [t].count; k++)
            free (c [t].ids [k]);
        free (c [t].ids);
        plugin.ops->destroy (c [t].instance);
    }
    for (int i = 0; i < CONCURRENT; i++)
        dlq_event_destroy (&busy [i]);
    free (busy);
    free (all);
    free (want);
}

/* ---- migration ------------------------------------------------------------------------------- */

/* Make table at version 1 (its DDL, its version row) with one row of
 * event e in version 1's shape (no fingerprint, status PENDING). */
static void
create_version_1 (const dlq_event_t *e)
{
    dlq_pg_names_t names;
    memset (&names, 0, sizeof names);
    snprintf (names.schema, sizeof names.schema, "\"public\"");
    snprintf (names.table, sizeof names.table, "\"%s\"", table);
    for (int i = 0; i < DLQ_PG_INDEX_COUNT; i++) {
        char name [DLQ_PG_NAME_MAX + 1];
        dlq_pg_index_name (table, (dlq_pg_index_t) i, name);
        snprintf (names.index [i], sizeof names.index [i], "\"%s\"", name);
    }
    command ("CREATE TABLE IF NOT EXISTS dlq_schema_version (table_name TEXT PRIMARY KEY, version INT NOT NULL)");
    dlq_buf_t sql = DLQ_BUF_INIT;
    for (size_t step = 0; dlq_pg_sql_migration (&sql, &names, 1, step); step++) {
        command (sql.data);
        dlq_buf_reset (&sql);
    }
    dlq_buf_free (&sql);
    char insert [128];
    snprintf (insert, sizeof insert, "INSERT INTO dlq_schema_version VALUES ('%s', 1)", table);
    command (insert);
    char *text = sql_for ("INSERT INTO %T (id, stream_name, payload, payload_text, error_type, attempts, created_at) "
                          "VALUES ($1::uuid, $2, $3::jsonb, $3, 'X', 1, $4::timestamptz)");
    char created [DLQ_PG_TIME_LEN];
    dlq_pg_format_time (e->created_at, created);
    const char *const params [] = { e->id, e->stream_name, e->json, created };
    PGresult *r = PQexecParams (db, text, 4, NULL, params, NULL, NULL, 0);
    cr_assert_eq (PQresultStatus (r), PGRES_COMMAND_OK, "%s", PQerrorMessage (db));
    PQclear (r);
    free (text);
}

Test (postgres_workbench, a_version_1_table_is_migrated_in_place)
{
    events [0] = simple ("old", 1000, "DLQ", DLQ_TIME_NONE);
    events [1] = simple ("old", 500, "DLQ", DLQ_TIME_NONE);
    events [2] = simple ("new", 500, "A_STATUS_OF_THIRTY_TWO_CHARACTER", DLQ_TIME_NONE);
    create_version_1 (events [0]);
    open_plugin ();
    deliver (events + 1, 2);
    stored = 3;
    char *version = value_of ("SELECT version FROM dlq_schema_version WHERE table_name = $1", table);
    cr_expect_str_eq (version, "3");
    free (version);
    char *width = value_of ("SELECT character_maximum_length FROM information_schema.columns "
                            "WHERE table_name = $1 AND column_name = 'status'", table);
    cr_expect_str_eq (width, "32", "status holds a FailedEvent's 32 characters");
    free (width);
    char *old = value_of ("SELECT coalesce(fingerprint, 'none') || ' ' || status || ' ' || replay_count "
                          "FROM %T WHERE id = $1::uuid", events [0]->id);
    cr_expect_str_eq (old, "none PENDING 0", "a version 1 row keeps its status, has no fingerprint");
    free (old);
    char *fresh = value_of ("SELECT fingerprint || ' ' || status FROM %T WHERE id = $1::uuid", events [1]->id);
    char want [64];
    snprintf (want, sizeof want, "%s DLQ", events [1]->fingerprint);
    cr_expect_str_eq (fresh, want, "a new row has its fingerprint and its own status");
    free (fresh);

    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (plugin.ops->workbench->query_groups (reader, "{}", 10, NOW, dlq_sink_buf (&out)), DLQ_SINK_STATUS_OK,
                  "%s", plugin.ops->store->last_error (reader));
    cr_expect_not_null (strstr (out.data, "{\"fingerprint\":null,\"count\":1,"), "%s", out.data);
    cr_expect_not_null (strstr (out.data, events [2]->fingerprint), "%s", out.data);
    /* version 1 set retry_after to the time of the INSERT (now()) */
    int64_t later = dlq_time_now_ms () + 1000;
    cr_assert_eq (claim (reader, "old", "a", 0, 10, 10, later, &out), DLQ_SINK_STATUS_OK);
    char *got = claimed (&out);
    cr_expect_not_null (strstr (got, events [0]->id), "the version 1 row (PENDING) is claimed: %s", got);
    free (got);

    command ("DROP TABLE %L");
    dlq_sink_status_t first = claim (reader, "old", "a", 0, 10, 10, later + LEASE_MS, &out);
    if (first != DLQ_SINK_STATUS_OK)
        cr_assert_eq (claim (reader, "old", "a", 0, 10, 10, later + LEASE_MS, &out), DLQ_SINK_STATUS_OK,
                      "the lock table is created again: %s", plugin.ops->store->last_error (reader));
    got = claimed (&out);
    cr_expect_not_null (strstr (got, events [0]->id), "due again after its lease: %s", got);
    free (got);
    dlq_buf_free (&out);
}
