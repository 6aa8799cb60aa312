/*  test_sink_health — what a dispatcher shows STATS about its sink, as
 *  sink_health.h and docs/protocol.md ("STATS", sinks) have it: a new one
 *  is "circuit":"closed" with no lastError / lastErrorAt; the circuit state
 *  and the last error (with its time as ISO-8601 UTC) are what was set
 *  last; the members are appended with no braces and stay valid JSON
 *  whatever the error says; the backlog is the events past the cursor
 *  (never negative when the dispatcher is ahead of the committer) plus
 *  those of the store from before the spool; readers and a writer on
 *  other threads see whole states.
 */
#include "delivery_health.h"

#include "dlq_buf.h"
#include "dlq_json.h"
#include "dlq_time.h"

#include "json_support.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The health's members wrapped in braces and parsed; the test fails when
 * that is not one JSON object. */
static dlq_json_doc_t *
format (dlq_delivery_health_t *h)
{
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_delivery_health_format (h, &out);
    dlq_json_doc_t *doc = json_members_parse (&out);
    dlq_buf_free (&out);
    return doc;
}

static void
expect_string (const dlq_json_doc_t *doc, const char *name, const char *want)
{
    const dlq_json_value_t *v = dlq_json_get (dlq_json_root (doc), name);
    cr_assert_not_null (v, "no %s", name);
    cr_assert_eq (v->type, DLQ_JSON_STRING, "%s", name);
    cr_expect (v->len == strlen (want) && memcmp (v->str, want, v->len) == 0, "%s is \"%.*s\", want \"%s\"",
               name, (int) v->len, v->str, want);
}

/* 2026-06-09T14:32:13.500Z, the docs' example */
#define AT_MS 1781015533500LL

Test (sink_health, a_new_sink_is_closed_with_no_error)
{
    dlq_delivery_health_t *h = dlq_delivery_health_new ();
    dlq_json_doc_t *doc = format (h);
    cr_expect_eq (dlq_json_root (doc)->count, 1, "circuit alone");
    expect_string (doc, "circuit", "closed");
    cr_expect_null (dlq_json_get (dlq_json_root (doc), "lastError"), "absent until there was one");
    cr_expect_null (dlq_json_get (dlq_json_root (doc), "lastErrorAt"));
    dlq_json_doc_destroy (&doc);
    int64_t backlog = -1, retrying = -1;
    dlq_delivery_health_queue (h, 0, &backlog, &retrying);
    cr_expect_eq (backlog, 0);
    cr_expect_eq (retrying, 0);
    dlq_delivery_health_destroy (&h);
    cr_expect_null (h);
}

Test (sink_health, the_circuit_is_the_state_set_last)
{
    static const char *const states [] = { "open", "half-open", "closed" };
    dlq_delivery_health_t *h = dlq_delivery_health_new ();
    for (size_t i = 0; i < sizeof states / sizeof states [0]; i++) {
        dlq_delivery_health_set_circuit (h, states [i]);
        dlq_json_doc_t *doc = format (h);
        expect_string (doc, "circuit", states [i]);
        dlq_json_doc_destroy (&doc);
    }
    dlq_delivery_health_destroy (&h);
}

Test (sink_health, the_last_error_shows_with_its_time)
{
    dlq_delivery_health_t *h = dlq_delivery_health_new ();
    dlq_delivery_health_set_error (h, "NOT_FOUND exchange", AT_MS);
    dlq_json_doc_t *doc = format (h);
    cr_expect_eq (dlq_json_root (doc)->count, 3);
    expect_string (doc, "circuit", "closed");
    expect_string (doc, "lastError", "NOT_FOUND exchange");
    expect_string (doc, "lastErrorAt", "2026-06-09T14:32:13.500Z");
    dlq_json_doc_destroy (&doc);
    dlq_delivery_health_set_error (h, "connection refused", AT_MS + 61500);
    doc = format (h);
    expect_string (doc, "lastError", "connection refused");
    expect_string (doc, "lastErrorAt", "2026-06-09T14:33:15.000Z");
    dlq_json_doc_destroy (&doc);
    dlq_delivery_health_destroy (&h);
}

Test (sink_health, the_members_follow_what_the_buffer_holds)
{
    dlq_delivery_health_t *h = dlq_delivery_health_new ();
    dlq_delivery_health_set_error (h, "x", AT_MS);
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_buf_puts (&out, "{\"type\":\"amqp\",");
    dlq_delivery_health_format (h, &out);
    dlq_buf_puts (&out, ",\"counters\":{}}");
    dlq_json_doc_t *doc = NULL;
    cr_expect_eq (dlq_json_parse (out.data, out.len, &doc, NULL), DLQ_JSON_OK, "%s", out.data);
    cr_expect_eq (doc ? dlq_json_root (doc)->count : 0, 5);
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&out);
    dlq_delivery_health_destroy (&h);
}

Test (sink_health, an_error_with_quotes_and_control_characters_stays_json)
{
    static const char text [] = "rejected: \"bad\" \\ doc\nline\ttab \x02";
    dlq_delivery_health_t *h = dlq_delivery_health_new ();
    dlq_delivery_health_set_error (h, text, AT_MS);
    dlq_json_doc_t *doc = format (h);
    expect_string (doc, "lastError", text);
    dlq_json_doc_destroy (&doc);
    dlq_delivery_health_set_error (h, "", AT_MS);
    doc = format (h);
    expect_string (doc, "lastError", "");
    dlq_json_doc_destroy (&doc);
    dlq_delivery_health_destroy (&h);
}

/* A long error is cut at a character boundary, so the STATS body stays
 * UTF-8 (docs/protocol.md: a reply body is UTF-8 JSON). */
Test (sink_health, a_long_error_is_kept_as_valid_utf8)
{
    char text [1024] = "";
    for (int i = 0; i < 300; i++)
        strcat (text, "\xc3\xa9");                  /* é: a cut at 255 bytes splits one */
    dlq_delivery_health_t *h = dlq_delivery_health_new ();
    dlq_delivery_health_set_error (h, text, AT_MS);
    dlq_buf_t out = DLQ_BUF_INIT;
    dlq_buf_putc (&out, '{');
    dlq_delivery_health_format (h, &out);
    dlq_buf_putc (&out, '}');
    cr_expect (dlq_utf8_valid (out.data, out.len, NULL), "the STATS members are UTF-8");
    dlq_json_doc_t *doc = NULL;
    cr_expect_eq (dlq_json_parse (out.data, out.len, &doc, NULL), DLQ_JSON_OK);
    dlq_json_doc_destroy (&doc);
    dlq_buf_free (&out);
    dlq_delivery_health_destroy (&h);
}

Test (sink_health, a_long_ascii_error_is_kept_from_its_start)
{
    char text [2001];
    for (int i = 0; i < 2000; i++)
        text [i] = (char) ('a' + i % 26);
    text [2000] = '\0';
    dlq_delivery_health_t *h = dlq_delivery_health_new ();
    dlq_delivery_health_set_error (h, text, AT_MS);
    dlq_json_doc_t *doc = format (h);
    const dlq_json_value_t *v = dlq_json_get (dlq_json_root (doc), "lastError");
    cr_assert_not_null (v);
    cr_expect_gt (v->len, 0);
    cr_expect_leq (v->len, 2000);
    cr_expect_eq (memcmp (v->str, text, v->len), 0, "a prefix of the error");
    dlq_json_doc_destroy (&doc);
    dlq_delivery_health_destroy (&h);
}

Test (sink_health, the_backlog_is_the_events_past_the_cursor_and_before_the_spool)
{
    dlq_delivery_health_t *h = dlq_delivery_health_new ();
    int64_t backlog = -1, retrying = -1;
    dlq_delivery_health_set_queue (h, 700, 0, 3);
    dlq_delivery_health_queue (h, 1000, &backlog, &retrying);
    cr_expect_eq (backlog, 300, "newest 1000, cursor at 700");
    cr_expect_eq (retrying, 3);
    dlq_delivery_health_set_queue (h, 700, 50, 0);
    dlq_delivery_health_queue (h, 1000, &backlog, &retrying);
    cr_expect_eq (backlog, 350, "plus the store's events from before the spool");
    cr_expect_eq (retrying, 0);
    dlq_delivery_health_queue (h, 700, &backlog, &retrying);
    cr_expect_eq (backlog, 50, "the cursor at the newest event");
    dlq_delivery_health_destroy (&h);
}

Test (sink_health, a_cursor_ahead_of_the_committer_is_no_negative_backlog)
{
    /* the dispatcher can have read a batch the committer has not counted */
    dlq_delivery_health_t *h = dlq_delivery_health_new ();
    dlq_delivery_health_set_queue (h, 1005, 0, 1);
    int64_t backlog = -1, retrying = -1;
    dlq_delivery_health_queue (h, 1000, &backlog, &retrying);
    cr_expect_eq (backlog, 0);
    cr_expect_eq (retrying, 1);
    dlq_delivery_health_set_queue (h, UINT64_MAX, 7, 0);
    dlq_delivery_health_queue (h, 0, &backlog, &retrying);
    cr_expect_eq (backlog, 7, "only the events before the spool");
    dlq_delivery_health_destroy (&h);
}

Test (sink_health, a_backlog_of_any_size_is_exact)
{
    dlq_delivery_health_t *h = dlq_delivery_health_new ();
    dlq_delivery_health_set_queue (h, 1, 1000000000LL, 5000000);
    int64_t backlog = -1, retrying = -1;
    dlq_delivery_health_queue (h, 1ull << 40, &backlog, &retrying);
    cr_expect_eq (backlog, (int64_t) (1ull << 40) - 1 + 1000000000LL);
    cr_expect_eq (retrying, 5000000);
    dlq_delivery_health_destroy (&h);
}

Test (sink_health, destroy_accepts_null)
{
    dlq_delivery_health_t *h = NULL;
    dlq_delivery_health_destroy (&h);
    dlq_delivery_health_destroy (NULL);
    cr_expect_null (h);
}

/* ---- one writer, many readers --------------------------------------- */

typedef struct {
    dlq_delivery_health_t *h;
    atomic_bool        stop;
    atomic_int         torn;
    atomic_int         reads;
} shared_t;

static void *
writer (void *arg)
{
    shared_t *s = arg;
    for (uint64_t i = 1; i <= 20000; i++) {
        /* every state written keeps backlog == 2 * retrying */
        dlq_delivery_health_set_queue (s->h, 0, (int64_t) i, (size_t) i);
        dlq_delivery_health_set_circuit (s->h, i % 2 ? "open" : "half-open");
        dlq_delivery_health_set_error (s->h, i % 2 ? "odd error" : "even error", AT_MS + (int64_t) i);
    }
    atomic_store (&s->stop, true);
    return NULL;
}

static void *
reader (void *arg)
{
    shared_t *s = arg;
    while (!atomic_load (&s->stop)) {
        int64_t backlog, retrying;
        dlq_delivery_health_queue (s->h, (uint64_t) 0, &backlog, &retrying);
        /* newest 0: backlog is before_spool alone, which equals retrying */
        if (backlog != retrying)
            atomic_fetch_add (&s->torn, 1);
        dlq_buf_t out = DLQ_BUF_INIT;
        dlq_buf_putc (&out, '{');
        dlq_delivery_health_format (s->h, &out);
        dlq_buf_putc (&out, '}');
        dlq_json_doc_t *doc = NULL;
        if (dlq_json_parse (out.data, out.len, &doc, NULL) != DLQ_JSON_OK)
            atomic_fetch_add (&s->torn, 1);
        dlq_json_doc_destroy (&doc);
        dlq_buf_free (&out);
        atomic_fetch_add (&s->reads, 1);
    }
    return NULL;
}

Test (sink_health, readers_on_other_threads_see_whole_states)
{
    shared_t s = { .h = dlq_delivery_health_new () };
    pthread_t w, r [2];
    for (int i = 0; i < 2; i++)
        cr_assert_eq (pthread_create (&r [i], NULL, reader, &s), 0);
    cr_assert_eq (pthread_create (&w, NULL, writer, &s), 0);
    pthread_join (w, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join (r [i], NULL);
    cr_expect_eq (atomic_load (&s.torn), 0, "torn reads: %d of %d", atomic_load (&s.torn), atomic_load (&s.reads));
    int64_t backlog, retrying;
    dlq_delivery_health_queue (s.h, 0, &backlog, &retrying);
    cr_expect_eq (backlog, 20000, "the last state written");
    cr_expect_eq (retrying, 20000);
    dlq_json_doc_t *doc = format (s.h);
    expect_string (doc, "circuit", "half-open");
    expect_string (doc, "lastError", "even error");
    dlq_json_doc_destroy (&doc);
    dlq_delivery_health_destroy (&s.h);
}
