/*  counters — the gateway's request counters and its ack-path histograms,
 *  shared by every thread (relaxed atomics: a count costs one uncontended
 *  add), their JSON form for STATS and a reading of all of them for the
 *  metrics endpoint (metrics.h).
 */
#ifndef DLQ_COUNTERS_H
#define DLQ_COUNTERS_H

#include "dlq_buf.h"
#include "dlq_code.h"
#include "dlq_histogram.h"
#include "protocol.h"

#include <stdint.h>

typedef struct dlq_counters dlq_counters_t;

/* New zeroed counters; the start time is now. */
dlq_counters_t *dlq_counters_new (void);

/* Free; accepts NULL and NULLs the pointer. */
void dlq_counters_destroy (dlq_counters_t **self_p);

/* Count PUTs stored for the first time / acknowledged as duplicates. */
void dlq_counters_accepted (dlq_counters_t *self, uint64_t n);
void dlq_counters_duplicate (dlq_counters_t *self, uint64_t n);

/* Count replies the ROUTER refused: the client's reply queue was full
 * (gateway.reply_hwm) or it had gone. */
void dlq_counters_reply_dropped (dlq_counters_t *self, uint64_t n);

/* Set the number of client connections now. */
void dlq_counters_connections (dlq_counters_t *self, uint64_t n);

/* Count one reply to a request of verb (DLQ_VERB_UNKNOWN: a message
 * with no known verb) with code (DLQ_OK: an OK reply). Bad-input codes
 * also count as rejected. */
void dlq_counters_reply (dlq_counters_t *self, dlq_verb_t verb, dlq_code_t code);

/* Observe one PUT's ack latency (from its arrival to its reply), and one
 * group commit: its writes and how long its append and sync took. */
void dlq_counters_ack_latency (dlq_counters_t *self, double seconds);
void dlq_counters_commit (dlq_counters_t *self, size_t writes, double seconds);

/* The gateway authenticates its clients (CURVE): STATS then says what
 * was refused (below). */
void dlq_counters_secured (dlq_counters_t *self);

/* Count one request refused FORBIDDEN, by the principal's name (at most
 * DLQ_COUNTERS_PRINCIPALS names are told apart; the rest count as
 * "(others)"). */
#define DLQ_COUNTERS_PRINCIPALS 1024
void dlq_counters_forbidden (dlq_counters_t *self, const char *principal);

/* Count one CURVE handshake refused: by a key not in the clients
 * directory, or on the replay endpoint by a key that may not receive. */
typedef enum { DLQ_HANDSHAKE_UNKNOWN_KEY, DLQ_HANDSHAKE_REPLAY_DENIED } dlq_handshake_refusal_t;
void dlq_counters_handshake_refused (dlq_counters_t *self, dlq_handshake_refusal_t why);

/* Everything counted, at one time. */
typedef struct {
    uint64_t accepted, duplicate, rejected, replies_dropped, connections;
    int64_t  uptime_seconds;
    uint64_t replies [DLQ_VERB_SLOTS][DLQ_CODE_COUNT];
    uint64_t forbidden;                     /* every principal's */
    uint64_t handshakes_unknown_key, handshakes_replay_denied;
    dlq_histogram_reading_t ack_latency, commit_writes, commit_seconds;
} dlq_counters_reading_t;

void dlq_counters_read (const dlq_counters_t *self, dlq_counters_reading_t *out);

/* Append "counters":{...},"uptimeSeconds":N,"connections":N (no braces
 * around) to out; secured, counters also holds "forbidden":{"<name>":N,
 * ...} and "handshakesRefused":{"unknownKey":N,"replayDenied":N}. */
void dlq_counters_format (const dlq_counters_t *self, dlq_buf_t *out);

#endif
