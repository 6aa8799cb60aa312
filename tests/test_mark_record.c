/*  test_mark_record — a replay-state change's spool record
 *  (core/mark_record): every field comes back, all 64 bits of the times,
 *  and damaged or foreign bytes are refused, never half read.
 */
#include "mark_record.h"

#include <criterion/criterion.h>
#include <string.h>

#define ID "0190f3a2-8c1e-7b6e-9a8f-0123456789ab"

static dlq_buf_t
encoded (dlq_sink_mark_t mark, const char *id, size_t id_len)
{
    dlq_buf_t rec = DLQ_BUF_INIT;
    dlq_mark_record_t r = { mark, 0x0102030405060708ull, 1700000000123, -5, id, id_len };
    dlq_mark_record_encode (&r, &rec);
    return rec;
}

Test (mark_record, every_field_round_trips)
{
    dlq_buf_t rec = encoded (DLQ_SINK_MARK_FAILED, ID, strlen (ID));
    dlq_mark_record_t back;
    cr_assert (dlq_mark_record_decode ((const uint8_t *) rec.data, rec.len, &back));
    cr_assert_eq (back.mark, DLQ_SINK_MARK_FAILED);
    cr_assert_eq (back.events, 0x0102030405060708ull);
    cr_assert_eq (back.now_ms, 1700000000123);
    cr_assert_eq (back.retry_after_ms, -5, "a negative time survives the unsigned wire");
    cr_assert_eq (back.id_len, strlen (ID));
    cr_assert (memcmp (back.id, ID, back.id_len) == 0);
    cr_assert_eq ((const char *) back.id, rec.data + rec.len - strlen (ID), "the id is read in place");
    dlq_buf_free (&rec);
}

Test (mark_record, every_mark_there_is_round_trips)
{
    dlq_sink_mark_t marks [] = { DLQ_SINK_MARK_RESOLVED, DLQ_SINK_MARK_FAILED, DLQ_SINK_MARK_REPLAYED,
                                 DLQ_SINK_MARK_QUARANTINED, DLQ_SINK_MARK_RELEASED };
    for (size_t i = 0; i < sizeof marks / sizeof marks [0]; i++) {
        dlq_buf_t rec = encoded (marks [i], "x", 1);
        dlq_mark_record_t back;
        cr_assert (dlq_mark_record_decode ((const uint8_t *) rec.data, rec.len, &back), "mark %d", (int) marks [i]);
        cr_assert_eq (back.mark, marks [i]);
        dlq_buf_free (&rec);
    }
}

Test (mark_record, every_cut_and_any_trailing_byte_is_refused)
{
    dlq_buf_t rec = encoded (DLQ_SINK_MARK_RESOLVED, ID, strlen (ID));
    dlq_mark_record_t back;
    for (size_t len = 0; len < rec.len; len++)
        cr_assert_not (dlq_mark_record_decode ((const uint8_t *) rec.data, len, &back), "cut at %zu", len);
    dlq_buf_putc (&rec, 'x');
    cr_assert_not (dlq_mark_record_decode ((const uint8_t *) rec.data, rec.len, &back), "a byte past the id");
    dlq_buf_free (&rec);
}

Test (mark_record, another_version_an_unknown_mark_and_a_bad_id_are_refused)
{
    dlq_mark_record_t back;
    dlq_buf_t rec = encoded (DLQ_SINK_MARK_RESOLVED, ID, strlen (ID));
    rec.data [0] = 2;
    cr_assert_not (dlq_mark_record_decode ((const uint8_t *) rec.data, rec.len, &back), "version 2");
    rec.data [0] = 1;
    rec.data [1] = 99;
    cr_assert_not (dlq_mark_record_decode ((const uint8_t *) rec.data, rec.len, &back), "mark 99");
    dlq_buf_free (&rec);
    rec = encoded (DLQ_SINK_MARK_RESOLVED, "", 0);
    cr_assert_not (dlq_mark_record_decode ((const uint8_t *) rec.data, rec.len, &back), "an empty id");
    dlq_buf_free (&rec);
    rec = encoded (DLQ_SINK_MARK_RESOLVED, "a\0b", 3);
    cr_assert_not (dlq_mark_record_decode ((const uint8_t *) rec.data, rec.len, &back), "a NUL in the id");
    dlq_buf_free (&rec);
    rec = encoded (DLQ_SINK_MARK_RESOLVED, NULL, 0);
    cr_assert_not (dlq_mark_record_decode ((const uint8_t *) rec.data, rec.len, &back), "an absent id");
    dlq_buf_free (&rec);
}
