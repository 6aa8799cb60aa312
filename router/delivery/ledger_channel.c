/*  ledger_channel — a mutex-protected queue with an eventfd for the
 *  indexer's poll and a condition variable for waiting dispatchers.
 *  Updates whose commit failed are put back at the queue's head. */
#include "ledger_channel.h"

#include "dlq_alloc.h"
#include "dlq_log.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct dlq_ledger_channel {
    pthread_mutex_t       lock;
    pthread_cond_t        changed;
    int                   fd;
    dlq_ledger_update_t **queue;
    size_t                count;
    size_t                capacity;
    uint64_t              next_ticket;      /* last ticket handed out */
    uint64_t              committed;        /* every ticket <= this is durable */
    uint64_t              failed;           /* the last ticket whose commit failed */
    bool                  closed;
};

dlq_ledger_channel_t *
dlq_ledger_channel_new (void)
{
    dlq_ledger_channel_t *self = dlq_calloc (1, sizeof *self);
    pthread_mutex_init (&self->lock, NULL);
    pthread_cond_init (&self->changed, NULL);
    self->fd = eventfd (0, EFD_NONBLOCK | EFD_CLOEXEC);
    return self;
}

void
dlq_ledger_channel_destroy (dlq_ledger_channel_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_ledger_channel_t *self = *self_p;
    for (size_t i = 0; i < self->count; i++)
        dlq_ledger_update_destroy (&self->queue [i]);
    free (self->queue);
    close (self->fd);
    pthread_cond_destroy (&self->changed);
    pthread_mutex_destroy (&self->lock);
    free (self);
    *self_p = NULL;
}

/* Room for extra more updates in the queue (the lock held). */
static void
reserve (dlq_ledger_channel_t *self, size_t extra)
{
    if (self->count + extra <= self->capacity)
        return;
    size_t capacity = self->capacity ? self->capacity : 16;
    while (capacity < self->count + extra)
        capacity *= 2;
    self->queue = dlq_realloc (self->queue, capacity * sizeof *self->queue);
    self->capacity = capacity;
}

uint64_t
dlq_ledger_channel_submit (dlq_ledger_channel_t *self, dlq_ledger_update_t *update)
{
    const char *problem = dlq_ledger_update_problem (update);
    if (problem) {
        int name_len = update ? (int) strnlen (update->sink, sizeof update->sink) : 1;
        dlq_log (DLQ_LOG_ERROR, "ledger update of sink %.*s refused: it %s", name_len,
                 update ? update->sink : "?", problem);
        dlq_ledger_update_destroy (&update);
        return 0;
    }
    pthread_mutex_lock (&self->lock);
    reserve (self, 1);
    self->queue [self->count++] = update;
    uint64_t ticket = ++self->next_ticket;
    pthread_mutex_unlock (&self->lock);
    uint64_t one = 1;
    ssize_t ignored = write (self->fd, &one, sizeof one);
    (void) ignored;
    return ticket;
}

/* Is ticket's update committed, or has its commit failed, or the channel
 * closed? And was it committed (with no failure first)? The lock held. */
static bool
settled (const dlq_ledger_channel_t *self, uint64_t ticket)
{
    return self->committed >= ticket || self->failed >= ticket || self->closed;
}

static bool
committed (const dlq_ledger_channel_t *self, uint64_t ticket)
{
    return self->committed >= ticket && self->failed < ticket;
}

bool
dlq_ledger_channel_wait (dlq_ledger_channel_t *self, uint64_t ticket)
{
    pthread_mutex_lock (&self->lock);
    while (!settled (self, ticket))
        pthread_cond_wait (&self->changed, &self->lock);
    bool ok = committed (self, ticket);
    pthread_mutex_unlock (&self->lock);
    return ok;
}

bool
dlq_ledger_channel_settled (dlq_ledger_channel_t *self, uint64_t ticket, bool *ok_out)
{
    pthread_mutex_lock (&self->lock);
    bool done = settled (self, ticket);
    *ok_out = committed (self, ticket);
    pthread_mutex_unlock (&self->lock);
    return done;
}

int dlq_ledger_channel_fd (dlq_ledger_channel_t *self) { return self->fd; }

dlq_ledger_update_t **
dlq_ledger_channel_take (dlq_ledger_channel_t *self, size_t *count_out, uint64_t *last_ticket_out)
{
    uint64_t drained;
    ssize_t ignored = read (self->fd, &drained, sizeof drained);
    (void) ignored;
    pthread_mutex_lock (&self->lock);
    dlq_ledger_update_t **taken = self->queue;
    *count_out = self->count;
    *last_ticket_out = self->next_ticket;
    self->queue = NULL;
    self->count = self->capacity = 0;
    pthread_mutex_unlock (&self->lock);
    return taken;
}

void
dlq_ledger_channel_done (dlq_ledger_channel_t *self, dlq_ledger_update_t **updates,
                         size_t count, uint64_t last_ticket, bool ok)
{
    if (ok)
        for (size_t i = 0; i < count; i++)
            dlq_ledger_update_destroy (&updates [i]);
    pthread_mutex_lock (&self->lock);
    if (!ok && count) {
        reserve (self, count);
        memmove (self->queue + count, self->queue, self->count * sizeof *self->queue);
        memcpy (self->queue, updates, count * sizeof *updates);
        self->count += count;
    }
    if (ok)
        self->committed = last_ticket > self->committed ? last_ticket : self->committed;
    else
        self->failed = last_ticket;
    pthread_cond_broadcast (&self->changed);
    pthread_mutex_unlock (&self->lock);
    free (updates);
}

void
dlq_ledger_channel_close (dlq_ledger_channel_t *self)
{
    pthread_mutex_lock (&self->lock);
    self->closed = true;
    pthread_cond_broadcast (&self->changed);
    pthread_mutex_unlock (&self->lock);
}
