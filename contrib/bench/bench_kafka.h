/*  bench_kafka — the kafka sink against librdkafka used directly, on the
 *  same generated events, in the same run, on the same cluster
 *  (dlqd_bench --kafka):
 *
 *    the cluster: librdkafka's mock cluster of 3 brokers, run by threads
 *          of this process (rd_kafka_mock_cluster_new on a producer that
 *          connects nowhere), listening on loopback: its bootstraps are
 *          the sink's bootstrap_servers and the raw producer's; its
 *          connections answer without Nagle's delay, as a Kafka broker's
 *          (bench_kafka.c);
 *    (i)   sink (drain): a private dlqd without sinks takes every PUT
 *          (acked), is stopped and started again on the same data dir with
 *          one kafka sink in the default chain (bench_sink.h); events/s from
 *          the restart (PING answered) until STATS shows delivered = N and
 *          backlog 0;
 *    (ii)  raw: one idempotent librdkafka producer (enable.idempotence =
 *          true, acks = all, librdkafka's defaults otherwise, as the sink,
 *          plus the rdkafka = [ ... ] entries of the settings) producing
 *          the same records (each event as the gateway hands it to the
 *          sink, formatted while timed by the sink's own
 *          dlq_kafka_record_format: same key, value and headers, to the
 *          same topics, copied, an opaque per record; a topic handle per
 *          topic, made on first use) and serving delivery reports;
 *          events/s from the first produce until every record has its
 *          report (all must be without error).
 *
 *  Every run has topics of its own: topic_prefix dlq_bench.<tag>.<run>.,
 *  so a topic per stream of the workload, which the benchmark creates
 *  before the run (rd_kafka_mock_topic_create, settings' partitions x
 *  replication_factor, default 3 x 3: the mock has no Admin API, and would
 *  create a topic produced to with 4 partitions). After the run the sum of
 *  the high watermarks of the run's partitions must be exactly N.
 *
 *  Fairness on a small, shared machine: an uncounted warm-up raw run
 *  first, then (i) and (ii) run repeat times each, alternating which goes
 *  first; medians are compared. Ratio: sink / raw (target >= 0.80); also
 *  printed, from the first STATS on / raw: the sink starts delivering
 *  before dlqd answers PING, a head start that is a large share of a
 *  short drain.
 *
 *  The sink's settings come from the benchmark (bootstrap_servers,
 *  topic_prefix) and settings; the raw producer follows settings' key,
 *  rdkafka and the topics' partitions and replication_factor, so both
 *  produce alike.
 */
#ifndef DLQ_BENCH_KAFKA_H
#define DLQ_BENCH_KAFKA_H

#include "bench_events.h"
#include "bench_sink.h"

#include <stdbool.h>
#include <stddef.h>

#define BENCH_KAFKA_TARGET_RAW      0.90    /* sink / raw, at least */

typedef struct {
    const char       *settings;     /* more settings of the sink's section (libconfig), or NULL */
    bench_sink_dlqd_t dlqd;         /* the dlqds of (i) and the PUT load they take */
    size_t            repeat;       /* runs of (i) and of (ii), at most 100; 0 means 1 */
} bench_kafka_options_t;

typedef struct {
    double sink_eps;                /* (i), median */
    double steady_eps;              /* (i) from the first STATS after PING on, median */
    double raw_eps;                 /* (ii), median */
    bool   failed;
} bench_kafka_result_t;

/* Start the mock cluster, run (i) and (ii) with dlqd's directories under
 * dir, printing a line each and the ratio, and stop the cluster. False
 * when something failed (messages on stderr); what cannot run after a
 * failure is skipped. */
bool bench_kafka_run (const bench_kafka_options_t *options, const char *dir,
                      const bench_events_t *events, bench_kafka_result_t *result);

#endif
