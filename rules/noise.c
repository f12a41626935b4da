/*
 * noise.c - the between-run noise of a metric and the interval it gives
 * a ratio (see noise.h).
 */
#include "noise.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>

void tg_noise_add_group(tg_noise *n, const double *runs, size_t nruns)
{
	if (!n || !runs || nruns < 2)
		return;
	double s = 0;
	for (size_t i = 0; i < nruns; i++) {
		if (!(runs[i] > 0) || !isfinite(runs[i]))
			return;
		s += log(runs[i]);
	}
	double m = s / (double)nruns, ss = 0;
	for (size_t i = 0; i < nruns; i++)
		ss += (log(runs[i]) - m) * (log(runs[i]) - m);
	n->ss += ss;
	n->df += (double)(nruns - 1);
}

void tg_noise_add_sigma(tg_noise *n, double sigma, double nruns)
{
	if (!n || !(sigma >= 0) || !isfinite(sigma) || !(nruns >= 2))
		return;
	n->ss += sigma * sigma * (nruns - 1);
	n->df += nruns - 1;
}

double tg_noise_sigma(const tg_noise *n)
{
	return n && n->df > 0 ? sqrt(n->ss / n->df) : NAN;
}

int tg_noise_interval(double *lo, double *hi, double *p_slower, double ratio, const tg_noise *n, size_t runs_base,
                      size_t runs_new, double confidence)
{
	if (!n || !(n->df > 0) || !(ratio > 0) || !isfinite(ratio) || !runs_base || !runs_new ||
	    !(confidence > 0 && confidence < 1))
		return -1;
	double sigma = tg_noise_sigma(n);
	double se = sigma * sqrt(1.0 / (double)runs_base + 1.0 / (double)runs_new);
	double t = tg_stats_t_quantile((1 + confidence) / 2, n->df);
	if (!isfinite(t))
		return -1;
	*lo = ratio * exp(-t * se);
	*hi = ratio * exp(t * se);
	if (p_slower)
		*p_slower = se > 0 ? 1 - tg_stats_t_cdf(log(ratio) / se, n->df) : (ratio > 1 ? 0 : 1);
	return 0;
}

size_t tg_noise_runs_needed(double pct, double sigma, double confidence)
{
	if (!(pct > 0) || !isfinite(pct) || !isfinite(sigma) || !(sigma >= 0) || !(confidence > 0 && confidence < 1))
		return 0;
	double d = log1p(pct / 100);
	double z = tg_stats_normal_quantile((1 + confidence) / 2) + tg_stats_normal_quantile(0.8);
	double n = ceil(2 * z * z * sigma * sigma / (d * d));
	if (n < 2)
		n = 2;
	return n > 1e6 ? (size_t)1e6 : (size_t)n;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double tg_noise_sigma_robust(const double *series, size_t n, double *runs)
{
	if (runs)
		*runs = 0;
	if (!series || n < 3)
		return NAN;
	double *d = malloc(2 * n * sizeof(double));
	if (!d)
		return NAN;
	double *a = d + n;
	size_t c = 0, nd = 0;
	double prev = NAN;
	for (size_t i = 0; i < n; i++) {
		if (!(series[i] > 0) || !isfinite(series[i]))
			continue;
		double l = log(series[i]);
		if (c++) {
			a[nd] = fabs(l - prev);
			d[nd++] = l - prev;
		}
		prev = l;
	}
	double sigma = NAN;
	size_t kept = 0;
	if (c >= 3) {
		/* a robust scale first: |X - Y| of two normal values of sd s has
		 * the median 0.6745 sqrt(2) s */
		qsort(a, nd, sizeof(double), cmp_double);
		double med = nd % 2 ? a[nd / 2] : 0.5 * (a[nd / 2 - 1] + a[nd / 2]);
		double s0 = med / (0.6744897501960817 * sqrt(2.0));
		/* then the differences within 3.5 of those scales (a step or an
		 * outlier makes larger ones), as mean squared successive
		 * differences: sigma^2 = mean(d^2) / 2 */
		double ss = 0, cut = 3.5 * sqrt(2.0) * s0;
		for (size_t i = 0; i < nd; i++)
			if (fabs(d[i]) <= cut) {
				ss += d[i] * d[i];
				kept++;
			}
		sigma = kept ? sqrt(ss / (2.0 * (double)kept)) : s0;
	}
	/* the mean squared successive difference of k differences varies like
	 * a sample variance of 2 k^2 / (3 k - 1) degrees of freedom (von
	 * Neumann), not k */
	if (runs && kept >= 2)
		*runs = 2.0 * (double)kept * (double)kept / (3.0 * (double)kept - 1) + 1;
	free(d);
	return sigma;
}
