/*  protocol — verbs and reply bodies of wire protocol version 1. */
#include "protocol.h"

#include "dlq_json.h"

#include <string.h>

static const struct {
    const char *name;
    dlq_verb_t  verb;
} verbs [] = {
    { "PUT",   DLQ_VERB_PUT },
    { "GET",   DLQ_VERB_GET },
    { "LIST",  DLQ_VERB_LIST },
    { "STATS", DLQ_VERB_STATS },
    { "PING",  DLQ_VERB_PING },
    { "REDELIVER", DLQ_VERB_REDELIVER },
    { "COUNT", DLQ_VERB_COUNT },
    { "GROUPS", DLQ_VERB_GROUPS },
    { "REPLAY", DLQ_VERB_REPLAY },
    { "REPLAY.STATUS", DLQ_VERB_REPLAY_STATUS },
    { "REPLAY.PAUSE", DLQ_VERB_REPLAY_PAUSE },
    { "REPLAY.RESUME", DLQ_VERB_REPLAY_RESUME },
    { "REPLAY.CANCEL", DLQ_VERB_REPLAY_CANCEL },
    { "RESOLVE", DLQ_VERB_RESOLVE },
    { "FAIL", DLQ_VERB_FAIL },
    { "CKPT.SAVE", DLQ_VERB_CKPT_SAVE },
    { "CKPT.SEEN", DLQ_VERB_CKPT_SEEN },
    { "CKPT.PROCESSED", DLQ_VERB_CKPT_PROCESSED },
    { "CKPT.GET", DLQ_VERB_CKPT_GET },
    { "CKPT.LIST", DLQ_VERB_CKPT_LIST },
    { "CKPT.DELETE", DLQ_VERB_CKPT_DELETE },
};

dlq_verb_t
dlq_verb_parse (const void *frame, size_t len)
{
    for (size_t i = 0; i < sizeof verbs / sizeof verbs [0]; i++)
        if (strlen (verbs [i].name) == len && memcmp (verbs [i].name, frame, len) == 0)
            return verbs [i].verb;
    return DLQ_VERB_UNKNOWN;
}

bool
dlq_verb_body_optional (dlq_verb_t verb)
{
    return verb == DLQ_VERB_PING || verb == DLQ_VERB_STATS || verb == DLQ_VERB_COUNT || verb == DLQ_VERB_GROUPS
        || verb == DLQ_VERB_REPLAY_STATUS || verb == DLQ_VERB_CKPT_LIST;
}

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
