/*  bench_numbers — option values and medians; see the header. */
#include "bench_numbers.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

bool
bench_parse_count (const char *program, const char *name, const char *text, size_t min, size_t max, size_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull (text, &end, 10);
    if (errno || end == text || *end || text [0] == '-' || v < min || v > max) {
        fprintf (stderr, "%s: --%s wants an integer from %zu to %zu, got '%s'\n", program, name, min, max, text);
        return false;
    }
    *out = (size_t) v;
    return true;
}

static int
compare_double (const void *a, const void *b)
{
    double x = *(const double *) a, y = *(const double *) b;
    return (x > y) - (x < y);
}

double
bench_median (double *values, size_t n)
{
    if (!n)
        return 0;
    qsort (values, n, sizeof values [0], compare_double);
    return n % 2 ? values [n / 2] : (values [n / 2 - 1] + values [n / 2]) / 2;
}
