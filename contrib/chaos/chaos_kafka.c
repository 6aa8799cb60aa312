/*  chaos_kafka — the mock cluster and its consumer; see chaos_kafka.h.
 *
 *  The cluster belongs to a producer handle that connects nowhere (the
 *  owner). The consumer assigns itself every partition of the topic at
 *  the beginning (no group is joined, but librdkafka wants a group id)
 *  and polls until each partition reported its end.
 */
#include "chaos_kafka.h"

#include "dlq_alloc.h"
#include "dlq_time.h"

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define POLL_MS      100
#define WATERMARK_MS 10000

struct chaos_kafka {
    rd_kafka_t              *owner;
    rd_kafka_mock_cluster_t *mock;
    int                      brokers;
};

/* librdkafka's log lines: none (the run's table says what matters). */
static void
chaos_kafka_quiet (const rd_kafka_t *rk, int level, const char *facility, const char *line)
{
    (void) rk;
    (void) level;
    (void) facility;
    (void) line;
}

static bool
chaos_kafka_set (rd_kafka_conf_t *conf, const char *name, const char *value, char *err,
                 size_t err_len)
{
    char why [256];
    if (rd_kafka_conf_set (conf, name, value, why, sizeof why) == RD_KAFKA_CONF_OK)
        return true;
    snprintf (err, err_len, "rdkafka %s=%s: %s", name, value, why);
    return false;
}

static rd_kafka_t *
chaos_kafka_client (rd_kafka_type_t type, rd_kafka_conf_t *conf, char *err, size_t err_len)
{
    rd_kafka_t *rk = rd_kafka_new (type, conf, err, err_len);
    if (!rk)
        rd_kafka_conf_destroy (conf);
    return rk;
}

chaos_kafka_t *
chaos_kafka_new (int brokers, char *err, size_t err_len)
{
    rd_kafka_conf_t *conf = rd_kafka_conf_new ();
    rd_kafka_conf_set_log_cb (conf, chaos_kafka_quiet);
    if (!chaos_kafka_set (conf, "client.id", "dlqd_chaos-mock", err, err_len)
        || !chaos_kafka_set (conf, "socket.nagle.disable", "true", err, err_len)) {
        rd_kafka_conf_destroy (conf);
        return NULL;
    }
    rd_kafka_t *owner = chaos_kafka_client (RD_KAFKA_PRODUCER, conf, err, err_len);
    if (!owner)
        return NULL;
    rd_kafka_mock_cluster_t *mock = rd_kafka_mock_cluster_new (owner, brokers);
    if (!mock) {
        snprintf (err, err_len, "rd_kafka_mock_cluster_new (%d brokers) failed", brokers);
        rd_kafka_destroy (owner);
        return NULL;
    }
    chaos_kafka_t *self = dlq_calloc (1, sizeof *self);
    self->owner = owner;
    self->mock = mock;
    self->brokers = brokers;
    return self;
}

void
chaos_kafka_destroy (chaos_kafka_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    rd_kafka_mock_cluster_destroy ((*self_p)->mock);
    rd_kafka_destroy ((*self_p)->owner);
    free (*self_p);
    *self_p = NULL;
}

const char *
chaos_kafka_bootstraps (const chaos_kafka_t *self)
{
    return rd_kafka_mock_cluster_bootstraps (self->mock);
}

static bool
chaos_kafka_ok (rd_kafka_resp_err_t code, const char *what, char *err, size_t err_len)
{
    if (code == RD_KAFKA_RESP_ERR_NO_ERROR)
        return true;
    snprintf (err, err_len, "kafka mock: %s: %s", what, rd_kafka_err2str (code));
    return false;
}

bool
chaos_kafka_create_topic (chaos_kafka_t *self, const char *topic, int partitions, char *err,
                          size_t err_len)
{
    return chaos_kafka_ok (rd_kafka_mock_topic_create (self->mock, topic, partitions, 1),
                           "create topic", err, err_len);
}

bool
chaos_kafka_down (chaos_kafka_t *self, char *err, size_t err_len)
{
    for (int32_t id = 1; id <= self->brokers; id++)
        if (!chaos_kafka_ok (rd_kafka_mock_broker_set_down (self->mock, id), "broker down", err, err_len))
            return false;
    return true;
}

bool
chaos_kafka_up (chaos_kafka_t *self, char *err, size_t err_len)
{
    for (int32_t id = 1; id <= self->brokers; id++)
        if (!chaos_kafka_ok (rd_kafka_mock_broker_set_up (self->mock, id), "broker up", err, err_len))
            return false;
    return true;
}

static rd_kafka_t *
chaos_kafka_consumer (const chaos_kafka_t *self, char *err, size_t err_len)
{
    char group [64];
    snprintf (group, sizeof group, "dlqd_chaos-%ld-%lld", (long) getpid (), (long long) dlq_time_mono_ms ());
    rd_kafka_conf_t *conf = rd_kafka_conf_new ();
    rd_kafka_conf_set_log_cb (conf, chaos_kafka_quiet);
    bool ok = chaos_kafka_set (conf, "client.id", "dlqd_chaos-consumer", err, err_len)
              && chaos_kafka_set (conf, "bootstrap.servers", chaos_kafka_bootstraps (self), err, err_len)
              && chaos_kafka_set (conf, "group.id", group, err, err_len)
              && chaos_kafka_set (conf, "enable.auto.commit", "false", err, err_len)
              && chaos_kafka_set (conf, "enable.partition.eof", "true", err, err_len)
              && chaos_kafka_set (conf, "fetch.wait.max.ms", "50", err, err_len);
    if (!ok) {
        rd_kafka_conf_destroy (conf);
        return NULL;
    }
    return chaos_kafka_client (RD_KAFKA_CONSUMER, conf, err, err_len);
}

/* The records partitions of topic hold (the sum of their high
 * watermarks), or -1 with err; also -1 when a partition no longer starts
 * at offset 0: the mock drops a partition's oldest records once it holds
 * more than 5 MiB (no setting changes that), which is no loss of dlqd's. */
static long long
chaos_kafka_stored (rd_kafka_t *rk, const char *topic, int partitions, char *err, size_t err_len)
{
    long long total = 0;
    for (int32_t p = 0; p < partitions; p++) {
        int64_t low = 0, high = 0;
        if (!chaos_kafka_ok (rd_kafka_query_watermark_offsets (rk, topic, p, &low, &high, WATERMARK_MS),
                             "watermarks", err, err_len))
            return -1;
        if (low != 0) {
            snprintf (err, err_len, "kafka: %s [%d] starts at offset %lld: the mock cluster dropped its "
                                    "oldest records (it keeps 5 MiB a partition): give the topics more partitions",
                      topic, (int) p, (long long) low);
            return -1;
        }
        total += high;
    }
    return total;
}

bool
chaos_kafka_read (chaos_kafka_t *self, const char *topic, int partitions, int timeout_ms,
                  chaos_kafka_record_fn *fn, void *arg, size_t *count, char *err, size_t err_len)
{
    *count = 0;
    rd_kafka_t *rk = chaos_kafka_consumer (self, err, err_len);
    if (!rk)
        return false;
    rd_kafka_topic_partition_list_t *list = rd_kafka_topic_partition_list_new (partitions);
    for (int32_t p = 0; p < partitions; p++)
        rd_kafka_topic_partition_list_add (list, topic, p)->offset = RD_KAFKA_OFFSET_BEGINNING;
    bool ok = chaos_kafka_ok (rd_kafka_assign (rk, list), "assign", err, err_len);
    rd_kafka_topic_partition_list_destroy (list);
    bool *at_end = dlq_calloc ((size_t) partitions, sizeof *at_end);
    int ended = 0;
    int64_t deadline = dlq_time_mono_ms () + timeout_ms;
    while (ok && ended < partitions && dlq_time_mono_ms () < deadline) {
        rd_kafka_message_t *m = rd_kafka_consumer_poll (rk, POLL_MS);
        if (!m)
            continue;
        bool known = m->partition >= 0 && m->partition < partitions;
        if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
            if (known && !at_end [m->partition]) {
                at_end [m->partition] = true;
                ended++;
            }
        } else if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
            if (known && at_end [m->partition]) {
                at_end [m->partition] = false;
                ended--;
            }
            fn (arg, m->key, m->key_len, m->payload, m->len);
            (*count)++;
        }
        rd_kafka_message_destroy (m);
    }
    if (ok && ended < partitions) {
        snprintf (err, err_len, "kafka: %s: the end of %d of %d partitions not reached in %d ms",
                  topic, partitions - ended, partitions, timeout_ms);
        ok = false;
    }
    long long stored = ok ? chaos_kafka_stored (rk, topic, partitions, err, err_len) : -1;
    if (ok && stored != (long long) *count) {
        if (stored >= 0)
            snprintf (err, err_len, "kafka: %s: read %zu records, the partitions hold %lld", topic, *count,
                      stored);
        ok = false;
    }
    free (at_end);
    rd_kafka_consumer_close (rk);
    rd_kafka_destroy (rk);
    return ok;
}
