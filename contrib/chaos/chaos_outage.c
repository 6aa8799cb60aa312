/*  chaos_outage — the outage thread; see chaos_outage.h. Waiting for the
 *  next planned moment is a sleep in short steps that watch the stop flag:
 *  the plan is a schedule, nothing is inferred from having slept.
 */
#include "chaos_outage.h"

#include "dlq_alloc.h"
#include "dlq_time.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define STEP_MS 5

struct chaos_outage {
    chaos_outage_options_t options;
    chaos_outage_result_t  result;
    pthread_t              thread;
};

static bool
chaos_outage_stopped (const chaos_outage_t *self)
{
    return atomic_load (self->options.stop);
}

/* Sleep until the monotonic time until_ms, or a stop; false on a stop. */
static bool
chaos_outage_wait_until (const chaos_outage_t *self, int64_t until_ms)
{
    while (dlq_time_mono_ms () < until_ms) {
        if (chaos_outage_stopped (self))
            return false;
        usleep (STEP_MS * 1000);
    }
    return true;
}

/* With live: hold until a refusal since before (an UNAVAILABLE count), for
 * at most CHAOS_OUTAGE_REFUSAL_MS. */
static void
chaos_outage_await_refusal (chaos_outage_t *self, unsigned long long before, int64_t since_ms)
{
    chaos_load_live_t *live = self->options.live;
    while (atomic_load (&live->unavailable) == before
           && dlq_time_mono_ms () - since_ms < CHAOS_OUTAGE_REFUSAL_MS && !chaos_outage_stopped (self))
        usleep (STEP_MS * 1000);
}

/* With live: how long after up_ns the gateway acknowledged again; -1 when
 * it did not within CHAOS_OUTAGE_RECOVERY_MS (or the run stopped). */
static double
chaos_outage_await_ack (chaos_outage_t *self, int64_t up_ns)
{
    chaos_load_live_t *live = self->options.live;
    int64_t deadline = up_ns + (int64_t) CHAOS_OUTAGE_RECOVERY_MS * 1000000;
    for (;;) {
        long long last = atomic_load (&live->last_ack_ns);
        if (last > up_ns)
            return (double) (last - up_ns) / 1e6;
        if (dlq_time_mono_ns () > deadline || chaos_outage_stopped (self))
            return -1;
        usleep (1000);
    }
}

/* One outage: down, hold, up. False when down or up failed. */
static bool
chaos_outage_one (chaos_outage_t *self, const chaos_outage_plan_t *plan)
{
    const chaos_outage_options_t *o = &self->options;
    chaos_outage_result_t *r = &self->result;
    unsigned long long refused_before = o->live ? atomic_load (&o->live->unavailable) : 0;
    int64_t start_ns = dlq_time_mono_ns ();
    if (o->active)
        atomic_store (o->active, true);
    bool ok = o->down (o->arg, r->error, sizeof r->error);
    int64_t down_ms = dlq_time_mono_ms ();
    if (ok) {
        chaos_outage_wait_until (self, down_ms + plan->hold_ms);
        if (o->live)
            chaos_outage_await_refusal (self, refused_before, down_ms);
    }
    unsigned long long refused = o->live ? atomic_load (&o->live->unavailable) - refused_before : 0;
    char up_error [sizeof r->error];
    bool up = o->up (o->arg, ok ? r->error : up_error, sizeof r->error);
    int64_t up_ns = dlq_time_mono_ns ();
    if (!ok || !up) {
        if (o->active)
            atomic_store (o->active, false);
        return false;
    }
    double down_for = (double) (up_ns - start_ns) / 1e6;
    r->done++;
    r->down_ms_total += down_for;
    if (down_for > r->down_ms_max)
        r->down_ms_max = down_for;
    if (o->live) {
        r->refusals += refused;
        r->silent += refused == 0;
        double recover = chaos_outage_await_ack (self, up_ns);
        if (recover < 0 && !chaos_outage_stopped (self))
            r->unrecovered++;
        else if (recover > r->recover_ms_max)
            r->recover_ms_max = recover;
    }
    if (o->active)
        atomic_store (o->active, false);
    return true;
}

static void *
chaos_outage_run (void *arg)
{
    chaos_outage_t *self = arg;
    const chaos_outage_options_t *o = &self->options;
    for (size_t i = 0; i < o->count; i++) {
        if (!chaos_outage_wait_until (self, o->phase_start_ms + o->plan [i].start_ms))
            break;
        if (!chaos_outage_one (self, &o->plan [i])) {
            self->result.failed = true;
            break;
        }
    }
    return NULL;
}

chaos_outage_t *
chaos_outage_start (const chaos_outage_options_t *options)
{
    chaos_outage_t *self = dlq_calloc (1, sizeof *self);
    self->options = *options;
    if (pthread_create (&self->thread, NULL, chaos_outage_run, self) != 0) {
        free (self);
        return NULL;
    }
    return self;
}

void
chaos_outage_join (chaos_outage_t **self_p, chaos_outage_result_t *result)
{
    chaos_outage_t *self = *self_p;
    pthread_join (self->thread, NULL);
    *result = self->result;
    free (self);
    *self_p = NULL;
}
