/*  chaos_plan — what a chaos run will do and when, drawn from its seed
 *  before it starts: the moments dlqd is SIGKILLed, and for each kind of
 *  outage (PostgreSQL, RabbitMQ, the Kafka brokers, a full data_dir) when
 *  each one starts and how long it holds at least.
 *
 *  Times are milliseconds from the start of the fault phase. Kills fall
 *  anywhere in its first 92%, sorted (two may be close: the second then
 *  hits dlqd while it starts up). Outages of one kind take turns: the
 *  phase's 5%..85% is cut into one slot per outage, each outage starts at
 *  a random moment of its slot and holds 2 to 6 s (at most half its slot),
 *  so every outage ends before the load stops.
 */
#ifndef DLQ_CHAOS_PLAN_H
#define DLQ_CHAOS_PLAN_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    CHAOS_FAULT_PG,             /* PostgreSQL stopped (fast shutdown) and started again */
    CHAOS_FAULT_AMQP,           /* RabbitMQ stopped (SIGTERM) and started again */
    CHAOS_FAULT_KAFKA,          /* every broker of the mock cluster down, then up */
    CHAOS_FAULT_DISK,           /* the data_dir's filesystem filled, then freed */
    CHAOS_FAULT_KINDS
} chaos_fault_t;

typedef struct {
    int64_t start_ms;           /* from the start of the fault phase */
    int64_t hold_ms;            /* down (or full) at least this long */
} chaos_outage_plan_t;

typedef struct {
    int64_t             *kill_at_ms;                    /* sorted */
    size_t               kills;
    chaos_outage_plan_t *outages [CHAOS_FAULT_KINDS];
    size_t               outage_count [CHAOS_FAULT_KINDS];
} chaos_plan_t;

/* Draw the plan of a fault phase of phase_ms: kills SIGKILLs and
 * outages [kind] outages of each kind, from seed. Free it with
 * chaos_plan_free. */
void chaos_plan_make (chaos_plan_t *plan, uint64_t seed, int64_t phase_ms, size_t kills,
                      const size_t outages [CHAOS_FAULT_KINDS]);

void chaos_plan_free (chaos_plan_t *plan);

/* "postgres", "rabbitmq", "kafka", "disk full". */
const char *chaos_plan_fault_name (chaos_fault_t kind);

#endif
