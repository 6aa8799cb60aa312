/*  dlq_code — the stable error codes of the wire protocol, and the error
 *  value (code, field, message) that every validation step fills in.
 */
#ifndef DLQ_CODE_H
#define DLQ_CODE_H

typedef enum {
    DLQ_OK = 0,
    DLQ_ERR_BAD_FRAMES,         /* request is not [verb][request-id][body] */
    DLQ_ERR_UNKNOWN_VERB,       /* verb frame names no verb */
    DLQ_ERR_EMPTY_BODY,         /* body frame is empty where a body is required */
    DLQ_ERR_TOO_LARGE,          /* body over gateway.max_message_bytes */
    DLQ_ERR_INVALID_UTF8,       /* body is not valid UTF-8 */
    DLQ_ERR_INVALID_JSON,       /* body is not one JSON value */
    DLQ_ERR_INVALID_EVENT,      /* JSON, but not a valid FailedEvent (field says which) */
    DLQ_ERR_INVALID_TIMESTAMP,  /* a timestamp field that is not strict ISO-8601 */
    DLQ_ERR_INVALID_REQUEST,    /* a query body with a missing or ill-typed parameter */
    DLQ_ERR_NOT_FOUND,          /* no such (unexpired) event */
    DLQ_ERR_UNAVAILABLE,        /* the store failed or the gateway is stopping; retry later */
    DLQ_ERR_INTERNAL,           /* a bug; please report */
    DLQ_ERR_INVALID_STATE,      /* the request is valid but not in this state (e.g. resume a DONE replay) */
    DLQ_ERR_FORBIDDEN,          /* the caller's key may not call this verb, or not on this stream */
    DLQ_ERR_UNAUTHENTICATED,    /* HTTP API: no token, or one no client certificate names */
    DLQ_CODE_COUNT
} dlq_code_t;

typedef struct {
    dlq_code_t code;
    char       field [128];     /* JSON path of the offending field, "" when none */
    char       message [256];   /* human-readable explanation */
} dlq_error_t;

/* Stable upper-case name of a code, e.g. "INVALID_JSON". Pure. */
const char *dlq_code_name (dlq_code_t code);

/* Fill err (may be NULL: then nothing happens) and return code. */
dlq_code_t dlq_error_set (dlq_error_t *err, dlq_code_t code, const char *field,
                          const char *fmt, ...) __attribute__ ((format (printf, 4, 5)));

#endif
