/*  protocol — verbs and reply bodies of wire protocol version 1. */
#include "protocol.h"

#include "dlq_json.h"
#include "principal.h"
#include "verb_table.h"

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

/* "principal":{...} of a PING's reply. */
static void
principal_member (dlq_buf_t *out, const dlq_principal_t *caller)
{
    const char *name = dlq_principal_name (caller);
    const char *role = dlq_principal_role_name (dlq_principal_role (caller));
    dlq_buf_puts (out, ",\"principal\":{\"name\":");
    dlq_json_write_string (out, name, strlen (name));
    dlq_buf_puts (out, ",\"role\":");
    dlq_json_write_string (out, role, strlen (role));
    dlq_buf_puts (out, ",\"streams\":[");
    for (size_t i = 0; i < dlq_principal_entry_count (caller); i++) {
        const char *entry = dlq_principal_entry (caller, i);
        if (i)
            dlq_buf_putc (out, ',');
        dlq_json_write_string (out, entry, strlen (entry));
    }
    dlq_buf_puts (out, "],\"verbs\":[");
    size_t count = 0, n = 0;
    const dlq_verb_spec_t *rows = dlq_verb_table_rows (&count);
    bool all = dlq_principal_all_streams (caller);     /* else no verb that looks across every stream */
    for (size_t i = 0; i < count; i++)
        if ((rows [i].roles & dlq_principal_role (caller)) && (all || rows [i].scope != DLQ_SCOPE_ALL))
            dlq_buf_printf (out, "%s\"%s\"", n++ ? "," : "", rows [i].name);
    dlq_buf_puts (out, "]}");
}

void
dlq_protocol_ping_body (dlq_buf_t *out, long long max_message_bytes, const dlq_principal_t *caller)
{
    dlq_buf_printf (out, "{\"pong\":true,\"version\":\"%s\",\"protocol\":%d,\"maxMessageBytes\":%lld",
                    DLQD_VERSION, DLQ_PROTOCOL_VERSION, max_message_bytes);
    if (caller)
        principal_member (out, caller);
    dlq_buf_putc (out, '}');
}
