/*  test_event_ordinal — event counts from the ordinals of event records
 *  (router/ingest/event_ordinal): the newest ordinal of a log, and the ordinal
 *  through any position (at an event, between events, below the oldest
 *  segment kept, at the tip), across segments and after a release.
 */
#include "event_ordinal.h"
#include "event_record.h"
#include "failed_event.h"
#include "spool.h"
#include "spool_kinds.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#define EVENTS 40

static char dir [512];
static char err [512];
static dlq_spool_t *spool;
static uint64_t positions [EVENTS + 1];     /* of the event numbered n, 1.. */

static void
setup (void)
{
    char base [400];
    test_tmpdir (base);
    snprintf (dir, sizeof dir, "%s/spool", base);
    /* small segments: the events span several */
    dlq_spool_options_t options = { 4096, 1u << 20, 1u << 20, false };
    dlq_spool_result_t rc;
    spool = dlq_spool_open (dir, &options, 1, NULL, &rc, err, sizeof err);
    cr_assert (spool, "open: %d %s", rc, err);
}

static void
teardown (void)
{
    dlq_spool_destroy (&spool);
}

TestSuite (event_ordinal, .init = setup, .fini = teardown);

/* Append and sync the events numbered from .. to, each in its own sync. */
static void
append_events (uint64_t from, uint64_t to)
{
    dlq_error_t e;
    const char *json = "{\"streamName\":\"s\",\"error\":{\"type\":\"T\",\"message\":\"a message of some length "
                       "so that a segment of 4096 bytes holds a handful of these records\"}}";
    for (uint64_t n = from; n <= to; n++) {
        dlq_event_t *event = dlq_event_decode (json, strlen (json), 1700000000000, &e);
        cr_assert (event, "%s", e.message);
        dlq_event_fingerprint (event);
        dlq_event_encode (event);
        dlq_buf_t rec = DLQ_BUF_INIT;
        dlq_event_record_encode (event, n, &rec);
        dlq_spool_part_t part = { rec.data, rec.len };
        cr_assert_eq (dlq_spool_append (spool, DLQ_SPOOL_KIND_EVENT, &part, 1, &positions [n]), DLQ_SPOOL_OK);
        cr_assert_eq (dlq_spool_sync (spool, err, sizeof err), DLQ_SPOOL_OK, "%s", err);
        dlq_buf_free (&rec);
        dlq_event_destroy (&event);
    }
}

static uint64_t
through (int64_t after)
{
    uint64_t ordinal = UINT64_MAX;
    cr_assert (dlq_event_ordinal_through (spool, after, &ordinal, err, sizeof err), "through %lld: %s",
               (long long) after, err);
    return ordinal;
}

Test (event_ordinal, an_empty_log_has_counted_nothing)
{
    uint64_t ordinal = UINT64_MAX;
    cr_assert (dlq_event_ordinal_last (spool, &ordinal, err, sizeof err), "%s", err);
    cr_assert_eq (ordinal, 0);
    cr_assert_eq (through (-1), 0, "no cursor yet");
    cr_assert_eq (through (0), 0, "a cursor below the log");
}

Test (event_ordinal, every_position_gives_the_events_at_or_before_it)
{
    append_events (1, EVENTS);
    uint64_t last = 0;
    cr_assert (dlq_event_ordinal_last (spool, &last, err, sizeof err), "%s", err);
    cr_assert_eq (last, EVENTS);
    dlq_spool_stats_t st;
    dlq_spool_stats (spool, &st);
    cr_assert_gt (st.segments, 3, "the events span several segments (%llu)", (unsigned long long) st.segments);
    cr_assert_eq (through (-1), 0);
    cr_assert_eq (through (0), 0, "below the first position");
    for (uint64_t n = 1; n <= EVENTS; n++)
        cr_assert_eq (through ((int64_t) positions [n]), n, "at event %llu", (unsigned long long) n);
    /* the newest event's position is the tip's last record: nothing past it */
    cr_assert_eq (through ((int64_t) positions [EVENTS]), EVENTS);
}

Test (event_ordinal, below_the_oldest_segment_kept_is_before_its_first_event)
{
    append_events (1, EVENTS);
    /* release everything below event 20's segment */
    cr_assert_geq (dlq_spool_release (spool, positions [20], err, sizeof err), 1, "%s", err);
    uint64_t begin = dlq_spool_begin (spool);
    cr_assert_gt (begin, positions [1]);
    uint64_t first = 0;
    for (uint64_t n = 1; n <= EVENTS && !first; n++)
        if (positions [n] >= begin)
            first = n;
    cr_assert_eq (through (-1), first - 1, "a cursor older than the log: the events before its first");
    cr_assert_eq (through ((int64_t) positions [1]), first - 1);
    cr_assert_eq (through ((int64_t) positions [first]), first);
    cr_assert_eq (through ((int64_t) positions [EVENTS]), EVENTS);
}

Test (event_ordinal, the_count_survives_a_restart)
{
    append_events (1, 10);
    dlq_spool_destroy (&spool);
    dlq_spool_result_t rc;
    spool = dlq_spool_open (dir, NULL, 1, NULL, &rc, err, sizeof err);
    cr_assert (spool, "reopen: %d %s", rc, err);
    uint64_t last = 0;
    cr_assert (dlq_event_ordinal_last (spool, &last, err, sizeof err), "%s", err);
    cr_assert_eq (last, 10, "the newest record says how many events the log has held");
    cr_assert_eq (through ((int64_t) positions [4]), 4);
}

Test (event_ordinal, a_record_that_is_no_event_record_is_an_error_not_a_count)
{
    uint8_t junk [8] = { 9, 9, 9, 9, 9, 9, 9, 9 };
    dlq_spool_part_t part = { junk, sizeof junk };
    uint64_t position;
    cr_assert_eq (dlq_spool_append (spool, DLQ_SPOOL_KIND_EVENT, &part, 1, &position), DLQ_SPOOL_OK);
    cr_assert_eq (dlq_spool_sync (spool, err, sizeof err), DLQ_SPOOL_OK, "%s", err);
    uint64_t ordinal = 0;
    cr_assert_not (dlq_event_ordinal_last (spool, &ordinal, err, sizeof err));
    cr_assert (strstr (err, "no event count"), "%s", err);
    cr_assert_not (dlq_event_ordinal_through (spool, (int64_t) position, &ordinal, err, sizeof err));
}
