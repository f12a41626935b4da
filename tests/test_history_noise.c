/*
 * test_history_noise.c - the noise of one run from a series' run-to-run
 * differences (daemon/history/history_noise.c): 1.4826 x the median |d| /
 * sqrt 2 on known series, raw and in percent of a base, n = 0, 1, 2, an odd
 * and an even count of differences, a step the median ignores, NaN and
 * infinite values left out; and the median itself.
 */
#include "testutil.h"

#include "../util/tg.h"
#include "../daemon/history/history_noise.h"

#include <math.h>

static double sigma_of(const double *v, size_t n, double per)
{
	double s = 0;
	assert_int_equal(tg_history_noise_sigma(&s, v, n, per), 0);
	return s;
}

static void test_median(void **state)
{
	(void)state;
	double none[1] = {7};
	assert_true(tg_history_median(none, 0) == 0);
	double one[] = {7};
	assert_true(tg_history_median(one, 1) == 7);
	double odd[] = {3, 1, 2};
	assert_true(tg_history_median(odd, 3) == 2);
	assert_true(odd[0] == 1 && odd[1] == 2 && odd[2] == 3); /* sorted in place */
	double even[] = {4, 1, 3, 2};
	assert_true(tg_history_median(even, 4) == 2.5);
}

static void test_few(void **state)
{
	(void)state;
	double v[] = {100, 103};
	assert_true(isnan(sigma_of(v, 0, 0)));
	assert_true(isnan(sigma_of(v, 1, 0)));
	/* n = 2: one difference, 3: 1.4826 * 3 / sqrt 2 */
	NEAR(sigma_of(v, 2, 0), 3.1450695413615257, 1e-12);
	/* in percent of 200: the difference is 1.5 % */
	NEAR(sigma_of(v, 2, 200), 1.5725347706807629, 1e-12);
	assert_true(v[0] == 100 && v[1] == 103); /* v is not changed */
}

static void test_odd_even(void **state)
{
	(void)state;
	/* differences 2, 1, 4 (odd count): median 2 */
	double odd[] = {10, 12, 11, 15};
	NEAR(sigma_of(odd, 4, 0), 2.0967130275743506, 1e-12);
	/* differences 2, 1, 4, 1 (even count): median 1.5 */
	double even[] = {10, 12, 11, 15, 14};
	NEAR(sigma_of(even, 5, 0), 1.5725347706807629, 1e-12);
	assert_true(odd[1] == 12 && even[4] == 14);
}

static void test_step(void **state)
{
	(void)state;
	/* a +10 % step: one difference of 9.5 among 0.5s; the band stays 0.524 */
	double v[] = {100, 100.5, 100, 100.5, 110, 110.5, 110, 110.5};
	NEAR(sigma_of(v, 8, 0), 0.5241782568935877, 1e-12);
	/* no noise: every value the same */
	double flat[] = {5, 5, 5};
	assert_true(sigma_of(flat, 3, 0) == 0);
}

static void test_nan(void **state)
{
	(void)state;
	/* the two differences with the NaN are left out: 1 and 4, median 2.5 */
	double v[] = {10, NAN, 12, 11, 15};
	NEAR(sigma_of(v, 5, 0), 2.620891284467938, 1e-12);
	double inf[] = {10, INFINITY, 12, 11, 15};
	NEAR(sigma_of(inf, 5, 0), 2.620891284467938, 1e-12);
	double all[] = {NAN, NAN, 1};
	assert_true(isnan(sigma_of(all, 3, 0)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median),
		cmocka_unit_test(test_few),
		cmocka_unit_test(test_odd_even),
		cmocka_unit_test(test_step),
		cmocka_unit_test(test_nan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
