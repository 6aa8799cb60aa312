/*  test_amqp_format — the amqp sink's message, without a broker: the
 *  flowwarden-amqp wire format's properties and headers for its example
 *  event (kinds and values), the body passed as the canonical bytes
 *  themselves, headers omitted for absent fields, the expiration from the
 *  retention (none for <= 0, RabbitMQ's ceiling above 3650 days), routing
 *  keys, and that the header table is valid AMQP (rabbitmq-c encodes it and
 *  decodes it back).
 */
#include "amqp_format.h"
#include "event_support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EXAMPLE_ID "c2e8a5b6-0f1e-4c3a-9b7d-2a1f0e9d8c7b"
#define EXAMPLE_FIRST_ATTEMPT_MS 1781015531123LL       /* 2026-06-09T14:32:11.123Z */

static bool
bytes_eq (amqp_bytes_t bytes, const char *text)
{
    return bytes.len == strlen (text) && memcmp (bytes.bytes, text, bytes.len) == 0;
}

static void
expect_string_header (const amqp_table_t *headers, const char *name, const char *value)
{
    const amqp_table_entry_t *e = dlq_amqp_header (headers, name);
    cr_assert_not_null (e, "header %s is missing", name);
    cr_expect_eq (e->value.kind, AMQP_FIELD_KIND_UTF8, "header %s is of kind '%c', want 'S'", name, e->value.kind);
    cr_expect (bytes_eq (e->value.value.bytes, value), "header %s is \"%.*s\", want \"%s\"", name,
               (int) e->value.value.bytes.len, (const char *) e->value.value.bytes.bytes, value);
}

static void
expect_int_header (const amqp_table_t *headers, const char *name, uint8_t kind, int64_t value)
{
    const amqp_table_entry_t *e = dlq_amqp_header (headers, name);
    cr_assert_not_null (e, "header %s is missing", name);
    cr_assert_eq (e->value.kind, kind, "header %s is of kind '%c', want '%c'", name, e->value.kind, kind);
    int64_t got = kind == AMQP_FIELD_KIND_I32 ? e->value.value.i32 : e->value.value.i64;
    cr_expect_eq (got, value, "header %s is %lld, want %lld", name, (long long) got, (long long) value);
}

Test (amqp_message, the_wire_examples_properties_and_headers)
{
    dlq_event_t *e = event_wire_example ();
    dlq_sink_event_t event = event_for_sink (e, NULL, 0, 30);
    dlq_amqp_message_t m;
    dlq_amqp_message_format (&m, &event);

    amqp_flags_t want = AMQP_BASIC_MESSAGE_ID_FLAG | AMQP_BASIC_CONTENT_TYPE_FLAG | AMQP_BASIC_CONTENT_ENCODING_FLAG
                      | AMQP_BASIC_DELIVERY_MODE_FLAG | AMQP_BASIC_HEADERS_FLAG | AMQP_BASIC_EXPIRATION_FLAG;
    cr_expect_eq (m.props._flags, want, "properties set: 0x%x, want 0x%x", (unsigned) m.props._flags, (unsigned) want);
    cr_expect (bytes_eq (m.props.message_id, EXAMPLE_ID));
    cr_expect (bytes_eq (m.props.content_type, "application/json"));
    cr_expect (bytes_eq (m.props.content_encoding, "UTF-8"));
    cr_expect_eq (m.props.delivery_mode, 2, "persistent");
    cr_expect (bytes_eq (m.props.expiration, "2592000000"), "30 days in ms");

    const amqp_table_t *h = &m.props.headers;
    cr_expect_eq (h->num_entries, 7);
    expect_string_header (h, "flowwarden-event-id", EXAMPLE_ID);
    expect_string_header (h, "flowwarden-stream-name", "orders");
    expect_string_header (h, "flowwarden-operation-type", "INSERT");
    expect_int_header (h, "flowwarden-attempts", AMQP_FIELD_KIND_I32, 3);
    expect_string_header (h, "flowwarden-status", "DLQ");
    expect_int_header (h, "flowwarden-first-attempt-at", AMQP_FIELD_KIND_I64, EXAMPLE_FIRST_ATTEMPT_MS);
    expect_int_header (h, "flowwarden-schema-version", AMQP_FIELD_KIND_I32, 1);

    cr_expect_eq (m.body.bytes, e->json, "the body is the canonical bytes themselves, not a copy");
    cr_expect_eq (m.body.len, e->json_len);
    dlq_event_destroy (&e);
}

Test (amqp_message, the_body_is_passed_as_given)
{
    dlq_event_t *e = event_wire_example ();
    char *copy = malloc (e->json_len + 8);
    memcpy (copy, e->json, e->json_len);
    memcpy (copy + e->json_len, "trailer", 8);      /* need not end with a NUL */
    dlq_sink_event_t event = event_for_sink (e, copy, e->json_len, 30);
    dlq_amqp_message_t m;
    dlq_amqp_message_format (&m, &event);
    cr_expect_eq (m.body.bytes, copy);
    cr_expect_eq (m.body.len, e->json_len);
    free (copy);
    dlq_event_destroy (&e);
}

Test (amqp_message, absent_fields_omit_their_headers)
{
    static const char body [] =
        "{\"streamName\":\"payments\",\"error\":{\"type\":\"E\",\"message\":\"m\"},\"attempts\":1}";
    dlq_event_t *e = event_canonical (body, sizeof body - 1);
    dlq_sink_event_t event = event_for_sink (e, NULL, 0, 0);
    dlq_amqp_message_t m;
    dlq_amqp_message_format (&m, &event);
    const amqp_table_t *h = &m.props.headers;
    cr_expect_null (dlq_amqp_header (h, "flowwarden-operation-type"));
    cr_expect_null (dlq_amqp_header (h, "flowwarden-first-attempt-at"));
    cr_expect_eq (h->num_entries, 5);
    expect_string_header (h, "flowwarden-event-id", e->id);
    expect_string_header (h, "flowwarden-stream-name", "payments");
    expect_string_header (h, "flowwarden-status", e->status);
    expect_int_header (h, "flowwarden-attempts", AMQP_FIELD_KIND_I32, 1);
    cr_expect_eq (m.props._flags & AMQP_BASIC_EXPIRATION_FLAG, 0, "retention 0: no expiration");
    dlq_event_destroy (&e);
}

Test (amqp_message, expiration_follows_the_retention)
{
    static const struct { int32_t days; const char *text; } cases [] = {
        { 1, "86400000" }, { 30, "2592000000" }, { 90, "7776000000" }, { 3650, "315360000000" },
        { 3651, "315360000000" }, { 100000, "315360000000" },      /* RabbitMQ's ceiling */
    };
    char out [24];
    for (size_t i = 0; i < sizeof cases / sizeof cases [0]; i++) {
        cr_expect (dlq_amqp_expiration (cases [i].days, out), "%d days", cases [i].days);
        cr_expect_str_eq (out, cases [i].text, "%d days", cases [i].days);
    }
    cr_expect_not (dlq_amqp_expiration (0, out));
    cr_expect_str_empty (out);
    cr_expect_not (dlq_amqp_expiration (-5, out));
    cr_expect_str_empty (out);
}

Test (amqp_routing_key, prefix_stream_and_override)
{
    char key [DLQ_AMQP_SHORTSTR_MAX + 1];
    cr_expect (dlq_amqp_routing_key ("dlq.", "orders-stream", NULL, key));
    cr_expect_str_eq (key, "dlq.orders-stream");
    cr_expect (dlq_amqp_routing_key ("dlq.", "payments", "alert.payment.failed", key));
    cr_expect_str_eq (key, "alert.payment.failed");
    cr_expect (dlq_amqp_routing_key ("dlq.", "payments", "", key), "an empty override falls back");
    cr_expect_str_eq (key, "dlq.payments");
    cr_expect (dlq_amqp_routing_key ("", "orders", NULL, key));
    cr_expect_str_eq (key, "orders");
}

Test (amqp_routing_key, longer_than_a_short_string_is_refused)
{
    char stream [300], key [DLQ_AMQP_SHORTSTR_MAX + 1];
    memset (stream, 's', sizeof stream - 1);
    stream [sizeof stream - 1] = '\0';
    stream [DLQ_AMQP_SHORTSTR_MAX - 4] = '\0';              /* "dlq." + 251 = 255: fits */
    cr_expect (dlq_amqp_routing_key ("dlq.", stream, NULL, key));
    cr_expect_eq (strlen (key), DLQ_AMQP_SHORTSTR_MAX);
    stream [DLQ_AMQP_SHORTSTR_MAX - 4] = 's';               /* 256: does not */
    stream [DLQ_AMQP_SHORTSTR_MAX - 3] = '\0';
    cr_expect_not (dlq_amqp_routing_key ("dlq.", stream, NULL, key));
    cr_expect_str_empty (key);
}

Test (amqp_message, headers_encode_as_a_valid_amqp_table)
{
    dlq_event_t *e = event_wire_example ();
    dlq_sink_event_t event = event_for_sink (e, NULL, 0, 30);
    dlq_amqp_message_t m;
    dlq_amqp_message_format (&m, &event);

    char buffer [4096];
    amqp_bytes_t encoded = { .len = sizeof buffer, .bytes = buffer };
    size_t offset = 0;
    cr_assert_eq (amqp_encode_table (encoded, &m.props.headers, &offset), AMQP_STATUS_OK);
    amqp_pool_t pool;
    init_amqp_pool (&pool, 4096);
    amqp_table_t decoded;
    size_t read = 0;
    encoded.len = offset;
    cr_assert_eq (amqp_decode_table (encoded, &pool, &decoded, &read), AMQP_STATUS_OK);
    cr_expect_eq (read, offset);
    cr_expect_eq (decoded.num_entries, 7);
    expect_string_header (&decoded, "flowwarden-event-id", EXAMPLE_ID);
    expect_int_header (&decoded, "flowwarden-first-attempt-at", AMQP_FIELD_KIND_I64, EXAMPLE_FIRST_ATTEMPT_MS);
    expect_int_header (&decoded, "flowwarden-schema-version", AMQP_FIELD_KIND_I32, 1);
    empty_amqp_pool (&pool);
    dlq_event_destroy (&e);
}
