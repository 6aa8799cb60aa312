/*  replay_pacer — the rate limit of a replay: event i of a run is due at
 *  start + i * 1000 / rate ms, and may go when the clock has reached its
 *  due time. Pure arithmetic on times the caller passes in, so the limit is
 *  tested on scheduled times, not by sleeping.
 *
 *  A replay that falls behind (a slow sink) does not make up for the lost
 *  time with a burst: when the next event is more than one second late the
 *  schedule restarts at now, so no more than a second's worth of events
 *  ever goes at once.
 */
#ifndef DLQ_REPLAY_PACER_H
#define DLQ_REPLAY_PACER_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    double   rate;          /* events per second, > 0 */
    int64_t  start_ms;      /* when event 0 of this run is due */
    uint64_t sent;          /* events of this run sent so far */
} dlq_replay_pacer_t;

/* Start a run at now_ms (also after a pause: the time paused is not owed). */
void dlq_replay_pacer_start (dlq_replay_pacer_t *self, double rate, int64_t now_ms);

/* When the next event is due (ms). */
int64_t dlq_replay_pacer_due (const dlq_replay_pacer_t *self);

/* How many events may go at now_ms, at most max: those due by now. */
size_t dlq_replay_pacer_allow (dlq_replay_pacer_t *self, int64_t now_ms, size_t max);

/* Count n events as sent. */
void dlq_replay_pacer_sent (dlq_replay_pacer_t *self, size_t n);

#endif
