/*  kafka_format — the Kafka record of one event; see kafka_format.h. */
#include "kafka_format.h"

#include "sink_name.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void
put_header (dlq_kafka_record_t *record, const char *name, const char *value)
{
    record->headers [record->header_count++] = (dlq_kafka_header_t) { .name = name, .value = value };
}

void
dlq_kafka_record_format (dlq_kafka_record_t *record, const dlq_sink_event_t *event, dlq_kafka_key_t key)
{
    memset (record, 0, sizeof *record);
    if (key == DLQ_KAFKA_KEY_DOCUMENT_KEY && event->document_key)
        record->key = event->document_key;
    else
        record->key = event->id;
    record->key_len = strlen (record->key);
    record->value = event->json;
    record->value_len = event->json_len;

    snprintf (record->attempts, sizeof record->attempts, "%" PRId32, event->attempts);
    put_header (record, "flowwarden-event-id", event->id);
    put_header (record, "flowwarden-stream-name", event->stream_name);
    if (event->operation_type)
        put_header (record, "flowwarden-operation-type", event->operation_type);
    put_header (record, "flowwarden-attempts", record->attempts);
    put_header (record, "flowwarden-status", event->status);
    if (event->first_attempt_at != DLQ_SINK_TIME_NONE) {
        snprintf (record->first_attempt_at, sizeof record->first_attempt_at, "%" PRId64, event->first_attempt_at);
        put_header (record, "flowwarden-first-attempt-at", record->first_attempt_at);
    }
    put_header (record, "flowwarden-schema-version", DLQ_KAFKA_SCHEMA_VERSION);
}

bool
dlq_kafka_topic_valid (const char *name)
{
    size_t len = strlen (name);
    if (len == 0 || len > DLQ_KAFKA_TOPIC_MAX || strcmp (name, ".") == 0 || strcmp (name, "..") == 0)
        return false;
    for (const char *p = name; *p; p++) {
        char c = *p;
        bool legal = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                  || c == '.' || c == '_' || c == '-';
        if (!legal)
            return false;
    }
    return true;
}

bool
dlq_kafka_topic (const char *prefix, const char *stream, const char *override, char *out)
{
    bool ok = dlq_sink_stream_name (prefix, stream, override, out, DLQ_KAFKA_TOPIC_MAX) && dlq_kafka_topic_valid (out);
    if (!ok)
        out [0] = '\0';
    return ok;
}

int64_t
dlq_kafka_retention_ms (int32_t retention_days)
{
    return retention_days <= 0 ? -1 : (int64_t) retention_days * DLQ_KAFKA_DAY_MS;
}

bool
dlq_kafka_error_is_permanent (rd_kafka_resp_err_t err)
{
    switch (err) {
        case RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE:      /* over message.max.bytes, or the topic's max */
        case RD_KAFKA_RESP_ERR_RECORD_LIST_TOO_LARGE:
        case RD_KAFKA_RESP_ERR_INVALID_MSG_SIZE:
        case RD_KAFKA_RESP_ERR_INVALID_MSG:
        case RD_KAFKA_RESP_ERR_INVALID_RECORD:
        case RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC:          /* local: absent, auto-creation off */
        case RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART:   /* the broker, at last */
        case RD_KAFKA_RESP_ERR_TOPIC_EXCEPTION:         /* invalid topic name */
        case RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED:
        case RD_KAFKA_RESP_ERR_CLUSTER_AUTHORIZATION_FAILED:
        case RD_KAFKA_RESP_ERR_POLICY_VIOLATION:
        case RD_KAFKA_RESP_ERR_UNSUPPORTED_FOR_MESSAGE_FORMAT:
            return true;
        default:
            return false;
    }
}

bool
dlq_kafka_split_setting (const char *item, size_t *name_len, const char **value)
{
    const char *eq = strchr (item, '=');
    if (!eq || eq == item)
        return false;
    *name_len = (size_t) (eq - item);
    *value = eq + 1;
    return true;
}
