/*  bench_numbers — the numbers of a benchmark's command line and results:
 *  option values checked against their range, medians.
 */
#ifndef DLQ_BENCH_NUMBERS_H
#define DLQ_BENCH_NUMBERS_H

#include <stdbool.h>
#include <stddef.h>

/* text as an integer from min to max into *out; else a message on stderr
 * ("PROGRAM: --NAME wants an integer from MIN to MAX, got 'TEXT'") and
 * false. */
bool bench_parse_count (const char *program, const char *name, const char *text, size_t min, size_t max,
                        size_t *out);

/* The median of n values (sorted in place); 0 when n is 0. */
double bench_median (double *values, size_t n);

#endif
