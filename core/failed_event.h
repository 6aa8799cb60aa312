/*  failed_event — FlowWarden's FailedEvent record and its JSON codec (the body
 *  of the flowwarden-amqp wire format).
 *
 *  The internal form is a plain struct of owned strings and millisecond
 *  timestamps. BSON-valued fields (documentKey, fullDocument, resumeToken)
 *  and metadata are kept as compact MongoDB extended JSON text, exactly as
 *  the worker sent them minus insignificant whitespace, so no number or type
 *  information is lost on the way to a BSON sink.
 *
 *  Life of an event at the gateway:
 *      dlq_event_decode()     bytes -> validated event (defaults filled in)
 *      dlq_policy_apply()     include flags and expiresAt (stream_policy.h)
 *      dlq_event_encode()     canonical JSON bytes, kept in event->json
 *  Sinks forward event->json as is; they never re-serialise.
 */
#ifndef DLQ_FAILED_EVENT_H
#define DLQ_FAILED_EVENT_H

#include "dlq_arena.h"
#include "dlq_code.h"
#include "dlq_time.h"

#include <stddef.h>
#include <stdint.h>

#define DLQ_STATUS_PENDING "PENDING"
#define DLQ_STREAM_NAME_MAX 255     /* characters */

typedef struct {
    char    *id;                /* lowercase UUID text; generated UUIDv7 when absent */
    char    *stream_name;       /* 1-255 printable characters */
    char    *operation_type;    /* NULL when absent */
    char    *document_key;      /* extended JSON value text, NULL when absent */
    char    *full_document;     /* extended JSON object text, NULL when absent/excluded */
    char    *resume_token;      /* extended JSON object text, NULL when absent */
    char    *error_type;        /* required, non-empty */
    char    *error_message;     /* NULL when absent */
    char    *error_stack_trace; /* NULL when absent/excluded */
    int32_t  attempts;          /* >= 0, 0 when absent */
    char    *status;            /* "PENDING" when absent */
    int64_t  first_attempt_at;  /* ms since epoch, or DLQ_TIME_NONE */
    int64_t  last_attempt_at;
    int64_t  created_at;        /* never NONE after decode: now when absent */
    int64_t  expires_at;        /* set by the stream policy; NONE = keep forever */
    char    *metadata;          /* JSON object text, NULL when absent or empty */
    char    *json;              /* canonical JSON body, NULL until dlq_event_encode */
    size_t   json_len;
    char     fingerprint [17];  /* the error's fingerprint (fingerprint.h), 16 hex digits;
                                 * "" until dlq_event_fingerprint */
    dlq_arena_t *arena;         /* the arena the event and its strings are in; NULL: the heap's */
} dlq_event_t;

/* Decode and validate one FailedEvent JSON body. now_ms fills createdAt and
 * the UUIDv7 of an event that has none. Returns a new event (caller destroys)
 * or NULL with err filled: INVALID_UTF8, INVALID_JSON, EMPTY_BODY,
 * INVALID_EVENT or INVALID_TIMESTAMP, with err->field naming the field
 * ("error.type", "createdAt", ...). Unknown fields are rejected. */
dlq_event_t *dlq_event_decode (const char *body, size_t len, int64_t now_ms, dlq_error_t *err);

/* The same, the event and its strings (and its JSON, once encoded) in
 * arena: no heap allocation once the arena has grown, nothing to free
 * (dlq_event_destroy only NULLs the pointer; the arena's reset frees it).
 * A body refused takes back what it took of the arena. */
dlq_event_t *dlq_event_decode_in (const char *body, size_t len, int64_t now_ms, dlq_arena_t *arena,
                                  dlq_error_t *err);

/* Drop one of the event's optional strings (*field, one of its members). */
void dlq_event_drop (dlq_event_t *event, char **field);

/* Set event->fingerprint from its error (type, message, stack trace). The
 * gateway calls it after the stream policy, so the fingerprint is of the
 * event as stored: what any store computes again from the body. */
void dlq_event_fingerprint (dlq_event_t *event);

/* The same fingerprint into hex (17 bytes), event untouched. */
void dlq_event_fingerprint_hex (const dlq_event_t *event, char *hex);

/* Build the canonical JSON body (the field order of the flowwarden-amqp wire
 * format, compact, timestamps as ISO-8601 UTC with milliseconds, absent
 * fields omitted, metadata omitted when empty) into event->json, replacing
 * any previous one. */
void dlq_event_encode (dlq_event_t *event);

/* Free an event (of an arena: only NULL the pointer); accepts NULL and
 * NULLs the pointer. */
void dlq_event_destroy (dlq_event_t **event_p);

#endif
