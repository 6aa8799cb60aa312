/*  test_embedded_store — the SQLite spool and primary store.
 *
 *  Every test works in its own mkdtemp directory, removed afterwards. Events
 *  are built by hand (fields plus a JSON body in ->json) rather than through
 *  the codec, and freed with free_event, not dlq_event_destroy. Raw SQLite
 *  connections are used only to look behind the API (row counts, query plans,
 *  a tampered schema version).
 */
#include "embedded_store.h"
#include "dlq_alloc.h"
#include "dlq_buf.h"
#include "dlq_json.h"

#include "store_support.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmp_dir [256];

static void make_dir (void) { test_tmpdir (tmp_dir); }
static void remove_dir (void) { test_rmtree (tmp_dir); }

TestSuite (embedded_store, .init = make_dir, .fini = remove_dir);


/* ------------------------------------------------------------------------ */
/* Helpers */

#define NO_EXPIRY DLQ_TIME_NONE

/* An event with a small JSON body naming its id, stream and a tag. */
static dlq_event_t *
make_event_tagged (const char *id, const char *stream, int64_t created_at,
                   int64_t expires_at, const char *tag)
{
    dlq_event_t *event = dlq_calloc (1, sizeof *event);
    event->id = dlq_strdup (id);
    event->stream_name = dlq_strdup (stream);
    event->error_type = dlq_strdup ("java.lang.IllegalStateException");
    event->status = dlq_strdup (DLQ_STATUS_PENDING);
    event->created_at = created_at;
    event->expires_at = expires_at;
    event->first_attempt_at = DLQ_TIME_NONE;
    event->last_attempt_at = DLQ_TIME_NONE;
    dlq_buf_t body = DLQ_BUF_INIT;
    dlq_buf_printf (&body, "{\"id\":\"%s\",\"tag\":\"%s\"}", id, tag);
    event->json = dlq_buf_steal (&body, &event->json_len);
    return event;
}

static dlq_event_t *
make_event (const char *id, const char *stream, int64_t created_at, int64_t expires_at)
{
    return make_event_tagged (id, stream, created_at, expires_at, "t");
}

static void
free_event (dlq_event_t *event)
{
    if (!event)
        return;
    free (event->id);
    free (event->stream_name);
    free (event->error_type);
    free (event->status);
    free (event->json);
    free (event);
}

static dlq_embedded_t *open_store (dlq_embedded_mode_t mode) { return test_store_embedded (tmp_dir, mode); }

/* Append count events and check the duplicate flags against expect
 * ("nnd": new, new, duplicate). */
static void
append_expect (dlq_embedded_t *store, dlq_event_t **events, size_t count, const char *expect)
{
    bool duplicate [64];
    char err [512] = "";
    cr_assert_leq (count, 64);
    cr_assert_eq (dlq_embedded_append (store, events, count, duplicate, err, sizeof err),
                  DLQ_STORE_OK, "append failed: %s", err);
    for (size_t i = 0; i < count; i++)
        cr_assert_eq (duplicate [i], expect [i] == 'd', "event %zu: duplicate=%d, expected '%c'",
                      i, duplicate [i], expect [i]);
}

/* Append one event and free it. */
static void
append_one (dlq_embedded_t *store, const char *id, const char *stream, int64_t created_at,
            int64_t expires_at)
{
    dlq_event_t *event = make_event (id, stream, created_at, expires_at);
    append_expect (store, &event, 1, "n");
    free_event (event);
}

static void
expect_list (dlq_embedded_t *store, const char *stream, size_t limit, const char *cursor,
             int64_t now, const char *expect_events, const char *expect_cursor)
{
    dlq_buf_t events = DLQ_BUF_INIT, next = DLQ_BUF_INIT;
    cr_assert_eq (dlq_embedded_list (store, stream, limit, cursor, now, &events, &next),
                  DLQ_STORE_OK, "%s", dlq_embedded_last_error (store));
    cr_assert_str_eq (events.data, expect_events);
    if (expect_cursor)
        cr_assert_str_eq (next.data, expect_cursor);
    else
        cr_assert_eq (next.len, 0, "unexpected cursor '%s'", next.data);
    dlq_buf_free (&events);
    dlq_buf_free (&next);
}


/* ------------------------------------------------------------------------ */
/* Append and get */

Test (embedded_store, append_then_get_returns_identical_bytes)
{
    dlq_embedded_t *store = open_store (DLQ_EMBEDDED_WRITER);
    dlq_event_t *event = make_event ("0190a1b2-0000-7000-8000-000000000001", "orders", 1000,
                                     NO_EXPIRY);
    free (event->json);
    event->json = dlq_strdup ("{\"id\":\"0190a1b2-0000-7000-8000-000000000001\","
                              "\"text\":\"caf\xc3\xa9 \\\"q\\\" \\u0000 \xf0\x9f\x98\x80\"}");
    event->json_len = strlen (event->json);
    append_expect (store, &event, 1, "n");

    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (dlq_embedded_get (store, event->id, 2000, &out), DLQ_STORE_OK);
    cr_assert_eq (out.len, event->json_len);
    cr_assert_eq (memcmp (out.data, event->json, out.len), 0);

    dlq_buf_free (&out);
    free_event (event);
    dlq_embedded_destroy (&store);
    cr_assert_null (store);
}

/* The routing columns of schema version 3 are written from the event's
 * members (NULL / 0 when absent), not from its body. */
Test (embedded_store, append_writes_the_routing_columns_from_the_event)
{
    dlq_embedded_t *store = open_store (DLQ_EMBEDDED_WRITER);
    dlq_event_t *full = make_event ("full", "s", 1, NO_EXPIRY);
    full->operation_type = dlq_strdup ("replace");
    full->document_key = dlq_strdup ("{\"_id\":{\"$numberLong\":\"7\"}}");
    full->attempts = 2147483647;
    full->first_attempt_at = -62135596800000;      /* 0001-01-01 */
    dlq_event_t *bare = make_event ("bare", "s", 2, NO_EXPIRY);
    dlq_event_t *batch [] = { full, bare };
    append_expect (store, batch, 2, "nn");
    dlq_embedded_destroy (&store);

    cr_assert_eq (test_store_count (tmp_dir, "SELECT count(*) FROM events WHERE id = 'full'"
                             " AND operation_type = 'replace'"
                             " AND document_key = '{\"_id\":{\"$numberLong\":\"7\"}}'"
                             " AND attempts = 2147483647 AND first_attempt_at = -62135596800000"), 1);
    cr_assert_eq (test_store_count (tmp_dir, "SELECT count(*) FROM events WHERE id = 'bare'"
                             " AND operation_type IS NULL AND document_key IS NULL"
                             " AND attempts = 0 AND first_attempt_at IS NULL"), 1);
    free (full->operation_type);
    free (full->document_key);
    free_event (full);
    free_event (bare);
}

Test (embedded_store, get_missing_is_not_found)
{
    dlq_embedded_t *store = open_store (DLQ_EMBEDDED_WRITER);
    append_one (store, "a", "s", 1, NO_EXPIRY);
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_buf_puts (&out, "stale");
    cr_assert_eq (dlq_embedded_get (store, "b", 10, &out), DLQ_STORE_NOT_FOUND);
    cr_assert_eq (out.len, 0);
    dlq_buf_free (&out);
    dlq_embedded_destroy (&store);
}

Test (embedded_store, expired_is_not_found_before_sweep)
{
    dlq_embedded_t *store = open_store (DLQ_EMBEDDED_WRITER);
    append_one (store, "e", "s", 100, 1000);
    append_one (store, "k", "s", 200, NO_EXPIRY);
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (dlq_embedded_get (store, "e", 999, &out), DLQ_STORE_OK);
    cr_assert_eq (dlq_embedded_get (store, "e", 1000, &out), DLQ_STORE_NOT_FOUND);
    cr_assert_eq (dlq_embedded_get (store, "e", 5000, &out), DLQ_STORE_NOT_FOUND);
    cr_assert_eq (dlq_embedded_get (store, "k", 5000, &out), DLQ_STORE_OK);
    expect_list (store, "s", 10, NULL, 5000, "[{\"id\":\"k\",\"tag\":\"t\"}]", NULL);
    cr_assert_eq (test_store_count (tmp_dir, "SELECT count(*) FROM events"), 2, "nothing swept yet");
    dlq_buf_free (&out);
    dlq_embedded_destroy (&store);
}

Test (embedded_store, duplicates_are_flagged_and_stored_once)
{
    dlq_embedded_t *store = open_store (DLQ_EMBEDDED_WRITER);
    dlq_event_t *batch1 [] = {
        make_event_tagged ("a", "s", 1, NO_EXPIRY, "first"),
        make_event_tagged ("b", "s", 2, NO_EXPIRY, "first"),
        make_event_tagged ("a", "s", 3, NO_EXPIRY, "second"),
    };
    dlq_event_t *batch2 [] = {
        make_event_tagged ("b", "s", 4, NO_EXPIRY, "second"),
        make_event_tagged ("c", "t", 5, NO_EXPIRY, "first"),
        make_event_tagged ("c", "t", 6, NO_EXPIRY, "second"),
    };
    append_expect (store, batch1, 3, "nnd");
    append_expect (store, batch2, 3, "dnd");

    cr_assert_eq (test_store_count (tmp_dir, "SELECT count(*) FROM events"), 3);
    cr_assert_eq (test_store_count (tmp_dir, "SELECT count(*) FROM events WHERE id = 'a'"), 1);
    cr_assert_eq (test_store_count (tmp_dir, "SELECT count(*) FROM events WHERE id = 'b'"), 1);
    cr_assert_eq (test_store_count (tmp_dir, "SELECT count(*) FROM events WHERE id = 'c'"), 1);

    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (dlq_embedded_get (store, "a", 10, &out), DLQ_STORE_OK);
    cr_assert_str_eq (out.data, "{\"id\":\"a\",\"tag\":\"first\"}", "the first copy is kept");

    int64_t total = 0, bytes = 0;
    cr_assert_eq (dlq_embedded_stats (store, &out, &total, &bytes), DLQ_STORE_OK);
    cr_assert_str_eq (out.data, "{\"s\":2,\"t\":1}");
    cr_assert_eq (total, 3);

    dlq_buf_free (&out);
    for (size_t i = 0; i < 3; i++) {
        free_event (batch1 [i]);
        free_event (batch2 [i]);
    }
    dlq_embedded_destroy (&store);
}

Test (embedded_store, failed_append_stores_nothing)
{
    dlq_embedded_t *store = open_store (DLQ_EMBEDDED_WRITER);
    append_one (store, "before", "s", 1, NO_EXPIRY);
    test_store_exec (tmp_dir, "CREATE TRIGGER boom BEFORE INSERT ON events WHEN NEW.id = 'boom'"
              " BEGIN SELECT RAISE (ABORT, 'injected failure'); END");

    dlq_event_t *batch [] = {
        make_event ("x", "s", 2, NO_EXPIRY),
        make_event ("boom", "s", 3, NO_EXPIRY),
        make_event ("y", "s", 4, NO_EXPIRY),
    };
    bool duplicate [3];
    char err [512] = "";
    cr_assert_eq (dlq_embedded_append (store, batch, 3, duplicate, err, sizeof err),
                  DLQ_STORE_ERROR);
    cr_assert_not_null (strstr (err, "injected failure"), "err: %s", err);
    cr_assert_eq (test_store_count (tmp_dir, "SELECT count(*) FROM events"), 1);
    cr_assert_eq (test_store_count (tmp_dir, "SELECT events FROM stream_counts WHERE stream_name = 's'"), 1);

    /* The store is usable afterwards, and the rolled-back ids are new. */
    test_store_exec (tmp_dir, "DROP TRIGGER boom");
    append_expect (store, batch, 3, "nnn");
    cr_assert_eq (test_store_count (tmp_dir, "SELECT events FROM stream_counts WHERE stream_name = 's'"), 4);

    /* An event without a body is refused before anything is written. */
    free (batch [0]->json);
    batch [0]->json = NULL;
    cr_assert_eq (dlq_embedded_append (store, batch, 1, duplicate, err, sizeof err),
                  DLQ_STORE_ERROR);
    cr_assert_not_null (strstr (err, "json"), "err: %s", err);

    for (size_t i = 0; i < 3; i++)
        free_event (batch [i]);
    dlq_embedded_destroy (&store);
}


/* ------------------------------------------------------------------------ */
/* List */

Test (embedded_store, list_is_newest_first_with_ties_by_arrival)
{
    dlq_embedded_t *store = open_store (DLQ_EMBEDDED_WRITER);
    append_one (store, "e1", "s", 100, NO_EXPIRY);
    append_one (store, "e2", "s", 300, NO_EXPIRY);
    append_one (store, "other", "s2", 250, NO_EXPIRY);
    append_one (store, "e3", "s", 200, NO_EXPIRY);
    dlq_event_t *batch [] = {
        make_event ("e4", "s", 300, NO_EXPIRY),
        make_event ("e5", "s", 300, NO_EXPIRY),
    };
    append_expect (store, batch, 2, "nn");
    expect_list (store, "s", 10, NULL, 0,
                 "[{\"id\":\"e5\",\"tag\":\"t\"},{\"id\":\"e4\",\"tag\":\"t\"},"
                 "{\"id\":\"e2\",\"tag\":\"t\"},{\"id\":\"e3\",\"tag\":\"t\"},"
                 "{\"id\":\"e1\",\"tag\":\"t\"}]", NULL);
    free_event (batch [0]);
    free_event (batch [1]);
    dlq_embedded_destroy (&store);
}

/* Page through stream "s" with page size limit and check that every one of
 * count events (ids "e<i>", arrival order i) comes exactly once, newest
 * first, and that the last page carries no cursor. Returns the page count. */
static int
page_through (dlq_embedded_t *store, int count, size_t limit, const int *created)
{
    dlq_buf_t events = DLQ_BUF_INIT, next = DLQ_BUF_INIT, cursor = DLQ_BUF_INIT;
    dlq_buf_t all = DLQ_BUF_INIT;
    int pages = 0;
    do {
        cr_assert_eq (dlq_embedded_list (store, "s", limit, cursor.data, 0, &events, &next),
                      DLQ_STORE_OK);
        pages++;
        cr_assert_gt (events.len, 2, "page %d is empty", pages);
        dlq_buf_append (&all, events.data + 1, events.len - 2);
        dlq_buf_putc (&all, ',');
        dlq_buf_reset (&cursor);
        if (next.len)
            dlq_buf_append (&cursor, next.data, next.len);
    } while (cursor.len);

    /* Expected order: created_at desc, then arrival desc. */
    dlq_buf_t expect = DLQ_BUF_INIT;
    bool *done = dlq_calloc ((size_t) count, sizeof *done);
    for (int n = 0; n < count; n++) {
        int best = -1;
        for (int i = 0; i < count; i++)
            if (!done [i] && (best < 0 || created [i] >= created [best]))
                best = i;
        done [best] = true;
        dlq_buf_printf (&expect, "{\"id\":\"e%d\",\"tag\":\"t\"},", best);
    }
    cr_assert_str_eq (all.data, expect.data);
    free (done);
    dlq_buf_free (&expect);
    dlq_buf_free (&all);
    dlq_buf_free (&events);
    dlq_buf_free (&next);
    dlq_buf_free (&cursor);
    return pages;
}

Test (embedded_store, paging_yields_every_event_once)
{
    dlq_embedded_t *store = open_store (DLQ_EMBEDDED_WRITER);
    enum { COUNT = 50 };
    int created [COUNT];
    dlq_event_t *batch [COUNT];
    for (int i = 0; i < COUNT; i++) {
        char id [16];
        snprintf (id, sizeof id, "e%d", i);
        created [i] = (i * 7) % 13;         /* out of order, many ties */
        batch [i] = make_event (id, "s", created [i], NO_EXPIRY);
    }
    append_expect (store, batch, 25, "nnnnnnnnnnnnnnnnnnnnnnnnn");
    append_expect (store, batch + 25, 25, "nnnnnnnnnnnnnnnnnnnnnnnnn");
    append_one (store, "elsewhere", "s-other", 5, NO_EXPIRY);

    cr_assert_eq (page_through (store, COUNT, 7, created), 8);
    cr_assert_eq (page_through (store, COUNT, 10, created), 5, "a full last page has no cursor");
    cr_assert_eq (page_through (store, COUNT, 1, created), COUNT);
    cr_assert_eq (page_through (store, COUNT, 1000, created), 1);
    for (int i = 0; i < COUNT; i++)
        free_event (batch [i]);
    dlq_embedded_destroy (&store);
}

Test (embedded_store, paging_through_one_big_tie_group)
{
    dlq_embedded_t *store = open_store (DLQ_EMBEDDED_WRITER);
    enum { COUNT = 40 };
    int created [COUNT];
    dlq_event_t *batch [COUNT];
    for (int i = 0; i < COUNT; i++) {
        char id [16];
        snprintf (id, sizeof id, "e%d", i);
        created [i] = 42;
        batch [i] = make_event (id, "s", created [i], i % 4 ? NO_EXPIRY : 1000000);
    }
    append_expect (store, batch, COUNT, "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn");
    cr_assert_eq (page_through (store, COUNT, 3, created), 14);
    for (int i = 0; i < COUNT; i++)
        free_event (batch [i]);
    dlq_embedded_destroy (&store);
}

Test (embedded_store, empty_stream_lists_as_empty_array)
{
    dlq_embedded_t *store = open_store (DLQ_EMBEDDED_WRITER);
    expect_list (store, "nothing", 10, NULL, 0, "[]", NULL);
    append_one (store, "a", "s", 1, NO_EXPIRY);
    expect_list (store, "nothing", 10, "", 0, "[]", NULL);
    expect_list (store, "s", 1, "", 0, "[{\"id\":\"a\",\"tag\":\"t\"}]", NULL);
    dlq_embedded_destroy (&store);
}

Test (embedded_store, bad_cursors_are_refused)
{
    dlq_embedded_t *store = open_store (DLQ_EMBEDDED_WRITER);
    append_one (store, "a", "s", 1, NO_EXPIRY);
    append_one (store, "b", "s", 2, NO_EXPIRY);
    static const char *const bad [] = {
        "garbage", "1.", "-", ".", ".5", "5", "1.0", "1.-3", "01.5", "1.05", "-0.1", "+1.2",
        " 1.2", "1.2 ", "1.2.3", "1e3.2", "0x1.2",
        "99999999999999999999.1", "1.99999999999999999999",
        "9223372036854775808.1", "1.9223372036854775808", "-9223372036854775809.1",
    };
    dlq_buf_t events = DLQ_BUF_INIT, next = DLQ_BUF_INIT;
    for (size_t i = 0; i < sizeof bad / sizeof bad [0]; i++)
        cr_assert_eq (dlq_embedded_list (store, "s", 10, bad [i], 0, &events, &next),
                      DLQ_STORE_BAD_CURSOR, "cursor '%s' accepted", bad [i]);

    /* Well-formed cursors at the edges of int64 are fine. */
    expect_list (store, "s", 10, "9223372036854775807.9223372036854775807", 0,
                 "[{\"id\":\"b\",\"tag\":\"t\"},{\"id\":\"a\",\"tag\":\"t\"}]", NULL);
    expect_list (store, "s", 10, "-9223372036854775808.1", 0, "[]", NULL);
    expect_list (store, "s", 10, "2.1", 0, "[{\"id\":\"a\",\"tag\":\"t\"}]", NULL);
    expect_list (store, "s", 1, NULL, 0, "[{\"id\":\"b\",\"tag\":\"t\"}]", "2.2");
    dlq_buf_free (&events);
    dlq_buf_free (&next);
    dlq_embedded_destroy (&store);
}


/* ------------------------------------------------------------------------ */
/* Stats and sweep */

Test (embedded_store, stats_escape_stream_names)
{
    dlq_embedded_t *store = open_store (DLQ_EMBEDDED_WRITER);
    append_one (store, "1", "alpha", 1, NO_EXPIRY);
    append_one (store, "2", "alpha", 1, NO_EXPIRY);
    append_one (store, "3", "say \"hi\"\\now", 1, NO_EXPIRY);
    append_one (store, "4", "na\xc3\xafve-\xe6\xb5\x81", 1, NO_EXPIRY);
    append_one (store, "5", "tab\there", 1, NO_EXPIRY);
    dlq_buf_t streams = DLQ_BUF_INIT;
    int64_t total = -1, bytes = -1;
    cr_assert_eq (dlq_embedded_stats (store, &streams, &total, &bytes), DLQ_STORE_OK);
    cr_assert_str_eq (streams.data,
                      "{\"alpha\":2,\"na\xc3\xafve-\xe6\xb5\x81\":1,\"say \\\"hi\\\"\\\\now\":1,"
                      "\"tab\\there\":1}");
    cr_assert_eq (total, 5);
    cr_assert_gt (bytes, 4096);

    dlq_json_doc_t *doc = NULL;
    dlq_json_error_t jerr;
    cr_assert_eq (dlq_json_parse (streams.data, streams.len, &doc, &jerr), DLQ_JSON_OK,
                  "stats are not JSON: %s at %zu", jerr.message, jerr.offset);
    const dlq_json_value_t *root = dlq_json_root (doc);
    cr_assert_eq (root->type, DLQ_JSON_OBJECT);
    cr_assert_eq (root->count, 4);
    int64_t n = 0;
    cr_assert (dlq_json_as_int64 (dlq_json_get (root, "say \"hi\"\\now"), &n));
    cr_assert_eq (n, 1);
    cr_assert (dlq_json_as_int64 (dlq_json_get (root, "na\xc3\xafve-\xe6\xb5\x81"), &n));
    cr_assert (dlq_json_as_int64 (dlq_json_get (root, "tab\there"), &n));
    cr_assert (dlq_json_as_int64 (dlq_json_get (root, "alpha"), &n));
    cr_assert_eq (n, 2);
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&streams);
    dlq_embedded_destroy (&store);
}

Test (embedded_store, stats_of_empty_store)
{
    dlq_embedded_t *store = open_store (DLQ_EMBEDDED_WRITER);
    dlq_buf_t streams = DLQ_BUF_INIT;
    int64_t total = -1, bytes = -1;
    cr_assert_eq (dlq_embedded_stats (store, &streams, &total, &bytes), DLQ_STORE_OK);
    cr_assert_str_eq (streams.data, "{}");
    cr_assert_eq (total, 0);
    dlq_buf_free (&streams);
    dlq_embedded_destroy (&store);
}

Test (embedded_store, sweep_removes_only_expired_rows)
{
    dlq_embedded_t *store = open_store (DLQ_EMBEDDED_WRITER);
    append_one (store, "a1", "A", 1, 100);
    append_one (store, "a2", "A", 1, 50);
    append_one (store, "a3", "A", 1, NO_EXPIRY);
    append_one (store, "a4", "A", 1, 101);
    append_one (store, "b1", "B", 1, 100);
    append_one (store, "b2", "B", 1, 10);
    append_one (store, "c1", "C", 1, 500);

    cr_assert_eq (dlq_embedded_sweep (store, 100, 1000), 4);
    cr_assert_eq (dlq_embedded_sweep (store, 100, 1000), 0);
    cr_assert_eq (test_store_count (tmp_dir, "SELECT count(*) FROM events"), 3);
    cr_assert_eq (test_store_count (tmp_dir, "SELECT count(*) FROM events WHERE id IN ('a3', 'a4', 'c1')"), 3);

    dlq_buf_t streams = DLQ_BUF_INIT;
    int64_t total = 0, bytes = 0;
    cr_assert_eq (dlq_embedded_stats (store, &streams, &total, &bytes), DLQ_STORE_OK);
    cr_assert_str_eq (streams.data, "{\"A\":2,\"C\":1}", "B dropped, A decremented");
    cr_assert_eq (total, 3);
    cr_assert_eq (test_store_count (tmp_dir, "SELECT count(*) FROM stream_counts WHERE stream_name = 'B'"), 0);

    cr_assert_eq (dlq_embedded_sweep (store, 100000, 0), 0, "max_rows 0 deletes nothing");
    dlq_buf_free (&streams);
    dlq_embedded_destroy (&store);
}

Test (embedded_store, sweep_honours_max_rows)
{
    dlq_embedded_t *store = open_store (DLQ_EMBEDDED_WRITER);
    dlq_event_t *batch [10];
    for (int i = 0; i < 10; i++) {
        char id [16];
        snprintf (id, sizeof id, "x%d", i);
        batch [i] = make_event (id, i % 2 ? "odd" : "even", i, 1000 + i);
    }
    append_expect (store, batch, 10, "nnnnnnnnnn");
    cr_assert_eq (dlq_embedded_sweep (store, 5000, 4), 4);
    cr_assert_eq (test_store_count (tmp_dir, "SELECT min(expires_at) FROM events"), 1004, "oldest expiry first");
    cr_assert_eq (dlq_embedded_sweep (store, 5000, 4), 4);
    cr_assert_eq (dlq_embedded_sweep (store, 5000, 4), 2);
    cr_assert_eq (dlq_embedded_sweep (store, 5000, 4), 0);
    cr_assert_eq (test_store_count (tmp_dir, "SELECT count(*) FROM stream_counts"), 0);
    for (int i = 0; i < 10; i++)
        free_event (batch [i]);
    dlq_embedded_destroy (&store);
}


/* ------------------------------------------------------------------------ */
/* Readers, reopening, refusal */

Test (embedded_store, reader_sees_committed_data_while_writer_continues)
{
    dlq_embedded_t *writer = open_store (DLQ_EMBEDDED_WRITER);
    dlq_embedded_t *reader = open_store (DLQ_EMBEDDED_READER);
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (dlq_embedded_get (reader, "a", 0, &out), DLQ_STORE_NOT_FOUND);

    append_one (writer, "a", "s", 1, NO_EXPIRY);
    cr_assert_eq (dlq_embedded_get (reader, "a", 0, &out), DLQ_STORE_OK);
    append_one (writer, "b", "s", 2, NO_EXPIRY);
    expect_list (reader, "s", 10, NULL, 0,
                 "[{\"id\":\"b\",\"tag\":\"t\"},{\"id\":\"a\",\"tag\":\"t\"}]", NULL);
    int64_t total = 0, bytes = 0;
    cr_assert_eq (dlq_embedded_stats (reader, &out, &total, &bytes), DLQ_STORE_OK);
    cr_assert_eq (total, 2);

    /* A reader cannot write. */
    dlq_event_t *event = make_event ("c", "s", 3, NO_EXPIRY);
    bool duplicate;
    char err [512] = "";
    cr_assert_eq (dlq_embedded_append (reader, &event, 1, &duplicate, err, sizeof err),
                  DLQ_STORE_ERROR);
    cr_assert_not_null (strstr (err, "read-only"), "err: %s", err);
    cr_assert_eq (dlq_embedded_sweep (reader, 0, 10), -1);
    free_event (event);

    dlq_buf_free (&out);
    dlq_embedded_destroy (&reader);
    dlq_embedded_destroy (&writer);
}

Test (embedded_store, reopened_writer_keeps_data)
{
    dlq_embedded_t *store = open_store (DLQ_EMBEDDED_WRITER);
    append_one (store, "a", "s", 1, NO_EXPIRY);
    append_one (store, "b", "s", 2, NO_EXPIRY);
    cr_assert_eq (dlq_embedded_sweep (store, 0, 10), 0);
    dlq_embedded_destroy (&store);

    store = open_store (DLQ_EMBEDDED_WRITER);
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (dlq_embedded_get (store, "a", 0, &out), DLQ_STORE_OK);
    dlq_event_t *batch [] = { make_event ("b", "s", 2, NO_EXPIRY), make_event ("c", "s", 3, NO_EXPIRY) };
    append_expect (store, batch, 2, "dn");
    cr_assert_gt (test_store_count (tmp_dir, "SELECT seq FROM events WHERE id = 'c'"),
                  test_store_count (tmp_dir, "SELECT seq FROM events WHERE id = 'b'"));
    cr_assert_eq (test_store_count (tmp_dir, "SELECT count(*) FROM events"), 3);
    cr_assert_eq (test_store_count (tmp_dir, "SELECT value FROM meta WHERE key = 'schema_version'"), 6);
    cr_assert_eq (test_store_count (tmp_dir, "PRAGMA page_size"), 8192);
    cr_assert_eq (test_store_count (tmp_dir, "PRAGMA application_id"), 0x646c7164);
    dlq_embedded_destroy (&store);

    /* A reader opens the file with no writer running. */
    store = open_store (DLQ_EMBEDDED_READER);
    cr_assert_eq (dlq_embedded_get (store, "c", 0, &out), DLQ_STORE_OK);
    free_event (batch [0]);
    free_event (batch [1]);
    dlq_buf_free (&out);
    dlq_embedded_destroy (&store);
}

Test (embedded_store, seq_is_never_reused_after_sweep)
{
    dlq_embedded_t *store = open_store (DLQ_EMBEDDED_WRITER);
    append_one (store, "a", "s", 1, 10);
    append_one (store, "b", "s", 1, 10);
    cr_assert_eq (dlq_embedded_sweep (store, 10, 10), 2);
    dlq_embedded_destroy (&store);
    store = open_store (DLQ_EMBEDDED_WRITER);
    append_one (store, "c", "s", 1, NO_EXPIRY);
    cr_assert_eq (test_store_count (tmp_dir, "SELECT seq FROM events WHERE id = 'c'"), 3);
    dlq_embedded_destroy (&store);
}

Test (embedded_store, reader_on_missing_file_fails)
{
    char err [512] = "";
    dlq_embedded_t *store = dlq_embedded_open (tmp_dir, DLQ_EMBEDDED_READER, err, sizeof err);
    cr_assert_null (store);
    cr_assert_not_null (strstr (err, DLQ_EMBEDDED_FILE), "err: %s", err);
    cr_assert_eq (access (tmp_dir, F_OK), 0);

    char path [512];
    snprintf (path, sizeof path, "%s/%s", tmp_dir, DLQ_EMBEDDED_FILE);
    cr_assert_neq (access (path, F_OK), 0, "a reader must not create the file");

    store = dlq_embedded_open ("/nonexistent/dlqd", DLQ_EMBEDDED_WRITER, err, sizeof err);
    cr_assert_null (store);
    cr_assert_not_null (strstr (err, "/nonexistent/dlqd"), "err: %s", err);
}

Test (embedded_store, newer_schema_version_is_refused)
{
    dlq_embedded_t *store = open_store (DLQ_EMBEDDED_WRITER);
    dlq_embedded_destroy (&store);
    test_store_exec (tmp_dir, "UPDATE meta SET value = '999' WHERE key = 'schema_version'");

    char err [512] = "";
    store = dlq_embedded_open (tmp_dir, DLQ_EMBEDDED_WRITER, err, sizeof err);
    cr_assert_null (store);
    cr_assert_not_null (strstr (err, "schema version 999"), "err: %s", err);
    cr_assert_not_null (strstr (err, "newer"), "err: %s", err);

    err [0] = '\0';
    store = dlq_embedded_open (tmp_dir, DLQ_EMBEDDED_READER, err, sizeof err);
    cr_assert_null (store);
    cr_assert_not_null (strstr (err, "schema version 999"), "err: %s", err);
}

Test (embedded_store, foreign_database_is_refused)
{
    test_store_exec (tmp_dir, "CREATE TABLE something (x)");
    char err [512] = "";
    dlq_embedded_t *store = dlq_embedded_open (tmp_dir, DLQ_EMBEDDED_WRITER, err, sizeof err);
    cr_assert_null (store);
    cr_assert_not_null (strstr (err, "not a dlqd store"), "err: %s", err);
}

Test (embedded_store, file_that_is_not_a_database_is_refused)
{
    char path [512];
    snprintf (path, sizeof path, "%s/%s", tmp_dir, DLQ_EMBEDDED_FILE);
    FILE *file = fopen (path, "w");
    cr_assert_not_null (file);
    for (int i = 0; i < 512; i++)
        fputs ("this is not an SQLite database\n", file);
    fclose (file);
    char err [512] = "";
    for (int mode = DLQ_EMBEDDED_WRITER; mode <= DLQ_EMBEDDED_READER; mode++) {
        dlq_embedded_t *store = dlq_embedded_open (tmp_dir, mode, err, sizeof err);
        cr_assert_null (store);
        cr_assert_not_null (strstr (err, "not a database"), "err: %s", err);
    }
}

Test (embedded_store, destroy_accepts_null)
{
    dlq_embedded_t *store = NULL;
    dlq_embedded_destroy (&store);
    dlq_embedded_destroy (NULL);
}


/* ------------------------------------------------------------------------ */
/* Query plans */

/* True when some row of EXPLAIN QUERY PLAN sql contains needle. */
static bool
plan_contains (sqlite3 *db, const char *sql, const char *needle, char *plan, size_t plan_len)
{
    char eqp [1024];
    snprintf (eqp, sizeof eqp, "EXPLAIN QUERY PLAN %s", sql);
    sqlite3_stmt *stmt = NULL;
    cr_assert_eq (sqlite3_prepare_v2 (db, eqp, -1, &stmt, NULL), SQLITE_OK, "%s", sqlite3_errmsg (db));
    bool found = false;
    plan [0] = '\0';
    while (sqlite3_step (stmt) == SQLITE_ROW) {
        const char *detail = (const char *) sqlite3_column_text (stmt, 3);
        size_t used = strlen (plan);
        snprintf (plan + used, plan_len - used, "%s | ", detail);
        if (strstr (detail, needle))
            found = true;
    }
    sqlite3_finalize (stmt);
    return found;
}

/* These must match the statements in embedded_store.c. */
#define LIST_SQL "SELECT created_at, seq, body FROM events" \
    " WHERE stream_name = ?1 AND (expires_at IS NULL OR expires_at > ?2)"
#define LIST_ORDER_SQL " ORDER BY created_at DESC, seq DESC LIMIT ?3"

Test (embedded_store, queries_use_their_indexes)
{
    dlq_embedded_t *store = open_store (DLQ_EMBEDDED_WRITER);
    for (int i = 0; i < 20; i++) {
        char id [16];
        snprintf (id, sizeof id, "p%d", i);
        append_one (store, id, i % 3 ? "s" : "t", i, i % 2 ? 100 : NO_EXPIRY);
    }
    dlq_embedded_destroy (&store);

    sqlite3 *db = test_store_open (tmp_dir, SQLITE_OPEN_READONLY);
    char plan [2048];
    static const char *const lists [] = {
        LIST_SQL LIST_ORDER_SQL,
        LIST_SQL " AND created_at = ?4 AND seq < ?5 UNION ALL "
        LIST_SQL " AND created_at < ?4" LIST_ORDER_SQL,
    };
    for (size_t i = 0; i < 2; i++) {
        cr_assert (plan_contains (db, lists [i], "SEARCH events USING INDEX events_by_stream (stream_name=?",
                                  plan, sizeof plan), "plan: %s", plan);
        cr_assert_not (plan_contains (db, lists [i], "SCAN", plan, sizeof plan), "plan: %s", plan);
        cr_assert_not (plan_contains (db, lists [i], "TEMP B-TREE", plan, sizeof plan),
                       "sorts instead of walking the index: %s", plan);
    }
    cr_assert (plan_contains (db, lists [1], "(stream_name=? AND created_at=? AND seq<?)",
                              plan, sizeof plan), "the cursor bounds the tie group: %s", plan);
    cr_assert (plan_contains (db, lists [1], "(stream_name=? AND created_at<?)",
                              plan, sizeof plan), "the cursor bounds the older rows: %s", plan);
    cr_assert (plan_contains (db, "SELECT seq FROM events WHERE expires_at IS NOT NULL"
                              " AND expires_at <= ?1 ORDER BY expires_at LIMIT ?2",
                              "USING COVERING INDEX events_by_expiry", plan, sizeof plan),
               "plan: %s", plan);
    cr_assert (plan_contains (db, "SELECT body FROM events WHERE id = ?1"
                              " AND (expires_at IS NULL OR expires_at > ?2)",
                              "USING INDEX sqlite_autoindex_events_1 (id=?)", plan, sizeof plan),
               "plan: %s", plan);
    sqlite3_close (db);
}
