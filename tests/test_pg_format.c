/*  test_pg_format — the pure part of the postgres sink, without a server:
 *  the parameters of a row (the flowwarden-amqp example event, absent
 *  fields, bad bodies, the status and the fingerprint), timestamps, chunks,
 *  the LIST cursor, the SQL text (placeholder numbering, quoted identifiers
 *  passed through, the versioned DDL, the workbench's state changes and
 *  claim), index, lock and checkpoint table names and lock keys, the
 *  SQLSTATE classes, the body's status rewritten in place, the workbench's
 *  filters as SQL, and the checkpoint calls' SQL and parameters (each kind
 *  of write setting only its columns, the JSONB copies, LIST's prefix and
 *  cursor).
 */
#include "dlq_alloc.h"
#include "dlq_json.h"
#include "event_support.h"
#include "test_support.h"
#include "failed_event.h"
#include "fingerprint.h"
#include "pg_ckpt_sql.h"
#include "pg_filter.h"
#include "pg_format.h"
#include "pg_sql.h"
#include "pg_sqlstate.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- fixtures ----------------------------------------------------------------- */

/* Parameter p of row is text. */
static void
expect_param (const dlq_pg_row_t *row, dlq_pg_param_t p, const char *text)
{
    cr_assert_not_null (row->value [p], "parameter %d is NULL, want %s", (int) p, text);
    cr_expect_eq (row->length [p], (int) strlen (text), "parameter %d: length %d, want %zu",
                  (int) p, row->length [p], strlen (text));
    cr_expect_str_eq (row->value [p], text, "parameter %d", (int) p);
}

/* Parameter p of row is NULL. */
static void
expect_null (const dlq_pg_row_t *row, dlq_pg_param_t p)
{
    cr_expect_null (row->value [p], "parameter %d is %s, want NULL", (int) p, row->value [p]);
}

/* Every parameter of the flowwarden-amqp example but the payload. */
static void
expect_wire_example (const dlq_pg_row_t *row)
{
    expect_param (row, DLQ_PG_PARAM_ID, "c2e8a5b6-0f1e-4c3a-9b7d-2a1f0e9d8c7b");
    expect_param (row, DLQ_PG_PARAM_STREAM_NAME, "orders");
    expect_param (row, DLQ_PG_PARAM_OPERATION_TYPE, "INSERT");
    expect_param (row, DLQ_PG_PARAM_DOCUMENT_KEY, "{\"_id\":{\"$oid\":\"65f0a1b2c3d4e5f601234567\"}}");
    expect_param (row, DLQ_PG_PARAM_FULL_DOCUMENT,
                  "{\"_id\":{\"$oid\":\"65f0a1b2c3d4e5f601234567\"},\"status\":\"PAID\","
                  "\"total\":{\"$numberDecimal\":\"129.90\"},\"items\":3}");
    expect_param (row, DLQ_PG_PARAM_RESUME_TOKEN, "{\"_data\":\"8265F0A1B2000000012B022C0100296E5A1004\"}");
    expect_param (row, DLQ_PG_PARAM_ERROR_TYPE, "java.lang.IllegalStateException");
    expect_param (row, DLQ_PG_PARAM_ERROR_MESSAGE, "downstream call failed");
    expect_param (row, DLQ_PG_PARAM_ERROR_STACKTRACE,
                  "java.lang.IllegalStateException: downstream call failed\n\tat com.acme.Orders.handle(Orders.java:42)");
    expect_param (row, DLQ_PG_PARAM_ATTEMPTS, "3");
    expect_param (row, DLQ_PG_PARAM_FIRST_ATTEMPT_AT, "2026-06-09T14:32:11.123Z");
    expect_param (row, DLQ_PG_PARAM_LAST_ATTEMPT_AT, "2026-06-09T14:32:13.456Z");
    expect_param (row, DLQ_PG_PARAM_CREATED_AT, "2026-06-09T14:32:13.500Z");
    expect_param (row, DLQ_PG_PARAM_EXPIRES_AT, "2026-07-09T14:32:13.500Z");
    expect_param (row, DLQ_PG_PARAM_METADATA, "{\"tenantId\":\"acme\"}");
    expect_param (row, DLQ_PG_PARAM_STATUS, "DLQ");
}

/* ---- rows ----------------------------------------------------------------------- */

Test (pg_row, every_column_of_the_wire_example)
{
    size_t len;
    char *body = test_read_file (EVENT_WIRE_EXAMPLE, &len);
    dlq_event_t *e = event_canonical (body, len);
    dlq_sink_event_t event = event_for_sink (e, NULL, 0, 30);
    dlq_pg_row_t row = DLQ_PG_ROW_INIT;
    char err [200] = "";
    cr_assert_eq (dlq_pg_format_row (&event, &row, err, sizeof err), DLQ_PG_FORMAT_OK, "%s", err);
    expect_wire_example (&row);
    cr_expect_eq (row.value [DLQ_PG_PARAM_PAYLOAD], e->json, "the payload is not the canonical body itself");
    cr_expect_eq (row.length [DLQ_PG_PARAM_PAYLOAD], (int) e->json_len);
    size_t bytes = e->json_len;
    for (int p = 0; p < DLQ_PG_PARAM_COUNT; p++)
        bytes += p == DLQ_PG_PARAM_PAYLOAD || !row.value [p] ? 0 : strlen (row.value [p]);
    expect_null (&row, DLQ_PG_PARAM_PAYLOAD_JSONB);     /* no \u0000: the payload is the body */
    cr_expect_eq (dlq_pg_row_bytes (&row), bytes, "every parameter counts in a row's bytes");
    dlq_pg_row_free (&row);
    dlq_event_destroy (&e);
    free (body);
}

Test (pg_row, the_payload_is_the_body_as_given_not_reformatted)
{
    size_t len;
    char *body = test_read_file (EVENT_WIRE_EXAMPLE, &len);
    dlq_event_t *e = event_canonical (body, len);
    char *copy = malloc (len + 16);
    memcpy (copy, body, len);
    memcpy (copy + len, "garbage after", 14);     /* the body need not end with a NUL */
    dlq_sink_event_t event = event_for_sink (e, copy, len, 30);
    dlq_pg_row_t row = DLQ_PG_ROW_INIT;
    char err [200] = "";
    cr_assert_eq (dlq_pg_format_row (&event, &row, err, sizeof err), DLQ_PG_FORMAT_OK, "%s", err);
    expect_wire_example (&row);
    cr_expect_eq (row.value [DLQ_PG_PARAM_PAYLOAD], copy);
    cr_expect_eq (row.length [DLQ_PG_PARAM_PAYLOAD], (int) len);
    dlq_pg_row_free (&row);
    dlq_event_destroy (&e);
    free (copy);
    free (body);
}

/* jsonb holds no NUL character: a body with \u0000 in a string gets a
 * jsonb copy with \ufffd there (payload_text stays the body), and so do
 * the jsonb columns; an escaped backslash before "u0000" is no NUL. */
Test (pg_row, a_nul_character_becomes_the_replacement_character_in_jsonb_values)
{
    static const char body [] =
        "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\",\"streamName\":\"s\",\"fullDocument\":{\"k\":\"a\\u0000b\"},"
        "\"error\":{\"type\":\"T\"},\"attempts\":1,\"createdAt\":\"2026-06-09T14:32:13.500Z\","
        "\"metadata\":{\"n\":\"\\u0000\",\"path\":\"C:\\\\u0000\"}}";
    dlq_event_t *e = event_canonical (body, strlen (body));
    dlq_sink_event_t event = event_for_sink (e, NULL, 0, 30);
    dlq_pg_row_t row = DLQ_PG_ROW_INIT;
    char err [200] = "";
    cr_assert_eq (dlq_pg_format_row (&event, &row, err, sizeof err), DLQ_PG_FORMAT_OK, "%s", err);
    cr_expect_eq (row.value [DLQ_PG_PARAM_PAYLOAD], e->json, "payload_text is the body itself");
    cr_assert_not_null (row.value [DLQ_PG_PARAM_PAYLOAD_JSONB]);
    cr_expect_eq (row.length [DLQ_PG_PARAM_PAYLOAD_JSONB], (int) e->json_len, "the copy is as long");
    char *want = dlq_strdup (e->json);
    for (char *at = strstr (want, "a\\u0000b"); at; at = NULL)
        memcpy (at + 3, "fffd", 4);
    char *n = strstr (want, "\"n\":\"\\u0000");
    cr_assert_not_null (n, "%s", want);
    memcpy (n + 7, "fffd", 4);
    cr_expect_str_eq (row.value [DLQ_PG_PARAM_PAYLOAD_JSONB], want);
    expect_param (&row, DLQ_PG_PARAM_FULL_DOCUMENT, "{\"k\":\"a\\ufffdb\"}");
    expect_param (&row, DLQ_PG_PARAM_METADATA, "{\"n\":\"\\ufffd\",\"path\":\"C:\\\\u0000\"}");
    free (want);
    dlq_pg_row_free (&row);
    dlq_event_destroy (&e);
}

Test (pg_row, absent_fields_are_null)
{
    static const char body [] = "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\",\"streamName\":\"s.1\","
                                "\"error\":{\"type\":\"X\"},\"createdAt\":\"2026-06-09T14:32:13.500Z\"}";
    dlq_event_t *e = event_canonical (body, sizeof body - 1);
    dlq_sink_event_t event = event_for_sink (e, NULL, 0, 30);
    dlq_pg_row_t row = DLQ_PG_ROW_INIT;
    char err [200] = "";
    cr_assert_eq (dlq_pg_format_row (&event, &row, err, sizeof err), DLQ_PG_FORMAT_OK, "%s", err);
    expect_param (&row, DLQ_PG_PARAM_ID, "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182");
    expect_param (&row, DLQ_PG_PARAM_STREAM_NAME, "s.1");
    expect_param (&row, DLQ_PG_PARAM_ERROR_TYPE, "X");
    expect_param (&row, DLQ_PG_PARAM_ATTEMPTS, "0");
    expect_param (&row, DLQ_PG_PARAM_CREATED_AT, "2026-06-09T14:32:13.500Z");
    static const dlq_pg_param_t absent [] = {
        DLQ_PG_PARAM_OPERATION_TYPE, DLQ_PG_PARAM_DOCUMENT_KEY, DLQ_PG_PARAM_FULL_DOCUMENT,
        DLQ_PG_PARAM_RESUME_TOKEN, DLQ_PG_PARAM_ERROR_MESSAGE, DLQ_PG_PARAM_ERROR_STACKTRACE,
        DLQ_PG_PARAM_FIRST_ATTEMPT_AT, DLQ_PG_PARAM_LAST_ATTEMPT_AT, DLQ_PG_PARAM_EXPIRES_AT,
        DLQ_PG_PARAM_METADATA,
    };
    for (size_t i = 0; i < sizeof absent / sizeof absent [0]; i++)
        expect_null (&row, absent [i]);
    dlq_pg_row_free (&row);
    dlq_event_destroy (&e);
}

Test (pg_row, json_null_members_are_null)
{
    static const char body [] = "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\",\"streamName\":\"s\","
                                "\"documentKey\":null,\"fullDocument\":null,\"metadata\":null,\"lastAttemptAt\":null,"
                                "\"error\":{\"type\":\"X\",\"message\":null,\"stackTrace\":null}}";
    dlq_sink_event_t event = {
        .id = "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182", .stream_name = "s", .status = "PENDING",
        .first_attempt_at = DLQ_SINK_TIME_NONE, .created_at = 0, .expires_at = DLQ_SINK_TIME_NONE,
        .json = body, .json_len = sizeof body - 1,
    };
    dlq_pg_row_t row = DLQ_PG_ROW_INIT;
    char err [200] = "";
    cr_assert_eq (dlq_pg_format_row (&event, &row, err, sizeof err), DLQ_PG_FORMAT_OK, "%s", err);
    expect_null (&row, DLQ_PG_PARAM_DOCUMENT_KEY);
    expect_null (&row, DLQ_PG_PARAM_FULL_DOCUMENT);
    expect_null (&row, DLQ_PG_PARAM_METADATA);
    expect_null (&row, DLQ_PG_PARAM_LAST_ATTEMPT_AT);
    expect_null (&row, DLQ_PG_PARAM_ERROR_MESSAGE);
    expect_null (&row, DLQ_PG_PARAM_ERROR_STACKTRACE);
    expect_param (&row, DLQ_PG_PARAM_CREATED_AT, "1970-01-01T00:00:00.000Z");
    dlq_pg_row_free (&row);
}

Test (pg_row, a_body_that_cannot_make_a_row_is_invalid_and_leaves_it_empty)
{
    static const struct {
        const char *body;
        const char *why;
    } cases [] = {
        { "{\"id\":", "not JSON" },
        { "[1,2]", "not a JSON object" },
        { "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\",\"error\":{}}", "error.type" },
        { "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\",\"error\":{\"type\":7}}", "error.type" },
        { "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607182\"}", "error.type" },
        { "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f607183\",\"error\":{\"type\":\"X\"}}", "id" },
        { "{\"error\":{\"type\":\"X\",\"message\":1}}", "error.message" },
        { "{\"error\":{\"type\":\"X\"},\"lastAttemptAt\":\"yesterday\"}", "lastAttemptAt" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases [0]; i++) {
        dlq_sink_event_t event = {
            .id = "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182", .stream_name = "s", .status = "PENDING",
            .first_attempt_at = DLQ_SINK_TIME_NONE, .expires_at = DLQ_SINK_TIME_NONE,
            .json = cases [i].body, .json_len = strlen (cases [i].body),
        };
        dlq_pg_row_t row = DLQ_PG_ROW_INIT;
        char err [200] = "";
        cr_expect_eq (dlq_pg_format_row (&event, &row, err, sizeof err), DLQ_PG_FORMAT_INVALID,
                      "%s is accepted", cases [i].body);
        cr_expect_not_null (strstr (err, cases [i].why), "%s: the message \"%s\" does not say %s",
                            cases [i].body, err, cases [i].why);
        for (int p = 0; p < DLQ_PG_PARAM_COUNT; p++)
            cr_expect_null (row.value [p], "%s: parameter %d is left set", cases [i].body, p);
        dlq_pg_row_free (&row);
    }
}

Test (pg_row, chunks_stay_under_the_parameter_and_byte_limits)
{
    size_t n = DLQ_PG_ROWS_PER_INSERT_MAX + 10;
    dlq_pg_row_t *rows = calloc (n, sizeof *rows);
    for (size_t i = 0; i < n; i++) {
        rows [i].value [DLQ_PG_PARAM_PAYLOAD] = "0123456789";
        rows [i].length [DLQ_PG_PARAM_PAYLOAD] = 10;
    }
    cr_expect_lt (DLQ_PG_ROWS_PER_INSERT_MAX * DLQ_PG_PARAM_COUNT, 65535);
    cr_expect_eq (dlq_pg_chunk_rows (rows, n, SIZE_MAX), DLQ_PG_ROWS_PER_INSERT_MAX);
    cr_expect_eq (dlq_pg_chunk_rows (rows, 3, SIZE_MAX), 3);
    cr_expect_eq (dlq_pg_chunk_rows (rows, n, 35), 3, "3 rows of 10 bytes fit in 35");
    cr_expect_eq (dlq_pg_chunk_rows (rows, n, 5), 1, "a chunk always has a row");
    free (rows);
}

/* ---- timestamps, ids and cursors ----------------------------------------------------- */

Test (pg_time, timestamps_are_iso_utc_or_infinity)
{
    char out [DLQ_PG_TIME_LEN];
    dlq_pg_format_time (1781015531123, out);
    cr_expect_str_eq (out, "2026-06-09T14:32:11.123Z");
    dlq_pg_format_time (0, out);
    cr_expect_str_eq (out, "1970-01-01T00:00:00.000Z");
    dlq_pg_format_time (INT64_MAX, out);
    cr_expect_str_eq (out, "infinity");
    dlq_pg_format_time (INT64_MIN + 1, out);
    cr_expect_str_eq (out, "-infinity");
    cr_assert (dlq_pg_format_time_us (1781015531123456, out));
    cr_expect_str_eq (out, "2026-06-09T14:32:11.123456Z");
    cr_assert (dlq_pg_format_time_us (-1, out));
    cr_expect_str_eq (out, "1969-12-31T23:59:59.999999Z");
    cr_expect (!dlq_pg_format_time_us (INT64_MAX, out));
}

Test (pg_cursor, a_cursor_round_trips)
{
    static const char id [] = "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182";
    static const int64_t times [] = { 1781015531123000, 0, -1000, 1 };
    for (size_t i = 0; i < sizeof times / sizeof times [0]; i++) {
        char cursor [DLQ_PG_CURSOR_LEN], back [DLQ_PG_UUID_LEN];
        int64_t us;
        dlq_pg_cursor_format (times [i], id, cursor);
        cr_assert (dlq_pg_cursor_parse (cursor, &us, back), "%s does not parse", cursor);
        cr_expect_eq (us, times [i]);
        cr_expect_str_eq (back, id);
    }
    char cursor [DLQ_PG_CURSOR_LEN];
    dlq_pg_cursor_format (1781015531123000, id, cursor);
    cr_expect_str_eq (cursor, "1781015531123000.0190f1d2-6c4e-7a01-8b2c-3d4e5f607182");
}

Test (pg_cursor, anything_else_is_refused)
{
    static const char *const bad [] = {
        "", "abc", "1", "1.", ".0190f1d2-6c4e-7a01-8b2c-3d4e5f607182",
        "01.0190f1d2-6c4e-7a01-8b2c-3d4e5f607182", "-0.0190f1d2-6c4e-7a01-8b2c-3d4e5f607182",
        "+1.0190f1d2-6c4e-7a01-8b2c-3d4e5f607182", " 1.0190f1d2-6c4e-7a01-8b2c-3d4e5f607182",
        "1.0190F1D2-6C4E-7A01-8B2C-3D4E5F607182", "1.0190f1d2-6c4e-7a01-8b2c-3d4e5f607182 ",
        "1.0190f1d2-6c4e-7a01-8b2c-3d4e5f60718", "1.0190f1d26c4e-7a01-8b2c-3d4e5f6071822",
        "1.2.0190f1d2-6c4e-7a01-8b2c-3d4e5f607182", "1e3.0190f1d2-6c4e-7a01-8b2c-3d4e5f607182",
        "99999999999999999999.0190f1d2-6c4e-7a01-8b2c-3d4e5f607182",
        "9223372036854775807.0190f1d2-6c4e-7a01-8b2c-3d4e5f607182",
        "1717940000000.42",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad [0]; i++) {
        int64_t us;
        char id [DLQ_PG_UUID_LEN];
        cr_expect (!dlq_pg_cursor_parse (bad [i], &us, id), "\"%s\" is accepted", bad [i]);
    }
}

Test (pg_cursor, uuids)
{
    cr_expect (dlq_pg_uuid_valid ("0190f1d2-6c4e-7a01-8b2c-3d4e5f607182", true));
    cr_expect (dlq_pg_uuid_valid ("0190F1D2-6C4E-7A01-8B2C-3D4E5F607182", false));
    cr_expect (!dlq_pg_uuid_valid ("0190F1D2-6C4E-7A01-8B2C-3D4E5F607182", true));
    cr_expect (!dlq_pg_uuid_valid ("0190f1d2-6c4e-7a01-8b2c-3d4e5f60718", false));
    cr_expect (!dlq_pg_uuid_valid ("0190f1d2-6c4e-7a01-8b2c-3d4e5f6071822", false));
    cr_expect (!dlq_pg_uuid_valid ("0190f1d2x6c4e-7a01-8b2c-3d4e5f607182", false));
    cr_expect (!dlq_pg_uuid_valid ("not a uuid", false));
}

/* ---- SQL ------------------------------------------------------------------------------ */

/* Quoted names as PQescapeIdentifier makes them, with quotes to escape. */
static dlq_pg_names_t
odd_names (void)
{
    dlq_pg_names_t names;
    memset (&names, 0, sizeof names);
    snprintf (names.schema, sizeof names.schema, "\"my \"\"odd\"\" schema\"");
    snprintf (names.table, sizeof names.table, "\"DLQ; DROP TABLE x\"");
    for (int i = 0; i < DLQ_PG_INDEX_COUNT; i++)
        snprintf (names.index [i], sizeof names.index [i], "\"ix %d\"", i);
    snprintf (names.lock_table, sizeof names.lock_table, "\"DLQ; lock\"");
    snprintf (names.ckpt_table, sizeof names.ckpt_table, "\"DLQ; ckpt\"");
    return names;
}

#define ROW_1 "($1::uuid,$2,$3,coalesce($5::text,$4::text)::jsonb,$4,$6::jsonb,$7::jsonb,$8::jsonb,$9,$10,$11,$18,$12::int4," \
              "$13::timestamptz,$14::timestamptz,$15::timestamptz,$16::timestamptz,$17::jsonb,$19,$15::timestamptz)"
#define ROW_2 "($20::uuid,$21,$22,coalesce($24::text,$23::text)::jsonb,$23,$25::jsonb,$26::jsonb,$27::jsonb,$28,$29,$30,$37,$31::int4," \
              "$32::timestamptz,$33::timestamptz,$34::timestamptz,$35::timestamptz,$36::jsonb,$38,$34::timestamptz)"
#define ROW_3 "($39::uuid,$40,$41,coalesce($43::text,$42::text)::jsonb,$42,$44::jsonb,$45::jsonb,$46::jsonb,$47,$48,$49,$56,$50::int4," \
              "$51::timestamptz,$52::timestamptz,$53::timestamptz,$54::timestamptz,$55::jsonb,$57,$53::timestamptz)"
#define COLUMNS "(id, stream_name, operation_type, payload, payload_text, document_key, full_document, " \
                "resume_token, error_type, error_message, error_stacktrace, status, attempts, " \
                "first_attempt_at, last_attempt_at, created_at, expires_at, metadata, fingerprint, retry_after)"

Test (pg_sql, the_insert_of_three_rows_numbers_its_placeholders)
{
    dlq_pg_names_t names = odd_names ();
    dlq_buf_t sql = DLQ_BUF_INIT;
    dlq_pg_sql_insert (&sql, &names, 3);
    cr_expect_str_eq (sql.data, "INSERT INTO \"my \"\"odd\"\" schema\".\"DLQ; DROP TABLE x\" " COLUMNS
                      " VALUES " ROW_1 "," ROW_2 "," ROW_3 " ON CONFLICT (id) DO NOTHING");
    dlq_buf_free (&sql);
}

Test (pg_sql, the_insert_of_the_largest_chunk_stays_under_65535_parameters)
{
    dlq_pg_names_t names = odd_names ();
    dlq_buf_t sql = DLQ_BUF_INIT;
    dlq_pg_sql_insert (&sql, &names, DLQ_PG_ROWS_PER_INSERT_MAX);
    char last [32], next [32];
    snprintf (last, sizeof last, "$%d,", DLQ_PG_ROWS_PER_INSERT_MAX * DLQ_PG_PARAM_COUNT);
    snprintf (next, sizeof next, "$%d", DLQ_PG_ROWS_PER_INSERT_MAX * DLQ_PG_PARAM_COUNT + 1);
    cr_expect_not_null (strstr (sql.data, last), "no %s", last);
    cr_expect_null (strstr (sql.data, next), "%s is there", next);
    dlq_buf_free (&sql);
}

Test (pg_sql, the_store_queries_take_every_value_as_a_parameter)
{
    dlq_pg_names_t names = odd_names ();
    dlq_buf_t sql = DLQ_BUF_INIT;
    dlq_pg_sql_get (&sql, &names);
    cr_expect_str_eq (sql.data, "SELECT payload_text FROM \"my \"\"odd\"\" schema\".\"DLQ; DROP TABLE x\" "
                      "WHERE id = $1::uuid AND (expires_at IS NULL OR expires_at > $2::timestamptz)");
    dlq_buf_reset (&sql);
    dlq_pg_sql_list (&sql, &names, false);
    cr_expect_str_eq (sql.data, "SELECT payload_text, (extract(epoch FROM created_at) * 1000000)::int8, id::text "
                      "FROM \"my \"\"odd\"\" schema\".\"DLQ; DROP TABLE x\" WHERE stream_name = $1 AND "
                      "(expires_at IS NULL OR expires_at > $2::timestamptz) "
                      "ORDER BY created_at DESC, id DESC LIMIT $3::int8");
    dlq_buf_reset (&sql);
    dlq_pg_sql_list (&sql, &names, true);
    cr_expect_not_null (strstr (sql.data, " AND (created_at, id) < ($4::timestamptz, $5::uuid) ORDER BY"));
    dlq_buf_reset (&sql);
    dlq_pg_sql_sweep (&sql, &names);
    cr_expect_str_eq (sql.data, "WITH gone AS (DELETE FROM \"my \"\"odd\"\" schema\".\"DLQ; DROP TABLE x\" "
                      "WHERE id IN (SELECT id FROM \"my \"\"odd\"\" schema\".\"DLQ; DROP TABLE x\" "
                      "WHERE expires_at <= $1::timestamptz LIMIT $2::int8) RETURNING 1) SELECT count(*) FROM gone");
    dlq_buf_reset (&sql);
    dlq_pg_sql_stats (&sql, &names);
    cr_expect_str_eq (sql.data, "SELECT stream_name, count(*) FROM \"my \"\"odd\"\" schema\".\"DLQ; DROP TABLE x\" "
                      "GROUP BY stream_name ORDER BY stream_name");
    dlq_buf_reset (&sql);
    dlq_pg_sql_qualified (&sql, &names);
    cr_expect_str_eq (sql.data, "\"my \"\"odd\"\" schema\".\"DLQ; DROP TABLE x\"");
    dlq_buf_free (&sql);
}

Test (pg_sql, version_1_creates_the_table_then_each_index)
{
    dlq_pg_names_t names = odd_names ();
    dlq_buf_t sql = DLQ_BUF_INIT;
    cr_assert (dlq_pg_sql_migration (&sql, &names, 1, 0));
    static const char head [] = "CREATE TABLE IF NOT EXISTS \"my \"\"odd\"\" schema\".\"DLQ; DROP TABLE x\" (";
    cr_expect_eq (strncmp (sql.data, head, sizeof head - 1), 0, "%s", sql.data);
    static const char *const columns [] = {
        "id UUID PRIMARY KEY", "stream_name TEXT NOT NULL", "operation_type TEXT,", "payload JSONB NOT NULL",
        "payload_text TEXT NOT NULL", "document_key JSONB,", "full_document JSONB,", "resume_token JSONB,",
        "error_type TEXT NOT NULL", "error_message TEXT,", "error_stacktrace TEXT,",
        "status VARCHAR(20) NOT NULL DEFAULT 'PENDING'", "attempts INT NOT NULL",
        "retry_count INT NOT NULL DEFAULT 0", "retry_after TIMESTAMPTZ NOT NULL DEFAULT now()",
        "first_attempt_at TIMESTAMPTZ,", "last_attempt_at TIMESTAMPTZ,", "created_at TIMESTAMPTZ NOT NULL",
        "updated_at TIMESTAMPTZ NOT NULL DEFAULT now()", "expires_at TIMESTAMPTZ,", "metadata JSONB)",
    };
    for (size_t i = 0; i < sizeof columns / sizeof columns [0]; i++)
        cr_expect_not_null (strstr (sql.data, columns [i]), "no column %s", columns [i]);
    static const char *const indexes [] = {
        "(status)", "(status, retry_after)", "(stream_name)", "(error_type)", "(created_at)",
        "(stream_name, created_at DESC, id DESC)", "(expires_at) WHERE expires_at IS NOT NULL",
    };
    for (size_t step = 1; step <= DLQ_PG_INDEX_V1_COUNT; step++) {
        dlq_buf_reset (&sql);
        cr_assert (dlq_pg_sql_migration (&sql, &names, 1, step));
        char want [256];
        snprintf (want, sizeof want, "CREATE INDEX IF NOT EXISTS \"ix %zu\" ON \"my \"\"odd\"\" schema\"."
                  "\"DLQ; DROP TABLE x\" %s", step - 1, indexes [step - 1]);
        cr_expect_str_eq (sql.data, want);
    }
    dlq_buf_reset (&sql);
    cr_expect (!dlq_pg_sql_migration (&sql, &names, 1, DLQ_PG_INDEX_V1_COUNT + 1));
    cr_expect (!dlq_pg_sql_migration (&sql, &names, DLQ_PG_SCHEMA_VERSION + 1, 0));
    cr_expect_eq (sql.len, 0, "a step that does not exist wrote %s", sql.data);
    dlq_buf_free (&sql);
}

Test (pg_sql, the_version_table_lives_in_the_same_schema)
{
    dlq_pg_names_t names = odd_names ();
    dlq_buf_t sql = DLQ_BUF_INIT;
    dlq_pg_sql_create_version_table (&sql, &names);
    cr_expect_str_eq (sql.data, "CREATE TABLE IF NOT EXISTS \"my \"\"odd\"\" schema\".\"dlq_schema_version\" "
                      "(table_name TEXT PRIMARY KEY, version INT NOT NULL)");
    dlq_buf_reset (&sql);
    dlq_pg_sql_set_version (&sql, &names);
    cr_expect_str_eq (sql.data, "INSERT INTO \"my \"\"odd\"\" schema\".\"dlq_schema_version\" (table_name, version) "
                      "VALUES ($1, $2::int4) ON CONFLICT (table_name) DO UPDATE SET version = EXCLUDED.version");
    dlq_buf_reset (&sql);
    dlq_pg_sql_lock (&sql);
    cr_expect_str_eq (sql.data, "SELECT pg_advisory_xact_lock(1684828516, $1::int4)");
    dlq_buf_free (&sql);
}

Test (pg_sql, index_names_fit_in_63_bytes_and_stay_distinct)
{
    char name [DLQ_PG_NAME_MAX + 1], other [DLQ_PG_NAME_MAX + 1];
    dlq_pg_index_name ("dlq_events", DLQ_PG_INDEX_LIST, name);
    cr_expect_str_eq (name, "dlq_events_stream_created_id_idx");
    dlq_pg_index_name ("dlq_events", DLQ_PG_INDEX_STATUS, name);
    cr_expect_str_eq (name, "dlq_events_status_idx");
    static const char long_a [] = "a_table_name_that_is_long_enough_to_need_a_hash_when_suffixed_1";
    static const char long_b [] = "a_table_name_that_is_long_enough_to_need_a_hash_when_suffixed_2";
    cr_assert_eq (strlen (long_a), 63);
    for (int i = 0; i < DLQ_PG_INDEX_COUNT; i++) {
        dlq_pg_index_name (long_a, (dlq_pg_index_t) i, name);
        dlq_pg_index_name (long_b, (dlq_pg_index_t) i, other);
        cr_expect_leq (strlen (name), DLQ_PG_NAME_MAX, "%s", name);
        cr_expect_str_neq (name, other);
    }
    /* 20 two-byte characters: the cut never splits one. */
    static const char utf8 [] = "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                                "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9";
    dlq_pg_index_name (utf8, DLQ_PG_INDEX_STATUS_RETRY, name);
    cr_expect_leq (strlen (name), DLQ_PG_NAME_MAX);
    cr_expect (dlq_utf8_valid (name, strlen (name), NULL), "%s is cut inside a character", name);
}

Test (pg_sql, lock_keys_are_fnv1a)
{
    cr_expect_eq (dlq_pg_lock_key (""), (int32_t) 0x811c9dc5u);
    cr_expect_eq (dlq_pg_lock_key ("a"), (int32_t) 0xe40c292cu);
    cr_expect_neq (dlq_pg_lock_key ("public.dlq_events"), dlq_pg_lock_key ("public.dlq_event"));
}

/* ---- SQLSTATE ---------------------------------------------------------------------------- */

Test (pg_sqlstate, classes)
{
    static const struct {
        const char    *state;
        bool           connected;
        dlq_pg_fault_t fault;
    } cases [] = {
        { "22P02", true, DLQ_PG_FAULT_DATA },       /* invalid input syntax (JSON) */
        { "22P05", true, DLQ_PG_FAULT_DATA },       /* untranslatable character (\u0000) */
        { "22021", true, DLQ_PG_FAULT_DATA },       /* invalid byte sequence */
        { "22003", true, DLQ_PG_FAULT_DATA },       /* out of range */
        { "23502", true, DLQ_PG_FAULT_DATA },       /* not null */
        { "23514", true, DLQ_PG_FAULT_DATA },       /* check */
        { "54000", true, DLQ_PG_FAULT_DATA },       /* index row too large */
        { "08006", true, DLQ_PG_FAULT_CONNECTION },
        { "08001", true, DLQ_PG_FAULT_CONNECTION },
        { "57P01", true, DLQ_PG_FAULT_CONNECTION }, /* admin shutdown */
        { "57P02", true, DLQ_PG_FAULT_CONNECTION },
        { "57P03", true, DLQ_PG_FAULT_CONNECTION },
        { "57014", true, DLQ_PG_FAULT_TRANSIENT },  /* statement timeout / cancel */
        { "53100", true, DLQ_PG_FAULT_TRANSIENT },  /* disk full */
        { "53300", true, DLQ_PG_FAULT_TRANSIENT },  /* too many connections */
        { "40001", true, DLQ_PG_FAULT_TRANSIENT },
        { "40P01", true, DLQ_PG_FAULT_TRANSIENT },
        { "42P01", true, DLQ_PG_FAULT_SCHEMA },
        { "42703", true, DLQ_PG_FAULT_SCHEMA },
        { "3F000", true, DLQ_PG_FAULT_SCHEMA },
        { "26000", true, DLQ_PG_FAULT_PREPARED },   /* no such prepared statement */
        { "42P05", true, DLQ_PG_FAULT_PREPARED },   /* prepared statement already there */
        { "42501", true, DLQ_PG_FAULT_OTHER },      /* permission denied */
        { "25P02", true, DLQ_PG_FAULT_OTHER },
        { "54001", true, DLQ_PG_FAULT_OTHER },
        { "XX000", true, DLQ_PG_FAULT_OTHER },
        { "", true, DLQ_PG_FAULT_OTHER },
        { NULL, true, DLQ_PG_FAULT_OTHER },
        { NULL, false, DLQ_PG_FAULT_CONNECTION },
        { "22P02", false, DLQ_PG_FAULT_CONNECTION },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases [0]; i++) {
        dlq_pg_fault_t fault = dlq_pg_classify (cases [i].state, cases [i].connected);
        cr_expect_eq (fault, cases [i].fault, "%s (connected %d): %s, want %s",
                      cases [i].state ? cases [i].state : "NULL", cases [i].connected,
                      dlq_pg_fault_name (fault), dlq_pg_fault_name (cases [i].fault));
    }
}

/* ---- version 2: the status, the fingerprint ------------------------------------------------ */

Test (pg_row, the_status_and_the_fingerprint_of_the_error)
{
    size_t len;
    char *body = test_read_file (EVENT_WIRE_EXAMPLE, &len);
    dlq_event_t *e = event_canonical (body, len);
    dlq_sink_event_t event = event_for_sink (e, NULL, 0, 30);
    dlq_pg_row_t row = DLQ_PG_ROW_INIT;
    char err [200] = "";
    cr_assert_eq (dlq_pg_format_row (&event, &row, err, sizeof err), DLQ_PG_FORMAT_OK, "%s", err);
    dlq_fingerprint_t fp;
    cr_assert (dlq_fingerprint_of_event (e->json, e->json_len, &fp));
    expect_param (&row, DLQ_PG_PARAM_FINGERPRINT, fp.hex);
    expect_param (&row, DLQ_PG_PARAM_STATUS, "DLQ");
    event.status = NULL;
    cr_assert_eq (dlq_pg_format_row (&event, &row, err, sizeof err), DLQ_PG_FORMAT_OK, "%s", err);
    expect_param (&row, DLQ_PG_PARAM_STATUS, "PENDING");
    dlq_pg_row_free (&row);
    dlq_event_destroy (&e);
    free (body);
}

Test (pg_row, the_fingerprint_is_that_of_the_error_as_delivered)
{
    static const char with_stack [] = "{\"error\":{\"type\":\"X\",\"message\":\"id 42 lost\","
                                      "\"stackTrace\":\"X: id 42 lost\\n\\tat a.B.c(B.java:1)\"}}";
    static const char other_id [] = "{\"error\":{\"type\":\"X\",\"message\":\"id 43 lost\","
                                    "\"stackTrace\":\"X: id 43 lost\\n\\tat a.B.c(B.java:7)\"}}";
    static const char no_stack [] = "{\"error\":{\"type\":\"X\",\"message\":\"id 42 lost\"}}";
    const char *const bodies [] = { with_stack, other_id, no_stack };
    char hex [3][DLQ_FINGERPRINT_HEX_LEN + 1];
    for (int i = 0; i < 3; i++) {
        dlq_sink_event_t event = {
            .id = "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182", .stream_name = "s", .status = "PENDING",
            .first_attempt_at = DLQ_SINK_TIME_NONE, .expires_at = DLQ_SINK_TIME_NONE,
            .json = bodies [i], .json_len = strlen (bodies [i]),
        };
        dlq_pg_row_t row = DLQ_PG_ROW_INIT;
        char err [200] = "";
        cr_assert_eq (dlq_pg_format_row (&event, &row, err, sizeof err), DLQ_PG_FORMAT_OK, "%s", err);
        dlq_fingerprint_t fp;
        cr_assert (dlq_fingerprint_of_event (bodies [i], strlen (bodies [i]), &fp));
        expect_param (&row, DLQ_PG_PARAM_FINGERPRINT, fp.hex);
        snprintf (hex [i], sizeof hex [i], "%s", row.value [DLQ_PG_PARAM_FINGERPRINT]);
        dlq_pg_row_free (&row);
    }
    cr_expect_str_eq (hex [0], hex [1], "the same bug with another id and line: one fingerprint");
    cr_expect_str_neq (hex [0], hex [2], "without its stack trace the error has another fingerprint");
}

Test (pg_sql, version_2_adds_the_columns_the_lock_table_and_the_indexes)
{
    dlq_pg_names_t names = odd_names ();
    static const char *const steps [] = {
        "ALTER TABLE \"my \"\"odd\"\" schema\".\"DLQ; DROP TABLE x\" "
        "ADD COLUMN IF NOT EXISTS replay_count INT NOT NULL DEFAULT 0, "
        "ADD COLUMN IF NOT EXISTS fingerprint TEXT, ALTER COLUMN status TYPE VARCHAR(32)",
        "CREATE TABLE IF NOT EXISTS \"my \"\"odd\"\" schema\".\"DLQ; lock\" "
        "(stream_name TEXT PRIMARY KEY, owner TEXT NOT NULL, locked_until TIMESTAMPTZ NOT NULL)",
        "CREATE INDEX IF NOT EXISTS \"ix 7\" ON \"my \"\"odd\"\" schema\".\"DLQ; DROP TABLE x\" "
        "(stream_name, status, retry_after)",
        "CREATE INDEX IF NOT EXISTS \"ix 8\" ON \"my \"\"odd\"\" schema\".\"DLQ; DROP TABLE x\" "
        "(fingerprint, created_at DESC, id DESC)",
    };
    dlq_buf_t sql = DLQ_BUF_INIT;
    for (size_t step = 0; step < sizeof steps / sizeof steps [0]; step++) {
        dlq_buf_reset (&sql);
        cr_assert (dlq_pg_sql_migration (&sql, &names, 2, step), "no step %zu", step);
        cr_expect_str_eq (sql.data, steps [step], "step %zu", step);
    }
    dlq_buf_reset (&sql);
    cr_expect (!dlq_pg_sql_migration (&sql, &names, 2, sizeof steps / sizeof steps [0]));
    cr_expect_eq (sql.len, 0);
    dlq_buf_free (&sql);
}

Test (pg_sql, the_lock_table_name_fits_in_63_bytes)
{
    char name [DLQ_PG_NAME_MAX + 1], other [DLQ_PG_NAME_MAX + 1];
    dlq_pg_lock_table_name ("dlq_events", name);
    cr_expect_str_eq (name, "dlq_events_scheduler_lock");
    dlq_pg_lock_table_name ("a_table_name_that_is_long_enough_to_need_a_hash_when_suffixed_1", name);
    dlq_pg_lock_table_name ("a_table_name_that_is_long_enough_to_need_a_hash_when_suffixed_2", other);
    cr_expect_leq (strlen (name), DLQ_PG_NAME_MAX, "%s", name);
    cr_expect_str_neq (name, other);
    dlq_pg_index_name ("dlq_events", DLQ_PG_INDEX_FINGERPRINT, name);
    cr_expect_str_eq (name, "dlq_events_fingerprint_idx");
}

#define ODD_TABLE "\"my \"\"odd\"\" schema\".\"DLQ; DROP TABLE x\""
#define MS(c) "CASE WHEN isfinite(" c ") THEN floor(extract(epoch FROM " c ") * 1000)::int8 " \
              "WHEN " c " > 'epoch' THEN 9223372036854775807 WHEN " c " < 'epoch' THEN -9223372036854775807 END"
#define UNEXPIRED(n) "(expires_at IS NULL OR expires_at > $" #n "::timestamptz)"
#define STATE "status, retry_count, replay_count, " MS ("retry_after")

Test (pg_sql, the_state_and_each_mark_are_one_statement)
{
    dlq_pg_names_t names = odd_names ();
    dlq_buf_t sql = DLQ_BUF_INIT;
    dlq_pg_sql_state (&sql, &names);
    cr_expect_str_eq (sql.data, "SELECT " STATE " FROM " ODD_TABLE " WHERE id = $1::uuid AND " UNEXPIRED (2));
    static const struct {
        dlq_sink_mark_t mark;
        const char     *status;
        const char     *set;
    } marks [] = {
        { DLQ_SINK_MARK_RESOLVED, "SUCCEEDED",
          "status = $3, payload = jsonb_set(payload, '{status}', to_jsonb($3::text)), " },
        { DLQ_SINK_MARK_FAILED, "PENDING",
          "status = $3, payload = jsonb_set(payload, '{status}', to_jsonb($3::text)), "
          "retry_count = retry_count + 1, retry_after = $4::timestamptz, " },
        { DLQ_SINK_MARK_REPLAYED, NULL, "replay_count = replay_count + 1, retry_after = $4::timestamptz, " },
        { DLQ_SINK_MARK_QUARANTINED, "QUARANTINED",
          "status = $3, payload = jsonb_set(payload, '{status}', to_jsonb($3::text)), " },
    };
    for (size_t i = 0; i < sizeof marks / sizeof marks [0]; i++) {
        const char *status = dlq_pg_mark_status (marks [i].mark);
        if (marks [i].status)
            cr_expect_str_eq (status, marks [i].status);
        else
            cr_expect_null (status);
        dlq_buf_reset (&sql);
        dlq_pg_sql_mark (&sql, &names, marks [i].mark);
        char want [1024];
        snprintf (want, sizeof want, "UPDATE " ODD_TABLE " SET %supdated_at = now() WHERE id = $1::uuid AND "
                  UNEXPIRED (2) " RETURNING " STATE ", payload_text", marks [i].set);
        cr_expect_str_eq (sql.data, want, "mark %d", (int) marks [i].mark);
    }
    dlq_buf_reset (&sql);
    dlq_pg_sql_set_text (&sql, &names);
    cr_expect_str_eq (sql.data, "UPDATE " ODD_TABLE " SET payload_text = $2 WHERE id = $1::uuid");
    dlq_buf_free (&sql);
}

Test (pg_sql, the_claim_takes_the_pass_then_leases_with_skip_locked)
{
    dlq_pg_names_t names = odd_names ();
    dlq_buf_t sql = DLQ_BUF_INIT;
    dlq_pg_sql_take_pass (&sql, &names);
    cr_expect_str_eq (sql.data, "INSERT INTO \"my \"\"odd\"\" schema\".\"DLQ; lock\" AS l "
                      "(stream_name, owner, locked_until) VALUES ($1, $2, $3::timestamptz) "
                      "ON CONFLICT (stream_name) DO UPDATE SET owner = EXCLUDED.owner, "
                      "locked_until = EXCLUDED.locked_until "
                      "WHERE l.locked_until <= $4::timestamptz OR l.owner = EXCLUDED.owner RETURNING l.owner");
    dlq_buf_reset (&sql);
    dlq_pg_sql_claim (&sql, &names);
    cr_expect_str_eq (sql.data, "WITH picked AS (SELECT id FROM " ODD_TABLE " WHERE stream_name = $1 "
                      "AND status = 'PENDING' AND retry_count < $2::int4 AND retry_after <= $3::timestamptz AND "
                      UNEXPIRED (3) " ORDER BY created_at, id LIMIT $4::int8 FOR UPDATE SKIP LOCKED), "
                      "leased AS (UPDATE " ODD_TABLE " AS e SET retry_after = $5::timestamptz, updated_at = now() "
                      "FROM picked WHERE e.id = picked.id RETURNING e.replay_count, e.payload_text, e.created_at, "
                      "e.id) SELECT replay_count, payload_text FROM leased ORDER BY created_at, id");
    dlq_buf_free (&sql);
}

/* ---- the workbench's filters ---------------------------------------------------------------------- */

/* The filter of request (a JSON object), parsed. */
static void
filter_of (const char *request, dlq_event_filter_t *f)
{
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (request, strlen (request), &doc, NULL), DLQ_JSON_OK, "%s", request);
    dlq_error_t err = { 0 };
    cr_assert_eq (dlq_event_filter_parse (dlq_json_root (doc), f, &err), DLQ_OK, "%s: %s", request, err.message);
    dlq_json_doc_destroy (&doc);
}

/* Parameter i (from 1) of q is text. */
static void
expect_query_param (const dlq_pg_query_t *q, int i, const char *text)
{
    cr_assert_leq (i, q->count, "no parameter $%d", i);
    cr_expect_eq (q->lengths [i - 1], (int) strlen (text), "$%d: length", i);
    cr_expect_str_eq (q->values [i - 1], text, "$%d", i);
}

#define NOW_MS 1781015533500LL
#define NOW_TEXT "2026-06-09T14:32:13.500Z"
#define WHERE_NOW " FROM " ODD_TABLE " WHERE (expires_at IS NULL OR expires_at > $1::timestamptz)"

Test (pg_filter, each_filter_is_a_condition_with_parameters)
{
    static const struct {
        const char *request;
        const char *conditions;
        const char *params [6];
    } cases [] = {
        { "{}", "", { NULL } },
        { "{\"streamName\":\"orders\"}", " AND stream_name = $2", { "orders" } },
        { "{\"status\":\"DLQ\",\"errorType\":\"x.Y\"}", " AND status = $2 AND error_type = $3", { "DLQ", "x.Y" } },
        { "{\"fingerprint\":\"0123456789abcdef\"}", " AND fingerprint = $2", { "0123456789abcdef" } },
        { "{\"createdAfter\":\"2026-06-08T00:00:00Z\",\"createdBefore\":\"2026-06-09T00:00:00+02:00\"}",
          " AND created_at >= $2::timestamptz AND created_at < $3::timestamptz",
          { "2026-06-08T00:00:00.000Z", "2026-06-08T22:00:00.000Z" } },
        { "{\"attemptsMin\":2,\"attemptsMax\":2147483647}", " AND attempts >= $2::int8 AND attempts <= $3::int8",
          { "2", "2147483647" } },
        { "{\"messageContains\":\"50%_off\\\\now\"}", " AND error_message ILIKE $2 COLLATE \"C\"",
          { "%50\\%\\_off\\\\now%" } },
        { "{\"metadata\":{\"tenantId\":\"a\\\"b\",\"shard\":2.0,\"vip\":true,\"gone\":false}}",
          " AND metadata -> $2 = $3::jsonb AND metadata -> $4 = $5::jsonb AND metadata -> $6 = $7::jsonb"
          " AND metadata -> $8 = $9::jsonb",
          { "tenantId", "\"a\\\"b\"", "shard", "2.0", "vip", "true" } },
    };
    dlq_pg_names_t names = odd_names ();
    for (size_t i = 0; i < sizeof cases / sizeof cases [0]; i++) {
        dlq_event_filter_t f = DLQ_EVENT_FILTER_INIT;
        filter_of (cases [i].request, &f);
        dlq_pg_query_t q = DLQ_PG_QUERY_INIT;
        dlq_pg_filter_count (&q, &names, &f, NOW_MS);
        char want [1024];
        snprintf (want, sizeof want, "SELECT count(*)" WHERE_NOW "%s", cases [i].conditions);
        cr_expect_str_eq (q.sql.data, want, "%s", cases [i].request);
        expect_query_param (&q, 1, NOW_TEXT);
        for (int p = 0; p < 6 && cases [i].params [p]; p++)
            expect_query_param (&q, p + 2, cases [i].params [p]);
        dlq_pg_query_free (&q);
        dlq_event_filter_free (&f);
    }
}

Test (pg_filter, like_escapes_its_own_characters)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_pg_like_contains (&out, "a%b_c\\d");
    cr_expect_str_eq (out.data, "%a\\%b\\_c\\\\d%");
    dlq_buf_free (&out);
}

Test (pg_filter, a_page_after_a_cursor_and_the_groups)
{
    dlq_pg_names_t names = odd_names ();
    dlq_event_filter_t f = DLQ_EVENT_FILTER_INIT;
    filter_of ("{\"streamName\":\"orders\"}", &f);
    dlq_pg_query_t q = DLQ_PG_QUERY_INIT;
    dlq_pg_after_t after = { .created_us = 1781015531123456, .id = "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182" };
    dlq_pg_filter_list (&q, &names, &f, NOW_MS, &after, 101);
    cr_expect_str_eq (q.sql.data, "SELECT payload_text, (extract(epoch FROM created_at) * 1000000)::int8, id::text"
                      WHERE_NOW " AND stream_name = $2 AND (created_at, id) < ($3::timestamptz, $4::uuid) "
                      "ORDER BY created_at DESC, id DESC LIMIT $5::int8");
    expect_query_param (&q, 3, "2026-06-09T14:32:11.123456Z");
    expect_query_param (&q, 4, after.id);
    expect_query_param (&q, 5, "101");
    dlq_pg_query_free (&q);
    dlq_pg_filter_list (&q, &names, &f, NOW_MS, NULL, 11);
    cr_expect_null (strstr (q.sql.data, "(created_at, id) <"), "%s", q.sql.data);
    expect_query_param (&q, 3, "11");
    dlq_pg_query_free (&q);
    dlq_pg_filter_groups (&q, &names, &f, NOW_MS, 20);
    cr_expect_str_eq (q.sql.data, "WITH g AS (SELECT fingerprint, count(*) AS n, min(created_at) AS first_seen, "
                      "max(created_at) AS last_seen, json_agg(DISTINCT stream_name) AS streams, "
                      "max(id::text) AS sample" WHERE_NOW " AND stream_name = $2 GROUP BY fingerprint "
                      "ORDER BY n DESC, last_seen DESC, fingerprint LIMIT $3::int8) SELECT g.fingerprint, g.n, "
                      MS ("g.first_seen") ", " MS ("g.last_seen") ", g.streams, s.error_type, s.error_message, "
                      "g.sample FROM g JOIN " ODD_TABLE " AS s ON s.id = g.sample::uuid "
                      "ORDER BY g.n DESC, g.last_seen DESC, g.fingerprint");
    expect_query_param (&q, 3, "20");
    dlq_pg_query_free (&q);
    dlq_event_filter_free (&f);
}

Test (pg_filter, sixteen_metadata_pairs_and_every_filter_fit)
{
    dlq_buf_t request = DLQ_BUF_INIT;
    dlq_buf_puts (&request, "{\"streamName\":\"s\",\"status\":\"P\",\"errorType\":\"E\","
                            "\"fingerprint\":\"0123456789abcdef\","
                            "\"createdAfter\":\"2026-01-01T00:00:00Z\",\"createdBefore\":\"2027-01-01T00:00:00Z\","
                            "\"attemptsMin\":0,\"attemptsMax\":9,\"messageContains\":\"m\",\"metadata\":{");
    for (int i = 0; i < DLQ_FILTER_METADATA_MAX; i++)
        dlq_buf_printf (&request, "%s\"k%d\":%d", i ? "," : "", i, i);
    dlq_buf_puts (&request, "}}");
    dlq_event_filter_t f = DLQ_EVENT_FILTER_INIT;
    filter_of (request.data, &f);
    dlq_pg_names_t names = odd_names ();
    dlq_pg_query_t q = DLQ_PG_QUERY_INIT;
    dlq_pg_after_t after = { .created_us = 0, .id = "0190f1d2-6c4e-7a01-8b2c-3d4e5f607182" };
    dlq_pg_filter_list (&q, &names, &f, NOW_MS, &after, 2);
    cr_expect_eq (q.count, DLQ_PG_FILTER_PARAMS_MAX);
    char last [16];
    snprintf (last, sizeof last, "LIMIT $%d::int8", DLQ_PG_FILTER_PARAMS_MAX);
    cr_expect_not_null (strstr (q.sql.data, last), "%s", q.sql.data);
    dlq_pg_query_free (&q);
    dlq_event_filter_free (&f);
    dlq_buf_free (&request);
}

/* ---- checkpoints (version 3) ------------------------------------------------------------------ */

#define CKPT_TABLE "\"my \"\"odd\"\" schema\".\"DLQ; ckpt\""
#define RECORD "stream_name, instance_id, last_seen_token_text, " MS ("last_seen_ts") \
               ", last_processed_token_text, " MS ("last_processed_ts") ", metadata_text, " MS ("updated_at")
#define NOW_MS 1781015533500LL
#define NOW_ISO "2026-06-09T14:32:13.500Z"

Test (pg_sql, version_3_creates_the_checkpoint_table)
{
    dlq_pg_names_t names = odd_names ();
    dlq_buf_t sql = DLQ_BUF_INIT;
    cr_assert (dlq_pg_sql_migration (&sql, &names, 3, 0));
    cr_expect_str_eq (sql.data, "CREATE TABLE IF NOT EXISTS " CKPT_TABLE " ("
                      "stream_name TEXT COLLATE \"C\" PRIMARY KEY, instance_id TEXT, "
                      "last_seen_token JSONB, last_seen_token_text TEXT, last_seen_ts TIMESTAMPTZ, "
                      "last_processed_token JSONB, last_processed_token_text TEXT, last_processed_ts TIMESTAMPTZ, "
                      "metadata JSONB, metadata_text TEXT, updated_at TIMESTAMPTZ NOT NULL)");
    dlq_buf_reset (&sql);
    cr_expect (!dlq_pg_sql_migration (&sql, &names, 3, 1), "one step");
    cr_expect_eq (sql.len, 0);
    cr_expect_eq (DLQ_PG_SCHEMA_VERSION, 3);
    dlq_pg_sql_qualified_ckpt (&sql, &names);
    cr_expect_str_eq (sql.data, CKPT_TABLE);
    dlq_buf_free (&sql);
}

Test (pg_sql, the_checkpoint_table_name_fits_in_63_bytes)
{
    char name [DLQ_PG_NAME_MAX + 1], other [DLQ_PG_NAME_MAX + 1];
    dlq_pg_ckpt_table_name ("dlq_events", name);
    cr_expect_str_eq (name, "dlq_events_checkpoints");
    dlq_pg_ckpt_table_name ("a_table_name_that_is_long_enough_to_need_a_hash_when_suffixed_1", name);
    dlq_pg_ckpt_table_name ("a_table_name_that_is_long_enough_to_need_a_hash_when_suffixed_2", other);
    cr_expect_leq (strlen (name), DLQ_PG_NAME_MAX, "%s", name);
    cr_expect_str_neq (name, other);
    cr_expect_eq (strcmp (name + strlen (name) - strlen ("_checkpoints"), "_checkpoints"), 0, "%s", name);
    static const char utf8 [] = "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                                "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9";
    dlq_pg_ckpt_table_name (utf8, name);
    cr_expect_leq (strlen (name), DLQ_PG_NAME_MAX);
    cr_expect (dlq_utf8_valid (name, strlen (name), NULL), "%s is cut inside a character", name);
}

Test (pg_ckpt, seen_sets_only_its_token_its_timestamp_and_updated_at)
{
    dlq_pg_names_t names = odd_names ();
    dlq_buf_t sql = DLQ_BUF_INIT;
    dlq_pg_ckpt_sql_write (&sql, &names, DLQ_SINK_CKPT_SEEN);
    cr_expect_str_eq (sql.data, "INSERT INTO " CKPT_TABLE " (stream_name, last_seen_token, last_seen_token_text, "
                      "last_seen_ts, updated_at) VALUES ($1, $2::jsonb, $3, $4::timestamptz, $5::timestamptz) "
                      "ON CONFLICT (stream_name) DO UPDATE SET last_seen_token = EXCLUDED.last_seen_token, "
                      "last_seen_token_text = EXCLUDED.last_seen_token_text, last_seen_ts = EXCLUDED.last_seen_ts, "
                      "updated_at = EXCLUDED.updated_at RETURNING " RECORD);
    dlq_buf_free (&sql);
}

Test (pg_ckpt, processed_is_the_mirror)
{
    dlq_pg_names_t names = odd_names ();
    dlq_buf_t sql = DLQ_BUF_INIT;
    dlq_pg_ckpt_sql_write (&sql, &names, DLQ_SINK_CKPT_PROCESSED);
    cr_expect_str_eq (sql.data, "INSERT INTO " CKPT_TABLE " (stream_name, last_processed_token, "
                      "last_processed_token_text, last_processed_ts, updated_at) "
                      "VALUES ($1, $2::jsonb, $3, $4::timestamptz, $5::timestamptz) "
                      "ON CONFLICT (stream_name) DO UPDATE SET last_processed_token = EXCLUDED.last_processed_token, "
                      "last_processed_token_text = EXCLUDED.last_processed_token_text, "
                      "last_processed_ts = EXCLUDED.last_processed_ts, "
                      "updated_at = EXCLUDED.updated_at RETURNING " RECORD);
    dlq_buf_free (&sql);
}

Test (pg_ckpt, save_replaces_every_column)
{
    dlq_pg_names_t names = odd_names ();
    dlq_buf_t sql = DLQ_BUF_INIT;
    dlq_pg_ckpt_sql_write (&sql, &names, DLQ_SINK_CKPT_SAVE);
    cr_expect_str_eq (sql.data, "INSERT INTO " CKPT_TABLE " (stream_name, instance_id, last_seen_token, "
                      "last_seen_token_text, last_seen_ts, last_processed_token, last_processed_token_text, "
                      "last_processed_ts, metadata, metadata_text, updated_at) VALUES ($1, $2, $3::jsonb, $4, "
                      "$5::timestamptz, $6::jsonb, $7, $8::timestamptz, $9::jsonb, $10, $11::timestamptz) "
                      "ON CONFLICT (stream_name) DO UPDATE SET instance_id = EXCLUDED.instance_id, "
                      "last_seen_token = EXCLUDED.last_seen_token, "
                      "last_seen_token_text = EXCLUDED.last_seen_token_text, "
                      "last_seen_ts = EXCLUDED.last_seen_ts, last_processed_token = EXCLUDED.last_processed_token, "
                      "last_processed_token_text = EXCLUDED.last_processed_token_text, "
                      "last_processed_ts = EXCLUDED.last_processed_ts, metadata = EXCLUDED.metadata, "
                      "metadata_text = EXCLUDED.metadata_text, updated_at = EXCLUDED.updated_at RETURNING " RECORD);
    dlq_buf_free (&sql);
}

Test (pg_ckpt, the_columns_each_kind_sets)
{
    /* S: SAVE, E: SEEN, P: PROCESSED, per column in dlq_pg_ckpt_column_t order */
    static const char *const sets [DLQ_PG_CKPT_COLUMN_COUNT] = {
        "SEP", "S", "SE", "SE", "SE", "SP", "SP", "SP", "S", "S", "SEP",
    };
    static const char kinds [] = "SEP";
    for (int c = 0; c < DLQ_PG_CKPT_COLUMN_COUNT; c++)
        for (int k = 0; k < 3; k++)
            cr_expect_eq (dlq_pg_ckpt_sets ((dlq_sink_ckpt_write_t) k, (dlq_pg_ckpt_column_t) c),
                          strchr (sets [c], kinds [k]) != NULL, "kind %c, column %d", kinds [k], c);
    for (int c = 0; c < DLQ_PG_CKPT_COLUMN_COUNT; c++)
        cr_expect (!dlq_pg_ckpt_sets ((dlq_sink_ckpt_write_t) 3, (dlq_pg_ckpt_column_t) c),
                   "an unknown kind sets nothing");
}

/* Parameter i of p is text (NULL: SQL NULL). */
static void
expect_ckpt_param (const dlq_pg_ckpt_params_t *p, int i, const char *text)
{
    if (!text) {
        cr_expect_null (p->values [i], "parameter %d is %s, want NULL", i + 1, p->values [i]);
        return;
    }
    cr_assert_not_null (p->values [i], "parameter %d is NULL, want %s", i + 1, text);
    cr_expect_str_eq (p->values [i], text, "parameter %d", i + 1);
    cr_expect_eq (p->lengths [i], (int) strlen (text), "parameter %d's length", i + 1);
}

static const dlq_sink_checkpoint_t full_record = {
    .stream_name = "orders", .instance_id = "worker-7",
    .last_seen_token = "{\"_data\":\"82AA\"}", .last_seen_at = NOW_MS - 1000,
    .last_processed_token = "{\"_data\":\"82BB\"}", .last_processed_at = -1,
    .metadata = "{\"b\":1,\"a\":[true,null]}", .updated_at = 42,
};

Test (pg_ckpt, the_parameters_of_each_kind)
{
    dlq_pg_ckpt_params_t p;
    dlq_pg_ckpt_params (&p, DLQ_SINK_CKPT_SEEN, &full_record, NOW_MS);
    cr_assert_eq (p.count, 5);
    static const char *const seen [] = {
        "orders", "{\"_data\":\"82AA\"}", "{\"_data\":\"82AA\"}", "2026-06-09T14:32:12.500Z", NOW_ISO,
    };
    for (int i = 0; i < 5; i++)
        expect_ckpt_param (&p, i, seen [i]);
    dlq_pg_ckpt_params (&p, DLQ_SINK_CKPT_PROCESSED, &full_record, NOW_MS);
    cr_assert_eq (p.count, 5);
    static const char *const processed [] = {
        "orders", "{\"_data\":\"82BB\"}", "{\"_data\":\"82BB\"}", "1969-12-31T23:59:59.999Z", NOW_ISO,
    };
    for (int i = 0; i < 5; i++)
        expect_ckpt_param (&p, i, processed [i]);
    dlq_pg_ckpt_params (&p, DLQ_SINK_CKPT_SAVE, &full_record, NOW_MS);
    cr_assert_eq (p.count, DLQ_PG_CKPT_COLUMN_COUNT);
    static const char *const save [] = {
        "orders", "worker-7", "{\"_data\":\"82AA\"}", "{\"_data\":\"82AA\"}", "2026-06-09T14:32:12.500Z",
        "{\"_data\":\"82BB\"}", "{\"_data\":\"82BB\"}", "1969-12-31T23:59:59.999Z",
        "{\"b\":1,\"a\":[true,null]}", "{\"b\":1,\"a\":[true,null]}", NOW_ISO,
    };
    for (int i = 0; i < DLQ_PG_CKPT_COLUMN_COUNT; i++)
        expect_ckpt_param (&p, i, save [i]);
}

Test (pg_ckpt, absent_fields_are_null_and_updated_at_is_now)
{
    dlq_sink_checkpoint_t bare = {
        .stream_name = "s", .last_seen_at = DLQ_SINK_TIME_NONE, .last_processed_at = DLQ_SINK_TIME_NONE,
        .updated_at = DLQ_SINK_TIME_NONE,
    };
    dlq_pg_ckpt_params_t p;
    dlq_pg_ckpt_params (&p, DLQ_SINK_CKPT_SAVE, &bare, NOW_MS);
    cr_assert_eq (p.count, DLQ_PG_CKPT_COLUMN_COUNT);
    expect_ckpt_param (&p, DLQ_PG_CKPT_STREAM, "s");
    for (int i = DLQ_PG_CKPT_INSTANCE; i < DLQ_PG_CKPT_UPDATED; i++)
        expect_ckpt_param (&p, i, NULL);
    expect_ckpt_param (&p, DLQ_PG_CKPT_UPDATED, NOW_ISO);
    dlq_pg_ckpt_params (&p, DLQ_SINK_CKPT_SEEN, &bare, NOW_MS);
    cr_assert_eq (p.count, 5);
    for (int i = 1; i < 4; i++)
        expect_ckpt_param (&p, i, NULL);
    expect_ckpt_param (&p, 4, NOW_ISO);
}

Test (pg_ckpt, jsonb_takes_the_text_unless_it_would_refuse_it)
{
    static const struct {
        const char *json;
        bool        holds;
    } cases [] = {
        { "{}", true },
        { "{\"_data\":\"8265F0A1B2000000012B\"}", true },
        { "{\"a\":\"\\u0001\\u001f\",\"b\":-0.5e-10,\"c\":[1,2.50,1E+300]}", true },
        { "{\"a\":1e999,\"b\":1e-999,\"c\":1e0000000999}", true },
        { "{\"a\":\"x\\u0000y\"}", false },
        { "{\"a\\u0000\":1}", false },
        { "{\"a\":\"\\\\u0000\"}", true },              /* a backslash, then u0000: no escape */
        { "{\"a\":\"\\\\\\u0000\"}", false },
        { "{\"a\":1e1000}", false },
        { "{\"a\":2E-20000}", false },
        { "{\"a\":\"1e99999\"}", true },                /* a string, not a number */
        { "{\"a\":\"\\\"\",\"b\":1e+1000}", false },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases [0]; i++)
        cr_expect_eq (dlq_pg_jsonb_holds (cases [i].json), cases [i].holds, "%s", cases [i].json);
    dlq_buf_t digits = DLQ_BUF_INIT;
    dlq_buf_puts (&digits, "{\"n\":");
    for (int i = 0; i < 1000; i++)
        dlq_buf_putc (&digits, '7');
    dlq_buf_puts (&digits, "}");
    cr_expect (dlq_pg_jsonb_holds (digits.data), "1000 digits");
    dlq_buf_reset (&digits);
    dlq_buf_puts (&digits, "{\"n\":");
    for (int i = 0; i < 1001; i++)
        dlq_buf_putc (&digits, '7');
    dlq_buf_puts (&digits, "}");
    cr_expect (!dlq_pg_jsonb_holds (digits.data), "1001 digits");
    dlq_buf_free (&digits);

    dlq_sink_checkpoint_t r = full_record;
    r.last_seen_token = "{\"_data\":\"a\\u0000b\"}";
    r.metadata = "{\"big\":1e99999}";
    dlq_pg_ckpt_params_t p;
    dlq_pg_ckpt_params (&p, DLQ_SINK_CKPT_SAVE, &r, NOW_MS);
    expect_ckpt_param (&p, DLQ_PG_CKPT_SEEN_TOKEN, NULL);
    expect_ckpt_param (&p, DLQ_PG_CKPT_SEEN_TEXT, "{\"_data\":\"a\\u0000b\"}");
    expect_ckpt_param (&p, DLQ_PG_CKPT_PROCESSED_TOKEN, "{\"_data\":\"82BB\"}");
    expect_ckpt_param (&p, DLQ_PG_CKPT_METADATA, NULL);
    expect_ckpt_param (&p, DLQ_PG_CKPT_METADATA_TEXT, "{\"big\":1e99999}");
}

Test (pg_ckpt, get_list_and_remove)
{
    dlq_pg_names_t names = odd_names ();
    dlq_buf_t sql = DLQ_BUF_INIT;
    dlq_pg_ckpt_sql_get (&sql, &names);
    cr_expect_str_eq (sql.data, "SELECT " RECORD " FROM " CKPT_TABLE " WHERE stream_name = $1");
    static const struct {
        bool        prefix, after;
        const char *where;
    } lists [] = {
        { false, false, "" },
        { true, false, " WHERE stream_name COLLATE \"C\" LIKE $2" },
        { false, true, " WHERE stream_name COLLATE \"C\" > $2" },
        { true, true, " WHERE stream_name COLLATE \"C\" LIKE $2 AND stream_name COLLATE \"C\" > $3" },
    };
    for (size_t i = 0; i < sizeof lists / sizeof lists [0]; i++) {
        dlq_buf_reset (&sql);
        dlq_pg_ckpt_sql_list (&sql, &names, lists [i].prefix, lists [i].after);
        char want [2048];
        snprintf (want, sizeof want, "SELECT " RECORD " FROM " CKPT_TABLE "%s ORDER BY stream_name COLLATE \"C\" "
                  "LIMIT $1::int8", lists [i].where);
        cr_expect_str_eq (sql.data, want, "prefix %d, after %d", lists [i].prefix, lists [i].after);
    }
    dlq_buf_reset (&sql);
    dlq_pg_ckpt_sql_remove (&sql, &names);
    cr_expect_str_eq (sql.data, "DELETE FROM " CKPT_TABLE " WHERE stream_name = $1 RETURNING stream_name");
    dlq_buf_free (&sql);
}

Test (pg_ckpt, a_prefix_is_a_like_pattern_with_its_characters_escaped)
{
    static const char *const cases [][2] = {
        { "orders", "orders%" },
        { "a%b_c\\d", "a\\%b\\_c\\\\d%" },
        { "%", "\\%%" },
        { "\xc3\xa9t\xc3\xa9", "\xc3\xa9t\xc3\xa9%" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases [0]; i++) {
        dlq_buf_t out = DLQ_BUF_INIT;
        dlq_pg_like_prefix (&out, cases [i][0]);
        cr_expect_str_eq (out.data, cases [i][1]);
        dlq_buf_free (&out);
    }
}
