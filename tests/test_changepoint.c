/*
 * test_changepoint.c - rules/changepoint.c, E-divisive means: exact
 * splits of clean steps, several changes, the argument checks, and the
 * proof of issue 13: generated histories of 40 runs with 1 % noise per run
 * (log-normal), a +3 % step at run 25 found within 3 runs of it, and the
 * false change rate of flat histories of 40 runs, measured over 200
 * histories each and printed.
 */
#include "testutil.h"

#include "../rules/changepoint.h"
#include "../rules/stats.h"

#include <math.h>

static void test_clean_step(void **state)
{
	(void)state;
	double x[20];
	for (int i = 0; i < 20; i++)
		x[i] = (i < 12 ? 100 : 110) * (1 + 0.001 * (i % 3));
	tg_change *c;
	size_t n;
	assert_int_equal(tg_changes_find(&c, &n, x, 20, NULL), 0);
	assert_int_equal(n, 1);
	assert_int_equal(c[0].at, 12);
	assert_true(fabs(c[0].pct - 10) < 0.2);
	assert_true(c[0].p_value <= 0.01);
	free(c);
}

static void test_two_changes(void **state)
{
	(void)state;
	double x[36];
	tg_rng g;
	tg_rng_seed(&g, 7);
	for (int i = 0; i < 36; i++)
		x[i] = (i < 12 ? 100 : i < 24 ? 108 : 96) * exp(0.005 * tg_rng_normal(&g));
	tg_change *c;
	size_t n;
	assert_int_equal(tg_changes_find(&c, &n, x, 36, NULL), 0);
	assert_int_equal(n, 2);
	assert_int_equal(c[0].at, 12);
	assert_int_equal(c[1].at, 24);
	assert_true(fabs(c[0].pct - 8) < 1);
	assert_true(fabs(c[1].pct - (96.0 / 108 - 1) * 100) < 1);
	free(c);
}

static void test_arguments(void **state)
{
	(void)state;
	tg_change *c = (tg_change *)1;
	size_t n = 9;
	double x[] = {1, 2, 0, 4, 5, 6, 7, 8};
	assert_int_equal(tg_changes_find(&c, &n, x, 8, NULL), TG_EINVAL);
	assert_non_null(strstr(tg_error_last(), "value 2 is 0"));
	assert_null(c);
	assert_int_equal(n, 0);
	double y[] = {1, 2, 3};
	assert_int_equal(tg_changes_find(&c, &n, y, 3, NULL), 0); /* too short: none */
	assert_int_equal(n, 0);
}

#define HISTORIES 200
#define RUNS 40
#define STEP_AT 24 /* run 25, 0-based */

static void test_issue_proof(void **state)
{
	(void)state;
	tg_rng g;
	tg_rng_seed(&g, 2026);
	size_t found = 0, extra = 0, false_hist = 0, false_changes = 0;
	double err = 0;
	for (int h = 0; h < HISTORIES; h++) {
		double step[RUNS], flat[RUNS];
		for (int i = 0; i < RUNS; i++) {
			step[i] = 1e6 * (i >= STEP_AT ? 1.03 : 1) * exp(0.01 * tg_rng_normal(&g));
			flat[i] = 1e6 * exp(0.01 * tg_rng_normal(&g));
		}
		tg_changes_opts o = {0, 0, 0, (uint64_t)h};
		tg_change *c;
		size_t n;
		assert_int_equal(tg_changes_find(&c, &n, step, RUNS, &o), 0);
		int hit = 0;
		for (size_t k = 0; k < n; k++) {
			long d = (long)c[k].at - STEP_AT;
			if (!hit && d >= -3 && d <= 3 && c[k].pct > 0) {
				hit = 1;
				err += fabs((double)d);
			} else {
				extra++;
			}
		}
		found += (size_t)hit;
		free(c);
		assert_int_equal(tg_changes_find(&c, &n, flat, RUNS, &o), 0);
		false_hist += n > 0;
		false_changes += n;
		free(c);
	}
	printf("# change points, 40 runs, 1 %% noise: +3 %% step at run 25 found within 3 runs in %zu of %d "
	       "histories (mean distance %.2f runs; %zu other changes); flat histories with a false change: %zu of %d "
	       "(%.1f %%, %zu changes)\n",
	       found, HISTORIES, found ? err / (double)found : 0, extra, false_hist, HISTORIES,
	       100.0 * (double)false_hist / HISTORIES, false_changes);
	assert_true(found >= HISTORIES * 95 / 100);
	/* p_max 0.01 per test: about 1 % of flat histories; 3 % allows for the
	 * Monte Carlo error of 200 */
	assert_true(false_hist <= HISTORIES * 3 / 100);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_step),
		cmocka_unit_test(test_two_changes),
		cmocka_unit_test(test_arguments),
		cmocka_unit_test(test_issue_proof),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
