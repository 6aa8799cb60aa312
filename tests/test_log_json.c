/*  test_log_json — log_format = "json": every line is one JSON object
 *  (checked with the project's own parser) with time, level, pid and the
 *  message, the sink / stream / event id / principal read off the message,
 *  bytes that are not UTF-8 replaced, and a line that never outgrows its
 *  buffer, whatever the message.
 */
#include "dlq_json.h"
#include "log_json.h"

#include <criterion/criterion.h>
#include <string.h>

#define LINE 2048

/* The line for text as a parsed object (the caller destroys doc). */
static const dlq_json_value_t *
line_of (const char *text, size_t len, const char *suffix, dlq_json_doc_t **doc)
{
    char out [LINE];
    size_t n = dlq_log_json_line (out, sizeof out, "2026-12-03T10:00:00.000Z", "warn", 77, text, len, suffix);
    cr_assert_lt (n, sizeof out);
    cr_assert_eq (out [n - 1], '\n', "one line");
    cr_assert_null (memchr (out, '\n', n - 1), "no newline inside");
    dlq_json_error_t err;
    cr_assert_eq (dlq_json_parse (out, n - 1, doc, &err), DLQ_JSON_OK, "not JSON (%s): %.*s", err.message, (int) n, out);
    const dlq_json_value_t *root = dlq_json_root (*doc);
    cr_assert_eq (root->type, DLQ_JSON_OBJECT);
    return root;
}

static void
expect_member (const dlq_json_value_t *root, const char *name, const char *want)
{
    const dlq_json_value_t *v = dlq_json_get (root, name);
    if (!want) {
        cr_expect_null (v, "no %s", name);
        return;
    }
    cr_assert_not_null (v, "has %s", name);
    cr_assert_eq (v->type, DLQ_JSON_STRING);
    cr_expect (v->len == strlen (want) && memcmp (v->str, want, v->len) == 0, "%s: %.*s, not %s", name,
               (int) v->len, v->str, want);
}

Test (log_json, a_line_has_time_level_pid_message_and_the_fields_it_names)
{
    dlq_json_doc_t *doc;
    const char *text = "sink pg: event 0192e4a1-1111-7000-8000-00000000abcd failed after 3 attempts: \"boom\"";
    const dlq_json_value_t *root = line_of (text, strlen (text), "", &doc);
    expect_member (root, "time", "2026-12-03T10:00:00.000Z");
    expect_member (root, "level", "warn");
    expect_member (root, "message", text);
    expect_member (root, "sink", "pg");
    expect_member (root, "eventId", "0192e4a1-1111-7000-8000-00000000abcd");
    expect_member (root, "stream", NULL);
    const dlq_json_value_t *pid = dlq_json_get (root, "pid");
    cr_expect (pid && pid->type == DLQ_JSON_NUMBER);
    dlq_json_doc_destroy (&doc);

    text = "sink kafka (kafka) started: batches of 1000";
    root = line_of (text, strlen (text), "", &doc);
    expect_member (root, "sink", "kafka");
    expect_member (root, "eventId", NULL);
    dlq_json_doc_destroy (&doc);

    text = "schedule orders: another instance holds the lock";
    root = line_of (text, strlen (text), "", &doc);
    expect_member (root, "stream", "orders");
    expect_member (root, "sink", NULL);
    dlq_json_doc_destroy (&doc);

    text = "audit: {\"time\":\"x\",\"principal\":\"worker-7\",\"verb\":\"REPLAY.PAUSE\","
           "\"request\":\"{\\\"job\\\":\\\"0192e4a1-1111-7000-8000-00000000abcd\\\"}\"}";
    root = line_of (text, strlen (text), "", &doc);
    expect_member (root, "principal", "worker-7");
    expect_member (root, "eventId", NULL);
    dlq_json_doc_destroy (&doc);
}

Test (log_json, a_repeat_count_is_part_of_the_message)
{
    dlq_json_doc_t *doc;
    const dlq_json_value_t *root = line_of ("disk full", 9, " (repeated 3 times in the last 10 s)", &doc);
    expect_member (root, "message", "disk full (repeated 3 times in the last 10 s)");
    dlq_json_doc_destroy (&doc);
}

Test (log_json, bytes_that_are_not_utf8_become_the_replacement_character)
{
    dlq_json_doc_t *doc;
    const char text [] = "stream \xff\xfe ok \xc3\xa9 \xe2\x82 \x01 tab\t";
    const dlq_json_value_t *root = line_of (text, sizeof text - 1, "", &doc);
    expect_member (root, "message", "stream \xef\xbf\xbd\xef\xbf\xbd ok \xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd \x01 tab\t");
    dlq_json_doc_destroy (&doc);
}

Test (log_json, a_long_or_hostile_message_still_makes_one_object)
{
    char text [LINE * 2];
    const char *pieces [] = { "\"", "\\", "\x01", "\xe2\x82\xac", "\xff", "a" };
    for (size_t p = 0; p < sizeof pieces / sizeof pieces [0]; p++) {
        size_t n = 0, len = strlen (pieces [p]);
        memcpy (text, "sink ", 5);
        n = 5;
        while (n + len < sizeof text) {
            memcpy (text + n, pieces [p], len);
            n += len;
        }
        dlq_json_doc_t *doc;
        const dlq_json_value_t *root = line_of (text, n, " (repeated 9 times in the last 10 s)", &doc);
        const dlq_json_value_t *m = dlq_json_get (root, "message");
        cr_assert (m && m->type == DLQ_JSON_STRING);
        cr_expect (m->len >= 200, "most of the line holds the message (%zu bytes; \\u0001 takes 6)", m->len);
        cr_expect (m->len >= 36 && memcmp (m->str + m->len - 36, " (repeated 9 times in the last 10 s)", 36) == 0,
                   "the count is never cut");
        dlq_json_doc_destroy (&doc);
    }
}
