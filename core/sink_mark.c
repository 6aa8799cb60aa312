/*  sink_mark — what each workbench mark does; see the header. */
#include "sink_mark.h"

#include <stddef.h>

static const dlq_sink_mark_effect_t mark_effects [] = {
    [DLQ_SINK_MARK_RESOLVED]    = { "SUCCEEDED",   0, 0, false },
    [DLQ_SINK_MARK_FAILED]      = { "PENDING",     1, 0, true  },
    [DLQ_SINK_MARK_REPLAYED]    = { NULL,          0, 1, true  },
    [DLQ_SINK_MARK_QUARANTINED] = { "QUARANTINED", 0, 0, false },
    [DLQ_SINK_MARK_RELEASED]    = { NULL,          0, 0, true  },
};

#define MARK_COUNT (sizeof mark_effects / sizeof mark_effects [0])

const dlq_sink_mark_effect_t *
dlq_sink_mark_effect (dlq_sink_mark_t mark)
{
    return (size_t) mark < MARK_COUNT ? &mark_effects [mark] : NULL;
}
