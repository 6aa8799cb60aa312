/*  itest_ckpt_client — checkpoints through libdlq and dlqctl against a
 *  real dlqd (embedded primary):
 *
 *    - the blocking calls: save (every member, a later save dropping
 *      members), get (NOT_FOUND told by its code and field), seen and
 *      processed (a NULL timestamp is now), list pages, delete (the
 *      deleted flag); arguments refused before anything is sent;
 *    - the pipelined writes: completions with their verb and the stored
 *      record as body (read with dlq_client_checkpoint_read), mixed with
 *      pipelined PUTs on the same client; a refused one with its error;
 *    - dlqctl ckpt get (labelled lines; --json the gateway's record byte
 *      for byte), ckpt ls (the table, --prefix, --limit with the next
 *      cursor, --all, --json pages), ckpt delete, their exit statuses and
 *      usage errors.
 */
#include "dlq_client.h"
#include "dlq_json.h"
#include "dlq_time.h"
#include "dlqctl_support.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static test_dlqd_t d;

static void
start (void)
{
    memset (&d, 0, sizeof d);
    test_tmpdir (d.dir);
    cr_assert (test_dlqd_start (&d, NULL, NULL), "dlqd did not start");
}

static void stop (void) { test_dlqd_cleanup (&d); }

TestSuite (ckpt_client, .init = start, .fini = stop, .timeout = 120);

/* A checkpoint must have these members (NULL: absent). */
static void
expect_members (const dlq_client_checkpoint_t *c, const char *stream, const char *instance, const char *seen,
                const char *seen_at, const char *processed, const char *processed_at, const char *metadata)
{
    const char *got [] = { c->stream_name, c->instance_id, c->last_seen_token, c->last_seen_timestamp,
                           c->last_processed_token, c->last_processed_timestamp, c->metadata };
    const char *want [] = { stream, instance, seen, seen_at, processed, processed_at, metadata };
    for (size_t i = 0; i < sizeof got / sizeof got [0]; i++)
        if (want [i])
            cr_expect (got [i] && strcmp (got [i], want [i]) == 0, "member %zu: got %s, want %s", i,
                       got [i] ? got [i] : "(absent)", want [i]);
        else
            cr_expect_null (got [i], "member %zu: got %s, want it absent", i, got [i]);
    cr_expect (c->updated_at && strlen (c->updated_at) == DLQ_TIME_ISO_LEN, "updatedAt: %s", c->updated_at);
}

/* ---- blocking calls ------------------------------------------------------- */

Test (ckpt_client, save_get_and_a_save_that_drops_members)
{
    dlq_client_t *c = dlqctl_client (&d);
    dlq_client_checkpoint_t in = {
        .stream_name = "orders", .instance_id = "worker-7",
        .last_seen_token = "{ \"_data\" : \"826A5B\" }", .last_seen_timestamp = "2026-06-09T16:32:13.5+02:00",
        .last_processed_token = "{\"_data\":\"826A5A\"}", .last_processed_timestamp = "2026-06-09T14:32:12Z",
        .metadata = "{\"host\":\"a\"}", .updated_at = "ignored"
    };
    dlq_client_checkpoint_t stored, got;
    cr_assert_eq (dlq_client_ckpt_save (c, &in, &stored), DLQ_CLIENT_OK, "%s", dlq_client_error_message (c));
    expect_members (&stored, "orders", "worker-7", "{\"_data\":\"826A5B\"}", "2026-06-09T14:32:13.500Z",
                    "{\"_data\":\"826A5A\"}", "2026-06-09T14:32:12.000Z", "{\"host\":\"a\"}");
    cr_assert_eq (dlq_client_ckpt_get (c, "orders", &got), DLQ_CLIENT_OK, "%s", dlq_client_error_message (c));
    expect_members (&got, "orders", "worker-7", "{\"_data\":\"826A5B\"}", "2026-06-09T14:32:13.500Z",
                    "{\"_data\":\"826A5A\"}", "2026-06-09T14:32:12.000Z", "{\"host\":\"a\"}");
    cr_expect_str_eq (got.updated_at, stored.updated_at);
    dlq_client_checkpoint_clear (&got);
    dlq_client_checkpoint_clear (&stored);

    dlq_client_checkpoint_t fewer = { .stream_name = "orders", .last_seen_token = "{\"_data\":\"9\"}" };
    cr_assert_eq (dlq_client_ckpt_save (c, &fewer, NULL), DLQ_CLIENT_OK, "%s", dlq_client_error_message (c));
    cr_assert_eq (dlq_client_ckpt_get (c, "orders", &got), DLQ_CLIENT_OK);
    expect_members (&got, "orders", NULL, "{\"_data\":\"9\"}", NULL, NULL, NULL, NULL);

    got.instance_id = "worker-9";
    cr_assert_eq (dlq_client_ckpt_save (c, &got, &got), DLQ_CLIENT_OK, "a record saved back into itself");
    expect_members (&got, "orders", "worker-9", "{\"_data\":\"9\"}", NULL, NULL, NULL, NULL);
    dlq_client_checkpoint_clear (&got);
    dlq_client_checkpoint_clear (&got);
    dlq_client_checkpoint_clear (NULL);
    dlq_client_destroy (&c);
}

Test (ckpt_client, get_of_a_missing_stream_is_not_found)
{
    dlq_client_t *c = dlqctl_client (&d);
    dlq_client_checkpoint_t got;
    cr_assert_eq (dlq_client_ckpt_get (c, "nobody", &got), DLQ_CLIENT_ERR_SERVER);
    cr_expect_str_eq (dlq_client_error_code (c), "NOT_FOUND");
    cr_expect_str_eq (dlq_client_error_field (c), "streamName");
    cr_expect_null (got.stream_name, "nothing filled on NOT_FOUND");
    cr_expect_null (got.storage);
    dlq_client_checkpoint_clear (&got);
    dlq_client_destroy (&c);
}

Test (ckpt_client, seen_and_processed_write_only_their_pair)
{
    dlq_client_t *c = dlqctl_client (&d);
    dlq_client_checkpoint_t stored;
    int64_t before = dlq_time_now_ms ();
    cr_assert_eq (dlq_client_ckpt_seen (c, "payments", "{\"_data\":\"01\"}", NULL, &stored), DLQ_CLIENT_OK,
                  "%s", dlq_client_error_message (c));
    int64_t at = 0;
    cr_assert (stored.last_seen_timestamp
               && dlq_time_parse_iso (stored.last_seen_timestamp, strlen (stored.last_seen_timestamp), &at));
    cr_expect (at >= before - 1000 && at <= dlq_time_now_ms () + 1000, "a NULL timestamp is now: %s",
               stored.last_seen_timestamp);
    expect_members (&stored, "payments", NULL, "{\"_data\":\"01\"}", stored.last_seen_timestamp, NULL, NULL, NULL);
    dlq_client_checkpoint_clear (&stored);

    cr_assert_eq (dlq_client_ckpt_processed (c, "payments", "{\"_data\":\"00\"}", "2026-06-09T00:00:00Z", &stored),
                  DLQ_CLIENT_OK, "%s", dlq_client_error_message (c));
    cr_expect_str_eq (stored.last_seen_token, "{\"_data\":\"01\"}");
    cr_expect_str_eq (stored.last_processed_token, "{\"_data\":\"00\"}");
    cr_expect_str_eq (stored.last_processed_timestamp, "2026-06-09T00:00:00.000Z");
    dlq_client_checkpoint_clear (&stored);

    cr_assert_eq (dlq_client_ckpt_seen (c, "payments", "{}", "2026-06-09", NULL), DLQ_CLIENT_ERR_SERVER);
    cr_expect_str_eq (dlq_client_error_code (c), "INVALID_TIMESTAMP");
    cr_expect_str_eq (dlq_client_error_field (c), "timestamp");
    dlq_client_destroy (&c);
}

Test (ckpt_client, list_and_delete)
{
    dlq_client_t *c = dlqctl_client (&d);
    const char *names [] = { "app.b", "app.a", "app.c", "zzz" };
    for (size_t i = 0; i < 4; i++)
        cr_assert_eq (dlq_client_ckpt_seen (c, names [i], "{\"_data\":\"1\"}", NULL, NULL), DLQ_CLIENT_OK);
    char *body = NULL;
    size_t len = 0;
    cr_assert_eq (dlq_client_ckpt_list (c, "app.", 2, NULL, &body, &len), DLQ_CLIENT_OK,
                  "%s", dlq_client_error_message (c));
    cr_expect_eq (len, strlen (body));
    cr_expect (strstr (body, "\"app.a\"") && strstr (body, "\"app.b\"") && !strstr (body, "\"app.c\""), "%s", body);
    cr_expect (strstr (body, "\"nextCursor\":\"") != NULL, "%s", body);
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (body, len, &doc, NULL), DLQ_JSON_OK);
    const dlq_json_value_t *next = dlq_json_get (dlq_json_root (doc), "nextCursor");
    char *cursor = strndup (next->str, next->len);
    dlq_json_doc_destroy (&doc);
    free (body);
    cr_assert_eq (dlq_client_ckpt_list (c, "app.", 2, cursor, &body, NULL), DLQ_CLIENT_OK);
    cr_expect (strstr (body, "\"app.c\"") && !strstr (body, "nextCursor") && !strstr (body, "zzz"), "%s", body);
    free (body);
    free (cursor);
    cr_assert_eq (dlq_client_ckpt_list (c, NULL, 0, NULL, &body, NULL), DLQ_CLIENT_OK);
    cr_expect (strstr (body, "\"zzz\"") != NULL, "%s", body);
    free (body);

    bool deleted = false;
    cr_assert_eq (dlq_client_ckpt_delete (c, "app.b", &deleted), DLQ_CLIENT_OK);
    cr_expect (deleted);
    cr_assert_eq (dlq_client_ckpt_delete (c, "app.b", &deleted), DLQ_CLIENT_OK);
    cr_expect_not (deleted);
    cr_expect_eq (dlq_client_ckpt_delete (c, "app.b", NULL), DLQ_CLIENT_OK);
    dlq_client_checkpoint_t got;
    cr_expect_eq (dlq_client_ckpt_get (c, "app.b", &got), DLQ_CLIENT_ERR_SERVER);
    dlq_client_destroy (&c);
}

Test (ckpt_client, arguments_are_checked_before_sending)
{
    dlq_client_t *c = dlqctl_client (&d);
    const char *bad_tokens [] = { NULL, "", "[1]", "\"x\"", "{", "{\"a\":1} {}", "{\"a\":1}x", "{\"a\":}" };
    for (size_t i = 0; i < sizeof bad_tokens / sizeof bad_tokens [0]; i++) {
        cr_expect_eq (dlq_client_ckpt_seen (c, "s", bad_tokens [i], NULL, NULL), DLQ_CLIENT_ERR_ARGS,
                      "token %s", bad_tokens [i] ? bad_tokens [i] : "NULL");
        cr_expect_eq (dlq_client_ckpt_processed_async (c, "s", bad_tokens [i], NULL, 1), DLQ_CLIENT_ERR_ARGS);
    }
    cr_expect_eq (dlq_client_ckpt_seen (c, NULL, "{}", NULL, NULL), DLQ_CLIENT_ERR_ARGS);
    cr_expect_eq (dlq_client_ckpt_seen (NULL, "s", "{}", NULL, NULL), DLQ_CLIENT_ERR_ARGS);
    cr_expect_eq (dlq_client_ckpt_save (c, NULL, NULL), DLQ_CLIENT_ERR_ARGS);
    dlq_client_checkpoint_t no_name = { .instance_id = "w" };
    cr_expect_eq (dlq_client_ckpt_save (c, &no_name, NULL), DLQ_CLIENT_ERR_ARGS);
    dlq_client_checkpoint_t bad_metadata = { .stream_name = "s", .metadata = "[]" };
    cr_expect_eq (dlq_client_ckpt_save (c, &bad_metadata, NULL), DLQ_CLIENT_ERR_ARGS);
    cr_expect_eq (dlq_client_ckpt_get (c, NULL, &no_name), DLQ_CLIENT_ERR_ARGS);
    cr_expect_eq (dlq_client_ckpt_list (c, NULL, 0, NULL, NULL, NULL), DLQ_CLIENT_ERR_ARGS);
    cr_expect_eq (dlq_client_ckpt_delete (c, NULL, NULL), DLQ_CLIENT_ERR_ARGS);
    cr_expect_eq (dlq_client_outstanding (c), 0);
    dlq_client_checkpoint_t got;
    cr_expect_eq (dlq_client_ckpt_get (c, "s", &got), DLQ_CLIENT_ERR_SERVER, "nothing was stored");
    cr_expect_eq (dlq_client_checkpoint_read ("{\"instanceId\":\"w\"}", 18, &got), DLQ_CLIENT_ERR_PROTOCOL);
    cr_expect_eq (dlq_client_checkpoint_read ("{\"streamName\":\"s\",\"lastSeenToken\":\"x\"}", 38, &got),
                  DLQ_CLIENT_ERR_PROTOCOL);
    cr_expect_eq (dlq_client_checkpoint_read (NULL, 0, &got), DLQ_CLIENT_ERR_ARGS);
    dlq_client_destroy (&c);
}

/* ---- pipelined writes ------------------------------------------------------ */

typedef struct {
    int  seen, processed, put, failed;
    long last_seen_counter;
    char problem [512];
} tally_t;

static void
on_done (const dlq_client_completion_t *completion, void *arg)
{
    tally_t *t = arg;
    if (completion->result != DLQ_CLIENT_OK) {
        t->failed++;
        snprintf (t->problem, sizeof t->problem, "%s: %s %s", completion->verb, completion->code, completion->message);
        return;
    }
    if (strcmp (completion->verb, "PUT") == 0) {
        t->put += strlen (completion->id) == DLQ_CLIENT_ID_SIZE - 1;
        return;
    }
    dlq_client_checkpoint_t record;
    if (dlq_client_checkpoint_read (completion->body, completion->body_len, &record) != DLQ_CLIENT_OK
        || strcmp (record.stream_name, "piped") != 0) {
        snprintf (t->problem, sizeof t->problem, "not the record: %s", completion->body);
        t->failed++;
        return;
    }
    if (strcmp (completion->verb, "CKPT.SEEN") == 0)
        t->seen += record.last_seen_token != NULL;
    else
        t->processed += record.last_processed_token != NULL;
    dlq_client_checkpoint_clear (&record);
}

Test (ckpt_client, pipelined_writes_complete_with_their_verb_and_record)
{
    dlq_client_t *c = dlqctl_client (&d);
    cr_assert_eq (dlq_client_set_window (c, 32), DLQ_CLIENT_OK);
    tally_t t = { 0 };
    char token [64], event [256], id [DLQ_CLIENT_ID_SIZE];
    for (int i = 0; i < 300; i++) {
        snprintf (token, sizeof token, "{\"_data\":\"%04d\"}", i);
        cr_assert_eq (i % 2 ? dlq_client_ckpt_processed_async (c, "piped", token, NULL, (uint64_t) i)
                            : dlq_client_ckpt_seen_async (c, "piped", token, "2026-06-09T00:00:00Z", (uint64_t) i),
                      DLQ_CLIENT_OK);
        dlq_client_uuid_v7 (id);
        int len = snprintf (event, sizeof event, "{\"id\":\"%s\",\"streamName\":\"piped\",\"error\":{\"type\":\"E\"}}", id);
        cr_assert_eq (dlq_client_put_async (c, event, (size_t) len, 1000 + (uint64_t) i), DLQ_CLIENT_OK);
        dlq_client_poll (c, 0, on_done, &t);
    }
    cr_assert_eq (dlq_client_flush (c, 30000, on_done, &t), DLQ_CLIENT_OK);
    cr_expect_eq (t.failed, 0, "%s", t.problem);
    cr_expect_eq (t.seen, 150);
    cr_expect_eq (t.processed, 150);
    cr_expect_eq (t.put, 300);
    dlq_client_checkpoint_t got;
    cr_assert_eq (dlq_client_ckpt_get (c, "piped", &got), DLQ_CLIENT_OK);
    cr_expect_str_eq (got.last_seen_token, "{\"_data\":\"0298\"}");
    cr_expect_str_eq (got.last_processed_token, "{\"_data\":\"0299\"}");
    dlq_client_checkpoint_clear (&got);
    dlq_client_destroy (&c);
}

typedef struct {
    int  count;
    char verb [32], code [32], field [32], body [8];
} refusal_t;

static void
on_refused (const dlq_client_completion_t *completion, void *arg)
{
    refusal_t *r = arg;
    r->count++;
    cr_expect_eq (completion->result, DLQ_CLIENT_ERR_SERVER);
    snprintf (r->verb, sizeof r->verb, "%s", completion->verb);
    snprintf (r->code, sizeof r->code, "%s", completion->code);
    snprintf (r->field, sizeof r->field, "%s", completion->field);
    snprintf (r->body, sizeof r->body, "%s", completion->body);
    cr_expect_eq (completion->body_len, 0);
}

Test (ckpt_client, a_refused_pipelined_write_completes_with_the_error)
{
    dlq_client_t *c = dlqctl_client (&d);
    refusal_t r = { 0 };
    cr_assert_eq (dlq_client_ckpt_processed_async (c, "piped", "{}", "2026-02-30T00:00:00Z", 7), DLQ_CLIENT_OK);
    cr_assert_eq (dlq_client_flush (c, 10000, on_refused, &r), DLQ_CLIENT_OK);
    cr_expect_eq (r.count, 1);
    cr_expect_str_eq (r.verb, "CKPT.PROCESSED");
    cr_expect_str_eq (r.code, "INVALID_TIMESTAMP");
    cr_expect_str_eq (r.field, "timestamp");
    cr_expect_str_eq (r.body, "");
    dlq_client_checkpoint_t got;
    cr_expect_eq (dlq_client_ckpt_get (c, "piped", &got), DLQ_CLIENT_ERR_SERVER, "nothing stored");
    dlq_client_destroy (&c);
}

/* ---- dlqctl ckpt -------------------------------------------------------------- */

static void
save_raw (const char *body)
{
    char status [8];
    char *reply = NULL;
    cr_assert (test_request (d.endpoint, "CKPT.SAVE", body, strlen (body), status, &reply));
    cr_assert_str_eq (status, "OK", "%s", reply);
    free (reply);
}

Test (ckpt_client, dlqctl_ckpt_get_and_delete)
{
    save_raw ("{\"streamName\":\"orders\",\"instanceId\":\"worker-7\",\"lastSeenToken\":{\"_data\":\"826A5B\"},"
              "\"lastSeenTimestamp\":\"2026-06-09T14:32:13.500Z\",\"metadata\":{\"host\":\"a\"}}");
    char *out = dlqctl_expect (&d, "ckpt get orders", 0, "");
    cr_expect (strstr (out, "stream                orders\n") != NULL, "%s", out);
    cr_expect (strstr (out, "instance              worker-7\n") != NULL, "%s", out);
    cr_expect (strstr (out, "last seen token       {\"_data\":\"826A5B\"}\n") != NULL, "%s", out);
    cr_expect (strstr (out, "last seen at          2026-06-09T14:32:13.500Z\n") != NULL, "%s", out);
    cr_expect (strstr (out, "last processed token  -\n") != NULL, "%s", out);
    cr_expect (strstr (out, "last processed at     -\n") != NULL, "%s", out);
    cr_expect (strstr (out, "metadata              {\"host\":\"a\"}\n") != NULL, "%s", out);
    cr_expect (strstr (out, "updated at            20") != NULL, "%s", out);
    free (out);

    char status [8];
    char *raw = NULL;
    cr_assert (test_request (d.endpoint, "CKPT.GET", "{\"streamName\":\"orders\"}", 23, status, &raw));
    out = dlqctl_expect (&d, "ckpt get orders --json", 0, "");
    char want [1024];
    snprintf (want, sizeof want, "%s\n", raw);
    cr_expect_str_eq (out, want, "--json prints the gateway's record");
    free (out);
    free (raw);

    free (dlqctl_expect (&d, "ckpt get nobody", 1, NULL));
    char *err;
    cr_expect_eq (dlqctl_on (&d, "ckpt get nobody", &out, &err), 1);
    cr_expect (strncmp (err, "dlqctl: NOT_FOUND: ", 19) == 0 && strstr (err, "(streamName)\n"), "%s", err);
    free (out);
    free (err);

    out = dlqctl_expect (&d, "ckpt delete orders", 0, "");
    cr_expect_str_eq (out, "orders: deleted\n");
    free (out);
    out = dlqctl_expect (&d, "ckpt delete orders", 0, "");
    cr_expect_str_eq (out, "orders: no checkpoint, nothing deleted\n");
    free (out);
    out = dlqctl_expect (&d, "--json ckpt delete orders", 0, "");
    cr_expect_str_eq (out, "{\"streamName\":\"orders\",\"deleted\":false}\n");
    free (out);
    free (dlqctl_expect (&d, "ckpt get orders", 1, NULL));
}

Test (ckpt_client, dlqctl_ckpt_ls)
{
    char *out = dlqctl_expect (&d, "ckpt ls", 0, "");
    cr_expect_str_eq (out, "no checkpoints\n");
    free (out);
    save_raw ("{\"streamName\":\"app.b\",\"instanceId\":\"w1\",\"lastSeenTimestamp\":\"2026-06-09T14:00:00Z\"}");
    save_raw ("{\"streamName\":\"app.a\",\"lastProcessedTimestamp\":\"2026-06-09T15:00:00Z\"}");
    save_raw ("{\"streamName\":\"app.c\"}");
    save_raw ("{\"streamName\":\"other\"}");

    out = dlqctl_expect (&d, "ckpt ls", 0, "");
    cr_expect_eq (dlqctl_lines (out), 5, "%s", out);
    cr_expect (strncmp (out, "STREAM", 6) == 0 && strstr (out, "INSTANCE") && strstr (out, "LAST SEEN AT")
               && strstr (out, "LAST PROCESSED AT") && strstr (out, "UPDATED AT"), "%s", out);
    const char *a = strstr (out, "\napp.a "), *b = strstr (out, "\napp.b "), *o = strstr (out, "\nother ");
    cr_expect (a && b && o && a < b && b < o, "ordered by name: %s", out);
    cr_expect (b && strstr (b, "w1") && strstr (b, "2026-06-09T14:00:00.000Z"), "%s", out);
    cr_expect (a && strstr (a, "2026-06-09T15:00:00.000Z"), "%s", out);
    free (out);

    out = dlqctl_expect (&d, "ckpt ls --prefix app. --limit 2", 0, "");
    cr_expect_eq (dlqctl_lines (out), 4, "header, 2 rows, next cursor: %s", out);
    cr_expect (strstr (out, "\nnext cursor: ") != NULL && !strstr (out, "app.c"), "%s", out);
    free (out);
    out = dlqctl_expect (&d, "ckpt ls -p app. -n 2 --all", 0, "");
    cr_expect_eq (dlqctl_lines (out), 4, "header and 3 rows: %s", out);
    cr_expect (strstr (out, "app.c") && !strstr (out, "other") && !strstr (out, "next cursor"), "%s", out);
    free (out);
    out = dlqctl_expect (&d, "ckpt ls --prefix app. --limit 2 --all --json", 0, "");
    cr_expect_eq (dlqctl_lines (out), 2, "one page per line: %s", out);
    cr_expect (strncmp (out, "{\"checkpoints\":[{\"streamName\":\"app.a\"", 37) == 0, "%s", out);
    free (out);
    out = dlqctl_expect (&d, "ckpt ls --prefix nothing", 0, "");
    cr_expect_str_eq (out, "no checkpoints\n");
    free (out);
}

Test (ckpt_client, dlqctl_ckpt_usage)
{
    free (dlqctl_expect (&d, "ckpt", 64, NULL));
    free (dlqctl_expect (&d, "ckpt frob", 64, NULL));
    free (dlqctl_expect (&d, "ckpt get", 64, NULL));
    free (dlqctl_expect (&d, "ckpt get a b", 64, NULL));
    free (dlqctl_expect (&d, "ckpt delete", 64, NULL));
    free (dlqctl_expect (&d, "ckpt ls --limit 0", 64, NULL));
    free (dlqctl_expect (&d, "ckpt ls --limit 1001", 64, NULL));
    free (dlqctl_expect (&d, "ckpt ls extra", 64, NULL));
    char *out = dlqctl_expect (&d, "ckpt --help", 0, "");
    cr_expect (strstr (out, "usage: dlqctl ckpt get STREAM") != NULL, "%s", out);
    free (out);
    out = dlqctl_expect (&d, "ckpt ls --help", 0, "");
    cr_expect (strstr (out, "--prefix P") != NULL, "%s", out);
    free (out);
    out = dlqctl_expect (&d, "--help", 0, "");
    cr_expect (strstr (out, "ckpt ls [--prefix P]") != NULL, "%s", out);
    free (out);
    char *err;
    cr_expect_eq (dlqctl_on (&d, "-t 200 -e tcp://127.0.0.1:1 ckpt get x", &out, &err), 2, "%s", err);
    free (out);
    free (err);
}
