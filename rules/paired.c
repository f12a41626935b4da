/*
 * paired.c - the ratio of a rule's kernel time on paired calls, and the
 * noise of one call (see paired.h for the statistics and why).
 */
#include "paired.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The median of the n sorted values v. */
static double median_sorted(const double *v, size_t n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double tg_paired_call_noise(double *df, const double *logr, size_t n)
{
	if (df)
		*df = n >= 2 ? (double)(n - 1) : 0;
	if (n < 2 || !logr)
		return NAN;
	double *v = malloc(n * sizeof(double));
	if (!v)
		return NAN;
	memcpy(v, logr, n * sizeof(double));
	qsort(v, n, sizeof(double), cmp_double);
	double med = median_sorted(v, n);
	for (size_t i = 0; i < n; i++)
		v[i] = fabs(v[i] - med);
	qsort(v, n, sizeof(double), cmp_double);
	double mad = median_sorted(v, n);
	free(v);
	return 1.482602218505602 * mad;
}

/* The variance of log R from the pairs' own spread (delta method on the
 * pairs' contributions to the totals N and B); m/(m-1) unbiased. */
static double own_variance(const tg_paired_calls *in, double B, double N)
{
	double mean = 0, ss = 0;
	for (size_t k = 0; k < in->m; k++)
		mean += (in->n[k] / N - in->b[k] / B) / (double)in->m;
	for (size_t k = 0; k < in->m; k++) {
		double e = in->n[k] / N - in->b[k] / B - mean;
		ss += e * e;
	}
	return in->m >= 2 ? ss * (double)in->m / (double)(in->m - 1) : 0;
}

/* The variance of log R from the calls' noise sigma: each pair's
 * log-ratio weighed by its share of the totals, each unpaired call a
 * single call's noise (sigma^2 / 2: a log-ratio holds two calls'). */
static double noise_variance(const tg_paired_calls *in, double B, double N)
{
	double s2 = in->call_sigma * in->call_sigma, w2 = 0;
	for (size_t k = 0; k < in->m; k++) {
		double w = (B > 0 ? in->b[k] / B : 0) / 2 + (N > 0 ? in->n[k] / N : 0) / 2;
		w2 += w * w;
	}
	double u = (B > 0 ? in->ub2 / (B * B) : 0) + (N > 0 ? in->un2 / (N * N) : 0);
	return s2 * w2 + s2 / 2 * u;
}

int tg_paired_ratio(tg_ratio_ci *out, double *p_one, double *df, const tg_paired_calls *in)
{
	if (!out || !in || (in->m && (!in->b || !in->n)) || !(in->confidence > 0 && in->confidence < 1) ||
	    !(in->steps_b > 0) || !(in->steps_n > 0))
		return tg_error_set(TG_EINVAL, "paired ratio: bad arguments");
	memset(out, 0, sizeof(*out));
	out->nbase = out->nnext = in->m;
	out->p_value = NAN;
	double B = in->ub, N = in->un;
	for (size_t k = 0; k < in->m; k++) {
		B += in->b[k];
		N += in->n[k];
	}
	if (p_one)
		*p_one = NAN;
	if (df)
		*df = 0;
	if (!(B > 0) || !(N > 0)) {
		out->ratio = out->lo = out->hi = B > 0 ? 0 : N > 0 ? INFINITY : 1;
		out->method = TG_CI_EXACT;
		return 0;
	}
	double r = (N / in->steps_n) / (B / in->steps_b), lr = log(r);
	double vo = in->m >= in->min_own && in->m >= 2 ? own_variance(in, B, N) : 0;
	double vn = isnan(in->call_sigma) ? 0 : noise_variance(in, B, N);
	double v = vo > vn ? vo : vn, d = vo > vn ? (double)in->m - 1 : in->call_df;
	out->ratio = r;
	if (!(v > 0)) {
		out->lo = out->hi = r;
		out->method = TG_CI_EXACT;
		if (p_one)
			*p_one = r > 1 ? 0 : 1;
		return 0;
	}
	double se = sqrt(v), t = d >= 1 ? tg_stats_t_quantile((1 + in->confidence) / 2, d)
	                                : tg_stats_normal_quantile((1 + in->confidence) / 2);
	out->lo = exp(lr - t * se);
	out->hi = exp(lr + t * se);
	out->method = TG_CI_WELCH_LOG;
	double z = lr / se;
	out->p_value = 2 * (d >= 1 ? tg_stats_t_cdf(-fabs(z), d) : tg_stats_normal_cdf(-fabs(z)));
	if (p_one)
		*p_one = d >= 1 ? tg_stats_t_cdf(-z, d) : tg_stats_normal_cdf(-z);
	if (df)
		*df = d >= 1 ? d : INFINITY;
	return 0;
}
