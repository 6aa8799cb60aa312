/*  test_checkpoint_table — the checkpoints in memory (core/checkpoint_table)
 *  and their spool records (core/checkpoint_record): a write merges as the
 *  CheckpointStore contract says (SAVE whole, SEEN and PROCESSED only their
 *  own fields), LIST pages in byte order by prefix and cursor exactly as
 *  the store's SQL does, and a record comes back field for field while a
 *  cut or foreign one is refused.
 */
#include "checkpoint.h"
#include "checkpoint_record.h"
#include "checkpoint_table.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static dlq_sink_checkpoint_t
record_of (const char *stream, const char *seen, int64_t seen_at)
{
    dlq_sink_checkpoint_t r = dlq_checkpoint_empty (stream);
    r.last_seen_token = seen;
    r.last_seen_at = seen_at;
    r.updated_at = 1000;
    return r;
}

Test (checkpoint_table, seen_and_processed_keep_each_others_fields_and_save_replaces_all)
{
    dlq_sink_checkpoint_t seen = record_of ("s", "{\"_data\":\"a\"}", 5);
    dlq_sink_checkpoint_t after = dlq_checkpoint_table_merge (NULL, &seen, DLQ_SINK_CKPT_SEEN, 10);
    cr_assert_str_eq (after.last_seen_token, "{\"_data\":\"a\"}");
    cr_assert_eq (after.last_seen_at, 5);
    cr_assert_null (after.last_processed_token);
    cr_assert_eq (after.updated_at, 10);
    dlq_sink_checkpoint_t processed = dlq_checkpoint_empty ("s");
    processed.last_processed_token = "{\"_data\":\"b\"}";
    processed.last_processed_at = 7;
    dlq_sink_checkpoint_t both = dlq_checkpoint_table_merge (&after, &processed, DLQ_SINK_CKPT_PROCESSED, 11);
    cr_assert_str_eq (both.last_seen_token, "{\"_data\":\"a\"}", "PROCESSED keeps the seen token");
    cr_assert_str_eq (both.last_processed_token, "{\"_data\":\"b\"}");
    cr_assert_eq (both.updated_at, 11);
    dlq_sink_checkpoint_t save = dlq_checkpoint_empty ("s");
    save.instance_id = "w1";
    dlq_sink_checkpoint_t saved = dlq_checkpoint_table_merge (&both, &save, DLQ_SINK_CKPT_SAVE, 12);
    cr_assert_null (saved.last_seen_token, "SAVE writes the record whole: absent is absent");
    cr_assert_null (saved.last_processed_token);
    cr_assert_str_eq (saved.instance_id, "w1");
    cr_assert_eq (saved.updated_at, 12);
}

Test (checkpoint_table, put_get_remove_and_the_copies_are_the_tables_own)
{
    dlq_checkpoint_table_t *t = dlq_checkpoint_table_new ();
    char token [32];
    snprintf (token, sizeof token, "{\"_data\":\"x\"}");
    dlq_sink_checkpoint_t r = record_of ("orders", token, 1);
    dlq_checkpoint_table_put (t, &r);
    token [11] = 'y';                   /* the caller's buffer changes: the table kept its copy */
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert (dlq_checkpoint_table_get (t, "orders", &out));
    cr_assert (strstr (out.data, "{\"_data\":\"x\"}"), "%s", out.data);
    dlq_buf_reset (&out);
    cr_assert_not (dlq_checkpoint_table_get (t, "order", &out));
    cr_assert_eq (out.len, 0, "out untouched when there is none");
    const dlq_sink_checkpoint_t *held = dlq_checkpoint_table_peek (t, "orders");
    cr_assert_not_null (held);
    cr_assert_str_eq (held->last_seen_token, "{\"_data\":\"x\"}");
    cr_assert_null (dlq_checkpoint_table_peek (t, "order"));
    r.last_seen_token = "{\"_data\":\"z\"}";
    dlq_checkpoint_table_put (t, &r);
    cr_assert_eq (dlq_checkpoint_table_size (t), 1, "a put of the same stream replaces");
    cr_assert (dlq_checkpoint_table_remove (t, "orders"));
    cr_assert_not (dlq_checkpoint_table_remove (t, "orders"));
    cr_assert_eq (dlq_checkpoint_table_size (t), 0);
    dlq_buf_free (&out);
    dlq_checkpoint_table_destroy (&t);
    cr_assert_null (t);
}

/* The stream names of one LIST page, space-separated, and its cursor. */
static void
page (dlq_checkpoint_table_t *t, const char *prefix, size_t limit, const char *cursor, char *names, char *next)
{
    dlq_buf_t records = DLQ_BUF_INIT, after = DLQ_BUF_INIT;
    dlq_checkpoint_table_list (t, prefix, limit, cursor, &records, &after);
    names [0] = 0;
    for (const char *p = records.data; (p = strstr (p, "\"streamName\":\"")); ) {
        p += strlen ("\"streamName\":\"");
        size_t n = strcspn (p, "\"");
        strncat (names, " ", 2);
        strncat (names, p, n);
    }
    snprintf (next, 64, "%s", after.len ? after.data : "");
    dlq_buf_free (&records);
    dlq_buf_free (&after);
}

Test (checkpoint_table, list_pages_in_byte_order_by_prefix_and_cursor)
{
    dlq_checkpoint_table_t *t = dlq_checkpoint_table_new ();
    const char *names [] = { "b", "a/2", "a/10", "a", "c", "a/1", "B" };
    for (size_t i = 0; i < sizeof names / sizeof names [0]; i++) {
        dlq_sink_checkpoint_t r = record_of (names [i], NULL, DLQ_SINK_TIME_NONE);
        dlq_checkpoint_table_put (t, &r);
    }
    char got [256], next [64];
    page (t, "", 100, NULL, got, next);
    cr_assert_str_eq (got, " B a a/1 a/10 a/2 b c", "byte order");
    cr_assert_str_eq (next, "", "one page: no cursor");
    page (t, "a/", 2, NULL, got, next);
    cr_assert_str_eq (got, " a/1 a/10");
    cr_assert_str_eq (next, "a/10");
    page (t, "a/", 2, next, got, next);
    cr_assert_str_eq (got, " a/2");
    cr_assert_str_eq (next, "");
    page (t, "a", 100, "a", got, next);
    cr_assert_str_eq (got, " a/1 a/10 a/2", "after the cursor, never at it");
    page (t, "", 3, "a/5", got, next);
    cr_assert_str_eq (got, " b c", "a cursor that names no record: from the next name");
    page (t, "d", 10, NULL, got, next);
    cr_assert_str_eq (got, "");
    page (t, "", 0, NULL, got, next);
    cr_assert_str_eq (got, "");
    cr_assert_str_eq (next, "", "limit 0 on an empty page");
    dlq_checkpoint_table_destroy (&t);
}

Test (checkpoint_record, a_record_and_a_removal_come_back_and_damage_is_refused)
{
    dlq_sink_checkpoint_t r = {
        .stream_name = "orders", .instance_id = "w-1", .last_seen_token = "{\"_data\":\"s\"}",
        .last_seen_at = 1700000000001, .last_processed_token = NULL, .last_processed_at = DLQ_SINK_TIME_NONE,
        .metadata = "{\"k\":1}", .updated_at = 1700000000009,
    };
    dlq_buf_t rec = DLQ_BUF_INIT;
    dlq_checkpoint_record_encode (&r, false, 0x0102030405060708ull, &rec);
    dlq_sink_checkpoint_t back;
    bool removed = true;
    char *block = NULL;
    cr_assert (dlq_checkpoint_record_decode ((const uint8_t *) rec.data, rec.len, &back, &removed, &block));
    cr_assert_not (removed);
    cr_assert_str_eq (back.stream_name, "orders");
    cr_assert_str_eq (back.instance_id, "w-1");
    cr_assert_str_eq (back.last_seen_token, "{\"_data\":\"s\"}");
    cr_assert_eq (back.last_seen_at, 1700000000001);
    cr_assert_null (back.last_processed_token);
    cr_assert_eq (back.last_processed_at, DLQ_SINK_TIME_NONE);
    cr_assert_str_eq (back.metadata, "{\"k\":1}");
    cr_assert_eq (back.updated_at, 1700000000009);
    free (block);
    uint64_t events = 0;
    cr_assert (dlq_checkpoint_record_events ((const uint8_t *) rec.data, rec.len, &events));
    cr_assert_eq (events, 0x0102030405060708ull, "the log's event count, all 64 bits");
    for (size_t len = 0; len < rec.len; len++) {
        cr_assert_not (dlq_checkpoint_record_decode ((const uint8_t *) rec.data, len, &back, &removed, &block),
                       "cut at %zu", len);
    }
    dlq_buf_putc (&rec, 0);
    cr_assert_not (dlq_checkpoint_record_decode ((const uint8_t *) rec.data, rec.len, &back, &removed, &block),
                   "a byte too many");
    dlq_buf_reset (&rec);
    dlq_checkpoint_record_encode (&r, true, 3, &rec);
    cr_assert (dlq_checkpoint_record_decode ((const uint8_t *) rec.data, rec.len, &back, &removed, &block));
    cr_assert (removed);
    cr_assert_str_eq (back.stream_name, "orders");
    cr_assert_null (back.instance_id, "a removal holds the stream name alone");
    free (block);
    /* a removal that holds more than the stream name is not what encoding writes */
    dlq_buf_reset (&rec);
    dlq_checkpoint_record_encode (&r, false, 3, &rec);
    rec.data [1] = 2;                   /* what: removed, with the record's fields */
    cr_assert_not (dlq_checkpoint_record_decode ((const uint8_t *) rec.data, rec.len, &back, &removed, &block));
    dlq_buf_reset (&rec);
    dlq_checkpoint_record_encode (&r, true, 3, &rec);
    rec.data [0] = 2;
    cr_assert_not (dlq_checkpoint_record_decode ((const uint8_t *) rec.data, rec.len, &back, &removed, &block),
                   "another version");
    cr_assert_not (dlq_checkpoint_record_events ((const uint8_t *) rec.data, rec.len, &events));
    dlq_buf_free (&rec);
}
