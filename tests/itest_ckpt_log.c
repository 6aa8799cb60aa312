/*  itest_ckpt_log — checkpoint writes on the embedded primary go through
 *  the spool (router/ingest/committer.c, core/checkpoint_record): a write is read
 *  back the moment it is acknowledged; every acknowledged write survives
 *  SIGKILL at once after its ack and is indexed into the store behind;
 *  writes pipelined into one group commit see each other (SEEN keeps what
 *  PROCESSED wrote, a DELETE between removes, a later write starts anew);
 *  a sink over its backlog limit refuses PUTs, not checkpoint writes; and
 *  past gateway.max_checkpoint_bytes a write that grows the checkpoints is
 *  refused and changes nothing, while one that does not is taken.
 */
#include "dlq_alloc.h"
#include "embedded_store.h"
#include "sink_support.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zmq.h>

static test_dlqd_t d;

static void stop (void) { test_dlqd_cleanup (&d); }

TestSuite (ckpt_log, .fini = stop, .timeout = 300);

static void
seen (const char *stream, int n)
{
    char body [256];
    snprintf (body, sizeof body, "{\"streamName\":\"%s\",\"token\":{\"_data\":\"t%d\"},"
              "\"timestamp\":\"2026-01-01T00:00:00.000Z\"}", stream, n);
    free (sink_request (d.endpoint, "CKPT.SEEN", body, "OK"));
}

/* The lastSeenToken's _data of stream's checkpoint ("" when none). */
static char *
seen_token (const char *stream)
{
    char body [128];
    snprintf (body, sizeof body, "{\"streamName\":\"%s\"}", stream);
    char status [8];
    char *reply = NULL;
    cr_assert (test_request (d.endpoint, "CKPT.GET", body, strlen (body), status, &reply), "no reply to CKPT.GET");
    const char *at = strstr (reply, "\"lastSeenToken\":{\"_data\":\"");
    char *token = dlq_strndup ("", 0);
    if (at) {
        at += strlen ("\"lastSeenToken\":{\"_data\":\"");
        free (token);
        token = dlq_strndup (at, strcspn (at, "\""));
    }
    free (reply);
    return token;
}

Test (ckpt_log, a_write_is_read_back_at_once_and_survives_sigkill_right_after_its_ack)
{
    enum { STREAMS = 50, ROUNDS = 20 };
    cr_assert (test_dlqd_start (&d, NULL, NULL));
    char name [64];
    for (int r = 1; r <= ROUNDS; r++)
        for (int s = 0; s < STREAMS; s++) {
            snprintf (name, sizeof name, "orders-%02d", s);
            seen (name, r);
            if (r == ROUNDS && s % 10 == 0) {
                char *token = seen_token (name);
                cr_expect_str_eq (token, "t20", "read back right after the ack");
                free (token);
            }
        }
    /* killed at once: the store may not have indexed the last writes */
    cr_expect_eq (WTERMSIG (test_dlqd_signal_wait (&d, SIGKILL)), SIGKILL);
    cr_assert (test_dlqd_restart (&d));
    for (int s = 0; s < STREAMS; s++) {
        snprintf (name, sizeof name, "orders-%02d", s);
        char *token = seen_token (name);
        cr_expect_str_eq (token, "t20", "%s after SIGKILL", name);
        free (token);
    }
    /* the store has them too once it has indexed the spool to its tip
     * (checkpoint records are no events: indexLagEvents does not count them) */
    bool indexed = false;
    for (int i = 0; i < 200 && !indexed; i++) {
        dlq_json_doc_t *doc = sink_stats (d.endpoint);
        const dlq_json_value_t *spool = dlq_json_get (dlq_json_root (doc), "spool");
        int64_t at = -1, tip = -2;
        dlq_json_as_int64 (dlq_json_get (spool, "indexed"), &at);
        dlq_json_as_int64 (dlq_json_get (spool, "tip"), &tip);
        dlq_json_doc_destroy (&doc);
        indexed = at == tip;
        if (!indexed)
            usleep (50 * 1000);
    }
    cr_expect (indexed, "the store never indexed the spool to its tip");
    int status = test_dlqd_signal_wait (&d, SIGTERM);
    cr_expect (WIFEXITED (status) && WEXITSTATUS (status) == 0, "dlqd did not drain and exit 0");
    char path [1100];
    snprintf (path, sizeof path, "%s/%s", d.data_dir, DLQ_EMBEDDED_FILE);
    sqlite3 *db = NULL;
    cr_assert_eq (sqlite3_open_v2 (path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK, "%s", path);
    sqlite3_stmt *stmt = NULL;
    cr_assert_eq (sqlite3_prepare_v2 (db, "SELECT count(*) FROM checkpoints WHERE last_seen_token LIKE '%t20%'",
                                      -1, &stmt, NULL), SQLITE_OK, "%s", sqlite3_errmsg (db));
    cr_assert_eq (sqlite3_step (stmt), SQLITE_ROW);
    cr_expect_eq (sqlite3_column_int (stmt, 0), STREAMS, "the store's checkpoints table after indexing");
    sqlite3_finalize (stmt);
    sqlite3_close (db);
}

/* Send the requests [verb, body] pipelined on one DEALER (one group
 * commit, as they arrive together), then read their replies in order. */
static void
pipelined (const char *const requests [][2], size_t n, char replies [][512])
{
    void *ctx = zmq_ctx_new ();
    void *s = zmq_socket (ctx, ZMQ_DEALER);
    int linger = 0, timeout = 10000;
    zmq_setsockopt (s, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt (s, ZMQ_RCVTIMEO, &timeout, sizeof timeout);
    cr_assert_eq (zmq_connect (s, d.endpoint), 0);
    for (size_t i = 0; i < n; i++) {
        char id [24];
        snprintf (id, sizeof id, "%zu", i);
        zmq_send (s, requests [i][0], strlen (requests [i][0]), ZMQ_SNDMORE);
        zmq_send (s, id, strlen (id), ZMQ_SNDMORE);
        zmq_send (s, requests [i][1], strlen (requests [i][1]), 0);
    }
    for (size_t got = 0; got < n; got++) {
        char status [8] = "", id [8] = "", body [512] = "";
        int a = zmq_recv (s, status, sizeof status - 1, 0);
        int b = zmq_recv (s, id, sizeof id - 1, 0);
        int c = zmq_recv (s, body, sizeof body - 1, 0);
        cr_assert (a > 0 && b > 0 && c > 0, "reply %zu of %zu", got, n);
        size_t i = (size_t) atoi (id);
        cr_assert_lt (i, n);
        cr_expect_eq (memcmp (status, "OK", 2), 0, "request %zu: %s", i, body);
        snprintf (replies [i], 512, "%s", body);
    }
    zmq_close (s);
    zmq_ctx_term (ctx);
}

Test (ckpt_log, writes_of_one_group_commit_see_each_other)
{
    cr_assert (test_dlqd_start (&d, NULL, NULL));
    static const char *const requests [][2] = {
        { "CKPT.SEEN", "{\"streamName\":\"g\",\"token\":{\"_data\":\"s1\"},\"timestamp\":\"2026-01-01T00:00:00.000Z\"}" },
        { "CKPT.PROCESSED", "{\"streamName\":\"g\",\"token\":{\"_data\":\"p1\"},\"timestamp\":\"2026-01-01T00:00:01.000Z\"}" },
        { "CKPT.DELETE", "{\"streamName\":\"g\"}" },
        { "CKPT.DELETE", "{\"streamName\":\"g\"}" },
        { "CKPT.SEEN", "{\"streamName\":\"g\",\"token\":{\"_data\":\"s2\"},\"timestamp\":\"2026-01-01T00:00:02.000Z\"}" },
    };
    enum { N = sizeof requests / sizeof requests [0] };
    char replies [N][512];
    pipelined (requests, N, replies);
    cr_expect (strstr (replies [0], "\"s1\"") && !strstr (replies [0], "lastProcessedToken"), "%s", replies [0]);
    cr_expect (strstr (replies [1], "\"s1\"") && strstr (replies [1], "\"p1\""), "PROCESSED keeps SEEN: %s",
               replies [1]);
    cr_expect (strstr (replies [2], "\"deleted\":true"), "%s", replies [2]);
    cr_expect (strstr (replies [3], "\"deleted\":false"), "a second DELETE finds none: %s", replies [3]);
    cr_expect (strstr (replies [4], "\"s2\"") && !strstr (replies [4], "\"p1\""), "anew after the DELETE: %s",
               replies [4]);
    /* and so it stays, read back and after a restart */
    for (int round = 0; round < 2; round++) {
        char *got = sink_request (d.endpoint, "CKPT.GET", "{\"streamName\":\"g\"}", "OK");
        cr_expect (strstr (got, "\"s2\"") && !strstr (got, "\"p1\""), "round %d: %s", round, got);
        free (got);
        if (round == 0)
            cr_assert (test_dlqd_restart (&d));
    }
}

Test (ckpt_log, a_sink_over_its_backlog_limit_refuses_puts_but_not_checkpoint_writes)
{
    cr_assert (test_dlqd_start (&d, NULL, "sinks: { dead: { type = \"scripted\"; down = true;"
                                          " max_backlog_bytes = 20000; }; };"
                                          "defaults: { chain = [ \"dead\" ]; };"));
    char *refusal = NULL;
    for (int i = 0; i < 200 && !refusal; i++) {
        char body [256];
        snprintf (body, sizeof body, "{\"streamName\":\"full\",\"error\":{\"type\":\"T\",\"message\":\"%0200d\"}}", i);
        char status [8];
        char *reply = NULL;
        cr_assert (test_request (d.endpoint, "PUT", body, strlen (body), status, &reply), "no reply to a PUT");
        if (strstr (reply, "UNAVAILABLE"))
            refusal = reply;
        else
            free (reply);
    }
    cr_assert_not_null (refusal, "the dead sink never reached its limit");
    free (refusal);
    seen ("still-checkpointing", 7);
    char *token = seen_token ("still-checkpointing");
    cr_expect_str_eq (token, "t7");
    free (token);
}

/* CKPT.SAVE of stream with metadata of about kib KiB: the reply's status. */
static char *
save_with_metadata (const char *stream, int kib, char *status)
{
    size_t len = (size_t) kib * 1024 + 128;
    char *body = malloc (len);
    int n = snprintf (body, len, "{\"streamName\":\"%s\",\"metadata\":{\"pad\":\"", stream);
    memset (body + n, 'm', (size_t) kib * 1024 - 64);
    snprintf (body + n + kib * 1024 - 64, 32, "\"}}");
    char *reply = NULL;
    cr_assert (test_request (d.endpoint, "CKPT.SAVE", body, strlen (body), status, &reply), "no reply to CKPT.SAVE");
    free (body);
    return reply;
}

Test (ckpt_log, past_max_checkpoint_bytes_a_write_that_grows_them_is_refused_and_changes_nothing)
{
    cr_assert (test_dlqd_start (&d, "max_checkpoint_bytes = 1048576;", NULL));
    char name [32], status [8];
    int accepted = 0;
    char *refusal = NULL;
    for (int i = 0; i < 40 && !refusal; i++) {
        snprintf (name, sizeof name, "big-%02d", i);
        char *reply = save_with_metadata (name, 60, status);
        if (strcmp (status, "OK") == 0) {
            accepted++;
            free (reply);
        }
        else
            refusal = reply;
    }
    cr_assert_not_null (refusal, "1 MiB never filled");
    cr_expect (strstr (refusal, "UNAVAILABLE") && strstr (refusal, "max_checkpoint_bytes"), "%s", refusal);
    free (refusal);
    cr_expect_geq (accepted, 15, "about 1 MiB / 60 KiB were taken (%d)", accepted);
    cr_expect_leq (accepted, 17, "no more than 1 MiB / 60 KiB (%d)", accepted);
    /* the refused one changed nothing */
    char body [64], *reply = NULL;
    snprintf (body, sizeof body, "{\"streamName\":\"%s\"}", name);
    cr_assert (test_request (d.endpoint, "CKPT.GET", body, strlen (body), status, &reply));
    cr_expect (strstr (reply, "NOT_FOUND"), "the refused write stored nothing: %s", reply);
    free (reply);
    /* what does not grow them is taken: an update of the same size, a DELETE */
    free (save_with_metadata ("big-00", 60, status));
    cr_expect_str_eq (status, "OK", "an update of the same size");
    free (sink_request (d.endpoint, "CKPT.DELETE", "{\"streamName\":\"big-02\"}", "OK"));
    free (save_with_metadata (name, 60, status));
    cr_expect_str_eq (status, "OK", "after a DELETE a new one fits again");
    /* and the table's accounting survives a restart */
    cr_assert (test_dlqd_restart (&d));
    free (save_with_metadata ("one-more", 60, status));
    cr_expect_str_eq (status, "ERR", "still full after a restart");
}
