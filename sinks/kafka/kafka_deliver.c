/*  kafka_deliver — deliver of the kafka sink: produce a batch and wait for
 *  each record's own delivery report.
 *
 *  Every record is produced (copied: librdkafka may hold it past the
 *  call) with an opaque naming the call (a generation number) and the
 *  event. The report sets the event's outcome: no error → OK; a permanent
 *  error (kafka_format.h: too large, invalid, unknown topic, not
 *  authorized, policy) → FAIL; anything else → RETRY, with librdkafka's
 *  (the broker's) words. librdkafka retries transient produce errors
 *  itself within message.timeout.ms, so a report's error is what is left
 *  after that. A full local queue waits (polling) until the deadline.
 *
 *  At the deadline, events without a report are RETRY; records still
 *  queued in librdkafka are purged (their purge reports, like every late
 *  report of an older call, are ignored), so a slow cluster does not pile
 *  up copies; records already sent may still land (at-least-once).
 *  A fatal error (the idempotent producer's guarantees lost) makes the
 *  rest RETRY and the next call a new producer.
 */
#include "kafka_sink.h"

#include "sink_outcome.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define POLL_MS        100      /* longest single wait for reports */
#define QUEUE_FULL_MS  10       /* wait when librdkafka's queue is full */
#define NO_REPORT      "no delivery report in time"

static void *
opaque_of (uint32_t generation, size_t i)
{
    return (void *) (uintptr_t) (((uint64_t) generation << 32) | (uint32_t) i);
}

static void
set_error (dlq_sink_outcome_t *outcome, rd_kafka_resp_err_t err, const char *detail)
{
    dlq_sink_outcome_set (outcome, dlq_kafka_error_is_permanent (err) ? DLQ_SINK_FAIL : DLQ_SINK_RETRY, "%s: %s",
                          rd_kafka_err2name (err), detail ? detail : rd_kafka_err2str (err));
}

void
dlq_kafka_sink_on_report (rd_kafka_t *rk, const rd_kafka_message_t *message, void *opaque)
{
    (void) rk;
    dlq_kafka_sink_t *self = opaque;
    uint64_t tag = (uint64_t) (uintptr_t) message->_private;
    uint32_t generation = (uint32_t) (tag >> 32);
    size_t i = (size_t) (uint32_t) tag;
    if (!self->outcomes || generation != self->generation || i >= self->count) {
        self->host->count (self->config, "late_reports", 1);
        return;
    }
    self->pending--;
    dlq_sink_outcome_t *outcome = &self->outcomes [i];
    if (message->err == RD_KAFKA_RESP_ERR_NO_ERROR) {
        outcome->result = DLQ_SINK_OK;
        outcome->message [0] = '\0';
        self->cluster_error [0] = '\0';
    }
    else
        set_error (outcome, message->err, NULL);   /* not rd_kafka_message_errstr: it may give payload bytes */
}

/* Produce event i; its outcome stays RETRY ("no delivery report") until
 * its report comes. False when the deadline passed on a full queue. */
static bool
produce (dlq_kafka_sink_t *self, const dlq_sink_event_t *event, size_t i, dlq_kafka_route_t *route,
         int64_t deadline)
{
    dlq_kafka_record_t record;
    dlq_kafka_record_format (&record, event, route->key);
    rd_kafka_vu_t vu [5 + DLQ_KAFKA_HEADERS_MAX];
    size_t n = 0;
    rd_kafka_topic_t *handle = dlq_kafka_topics_handle (route, self->rk);
    if (handle)
        vu [n++] = (rd_kafka_vu_t) { .vtype = RD_KAFKA_VTYPE_RKT, .u.rkt = handle };
    else
        vu [n++] = (rd_kafka_vu_t) { .vtype = RD_KAFKA_VTYPE_TOPIC, .u.cstr = route->topic };
    vu [n++] = (rd_kafka_vu_t) { .vtype = RD_KAFKA_VTYPE_MSGFLAGS, .u.i = RD_KAFKA_MSG_F_COPY };
    vu [n++] = (rd_kafka_vu_t) { .vtype = RD_KAFKA_VTYPE_VALUE,
                                 .u.mem = { .ptr = (void *) record.value, .size = record.value_len } };
    vu [n++] = (rd_kafka_vu_t) { .vtype = RD_KAFKA_VTYPE_KEY,
                                 .u.mem = { .ptr = (void *) record.key, .size = record.key_len } };
    vu [n++] = (rd_kafka_vu_t) { .vtype = RD_KAFKA_VTYPE_OPAQUE, .u.ptr = opaque_of (self->generation, i) };
    for (size_t h = 0; h < record.header_count; h++)
        vu [n++] = (rd_kafka_vu_t) { .vtype = RD_KAFKA_VTYPE_HEADER,
                                     .u.header = { .name = record.headers [h].name, .val = record.headers [h].value,
                                                   .size = (ssize_t) strlen (record.headers [h].value) } };
    dlq_sink_outcome_t *outcome = &self->outcomes [i];
    for (;;) {
        rd_kafka_error_t *error = rd_kafka_produceva (self->rk, vu, n);
        if (!error) {
            self->pending++;
            dlq_sink_outcome_set (outcome, DLQ_SINK_RETRY, NO_REPORT);
            return true;
        }
        rd_kafka_resp_err_t code = rd_kafka_error_code (error);
        if (code == RD_KAFKA_RESP_ERR__QUEUE_FULL && self->host->mono_ms () < deadline) {
            rd_kafka_error_destroy (error);
            rd_kafka_poll (self->rk, QUEUE_FULL_MS);
            continue;
        }
        set_error (outcome, code, rd_kafka_error_string (error));
        rd_kafka_error_destroy (error);
        return code != RD_KAFKA_RESP_ERR__QUEUE_FULL;
    }
}

/* Serve reports until every produced record has one or the deadline.
 * rd_kafka_flush rather than rd_kafka_poll: while it waits, librdkafka
 * sends what it holds at once instead of after linger.ms (the batch is
 * complete: lingering only delays its reports). */
static void
await_reports (dlq_kafka_sink_t *self, int64_t deadline)
{
    int64_t left;
    while (self->pending > 0 && (left = deadline - self->host->mono_ms ()) > 0)
        rd_kafka_flush (self->rk, (int) (left < POLL_MS ? left : POLL_MS));
    if (self->pending == 0)
        return;
    if (self->cluster_error [0])
        for (size_t i = 0; i < self->count; i++)
            if (self->outcomes [i].result == DLQ_SINK_RETRY
                && strcmp (self->outcomes [i].message, NO_REPORT) == 0)
                dlq_sink_outcome_set (&self->outcomes [i], DLQ_SINK_RETRY, NO_REPORT " (%s)", self->cluster_error);
    self->host->count (self->config, "unconfirmed", self->pending);
    rd_kafka_purge (self->rk, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_NON_BLOCKING);
}

static void
retry_all (dlq_sink_outcome_t *outcomes, size_t count, const char *why)
{
    for (size_t i = 0; i < count; i++)
        dlq_sink_outcome_set (&outcomes [i], DLQ_SINK_RETRY, "%s", why);
}

void
dlq_kafka_sink_deliver (void *instance, const dlq_sink_event_t *events, size_t count,
                        dlq_sink_outcome_t *outcomes, int64_t deadline_mono_ms)
{
    dlq_kafka_sink_t *self = instance;
    char err [DLQ_KAFKA_ERR_LEN];
    if (!dlq_kafka_sink_producer (self, err, sizeof err)) {
        retry_all (outcomes, count, err);
        return;
    }
    self->generation++;
    self->outcomes = outcomes;
    self->count = count;
    self->pending = 0;
    for (size_t i = 0; i < count; i++) {
        const dlq_sink_event_t *event = &events [i];
        dlq_kafka_route_t *route = dlq_kafka_topics_route (self->topics, event->stream_name);
        bool permanent;
        if (!route->valid)
            dlq_sink_outcome_set (&outcomes [i], DLQ_SINK_FAIL, "stream %s: not a legal Kafka topic name "
                                  "(1-249 bytes of [a-zA-Z0-9._-]): set the stream's topic", event->stream_name);
        else if (!dlq_kafka_topics_ensure (self->topics, self->rk, route, event->retention_days, deadline_mono_ms,
                                           &permanent, err, sizeof err))
            dlq_sink_outcome_set (&outcomes [i], permanent ? DLQ_SINK_FAIL : DLQ_SINK_RETRY, "%s", err);
        else if (!produce (self, event, i, route, deadline_mono_ms)) {
            for (size_t k = i + 1; k < count; k++)
                dlq_sink_outcome_set (&outcomes [k], DLQ_SINK_RETRY, "not produced: the local queue stayed full");
            break;
        }
    }
    await_reports (self, deadline_mono_ms);
    self->outcomes = NULL;                  /* reports from now on are late */
    rd_kafka_poll (self->rk, 0);
}
