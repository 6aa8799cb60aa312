/*  itest_upgrade — a data_dir written before the spool (the embedded
 *  store alone: events, a sink's cursor and a retrying delivery, a
 *  checkpoint; made here with the store's own calls, the ledger's rows
 *  with SQL into its tables, as the previous releases' committer wrote
 *  them) is taken over on the first start with
 *  nothing lost: the sink's backlog and its retry are delivered (those
 *  its attempted marker in the ledger covered counted as redelivered), every
 *  stored event is GET-identical and a duplicate when sent again, the
 *  checkpoint is there, and new events go through the spool after them.
 *  A paused replay job in the store's file (where releases before the
 *  daemon's state file kept them) is listed and can be resumed.
 */
#include "checkpoint.h"
#include "dlq_json.h"
#include "dlq_time.h"
#include "embedded_store.h"
#include "failed_event.h"
#include "sink_support.h"
#include "store_support.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OLD_JOB "0190f1d2-6c4e-7a01-9b2c-000000000001"

enum { STORED = 300, CURSOR = 200, ATTEMPTED = 250, RETRYING = 150, FRESH = 20 };

static test_dlqd_t d;
static char record [600];

static void stop (void) { test_dlqd_cleanup (&d); }

TestSuite (upgrade, .fini = stop, .timeout = 180);

static char *
event_id (int i)
{
    static char id [64];
    snprintf (id, sizeof id, "0190f1d2-6c4e-7a01-8b2c-%012d", i);
    return id;
}

/* The data_dir of before the spool: what its committer wrote. */
static void
make_old_data_dir (void)
{
    char err [512] = "";
    mkdir (d.data_dir, 0750);
    dlq_embedded_t *store = dlq_embedded_open (d.data_dir, DLQ_EMBEDDED_WRITER, err, sizeof err);
    cr_assert_not_null (store, "%s", err);
    dlq_event_t *events [STORED];
    for (int i = 0; i < STORED; i++) {
        char body [256];
        snprintf (body, sizeof body, "{\"id\":\"%s\",\"streamName\":\"up\",\"error\":{\"type\":\"T\","
                  "\"message\":\"event %d\"},\"createdAt\":\"2099-01-01T00:00:00.000Z\"}", event_id (i + 1), i + 1);
        dlq_error_t e;
        events [i] = dlq_event_decode (body, strlen (body), dlq_time_now_ms (), &e);
        cr_assert_not_null (events [i], "%s", e.message);
        dlq_event_fingerprint (events [i]);
        dlq_event_encode (events [i]);
    }
    bool duplicate [STORED];
    int64_t last = 0;
    cr_assert_eq (dlq_embedded_commit_all (store, events, STORED, duplicate, NULL, 0, &last, err, sizeof err),
                  DLQ_STORE_OK, "%s", err);
    cr_assert_eq (last, STORED, "seqs 1..%d", STORED);
    /* sink rec handled everything up to seq CURSOR and had sent up to
     * ATTEMPTED when it stopped (the marker in the ledger, where releases
     * before the marker files kept it); seq RETRYING waits for a retry */
    char ledger [512];
    snprintf (ledger, sizeof ledger, "INSERT INTO sink_state VALUES ('rec', %d, %d, %d, 0, 0);"
              "INSERT INTO deliveries VALUES ('rec', %d, 'retrying', 1, 'was down', %lld, %lld)",
              CURSOR, ATTEMPTED, CURSOR - 1, RETRYING, (long long) dlq_time_now_ms (), (long long) dlq_time_now_ms ());
    /* a checkpoint */
    static const char ckpt [] = "{\"streamName\":\"up\",\"lastSeenToken\":{\"_data\":\"old-token\"}}";
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (ckpt, strlen (ckpt), &doc, NULL), DLQ_JSON_OK);
    dlq_checkpoint_t value;
    dlq_error_t e;
    cr_assert_eq (dlq_checkpoint_parse (DLQ_SINK_CKPT_SAVE, dlq_json_root (doc), &value, &e), DLQ_OK, "%s", e.message);
    dlq_ckpt_write_t write = { .kind = DLQ_SINK_CKPT_SAVE, .record = value.record, .now_ms = dlq_time_now_ms () };
    cr_assert_eq (dlq_embedded_commit_all (store, NULL, 0, NULL, &write, 1, NULL, err, sizeof err),
                  DLQ_STORE_OK, "%s", err);
    dlq_buf_free (&write.reply);
    dlq_checkpoint_clear (&value);
    dlq_json_doc_destroy (&doc);
    for (int i = 0; i < STORED; i++)
        dlq_event_destroy (&events [i]);
    dlq_embedded_destroy (&store);
    test_store_exec (d.data_dir, ledger);
    /* a paused replay job with progress, as REPLAY and the replayer left it */
    char sql [512];
    snprintf (sql, sizeof sql, "INSERT INTO replay_jobs VALUES ('" OLD_JOB "', 'PAUSED',"
              " '{\"target\":\"route\",\"rate\":5,\"ids\":[\"%s\"]}', NULL,"
              " 1, 0, 0, 0, 0, 0, 'was paused', 1781015533500, 1781015533600)", event_id (1));
    test_store_exec (d.data_dir, sql);
}

/* How many lines of the record file name id. */
static int
deliveries_of (const char *text, const char *id)
{
    int n = 0;
    for (const char *p = text; p && (p = strstr (p, id)); p += strlen (id))
        n++;
    return n;
}

Test (upgrade, a_data_dir_from_before_the_spool_is_taken_over_with_nothing_lost)
{
    memset (&d, 0, sizeof d);
    test_tmpdir (d.dir);
    snprintf (d.data_dir, sizeof d.data_dir, "%s/data", d.dir);
    make_old_data_dir ();
    struct stat st;
    char spool [700];
    snprintf (spool, sizeof spool, "%s/spool", d.data_dir);
    cr_assert_neq (stat (spool, &st), 0, "a data_dir from before the spool has none");
    snprintf (record, sizeof record, "%s/record", d.dir);
    char extra [1024];
    snprintf (extra, sizeof extra, "sinks: { rec: { type = \"scripted\"; record_file = \"%s\"; }; };"
              "defaults: { retention_days = 0; chain = [ \"rec\" ]; };", record);
    cr_assert (test_dlqd_start (&d, NULL, extra));
    char fresh [FRESH][DLQ_UUID_LEN + 1];
    for (int i = 0; i < FRESH; i++)
        sink_put_minimal (d.endpoint, "up", fresh [i]);
    /* the old backlog (seq CURSOR+1 .. STORED), the retry, and the new events */
    int64_t want = (STORED - CURSOR) + 1 + FRESH;
    cr_expect_eq (sink_wait_stat (d.endpoint, "rec", "delivered", CURSOR - 1 + want, 60), CURSOR - 1 + want);
    char *text = test_read_file (record, NULL);
    cr_assert_not_null (text);
    for (int i = 1; i <= STORED; i++) {
        int n = deliveries_of (text, event_id (i));
        if (i > CURSOR || i == RETRYING)
            cr_expect_eq (n, 1, "event %d delivered %d times after the upgrade", i, n);
        else
            cr_expect_eq (n, 0, "event %d was delivered before: again %d times", i, n);
    }
    for (int i = 0; i < FRESH; i++)
        cr_expect_eq (deliveries_of (text, fresh [i]), 1, "a new event");
    free (text);
    cr_expect_eq (sink_stat (d.endpoint, "rec", "redelivered"), ATTEMPTED - CURSOR,
                  "the events the old marker covered are counted as sent again");
    /* every old event is there, and a duplicate when sent again */
    for (int i = 1; i <= STORED; i += 37) {
        char *event = sink_stored_event (d.endpoint, event_id (i));
        cr_expect_not_null (strstr (event, event_id (i)), "%s", event);
        free (event);
        char body [256];
        snprintf (body, sizeof body, "{\"id\":\"%s\",\"streamName\":\"up\",\"error\":{\"type\":\"T\"}}", event_id (i));
        char *reply = sink_request (d.endpoint, "PUT", body, "OK");
        cr_expect_not_null (strstr (reply, "\"duplicate\":true"), "event %d sent again: %s", i, reply);
        free (reply);
    }
    cr_expect_eq (sink_count (d.endpoint, "{\"streamName\":\"up\"}"), STORED + FRESH);
    char *ckpt = sink_request (d.endpoint, "CKPT.GET", "{\"streamName\":\"up\"}", "OK");
    cr_expect_not_null (strstr (ckpt, "old-token"), "the checkpoint: %s", ckpt);
    free (ckpt);
    cr_expect_eq (stat (spool, &st), 0, "the new events went through the spool");
    char *jobs = sink_request (d.endpoint, "REPLAY.STATUS", "{}", "OK");
    cr_expect_not_null (strstr (jobs, "\"job\":\"" OLD_JOB "\""), "the old job is listed: %s", jobs);
    cr_expect_not_null (strstr (jobs, "\"state\":\"PAUSED\""), "%s", jobs);
    cr_expect_not_null (strstr (jobs, "\"lastError\":\"was paused\""), "with its progress: %s", jobs);
    free (jobs);
    char *resumed = sink_request (d.endpoint, "REPLAY.RESUME", "{\"job\":\"" OLD_JOB "\"}", "OK");
    cr_expect_not_null (strstr (resumed, "\"state\":\"RUNNING\""), "it can be resumed: %s", resumed);
    free (resumed);
}

Test (upgrade, stats_counts_the_backlog_from_before_the_spool_and_the_new_events_behind_a_dead_sink)
{
    memset (&d, 0, sizeof d);
    test_tmpdir (d.dir);
    snprintf (d.data_dir, sizeof d.data_dir, "%s/data", d.dir);
    make_old_data_dir ();
    cr_assert (test_dlqd_start (&d, NULL, "sinks: { rec: { type = \"scripted\"; down = true; }; };"
                                          "defaults: { retention_days = 0; chain = [ \"rec\" ]; };"));
    char fresh [FRESH][DLQ_UUID_LEN + 1];
    for (int i = 0; i < FRESH; i++)
        sink_put_minimal (d.endpoint, "up", fresh [i]);
    /* the old backlog past the cursor only the store holds, the old retry, the new events in the spool */
    int64_t want = (STORED - CURSOR) + 1 + FRESH;
    dlq_json_doc_t *stats = sink_stats (d.endpoint);
    int64_t backlog = sink_stats_int (stats, "rec", "backlog"), retrying = sink_stats_int (stats, "rec", "retrying");
    dlq_json_doc_destroy (&stats);
    cr_expect_eq (backlog + retrying, want, "backlog %lld + retrying %lld", (long long) backlog, (long long) retrying);
    cr_expect_geq (retrying, 1, "the retry from before the upgrade");
    /* once the dead sink has tried them all, every one waits for a retry */
    cr_expect_eq (sink_wait_stat (d.endpoint, "rec", "backlog", 0, 30), 0);
    cr_expect_eq (sink_stat (d.endpoint, "rec", "retrying"), want);
}
