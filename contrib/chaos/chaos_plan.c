/*  chaos_plan — the schedule of a chaos run; see chaos_plan.h.
 *
 *  Each kind of fault draws from a generator of its own (stream 1 for the
 *  kills, 2 + kind for the outages), so adding outages of one kind leaves
 *  the kill times and the other kinds' outages of a seed as they were.
 */
#include "chaos_plan.h"

#include "chaos_rng.h"
#include "dlq_alloc.h"

#include <stdlib.h>

#define KILL_FROM           0.03        /* of the phase */
#define KILL_UNTIL          0.92
#define OUTAGE_FROM         0.05
#define OUTAGE_UNTIL        0.85
#define HOLD_MIN_MS         2000
#define HOLD_MAX_MS         6000

static int
chaos_plan_by_time (const void *a, const void *b)
{
    int64_t x = *(const int64_t *) a, y = *(const int64_t *) b;
    return (x > y) - (x < y);
}

static void
chaos_plan_outages (chaos_plan_t *plan, chaos_fault_t kind, uint64_t seed, int64_t phase_ms,
                    size_t count)
{
    plan->outage_count [kind] = count;
    plan->outages [kind] = count ? dlq_calloc (count, sizeof *plan->outages [kind]) : NULL;
    if (!count)
        return;
    chaos_rng_t rng;
    chaos_rng_seed (&rng, seed, 2 + (uint64_t) kind);
    int64_t from = (int64_t) ((double) phase_ms * OUTAGE_FROM);
    int64_t slot = (int64_t) ((double) phase_ms * (OUTAGE_UNTIL - OUTAGE_FROM)) / (int64_t) count;
    int64_t hold_max = slot / 2 < HOLD_MAX_MS ? slot / 2 : HOLD_MAX_MS;
    for (size_t i = 0; i < count; i++) {
        chaos_outage_plan_t *o = &plan->outages [kind][i];
        o->hold_ms = chaos_rng_between (&rng, hold_max < HOLD_MIN_MS ? hold_max : HOLD_MIN_MS, hold_max);
        o->start_ms = from + (int64_t) i * slot + chaos_rng_between (&rng, 0, slot - o->hold_ms);
    }
}

void
chaos_plan_make (chaos_plan_t *plan, uint64_t seed, int64_t phase_ms, size_t kills,
                 const size_t outages [CHAOS_FAULT_KINDS])
{
    chaos_rng_t rng;
    chaos_rng_seed (&rng, seed, 1);
    plan->kills = kills;
    plan->kill_at_ms = kills ? dlq_calloc (kills, sizeof *plan->kill_at_ms) : NULL;
    int64_t lo = (int64_t) ((double) phase_ms * KILL_FROM);
    int64_t hi = (int64_t) ((double) phase_ms * KILL_UNTIL);
    for (size_t i = 0; i < kills; i++)
        plan->kill_at_ms [i] = chaos_rng_between (&rng, lo, hi);
    if (kills > 1)
        qsort (plan->kill_at_ms, kills, sizeof *plan->kill_at_ms, chaos_plan_by_time);
    for (int kind = 0; kind < CHAOS_FAULT_KINDS; kind++)
        chaos_plan_outages (plan, (chaos_fault_t) kind, seed, phase_ms, outages [kind]);
}

void
chaos_plan_free (chaos_plan_t *plan)
{
    free (plan->kill_at_ms);
    plan->kill_at_ms = NULL;
    for (int kind = 0; kind < CHAOS_FAULT_KINDS; kind++) {
        free (plan->outages [kind]);
        plan->outages [kind] = NULL;
    }
}

const char *
chaos_plan_fault_name (chaos_fault_t kind)
{
    switch (kind) {
    case CHAOS_FAULT_PG:    return "postgres";
    case CHAOS_FAULT_AMQP:  return "rabbitmq";
    case CHAOS_FAULT_KAFKA: return "kafka";
    case CHAOS_FAULT_DISK:  return "disk full";
    case CHAOS_FAULT_KINDS: break;
    }
    return "?";
}
