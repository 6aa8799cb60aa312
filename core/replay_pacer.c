/*  replay_pacer — due times of a rate-limited replay (see the header).
 */
#include "replay_pacer.h"

#define CATCH_UP_MS 1000        /* the most lateness a run makes up for */

void
dlq_replay_pacer_start (dlq_replay_pacer_t *self, double rate, int64_t now_ms)
{
    self->rate = rate > 0 ? rate : 1;
    self->start_ms = now_ms;
    self->sent = 0;
}

int64_t
dlq_replay_pacer_due (const dlq_replay_pacer_t *self)
{
    return self->start_ms + (int64_t) ((double) self->sent * 1000.0 / self->rate);
}

size_t
dlq_replay_pacer_allow (dlq_replay_pacer_t *self, int64_t now_ms, size_t max)
{
    if (now_ms - dlq_replay_pacer_due (self) > CATCH_UP_MS)
        dlq_replay_pacer_start (self, self->rate, now_ms);
    if (now_ms < dlq_replay_pacer_due (self))
        return 0;
    /* Events sent..k are due when start + k * 1000 / rate <= now. */
    double k = (double) (now_ms - self->start_ms) * self->rate / 1000.0;
    uint64_t due = (uint64_t) k + 1;
    uint64_t n = due > self->sent ? due - self->sent : 0;
    return n < max ? (size_t) n : max;
}

void
dlq_replay_pacer_sent (dlq_replay_pacer_t *self, size_t n)
{
    self->sent += n;
}
