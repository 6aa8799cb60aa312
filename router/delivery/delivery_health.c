/*  delivery_health — a sink's live state, shared with the query threads. */
#include "delivery_health.h"

#include "dlq_alloc.h"
#include "dlq_json.h"
#include "dlq_time.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct dlq_delivery_health {
    pthread_mutex_t lock;
    char            circuit [16];
    char            last_error [256];
    int64_t         last_error_at;
    uint64_t        ordinal;        /* the dispatcher's queue (dlq_delivery_health_set_queue) */
    int64_t         before_spool;
    size_t          retrying;
    int64_t         oldest_at;
    uint64_t        held_from;
    atomic_uint_fast64_t retried;
    dlq_histogram_t *delivery_seconds;
};

dlq_delivery_health_t *
dlq_delivery_health_new (void)
{
    dlq_delivery_health_t *self = dlq_calloc (1, sizeof *self);
    pthread_mutex_init (&self->lock, NULL);
    snprintf (self->circuit, sizeof self->circuit, "closed");
    self->last_error_at = DLQ_TIME_NONE;
    self->oldest_at = DLQ_TIME_NONE;
    self->delivery_seconds = dlq_histogram_new (dlq_histogram_seconds, dlq_histogram_seconds_count);
    return self;
}

void
dlq_delivery_health_destroy (dlq_delivery_health_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    pthread_mutex_destroy (&(*self_p)->lock);
    dlq_histogram_destroy (&(*self_p)->delivery_seconds);
    free (*self_p);
    *self_p = NULL;
}

void
dlq_delivery_health_set_circuit (dlq_delivery_health_t *self, const char *state)
{
    pthread_mutex_lock (&self->lock);
    snprintf (self->circuit, sizeof self->circuit, "%s", state);
    pthread_mutex_unlock (&self->lock);
}

void
dlq_delivery_health_set_error (dlq_delivery_health_t *self, const char *error, int64_t at_ms)
{
    pthread_mutex_lock (&self->lock);
    size_t n = dlq_utf8_prefix (error, strlen (error), sizeof self->last_error - 1);     /* never half a character */
    memcpy (self->last_error, error, n);
    self->last_error [n] = '\0';
    self->last_error_at = at_ms;
    pthread_mutex_unlock (&self->lock);
}

void
dlq_delivery_health_format (dlq_delivery_health_t *self, dlq_buf_t *out)
{
    pthread_mutex_lock (&self->lock);
    dlq_buf_printf (out, "\"circuit\":\"%s\"", self->circuit);
    char iso [DLQ_TIME_ISO_LEN + 1];
    if (self->last_error_at != DLQ_TIME_NONE && dlq_time_format_iso (self->last_error_at, iso)) {
        dlq_buf_puts (out, ",\"lastError\":");
        dlq_json_write_string (out, self->last_error, strlen (self->last_error));
        dlq_buf_printf (out, ",\"lastErrorAt\":\"%s\"", iso);
    }
    pthread_mutex_unlock (&self->lock);
}

void
dlq_delivery_health_set_queue (dlq_delivery_health_t *self, uint64_t ordinal, int64_t before_spool, size_t retrying)
{
    pthread_mutex_lock (&self->lock);
    self->ordinal = ordinal;
    self->before_spool = before_spool;
    self->retrying = retrying;
    pthread_mutex_unlock (&self->lock);
}

void
dlq_delivery_health_queue (dlq_delivery_health_t *self, uint64_t newest, int64_t *backlog_out, int64_t *retrying_out)
{
    pthread_mutex_lock (&self->lock);
    /* the dispatcher can have read a batch the committer has not counted yet */
    uint64_t past = newest > self->ordinal ? newest - self->ordinal : 0;
    *backlog_out = (int64_t) past + self->before_spool;
    *retrying_out = (int64_t) self->retrying;
    pthread_mutex_unlock (&self->lock);
}

void
dlq_delivery_health_set_oldest (dlq_delivery_health_t *self, int64_t created_at_ms, uint64_t held_from)
{
    pthread_mutex_lock (&self->lock);
    self->oldest_at = created_at_ms;
    self->held_from = held_from;
    pthread_mutex_unlock (&self->lock);
}

void
dlq_delivery_health_retried (dlq_delivery_health_t *self, uint64_t events)
{
    atomic_fetch_add_explicit (&self->retried, events, memory_order_relaxed);
}

void
dlq_delivery_health_delivery_took (dlq_delivery_health_t *self, double seconds)
{
    dlq_histogram_observe (self->delivery_seconds, seconds);
}

void
dlq_delivery_health_read (dlq_delivery_health_t *self, dlq_delivery_health_reading_t *out)
{
    pthread_mutex_lock (&self->lock);
    snprintf (out->circuit, sizeof out->circuit, "%s", self->circuit);
    out->oldest_at_ms = self->oldest_at;
    out->held_from = self->held_from;
    pthread_mutex_unlock (&self->lock);
    out->retried = atomic_load_explicit (&self->retried, memory_order_relaxed);
    dlq_histogram_read (self->delivery_seconds, &out->delivery_seconds);
}
