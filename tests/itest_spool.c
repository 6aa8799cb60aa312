/*  itest_spool — the spool under dlqd as a process: after a SIGKILL the
 *  tail a crash tore is cut and reported (log line, STATS) and every
 *  acknowledged event is GET-identical; a record that does not check
 *  before the tail stops dlqd at start with a message naming the segment
 *  and the offset, and leaves the file as it was; an event is GET-able the
 *  moment its PUT is acknowledged, and a resend of it is a duplicate
 *  across a restart (the id index is rebuilt from the store and spool);
 *  the log moves to a zeroed spare once one is ready (STATS
 *  spool.spares), whose zeros are no tail after a kill, and makes none
 *  with gateway.spool_preallocate off.
 */
#include "sink_support.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static test_dlqd_t d;

static void stop (void) { test_dlqd_cleanup (&d); }

TestSuite (spool, .fini = stop, .timeout = 300);

static off_t
file_size (const char *path)
{
    struct stat st;
    cr_assert_eq (stat (path, &st), 0, "%s", path);
    return st.st_size;
}

/* spool.<field> of STATS. */
static int64_t spool_stat (const char *field) { return sink_spool_stat (d.endpoint, field); }

Test (spool, a_torn_tail_is_cut_and_every_acknowledged_event_is_there)
{
    enum { N = 500 };
    cr_assert (test_dlqd_start (&d, NULL, NULL));
    char ids [N][DLQ_UUID_LEN + 1];
    char *stored [N];
    for (int i = 0; i < N; i++) {
        sink_put_minimal (d.endpoint, "torn", ids [i]);
        stored [i] = sink_stored_event (d.endpoint, ids [i]);   /* GET right after the ack */
    }
    int64_t tip = spool_stat ("tip");
    cr_expect_eq (WTERMSIG (test_dlqd_signal_wait (&d, SIGKILL)), SIGKILL);
    /* a crash in the middle of the next write: half a record of garbage
     * where the records end (the segment, made from a zeroed spare, may go
     * on with zeros after them) */
    char path [1000];
    test_dlqd_newest_segment (&d, path, sizeof path);
    int64_t records = tip - strtoll (strrchr (path, '/') + 1, NULL, 10);
    cr_assert_geq (file_size (path), records);
    int fd = open (path, O_WRONLY);
    cr_assert (fd >= 0);
    char junk [777];
    memset (junk, 0x5a, sizeof junk);
    cr_assert_eq (pwrite (fd, junk, sizeof junk, (off_t) records), (ssize_t) sizeof junk);
    close (fd);
    cr_assert (test_dlqd_restart (&d));
    cr_expect_eq (file_size (path), records, "the torn tail is cut");
    char *log = test_read_file (d.log, NULL);
    cr_expect_not_null (strstr (log, "cut a torn tail of 777 bytes"), "%s", log);
    free (log);
    cr_expect_eq (spool_stat ("tornTailBytes"), 777);
    for (int i = 0; i < N; i++) {
        char *now = sink_stored_event (d.endpoint, ids [i]);
        cr_expect_str_eq (now, stored [i], "event %d changed across the crash: %s then %s", i, stored [i], now);
        free (now);
        free (stored [i]);
    }
    cr_expect_eq (sink_count (d.endpoint, "{\"streamName\":\"torn\"}"), N);
}

Test (spool, a_bad_record_before_the_tail_stops_dlqd_naming_segment_and_offset)
{
    /* 25 MB of events: the newest segment is longer than a torn tail can be
     * (the largest write, 4 MiB) and the bad record is not the last */
    cr_assert (test_dlqd_start (&d, NULL, NULL));
    char id [DLQ_UUID_LEN + 1];
    static char body [20000];
    int n = snprintf (body, sizeof body, "{\"streamName\":\"big\",\"error\":{\"type\":\"T\",\"message\":\"");
    memset (body + n, 'm', 16000);
    snprintf (body + n + 16000, sizeof body - (size_t) (n + 16000), "\"}}");
    for (int i = 0; i < 1600; i++)
        sink_put_one (d.endpoint, body, id);
    cr_expect_eq (WEXITSTATUS (test_dlqd_signal_wait (&d, SIGTERM)), 0);
    char path [1000];
    test_dlqd_newest_segment (&d, path, sizeof path);
    off_t size = file_size (path);
    cr_assert_gt (size, 24 * 1000 * 1000);
    int fd = open (path, O_RDWR);
    char b = 0;
    cr_assert_eq (pread (fd, &b, 1, 1000), 1);
    b ^= 0x20;
    cr_assert_eq (pwrite (fd, &b, 1, 1000), 1);
    close (fd);
    cr_expect_not (test_dlqd_restart (&d), "dlqd started on a corrupt spool");
    char *log = test_read_file (d.log, NULL);
    char *segment = strrchr (path, '/') + 1;
    cr_expect_not_null (strstr (log, segment), "the message names the segment: %s", log);
    cr_expect_not_null (strstr (log, "does not check"), "%s", log);
    cr_expect_not_null (strstr (log, "offset "), "%s", log);
    free (log);
    cr_expect_eq (file_size (path), size, "nothing was cut");
}

Test (spool, an_event_is_a_duplicate_across_restarts_whatever_the_index_holds)
{
    cr_assert (test_dlqd_start (&d, NULL, NULL));
    static const char *body = "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-3d4e5f600001\",\"streamName\":\"dup\","
                              "\"error\":{\"type\":\"T\"}}";
    char *reply = sink_request (d.endpoint, "PUT", body, "OK");
    cr_expect_not_null (strstr (reply, "\"duplicate\":false"), "%s", reply);
    free (reply);
    reply = sink_request (d.endpoint, "PUT", body, "OK");
    cr_expect_not_null (strstr (reply, "\"duplicate\":true"), "%s", reply);
    free (reply);
    /* killed before the store may have indexed it, and after */
    for (int round = 0; round < 2; round++) {
        cr_expect_eq (WTERMSIG (test_dlqd_signal_wait (&d, SIGKILL)), SIGKILL);
        cr_assert (test_dlqd_restart (&d));
        reply = sink_request (d.endpoint, "PUT", body, "OK");
        cr_expect_not_null (strstr (reply, "\"duplicate\":true"), "round %d: %s", round, reply);
        free (reply);
    }
    cr_expect_eq (sink_count (d.endpoint, "{\"streamName\":\"dup\"}"), 1);
}

Test (spool, a_dead_sink_at_its_backlog_limit_refuses_puts_naming_it_and_loses_nothing)
{
    cr_assert (test_dlqd_start (&d, NULL, "sinks: { dead: { type = \"scripted\"; down = true; "
                                          "max_backlog_bytes = 100000; }; };"
                                          "defaults: { chain = [ \"dead\" ]; };"));
    enum { MAX = 1000 };
    char ids [MAX][DLQ_UUID_LEN + 1];
    int acked = 0;
    char *refusal = NULL;
    static char body [1400];
    int n = snprintf (body, sizeof body, "{\"streamName\":\"held\",\"error\":{\"type\":\"T\",\"message\":\"");
    memset (body + n, 'h', 1000);
    snprintf (body + n + 1000, sizeof body - (size_t) (n + 1000), "\"}}");
    while (acked < MAX && !refusal) {
        char status [8] = "";
        char *reply = NULL;
        cr_assert (test_request (d.endpoint, "PUT", body, strlen (body), status, &reply));
        if (strcmp (status, "OK") == 0) {
            char *id = sink_reply_text (reply, "id");
            snprintf (ids [acked++], DLQ_UUID_LEN + 1, "%s", id);
            free (id);
            free (reply);
        }
        else
            refusal = reply;
    }
    cr_assert_not_null (refusal, "%d PUTs of 1 KB taken behind a dead sink limited to 100 kB", acked);
    cr_expect_not_null (strstr (refusal, "UNAVAILABLE"), "%s", refusal);
    cr_expect_not_null (strstr (refusal, "sink:dead"), "the refusal names the sink: %s", refusal);
    cr_expect_not_null (strstr (refusal, "max_backlog_bytes"), "%s", refusal);
    free (refusal);
    cr_expect_gt (acked, 50);
    cr_expect_lt (acked, 120, "about 100 kB of records were taken");
    for (int i = 0; i < acked; i++) {
        char *event = sink_stored_event (d.endpoint, ids [i]);
        cr_expect_not_null (strstr (event, ids [i]));
        free (event);
    }
    cr_expect_eq (sink_count (d.endpoint, "{\"streamName\":\"held\"}"), acked, "nothing refused was stored");
}

Test (spool, an_event_as_large_as_the_config_admits_is_stored_whole)
{
    /* 17 MiB: over the spool's first record limit (16 MiB), which acked such
     * a PUT as stored without storing it */
    enum { MESSAGE = 17 << 20 };
    cr_assert (test_dlqd_start (&d, "max_message_bytes = 20971520;", NULL));
    char *body = malloc (MESSAGE + 256);
    int n = snprintf (body, 256, "{\"streamName\":\"huge\",\"error\":{\"type\":\"T\",\"message\":\"");
    memset (body + n, 'q', MESSAGE);
    snprintf (body + n + MESSAGE, 256, "\"}}");
    char status [8] = "";
    char *reply = NULL;
    cr_assert (test_request (d.endpoint, "PUT", body, strlen (body), status, &reply));
    cr_assert_str_eq (status, "OK", "%s", reply);
    char *id = sink_reply_text (reply, "id");
    free (reply);
    char *event = sink_stored_event (d.endpoint, id);
    cr_expect_geq (strlen (event), (size_t) MESSAGE, "GET answers the whole event");
    free (event);
    cr_expect_eq (WTERMSIG (test_dlqd_signal_wait (&d, SIGKILL)), SIGKILL);
    cr_assert (test_dlqd_restart (&d));
    event = sink_stored_event (d.endpoint, id);
    cr_expect_geq (strlen (event), (size_t) MESSAGE, "and again after a crash");
    free (event);
    free (id);
    free (body);
}

Test (spool, a_sink_whose_events_all_failed_holds_no_backlog_and_puts_are_taken_again)
{
    /* every delivery fails fast: two attempts 1 ms apart, then FAILED; the circuit never opens */
    cr_assert (test_dlqd_start (&d, NULL, "sinks: { dead: { type = \"scripted\"; down = true; "
                                          "max_backlog_bytes = 100000; retry = { max_attempts = 2; backoff_ms = 1; "
                                          "backoff_max_ms = 5; }; circuit = { failures = 1000000; }; }; };"
                                          "defaults: { chain = [ \"dead\" ]; };"));
    static char body [1400];
    int n = snprintf (body, sizeof body, "{\"streamName\":\"gone\",\"error\":{\"type\":\"T\",\"message\":\"");
    memset (body + n, 'g', 1000);
    snprintf (body + n + 1000, sizeof body - (size_t) (n + 1000), "\"}}");
    int acked = 0;
    bool refused = false;
    for (int i = 0; i < 3000; i++) {
        char status [8] = "";
        char *reply = NULL;
        cr_assert (test_request (d.endpoint, "PUT", body, strlen (body), status, &reply));
        if (strcmp (status, "OK") == 0)
            acked++;
        else {
            cr_expect_not_null (strstr (reply, "max_backlog_bytes"), "%s", reply);
            refused = true;
            usleep (20 * 1000);         /* the sink fails them; its hold on the spool must follow */
        }
        free (reply);
    }
    /* 3 MB through a sink allowed 100 kB: its failed events hold nothing */
    cr_expect_gt (acked, 2000, "%d of 3000 PUTs taken (refused at some point: %d)", acked, refused);
    cr_expect_eq (sink_wait_stat (d.endpoint, "dead", "failed", acked, 30), acked, "every event ended FAILED");
    char status [8] = "";
    char *reply = NULL;
    cr_assert (test_request (d.endpoint, "PUT", body, strlen (body), status, &reply));
    cr_expect_str_eq (status, "OK", "a PUT once the sink has failed everything: %s", reply);
    free (reply);
}

/* spool.spares.<field> of STATS. */
static int64_t
spares_stat (const char *field)
{
    dlq_json_doc_t *doc = sink_stats (d.endpoint);
    int64_t n = -1;
    const dlq_json_value_t *spares = dlq_json_get (dlq_json_get (dlq_json_root (doc), "spool"), "spares");
    cr_assert (dlq_json_as_int64 (dlq_json_get (spares, field), &n), "STATS has no spool.spares.%s", field);
    dlq_json_doc_destroy (&doc);
    return n;
}

Test (spool, the_log_moves_to_a_zeroed_spare_and_every_event_is_there_after_a_kill)
{
    cr_assert (test_dlqd_start (&d, NULL, NULL));
    char ids [400][DLQ_UUID_LEN + 1];
    char *stored [400];
    int n = 0;
    /* the first segment grows; once a spare is ready the next PUT's sync starts one from it */
    for (int tries = 0; tries < 200 && spares_stat ("taken") < 1; tries++) {
        sink_put_minimal (d.endpoint, "spare", ids [n]);
        stored [n] = sink_stored_event (d.endpoint, ids [n]);
        n++;
        usleep (50 * 1000);
    }
    cr_assert_geq (spares_stat ("taken"), 1, "no segment was started from a spare");
    cr_expect_eq (spares_stat ("failed"), 0);
    for (int i = 0; i < 100; i++, n++) {
        sink_put_minimal (d.endpoint, "spare", ids [n]);
        stored [n] = sink_stored_event (d.endpoint, ids [n]);
    }
    char path [1000];
    test_dlqd_newest_segment (&d, path, sizeof path);
    int64_t records = spool_stat ("tip") - strtoll (strrchr (path, '/') + 1, NULL, 10);
    cr_expect_eq (file_size (path), 64 << 20, "the newest segment is a spare's length");
    cr_expect_lt (records, 64 << 20, "... and holds less than that");
    cr_expect_eq (WTERMSIG (test_dlqd_signal_wait (&d, SIGKILL)), SIGKILL);
    cr_assert (test_dlqd_restart (&d));
    cr_expect_eq (spool_stat ("tornTailBytes"), 0, "zeros past the records are no torn tail");
    for (int i = 0; i < n; i++) {
        char *now = sink_stored_event (d.endpoint, ids [i]);
        cr_expect_str_eq (now, stored [i], "event %d changed across the kill", i);
        free (now);
        free (stored [i]);
    }
    cr_expect_eq (sink_count (d.endpoint, "{\"streamName\":\"spare\"}"), n);
}

Test (spool, without_spares_a_segment_holds_its_records_and_nothing_else)
{
    cr_assert (test_dlqd_start (&d, "spool_preallocate = false;", NULL));
    char id [DLQ_UUID_LEN + 1];
    for (int i = 0; i < 20; i++)
        sink_put_minimal (d.endpoint, "plain", id);
    usleep (300 * 1000);
    sink_put_minimal (d.endpoint, "plain", id);
    cr_expect_eq (spares_stat ("taken") + spares_stat ("missed") + spares_stat ("failed"), 0);
    char path [1000];
    test_dlqd_newest_segment (&d, path, sizeof path);
    cr_expect_eq (file_size (path), spool_stat ("tip") - strtoll (strrchr (path, '/') + 1, NULL, 10));
    char spare [1100];
    snprintf (spare, sizeof spare, "%s/spool/spare.zero", d.data_dir);
    cr_expect_neq (access (spare, F_OK), 0, "no spare is made");
}
