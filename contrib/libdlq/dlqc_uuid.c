/*  dlqc_uuid — time-ordered UUIDv7 text for libdlq. */
#include "dlqc_uuid.h"

#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* The last (ms << 12 | counter) handed out by this process. */
static _Atomic uint64_t last_stamp;

/* Fallback state for the (unlikely) case that getrandom() fails. */
static _Atomic uint64_t fallback_state;

static int64_t
wall_ms (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_REALTIME, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A splitmix64 step over a shared state seeded from the clock and pid:
 * not cryptographic, only used when the kernel refuses random bytes. */
static uint64_t
fallback_random (void)
{
    uint64_t seed = (uint64_t) wall_ms () ^ ((uint64_t) getpid () << 32);
    uint64_t z = atomic_fetch_add (&fallback_state, 0x9E3779B97F4A7C15ull) + seed;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void
random_bytes (uint8_t *out, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = getrandom (out + got, len - got, 0);
        if (n > 0)
            got += (size_t) n;
        else
        if (n < 0 && errno != EINTR)
            break;
    }
    for (; got < len; got++)
        out [got] = (uint8_t) fallback_random ();
}

/* The next stamp: now's millisecond with counter 0, or one past the last
 * stamp when the clock has not moved on (or went back). */
static uint64_t
next_stamp (int64_t unix_ms)
{
    uint64_t now = (uint64_t) unix_ms << 12;
    uint64_t prev = atomic_load (&last_stamp);
    uint64_t next;
    do
        next = now > prev ? now : prev + 1;
    while (!atomic_compare_exchange_weak (&last_stamp, &prev, next));
    return next;
}

/* Write the UUIDv7 text for time unix_ms (the counter keeps ids made in
 * the same millisecond, or while the clock stands still or goes back, in
 * creation order). */
static void
uuid_v7_at (int64_t unix_ms, char *out)
{
    static const char hex [] = "0123456789abcdef";
    uint64_t stamp = next_stamp (unix_ms);
    uint64_t ms = stamp >> 12;
    unsigned counter = (unsigned) (stamp & 0xFFF);
    uint8_t b [16];
    for (int i = 0; i < 6; i++)
        b [i] = (uint8_t) (ms >> (40 - 8 * i));
    b [6] = (uint8_t) (0x70 | (counter >> 8));
    b [7] = (uint8_t) (counter & 0xFF);
    random_bytes (b + 8, 8);
    b [8] = (uint8_t) (0x80 | (b [8] & 0x3F));
    size_t n = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            out [n++] = '-';
        out [n++] = hex [b [i] >> 4];
        out [n++] = hex [b [i] & 0xF];
    }
    out [n] = '\0';
}

void
dlqc_uuid_v7 (char *out)
{
    uuid_v7_at (wall_ms (), out);
}
