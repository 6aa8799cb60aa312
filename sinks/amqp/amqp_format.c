/*  amqp_format — flowwarden-amqp's message of one event; see amqp_format.h. */
#include "amqp_format.h"

#include "sink_name.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static amqp_bytes_t
bytes_of (const char *s)
{
    return (amqp_bytes_t) { .len = strlen (s), .bytes = (void *) s };
}

/* A new entry name of kind at the end of table: its value to fill in. */
static amqp_field_value_t *
put (amqp_table_t *table, const char *name, uint8_t kind)
{
    amqp_table_entry_t *entry = &table->entries [table->num_entries++];
    entry->key = bytes_of (name);
    entry->value.kind = kind;
    return &entry->value;
}

static void
put_string (amqp_table_t *table, const char *name, const char *value)
{
    put (table, name, AMQP_FIELD_KIND_UTF8)->value.bytes = bytes_of (value);
}

static void
put_i32 (amqp_table_t *table, const char *name, int32_t value)
{
    put (table, name, AMQP_FIELD_KIND_I32)->value.i32 = value;
}

static void
put_i64 (amqp_table_t *table, const char *name, int64_t value)
{
    put (table, name, AMQP_FIELD_KIND_I64)->value.i64 = value;
}

bool
dlq_amqp_expiration (int32_t retention_days, char *out)
{
    out [0] = '\0';
    if (retention_days <= 0)
        return false;
    int64_t ms = (int64_t) retention_days * DLQ_AMQP_DAY_MS;
    if (ms > DLQ_AMQP_EXPIRATION_MAX)
        ms = DLQ_AMQP_EXPIRATION_MAX;
    snprintf (out, 24, "%" PRId64, ms);
    return true;
}

bool
dlq_amqp_routing_key (const char *prefix, const char *stream, const char *override, char *out)
{
    return dlq_sink_stream_name (prefix, stream, override, out, DLQ_AMQP_SHORTSTR_MAX);
}

void
dlq_amqp_message_format (dlq_amqp_message_t *message, const dlq_sink_event_t *event)
{
    memset (message, 0, sizeof *message);
    amqp_basic_properties_t *props = &message->props;
    props->_flags = AMQP_BASIC_MESSAGE_ID_FLAG | AMQP_BASIC_CONTENT_TYPE_FLAG
                  | AMQP_BASIC_CONTENT_ENCODING_FLAG | AMQP_BASIC_DELIVERY_MODE_FLAG
                  | AMQP_BASIC_HEADERS_FLAG;
    props->message_id = bytes_of (event->id);
    props->content_type = bytes_of (DLQ_AMQP_CONTENT_TYPE);
    props->content_encoding = bytes_of (DLQ_AMQP_CONTENT_ENCODING);
    props->delivery_mode = DLQ_AMQP_DELIVERY_PERSISTENT;
    if (dlq_amqp_expiration (event->retention_days, message->expiration)) {
        props->_flags |= AMQP_BASIC_EXPIRATION_FLAG;
        props->expiration = bytes_of (message->expiration);
    }

    amqp_table_t *headers = &props->headers;
    headers->entries = message->headers;
    headers->num_entries = 0;
    put_string (headers, DLQ_AMQP_HEADER_EVENT_ID, event->id);
    put_string (headers, DLQ_AMQP_HEADER_STREAM_NAME, event->stream_name);
    if (event->operation_type)
        put_string (headers, DLQ_AMQP_HEADER_OPERATION_TYPE, event->operation_type);
    put_i32 (headers, DLQ_AMQP_HEADER_ATTEMPTS, event->attempts);
    put_string (headers, DLQ_AMQP_HEADER_STATUS, event->status);
    if (event->first_attempt_at != DLQ_SINK_TIME_NONE)
        put_i64 (headers, DLQ_AMQP_HEADER_FIRST_ATTEMPT, event->first_attempt_at);
    put_i32 (headers, DLQ_AMQP_HEADER_SCHEMA_VERSION, DLQ_AMQP_SCHEMA_VERSION);

    message->body = (amqp_bytes_t) { .len = event->json_len, .bytes = (void *) event->json };
}

const amqp_table_entry_t *
dlq_amqp_header (const amqp_table_t *table, const char *name)
{
    size_t len = strlen (name);
    for (int i = 0; i < table->num_entries; i++) {
        const amqp_bytes_t *key = &table->entries [i].key;
        if (key->len == len && memcmp (key->bytes, name, len) == 0)
            return &table->entries [i];
    }
    return NULL;
}
