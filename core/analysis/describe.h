/*
 * describe.h - descriptive statistics of a column of numbers, as the
 * report's tables print them (TraceLens's pandas describe: mean, median,
 * sample standard deviation, min, max, sum). One definition for every table
 * that aggregates durations (launchers.c, perf_sheets.c, collectives.c), so
 * that the same column reads the same everywhere.
 */
#ifndef TG_DESCRIBE_H
#define TG_DESCRIBE_H

#include <stddef.h>

/* Indexes into tg_describe6's out. */
enum { TG_DESC_MEAN, TG_DESC_MEDIAN, TG_DESC_STD, TG_DESC_MIN, TG_DESC_MAX, TG_DESC_SUM };

/* out[TG_DESC_*] of the n > 0 values v: mean, median (the mean of the two
 * middle values for an even n), standard deviation with n - 1 (NaN for one
 * value), min, max, sum: exactly what a stable sort of v would give.
 * Reorders v (the caller's array). */
void tg_describe6(double out[6], double *v, size_t n);

/* qsort comparator of doubles, ascending (NaN compares equal to anything:
 * callers drop NaN first). */
int tg_cmp_double(const void *a, const void *b);

#endif
