/*  kafka_support — librdkafka's mock cluster and a plain consumer for the
 *  tests of the kafka sink.
 *
 *  The mock needs a client handle to own it: a producer that connects to
 *  nothing. The consumer reads without a consumer group: it finds the
 *  topic's partitions in a metadata answer for all topics (asking for the
 *  topic by name would make the mock create it) and assigns them all from
 *  the beginning, so nothing waits for a group rebalance and nothing is
 *  committed.
 */
#include "kafka_support.h"
#include "dlq_alloc.h"
#include "dlq_time.h"
#include "test_support.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define METADATA_WAIT_MS   10000    /* kafka_topic_count, kafka_topic_partitions */
#define WATERMARK_WAIT_MS  10000
#define POLL_MS            100
#define RETRY_PAUSE_MS     100      /* between two looks for a topic not there yet */
#define CLOSE_WAIT_MS      5000

struct kafka_cluster {
    rd_kafka_t              *owner;     /* the handle the mock belongs to */
    rd_kafka_mock_cluster_t *mock;
    int                      brokers;   /* ids 1..brokers */
    char                   **error_topics;  /* given a kafka_cluster_topic_error */
    size_t                   error_topic_count;
};

#define complain(...) test_complain ("kafka_support", __VA_ARGS__)

/* ------------------------------------------------------------------ */
/*  Client handles                                                      */
/* ------------------------------------------------------------------ */

static bool
verbose (void)
{
    const char *env = getenv (KAFKA_VERBOSE_ENV);
    return env && *env;
}

static void
log_line (const rd_kafka_t *rk, int level, const char *facility, const char *line)
{
    if (verbose ())
        fprintf (stderr, "kafka_support: %s %s: %s\n", rd_kafka_name (rk), facility, line);
}

static bool
set_option (rd_kafka_conf_t *conf, const char *name, const char *value)
{
    char why [256];
    if (rd_kafka_conf_set (conf, name, value, why, sizeof why) == RD_KAFKA_CONF_OK)
        return true;
    complain ("%s = %s: %s", name, value, why);
    return false;
}

/* A configuration with quiet logs, client.id = client_id (what verbose
 * logs name) and bootstrap.servers = bootstraps (none when NULL). */
static rd_kafka_conf_t *
new_conf (const char *client_id, const char *bootstraps)
{
    rd_kafka_conf_t *conf = rd_kafka_conf_new ();
    rd_kafka_conf_set_log_cb (conf, log_line);
    if (!set_option (conf, "client.id", client_id)
        || (bootstraps && !set_option (conf, "bootstrap.servers", bootstraps))) {
        rd_kafka_conf_destroy (conf);
        return NULL;
    }
    return conf;
}

/* A client of type made from conf, which it takes (also on failure). */
static rd_kafka_t *
new_client (rd_kafka_type_t type, rd_kafka_conf_t *conf)
{
    char why [512];
    rd_kafka_t *rk = rd_kafka_new (type, conf, why, sizeof why);
    if (!rk) {
        complain ("rd_kafka_new: %s", why);
        rd_kafka_conf_destroy (conf);
    }
    return rk;
}

/* A producer for metadata and watermark queries (it produces nothing). */
static rd_kafka_t *
new_query_client (const char *bootstraps)
{
    rd_kafka_conf_t *conf = new_conf ("kafka_support-query", bootstraps);
    return conf ? new_client (RD_KAFKA_PRODUCER, conf) : NULL;
}

/* ------------------------------------------------------------------ */
/*  The mock cluster                                                    */
/* ------------------------------------------------------------------ */

kafka_cluster_t *
kafka_cluster_new (int brokers)
{
    rd_kafka_conf_t *conf = new_conf ("kafka_support-mock", NULL);
    rd_kafka_t *owner = conf ? new_client (RD_KAFKA_PRODUCER, conf) : NULL;
    if (!owner)
        return NULL;
    rd_kafka_mock_cluster_t *mock = rd_kafka_mock_cluster_new (owner, brokers);
    if (!mock) {
        complain ("rd_kafka_mock_cluster_new (%d brokers) failed", brokers);
        rd_kafka_destroy (owner);
        return NULL;
    }
    kafka_cluster_t *c = dlq_calloc (1, sizeof *c);
    c->owner = owner;
    c->mock = mock;
    c->brokers = brokers;
    return c;
}

const char *
kafka_cluster_bootstraps (const kafka_cluster_t *c)
{
    return rd_kafka_mock_cluster_bootstraps (c->mock);
}

rd_kafka_mock_cluster_t *
kafka_cluster_mock (kafka_cluster_t *c)
{
    return c->mock;
}

static void
forget_error_topics (kafka_cluster_t *c)
{
    for (size_t i = 0; i < c->error_topic_count; i++)
        free (c->error_topics [i]);
    free (c->error_topics);
    c->error_topics = NULL;
    c->error_topic_count = 0;
}

void
kafka_cluster_destroy (kafka_cluster_t **c)
{
    if (!c || !*c)
        return;
    rd_kafka_mock_cluster_destroy ((*c)->mock);
    rd_kafka_destroy ((*c)->owner);
    forget_error_topics (*c);
    free (*c);
    *c = NULL;
}

/* True for no error; else say what failed. */
static bool
mock_ok (rd_kafka_resp_err_t err, const char *what)
{
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR)
        return true;
    complain ("%s: %s", what, rd_kafka_err2str (err));
    return false;
}

bool
kafka_cluster_create_topic (kafka_cluster_t *c, const char *topic, int partitions,
                            int replication)
{
    return mock_ok (rd_kafka_mock_topic_create (c->mock, topic, partitions, replication),
                    "create topic");
}

/* ------------------------------------------------------------------ */
/*  Faults                                                              */
/* ------------------------------------------------------------------ */

bool
kafka_cluster_broker_down (kafka_cluster_t *c, int32_t broker_id)
{
    return mock_ok (rd_kafka_mock_broker_set_down (c->mock, broker_id), "broker down");
}

bool
kafka_cluster_broker_up (kafka_cluster_t *c, int32_t broker_id)
{
    return mock_ok (rd_kafka_mock_broker_set_up (c->mock, broker_id), "broker up");
}

bool
kafka_cluster_all_brokers_down (kafka_cluster_t *c)
{
    bool ok = true;
    for (int32_t id = 1; id <= c->brokers; id++)
        ok = kafka_cluster_broker_down (c, id) && ok;
    return ok;
}

bool
kafka_cluster_all_brokers_up (kafka_cluster_t *c)
{
    bool ok = true;
    for (int32_t id = 1; id <= c->brokers; id++)
        ok = kafka_cluster_broker_up (c, id) && ok;
    return ok;
}

bool
kafka_cluster_broker_rtt (kafka_cluster_t *c, int32_t broker_id, int rtt_ms)
{
    return mock_ok (rd_kafka_mock_broker_set_rtt (c->mock, broker_id, rtt_ms), "broker rtt");
}

bool
kafka_cluster_partition_leader (kafka_cluster_t *c, const char *topic, int32_t partition,
                                int32_t broker_id)
{
    return mock_ok (rd_kafka_mock_partition_set_leader (c->mock, topic, partition, broker_id),
                    "partition leader");
}

void
kafka_cluster_push_produce_errors_array (kafka_cluster_t *c, size_t count,
                                         const rd_kafka_resp_err_t *errors)
{
    rd_kafka_mock_push_request_errors_array (c->mock, KAFKA_API_PRODUCE, count, errors);
}

void
kafka_cluster_push_produce_errors (kafka_cluster_t *c, size_t count, ...)
{
    rd_kafka_resp_err_t *errors = dlq_calloc (count, sizeof *errors);
    va_list ap;
    va_start (ap, count);
    for (size_t i = 0; i < count; i++)
        errors [i] = (rd_kafka_resp_err_t) va_arg (ap, int);
    va_end (ap);
    kafka_cluster_push_produce_errors_array (c, count, errors);
    free (errors);
}

static void
remember_error_topic (kafka_cluster_t *c, const char *topic)
{
    for (size_t i = 0; i < c->error_topic_count; i++)
        if (strcmp (c->error_topics [i], topic) == 0)
            return;
    c->error_topics = dlq_realloc (c->error_topics,
                                   (c->error_topic_count + 1) * sizeof *c->error_topics);
    c->error_topics [c->error_topic_count++] = dlq_strdup (topic);
}

void
kafka_cluster_topic_error (kafka_cluster_t *c, const char *topic, rd_kafka_resp_err_t err)
{
    rd_kafka_mock_topic_set_error (c->mock, topic, err);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR)
        remember_error_topic (c, topic);
}

void
kafka_cluster_clear_errors (kafka_cluster_t *c)
{
    rd_kafka_mock_clear_request_errors (c->mock, KAFKA_API_PRODUCE);
    for (size_t i = 0; i < c->error_topic_count; i++)
        rd_kafka_mock_topic_set_error (c->mock, c->error_topics [i], RD_KAFKA_RESP_ERR_NO_ERROR);
    forget_error_topics (c);
}

/* ------------------------------------------------------------------ */
/*  Topics                                                              */
/* ------------------------------------------------------------------ */

/* The number of partitions of topic in an answer for all topics: 0 when
 * it is not there, -1 when the cluster did not answer within wait_ms. */
static int
partitions_of (rd_kafka_t *rk, const char *topic, int wait_ms)
{
    const struct rd_kafka_metadata *md = NULL;
    rd_kafka_resp_err_t err = rd_kafka_metadata (rk, 1, NULL, &md, wait_ms);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        complain ("metadata: %s", rd_kafka_err2str (err));
        return -1;
    }
    int partitions = 0;
    for (int i = 0; i < md->topic_cnt; i++)
        if (strcmp (md->topics [i].topic, topic) == 0)
            partitions = md->topics [i].partition_cnt;
    rd_kafka_metadata_destroy (md);
    return partitions;
}

/* partitions_of, asked again until the topic exists or deadline (monotonic
 * ms) passed: its partitions, 0 when it never appeared, -1 on an error. */
static int
wait_for_partitions (rd_kafka_t *rk, const char *topic, int64_t deadline)
{
    for (;;) {
        int64_t left = deadline - dlq_time_mono_ms ();
        int partitions = partitions_of (rk, topic, left > 0 ? (int) left : 1);
        if (partitions != 0 || dlq_time_mono_ms () + RETRY_PAUSE_MS >= deadline)
            return partitions;
        usleep (RETRY_PAUSE_MS * 1000);
    }
}

int
kafka_topic_partitions (const char *bootstraps, const char *topic)
{
    rd_kafka_t *rk = new_query_client (bootstraps);
    if (!rk)
        return -1;
    int partitions = partitions_of (rk, topic, METADATA_WAIT_MS);
    rd_kafka_destroy (rk);
    return partitions;
}

/* The number of records in partition of topic; -1 on an error. */
static long
partition_count (rd_kafka_t *rk, const char *topic, int32_t partition)
{
    int64_t low = 0, high = 0;
    rd_kafka_resp_err_t err = rd_kafka_query_watermark_offsets (rk, topic, partition, &low,
                                                                &high, WATERMARK_WAIT_MS);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        complain ("watermarks of %s [%d]: %s", topic, (int) partition, rd_kafka_err2str (err));
        return -1;
    }
    return (long) (high - low);
}

long
kafka_topic_count (const char *bootstraps, const char *topic)
{
    rd_kafka_t *rk = new_query_client (bootstraps);
    if (!rk)
        return -1;
    int partitions = partitions_of (rk, topic, METADATA_WAIT_MS);
    long total = partitions > 0 ? 0 : -1;
    for (int32_t p = 0; p < partitions && total >= 0; p++) {
        long count = partition_count (rk, topic, p);
        total = count < 0 ? -1 : total + count;
    }
    rd_kafka_destroy (rk);
    return total;
}

/* ------------------------------------------------------------------ */
/*  Records                                                             */
/* ------------------------------------------------------------------ */

static void
copy_headers (kafka_record_t *rec, const rd_kafka_message_t *m)
{
    rd_kafka_headers_t *headers = NULL;
    if (rd_kafka_message_headers (m, &headers) != RD_KAFKA_RESP_ERR_NO_ERROR)
        return;
    size_t count = rd_kafka_header_cnt (headers);
    rec->headers = dlq_calloc (count, sizeof *rec->headers);
    for (size_t i = 0; i < count; i++) {
        const char *name = NULL;
        const void *value = NULL;
        size_t len = 0;
        if (rd_kafka_header_get_all (headers, i, &name, &value, &len) != RD_KAFKA_RESP_ERR_NO_ERROR)
            break;
        kafka_header_t *h = &rec->headers [rec->header_count++];
        h->name = dlq_strdup (name);
        h->value = value ? dlq_strndup (value, len) : NULL;
        h->value_len = value ? len : 0;
    }
}

static void
copy_record (kafka_record_t *rec, const rd_kafka_message_t *m)
{
    memset (rec, 0, sizeof *rec);
    rec->topic = dlq_strdup (rd_kafka_topic_name (m->rkt));
    rec->partition = m->partition;
    rec->offset = m->offset;
    if (m->key) {
        rec->key = dlq_strndup (m->key, m->key_len);
        rec->key_len = m->key_len;
    }
    if (m->payload) {
        rec->value = dlq_strndup (m->payload, m->len);
        rec->value_len = m->len;
    }
    rec->timestamp = rd_kafka_message_timestamp (m, &rec->timestamp_type);
    copy_headers (rec, m);
}

static void
free_record (kafka_record_t *rec)
{
    free (rec->topic);
    free (rec->key);
    free (rec->value);
    for (size_t i = 0; i < rec->header_count; i++) {
        free (rec->headers [i].name);
        free (rec->headers [i].value);
    }
    free (rec->headers);
}

void
kafka_records_free (kafka_records_t *list)
{
    for (size_t i = 0; i < list->count; i++)
        free_record (&list->items [i]);
    free (list->items);
    list->items = NULL;
    list->count = 0;
}

static void
append_record (kafka_records_t *list, size_t *capacity, const rd_kafka_message_t *m)
{
    if (list->count == *capacity) {
        size_t grown_capacity = *capacity ? *capacity * 2 : 64;
        list->items = dlq_realloc (list->items, grown_capacity * sizeof *list->items);
        *capacity = grown_capacity;
    }
    copy_record (&list->items [list->count++], m);
}

static int
by_partition_then_offset (const void *a, const void *b)
{
    const kafka_record_t *x = a, *y = b;
    if (x->partition != y->partition)
        return x->partition < y->partition ? -1 : 1;
    return (x->offset > y->offset) - (x->offset < y->offset);
}

const kafka_header_t *
kafka_record_header (const kafka_record_t *rec, const char *name)
{
    for (size_t i = 0; i < rec->header_count; i++)
        if (strcmp (rec->headers [i].name, name) == 0)
            return &rec->headers [i];
    return NULL;
}

size_t
kafka_record_header_count (const kafka_record_t *rec, const char *name)
{
    size_t count = 0;
    for (size_t i = 0; i < rec->header_count; i++)
        if (strcmp (rec->headers [i].name, name) == 0)
            count++;
    return count;
}

/* ------------------------------------------------------------------ */
/*  The consumer                                                        */
/* ------------------------------------------------------------------ */

/* A group id no other consumer uses (the group is never joined: the
 * consumer assigns its partitions itself, but librdkafka wants one). */
static void
unique_group_id (char *out, size_t len)
{
    static unsigned serial;
    snprintf (out, len, "dlqd-test-%ld-%u-%ld", (long) getpid (), ++serial, (long) dlq_time_mono_ms ());
}

static rd_kafka_t *
new_consumer (const char *bootstraps)
{
    char group [96];
    unique_group_id (group, sizeof group);
    rd_kafka_conf_t *conf = new_conf ("kafka_support-consumer", bootstraps);
    if (!conf)
        return NULL;
    bool ok = set_option (conf, "group.id", group)
              && set_option (conf, "enable.auto.commit", "false")
              && set_option (conf, "enable.auto.offset.store", "false")
              && set_option (conf, "enable.partition.eof", "true")
              && set_option (conf, "allow.auto.create.topics", "false")
              && set_option (conf, "fetch.wait.max.ms", "50");
    if (!ok) {
        rd_kafka_conf_destroy (conf);
        return NULL;
    }
    return new_client (RD_KAFKA_CONSUMER, conf);
}

static bool
assign_from_beginning (rd_kafka_t *rk, const char *topic, int partitions)
{
    rd_kafka_topic_partition_list_t *list = rd_kafka_topic_partition_list_new (partitions);
    for (int32_t p = 0; p < partitions; p++)
        rd_kafka_topic_partition_list_add (list, topic, p)->offset = RD_KAFKA_OFFSET_BEGINNING;
    rd_kafka_resp_err_t err = rd_kafka_assign (rk, list);
    rd_kafka_topic_partition_list_destroy (list);
    if (err != RD_KAFKA_RESP_ERR_NO_ERROR)
        complain ("assign %s: %s", topic, rd_kafka_err2str (err));
    return err == RD_KAFKA_RESP_ERR_NO_ERROR;
}

/* What a read has seen so far. */
typedef struct {
    size_t  want;               /* 0: up to the end of every partition */
    int     partitions;
    bool   *at_end;             /* per partition: reached its end, nothing since */
    int     partitions_at_end;
} read_progress_t;

static void
mark_end (read_progress_t *progress, int32_t partition, bool at_end)
{
    if (partition < 0 || partition >= progress->partitions
        || progress->at_end [partition] == at_end)
        return;
    progress->at_end [partition] = at_end;
    progress->partitions_at_end += at_end ? 1 : -1;
}

static bool
read_done (const read_progress_t *progress, const kafka_records_t *out)
{
    if (progress->want > 0)
        return out->count >= progress->want;
    return progress->partitions_at_end == progress->partitions;
}

/* Take one message from the poll: a record, the end of a partition, or an
 * error (said when verbose: the consumer retries by itself). */
static void
take_message (const rd_kafka_message_t *m, read_progress_t *progress, kafka_records_t *out,
              size_t *capacity)
{
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
        mark_end (progress, m->partition, true);
    } else if (m->err != RD_KAFKA_RESP_ERR_NO_ERROR) {
        if (verbose ())
            complain ("consumer: %s", rd_kafka_err2str (m->err));
    } else {
        mark_end (progress, m->partition, false);
        append_record (out, capacity, m);
    }
}

static void
read_until (rd_kafka_t *rk, read_progress_t *progress, int64_t deadline, kafka_records_t *out)
{
    size_t capacity = 0;
    while (!read_done (progress, out)) {
        int64_t left = deadline - dlq_time_mono_ms ();
        if (left <= 0)
            break;
        rd_kafka_message_t *m = rd_kafka_consumer_poll (rk, left < POLL_MS ? (int) left : POLL_MS);
        if (!m)
            continue;
        take_message (m, progress, out, &capacity);
        rd_kafka_message_destroy (m);
    }
}

static void
close_consumer (rd_kafka_t *rk)
{
    rd_kafka_consumer_close (rk);
    rd_kafka_destroy (rk);
}

bool
kafka_consume_all (const char *bootstraps, const char *topic, size_t want, int timeout_ms,
                   kafka_records_t *out)
{
    out->items = NULL;
    out->count = 0;
    int64_t deadline = dlq_time_mono_ms () + timeout_ms;
    rd_kafka_t *rk = new_consumer (bootstraps);
    if (!rk)
        return false;
    int partitions = wait_for_partitions (rk, topic, deadline);
    if (partitions <= 0 || !assign_from_beginning (rk, topic, partitions)) {
        if (partitions == 0)
            complain ("topic %s does not exist", topic);
        close_consumer (rk);
        return false;
    }
    read_progress_t progress = { .want = want, .partitions = partitions };
    progress.at_end = dlq_calloc ((size_t) partitions, sizeof *progress.at_end);
    read_until (rk, &progress, deadline, out);
    free (progress.at_end);
    close_consumer (rk);
    if (out->count > 1)
        qsort (out->items, out->count, sizeof *out->items, by_partition_then_offset);
    return true;
}
