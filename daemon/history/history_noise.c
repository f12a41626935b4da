/*
 * history_noise.c - the robust noise of one run from a series' run-to-run
 * differences, and its median (history_noise.h says what and why).
 */
#include "history_noise.h"
#include "../../util/tg.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double tg_history_median(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(double), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int tg_history_noise_sigma(double *sigma, const double *v, size_t n, double per)
{
	*sigma = NAN;
	if (n < 2)
		return 0;
	double *d = malloc((n - 1) * sizeof(double));
	if (!d)
		return tg_error_set(TG_ENOMEM, "out of memory");
	size_t m = 0;
	for (size_t k = 1; k < n; k++) {
		double x = fabs(v[k] - v[k - 1]);
		if (per != 0)
			x = x / per * 100.0;
		if (isfinite(x))
			d[m++] = x;
	}
	if (m)
		*sigma = 1.4826 * tg_history_median(d, m) / sqrt(2.0);
	free(d);
	return 0;
}
