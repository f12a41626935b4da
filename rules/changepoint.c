/*
 * changepoint.c - E-divisive means over a series (see changepoint.h).
 */
#include "changepoint.h"
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The best split of v[0..L) (distances from d, an L x L matrix of the
 * values in this order): its index and Q. Returns -1 when L < 2 min. */
static long best_split(double *q, const double *d, size_t L, size_t min)
{
	if (L < 2 * min || min < 2)
		return -1;
	/* running sums for t = min: left within WL, right within WR, between B */
	double wl = 0, wr = 0, b = 0;
	size_t t = min;
	for (size_t i = 0; i < L; i++)
		for (size_t j = i + 1; j < L; j++) {
			double x = d[i * L + j];
			if (j < t)
				wl += x;
			else if (i >= t)
				wr += x;
			else
				b += x;
		}
	long best = -1;
	double bq = -INFINITY;
	for (;;) {
		double m = (double)t, k = (double)(L - t);
		double e = 2 * b / (m * k) - wl / (m * (m - 1) / 2) - wr / (k * (k - 1) / 2);
		double qt = m * k / (m + k) * e;
		if (qt > bq) {
			bq = qt;
			best = (long)t;
		}
		if (t + 1 > L - min)
			break;
		/* value t moves from the right side to the left */
		double to_left = 0, to_right = 0;
		for (size_t i = 0; i < t; i++)
			to_left += d[i * L + t];
		for (size_t j = t + 1; j < L; j++)
			to_right += d[t * L + j];
		wl += to_left;
		wr -= to_right;
		b += to_right - to_left;
		t++;
	}
	*q = bq;
	return best;
}

/* The distance matrix of v[0..L) into d. */
static void distances(double *d, const double *v, size_t L)
{
	for (size_t i = 0; i < L; i++)
		for (size_t j = 0; j < L; j++)
			d[i * L + j] = fabs(v[i] - v[j]);
}

/* One segment of the search. */
struct seg {
	size_t a, b;   /* [a, b) */
	long split;    /* best split (absolute index), -1 none */
	double q;
};

static void seg_eval(struct seg *s, const double *lg, double *d, size_t min)
{
	size_t L = s->b - s->a;
	s->split = -1;
	if (L < 2 * min)
		return;
	distances(d, lg + s->a, L);
	double q;
	long t = best_split(&q, d, L, min);
	if (t >= 0) {
		s->split = (long)s->a + t;
		s->q = q;
	}
}

/* The permutation p-value of segment s's best Q. */
static double seg_pvalue(const struct seg *s, const double *lg, double *d, double *tmp, size_t min, size_t perms,
                         tg_rng *g)
{
	size_t L = s->b - s->a, ge = 0;
	memcpy(tmp, lg + s->a, L * sizeof(double));
	for (size_t p = 0; p < perms; p++) {
		for (size_t i = L - 1; i > 0; i--) {
			size_t j = tg_rng_below(g, i + 1);
			double x = tmp[i];
			tmp[i] = tmp[j];
			tmp[j] = x;
		}
		distances(d, tmp, L);
		double q;
		if (best_split(&q, d, L, min) >= 0 && q >= s->q)
			ge++;
	}
	return (double)(ge + 1) / (double)(perms + 1);
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return (x > y) - (x < y);
}

int tg_changes_find(tg_change **out, size_t *nout, const double *x, size_t n, const tg_changes_opts *opts)
{
	*out = NULL;
	*nout = 0;
	double p_max = opts && opts->p_max > 0 ? opts->p_max : 0.01;
	size_t min = opts && opts->min_size ? opts->min_size : 4;
	size_t perms = opts && opts->perms ? opts->perms : 499;
	if (min < 2)
		min = 2;
	for (size_t i = 0; i < n; i++)
		if (!(x[i] > 0) || !isfinite(x[i]))
			return tg_error_set(TG_EINVAL, "change points: value %zu is %g (must be finite and > 0)", i, x[i]);
	if (n < 2 * min)
		return 0;
	double *lg = tg_calloc(n, sizeof(double)), *d = tg_calloc(n * n, sizeof(double)),
	       *tmp = tg_calloc(n, sizeof(double));
	struct seg *segs = tg_calloc(n, sizeof(struct seg));
	size_t *cuts = tg_calloc(n + 1, sizeof(size_t));
	double *pv = tg_calloc(n + 1, sizeof(double));
	int rc = lg && d && tmp && segs && cuts && pv ? 0 : TG_ENOMEM;
	size_t nseg = 0, ncut = 0;
	tg_rng g;
	tg_rng_seed(&g, opts ? opts->seed : 0);
	if (!rc) {
		for (size_t i = 0; i < n; i++)
			lg[i] = log(x[i]);
		segs[nseg] = (struct seg){0, n, -1, 0};
		seg_eval(&segs[nseg++], lg, d, min);
	}
	while (!rc) {
		size_t best = nseg;
		for (size_t i = 0; i < nseg; i++)
			if (segs[i].split >= 0 && (best == nseg || segs[i].q > segs[best].q))
				best = i;
		if (best == nseg)
			break;
		double p = seg_pvalue(&segs[best], lg, d, tmp, min, perms, &g);
		if (p > p_max)
			break;
		size_t t = (size_t)segs[best].split;
		pv[ncut] = p;
		cuts[ncut++] = t;
		struct seg right = {t, segs[best].b, -1, 0};
		segs[best].b = t;
		seg_eval(&segs[best], lg, d, min);
		seg_eval(&right, lg, d, min);
		segs[nseg++] = right;
	}
	if (!rc && ncut) {
		/* the cuts in index order, each with its p-value */
		size_t *order = tg_calloc(ncut, 2 * sizeof(size_t));
		tg_change *c = tg_calloc(ncut, sizeof(tg_change));
		if (!order || !c) {
			free(order);
			free(c);
			rc = TG_ENOMEM;
		} else {
			for (size_t i = 0; i < ncut; i++) {
				order[2 * i] = cuts[i];
				order[2 * i + 1] = i;
			}
			qsort(order, ncut, 2 * sizeof(size_t), cmp_size);
			for (size_t i = 0; i < ncut; i++) {
				size_t at = order[2 * i], lo = i ? order[2 * (i - 1)] : 0, hi = i + 1 < ncut ? order[2 * (i + 1)] : n;
				/* medians: an outlier in a segment does not move them */
				double sb = tg_stats_median(x + lo, at - lo, tmp), sa = tg_stats_median(x + at, hi - at, tmp);
				c[i] = (tg_change){at, sb, sa, 100 * (sa / sb - 1), pv[order[2 * i + 1]]};
			}
			free(order);
			*out = c;
			*nout = ncut;
		}
	}
	free(lg);
	free(d);
	free(tmp);
	free(segs);
	free(cuts);
	free(pv);
	return rc;
}
