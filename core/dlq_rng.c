/*  dlq_rng — xoshiro256** seeded from the kernel (see the header).
 *
 *  xoshiro256** and splitmix64 follow the public-domain reference code by
 *  David Blackman and Sebastiano Vigna (https://prng.di.unimi.it/).
 */
#include "dlq_rng.h"

#include "dlq_time.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <sys/random.h>
#include <unistd.h>

static uint64_t
rotl (uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* splitmix64: one step of a Weyl sequence, scrambled. A bijection of the
 * counter, so consecutive outputs differ and four of them are never all
 * zero — the one state xoshiro must not start from. */
static uint64_t
splitmix64 (uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void
dlq_rng_seed_with (dlq_rng_t *r, uint64_t seed)
{
    for (size_t i = 0; i < 4; i++)
        r->s [i] = splitmix64 (&seed);
}

/* Fill len bytes from getrandom(2), retrying on EINTR and short reads. */
static bool
fill_getrandom (unsigned char *buf, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = getrandom (buf + got, len - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        got += (size_t) n;
    }
    return true;
}

/* Fill len bytes from /dev/urandom. */
static bool
fill_urandom (unsigned char *buf, size_t len)
{
    int fd = open ("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    size_t got = 0;
    while (got < len) {
        ssize_t n = read (fd, buf + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t) n;
    }
    close (fd);
    return got == len;
}

static bool
state_is_zero (const dlq_rng_t *r)
{
    return (r->s [0] | r->s [1] | r->s [2] | r->s [3]) == 0;
}

void
dlq_rng_seed (dlq_rng_t *r)
{
    unsigned char *bytes = (unsigned char *) r->s;
    if ((fill_getrandom (bytes, sizeof r->s) || fill_urandom (bytes, sizeof r->s))
        && !state_is_zero (r))
        return;
    uint64_t weak = (uint64_t) dlq_time_mono_ns ()
                  ^ rotl ((uint64_t) dlq_time_now_ms (), 32)
                  ^ ((uint64_t) getpid () * 0x9e3779b97f4a7c15ULL);
    dlq_rng_seed_with (r, weak);
}

uint64_t
dlq_rng_next (dlq_rng_t *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl (s [1] * 5, 7) * 9;
    uint64_t t = s [1] << 17;
    s [2] ^= s [0];
    s [3] ^= s [1];
    s [1] ^= s [2];
    s [0] ^= s [3];
    s [2] ^= t;
    s [3] = rotl (s [3], 45);
    return result;
}

/* n = hi - lo + 1 values. 2^64 is not a multiple of n in general, so x % n
 * would favour the first (2^64 mod n) residues; draws below that count are
 * rejected, which leaves a multiple of n equally likely draws (at most half
 * are rejected, so the loop ends quickly). The span is computed in unsigned
 * arithmetic, where it cannot overflow; the full int64 range (n = 2^64) takes
 * the raw draw. The final unsigned-to-signed conversion is modulo 2^64 in
 * GCC and Clang (implementation-defined in C11 6.3.1.3), and the result lies
 * in [lo, hi] by construction. */
int64_t
dlq_rng_uniform (dlq_rng_t *r, int64_t lo, int64_t hi)
{
    if (hi <= lo)
        return lo;
    uint64_t span = (uint64_t) hi - (uint64_t) lo;
    uint64_t x = dlq_rng_next (r);
    if (span != UINT64_MAX) {
        uint64_t n = span + 1;
        uint64_t reject_below = (0 - n) % n;
        while (x < reject_below)
            x = dlq_rng_next (r);
        x %= n;
    }
    return (int64_t) ((uint64_t) lo + x);
}
