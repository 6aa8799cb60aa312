/*  dlq_prom — Prometheus text exposition, written into a dlq_buf. */
#include "dlq_prom.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define HISTOGRAM_LABELS_MAX 7

static void
put_escaped (dlq_buf_t *out, const char *text, bool quote)
{
    for (const char *p = text; *p; p++) {
        if (*p == '\\')
            dlq_buf_puts (out, "\\\\");
        else
        if (*p == '\n')
            dlq_buf_puts (out, "\\n");
        else
        if (*p == '"' && quote)
            dlq_buf_puts (out, "\\\"");
        else
            dlq_buf_putc (out, *p);
    }
}

void
dlq_prom_family (dlq_buf_t *out, const char *name, const char *type, const char *help)
{
    dlq_buf_printf (out, "# HELP %s ", name);
    put_escaped (out, help, false);
    dlq_buf_printf (out, "\n# TYPE %s %s\n", name, type);
}

static void
put_value (dlq_buf_t *out, double value)
{
    if (isnan (value))
        dlq_buf_puts (out, "NaN");
    else
    if (isinf (value))
        dlq_buf_puts (out, value > 0 ? "+Inf" : "-Inf");
    else
    if (value == floor (value) && fabs (value) <= 9007199254740992.0)
        dlq_buf_printf (out, "%.0f", value);
    else
        dlq_buf_printf (out, "%.15g", value);
}

void
dlq_prom_sample (dlq_buf_t *out, const char *name, const dlq_prom_label_t *labels, size_t label_count,
                 double value)
{
    dlq_buf_puts (out, name);
    if (label_count) {
        dlq_buf_putc (out, '{');
        for (size_t i = 0; i < label_count; i++) {
            dlq_buf_printf (out, "%s%s=\"", i ? "," : "", labels [i].name);
            put_escaped (out, labels [i].value, true);
            dlq_buf_putc (out, '"');
        }
        dlq_buf_putc (out, '}');
    }
    dlq_buf_putc (out, ' ');
    put_value (out, value);
    dlq_buf_putc (out, '\n');
}

void
dlq_prom_histogram (dlq_buf_t *out, const char *name, const dlq_prom_label_t *labels, size_t label_count,
                    const dlq_histogram_reading_t *reading)
{
    if (label_count > HISTOGRAM_LABELS_MAX)
        label_count = HISTOGRAM_LABELS_MAX;
    dlq_prom_label_t with_le [HISTOGRAM_LABELS_MAX + 1];
    if (label_count)
        memcpy (with_le, labels, label_count * sizeof *labels);
    char series [256], bound [32];
    snprintf (series, sizeof series, "%s_bucket", name);
    with_le [label_count].name = "le";
    for (size_t i = 0; i < reading->bound_count; i++) {
        snprintf (bound, sizeof bound, "%g", reading->bounds [i]);
        with_le [label_count].value = bound;
        dlq_prom_sample (out, series, with_le, label_count + 1, (double) reading->cumulative [i]);
    }
    with_le [label_count].value = "+Inf";
    dlq_prom_sample (out, series, with_le, label_count + 1, (double) reading->count);
    snprintf (series, sizeof series, "%s_sum", name);
    dlq_prom_sample (out, series, labels, label_count, reading->sum);
    snprintf (series, sizeof series, "%s_count", name);
    dlq_prom_sample (out, series, labels, label_count, (double) reading->count);
}
