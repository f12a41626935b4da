/*
 * stats.c - the gate's statistics (see stats.h): a PRNG, the stratified
 * bootstrap of a ratio, Welch on logs, Mann-Whitney, Benjamini-Hochberg,
 * and the normal and Student t distributions.
 *
 * By hand because none of the project's libraries has them; the numerical
 * methods are the classic ones (AS 241 for the normal quantile, Lentz's
 * continued fraction for the incomplete beta, Hill's Algorithm 396 as the
 * start of the t quantile) and tests/test_stats.c checks them against
 * reference values.
 */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

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

/* ------------------------------------------------------------ distributions */

double tg_stats_normal_cdf(double x)
{
	return 0.5 * erfc(-x / sqrt(2.0));
}

/* Wichura, "Algorithm AS 241: The percentage points of the normal
 * distribution", Applied Statistics 37 (1988), PPND16. */
double tg_stats_normal_quantile(double p)
{
	if (isnan(p) || p < 0 || p > 1)
		return NAN;
	if (p == 0)
		return -INFINITY;
	if (p == 1)
		return INFINITY;
	double q = p - 0.5, r, val;
	if (fabs(q) <= 0.425) {
		r = 0.180625 - q * q;
		return q *
		       (((((((2.5090809287301226727e+3 * r + 3.3430575583588128105e+4) * r + 6.7265770927008700853e+4) * r +
		             4.5921953931549871457e+4) * r + 1.3731693765509461125e+4) * r + 1.9715909503065514427e+3) * r +
		         1.3314166789178437745e+2) * r + 3.3871328727963666080e+0) /
		       (((((((5.2264952788528545610e+3 * r + 2.8729085735721942674e+4) * r + 3.9307895800092710610e+4) * r +
		             2.1213794301586595867e+4) * r + 5.3941960214247511077e+3) * r + 6.8718700749205790830e+2) * r +
		         4.2313330701600911252e+1) * r + 1.0);
	}
	r = q < 0 ? p : 1 - p;
	r = sqrt(-log(r));
	if (r <= 5) {
		r -= 1.6;
		val = (((((((7.74545014278341407640e-4 * r + 2.27238449892691845833e-2) * r + 2.41780725177450611770e-1) * r +
		            1.27045825245236838258e+0) * r + 3.64784832476320460504e+0) * r + 5.76949722146069140550e+0) * r +
		        4.63033784615654529590e+0) * r + 1.42343711074968357734e+0) /
		      (((((((1.05075007164441684324e-9 * r + 5.47593808499534494600e-4) * r + 1.51986665636164571966e-2) * r +
		            1.48103976427480074590e-1) * r + 6.89767334985100004550e-1) * r + 1.67638483018380384940e+0) * r +
		        2.05319162663775882187e+0) * r + 1.0);
	} else {
		r -= 5;
		val = (((((((2.01033439929228813265e-7 * r + 2.71155556874348757815e-5) * r + 1.24266094738807843860e-3) * r +
		            2.65321895265761230930e-2) * r + 2.96560571828504891230e-1) * r + 1.78482653991729133580e+0) * r +
		        5.46378491116411436990e+0) * r + 6.65790464350110377720e+0) /
		      (((((((2.04426310338993978564e-15 * r + 1.42151175831644588870e-7) * r + 1.84631831751005468180e-5) * r +
		            7.86869131145613259100e-4) * r + 1.48753612908506148525e-2) * r + 1.36929880922735805310e-1) * r +
		        5.99832206555887937690e-1) * r + 1.0);
	}
	return q < 0 ? -val : val;
}

/* log Gamma(x) - (Stirling's approximation without its series), x >= 10. */
static double lgamma_corr(double x)
{
	double x2 = 1.0 / (x * x);
	return (1.0 / 12 - x2 * (1.0 / 360 - x2 * (1.0 / 1260 - x2 * (1.0 / 1680 - x2 / 1188)))) / x;
}

/* log B(a, b), without the cancellation of lgamma sums when a or b is
 * large (as R's lbeta). */
static double lbeta(double a, double b)
{
	double p = a < b ? a : b, q = a < b ? b : a; /* p <= q */
	const double ln_sqrt_2pi = 0.918938533204672741780329736406;
	if (p >= 10) {
		double corr = lgamma_corr(p) + lgamma_corr(q) - lgamma_corr(p + q);
		return -0.5 * log(q) + ln_sqrt_2pi + corr + (p - 0.5) * log(p / (p + q)) + q * log1p(-p / (p + q));
	}
	if (q >= 10) {
		double corr = lgamma_corr(q) - lgamma_corr(p + q);
		return lgamma(p) + corr + p - p * log(p + q) + (q - 0.5) * log1p(-p / (p + q));
	}
	return lgamma(p) + lgamma(q) - lgamma(p + q);
}

/* Continued fraction of I_x(a, b) without its front factor (Numerical
 * Recipes' betacf, modified Lentz). Converges fast for x < (a+1)/(a+b+2);
 * near that point in O(sqrt(max(a, b))) terms. */
static double betacf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-16;
	double qab = a + b, qap = a + 1, qam = a - 1;
	double c = 1, d = 1 - qab * x / qap;
	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	double h = d;
	for (int m = 1; m <= 100000; m++) {
		int m2 = 2 * m;
		double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		h *= d * c;
		aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
		d = 1 + aa * d;
		if (fabs(d) < tiny)
			d = tiny;
		c = 1 + aa / c;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1 / d;
		double del = d * c;
		h *= del;
		if (fabs(del - 1) < eps)
			break;
	}
	return h;
}

/* I_x(a, b) with y = 1 - x, lx = log x and ly = log y given by the caller
 * (who can compute them more accurately than from x). */
static double beta_inc(double a, double b, double x, double y, double lx, double ly)
{
	if (lx == -INFINITY || x < 0)
		return 0;
	if (ly == -INFINITY || y < 0)
		return 1;
	double front = exp(a * lx + b * ly - lbeta(a, b));
	if (x < (a + 1) / (a + b + 2))
		return front * betacf(a, b, x) / a;
	return 1 - front * betacf(b, a, y) / b;
}

double tg_stats_beta_inc(double x, double a, double b)
{
	if (isnan(x) || isnan(a) || isnan(b) || a <= 0 || b <= 0 || x < 0 || x > 1)
		return NAN;
	return beta_inc(a, b, x, 1 - x, log(x), log1p(-x));
}

/* Above this df, P(T > t) comes from Hill's normalising transform (the
 * large-df branch of Hill's Algorithm 395, CACM 13, 1970), whose error
 * falls like df^-3 (< 1e-12 relative at df 1e4 for |t| <= 40, checked
 * against mpmath); below it, from the incomplete beta, whose continued
 * fraction converges falsely for huge df and x near 1 (1e-10 at df 3e6). */
#define T_DF_HILL 4000.0

/* log(1 + t^2/df), without overflow for huge |t|. */
static double log1p_t2(double t, double df)
{
	t = fabs(t);
	return t > 1e100 ? 2 * log(t) - log(df) : log1p(t * t / df);
}

/* P(T > t) for t >= 0: 0.5 I_{df/(df+t^2)}(df/2, 1/2), computed on the
 * side that needs no subtraction in the tail. */
static double t_sf(double t, double df)
{
	if (isinf(df))
		return 0.5 * erfc(t / sqrt(2.0));
	if (isinf(t))
		return 0;
	if (t == 0)
		return 0.5;
	double l = log1p_t2(t, df);
	if (df > T_DF_HILL) {
		double a = df - 0.5, b = 48 * a * a, y = a * l;
		double z = (((((-0.4 * y - 3.3) * y - 24) * y - 85.5) / (0.8 * y * y + 100 + b) + y + 3) / b + 1) * sqrt(y);
		return 0.5 * erfc(z / sqrt(2.0));
	}
	double x = exp(-l), y = -expm1(-l); /* df/(df+t^2), t^2/(df+t^2) */
	return 0.5 * beta_inc(df / 2, 0.5, x, y, -l, log(y));
}

/* Log of the Student t density (no underflow in the far tails). */
static double t_logpdf(double t, double df)
{
	if (isinf(df))
		return -0.5 * t * t - 0.5 * log(2 * M_PI);
	return -lbeta(df / 2, 0.5) - 0.5 * log(df) - (df + 1) / 2 * log1p_t2(t, df);
}

double tg_stats_t_cdf(double t, double df)
{
	if (isnan(t) || isnan(df) || df <= 0)
		return NAN;
	return t < 0 ? t_sf(-t, df) : 1 - t_sf(t, df);
}

/* Hill, "Algorithm 396: Student's t-quantiles", CACM 13 (1970), as in R's
 * qt: the t with two-sided tail probability p2 (a start for Newton). */
static double hill_t(double p2, double n)
{
	double a = 1 / (n - 0.5);
	double b = 48 / (a * a);
	double c = ((20700 * a / b - 98) * a - 16) * a + 96.36;
	double d = ((94.5 / (b + c) - 3) / b + 1) * sqrt(a * M_PI / 2) * n;
	double x = d * p2;
	double y = pow(x, 2 / n);
	if (y > 0.05 + a) {
		x = tg_stats_normal_quantile(0.5 * p2);
		y = x * x;
		if (n < 5)
			c += 0.3 * (n - 4.5) * (x + 0.6);
		c = (((0.05 * d * x - 5) * x - 7) * x - 2) * x + b + c;
		y = (((((0.4 * y + 6.3) * y + 36) * y + 94.5) / c - y - 3) / b + 1) * x;
		y = expm1(a * y * y);
	} else {
		y = ((1 / (((n + 6) / (n * y) - 0.089 * d - 0.822) * (n + 2) * 3) + 0.5 / (n + 4)) * y - 1) * (n + 1) /
		        (n + 2) +
		    1 / y;
	}
	return sqrt(n * y);
}

double tg_stats_t_quantile(double p, double df)
{
	if (isnan(p) || isnan(df) || df <= 0 || p < 0 || p > 1)
		return NAN;
	if (p == 0)
		return -INFINITY;
	if (p == 1)
		return INFINITY;
	if (p == 0.5)
		return 0;
	if (isinf(df))
		return tg_stats_normal_quantile(p);
	double q = p < 0.5 ? p : 1 - p; /* upper tail probability of |t| */
	double sign = p < 0.5 ? -1 : 1;
	double t;
	if (df == 1) {
		t = 1 / tan(M_PI * q);
	} else if (df == 2) {
		t = (1 - 2 * q) / sqrt(2 * q * (1 - q));
	} else {
		double lq = log(q);
		t = df >= 1 ? hill_t(2 * q, df) : NAN;
		if (!(t > 0) || !isfinite(t)) {
			/* the normal quantile, or the power-law tail
			 * P(T > t) ~ df^(df/2 - 1) t^-df / B(df/2, 1/2) when larger */
			double tn = fabs(tg_stats_normal_quantile(q));
			double tp = exp(((df / 2 - 1) * log(df) - lbeta(df / 2, 0.5) - lq) / df);
			if (isinf(tp))
				return sign * INFINITY; /* beyond the doubles */
			t = tp > tn ? tp : tn;
		}
		/* Newton on log P(T > t) = log q in u = log t: nearly linear in
		 * the power-law tails, well scaled in the centre */
		double u = log(t), prev = INFINITY;
		for (int i = 0; i < 100; i++) {
			double sf = t_sf(t, df);
			if (!(sf > 0)) {
				u -= 0.5; /* underflow: far too deep in the tail */
				t = exp(u);
				continue;
			}
			double lsf = log(sf);
			double du = (lsf - lq) * exp(lsf - t_logpdf(t, df) - u);
			if (du > 2)
				du = 2;
			else if (du < -2)
				du = -2;
			if (!isfinite(du))
				break;
			u += du;
			t = exp(u);
			/* converged; or at the rounding floor, where the steps stop
			 * shrinking (they would go on to the 100th iteration) */
			if (fabs(du) <= 1e-15 || (fabs(du) < 1e-13 && fabs(du) >= prev))
				break;
			prev = fabs(du);
		}
	}
	return sign * t;
}

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
		r.p_value = 2 * t_sf(fabs(d) / se, df);
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
