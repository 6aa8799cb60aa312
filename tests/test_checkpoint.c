/*  test_checkpoint — CKPT.* requests read from JSON: SAVE (every member,
 *  null = absent, timestamps normalised, tokens compact), SEEN /
 *  PROCESSED (only their pair, all three members required), bad input
 *  refused naming the member (and leaving nothing behind), and the
 *  record's JSON form. */
#include "checkpoint.h"
#include "dlq_buf.h"
#include "dlq_json.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static dlq_code_t
parse (dlq_sink_ckpt_write_t kind, const char *json, dlq_checkpoint_t *c, dlq_error_t *err)
{
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (json, strlen (json), &doc, NULL), DLQ_JSON_OK, "%s", json);
    dlq_code_t code = dlq_checkpoint_parse (kind, dlq_json_root (doc), c, err);
    dlq_json_doc_destroy (&doc);
    return code;
}

static char *
formatted (const dlq_sink_checkpoint_t *r)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_checkpoint_format (r, &out);
    dlq_buf_putc (&out, '\0');
    return dlq_buf_steal (&out, NULL);
}

Test (checkpoint, save_reads_every_member)
{
    dlq_checkpoint_t c;
    dlq_error_t err;
    cr_assert_eq (parse (DLQ_SINK_CKPT_SAVE, "{\"streamName\":\"orders.v1\",\"instanceId\":\"w-7\","
                         "\"lastSeenToken\": { \"_data\" : \"8263\", \"n\": {\"$numberLong\":\"5\"} },"
                         "\"lastSeenTimestamp\":\"2026-06-09T16:32:11.5+02:00\",\"lastProcessedToken\":null,"
                         "\"metadata\":{\"k\":[1,2.50]}}", &c, &err), DLQ_OK, "%s", err.message);
    c.record.updated_at = 0;
    char *json = formatted (&c.record);
    cr_expect_str_eq (json, "{\"streamName\":\"orders.v1\",\"instanceId\":\"w-7\",\"lastSeenToken\":{\"_data\":\"8263\","
                      "\"n\":{\"$numberLong\":\"5\"}},\"lastSeenTimestamp\":\"2026-06-09T14:32:11.500Z\","
                      "\"metadata\":{\"k\":[1,2.50]},\"updatedAt\":\"1970-01-01T00:00:00.000Z\"}");
    free (json);
    dlq_checkpoint_clear (&c);
}

Test (checkpoint, seen_and_processed_carry_only_their_pair)
{
    dlq_checkpoint_t c;
    dlq_error_t err;
    cr_assert_eq (parse (DLQ_SINK_CKPT_PROCESSED, "{\"streamName\":\"s\",\"token\":{\"a\":1},"
                         "\"timestamp\":\"2026-06-09T14:00:00Z\"}", &c, &err), DLQ_OK);
    cr_expect_eq (c.kind, DLQ_SINK_CKPT_PROCESSED);
    cr_expect_str_eq (c.record.last_processed_token, "{\"a\":1}");
    cr_expect_eq (c.record.last_processed_at, 1781013600000LL);
    cr_expect_null (c.record.last_seen_token);
    cr_expect_eq (c.record.last_seen_at, DLQ_SINK_TIME_NONE);
    dlq_checkpoint_clear (&c);
    cr_assert_eq (parse (DLQ_SINK_CKPT_SEEN, "{\"streamName\":\"s\",\"token\":{},\"timestamp\":\"2026-06-09T14:00:00Z\"}",
                         &c, &err), DLQ_OK);
    cr_expect_str_eq (c.record.last_seen_token, "{}");
    cr_expect_null (c.record.last_processed_token);
    dlq_checkpoint_clear (&c);
}

Test (checkpoint, bad_requests_name_the_member)
{
    struct { dlq_sink_ckpt_write_t kind; const char *json; dlq_code_t code; const char *field; } cases [] = {
        { DLQ_SINK_CKPT_SAVE, "{}", DLQ_ERR_INVALID_REQUEST, "streamName" },
        { DLQ_SINK_CKPT_SAVE, "{\"streamName\":\"\"}", DLQ_ERR_INVALID_REQUEST, "streamName" },
        { DLQ_SINK_CKPT_SAVE, "{\"streamName\":7}", DLQ_ERR_INVALID_REQUEST, "streamName" },
        { DLQ_SINK_CKPT_SAVE, "{\"streamName\":\"s\",\"lastSeenToken\":\"x\"}", DLQ_ERR_INVALID_REQUEST, "lastSeenToken" },
        { DLQ_SINK_CKPT_SAVE, "{\"streamName\":\"s\",\"lastSeenToken\":{\"n\":{\"$numberLong\":5}}}",
          DLQ_ERR_INVALID_REQUEST, "lastSeenToken.n" },
        { DLQ_SINK_CKPT_SAVE, "{\"streamName\":\"s\",\"lastProcessedTimestamp\":\"today\"}",
          DLQ_ERR_INVALID_TIMESTAMP, "lastProcessedTimestamp" },
        { DLQ_SINK_CKPT_SAVE, "{\"streamName\":\"s\",\"instanceId\":1}", DLQ_ERR_INVALID_REQUEST, "instanceId" },
        { DLQ_SINK_CKPT_SAVE, "{\"streamName\":\"s\",\"metadata\":[1]}", DLQ_ERR_INVALID_REQUEST, "metadata" },
        { DLQ_SINK_CKPT_SAVE, "{\"streamName\":\"s\",\"colour\":1}", DLQ_ERR_INVALID_REQUEST, "colour" },
        { DLQ_SINK_CKPT_SEEN, "{\"streamName\":\"s\",\"timestamp\":\"2026-06-09T14:00:00Z\"}", DLQ_ERR_INVALID_REQUEST, "token" },
        { DLQ_SINK_CKPT_SEEN, "{\"streamName\":\"s\",\"token\":{}}", DLQ_ERR_INVALID_REQUEST, "timestamp" },
        { DLQ_SINK_CKPT_SEEN, "{\"streamName\":\"s\",\"token\":[],\"timestamp\":\"2026-06-09T14:00:00Z\"}",
          DLQ_ERR_INVALID_REQUEST, "token" },
        { DLQ_SINK_CKPT_PROCESSED, "{\"streamName\":\"s\",\"token\":{},\"timestamp\":\"2026-13-09T14:00:00Z\"}",
          DLQ_ERR_INVALID_TIMESTAMP, "timestamp" },
        { DLQ_SINK_CKPT_PROCESSED, "{\"streamName\":\"s\",\"token\":{},\"timestamp\":\"2026-06-09T14:00:00Z\","
          "\"instanceId\":\"w\"}", DLQ_ERR_INVALID_REQUEST, "instanceId" },
        { DLQ_SINK_CKPT_SAVE, "[]", DLQ_ERR_INVALID_REQUEST, "" },
        { DLQ_SINK_CKPT_SEEN, "{\"streamName\":\"s\",\"token\":{\"a\":{\"b\\u0000c\":1}},"
          "\"timestamp\":\"2026-06-09T14:00:00Z\"}", DLQ_ERR_INVALID_REQUEST, "token.a" },
        { DLQ_SINK_CKPT_SEEN, "{\"streamName\":\"s\",\"token\":{\"a\":[1e99999]},"
          "\"timestamp\":\"2026-06-09T14:00:00Z\"}", DLQ_ERR_INVALID_REQUEST, "token.a" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases [0]; i++) {
        dlq_checkpoint_t c;
        dlq_error_t err = { 0 };
        cr_expect_eq (parse (cases [i].kind, cases [i].json, &c, &err), cases [i].code, "%s: %s", cases [i].json,
                      err.message);
        cr_expect_str_eq (err.field, cases [i].field, "%s: %s", cases [i].json, err.message);
        cr_expect_null (c.record.stream_name, "a refused request leaves nothing");
        cr_expect_null (c.owned [0]);
    }
}

/* A number BSON holds as a double is a number of any length: 300 digits,
 * a fraction of 400 zeros; only one past a double's range is refused. */
Test (checkpoint, long_numbers_within_a_doubles_range_are_tokens)
{
    dlq_buf_t json = DLQ_BUF_INIT;
    dlq_buf_puts (&json, "{\"streamName\":\"s\",\"timestamp\":\"2026-06-09T14:00:00Z\",\"token\":{\"n\":");
    for (int i = 0; i < 300; i++)
        dlq_buf_putc (&json, '9');
    dlq_buf_puts (&json, ",\"d\":1.5");
    for (int i = 0; i < 400; i++)
        dlq_buf_putc (&json, '0');
    dlq_buf_puts (&json, "}}");
    dlq_checkpoint_t c;
    dlq_error_t err = { 0 };
    cr_expect_eq (parse (DLQ_SINK_CKPT_SEEN, json.data, &c, &err), DLQ_OK, "%s", err.message);
    dlq_checkpoint_clear (&c);
    dlq_buf_free (&json);
}

Test (checkpoint, a_member_given_twice_is_refused_by_name)
{
    static const struct { dlq_sink_ckpt_write_t kind; const char *body, *field; } cases [] = {
        { DLQ_SINK_CKPT_SAVE, "{\"streamName\":\"s\",\"metadata\":{\"a\":1},\"metadata\":{\"b\":2}}", "metadata" },
        { DLQ_SINK_CKPT_SAVE, "{\"streamName\":\"s\",\"streamName\":\"t\"}", "streamName" },
        { DLQ_SINK_CKPT_SAVE, "{\"streamName\":\"s\",\"instanceId\":\"a\",\"instanceId\":\"b\"}", "instanceId" },
        { DLQ_SINK_CKPT_SEEN, "{\"streamName\":\"s\",\"token\":{\"_data\":\"a\",\"_data\":\"b\"},"
                              "\"timestamp\":\"2026-06-09T14:32:13.500Z\"}", "token._data" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases [0]; i++) {
        dlq_checkpoint_t c;
        dlq_error_t err = { 0 };
        cr_expect_eq (parse (cases [i].kind, cases [i].body, &c, &err), DLQ_ERR_INVALID_REQUEST, "%s", cases [i].body);
        cr_expect_str_eq (err.field, cases [i].field, "%s", cases [i].body);
        dlq_checkpoint_clear (&c);
    }
    const char *twice = "{\"streamName\":\"s\",\"streamName\":\"t\"}";
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (twice, strlen (twice), &doc, NULL), DLQ_JSON_OK);
    const dlq_json_value_t *root = dlq_json_root (doc);
    const char *stream = NULL;
    size_t len = 0;
    dlq_error_t err = { 0 };
    cr_expect_eq (dlq_checkpoint_parse_stream (root, &stream, &len, &err), DLQ_ERR_INVALID_REQUEST);
    cr_expect_str_eq (err.field, "streamName");
    dlq_json_doc_destroy (&doc);
}

Test (checkpoint, a_record_with_nothing_but_its_name)
{
    dlq_sink_checkpoint_t r = dlq_checkpoint_empty ("a\"b");
    char *json = formatted (&r);
    cr_expect_str_eq (json, "{\"streamName\":\"a\\\"b\"}");
    free (json);
}
