/*  stream_policy — FlowWarden's DlqPolicy (retentionDays,
 *  includeOriginalDocument, includeStackTrace), resolved per stream and
 *  applied to an event before any store or sink sees it.
 */
#ifndef DLQ_STREAM_POLICY_H
#define DLQ_STREAM_POLICY_H

#include "failed_event.h"

#include <stdbool.h>
#include <stdint.h>

#define DLQ_RETENTION_DAYS_MAX 36500

#define DLQ_SINKS_MAX 64     /* a chain is a bit set over the configured sinks */

/* Where a stream's events go when they are replayed (replay_route). */
typedef enum {
    DLQ_REPLAY_ROUTE_NONE = 0,          /* not set: replays of the stream fail */
    DLQ_REPLAY_ROUTE_ENDPOINT,          /* the gateway's ZeroMQ replay endpoint */
    DLQ_REPLAY_ROUTE_SINK               /* a configured sink: replay_sink */
} dlq_replay_route_t;

/* The scheduled replay of a stream (dlq.retry of the dlq_events replay job). */
typedef struct {
    bool     enabled;
    int64_t  max_retries;               /* events with retry_count >= this are left alone */
    int64_t  batch_size;                /* events per pass, at most */
    int64_t  interval_ms;               /* time between passes */
} dlq_schedule_t;

typedef struct {
    int64_t  retention_days;            /* 0 = keep forever */
    bool     include_original_document;
    bool     include_stack_trace;
    uint64_t chain;                     /* bit i: sink i delivers this stream's events */
    dlq_replay_route_t replay_route;
    uint32_t replay_sink;               /* the sink's index, for DLQ_REPLAY_ROUTE_SINK */
    dlq_schedule_t schedule;
} dlq_policy_t;

typedef struct dlq_policy_table dlq_policy_table_t;

/* Apply policy to event: drop fullDocument when excluded, drop
 * error.stackTrace when excluded, and set expiresAt = createdAt +
 * retention_days (absent when retention_days is 0; at most
 * 9999-12-31T23:59:59.999Z, the last instant a timestamp holds). Call
 * before encoding. */
void dlq_policy_apply (const dlq_policy_t *policy, dlq_event_t *event);

/* A table of per-stream policies with a default for every other stream. */
dlq_policy_table_t *dlq_policy_table_new (const dlq_policy_t *defaults);

/* Set (or replace) the policy of one stream; stream is copied. */
void dlq_policy_table_set (dlq_policy_table_t *self, const char *stream, const dlq_policy_t *policy);

/* The policy of stream: its own, or the default. Owned by the table. */
const dlq_policy_t *dlq_policy_table_lookup (const dlq_policy_table_t *self, const char *stream);

/* True when stream has a policy of its own in the table. */
bool dlq_policy_table_has (const dlq_policy_table_t *self, const char *stream);

/* Free the table; accepts NULL and NULLs the pointer. */
void dlq_policy_table_destroy (dlq_policy_table_t **self_p);

#endif
