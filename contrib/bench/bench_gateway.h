/*  bench_gateway — the load generator: pipelined PUTs over DEALER sockets.
 *
 *  Each client thread owns one DEALER and one contiguous slice of the
 *  events. It keeps at most `window` PUTs in flight, matches every reply to
 *  its request by the request id (the event's index, 4 bytes), and records
 *  the send -> ack latency of each event on the monotonic clock. A client
 *  connects and completes a PING before the timed part starts, so
 *  connection set-up is not measured.
 *
 *  Also a one-shot request helper (PING, STATS) for readiness checks and
 *  the post-run sanity check.
 */
#ifndef DLQ_BENCH_GATEWAY_H
#define DLQ_BENCH_GATEWAY_H

#include "bench_events.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CURVE keys of the load's clients (Z85). */
typedef struct {
    char server [41];
    char public_key [41];
    char secret_key [41];
} bench_curve_keys_t;

/* Every socket opened from now on is a CURVE client with keys (NULL: plain
 * again). Not thread-safe: set it between runs. */
void bench_gateway_use_curve (const bench_curve_keys_t *keys);

#define BENCH_ERR_KINDS 8       /* distinct ERR codes counted; more go to "other" */

typedef struct {
    size_t   ok;                /* OK replies */
    size_t   duplicates;        /* OK replies with "duplicate":true */
    size_t   errors;            /* ERR replies */
    char     err_code [BENCH_ERR_KINDS][32];
    size_t   err_count [BENCH_ERR_KINDS];
    char     first_err [256];   /* body of the first ERR reply */
    bool     failed;            /* a client gave up (timeout, bad reply, ...) */
    char     failure [256];     /* why */
    double   seconds;           /* first send to last ack, over all clients */
    int64_t  end_ns;            /* when the last client finished (its last ack), monotonic */
    uint64_t *latency_ns;       /* per event, send -> ack; 0 when never acked */
} bench_gateway_result_t;

/* Run the PUT load: the events split over clients, window in flight per
 * client, reply_timeout_ms without any reply before a client gives up.
 * Fills result (latency_ns is allocated here; free it with
 * bench_gateway_result_free). Returns false when the run did not complete. */
bool bench_gateway_run (void *zmq_ctx, const char *endpoint, const bench_events_t *events,
                        int clients, int window, int reply_timeout_ms,
                        bench_gateway_result_t *result);

/* Run the PUT load at a steady rate instead of a window: the events split
 * over clients, each client sending its next PUT when it is due (every
 * clients / rate seconds) whatever the replies, so that slow acks do not
 * slow the load down, and latency counted from the due time (no
 * coordinated omission). Otherwise as bench_gateway_run. */
bool bench_gateway_run_paced (void *zmq_ctx, const char *endpoint, const bench_events_t *events,
                              int clients, double rate, int reply_timeout_ms,
                              bench_gateway_result_t *result);

void bench_gateway_result_free (bench_gateway_result_t *result);

/* Store count fresh events (bench_events_generate, time-ordered ids, seeds
 * from seed on) through bench_gateway_run, chunk generated at a time, with
 * clients x window in flight; progress on stderr as "program: preloaded N
 * of M events". The seconds it took in *seconds_out; false (the failure
 * on stderr) when a run did not complete or a PUT was answered ERR. */
bool bench_gateway_preload (void *zmq_ctx, const char *endpoint, size_t count, size_t chunk, uint64_t seed,
                            int clients, int window, int reply_timeout_ms, const char *program,
                            double *seconds_out);

/* A run's figures from its result g of count events: events/s of those
 * acknowledged OK, the p50 and p99 ack latency in ms and the seconds it
 * took; then g is freed. */
void bench_gateway_figures (bench_gateway_result_t *g, size_t count, double *eps, double *p50_ms, double *p99_ms,
                            double *seconds);

/* Sort the n latencies in place and give the p50, p99 and max of the
 * non-zero ones (acked events) in milliseconds; all 0 when none was acked. */
void bench_latency_summary (uint64_t *latency_ns, size_t n,
                            double *p50_ms, double *p99_ms, double *max_ms);

/* Send one request [verb][id][body] on a fresh DEALER and wait up to
 * timeout_ms for its reply; the reply body goes to reply (NUL-terminated,
 * truncated to reply_len) and *ok tells OK from ERR. Retries the send every
 * retry_ms while no reply came (the endpoint may not be listening yet);
 * alive, when not NULL, is asked between retries whether to keep trying.
 * False on timeout. */
bool bench_gateway_call (void *zmq_ctx, const char *endpoint, const char *verb, const char *body,
                         int timeout_ms, int retry_ms, bool (*alive) (void *), void *alive_arg,
                         bool *ok, char *reply, size_t reply_len);

/* A DEALER connected to endpoint for repeated requests (a STATS poll), so
 * that polling does not open a connection per request; NULL when it cannot
 * connect. Close it with zmq_close. */
void *bench_gateway_connect (void *zmq_ctx, const char *endpoint);

/* Send [verb][request id][body] on sock (from bench_gateway_connect) and
 * wait up to timeout_ms for its reply, skipping late replies to earlier
 * requests. *reply receives the whole reply body (NUL-terminated; free it)
 * and *ok tells OK from ERR. False on timeout or a malformed reply. */
bool bench_gateway_request (void *sock, const char *verb, const char *body, int timeout_ms,
                            bool *ok, char **reply);

/* STATS on sock (from bench_gateway_connect), waiting up to 5 s: the
 * reply's body (free it), *ok telling OK from ERR; NULL (err says so) when
 * no reply came. */
char *bench_gateway_stats (void *sock, bool *ok, char *err, size_t err_len);

#endif
