/*  test_id_store — the ids of the stored events in the state file
 *  (id_store.h), through the log calls it answers: a page of the log's
 *  records indexed at their positions with the position reached, an id
 *  stored once, the ids handed back in seq order (expiry with them), a seq
 *  looked up by id, the sweep of the expired ones (each named to the
 *  caller), relaxed and durable commits, a take-over of another store's
 *  ids done once, and what a store of ids does not keep (checkpoints,
 *  marks, an archive).
 *
 *  Every test works in its own mkdtemp directory, removed afterwards.
 */
#include "id_store.h"
#include "dlq_alloc.h"
#include "dlq_buf.h"
#include "dlq_time.h"
#include "event_record.h"
#include "failed_event.h"

#include "test_support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char tmp_dir [256];
static dlq_id_store_t *store;
static const dlq_sink_log_ops_t *ops;

static void
open_store (void)
{
    test_tmpdir (tmp_dir);
    char err [512] = "";
    store = dlq_id_store_open (tmp_dir, err, sizeof err);
    cr_assert_not_null (store, "%s", err);
    ops = dlq_id_store_log_ops ();
}

static void
close_store (void)
{
    dlq_id_store_destroy (&store);
    test_rmtree (tmp_dir);
}

TestSuite (id_store, .init = open_store, .fini = close_store);

#define NOW 1781015533500LL

/* The log record of an event with id ...-<n>, expiring at expires_at. */
static void
event_bytes (int n, int64_t expires_at, dlq_buf_t *out)
{
    char body [256];
    snprintf (body, sizeof body, "{\"id\":\"0190a1b2-0000-7000-8000-%012d\",\"streamName\":\"s\","
              "\"error\":{\"type\":\"T\"}}", n);
    dlq_error_t err;
    dlq_event_t *event = dlq_event_decode (body, strlen (body), NOW, &err);
    cr_assert_not_null (event, "%s", err.message);
    event->expires_at = expires_at;
    dlq_event_fingerprint (event);
    dlq_event_encode (event);
    dlq_event_record_encode (event, (uint64_t) n, out);
    dlq_event_destroy (&event);
}

typedef struct {
    dlq_buf_t         bytes [16];
    dlq_sink_record_t records [16];
    size_t            count;
} page_t;

/* Add an event record at position to page. */
static void
add_event (page_t *page, int n, uint64_t position, int64_t expires_at)
{
    size_t i = page->count++;
    page->bytes [i] = (dlq_buf_t) DLQ_BUF_INIT;
    event_bytes (n, expires_at, &page->bytes [i]);
    page->records [i] = (dlq_sink_record_t) { .position = position, .kind = DLQ_SINK_RECORD_EVENT,
                                             .payload = page->bytes [i].data, .length = page->bytes [i].len,
                                             .status = DLQ_SINK_STATUS_ERROR };
}

static void
add_other (page_t *page, dlq_sink_record_kind_t kind, uint64_t position)
{
    size_t i = page->count++;
    page->bytes [i] = (dlq_buf_t) DLQ_BUF_INIT;
    dlq_buf_puts (&page->bytes [i], "not an event");
    page->records [i] = (dlq_sink_record_t) { .position = position, .kind = kind, .payload = page->bytes [i].data,
                                             .length = page->bytes [i].len, .status = DLQ_SINK_STATUS_ERROR };
}

static int64_t
index_page (page_t *page, uint64_t end, bool durable)
{
    int64_t last_seq = -1;
    cr_assert_eq (ops->index (store, page->records, page->count, end, durable, &last_seq), DLQ_SINK_STATUS_OK,
                  "%s", dlq_id_store_last_error (store));
    for (size_t i = 0; i < page->count; i++)
        dlq_buf_free (&page->bytes [i]);
    page->count = 0;
    return last_seq;
}

typedef struct {
    int     count;
    char    ids [32][64];
    int64_t seqs [32];
    int64_t expires [32];
} seen_t;

static void
see_id (const char *id, size_t len, int64_t seq, int64_t expires_at, void *arg)
{
    seen_t *s = arg;
    cr_assert_lt (s->count, 32);
    snprintf (s->ids [s->count], sizeof s->ids [0], "%.*s", (int) len, id);
    s->seqs [s->count] = seq;
    s->expires [s->count++] = expires_at;
}

static void
see_swept (const char *id, size_t len, int64_t seq, void *arg)
{
    see_id (id, len, seq, 0, arg);
}

Test (id_store, a_new_store_has_indexed_nothing)
{
    uint64_t position = 7;
    bool indexed = true;
    cr_assert_eq (ops->position (store, &position, &indexed), DLQ_SINK_STATUS_OK);
    cr_expect_not (indexed, "a new store starts at the log's beginning");
    cr_expect_eq (ops->count (store), 0);
    cr_expect_eq (ops->last_seq (store), 0);
    bool done = true;
    cr_assert (dlq_id_store_taken_over (store, &done));
    cr_expect_not (done);
}

Test (id_store, a_page_stores_each_event_once_at_its_position_and_the_end_reached)
{
    page_t page = { 0 };
    add_event (&page, 1, 10, NOW + 1000);
    add_other (&page, DLQ_SINK_RECORD_CHECKPOINT, 100);
    add_event (&page, 2, 200, DLQ_TIME_NONE);
    add_other (&page, DLQ_SINK_RECORD_MARK, 300);
    add_event (&page, 1, 400, NOW + 5000);          /* the same id again: stored once, at its first position */
    cr_expect_eq (index_page (&page, 500, false), 400, "the highest seq the page held");
    uint64_t position = 0;
    bool indexed = false;
    cr_assert_eq (ops->position (store, &position, &indexed), DLQ_SINK_STATUS_OK);
    cr_expect (indexed);
    cr_expect_eq (position, 500);
    cr_expect_eq (ops->count (store), 2);
    seen_t seen = { 0 };
    cr_expect_eq (ops->each_id (store, see_id, &seen), 2);
    cr_expect_str_eq (seen.ids [0], "0190a1b2-0000-7000-8000-000000000001");
    cr_expect_eq (seen.seqs [0], 10);
    cr_expect_eq (seen.expires [0], NOW + 1000);
    cr_expect_str_eq (seen.ids [1], "0190a1b2-0000-7000-8000-000000000002");
    cr_expect_eq (seen.seqs [1], 200);
    cr_expect_eq (seen.expires [1], DLQ_SINK_TIME_NONE, "kept forever");
    int64_t seq = 0;
    cr_expect_eq (ops->seq_of (store, "0190a1b2-0000-7000-8000-000000000002", &seq), DLQ_SINK_STATUS_OK);
    cr_expect_eq (seq, 200);
    cr_expect_eq (ops->seq_of (store, "0190a1b2-0000-7000-8000-000000000009", &seq), DLQ_SINK_STATUS_NOT_FOUND);
    cr_expect_eq (ops->last_seq (store), 400, "the highest seq of any record indexed, the passed-over one too");
}

Test (id_store, a_mark_finds_no_event_and_nothing_else_is_kept)
{
    page_t page = { 0 };
    add_other (&page, DLQ_SINK_RECORD_MARK, 1);
    add_event (&page, 1, 2, DLQ_TIME_NONE);
    int64_t last_seq = -1;
    cr_assert_eq (ops->index (store, page.records, page.count, 3, true, &last_seq), DLQ_SINK_STATUS_OK);
    cr_expect_eq (page.records [0].status, DLQ_SINK_STATUS_NOT_FOUND, "a sink primary keeps the replay state");
    cr_expect_eq (page.records [1].status, DLQ_SINK_STATUS_OK);
    index_page (&page, 3, true);
    cr_expect_eq (ops->each_checkpoint (store, NULL, NULL), 0);
    cr_expect_eq (ops->read_after (store, 0, 10, NULL, NULL), 0, "no archive: the log and the primary hold the events");
    cr_expect_eq (ops->count_between (store, 0, 100), 0);
}

Test (id_store, the_sweep_forgets_the_expired_ids_naming_each)
{
    page_t page = { 0 };
    add_event (&page, 1, 1, NOW - 10);
    add_event (&page, 2, 2, NOW + 10);
    add_event (&page, 3, 3, NOW - 5);
    add_event (&page, 4, 4, DLQ_TIME_NONE);
    add_event (&page, 5, 5, NOW);
    index_page (&page, 6, false);
    seen_t swept = { 0 };
    cr_expect_eq (ops->sweep_each (store, NOW, 2, see_swept, &swept), 2, "at most max_rows");
    cr_expect_eq (ops->sweep_each (store, NOW, 2, see_swept, &swept), 1, "then the rest that expired by now");
    cr_expect_eq (ops->sweep_each (store, NOW, 2, see_swept, &swept), 0);
    cr_assert_eq (swept.count, 3);
    cr_expect_str_eq (swept.ids [0], "0190a1b2-0000-7000-8000-000000000001", "the oldest expiry first");
    cr_expect_eq (swept.seqs [0], 1);
    cr_expect_str_eq (swept.ids [1], "0190a1b2-0000-7000-8000-000000000003");
    cr_expect_str_eq (swept.ids [2], "0190a1b2-0000-7000-8000-000000000005");
    cr_expect_eq (ops->count (store), 2);
    int64_t seq;
    cr_expect_eq (ops->seq_of (store, "0190a1b2-0000-7000-8000-000000000001", &seq), DLQ_SINK_STATUS_NOT_FOUND);
    page_t again = { 0 };
    add_event (&again, 1, 9, DLQ_TIME_NONE);
    index_page (&again, 10, false);
    cr_expect_eq (ops->seq_of (store, "0190a1b2-0000-7000-8000-000000000001", &seq), DLQ_SINK_STATUS_OK);
    cr_expect_eq (seq, 9, "an expired id stored anew is a new event");
}

Test (id_store, what_was_indexed_is_there_after_reopening)
{
    page_t page = { 0 };
    add_event (&page, 1, 5, DLQ_TIME_NONE);
    index_page (&page, 6, false);                   /* relaxed: on disk with the next durable commit */
    add_event (&page, 2, 6, DLQ_TIME_NONE);
    index_page (&page, 7, true);
    dlq_id_store_destroy (&store);
    char err [512];
    store = dlq_id_store_open (tmp_dir, err, sizeof err);
    cr_assert_not_null (store, "%s", err);
    cr_expect_eq (ops->count (store), 2);
    uint64_t position = 0;
    bool indexed = false;
    cr_assert_eq (ops->position (store, &position, &indexed), DLQ_SINK_STATUS_OK);
    cr_expect_eq (position, 7);
    cr_expect_eq (ops->last_seq (store), 6);
}

/* ---- a store to take over from ------------------------------------------------- */

typedef struct {
    bool    indexed;
    int64_t fail_each;          /* each_id returns -1 after calling fn this often (-1: never) */
} other_t;

static dlq_sink_status_t
other_position (void *instance, uint64_t *position_out, bool *indexed_out)
{
    other_t *o = instance;
    *position_out = 4000;
    *indexed_out = o->indexed;
    return DLQ_SINK_STATUS_OK;
}

static int64_t
other_each_id (void *instance, dlq_sink_id_fn *fn, void *arg)
{
    other_t *o = instance;
    fn ("0190a1b2-0000-7000-8000-000000000001", 36, 17, NOW + 1, arg);
    if (o->fail_each == 1)
        return -1;
    fn ("0190a1b2-0000-7000-8000-000000000002", 36, 3000, DLQ_SINK_TIME_NONE, arg);
    return 2;
}

static int64_t other_last_seq (void *instance) { (void) instance; return 3500; }

static const dlq_sink_log_ops_t other_ops = {
    .struct_size = sizeof (dlq_sink_log_ops_t), .log_format = DLQ_SINK_LOG_FORMAT,
    .position = other_position, .each_id = other_each_id, .last_seq = other_last_seq,
};

Test (id_store, a_take_over_copies_the_ids_position_and_last_seq_once)
{
    page_t page = { 0 };
    add_event (&page, 2, 9, DLQ_TIME_NONE);         /* already here: kept as it is */
    index_page (&page, 10, false);
    other_t other = { true, -1 };
    cr_assert (dlq_id_store_take_over (store, &other_ops, &other), "%s", dlq_id_store_last_error (store));
    bool done = false;
    cr_assert (dlq_id_store_taken_over (store, &done));
    cr_expect (done);
    seen_t seen = { 0 };
    cr_expect_eq (ops->each_id (store, see_id, &seen), 2);
    cr_expect_str_eq (seen.ids [0], "0190a1b2-0000-7000-8000-000000000002");
    cr_expect_eq (seen.seqs [0], 9, "an id this store held keeps its seq");
    cr_expect_eq (seen.seqs [1], 17);
    cr_expect_eq (seen.expires [1], NOW + 1);
    uint64_t position = 0;
    bool indexed = false;
    cr_assert_eq (ops->position (store, &position, &indexed), DLQ_SINK_STATUS_OK);
    cr_expect_eq (position, 4000, "the indexing goes on from where the other store stood");
    cr_expect_eq (ops->last_seq (store), 3500);
}

Test (id_store, a_take_over_that_fails_keeps_nothing_and_is_not_recorded)
{
    other_t other = { true, 1 };
    cr_expect_not (dlq_id_store_take_over (store, &other_ops, &other));
    cr_expect_neq (dlq_id_store_last_error (store) [0], '\0');
    bool done = true;
    cr_assert (dlq_id_store_taken_over (store, &done));
    cr_expect_not (done, "to be done again at the next start");
    cr_expect_eq (ops->count (store), 0, "nothing of a failed take-over is kept");
    other.indexed = false;                          /* a store from before the log */
    other.fail_each = -1;
    cr_assert (dlq_id_store_take_over (store, &other_ops, &other), "%s", dlq_id_store_last_error (store));
    uint64_t position = 0;
    bool indexed = true;
    cr_assert_eq (ops->position (store, &position, &indexed), DLQ_SINK_STATUS_OK);
    cr_expect_not (indexed, "the indexing starts at the log's beginning");
    cr_expect_eq (ops->count (store), 2);
}
