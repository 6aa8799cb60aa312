/*  itest_kafka — the kafka sink end to end: dlqd as a process producing to
 *  librdkafka's mock cluster (3 brokers, run by this test process:
 *  support/kafka_support.h), the records read back by a real librdkafka
 *  consumer.
 *
 *    - the record: value = the stored event's bytes, key = the id (or the
 *      documentKey with key = "document_key"), every flowwarden-* header;
 *      a per-stream topic override;
 *    - transient produce errors are retried by the idempotent producer:
 *      everything delivered exactly once;
 *    - every broker down mid-stream: RETRY, then all delivered, none lost;
 *    - a permanent error (topic authorization, a record over
 *      message.max.bytes, a stream name no topic may have) is FAIL with
 *      the reason;
 *    - a fatal producer error: a new producer, then delivered;
 *    - create_topics asks the cluster (the mock has no admin API: RETRY);
 *    - bad rdkafka settings stop dlqd at startup with librdkafka's words;
 *    - a REPLAY whose replay_route is a kafka sink in no chain: the retry
 *      topic gets each event once with its lineage.
 */
#include "dlq_time.h"
#include "dlq_uuid.h"
#include "event_support.h"
#include "kafka_support.h"
#include "sink_support.h"
#include "test_support.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SINK        "events"
#define BROKERS     3
#define EXAMPLE_ID  "c2e8a5b6-0f1e-4c3a-9b7d-2a1f0e9d8c7b"
#define CONSUME_MS  10000

static test_dlqd_t d;
static kafka_cluster_t *cluster;

static void
setup (void)
{
    memset (&d, 0, sizeof d);
    test_tmpdir (d.dir);
    cluster = kafka_cluster_new (BROKERS);
    cr_assert_not_null (cluster, "no mock cluster");
}

static void
teardown (void)
{
    test_dlqd_cleanup (&d);             /* dlqd first: it is a client of the cluster */
    kafka_cluster_destroy (&cluster);
}

TestSuite (kafka, .init = setup, .fini = teardown, .timeout = 300);

/* dlqd with sink "events" (the kafka sink on the mock cluster, plus
 * sink_extra) in the default chain, and streams. */
static bool
start (const char *sink_extra, const char *streams)
{
    char extra [8192];
    snprintf (extra, sizeof extra,
              "sinks: { " SINK ": { type = \"kafka\"; bootstrap_servers = \"%s\"; %s }; };\n"
              "defaults: { retention_days = 30; chain = [\"" SINK "\"]; };\n"
              "streams = ( %s );\n",
              kafka_cluster_bootstraps (cluster), sink_extra ? sink_extra : "", streams ? streams : "");
    return test_dlqd_start (&d, NULL, extra);
}

static void
create_topic (const char *topic)
{
    cr_assert (kafka_cluster_create_topic (cluster, topic, BROKERS, BROKERS), "cannot create %s", topic);
}

/* Exactly n records of topic (no more within a moment). */
static void
consume (const char *topic, size_t n, kafka_records_t *out)
{
    cr_assert (kafka_consume_all (kafka_cluster_bootstraps (cluster), topic, n, CONSUME_MS, out),
               "cannot consume %s", topic);
    cr_assert_eq (out->count, n, "%s: %zu records, want %zu", topic, out->count, n);
    cr_expect_eq (kafka_topic_count (kafka_cluster_bootstraps (cluster), topic), (long) n,
                  "%s holds more than %zu records", topic, n);
}

static void
expect_header (const kafka_record_t *r, const char *name, const char *value)
{
    const kafka_header_t *h = kafka_record_header (r, name);
    cr_assert_not_null (h, "header %s is missing", name);
    cr_expect_str_eq (h->value ? h->value : "(null)", value, "header %s", name);
    cr_expect_eq (kafka_record_header_count (r, name), 1, "header %s once", name);
}

/* Every id of ids [0, n) is the key of a record of records; returns the
 * number of records beyond one per id (duplicates). */
static long
expect_every_id (const kafka_records_t *records, char (*ids) [DLQ_UUID_LEN + 1], int n)
{
    char *seen = calloc ((size_t) n, 1);
    long duplicates = 0, strangers = 0;
    for (size_t k = 0; k < records->count; k++) {
        int i = 0;
        while (i < n && (records->items [k].key_len != DLQ_UUID_LEN
                         || memcmp (records->items [k].key, ids [i], DLQ_UUID_LEN) != 0))
            i++;
        if (i == n)
            strangers++;
        else if (seen [i]++)
            duplicates++;
    }
    int missing = 0;
    for (int i = 0; i < n; i++)
        missing += !seen [i];
    cr_expect_eq (missing, 0, "%d events never reached the topic", missing);
    cr_expect_eq (strangers, 0, "records no one sent");
    free (seen);
    return duplicates;
}

/* ---- tests ---------------------------------------------------------------------- */

Test (kafka, the_record_carries_the_event)
{
    create_topic ("dlq.orders");
    create_topic ("dlq.bare");
    create_topic ("alerts.payments");
    cr_assert (start (NULL, "{ name = \"payments\"; " SINK ": { topic = \"alerts.payments\"; key = \"document_key\"; }; }"));
    char *example = event_wire_example_json_now ();
    char id [3][DLQ_UUID_LEN + 1];
    sink_put_one (d.endpoint, example, id [0]);
    free (example);
    sink_put_one (d.endpoint, "{\"streamName\":\"bare\",\"error\":{\"type\":\"E\"},\"attempts\":2}", id [1]);
    sink_put_one (d.endpoint, "{\"streamName\":\"payments\",\"documentKey\":{\"_id\":{\"$oid\":"
                              "\"65f0a1b2c3d4e5f601234567\"}},\"error\":{\"type\":\"E\"}}", id [2]);
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", 3, 30), 3);

    kafka_records_t got = { 0 };
    consume ("dlq.orders", 1, &got);
    const kafka_record_t *r = &got.items [0];
    char *event = sink_stored_event (d.endpoint, EXAMPLE_ID);
    cr_expect_eq (r->value_len, strlen (event));
    cr_expect_str_eq (r->value, event, "the value is the stored event's bytes");
    free (event);
    cr_expect_eq (r->key_len, strlen (EXAMPLE_ID));
    cr_expect_str_eq (r->key, EXAMPLE_ID, "key = the event id");
    cr_expect_eq (r->header_count, 7, "flowwarden-amqp's seven headers");
    expect_header (r, "flowwarden-event-id", EXAMPLE_ID);
    expect_header (r, "flowwarden-stream-name", "orders");
    expect_header (r, "flowwarden-operation-type", "INSERT");
    expect_header (r, "flowwarden-attempts", "3");
    expect_header (r, "flowwarden-status", "DLQ");
    expect_header (r, "flowwarden-first-attempt-at", "1781015531123");
    expect_header (r, "flowwarden-schema-version", "1");
    kafka_records_free (&got);

    consume ("dlq.bare", 1, &got);
    r = &got.items [0];
    cr_expect_str_eq (r->key, id [1]);
    cr_expect_eq (r->header_count, 5, "no operationType, no firstAttemptAt: their headers are omitted");
    cr_expect_null (kafka_record_header (r, "flowwarden-operation-type"));
    cr_expect_null (kafka_record_header (r, "flowwarden-first-attempt-at"));
    expect_header (r, "flowwarden-attempts", "2");
    kafka_records_free (&got);

    consume ("alerts.payments", 1, &got);
    r = &got.items [0];
    cr_expect_str_eq (r->key, "{\"_id\":{\"$oid\":\"65f0a1b2c3d4e5f601234567\"}}", "key = the documentKey");
    expect_header (r, "flowwarden-event-id", id [2]);
    kafka_records_free (&got);
}

Test (kafka, transient_produce_errors_deliver_everything_once)
{
    enum { N = 500 };
    create_topic ("dlq.orders");
    cr_assert (start (NULL, NULL));
    char (*ids) [DLQ_UUID_LEN + 1] = calloc (N, sizeof *ids);
    char **bodies = sink_small_events ("orders", dlq_time_now_ms (), N, ids);
    sink_put_bodies (d.endpoint, bodies, 1);
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", 1, 30), 1);
    kafka_cluster_push_produce_errors (cluster, 6, RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
                                       RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT, RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS,
                                       RD_KAFKA_RESP_ERR_NOT_LEADER_FOR_PARTITION,
                                       RD_KAFKA_RESP_ERR_REQUEST_TIMED_OUT, RD_KAFKA_RESP_ERR_NOT_ENOUGH_REPLICAS);
    sink_put_bodies (d.endpoint, bodies + 1, N - 1);
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", N, 60), N);
    cr_expect_eq (sink_stat (d.endpoint, SINK, "failed"), 0);
    kafka_records_t got = { 0 };
    consume ("dlq.orders", N, &got);
    cr_expect_eq (expect_every_id (&got, ids, N), 0, "the idempotent producer wrote a duplicate");
    kafka_records_free (&got);
    sink_free_events (bodies, N);
    free (ids);
}

Test (kafka, every_broker_down_mid_stream_loses_nothing)
{
    enum { N = 3000, PART = N / 3 };
    create_topic ("dlq.orders");
    cr_assert (start ("timeout_ms = 3000; retry = { max_attempts = 0; backoff_ms = 50; backoff_max_ms = 500; };"
                      " circuit = { failures = 3; };"
                      " rdkafka = [ \"reconnect.backoff.max.ms=500\", \"linger.ms=5\" ];", NULL));
    char (*ids) [DLQ_UUID_LEN + 1] = calloc (N, sizeof *ids);
    char **bodies = sink_small_events ("orders", dlq_time_now_ms (), N, ids);
    sink_put_bodies (d.endpoint, bodies, PART);
    cr_assert (kafka_cluster_all_brokers_down (cluster));
    sink_put_bodies (d.endpoint, bodies + PART, PART);
    char *error = sink_wait_error (d.endpoint, SINK, 30);
    cr_expect_neq (error [0], '\0', "the sink never reported the brokers down");
    int64_t delivered_while_down = sink_stat (d.endpoint, SINK, "delivered");
    cr_expect_lt (delivered_while_down, 2 * PART, "delivered while every broker was down");
    cr_assert (kafka_cluster_all_brokers_up (cluster));
    sink_put_bodies (d.endpoint, bodies + 2 * PART, N - 2 * PART);

    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", N, 120), N, "not every event was delivered");
    cr_expect_eq (sink_wait_stat (d.endpoint, SINK, "backlog", 0, 10), 0);
    cr_expect_eq (sink_stat (d.endpoint, SINK, "failed"), 0);
    kafka_records_t got = { 0 };
    cr_assert (kafka_consume_all (kafka_cluster_bootstraps (cluster), "dlq.orders", 0, CONSUME_MS, &got));
    long duplicates = expect_every_id (&got, ids, N);
    cr_log_info ("every broker down: %lld delivered before the sink noticed (%s); %zu records for %d events,"
                 " %ld duplicate(s) (at-least-once); unconfirmed %lld", (long long) delivered_while_down, error,
                 got.count, N, duplicates, (long long) sink_counter (d.endpoint, SINK, "unconfirmed"));
    kafka_records_free (&got);
    free (error);
    sink_free_events (bodies, N);
    free (ids);
}

Test (kafka, a_permanent_error_fails_the_event_with_the_reason)
{
    create_topic ("dlq.orders");
    /* one event per call, so that the pushed error hits exactly one */
    cr_assert (start ("batch = { max_events = 1; }; retry = { max_attempts = 5; backoff_ms = 10; };", NULL));
    char id [3][DLQ_UUID_LEN + 1];
    sink_put_minimal (d.endpoint, "orders", id [0]);
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", 1, 30), 1);
    kafka_cluster_push_produce_errors (cluster, 1, RD_KAFKA_RESP_ERR_TOPIC_AUTHORIZATION_FAILED);
    sink_put_minimal (d.endpoint, "orders", id [1]);
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "failed", 1, 30), 1, "a permanent error is not retried");
    char *reply = sink_get (d.endpoint, id [1], "OK");
    cr_expect_not_null (strstr (reply, "\"attempts\":1"), "failed at its first attempt: %s", reply);
    cr_expect_not_null (strstr (reply, "TOPIC_AUTHORIZATION_FAILED: Broker: Topic authorization failed"), "%s", reply);
    free (reply);

    /* a stream no topic can be named after */
    sink_put_minimal (d.endpoint, "orders v2", id [2]);
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "failed", 2, 30), 2);
    reply = sink_get (d.endpoint, id [2], "OK");
    cr_expect_not_null (strstr (reply, "not a legal Kafka topic name"), "%s", reply);
    free (reply);
}

Test (kafka, a_record_over_message_max_bytes_fails)
{
    create_topic ("dlq.orders");
    cr_assert (start ("rdkafka = [ \"message.max.bytes=2000\" ];", NULL));
    char big [4096], id [2][DLQ_UUID_LEN + 1];
    snprintf (big, sizeof big, "{\"streamName\":\"orders\",\"error\":{\"type\":\"E\",\"message\":\"%03000d\"}}", 7);
    sink_put_one (d.endpoint, big, id [0]);
    sink_put_minimal (d.endpoint, "orders", id [1]);
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "failed", 1, 30), 1);
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", 1, 30), 1, "the small one goes");
    char *reply = sink_get (d.endpoint, id [0], "OK");
    cr_expect_not_null (strstr (reply, "MSG_SIZE_TOO_LARGE"), "%s", reply);
    free (reply);
    kafka_records_t got = { 0 };
    consume ("dlq.orders", 1, &got);
    cr_expect_str_eq (got.items [0].key, id [1]);
    kafka_records_free (&got);
}

Test (kafka, a_fatal_producer_error_makes_a_new_producer)
{
    enum { N = 20 };
    create_topic ("dlq.orders");
    cr_assert (start ("timeout_ms = 5000; retry = { max_attempts = 0; backoff_ms = 20; backoff_max_ms = 200; };", NULL));
    char (*ids) [DLQ_UUID_LEN + 1] = calloc (N, sizeof *ids);
    char **bodies = sink_small_events ("orders", dlq_time_now_ms (), N, ids);
    sink_put_bodies (d.endpoint, bodies, 1);
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", 1, 30), 1);
    /* the idempotent producer cannot go on after this one */
    kafka_cluster_push_produce_errors (cluster, 1, RD_KAFKA_RESP_ERR_OUT_OF_ORDER_SEQUENCE_NUMBER);
    sink_put_bodies (d.endpoint, bodies + 1, N - 1);
    cr_assert_eq (sink_wait_stat (d.endpoint, SINK, "delivered", N, 60), N);
    cr_expect_geq (sink_counter (d.endpoint, SINK, "producer_restarts"), 1);
    kafka_records_t got = { 0 };
    cr_assert (kafka_consume_all (kafka_cluster_bootstraps (cluster), "dlq.orders", 0, CONSUME_MS, &got));
    expect_every_id (&got, ids, N);
    kafka_records_free (&got);
    char *log = test_read_file (d.log, NULL);
    cr_expect_not_null (strstr (log, "making a new producer"), "%s", log);
    free (log);
    sink_free_events (bodies, N);
    free (ids);
}

Test (kafka, create_topics_asks_the_cluster)
{
    /* the mock has no admin API: CreateTopics times out, the events wait */
    cr_assert (start ("create_topics = true; create_timeout_ms = 300;"
                      " retry = { max_attempts = 0; backoff_ms = 50; backoff_max_ms = 200; };", NULL));
    char id [DLQ_UUID_LEN + 1];
    sink_put_minimal (d.endpoint, "orders", id);
    char *error = sink_wait_error (d.endpoint, SINK, 30);
    cr_expect_not_null (strstr (error, "CreateTopics"), "lastError: %s", error);
    cr_expect_eq (sink_stat (d.endpoint, SINK, "failed"), 0, "a cluster that does not answer is no reason to fail");
    cr_expect_eq (sink_stat (d.endpoint, SINK, "delivered"), 0, "produced before the topic was made");
    free (error);
}

/* dlqd must not start with sink_extra; its log says want. */
static void
expect_startup_error (const char *sink_extra, const char *want)
{
    sink_expect_startup_error (&d, start (sink_extra, NULL), sink_extra, want);
}

Test (kafka, bad_rdkafka_settings_stop_dlqd_at_startup)
{
    expect_startup_error ("rdkafka = [ \"no.such.setting=1\" ];",
                          "rdkafka: no.such.setting=1: No such configuration property");
    expect_startup_error ("rdkafka = [ \"linger.ms=soon\" ];", "rdkafka: linger.ms=soon:");
    expect_startup_error ("rdkafka = [ \"enable.idempotence=false\" ];", "enable.idempotence is set by the sink");
    expect_startup_error ("rdkafka = [ \"linger.ms\" ];", "\"linger.ms\" is not \"name=value\"");
    expect_startup_error ("key = \"partition\";", "key must be \"id\" or \"document_key\"");
}

/* A replay whose route is a kafka sink that is in no chain: the workers'
 * retry topic gets every replayed event once, keyed by its id, with its
 * lineage; the DLQ topic of the chain is not written again. */
Test (kafka, a_replay_goes_to_the_retry_topic_of_its_route)
{
    enum { N = 20 };
    create_topic ("dlq.orders");
    create_topic ("retry.orders");
    char extra [2048];
    snprintf (extra, sizeof extra,
              "sinks: { " SINK ": { type = \"kafka\"; bootstrap_servers = \"%s\"; };\n"
              "         retry: { type = \"kafka\"; bootstrap_servers = \"%s\"; topic_prefix = \"retry.\"; }; };\n"
              "defaults: { chain = [\"" SINK "\"]; };\n"
              "streams = ( { name = \"orders\"; replay_route = \"retry\"; } );\n",
              kafka_cluster_bootstraps (cluster), kafka_cluster_bootstraps (cluster));
    cr_assert (test_dlqd_start (&d, NULL, extra));
    char ids [N][DLQ_UUID_LEN + 1];
    char **bodies = sink_small_events ("orders", dlq_time_now_ms () - 60000, N, ids);
    sink_put_bodies (d.endpoint, bodies, N);
    sink_free_events (bodies, N);
    kafka_records_t dlq = { 0 };
    consume ("dlq.orders", N, &dlq);
    kafka_records_free (&dlq);
    char *job = sink_request (d.endpoint, "REPLAY", "{\"streamName\":\"orders\",\"rate\":1000}", "OK");
    cr_expect_not_null (strstr (job, "\"total\":20"), "%s", job);
    free (job);
    kafka_records_t replayed = { 0 };
    consume ("retry.orders", N, &replayed);
    cr_expect_eq (expect_every_id (&replayed, ids, N), 0, "each event replayed once");
    for (size_t k = 0; k < replayed.count; k++) {
        const kafka_record_t *r = &replayed.items [k];
        char lineage [128];
        snprintf (lineage, sizeof lineage, "\"replayOf\":\"%.*s\",\"replayCount\":1}", (int) r->key_len, r->key);
        cr_expect_not_null (memmem (r->value, r->value_len, lineage, strlen (lineage)), "%.*s",
                            (int) r->value_len, r->value);
    }
    kafka_records_free (&replayed);
    cr_expect_eq (kafka_topic_count (kafka_cluster_bootstraps (cluster), "dlq.orders"), N,
                  "the chain's topic is not written by a replay");
}
