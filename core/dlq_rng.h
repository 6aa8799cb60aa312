/*  dlq_rng — a small, fast RNG: xoshiro256** (Blackman and Vigna), seeded
 *  from the kernel's entropy. Not for secrets. It has no lock: each thread
 *  owns its own dlq_rng_t (the dispatchers' retry jitter, retry.h; the
 *  circuit's probes).
 */
#ifndef DLQ_RNG_H
#define DLQ_RNG_H

#include <stdint.h>

/* xoshiro256** state. Owned by one thread; never all zero once seeded. */
typedef struct {
    uint64_t s [4];
} dlq_rng_t;

/* Seed from getrandom(2); if that fails, from /dev/urandom; if that fails
 * too, from the monotonic and wall clocks mixed with the pid. */
void dlq_rng_seed (dlq_rng_t *r);

/* Seed deterministically (the seed is expanded with splitmix64): the same
 * seed always gives the same sequence. For tests. */
void dlq_rng_seed_with (dlq_rng_t *r, uint64_t seed);

/* The next 64 random bits. */
uint64_t dlq_rng_next (dlq_rng_t *r);

/* A uniform integer in [lo, hi], both inclusive, without modulo bias
 * (rejection sampling). Any range works, INT64_MIN..INT64_MAX included;
 * hi < lo returns lo. */
int64_t dlq_rng_uniform (dlq_rng_t *r, int64_t lo, int64_t hi);

#endif
