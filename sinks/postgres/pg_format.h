/*  pg_format — the values the postgres sink sends, as pure functions (no
 *  libpq, no network): the parameters of one dlq_events row made from a
 *  delivered event, timestamps in the text Postgres accepts, batches cut
 *  into INSERTs under the protocol's parameter limit, and the LIST cursor.
 *
 *  A row's parameters are text, sent in binary format with their lengths
 *  (so the canonical body is passed without a copy and need not end with a
 *  NUL); NULL stands for SQL NULL. The INSERT (pg_sql.h) names each
 *  parameter in the order of dlq_pg_param_t and casts it to its column's
 *  type there (uuid, jsonb, int4, timestamptz).
 */
#ifndef DLQ_PG_FORMAT_H
#define DLQ_PG_FORMAT_H

#include "dlq_buf.h"
#include "dlq_sink.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One row's parameters, in the order the INSERT binds them. */
typedef enum {
    DLQ_PG_PARAM_ID = 0,            /* the event id (uuid) */
    DLQ_PG_PARAM_STREAM_NAME,
    DLQ_PG_PARAM_OPERATION_TYPE,
    DLQ_PG_PARAM_PAYLOAD,           /* the canonical body: payload_text as is, payload as jsonb */
    DLQ_PG_PARAM_PAYLOAD_JSONB,     /* NULL, or for payload a copy of the body with each \u0000 made
                                     * \ufffd, when it has one (jsonb holds no NUL character) */
    DLQ_PG_PARAM_DOCUMENT_KEY,      /* compact extended JSON */
    DLQ_PG_PARAM_FULL_DOCUMENT,
    DLQ_PG_PARAM_RESUME_TOKEN,
    DLQ_PG_PARAM_ERROR_TYPE,
    DLQ_PG_PARAM_ERROR_MESSAGE,
    DLQ_PG_PARAM_ERROR_STACKTRACE,
    DLQ_PG_PARAM_ATTEMPTS,          /* decimal */
    DLQ_PG_PARAM_FIRST_ATTEMPT_AT,  /* ISO-8601 UTC */
    DLQ_PG_PARAM_LAST_ATTEMPT_AT,
    DLQ_PG_PARAM_CREATED_AT,
    DLQ_PG_PARAM_EXPIRES_AT,
    DLQ_PG_PARAM_METADATA,          /* compact JSON object (each jsonb value with \u0000 made \ufffd) */
    DLQ_PG_PARAM_STATUS,            /* the event's status (PENDING when it has none) */
    DLQ_PG_PARAM_FINGERPRINT,       /* the error's fingerprint (fingerprint.h), 16 hex digits */
    DLQ_PG_PARAM_COUNT
} dlq_pg_param_t;

/* The protocol's limit on the parameters of one statement is 65535: an
 * INSERT carries at most this many rows. */
#define DLQ_PG_ROWS_PER_INSERT_MAX (65534 / DLQ_PG_PARAM_COUNT)

/* Room for a timestamp's text: "YYYY-MM-DDTHH:MM:SS.uuuuuuZ", "-infinity". */
#define DLQ_PG_TIME_LEN 32

/* Room for a LIST cursor: "<µs>.<uuid>". */
#define DLQ_PG_CURSOR_LEN 64

/* Room for a UUID's text with its NUL. */
#define DLQ_PG_UUID_LEN 37

/* One row's parameters. value [p] is NULL for SQL NULL, else length [p]
 * bytes followed by a NUL; the payload points into the event's body, the
 * other values into text, which the row owns. */
typedef struct {
    const char *value [DLQ_PG_PARAM_COUNT];
    int         length [DLQ_PG_PARAM_COUNT];
    dlq_buf_t   text;
} dlq_pg_row_t;

#define DLQ_PG_ROW_INIT { { NULL }, { 0 }, DLQ_BUF_INIT }

typedef enum {
    DLQ_PG_FORMAT_OK = 0,
    DLQ_PG_FORMAT_INVALID           /* the body is not a FailedEvent we can store */
} dlq_pg_format_result_t;

/* Fill row (its previous values are dropped) from event: the id, stream,
 * operation type, status, attempts and timestamps from the event's
 * fields, the JSON-valued fields, error.* and lastAttemptAt from its
 * body, and the fingerprint of its error.* as the body has them (a
 * stack trace the stream policy removed before delivery is not part of
 * it: the gateway's own fingerprint, taken before, may differ). Absent
 * fields (or JSON null) are NULL. INVALID, with why in err, when the body
 * is not a JSON object, has no error.type string, or names another id;
 * row is then empty. The row must not outlive event (the payload is the
 * event's body). */
dlq_pg_format_result_t dlq_pg_format_row (const dlq_sink_event_t *event, dlq_pg_row_t *row,
                                          char *err, size_t err_len);

/* Free what a row owns; the row is left empty and reusable. */
void dlq_pg_row_free (dlq_pg_row_t *row);

/* Bytes a row sends (the sum of its parameters' lengths). */
size_t dlq_pg_row_bytes (const dlq_pg_row_t *row);

/* How many of the count rows (count >= 1) go into the next INSERT: at
 * most DLQ_PG_ROWS_PER_INSERT_MAX rows and, past the first, no more than
 * max_bytes of parameters in all. Always at least 1. */
size_t dlq_pg_chunk_rows (const dlq_pg_row_t *rows, size_t count, size_t max_bytes);

/* A timestamp (ms since the epoch) as "YYYY-MM-DDTHH:MM:SS.mmmZ" into out
 * (DLQ_PG_TIME_LEN bytes); "infinity" / "-infinity" past year 9999 or
 * before year 1 (which Postgres orders after / before every date). */
void dlq_pg_format_time (int64_t ms, char *out);

/* A timestamp in microseconds as "YYYY-MM-DDTHH:MM:SS.uuuuuuZ" into out
 * (DLQ_PG_TIME_LEN bytes). False when outside years 0001-9999. */
bool dlq_pg_format_time_us (int64_t us, char *out);

/* True when s is a UUID, 8-4-4-4-12 hex digits; lowercase_only refuses
 * upper-case digits. */
bool dlq_pg_uuid_valid (const char *s, bool lowercase_only);

/* The LIST cursor after the row created at created_us (µs since the
 * epoch) with id: "<created_us>.<id>", into out (DLQ_PG_CURSOR_LEN bytes). */
void dlq_pg_cursor_format (int64_t created_us, const char *id, char *out);

/* Parse a cursor dlq_pg_cursor_format made, strictly: the integer in its
 * shortest form (no '+', no leading zeros, no "-0"), within years
 * 0001-9999, then '.', then a lowercase UUID, and nothing else. False for
 * anything else. id_out is DLQ_PG_UUID_LEN bytes. */
bool dlq_pg_cursor_parse (const char *cursor, int64_t *created_us, char *id_out);

#endif
