/*  bench_kafka — the kafka sink vs. a raw librdkafka producer on a mock
 *  cluster; see bench_kafka.h.
 *
 *  The mock cluster belongs to a producer that connects nowhere (the
 *  owner), configured with socket.nagle.disable = true: the mock's broker
 *  connections take their socket options from it, and so answer at once,
 *  as a Kafka broker does (it sets TCP_NODELAY). With Nagle on, the
 *  response that ends a burst waits for the client's delayed ACK (40 ms on
 *  Linux): a client that waits for its reports before producing more (the
 *  sink, batch by batch) would pay that every batch, a streaming one
 *  hardly ever. A second client of the cluster (the query client) reads
 *  the watermarks that count each run's records. (i) is bench_sink_drain
 *  with a kafka sink "kafka" whose topic_prefix is the run's. (ii) makes a
 *  producer of its own (not timed), produces the events as the sink's
 *  deliver does, and serves delivery reports until each record has one.
 */
#include "bench_kafka.h"

#include "dlq_alloc.h"
#include "dlq_buf.h"
#include "dlq_time.h"
#include "kafka_format.h"

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SINK_NAME           "kafka"
#define BROKERS             3
#define PARTITIONS          3           /* of each run's topics, unless settings say */
#define CLIENT_WAIT_MS      10000       /* a watermark query */
#define REPORT_TIMEOUT_MS   60000       /* raw: no report this long fails the run */
#define POLL_MS             100
#define QUEUE_FULL_MS       10          /* as the sink, when librdkafka's queue is full */
#define LOG_LEVEL           3           /* librdkafka's log lines up to LOG_ERR go to stderr */
#define WARM_UP_EVENTS      10000
#define MAX_STREAMS         64
#define ERR_LEN             4096
#define PREFIX_LEN          64
#define RAW_DONE            "records, every delivery report OK"

/* How both produce: the sink's defaults (sinks/kafka/kafka_sink.c), or
 * the values the sink's settings give. */
typedef struct {
    dlq_kafka_key_t key;
    int             partitions;         /* of the topics the benchmark creates */
    int             replication;
    char          **rdkafka;            /* the rdkafka entries split: name, value, name, ..., NULL */
    size_t          rdkafka_count;      /* entries */
} producing_t;

typedef struct {
    rd_kafka_t              *owner;             /* the mock cluster's handle */
    rd_kafka_mock_cluster_t *mock;
    const char              *bootstraps;        /* the mock's, valid while it is */
    rd_kafka_t              *query;             /* a client of the cluster, for watermarks */
    char                     prefix [24];       /* dlq_bench.<tag>: every topic */
    producing_t              pro;
    dlq_sink_event_t        *events;            /* as deliver gets them */
    const char              *streams [MAX_STREAMS]; /* of the workload, each once */
    size_t                   stream_count;
} bench_kc_t;

/* librdkafka's delivery report and error callbacks. */
typedef void (report_fn_t) (rd_kafka_t *rk, const rd_kafka_message_t *message, void *opaque);
typedef void (error_fn_t) (rd_kafka_t *rk, int code, const char *reason, void *opaque);

/* What a run needs (the ctx of bench_sink_rounds). */
typedef struct {
    const bench_kafka_options_t *options;
    bench_kc_t                  *kc;
    const char                  *dir;
    const bench_events_t        *events;
} runner_t;

/* Settings of the sink's section the benchmark writes itself, or that
 * would make the sink produce elsewhere than the raw producer. */
static const char *const owned_settings [] = {
    "bootstrap_servers", "topic_prefix", "topic", "create_topics", NULL
};

/* librdkafka settings the sink sets itself and refuses in rdkafka. */
static const char *const reserved_rdkafka [] = {
    "bootstrap.servers", "metadata.broker.list", "enable.idempotence", "acks", "request.required.acks"
};


/* ------------------------------------------------------------------------ */
/* The settings */

static bool
reserved (const char *name)
{
    for (size_t i = 0; i < sizeof reserved_rdkafka / sizeof reserved_rdkafka [0]; i++)
        if (strcmp (name, reserved_rdkafka [i]) == 0)
            return true;
    return false;
}

/* The rdkafka = [ "name=value", ... ] list, split into pro. */
static bool
read_rdkafka (const config_setting_t *list, producing_t *pro, char *err, size_t err_len)
{
    if (!config_setting_is_aggregate (list)) {
        snprintf (err, err_len, "--kafka-settings: rdkafka must be a list of \"name=value\" strings");
        return false;
    }
    int count = config_setting_length (list);
    pro->rdkafka = dlq_calloc (2 * (size_t) count + 1, sizeof *pro->rdkafka);
    for (int i = 0; i < count; i++) {
        const char *item = config_setting_get_string_elem (list, i), *value;
        size_t name_len;
        if (!item || !dlq_kafka_split_setting (item, &name_len, &value)) {
            snprintf (err, err_len, "--kafka-settings: rdkafka entry %d is not a \"name=value\" string", i + 1);
            return false;
        }
        char *name = dlq_strndup (item, name_len);
        pro->rdkafka [2 * pro->rdkafka_count] = name;
        pro->rdkafka [2 * pro->rdkafka_count + 1] = dlq_strdup (value);
        pro->rdkafka_count++;
        if (reserved (name)) {
            snprintf (err, err_len, "--kafka-settings: rdkafka: %s is the sink's own (idempotent producer,"
                      " acks=all, the cluster's bootstraps)", name);
            return false;
        }
    }
    return true;
}

/* What settings (the text of the sink's section) change for producing. */
static bool
apply_settings (const config_t *cfg, producing_t *pro, char *err, size_t err_len)
{
    const char *key = NULL;
    int partitions = 0, replication = 0;
    if (config_lookup_string (cfg, "s.key", &key)) {
        if (strcmp (key, "id") != 0 && strcmp (key, "document_key") != 0) {
            snprintf (err, err_len, "--kafka-settings: key must be \"id\" or \"document_key\", not \"%s\"", key);
            return false;
        }
        pro->key = strcmp (key, "id") == 0 ? DLQ_KAFKA_KEY_ID : DLQ_KAFKA_KEY_DOCUMENT_KEY;
    }
    if (config_lookup_int (cfg, "s.partitions", &partitions)) {
        if (partitions < 1 || partitions > 100000) {
            snprintf (err, err_len, "--kafka-settings: partitions %d is not from 1 to 100000", partitions);
            return false;
        }
        pro->partitions = partitions;
    }
    if (config_lookup_int (cfg, "s.replication_factor", &replication)) {
        if (replication == 0 || replication < -1 || replication > BROKERS) {
            snprintf (err, err_len, "--kafka-settings: replication_factor %d: the mock cluster has %d brokers"
                      " (-1: all of them)", replication, BROKERS);
            return false;
        }
        pro->replication = replication == -1 ? BROKERS : replication;
    }
    const config_setting_t *list = config_lookup (cfg, "s.rdkafka");
    return !list || read_rdkafka (list, pro, err, err_len);
}

static bool
read_settings (const char *settings, producing_t *pro, char *err, size_t err_len)
{
    *pro = (producing_t) { .key = DLQ_KAFKA_KEY_ID, .partitions = PARTITIONS, .replication = BROKERS };
    config_t cfg;
    if (!bench_sink_settings ("kafka", settings, owned_settings, &cfg, err, err_len))
        return false;
    bool ok = apply_settings (&cfg, pro, err, err_len);
    config_destroy (&cfg);
    return ok;
}


/* ------------------------------------------------------------------------ */
/* Clients and the cluster */

static void
on_log (const rd_kafka_t *rk, int level, const char *facility, const char *text)
{
    if (level <= LOG_LEVEL)
        fprintf (stderr, "dlqd_bench: librdkafka %s %s: %s\n", rd_kafka_name (rk), facility, text);
}

/* A producer with the benchmark's log lines and settings, a
 * NULL-terminated list of name, value pairs; opaque and its callbacks
 * when dr is not NULL. NULL with err. */
static rd_kafka_t *
new_producer (const char *const *settings, void *opaque, report_fn_t *dr, error_fn_t *error,
              char *err, size_t err_len)
{
    rd_kafka_conf_t *conf = rd_kafka_conf_new ();
    rd_kafka_conf_set_log_cb (conf, on_log);
    char why [512];
    for (const char *const *s = settings; *s; s += 2)
        if (rd_kafka_conf_set (conf, s [0], s [1], why, sizeof why) != RD_KAFKA_CONF_OK) {
            snprintf (err, err_len, "rdkafka: %s=%s: %s", s [0], s [1], why);
            rd_kafka_conf_destroy (conf);
            return NULL;
        }
    if (dr) {
        rd_kafka_conf_set_opaque (conf, opaque);
        rd_kafka_conf_set_dr_msg_cb (conf, dr);
        rd_kafka_conf_set_error_cb (conf, error);
    }
    rd_kafka_t *rk = rd_kafka_new (RD_KAFKA_PRODUCER, conf, why, sizeof why);
    if (!rk) {
        snprintf (err, err_len, "rd_kafka_new: %s", why);
        rd_kafka_conf_destroy (conf);
    }
    return rk;
}

/* The streams of the workload, each once. */
static bool
find_streams (bench_kc_t *kc, const bench_events_t *ev, char *err, size_t err_len)
{
    for (size_t i = 0; i < ev->count; i++) {
        const char *stream = ev->rows [i].stream_name;
        size_t s = 0;
        while (s < kc->stream_count && strcmp (kc->streams [s], stream) != 0)
            s++;
        if (s < kc->stream_count)
            continue;
        if (kc->stream_count == MAX_STREAMS) {
            snprintf (err, err_len, "the workload has more than %d streams", MAX_STREAMS);
            return false;
        }
        kc->streams [kc->stream_count++] = stream;
    }
    return true;
}

/* The mock cluster (see the banner) and the query client. */
static bool
start_cluster (bench_kc_t *kc, char *err, size_t err_len)
{
    const char *const owner [] = { "client.id", "dlqd_bench-mock", "socket.nagle.disable", "true", NULL };
    kc->owner = new_producer (owner, NULL, NULL, NULL, err, err_len);
    kc->mock = kc->owner ? rd_kafka_mock_cluster_new (kc->owner, BROKERS) : NULL;
    if (kc->owner && !kc->mock)
        snprintf (err, err_len, "cannot start a mock cluster of %d brokers", BROKERS);
    if (!kc->mock)
        return false;
    kc->bootstraps = rd_kafka_mock_cluster_bootstraps (kc->mock);
    const char *const query [] = { "client.id", "dlqd_bench-query", "bootstrap.servers", kc->bootstraps, NULL };
    kc->query = new_producer (query, NULL, NULL, NULL, err, err_len);
    return kc->query != NULL;
}

static bool
open_kc (bench_kc_t *kc, const bench_kafka_options_t *o, const bench_events_t *ev, char *err, size_t err_len)
{
    unsigned tag = (unsigned) getpid () ^ (unsigned) (dlq_time_now_ms () & 0xffffff);
    snprintf (kc->prefix, sizeof kc->prefix, "dlq_bench.%x", tag);
    kc->events = bench_sink_events (ev);
    return read_settings (o->settings, &kc->pro, err, err_len) && find_streams (kc, ev, err, err_len)
        && start_cluster (kc, err, err_len);
}

static void
close_kc (bench_kc_t *kc)
{
    if (kc->query)
        rd_kafka_destroy (kc->query);
    if (kc->mock)
        rd_kafka_mock_cluster_destroy (kc->mock);
    if (kc->owner)
        rd_kafka_destroy (kc->owner);
    for (size_t i = 0; i < 2 * kc->pro.rdkafka_count; i++)
        free (kc->pro.rdkafka [i]);
    free (kc->pro.rdkafka);
    free (kc->events);
}


/* ------------------------------------------------------------------------ */
/* Each run's topics */

/* The topic_prefix of a run: <prefix>.<kind><number>. */
static void
run_prefix (const bench_kc_t *kc, const bench_run_t *run, char *out)
{
    snprintf (out, PREFIX_LEN, "%s.%s%zu.", kc->prefix, run->kind == BENCH_RUN_DRAIN ? "drain" : "raw",
              run->number);
}

/* A topic of the run for each stream of the workload. */
static bool
create_topics (const bench_kc_t *kc, const char *prefix, char *err, size_t err_len)
{
    char topic [DLQ_KAFKA_TOPIC_MAX + 1];
    for (size_t s = 0; s < kc->stream_count; s++) {
        if (!dlq_kafka_topic (prefix, kc->streams [s], NULL, topic)) {
            snprintf (err, err_len, "%s%s is not a legal Kafka topic name", prefix, kc->streams [s]);
            return false;
        }
        rd_kafka_resp_err_t code = rd_kafka_mock_topic_create (kc->mock, topic, kc->pro.partitions,
                                                               kc->pro.replication);
        if (code != RD_KAFKA_RESP_ERR_NO_ERROR) {
            snprintf (err, err_len, "create topic %s: %s", topic, rd_kafka_err2str (code));
            return false;
        }
    }
    return true;
}

/* The run's topics must hold count records: the sum of their partitions'
 * high watermarks (their logs start at 0). */
static bool
count_records (const bench_kc_t *kc, const char *prefix, size_t count, char *err, size_t err_len)
{
    char topic [DLQ_KAFKA_TOPIC_MAX + 1];
    long long total = 0;
    for (size_t s = 0; s < kc->stream_count; s++) {
        dlq_kafka_topic (prefix, kc->streams [s], NULL, topic);
        for (int32_t p = 0; p < kc->pro.partitions; p++) {
            int64_t low = 0, high = 0;
            rd_kafka_resp_err_t code = rd_kafka_query_watermark_offsets (kc->query, topic, p, &low, &high,
                                                                          CLIENT_WAIT_MS);
            if (code != RD_KAFKA_RESP_ERR_NO_ERROR) {
                snprintf (err, err_len, "watermarks of %s [%d]: %s", topic, (int) p, rd_kafka_err2str (code));
                return false;
            }
            total += high;
        }
    }
    if (total == (long long) count)
        return true;
    snprintf (err, err_len, "the run's topics (%s*) hold %lld records, expected %zu", prefix, total, count);
    return false;
}


/* ------------------------------------------------------------------------ */
/* The raw producer */

typedef struct {
    size_t reported;                    /* delivery reports served */
    size_t failed;                      /* with an error */
    char   first_error [256];
    char   cluster_error [256];         /* the last error callback */
} reports_t;

static void
on_report (rd_kafka_t *rk, const rd_kafka_message_t *message, void *opaque)
{
    (void) rk;
    reports_t *r = opaque;
    r->reported++;
    if (message->err != RD_KAFKA_RESP_ERR_NO_ERROR && r->failed++ == 0)
        snprintf (r->first_error, sizeof r->first_error, "record %zu: %s: %s",
                  (size_t) (uintptr_t) message->_private, rd_kafka_err2name (message->err),
                  rd_kafka_err2str (message->err));
}

static void
on_error (rd_kafka_t *rk, int code, const char *reason, void *opaque)
{
    (void) rk;
    reports_t *r = opaque;
    snprintf (r->cluster_error, sizeof r->cluster_error, "%s: %s",
              rd_kafka_err2name ((rd_kafka_resp_err_t) code), reason);
}

/* A producer configured as the sink's (idempotent, acks=all, the rdkafka
 * entries), reporting to r. */
static rd_kafka_t *
raw_producer (const bench_kc_t *kc, reports_t *r, char *err, size_t err_len)
{
    const char *own [] = {
        "client.id", "dlqd_bench-raw", "bootstrap.servers", kc->bootstraps, "enable.idempotence", "true",
        "acks", "all"
    };
    size_t n = sizeof own / sizeof own [0];
    const char **settings = dlq_calloc (n + 2 * kc->pro.rdkafka_count + 1, sizeof *settings);
    memcpy (settings, own, sizeof own);
    if (kc->pro.rdkafka_count)
        memcpy (settings + n, kc->pro.rdkafka, 2 * kc->pro.rdkafka_count * sizeof *settings);
    rd_kafka_t *rk = new_producer (settings, r, on_report, on_error, err, err_len);
    free (settings);
    return rk;
}

/* One raw run's producer. */
typedef struct {
    const bench_kc_t *kc;
    const char       *prefix;                   /* the run's topic_prefix */
    rd_kafka_t       *rk;
    reports_t         reports;
    rd_kafka_topic_t *topics [MAX_STREAMS];     /* per stream of kc, made on first use */
} producer_t;

/* The handle of stream's topic, made on first use with rd_kafka_topic_new,
 * which asks for the topic's metadata at once (produced to by name, a
 * topic the producer does not know yet would wait for librdkafka's topic
 * scan, up to 1 s, unless the first connection's metadata request, made
 * after the first produce, named it); NULL with err. */
static rd_kafka_topic_t *
topic_of (producer_t *p, const char *stream, char *err, size_t err_len)
{
    size_t s = 0;
    while (s < p->kc->stream_count && strcmp (p->kc->streams [s], stream) != 0)
        s++;
    char topic [DLQ_KAFKA_TOPIC_MAX + 1];
    if (s < p->kc->stream_count && !p->topics [s] && dlq_kafka_topic (p->prefix, stream, NULL, topic))
        p->topics [s] = rd_kafka_topic_new (p->rk, topic, NULL);
    if (s < p->kc->stream_count && p->topics [s])
        return p->topics [s];
    snprintf (err, err_len, "no topic for stream %s under %s", stream, p->prefix);
    return NULL;
}

/* Produce event i to the topic of its stream, as the sink does (copied,
 * its index as the opaque); a full local queue is polled until it has
 * room. */
static bool
produce_one (producer_t *p, const dlq_sink_event_t *e, size_t i, char *err, size_t err_len)
{
    rd_kafka_topic_t *topic = topic_of (p, e->stream_name, err, err_len);
    if (!topic)
        return false;
    dlq_kafka_record_t record;
    dlq_kafka_record_format (&record, e, p->kc->pro.key);
    rd_kafka_vu_t vu [5 + DLQ_KAFKA_HEADERS_MAX] = {
        { .vtype = RD_KAFKA_VTYPE_RKT, .u.rkt = topic },
        { .vtype = RD_KAFKA_VTYPE_MSGFLAGS, .u.i = RD_KAFKA_MSG_F_COPY },
        { .vtype = RD_KAFKA_VTYPE_VALUE, .u.mem = { (void *) record.value, record.value_len } },
        { .vtype = RD_KAFKA_VTYPE_KEY, .u.mem = { (void *) record.key, record.key_len } },
        { .vtype = RD_KAFKA_VTYPE_OPAQUE, .u.ptr = (void *) (uintptr_t) i },
    };
    size_t n = 5;
    for (const dlq_kafka_header_t *h = record.headers; h < record.headers + record.header_count; h++, n++) {
        vu [n].vtype = RD_KAFKA_VTYPE_HEADER;
        vu [n].u.header.name = h->name;
        vu [n].u.header.val = h->value;
        vu [n].u.header.size = (ssize_t) strlen (h->value);
    }
    rd_kafka_error_t *error;
    while ((error = rd_kafka_produceva (p->rk, vu, n)) != NULL
           && rd_kafka_error_code (error) == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        rd_kafka_error_destroy (error);
        rd_kafka_poll (p->rk, QUEUE_FULL_MS);
    }
    if (!error)
        return true;
    snprintf (err, err_len, "produce record %zu: %s", i, rd_kafka_error_string (error));
    rd_kafka_error_destroy (error);
    return false;
}

/* Serve reports until there is one for each of count records; false when
 * none came for REPORT_TIMEOUT_MS. */
static bool
await_reports (producer_t *p, size_t count, char *err, size_t err_len)
{
    const reports_t *r = &p->reports;
    int64_t last_ms = dlq_time_mono_ms ();
    size_t seen = r->reported;
    while (r->reported < count) {
        rd_kafka_poll (p->rk, POLL_MS);
        int64_t now = dlq_time_mono_ms ();
        if (r->reported > seen) {
            seen = r->reported;
            last_ms = now;
        }
        else
        if (now - last_ms > REPORT_TIMEOUT_MS) {
            snprintf (err, err_len, "no delivery report within %d ms (%zu of %zu in; last cluster error: %s)",
                      REPORT_TIMEOUT_MS, r->reported, count, r->cluster_error [0] ? r->cluster_error : "none");
            return false;
        }
    }
    return true;
}

/* Produce the first count events under prefix with a producer of its own;
 * *seconds from the first produce until each record has its report. */
static bool
produce_all (const bench_kc_t *kc, const char *prefix, size_t count, double *seconds, char *err, size_t err_len)
{
    producer_t p = { .kc = kc, .prefix = prefix };
    p.rk = raw_producer (kc, &p.reports, err, err_len);
    if (!p.rk)
        return false;
    bool ok = true;
    int64_t start = dlq_time_mono_ns ();
    for (size_t i = 0; ok && i < count; i++) {
        ok = produce_one (&p, &kc->events [i], i, err, err_len);
        rd_kafka_poll (p.rk, 0);
    }
    ok = ok && await_reports (&p, count, err, err_len);
    *seconds = (double) (dlq_time_mono_ns () - start) / 1e9;
    if (ok && p.reports.failed) {
        snprintf (err, err_len, "%zu delivery reports with an error (the first: %s)", p.reports.failed,
                  p.reports.first_error);
        ok = false;
    }
    rd_kafka_flush (p.rk, ok ? 0 : CLIENT_WAIT_MS);
    for (size_t s = 0; s < kc->stream_count; s++)
        if (p.topics [s])
            rd_kafka_topic_destroy (p.topics [s]);
    rd_kafka_destroy (p.rk);
    return ok;
}


/* ------------------------------------------------------------------------ */
/* Runs */

/* What every run ends with: the count of its records, or the failure. */
static void
finish_run (const bench_kc_t *kc, const char *prefix, bench_run_t *run, bool ok, char *err, size_t err_len)
{
    ok = ok && count_records (kc, prefix, run->events, err, err_len);
    if (!ok) {
        if (run->number == 0)
            fprintf (stderr, "dlqd_bench: raw produce warm-up: %s\n", err);
        else
            fprintf (stderr, "dlqd_bench: %s run %zu: %s\n",
                     run->kind == BENCH_RUN_DRAIN ? "kafka sink drain" : "raw produce", run->number, err);
        run->eps = 0;
    }
    run->failed = !ok;
}

/* (ii) */
static void
run_raw (bench_kc_t *kc, bench_run_t *run)
{
    char prefix [PREFIX_LEN], err [ERR_LEN] = "";
    run_prefix (kc, run, prefix);
    bool ok = create_topics (kc, prefix, err, sizeof err)
           && produce_all (kc, prefix, run->events, &run->seconds, err, sizeof err);
    run->eps = run->seconds > 0 ? (double) run->events / run->seconds : 0;
    finish_run (kc, prefix, run, ok, err, sizeof err);
}

/* (i): the sink on the mock cluster, producing under the run's prefix. */
static void
run_drain (const bench_kafka_options_t *o, bench_kc_t *kc, const char *dir, const bench_events_t *ev,
           bench_run_t *run)
{
    char prefix [PREFIX_LEN], err [ERR_LEN] = "";
    run_prefix (kc, run, prefix);
    dlq_buf_t section = DLQ_BUF_INIT;
    dlq_buf_puts (&section, "bootstrap_servers = \"");
    bench_sink_config_string (&section, kc->bootstraps);
    dlq_buf_puts (&section, "\"; topic_prefix = \"");
    bench_sink_config_string (&section, prefix);
    dlq_buf_puts (&section, "\";");
    bool ok = create_topics (kc, prefix, err, sizeof err)
           && bench_sink_drain_run (&o->dlqd, dir, SINK_NAME, "kafka", section.data, o->settings, ev, run,
                                    err, sizeof err);
    dlq_buf_free (&section);
    finish_run (kc, prefix, run, ok, err, sizeof err);
}

static void
run_one (void *ctx, bench_run_t *run)
{
    runner_t *r = ctx;
    if (run->kind == BENCH_RUN_DRAIN)
        run_drain (r->options, r->kc, r->dir, r->events, run);
    else
        run_raw (r->kc, run);
}


/* ------------------------------------------------------------------------ */
/* Report */

static void
print_setup (const bench_kafka_options_t *o, const bench_kc_t *kc, size_t warm_up, size_t repeat)
{
    printf ("kafka           : librdkafka %s mock cluster of %d brokers in this process at %s; topics %s.*\n",
            rd_kafka_version_str (), BROKERS, kc->bootstraps, kc->prefix);
    printf ("kafka producing : idempotent, acks=all, key %s, copied; %zu streams, a topic each per run"
            " (%d partitions x replication %d); librdkafka's defaults%s\n",
            kc->pro.key == DLQ_KAFKA_KEY_ID ? "id" : "document_key", kc->stream_count, kc->pro.partitions,
            kc->pro.replication, kc->pro.rdkafka_count ? ", and:" : "");
    for (size_t i = 0; i < kc->pro.rdkafka_count; i++)
        printf ("                  %s=%s\n", kc->pro.rdkafka [2 * i], kc->pro.rdkafka [2 * i + 1]);
    bench_sink_print_rounds ("kafka runs", warm_up, repeat, "every run's topics checked to hold its records");
    if (o->settings)
        printf ("kafka sink      : with %s\n", o->settings);
}

static void
summarise (const bench_run_t *runs, size_t repeat, bench_kafka_result_t *out)
{
    bench_sink_medians (runs, 2 * repeat, &out->sink_eps, &out->steady_eps, &out->raw_eps);
    double vs_raw = out->raw_eps > 0 ? out->sink_eps / out->raw_eps : 0;
    printf ("kafka sink (drain): %7.0f events/s  (median of %zu; restart (PING) with a stored backlog of N"
            " -> delivered = N, backlog 0; from the first STATS on: %.0f events/s)\n", out->sink_eps, repeat,
            out->steady_eps);
    printf ("raw librdkafka  : %7.0f events/s  (median of %zu; one idempotent producer, every report in)\n",
            out->raw_eps, repeat);
    printf ("kafka ratios    : sink / raw %.2f (target >= %.2f: %s); sink from the first STATS on / raw %.2f"
            " (without the head start the sink gets before dlqd answers PING)\n", vs_raw, BENCH_KAFKA_TARGET_RAW,
            vs_raw >= BENCH_KAFKA_TARGET_RAW ? "met" : "MISSED",
            out->raw_eps > 0 ? out->steady_eps / out->raw_eps : 0);
}


/* ------------------------------------------------------------------------ */

bool
bench_kafka_run (const bench_kafka_options_t *o, const char *dir, const bench_events_t *ev,
                 bench_kafka_result_t *out)
{
    memset (out, 0, sizeof *out);
    size_t repeat = bench_sink_repeat (o->repeat), warm_up = ev->count < WARM_UP_EVENTS ? ev->count : WARM_UP_EVENTS;
    bench_kc_t kc = { 0 };
    runner_t runner = { o, &kc, dir, ev };
    bench_run_t runs [2 * BENCH_SINK_MAX_REPEAT];
    char err [ERR_LEN] = "";
    bool ok = open_kc (&kc, o, ev, err, sizeof err);
    if (ok) {
        print_setup (o, &kc, warm_up, repeat);
        ok = bench_sink_rounds (repeat, ev->count, warm_up, run_one, &runner, RAW_DONE, runs);
    }
    else
        fprintf (stderr, "dlqd_bench: kafka: %s\n", err);
    if (ok)
        summarise (runs, repeat, out);
    close_kc (&kc);
    out->failed = !ok;
    return ok;
}
