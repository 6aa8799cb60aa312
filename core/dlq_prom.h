/*  dlq_prom — the Prometheus text exposition format (version 0.0.4), as
 *  the /metrics endpoint writes it: a family's # HELP and # TYPE lines,
 *  then its samples, each `name{label="value",...} value`. Label values
 *  and help texts are escaped as the format says (backslash, double quote
 *  and newline in a label value; backslash and newline in a help text).
 *  Pure: it only appends to a buffer.
 */
#ifndef DLQ_PROM_H
#define DLQ_PROM_H

#include "dlq_buf.h"
#include "dlq_histogram.h"

#include <stddef.h>

typedef struct {
    const char *name;               /* [a-zA-Z_][a-zA-Z0-9_]*, not starting with __ */
    const char *value;              /* any UTF-8 text */
} dlq_prom_label_t;

/* The content type of what these functions write. */
#define DLQ_PROM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

/* "# HELP name help\n# TYPE name type\n"; type is counter, gauge,
 * histogram (or untyped). */
void dlq_prom_family (dlq_buf_t *out, const char *name, const char *type, const char *help);

/* One sample: name{labels} value. Integral values up to 2^53 are written
 * without a fraction, NaN and infinities as NaN, +Inf and -Inf. */
void dlq_prom_sample (dlq_buf_t *out, const char *name, const dlq_prom_label_t *labels, size_t label_count,
                      double value);

/* The samples of a histogram family name: name_bucket{labels,le="..."}
 * for each bound and +Inf, name_sum and name_count. At most 7 labels. */
void dlq_prom_histogram (dlq_buf_t *out, const char *name, const dlq_prom_label_t *labels, size_t label_count,
                         const dlq_histogram_reading_t *reading);

#endif
