/*  sink_mark — what each workbench mark (dlq_sink_mark_t, dlq_sink.h) does
 *  to an event's replay state, for the stores that keep that state (the
 *  embedded store, the postgres and mongo sinks): the status it gives,
 *  what the retry and replay counts gain, and whether retry_after becomes
 *  the time the mark is given.
 */
#ifndef DLQ_SINK_MARK_H
#define DLQ_SINK_MARK_H

#include "dlq_sink.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct {
    const char *status;             /* NULL: the event keeps its own */
    int32_t     retry_gain;
    int32_t     replay_gain;
    bool        sets_retry_after;
} dlq_sink_mark_effect_t;

/* The effect of mark, or NULL for a value that is no mark. */
const dlq_sink_mark_effect_t *dlq_sink_mark_effect (dlq_sink_mark_t mark);

#endif
