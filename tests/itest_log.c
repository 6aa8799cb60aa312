/*  itest_log — dlqd as a process: a store that refuses every commit (as a
 *  full disk does: test_dlqd_fill_disk) answers each PUT with UNAVAILABLE, yet its log holds one
 *  ERROR line for the failure, then a count written by the gateway's tick
 *  while nothing else is logged, and the rest of the count at SIGTERM.
 */
#include "test_support.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <zmq.h>

static test_dlqd_t d;

static void
start (void)
{
    memset (&d, 0, sizeof d);
    cr_assert (test_dlqd_start (&d, "spool_preallocate = false;", NULL), "dlqd did not start");  /* test_dlqd_fill_disk */
}

static void stop (void) { test_dlqd_cleanup (&d); }

TestSuite (log, .init = start, .fini = stop, .timeout = 120);

#define FAILURE "File too large"

/* n PUTs one after the other over one DEALER (so each is its own commit);
 * every reply must be ERR UNAVAILABLE. */
static void
put_refused (int n)
{
    void *ctx = zmq_ctx_new ();
    void *s = zmq_socket (ctx, ZMQ_DEALER);
    int linger = 0, timeout = 5000;
    zmq_setsockopt (s, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt (s, ZMQ_RCVTIMEO, &timeout, sizeof timeout);
    cr_assert_eq (zmq_connect (s, d.endpoint), 0);
    static const char body [] = "{\"streamName\":\"orders\",\"error\":{\"type\":\"T\"}}";
    for (int i = 0; i < n; i++) {
        zmq_send (s, "PUT", 3, ZMQ_SNDMORE);
        zmq_send (s, &i, sizeof i, ZMQ_SNDMORE);
        zmq_send (s, body, sizeof body - 1, 0);
        char status [8] = "", reply [512] = "";
        int sn = zmq_recv (s, status, sizeof status - 1, 0);
        cr_assert_gt (sn, 0, "PUT %d: no reply", i);
        int rid;
        cr_assert_eq (zmq_recv (s, &rid, sizeof rid, 0), (int) sizeof rid);
        cr_assert_eq (rid, i);
        int rn = zmq_recv (s, reply, sizeof reply - 1, 0);
        cr_assert_geq (rn, 0);
        reply [rn < (int) sizeof reply ? rn : (int) sizeof reply - 1] = '\0';
        cr_assert_str_eq (status, "ERR", "PUT %d: %s", i, reply);
        cr_assert_not_null (strstr (reply, "\"UNAVAILABLE\""), "PUT %d: %s", i, reply);
    }
    zmq_close (s);
    zmq_ctx_term (ctx);
}

typedef struct {
    int                full;       /* lines of the failure without a count */
    int                counts;     /* lines of the failure with a count */
    unsigned long long counted;    /* the sum of those counts */
} tally_t;

/* The failure's lines in dlqd's log so far ("ERROR commit of N events and
 * M ledger updates failed: ..."). */
static tally_t
tally (void)
{
    tally_t t = { 0, 0, 0 };
    char *log = test_read_file (d.log, NULL);
    cr_assert_not_null (log);
    for (char *line = strtok (log, "\n"); line; line = strtok (NULL, "\n")) {
        if (!strstr (line, " ERROR commit of ") || !strstr (line, FAILURE))
            continue;
        char *count = strstr (line, FAILURE " (repeated ");
        if (count) {
            t.counts++;
            t.counted += strtoull (count + strlen (FAILURE " (repeated "), NULL, 10);
        } else {
            t.full++;
        }
    }
    free (log);
    return t;
}

Test (log, a_store_refusing_every_put_logs_one_line_then_counts)
{
    enum { N = 1000, MORE = 50 };
    test_dlqd_fill_disk (&d, true);        /* every spool write fails, as on a full disk */
    put_refused (N);
    tally_t t = tally ();
    cr_expect_eq (t.full, 1, "one ERROR line for %d refused PUTs, not %d", N, t.full);
    cr_expect_lt (t.counts, 2, "at most one count yet (only if the PUTs took more than 10 s)");

    /* nothing else is logged now: the gateway's tick writes the count once
     * the window has ended (10 s after the first line) */
    for (int i = 0; i < 300 && t.counts == 0; i++) {
        struct timespec ts = { 0, 50000000 };
        nanosleep (&ts, NULL);
        t = tally ();
    }
    char *log = test_read_file (d.log, NULL);
    cr_assert_geq (t.counts, 1, "no count line within 15 s: %.3000s", log);
    free (log);
    cr_expect_eq (t.full, 1);

    /* more in the next window: their count is written at the drain */
    put_refused (MORE);
    cr_expect_eq (tally ().full, 1, "still part of the same flood");
    cr_expect_eq (WEXITSTATUS (test_dlqd_signal_wait (&d, SIGTERM)), 0);
    t = tally ();
    cr_expect_eq (t.full, 1);
    cr_expect_eq (t.full + t.counted, N + MORE, "every refused commit is counted: %d + %llu",
                  t.full, t.counted);
}
