/*  chaos_gateway — talking to the chaos run's dlqd outside the load: one
 *  request at a time on a DEALER (PING, STATS), a sink's figures in a
 *  STATS reply, waiting until every sink has drained, and the reply frames
 *  every part of the run reads.
 */
#ifndef DLQ_CHAOS_GATEWAY_H
#define DLQ_CHAOS_GATEWAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One sink's figures in STATS. */
typedef struct {
    long long backlog, delivered, retrying, failed, redelivered;
    char      circuit [16];
    char      last_error [256];     /* "" when none */
} chaos_sink_stats_t;

/* A DEALER connected to endpoint (linger 0, reconnecting every 20 ms);
 * NULL when it cannot be made. Close it with zmq_close. */
void *chaos_gateway_connect (void *zmq_ctx, const char *endpoint);

/* Send [verb][request id][body] on sock and wait up to timeout_ms for its
 * reply (replies to earlier requests are skipped). *reply gets the body
 * (NUL-terminated; free it), *ok whether the status was OK. False on
 * timeout or a reply that is not three frames. */
bool chaos_gateway_request (void *sock, const char *verb, const char *body, int timeout_ms,
                            bool *ok, char **reply, size_t *reply_len);

/* Receive one reply, waiting at most timeout_ms: its status (*ok), request
 * id (up to id_size bytes; *id_len) and body (*body, NUL-terminated; free
 * it). False when none came, or it was not three frames (then drained). */
bool chaos_gateway_receive (void *sock, int timeout_ms, bool *ok, unsigned char *id,
                            size_t id_size, size_t *id_len, char **body, size_t *body_len);

/* The figures of sink in a STATS reply body; false when they are not there. */
bool chaos_gateway_sink_stats (const char *stats, size_t len, const char *sink,
                               chaos_sink_stats_t *out);

/* Poll STATS on sock every poll_ms until each of the count sinks has
 * backlog 0, retrying 0 and delivered (or failed) every event the
 * primary holds (STATS' "events": every stream's chain names every sink), or
 * deadline_ms (monotonic) passes; out [i] gets sink i's last figures.
 * True when they all drained; else err says what was left. */
bool chaos_gateway_drain (void *sock, const char *const *sinks, size_t count, int64_t deadline_ms,
                          int poll_ms, chaos_sink_stats_t *out, char *err, size_t err_len);

#endif
