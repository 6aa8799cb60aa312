/*  dlq_uuid — UUIDv7 generation (RFC 9562, method 1: a 12-bit counter in
 *  rand_a) and UUID text validation.
 *
 *  The process-wide sequence is one atomic 60-bit stamp, ms << 12 | counter,
 *  advanced with compare-and-swap, so ids need no lock and a counter that
 *  runs past 4095 simply carries into the next millisecond. The 62 random
 *  bits come from a per-thread pool refilled in bulk from getrandom().
 */
#include "dlq_uuid.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#define COUNTER_BITS   12
#define MS_MAX         ((UINT64_C (1) << 48) - 1)
#define MAX_REWIND_MS  10000u   /* see next_stamp */
#define POOL_BYTES     512

static _Atomic uint64_t last_stamp;

static _Thread_local struct {
    unsigned char bytes [POOL_BYTES];
    size_t        left;
} pool;

static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* The next stamp of the sequence for a request to embed ms. Normally that is
 * (ms, 0) for a new millisecond and the last stamp + 1 otherwise. A ms that
 * lies behind the last one by at most MAX_REWIND_MS (a clock step, another
 * thread that read the clock a moment earlier, or a counter that borrowed
 * ahead) continues the sequence, so ids stay in creation order. A ms further
 * back is taken as meant: it is embedded as given and the sequence restarts
 * there. */
static uint64_t
next_stamp (int64_t ms)
{
    uint64_t want_ms = ms < 0 ? 0 : (uint64_t) ms > MS_MAX ? MS_MAX : (uint64_t) ms;
    uint64_t old = atomic_load_explicit (&last_stamp, memory_order_relaxed);
    uint64_t next;
    do {
        uint64_t old_ms = old >> COUNTER_BITS;
        if (want_ms > old_ms || old_ms - want_ms > MAX_REWIND_MS)
            next = want_ms << COUNTER_BITS;
        else
            next = old + 1;
    } while (!atomic_compare_exchange_weak_explicit (&last_stamp, &old, next,
                                                     memory_order_relaxed, memory_order_relaxed));
    return next;
}

/* A forked child must not hand out the random bytes its parent still holds. */
static void pool_forget (void) { pool.left = 0; }
static void register_atfork (void) { pthread_atfork (NULL, NULL, pool_forget); }

static bool
read_urandom (unsigned char *buf, size_t n)
{
    int fd = open ("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    size_t got = 0;
    while (got < n) {
        ssize_t r = read (fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t) r;
    }
    close (fd);
    return got == n;
}

/* Fill buf with n bytes from the kernel CSPRNG; aborts when there is none,
 * since ids without randomness could collide across processes. */
static void
os_random (unsigned char *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = getrandom (buf + got, n - got, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            break;
        got += (size_t) r;
    }
    if (got < n && !read_urandom (buf + got, n - got)) {
        fprintf (stderr, "%s: no source of random bytes for UUIDs\n", program_invocation_short_name);
        abort ();
    }
}

static void
random_bytes (unsigned char *out, size_t n)
{
    if (pool.left < n) {
        pthread_once (&atfork_once, register_atfork);
        os_random (pool.bytes, POOL_BYTES);
        pool.left = POOL_BYTES;
    }
    memcpy (out, pool.bytes + POOL_BYTES - pool.left, n);
    pool.left -= n;
}

static void
format_uuid (const unsigned char b [16], char *out)
{
    static const char hex [] = "0123456789abcdef";
    char *o = out;
    for (int i = 0; i < 16; i++) {
        if (i == 4 || i == 6 || i == 8 || i == 10)
            *o++ = '-';
        *o++ = hex [b [i] >> 4];
        *o++ = hex [b [i] & 0xF];
    }
    *o = '\0';
}

void
dlq_uuid_v7 (int64_t ms, char *out)
{
    uint64_t stamp = next_stamp (ms);
    uint64_t unix_ms = (stamp >> COUNTER_BITS) & MS_MAX;
    unsigned counter = (unsigned) (stamp & ((1u << COUNTER_BITS) - 1));
    unsigned char b [16];
    for (int i = 0; i < 6; i++)
        b [i] = (unsigned char) (unix_ms >> (40 - 8 * i));
    b [6] = (unsigned char) (0x70 | counter >> 8);
    b [7] = (unsigned char) (counter & 0xFF);
    random_bytes (b + 8, 8);
    b [8] = (unsigned char) (0x80 | (b [8] & 0x3F));
    format_uuid (b, out);
}

static bool
is_hex (char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool
dlq_uuid_parse (const char *s, size_t len, char *out)
{
    if (!s || len != DLQ_UUID_LEN)
        return false;
    for (size_t i = 0; i < DLQ_UUID_LEN; i++) {
        bool dash_pos = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash_pos ? s [i] != '-' : !is_hex (s [i]))
            return false;
    }
    if (out) {
        for (size_t i = 0; i < DLQ_UUID_LEN; i++)
            out [i] = (char) (s [i] >= 'A' && s [i] <= 'F' ? s [i] + ('a' - 'A') : s [i]);
        out [DLQ_UUID_LEN] = '\0';
    }
    return true;
}
