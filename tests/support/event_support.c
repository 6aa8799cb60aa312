/*  event_support — events as a sink's deliver sees them; see the header. */
#include "event_support.h"

#include "dlq_time.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

dlq_event_t *
event_canonical (const char *body, size_t len)
{
    dlq_error_t error = { 0 };
    dlq_event_t *event = dlq_event_decode (body, len, EVENT_RECEIVED_AT, &error);
    cr_assert_not_null (event, "does not decode: %s", error.message);
    dlq_event_encode (event);
    return event;
}

dlq_event_t *
event_stored (const char *body, int64_t expires_at)
{
    dlq_error_t error = { 0 };
    dlq_event_t *event = dlq_event_decode (body, strlen (body), EVENT_RECEIVED_AT, &error);
    cr_assert_not_null (event, "%s: %s", body, error.message);
    dlq_event_fingerprint (event);
    event->expires_at = expires_at;
    dlq_event_encode (event);
    return event;
}

dlq_event_t *
event_wire_example (void)
{
    size_t len;
    char *body = test_read_file (EVENT_WIRE_EXAMPLE, &len);
    cr_assert_not_null (body, "%s is missing", EVENT_WIRE_EXAMPLE);
    dlq_event_t *event = event_canonical (body, len);
    free (body);
    return event;
}

char *
event_wire_example_json_now (void)
{
    char *example = test_read_file (EVENT_WIRE_EXAMPLE, NULL);
    cr_assert_not_null (example, "%s is missing", EVENT_WIRE_EXAMPLE);
    char *created = strstr (example, EVENT_WIRE_EXAMPLE_CREATED_AT);
    cr_assert_not_null (created, "the example has no createdAt %s", EVENT_WIRE_EXAMPLE_CREATED_AT);
    char now [DLQ_TIME_ISO_LEN + 1];
    dlq_time_format_iso (dlq_time_now_ms (), now);
    cr_assert_eq (strlen (now), strlen (EVENT_WIRE_EXAMPLE_CREATED_AT));
    memcpy (created, now, strlen (now));
    return example;
}

dlq_sink_event_t
event_for_sink (const dlq_event_t *e, const char *body, size_t len, int32_t retention_days)
{
    return (dlq_sink_event_t) {
        .id = e->id, .stream_name = e->stream_name, .operation_type = e->operation_type,
        .status = e->status, .document_key = e->document_key, .attempts = e->attempts,
        .first_attempt_at = e->first_attempt_at, .created_at = e->created_at,
        .expires_at = e->expires_at, .retention_days = retention_days,
        .json = body ? body : e->json, .json_len = body ? len : e->json_len, .delivery_attempt = 1,
    };
}
