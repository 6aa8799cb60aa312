/*  chaos_rng — splitmix64 (Steele, Lea, Flood 2014): a 64-bit state, one
 *  add and three mixing steps per number. Ranges are drawn with a modulo:
 *  its bias is below 2^-40 for the ranges of a chaos run (at most hours in
 *  milliseconds), which no schedule can notice.
 */
#include "chaos_rng.h"

static uint64_t
chaos_rng_mix (uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void
chaos_rng_seed (chaos_rng_t *rng, uint64_t seed, uint64_t stream)
{
    rng->state = chaos_rng_mix (seed ^ chaos_rng_mix (stream + 0x9e3779b97f4a7c15ULL));
}

uint64_t
chaos_rng_next (chaos_rng_t *rng)
{
    rng->state += 0x9e3779b97f4a7c15ULL;
    return chaos_rng_mix (rng->state);
}

int64_t
chaos_rng_between (chaos_rng_t *rng, int64_t lo, int64_t hi)
{
    if (hi <= lo)
        return lo;
    uint64_t span = (uint64_t) (hi - lo) + 1;
    return lo + (int64_t) (chaos_rng_next (rng) % span);
}
