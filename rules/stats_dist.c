/*
 * stats_dist.c - the distributions of the gate's statistics (stats.h): the
 * normal distribution's cdf and quantile (AS 241), the regularized
 * incomplete beta (Lentz's continued fraction), and Student's t cdf and
 * quantile (Hill's Algorithm 396 as the start, refined by Newton steps on
 * the cdf). By hand because none of the project's libraries has them;
 * tests/test_stats.c checks them against reference values. The intervals
 * and tests that use them are in stats.c and stats_boot.c.
 */
#include "stats.h"

#include <math.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

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
double tg_stats_t_sf(double t, double df)
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
	return t < 0 ? tg_stats_t_sf(-t, df) : 1 - tg_stats_t_sf(t, df);
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
			double sf = tg_stats_t_sf(t, df);
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
