/*  delivery_ledger — the model of the per-sink delivery state the daemon
 *  keeps (stored by router/state/ledger_store, in the daemon's state file):
 *
 *  For each sink a CURSOR: every event with seq (log position) <= cursor
 *  has been handled by that sink (delivered, skipped because its stream's
 *  chain does not name the sink, expired, or recorded as a row below).
 *  Events past the cursor are that sink's backlog, waiting on disk. A ROW
 *  per (sink, seq) only for events that did not succeed at the first try:
 *  retrying (attempts, next attempt time, last error), failed, or
 *  delivered after retries. So the common case (delivered at the first
 *  try) costs no row at all. The counters: delivered, failed, redelivered.
 *  The ATTEMPTED marker (the highest seq handed to the sink: after a
 *  crash, events in (cursor, attempted] may have reached it already) is
 *  the sink's own position file now (router/delivery/dispatcher.c); the
 *  ledger's is what releases before it kept, read at start beside it.
 *
 *  Types and pure functions only.
 */
#ifndef DLQ_DELIVERY_LEDGER_H
#define DLQ_DELIVERY_LEDGER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DLQ_SINK_NAME_MAX 64
#define DLQ_DELIVERY_ERROR_MAX 240
#define DLQ_DELIVERY_ID_MAX 37      /* a UUID and its NUL */

typedef enum {
    DLQ_DELIVERY_PENDING = 0,   /* not tried yet (no row: seq > cursor) */
    DLQ_DELIVERY_DELIVERED,     /* the sink said OK */
    DLQ_DELIVERY_RETRYING,      /* RETRY; tried again at next_attempt_at */
    DLQ_DELIVERY_FAILED         /* FAIL, or RETRY with max_attempts used up */
} dlq_delivery_state_t;

/* "pending", "delivered", "retrying", "failed". Pure. */
const char *dlq_delivery_state_name (dlq_delivery_state_t state);

/* Parse a state name; false when it is none of them. */
bool dlq_delivery_state_parse (const char *name, dlq_delivery_state_t *state);

typedef struct {
    int64_t              seq;
    dlq_delivery_state_t state;
    uint32_t             attempts;          /* deliveries tried so far */
    int64_t              next_attempt_at;   /* wall ms; DLQ_TIME_NONE unless retrying */
    int64_t              updated_at;        /* wall ms */
    char                 last_error [DLQ_DELIVERY_ERROR_MAX];
    /* The event's, so the row needs no store to be found by id or stream,
     * nor to be swept once the event expired. In an update: id "" and
     * stream NULL keep what the row holds (a requeue), else all three are
     * set; stream is owned by the update (dlq_ledger_update_destroy frees
     * it). In a row read back: id as stored ("" when unknown), expires_at
     * likewise, stream NULL (and record NULL). */
    char                 id [DLQ_DELIVERY_ID_MAX];
    char                *stream;
    int64_t              expires_at;        /* wall ms; DLQ_TIME_NONE: kept forever */
    /* The event itself (its log record, core/event_record.h), kept with a
     * FAILED row so that a REDELIVER finds it after the log let it go and
     * whatever the primary. In an update: owned by it, set on a row that
     * fails; NULL keeps what the row holds, and a DELIVERED row drops it. */
    uint8_t             *record;
    size_t               record_len;
} dlq_delivery_row_t;

/* One dispatcher's changes, applied atomically with a commit. */
typedef struct {
    char                sink [DLQ_SINK_NAME_MAX];
    int64_t             cursor;             /* new cursor; ignored unless > the stored one */
    int64_t             attempted;          /* new marker; ignored unless > the stored one */
    uint64_t            delivered;          /* counters to add */
    uint64_t            failed;
    uint64_t            redelivered;
    dlq_delivery_row_t *rows;               /* upserted (sink, seq) rows */
    size_t              row_count;
} dlq_ledger_update_t;

/* What makes u unfit to commit (a bug of its maker), in words: "is NULL",
 * "has an empty or unterminated sink name", "has a counter beyond
 * INT64_MAX", "has rows but no row array", "has a row with a seq below 1",
 * "has a row with an unknown state", "has a row with an unterminated id";
 * NULL when it is fit. Pure. A commit
 * refuses a batch holding an unfit update, so check before queueing one. */
const char *dlq_ledger_update_problem (const dlq_ledger_update_t *u);

typedef struct {
    int64_t  cursor;
    int64_t  attempted;
    uint64_t delivered;
    uint64_t failed;
    uint64_t redelivered;
} dlq_sink_state_t;

/* Free an update, its rows and their streams; accepts NULL and NULLs the
 * pointer. */
void dlq_ledger_update_destroy (dlq_ledger_update_t **update_p);

#endif
