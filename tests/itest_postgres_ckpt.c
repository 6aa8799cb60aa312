/*  itest_postgres_ckpt — the postgres sink's checkpoint calls
 *  (dlq_sink_checkpoint_ops_t) against a real PostgreSQL server, the
 *  plugin loaded in the test process as the gateway loads it:
 *
 *    - each kind of write: SEEN / PROCESSED on a missing record create it
 *      with only their pair, on a record change only their pair (and
 *      updatedAt); SAVE replaces every field (an absent one becomes NULL);
 *      each write answers the record after it, as GET does, as core's
 *      dlq_checkpoint_format writes it;
 *    - tokens and metadata come back byte for byte (key order, escapes,
 *      numbers as written), with a JSONB copy unless JSONB refuses the
 *      text; timestamps to the millisecond;
 *    - GET of a missing record is NOT_FOUND; DELETE says whether there
 *      was one;
 *    - LIST pages in byte order of the name (names with %, _, \ and
 *      non-ASCII bytes), with a prefix taken literally, a keyset cursor,
 *      BAD_CURSOR for a name that cannot be one; a prefix page is a range
 *      scan of the primary key's index (the "C" collation);
 *    - two connections writing SEEN and PROCESSED of one stream at once
 *      never undo each other: the final record has the last token of each;
 *    - a version 2 table is migrated in place (version 3), a dropped
 *      checkpoint table is created again, and a long table name gets a
 *      hashed checkpoint table name.
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
#include "dlq_json.h"
#include "dlq_time.h"
#include "pg_ckpt_sql.h"
#include "pg_format.h"
#include "pg_sql.h"
#include "pg_db.h"
#include "pg_support.h"
#include "sink_host.h"

#include <criterion/criterion.h>
#include <libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOW         1781015533500LL
#define CONCURRENT  2000            /* writes of each thread */

static pg_db_t db;                              /* the server, the table (pg_db.h) */
static char long_table [DLQ_PG_NAME_MAX + 1];   /* "" unless a test uses one */
static test_plugin_t plugin;
static void *reader;

static void
setup (void)
{
    reader = NULL;
    long_table [0] = '\0';
    pg_db_open (&db);
}

static void
teardown (void)
{
    if (reader)
        plugin.ops->destroy (reader);
    if (plugin.config)
        test_plugin_unload (&plugin);
    if (db.conn && long_table [0])
        pg_db_drop (&db, long_table);
    pg_db_close (&db);
}

TestSuite (postgres_ckpt, .init = setup, .fini = teardown, .timeout = 300);

/* ---- helpers ---------------------------------------------------------------------- */

/* Load the plugin for table name and open a QUERY instance (reader). */
static void
open_plugin_on (const char *name)
{
    char err [512];
    cr_assert (pg_plugin_load (&plugin, db.server.conninfo, name, NULL, err, sizeof err), "%s", err);
    cr_assert (DLQ_SINK_OPS_HAS (plugin.ops, checkpoints) && plugin.ops->checkpoints, "no checkpoint calls");
    cr_assert_eq (plugin.ops->checkpoints->struct_size, sizeof (dlq_sink_checkpoint_ops_t));
    reader = test_plugin_open (&plugin, DLQ_SINK_MODE_QUERY, err, sizeof err);
    cr_assert_not_null (reader, "init (QUERY): %s", err);
}

static void
open_plugin (void)
{
    open_plugin_on (db.table);
}

static const dlq_sink_checkpoint_ops_t *
ckpt (void)
{
    return plugin.ops->checkpoints;
}

/* sql (with %T, %C) for stream must give "t". */
static void
expect_true (const char *sql_with_table, const char *stream, const char *what)
{
    char *v = pg_db_value (&db, sql_with_table, stream);
    cr_expect (v && strcmp (v, "t") == 0, "%s: %s", what, v ? v : "NULL");
    free (v);
}

/* record as dlq_checkpoint_format writes it. Caller frees. */
static char *
formatted (const dlq_sink_checkpoint_t *record)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_checkpoint_format (record, &out);
    dlq_buf_putc (&out, '\0');
    return dlq_buf_steal (&out, NULL);
}

/* Write record as kind says at now through instance; must be OK. The
 * answer; caller frees. */
static char *
write_on (void *instance, dlq_sink_ckpt_write_t kind, const dlq_sink_checkpoint_t *record, int64_t now)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (ckpt ()->write (instance, kind, record, now, dlq_sink_buf (&out)), DLQ_SINK_STATUS_OK,
                  "write %d of %s: %s", (int) kind, record->stream_name, plugin.ops->store->last_error (instance));
    dlq_buf_putc (&out, '\0');
    return dlq_buf_steal (&out, NULL);
}

/* GET stream: its record, or NULL when NOT_FOUND. Caller frees. */
static char *
get (const char *stream)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_sink_status_t status = ckpt ()->get (reader, stream, dlq_sink_buf (&out));
    cr_assert (status == DLQ_SINK_STATUS_OK || status == DLQ_SINK_STATUS_NOT_FOUND, "get %s: %s", stream,
               plugin.ops->store->last_error (reader));
    if (status == DLQ_SINK_STATUS_NOT_FOUND) {
        cr_expect_eq (out.len, 0, "NOT_FOUND writes nothing");
        dlq_buf_free (&out);
        return NULL;
    }
    dlq_buf_putc (&out, '\0');
    return dlq_buf_steal (&out, NULL);
}

/* A write of kind answers want, and GET then gives want too. */
static void
expect_write (dlq_sink_ckpt_write_t kind, const dlq_sink_checkpoint_t *record, int64_t now,
              const dlq_sink_checkpoint_t *want)
{
    char *expected = formatted (want), *got = write_on (reader, kind, record, now), *again = get (want->stream_name);
    cr_expect_str_eq (got, expected, "the answer of write %d:\n%s\nwant\n%s", (int) kind, got, expected);
    cr_expect_str_eq (again ? again : "(NOT_FOUND)", expected, "GET after write %d:\n%s\nwant\n%s", (int) kind,
                      again ? again : "(NOT_FOUND)", expected);
    free (expected);
    free (got);
    free (again);
}

/* A SEEN or PROCESSED request's record: stream, the token, its time. */
static dlq_sink_checkpoint_t
token_write (dlq_sink_ckpt_write_t kind, const char *stream, const char *token, int64_t at)
{
    dlq_sink_checkpoint_t r = dlq_checkpoint_empty (stream);
    if (kind == DLQ_SINK_CKPT_SEEN) {
        r.last_seen_token = token;
        r.last_seen_at = at;
    } else {
        r.last_processed_token = token;
        r.last_processed_at = at;
    }
    return r;
}

/* A record with every field set. */
static dlq_sink_checkpoint_t
full (const char *stream)
{
    dlq_sink_checkpoint_t r = dlq_checkpoint_empty (stream);
    r.instance_id = "worker-7";
    r.last_seen_token = "{\"_data\":\"8265F0A1B2000000022B\"}";
    r.last_seen_at = NOW - 2000;
    r.last_processed_token = "{\"_data\":\"8265F0A1B2000000012B\"}";
    r.last_processed_at = NOW - 3000;
    r.metadata = "{\"tenant\":\"acme\",\"shard\":2.0,\"tags\":[\"x\",null,true]}";
    return r;
}

/* ---- writes --------------------------------------------------------------------------- */

#define ONLY_SEEN "SELECT instance_id IS NULL AND last_processed_token IS NULL AND last_processed_token_text IS NULL " \
                  "AND last_processed_ts IS NULL AND metadata IS NULL AND metadata_text IS NULL " \
                  "AND last_seen_token = last_seen_token_text::jsonb FROM %C WHERE stream_name = $1"
#define ONLY_PROCESSED "SELECT instance_id IS NULL AND last_seen_token IS NULL AND last_seen_token_text IS NULL " \
                       "AND last_seen_ts IS NULL AND metadata IS NULL AND metadata_text IS NULL " \
                       "AND last_processed_token = last_processed_token_text::jsonb FROM %C WHERE stream_name = $1"

Test (postgres_ckpt, seen_or_processed_on_a_missing_record_creates_it_with_only_that_pair)
{
    open_plugin ();
    dlq_sink_checkpoint_t seen = token_write (DLQ_SINK_CKPT_SEEN, "orders", "{\"_data\":\"82AA\"}", NOW - 500);
    dlq_sink_checkpoint_t want = seen;
    want.updated_at = NOW;
    expect_write (DLQ_SINK_CKPT_SEEN, &seen, NOW, &want);
    expect_true (ONLY_SEEN, "orders", "SEEN created the row with only its pair");

    dlq_sink_checkpoint_t done = token_write (DLQ_SINK_CKPT_PROCESSED, "payments", "{\"_data\":\"82BB\"}", NOW - 700);
    want = done;
    want.updated_at = NOW + 1;
    expect_write (DLQ_SINK_CKPT_PROCESSED, &done, NOW + 1, &want);
    expect_true (ONLY_PROCESSED, "payments", "PROCESSED created the row with only its pair");
    expect_true ("SELECT updated_at = '2026-06-09T14:32:13.501Z'::timestamptz FROM %C WHERE stream_name = $1",
                 "payments", "updated_at is the caller's now_ms");
    char *other = get ("orders");
    dlq_sink_checkpoint_t orders_record = seen;
    orders_record.updated_at = NOW;
    char *orders = formatted (&orders_record);
    cr_expect_str_eq (other, orders, "another stream's write leaves it");
    free (other);
    free (orders);
}

Test (postgres_ckpt, seen_and_processed_never_touch_the_other_fields)
{
    open_plugin ();
    dlq_sink_checkpoint_t record = full ("orders");
    dlq_sink_checkpoint_t want = record;
    want.updated_at = NOW;
    expect_write (DLQ_SINK_CKPT_SAVE, &record, NOW, &want);

    dlq_sink_checkpoint_t seen = token_write (DLQ_SINK_CKPT_SEEN, "orders", "{\"_data\":\"82CC\",\"n\":1}", NOW + 10);
    want.last_seen_token = seen.last_seen_token;
    want.last_seen_at = NOW + 10;
    want.updated_at = NOW + 20;
    expect_write (DLQ_SINK_CKPT_SEEN, &seen, NOW + 20, &want);

    dlq_sink_checkpoint_t done = token_write (DLQ_SINK_CKPT_PROCESSED, "orders", "{\"_data\":\"82DD\"}", NOW + 5);
    want.last_processed_token = done.last_processed_token;
    want.last_processed_at = NOW + 5;
    want.updated_at = NOW + 30;
    expect_write (DLQ_SINK_CKPT_PROCESSED, &done, NOW + 30, &want);
    expect_true ("SELECT instance_id = 'worker-7' AND metadata = metadata_text::jsonb FROM %C WHERE stream_name = $1",
                 "orders", "instance and metadata untouched");

    /* a SEEN given other fields still writes only its pair */
    dlq_sink_checkpoint_t stray = full ("orders");
    stray.last_seen_token = "{\"_data\":\"82EE\"}";
    stray.instance_id = "intruder";
    stray.metadata = "{}";
    want.last_seen_token = stray.last_seen_token;
    want.last_seen_at = stray.last_seen_at;
    want.updated_at = NOW + 40;
    expect_write (DLQ_SINK_CKPT_SEEN, &stray, NOW + 40, &want);
}

Test (postgres_ckpt, save_replaces_every_field)
{
    open_plugin ();
    dlq_sink_checkpoint_t record = full ("orders");
    dlq_sink_checkpoint_t want = record;
    want.updated_at = NOW;
    expect_write (DLQ_SINK_CKPT_SAVE, &record, NOW, &want);

    dlq_sink_checkpoint_t partial = dlq_checkpoint_empty ("orders");
    partial.instance_id = "worker-8";
    want = partial;
    want.updated_at = NOW + 1;
    expect_write (DLQ_SINK_CKPT_SAVE, &partial, NOW + 1, &want);
    expect_true ("SELECT last_seen_token IS NULL AND last_seen_token_text IS NULL AND last_seen_ts IS NULL "
                 "AND last_processed_token IS NULL AND last_processed_token_text IS NULL AND last_processed_ts IS NULL "
                 "AND metadata IS NULL AND metadata_text IS NULL AND instance_id = 'worker-8' "
                 "FROM %C WHERE stream_name = $1", "orders", "absent fields are NULL");

    dlq_sink_checkpoint_t bare = dlq_checkpoint_empty ("orders");
    want = bare;
    want.updated_at = NOW + 2;
    expect_write (DLQ_SINK_CKPT_SAVE, &bare, NOW + 2, &want);
    char *answer = get ("orders");
    cr_expect_str_eq (answer, "{\"streamName\":\"orders\",\"updatedAt\":\"2026-06-09T14:32:13.502Z\"}");
    free (answer);

    dlq_sink_checkpoint_t created = full ("new");
    want = created;
    want.updated_at = NOW + 3;
    expect_write (DLQ_SINK_CKPT_SAVE, &created, NOW + 3, &want);
}

/* Texts as the gateway's dlq_json_write makes them: key order, escapes,
 * numbers as written; the last two JSONB refuses. */
static const char *const texts [] = {
    "{\"_data\":\"826A\",\"z\":1,\"a\":{\"$numberLong\":\"9007199254740993\"}}",
    "{\"k\":\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\",\"esc\":\"\\\"\\\\\\n\\t\\u0001\"}",
    "{\"n\":1.50,\"m\":-0,\"e\":1E+2,\"f\":[0.1e-3,100000000000000000000000000001]}",
    "{\"a\":1,\"a\":2}",
    "{\"nested\":{\"deep\":[{\"x\":[]},{}]},\"empty\":\"\"}",
    "{\"nul\":\"a\\u0000b\"}",
    "{\"big\":1e99999}",
};

Test (postgres_ckpt, tokens_and_metadata_come_back_byte_for_byte)
{
    open_plugin ();
    size_t n = sizeof texts / sizeof texts [0];
    for (size_t i = 0; i < n; i++) {
        char stream [32];
        snprintf (stream, sizeof stream, "stream-%zu", i);
        dlq_sink_checkpoint_t record = full (stream);
        record.last_seen_token = texts [i];
        record.last_processed_token = texts [(i + 1) % n];
        record.metadata = texts [(i + 2) % n];
        dlq_sink_checkpoint_t want = record;
        want.updated_at = NOW;
        expect_write (DLQ_SINK_CKPT_SAVE, &record, NOW, &want);
        char *text = pg_db_value (&db, "SELECT last_seen_token_text FROM %C WHERE stream_name = $1", stream);
        cr_expect_str_eq (text, texts [i], "the text column");
        free (text);
        char *copy = pg_db_value (&db, "SELECT last_seen_token IS NOT NULL FROM %C WHERE stream_name = $1", stream);
        cr_expect_str_eq (copy, dlq_pg_jsonb_holds (texts [i]) ? "t" : "f", "the JSONB copy of %s", texts [i]);
        free (copy);

        dlq_sink_checkpoint_t seen = token_write (DLQ_SINK_CKPT_SEEN, stream, texts [(i + 3) % n], NOW);
        want.last_seen_token = seen.last_seen_token;
        want.last_seen_at = NOW;
        want.updated_at = NOW + 1;
        expect_write (DLQ_SINK_CKPT_SEEN, &seen, NOW + 1, &want);
    }
    expect_true ("SELECT count(*) = 2 FROM %C WHERE metadata IS NULL AND metadata_text IS NOT NULL", NULL,
                 "the metadata JSONB refuses has no copy, and only that");
    expect_true ("SELECT last_processed_token->'a'->>'$numberLong' = '9007199254740993' FROM %C "
                 "WHERE stream_name = $1", "stream-6", "the JSONB copy answers SQL");
}

Test (postgres_ckpt, timestamps_to_the_millisecond)
{
    open_plugin ();
    static const char *const times [] = {
        "1970-01-01T00:00:00.000Z", "1969-12-31T23:59:59.999Z", "0001-01-01T00:00:00.000Z",
        "9999-12-31T23:59:59.999Z", "2026-06-09T14:32:13.007Z", "2000-02-29T12:00:00.999Z",
    };
    for (size_t i = 0; i < sizeof times / sizeof times [0]; i++) {
        int64_t at = 0;
        cr_assert (dlq_time_parse_iso (times [i], strlen (times [i]), &at));
        dlq_sink_checkpoint_t seen = token_write (DLQ_SINK_CKPT_SEEN, "t", "{\"_data\":\"1\"}", at);
        dlq_sink_checkpoint_t done = token_write (DLQ_SINK_CKPT_PROCESSED, "t", "{\"_data\":\"2\"}", at);
        char *answer = write_on (reader, DLQ_SINK_CKPT_SEEN, &seen, at);
        free (answer);
        answer = write_on (reader, DLQ_SINK_CKPT_PROCESSED, &done, at);
        char want [256];
        snprintf (want, sizeof want, "{\"streamName\":\"t\",\"lastSeenToken\":{\"_data\":\"1\"},\"lastSeenTimestamp\":"
                  "\"%s\",\"lastProcessedToken\":{\"_data\":\"2\"},\"lastProcessedTimestamp\":\"%s\","
                  "\"updatedAt\":\"%s\"}", times [i], times [i], times [i]);
        cr_expect_str_eq (answer, want);
        free (answer);
    }
}

/* ---- get and remove ---------------------------------------------------------------------- */

Test (postgres_ckpt, get_of_a_missing_record_is_not_found)
{
    open_plugin ();
    char *none = get ("nowhere");
    cr_expect_null (none);
    free (none);
    dlq_sink_checkpoint_t record = full ("somewhere");
    free (write_on (reader, DLQ_SINK_CKPT_SAVE, &record, NOW));
    none = get ("somewher");
    cr_expect_null (none, "no prefix match");
    free (none);
    none = get ("SOMEWHERE");
    cr_expect_null (none, "names are compared byte for byte");
    free (none);
}

Test (postgres_ckpt, remove_says_whether_there_was_a_record)
{
    open_plugin ();
    dlq_sink_checkpoint_t record = full ("orders"), other = full ("orders2");
    free (write_on (reader, DLQ_SINK_CKPT_SAVE, &record, NOW));
    free (write_on (reader, DLQ_SINK_CKPT_SAVE, &other, NOW));
    bool deleted = false;
    cr_assert_eq (ckpt ()->remove (reader, "orders", &deleted), DLQ_SINK_STATUS_OK);
    cr_expect (deleted, "there was one");
    char *gone = get ("orders");
    cr_expect_null (gone);
    free (gone);
    deleted = true;
    cr_assert_eq (ckpt ()->remove (reader, "orders", &deleted), DLQ_SINK_STATUS_OK, "a second DELETE is OK");
    cr_expect (!deleted, "there was none");
    char *kept = get ("orders2");
    cr_expect_not_null (kept, "another record is kept");
    free (kept);
    dlq_sink_checkpoint_t seen = token_write (DLQ_SINK_CKPT_SEEN, "orders", "{\"_data\":\"9\"}", NOW);
    dlq_sink_checkpoint_t want = seen;
    want.updated_at = NOW + 5;
    expect_write (DLQ_SINK_CKPT_SEEN, &seen, NOW + 5, &want);
}

/* ---- list ------------------------------------------------------------------------------- */

static const char *const names [] = {
    "a", "a%", "a%b", "a_b", "ab", "a\\b", "aB", "A", "b", "%", "_", "a b", "\xc3\xa9",
    "e\xcc\x81", "\xe2\x82\xac" "x", "\xf0\x9f\x98\x80", "z", "orders.v1", "orders.v2", "orders_v3", "ordersX",
    "\xc3\xa9t\xc3\xa9", "~",
};
#define NAMES (sizeof names / sizeof names [0])

static int
by_bytes (const void *a, const void *b)
{
    return strcmp (*(const char *const *) a, *(const char *const *) b);
}

/* The names starting with prefix, in byte order: into out; how many. */
static size_t
expected_names (const char *prefix, const char **out)
{
    size_t n = 0;
    for (size_t i = 0; i < NAMES; i++)
        if (strncmp (names [i], prefix, strlen (prefix)) == 0)
            out [n++] = names [i];
    qsort (out, n, sizeof *out, by_bytes);
    return n;
}

/* SEEN for every name, token {"_data":"<index>"}. */
static void
store_names (void)
{
    open_plugin ();
    for (size_t i = 0; i < NAMES; i++) {
        char token [32];
        snprintf (token, sizeof token, "{\"_data\":\"%zu\"}", i);
        dlq_sink_checkpoint_t seen = token_write (DLQ_SINK_CKPT_SEEN, names [i], token, NOW + (int64_t) i);
        free (write_on (reader, DLQ_SINK_CKPT_SEEN, &seen, NOW));
    }
}

/* The record stored for name by store_names. Caller frees. */
static char *
stored_record (const char *name)
{
    for (size_t i = 0; i < NAMES; i++)
        if (strcmp (names [i], name) == 0) {
            char token [32];
            snprintf (token, sizeof token, "{\"_data\":\"%zu\"}", i);
            dlq_sink_checkpoint_t r = token_write (DLQ_SINK_CKPT_SEEN, name, token, NOW + (int64_t) i);
            r.updated_at = NOW;
            return formatted (&r);
        }
    return strdup ("(not stored)");
}

/* Page through LIST of prefix with pages of size: the records, in byte
 * order, each page full but the last, the last without a cursor. */
static void
expect_list (const char *prefix, size_t size)
{
    const char *want [NAMES];
    size_t n = expected_names (prefix, want), got = 0, pages = 0;
    dlq_buf_t page = DLQ_BUF_INIT, next = DLQ_BUF_INIT;
    char *cursor = NULL;
    do {
        dlq_buf_reset (&page);
        dlq_buf_reset (&next);
        cr_assert_eq (ckpt ()->list (reader, prefix, size, cursor, dlq_sink_buf (&page), dlq_sink_buf (&next)),
                      DLQ_SINK_STATUS_OK, "prefix %s: %s", prefix, plugin.ops->store->last_error (reader));
        pages++;
        dlq_json_doc_t *doc = NULL;
        cr_assert_eq (dlq_json_parse (page.data, page.len, &doc, NULL), DLQ_JSON_OK, "%.*s", (int) page.len, page.data);
        const dlq_json_value_t *root = dlq_json_root (doc);
        cr_assert_eq (root->type, DLQ_JSON_ARRAY);
        for (const dlq_json_value_t *r = root->child; r; r = r->next) {
            cr_assert_lt (got, n, "prefix %s: more records than the %zu expected", prefix, n);
            dlq_buf_t body = DLQ_BUF_INIT;
            dlq_json_write (&body, r);
            char *stored = stored_record (want [got]);
            cr_expect_str_eq (body.data, stored, "prefix %s, page size %zu: record %zu", prefix, size, got);
            free (stored);
            dlq_buf_free (&body);
            got++;
        }
        bool last = next.len == 0;
        cr_expect (last || root->count == size, "prefix %s: a page before the last is full", prefix);
        dlq_json_doc_destroy (&doc);
        free (cursor);
        cursor = last ? NULL : strndup (next.data, next.len);
    } while (cursor && pages <= NAMES + 1);
    cr_expect_eq (got, n, "prefix %s, page size %zu: %zu listed, %zu expected", prefix, size, got, n);
    size_t want_pages = n == 0 ? 1 : (n + size - 1) / size;
    cr_expect_eq (pages, want_pages, "prefix %s, page size %zu: pages", prefix, size);
    dlq_buf_free (&page);
    dlq_buf_free (&next);
}

Test (postgres_ckpt, list_pages_in_byte_order_with_a_literal_prefix)
{
    store_names ();
    static const char *const prefixes [] = {
        "", "a", "a%", "a_", "a\\", "%", "_", "orders.", "orders_", "orders", "\xc3\xa9", "e",
        "\xf0\x9f\x98\x80", "A", "nothing",
    };
    static const size_t sizes [] = { 1, 2, 3, 7, 1000 };
    for (size_t p = 0; p < sizeof prefixes / sizeof prefixes [0]; p++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes [0]; s++)
            expect_list (prefixes [p], sizes [s]);
    dlq_buf_t page = DLQ_BUF_INIT, next = DLQ_BUF_INIT;
    cr_assert_eq (ckpt ()->list (reader, NULL, 3, NULL, dlq_sink_buf (&page), dlq_sink_buf (&next)),
                  DLQ_SINK_STATUS_OK, "a NULL prefix is every record");
    const char *sorted [NAMES];
    expected_names ("", sorted);
    dlq_buf_putc (&next, '\0');
    cr_expect_str_eq (next.data, sorted [2], "the cursor is the page's last name");
    dlq_buf_free (&page);
    dlq_buf_free (&next);
}

Test (postgres_ckpt, a_cursor_is_a_position_in_byte_order)
{
    store_names ();
    dlq_buf_t page = DLQ_BUF_INIT, next = DLQ_BUF_INIT;
    cr_assert_eq (ckpt ()->list (reader, "", 1000, "a%a", dlq_sink_buf (&page), dlq_sink_buf (&next)),
                  DLQ_SINK_STATUS_OK, "%s", plugin.ops->store->last_error (reader));
    dlq_buf_putc (&page, '\0');
    const char *first = strstr (page.data, "\"streamName\":");
    cr_assert_not_null (first, "%s", page.data);
    cr_expect_eq (strncmp (first, "\"streamName\":\"a%b\"", 18), 0, "the first name after a%%a: %.30s", first);
    cr_expect_eq (next.len, 0, "one page");
    static const char *const bad [] = { "\xff", "a\xc3", NULL };
    char *too_long = calloc (DLQ_CKPT_STREAM_MAX + 2, 1);
    memset (too_long, 'a', DLQ_CKPT_STREAM_MAX + 1);
    for (int i = 0; i < 3; i++) {
        const char *cursor = bad [i] ? bad [i] : too_long;
        dlq_buf_reset (&page);
        dlq_buf_reset (&next);
        cr_expect_eq (ckpt ()->list (reader, "", 10, cursor, dlq_sink_buf (&page), dlq_sink_buf (&next)),
                      DLQ_SINK_STATUS_BAD_CURSOR, "cursor %d", i);
        cr_expect_eq (page.len + next.len, 0, "nothing written");
    }
    free (too_long);
    dlq_buf_reset (&page);
    cr_assert_eq (ckpt ()->list (reader, "~", 10, "", dlq_sink_buf (&page), dlq_sink_buf (&next)), DLQ_SINK_STATUS_OK,
                  "an empty cursor is the first page: %s", plugin.ops->store->last_error (reader));
    dlq_buf_putc (&page, '\0');
    cr_expect_not_null (strstr (page.data, "\"streamName\":\"~\""), "%s", page.data);
    dlq_buf_free (&page);
    dlq_buf_free (&next);
}

Test (postgres_ckpt, a_prefix_page_is_a_range_of_the_primary_key)
{
    store_names ();
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

/* ---- two writers of one stream ------------------------------------------------------------------ */

typedef struct {
    dlq_sink_ckpt_write_t kind;
    void                 *instance;
    int                   errors;
    int                   backwards;      /* the other token went back */
    int                   not_own;        /* the answer lacked the token just written */
    int                   moved;          /* answers where the other token had moved on */
    char                  error [512];
} writer_t;

/* The number in the _data of member name's token in record ("<kind>-N"); -1 when absent. */
static int
token_number (const dlq_json_value_t *record, const char *name)
{
    const dlq_json_value_t *data = dlq_json_get (dlq_json_get (record, name), "_data");
    if (!data || data->type != DLQ_JSON_STRING)
        return -1;
    const char *dash = memchr (data->str, '-', data->len);
    return dash ? atoi (dash + 1) : -1;
}

/* Check one answer of writer w's write number i. */
static void
check_answer (writer_t *w, const dlq_buf_t *out, int i, int *other_last)
{
    bool seen = w->kind == DLQ_SINK_CKPT_SEEN;
    dlq_json_doc_t *doc = NULL;
    if (dlq_json_parse (out->data, out->len, &doc, NULL) != DLQ_JSON_OK) {
        snprintf (w->error, sizeof w->error, "not JSON: %.200s", out->data);
        w->errors++;
        return;
    }
    const dlq_json_value_t *root = dlq_json_root (doc);
    if (token_number (root, seen ? "lastSeenToken" : "lastProcessedToken") != i)
        w->not_own++;
    int other = token_number (root, seen ? "lastProcessedToken" : "lastSeenToken");
    if (other < *other_last)
        w->backwards++;
    if (other > *other_last && *other_last >= 0)
        w->moved++;
    *other_last = other;
    dlq_json_doc_destroy (&doc);
}

/* CONCURRENT writes of w->kind to stream "busy", tokens <kind>-0 ... */
static void *
writer (void *arg)
{
    writer_t *w = arg;
    bool seen = w->kind == DLQ_SINK_CKPT_SEEN;
    dlq_buf_t out = DLQ_BUF_INIT;
    int other_last = -1;
    for (int i = 0; i < CONCURRENT && w->errors < 5; i++) {
        char token [64];
        snprintf (token, sizeof token, "{\"_data\":\"%s-%d\"}", seen ? "seen" : "processed", i);
        dlq_sink_checkpoint_t r = token_write (w->kind, "busy", token, NOW + i);
        dlq_buf_reset (&out);
        if (ckpt ()->write (w->instance, w->kind, &r, NOW + i, dlq_sink_buf (&out)) != DLQ_SINK_STATUS_OK) {
            snprintf (w->error, sizeof w->error, "%s", plugin.ops->store->last_error (w->instance));
            w->errors++;
            continue;
        }
        check_answer (w, &out, i, &other_last);
    }
    dlq_buf_free (&out);
    return NULL;
}

Test (postgres_ckpt, two_connections_writing_seen_and_processed_never_undo_each_other)
{
    open_plugin ();
    writer_t w [2];
    pthread_t threads [2];
    memset (w, 0, sizeof w);
    w [0].kind = DLQ_SINK_CKPT_SEEN;
    w [1].kind = DLQ_SINK_CKPT_PROCESSED;
    for (int t = 0; t < 2; t++) {
        char err [512];
        w [t].instance = test_plugin_open (&plugin, DLQ_SINK_MODE_QUERY, err, sizeof err);
        cr_assert_not_null (w [t].instance, "%s", err);
    }
    for (int t = 0; t < 2; t++)
        cr_assert_eq (pthread_create (&threads [t], NULL, writer, &w [t]), 0);
    for (int t = 0; t < 2; t++)
        pthread_join (threads [t], NULL);
    cr_log_info ("answers where the other token had moved: SEEN %d, PROCESSED %d", w [0].moved, w [1].moved);
    cr_expect_gt (w [0].moved + w [1].moved, 0, "the writers ran one after the other: nothing was tested");
    for (int t = 0; t < 2; t++) {
        cr_expect_eq (w [t].errors, 0, "writer %d: %s", t, w [t].error);
        cr_expect_eq (w [t].not_own, 0, "writer %d: answers without its own token", t);
        cr_expect_eq (w [t].backwards, 0, "writer %d: the other token went back", t);
        plugin.ops->destroy (w [t].instance);
    }
    char *final = get ("busy");
    dlq_sink_checkpoint_t want = dlq_checkpoint_empty ("busy");
    want.last_seen_token = "{\"_data\":\"seen-1999\"}";
    want.last_seen_at = NOW + CONCURRENT - 1;
    want.last_processed_token = "{\"_data\":\"processed-1999\"}";
    want.last_processed_at = NOW + CONCURRENT - 1;
    want.updated_at = NOW + CONCURRENT - 1;
    char *expected = formatted (&want);
    cr_expect_str_eq (final, expected, "the last token of each");
    free (expected);
    free (final);
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
    cr_assert_eq (plugin.ops->store->get (reader, "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182", NOW, dlq_sink_buf (&event)),
                  DLQ_SINK_STATUS_OK, "%s", plugin.ops->store->last_error (reader));
    dlq_buf_putc (&event, '\0');
    cr_expect_str_eq (event.data, "{\"kept\":true}", "the version 2 rows are kept");
    dlq_buf_free (&event);
    dlq_sink_checkpoint_t record = full ("orders");
    dlq_sink_checkpoint_t want = record;
    want.updated_at = NOW;
    expect_write (DLQ_SINK_CKPT_SAVE, &record, NOW, &want);

    pg_db_command (&db, "DROP TABLE %C");
    dlq_sink_checkpoint_t seen = token_write (DLQ_SINK_CKPT_SEEN, "orders", "{\"_data\":\"1\"}", NOW);
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_sink_status_t first = ckpt ()->write (reader, DLQ_SINK_CKPT_SEEN, &seen, NOW, dlq_sink_buf (&out));
    if (first != DLQ_SINK_STATUS_OK)
        cr_expect_not_null (strstr (plugin.ops->store->last_error (reader), "42P01"), "%s",
                            plugin.ops->store->last_error (reader));
    dlq_buf_free (&out);
    want = seen;
    want.updated_at = NOW + 1;
    expect_write (DLQ_SINK_CKPT_SEEN, &seen, NOW + 1, &want);
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
    dlq_sink_checkpoint_t record = full ("orders");
    free (write_on (reader, DLQ_SINK_CKPT_SAVE, &record, NOW));
    char name [DLQ_PG_NAME_MAX + 1];
    dlq_pg_ckpt_table_name (long_table, name);
    cr_expect_leq (strlen (name), DLQ_PG_NAME_MAX, "%s", name);
    cr_expect_eq (strcmp (name + strlen (name) - strlen ("_checkpoints"), "_checkpoints"), 0, "%s", name);
    char *count = pg_db_value (&db, "SELECT count(*) FROM pg_catalog.pg_class WHERE relname = $1", name);
    cr_expect_str_eq (count, "1", "the checkpoint table is %s", name);
    free (count);
}
