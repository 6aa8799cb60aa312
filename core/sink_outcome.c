/*  sink_outcome — a sink's verdict on one event; see the header. */
#include "sink_outcome.h"

#include <stdio.h>

void
dlq_sink_outcome_vset (dlq_sink_outcome_t *outcome, dlq_sink_result_t result, const char *fmt, va_list args)
{
    outcome->result = result;
    vsnprintf (outcome->message, sizeof outcome->message, fmt, args);
}

void
dlq_sink_outcome_set (dlq_sink_outcome_t *outcome, dlq_sink_result_t result, const char *fmt, ...)
{
    va_list args;
    va_start (args, fmt);
    dlq_sink_outcome_vset (outcome, result, fmt, args);
    va_end (args);
}
