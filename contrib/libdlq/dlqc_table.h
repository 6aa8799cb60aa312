/*  dlqc_table — the window of outstanding requests of a libdlq client
 *  (internal, not installed).
 *
 *  A fixed array of slots, one per request that may be outstanding at
 *  once. Each slot sits on exactly one of three lists, kept in O(1):
 *
 *      FREE    available for a new request;
 *      UNSENT  waiting for the socket to take it (first send, or resend
 *              after a reconnect), oldest first;
 *      SENT    on the wire, waiting for its reply, in order of sending
 *              (so the head has the earliest deadline).
 *
 *  A finished blocking request is on no list (DONE) until its caller
 *  releases it. The request id on the wire names the slot and the
 *  transmission: 8 bytes of a per-client sequence number, fresh for every
 *  send, then 4 bytes of slot index, both big-endian. A reply is matched
 *  in O(1) by the slot index, and accepted only if that slot is SENT with
 *  the same sequence number, so replies to superseded transmissions (and
 *  replies from an earlier occupant of the slot) are ignored.
 */
#ifndef DLQC_TABLE_H
#define DLQC_TABLE_H

#include "dlq_client.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DLQC_REQUEST_ID_LEN 12
#define DLQC_NO_SLOT UINT32_MAX

typedef enum {
    DLQC_FREE,
    DLQC_UNSENT,
    DLQC_SENT,
    DLQC_DONE,
    DLQC_LIST_COUNT = DLQC_DONE
} dlqc_state_t;

/* How a request ended, before its reply body is interpreted: OK or
 * ERR_SERVER when the reply said OK or ERR (body holds the reply body),
 * ERR_PROTOCOL for another status, ERR_TIMEOUT or ERR_TRANSPORT when no
 * reply came (message says why). Owns body and message. */
typedef struct {
    dlq_client_result_t result;
    char               *body;       /* NUL-terminated reply body, or NULL */
    size_t              body_len;
    char               *message;    /* local explanation of a failure, or NULL */
    int64_t             round_trip_us;
} dlqc_outcome_t;

/* Free what an outcome owns and clear it. */
void dlqc_outcome_clear (dlqc_outcome_t *outcome);

/* One outstanding request. The table owns body and outcome. */
typedef struct {
    dlqc_state_t state;
    const char  *verb;          /* static string, e.g. "PUT" */
    char        *body;          /* request body, kept for resends */
    size_t       body_len;
    bool         blocking;      /* a blocking call waits for it (else: pipelined) */
    uint64_t     tag;           /* pipelined: the caller's tag */
    uint64_t     seq;           /* sequence number of the current transmission */
    int          timeouts;      /* transmissions that went unanswered */
    int64_t      deadline_ms;   /* UNSENT: give up waiting for a connection; SENT: for the reply */
    int64_t      submitted_us;  /* when the caller submitted it (monotonic) */
    dlqc_outcome_t outcome;     /* DONE: how it ended */
    uint32_t     prev, next;    /* links of the list the slot is on */
} dlqc_request_t;

typedef struct {
    dlqc_request_t *slots;
    uint32_t        capacity;
    uint32_t        head [DLQC_LIST_COUNT];
    uint32_t        tail [DLQC_LIST_COUNT];
    uint32_t        count [DLQC_LIST_COUNT];
} dlqc_table_t;

/* Set up a table of capacity free slots (capacity >= 1). */
void dlqc_table_init (dlqc_table_t *table, uint32_t capacity);

/* Free every slot's body and outcome and the slots themselves. */
void dlqc_table_fini (dlqc_table_t *table);

/* Number of slots on list state (FREE, UNSENT or SENT). */
uint32_t dlqc_table_count (const dlqc_table_t *table, dlqc_state_t state);

/* Take a free slot and queue it UNSENT, taking ownership of body.
 * Returns its index, or DLQC_NO_SLOT (body untouched) when the table is
 * full. The other fields are reset; the caller fills verb, tag etc. */
uint32_t dlqc_table_acquire (dlqc_table_t *table, char *body, size_t body_len);

/* The first slot on list state (oldest), or DLQC_NO_SLOT when empty. */
uint32_t dlqc_table_head (const dlqc_table_t *table, dlqc_state_t state);

/* Move slot to the tail of list state (or to DONE: off every list). */
void dlqc_table_move (dlqc_table_t *table, uint32_t slot, dlqc_state_t state);

/* Put every SENT slot back on UNSENT, ahead of those already there,
 * keeping their order. */
void dlqc_table_requeue_sent (dlqc_table_t *table);

/* Free a slot: release its body and outcome and put it back on FREE. */
void dlqc_table_release (dlqc_table_t *table, uint32_t slot);

/* Encode the wire request id of slot's current transmission into out
 * (DLQC_REQUEST_ID_LEN bytes). */
void dlqc_table_encode_id (const dlqc_table_t *table, uint32_t slot, uint8_t *out);

/* The SENT slot a reply's request id refers to, or DLQC_NO_SLOT when the
 * id is not that of a transmission still awaiting its reply. */
uint32_t dlqc_table_match (const dlqc_table_t *table, const void *id, size_t id_len);

#endif
