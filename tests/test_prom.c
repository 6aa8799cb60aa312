/*  test_prom — the Prometheus text exposition format as /metrics writes it:
 *  family headers, label values and help texts escaped as the format says,
 *  integral and special values, and histograms with cumulative buckets,
 *  +Inf, _sum and _count.
 */
#include "dlq_histogram.h"
#include "dlq_prom.h"

#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

static char *
text_of (dlq_buf_t *b)
{
    dlq_buf_putc (b, '\0');
    return b->data;
}

Test (prom, a_family_has_help_then_type)
{
    dlq_buf_t b = DLQ_BUF_INIT;
    dlq_prom_family (&b, "dlqd_x_total", "counter", "Things, with a \\ backslash\nand a newline.");
    cr_expect_str_eq (text_of (&b), "# HELP dlqd_x_total Things, with a \\\\ backslash\\nand a newline.\n"
                                    "# TYPE dlqd_x_total counter\n");
    dlq_buf_free (&b);
}

Test (prom, samples_escape_label_values_and_write_values_plainly)
{
    dlq_buf_t b = DLQ_BUF_INIT;
    dlq_prom_label_t labels [] = { { "sink", "a\"b\\c\nd" }, { "code", "OK" } };
    dlq_prom_sample (&b, "dlqd_y", labels, 2, 42);
    dlq_prom_sample (&b, "dlqd_y", NULL, 0, 0.25);
    dlq_prom_sample (&b, "dlqd_y", NULL, 0, 1e300);
    dlq_prom_sample (&b, "dlqd_y", NULL, 0, -3);
    dlq_prom_sample (&b, "dlqd_y", NULL, 0, NAN);
    dlq_prom_sample (&b, "dlqd_y", NULL, 0, INFINITY);
    dlq_prom_sample (&b, "dlqd_y", NULL, 0, -INFINITY);
    dlq_prom_sample (&b, "dlqd_y", NULL, 0, 18446744073709551615.0);
    cr_expect_str_eq (text_of (&b),
                      "dlqd_y{sink=\"a\\\"b\\\\c\\nd\",code=\"OK\"} 42\n"
                      "dlqd_y 0.25\n"
                      "dlqd_y 1e+300\n"
                      "dlqd_y -3\n"
                      "dlqd_y NaN\n"
                      "dlqd_y +Inf\n"
                      "dlqd_y -Inf\n"
                      "dlqd_y 1.84467440737096e+19\n");
    dlq_buf_free (&b);
}

Test (prom, a_histogram_has_cumulative_buckets_inf_sum_and_count)
{
    static const double bounds [] = { 0.01, 0.1, 1 };
    dlq_histogram_t *h = dlq_histogram_new (bounds, 3);
    double samples [] = { 0.005, 0.01, 0.05, 0.5, 2, 7, -1, NAN };
    for (size_t i = 0; i < sizeof samples / sizeof samples [0]; i++)
        dlq_histogram_observe (h, samples [i]);
    dlq_histogram_reading_t r;
    dlq_histogram_read (h, &r);
    cr_expect_eq (r.count, 8);
    cr_expect_eq (r.cumulative [0], 4, "0.005, 0.01 (a bound is inclusive), and -1 and NaN as 0");
    cr_expect_eq (r.cumulative [1], 5);
    cr_expect_eq (r.cumulative [2], 6);
    cr_expect_float_eq (r.sum, 9.565, 1e-9);
    dlq_buf_t b = DLQ_BUF_INIT;
    dlq_prom_label_t sink = { "sink", "pg" };
    dlq_prom_histogram (&b, "dlqd_d_seconds", &sink, 1, &r);
    cr_expect_str_eq (text_of (&b),
                      "dlqd_d_seconds_bucket{sink=\"pg\",le=\"0.01\"} 4\n"
                      "dlqd_d_seconds_bucket{sink=\"pg\",le=\"0.1\"} 5\n"
                      "dlqd_d_seconds_bucket{sink=\"pg\",le=\"1\"} 6\n"
                      "dlqd_d_seconds_bucket{sink=\"pg\",le=\"+Inf\"} 8\n"
                      "dlqd_d_seconds_sum{sink=\"pg\"} 9.565\n"
                      "dlqd_d_seconds_count{sink=\"pg\"} 8\n");
    dlq_buf_free (&b);
    dlq_histogram_destroy (&h);
    cr_expect_null (h);
    dlq_histogram_destroy (&h);
}

Test (prom, the_shipped_bounds_ascend)
{
    for (size_t i = 1; i < dlq_histogram_seconds_count; i++)
        cr_expect_gt (dlq_histogram_seconds [i], dlq_histogram_seconds [i - 1]);
    for (size_t i = 1; i < dlq_histogram_sizes_count; i++)
        cr_expect_gt (dlq_histogram_sizes [i], dlq_histogram_sizes [i - 1]);
    cr_expect_leq (dlq_histogram_seconds_count, DLQ_HISTOGRAM_BUCKETS_MAX);
    cr_expect_leq (dlq_histogram_sizes_count, DLQ_HISTOGRAM_BUCKETS_MAX);
}
