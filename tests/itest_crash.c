/*  itest_crash — the durability contract: 4 clients pipeline 20,000 events,
 *  dlqd is killed with SIGKILL mid-stream, restarted, and every event that
 *  was acknowledged must be found with identical content.
 */
#include "test_support.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zmq.h>

enum { CLIENTS = 4, PER_CLIENT = 5000, TOTAL = CLIENTS * PER_CLIENT, WINDOW = 200, KILL_AFTER = 5000 };

static test_dlqd_t d;
static char *bodies [TOTAL];            /* canonical bodies: what GET must return */
static atomic_bool acked [TOTAL];
static atomic_int acked_count;

static void stop (void) { test_dlqd_cleanup (&d); }

TestSuite (crash, .fini = stop, .timeout = 300);

/* Event i in canonical form (the flowwarden-amqp field order, compact), ~700 bytes. */
static char *
make_body (int i)
{
    char filler [480];
    memset (filler, 'a' + i % 26, sizeof filler - 1);
    filler [sizeof filler - 1] = '\0';
    char *body = malloc (1024);
    snprintf (body, 1024,
              "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-%012d\",\"streamName\":\"crash-%d\","
              "\"operationType\":\"UPDATE\",\"documentKey\":{\"_id\":{\"$oid\":\"65f0a1b2c3d4e5f6%08x\"}},"
              "\"fullDocument\":{\"n\":%d,\"note\":\"%s\"},"
              "\"error\":{\"type\":\"com.acme.Timeout\",\"message\":\"call %d timed out\"},"
              "\"attempts\":%d,\"status\":\"PENDING\",\"createdAt\":\"2099-01-01T00:00:%02d.%03dZ\"}",
              i, i % CLIENTS, (unsigned) i, i, filler, i, i % 7, (i / 1000) % 60, i % 1000);
    return body;
}

/* One client: keep WINDOW PUTs in flight until done or dlqd stops answering. */
static void *
client (void *arg)
{
    int first = (int) (intptr_t) arg * PER_CLIENT, next = first, end = first + PER_CLIENT;
    void *ctx = zmq_ctx_new ();
    void *s = zmq_socket (ctx, ZMQ_DEALER);
    int linger = 0;
    zmq_setsockopt (s, ZMQ_LINGER, &linger, sizeof linger);
    zmq_connect (s, d.endpoint);
    int in_flight = 0;
    while (next < end || in_flight > 0) {
        while (next < end && in_flight < WINDOW) {
            zmq_send (s, "PUT", 3, ZMQ_SNDMORE);
            zmq_send (s, &next, sizeof next, ZMQ_SNDMORE);
            zmq_send (s, bodies [next], strlen (bodies [next]), 0);
            next++;
            in_flight++;
        }
        zmq_pollitem_t item = { s, 0, ZMQ_POLLIN, 0 };
        if (zmq_poll (&item, 1, 3000) <= 0)
            break;                      /* dlqd is gone */
        char status [8], body [256];
        int index = -1;
        zmq_recv (s, status, sizeof status, 0);
        zmq_recv (s, &index, sizeof index, 0);
        zmq_recv (s, body, sizeof body, 0);
        in_flight--;
        if (memcmp (status, "OK", 2) == 0 && index >= 0 && index < TOTAL) {
            atomic_store (&acked [index], true);
            atomic_fetch_add (&acked_count, 1);
        }
    }
    zmq_close (s);
    zmq_ctx_term (ctx);
    return NULL;
}

/* GET every acked event over one pipelined socket; returns how many differ. */
static int
verify_acked (int *checked)
{
    void *ctx = zmq_ctx_new ();
    void *s = zmq_socket (ctx, ZMQ_DEALER);
    int linger = 0, timeout = 10000, hwm = 0;
    zmq_setsockopt (s, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt (s, ZMQ_RCVTIMEO, &timeout, sizeof timeout);
    zmq_setsockopt (s, ZMQ_SNDHWM, &hwm, sizeof hwm);
    zmq_connect (s, d.endpoint);
    int sent = 0, mismatches = 0;
    for (int i = 0; i < TOTAL; i++) {
        if (!atomic_load (&acked [i]))
            continue;
        char req [80];
        snprintf (req, sizeof req, "{\"id\":\"0190f1d2-6c4e-7a01-8b2c-%012d\"}", i);
        zmq_send (s, "GET", 3, ZMQ_SNDMORE);
        zmq_send (s, &i, sizeof i, ZMQ_SNDMORE);
        zmq_send (s, req, strlen (req), 0);
        sent++;
    }
    static char reply [4096];
    for (int r = 0; r < sent; r++) {
        char status [8];
        int index = -1;
        cr_assert_geq (zmq_recv (s, status, sizeof status, 0), 0, "GET replies stopped after %d", r);
        zmq_recv (s, &index, sizeof index, 0);
        int n = zmq_recv (s, reply, sizeof reply - 1, 0);
        cr_assert (n > 0 && index >= 0 && index < TOTAL);
        reply [n] = '\0';
        char want [1100];
        snprintf (want, sizeof want, "{\"event\":%s,\"replay\":", bodies [index]);
        if (memcmp (status, "OK", 2) != 0 || strncmp (reply, want, strlen (want)) != 0) {
            if (mismatches++ < 5)
                cr_log_error ("event %d after restart: %.3s %s", index, status, reply);
        }
    }
    *checked = sent;
    zmq_close (s);
    zmq_ctx_term (ctx);
    return mismatches;
}

Test (crash, every_acked_event_survives_sigkill)
{
    for (int i = 0; i < TOTAL; i++)
        bodies [i] = make_body (i);
    memset (&d, 0, sizeof d);
    cr_assert (test_dlqd_start (&d, NULL, "defaults: { retention_days = 0; };"));

    pthread_t threads [CLIENTS];
    for (intptr_t c = 0; c < CLIENTS; c++)
        pthread_create (&threads [c], NULL, client, (void *) c);
    while (atomic_load (&acked_count) < KILL_AFTER)
        usleep (1000);
    test_dlqd_signal_wait (&d, SIGKILL);
    int at_kill = atomic_load (&acked_count);
    for (int c = 0; c < CLIENTS; c++)
        pthread_join (threads [c], NULL);
    int acked_total = atomic_load (&acked_count);
    cr_log_info ("killed with %d acked; %d acked in all of %d sent", at_kill, acked_total, TOTAL);
    cr_expect_lt (acked_total, TOTAL, "the kill came mid-stream");

    cr_assert (test_dlqd_restart (&d), "dlqd restarts on the killed store");
    int checked = 0;
    int mismatches = verify_acked (&checked);
    cr_expect_eq (checked, acked_total);
    cr_expect_eq (mismatches, 0, "%d of %d acked events lost or changed", mismatches, checked);
    for (int i = 0; i < TOTAL; i++)
        free (bodies [i]);
}
