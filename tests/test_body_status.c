/*  test_body_status — the body's top-level status rewritten in place: only
 *  the value of the top-level "status" member changes (never one inside
 *  fullDocument, metadata or a string), whitespace kept, a key spelled with
 *  escapes rewritten compactly, a missing status added, the wire format's
 *  example body byte for byte, what is not a JSON object refused. */
#include "body_status.h"
#include "event_support.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* json with its status set to status, as text (caller frees); NULL when INVALID. */
static char *
with_status (const char *json, const char *status)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    if (dlq_body_set_status (json, strlen (json), status, &out) != DLQ_BODY_STATUS_OK) {
        cr_expect_eq (out.len, 0, "INVALID wrote %s", out.data);
        dlq_buf_free (&out);
        return NULL;
    }
    return dlq_buf_steal (&out, NULL);
}

Test (body_status, only_the_top_level_status_value_changes)
{
    static const struct {
        const char *in;
        const char *status;
        const char *out;
    } cases [] = {
        /* a status inside fullDocument before, and inside metadata after */
        { "{\"id\":\"x\",\"fullDocument\":{\"status\":\"PAID\",\"a\":[{\"status\":\"Q\"}]},\"attempts\":3,"
          "\"status\":\"DLQ\",\"metadata\":{\"status\":\"M\"}}", "SUCCEEDED",
          "{\"id\":\"x\",\"fullDocument\":{\"status\":\"PAID\",\"a\":[{\"status\":\"Q\"}]},\"attempts\":3,"
          "\"status\":\"SUCCEEDED\",\"metadata\":{\"status\":\"M\"}}" },
        /* "status": inside a string, escaped quotes and backslashes around it */
        { "{\"error\":{\"message\":\"x \\\"status\\\":\\\"NO\\\" \\\\\"},\"status\":\"PENDING\",\"z\":\"}\"}",
          "QUARANTINED",
          "{\"error\":{\"message\":\"x \\\"status\\\":\\\"NO\\\" \\\\\"},\"status\":\"QUARANTINED\",\"z\":\"}\"}" },
        /* whitespace is kept as it was */
        { " { \"a\" : [1, 2] ,\n \"status\" : \"DLQ\" , \"b\" : true } ", "PENDING",
          " { \"a\" : [1, 2] ,\n \"status\" : \"PENDING\" , \"b\" : true } " },
        /* first member, last member, the same status */
        { "{\"status\":\"A\"}", "B", "{\"status\":\"B\"}" },
        { "{\"x\":null,\"status\":\"A\"}", "A", "{\"x\":null,\"status\":\"A\"}" },
        /* a key spelled with an escape: rewritten compactly */
        { "{\"a\": 1.50, \"st\\u0061tus\":\"DLQ\"}", "SUCCEEDED", "{\"a\":1.50,\"status\":\"SUCCEEDED\"}" },
        /* no status at all: added last */
        { "{\"a\":{\"status\":\"Q\"}}", "PENDING", "{\"a\":{\"status\":\"Q\"},\"status\":\"PENDING\"}" },
        { "{}", "PENDING", "{\"status\":\"PENDING\"}" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases [0]; i++) {
        char *out = with_status (cases [i].in, cases [i].status);
        cr_assert_not_null (out, "%s is refused", cases [i].in);
        cr_expect_str_eq (out, cases [i].out, "case %zu", i);
        free (out);
    }
}

Test (body_status, the_canonical_wire_example_keeps_every_other_byte)
{
    dlq_event_t *e = event_wire_example ();
    dlq_buf_t out = DLQ_BUF_INIT;
    cr_assert_eq (dlq_body_set_status (e->json, e->json_len, "SUCCEEDED", &out), DLQ_BODY_STATUS_OK);
    const char *at = strstr (e->json, ",\"status\":\"DLQ\",");
    cr_assert_not_null (at, "%s", e->json);
    size_t head = (size_t) (at - e->json) + strlen (",\"status\":\"");
    cr_expect_eq (out.len, e->json_len + strlen ("SUCCEEDED") - strlen ("DLQ"));
    cr_expect_eq (memcmp (out.data, e->json, head), 0, "the bytes before the status changed");
    cr_expect_eq (memcmp (out.data + head, "SUCCEEDED\"", 10), 0, "%s", out.data);
    cr_expect_str_eq (out.data + head + 9, e->json + head + 3, "the bytes after the status changed");
    dlq_buf_free (&out);
    dlq_event_destroy (&e);
}

Test (body_status, what_is_not_a_json_object_is_invalid)
{
    static const char *const bad [] = { "", "[1]", "\"status\"", "{\"status\":", "{} x", "nul" };
    for (size_t i = 0; i < sizeof bad / sizeof bad [0]; i++)
        cr_expect_null (with_status (bad [i], "PENDING"), "\"%s\" is accepted", bad [i]);
}
