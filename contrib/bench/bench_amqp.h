/*  bench_amqp — the amqp sink against RabbitMQ used directly (rabbitmq-c),
 *  on the same generated events, in the same run (dlqd_bench --amqp URL):
 *
 *    (i)   sink (drain): a private dlqd without sinks takes every PUT
 *          (acked), is stopped and started again on the same data dir with
 *          one amqp sink in the default chain (bench_sink.h); events/s from
 *          the restart (PING answered) until STATS shows delivered = N and
 *          backlog 0;
 *    (ii)  raw: one rabbitmq-c connection, confirm.select, the same
 *          messages (each event as the gateway hands it to the sink,
 *          formatted while timed by the sink's own dlq_amqp_message_format,
 *          to the same routing keys) with at most confirm_window publishes
 *          waiting for their confirm, as the sink: publish while the window
 *          has room, else wait for basic.ack frames; events/s from the
 *          first publish until every publish is confirmed;
 *    (iii) confirm-per-publish: the same, one publish waiting at a time
 *          (publish, wait for its ack, next: flowwarden-amqp's confirm
 *          mode), on the first per_publish_events events.
 *
 *  Every run publishes to an exchange of its own (the sink's type, durable,
 *  declared by the benchmark and again by the sink, declare_exchange =
 *  true) bound with '#' to a durable queue of its own, so the persistent
 *  messages are really stored, as a user's would be. After the run the
 *  queue must hold exactly the run's messages (passive queue.declare);
 *  then the queue and the exchange are deleted (unless keep).
 *
 *  Fairness on a small, shared machine: an uncounted warm-up raw run
 *  first, then (i) and (ii) run repeat times each, alternating which goes
 *  first; medians are compared. Ratios: sink / raw (target >= 0.80),
 *  sink / per-publish and raw / per-publish.
 *
 *  The sink's settings come from the URL (host, port, vhost, user,
 *  password), the benchmark (exchange, declare_exchange) and settings;
 *  the raw publisher follows settings' confirm_window, exchange_type,
 *  routing_key_prefix and mandatory, so both publish alike.
 */
#ifndef DLQ_BENCH_AMQP_H
#define DLQ_BENCH_AMQP_H

#include "bench_events.h"

#include <stdbool.h>
#include <stddef.h>

#define BENCH_AMQP_TARGET_RAW       0.80    /* sink / raw, at least */

typedef struct {
    const char *url;                /* amqp://user:password@host:port/vhost */
    const char *settings;           /* more settings of the sink's section (libconfig), or NULL */
    const char *dlqd;               /* binary to start (finds plugins in <its dir>/../plugins) */
    int         clients;
    int         window;             /* PUTs in flight per client (the load of (i)) */
    size_t      per_publish_events; /* events of (iii), at most; 0 skips it */
    size_t      repeat;             /* runs of (i) and of (ii), at most 100; 0 means 1 */
    bool        keep;               /* keep the queues and exchanges (and their messages) */
    int         ready_ms;
    int         reply_timeout_ms;
    int         stop_ms;
} bench_amqp_options_t;

typedef struct {
    double sink_eps;                /* (i), median */
    double steady_eps;              /* (i) from the first STATS after PING on, median */
    double raw_eps;                 /* (ii), median */
    double per_publish_eps;         /* (iii); 0 when skipped */
    bool   failed;
} bench_amqp_result_t;

/* Run (i), (ii) and (iii) with dlqd's directories under dir, printing a
 * line each and the ratios. False when something failed (messages on
 * stderr); what cannot run after a failure is skipped. */
bool bench_amqp_run (const bench_amqp_options_t *options, const char *dir,
                     const bench_events_t *events, bench_amqp_result_t *result);

#endif
