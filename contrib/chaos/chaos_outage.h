/*  chaos_outage — one kind of outage of a chaos run, carried out on a
 *  thread of its own: at each planned moment it takes the backend down
 *  (down), holds, and brings it back (up), while the load and the kills
 *  go on.
 *
 *  An outage that waits for refusals (a full data_dir: live is set) holds
 *  past its planned time until the gateway has refused a PUT
 *  (UNAVAILABLE) since the filling, for at most CHAOS_OUTAGE_REFUSAL_MS;
 *  after up, it measures how long the gateway takes to acknowledge a PUT
 *  again. active, when set, is true from the start of down to the end of
 *  up, and with live until that first ack (the kills wait for a full disk
 *  to be freed, and for the gateway to take PUTs again, so that the
 *  recovery measured is the gateway's, not a restart's).
 */
#ifndef DLQ_CHAOS_OUTAGE_H
#define DLQ_CHAOS_OUTAGE_H

#include "chaos_load.h"
#include "chaos_plan.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CHAOS_OUTAGE_REFUSAL_MS  20000  /* longest wait for a refusal while full */
#define CHAOS_OUTAGE_RECOVERY_MS 30000  /* longest wait for an ack after up */

typedef bool (chaos_outage_fn) (void *arg, char *err, size_t err_len);

typedef struct {
    chaos_fault_t              kind;
    const chaos_outage_plan_t *plan;
    size_t                     count;
    int64_t                    phase_start_ms;  /* monotonic */
    chaos_outage_fn           *down;
    chaos_outage_fn           *up;
    void                      *arg;
    chaos_load_live_t         *live;            /* wait for refusals; NULL: don't */
    atomic_bool               *active;          /* may be NULL */
    atomic_bool               *stop;            /* an interrupted run */
} chaos_outage_options_t;

typedef struct {
    size_t done;                /* outages carried out */
    double down_ms_total;       /* from the start of down to the end of up */
    double down_ms_max;
    size_t refusals;            /* UNAVAILABLE replies while down (with live) */
    size_t silent;              /* outages without a refusal (with live) */
    double recover_ms_max;      /* end of up -> the next ack (with live) */
    size_t unrecovered;         /* outages after which no ack came in time (with live) */
    bool   failed;
    char   error [512];
} chaos_outage_result_t;

typedef struct chaos_outage chaos_outage_t;

/* Start the thread (options is copied; what it points to must outlive
 * it). NULL when the thread cannot be made. */
chaos_outage_t *chaos_outage_start (const chaos_outage_options_t *options);

/* Wait for the thread to finish (an outage under way is finished, its
 * backend brought back), fill *result and free it; *self_p becomes NULL. */
void chaos_outage_join (chaos_outage_t **self_p, chaos_outage_result_t *result);

#endif
