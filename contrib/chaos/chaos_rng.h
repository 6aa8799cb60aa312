/*  chaos_rng — the chaos run's seeded random numbers (splitmix64).
 *
 *  One generator per purpose (the kill times, each kind of outage, the
 *  events), each derived from the run's seed and a stream number, so that
 *  one seed gives the same schedule and the same events whatever else the
 *  run draws. Not thread-safe: one generator per thread.
 */
#ifndef DLQ_CHAOS_RNG_H
#define DLQ_CHAOS_RNG_H

#include <stdint.h>

typedef struct {
    uint64_t state;
} chaos_rng_t;

/* A generator for stream number stream of seed. */
void chaos_rng_seed (chaos_rng_t *rng, uint64_t seed, uint64_t stream);

/* The next 64 random bits. */
uint64_t chaos_rng_next (chaos_rng_t *rng);

/* A number from lo to hi, both included (lo when hi <= lo). */
int64_t chaos_rng_between (chaos_rng_t *rng, int64_t lo, int64_t hi);

#endif
