/*
 * stats_boot.c - the stratified bootstrap of a ratio (stats.h) and the
 * PRNG it draws with (xoshiro256**, seeded by splitmix64, Lemire's
 * unbiased bounded draw). A side of one stratum is resampled value by
 * value, or, when it is large, its mean drawn from the normal its central
 * limit gives; the interval is the percentile one at a level widened for
 * small samples (the t quantile over the normal one), its bounds found by
 * selection rather than a sort. The PRNG lives here so that the
 * replicates' loop inlines it. The distributions are stats_dist.c's.
 */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ PRNG */

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void tg_rng_seed(tg_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static inline uint64_t rng_next(tg_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

uint64_t tg_rng_next(tg_rng *r)
{
	return rng_next(r);
}

/* High and low 64 bits of x * y. */
static inline uint64_t mul_hi_lo(uint64_t x, uint64_t y, uint64_t *lo)
{
#ifdef __SIZEOF_INT128__
	unsigned __int128 m = (unsigned __int128)x * y;
	*lo = (uint64_t)m;
	return (uint64_t)(m >> 64);
#else
	uint64_t x0 = (uint32_t)x, x1 = x >> 32, y0 = (uint32_t)y, y1 = y >> 32;
	uint64_t p00 = x0 * y0, p01 = x0 * y1, p10 = x1 * y0, p11 = x1 * y1;
	uint64_t mid = (p00 >> 32) + (uint32_t)p01 + (uint32_t)p10;
	*lo = (mid << 32) | (uint32_t)p00;
	return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
#endif
}

/* Lemire, "Fast random integer generation in an interval" (2019). */
static inline size_t rng_below(tg_rng *r, uint64_t n)
{
	uint64_t lo, hi = mul_hi_lo(rng_next(r), n, &lo);
	if (lo < n) {
		uint64_t t = (0 - n) % n;
		while (lo < t)
			hi = mul_hi_lo(rng_next(r), n, &lo);
	}
	return (size_t)hi;
}

size_t tg_rng_below(tg_rng *r, size_t n)
{
	return n ? rng_below(r, n) : 0;
}

double tg_rng_uniform(tg_rng *r)
{
	return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

double tg_rng_normal(tg_rng *r)
{
	/* (k + 0.5) / 2^53 lies in (0, 1): never an infinite quantile */
	return tg_stats_normal_quantile(((double)(rng_next(r) >> 11) + 0.5) * 0x1.0p-53);
}

/* ------------------------------------------------------------ bootstrap */

/* One side of one stratum, as the replicates see it. */
struct side {
	const double *x;
	size_t n;
	double sum;
	double ss; /* sum of squared deviations from the mean */
	int fixed; /* its resampled sum is always sum (one value, or all equal) */
};

/* num / den with the zero rules of the header. */
static inline double ratio_of(double num, double den)
{
	if (den > 0)
		return num / den;
	return num > 0 ? INFINITY : 1.0;
}

static int check_values(const double *x, size_t n, size_t stratum, const char *side)
{
	if (n && !x)
		return tg_error_set(TG_EINVAL, "bootstrap: stratum %zu: %s values are NULL", stratum, side);
	for (size_t i = 0; i < n; i++)
		if (!(x[i] >= 0) || isinf(x[i]))
			return tg_error_set(TG_EINVAL, "bootstrap: stratum %zu: %s value %zu is %g (must be finite and >= 0)",
			                    stratum, side, i, x[i]);
	return 0;
}

/* Fills s from x[0..n): its sum, whether it is fixed, and the sum of
 * squared deviations ss (0 when fixed). */
static void side_init(struct side *s, const double *x, size_t n)
{
	s->x = x;
	s->n = n;
	s->sum = 0;
	s->ss = 0;
	s->fixed = 1;
	for (size_t i = 0; i < n; i++) {
		s->sum += x[i];
		if (x[i] != x[0])
			s->fixed = 0;
	}
	if (!s->fixed) {
		double m = s->sum / (double)n;
		for (size_t i = 0; i < n; i++)
			s->ss += (x[i] - m) * (x[i] - m);
	}
}

/* Standard normal numbers two at a time (Marsaglia's polar method: exact,
 * no quantile function), the second kept for the next call. */
struct normals {
	double spare;
	int have;
};

static inline double polar_normal(struct normals *c, tg_rng *r)
{
	if (c->have) {
		c->have = 0;
		return c->spare;
	}
	double u, v, q;
	do {
		u = 2 * ((double)(rng_next(r) >> 11) * 0x1.0p-53) - 1;
		v = 2 * ((double)(rng_next(r) >> 11) * 0x1.0p-53) - 1;
		q = u * u + v * v;
	} while (q >= 1 || q == 0);
	double f = sqrt(-2 * log(q) / q);
	c->spare = v * f;
	c->have = 1;
	return u * f;
}

/* Whether side s is drawn as the normal law of its resampled sum. */
static inline int side_clt(const struct side *s)
{
	return !s->fixed && s->n >= TG_STATS_BOOT_CLT_N;
}

/* One resampled sum of side s; 0 for the sides drawn as normal laws
 * (side_clt), which the caller draws together. */
static inline double side_resample(const struct side *s, tg_rng *r)
{
	if (s->fixed)
		return s->sum;
	if (side_clt(s))
		return 0;
	double sum = 0;
	const double *x = s->x;
	uint64_t n = s->n;
	for (size_t k = 0; k < s->n; k++)
		sum += x[rng_below(r, n)];
	return sum;
}

/* The k-th smallest (0-based) of v[0..n), k < n; v is reordered so that
 * v[0..k) <= v[k] <= v[k+1..n) (Hoare's selection, median-of-three
 * pivots). The values are not NaN. */
static double select_kth(double *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;
	while (hi > lo) {
		size_t mid = lo + (hi - lo) / 2;
		/* median of three into v[mid] */
		if (v[mid] < v[lo]) { double t = v[mid]; v[mid] = v[lo]; v[lo] = t; }
		if (v[hi] < v[lo]) { double t = v[hi]; v[hi] = v[lo]; v[lo] = t; }
		if (v[hi] < v[mid]) { double t = v[hi]; v[hi] = v[mid]; v[mid] = t; }
		double pivot = v[mid];
		size_t i = lo, j = hi;
		while (i <= j) {
			while (v[i] < pivot)
				i++;
			while (v[j] > pivot)
				j--;
			if (i <= j) {
				double t = v[i];
				v[i] = v[j];
				v[j] = t;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		/* now v[lo..j] <= pivot <= v[i..hi], and v(j..i) == pivot */
		if (k <= j && j != (size_t)-1 && j >= lo)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return v[k];
	}
	return v[k];
}

size_t tg_stats_boot_draws(const tg_stratum *strata, size_t nstrata)
{
	size_t d = 0;
	int cb = 0, cn = 0;
	for (size_t i = 0; strata && i < nstrata; i++) {
		if (strata[i].nbase >= TG_STATS_BOOT_CLT_N)
			cb = 1;
		else
			d += strata[i].nbase;
		if (strata[i].nnext >= TG_STATS_BOOT_CLT_N)
			cn = 1;
		else
			d += strata[i].nnext;
	}
	return d + (size_t)cb + (size_t)cn;
}

size_t tg_stats_boot_reps_for(size_t want, size_t nvalues, size_t max_draws)
{
	if (want == 0)
		want = TG_STATS_BOOT_REPS;
	if (want > TG_STATS_BOOT_MAX_REPS)
		want = TG_STATS_BOOT_MAX_REPS;
	if (nvalues == 0)
		return want;
	size_t fit = max_draws / nvalues;
	if (fit < 200)
		fit = 200;
	return fit < want ? fit : want;
}

int tg_stats_ratio_bootstrap(tg_ratio_ci *out, const tg_stratum *strata, size_t nstrata, double confidence,
                             uint64_t seed, size_t reps)
{
	if (!(confidence > 0 && confidence < 1)) /* 0 is no default here */
		return tg_error_set(TG_EINVAL, "bootstrap: confidence %g is not in (0, 1)", confidence);
	tg_boot_opts o = {confidence, seed, reps, TG_RATIO_AUTO, 0};
	return tg_stats_ratio_bootstrap_ex(out, strata, nstrata, &o);
}

/* *o: opts with the defaults filled in (confidence 0.95), checked; *reps
 * the replicates to draw (capped). */
static int boot_opts(tg_boot_opts *o, size_t *reps, const tg_ratio_ci *out, const tg_stratum *strata, size_t nstrata,
                     const tg_boot_opts *opts)
{
	*o = (tg_boot_opts){0.95, 0, 0, TG_RATIO_AUTO, 0};
	if (opts) {
		*o = *opts;
		if (o->confidence == 0)
			o->confidence = 0.95;
	}
	if (!out)
		return tg_error_set(TG_EINVAL, "bootstrap: no output");
	if (nstrata && !strata)
		return tg_error_set(TG_EINVAL, "bootstrap: strata are NULL");
	if (!(o->confidence > 0 && o->confidence < 1))
		return tg_error_set(TG_EINVAL, "bootstrap: confidence %g is not in (0, 1)", o->confidence);
	if (o->statistic < TG_RATIO_AUTO || o->statistic > TG_RATIO_MEANS)
		return tg_error_set(TG_EINVAL, "bootstrap: unknown statistic %d", o->statistic);
	*reps = o->reps ? o->reps : TG_STATS_BOOT_REPS;
	if (*reps > TG_STATS_BOOT_MAX_REPS)
		*reps = TG_STATS_BOOT_MAX_REPS;
	return 0;
}

/* Checks every value of every stratum and counts them on each side. */
static int count_values(size_t *nb, size_t *nn, const tg_stratum *strata, size_t nstrata)
{
	*nb = *nn = 0;
	for (size_t s = 0; s < nstrata; s++) {
		int rc = check_values(strata[s].base, strata[s].nbase, s, "base");
		if (!rc)
			rc = check_values(strata[s].next, strata[s].nnext, s, "next");
		if (rc)
			return rc;
		*nb += strata[s].nbase;
		*nn += strata[s].nnext;
	}
	return 0;
}

/* The lower percentile level of the interval into *a and the method into
 * *method: the plain alpha/2, or (the default) expanded by the delta-method
 * variance of log R so that small samples are not overconfident. Returns 0
 * when no side varies (the interval is the point). tb, tn: the totals. */
static int percentile_level(double *a, int *method, const struct side *sides, size_t nsides, double tb, double tn,
                            const tg_boot_opts *o)
{
	double v_unb = 0, v_plug = 0, v_df = 0;
	size_t nvar = 0;
	for (size_t i = 0; i < nsides; i++) {
		const struct side *sd = &sides[i];
		if (sd->fixed)
			continue;
		double ss = sd->ss;
		double t = i % 2 ? tn : tb;
		double n = (double)sd->n;
		double vu = n * ss / (n - 1) / (t * t); /* n s^2 / T^2 */
		v_unb += vu;
		v_plug += ss / (t * t);                 /* n (ss / n) / T^2 */
		v_df += vu * vu / (n - 1);
		nvar++;
	}
	if (nvar == 0 || !(v_plug > 0))
		return 0;
	double alpha2 = (1 - o->confidence) / 2;
	*a = alpha2;
	*method = TG_CI_BOOT_PERCENTILE;
	if (!o->plain) {
		double df = v_unb * v_unb / v_df;
		double z = sqrt(v_unb / v_plug) * tg_stats_t_quantile(1 - alpha2, df);
		*a = tg_stats_normal_cdf(-z);
		*method = TG_CI_BOOT_EXPANDED;
	}
	return 1;
}

/* rep[0..reps): the replicates of the ratio (times scale where a side is
 * not zero). No allocation; the RNG draws in stratum order. */
static void draw_replicates(double *rep, size_t reps, const struct side *sides, size_t nstrata, uint64_t seed,
                            double scale)
{
	/* the sides of TG_STATS_BOOT_CLT_N values or more: the resampled sum of
	 * each is normal (mean its sum, variance its ss), so their total on a
	 * side is one normal draw of the summed means and variances */
	double cb = 0, cbv = 0, cn = 0, cnv = 0;
	for (size_t s = 0; s < nstrata; s++) {
		if (side_clt(&sides[2 * s])) {
			cb += sides[2 * s].sum;
			cbv += sides[2 * s].ss;
		}
		if (side_clt(&sides[2 * s + 1])) {
			cn += sides[2 * s + 1].sum;
			cnv += sides[2 * s + 1].ss;
		}
	}
	double cbs = sqrt(cbv), cns = sqrt(cnv);
	tg_rng rng;
	tg_rng_seed(&rng, seed);
	struct normals nc = {0, 0};
	for (size_t b = 0; b < reps; b++) {
		double num = 0, den = 0;
		for (size_t s = 0; s < nstrata; s++) {
			den += side_resample(&sides[2 * s], &rng);
			num += side_resample(&sides[2 * s + 1], &rng);
		}
		if (cbv > 0) {
			double d = cb + cbs * polar_normal(&nc, &rng);
			den += d > 0 ? d : 0;
		} else {
			den += cb;
		}
		if (cnv > 0) {
			double d = cn + cns * polar_normal(&nc, &rng);
			num += d > 0 ? d : 0;
		} else {
			num += cn;
		}
		double x = ratio_of(num, den);
		rep[b] = den > 0 || num > 0 ? x * scale : x;
	}
}

/* The percentile interval of level a of rep[0..reps) (reordered): the
 * order statistics floor((B+1)a) and ceil((B+1)(1-a)), 1-based. */
static void percentile_interval(double *lo, double *hi, double *rep, size_t reps, double a)
{
	double B1 = (double)reps + 1;
	double kl = floor(B1 * a), ku = ceil(B1 * (1 - a));
	if (kl < 1)
		kl = 1;
	if (ku > (double)reps)
		ku = (double)reps;
	if (ku < 1)
		ku = 1;
	if (kl > (double)reps)
		kl = (double)reps;
	/* two selections, not a sort of every replicate: the same order
	 * statistics, in O(B) (a diff judges hundreds of items) */
	size_t il = (size_t)kl - 1, iu = (size_t)ku - 1;
	*lo = select_kth(rep, reps, il);
	*hi = iu > il ? select_kth(rep + il + 1, reps - il - 1, iu - il - 1) : select_kth(rep, reps, iu);
}

int tg_stats_ratio_bootstrap_ex(tg_ratio_ci *out, const tg_stratum *strata, size_t nstrata, const tg_boot_opts *opts)
{
	tg_boot_opts o;
	size_t reps, nb, nn;
	int rc;
	if ((rc = boot_opts(&o, &reps, out, strata, nstrata, opts)) || (rc = count_values(&nb, &nn, strata, nstrata)))
		return rc;
	int means = o.statistic == TG_RATIO_MEANS || (o.statistic == TG_RATIO_AUTO && nstrata == 1);

	tg_ratio_ci r = {1.0, 1.0, 1.0, NAN, nb, nn, TG_CI_EXACT};
	/* one block: the replicates, then the two sides of each stratum */
	if (nstrata > SIZE_MAX / 4 / sizeof(struct side))
		return tg_error_set(TG_EINVAL, "bootstrap: too many strata (%zu)", nstrata);
	size_t nsides = 2 * nstrata;
	if (reps > (SIZE_MAX / 2 - nsides * sizeof(struct side)) / sizeof(double))
		return tg_error_set(TG_EINVAL, "bootstrap: too many replicates");
	double *rep = tg_malloc(reps * sizeof(double) + nsides * sizeof(struct side));
	if (!rep)
		return TG_ENOMEM;
	struct side *sides = (struct side *)(void *)(rep + reps);

	/* the totals of each side */
	double tb = 0, tn = 0;
	for (size_t s = 0; s < nstrata; s++) {
		side_init(&sides[2 * s], strata[s].base, strata[s].nbase);
		tb += sides[2 * s].sum;
		side_init(&sides[2 * s + 1], strata[s].next, strata[s].nnext);
		tn += sides[2 * s + 1].sum;
	}
	double scale = means && nb && nn ? (double)nb / (double)nn : 1.0;
	if (!(tb > 0) || !(tn > 0)) {
		/* a zero total: 1 (both), INFINITY (base) or 0 (next); no noise */
		r.ratio = r.lo = r.hi = tb > 0 ? 0.0 : (tn > 0 ? INFINITY : 1.0);
	} else {
		double a;
		r.ratio = r.lo = r.hi = tn / tb * scale; /* the interval when nothing varies */
		if (percentile_level(&a, &r.method, sides, nsides, tb, tn, &o)) {
			draw_replicates(rep, reps, sides, nstrata, o.seed, scale);
			percentile_interval(&r.lo, &r.hi, rep, reps, a);
			if (r.lo > r.ratio)
				r.lo = r.ratio;
			if (r.hi < r.ratio)
				r.hi = r.ratio;
		}
	}
	*out = r;
	free(rep);
	return 0;
}
