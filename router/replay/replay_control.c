/*  replay_control — query threads wait for the replayer to take in a job's
 *  new state; see the header. */
#include "replay_control.h"

#include "dlq_alloc.h"
#include "dlq_time.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

struct dlq_replay_control {
    pthread_mutex_t  lock;
    pthread_cond_t   changed;       /* handled moved, or closed */
    uint64_t         requested;     /* atomic: bumped by query threads, read by the replayer */
    uint64_t         handled;
    bool             closed;
};

dlq_replay_control_t *
dlq_replay_control_new (void)
{
    dlq_replay_control_t *self = dlq_calloc (1, sizeof *self);
    pthread_mutex_init (&self->lock, NULL);
    dlq_time_mono_cond_init (&self->changed);
    return self;
}

void
dlq_replay_control_destroy (dlq_replay_control_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_replay_control_t *self = *self_p;
    pthread_cond_destroy (&self->changed);
    pthread_mutex_destroy (&self->lock);
    free (self);
    *self_p = NULL;
}

uint64_t
dlq_replay_control_request (dlq_replay_control_t *self)
{
    return __atomic_add_fetch (&self->requested, 1, __ATOMIC_SEQ_CST);
}

bool
dlq_replay_control_wait (dlq_replay_control_t *self, uint64_t generation, int timeout_ms)
{
    struct timespec until = dlq_time_mono_deadline (timeout_ms);
    pthread_mutex_lock (&self->lock);
    int rc = 0;
    while (!self->closed && self->handled < generation && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait (&self->changed, &self->lock, &until);
    bool handled = self->closed || self->handled >= generation;
    pthread_mutex_unlock (&self->lock);
    return handled;
}

uint64_t
dlq_replay_control_requested (dlq_replay_control_t *self)
{
    return __atomic_load_n (&self->requested, __ATOMIC_SEQ_CST);
}

void
dlq_replay_control_handled (dlq_replay_control_t *self, uint64_t generation)
{
    pthread_mutex_lock (&self->lock);
    if (generation > self->handled)
        self->handled = generation;
    pthread_cond_broadcast (&self->changed);
    pthread_mutex_unlock (&self->lock);
}

void
dlq_replay_control_close (dlq_replay_control_t *self)
{
    pthread_mutex_lock (&self->lock);
    self->closed = true;
    pthread_cond_broadcast (&self->changed);
    pthread_mutex_unlock (&self->lock);
}
