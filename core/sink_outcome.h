/*  sink_outcome — setting a sink's verdict on one event, for the in-tree
 *  sink plugins (core is linked statically into each of them).
 */
#ifndef DLQ_SINK_OUTCOME_H
#define DLQ_SINK_OUTCOME_H

#include "dlq_sink.h"

#include <stdarg.h>

/* Set outcome to result, its message printf-style (cut to fit). */
void dlq_sink_outcome_set (dlq_sink_outcome_t *outcome, dlq_sink_result_t result, const char *fmt, ...)
    __attribute__ ((format (printf, 3, 4)));

/* The same with a va_list, for a sink's own printf-style wrapper. */
void dlq_sink_outcome_vset (dlq_sink_outcome_t *outcome, dlq_sink_result_t result, const char *fmt, va_list args)
    __attribute__ ((format (printf, 3, 0)));

#endif
