/*  dlq_code — error code names and the error setter. */
#include "dlq_code.h"

#include "dlq_json.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const names [DLQ_CODE_COUNT] = {
    [DLQ_OK]                    = "OK",
    [DLQ_ERR_BAD_FRAMES]        = "BAD_FRAMES",
    [DLQ_ERR_UNKNOWN_VERB]      = "UNKNOWN_VERB",
    [DLQ_ERR_EMPTY_BODY]        = "EMPTY_BODY",
    [DLQ_ERR_TOO_LARGE]         = "TOO_LARGE",
    [DLQ_ERR_INVALID_UTF8]      = "INVALID_UTF8",
    [DLQ_ERR_INVALID_JSON]      = "INVALID_JSON",
    [DLQ_ERR_INVALID_EVENT]     = "INVALID_EVENT",
    [DLQ_ERR_INVALID_TIMESTAMP] = "INVALID_TIMESTAMP",
    [DLQ_ERR_INVALID_REQUEST]   = "INVALID_REQUEST",
    [DLQ_ERR_NOT_FOUND]         = "NOT_FOUND",
    [DLQ_ERR_UNAVAILABLE]       = "UNAVAILABLE",
    [DLQ_ERR_INTERNAL]          = "INTERNAL",
    [DLQ_ERR_INVALID_STATE]     = "INVALID_STATE",
    [DLQ_ERR_FORBIDDEN]         = "FORBIDDEN",
    [DLQ_ERR_UNAUTHENTICATED]   = "UNAUTHENTICATED",
};

const char *
dlq_code_name (dlq_code_t code)
{
    return (unsigned) code < DLQ_CODE_COUNT ? names [code] : "INTERNAL";
}

/* Replace each byte of text that is not part of a whole UTF-8 sequence
 * with '?': a field or message is formatted from valid UTF-8, but a name
 * cut to fit (here by snprintf, or by a caller's %.*s) can end mid
 * sequence, and an ERR body must stay UTF-8. */
static void
utf8_repair (char *text)
{
    size_t len = strlen (text), at = 0, bad;
    while (at < len && !dlq_utf8_valid (text + at, len - at, &bad)) {
        text [at + bad] = '?';
        at += bad + 1;
    }
}

dlq_code_t
dlq_error_set (dlq_error_t *err, dlq_code_t code, const char *field, const char *fmt, ...)
{
    if (!err)
        return code;
    err->code = code;
    snprintf (err->field, sizeof err->field, "%s", field ? field : "");
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (err->message, sizeof err->message, fmt, ap);
    va_end (ap);
    utf8_repair (err->field);
    utf8_repair (err->message);
    return code;
}
