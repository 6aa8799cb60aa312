/*  counters — atomic request counters. */
#include "counters.h"

#include "dlq_alloc.h"
#include "dlq_time.h"

#include "dlq_json.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define OTHERS "(others)"

typedef struct {
    char     *name;
    uint64_t  count;
} refusal_t;

struct dlq_counters {
    atomic_uint_fast64_t accepted;
    atomic_uint_fast64_t duplicate;
    atomic_uint_fast64_t rejected;
    atomic_uint_fast64_t replies_dropped;
    atomic_uint_fast64_t connections;
    atomic_uint_fast64_t errors [DLQ_CODE_COUNT];
    atomic_uint_fast64_t replies [DLQ_VERB_SLOTS][DLQ_CODE_COUNT];
    atomic_uint_fast64_t forbidden;
    dlq_histogram_t     *ack_latency;
    dlq_histogram_t     *commit_writes;
    dlq_histogram_t     *commit_seconds;
    int64_t              started_ms;
    bool                 secured;
    atomic_uint_fast64_t handshakes [2];
    pthread_mutex_t      lock;              /* of the refusals */
    refusal_t           *refusals;
    size_t               refusal_count;
};

dlq_counters_t *
dlq_counters_new (void)
{
    dlq_counters_t *self = dlq_calloc (1, sizeof *self);
    self->started_ms = dlq_time_mono_ms ();
    self->ack_latency = dlq_histogram_new (dlq_histogram_seconds, dlq_histogram_seconds_count);
    self->commit_writes = dlq_histogram_new (dlq_histogram_sizes, dlq_histogram_sizes_count);
    self->commit_seconds = dlq_histogram_new (dlq_histogram_seconds, dlq_histogram_seconds_count);
    pthread_mutex_init (&self->lock, NULL);
    return self;
}

void
dlq_counters_destroy (dlq_counters_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_counters_t *self = *self_p;
    for (size_t i = 0; i < self->refusal_count; i++)
        free (self->refusals [i].name);
    free (self->refusals);
    dlq_histogram_destroy (&self->ack_latency);
    dlq_histogram_destroy (&self->commit_writes);
    dlq_histogram_destroy (&self->commit_seconds);
    pthread_mutex_destroy (&self->lock);
    free (self);
    *self_p = NULL;
}

void dlq_counters_accepted (dlq_counters_t *self, uint64_t n) { atomic_fetch_add_explicit (&self->accepted, n, memory_order_relaxed); }
void dlq_counters_duplicate (dlq_counters_t *self, uint64_t n) { atomic_fetch_add_explicit (&self->duplicate, n, memory_order_relaxed); }

void dlq_counters_reply_dropped (dlq_counters_t *self, uint64_t n) { atomic_fetch_add_explicit (&self->replies_dropped, n, memory_order_relaxed); }
void dlq_counters_connections (dlq_counters_t *self, uint64_t n) { atomic_store_explicit (&self->connections, n, memory_order_relaxed); }

/* Codes that mean the client sent something wrong (as opposed to NOT_FOUND,
 * an ordinary answer, FORBIDDEN, a refusal of a valid request, or
 * UNAVAILABLE / INTERNAL, the gateway's trouble). */
static bool
is_bad_input (dlq_code_t code)
{
    return code != DLQ_OK && code != DLQ_ERR_NOT_FOUND
        && code != DLQ_ERR_UNAVAILABLE && code != DLQ_ERR_INTERNAL && code != DLQ_ERR_INVALID_STATE
        && code != DLQ_ERR_FORBIDDEN;
}

void
dlq_counters_reply (dlq_counters_t *self, dlq_verb_t verb, dlq_code_t code)
{
    if ((unsigned) code >= DLQ_CODE_COUNT)
        code = DLQ_ERR_INTERNAL;
    if ((unsigned) verb >= DLQ_VERB_SLOTS)
        verb = DLQ_VERB_UNKNOWN;
    atomic_fetch_add_explicit (&self->replies [verb][code], 1, memory_order_relaxed);
    if (code == DLQ_OK)
        return;
    atomic_fetch_add_explicit (&self->errors [code], 1, memory_order_relaxed);
    if (is_bad_input (code))
        atomic_fetch_add_explicit (&self->rejected, 1, memory_order_relaxed);
}

void dlq_counters_ack_latency (dlq_counters_t *self, double seconds) { dlq_histogram_observe (self->ack_latency, seconds); }

void
dlq_counters_commit (dlq_counters_t *self, size_t writes, double seconds)
{
    dlq_histogram_observe (self->commit_writes, (double) writes);
    dlq_histogram_observe (self->commit_seconds, seconds);
}

void dlq_counters_secured (dlq_counters_t *self) { self->secured = true; }

void
dlq_counters_forbidden (dlq_counters_t *self, const char *principal)
{
    pthread_mutex_lock (&self->lock);
    size_t i = 0;
    while (i < self->refusal_count && strcmp (self->refusals [i].name, principal) != 0
        && !(self->refusal_count >= DLQ_COUNTERS_PRINCIPALS && strcmp (self->refusals [i].name, OTHERS) == 0))
        i++;
    if (i == self->refusal_count) {
        self->refusals = dlq_realloc (self->refusals, (i + 1) * sizeof *self->refusals);
        self->refusals [i].name = dlq_strdup (self->refusal_count >= DLQ_COUNTERS_PRINCIPALS ? OTHERS : principal);
        self->refusals [i].count = 0;
        self->refusal_count++;
    }
    self->refusals [i].count++;
    pthread_mutex_unlock (&self->lock);
    atomic_fetch_add_explicit (&self->forbidden, 1, memory_order_relaxed);
}

void
dlq_counters_handshake_refused (dlq_counters_t *self, dlq_handshake_refusal_t why)
{
    atomic_fetch_add_explicit (&self->handshakes [why == DLQ_HANDSHAKE_REPLAY_DENIED], 1, memory_order_relaxed);
}

static void
format_security (dlq_counters_t *self, dlq_buf_t *out)
{
    dlq_buf_puts (out, ",\"forbidden\":{");
    pthread_mutex_lock (&self->lock);
    for (size_t i = 0; i < self->refusal_count; i++) {
        if (i)
            dlq_buf_puts (out, ",");
        dlq_json_write_string (out, self->refusals [i].name, strlen (self->refusals [i].name));
        dlq_buf_printf (out, ":%llu", (unsigned long long) self->refusals [i].count);
    }
    pthread_mutex_unlock (&self->lock);
    dlq_buf_printf (out, "},\"handshakesRefused\":{\"unknownKey\":%llu,\"replayDenied\":%llu}",
                    (unsigned long long) atomic_load (&self->handshakes [0]),
                    (unsigned long long) atomic_load (&self->handshakes [1]));
}

void
dlq_counters_format (const dlq_counters_t *self, dlq_buf_t *out)
{
    dlq_buf_printf (out, "\"counters\":{\"accepted\":%llu,\"duplicate\":%llu,\"rejected\":%llu,"
                    "\"repliesDropped\":%llu,\"errors\":{",
                    (unsigned long long) atomic_load (&self->accepted),
                    (unsigned long long) atomic_load (&self->duplicate),
                    (unsigned long long) atomic_load (&self->rejected),
                    (unsigned long long) atomic_load (&self->replies_dropped));
    bool first = true;
    for (int code = 1; code < DLQ_CODE_COUNT; code++) {
        uint64_t n = atomic_load (&self->errors [code]);
        if (!n)
            continue;
        dlq_buf_printf (out, "%s\"%s\":%llu", first ? "" : ",", dlq_code_name ((dlq_code_t) code),
                        (unsigned long long) n);
        first = false;
    }
    dlq_buf_puts (out, "}");
    if (self->secured)
        format_security ((dlq_counters_t *) self, out);
    dlq_buf_printf (out, "},\"uptimeSeconds\":%lld,\"connections\":%llu",
                    (long long) ((dlq_time_mono_ms () - self->started_ms) / 1000),
                    (unsigned long long) atomic_load (&self->connections));
}

void
dlq_counters_read (const dlq_counters_t *self, dlq_counters_reading_t *out)
{
    memset (out, 0, sizeof *out);
    out->accepted = atomic_load_explicit (&self->accepted, memory_order_relaxed);
    out->duplicate = atomic_load_explicit (&self->duplicate, memory_order_relaxed);
    out->rejected = atomic_load_explicit (&self->rejected, memory_order_relaxed);
    out->replies_dropped = atomic_load_explicit (&self->replies_dropped, memory_order_relaxed);
    out->connections = atomic_load_explicit (&self->connections, memory_order_relaxed);
    out->uptime_seconds = (dlq_time_mono_ms () - self->started_ms) / 1000;
    for (int v = 0; v < DLQ_VERB_SLOTS; v++)
        for (int c = 0; c < DLQ_CODE_COUNT; c++)
            out->replies [v][c] = atomic_load_explicit (&self->replies [v][c], memory_order_relaxed);
    out->forbidden = atomic_load_explicit (&self->forbidden, memory_order_relaxed);
    out->handshakes_unknown_key = atomic_load_explicit (&self->handshakes [0], memory_order_relaxed);
    out->handshakes_replay_denied = atomic_load_explicit (&self->handshakes [1], memory_order_relaxed);
    dlq_histogram_read (self->ack_latency, &out->ack_latency);
    dlq_histogram_read (self->commit_writes, &out->commit_writes);
    dlq_histogram_read (self->commit_seconds, &out->commit_seconds);
}
