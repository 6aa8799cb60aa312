/*  itest_mongo_workbench — the mongo sink's workbench calls
 *  (dlq_sink_workbench_ops_t) against the MongoDB wire-protocol test
 *  server (tests/mongo/, run in the test process), or a real MongoDB when
 *  DLQD_TEST_MONGO_URI is set (each test in a database of its own,
 *  dropped at the end). The plugin is loaded in the test process as the
 *  gateway loads it:
 *
 *    - filtered LIST (paged to the end), COUNT and GROUPS over varied
 *      events (three streams, one of them in a collection of its own
 *      setting, statuses, error types and messages, attempts, metadata of
 *      each JSON type, creation times, some expired) agree with the
 *      reference predicate (event_filter.h), as itest_postgres_workbench
 *      checks the postgres sink;
 *    - each mark changes the state as the contract says, and _fw_body,
 *      the status field and GET show the new status (every other byte
 *      kept); a document from before the replay state reads as the
 *      defaults; concurrent marks of one event lose nothing;
 *    - a claim leases the stream's eligible events, oldest first, in
 *      batches, and sets their lease; another owner is LOCKED out for the
 *      pass (the lock document in _fw_dlq_locks); two instances claiming
 *      at once claim every event exactly once;
 *    - dlqd with the sink as its primary answers COUNT, LIST with filters,
 *      GROUPS, REPLAY (dry run), RESOLVE and FAIL over the wire.
 *
 *  tests/CMakeLists.txt links this suite with mongo-c-driver (to look at
 *  the documents behind the plugin) and makes it depend on the plugin.
 */
#include "dlq_json.h"
#include "dlq_time.h"
#include "dlq_uuid.h"
#include "dlqd_config.h"
#include "event_filter.h"
#include "event_support.h"
#include "failed_event.h"
#include "fingerprint.h"
#include "mongo_server.h"
#include "sink_host.h"
#include "sink_support.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <mongoc/mongoc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define URI_ENV     "DLQD_TEST_MONGO_URI"
#define PLUGIN      DLQD_PLUGIN_DIR "/libdlq_sink_mongo.so"
#define N           600             /* the varied events */
#define NOW         1781015533500LL
#define HOUR_MS     3600000LL
#define DAY_MS      (24 * HOUR_MS)
#define LEASE_MS    600000LL
#define CONCURRENT  1000            /* events two instances claim */
#define CLAIM_BATCH 25

/* The plugin loaded through a dlqd.conf of its own, as sink "mg". */
typedef struct {
    char                   dir [256];
    dlqd_config_t         *config;
    dlq_sink_config_t     *sink;
    const dlq_sink_ops_t  *ops;
    const dlq_sink_host_t *host;
} plugin_t;

static mongo_server_t *server;          /* NULL against a real MongoDB */
static mongoc_client_t *client;
static char uri [512];
static char database [64];
static plugin_t plugin;
static void *writer, *reader;
static dlq_event_t *events [N];
static size_t stored;                   /* events [0, stored) are in the store */
static test_dlqd_t d;

static void
setup (void)
{
    memset (&d, 0, sizeof d);
    memset (&plugin, 0, sizeof plugin);
    writer = reader = NULL;
    stored = 0;
    mongoc_init ();
    const char *real = getenv (URI_ENV);
    if (real && *real)
        snprintf (uri, sizeof uri, "%s", real);
    else {
        server = mongo_server_new (0);
        cr_assert_not_null (server, "the MongoDB test server does not start");
        snprintf (uri, sizeof uri, "%s", mongo_server_uri (server));
    }
    snprintf (database, sizeof database, "dlqd_wb_%llx", (unsigned long long) (test_random_u64 () & 0xffffffffffULL));
    client = mongoc_client_new (uri);
    cr_assert_not_null (client, "bad uri %s", uri);
}

static void
teardown (void)
{
    test_dlqd_cleanup (&d);
    if (reader)
        plugin.ops->destroy (reader);
    if (writer)
        plugin.ops->destroy (writer);
    dlqd_config_destroy (&plugin.config);
    if (plugin.dir [0])
        test_rmtree (plugin.dir);
    if (client) {
        if (!server) {
            mongoc_database_t *db = mongoc_client_get_database (client, database);
            mongoc_database_drop (db, NULL);
            mongoc_database_destroy (db);
        }
        mongoc_client_destroy (client);
        client = NULL;
    }
    for (int i = 0; i < N; i++)
        dlq_event_destroy (&events [i]);
    mongo_server_destroy (&server);
}

TestSuite (mongo_workbench, .init = setup, .fini = teardown, .timeout = 300);

/* ---- the plugin ------------------------------------------------------------------- */

/* Load the plugin: stream audit.v2 in a collection of its own. */
static void
load_plugin (void)
{
    test_tmpdir (plugin.dir);
    char path [320];
    snprintf (path, sizeof path, "%s/dlqd.conf", plugin.dir);
    FILE *f = fopen (path, "w");
    cr_assert_not_null (f);
    fprintf (f, "sinks: { mg: { type = \"plugin\"; path = \"%s\"; uri = \"%s\"; database = \"%s\"; }; };\n"
                "streams = ( { name = \"audit.v2\"; mg: { collection = \"audit_events\"; }; } );\n",
             PLUGIN, uri, database);
    cr_assert_eq (fclose (f), 0);
    char *why = NULL;
    cr_assert_eq (dlqd_config_load (path, &plugin.config, &why), DLQD_CONFIG_OK, "the config is refused: %s",
                  why ? why : "?");
    plugin.sink = dlqd_config_sink (plugin.config, "mg");
    cr_assert_not_null (plugin.sink);
    plugin.ops = dlq_sink_config_ops (plugin.sink);
    plugin.host = dlq_sink_host ();
    cr_assert (DLQ_SINK_OPS_HAS (plugin.ops, workbench) && plugin.ops->workbench, "no workbench calls");
    cr_assert_eq (plugin.ops->workbench->struct_size, sizeof (dlq_sink_workbench_ops_t));
}

static void *
open_instance (dlq_sink_mode_t mode)
{
    void *instance = NULL;
    char err [512] = "";
    cr_assert_eq (plugin.ops->init (plugin.host, plugin.sink, mode, &instance, err, sizeof err), DLQ_SINK_STATUS_OK,
                  "init: %s", err);
    return instance;
}

static void
open_plugin (void)
{
    load_plugin ();
    writer = open_instance (DLQ_SINK_MODE_DELIVER);
    reader = open_instance (DLQ_SINK_MODE_QUERY);
}

static const char *
last_error (void *instance)
{
    return plugin.ops->store->last_error (instance);
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

/* A canonical event from body, fingerprinted, expiring at expires_at
 * (DLQ_TIME_NONE: never). */
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

/* The document of event id in collection, via the driver; NULL when
 * none. Caller destroys. */
static bson_t *
document (const char *collection_name, const char *id)
{
    mongoc_collection_t *collection = mongoc_client_get_collection (client, database, collection_name);
    bson_t *filter = BCON_NEW ("_id", BCON_UTF8 (id));
    mongoc_cursor_t *cursor = mongoc_collection_find_with_opts (collection, filter, NULL, NULL);
    const bson_t *doc;
    bson_t *copy = mongoc_cursor_next (cursor, &doc) ? bson_copy (doc) : NULL;
    bson_error_t error;
    cr_assert_not (mongoc_cursor_error (cursor, &error), "find: %s", error.message);
    mongoc_cursor_destroy (cursor);
    bson_destroy (filter);
    mongoc_collection_destroy (collection);
    return copy;
}

static const char *
text_at (const bson_t *doc, const char *path)
{
    bson_iter_t it, found;
    cr_assert (bson_iter_init (&it, doc) && bson_iter_find_descendant (&it, path, &found)
               && BSON_ITER_HOLDS_UTF8 (&found), "no string %s", path);
    return bson_iter_utf8 (&found, NULL);
}

/* ---- the varied events -------------------------------------------------------------- */

static const char *const streams [] = { "orders", "payments", "audit.v2" };
static const char *const statuses [] = { "PENDING", "DLQ", "SUCCEEDED" };
static const char *const types [] = { "java.lang.IllegalStateException", "java.net.SocketTimeoutException",
                                      "com.acme.ValidationError" };
static const char *const messages [] = { "Order %d not found", "Read timed out after %d ms",
                                         "field 'sku-%d' is required", "Downstream CALL failed (%d)",
                                         "\xc3\x89" "chec 50%% de l'appel %d [x.y]*" };

/* Metadata of event i: none, tenant / shard (a number, sometimes written
 * 2.0) / vip, a shard that is a string, or values in arrays. */
static void
metadata_of (int i, char *out, size_t len)
{
    if (i % 5 == 0)
        snprintf (out, len, ",\"metadata\":{\"tenantId\":\"%s\",\"shard\":%d%s,\"vip\":%s}",
                  i % 2 ? "acme" : "globex", i % 4, i % 15 == 0 ? ".0" : "", i % 3 ? "true" : "false");
    else if (i % 7 == 1)
        snprintf (out, len, ",\"metadata\":{\"tenantId\":\"acme\",\"shard\":\"%d\"}", i % 4);
    else if (i % 11 == 2)
        snprintf (out, len, ",\"metadata\":{\"tenantId\":[\"acme\"],\"shard\":[%d],\"vip\":[true]}", i % 4);
    else
        out [0] = '\0';
}

/* Event i: its fields cycle through the tables with different periods. */
static dlq_event_t *
make (int i)
{
    char body [1024], message [128], created [DLQ_TIME_ISO_LEN + 1], metadata [160];
    snprintf (message, sizeof message, messages [i % 5], 1000 + i);
    int64_t created_at = NOW - (int64_t) (i % 97) * HOUR_MS - i;
    dlq_time_format_iso (created_at, created);
    metadata_of (i, metadata, sizeof metadata);
    snprintf (body, sizeof body, "{\"streamName\":\"%s\",\"status\":\"%s\",\"createdAt\":\"%s\","
              "\"error\":{\"type\":\"%s\",\"message\":\"%s\","
              "\"stackTrace\":\"%s: x\\n\\tat com.acme.F%d.run(F.java:%d)\"},"
              "\"attempts\":%d%s}",
              streams [i % 3], statuses [i % 7 % 3], created, types [i % 11 % 3], message, types [i % 11 % 3],
              i % 2, i, i % 6, metadata);
    /* one in ten expired, one in ten kept forever, the rest 30 days */
    return event_of (body, i % 10 == 3 ? NOW - 1 : i % 10 == 4 ? DLQ_TIME_NONE : created_at + 30 * DAY_MS);
}

static void
store_varied (void)
{
    open_plugin ();
    for (int i = 0; i < N; i++)
        events [i] = make (i);
    deliver (events, N);
    stored = N;
}

/* ---- filtered queries --------------------------------------------------------------- */

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

/* The events the reference predicate takes (unexpired), in LIST order. */
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
                      DLQ_SINK_STATUS_OK, "%s: %s", request, last_error (reader));
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
    free (cursor);
    cr_expect_eq (got, n, "%s: %zu listed, %zu expected", request, got, n);
    int64_t count = -1;
    cr_assert_eq (plugin.ops->workbench->query_count (reader, request, NOW, &count), DLQ_SINK_STATUS_OK, "%s",
                  last_error (reader));
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
    "{\"messageContains\":\"[x.y]*\"}",
    "{\"messageContains\":\"(10\"}",
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

Test (mongo_workbench, filters_agree_with_the_reference_predicate)
{
    store_varied ();
    for (size_t i = 0; i < sizeof filters / sizeof filters [0]; i++) {
        expect_list (filters [i], 7);
        expect_list (filters [i], 1000);
    }
}

Test (mongo_workbench, a_fingerprint_filter_per_group)
{
    store_varied ();
    for (size_t i = 0; i < stored; i += 37) {
        char request [64];
        snprintf (request, sizeof request, "{\"fingerprint\":\"%s\"}", events [i]->fingerprint);
        expect_list (request, 5);
    }
}

Test (mongo_workbench, a_cursor_it_did_not_issue_is_bad)
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

Test (mongo_workbench, the_documents_have_the_fingerprint_and_the_replay_state)
{
    store_varied ();
    bson_t *doc = document ("audit_events", events [2]->id);
    cr_assert_not_null (doc, "audit.v2's events are in its collection");
    cr_expect_str_eq (text_at (doc, "_fw_fingerprint"), events [2]->fingerprint);
    bson_iter_t it;
    cr_expect (bson_iter_init_find (&it, doc, "retryCount") && BSON_ITER_HOLDS_INT32 (&it));
    cr_expect (bson_iter_init_find (&it, doc, "retryAfter") && BSON_ITER_HOLDS_DATE_TIME (&it)
               && bson_iter_date_time (&it) == events [2]->created_at);
    bson_destroy (doc);
}

/* ---- groups --------------------------------------------------------------------------- */

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

static const dlq_event_t *
event_by_id (const char *id, size_t len)
{
    for (size_t i = 0; i < stored; i++)
        if (strlen (events [i]->id) == len && memcmp (events [i]->id, id, len) == 0)
            return events [i];
    return NULL;
}

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

static void
expect_groups (const char *request)
{
    dlq_event_filter_t f = DLQ_EVENT_FILTER_INIT;
    parse_filter (request, &f);
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (plugin.ops->workbench->query_groups (reader, request, 1000, NOW, dlq_sink_buf (&out)),
                  DLQ_SINK_STATUS_OK, "%s: %s", request, last_error (reader));
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

Test (mongo_workbench, groups_agree_with_the_reference_predicate)
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

/* ---- replay state and marks --------------------------------------------------------------- */

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
                  last_error (reader));
    return st;
}

static dlq_sink_event_state_t
mark (const char *id, dlq_sink_mark_t how, int64_t retry_after)
{
    dlq_sink_event_state_t st;
    memset (&st, 0x5a, sizeof st);
    cr_assert_eq (plugin.ops->workbench->mark (reader, id, how, NOW, retry_after, &st), DLQ_SINK_STATUS_OK,
                  "mark %d of %s: %s", (int) how, id, last_error (reader));
    return st;
}

/* The event's canonical body with its status replaced. Caller frees. */
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

/* _fw_body, GET, the status field say status; the nested ones are untouched. */
static void
expect_status_everywhere (const dlq_event_t *e, const char *status)
{
    char *want = body_with_status (e, status);
    bson_t *doc = document ("_fw_dlq_s", e->id);
    cr_assert_not_null (doc);
    cr_expect_str_eq (text_at (doc, "_fw_body"), want, "_fw_body");
    cr_expect_str_eq (text_at (doc, "status"), status, "the status field");
    cr_expect_str_eq (text_at (doc, "fullDocument.status"), "PAID");
    cr_expect_str_eq (text_at (doc, "metadata.status"), "meta");
    bson_destroy (doc);
    dlq_buf_t got = DLQ_BUF_INIT;
    cr_assert_eq (plugin.ops->store->get (reader, e->id, NOW, dlq_sink_buf (&got)), DLQ_SINK_STATUS_OK);
    cr_expect_str_eq (got.data, want, "GET");
    dlq_buf_free (&got);
    free (want);
}

Test (mongo_workbench, each_mark_changes_the_state_and_the_body_follows)
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
    char request [128];
    snprintf (request, sizeof request, "{\"status\":\"SUCCEEDED\",\"streamName\":\"s\"}");
    int64_t count = -1;
    cr_assert_eq (plugin.ops->workbench->query_count (reader, request, NOW, &count), DLQ_SINK_STATUS_OK);
    cr_expect_eq (count, 1, "the new status can be filtered on");
}

Test (mongo_workbench, a_missing_or_expired_event_is_not_found)
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
    cr_expect_eq (wb->mark (reader, events [0]->id, (dlq_sink_mark_t) 42, NOW, 0, &st), DLQ_SINK_STATUS_ERROR,
                  "an unknown mark");
    st = mark (events [0]->id, DLQ_SINK_MARK_RESOLVED, 0);
    cr_expect_str_eq (st.status, "SUCCEEDED", "the connection is fine after NOT_FOUND");
}

/* Put a document as the sink wrote it before the replay state existed:
 * no _fw_fingerprint, retryCount, replayCount nor retryAfter. */
static dlq_event_t *
put_old_document (const char *stream, int64_t ago)
{
    dlq_event_t *e = simple (stream, ago, "PENDING", DLQ_TIME_NONE);
    char collection [64];
    snprintf (collection, sizeof collection, "_fw_dlq_%s", stream);
    bson_t *doc = BCON_NEW ("_id", BCON_UTF8 (e->id), "streamName", BCON_UTF8 (stream), "status", BCON_UTF8 ("PENDING"),
                            "error", "{", "type", BCON_UTF8 ("X"), "message", BCON_UTF8 ("boom"), "}",
                            "attempts", BCON_INT32 (1), "createdAt", BCON_DATE_TIME (e->created_at),
                            "_fw_body", BCON_UTF8 (e->json));
    bson_t *entry = BCON_NEW ("_id", BCON_UTF8 (e->id), "c", BCON_UTF8 (collection), "s", BCON_UTF8 (stream));
    bson_t *registered = BCON_NEW ("_id", BCON_UTF8 (stream), "c", BCON_UTF8 (collection));
    bson_error_t error;
    mongoc_collection_t *c = mongoc_client_get_collection (client, database, collection);
    cr_assert (mongoc_collection_insert_one (c, doc, NULL, NULL, &error), "%s", error.message);
    mongoc_collection_destroy (c);
    c = mongoc_client_get_collection (client, database, "_fw_dlq_index");
    cr_assert (mongoc_collection_insert_one (c, entry, NULL, NULL, &error), "%s", error.message);
    mongoc_collection_destroy (c);
    c = mongoc_client_get_collection (client, database, "_fw_dlq_streams");
    mongoc_collection_insert_one (c, registered, NULL, NULL, NULL);
    mongoc_collection_destroy (c);
    bson_destroy (registered);
    bson_destroy (entry);
    bson_destroy (doc);
    return e;
}

Test (mongo_workbench, a_document_from_before_the_replay_state_works)
{
    open_plugin ();
    events [0] = put_old_document ("old", 5000);
    events [1] = put_old_document ("old", 4000);
    stored = 2;
    dlq_sink_event_state_t st = state_of (events [0]->id);
    cr_expect_str_eq (st.status, "PENDING");
    cr_expect_eq (st.retry_count, 0);
    cr_expect_eq (st.replay_count, 0);
    cr_expect_eq (st.retry_after, events [0]->created_at, "no retryAfter: createdAt");
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (plugin.ops->workbench->claim (reader, "old", "a", 0, 3, 1, NOW, NOW + LEASE_MS, dlq_sink_buf (&out)),
                  DLQ_SINK_STATUS_OK, "%s", last_error (reader));
    cr_expect_not_null (strstr (out.data, events [0]->id), "an old PENDING document is due: %s", out.data);
    cr_expect_not_null (strstr (out.data, "\"replayCount\":0"), "%s", out.data);
    st = mark (events [1]->id, DLQ_SINK_MARK_FAILED, NOW + 1000);
    cr_expect_eq (st.retry_count, 1, "$inc makes the count");
    cr_expect_eq (st.retry_after, NOW + 1000);
    st = mark (events [1]->id, DLQ_SINK_MARK_REPLAYED, NOW + 2000);
    cr_expect_eq (st.replay_count, 1);
    dlq_buf_reset (&out);
    cr_assert_eq (plugin.ops->workbench->query_groups (reader, "{\"streamName\":\"old\"}", 10, NOW, dlq_sink_buf (&out)),
                  DLQ_SINK_STATUS_OK, "%s", last_error (reader));
    cr_expect_not_null (strstr (out.data, "{\"fingerprint\":null,\"count\":2,"), "no fingerprint: one null group: %s",
                        out.data);
    dlq_buf_free (&out);
}

/* ---- concurrent marks ------------------------------------------------------------------ */

#define MARKERS 2
#define MARKS   40

typedef struct {
    void            *instance;
    const char      *id;
    dlq_sink_mark_t  how;
    int              errors;
} marker_t;

static void *
marker (void *arg)
{
    marker_t *m = arg;
    for (int i = 0; i < MARKS; i++) {
        dlq_sink_event_state_t st;
        if (plugin.ops->workbench->mark (m->instance, m->id, m->how, NOW, NOW + i, &st) != DLQ_SINK_STATUS_OK)
            m->errors++;
    }
    return NULL;
}

Test (mongo_workbench, concurrent_marks_lose_nothing)
{
    const char *const stream [] = { "s" };
    const int64_t ago [] = { 5000 }, expires [] = { DLQ_TIME_NONE };
    const char *const status [] = { "DLQ" };
    store_simple (stream, ago, status, expires, 1);
    marker_t m [MARKERS];
    pthread_t threads [MARKERS];
    for (int t = 0; t < MARKERS; t++) {
        m [t] = (marker_t) { open_instance (DLQ_SINK_MODE_QUERY), events [0]->id,
                             t == 0 ? DLQ_SINK_MARK_FAILED : DLQ_SINK_MARK_QUARANTINED, 0 };
        cr_assert_eq (pthread_create (&threads [t], NULL, marker, &m [t]), 0);
    }
    for (int t = 0; t < MARKERS; t++)
        pthread_join (threads [t], NULL);
    for (int t = 0; t < MARKERS; t++) {
        cr_expect_eq (m [t].errors, 0, "marker %d", t);
        plugin.ops->destroy (m [t].instance);
    }
    dlq_sink_event_state_t st = state_of (events [0]->id);
    cr_expect_eq (st.retry_count, MARKS, "every FAIL counted");
    bson_t *doc = document ("_fw_dlq_s", events [0]->id);
    const char *field = text_at (doc, "status");
    char *want = body_with_status (events [0], field);
    cr_expect_str_eq (text_at (doc, "_fw_body"), want, "the body says the status field's %s", field);
    free (want);
    bson_destroy (doc);
}

/* ---- claim ----------------------------------------------------------------------------------- */

static dlq_sink_status_t
claim (void *instance, const char *stream, const char *owner, int64_t pass_ms, int32_t max_retries, size_t batch,
       int64_t now, dlq_buf_t *out)
{
    dlq_buf_reset (out);
    return plugin.ops->workbench->claim (instance, stream, owner, pass_ms, max_retries, batch, now, now + LEASE_MS,
                                         dlq_sink_buf (out));
}

/* The claimed ids ("<id>:<replayCount>,...") of a claim's answer; each
 * event must be a stored one's body. Caller frees. */
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
        const dlq_event_t *e = event_by_id (id->str, id->len);
        cr_assert_not_null (e, "%s", out->data);
        dlq_buf_t body = DLQ_BUF_INIT;
        dlq_json_write (&body, event);
        cr_expect_str_eq (body.data, e->json, "the stored body");
        dlq_buf_free (&body);
        dlq_buf_printf (&ids, "%s:%lld,", id->str, (long long) replays);
    }
    dlq_json_doc_destroy (&doc);
    return dlq_buf_steal (&ids, NULL);
}

static char *
ids_of (const int *order, const int *replays)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_buf_puts (&out, "");
    for (int k = 0; order [k] >= 0; k++)
        dlq_buf_printf (&out, "%s:%d,", events [order [k]]->id, replays ? replays [k] : 0);
    return dlq_buf_steal (&out, NULL);
}

static void
expect_claimed (const dlq_buf_t *out, const int *order, const int *replays, const char *why)
{
    char *got = claimed (out);
    char *want = ids_of (order, replays);
    cr_expect_str_eq (got, want, "%s", why);
    free (got);
    free (want);
}

Test (mongo_workbench, a_claim_leases_the_eligible_events_oldest_first_in_batches)
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
    mark (events [0]->id, DLQ_SINK_MARK_REPLAYED, NOW - 10);
    mark (events [3]->id, DLQ_SINK_MARK_FAILED, NOW);

    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (claim (reader, "s", "a", 60000, 3, 4, NOW, &out), DLQ_SINK_STATUS_OK, "%s", last_error (reader));
    static const int first [] = { 5, 0, 3, 1, -1 }, first_replays [] = { 0, 1, 0, 0 };
    expect_claimed (&out, first, first_replays, "the first batch: the four oldest eligible, oldest first");
    for (int k = 0; first [k] >= 0; k++) {
        dlq_sink_event_state_t st = state_of (events [first [k]]->id);
        cr_expect_eq (st.retry_after, NOW + LEASE_MS, "a leased event's retry_after is the lease");
        cr_expect_str_eq (st.status, "PENDING");
    }
    bson_t *doc = document ("_fw_dlq_s", events [5]->id);
    cr_expect_str_eq (text_at (doc, "_fw_body"), events [5]->json, "the claim leaves the body");
    bson_destroy (doc);

    cr_assert_eq (claim (reader, "s", "a", 60000, 3, 4, NOW, &out), DLQ_SINK_STATUS_OK);
    static const int second [] = { 4, 2, -1 };
    expect_claimed (&out, second, NULL, "the second batch: the rest");
    cr_assert_eq (claim (reader, "s", "a", 60000, 3, 4, NOW, &out), DLQ_SINK_STATUS_OK);
    cr_expect_str_eq (out.data, "[]", "nothing left");

    cr_assert_eq (claim (reader, "s", "a", 60000, 4, 10, NOW + 1, &out), DLQ_SINK_STATUS_OK);
    static const int later [] = { 8, 9, -1 };
    expect_claimed (&out, later, NULL, "max_retries 4 takes the event failed 3 times; the one due at NOW + 1 is due");
    cr_assert_eq (claim (reader, "s", "a", 60000, 4, 10, NOW + LEASE_MS, &out), DLQ_SINK_STATUS_OK);
    static const int leased_out [] = { 5, 0, 3, 1, 4, 2, -1 }, leased_replays [] = { 0, 1, 0, 0, 0, 0 };
    expect_claimed (&out, leased_out, leased_replays, "when the lease runs out the events are due again");
    cr_assert_eq (claim (reader, "t", "a", 60000, 4, 0, NOW, &out), DLQ_SINK_STATUS_OK);
    cr_expect_str_eq (out.data, "[]", "a batch of 0");
    cr_assert_eq (claim (reader, "t", "a", 60000, 0, 10, NOW, &out), DLQ_SINK_STATUS_OK);
    cr_expect_str_eq (out.data, "[]", "max_retries 0: nothing is due");
    cr_assert_eq (claim (reader, "nowhere", "a", 60000, 3, 10, NOW, &out), DLQ_SINK_STATUS_OK);
    cr_expect_str_eq (out.data, "[]", "a stream with no events");
    dlq_buf_free (&out);
}

Test (mongo_workbench, a_lease_that_is_already_over_takes_each_event_once)
{
    const char *const stream [] = { "s", "s", "s" };
    const int64_t ago [] = { 3000, 2000, 1000 }, expires [] = { DLQ_TIME_NONE, DLQ_TIME_NONE, DLQ_TIME_NONE };
    const char *const status [] = { "PENDING", "PENDING", "PENDING" };
    store_simple (stream, ago, status, expires, 3);
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (plugin.ops->workbench->claim (reader, "s", "a", 0, 3, 10, NOW, NOW - 1, dlq_sink_buf (&out)),
                  DLQ_SINK_STATUS_OK, "%s", last_error (reader));
    static const int all [] = { 0, 1, 2, -1 };
    expect_claimed (&out, all, NULL, "a lease in the past leaves the events due: each is taken once all the same");
    dlq_buf_free (&out);
}

Test (mongo_workbench, another_owner_is_locked_out_for_the_pass)
{
    const char *const stream [] = { "s", "s", "u" };
    const int64_t ago [] = { 3000, 2000, 1000 }, expires [] = { DLQ_TIME_NONE, DLQ_TIME_NONE, DLQ_TIME_NONE };
    const char *const status [] = { "PENDING", "PENDING", "PENDING" };
    store_simple (stream, ago, status, expires, 3);
    void *other = open_instance (DLQ_SINK_MODE_QUERY);
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (claim (reader, "s", "host-a", 60000, 10, 1, NOW, &out), DLQ_SINK_STATUS_OK, "%s", last_error (reader));
    cr_assert_eq (claim (other, "s", "host-b", 60000, 10, 1, NOW + 1000, &out), DLQ_SINK_STATUS_LOCKED, "%s",
                  last_error (other));
    cr_expect_eq (out.len, 0, "LOCKED writes nothing");
    cr_expect_eq (state_of (events [1]->id).retry_after, events [1]->created_at, "LOCKED changes nothing");
    bson_t *lock = document ("_fw_dlq_locks", "s");
    cr_assert_not_null (lock, "the lock document");
    cr_expect_str_eq (text_at (lock, "owner"), "host-a");
    bson_iter_t it;
    cr_expect (bson_iter_init_find (&it, lock, "lockedUntil") && BSON_ITER_HOLDS_DATE_TIME (&it)
               && bson_iter_date_time (&it) == NOW + 60000, "locked until NOW + pass_ms");
    bson_destroy (lock);
    cr_assert_eq (claim (other, "u", "host-b", 60000, 10, 1, NOW + 1000, &out), DLQ_SINK_STATUS_OK,
                  "another stream's pass is free");
    cr_assert_eq (claim (reader, "s", "host-a", 60000, 10, 1, NOW + 1000, &out), DLQ_SINK_STATUS_OK,
                  "the owner may run its pass again");
    static const int next [] = { 1, -1 };
    expect_claimed (&out, next, NULL, "the owner's next event");
    cr_assert_eq (claim (other, "s", "host-b", 60000, 10, 1, NOW + 60999, &out), DLQ_SINK_STATUS_LOCKED,
                  "the pass taken again at NOW + 1000 runs until NOW + 61000");
    cr_assert_eq (claim (other, "s", "host-b", 60000, 10, 1, NOW + 61000, &out), DLQ_SINK_STATUS_OK,
                  "the pass is over: another owner takes it");
    plugin.ops->destroy (other);
    dlq_buf_free (&out);
}

/* ---- two instances claiming at once ------------------------------------------------------ */

typedef struct {
    void   *instance;
    char    owner [16];
    char  **ids;
    size_t  count, capacity;
    int     locked, errors;
    char    error [512];
} claimer_t;

static void
remember_claims (claimer_t *c, const dlq_json_value_t *root)
{
    for (const dlq_json_value_t *e = root->child; e; e = e->next) {
        const dlq_json_value_t *id = dlq_json_get (dlq_json_get (e, "event"), "id");
        if (!id)
            continue;
        if (c->count == c->capacity) {
            c->capacity = c->capacity ? 2 * c->capacity : 256;
            c->ids = realloc (c->ids, c->capacity * sizeof *c->ids);
        }
        c->ids [c->count++] = strndup (id->str, id->len);
    }
}

/* Claim batches until none is left; record every id. */
static void *
claimer (void *arg)
{
    claimer_t *c = arg;
    dlq_buf_t out = DLQ_BUF_INIT;
    for (int passes = 0; passes < 10 * CONCURRENT && c->errors < 5; passes++) {
        dlq_buf_reset (&out);
        dlq_sink_status_t status = plugin.ops->workbench->claim (c->instance, "busy", c->owner, 0, 10, CLAIM_BATCH,
                                                                 NOW, NOW + LEASE_MS, dlq_sink_buf (&out));
        if (status == DLQ_SINK_STATUS_LOCKED) {
            c->locked++;
            continue;
        }
        dlq_json_doc_t *doc = NULL;
        if (status != DLQ_SINK_STATUS_OK || dlq_json_parse (out.data, out.len, &doc, NULL) != DLQ_JSON_OK) {
            snprintf (c->error, sizeof c->error, "%s: %.200s", last_error (c->instance), out.data ? out.data : "");
            c->errors++;
            continue;
        }
        remember_claims (c, dlq_json_root (doc));
        bool done = dlq_json_root (doc)->count == 0;
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

/* The number of documents of collection whose retryAfter is at. */
static int64_t
count_leased (const char *collection_name, int64_t at)
{
    mongoc_collection_t *collection = mongoc_client_get_collection (client, database, collection_name);
    bson_t *filter = BCON_NEW ("retryAfter", BCON_DATE_TIME (at));
    bson_error_t error;
    int64_t n = mongoc_collection_count_documents (collection, filter, NULL, NULL, NULL, &error);
    cr_assert_geq (n, 0, "%s", error.message);
    bson_destroy (filter);
    mongoc_collection_destroy (collection);
    return n;
}

Test (mongo_workbench, two_instances_claim_every_event_exactly_once)
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
        deliver (busy + i, CONCURRENT - i < 500 ? (size_t) (CONCURRENT - i) : 500);
    claimer_t c [2];
    pthread_t threads [2];
    memset (c, 0, sizeof c);
    for (int t = 0; t < 2; t++) {
        c [t].instance = open_instance (DLQ_SINK_MODE_QUERY);
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
    cr_expect_eq (count_leased ("_fw_dlq_busy", NOW + LEASE_MS), CONCURRENT, "every event carries the lease");
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

/* ---- dlqd with the sink as its primary ------------------------------------------------------ */

static int64_t
member_int (const char *reply, const char *name)
{
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (reply, strlen (reply), &doc, NULL), DLQ_JSON_OK, "%s", reply);
    int64_t n = -1;
    cr_assert (dlq_json_as_int64 (dlq_json_get (dlq_json_root (doc), name), &n), "no %s in %s", name, reply);
    dlq_json_doc_destroy (&doc);
    return n;
}

Test (mongo_workbench, dlqd_answers_the_workbench_from_the_sink)
{
    enum { ORDERS = 6, PAYMENTS = 3 };
    char extra [2048];
    snprintf (extra, sizeof extra,
              "sinks: { mongo: { type = \"mongo\"; uri = \"%s\"; database = \"%s\"; }; };\n"
              "defaults: { retention_days = 30; chain = [\"mongo\"]; };\n"
              "primary = \"mongo\";\n", uri, database);
    cr_assert (test_dlqd_start (&d, "", extra));
    char ids [ORDERS + PAYMENTS][DLQ_UUID_LEN + 1];
    char *bodies [ORDERS + PAYMENTS];
    int64_t now = dlq_time_now_ms ();
    for (int i = 0; i < ORDERS + PAYMENTS; i++)
        bodies [i] = sink_small_event (i < ORDERS ? "orders" : "payments", now - 1000 + i, i, ids [i]);
    sink_put_bodies (d.endpoint, bodies, ORDERS + PAYMENTS);
    cr_assert_eq (sink_wait_stat (d.endpoint, "mongo", "delivered", ORDERS + PAYMENTS, 30), ORDERS + PAYMENTS);

    char *reply = sink_request (d.endpoint, "COUNT", "{\"streamName\":\"orders\"}", "OK");
    cr_expect_eq (member_int (reply, "count"), ORDERS, "%s", reply);
    free (reply);
    reply = sink_request (d.endpoint, "COUNT", "{}", "OK");
    cr_expect_eq (member_int (reply, "count"), ORDERS + PAYMENTS, "%s", reply);
    free (reply);
    reply = sink_request (d.endpoint, "LIST", "{\"status\":\"PENDING\",\"limit\":4}", "OK");
    cr_expect (strstr (reply, ids [ORDERS + PAYMENTS - 1]) && strstr (reply, "\"nextCursor\":\""),
               "a filtered LIST across the streams, newest first, in pages: %s", reply);
    free (reply);
    reply = sink_request (d.endpoint, "GROUPS", "{}", "OK");
    cr_expect_not_null (strstr (reply, "\"groups\":[{\"fingerprint\":\""), "%s", reply);
    free (reply);
    reply = sink_request (d.endpoint, "REPLAY", "{\"streamName\":\"payments\",\"dryRun\":true,\"sample\":2}", "OK");
    cr_expect_eq (member_int (reply, "count"), PAYMENTS, "%s", reply);
    cr_expect_not_null (strstr (reply, ids [ORDERS + PAYMENTS - 1]), "the sample, newest first: %s", reply);
    free (reply);

    char body [128];
    snprintf (body, sizeof body, "{\"id\":\"%s\"}", ids [0]);
    reply = sink_request (d.endpoint, "RESOLVE", body, "OK");
    cr_expect_not_null (strstr (reply, "\"status\":\"SUCCEEDED\""), "%s", reply);
    free (reply);
    reply = sink_get (d.endpoint, ids [0], "OK");
    cr_expect_not_null (strstr (reply, "\"status\":\"SUCCEEDED\""), "GET shows the new status: %s", reply);
    cr_expect_not_null (strstr (reply, "\"replay\":{\"retryCount\":0,\"replayCount\":0,"), "%s", reply);
    free (reply);
    snprintf (body, sizeof body, "{\"id\":\"%s\"}", ids [1]);
    reply = sink_request (d.endpoint, "FAIL", body, "OK");
    cr_expect_not_null (strstr (reply, "\"retryCount\":1"), "%s", reply);
    free (reply);
    reply = sink_request (d.endpoint, "COUNT", "{\"status\":\"SUCCEEDED\"}", "OK");
    cr_expect_eq (member_int (reply, "count"), 1, "%s", reply);
    free (reply);
    char missing [DLQ_UUID_LEN + 1];
    dlq_uuid_v7 (now, missing);
    snprintf (body, sizeof body, "{\"id\":\"%s\"}", missing);
    reply = sink_request (d.endpoint, "RESOLVE", body, "ERR");
    cr_expect_not_null (strstr (reply, "NOT_FOUND"), "%s", reply);
    free (reply);
    for (int i = 0; i < ORDERS + PAYMENTS; i++)
        free (bodies [i]);
}
