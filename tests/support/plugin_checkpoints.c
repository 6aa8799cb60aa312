/*  plugin_checkpoints — a sink plugin's checkpoint calls driven from a
 *  test; see the header.
 */
#include "plugin_checkpoints.h"

#include "dlq_buf.h"
#include "dlq_json.h"
#include "plugin_host.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NOW         PLUGIN_CKPT_NOW
#define CONCURRENT  2000            /* writes of each writer */

/* ---- the plugin ---------------------------------------------------------------------- */

void
plugin_ckpt_open (plugin_ckpt_t *c)
{
    const dlq_sink_ops_t *ops = c->plugin.ops;
    cr_assert (DLQ_SINK_OPS_HAS (ops, checkpoints) && ops->checkpoints, "no checkpoint calls");
    cr_assert_eq (ops->checkpoints->struct_size, sizeof (dlq_sink_checkpoint_ops_t));
    c->reader = plugin_ckpt_instance (c);
}

void *
plugin_ckpt_instance (const plugin_ckpt_t *c)
{
    char err [512];
    void *instance = test_plugin_open (&c->plugin, DLQ_SINK_MODE_QUERY, err, sizeof err);
    cr_assert_not_null (instance, "init (QUERY): %s", err);
    return instance;
}

void
plugin_ckpt_close (plugin_ckpt_t *c)
{
    if (c->reader)
        c->plugin.ops->destroy (c->reader);
    c->reader = NULL;
    test_plugin_unload (&c->plugin);
}

const dlq_sink_checkpoint_ops_t *
plugin_ckpt_ops (const plugin_ckpt_t *c)
{
    return c->plugin.ops->checkpoints;
}

const char *
plugin_ckpt_error (const plugin_ckpt_t *c, void *instance)
{
    const dlq_sink_store_ops_t *store = c->plugin.ops->store;
    return store->last_error ? store->last_error (instance) : "(the plugin has no last_error call)";
}

/* ---- records --------------------------------------------------------------------------- */

char *
plugin_ckpt_formatted (const dlq_sink_checkpoint_t *record)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_checkpoint_format (record, &out);
    dlq_buf_putc (&out, '\0');
    return dlq_buf_steal (&out, NULL);
}

char *
plugin_ckpt_write (const plugin_ckpt_t *c, void *instance, dlq_sink_ckpt_write_t kind,
                   const dlq_sink_checkpoint_t *record, int64_t now)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (plugin_ckpt_ops (c)->write (instance, kind, record, now, dlq_plugin_host_buf (&out)), DLQ_SINK_STATUS_OK,
                  "write %d of %s: %s", (int) kind, record->stream_name, plugin_ckpt_error (c, instance));
    dlq_buf_putc (&out, '\0');
    return dlq_buf_steal (&out, NULL);
}

char *
plugin_ckpt_get (const plugin_ckpt_t *c, const char *stream)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_sink_status_t status = plugin_ckpt_ops (c)->get (c->reader, stream, dlq_plugin_host_buf (&out));
    cr_assert (status == DLQ_SINK_STATUS_OK || status == DLQ_SINK_STATUS_NOT_FOUND, "get %s: %s", stream,
               plugin_ckpt_error (c, c->reader));
    if (status == DLQ_SINK_STATUS_NOT_FOUND) {
        cr_expect_eq (out.len, 0, "NOT_FOUND writes nothing");
        dlq_buf_free (&out);
        return NULL;
    }
    dlq_buf_putc (&out, '\0');
    return dlq_buf_steal (&out, NULL);
}

void
plugin_ckpt_expect_write (const plugin_ckpt_t *c, dlq_sink_ckpt_write_t kind, const dlq_sink_checkpoint_t *record,
                          int64_t now, const dlq_sink_checkpoint_t *want)
{
    char *expected = plugin_ckpt_formatted (want), *got = plugin_ckpt_write (c, c->reader, kind, record, now);
    char *again = plugin_ckpt_get (c, want->stream_name);
    cr_expect_str_eq (got, expected, "the answer of write %d:\n%s\nwant\n%s", (int) kind, got, expected);
    cr_expect_str_eq (again ? again : "(NOT_FOUND)", expected, "GET after write %d:\n%s\nwant\n%s", (int) kind,
                      again ? again : "(NOT_FOUND)", expected);
    free (expected);
    free (got);
    free (again);
}

dlq_sink_checkpoint_t
plugin_ckpt_token (dlq_sink_ckpt_write_t kind, const char *stream, const char *token, int64_t at)
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

dlq_sink_checkpoint_t
plugin_ckpt_full (const char *stream)
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

/* A write of kind of record at now makes the record record itself, with
 * updatedAt now (a SAVE; a SEEN or PROCESSED of a missing record). */
static void
expect_whole (const plugin_ckpt_t *c, dlq_sink_ckpt_write_t kind, const dlq_sink_checkpoint_t *record, int64_t now)
{
    dlq_sink_checkpoint_t want = *record;
    want.updated_at = now;
    plugin_ckpt_expect_write (c, kind, record, now, &want);
}

static void
expect_save (const plugin_ckpt_t *c, const dlq_sink_checkpoint_t *record, int64_t now)
{
    expect_whole (c, DLQ_SINK_CKPT_SAVE, record, now);
}

/* ---- writes ------------------------------------------------------------------------------ */

/* A token write of kind creating stream's record at now: only that pair
 * (only_pair checks it behind the plugin; NULL: nothing). */
static void
expect_created (const plugin_ckpt_t *c, dlq_sink_ckpt_write_t kind, const char *stream, const char *token,
                int64_t at, int64_t now, plugin_ckpt_kind_fn *only_pair)
{
    dlq_sink_checkpoint_t record = plugin_ckpt_token (kind, stream, token, at);
    expect_whole (c, kind, &record, now);
    if (only_pair)
        only_pair (stream, kind);
}

void
plugin_ckpt_expect_first_writes (const plugin_ckpt_t *c, plugin_ckpt_kind_fn *only_pair)
{
    expect_created (c, DLQ_SINK_CKPT_SEEN, "orders", "{\"_data\":\"82AA\"}", NOW - 500, NOW, only_pair);
    expect_created (c, DLQ_SINK_CKPT_PROCESSED, "payments", "{\"_data\":\"82BB\"}", NOW - 700, NOW + 1, only_pair);
    char *other = plugin_ckpt_get (c, "orders");
    dlq_sink_checkpoint_t orders_record = plugin_ckpt_token (DLQ_SINK_CKPT_SEEN, "orders", "{\"_data\":\"82AA\"}",
                                                             NOW - 500);
    orders_record.updated_at = NOW;
    char *orders = plugin_ckpt_formatted (&orders_record);
    cr_expect_str_eq (other, orders, "another stream's write leaves it");
    free (other);
    free (orders);
}

/* A write of kind (SEEN or PROCESSED) of record at now changes only
 * the pair of kind in want (and updatedAt), as the answer and GET say. */
static void
expect_pair_write (const plugin_ckpt_t *c, dlq_sink_ckpt_write_t kind, const dlq_sink_checkpoint_t *record,
                   int64_t now, dlq_sink_checkpoint_t *want)
{
    if (kind == DLQ_SINK_CKPT_SEEN) {
        want->last_seen_token = record->last_seen_token;
        want->last_seen_at = record->last_seen_at;
    } else {
        want->last_processed_token = record->last_processed_token;
        want->last_processed_at = record->last_processed_at;
    }
    want->updated_at = now;
    plugin_ckpt_expect_write (c, kind, record, now, want);
}

/* A write of kind given every field, token the one of its pair. */
static void
expect_stray_ignored (const plugin_ckpt_t *c, dlq_sink_ckpt_write_t kind, const char *token, int64_t now,
                      dlq_sink_checkpoint_t *want)
{
    dlq_sink_checkpoint_t stray = plugin_ckpt_full ("orders");
    stray.last_seen_token = kind == DLQ_SINK_CKPT_SEEN ? token : "{\"_data\":\"intruder\"}";
    stray.last_processed_token = kind == DLQ_SINK_CKPT_PROCESSED ? token : "{\"_data\":\"intruder\"}";
    stray.instance_id = "intruder";
    stray.metadata = "{}";
    expect_pair_write (c, kind, &stray, now, want);
}

void
plugin_ckpt_expect_pairs_only (const plugin_ckpt_t *c, plugin_ckpt_stream_fn *untouched)
{
    dlq_sink_checkpoint_t want = plugin_ckpt_full ("orders");
    expect_save (c, &want, NOW);
    dlq_sink_checkpoint_t seen = plugin_ckpt_token (DLQ_SINK_CKPT_SEEN, "orders", "{\"_data\":\"82CC\",\"n\":1}",
                                                    NOW + 10);
    expect_pair_write (c, DLQ_SINK_CKPT_SEEN, &seen, NOW + 20, &want);
    dlq_sink_checkpoint_t done = plugin_ckpt_token (DLQ_SINK_CKPT_PROCESSED, "orders", "{\"_data\":\"82DD\"}", NOW + 5);
    expect_pair_write (c, DLQ_SINK_CKPT_PROCESSED, &done, NOW + 30, &want);

    expect_stray_ignored (c, DLQ_SINK_CKPT_SEEN, "{\"_data\":\"82EE\"}", NOW + 40, &want);
    expect_stray_ignored (c, DLQ_SINK_CKPT_PROCESSED, "{\"_data\":\"82FF\"}", NOW + 50, &want);
    if (untouched)
        untouched ("orders");
}

void
plugin_ckpt_expect_saves (const plugin_ckpt_t *c, const dlq_sink_checkpoint_t *partial,
                          plugin_ckpt_stream_fn *after_partial, plugin_ckpt_stream_fn *after_bare)
{
    dlq_sink_checkpoint_t record = plugin_ckpt_full ("orders");
    expect_save (c, &record, NOW);
    expect_save (c, partial, NOW + 1);
    if (after_partial)
        after_partial ("orders");

    dlq_sink_checkpoint_t bare = dlq_checkpoint_empty ("orders");
    expect_save (c, &bare, NOW + 2);
    if (after_bare)
        after_bare ("orders");
    char *answer = plugin_ckpt_get (c, "orders");
    cr_expect_str_eq (answer, "{\"streamName\":\"orders\",\"updatedAt\":\"2026-06-09T14:32:13.502Z\"}");
    free (answer);

    dlq_sink_checkpoint_t created = plugin_ckpt_full ("new");
    expect_save (c, &created, NOW + 3);
}

void
plugin_ckpt_expect_texts (const plugin_ckpt_t *c, const char *const *texts, size_t n, plugin_ckpt_text_fn *stored)
{
    for (size_t i = 0; i < n; i++) {
        char stream [32];
        snprintf (stream, sizeof stream, "stream-%zu", i);
        dlq_sink_checkpoint_t record = plugin_ckpt_full (stream);
        record.last_seen_token = texts [i];
        record.last_processed_token = texts [(i + 1) % n];
        record.metadata = texts [(i + 2) % n];
        expect_save (c, &record, NOW);
        if (stored)
            stored (stream, texts [i]);

        dlq_sink_checkpoint_t seen = plugin_ckpt_token (DLQ_SINK_CKPT_SEEN, stream, texts [(i + 3) % n], NOW);
        expect_pair_write (c, DLQ_SINK_CKPT_SEEN, &seen, NOW + 1, &record);
    }
}

/* ---- get and remove ---------------------------------------------------------------------- */

/* GET of stream is NOT_FOUND. */
static void
expect_none (const plugin_ckpt_t *c, const char *stream, const char *why)
{
    char *none = plugin_ckpt_get (c, stream);
    cr_expect_null (none, "%s: %s", stream, why);
    free (none);
}

void
plugin_ckpt_expect_not_found (const plugin_ckpt_t *c)
{
    expect_none (c, "nowhere", "nothing written yet");
    dlq_sink_checkpoint_t record = plugin_ckpt_full ("somewhere");
    free (plugin_ckpt_write (c, c->reader, DLQ_SINK_CKPT_SAVE, &record, NOW));
    expect_none (c, "somewher", "no prefix match");
    expect_none (c, "SOMEWHERE", "names are compared byte for byte");
    expect_none (c, "somewhere ", "names are compared byte for byte");
}

/* Remove stream: OK, and deleted says there was one when was (it is set
 * to the other answer first). */
static void
expect_removed (const plugin_ckpt_t *c, const char *stream, bool was, const char *why)
{
    bool deleted = !was;
    cr_assert_eq (plugin_ckpt_ops (c)->remove (c->reader, stream, &deleted), DLQ_SINK_STATUS_OK, "remove %s: %s",
                  stream, plugin_ckpt_error (c, c->reader));
    cr_expect_eq (deleted, was, "remove %s: %s", stream, why);
}

void
plugin_ckpt_expect_remove (const plugin_ckpt_t *c, plugin_ckpt_stream_fn *gone)
{
    expect_removed (c, "orders", false, "nothing there (nothing written yet)");
    dlq_sink_checkpoint_t record = plugin_ckpt_full ("orders"), other = plugin_ckpt_full ("orders2");
    free (plugin_ckpt_write (c, c->reader, DLQ_SINK_CKPT_SAVE, &record, NOW));
    free (plugin_ckpt_write (c, c->reader, DLQ_SINK_CKPT_SAVE, &other, NOW));
    expect_removed (c, "orders", true, "there was one");
    expect_none (c, "orders", "removed");
    if (gone)
        gone ("orders");
    expect_removed (c, "orders", false, "a second remove is OK: there was none");
    char *kept = plugin_ckpt_get (c, "orders2");
    cr_expect_not_null (kept, "another record is kept");
    free (kept);
    expect_created (c, DLQ_SINK_CKPT_SEEN, "orders", "{\"_data\":\"9\"}", NOW, NOW + 5, NULL);
}

/* ---- list -------------------------------------------------------------------------------- */

static const char *const names [] = {
    "a", "a%", "a%b", "a_b", "ab", "a\\b", "aB", "A", "b", "%", "_", "a b", "\xc3\xa9",
    "e\xcc\x81", "\xe2\x82\xac" "x", "\xf0\x9f\x98\x80", "z", "orders.v1", "orders.v2", "orders_v3", "ordersX",
    "\xc3\xa9t\xc3\xa9", "~", "a.*", "a^b", "a$",
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

/* The write plugin_ckpt_store_names makes of names [i]. */
static dlq_sink_checkpoint_t
name_write (size_t i, char *token, size_t len, dlq_sink_ckpt_write_t *kind)
{
    snprintf (token, len, "{\"_data\":\"%zu\"}", i);
    *kind = i % 2 ? DLQ_SINK_CKPT_SEEN : DLQ_SINK_CKPT_PROCESSED;
    return plugin_ckpt_token (*kind, names [i], token, NOW + (int64_t) i);
}

void
plugin_ckpt_store_names (const plugin_ckpt_t *c)
{
    for (size_t i = 0; i < NAMES; i++) {
        char token [32];
        dlq_sink_ckpt_write_t kind;
        dlq_sink_checkpoint_t r = name_write (i, token, sizeof token, &kind);
        free (plugin_ckpt_write (c, c->reader, kind, &r, NOW));
    }
}

/* The record stored for name by plugin_ckpt_store_names. Caller frees. */
static char *
stored_record (const char *name)
{
    for (size_t i = 0; i < NAMES; i++)
        if (strcmp (names [i], name) == 0) {
            char token [32];
            dlq_sink_ckpt_write_t kind;
            dlq_sink_checkpoint_t r = name_write (i, token, sizeof token, &kind);
            r.updated_at = NOW;
            return plugin_ckpt_formatted (&r);
        }
    return strdup ("(not stored)");
}

/* Check one LIST page (JSON array) against want from *got on; its number
 * of records into *count. */
static void
check_page (const dlq_buf_t *page, const char *prefix, size_t size, const char **want, size_t n, size_t *got,
            size_t *count)
{
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (page->data, page->len, &doc, NULL), DLQ_JSON_OK, "%.*s", (int) page->len,
                  page->data);
    const dlq_json_value_t *root = dlq_json_root (doc);
    cr_assert_eq (root->type, DLQ_JSON_ARRAY);
    *count = root->count;
    for (const dlq_json_value_t *r = root->child; r; r = r->next) {
        cr_assert_lt (*got, n, "prefix %s: more records than the %zu expected", prefix, n);
        dlq_buf_t body = DLQ_BUF_INIT;
        dlq_json_write (&body, r);
        dlq_buf_putc (&body, '\0');
        char *stored = stored_record (want [*got]);
        cr_expect_str_eq (body.data, stored, "prefix %s, page size %zu: record %zu", prefix, size, *got);
        free (stored);
        dlq_buf_free (&body);
        (*got)++;
    }
    dlq_json_doc_destroy (&doc);
}

/* Page through LIST of prefix with pages of size: the records, in byte
 * order, each page full but the last, the last without a cursor. */
static void
expect_list (const plugin_ckpt_t *c, const char *prefix, size_t size)
{
    const char *want [NAMES];
    size_t n = expected_names (prefix, want), got = 0, pages = 0;
    dlq_buf_t page = DLQ_BUF_INIT, next = DLQ_BUF_INIT;
    char *cursor = NULL;
    do {
        dlq_buf_reset (&page);
        dlq_buf_reset (&next);
        cr_assert_eq (plugin_ckpt_ops (c)->list (c->reader, prefix, size, cursor, dlq_plugin_host_buf (&page),
                                                 dlq_plugin_host_buf (&next)),
                      DLQ_SINK_STATUS_OK, "prefix %s: %s", prefix, plugin_ckpt_error (c, c->reader));
        pages++;
        size_t count = 0;
        check_page (&page, prefix, size, want, n, &got, &count);
        bool last = next.len == 0;
        cr_expect (last || count == size, "prefix %s: a page before the last is full", prefix);
        free (cursor);
        cursor = last ? NULL : strndup (next.data, next.len);
    } while (cursor && pages <= NAMES + 1);
    free (cursor);
    cr_expect_eq (got, n, "prefix %s, page size %zu: %zu listed, %zu expected", prefix, size, got, n);
    size_t want_pages = n == 0 ? 1 : (n + size - 1) / size;
    cr_expect_eq (pages, want_pages, "prefix %s, page size %zu: pages", prefix, size);
    dlq_buf_free (&page);
    dlq_buf_free (&next);
}

void
plugin_ckpt_expect_list_pages (const plugin_ckpt_t *c)
{
    static const char *const prefixes [] = {
        "", "a", "a%", "a_", "a\\", "a.", "a^", "a$", "%", "_", "orders.", "orders_", "orders", "\xc3\xa9", "e",
        "\xf0\x9f\x98\x80", "A", "nothing", "~",
    };
    static const size_t sizes [] = { 1, 2, 3, 7, 1000 };
    for (size_t p = 0; p < sizeof prefixes / sizeof prefixes [0]; p++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes [0]; s++)
            expect_list (c, prefixes [p], sizes [s]);
    dlq_buf_t page = DLQ_BUF_INIT, next = DLQ_BUF_INIT;
    cr_assert_eq (plugin_ckpt_ops (c)->list (c->reader, NULL, 3, NULL, dlq_plugin_host_buf (&page), dlq_plugin_host_buf (&next)),
                  DLQ_SINK_STATUS_OK, "a NULL prefix is every record");
    const char *sorted [NAMES];
    expected_names ("", sorted);
    dlq_buf_putc (&next, '\0');
    cr_expect_str_eq (next.data, sorted [2], "the cursor is the page's last name");
    dlq_buf_free (&page);
    dlq_buf_free (&next);
}

/* LIST with cursors that cannot be names: BAD_CURSOR, nothing written. */
static void
expect_bad_cursors (const plugin_ckpt_t *c)
{
    static const char *const bad [] = { "\xff", "a\xc3", NULL };
    char *too_long = calloc (DLQ_CKPT_STREAM_MAX + 2, 1);
    memset (too_long, 'a', DLQ_CKPT_STREAM_MAX + 1);
    dlq_buf_t page = DLQ_BUF_INIT, next = DLQ_BUF_INIT;
    for (int i = 0; i < 3; i++) {
        const char *cursor = bad [i] ? bad [i] : too_long;
        dlq_buf_reset (&page);
        dlq_buf_reset (&next);
        cr_expect_eq (plugin_ckpt_ops (c)->list (c->reader, "", 10, cursor, dlq_plugin_host_buf (&page),
                                                 dlq_plugin_host_buf (&next)),
                      DLQ_SINK_STATUS_BAD_CURSOR, "cursor %d", i);
        cr_expect_eq (page.len + next.len, 0, "nothing written");
    }
    free (too_long);
    dlq_buf_free (&page);
    dlq_buf_free (&next);
}

/* LIST of prefix after cursor, pages of size: must be OK; the page into
 * page (reset first, NUL-terminated), the next cursor into next. */
static void
list_after (const plugin_ckpt_t *c, const char *prefix, size_t size, const char *cursor, dlq_buf_t *page,
            dlq_buf_t *next, const char *what)
{
    dlq_buf_reset (page);
    dlq_buf_reset (next);
    cr_assert_eq (plugin_ckpt_ops (c)->list (c->reader, prefix, size, cursor, dlq_plugin_host_buf (page),
                                             dlq_plugin_host_buf (next)),
                  DLQ_SINK_STATUS_OK, "%s: %s", what, plugin_ckpt_error (c, c->reader));
    dlq_buf_putc (page, '\0');
}

void
plugin_ckpt_expect_cursors (const plugin_ckpt_t *c)
{
    dlq_buf_t page = DLQ_BUF_INIT, next = DLQ_BUF_INIT;
    list_after (c, "", 1000, "a%a", &page, &next, "after a%a");
    const char *first = strstr (page.data, "\"streamName\":");
    cr_assert_not_null (first, "%s", page.data);
    cr_expect_eq (strncmp (first, "\"streamName\":\"a%b\"", 18), 0, "the first name after a%%a: %.30s", first);
    cr_expect_eq (next.len, 0, "one page");
    expect_bad_cursors (c);
    list_after (c, "~", 10, "", &page, &next, "an empty cursor is the first page");
    cr_expect_not_null (strstr (page.data, "\"streamName\":\"~\""), "%s", page.data);
    list_after (c, "a", 10, "zzz", &page, &next, "a cursor past the prefix");
    cr_expect_str_eq (page.data, "[]", "a cursor past the prefix: an empty page");
    cr_expect_eq (next.len, 0);
    dlq_buf_free (&page);
    dlq_buf_free (&next);
}

/* ---- two writers of one stream ------------------------------------------------------------- */

typedef struct {
    const plugin_ckpt_t  *c;
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
        dlq_sink_checkpoint_t r = plugin_ckpt_token (w->kind, "busy", token, NOW + i);
        dlq_buf_reset (&out);
        if (plugin_ckpt_ops (w->c)->write (w->instance, w->kind, &r, NOW + i, dlq_plugin_host_buf (&out))
            != DLQ_SINK_STATUS_OK) {
            snprintf (w->error, sizeof w->error, "%s", plugin_ckpt_error (w->c, w->instance));
            w->errors++;
            continue;
        }
        check_answer (w, &out, i, &other_last);
    }
    dlq_buf_free (&out);
    return NULL;
}

/* The final record of "busy": the last token of each writer. */
static void
expect_last_tokens (const plugin_ckpt_t *c)
{
    char *final = plugin_ckpt_get (c, "busy");
    dlq_sink_checkpoint_t want = dlq_checkpoint_empty ("busy");
    want.last_seen_token = "{\"_data\":\"seen-1999\"}";
    want.last_seen_at = NOW + CONCURRENT - 1;
    want.last_processed_token = "{\"_data\":\"processed-1999\"}";
    want.last_processed_at = NOW + CONCURRENT - 1;
    want.updated_at = NOW + CONCURRENT - 1;
    char *expected = plugin_ckpt_formatted (&want);
    cr_expect_str_eq (final, expected, "the last token of each");
    free (expected);
    free (final);
}

void
plugin_ckpt_expect_two_writers (const plugin_ckpt_t *c)
{
    writer_t w [2] = { { .c = c, .kind = DLQ_SINK_CKPT_SEEN }, { .c = c, .kind = DLQ_SINK_CKPT_PROCESSED } };
    pthread_t threads [2];
    for (int t = 0; t < 2; t++)
        w [t].instance = plugin_ckpt_instance (c);
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
        c->plugin.ops->destroy (w [t].instance);
    }
    expect_last_tokens (c);
}

/* ---- first writes racing ------------------------------------------------------------------ */

typedef struct {
    const plugin_ckpt_t  *c;
    dlq_sink_ckpt_write_t kind;
    void                 *instance;
    int                   streams;
    pthread_barrier_t    *start;          /* both racers at each stream's start line */
    int                   errors;
    char                  error [512];
} racer_t;

/* The first write of kind to each of the streams race-0000 ..., in step
 * with the other racer. */
static void *
racer (void *arg)
{
    racer_t *r = arg;
    dlq_buf_t out = DLQ_BUF_INIT;
    for (int i = 0; i < r->streams; i++) {
        pthread_barrier_wait (r->start);
        char stream [32];
        snprintf (stream, sizeof stream, "race-%04d", i);
        dlq_sink_checkpoint_t record = plugin_ckpt_token (r->kind, stream, "{\"_data\":\"1\"}", NOW);
        dlq_buf_reset (&out);
        if (plugin_ckpt_ops (r->c)->write (r->instance, r->kind, &record, NOW, dlq_plugin_host_buf (&out))
            != DLQ_SINK_STATUS_OK && r->errors++ == 0)
            snprintf (r->error, sizeof r->error, "%s: %s", stream, plugin_ckpt_error (r->c, r->instance));
    }
    dlq_buf_free (&out);
    return NULL;
}

void
plugin_ckpt_expect_racing_first_writes (const plugin_ckpt_t *c, int streams)
{
    pthread_barrier_t start;
    cr_assert_eq (pthread_barrier_init (&start, NULL, 2), 0);
    racer_t r [2] = { { .c = c, .kind = DLQ_SINK_CKPT_SEEN, .streams = streams, .start = &start },
                      { .c = c, .kind = DLQ_SINK_CKPT_PROCESSED, .streams = streams, .start = &start } };
    pthread_t threads [2];
    for (int t = 0; t < 2; t++)
        r [t].instance = plugin_ckpt_instance (c);
    for (int t = 0; t < 2; t++)
        cr_assert_eq (pthread_create (&threads [t], NULL, racer, &r [t]), 0);
    for (int t = 0; t < 2; t++)
        pthread_join (threads [t], NULL);
    for (int t = 0; t < 2; t++) {
        cr_expect_eq (r [t].errors, 0, "racer %d: %d errors; first: %s", t, r [t].errors, r [t].error);
        c->plugin.ops->destroy (r [t].instance);
    }
    pthread_barrier_destroy (&start);
    for (int i = 0; i < streams; i++) {
        char stream [32];
        snprintf (stream, sizeof stream, "race-%04d", i);
        char *record = plugin_ckpt_get (c, stream);
        cr_expect (record && strstr (record, "\"lastSeenToken\"") && strstr (record, "\"lastProcessedToken\""),
                   "%s: %s", stream, record ? record : "(NOT_FOUND)");
        free (record);
    }
}
