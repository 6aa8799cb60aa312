/*  bench_gateway — pipelined PUT clients, reply matching, latency figures.
 *
 *  The request id of a PUT is the event's global index as 4 raw bytes, so a
 *  reply finds its send timestamp in one array look-up. Bodies are sent with
 *  zmq_send_const: they were generated before the run and outlive it, so
 *  the client does not copy 1 KB per request.
 */
#include "bench_gateway.h"

#include "dlq_alloc.h"
#include "dlq_time.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#define MIN_HWM 1000
#define CONNECT_TIMEOUT_MS 5000
#define STATS_TIMEOUT_MS 5000

typedef struct {
    void                   *ctx;
    const char             *endpoint;
    const bench_events_t   *events;
    size_t                  first, end;     /* this client's slice of the events */
    int                     window;
    double                  interval_ns;    /* paced: between two sends of this client; 0: windowed */
    int                     timeout_ms;
    int64_t                *sent_ns;        /* shared arrays; the client touches its slice */
    uint64_t               *latency_ns;
    pthread_barrier_t      *barrier;
    pthread_t               thread;
    int64_t                 start_ns, end_ns;
    bench_gateway_result_t  tally;          /* counts and failure of this client */
} client_t;

typedef struct {
    char   data [1024];
    size_t len;                 /* real frame size (may exceed what was kept) */
    bool   more;
} frame_t;


/* ------------------------------------------------------------------------ */
/* Frames and sockets */

static bench_curve_keys_t curve;         /* every DEALER's keys; none while server is empty */

void
bench_gateway_use_curve (const bench_curve_keys_t *keys)
{
    if (keys)
        curve = *keys;
    else
        memset (&curve, 0, sizeof curve);
}

static void *
new_dealer (void *ctx, const char *endpoint, int window, int timeout_ms)
{
    void *sock = zmq_socket (ctx, ZMQ_DEALER);
    if (curve.server [0]) {
        zmq_setsockopt (sock, ZMQ_CURVE_SERVERKEY, curve.server, 40);
        zmq_setsockopt (sock, ZMQ_CURVE_PUBLICKEY, curve.public_key, 40);
        zmq_setsockopt (sock, ZMQ_CURVE_SECRETKEY, curve.secret_key, 40);
    }
    int hwm = window * 2 > MIN_HWM ? window * 2 : MIN_HWM, linger = 0;
    zmq_setsockopt (sock, ZMQ_SNDHWM, &hwm, sizeof hwm);
    zmq_setsockopt (sock, ZMQ_RCVHWM, &hwm, sizeof hwm);
    zmq_setsockopt (sock, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt (sock, ZMQ_RCVTIMEO, &timeout_ms, sizeof timeout_ms);
    if (zmq_connect (sock, endpoint) != 0) {
        zmq_close (sock);
        return NULL;
    }
    return sock;
}

/* Receive one frame, keeping at most sizeof f->data - 1 bytes (NUL added). */
static bool
recv_frame (void *sock, frame_t *f, int flags)
{
    int n = zmq_recv (sock, f->data, sizeof f->data - 1, flags);
    if (n < 0)
        return false;
    f->len = (size_t) n;
    f->data [f->len < sizeof f->data ? f->len : sizeof f->data - 1] = '\0';
    int more = 0;
    size_t more_len = sizeof more;
    zmq_getsockopt (sock, ZMQ_RCVMORE, &more, &more_len);
    f->more = more != 0;
    return true;
}

/* Receive a whole [status][id][body] reply. Returns 1 on success, 0 when
 * nothing was waiting (or the timeout passed), -1 when the reply was not
 * three frames (the rest of it is drained). */
static int
recv_reply (void *sock, frame_t f [3], int flags)
{
    if (!recv_frame (sock, &f [0], flags))
        return 0;
    int frames = 1;
    bool more = f [0].more;
    while (more) {
        frame_t extra;
        frame_t *slot = frames < 3 ? &f [frames] : &extra;
        if (!recv_frame (sock, slot, 0))
            return -1;
        more = slot->more;
        frames++;
    }
    return frames == 3 ? 1 : -1;
}


/* ------------------------------------------------------------------------ */
/* Tallies */

/* Record the first failure of a client: what went wrong, plus detail
 * (a reply body, an error string; may be ""). */
static void
set_failure (bench_gateway_result_t *r, const char *what, const char *detail)
{
    if (r->failed)
        return;
    r->failed = true;
    snprintf (r->failure, sizeof r->failure, "%s%s%.160s", what, detail [0] ? ": " : "", detail);
}

/* Add n replies with ERR code to the per-code counts; past BENCH_ERR_KINDS
 * distinct codes, the last slot becomes "other". */
static void
add_error_code (bench_gateway_result_t *r, const char *code, size_t n)
{
    size_t i = 0;
    while (i < BENCH_ERR_KINDS - 1 && r->err_code [i][0] && strcmp (r->err_code [i], code) != 0)
        i++;
    if (!r->err_code [i][0])
        snprintf (r->err_code [i], sizeof r->err_code [i], "%s", code);
    else
    if (strcmp (r->err_code [i], code) != 0)
        snprintf (r->err_code [i], sizeof r->err_code [i], "other");
    r->err_count [i] += n;
    r->errors += n;
}

/* Count an ERR reply by the code in its body {"code":"...",...}. */
static void
count_error (bench_gateway_result_t *r, const char *body)
{
    char code [32] = "?";
    const char *p = strstr (body, "\"code\":\"");
    if (p) {
        p += 8;
        size_t len = strcspn (p, "\"");
        snprintf (code, sizeof code, "%.*s", (int) (len < 31 ? len : 31), p);
    }
    if (!r->first_err [0])
        snprintf (r->first_err, sizeof r->first_err, "%.255s", body);
    add_error_code (r, code, 1);
}

static void
merge_tally (bench_gateway_result_t *into, const bench_gateway_result_t *from)
{
    into->ok += from->ok;
    into->duplicates += from->duplicates;
    for (size_t i = 0; i < BENCH_ERR_KINDS && from->err_code [i][0]; i++)
        add_error_code (into, from->err_code [i], from->err_count [i]);
    if (!into->first_err [0])
        snprintf (into->first_err, sizeof into->first_err, "%s", from->first_err);
    if (from->failed)
        set_failure (into, from->failure, "");
}


/* ------------------------------------------------------------------------ */
/* One client */

/* Send PUT i, its latency counted from sent_ns (now, or its due time). */
static bool
send_put (client_t *c, void *sock, size_t i, int64_t sent_ns)
{
    uint32_t id = (uint32_t) i;
    c->sent_ns [i] = sent_ns;
    return zmq_send (sock, "PUT", 3, ZMQ_SNDMORE) == 3
        && zmq_send (sock, &id, sizeof id, ZMQ_SNDMORE) == sizeof id
        && zmq_send_const (sock, c->events->bodies [i], c->events->body_lens [i], 0) >= 0;
}

/* Account one reply; false when it cannot belong to an outstanding PUT. */
static bool
take_reply (client_t *c, const frame_t f [3])
{
    uint32_t id;
    if (f [1].len != sizeof id) {
        set_failure (&c->tally, "reply with a request id of unexpected size", f [2].data);
        return false;
    }
    memcpy (&id, f [1].data, sizeof id);
    if (id < c->first || id >= c->end || c->sent_ns [id] == 0 || c->latency_ns [id] != 0) {
        set_failure (&c->tally, "reply to a request that is not outstanding", f [2].data);
        return false;
    }
    c->latency_ns [id] = (uint64_t) (dlq_time_mono_ns () - c->sent_ns [id]);
    if (strcmp (f [0].data, "OK") == 0) {
        c->tally.ok++;
        c->tally.duplicates += strstr (f [2].data, "\"duplicate\":true") != NULL;
    }
    else
        count_error (&c->tally, f [2].data);
    return true;
}

/* Wait for one reply (blocking up to the timeout), then take every reply
 * already waiting. Returns how many were taken, or -1 on failure. */
static long
collect_replies (client_t *c, void *sock)
{
    frame_t f [3];
    long taken = 0;
    int flags = 0, rc;
    while ((rc = recv_reply (sock, f, flags)) == 1) {
        if (!take_reply (c, f))
            return -1;
        taken++;
        flags = ZMQ_DONTWAIT;
    }
    if (rc < 0)
        set_failure (&c->tally, "a reply that is not 3 frames", "");
    else
    if (taken == 0)
        set_failure (&c->tally, "no reply within the timeout", "");
    return rc < 0 || taken == 0 ? -1 : taken;
}

/* The timed part: keep the window full until every PUT is acked. */
static void
pump (client_t *c, void *sock)
{
    size_t next = c->first, acked = 0, total = c->end - c->first, in_flight = 0;
    while (acked < total) {
        while (in_flight < (size_t) c->window && next < c->end) {
            if (!send_put (c, sock, next, dlq_time_mono_ns ())) {
                set_failure (&c->tally, "send failed", zmq_strerror (zmq_errno ()));
                return;
            }
            next++;
            in_flight++;
        }
        long got = collect_replies (c, sock);
        if (got < 0)
            return;
        acked += (size_t) got;
        in_flight -= (size_t) got;
    }
}

/* Wait until sock has a message to read or timeout_ns passed; true when
 * it has one. zmq_poll counts in whole milliseconds, which would add up
 * to 1 ms to a paced send and to the reply read while it waits: this
 * waits on the socket's notification fd with ppoll's nanoseconds
 * instead, checking ZMQ_EVENTS first as that fd is edge-triggered. */
static bool
wait_readable (void *sock, int64_t timeout_ns)
{
    int events = 0, fd = -1;
    size_t len = sizeof events;
    if (zmq_getsockopt (sock, ZMQ_EVENTS, &events, &len) == 0 && (events & ZMQ_POLLIN))
        return true;
    if (timeout_ns <= 0)
        return false;
    len = sizeof fd;
    if (zmq_getsockopt (sock, ZMQ_FD, &fd, &len) != 0)
        return false;
    struct pollfd item = { .fd = fd, .events = POLLIN };
    struct timespec wait = { timeout_ns / 1000000000, timeout_ns % 1000000000 };
    ppoll (&item, 1, &wait, NULL);
    len = sizeof events;
    return zmq_getsockopt (sock, ZMQ_EVENTS, &events, &len) == 0 && (events & ZMQ_POLLIN);
}

/* The timed part, paced: PUT k of the slice is due at start + k x
 * interval, sent then whatever the replies; replies are taken while
 * waiting for the next due time (to the nanosecond: wait_readable). */
static void
pump_paced (client_t *c, void *sock)
{
    size_t next = c->first, acked = 0, total = c->end - c->first;
    int64_t last_reply = dlq_time_mono_ns ();
    while (acked < total) {
        int64_t now = dlq_time_mono_ns (), due = 0;
        while (next < c->end
           &&  (due = c->start_ns + (int64_t) ((double) (next - c->first) * c->interval_ns)) <= now) {
            if (!send_put (c, sock, next, due)) {
                set_failure (&c->tally, "send failed", zmq_strerror (zmq_errno ()));
                return;
            }
            next++;
        }
        int64_t wait_ns = next < c->end ? due - now : (int64_t) c->timeout_ms * 1000000;
        if (!wait_readable (sock, wait_ns))
            continue;
        frame_t f [3];
        int rc;
        while ((rc = recv_reply (sock, f, ZMQ_DONTWAIT)) == 1) {
            if (!take_reply (c, f))
                return;
            acked++;
            last_reply = dlq_time_mono_ns ();
        }
        if (rc < 0) {
            set_failure (&c->tally, "a reply that is not 3 frames", "");
            return;
        }
        if (dlq_time_mono_ns () - last_reply > (int64_t) c->timeout_ms * 1000000 && next == c->end) {
            set_failure (&c->tally, "no reply within the timeout", "");
            return;
        }
    }
}

/* Connected means a PING came back within CONNECT_TIMEOUT_MS. */
static bool
await_connection (client_t *c, void *sock)
{
    frame_t f [3];
    zmq_pollitem_t item = { sock, 0, ZMQ_POLLIN, 0 };
    if (zmq_send (sock, "PING", 4, ZMQ_SNDMORE) != 4 || zmq_send (sock, "", 0, ZMQ_SNDMORE) != 0
    ||  zmq_send (sock, "", 0, 0) != 0 || zmq_poll (&item, 1, CONNECT_TIMEOUT_MS) != 1
    ||  recv_reply (sock, f, 0) != 1) {
        set_failure (&c->tally, "no PING reply before the run", c->endpoint);
        return false;
    }
    return true;
}

static void *
client_main (void *arg)
{
    client_t *c = arg;
    void *sock = new_dealer (c->ctx, c->endpoint, c->window, c->timeout_ms);
    bool ready = sock && await_connection (c, sock);
    if (!sock)
        set_failure (&c->tally, "cannot connect", c->endpoint);
    pthread_barrier_wait (c->barrier);
    c->start_ns = dlq_time_mono_ns ();
    if (ready && c->interval_ns > 0)
        pump_paced (c, sock);
    else
    if (ready)
        pump (c, sock);
    c->end_ns = dlq_time_mono_ns ();
    if (sock)
        zmq_close (sock);
    return NULL;
}


/* ------------------------------------------------------------------------ */
/* The run */

static client_t *
make_clients (void *ctx, const char *endpoint, const bench_events_t *events, int clients,
              int window, double rate, int timeout_ms, int64_t *sent_ns, uint64_t *latency_ns,
              pthread_barrier_t *barrier)
{
    client_t *all = dlq_calloc ((size_t) clients, sizeof *all);
    for (int i = 0; i < clients; i++) {
        client_t *c = &all [i];
        c->ctx = ctx;
        c->endpoint = endpoint;
        c->events = events;
        c->first = events->count * (size_t) i / (size_t) clients;
        c->end = events->count * (size_t) (i + 1) / (size_t) clients;
        c->window = window;
        c->interval_ns = rate > 0 ? 1e9 * clients / rate : 0;
        c->timeout_ms = timeout_ms;
        c->sent_ns = sent_ns;
        c->latency_ns = latency_ns;
        c->barrier = barrier;
    }
    return all;
}

/* The windowed run (rate 0) or the paced one. */
static bool
run_clients (void *zmq_ctx, const char *endpoint, const bench_events_t *events, int clients, int window,
             double rate, int reply_timeout_ms, bench_gateway_result_t *result)
{
    memset (result, 0, sizeof *result);
    result->latency_ns = dlq_calloc (events->count, sizeof *result->latency_ns);
    int64_t *sent_ns = dlq_calloc (events->count, sizeof *sent_ns);
    pthread_barrier_t barrier;
    pthread_barrier_init (&barrier, NULL, (unsigned) clients);
    client_t *all = make_clients (zmq_ctx, endpoint, events, clients, window, rate, reply_timeout_ms,
                                  sent_ns, result->latency_ns, &barrier);
    for (int i = 0; i < clients; i++)
        pthread_create (&all [i].thread, NULL, client_main, &all [i]);
    int64_t start = INT64_MAX, end = 0;
    for (int i = 0; i < clients; i++) {
        pthread_join (all [i].thread, NULL);
        start = all [i].start_ns < start ? all [i].start_ns : start;
        end = all [i].end_ns > end ? all [i].end_ns : end;
        merge_tally (result, &all [i].tally);
    }
    result->seconds = (double) (end - start) / 1e9;
    result->end_ns = end;
    pthread_barrier_destroy (&barrier);
    free (all);
    free (sent_ns);
    return !result->failed;
}

bool
bench_gateway_run (void *zmq_ctx, const char *endpoint, const bench_events_t *events,
                   int clients, int window, int reply_timeout_ms,
                   bench_gateway_result_t *result)
{
    return run_clients (zmq_ctx, endpoint, events, clients, window, 0, reply_timeout_ms, result);
}

bool
bench_gateway_run_paced (void *zmq_ctx, const char *endpoint, const bench_events_t *events,
                         int clients, double rate, int reply_timeout_ms, bench_gateway_result_t *result)
{
    return run_clients (zmq_ctx, endpoint, events, clients, 1, rate, reply_timeout_ms, result);
}

void
bench_gateway_result_free (bench_gateway_result_t *result)
{
    free (result->latency_ns);
    result->latency_ns = NULL;
}

static int
compare_u64 (const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *) a, y = *(const uint64_t *) b;
    return (x > y) - (x < y);
}

void
bench_latency_summary (uint64_t *latency_ns, size_t n, double *p50_ms, double *p99_ms, double *max_ms)
{
    qsort (latency_ns, n, sizeof *latency_ns, compare_u64);
    size_t zeros = 0;
    while (zeros < n && latency_ns [zeros] == 0)
        zeros++;
    const uint64_t *acked = latency_ns + zeros;
    size_t count = n - zeros;
    *p50_ms = *p99_ms = *max_ms = 0;
    if (count == 0)
        return;
    /* nearest rank: the smallest value with at least q of the samples at or below it */
    size_t r50 = (count * 50 + 99) / 100, r99 = (count * 99 + 99) / 100;
    *p50_ms = (double) acked [r50 ? r50 - 1 : 0] / 1e6;
    *p99_ms = (double) acked [r99 ? r99 - 1 : 0] / 1e6;
    *max_ms = (double) acked [count - 1] / 1e6;
}


/* ------------------------------------------------------------------------ */
/* One-shot requests */

static bool
send_request (void *sock, const char *verb, const char *id, const char *body)
{
    return zmq_send (sock, verb, strlen (verb), ZMQ_SNDMORE) >= 0
        && zmq_send (sock, id, strlen (id), ZMQ_SNDMORE) >= 0
        && zmq_send (sock, body, strlen (body), 0) >= 0;
}

/* Receive the reply waiting on sock as messages: [status][request id][body]
 * (the caller closes all three). 1 on success, -1 when it was not three
 * frames (the rest of it drained, nothing left open). */
static int
recv_reply_msgs (void *sock, zmq_msg_t msgs [3])
{
    for (int i = 0; i < 3; i++)
        zmq_msg_init (&msgs [i]);
    int frames = 0;
    bool more = true;
    while (more) {
        zmq_msg_t extra;
        zmq_msg_init (&extra);
        zmq_msg_t *slot = frames < 3 ? &msgs [frames] : &extra;
        if (zmq_msg_recv (slot, sock, 0) < 0) {
            zmq_msg_close (&extra);
            break;
        }
        more = zmq_msg_more (slot);
        zmq_msg_close (&extra);
        frames++;
    }
    if (frames == 3 && !more)
        return 1;
    for (int i = 0; i < 3; i++)
        zmq_msg_close (&msgs [i]);
    return -1;
}

static bool
msg_equals (zmq_msg_t *msg, const char *text)
{
    return zmq_msg_size (msg) == strlen (text) && memcmp (zmq_msg_data (msg), text, strlen (text)) == 0;
}

/* Take one waiting reply. 1 when it answers request id (*ok and the body
 * are set; *body is malloc'd), 0 when it answers another request (dropped),
 * -1 when malformed. */
static int
take_call_reply (void *sock, const char *id, bool *ok, char **body)
{
    zmq_msg_t msgs [3];
    if (recv_reply_msgs (sock, msgs) != 1)
        return -1;
    int rc = msg_equals (&msgs [1], id);
    if (rc) {
        size_t len = zmq_msg_size (&msgs [2]);
        *ok = msg_equals (&msgs [0], "OK");
        *body = dlq_malloc (len + 1);
        memcpy (*body, zmq_msg_data (&msgs [2]), len);
        (*body) [len] = '\0';
    }
    for (int i = 0; i < 3; i++)
        zmq_msg_close (&msgs [i]);
    return rc;
}

bool
bench_gateway_call (void *zmq_ctx, const char *endpoint, const char *verb, const char *body,
                    int timeout_ms, int retry_ms, bool (*alive) (void *), void *alive_arg,
                    bool *ok, char *reply, size_t reply_len)
{
    void *sock = new_dealer (zmq_ctx, endpoint, 1, timeout_ms);
    if (!sock)
        return false;
    int64_t deadline = dlq_time_mono_ms () + timeout_ms;
    bool answered = false;
    if (reply_len)
        reply [0] = '\0';
    while (!answered && dlq_time_mono_ms () < deadline) {
        if (!send_request (sock, verb, "call", body))
            break;
        zmq_pollitem_t item = { sock, 0, ZMQ_POLLIN, 0 };
        if (zmq_poll (&item, 1, retry_ms) > 0) {
            char *text = NULL;
            answered = take_call_reply (sock, "call", ok, &text) == 1;
            if (answered && reply_len)
                snprintf (reply, reply_len, "%s", text);
            free (text);
        }
        else
        if (alive && !alive (alive_arg))
            break;
    }
    zmq_close (sock);
    return answered;
}

void *
bench_gateway_connect (void *zmq_ctx, const char *endpoint)
{
    return new_dealer (zmq_ctx, endpoint, 1, CONNECT_TIMEOUT_MS);
}

bool
bench_gateway_request (void *sock, const char *verb, const char *body, int timeout_ms,
                       bool *ok, char **reply)
{
    static unsigned long next_id;
    char id [32];
    snprintf (id, sizeof id, "req-%lu", ++next_id);
    *reply = NULL;
    if (!send_request (sock, verb, id, body))
        return false;
    int64_t deadline = dlq_time_mono_ms () + timeout_ms;
    while (true) {
        int64_t left = deadline - dlq_time_mono_ms ();
        zmq_pollitem_t item = { sock, 0, ZMQ_POLLIN, 0 };
        if (left <= 0 || zmq_poll (&item, 1, (long) left) <= 0)
            return false;
        int rc = take_call_reply (sock, id, ok, reply);
        if (rc != 0)
            return rc == 1;
    }
}

char *
bench_gateway_stats (void *sock, bool *ok, char *err, size_t err_len)
{
    char *body = NULL;
    if (bench_gateway_request (sock, "STATS", "", STATS_TIMEOUT_MS, ok, &body))
        return body;
    snprintf (err, err_len, "no STATS reply within %d ms", STATS_TIMEOUT_MS);
    free (body);
    return NULL;
}

bool
bench_gateway_preload (void *zmq_ctx, const char *endpoint, size_t count, size_t chunk, uint64_t seed,
                       int clients, int window, int reply_timeout_ms, const char *program, double *seconds_out)
{
    int64_t start = dlq_time_mono_ms ();
    for (size_t done = 0, k = 0; done < count; k++) {
        size_t n = count - done < chunk ? count - done : chunk;
        char err [512];
        bench_events_t *events = bench_events_generate (n, seed + k, BENCH_IDS_V7, err, sizeof err);
        if (!events) {
            fprintf (stderr, "%s: %s\n", program, err);
            return false;
        }
        bench_gateway_result_t r;
        bool ok = bench_gateway_run (zmq_ctx, endpoint, events, clients, window, reply_timeout_ms, &r)
               && r.errors == 0;
        if (!ok)
            fprintf (stderr, "%s: preload: %s (%zu OK, %zu ERR%s%s)\n", program,
                     r.failed ? r.failure : "ERR replies", r.ok, r.errors, r.first_err [0] ? ", first: " : "",
                     r.first_err);
        bench_gateway_result_free (&r);
        bench_events_destroy (&events);
        if (!ok)
            return false;
        done += n;
        fprintf (stderr, "\r%s: preloaded %zu of %zu events", program, done, count);
    }
    fprintf (stderr, "\n");
    *seconds_out = (double) (dlq_time_mono_ms () - start) / 1000.0;
    return true;
}

void
bench_gateway_figures (bench_gateway_result_t *g, size_t count, double *eps, double *p50_ms, double *p99_ms,
                       double *seconds)
{
    double max_ms;
    bench_latency_summary (g->latency_ns, count, p50_ms, p99_ms, &max_ms);
    *seconds = g->seconds;
    *eps = g->seconds > 0 ? (double) g->ok / g->seconds : 0;
    bench_gateway_result_free (g);
}
