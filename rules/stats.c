/*
 * stats.c - the gate's descriptive statistics and tests (see stats.h):
 * mean, standard deviation and median, Welch's interval on logs,
 * Mann-Whitney's U (exact for small samples, the normal approximation with
 * ties corrected beyond), and Benjamini-Hochberg's false discovery rate
 * control and adjusted p-values. The bootstrap and its PRNG are in
 * stats_boot.c, the normal and Student t distributions in stats_dist.c.
 *
 * By hand because none of the project's libraries has them; the numerical
 * methods are the classic ones and tests/test_stats.c checks them against
 * reference values.
 */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ descriptive */

double tg_stats_mean(const double *x, size_t n)
{
	if (!x || n == 0)
		return NAN;
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += x[i];
	return s / (double)n;
}

double tg_stats_stddev(const double *x, size_t n)
{
	if (!x || n < 2)
		return NAN;
	double m = tg_stats_mean(x, n), ss = 0;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - m) * (x[i] - m);
	return sqrt(ss / (double)(n - 1));
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double tg_stats_median(const double *x, size_t n, double *scratch)
{
	if (!x || n == 0)
		return NAN;
	for (size_t i = 0; i < n; i++)
		if (isnan(x[i]))
			return NAN;
	double *v = scratch;
	if (!v) {
		if (n > SIZE_MAX / sizeof(double) || !(v = tg_malloc(n * sizeof(double))))
			return NAN;
	}
	memcpy(v, x, n * sizeof(double));
	qsort(v, n, sizeof(double), cmp_double);
	double m = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
	if (!scratch)
		free(v);
	return m;
}

/* ------------------------------------------------------------ Welch on logs */

static int log_moments(double *mean, double *var, const double *x, size_t n, const char *side)
{
	if (!x)
		return tg_error_set(TG_EINVAL, "welch: %s values are NULL", side);
	if (n < 2)
		return tg_error_set(TG_EINVAL, "welch: %zu %s value(s), needs at least 2", n, side);
	double s = 0;
	for (size_t i = 0; i < n; i++) {
		if (!(x[i] > 0) || isinf(x[i]))
			return tg_error_set(TG_EINVAL, "welch: %s value %zu is %g (must be finite and > 0)", side, i, x[i]);
		s += log(x[i]);
	}
	double m = s / (double)n, ss = 0;
	for (size_t i = 0; i < n; i++) {
		double d = log(x[i]) - m;
		ss += d * d;
	}
	*mean = m;
	*var = ss / (double)(n - 1);
	return 0;
}

int tg_stats_welch_log(tg_ratio_ci *out, const double *base, size_t nb, const double *next, size_t nn,
                       double confidence)
{
	if (!out)
		return tg_error_set(TG_EINVAL, "welch: no output");
	if (!(confidence > 0 && confidence < 1))
		return tg_error_set(TG_EINVAL, "welch: confidence %g is not in (0, 1)", confidence);
	double mb, vb, mn, vn;
	int rc = log_moments(&mb, &vb, base, nb, "base");
	if (!rc)
		rc = log_moments(&mn, &vn, next, nn, "next");
	if (rc)
		return rc;
	double d = mn - mb;
	double wb = vb / (double)nb, wn = vn / (double)nn;
	double se2 = wb + wn;
	tg_ratio_ci r = {exp(d), exp(d), exp(d), d == 0 ? 1.0 : 0.0, nb, nn, TG_CI_EXACT};
	if (se2 > 0) {
		double se = sqrt(se2);
		double df = se2 * se2 / (wb * wb / (double)(nb - 1) + wn * wn / (double)(nn - 1));
		double tq = tg_stats_t_quantile(0.5 + confidence / 2, df);
		r.lo = exp(d - tq * se);
		r.hi = exp(d + tq * se);
		r.p_value = 2 * tg_stats_t_sf(fabs(d) / se, df);
		if (r.p_value > 1)
			r.p_value = 1;
		r.method = TG_CI_WELCH_LOG;
	}
	*out = r;
	return 0;
}

/* ------------------------------------------------------------ Mann-Whitney */

struct ranked {
	double v;
	int side; /* 0: a, 1: b */
};

static int cmp_ranked(const void *x, const void *y)
{
	double a = ((const struct ranked *)x)->v, b = ((const struct ranked *)y)->v;
	return (a > b) - (a < b);
}

/* P(U >= u) under H0 for sample sizes m, n (no ties): the counts of U are
 * the coefficients of the Gaussian binomial [m+n choose m]_q =
 * prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i), exact in doubles for m, n <= 10
 * (at most C(20, 10) = 184756). Degrees reach m n + m before a division. */
static double mw_exact_sf(size_t m, size_t n, size_t u)
{
	double c[10 * 10 + 10 + 1] = {0};
	size_t deg = 0;
	c[0] = 1;
	for (size_t i = 1; i <= m; i++) {
		/* times (1 - q^(n+i)) */
		size_t sh = n + i;
		for (size_t k = deg + sh + 1; k-- > sh;)
			c[k] -= c[k - sh];
		deg += sh;
		/* divided by (1 - q^i): Q[k] = P[k] + Q[k-i] */
		for (size_t k = i; k <= deg; k++)
			c[k] += c[k - i];
		deg -= i;
	}
	double total = 0, tail = 0;
	for (size_t k = 0; k <= deg; k++) {
		total += c[k];
		if (k >= u)
			tail += c[k];
	}
	return tail / total;
}

double tg_stats_mann_whitney(const double *a, size_t na, const double *b, size_t nb)
{
	if (!a || !b || na == 0 || nb == 0)
		return NAN;
	size_t n = na + nb;
	if (n < na || n > SIZE_MAX / sizeof(struct ranked))
		return NAN;
	struct ranked *v = tg_malloc(n * sizeof(*v));
	if (!v)
		return NAN;
	for (size_t i = 0; i < na; i++) {
		if (isnan(a[i]))
			goto nan;
		v[i] = (struct ranked){a[i], 0};
	}
	for (size_t i = 0; i < nb; i++) {
		if (isnan(b[i]))
			goto nan;
		v[na + i] = (struct ranked){b[i], 1};
	}
	qsort(v, n, sizeof(*v), cmp_ranked);
	/* rank sum of a with average ranks; the tie term sum(t^3 - t) */
	double ra = 0, ties = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && v[j].v == v[i].v)
			j++;
		double rank = 0.5 * ((double)(i + 1) + (double)j); /* ranks i+1 .. j */
		for (size_t k = i; k < j; k++)
			if (v[k].side == 0)
				ra += rank;
		double t = (double)(j - i);
		ties += t * t * t - t;
		i = j;
	}
	free(v);
	double dna = (double)na, dnb = (double)nb, dn = (double)n;
	double ua = ra - dna * (dna + 1) / 2;
	double ub = dna * dnb - ua;
	double u = ua > ub ? ua : ub;
	double p;
	if (na <= 10 && nb <= 10 && ties == 0) {
		p = 2 * mw_exact_sf(na, nb, (size_t)llround(u));
	} else {
		double mu = dna * dnb / 2;
		double var = dna * dnb / 12 * ((dn + 1) - ties / (dn * (dn - 1)));
		if (!(var > 0))
			return 1.0;
		double z = (u - mu - 0.5) / sqrt(var);
		p = erfc(z / sqrt(2.0)); /* 2 P(Z > z) */
	}
	return p > 1 ? 1.0 : p;
nan:
	free(v);
	return NAN;
}

/* ------------------------------------------------------------ Benjamini-Hochberg */

struct pidx {
	double p;
	size_t i;
};

static int cmp_pidx(const void *x, const void *y)
{
	const struct pidx *a = x, *b = y;
	if (a->p != b->p)
		return a->p < b->p ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

/* The valid (non-NaN) p-values sorted ascending; *m their count. NULL when
 * the allocation fails. */
static struct pidx *sorted_p(const double *p, size_t n, size_t *m)
{
	struct pidx *s = n > SIZE_MAX / sizeof(*s) ? NULL : tg_malloc((n ? n : 1) * sizeof(*s));
	if (!s)
		return NULL;
	size_t c = 0;
	for (size_t i = 0; i < n; i++)
		if (!isnan(p[i]))
			s[c++] = (struct pidx){p[i], i};
	qsort(s, c, sizeof(*s), cmp_pidx);
	*m = c;
	return s;
}

void tg_stats_benjamini_hochberg(int *reject, const double *p, size_t n, double q)
{
	if (!reject || !p)
		return;
	for (size_t i = 0; i < n; i++)
		reject[i] = 0;
	if (!(q > 0))
		return;
	size_t m;
	struct pidx *s = sorted_p(p, n, &m);
	if (s) {
		size_t kmax = 0; /* the largest k with p_(k) <= k q / m */
		for (size_t k = 1; k <= m; k++)
			if (s[k - 1].p <= (double)k * q / (double)m)
				kmax = k;
		for (size_t k = 0; k < kmax; k++)
			reject[s[k].i] = 1;
		free(s);
		return;
	}
	/* no memory: the same threshold by counting, O(n^2) */
	m = 0;
	for (size_t i = 0; i < n; i++)
		m += !isnan(p[i]);
	double thr = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		if (isnan(p[i]) || p[i] <= thr)
			continue;
		size_t rank = 0;
		for (size_t j = 0; j < n; j++)
			rank += !isnan(p[j]) && p[j] <= p[i];
		if (p[i] <= (double)rank * q / (double)m)
			thr = p[i];
	}
	for (size_t i = 0; i < n; i++)
		reject[i] = !isnan(p[i]) && p[i] <= thr;
}

int tg_stats_bh_adjusted(double *adj, const double *p, size_t n)
{
	if (n && (!adj || !p))
		return tg_error_set(TG_EINVAL, "bh_adjusted: NULL arrays");
	size_t m;
	struct pidx *s = sorted_p(p, n, &m);
	if (!s)
		return TG_ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (isnan(p[i]))
			adj[i] = NAN;
	double run = 1.0;
	for (size_t k = m; k >= 1; k--) {
		double v = s[k - 1].p * (double)m / (double)k;
		if (v < run)
			run = v;
		adj[s[k - 1].i] = run;
	}
	free(s);
	return 0;
}
