/*  sink_support — what the sink integration suites (itest_sinks,
 *  itest_postgres, itest_amqp, ...) ask of a running dlqd: requests that
 *  must succeed, a sink's STATS figures (and waiting for one to reach a
 *  value), members of replies and COUNT, pipelined PUTs that must all be
 *  acked, small events, and a dlqd that must refuse to start.
 *
 *  Every function fails the calling test (Criterion asserts) when the
 *  gateway does not answer as required.
 */
#ifndef SINK_SUPPORT_H
#define SINK_SUPPORT_H

#include "dlq_json.h"
#include "dlq_uuid.h"
#include "test_support.h"

#include <stdbool.h>
#include <stdint.h>

/* verb body on endpoint; the reply's status must be want_status ("OK",
 * "ERR"). Returns the reply body; caller frees. */
char *sink_request (const char *endpoint, const char *verb, const char *body, const char *want_status);

/* GET id; the reply's status must be want_status. Caller frees. */
char *sink_get (const char *endpoint, const char *id, const char *want_status);

/* The integer member of a reply (a JSON object); the test fails when it
 * is not JSON or has no such integer. */
int64_t sink_reply_int (const char *reply, const char *member);

/* The string member of a reply (a JSON object), or NULL when it has none;
 * the test fails when it is not JSON. Caller frees. */
char *sink_reply_text (const char *reply, const char *member);

/* The count COUNT filters answers (it must answer OK). */
int64_t sink_count (const char *endpoint, const char *filters);

/* STATS, parsed; caller destroys. sink_stats_int reads the number
 * sinks.<sink>.<field> of one such reply (the test fails when absent):
 * fields read from one reply are one snapshot, while two sink_stat calls
 * are two, with deliveries and retries moving events in between. */
dlq_json_doc_t *sink_stats (const char *endpoint);
int64_t sink_stats_int (const dlq_json_doc_t *doc, const char *sink, const char *field);

/* sinks.<sink>.<field> of STATS: a number (the test fails when absent), a
 * string ("" when absent or not a string; caller frees), or the plugin's
 * own counter sinks.<sink>.counters.<name> (0 when absent). */
int64_t sink_stat (const char *endpoint, const char *sink, const char *field);
char *sink_text (const char *endpoint, const char *sink, const char *field);
int64_t sink_counter (const char *endpoint, const char *sink, const char *name);

/* spool.<field> of STATS: a number (the test fails when absent). */
int64_t sink_spool_stat (const char *endpoint, const char *field);

/* Poll sinks.<sink>.<field> every 50 ms until it is want, for up to
 * seconds; returns the last value read. */
int64_t sink_wait_stat (const char *endpoint, const char *sink, const char *field, int64_t want, int seconds);

/* Poll sinks.<sink>.lastError until it is set, for up to seconds; returns
 * it ("" when never set); caller frees. */
char *sink_wait_error (const char *endpoint, const char *sink, int seconds);

/* The event of a GET reply, byte for byte: {"event":<here>,"deliveries":...}
 * or {"event":<here>}. Caller frees. */
char *sink_event_of_get (const char *reply);

/* PUT one body, which must be acked OK; its id into id (37 bytes). */
void sink_put_one (const char *endpoint, const char *body, char *id);

/* PUT the smallest event of stream ({"streamName":stream,"error":{"type":"E"}}),
 * which must be acked OK; its id into id (37 bytes). */
void sink_put_minimal (const char *endpoint, const char *stream, char *id);

/* The stored event of id, byte for byte, from GET. Caller frees. */
char *sink_stored_event (const char *endpoint, const char *id);

/* PUT bodies [0, n) pipelined on one socket; every one must be acked OK. */
void sink_put_bodies (const char *endpoint, char *const *bodies, int n);

/* A small event of stream with a fresh UUIDv7 id (into id, 37 bytes),
 * created at created_at (ms), error.message "event <n>", metadata {"n":n}.
 * Caller frees. */
char *sink_small_event (const char *stream, int64_t created_at, int n, char *id);

/* n small events of stream (event i created at first_created_at + i ms),
 * their ids into ids. Free them with sink_free_events. */
char **sink_small_events (const char *stream, int64_t first_created_at, int n, char (*ids) [DLQ_UUID_LEN + 1]);
void sink_free_events (char **bodies, int n);

/* n small events of stream, created from now on, PUT pipelined (every one
 * acked OK); their ids into ids. */
void sink_put_small_events (const char *endpoint, const char *stream, int n, char (*ids) [DLQ_UUID_LEN + 1]);

/* The suite's start call with settings (named in the failure) returned
 * started: dlqd must not have started, and its log must say want. Then d
 * is cleaned up and given a fresh directory for the next start. */
void sink_expect_startup_error (test_dlqd_t *d, bool started, const char *settings, const char *want);

#endif
