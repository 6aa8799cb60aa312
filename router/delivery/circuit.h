/*  circuit — a per-sink circuit breaker on the monotonic clock.
 *
 *  Each sink's dispatcher thread owns one dlq_circuit_t (a plain struct, no
 *  lock) and asks it before every delivery call. A "batch failure" is a
 *  call that found the sink unreachable: every event came back RETRY, or
 *  the call timed out. Any other outcome is a success, as far as the
 *  circuit is concerned.
 *
 *    CLOSED     batches flow. failure_threshold consecutive batch failures
 *               open the circuit.
 *    OPEN       nothing is sent until reopen_at; the first dlq_circuit_allows
 *               at or after it moves to HALF_OPEN and grants one probe.
 *    HALF_OPEN  the probe is out; nothing else is sent until its outcome is
 *               recorded. Success closes the circuit; failure opens it
 *               again with the next, longer interval.
 *
 *  The n-th consecutive opening (n = 1, 2, 3 ..., reset by a success) waits
 *  dlq_retry_delay_equal (backoff, n): uniform in [ceil (C/2), C] where
 *  C = dlq_retry_ceiling (backoff, n). This is "equal jitter", not the full
 *  jitter used for event retries: full jitter could draw 0 and re-probe a
 *  dead sink at once, again and again, whereas the floor of half the
 *  ceiling (never below 1 ms) makes the probe interval itself back off,
 *  while the jitter still spreads probes from sinks that failed together.
 *  backoff.max_attempts plays no part: a circuit never gives up.
 *
 *  Times are ms from dlq_time_mono_ms, always passed in; the module never
 *  reads a clock or sleeps.
 */
#ifndef DLQ_CIRCUIT_H
#define DLQ_CIRCUIT_H

#include "retry.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum {
    DLQ_CIRCUIT_CLOSED    = 0,
    DLQ_CIRCUIT_OPEN      = 1,
    DLQ_CIRCUIT_HALF_OPEN = 2
} dlq_circuit_state_t;

typedef struct {
    dlq_circuit_state_t state;
    uint32_t            failure_threshold;  /* batch failures that open a closed circuit */
    uint32_t            failures;           /* consecutive batch failures while CLOSED */
    uint32_t            opens;              /* consecutive openings since the last success */
    int64_t             reopen_at;          /* when OPEN: monotonic ms the probe is due */
    dlq_retry_config_t  backoff;            /* probe interval schedule (a copy) */
} dlq_circuit_t;

/* Start CLOSED with no failures. failure_threshold 0 counts as 1. backoff
 * is copied; NULL means DLQ_RETRY_CONFIG_DEFAULT. */
void dlq_circuit_init (dlq_circuit_t *c, uint32_t failure_threshold,
                       const dlq_retry_config_t *backoff);

/* May a batch be sent at now_ms? CLOSED: yes. OPEN: no before reopen_at; at
 * or after it the circuit turns HALF_OPEN and this call (only) says yes —
 * the caller must then send the probe batch and record its outcome with
 * dlq_circuit_success or dlq_circuit_failure. HALF_OPEN: no, the probe's
 * outcome is pending. */
bool dlq_circuit_allows (dlq_circuit_t *c, int64_t now_ms);

/* A batch got through: from any state to CLOSED, counters reset, so the
 * next opening starts again at the first interval. */
void dlq_circuit_success (dlq_circuit_t *c, int64_t now_ms);

/* A batch failed (sink unreachable). CLOSED: count it; at the threshold,
 * open. HALF_OPEN: the probe failed; open again with the next interval.
 * OPEN: nothing was allowed out, so nothing changes. r draws the jitter. */
void dlq_circuit_failure (dlq_circuit_t *c, int64_t now_ms, dlq_rng_t *r);

/* ms until a batch may be sent: 0 when CLOSED, or OPEN at/after reopen_at
 * (dlq_circuit_allows would say yes now); reopen_at - now_ms when OPEN
 * before it; -1 when HALF_OPEN (waiting on the probe's outcome, for no
 * time the circuit can tell). Does not change the state. */
int64_t dlq_circuit_wait_ms (const dlq_circuit_t *c, int64_t now_ms);

/* "closed", "open", "half-open"; "unknown" for any other value. */
const char *dlq_circuit_state_name (dlq_circuit_state_t state);

#endif
