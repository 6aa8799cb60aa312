/*  protocol — verbs and reply bodies of wire protocol version 1. */
#include "protocol.h"

#include "dlq_json.h"

#include <string.h>

void
dlq_protocol_error_body (dlq_buf_t *out, const dlq_error_t *err)
{
    const char *code = dlq_code_name (err->code);
    dlq_buf_puts (out, "{\"code\":");
    dlq_json_write_string (out, code, strlen (code));
    dlq_buf_puts (out, ",\"message\":");
    dlq_json_write_string (out, err->message, strnlen (err->message, sizeof err->message));
    if (err->field [0]) {
        dlq_buf_puts (out, ",\"field\":");
        dlq_json_write_string (out, err->field, strnlen (err->field, sizeof err->field));
    }
    dlq_buf_putc (out, '}');
}

void
dlq_protocol_put_body (dlq_buf_t *out, const char *id, bool duplicate)
{
    dlq_buf_puts (out, "{\"id\":\"");
    dlq_buf_puts (out, id);
    dlq_buf_puts (out, duplicate ? "\",\"duplicate\":true}" : "\",\"duplicate\":false}");
}

void
dlq_protocol_ping_body (dlq_buf_t *out, long long max_message_bytes)
{
    dlq_buf_printf (out, "{\"pong\":true,\"version\":\"%s\",\"protocol\":%d,\"maxMessageBytes\":%lld}",
                    DLQD_VERSION, DLQ_PROTOCOL_VERSION, max_message_bytes);
}
