/*  test_kafka_format — the kafka sink's record, without a cluster: the
 *  flowwarden-amqp example (key, value, every header in order), absent
 *  fields, the documentKey as key, topic names (prefix, override, what
 *  Kafka refuses), retention.ms, which delivery errors are permanent, and
 *  "name=value" rdkafka settings.
 */
#include "event_support.h"
#include "kafka_format.h"

#include <criterion/criterion.h>
#include <string.h>

#define EXAMPLE_ID "c2e8a5b6-0f1e-4c3a-9b7d-2a1f0e9d8c7b"

static void
expect_header (const dlq_kafka_record_t *r, size_t at, const char *name, const char *value)
{
    cr_assert_lt (at, r->header_count, "no header %zu (%s)", at, name);
    cr_expect_str_eq (r->headers [at].name, name, "header %zu", at);
    cr_expect_str_eq (r->headers [at].value, value, "header %s", name);
}

Test (kafka_record, wire_example_key_value_and_headers)
{
    dlq_event_t *e = event_wire_example ();
    dlq_sink_event_t event = event_for_sink (e, NULL, 0, 30);
    dlq_kafka_record_t r;
    dlq_kafka_record_format (&r, &event, DLQ_KAFKA_KEY_ID);
    cr_expect_eq (r.key_len, strlen (EXAMPLE_ID));
    cr_expect_eq (memcmp (r.key, EXAMPLE_ID, r.key_len), 0);
    cr_expect_eq (r.value, e->json, "the value is the canonical bytes themselves");
    cr_expect_eq (r.value_len, e->json_len);
    cr_expect_eq (r.header_count, 7);
    expect_header (&r, 0, "flowwarden-event-id", EXAMPLE_ID);
    expect_header (&r, 1, "flowwarden-stream-name", "orders");
    expect_header (&r, 2, "flowwarden-operation-type", "INSERT");
    expect_header (&r, 3, "flowwarden-attempts", "3");
    expect_header (&r, 4, "flowwarden-status", "DLQ");
    expect_header (&r, 5, "flowwarden-first-attempt-at", "1781015531123");
    expect_header (&r, 6, "flowwarden-schema-version", "1");
    dlq_event_destroy (&e);
}

Test (kafka_record, the_document_key_as_key)
{
    dlq_event_t *e = event_wire_example ();
    dlq_sink_event_t event = event_for_sink (e, NULL, 0, 30);
    dlq_kafka_record_t r;
    dlq_kafka_record_format (&r, &event, DLQ_KAFKA_KEY_DOCUMENT_KEY);
    const char *want = "{\"_id\":{\"$oid\":\"65f0a1b2c3d4e5f601234567\"}}";
    cr_expect_eq (r.key_len, strlen (want));
    cr_expect_eq (strncmp (r.key, want, r.key_len), 0, "key: %.*s", (int) r.key_len, r.key);
    dlq_event_destroy (&e);
}

Test (kafka_record, absent_fields_omit_headers_and_key_falls_back_to_the_id)
{
    static const char body [] = "{\"streamName\":\"payments\",\"error\":{\"type\":\"E\"},\"attempts\":12}";
    dlq_event_t *e = event_canonical (body, sizeof body - 1);
    dlq_sink_event_t event = event_for_sink (e, NULL, 0, 0);
    dlq_kafka_record_t r;
    dlq_kafka_record_format (&r, &event, DLQ_KAFKA_KEY_DOCUMENT_KEY);
    cr_expect_eq (r.key_len, strlen (e->id), "no documentKey: the id");
    cr_expect_eq (memcmp (r.key, e->id, r.key_len), 0);
    cr_expect_eq (r.header_count, 5);
    expect_header (&r, 0, "flowwarden-event-id", e->id);
    expect_header (&r, 1, "flowwarden-stream-name", "payments");
    expect_header (&r, 2, "flowwarden-attempts", "12");
    expect_header (&r, 3, "flowwarden-status", e->status);
    expect_header (&r, 4, "flowwarden-schema-version", "1");
    dlq_event_destroy (&e);
}

Test (kafka_topic, prefix_stream_and_override)
{
    char topic [DLQ_KAFKA_TOPIC_MAX + 1];
    cr_expect (dlq_kafka_topic ("dlq.", "orders-stream", NULL, topic));
    cr_expect_str_eq (topic, "dlq.orders-stream");
    cr_expect (dlq_kafka_topic ("dlq.", "payments", "alerts.payments_v2", topic));
    cr_expect_str_eq (topic, "alerts.payments_v2");
    cr_expect (dlq_kafka_topic ("dlq.", "payments", "", topic), "an empty override falls back");
    cr_expect_str_eq (topic, "dlq.payments");
}

Test (kafka_topic, names_kafka_refuses)
{
    char topic [DLQ_KAFKA_TOPIC_MAX + 1], stream [300];
    static const char *const bad [] = { "orders stream", "a/b", "caf\xc3\xa9", "x:y", "" };
    for (size_t i = 0; i < sizeof bad / sizeof bad [0]; i++) {
        cr_expect_not (dlq_kafka_topic ("", bad [i], NULL, topic), "\"%s\" is no topic name", bad [i]);
        cr_expect_str_empty (topic);
    }
    cr_expect_not (dlq_kafka_topic_valid ("."));
    cr_expect_not (dlq_kafka_topic_valid (".."));
    cr_expect (dlq_kafka_topic_valid ("..."));
    memset (stream, 'a', sizeof stream);
    stream [DLQ_KAFKA_TOPIC_MAX - 4] = '\0';        /* "dlq." + 245 = 249: the longest */
    cr_expect (dlq_kafka_topic ("dlq.", stream, NULL, topic));
    cr_expect_eq (strlen (topic), DLQ_KAFKA_TOPIC_MAX);
    stream [DLQ_KAFKA_TOPIC_MAX - 4] = 'a';
    stream [DLQ_KAFKA_TOPIC_MAX - 3] = '\0';        /* 250 */
    cr_expect_not (dlq_kafka_topic ("dlq.", stream, NULL, topic));
}

Test (kafka_topic, retention_ms)
{
    cr_expect_eq (dlq_kafka_retention_ms (30), 2592000000LL);
    cr_expect_eq (dlq_kafka_retention_ms (36500), 3153600000000LL);
    cr_expect_eq (dlq_kafka_retention_ms (0), -1, "0 days: forever");
    cr_expect_eq (dlq_kafka_retention_ms (-3), -1);
}

Test (kafka_errors, permanent_or_transient)
{
    static const rd_kafka_resp_err_t permanent [] = {
        RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE, RD_KAFKA_RESP_ERR_RECORD_LIST_TOO_LARGE,
        RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC, RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART,
        RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED, RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED,
        RD_KAFKA_RESP_ERR_INVALID_RECORD, RD_KAFKA_RESP_ERR_POLICY_VIOLATION, RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION,
    };
    static const rd_kafka_resp_err_t transient [] = {
        RD_KAFKA_RESP_ERR__MSG_TIMED_OUT, RD_KAFKA_RESP_ERR__TRANSPORT, RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
        RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT, RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS, RD_KAFKA_RESP_ERR__PURGE_QUEUE,
        RD_KAFKA_RESP_ERR_LEADER_NOT_AVAILABLE, RD_KAFKA_RESP_ERR__FATAL,
    };
    for (size_t i = 0; i < sizeof permanent / sizeof permanent [0]; i++)
        cr_expect (dlq_kafka_error_is_permanent (permanent [i]), "%s is permanent", rd_kafka_err2name (permanent [i]));
    for (size_t i = 0; i < sizeof transient / sizeof transient [0]; i++)
        cr_expect_not (dlq_kafka_error_is_permanent (transient [i]), "%s is transient",
                       rd_kafka_err2name (transient [i]));
}

Test (kafka_settings, name_equals_value)
{
    size_t len;
    const char *value;
    cr_expect (dlq_kafka_split_setting ("linger.ms=5", &len, &value));
    cr_expect_eq (len, 9);
    cr_expect_str_eq (value, "5");
    cr_expect (dlq_kafka_split_setting ("sasl.password=a=b", &len, &value), "the first '=' splits");
    cr_expect_eq (len, 13);
    cr_expect_str_eq (value, "a=b");
    cr_expect (dlq_kafka_split_setting ("client.rack=", &len, &value));
    cr_expect_str_empty (value);
    cr_expect_not (dlq_kafka_split_setting ("=5", &len, &value));
    cr_expect_not (dlq_kafka_split_setting ("linger.ms", &len, &value));
}
