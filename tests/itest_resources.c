/*  itest_resources — dlqd's resources stay bounded (docs/protocol.md, "Limits"),
 *  each bound checked against a real dlqd process:
 *    - a client that pipelines 200,000 GETs and 200,000 PUTs and never
 *      reads a reply: dlqd queues at most gateway.reply_hwm replies for
 *      it, drops and counts the rest (STATS repliesDropped: every request
 *      is either answered or counted), and keeps serving other clients;
 *    - 10,000 idle connections: accepted, each costing ZeroMQ's buffers
 *      (under 32 KiB), released when they close; past
 *      gateway.max_connections new ones are closed at once, without the
 *      busy loop ZeroMQ falls into when descriptors run out;
 *    - PUTs of max_message_bytes from several clients with more in flight
 *      than dlqd may hold: the peak stays under the bound of the commit
 *      batches (gateway.commit.max_batch_bytes) and the per-connection
 *      request queues (gateway.request_hwm), and every event is stored.
 *  Clients are plain TCP sockets speaking ZMTP (zmtp_peer.h), so a test
 *  can hold ten thousand of them, or never read. Memory is dlqd's VmRSS
 *  and VmHWM (its peak); under AddressSanitizer, whose shadow memory and
 *  quarantine make RSS meaningless, the figures are printed, not
 *  asserted (everything else is).
 */
#include "dlq_json.h"
#include "proc_support.h"
#include "test_support.h"
#include "zmtp_peer.h"
#include "zmtp_pipeline.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#if defined (__SANITIZE_ADDRESS__)
#define RSS_ASSERTED false
#define FLOOD 50000                 /* requests of each verb: fewer, the build is slower */
#else
#define RSS_ASSERTED true
#define FLOOD 200000
#endif

#define MIB (1024.0 * 1024.0)
#define PROBE_MAX_MS 2000           /* another client's PING during a flood */
#define REPLY_HWM 10000             /* the default gateway.reply_hwm */
#define CONN_KIB_MAX 32             /* RSS one idle connection may cost */

static test_dlqd_t d;

static void stop (void) { test_dlqd_cleanup (&d); }

TestSuite (resources, .fini = stop, .timeout = 600);

static int64_t
mono_ms (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
start (const char *gateway_extra)
{
    memset (&d, 0, sizeof d);
    cr_assert (test_dlqd_start (&d, gateway_extra, NULL), "dlqd did not start");
}

/* One request from a fresh client; its reply body (free it). */
static char *
request (const char *verb, const char *body, const char *want_status)
{
    char status [8];
    char *reply = NULL;
    cr_assert (test_request (d.endpoint, verb, body, strlen (body), status, &reply), "no reply to %s", verb);
    cr_assert_str_eq (status, want_status, "%s -> %s %s", verb, status, reply);
    return reply;
}

/* A number in STATS at path ("connections", "counters.repliesDropped"). */
static int64_t
stats_number (const char *path)
{
    char *reply = request ("STATS", "", "OK");
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (reply, strlen (reply), &doc, NULL), DLQ_JSON_OK);
    const dlq_json_value_t *v = dlq_json_root (doc);
    char key [64];
    for (const char *p = path; v && *p; ) {
        size_t n = strcspn (p, ".");
        snprintf (key, sizeof key, "%.*s", (int) n, p);
        v = dlq_json_get (v, key);
        p += n + (p [n] == '.');
    }
    int64_t n = -1;
    cr_assert (v && dlq_json_as_int64 (v, &n), "STATS has no %s: %s", path, reply);
    dlq_json_doc_destroy (&doc);
    free (reply);
    return n;
}

/* PING from another client; returns how long the answer took (ms). */
static int64_t
probe_ms (void)
{
    int64_t start_ms = mono_ms ();
    free (request ("PING", "", "OK"));
    return mono_ms () - start_ms;
}

/* ---- (a) a client that never reads its replies ------------------------------------ */

/* Read replies from fd until received + STATS repliesDropped == sent. */
static int64_t
read_until_accounted (int fd, int64_t sent, int64_t *dropped_out)
{
    int64_t received = 0, dropped = 0, deadline = mono_ms () + 300000;
    while (mono_ms () < deadline) {
        char *frames [4];
        size_t lens [4];
        int n = zmtp_peer_recv (fd, frames, lens, 4, 200);
        if (n > 0) {
            cr_assert_eq (n, 3, "a reply of %d frames", n);
            cr_assert_str_eq (frames [0], "OK", "%s %s", frames [0], frames [2]);
            for (int i = 0; i < n; i++)
                free (frames [i]);
            received++;
            if (received % 1000 != 0)
                continue;
        }
        dropped = stats_number ("counters.repliesDropped");
        if (received + dropped >= sent)
            break;
    }
    *dropped_out = dropped;
    return received;
}

Test (resources, unread_replies)
{
    start (NULL);
    char filler [1025], event [1400];
    memset (filler, 'f', sizeof filler - 1);
    filler [sizeof filler - 1] = '\0';
    const char *id = "0190f1d2-6c4e-7a01-8b2c-000000000001";
    snprintf (event, sizeof event, "{\"id\":\"%s\",\"streamName\":\"s\",\"fullDocument\":{\"f\":\"%s\"},"
              "\"error\":{\"type\":\"T\",\"message\":\"boom\"}}", id, filler);
    free (request ("PUT", event, "OK"));
    double before = proc_rss_mib (d.pid);
    int fd = zmtp_peer_connect (d.port, 4096);
    cr_assert (fd >= 0, "no ZMTP connection");
    char get [64];
    snprintf (get, sizeof get, "{\"id\":\"%s\"}", id);
    const char *put = "{\"streamName\":\"s\",\"error\":{\"type\":\"T\",\"message\":\"boom\"}}";
    const char *verbs [2] = { "GET", "PUT" }, *bodies [2] = { get, put };
    int64_t worst = 0;
    for (int v = 0; v < 2; v++)
        for (int i = 0; i < FLOOD; i++) {
            const void *frames [3] = { verbs [v], &i, bodies [v] };
            size_t lens [3] = { strlen (verbs [v]), sizeof i, strlen (bodies [v]) };
            cr_assert (zmtp_peer_send (fd, frames, lens, 3, 10000), "dlqd stopped reading at %s %d", verbs [v], i);
            if (i % 10000 == 0) {
                int64_t ms = probe_ms ();
                worst = ms > worst ? ms : worst;
            }
        }
    int64_t deadline = mono_ms () + 300000;
    while (stats_number ("counters.accepted") < FLOOD + 1 && mono_ms () < deadline) {
        int64_t ms = probe_ms ();
        worst = ms > worst ? ms : worst;
        usleep (100 * 1000);
    }
    cr_assert_eq (stats_number ("counters.accepted"), FLOOD + 1, "not every PUT was stored");
    double peak = proc_peak_mib (d.pid), unread = proc_rss_mib (d.pid);
    int64_t dropped = 0, received = read_until_accounted (fd, 2 * FLOOD, &dropped);
    close (fd);
    fprintf (stderr, "unread replies: %d GETs + %d PUTs never read: RSS %.1f MiB before, %.1f unread, peak %.1f "
             "(+%.1f); %lld replies sent, %lld dropped; another client's PING within %lld ms\n", FLOOD, FLOOD,
             before, unread, peak, peak - before, (long long) received, (long long) dropped, (long long) worst);
    cr_expect_eq (received + dropped, 2 * FLOOD, "every request is answered or its reply counted as dropped");
    cr_expect_gt (dropped, 0, "the reply queue never filled: the test did not test the bound");
    cr_expect_leq (worst, PROBE_MAX_MS, "another client waited %lld ms", (long long) worst);
    /* the store's page caches (48 MiB: writer 32, two query readers 8 each),
     * the reply queue (10,000 GET replies of ~1.4 KiB), and 16 MiB to spare */
    if (RSS_ASSERTED)
        cr_expect_leq (peak - before, 48 + REPLY_HWM * 2048 / MIB + 16, "peak RSS grew by %.1f MiB", peak - before);
}

/* ---- (b) idle connections ------------------------------------------------------------ */

/* Is the connection on fd still open (no EOF or reset from dlqd)? */
static bool
still_open (int fd)
{
    char byte;
    ssize_t n = recv (fd, &byte, 1, MSG_DONTWAIT);
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

/* Wait up to ms for STATS "connections" to be at most n; returns it. */
static int64_t
connections_down_to (int64_t n, int ms)
{
    int64_t deadline = mono_ms () + ms, now;
    while ((now = stats_number ("connections")) > n && mono_ms () < deadline)
        usleep (50 * 1000);
    return now;
}

Test (resources, idle_connections)
{
    long limit = proc_raise_nofile ();
    int count = limit - 300 < 10000 ? (int) limit - 300 : 10000;
    if (count < 10000)
        cr_log_warn ("the open files limit is %ld: %d connections instead of 10,000", limit, count);
    cr_assert_gt (count, 100, "too few descriptors for the test");
    start (NULL);
    double before = proc_rss_mib (d.pid);
    int fds_before = proc_open_fds (d.pid);
    int *fds = calloc ((size_t) count, sizeof *fds);
    int64_t t0 = mono_ms ();
    for (int i = 0; i < count; i++) {
        fds [i] = zmtp_peer_connect (d.port, 0);
        cr_assert (fds [i] >= 0, "connection %d was not accepted", i);
    }
    int64_t connect_ms = mono_ms () - t0;
    int64_t connections = stats_number ("connections");
    double held = proc_rss_mib (d.pid);
    int fds_held = proc_open_fds (d.pid);
    int64_t ping_ms = probe_ms ();
    char *reply = request ("PUT", "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-0000000000aa\",\"streamName\":\"s\","
                           "\"error\":{\"type\":\"T\",\"message\":\"idle\"}}", "OK");
    free (reply);
    free (request ("GET", "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-0000000000aa\"}", "OK"));
    for (int i = 0; i < count; i++)
        cr_expect (still_open (fds [i]), "dlqd closed idle connection %d", i);
    for (int i = 0; i < count; i++)
        close (fds [i]);
    free (fds);
    int64_t left = connections_down_to (1, 10000);
    fprintf (stderr, "idle connections: %d in %lld ms; RSS %.1f -> %.1f MiB (%.1f KiB each), descriptors %d -> %d, "
             "PING %lld ms; after closing: %lld connections, %d descriptors\n", count, (long long) connect_ms,
             before, held, (held - before) * 1024 / count, fds_before, fds_held, (long long) ping_ms,
             (long long) left, proc_open_fds (d.pid));
    cr_expect_geq (connections, count, "STATS counts %lld connections", (long long) connections);
    cr_expect_geq (fds_held, fds_before + count - 8, "one descriptor per connection (%d -> %d for %d)",
                   fds_before, fds_held, count);    /* the slack of the check below: a file dlqd had open a moment */
    cr_expect_leq (ping_ms, PROBE_MAX_MS, "PING beside %d idle connections took %lld ms", count, (long long) ping_ms);
    cr_expect_leq (left, 1, "closed connections are still counted");
    cr_expect_leq (proc_open_fds (d.pid), fds_before + 8, "closed connections still hold descriptors");
    if (RSS_ASSERTED)
        cr_expect_leq ((held - before) * 1024, (double) count * CONN_KIB_MAX, "%d connections cost %.1f MiB",
                       count, held - before);
}

Test (resources, connections_past_the_limit)
{
    enum { MAX = 100, TRIED = 150 };
    proc_raise_nofile ();
    start ("max_connections = 100;");
    int fds_before = proc_open_fds (d.pid);
    int fds [TRIED];
    for (int i = 0; i < TRIED; i++) {
        fds [i] = zmtp_peer_tcp_connect (d.port, 0, 5000);
        cr_assert (fds [i] >= 0, "connection %d not even made by the kernel", i);
        zmtp_peer_handshake (fds [i], 200);     /* the ones past the limit may fail it */
    }
    int open = 0;
    for (int64_t deadline = mono_ms () + 10000; mono_ms () < deadline; usleep (50 * 1000)) {
        open = 0;
        for (int i = 0; i < TRIED; i++)
            open += still_open (fds [i]);
        if (open <= MAX)
            break;
    }
    int fds_full = proc_open_fds (d.pid);
    cr_expect_eq (open, MAX, "%d of %d connections open; the limit is %d", open, TRIED, MAX);
    cr_expect_leq (fds_full, fds_before + MAX + 8, "dlqd holds %d descriptors", fds_full);
    int closed = 0;
    for (int i = 0; i < TRIED && closed < 10; i++)
        if (still_open (fds [i])) {
            close (fds [i]);
            fds [i] = -1;
            closed++;
        }
    /* a new client is served once the gateway has seen the closes: the
     * PING may race them (its connection then is one past the limit and
     * closed), so it is sent again, as a client of a full gateway would */
    int64_t ping_start = mono_ms ();
    bool answered = false;
    for (int attempt = 0; attempt < 3 && !answered; attempt++) {
        char status [8];
        char *reply = NULL;
        answered = test_request (d.endpoint, "PING", "", 0, status, &reply) && strcmp (status, "OK") == 0;
        free (reply);
    }
    cr_assert (answered, "no PING answered after closing %d connections", closed);
    int64_t ping_ms = mono_ms () - ping_start;
    int64_t connections = connections_down_to (MAX - closed + 1, 5000);
    fprintf (stderr, "connection limit %d: %d of %d open, descriptors %d -> %d; after closing %d: %lld "
             "connections, PING %lld ms\n", MAX, open, TRIED, fds_before, fds_full, closed, (long long) connections,
             (long long) ping_ms);
    cr_expect_leq (connections, MAX - closed + 1);
    for (int i = 0; i < TRIED; i++)
        if (fds [i] >= 0)
            close (fds [i]);
}

/* ---- (c) PUTs of max_message_bytes at full rate ---------------------------------------- */

enum { BIG_CLIENTS = 4, BIG_PER_CLIENT = 64, BIG_WINDOW = 64, BIG_BYTES = 1048576 };

static const char *big_head = "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-%012lld\",\"streamName\":\"big\","
                              "\"error\":{\"type\":\"T\",\"message\":\"big\"},\"fullDocument\":{\"blob\":\"";

/* Event n: max_message_bytes exactly, a blob of one letter. */
static char *
big_event (void *arg, int64_t n, size_t *len)
{
    (void) arg;
    char *body = malloc (BIG_BYTES);
    int h = snprintf (body, BIG_BYTES, big_head, (long long) n);
    memset (body + h, 'a' + n % 26, BIG_BYTES - (size_t) h - 3);
    memcpy (body + BIG_BYTES - 3, "\"}}", 3);
    *len = BIG_BYTES;
    return body;
}

/* GET event n back: its blob is all there, of its own letter. */
static void
check_big (int n)
{
    char get [64];
    snprintf (get, sizeof get, "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-%012d\"}", n);
    char *reply = request ("GET", get, "OK");
    dlq_json_doc_t *doc = NULL;
    cr_assert_eq (dlq_json_parse (reply, strlen (reply), &doc, NULL), DLQ_JSON_OK);
    const dlq_json_value_t *event = dlq_json_get (dlq_json_root (doc), "event");
    const dlq_json_value_t *blob = dlq_json_get (dlq_json_get (event, "fullDocument"), "blob");
    size_t head = (size_t) snprintf (NULL, 0, big_head, (long long) n);
    cr_assert (blob && blob->type == DLQ_JSON_STRING, "event %d has no blob", n);
    cr_expect_eq (blob->len, BIG_BYTES - head - 3, "event %d: blob of %zu bytes", n, blob->len);
    cr_expect (blob->len > 0 && blob->str [0] == 'a' + n % 26 && blob->str [blob->len - 1] == 'a' + n % 26,
               "event %d: another event's blob", n);
    dlq_json_doc_destroy (&doc);
    free (reply);
}

Test (resources, large_puts)
{
    start (NULL);                       /* max_message_bytes 1 MiB, request_hwm 16, max_batch_bytes 16 MiB */
    double before = proc_rss_mib (d.pid);
    zmtp_pipeline_t *clients [BIG_CLIENTS];
    int64_t t0 = mono_ms ();
    for (int i = 0; i < BIG_CLIENTS; i++) {
        clients [i] = zmtp_pipeline_start (d.port, "PUT", i * BIG_PER_CLIENT, BIG_PER_CLIENT, BIG_WINDOW,
                                           big_event, NULL);
        cr_assert_not_null (clients [i]);
    }
    int64_t ok = 0;
    for (int i = 0; i < BIG_CLIENTS; i++) {
        int64_t client_ok = 0, client_err = 0;
        cr_expect (zmtp_pipeline_finish (&clients [i], &client_ok, &client_err), "client %d was not answered", i);
        ok += client_ok;
    }
    int64_t ms = mono_ms () - t0;
    double peak = proc_peak_mib (d.pid);
    fprintf (stderr, "large PUTs: %d clients x %d PUTs of %d bytes, %d in flight each: %d OK in %lld ms "
             "(%.1f MiB/s); RSS %.1f MiB before, peak %.1f\n", BIG_CLIENTS, BIG_PER_CLIENT, BIG_BYTES, BIG_WINDOW,
             (int) ok, (long long) ms, BIG_CLIENTS * BIG_PER_CLIENT * (BIG_BYTES / MIB) * 1000.0 / (double) (ms ? ms : 1),
             before, peak);
    cr_assert_eq (ok, BIG_CLIENTS * BIG_PER_CLIENT, "not every PUT was acknowledged");
    /* 256 MiB take the embedded store a while to index: STATS counts them once it has */
    for (int64_t deadline = mono_ms () + 120000; stats_number ("spool.indexLagEvents") > 0 && mono_ms () < deadline; )
        usleep (100 * 1000);
    cr_expect_eq (stats_number ("events"), BIG_CLIENTS * BIG_PER_CLIENT);
    for (int n = 0; n < BIG_CLIENTS * BIG_PER_CLIENT; n++)
        check_big (n);
    /* the store's page caches (48 MiB), two commit batches of 16 MiB + one
     * event each, about 2.5x that in memory (decoded + canonical), the
     * spool's copy of one batch as records (17 MiB), the indexer's page of
     * 4 MiB + one event, decoded (2x), the request queues (4 connections x
     * 16 x 1 MiB), 32 MiB to spare: 291 MiB, against the 256 MiB the
     * clients keep in flight and ~1 GiB the gateway peaked at before these
     * bounds */
    if (RSS_ASSERTED)
        cr_expect_leq (peak, 48 + 2 * 17 * 2.5 + 17 + 2 * 5 + BIG_CLIENTS * 16 + 32 + before, "peak RSS %.1f MiB",
                       peak);
}
