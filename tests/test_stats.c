/* test_stats.c - the gate's statistics: distributions against table and
 * closed-form values, Mann-Whitney and Benjamini-Hochberg on hand-worked
 * examples, Welch on logs on a constructed case, and the stratified
 * bootstrap: exact ratios, determinism, width and coverage under noise. */
#include "testutil.h"

#include "../rules/stats.h"

#define RNEAR(x, want, rtol) assert_true(fabs((x) - (want)) <= (rtol) * fabs(want))

/* ------------------------------------------------------------ PRNG */

static void test_rng(void **state)
{
	(void)state;
	tg_rng r, r2;
	/* Reference outputs of splitmix64-seeded xoshiro256** for seed 12345,
	 * from an independent transcription of the published algorithms. */
	tg_rng_seed(&r, 12345);
	assert_true(tg_rng_next(&r) == 0xbe6a36374160d49bull);
	assert_true(tg_rng_next(&r) == 0x214aaa0637a688c6ull);
	assert_true(tg_rng_next(&r) == 0xf69d16de9954d388ull);
	/* splitmix64(0)'s first output is the documented 0xe220a8397b1dcdaf */
	tg_rng_seed(&r, 0);
	assert_true(r.s[0] == 0xe220a8397b1dcdafull);

	/* same seed, same stream; another seed, another stream */
	tg_rng_seed(&r, 7);
	tg_rng_seed(&r2, 7);
	for (int i = 0; i < 100; i++)
		assert_true(tg_rng_next(&r) == tg_rng_next(&r2));
	tg_rng_seed(&r2, 8);
	assert_true(tg_rng_next(&r) != tg_rng_next(&r2));

	/* below: in range, about uniform (6 bins x 10000: sd of a bin ~ 91) */
	size_t bins[6] = {0};
	tg_rng_seed(&r, 1);
	for (int i = 0; i < 60000; i++) {
		size_t k = tg_rng_below(&r, 6);
		assert_true(k < 6);
		bins[k]++;
	}
	for (int k = 0; k < 6; k++)
		assert_true(bins[k] > 9600 && bins[k] < 10400);
	assert_int_equal(tg_rng_below(&r, 0), 0);
	assert_int_equal(tg_rng_below(&r, 1), 0);
	/* a bound that is not a power of two near 2^63: still in range */
	for (int i = 0; i < 1000; i++)
		assert_true(tg_rng_below(&r, ((size_t)1 << 62) + 12345) < ((size_t)1 << 62) + 12345);

	/* uniform and normal: moments of 100000 draws */
	double su = 0, sn = 0, sn2 = 0;
	for (int i = 0; i < 100000; i++) {
		double u = tg_rng_uniform(&r);
		assert_true(u >= 0 && u < 1);
		su += u;
		double z = tg_rng_normal(&r);
		assert_true(isfinite(z));
		sn += z;
		sn2 += z * z;
	}
	NEAR(su / 100000, 0.5, 0.005);
	NEAR(sn / 100000, 0.0, 0.015);
	NEAR(sn2 / 100000, 1.0, 0.02);
}

/* ------------------------------------------------------------ distributions */

static void test_normal(void **state)
{
	(void)state;
	NEAR(tg_stats_normal_quantile(0.975), 1.959963984540054, 1e-12);
	NEAR(tg_stats_normal_quantile(0.025), -1.959963984540054, 1e-12);
	NEAR(tg_stats_normal_quantile(0.5), 0.0, 1e-15);
	/* far tail (mpmath: findroot(ncdf(x) - 1e-10)) */
	RNEAR(tg_stats_normal_quantile(1e-10), -6.36134090240406, 1e-12);
	assert_true(isinf(tg_stats_normal_quantile(0)) && tg_stats_normal_quantile(0) < 0);
	assert_true(isinf(tg_stats_normal_quantile(1)) && tg_stats_normal_quantile(1) > 0);
	assert_true(isnan(tg_stats_normal_quantile(1.5)));
	assert_true(isnan(tg_stats_normal_quantile(NAN)));
	/* CDF: table values */
	NEAR(tg_stats_normal_cdf(0), 0.5, 1e-16);
	RNEAR(tg_stats_normal_cdf(-3), 0.00134989803163009, 1e-13);
	RNEAR(tg_stats_normal_cdf(1.5), 0.933192798731142, 1e-13);
	/* round trip, both tails */
	for (double p = 1e-12; p < 1; p *= 3.7)
		RNEAR(tg_stats_normal_cdf(tg_stats_normal_quantile(p)), p, 1e-12);
}

static void test_t(void **state)
{
	(void)state;
	/* t tables, p = 0.975 */
	NEAR(tg_stats_t_quantile(0.975, 1), 12.7062047, 1e-7);
	NEAR(tg_stats_t_quantile(0.975, 4), 2.7764451, 1e-7);
	NEAR(tg_stats_t_quantile(0.975, 5), 2.5705818, 1e-7);
	NEAR(tg_stats_t_quantile(0.975, 30), 2.0422725, 1e-7);
	/* df 1e6: 1.959966357 (mpmath), 2.4e-6 above the normal 1.959964 */
	NEAR(tg_stats_t_quantile(0.975, 1e6), 1.959966357, 1e-9);
	NEAR(tg_stats_t_quantile(0.975, 1e6), 1.959964, 1e-5);
	/* non-integer df (Welch-Satterthwaite): mpmath 3.574654842 */
	NEAR(tg_stats_t_quantile(0.975, 2.5), 3.574654842, 1e-9);
	/* df 2 closed form: t = (2p-1) / sqrt(2p(1-p)) -> 4.302652730 */
	NEAR(tg_stats_t_quantile(0.975, 2), 4.30265272974946, 1e-12);
	/* symmetry, centre, limits */
	NEAR(tg_stats_t_quantile(0.025, 5), -2.5705818, 1e-7);
	assert_true(tg_stats_t_quantile(0.5, 3) == 0);
	NEAR(tg_stats_t_quantile(0.975, INFINITY), 1.959963984540054, 1e-12);
	assert_true(isinf(tg_stats_t_quantile(1, 3)));
	assert_true(isnan(tg_stats_t_quantile(0.5, 0)));
	assert_true(isnan(tg_stats_t_quantile(-0.1, 3)));
	assert_true(isnan(tg_stats_t_cdf(1, -1)));

	/* CDF: df 1 is Cauchy, F(1) = 3/4; the others from mpmath betainc */
	NEAR(tg_stats_t_cdf(1, 1), 0.75, 1e-15);
	NEAR(tg_stats_t_cdf(2, 3), 0.930337015720578, 1e-13);
	NEAR(tg_stats_t_cdf(-1.5, 7.5), 0.0872402852932321, 1e-13);
	NEAR(tg_stats_t_cdf(3, 1e5), 0.998649769557968, 1e-13);
	NEAR(tg_stats_t_cdf(0, 4), 0.5, 1e-16);
	/* round trips over df and p, tails included (relative in the tail) */
	double dfs[] = {1, 1.7, 2, 3, 4.4, 8, 15, 60, 500, 3999, 4001, 2e5, 1e9};
	for (size_t i = 0; i < sizeof(dfs) / sizeof(dfs[0]); i++)
		for (double p = 1e-9; p < 0.5; p *= 2.9) {
			double t = tg_stats_t_quantile(p, dfs[i]);
			assert_true(t < 0);
			RNEAR(tg_stats_t_cdf(t, dfs[i]), p, 1e-9);
			RNEAR(tg_stats_t_quantile(1 - p, dfs[i]), -t, 1e-6); /* 1 - p rounds */
		}
	/* incomplete beta: I_x(a, b) for whole a, b is P(Binomial(a+b-1, x) >= a):
	 * I_0.5(2, 3) = P(Bin(4, 1/2) >= 2) = 11/16 */
	NEAR(tg_stats_beta_inc(0.5, 2, 3), 11.0 / 16, 1e-15);
	NEAR(tg_stats_beta_inc(0.3, 1, 1), 0.3, 1e-15);
	assert_true(tg_stats_beta_inc(0, 2, 3) == 0 && tg_stats_beta_inc(1, 2, 3) == 1);
	assert_true(isnan(tg_stats_beta_inc(0.5, 0, 3)));
}

/* The upper tail: 1 - CDF where that is exact, and the closed forms of df
 * 1 (Cauchy: atan(1/t) / pi) and df 2 (1 / (s (s + t)), s = sqrt(t^2 + 2))
 * far in the tail, where 1 - CDF rounds to nothing. */
static void test_t_sf(void **state)
{
	(void)state;
	NEAR(tg_stats_t_sf(0, 4), 0.5, 1e-16);
	NEAR(tg_stats_t_sf(2, 3), 1 - 0.930337015720578, 1e-13);
	NEAR(tg_stats_t_sf(1, 1), 0.25, 1e-15);
	double t = 1e4, s = sqrt(t * t + 2);
	NEAR(tg_stats_t_sf(t, 1) / (atan(1 / t) / M_PI), 1, 1e-12);
	NEAR(tg_stats_t_sf(t, 2) / (1 / (s * (s + t))), 1, 1e-12);
	assert_true(tg_stats_t_sf(t, 2) > 0 && 1 - tg_stats_t_cdf(t, 2) < 1e-8);
}

/* ------------------------------------------------------------ descriptive */

static void test_descriptive(void **state)
{
	(void)state;
	double x[] = {9, 2, 4, 4, 5, 4, 5, 7};
	double copy[8];
	memcpy(copy, x, sizeof(x));
	NEAR(tg_stats_mean(x, 8), 5.0, 1e-15);
	/* sum of squares 32, n - 1 = 7 */
	NEAR(tg_stats_stddev(x, 8), sqrt(32.0 / 7), 1e-15);
	double scratch[8];
	NEAR(tg_stats_median(x, 8, scratch), 4.5, 0);
	NEAR(tg_stats_median(x, 8, NULL), 4.5, 0);
	NEAR(tg_stats_median(x, 7, NULL), 4.0, 0);
	NEAR(tg_stats_median(x, 1, NULL), 9.0, 0);
	assert_memory_equal(x, copy, sizeof(x)); /* untouched */
	assert_true(isnan(tg_stats_mean(x, 0)));
	assert_true(isnan(tg_stats_stddev(x, 1)));
	assert_true(isnan(tg_stats_median(x, 0, NULL)));
	double n[] = {1, NAN, 3};
	assert_true(isnan(tg_stats_median(n, 3, NULL)));
}

/* ------------------------------------------------------------ Mann-Whitney */

static void test_mann_whitney(void **state)
{
	(void)state;
	/* Exact, 3 vs 3: U takes 0..9 with counts 1 1 2 3 3 3 3 2 1 1 (of
	 * C(6,3) = 20). Separated: U = 9 (or 0), p = 2 * 1/20. */
	double a1[] = {1, 2, 3}, b1[] = {4, 5, 6};
	NEAR(tg_stats_mann_whitney(a1, 3, b1, 3), 0.1, 1e-15);
	NEAR(tg_stats_mann_whitney(b1, 3, a1, 3), 0.1, 1e-15);
	/* Interleaved: ranks of a 1, 3, 5 -> R = 9, U_a = 9 - 6 = 3, U_b = 6;
	 * P(U >= 6) = (3 + 2 + 1 + 1) / 20, p = 0.7 */
	double a2[] = {5, 1, 3}, b2[] = {2, 6, 4};
	NEAR(tg_stats_mann_whitney(a2, 3, b2, 3), 0.7, 1e-15);
	/* Exact, 10 vs 10 separated: p = 2 / C(20, 10) = 2 / 184756 */
	double a3[10], b3[10];
	for (int i = 0; i < 10; i++) {
		a3[i] = i;
		b3[i] = 100 + i;
	}
	RNEAR(tg_stats_mann_whitney(a3, 10, b3, 10), 2.0 / 184756, 1e-12);
	/* Exact, 1 vs 4: b's value third of five -> U = 2 of 0..4, each 1/5;
	 * P(U >= 2) = 3/5, p = min(1, 6/5) = 1 */
	double a4[] = {1, 2, 4, 5}, b4[] = {3};
	NEAR(tg_stats_mann_whitney(a4, 4, b4, 1), 1.0, 1e-15);

	/* Normal approximation with ties, 12 vs 13 (scipy's "asymptotic"):
	 *   a = 1 2 2 3 3 3 5 6 6 8 9 11
	 *   b = 3 4 4 5 6 7 7 8 9 10 12 12 13
	 * Average ranks: 1->1, 2->2.5, 3->5.5 (4 tied), 4->8.5, 5->10.5,
	 * 6->13 (3 tied), 7->15.5, 8->17.5, 9->19.5, 10->21, 11->22, 12->23.5,
	 * 13->25. R_a = 1 + 2*2.5 + 3*5.5 + 10.5 + 2*13 + 17.5 + 19.5 + 22 = 118,
	 * U_a = 118 - 12*13/2 = 40, U_b = 156 - 40 = 116, U = 116.
	 * Ties: one of 4 (60), one of 3 (24), seven of 2 (7 * 6): sum 126.
	 * var = 12*13/12 * (26 - 126/(25*24)) = 13 * 25.79 = 335.27,
	 * z = (116 - 78 - 0.5) / sqrt(335.27) = 2.048018713,
	 * p = erfc(z / sqrt 2) = 0.0405581658522. */
	double a5[] = {1, 2, 2, 3, 3, 3, 5, 6, 6, 8, 9, 11};
	double b5[] = {3, 4, 4, 5, 6, 7, 7, 8, 9, 10, 12, 12, 13};
	RNEAR(tg_stats_mann_whitney(a5, 12, b5, 13), 0.0405581658522430, 1e-10);
	RNEAR(tg_stats_mann_whitney(b5, 13, a5, 12), 0.0405581658522430, 1e-10);
	/* small but tied: the normal approximation, not the exact count */
	double a6[] = {1, 2, 2}, b6[] = {2, 3, 4};
	double p6 = tg_stats_mann_whitney(a6, 3, b6, 3);
	assert_true(p6 > 0.1 && p6 <= 1);

	/* degenerate */
	double c[] = {5, 5, 5};
	NEAR(tg_stats_mann_whitney(c, 3, c, 3), 1.0, 0);
	assert_true(isnan(tg_stats_mann_whitney(a1, 0, b1, 3)));
	assert_true(isnan(tg_stats_mann_whitney(a1, 3, NULL, 0)));
	double an[] = {1, NAN};
	assert_true(isnan(tg_stats_mann_whitney(an, 2, b1, 3)));
}

/* ------------------------------------------------------------ BH */

static void test_benjamini_hochberg(void **state)
{
	(void)state;
	/* Benjamini & Hochberg (1995), section 4: 15 p-values; at q = 0.05 the
	 * step-up rejects the 4 smallest (p_(4) = 0.0095 <= 4/15 * 0.05 =
	 * 0.01333; p_(5) = 0.0201 > 0.01667 and no later k qualifies).
	 * Shuffled, with a NaN (not a test: m stays 15). */
	double p[16] = {0.0344, 0.3240, 0.0001, 0.0459, 0.4262, 0.0095, 0.5719, 0.0278,
	                0.0019, NAN,    0.6528, 0.0201, 0.7590, 0.0004, 1.0000, 0.0298};
	int rej[16];
	tg_stats_benjamini_hochberg(rej, p, 16, 0.05);
	int nrej = 0;
	for (int i = 0; i < 16; i++) {
		nrej += rej[i];
		if (rej[i])
			assert_true(p[i] <= 0.0095);
	}
	assert_int_equal(nrej, 4);
	assert_int_equal(rej[9], 0);

	/* adjusted: p_(4) -> min_k>=4 15 p_(k)/k = 15 * 0.0095 / 4 = 0.035625;
	 * p_(5) -> 15 * 0.0201 / 5 = 0.0603 (k = 7: 0.0639, k = 8: 0.0645) */
	double adj[16];
	assert_int_equal(tg_stats_bh_adjusted(adj, p, 16), 0);
	NEAR(adj[5], 0.035625, 1e-12);
	NEAR(adj[11], 0.0603, 1e-12);
	NEAR(adj[14], 1.0, 1e-12);
	assert_true(isnan(adj[9]));
	for (int i = 0; i < 16; i++)
		if (!isnan(p[i]))
			assert_int_equal(adj[i] <= 0.05, rej[i]);

	/* ties: 0.03 x 3 and 0.9: k = 3: 0.03 <= 3/4 * 0.05 */
	double t[] = {0.03, 0.9, 0.03, 0.03};
	int rt[4];
	tg_stats_benjamini_hochberg(rt, t, 4, 0.05);
	assert_true(rt[0] && !rt[1] && rt[2] && rt[3]);
	/* nothing at q <= 0; nothing when all NaN */
	tg_stats_benjamini_hochberg(rt, t, 4, 0);
	assert_true(!rt[0] && !rt[1] && !rt[2] && !rt[3]);
	double nn[] = {NAN, NAN};
	tg_stats_benjamini_hochberg(rt, nn, 2, 0.05);
	assert_true(!rt[0] && !rt[1]);
}

/* ------------------------------------------------------------ Welch on logs */

static void test_welch_log(void **state)
{
	(void)state;
	/* logs of base: -0.1, 0, 0.1 (mean 0, s^2 0.01); of next: 0, 0.1, 0.2
	 * (mean 0.1, s^2 0.01). d = 0.1, se^2 = 0.01/3 + 0.01/3, se =
	 * 0.0816496581; equal variances and sizes: df = 2 (n - 1) = 4, t_0.975,4
	 * = 2.7764451052. Ratio e^0.1 = 1.1051709181, interval
	 * exp(0.1 -+ 2.7764451052 * 0.0816496581) = [0.8810016382, 1.3863796674].
	 * t = 0.1 / se = sqrt(1.5); the t4 CDF in closed form,
	 * F(t) = 1/2 + 3/8 x (1 - t^2 / (12 (1 + t^2/4))), x = t / sqrt(1 + t^2/4),
	 * gives p = 2 (1 - F) = 0.2878641347. */
	double b[] = {exp(-0.1), 1.0, exp(0.1)};
	double n[] = {1.0, exp(0.1), exp(0.2)};
	tg_ratio_ci ci;
	assert_int_equal(tg_stats_welch_log(&ci, b, 3, n, 3, 0.95), 0);
	assert_int_equal(ci.method, TG_CI_WELCH_LOG);
	RNEAR(ci.ratio, 1.10517091807565, 1e-12);
	RNEAR(ci.lo, 0.881001638215037, 1e-9);
	RNEAR(ci.hi, 1.38637966739177, 1e-9);
	RNEAR(ci.p_value, 0.287864134726691, 1e-9);
	assert_int_equal(ci.nbase, 3);
	assert_int_equal(ci.nnext, 3);

	/* next = 1.07 base: ratio 1.07; CV 2.4 %, se 0.0122, t = 5.55 on 14 df */
	double b2[] = {100, 104, 98, 101, 97, 103, 99, 102};
	double n2[8];
	for (int i = 0; i < 8; i++)
		n2[i] = 1.07 * b2[i];
	assert_int_equal(tg_stats_welch_log(&ci, b2, 8, n2, 8, 0.95), 0);
	RNEAR(ci.ratio, 1.07, 1e-12);
	assert_true(ci.lo > 1.03 && ci.hi < 1.11 && ci.p_value < 1e-3);

	/* constant sides: exact */
	double c1[] = {2, 2}, c2[] = {3, 3, 3};
	assert_int_equal(tg_stats_welch_log(&ci, c1, 2, c2, 3, 0.95), 0);
	assert_int_equal(ci.method, TG_CI_EXACT);
	RNEAR(ci.ratio, 1.5, 1e-15);
	assert_true(ci.lo == ci.ratio && ci.hi == ci.ratio && ci.p_value == 0);
	assert_int_equal(tg_stats_welch_log(&ci, c1, 2, c1, 2, 0.95), 0);
	assert_true(ci.ratio == 1 && ci.p_value == 1);

	/* errors */
	double z[] = {1, 0};
	assert_int_equal(tg_stats_welch_log(&ci, z, 2, c1, 2, 0.95), TG_EINVAL);
	assert_true(strstr(tg_error_last(), "> 0") != NULL);
	double nanv[] = {1, NAN};
	assert_int_equal(tg_stats_welch_log(&ci, nanv, 2, c1, 2, 0.95), TG_EINVAL);
	assert_int_equal(tg_stats_welch_log(&ci, c1, 1, c1, 2, 0.95), TG_EINVAL);
	assert_int_equal(tg_stats_welch_log(&ci, c1, 2, c1, 2, 1.0), TG_EINVAL);
	assert_int_equal(tg_stats_welch_log(NULL, c1, 2, c1, 2, 0.95), TG_EINVAL);
}

/* ------------------------------------------------------------ bootstrap */

/* n lognormal values exp(mu + sigma Z) from r. */
static void lognormal(double *out, size_t n, double mu, double sigma, tg_rng *r)
{
	for (size_t i = 0; i < n; i++)
		out[i] = exp(mu + sigma * tg_rng_normal(r));
}

static int boot1(tg_ratio_ci *ci, const double *b, size_t nb, const double *n, size_t nn, uint64_t seed, size_t reps)
{
	tg_stratum s = {b, nb, n, nn};
	return tg_stats_ratio_bootstrap(ci, &s, 1, 0.95, seed, reps);
}

static void test_boot_exact_and_deterministic(void **state)
{
	(void)state;
	tg_rng r;
	tg_rng_seed(&r, 42);
	double b[50], n[50];
	lognormal(b, 50, log(1000), 0.05, &r);
	for (int i = 0; i < 50; i++)
		n[i] = 1.07 * b[i];
	tg_ratio_ci c1, c2, c3, c0;
	assert_int_equal(boot1(&c1, b, 50, n, 50, 99, 2000), 0);
	RNEAR(c1.ratio, 1.07, 1e-12);
	assert_true(c1.lo < 1.07 && c1.hi > 1.07);
	assert_true(c1.lo > 1.03 && c1.hi < 1.11);
	assert_int_equal(c1.method, TG_CI_BOOT_EXPANDED);
	assert_true(isnan(c1.p_value));
	assert_int_equal(c1.nbase, 50);
	assert_int_equal(c1.nnext, 50);
	/* same seed: the same numbers; reps 0 is 2000 */
	assert_int_equal(boot1(&c2, b, 50, n, 50, 99, 2000), 0);
	assert_int_equal(boot1(&c0, b, 50, n, 50, 99, 0), 0);
	assert_true(c1.lo == c2.lo && c1.hi == c2.hi && c1.ratio == c2.ratio);
	assert_true(c1.lo == c0.lo && c1.hi == c0.hi);
	/* another seed: other replicates, nearly the same interval */
	assert_int_equal(boot1(&c3, b, 50, n, 50, 100, 2000), 0);
	assert_true(c3.lo != c1.lo || c3.hi != c1.hi);
	RNEAR(c3.lo, c1.lo, 0.01);
	RNEAR(c3.hi, c1.hi, 0.01);
}

static void test_boot_shrinks(void **state)
{
	(void)state;
	tg_rng r;
	tg_rng_seed(&r, 5);
	double *b = malloc(2000 * sizeof(double)), *n = malloc(2000 * sizeof(double));
	lognormal(b, 2000, log(50), 0.1, &r);
	lognormal(n, 2000, log(50 * 1.03), 0.1, &r);
	tg_ratio_ci small, large;
	assert_int_equal(boot1(&small, b, 20, n, 20, 1, 1000), 0);
	assert_int_equal(boot1(&large, b, 2000, n, 2000, 1, 1000), 0);
	/* the true ratio of means is 1.03 */
	assert_true(small.lo < 1.03 && small.hi > 1.03);
	assert_true(large.lo < 1.03 && large.hi > 1.03);
	/* 100 times the samples: about a tenth of the width */
	double ws = small.hi - small.lo, wl = large.hi - large.lo;
	assert_true(wl < ws / 6 && wl > ws / 16);
	/* at 2000 values per side the expansion vanishes: expanded ~ plain */
	tg_stratum s = {b, 2000, n, 2000};
	tg_boot_opts o = {0.95, 1, 1000, TG_RATIO_AUTO, 1};
	tg_ratio_ci plain;
	assert_int_equal(tg_stats_ratio_bootstrap_ex(&plain, &s, 1, &o), 0);
	assert_int_equal(plain.method, TG_CI_BOOT_PERCENTILE);
	RNEAR(plain.hi - plain.lo, wl, 0.05);
	free(b);
	free(n);
}

/* Same distribution on both sides, 8 values each, 2 % lognormal noise:
 * the 95 % interval must exclude 1 in about 5 % of the cases (binomial sd
 * 1.1 %), at most 8 %. The plain percentile interval excludes it more
 * often (its bootstrap variance is 7/8 of the truth and its tails are
 * normal where the truth is t with ~14 df): that is why the expansion. */
static void test_boot_coverage(void **state)
{
	(void)state;
	tg_rng r;
	tg_rng_seed(&r, 2024);
	int excl = 0, excl_plain = 0, detected = 0;
	double b[8], n[8];
	for (int k = 0; k < 400; k++) {
		double mu = log(100 + 900 * tg_rng_uniform(&r)); /* any scale */
		lognormal(b, 8, mu, 0.02, &r);
		lognormal(n, 8, mu, 0.02, &r);
		tg_stratum s = {b, 8, n, 8};
		tg_ratio_ci ci, pl;
		assert_int_equal(tg_stats_ratio_bootstrap(&ci, &s, 1, 0.95, (uint64_t)k, 1000), 0);
		tg_boot_opts o = {0.95, (uint64_t)k, 1000, TG_RATIO_AUTO, 1};
		assert_int_equal(tg_stats_ratio_bootstrap_ex(&pl, &s, 1, &o), 0);
		assert_true(ci.lo <= pl.lo && ci.hi >= pl.hi); /* expanded contains plain */
		assert_true(ci.lo <= 1.05);
		excl += ci.lo > 1 || ci.hi < 1;
		excl_plain += pl.lo > 1 || pl.hi < 1;
		if (k < 100) {
			/* a true 5 % slowdown is 5 standard errors: found nearly always */
			for (int i = 0; i < 8; i++)
				n[i] *= 1.05;
			assert_int_equal(tg_stats_ratio_bootstrap(&ci, &s, 1, 0.95, (uint64_t)k, 1000), 0);
			detected += ci.lo > 1;
		}
	}
	print_message("coverage: 1 excluded in %d/400 (expanded), %d/400 (plain); 5 %% slowdown found %d/100\n", excl,
	              excl_plain, detected);
	assert_true(excl <= 32);
	assert_true(excl >= 6); /* not absurdly conservative either */
	assert_true(excl_plain >= excl);
	assert_true(detected >= 95);
}

/* Strata sides of TG_STATS_BOOT_CLT_N values or more are resampled as the
 * normal law of their sum: with skewed values (log-normal, sd 0.5 of the
 * logs) just above that size, A/A intervals still exclude 1 about 5 % of
 * the time, and the bounds are those of the exact resampling within
 * Monte Carlo error (the same data split into strata under the size). */
static const tg_stratum big_draws_check[2] = {{NULL, TG_STATS_BOOT_CLT_N, NULL, TG_STATS_BOOT_CLT_N + 1},
                                              {NULL, TG_STATS_BOOT_CLT_N + 2, NULL, 5}};

static void test_boot_clt(void **state)
{
	(void)state;
	tg_rng r;
	tg_rng_seed(&r, 77);
	enum { N = TG_STATS_BOOT_CLT_N + 8 };
	double b[N], n[N];
	int excl = 0;
	double dlo = 0, dhi = 0;
	for (int k = 0; k < 400; k++) {
		lognormal(b, N, 3, 0.5, &r);
		lognormal(n, N, 3, 0.5, &r);
		tg_stratum s = {b, N, n, N};
		tg_ratio_ci ci, ex;
		tg_boot_opts o = {0.95, (uint64_t)k, 2000, TG_RATIO_TOTALS, 0};
		assert_int_equal(tg_stats_ratio_bootstrap_ex(&ci, &s, 1, &o), 0);
		excl += ci.lo > 1 || ci.hi < 1;
		/* exact: the same values in strata of N/2 (under the size) give
		 * the same ratio; the stratified interval is about as wide */
		tg_stratum halves[2] = {{b, N / 2, n, N / 2}, {b + N / 2, N - N / 2, n + N / 2, N - N / 2}};
		assert_int_equal(tg_stats_ratio_bootstrap_ex(&ex, halves, 2, &o), 0);
		assert_true(fabs(ex.ratio - ci.ratio) < 1e-12);
		dlo += log(ci.lo / ex.lo);
		dhi += log(ci.hi / ex.hi);
	}
	print_message("normal-sum replicates: 1 excluded in %d/400; mean log(bound / exact bound) %.4f, %.4f\n", excl,
	              dlo / 400, dhi / 400);
	assert_true(excl >= 6 && excl <= 36);
	/* the bounds agree on average within 1 % of the ratio */
	assert_true(fabs(dlo / 400) < 0.01 && fabs(dhi / 400) < 0.01);
	assert_int_equal(tg_stats_boot_draws(&(tg_stratum){b, N, n, 5}, 1), 1 + 5);
	/* several large strata: their sums drawn as one normal law a side; the
	 * same data in strata of half the size (resampled exactly) */
	enum { K = 3 };
	double bb[K][N], nn[K][N];
	dlo = dhi = 0;
	for (int k = 0; k < 200; k++) {
		tg_stratum big[K], small[2 * K];
		for (int q = 0; q < K; q++) {
			lognormal(bb[q], N, 2 + q, 0.4, &r);
			lognormal(nn[q], N, 2 + q, 0.4, &r);
			big[q] = (tg_stratum){bb[q], N, nn[q], N};
			small[2 * q] = (tg_stratum){bb[q], N / 2, nn[q], N / 2};
			small[2 * q + 1] = (tg_stratum){bb[q] + N / 2, N - N / 2, nn[q] + N / 2, N - N / 2};
		}
		tg_ratio_ci ci, ex;
		tg_boot_opts o = {0.95, (uint64_t)k, 2000, TG_RATIO_TOTALS, 0};
		assert_int_equal(tg_stats_ratio_bootstrap_ex(&ci, big, K, &o), 0);
		assert_int_equal(tg_stats_ratio_bootstrap_ex(&ex, small, 2 * K, &o), 0);
		assert_true(fabs(ex.ratio - ci.ratio) < 1e-12);
		dlo += log(ci.lo / ex.lo);
		dhi += log(ci.hi / ex.hi);
	}
	print_message("three strata as one normal draw a side: mean log(bound / exact bound) %.4f, %.4f\n", dlo / 200,
	              dhi / 200);
	assert_true(fabs(dlo / 200) < 0.01 && fabs(dhi / 200) < 0.01);
	assert_int_equal(tg_stats_boot_draws(big_draws_check, 2), 2 + 5);
}

static void test_boot_strata(void **state)
{
	(void)state;
	/* Two strata of very different magnitudes: a ~2 ms GEMM 10 % slower, a
	 * ~5 us kernel twice as slow. Totals: base 8000 + 25, next 8800 + 50:
	 * R = 8850 / 8025, dominated by the large stratum. */
	double gb[] = {2000, 2010, 1990, 2000}, gn[] = {2200, 2211, 2189, 2200};
	double kb[] = {5, 6, 4, 5, 5}, kn[] = {10, 12, 8, 10, 10};
	tg_stratum st[2] = {{gb, 4, gn, 4}, {kb, 5, kn, 5}};
	tg_ratio_ci ci;
	assert_int_equal(tg_stats_ratio_bootstrap(&ci, st, 2, 0.95, 3, 2000), 0);
	RNEAR(ci.ratio, 8850.0 / 8025.0, 1e-14);
	assert_true(ci.lo < ci.ratio && ci.hi > ci.ratio);
	assert_true(ci.lo > 1.09 && ci.hi < 1.12);
	assert_int_equal(ci.nbase, 9);
	assert_int_equal(ci.nnext, 9);

	/* one stratum, unequal counts: AUTO (one stratum) is the ratio of
	 * means, 11 / 10; TOTALS is 22 / 40 */
	double ub[] = {10, 10, 10, 10}, un[] = {11, 11};
	tg_stratum u = {ub, 4, un, 2};
	assert_int_equal(tg_stats_ratio_bootstrap(&ci, &u, 1, 0.95, 3, 0), 0);
	RNEAR(ci.ratio, 1.1, 1e-15);
	assert_int_equal(ci.method, TG_CI_EXACT); /* constant sides: no noise */
	assert_true(ci.lo == ci.ratio && ci.hi == ci.ratio);
	tg_boot_opts o = {0.95, 3, 0, TG_RATIO_TOTALS, 0};
	assert_int_equal(tg_stats_ratio_bootstrap_ex(&ci, &u, 1, &o), 0);
	RNEAR(ci.ratio, 0.55, 1e-15);
	/* several strata, MEANS: pooled means (8850/9) / (8025/9) */
	o.statistic = TG_RATIO_MEANS;
	assert_int_equal(tg_stats_ratio_bootstrap_ex(&ci, st, 2, &o), 0);
	RNEAR(ci.ratio, 8850.0 / 8025.0, 1e-14);

	/* new and gone items: a new stratum adds to next's total only */
	double sb[] = {100, 100}, sn[] = {100, 100}, nw[] = {10, 10};
	tg_stratum ng[2] = {{sb, 2, sn, 2}, {NULL, 0, nw, 2}};
	assert_int_equal(tg_stats_ratio_bootstrap(&ci, ng, 2, 0.95, 3, 0), 0);
	RNEAR(ci.ratio, 1.1, 1e-15);
	assert_int_equal(ci.method, TG_CI_EXACT);
	ng[1] = (tg_stratum){nw, 2, NULL, 0}; /* gone */
	assert_int_equal(tg_stats_ratio_bootstrap(&ci, ng, 2, 0.95, 3, 0), 0);
	RNEAR(ci.ratio, 200.0 / 220.0, 1e-15);

	/* strata of one value add no variance: the interval comes from the
	 * noisy stratum only, and is the same whatever the single values */
	tg_rng r;
	tg_rng_seed(&r, 11);
	double nb[30], nn[30];
	lognormal(nb, 30, log(100), 0.1, &r);
	lognormal(nn, 30, log(100), 0.1, &r);
	double one_b[] = {1000}, one_n[] = {1000};
	tg_stratum mix[2] = {{nb, 30, nn, 30}, {one_b, 1, one_n, 1}};
	tg_ratio_ci a, c;
	assert_int_equal(tg_stats_ratio_bootstrap(&a, mix, 2, 0.95, 8, 1000), 0);
	assert_int_equal(tg_stats_ratio_bootstrap(&c, mix, 1, 0.95, 8, 1000), 0);
	/* totals shifted by the constant 1000: (Tn + 1000) / (Tb + 1000) */
	double tb = 0, tn = 0;
	for (int i = 0; i < 30; i++) {
		tb += nb[i];
		tn += nn[i];
	}
	RNEAR(a.ratio, (tn + 1000) / (tb + 1000), 1e-14);
	RNEAR(c.ratio, tn / tb, 1e-14);
	/* the constant dilutes the noise: a narrower relative interval */
	assert_true(a.lo < a.ratio && a.hi > a.ratio && c.lo < c.ratio && c.hi > c.ratio);
	assert_true((a.hi - a.lo) / a.ratio < 0.9 * (c.hi - c.lo) / c.ratio);
}

static void test_boot_edges(void **state)
{
	(void)state;
	tg_ratio_ci ci;
	double v[] = {1, 2, 3}, z[] = {0, 0, 0};
	/* base empty or zero, next > 0: infinite */
	tg_stratum s = {NULL, 0, v, 3};
	assert_int_equal(tg_stats_ratio_bootstrap(&ci, &s, 1, 0.95, 0, 0), 0);
	assert_true(isinf(ci.ratio) && isinf(ci.lo) && isinf(ci.hi) && ci.ratio > 0);
	assert_int_equal(ci.method, TG_CI_EXACT);
	s = (tg_stratum){z, 3, v, 3};
	assert_int_equal(tg_stats_ratio_bootstrap(&ci, &s, 1, 0.95, 0, 0), 0);
	assert_true(isinf(ci.ratio) && isinf(ci.lo));
	/* both zero, both empty, no strata: 1 */
	s = (tg_stratum){z, 3, z, 2};
	assert_int_equal(tg_stats_ratio_bootstrap(&ci, &s, 1, 0.95, 0, 0), 0);
	assert_true(ci.ratio == 1 && ci.lo == 1 && ci.hi == 1);
	s = (tg_stratum){NULL, 0, NULL, 0};
	assert_int_equal(tg_stats_ratio_bootstrap(&ci, &s, 1, 0.95, 0, 0), 0);
	assert_true(ci.ratio == 1 && ci.lo == 1 && ci.hi == 1);
	assert_int_equal(tg_stats_ratio_bootstrap(&ci, NULL, 0, 0.95, 0, 0), 0);
	assert_true(ci.ratio == 1 && ci.nbase == 0 && ci.nnext == 0);
	/* next zero: 0 */
	s = (tg_stratum){v, 3, z, 3};
	assert_int_equal(tg_stats_ratio_bootstrap(&ci, &s, 1, 0.95, 0, 0), 0);
	assert_true(ci.ratio == 0 && ci.lo == 0 && ci.hi == 0);
	/* one value a side: exact */
	double five[] = {5}, six[] = {6};
	s = (tg_stratum){five, 1, six, 1};
	assert_int_equal(tg_stats_ratio_bootstrap(&ci, &s, 1, 0.95, 0, 0), 0);
	RNEAR(ci.ratio, 1.2, 1e-15);
	assert_true(ci.lo == ci.ratio && ci.hi == ci.ratio && ci.method == TG_CI_EXACT);
	/* zeros among values: replicates with a zero base total are infinite,
	 * the interval stays ordered */
	double zb[] = {0, 0, 0, 1}, zn[] = {0, 1, 0, 0};
	s = (tg_stratum){zb, 4, zn, 4};
	assert_int_equal(tg_stats_ratio_bootstrap(&ci, &s, 1, 0.95, 0, 500), 0);
	assert_true(ci.ratio == 1 && ci.lo <= 1 && ci.hi >= 1);
	assert_true(ci.lo >= 0 && isinf(ci.hi));

	/* bad input: TG_EINVAL with a message */
	double bad[] = {1, NAN, 3};
	s = (tg_stratum){v, 3, bad, 3};
	tg_error_clear();
	assert_int_equal(tg_stats_ratio_bootstrap(&ci, &s, 1, 0.95, 0, 0), TG_EINVAL);
	assert_true(strstr(tg_error_last(), "next value 1") != NULL);
	double neg[] = {1, -2};
	s = (tg_stratum){neg, 2, v, 3};
	assert_int_equal(tg_stats_ratio_bootstrap(&ci, &s, 1, 0.95, 0, 0), TG_EINVAL);
	double inf[] = {INFINITY};
	s = (tg_stratum){inf, 1, v, 3};
	assert_int_equal(tg_stats_ratio_bootstrap(&ci, &s, 1, 0.95, 0, 0), TG_EINVAL);
	s = (tg_stratum){NULL, 2, v, 3};
	assert_int_equal(tg_stats_ratio_bootstrap(&ci, &s, 1, 0.95, 0, 0), TG_EINVAL);
	s = (tg_stratum){v, 3, v, 3};
	assert_int_equal(tg_stats_ratio_bootstrap(&ci, &s, 1, 1.0, 0, 0), TG_EINVAL);
	assert_int_equal(tg_stats_ratio_bootstrap(&ci, &s, 1, 0.0, 0, 0), TG_EINVAL);
	assert_int_equal(tg_stats_ratio_bootstrap(&ci, &s, 1, NAN, 0, 0), TG_EINVAL);
	assert_int_equal(tg_stats_ratio_bootstrap(NULL, &s, 1, 0.95, 0, 0), TG_EINVAL);
	assert_int_equal(tg_stats_ratio_bootstrap(&ci, NULL, 2, 0.95, 0, 0), TG_EINVAL);
	tg_boot_opts o = {0.95, 0, 0, 7, 0};
	assert_int_equal(tg_stats_ratio_bootstrap_ex(&ci, &s, 1, &o), TG_EINVAL);
	/* opts NULL: the defaults */
	assert_int_equal(tg_stats_ratio_bootstrap_ex(&ci, &s, 1, NULL), 0);
	RNEAR(ci.ratio, 1.0, 1e-15);

	/* replicate budget */
	assert_int_equal(tg_stats_boot_reps_for(0, 100, 50000000), 2000);
	assert_int_equal(tg_stats_boot_reps_for(2000, 100000, 50000000), 500);
	assert_int_equal(tg_stats_boot_reps_for(2000, 10000000, 50000000), 200);
	assert_int_equal(tg_stats_boot_reps_for(5000000, 0, 1), TG_STATS_BOOT_MAX_REPS);
}

/* 100 strata, 20,000 values: the gate's large case, at 200 replicates. */
static void test_boot_large(void **state)
{
	(void)state;
	size_t ns = 100, per = 100;
	double *b = malloc(ns * per * sizeof(double)), *n = malloc(ns * per * sizeof(double));
	tg_stratum *st = malloc(ns * sizeof(*st));
	tg_rng r;
	tg_rng_seed(&r, 77);
	double tb = 0, tn = 0;
	for (size_t s = 0; s < ns; s++) {
		double mu = log(1 + (double)((s * 37) % 1000)); /* 1 us .. 1 ms */
		lognormal(b + s * per, per, mu, 0.1, &r);
		lognormal(n + s * per, per, mu + log(1.02), 0.1, &r);
		for (size_t i = 0; i < per; i++) {
			tb += b[s * per + i];
			tn += n[s * per + i];
		}
		st[s] = (tg_stratum){b + s * per, per, n + s * per, per};
	}
	tg_ratio_ci ci;
	assert_int_equal(tg_stats_ratio_bootstrap(&ci, st, ns, 0.95, 1, 200), 0);
	RNEAR(ci.ratio, tn / tb, 1e-12);
	/* sd of the total's log ~ 0.1 / sqrt(100 * ~60 effective) per side */
	assert_true(ci.lo > 1.005 && ci.hi < 1.035 && ci.lo < 1.02 && ci.hi > 1.02);
	free(b);
	free(n);
	free(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rng),
		cmocka_unit_test(test_normal),
		cmocka_unit_test(test_t),
		cmocka_unit_test(test_t_sf),
		cmocka_unit_test(test_descriptive),
		cmocka_unit_test(test_mann_whitney),
		cmocka_unit_test(test_benjamini_hochberg),
		cmocka_unit_test(test_welch_log),
		cmocka_unit_test(test_boot_exact_and_deterministic),
		cmocka_unit_test(test_boot_shrinks),
		cmocka_unit_test(test_boot_coverage),
		cmocka_unit_test(test_boot_clt),
		cmocka_unit_test(test_boot_strata),
		cmocka_unit_test(test_boot_edges),
		cmocka_unit_test(test_boot_large),
	};
	return cmocka_run_group_tests_name("stats", tests, NULL, NULL);
}
