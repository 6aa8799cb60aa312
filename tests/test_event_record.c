/*  test_event_record — an event's spool record (core/event_record): the
 *  routing members and the canonical body come back byte for byte, absent
 *  members stay absent, and damaged bytes are refused, never half read.
 */
#include "dlq_time.h"
#include "event_record.h"
#include "failed_event.h"

#include <criterion/criterion.h>
#include <string.h>

static dlq_event_t *
decoded (const char *json)
{
    dlq_error_t err;
    dlq_event_t *e = dlq_event_decode (json, strlen (json), 1700000000000, &err);
    cr_assert (e, "%s", err.message);
    dlq_event_fingerprint (e);
    dlq_event_encode (e);
    return e;
}

Test (event_record, the_routing_members_and_the_body_round_trip)
{
    dlq_event_t *e = decoded ("{\"id\":\"0190f3a2-8c1e-7b6e-9a8f-0123456789ab\",\"streamName\":\"orders\","
                              "\"operationType\":\"insert\",\"documentKey\":{\"_id\":1},"
                              "\"error\":{\"type\":\"Boom\",\"message\":\"m\"},\"attempts\":3,"
                              "\"firstAttemptAt\":\"2024-01-01T00:00:00.000Z\"}");
    e->expires_at = 1800000000000;
    dlq_buf_t rec = DLQ_BUF_INIT;
    dlq_event_record_encode (e, 0x0102030405060708ull, &rec);
    dlq_event_t *back = dlq_event_record_decode ((const uint8_t *) rec.data, rec.len);
    cr_assert (back);
    uint64_t ordinal = 0;
    cr_assert (dlq_event_record_ordinal ((const uint8_t *) rec.data, rec.len, &ordinal));
    cr_assert_eq (ordinal, 0x0102030405060708ull, "the ordinal, all 64 bits");
    cr_assert_not (dlq_event_record_ordinal ((const uint8_t *) rec.data, 8, &ordinal), "a cut record has none");
    cr_assert_str_eq (back->id, e->id);
    cr_assert_str_eq (back->stream_name, "orders");
    cr_assert_str_eq (back->operation_type, "insert");
    cr_assert_str_eq (back->document_key, e->document_key);
    cr_assert_str_eq (back->status, e->status);
    cr_assert_str_eq (back->error_type, "Boom");
    cr_assert_eq (back->attempts, 3);
    cr_assert_eq (back->first_attempt_at, e->first_attempt_at);
    cr_assert_eq (back->created_at, e->created_at);
    cr_assert_eq (back->expires_at, 1800000000000);
    cr_assert_str_eq (back->fingerprint, e->fingerprint);
    cr_assert_eq (back->json_len, e->json_len);
    cr_assert (memcmp (back->json, e->json, e->json_len) == 0);
    cr_assert_null (back->full_document);
    const char *id;
    size_t id_len;
    cr_assert (dlq_event_record_id ((const uint8_t *) rec.data, rec.len, &id, &id_len));
    cr_assert_eq (id_len, strlen (e->id));
    cr_assert (memcmp (id, e->id, id_len) == 0);
    int64_t expires;
    cr_assert (dlq_event_record_expires_at ((const uint8_t *) rec.data, rec.len, &expires));
    cr_assert_eq (expires, 1800000000000);
    /* every cut of the record is refused */
    for (size_t len = 0; len < rec.len; len++)
        cr_assert_null (dlq_event_record_decode ((const uint8_t *) rec.data, len), "cut at %zu", len);
    rec.data [0] = 9;
    cr_assert_null (dlq_event_record_decode ((const uint8_t *) rec.data, rec.len), "another version");
    cr_assert_not (dlq_event_record_ordinal ((const uint8_t *) rec.data, rec.len, &ordinal), "another version");
    dlq_event_destroy (&back);
    dlq_event_destroy (&e);
    dlq_buf_free (&rec);
}

Test (event_record, absent_members_stay_absent)
{
    dlq_event_t *e = decoded ("{\"streamName\":\"s\",\"error\":{\"type\":\"T\"}}");
    dlq_buf_t rec = DLQ_BUF_INIT;
    dlq_event_record_encode (e, 1, &rec);
    dlq_event_t *back = dlq_event_record_decode ((const uint8_t *) rec.data, rec.len);
    cr_assert (back);
    cr_assert_null (back->operation_type);
    cr_assert_null (back->document_key);
    cr_assert_eq (back->first_attempt_at, DLQ_TIME_NONE);
    cr_assert_eq (back->expires_at, e->expires_at);
    dlq_event_destroy (&back);
    dlq_event_destroy (&e);
    dlq_buf_free (&rec);
}
