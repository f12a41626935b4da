/*
 * test_paired.c - the ratio of paired calls and the noise of one call
 * (rules/paired.h): exact cases, the delta method's numbers, the robust
 * noise, and the interval's coverage and power measured on simulated
 * one-pass traces (calls of very different sizes, a relative jitter on
 * each, a change on some of them).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../rules/paired.h"
#include "../rules/stats.h"

static tg_paired_calls calls(const double *b, const double *n, size_t m)
{
	tg_paired_calls in = {b, n, m, 0, 0, 0, 0, 1, 1, NAN, 0, 5, 0.95};
	return in;
}

/* No noise at all: the ratio of totals, exact. */
static void test_exact(void **state)
{
	(void)state;
	double b[3] = {100, 200, 300}, n[3] = {107, 214, 321};
	tg_paired_calls in = calls(b, n, 3);
	tg_ratio_ci ci;
	double p, df;
	assert_int_equal(tg_paired_ratio(&ci, &p, &df, &in), 0);
	assert_true(fabs(ci.ratio - 1.07) < 1e-12);
	assert_int_equal(ci.method, TG_CI_EXACT);
	assert_true(ci.lo == ci.ratio && ci.hi == ci.ratio);
	assert_true(p == 0);
	/* per step: 2 steps of base against 1 of new */
	in.steps_b = 2;
	assert_int_equal(tg_paired_ratio(&ci, NULL, NULL, &in), 0);
	assert_true(fabs(ci.ratio - 2.14) < 1e-12);
	/* the unpaired calls count in the totals: a new kernel of 60 */
	in.steps_b = 1;
	in.un = 60;
	in.un2 = 3600;
	assert_int_equal(tg_paired_ratio(&ci, NULL, NULL, &in), 0);
	assert_true(fabs(ci.ratio - (642.0 + 60) / 600) < 1e-12);
	/* zero totals */
	double z[1] = {0};
	tg_paired_calls none = calls(z, z, 1);
	assert_int_equal(tg_paired_ratio(&ci, NULL, NULL, &none), 0);
	assert_true(ci.ratio == 1 && ci.method == TG_CI_EXACT);
	none.un = 5;
	assert_int_equal(tg_paired_ratio(&ci, NULL, NULL, &none), 0);
	assert_true(isinf(ci.ratio));
	/* bad arguments */
	in.confidence = 1;
	assert_int_equal(tg_paired_ratio(&ci, NULL, NULL, &in), TG_EINVAL);
}

/* The own spread by hand: two pairs, one +10 %, one -10 % of equal size:
 * e = +-0.05, variance 2 * (0.05^2 + 0.05^2) = 0.01 (m/(m-1) = 2), but
 * two pairs are fewer than min_own: the call noise decides instead. */
static void test_delta_method(void **state)
{
	(void)state;
	double b[6] = {100, 100, 100, 100, 100, 100}, n[6] = {110, 90, 110, 90, 110, 90};
	tg_paired_calls in = calls(b, n, 6);
	tg_ratio_ci ci;
	double p, df;
	assert_int_equal(tg_paired_ratio(&ci, &p, &df, &in), 0);
	/* N = B: ratio 1; e_k = +-1/60; sum e^2 = 6/3600; x 6/5 */
	double se = sqrt(6.0 / 3600 * 6 / 5), t = tg_stats_t_quantile(0.975, 5);
	assert_true(fabs(ci.ratio - 1) < 1e-12);
	assert_true(fabs(log(ci.hi) - t * se) < 1e-12);
	assert_true(fabs(log(ci.lo) + t * se) < 1e-12);
	assert_true(df == 5);
	assert_true(fabs(p - 0.5) < 1e-12);
	/* one pair with a known call noise of 2 %: se = 0.02 */
	double b1[1] = {100}, n1[1] = {108};
	tg_paired_calls one = calls(b1, n1, 1);
	one.call_sigma = 0.02;
	one.call_df = 200;
	assert_int_equal(tg_paired_ratio(&ci, &p, &df, &one), 0);
	t = tg_stats_t_quantile(0.975, 200);
	assert_true(fabs(log(ci.lo) - (log(1.08) - t * 0.02)) < 1e-12);
	assert_true(df == 200);
	assert_true(p < 1e-4);
	/* the noise counts for unpaired calls too (half a log-ratio's) */
	one.ub = 100;
	one.ub2 = 100 * 100;
	assert_int_equal(tg_paired_ratio(&ci, NULL, NULL, &one), 0);
	double B = 200, N = 108, w = (100 / B + 108 / N) / 2;
	se = sqrt(0.0004 * w * w + 0.0002 * (100.0 * 100 / (B * B)));
	assert_true(fabs(log(ci.hi) - (log(N / B) + t * se)) < 1e-12);
}

/* The noise of a call: 1.4826 MAD, robust to a shifted minority. */
static void test_call_noise(void **state)
{
	(void)state;
	double v[2000];
	tg_rng r;
	tg_rng_seed(&r, 7);
	for (size_t i = 0; i < 2000; i++)
		v[i] = 0.02 * tg_rng_normal(&r);
	double df, s = tg_paired_call_noise(&df, v, 2000);
	assert_true(fabs(s - 0.02) < 0.002);
	assert_true(df == 1999);
	/* 30 % of the calls changed by +8 %: the noise moves little */
	for (size_t i = 0; i < 600; i++)
		v[i] += log(1.08);
	double s2 = tg_paired_call_noise(NULL, v, 2000);
	print_message("noise 2 %%: %.2f %%; with 30 %% of the calls +8 %%: %.2f %%\n", 100 * s, 100 * s2);
	assert_true(s2 < 0.04);
	assert_true(isnan(tg_paired_call_noise(&df, v, 1)));
	assert_true(df == 0);
}

/* One simulated pass: calls of three sizes (1, 10, 100 units), 12 of
 * them, each with a relative jitter of sd 2 % on each side; the rule's
 * calls (every third) x f. The call noise comes from the other calls. */
static void simulate(tg_ratio_ci *ci, tg_rng *r, double f)
{
	double b[40], n[40], lb[80];
	size_t nl = 0, m = 0;
	for (size_t i = 0; i < 120; i++) {
		double size = i % 3 == 0 ? 100 : i % 3 == 1 ? 10 : 1;
		double x = size * exp(0.02 * tg_rng_normal(r)), y = size * exp(0.02 * tg_rng_normal(r));
		if (i % 3 == 0 && m < 40) {
			b[m] = x;
			n[m++] = y * f;
		} else if (nl < 80) {
			lb[nl++] = log(y / x);
		}
	}
	tg_paired_calls in = calls(b, n, m);
	in.call_sigma = tg_paired_call_noise(&in.call_df, lb, nl);
	assert_int_equal(tg_paired_ratio(ci, NULL, NULL, &in), 0);
}

/* 2,000 simulated A/A passes: the 95 % interval holds 1 in 93-98 % of
 * them; +8 % is significant in all, and above 5 % (the default threshold)
 * in almost all. */
static void test_coverage_and_power(void **state)
{
	(void)state;
	tg_rng r;
	tg_rng_seed(&r, 20);
	size_t covered = 0, sig = 0, above = 0, n = 2000;
	for (size_t i = 0; i < n; i++) {
		tg_ratio_ci ci;
		simulate(&ci, &r, 1.0);
		covered += ci.lo <= 1 && 1 <= ci.hi;
		simulate(&ci, &r, 1.08);
		sig += ci.lo > 1;
		above += ci.ratio > 1.05 && ci.lo > 1;
	}
	print_message("A/A: 95 %% interval holds 1 in %.1f %%; +8 %%: significant in %.1f %%, above 5 %% in %.1f %%\n",
	              100.0 * covered / n, 100.0 * sig / n, 100.0 * above / n);
	assert_true(covered >= n * 93 / 100 && covered <= n * 98 / 100);
	assert_true(sig == n);
	assert_true(above >= n * 99 / 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_delta_method),
		cmocka_unit_test(test_call_noise),
		cmocka_unit_test(test_coverage_and_power),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
