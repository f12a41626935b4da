/* test_describe.c - core/analysis/describe.c: the six statistics of the report's
 * aggregated columns, on values worked by hand, and exactly (bit for bit,
 * -0 and +0 included) what the sort it replaced gave, on random columns. */
#include "testutil.h"

#include "../core/analysis/describe.h"

#include <math.h>
#include <stdlib.h>

static void test_odd(void **state)
{
	(void)state;
	double v[] = {4, 1, 7}, o[6];
	tg_describe6(o, v, 3);
	assert_float_equal(o[TG_DESC_MEAN], 4.0, 1e-12);
	assert_float_equal(o[TG_DESC_MEDIAN], 4.0, 1e-12);
	assert_float_equal(o[TG_DESC_STD], 3.0, 1e-12); /* ((9 + 9 + 0) / 2)^0.5 */
	assert_float_equal(o[TG_DESC_MIN], 1.0, 0);
	assert_float_equal(o[TG_DESC_MAX], 7.0, 0);
	assert_float_equal(o[TG_DESC_SUM], 12.0, 0);
}

static void test_even_and_one(void **state)
{
	(void)state;
	double v[] = {10, 2, 8, 4}, o[6];
	tg_describe6(o, v, 4);
	assert_float_equal(o[TG_DESC_MEDIAN], 6.0, 1e-12);
	assert_float_equal(o[TG_DESC_MEAN], 6.0, 1e-12);
	assert_float_equal(o[TG_DESC_STD], sqrt(40.0 / 3.0), 1e-12);
	double one[] = {2.5};
	tg_describe6(o, one, 1);
	assert_float_equal(o[TG_DESC_MEDIAN], 2.5, 0);
	assert_true(isnan(o[TG_DESC_STD]));
	assert_float_equal(o[TG_DESC_SUM], 2.5, 0);
}

static void test_cmp(void **state)
{
	(void)state;
	double a = 1, b = 2;
	assert_int_equal(tg_cmp_double(&a, &b), -1);
	assert_int_equal(tg_cmp_double(&b, &a), 1);
	assert_int_equal(tg_cmp_double(&a, &a), 0);
}

/* What tg_describe6 gave when it sorted (glibc's qsort: a stable merge
 * sort) before reading the median, min and max. */
static void describe_by_sort(double out[6], double *v, size_t n)
{
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	double mean = sum / (double)n, ss = 0;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	for (size_t i = 1; i < n; i++) { /* stable insertion sort */
		double x = v[i];
		size_t j = i;
		for (; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
	out[TG_DESC_MEAN] = mean;
	out[TG_DESC_MEDIAN] = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	out[TG_DESC_STD] = n > 1 ? sqrt(ss / (double)(n - 1)) : NAN;
	out[TG_DESC_MIN] = v[0];
	out[TG_DESC_MAX] = v[n - 1];
	out[TG_DESC_SUM] = sum;
}

static void test_same_as_a_stable_sort(void **state)
{
	(void)state;
	uint64_t x = 2463534242ULL;
	double a[300], b[300], oa[6], ob[6];
	for (int round = 0; round < 20000; round++) {
		size_t n = 1 + (size_t)(round % 300);
		for (size_t i = 0; i < n; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			switch (x % 5) {
			case 0: a[i] = 0.0; break;
			case 1: a[i] = -0.0; break;
			case 2: a[i] = (double)(x % 7) - 3; break; /* duplicates, negatives */
			default: a[i] = (double)(x >> 11) / 1e9;
			}
		}
		memcpy(b, a, n * sizeof(double));
		tg_describe6(oa, a, n);
		describe_by_sort(ob, b, n);
		for (int k = 0; k < 6; k++)
			if (memcmp(&oa[k], &ob[k], sizeof(double)) && !(isnan(oa[k]) && isnan(ob[k])))
				fail_msg("round %d, n %zu, stat %d: %.17g != %.17g", round, n, k, oa[k], ob[k]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_odd),
		cmocka_unit_test(test_even_and_one),
		cmocka_unit_test(test_cmp),
		cmocka_unit_test(test_same_as_a_stable_sort),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
