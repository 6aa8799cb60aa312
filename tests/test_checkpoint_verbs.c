/*  test_checkpoint_verbs — the pure half of the CKPT.* verbs: reading the
 *  body of a write (CKPT.SAVE, SEEN, PROCESSED, DELETE) into the value the
 *  next group commit applies, as checkpoint_verbs.h and docs/protocol.md
 *  ("Checkpoints") have it: the kind of write follows the verb, DELETE is
 *  a remove of its stream alone, SEEN and PROCESSED carry only their own
 *  token and timestamp; an empty body is EMPTY_BODY, bad JSON INVALID_JSON,
 *  a repeated name, an unknown or ill-typed member INVALID_REQUEST and a bad
 *  timestamp INVALID_TIMESTAMP, each naming the member and leaving the
 *  value empty. (Answering the verbs needs a primary store: the
 *  integration suites cover that.)
 */
#include "checkpoint_verbs.h"

#include "checkpoint.h"
#include "dlq_time.h"
#include "protocol.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* 2026-06-09T14:32:13.500Z */
#define AT_MS 1781015533500LL

/* Holds nothing: no string of its own, no field of the record set. */
static bool
is_empty (const dlq_checkpoint_t *c)
{
    for (size_t i = 0; i < sizeof c->owned / sizeof c->owned [0]; i++)
        if (c->owned [i])
            return false;
    const dlq_sink_checkpoint_t *r = &c->record;
    return !r->stream_name && !r->instance_id && !r->last_seen_token && !r->last_processed_token && !r->metadata;
}

static dlq_code_t
read_write (dlq_verb_t verb, const char *body, dlq_checkpoint_t *value, bool *remove, dlq_error_t *err)
{
    memset (err, 0, sizeof *err);
    *remove = verb != DLQ_VERB_CKPT_DELETE;             /* the opposite of what it must say */
    return dlq_ckpt_read_write (verb, body, strlen (body), value, remove, err);
}

Test (checkpoint_verbs, save_reads_the_whole_record)
{
    dlq_checkpoint_t v;
    bool remove;
    dlq_error_t err;
    cr_assert_eq (read_write (DLQ_VERB_CKPT_SAVE, "{\"streamName\":\"orders\",\"instanceId\":\"worker-7\","
                              "\"lastSeenToken\":{\"_data\":\"8263\"},\"lastSeenTimestamp\":\"2026-06-09T14:32:13.500Z\","
                              "\"lastProcessedToken\":{\"_data\":\"8262\"},"
                              "\"lastProcessedTimestamp\":\"2026-06-09T16:32:12+02:00\",\"metadata\":{\"host\":\"a\"}}",
                              &v, &remove, &err), DLQ_OK, "%s", err.message);
    cr_expect_not (remove);
    cr_expect_eq (v.kind, DLQ_SINK_CKPT_SAVE);
    cr_expect_str_eq (v.record.stream_name, "orders");
    cr_expect_str_eq (v.record.instance_id, "worker-7");
    cr_expect_str_eq (v.record.last_seen_token, "{\"_data\":\"8263\"}");
    cr_expect_eq (v.record.last_seen_at, AT_MS);
    cr_expect_str_eq (v.record.last_processed_token, "{\"_data\":\"8262\"}");
    cr_expect_eq (v.record.last_processed_at, AT_MS - 1500, "the offset taken into account");
    cr_expect_str_eq (v.record.metadata, "{\"host\":\"a\"}");
    dlq_checkpoint_clear (&v);
    cr_expect (is_empty (&v));
}

Test (checkpoint_verbs, save_with_only_a_stream_leaves_every_other_field_absent)
{
    dlq_checkpoint_t v;
    bool remove;
    dlq_error_t err;
    cr_assert_eq (read_write (DLQ_VERB_CKPT_SAVE, "{\"streamName\":\"a.b\\u0001c\",\"instanceId\":null}", &v,
                              &remove, &err), DLQ_OK, "%s", err.message);
    cr_expect_str_eq (v.record.stream_name, "a.b\x01" "c", "dots and control characters are allowed");
    cr_expect_null (v.record.instance_id, "null is absent");
    cr_expect_null (v.record.last_seen_token);
    cr_expect_null (v.record.last_processed_token);
    cr_expect_null (v.record.metadata);
    cr_expect_eq (v.record.last_seen_at, DLQ_SINK_TIME_NONE);
    cr_expect_eq (v.record.last_processed_at, DLQ_SINK_TIME_NONE);
    dlq_checkpoint_clear (&v);
}

Test (checkpoint_verbs, seen_and_processed_carry_only_their_own_pair)
{
    static const char body [] = "{\"streamName\":\"orders\",\"token\":{\"_data\":\"82\"},"
                                "\"timestamp\":\"2026-06-09T14:32:13.500Z\"}";
    dlq_checkpoint_t v;
    bool remove;
    dlq_error_t err;
    cr_assert_eq (read_write (DLQ_VERB_CKPT_SEEN, body, &v, &remove, &err), DLQ_OK, "%s", err.message);
    cr_expect_not (remove);
    cr_expect_eq (v.kind, DLQ_SINK_CKPT_SEEN);
    cr_expect_str_eq (v.record.stream_name, "orders");
    cr_expect_str_eq (v.record.last_seen_token, "{\"_data\":\"82\"}");
    cr_expect_eq (v.record.last_seen_at, AT_MS);
    cr_expect_null (v.record.last_processed_token);
    cr_expect_eq (v.record.last_processed_at, DLQ_SINK_TIME_NONE);
    dlq_checkpoint_clear (&v);
    cr_assert_eq (read_write (DLQ_VERB_CKPT_PROCESSED, body, &v, &remove, &err), DLQ_OK, "%s", err.message);
    cr_expect_not (remove);
    cr_expect_eq (v.kind, DLQ_SINK_CKPT_PROCESSED);
    cr_expect_str_eq (v.record.last_processed_token, "{\"_data\":\"82\"}");
    cr_expect_eq (v.record.last_processed_at, AT_MS);
    cr_expect_null (v.record.last_seen_token);
    cr_expect_eq (v.record.last_seen_at, DLQ_SINK_TIME_NONE);
    dlq_checkpoint_clear (&v);
}

Test (checkpoint_verbs, seen_and_processed_need_all_three_members)
{
    static const struct { const char *body; const char *field; } cases [] = {
        { "{\"token\":{},\"timestamp\":\"2026-06-09T14:32:13.500Z\"}", "streamName" },
        { "{\"streamName\":\"s\",\"timestamp\":\"2026-06-09T14:32:13.500Z\"}", "token" },
        { "{\"streamName\":\"s\",\"token\":{}}", "timestamp" },
    };
    for (int verb = DLQ_VERB_CKPT_SEEN; verb <= DLQ_VERB_CKPT_PROCESSED; verb++)
        for (size_t i = 0; i < sizeof cases / sizeof cases [0]; i++) {
            dlq_checkpoint_t v;
            bool remove;
            dlq_error_t err;
            cr_expect_eq (read_write ((dlq_verb_t) verb, cases [i].body, &v, &remove, &err), DLQ_ERR_INVALID_REQUEST,
                          "%s", cases [i].body);
            cr_expect_str_eq (err.field, cases [i].field, "%s", cases [i].body);
            cr_expect (is_empty (&v), "%s: nothing kept", cases [i].body);
        }
}

Test (checkpoint_verbs, delete_is_a_remove_of_its_stream_alone)
{
    dlq_checkpoint_t v;
    bool remove;
    dlq_error_t err;
    cr_assert_eq (read_write (DLQ_VERB_CKPT_DELETE, "{\"streamName\":\"orders\"}", &v, &remove, &err), DLQ_OK,
                  "%s", err.message);
    cr_expect (remove);
    cr_expect_str_eq (v.record.stream_name, "orders");
    cr_expect_null (v.record.instance_id);
    cr_expect_null (v.record.last_seen_token);
    cr_expect_null (v.record.metadata);
    dlq_checkpoint_clear (&v);
}

Test (checkpoint_verbs, delete_takes_no_other_member)
{
    dlq_checkpoint_t v;
    bool remove;
    dlq_error_t err;
    cr_expect_eq (read_write (DLQ_VERB_CKPT_DELETE, "{\"streamName\":\"orders\",\"instanceId\":\"w\"}", &v, &remove,
                              &err), DLQ_ERR_INVALID_REQUEST);
    cr_expect_str_eq (err.field, "instanceId");
    cr_expect (is_empty (&v));
    cr_expect_eq (read_write (DLQ_VERB_CKPT_DELETE, "{}", &v, &remove, &err), DLQ_ERR_INVALID_REQUEST);
    cr_expect_str_eq (err.field, "streamName");
    cr_expect (is_empty (&v));
}

Test (checkpoint_verbs, an_empty_body_is_empty_body_for_every_write)
{
    static const dlq_verb_t verbs [] = { DLQ_VERB_CKPT_SAVE, DLQ_VERB_CKPT_SEEN, DLQ_VERB_CKPT_PROCESSED,
                                         DLQ_VERB_CKPT_DELETE };
    for (size_t i = 0; i < sizeof verbs / sizeof verbs [0]; i++) {
        dlq_checkpoint_t v;
        bool remove;
        dlq_error_t err;
        cr_expect_eq (read_write (verbs [i], "", &v, &remove, &err), DLQ_ERR_EMPTY_BODY, "verb %d", verbs [i]);
        cr_expect (is_empty (&v));
        cr_expect_eq (read_write (verbs [i], " \n", &v, &remove, &err), DLQ_ERR_EMPTY_BODY, "only whitespace");
        cr_expect (is_empty (&v));
    }
}

Test (checkpoint_verbs, bad_bodies_are_refused_naming_the_member)
{
    static const struct { dlq_verb_t verb; const char *body; dlq_code_t code; const char *field; } cases [] = {
        { DLQ_VERB_CKPT_SAVE, "{\"streamName\":", DLQ_ERR_INVALID_JSON, "" },
        { DLQ_VERB_CKPT_SAVE, "{\"streamName\":\"\xff\"}", DLQ_ERR_INVALID_UTF8, "" },
        { DLQ_VERB_CKPT_SAVE, "[\"orders\"]", DLQ_ERR_INVALID_REQUEST, "" },
        { DLQ_VERB_CKPT_SAVE, "{\"streamName\":\"a\",\"streamName\":\"b\"}", DLQ_ERR_INVALID_REQUEST, "streamName" },
        { DLQ_VERB_CKPT_SAVE, "{\"streamName\":\"a\",\"metadata\":{\"k\":1,\"k\":2}}", DLQ_ERR_INVALID_REQUEST,
          "metadata.k" },
        { DLQ_VERB_CKPT_SAVE, "{\"streamName\":\"a\",\"bogus\":1}", DLQ_ERR_INVALID_REQUEST, "bogus" },
        { DLQ_VERB_CKPT_SAVE, "{\"streamName\":\"a\",\"updatedAt\":\"2026-06-09T14:32:13.500Z\"}",
          DLQ_ERR_INVALID_REQUEST, "updatedAt" },
        { DLQ_VERB_CKPT_SAVE, "{\"streamName\":\"\"}", DLQ_ERR_INVALID_REQUEST, "streamName" },
        { DLQ_VERB_CKPT_SAVE, "{\"streamName\":\"a\\u0000b\"}", DLQ_ERR_INVALID_REQUEST, "streamName" },
        { DLQ_VERB_CKPT_SAVE, "{\"streamName\":7}", DLQ_ERR_INVALID_REQUEST, "streamName" },
        { DLQ_VERB_CKPT_SAVE, "{\"streamName\":\"a\",\"instanceId\":\"x\\u0000\"}", DLQ_ERR_INVALID_REQUEST,
          "instanceId" },
        { DLQ_VERB_CKPT_SAVE, "{\"streamName\":\"a\",\"metadata\":[1]}", DLQ_ERR_INVALID_REQUEST, "metadata" },
        { DLQ_VERB_CKPT_SAVE, "{\"streamName\":\"a\",\"lastSeenTimestamp\":\"yesterday\"}",
          DLQ_ERR_INVALID_TIMESTAMP, "lastSeenTimestamp" },
        { DLQ_VERB_CKPT_SEEN, "{\"streamName\":\"a\",\"token\":{},\"timestamp\":\"2026-02-30T00:00:00Z\"}",
          DLQ_ERR_INVALID_TIMESTAMP, "timestamp" },
        { DLQ_VERB_CKPT_SEEN, "{\"streamName\":\"a\",\"token\":\"82\",\"timestamp\":\"2026-06-09T14:32:13Z\"}",
          DLQ_ERR_INVALID_REQUEST, "token" },
        { DLQ_VERB_CKPT_PROCESSED, "{\"streamName\":\"a\",\"token\":{},\"timestamp\":\"2026-06-09T14:32:13Z\","
          "\"instanceId\":\"w\"}", DLQ_ERR_INVALID_REQUEST, "instanceId" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases [0]; i++) {
        dlq_checkpoint_t v;
        bool remove;
        dlq_error_t err;
        dlq_code_t code = read_write (cases [i].verb, cases [i].body, &v, &remove, &err);
        cr_expect_eq (code, cases [i].code, "%s: %s (%s)", cases [i].body, dlq_code_name (code), err.message);
        cr_expect_eq (err.code, cases [i].code, "%s", cases [i].body);
        cr_expect_str_eq (err.field, cases [i].field, "%s: %s", cases [i].body, err.message);
        cr_expect (is_empty (&v), "%s: the value is left empty", cases [i].body);
    }
}

Test (checkpoint_verbs, the_stream_name_limit_is_1024_bytes)
{
    char body [1200];
    for (int len = 1023; len <= 1025; len++) {
        int n = snprintf (body, sizeof body, "{\"streamName\":\"");
        memset (body + n, 's', (size_t) len);
        snprintf (body + n + len, sizeof body - (size_t) (n + len), "\"}");
        dlq_checkpoint_t v;
        bool remove;
        dlq_error_t err;
        dlq_code_t code = read_write (DLQ_VERB_CKPT_DELETE, body, &v, &remove, &err);
        if (len <= 1024) {
            cr_expect_eq (code, DLQ_OK, "%d bytes: %s", len, err.message);
            cr_expect_eq (v.record.stream_name ? strlen (v.record.stream_name) : 0, (size_t) len);
        }
        else {
            cr_expect_eq (code, DLQ_ERR_INVALID_REQUEST, "%d bytes", len);
            cr_expect_str_eq (err.field, "streamName");
        }
        dlq_checkpoint_clear (&v);
    }
}

Test (checkpoint_verbs, the_value_is_the_callers_after_the_body_is_gone)
{
    char *body = strdup ("{\"streamName\":\"orders\",\"instanceId\":\"w1\",\"metadata\":{\"a\":[1,2]}}");
    dlq_checkpoint_t v;
    bool remove = true;
    dlq_error_t err;
    cr_assert_eq (dlq_ckpt_read_write (DLQ_VERB_CKPT_SAVE, body, strlen (body), &v, &remove, &err), DLQ_OK);
    memset (body, 'x', strlen (body));
    free (body);
    cr_expect_str_eq (v.record.stream_name, "orders");
    cr_expect_str_eq (v.record.instance_id, "w1");
    cr_expect_str_eq (v.record.metadata, "{\"a\":[1,2]}");
    dlq_checkpoint_clear (&v);
}
