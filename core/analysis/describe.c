/*
 * describe.c - descriptive statistics of a column of numbers (describe.h):
 * two passes for the mean and the squared deviations (the textbook form,
 * which is what the TraceLens reference tables were computed with), and a
 * selection (not a sort) for the median: the values a stable sort would
 * put in the middle, -0 and +0 told apart as it would.
 */
#include "describe.h"

#include <math.h>
#include <stdlib.h>

int tg_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The k-th smallest of v[0..n), reordering v (quickselect: Hoare's
 * partition around a median of three; linear on average). */
static double select_kth(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;
	while (hi > lo) {
		size_t mid = lo + (hi - lo) / 2;
		double a = v[lo], b = v[mid], c = v[hi];
		double pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
		size_t i = lo, j = hi;
		for (;;) {
			while (v[i] < pivot)
				i++;
			while (pivot < v[j])
				j--;
			if (i >= j)
				break;
			double t = v[i];
			v[i++] = v[j];
			v[j--] = t;
		}
		if (k <= j)
			hi = j;
		else
			lo = j + 1;
	}
	return v[k];
}

/* The element a stable ascending sort of v would put at rank k, when that
 * element is a zero: which zero (+0 or -0, equal to the comparison) is the
 * only thing a value does not say. negatives: how many v hold below zero.
 * v in its original order. */
static double stable_zero(const double *v, size_t n, size_t negatives, size_t k)
{
	size_t z = k - negatives;
	for (size_t i = 0; i < n; i++)
		if (v[i] == 0 && z-- == 0)
			return v[i];
	return 0;
}

void tg_describe6(double out[6], double *v, size_t n)
{
	double sum = 0, lo = v[0], hi = v[0];
	size_t negatives = 0, zeros = 0;
	for (size_t i = 0; i < n; i++) {
		sum += v[i];
		if (v[i] < lo)
			lo = v[i]; /* the first of equals, as a stable sort puts first */
		if (v[i] >= hi)
			hi = v[i]; /* the last of equals */
		negatives += v[i] < 0;
		zeros += v[i] == 0;
	}
	double mean = sum / (double)n, ss = 0;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	/* the median's one or two middle values, as a stable sort ranks them
	 * (selection, not a sort: a column can hold a value per call) */
	size_t k = n / 2;
	double z_hi = 0, z_lo = 0;
	int z_hi_in = zeros && k >= negatives && k < negatives + zeros;
	int z_lo_in = zeros && n % 2 == 0 && k - 1 >= negatives && k - 1 < negatives + zeros;
	if (z_hi_in)
		z_hi = stable_zero(v, n, negatives, k);
	if (z_lo_in)
		z_lo = stable_zero(v, n, negatives, k - 1);
	double m_hi = z_hi_in ? z_hi : select_kth(v, n, k);
	double median = m_hi;
	if (n % 2 == 0) {
		double m_lo;
		if (z_lo_in) {
			m_lo = z_lo;
		} else {
			if (z_hi_in)
				select_kth(v, n, k); /* everything before rank k is <= it */
			m_lo = v[0];
			for (size_t i = 1; i < k; i++)
				if (v[i] > m_lo)
					m_lo = v[i];
		}
		median = (m_lo + m_hi) / 2;
	}
	out[TG_DESC_MEAN] = mean;
	out[TG_DESC_MEDIAN] = median;
	out[TG_DESC_STD] = n > 1 ? sqrt(ss / (double)(n - 1)) : NAN;
	out[TG_DESC_MIN] = lo;
	out[TG_DESC_MAX] = hi;
	out[TG_DESC_SUM] = sum;
}
