/*  mark_channel — a mutex-protected queue of marks with an eventfd for the
 *  committer's poll, the marks in flight (appended, not yet applied) for
 *  the indexer's answers, and a condition variable for the askers.
 */
#include "mark_channel.h"

#include "dlq_alloc.h"
#include "dlq_time.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

enum { QUEUED, APPENDED, APPLIED, FAILED };

typedef struct {
    dlq_mark_t **items;
    size_t       count, cap;
} list_t;

struct dlq_mark_channel {
    pthread_mutex_t lock;
    pthread_cond_t  changed;
    int             fd;
    list_t          queued;         /* asked for, not taken */
    list_t          taken;          /* the committer's */
    list_t          flight;         /* appended, not yet applied (in position order) */
    char            error [256];    /* why the last take failed */
    bool            closed;
};

static void
list_push (list_t *list, dlq_mark_t *mark)
{
    if (list->count == list->cap) {
        list->cap = list->cap ? list->cap * 2 : 16;
        list->items = dlq_realloc (list->items, list->cap * sizeof *list->items);
    }
    list->items [list->count++] = mark;
}

static void
mark_free (dlq_mark_t *mark)
{
    free (mark->id);
    free (mark);
}

/* The mark reached its end (the lock held): its asker is told, or, gone,
 * it is freed. */
static void
settle (dlq_mark_channel_t *self, dlq_mark_t *mark, int stage)
{
    mark->stage = stage;
    if (mark->abandoned)
        mark_free (mark);
    else
        pthread_cond_broadcast (&self->changed);
}

dlq_mark_channel_t *
dlq_mark_channel_new (void)
{
    dlq_mark_channel_t *self = dlq_calloc (1, sizeof *self);
    pthread_mutex_init (&self->lock, NULL);
    dlq_time_mono_cond_init (&self->changed);
    self->fd = eventfd (0, EFD_NONBLOCK | EFD_CLOEXEC);
    return self;
}

void
dlq_mark_channel_destroy (dlq_mark_channel_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    dlq_mark_channel_t *self = *self_p;
    list_t *lists [3] = { &self->queued, &self->taken, &self->flight };
    for (int l = 0; l < 3; l++) {
        for (size_t i = 0; i < lists [l]->count; i++)
            mark_free (lists [l]->items [i]);
        free (lists [l]->items);
    }
    close (self->fd);
    pthread_cond_destroy (&self->changed);
    pthread_mutex_destroy (&self->lock);
    free (self);
    *self_p = NULL;
}

/* Have all of marks ended? *failed when one of them failed. */
static bool
all_ended (dlq_mark_t *const *marks, size_t count, bool *failed)
{
    bool ended = true;
    for (size_t i = 0; i < count; i++) {
        if (marks [i]->stage == FAILED)
            *failed = true;
        else
        if (marks [i]->stage != APPLIED)
            ended = false;
    }
    return ended || *failed;
}

/* Wait (the lock held) until every mark ended, one failed, the channel
 * closed or deadline (CLOCK_MONOTONIC) passed. */
static void
wait_marks (dlq_mark_channel_t *self, dlq_mark_t *const *marks, size_t count, const struct timespec *deadline,
            bool *failed)
{
    while (!all_ended (marks, count, failed) && !self->closed)
        if (pthread_cond_timedwait (&self->changed, &self->lock, deadline) == ETIMEDOUT)
            break;
}

dlq_store_result_t
dlq_mark_channel_apply (dlq_mark_channel_t *self, const char *const *ids, size_t count, dlq_sink_mark_t mark,
                        int64_t now_ms, int64_t retry_after_ms, int timeout_ms, dlq_store_result_t *rc_out,
                        dlq_sink_event_state_t *states_out, char *err, size_t err_len)
{
    if (count == 0)
        return DLQ_STORE_OK;
    dlq_mark_t **marks = dlq_calloc (count, sizeof *marks);
    for (size_t i = 0; i < count; i++) {
        marks [i] = dlq_calloc (1, sizeof *marks [i]);
        *marks [i] = (dlq_mark_t) { dlq_strdup (ids [i]), mark, now_ms, retry_after_ms, 0, QUEUED, false,
                                    DLQ_STORE_ERROR, { { 0 }, 0, 0, 0 } };
    }
    struct timespec deadline = dlq_time_mono_deadline (timeout_ms);
    pthread_mutex_lock (&self->lock);
    bool failed = false;
    if (self->closed)
        for (size_t i = 0; i < count; i++)
            marks [i]->stage = FAILED;      /* never queued: freed below */
    else {
        for (size_t i = 0; i < count; i++)
            list_push (&self->queued, marks [i]);
        uint64_t one = 1;
        if (write (self->fd, &one, sizeof one) < 0 && errno != EAGAIN) {
            failed = true;              /* cannot be: the counter is far from full */
            snprintf (self->error, sizeof self->error, "cannot wake the committer: %s", strerror (errno));
        }
        wait_marks (self, marks, count, &deadline, &failed);
    }
    bool done = all_ended (marks, count, &failed) && !failed;
    if (!done)
        snprintf (err, err_len, "%s", self->closed ? "the gateway is stopping"
                  : failed ? self->error : "the mark is in the spool but was not applied in time (it will be)");
    for (size_t i = 0; i < count; i++) {
        if (done && rc_out)
            rc_out [i] = marks [i]->rc;
        if (done && states_out)
            states_out [i] = marks [i]->state;
        if (marks [i]->stage == APPLIED || marks [i]->stage == FAILED)
            mark_free (marks [i]);
        else
            marks [i]->abandoned = true;    /* the channel frees it when it ends, or at destroy */
    }
    pthread_mutex_unlock (&self->lock);
    free (marks);
    return done ? DLQ_STORE_OK : DLQ_STORE_ERROR;
}

int dlq_mark_channel_fd (dlq_mark_channel_t *self) { return self->fd; }

dlq_mark_t **
dlq_mark_channel_take (dlq_mark_channel_t *self, size_t *count_out)
{
    uint64_t drained;
    if (read (self->fd, &drained, sizeof drained) < 0) {
        /* EAGAIN: nothing was signalled since the last take */
    }
    pthread_mutex_lock (&self->lock);
    list_t swap = self->taken;          /* empty: every take ends with synced */
    self->taken = self->queued;
    self->queued = (list_t) { swap.items, 0, swap.cap };
    *count_out = self->taken.count;
    pthread_mutex_unlock (&self->lock);
    return self->taken.items;
}

void
dlq_mark_channel_appended (dlq_mark_channel_t *self)
{
    pthread_mutex_lock (&self->lock);
    for (size_t i = 0; i < self->taken.count; i++) {
        self->taken.items [i]->stage = APPENDED;
        list_push (&self->flight, self->taken.items [i]);
    }
    pthread_mutex_unlock (&self->lock);
}

/* Drop the marks that ended from the in-flight list (the lock held). */
static void
flight_compact (dlq_mark_channel_t *self)
{
    size_t kept = 0;
    for (size_t i = 0; i < self->flight.count; i++)
        if (self->flight.items [i]->stage == APPENDED)
            self->flight.items [kept++] = self->flight.items [i];
    self->flight.count = kept;
}

void
dlq_mark_channel_synced (dlq_mark_channel_t *self, bool ok, const char *err)
{
    pthread_mutex_lock (&self->lock);
    if (!ok) {
        snprintf (self->error, sizeof self->error, "%s", err ? err : "the spool refused the mark");
        /* none of them is in the spool: those appended leave the flight
         * before settle may free them */
        for (size_t i = 0; i < self->taken.count; i++)
            self->taken.items [i]->stage = FAILED;
        flight_compact (self);
        for (size_t i = 0; i < self->taken.count; i++)
            settle (self, self->taken.items [i], FAILED);
    }
    self->taken.count = 0;
    pthread_mutex_unlock (&self->lock);
}

void
dlq_mark_channel_applied (dlq_mark_channel_t *self, uint64_t position, dlq_store_result_t rc,
                          const dlq_sink_event_state_t *state)
{
    pthread_mutex_lock (&self->lock);
    for (size_t i = 0; i < self->flight.count; i++) {
        dlq_mark_t *mark = self->flight.items [i];
        if (mark->position != position || mark->stage != APPENDED)
            continue;
        mark->rc = rc;
        if (state)
            mark->state = *state;
        memmove (&self->flight.items [i], &self->flight.items [i + 1],
                 (self->flight.count - i - 1) * sizeof *self->flight.items);
        self->flight.count--;
        settle (self, mark, APPLIED);
        break;
    }
    pthread_mutex_unlock (&self->lock);
}

void
dlq_mark_channel_close (dlq_mark_channel_t *self)
{
    pthread_mutex_lock (&self->lock);
    self->closed = true;
    pthread_cond_broadcast (&self->changed);
    pthread_mutex_unlock (&self->lock);
}
