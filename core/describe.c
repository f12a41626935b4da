/*
 * describe.c - descriptive statistics of a column of numbers (describe.h):
 * two passes for the mean and the squared deviations (the textbook form,
 * which is what the TraceLens reference tables were computed with), one
 * sort for the median, min and max.
 */
#include "describe.h"

#include <math.h>
#include <stdlib.h>

int tg_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

void tg_describe6(double out[6], double *v, size_t n)
{
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	double mean = sum / (double)n, ss = 0;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	qsort(v, n, sizeof(double), tg_cmp_double);
	out[TG_DESC_MEAN] = mean;
	out[TG_DESC_MEDIAN] = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	out[TG_DESC_STD] = n > 1 ? sqrt(ss / (double)(n - 1)) : NAN;
	out[TG_DESC_MIN] = v[0];
	out[TG_DESC_MAX] = v[n - 1];
	out[TG_DESC_SUM] = sum;
}
