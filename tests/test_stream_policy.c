/*  test_stream_policy — what the stream policy does to an event at the
 *  edges of time: an expiry past the last instant a timestamp holds.
 */
#include "dlq_time.h"
#include "failed_event.h"
#include "stream_policy.h"

#include <criterion/criterion.h>
#include <string.h>

/* Found by fuzz_event: createdAt 9999-12-31T23:59:59.999Z plus any
 * retention gave an expiresAt past year 9999, which the canonical body
 * cannot write, so the body lost it while the store kept it (and decoding
 * the stored body gave another event). */
Test (stream_policy, an_expiry_past_year_9999_is_the_last_instant_and_stays_in_the_body)
{
    static const char body [] = "{\"streamName\":\"s\",\"createdAt\":\"9999-12-31T23:59:59.999Z\",\"error\":{\"type\":\"T\"}}";
    dlq_event_t *e = dlq_event_decode (body, strlen (body), 0, NULL);
    cr_assert_not_null (e);
    dlq_policy_t policy = { .retention_days = 30 };
    dlq_policy_apply (&policy, e);
    char iso [DLQ_TIME_ISO_LEN + 1];
    cr_assert (dlq_time_format_iso (e->expires_at, iso), "expiresAt %lld cannot be written", (long long) e->expires_at);
    cr_expect_str_eq (iso, "9999-12-31T23:59:59.999Z");
    dlq_event_encode (e);
    cr_expect_not_null (strstr (e->json, "\"expiresAt\":\"9999-12-31T23:59:59.999Z\""), "%s", e->json);
    dlq_event_t *again = dlq_event_decode (e->json, e->json_len, 0, NULL);
    cr_assert_not_null (again);
    cr_expect_eq (again->expires_at, e->expires_at, "the stored body decodes to the same expiry");
    dlq_event_destroy (&again);
    dlq_event_destroy (&e);
}

Test (stream_policy, an_expiry_before_the_last_instant_is_created_at_plus_retention)
{
    static const char body [] = "{\"streamName\":\"s\",\"createdAt\":\"9999-12-01T00:00:00.000Z\",\"error\":{\"type\":\"T\"}}";
    dlq_event_t *e = dlq_event_decode (body, strlen (body), 0, NULL);
    cr_assert_not_null (e);
    dlq_policy_t policy = { .retention_days = 30 };
    dlq_policy_apply (&policy, e);
    cr_expect_eq (e->expires_at, e->created_at + 30LL * 86400000);
    dlq_policy_t forever = { .retention_days = 0 };
    dlq_policy_apply (&forever, e);
    cr_expect_eq (e->expires_at, DLQ_TIME_NONE);
    dlq_event_destroy (&e);
}
