/*  test_embedded_checkpoints — checkpoints in the embedded store (schema
 *  version 6): written in the commit transaction (with events, in order),
 *  SEEN and PROCESSED each touching only their pair, SAVE replacing every
 *  field, DELETE reporting whether there was a record, GET / LIST (byte
 *  order, prefix, paging) from a reader, a failed commit storing nothing,
 *  and the in-place upgrade of a version 5 file.
 */
#include "checkpoint.h"
#include "embedded_checkpoints.h"
#include "embedded_archive.h"
#include "store_support.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static char dir [256];

static void setup (void) { test_tmpdir (dir); }
static void teardown (void) { test_rmtree (dir); }

TestSuite (embedded_checkpoints, .init = setup, .fini = teardown);

#define T0 1781015533500LL

/* A write of kind for stream with tokens / times (NULL / 0: absent). */
static dlq_ckpt_write_t
write_of (dlq_sink_ckpt_write_t kind, const char *stream, const char *seen, int64_t seen_at,
          const char *processed, int64_t processed_at, int64_t now)
{
    dlq_sink_checkpoint_t r = dlq_checkpoint_empty (stream);
    r.last_seen_token = seen;
    r.last_seen_at = seen ? seen_at : DLQ_SINK_TIME_NONE;
    r.last_processed_token = processed;
    r.last_processed_at = processed ? processed_at : DLQ_SINK_TIME_NONE;
    return (dlq_ckpt_write_t) { .kind = kind, .record = r, .now_ms = now, .reply = DLQ_BUF_INIT };
}

static void
commit (dlq_embedded_t *store, dlq_ckpt_write_t *writes, size_t count)
{
    char err [256] = "";
    cr_assert_eq (dlq_embedded_commit_all (store, NULL, 0, NULL, writes, count, NULL, err, sizeof err),
                  DLQ_STORE_OK, "%s", err);
}

static char *
get (dlq_embedded_t *store, const char *stream)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_store_result_t rc = dlq_embedded_ckpt_get (store, stream, &out);
    if (rc == DLQ_STORE_NOT_FOUND)
        return NULL;
    cr_assert_eq (rc, DLQ_STORE_OK, "%s", dlq_embedded_last_error (store));
    dlq_buf_putc (&out, '\0');
    return dlq_buf_steal (&out, NULL);
}

static void
free_writes (dlq_ckpt_write_t *w, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dlq_buf_free (&w [i].reply);
}

Test (embedded_checkpoints, seen_and_processed_touch_only_their_pair)
{
    dlq_embedded_t *w = test_store_embedded (dir, DLQ_EMBEDDED_WRITER);
    dlq_ckpt_write_t writes [] = {
        write_of (DLQ_SINK_CKPT_SEEN, "orders", "{\"_data\":\"01\"}", T0, NULL, 0, T0 + 1),
        write_of (DLQ_SINK_CKPT_PROCESSED, "orders", NULL, 0, "{\"_data\":\"00\"}", T0 - 5, T0 + 2),
        write_of (DLQ_SINK_CKPT_SEEN, "orders", "{\"_data\":\"02\"}", T0 + 10, NULL, 0, T0 + 3),
    };
    commit (w, writes, 3);
    cr_expect_str_eq (writes [0].reply.data, "{\"streamName\":\"orders\",\"lastSeenToken\":{\"_data\":\"01\"},"
                      "\"lastSeenTimestamp\":\"2026-06-09T14:32:13.500Z\",\"updatedAt\":\"2026-06-09T14:32:13.501Z\"}",
                      "a SEEN on a missing stream creates it with its pair only");
    dlq_embedded_t *r = test_store_embedded (dir, DLQ_EMBEDDED_READER);
    char *got = get (r, "orders");
    cr_expect_str_eq (got, "{\"streamName\":\"orders\",\"lastSeenToken\":{\"_data\":\"02\"},"
                      "\"lastSeenTimestamp\":\"2026-06-09T14:32:13.510Z\",\"lastProcessedToken\":{\"_data\":\"00\"},"
                      "\"lastProcessedTimestamp\":\"2026-06-09T14:32:13.495Z\",\"updatedAt\":\"2026-06-09T14:32:13.503Z\"}");
    cr_expect_str_eq (writes [2].reply.data, got, "the reply is the row as stored");
    free (got);
    free_writes (writes, 3);
    dlq_embedded_destroy (&r);
    dlq_embedded_destroy (&w);
}

Test (embedded_checkpoints, save_replaces_every_field_and_delete_says_whether_there_was_one)
{
    dlq_embedded_t *w = test_store_embedded (dir, DLQ_EMBEDDED_WRITER);
    dlq_ckpt_write_t first = write_of (DLQ_SINK_CKPT_SAVE, "s", "{\"a\":1}", T0, "{\"b\":2}", T0, T0);
    first.record.instance_id = "w1";
    first.record.metadata = "{\"k\":\"v\"}";
    dlq_ckpt_write_t second = write_of (DLQ_SINK_CKPT_SAVE, "s", NULL, 0, "{\"b\":3}", T0 + 1, T0 + 1);
    dlq_ckpt_write_t del = write_of (DLQ_SINK_CKPT_SAVE, "s", NULL, 0, NULL, 0, T0 + 2);
    del.remove = true;
    dlq_ckpt_write_t again = del;
    again.reply = (dlq_buf_t) DLQ_BUF_INIT;
    commit (w, &first, 1);
    cr_expect_not_null (strstr (first.reply.data, "\"instanceId\":\"w1\""), "%s", first.reply.data);
    commit (w, &second, 1);
    cr_expect_str_eq (second.reply.data, "{\"streamName\":\"s\",\"lastProcessedToken\":{\"b\":3},"
                      "\"lastProcessedTimestamp\":\"2026-06-09T14:32:13.501Z\",\"updatedAt\":\"2026-06-09T14:32:13.501Z\"}",
                      "fields a SAVE leaves out become absent");
    commit (w, &del, 1);
    cr_expect_str_eq (del.reply.data, "{\"streamName\":\"s\",\"deleted\":true}");
    cr_expect_null (get (w, "s"));
    commit (w, &again, 1);
    cr_expect_str_eq (again.reply.data, "{\"streamName\":\"s\",\"deleted\":false}");
    free_writes (&first, 1);
    free_writes (&second, 1);
    free_writes (&del, 1);
    free_writes (&again, 1);
    dlq_embedded_destroy (&w);
}

Test (embedded_checkpoints, list_pages_in_byte_order_with_a_prefix)
{
    const char *names [] = { "b", "a.2", "a.10", "a%", "a_", "\xc3\xa9t\xc3\xa9", "A", "a.1" };
    enum { N = sizeof names / sizeof names [0] };
    dlq_embedded_t *w = test_store_embedded (dir, DLQ_EMBEDDED_WRITER);
    dlq_ckpt_write_t writes [N];
    for (size_t i = 0; i < N; i++)
        writes [i] = write_of (DLQ_SINK_CKPT_SEEN, names [i], "{}", T0, NULL, 0, T0);
    commit (w, writes, N);
    free_writes (writes, N);
    dlq_embedded_t *r = test_store_embedded (dir, DLQ_EMBEDDED_READER);
    struct { const char *prefix; const char *want; } cases [] = {
        { "", "A a% a.1 a.10 a.2 a_ b \xc3\xa9t\xc3\xa9 " },
        { "a.", "a.1 a.10 a.2 " },
        { "a%", "a% " },
        { "a_", "a_ " },
        { "\xc3\xa9", "\xc3\xa9t\xc3\xa9 " },
        { "zz", "" },
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases [0]; c++) {
        char seen [256] = "";
        char *cursor = NULL;
        for (int page = 0; page < 20; page++) {
            dlq_buf_t records = DLQ_BUF_INIT, next = DLQ_BUF_INIT;
            cr_assert_eq (dlq_embedded_ckpt_list (r, cases [c].prefix, 2, cursor, &records, &next), DLQ_STORE_OK);
            dlq_json_doc_t *doc = NULL;
            cr_assert_eq (dlq_json_parse (records.data, records.len, &doc, NULL), DLQ_JSON_OK);
            cr_assert_leq (dlq_json_root (doc)->count, 2);
            for (const dlq_json_value_t *v = dlq_json_root (doc)->child; v; v = v->next) {
                strcat (seen, dlq_json_get (v, "streamName")->str);
                strcat (seen, " ");
            }
            dlq_json_doc_destroy (&doc);
            free (cursor);
            cursor = NULL;
            if (next.len) {
                dlq_buf_putc (&next, '\0');
                cursor = dlq_buf_steal (&next, NULL);
            }
            dlq_buf_free (&records);
            dlq_buf_free (&next);
            if (!cursor)
                break;
        }
        cr_expect_str_eq (seen, cases [c].want, "prefix \"%s\"", cases [c].prefix);
    }
    dlq_embedded_destroy (&r);
    dlq_embedded_destroy (&w);
}

Test (embedded_checkpoints, a_failed_commit_stores_none_of_its_writes)
{
    dlq_embedded_t *w = test_store_embedded (dir, DLQ_EMBEDDED_WRITER);
    /* a SAVE without updated_at... cannot fail by itself: make the table refuse the second write */
    test_store_exec (dir, "CREATE TRIGGER refuse BEFORE INSERT ON checkpoints WHEN new.stream_name = 'bad'"
                          " BEGIN SELECT RAISE (ABORT, 'refused'); END;");
    dlq_ckpt_write_t writes [] = {
        write_of (DLQ_SINK_CKPT_SEEN, "good", "{}", T0, NULL, 0, T0),
        write_of (DLQ_SINK_CKPT_SEEN, "bad", "{}", T0, NULL, 0, T0),
    };
    char err [256] = "";
    cr_assert_eq (dlq_embedded_commit_all (w, NULL, 0, NULL, writes, 2, NULL, err, sizeof err),
                  DLQ_STORE_ERROR);
    cr_expect_not_null (strstr (err, "refused"), "%s", err);
    cr_expect_null (get (w, "good"), "the first write of the failed commit was rolled back");
    free_writes (writes, 2);
    dlq_embedded_destroy (&w);
}

Test (embedded_checkpoints, a_version_5_file_gets_the_table)
{
    dlq_embedded_t *w = test_store_embedded (dir, DLQ_EMBEDDED_WRITER);
    dlq_embedded_destroy (&w);
    test_store_exec (dir, "DROP TABLE checkpoints; UPDATE meta SET value = '5' WHERE key = 'schema_version';");
    dlq_embedded_t *r = test_store_embedded (dir, DLQ_EMBEDDED_READER);
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_expect_eq (dlq_embedded_ckpt_get (r, "x", &out), DLQ_STORE_ERROR, "a reader of a version 5 file has none");
    cr_expect_not_null (strstr (dlq_embedded_last_error (r), "without checkpoints"), "%s", dlq_embedded_last_error (r));
    dlq_embedded_destroy (&r);
    w = test_store_embedded (dir, DLQ_EMBEDDED_WRITER);
    cr_expect_eq (test_store_count (dir, "SELECT value FROM meta WHERE key = 'schema_version'"), 6);
    cr_expect_eq (dlq_embedded_ckpt_get (w, "x", &out), DLQ_STORE_NOT_FOUND);
    dlq_buf_free (&out);
    dlq_embedded_destroy (&w);
}
