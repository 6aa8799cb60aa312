/*  counters — the gateway's request counters, shared by every thread
 *  (lock-free atomics), and their JSON form for STATS.
 */
#ifndef DLQ_COUNTERS_H
#define DLQ_COUNTERS_H

#include "dlq_buf.h"
#include "dlq_code.h"

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

/* Count one ERR reply with code. Bad-input codes also count as rejected. */
void dlq_counters_error (dlq_counters_t *self, dlq_code_t code);

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

/* Append "counters":{...},"uptimeSeconds":N,"connections":N (no braces
 * around) to out; secured, counters also holds "forbidden":{"<name>":N,
 * ...} and "handshakesRefused":{"unknownKey":N,"replayDenied":N}. */
void dlq_counters_format (const dlq_counters_t *self, dlq_buf_t *out);

#endif
