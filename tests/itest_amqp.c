/*  itest_amqp — the amqp sink end to end: dlqd as a process with a chain to
 *  a real RabbitMQ node (contrib/scripts/rabbitmq-server.sh), the messages
 *  read back by a real AMQP consumer (support/amqp_consumer.h).
 *
 *    - the message is flowwarden-amqp's: body = the stored event's bytes,
 *      every property and header (kinds included), expiration from the
 *      retention (none for 0, RabbitMQ's ceiling for very long ones);
 *    - a per-stream override routes to its own exchange and routing key;
 *    - mandatory: an unroutable message comes back, is counted, and is
 *      delivered (on_return = "log") or retried (on_return = "retry");
 *    - an exchange that does not exist: its events wait (RETRY) and go as
 *      soon as it exists;
 *    - the broker restarted under load: every event ends up in the queue
 *      (duplicates allowed, counted);
 *    - a broker NACK (a full queue that rejects publishes) and a broker
 *      that stops answering (frozen: no confirm in time) make exactly the
 *      unconfirmed events RETRY, delivered once the broker takes them;
 *    - fire-and-forget (confirm_mode = false) delivers too;
 *    - TLS with the broker's CA and a client certificate; without the CA
 *      the broker's certificate does not verify;
 *    - a REPLAY whose replay_route is an amqp sink in no chain: its exchange
 *      gets each event once, with its lineage;
 *    - bad credentials and a contradictory config stop dlqd at startup.
 *
 *  The node is the one contrib/scripts/test.sh started for the run
 *  (DLQD_TEST_AMQP_URL), else one started for each test (amqp_support.h);
 *  the restart test always starts its own. Each test uses exchanges and
 *  queues of its own and deletes them at the end.
 */
#include "amqp_consumer.h"
#include "amqp_support.h"
#include "dlq_json.h"
#include "dlq_time.h"
#include "dlq_uuid.h"
#include "event_support.h"
#include "sink_support.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SINK        "rabbit"
#define EXAMPLE_ID  "c2e8a5b6-0f1e-4c3a-9b7d-2a1f0e9d8c7b"
#define FETCH_MS    5000

static test_dlqd_t d;
static amqp_server_t server;
static amqp_consumer_t *consumer;
static char exchange [96];          /* the sink's exchange, the test's own */
static char url [256];              /* the sink's url: the node's */

static void
setup (void)
{
    memset (&d, 0, sizeof d);
    memset (&server, 0, sizeof server);
    consumer = NULL;
    test_tmpdir (d.dir);
    amqp_unique_name ("dlqd.test", exchange, sizeof exchange);
}

static void
teardown (void)
{
    test_dlqd_cleanup (&d);
    if (consumer) {
        amqp_consumer_delete_exchange (consumer, exchange);
        amqp_consumer_delete_declared (consumer);
        amqp_consumer_close (consumer);
    }
    amqp_server_stop (&server);
}

TestSuite (amqp, .init = setup, .fini = teardown, .timeout = 300);

/* ---- the broker ------------------------------------------------------------- */

/* The shared node, or (own) a node of the test's own, and a consumer on it. */
static void
connect_server (bool own)
{
    cr_assert (own ? amqp_server_start (&server) : amqp_server_shared (&server),
               "no RabbitMQ node (contrib/scripts/rabbitmq-server.sh failed, see above)");
    consumer = amqp_consumer_connect (server.url);
    cr_assert_not_null (consumer, "cannot connect to %s", server.url);
    snprintf (url, sizeof url, "%s", server.url);
}

/* A durable queue of the test's own bound to exchange_name with pattern
 * (the exchange declared as a topic exchange when declare). */
static void
bind_queue (const char *exchange_name, bool declare, const char *pattern, char *queue, size_t len)
{
    queue [0] = '\0';
    cr_assert (amqp_consumer_bind (consumer, exchange_name, declare ? "topic" : NULL, pattern, queue, len),
               "cannot bind a queue to %s", exchange_name);
}

/* Fetch exactly n messages from queue (and no more within a moment). */
static void
fetch (const char *queue, size_t n, amqp_received_messages_t *out)
{
    cr_assert (amqp_consumer_fetch (consumer, queue, n, FETCH_MS, out), "cannot consume from %s", queue);
    cr_assert_eq (out->count, n, "%s: %zu messages, want %zu", queue, out->count, n);
    cr_expect_eq (amqp_consumer_queue_count (consumer, queue), 0, "%s holds more than %zu messages", queue, n);
}

/* The one message waiting in queue is id's, routed with routing_key (any
 * when NULL). */
static void
expect_only_message (const char *queue, const char *id, const char *routing_key)
{
    amqp_received_messages_t got = { 0 };
    fetch (queue, 1, &got);
    cr_expect_str_eq (got.items [0].message_id, id, "the message in %s", queue);
    if (routing_key)
        cr_expect_str_eq (got.items [0].routing_key, routing_key, "the message in %s", queue);
    amqp_messages_free (&got);
}

/* ---- dlqd ------------------------------------------------------------------------ */

/* dlqd with sink "rabbit" (the amqp sink on our node and exchange, plus
 * sink_extra) in the default chain (30 days of retention), more sinks
 * (other_sinks, inside sinks: { }), and streams. */
static bool
start_with (const char *sink_extra, const char *other_sinks, const char *streams)
{
    char extra [8192];
    snprintf (extra, sizeof extra,
              "sinks: { " SINK ": { type = \"amqp\"; url = \"%s\"; exchange = \"%s\"; %s }; %s };\n"
              "defaults: { retention_days = 30; chain = [\"" SINK "\"]; };\n"
              "streams = ( %s );\n",
              url, exchange, sink_extra ? sink_extra : "", other_sinks ? other_sinks : "",
              streams ? streams : "");
    return test_dlqd_start (&d, NULL, extra);
}

static bool
start (const char *sink_extra, const char *streams)
{
    return start_with (sink_extra, NULL, streams);
}

/* ---- what a message must carry ---------------------------------------------------- */

static void
expect_string_header (const amqp_received_message_t *m, const char *name, const char *value)
{
    const amqp_received_header_t *h = amqp_message_header (m, name);
    cr_assert_not_null (h, "header %s is missing", name);
    cr_expect_eq (h->kind, 'S', "header %s is of kind '%c', want 'S'", name, h->kind);
    cr_expect_str_eq (h->string ? h->string : "(null)", value, "header %s", name);
}

static void
expect_int_header (const amqp_received_message_t *m, const char *name, char kind, int64_t value)
{
    const amqp_received_header_t *h = amqp_message_header (m, name);
    cr_assert_not_null (h, "header %s is missing", name);
    cr_expect_eq (h->kind, kind, "header %s is of kind '%c', want '%c'", name, h->kind, kind);
    cr_expect_eq (h->integer, value, "header %s is %lld, want %lld", name, (long long) h->integer, (long long) value);
}

/* The properties every message has (flowwarden-amqp's), and a body equal to
 * the stored event. */
static void
expect_common (const amqp_received_message_t *m, const char *id, const char *routing_key)
{
    char *event = sink_stored_event (d.endpoint, id);
    cr_expect_eq (m->body_len, strlen (event), "body length");
    cr_expect_str_eq ((const char *) m->body, event, "the body is the stored event's bytes");
    free (event);
    cr_expect_str_eq (m->exchange, exchange);
    cr_expect_str_eq (m->routing_key, routing_key);
    cr_expect_str_eq (m->message_id ? m->message_id : "(none)", id, "messageId");
    cr_expect_str_eq (m->content_type ? m->content_type : "(none)", "application/json");
    cr_expect_str_eq (m->content_encoding ? m->content_encoding : "(none)", "UTF-8");
    cr_expect_eq (m->delivery_mode, 2, "persistent");
    cr_expect (m->has_headers);
    expect_string_header (m, "flowwarden-event-id", id);
    expect_int_header (m, "flowwarden-schema-version", 'I', 1);
}

/* ---- tests ------------------------------------------------------------------------ */

Test (amqp, the_message_is_flowwarden_amqps)
{
    connect_server (false);
    char queue [128];
    bind_queue (exchange, true, "dlq.#", queue, sizeof queue);
    cr_assert (start (NULL, "{ name = \"bare\"; retention_days = 0; },"
                            "{ name = \"archive\"; retention_days = 5000; }"));

    char *example = event_wire_example_json_now ();
    char id [3][DLQ_UUID_LEN + 1];
    sink_put_one (d.endpoint, example, id [0]);
    free (example);
    sink_put_one (d.endpoint, "{\"streamName\":\"bare\",\"error\":{\"type\":\"E\",\"message\":\"m\"},\"attempts\":1}", id [1]);
    sink_put_minimal (d.endpoint, "archive", id [2]);
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", 3, 30), 3);

    amqp_received_messages_t got = { 0 };
    fetch (queue, 3, &got);
    /* one sink, one connection: the broker keeps the publish order */
    const amqp_received_message_t *m = &got.items [0];
    cr_assert_str_eq (m->message_id, EXAMPLE_ID);
    expect_common (m, EXAMPLE_ID, "dlq.orders");
    cr_expect_str_eq (m->expiration ? m->expiration : "(none)", "2592000000", "30 days in ms");
    cr_expect_eq (m->header_count, 7, "flowwarden-amqp's seven headers");
    expect_string_header (m, "flowwarden-stream-name", "orders");
    expect_string_header (m, "flowwarden-operation-type", "INSERT");
    expect_int_header (m, "flowwarden-attempts", 'I', 3);
    expect_string_header (m, "flowwarden-status", "DLQ");
    expect_int_header (m, "flowwarden-first-attempt-at", 'l', 1781015531123LL);

    m = &got.items [1];
    expect_common (m, id [1], "dlq.bare");
    cr_expect_null (m->expiration, "retention 0: no expiration, got %s", m->expiration);
    cr_expect_eq (m->header_count, 5, "no operationType, no firstAttemptAt: their headers are omitted");
    cr_expect_null (amqp_message_header (m, "flowwarden-operation-type"));
    cr_expect_null (amqp_message_header (m, "flowwarden-first-attempt-at"));
    expect_int_header (m, "flowwarden-attempts", 'I', 1);

    m = &got.items [2];
    expect_common (m, id [2], "dlq.archive");
    cr_expect_str_eq (m->expiration ? m->expiration : "(none)", "315360000000",
                      "5000 days: RabbitMQ's ceiling, 3650 days (the broker took it)");
    amqp_messages_free (&got);
}

Test (amqp, a_per_stream_override_routes_to_its_own_exchange)
{
    connect_server (false);
    char alerts [96], queue [128], alerts_queue [128];
    amqp_unique_name ("dlqd.alerts", alerts, sizeof alerts);
    bind_queue (exchange, true, "#", queue, sizeof queue);
    bind_queue (alerts, true, "alert.payment.failed", alerts_queue, sizeof alerts_queue);
    char streams [512];
    snprintf (streams, sizeof streams, "{ name = \"payments\"; " SINK ": { exchange = \"%s\";"
              " routing_key = \"alert.payment.failed\"; }; }", alerts);
    cr_assert (start (NULL, streams));

    char orders_id [DLQ_UUID_LEN + 1], payments_id [DLQ_UUID_LEN + 1];
    sink_put_minimal (d.endpoint, "orders", orders_id);
    sink_put_minimal (d.endpoint, "payments", payments_id);
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", 2, 30), 2);

    expect_only_message (queue, orders_id, "dlq.orders");     /* the sink's exchange has orders only */
    amqp_received_messages_t got = { 0 };
    fetch (alerts_queue, 1, &got);
    cr_expect_str_eq (got.items [0].message_id, payments_id);
    cr_expect_str_eq (got.items [0].exchange, alerts);
    cr_expect_str_eq (got.items [0].routing_key, "alert.payment.failed");
    amqp_messages_free (&got);
    amqp_consumer_delete_exchange (consumer, alerts);
}

Test (amqp, mandatory_returns_are_counted_and_logged_or_retried)
{
    connect_server (false);
    char queue [128];
    bind_queue (exchange, true, "dlq.orders", queue, sizeof queue);
    /* two sinks on the same exchange: "rabbit" keeps returns as delivered
     * (as flowwarden-amqp does), "strict" retries them; stream "lost" has no queue */
    char strict [512];
    snprintf (strict, sizeof strict, "strict: { type = \"amqp\"; url = \"%s\"; exchange = \"%s\";"
              " on_return = \"retry\"; retry = { max_attempts = 2; backoff_ms = 10; backoff_max_ms = 20; }; };",
              server.url, exchange);
    cr_assert (start_with (NULL, strict, "{ name = \"lost\"; chain = [\"" SINK "\", \"strict\"];"
                                         " " SINK ": { mandatory = true; }; strict: { mandatory = true; }; }"));
    char lost_id [DLQ_UUID_LEN + 1], orders_id [DLQ_UUID_LEN + 1];
    sink_put_minimal (d.endpoint, "lost", lost_id);
    sink_put_minimal (d.endpoint, "orders", orders_id);

    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", 2, 30), 2, "on_return = log: delivered");
    cr_expect_eq (sink_counter (d.endpoint, SINK, "returned"), 1, "the return is counted");
    cr_assert_eq (sink_wait_stat (d.endpoint, "strict", "failed", 1, 30), 1, "on_return = retry: retried, then failed");
    cr_expect_eq (sink_stat (d.endpoint, "strict", "delivered"), 0);
    cr_expect_eq (sink_counter (d.endpoint, "strict", "returned"), 2, "returned at each of its 2 attempts");
    char *error = sink_text (d.endpoint, "strict", "lastError");
    cr_expect_not_null (strstr (error, "312 NO_ROUTE"), "lastError: %s", error);
    free (error);
    char *get = sink_get (d.endpoint, lost_id, "OK");
    cr_expect_not_null (strstr (get, "returned by the broker: 312 NO_ROUTE"), "GET shows why: %s", get);
    free (get);

    char *log = test_read_file (d.log, NULL);
    cr_expect_not_null (strstr (log, "WARN sink " SINK ": 1 message(s) returned unroutable (kept as delivered)"),
                        "%s", log);
    free (log);
    expect_only_message (queue, orders_id, NULL);     /* orders (its chain is the default: rabbit) */
}

Test (amqp, events_for_a_missing_exchange_wait_until_it_exists)
{
    enum { N = 5 };
    connect_server (false);
    /* mandatory + on_return = "retry": what goes out after the exchange
     * exists but before the queue is bound comes back and is retried */
    cr_assert (start ("retry = { max_attempts = 0; backoff_ms = 50; backoff_max_ms = 200; };"
                      " mandatory = true; on_return = \"retry\";", NULL));
    char ids [N][DLQ_UUID_LEN + 1];
    sink_put_small_events (d.endpoint, "orders", N, ids);
    char *error = sink_wait_error (d.endpoint, SINK, 30);
    cr_expect_not_null (strstr (error, "404 NOT_FOUND"), "lastError: %s", error);
    cr_expect_not_null (strstr (error, exchange), "lastError names the exchange: %s", error);
    cr_expect_eq (sink_stat (d.endpoint, SINK, "delivered"), 0);
    free (error);

    char queue [128];
    bind_queue (exchange, true, "dlq.orders", queue, sizeof queue);     /* now it exists */
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", N, 30), N);
    cr_expect_eq (sink_stat (d.endpoint, SINK, "failed"), 0);
    amqp_received_messages_t got = { 0 };
    fetch (queue, N, &got);
    amqp_messages_free (&got);
}

Test (amqp, a_broker_restart_under_load_loses_nothing)
{
    enum { N = 30000, PART = N / 3 };
    connect_server (true);                  /* it is stopped: a node of our own */
    char queue [128];
    bind_queue (exchange, true, "dlq.#", queue, sizeof queue);
    cr_assert (start ("retry = { max_attempts = 0; backoff_ms = 20; backoff_max_ms = 500; };"
                      " circuit = { failures = 3; }; timeout_ms = 10000; connect_timeout_ms = 1000;", NULL));
    char (*ids) [DLQ_UUID_LEN + 1] = calloc (N, sizeof *ids);
    char **bodies = sink_small_events ("orders", dlq_time_now_ms () - 3600 * 1000, N, ids);

    sink_put_bodies (d.endpoint, bodies, PART);
    amqp_consumer_close (consumer);
    consumer = NULL;
    cr_assert (amqp_server_pause (&server), "cannot stop the node");
    sink_put_bodies (d.endpoint, bodies + PART, PART);
    char *error = sink_wait_error (d.endpoint, SINK, 30);
    cr_expect_neq (error [0], '\0', "the sink never reported the broker as down");
    int64_t delivered_while_down = sink_stat (d.endpoint, SINK, "delivered");
    cr_assert_leq (delivered_while_down, PART, "events were delivered while the broker was down");
    cr_assert (amqp_server_resume (&server), "cannot start the node again");
    sink_put_bodies (d.endpoint, bodies + 2 * PART, N - 2 * PART);

    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", N, 120), N, "not every event was delivered");
    cr_expect_eq (sink_wait_stat (d.endpoint, SINK, "backlog", 0, 10), 0);
    cr_expect_eq (sink_stat (d.endpoint, SINK, "failed"), 0, "an event failed");

    consumer = amqp_consumer_connect (server.url);
    cr_assert_not_null (consumer);
    long in_queue = amqp_consumer_queue_count (consumer, queue);
    cr_assert_geq (in_queue, N, "the durable queue holds %ld messages, want at least %d", in_queue, N);
    amqp_received_messages_t got = { 0 };
    fetch (queue, (size_t) in_queue, &got);
    char *seen = calloc (N, 1);
    long duplicates = 0, strangers = 0;
    for (size_t k = 0; k < got.count; k++) {
        int i = 0;
        while (i < N && strcmp (ids [i], got.items [k].message_id ? got.items [k].message_id : "") != 0)
            i++;
        if (i == N)
            strangers++;
        else if (seen [i]++)
            duplicates++;
    }
    int missing = 0;
    for (int i = 0; i < N; i++)
        missing += !seen [i];
    cr_expect_eq (missing, 0, "%d events never reached the queue", missing);
    cr_expect_eq (strangers, 0, "messages no one sent");
    int64_t unconfirmed = sink_counter (d.endpoint, SINK, "unconfirmed");
    cr_expect_leq (duplicates, unconfirmed, "a duplicate that was no retried unconfirmed publish");
    cr_log_info ("broker restart: %lld of the %d events sent before the stop were confirmed before it;"
                 " the sink said: %s; %ld duplicate(s) in the queue (at-least-once), sink counters:"
                 " unconfirmed %lld, connects %lld", (long long) delivered_while_down, PART, error, duplicates,
                 (long long) unconfirmed,
                 (long long) sink_counter (d.endpoint, SINK, "connects"));
    amqp_messages_free (&got);
    free (seen);
    free (error);
    sink_free_events (bodies, N);
    free (ids);
}

Test (amqp, a_nack_is_retried_until_the_broker_takes_it)
{
    enum { N = 5, ROOM = 3 };
    connect_server (false);
    /* a queue that refuses publishes beyond ROOM: the broker NACKs them */
    char queue [128] = "";
    cr_assert (amqp_consumer_bind_limited (consumer, exchange, "topic", "dlq.#", ROOM, queue, sizeof queue));
    cr_assert (start ("retry = { max_attempts = 0; backoff_ms = 50; backoff_max_ms = 200; };"
                      " circuit = { failures = 1000; };", NULL));
    char ids [N][DLQ_UUID_LEN + 1];
    sink_put_small_events (d.endpoint, "orders", N, ids);

    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", ROOM, 30), ROOM);
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "retrying", N - ROOM, 30), N - ROOM);
    cr_expect_geq (sink_counter (d.endpoint, SINK, "nacked"), N - ROOM);
    /* the ledger and the sink's health are two reports: wait for the second too */
    char *error = sink_wait_error (d.endpoint, SINK, 10);
    cr_expect_not_null (strstr (error, "NACK"), "lastError: %s", error);
    free (error);
    cr_expect_eq (sink_stat (d.endpoint, SINK, "delivered"), ROOM, "a NACKed event counted delivered");

    /* taking ROOM makes room again: the retries may go in at once, so the
     * queue then holds at most the N - ROOM retried ones */
    amqp_received_messages_t got = { 0 };
    cr_assert (amqp_consumer_fetch (consumer, queue, ROOM, FETCH_MS, &got), "cannot consume from %s", queue);
    cr_assert_eq (got.count, ROOM, "%s: %zu messages, want %d", queue, got.count, ROOM);
    cr_expect_leq (amqp_consumer_queue_count (consumer, queue), N - ROOM, "%s holds more than the retries", queue);
    amqp_messages_free (&got);
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", N, 30), N);
    fetch (queue, N - ROOM, &got);
    amqp_messages_free (&got);
}

Test (amqp, no_confirm_in_time_is_retried)
{
    enum { N = 50 };
    connect_server (true);                  /* it is frozen: a node of our own */
    char queue [128];
    bind_queue (exchange, true, "dlq.#", queue, sizeof queue);
    cr_assert (start ("confirm_timeout_ms = 300; connect_timeout_ms = 1000; timeout_ms = 5000;"
                      " retry = { max_attempts = 0; backoff_ms = 50; backoff_max_ms = 300; };", NULL));
    char ids [N + 1][DLQ_UUID_LEN + 1];
    char **bodies = sink_small_events ("orders", dlq_time_now_ms (), N + 1, ids);
    sink_put_bodies (d.endpoint, bodies, 1);
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", 1, 30), 1, "connected and delivering");

    cr_assert (amqp_server_freeze (&server), "cannot freeze the node");
    sink_put_bodies (d.endpoint, bodies + 1, N);
    int64_t deadline = dlq_time_mono_ms () + 30000;
    while (sink_counter (d.endpoint, SINK, "unconfirmed") == 0 && dlq_time_mono_ms () < deadline)
        usleep (50 * 1000);
    /* the first batch went out and waited for its confirms in vain; the
     * next attempts cannot even log in (the kernel accepts the TCP
     * connection, nobody answers) */
    int64_t unconfirmed = sink_counter (d.endpoint, SINK, "unconfirmed");
    cr_expect_gt (unconfirmed, 0, "the publishes the frozen broker never confirmed are retried");
    cr_expect_eq (sink_stat (d.endpoint, SINK, "delivered"), 1, "delivered without a confirm");
    cr_expect_eq (sink_wait_stat (d.endpoint, SINK, "retrying", N, 10), N, "all retried");
    cr_assert (amqp_server_thaw (&server), "cannot thaw the node");

    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", N + 1, 60), N + 1);
    long in_queue = amqp_consumer_queue_count (consumer, queue);
    cr_expect_geq (in_queue, N + 1, "in the queue: %ld", in_queue);
    cr_log_info ("a frozen broker: %lld publishes retried for want of a confirm; %ld messages in the queue"
                 " for %d events", (long long) unconfirmed, in_queue, N + 1);
    sink_free_events (bodies, N + 1);
}

Test (amqp, a_broker_that_stops_reading_does_not_hold_delivery)
{
    enum { N = 40, PAD = 512 * 1024 };      /* 20 MiB: more than the socket buffers hold */
    connect_server (true);                  /* it is frozen: a node of our own */
    char queue [128];
    bind_queue (exchange, true, "dlq.#", queue, sizeof queue);
    cr_assert (start ("confirm_timeout_ms = 500; connect_timeout_ms = 1000; timeout_ms = 10000;"
                      " retry = { max_attempts = 0; backoff_ms = 50; backoff_max_ms = 300; };", NULL));
    cr_assert (amqp_server_freeze (&server), "cannot freeze the node");
    char *pad = malloc (PAD + 1);
    memset (pad, 'x', PAD);
    pad [PAD] = '\0';
    char *bodies [N];
    for (int i = 0; i < N; i++)
        cr_assert (asprintf (&bodies [i], "{\"streamName\":\"orders\",\"error\":{\"type\":\"E\"},"
                             "\"metadata\":{\"n\":%d,\"pad\":\"%s\"}}", i, pad) > 0);
    free (pad);
    sink_put_bodies (d.endpoint, bodies, N);
    char *error = sink_wait_error (d.endpoint, SINK, 30);
    cr_expect_neq (error [0], '\0', "no error while the broker reads nothing");
    cr_expect_eq (sink_wait_stat (d.endpoint, SINK, "retrying", N, 30), N, "the delivery did not come back");
    cr_expect_eq (sink_stat (d.endpoint, SINK, "delivered"), 0);
    cr_assert (amqp_server_thaw (&server), "cannot thaw the node");
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", N, 120), N);
    cr_log_info ("a broker that stopped reading: the sink said \"%s\"", error);
    free (error);
    for (int i = 0; i < N; i++)
        free (bodies [i]);
}

Test (amqp, fire_and_forget_delivers_too)
{
    enum { N = 200 };
    connect_server (false);
    char queue [128];
    bind_queue (exchange, true, "dlq.#", queue, sizeof queue);
    cr_assert (start ("confirm_mode = false;", NULL));
    char ids [N][DLQ_UUID_LEN + 1];
    sink_put_small_events (d.endpoint, "orders", N, ids);
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", N, 30), N);
    amqp_received_messages_t got = { 0 };
    fetch (queue, N, &got);
    for (int i = 0; i < N; i++)
        cr_expect_str_eq (got.items [i].message_id, ids [i]);
    amqp_messages_free (&got);
    char *log = test_read_file (d.log, NULL);
    cr_expect_not_null (strstr (log, "fire-and-forget (no confirms)"), "the log says so: %s", log);
    free (log);
}

Test (amqp, tls_with_the_ca_and_a_client_certificate)
{
    connect_server (false);
    if (!server.tls_port)
        cr_skip_test ("no AMQPS listener known (DLQD_TEST_AMQP_TLS_PORT / _TLS_DIR unset)");
    char queue [128];
    bind_queue (exchange, true, "dlq.#", queue, sizeof queue);
    /* "unverified" trusts no CA: the broker's certificate does not verify */
    char sinks [1024], settings [1024];
    snprintf (sinks, sizeof sinks, "unverified: { type = \"amqp\"; url = \"%s\"; exchange = \"%s\";"
              " retry = { max_attempts = 1; }; };", server.tls_url, exchange);
    snprintf (settings, sizeof settings, "tls_ca_file = \"%s/ca.pem\"; tls_cert_file = \"%s/client.pem\";"
              " tls_key_file = \"%s/client.key\";", server.tls_dir, server.tls_dir, server.tls_dir);
    snprintf (url, sizeof url, "%s", server.tls_url);     /* amqps://: tls on */
    cr_assert (start_with (settings, sinks, "{ name = \"checked\"; chain = [\"unverified\"]; }"));

    char id [DLQ_UUID_LEN + 1], other [DLQ_UUID_LEN + 1];
    sink_put_minimal (d.endpoint, "orders", id);
    sink_put_minimal (d.endpoint, "checked", other);
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", 1, 30), 1);
    expect_only_message (queue, id, NULL);
    char *log = test_read_file (d.log, NULL);
    char want [128];
    snprintf (want, sizeof want, "connected to amqps://localhost:%d", server.tls_port);
    cr_expect_not_null (strstr (log, want), "%s", log);
    free (log);

    cr_assert_eq (sink_wait_stat (d.endpoint, "unverified", "failed", 1, 30), 1);
    char *error = sink_text (d.endpoint, "unverified", "lastError");
    cr_expect_not_null (strstr (error, "verification failed"), "lastError: %s", error);
    free (error);
}

/* dlqd must not start with sink_extra; its log says want. */
static void
expect_startup_error (const char *sink_extra, const char *want)
{
    sink_expect_startup_error (&d, start (sink_extra, NULL), sink_extra, want);
}

/* A replay whose route is an amqp sink that is in no chain (the exchange
 * the workers consume): its queue gets every replayed event once, as
 * flowwarden-amqp's message of the event with its lineage; the chain's
 * exchange gets nothing more. */
Test (amqp, a_replay_goes_to_the_exchange_of_its_route)
{
    enum { N = 20 };
    connect_server (false);
    char retry_exchange [128], queue [128], retry_queue [128];
    snprintf (retry_exchange, sizeof retry_exchange, "%s.retry", exchange);
    bind_queue (exchange, true, "#", queue, sizeof queue);
    bind_queue (retry_exchange, true, "#", retry_queue, sizeof retry_queue);
    char retry [512];
    snprintf (retry, sizeof retry, "retry: { type = \"amqp\"; url = \"%s\"; exchange = \"%s\"; };", url,
              retry_exchange);
    cr_assert (start_with (NULL, retry, "{ name = \"orders\"; replay_route = \"retry\"; }"));
    char ids [N][DLQ_UUID_LEN + 1];
    char **bodies = sink_small_events ("orders", dlq_time_now_ms () - 60000, N, ids);
    sink_put_bodies (d.endpoint, bodies, N);
    sink_free_events (bodies, N);
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", N, 30), N);
    amqp_received_messages_t chain = { 0 };
    fetch (queue, N, &chain);
    amqp_messages_free (&chain);

    char *job = sink_request (d.endpoint, "REPLAY", "{\"streamName\":\"orders\",\"rate\":1000}", "OK");
    cr_expect_not_null (strstr (job, "\"total\":20"), "%s", job);
    free (job);
    amqp_received_messages_t got = { 0 };
    fetch (retry_queue, N, &got);
    for (size_t k = 0; k < N; k++) {
        const amqp_received_message_t *m = &got.items [k];
        size_t seen = 0;
        for (size_t j = 0; j < N; j++)
            seen += strcmp (m->message_id, ids [j]) == 0;
        cr_expect_eq (seen, 1, "message %s is one of the replayed events", m->message_id);
        for (size_t j = 0; j < k; j++)
            cr_expect_str_neq (got.items [j].message_id, m->message_id, "replayed twice");
        cr_expect_str_eq (m->exchange, retry_exchange);
        cr_expect_str_eq (m->routing_key, "dlq.orders");
        expect_string_header (m, "flowwarden-event-id", m->message_id);
        char lineage [128];
        snprintf (lineage, sizeof lineage, "\"replayOf\":\"%s\",\"replayCount\":1}", m->message_id);
        cr_expect_not_null (strstr ((const char *) m->body, lineage), "%s", m->body);
    }
    amqp_messages_free (&got);
    cr_expect_eq (amqp_consumer_queue_count (consumer, queue), 0, "the chain's exchange is not written by a replay");
    amqp_consumer_delete_exchange (consumer, retry_exchange);
}

Test (amqp, what_a_retry_cannot_fix_stops_dlqd_at_startup)
{
    connect_server (false);
    /* a wrong password (the url carries the credentials) */
    char *at = strstr (url, ":guest@");
    cr_assert_not_null (at, "the test URL carries guest:guest: %s", url);
    memcpy (at, ":wrong@", 7);
    expect_startup_error (NULL, "403 ACCESS_REFUSED");
    snprintf (url, sizeof url, "%s", server.url);
    expect_startup_error ("confirm_mode = false; on_return = \"retry\";", "on_return = \"retry\" needs confirm_mode = true");
    expect_startup_error ("on_return = \"drop\";", "on_return must be \"log\" or \"retry\"");
    expect_startup_error ("tls_ca_file = \"/etc/hostname\";", "tls_ca_file, tls_cert_file and tls_key_file need tls = true");
}
