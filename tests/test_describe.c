/* test_describe.c - core/describe.c: the six statistics of the report's
 * aggregated columns, on values worked by hand. */
#include "testutil.h"

#include "../core/describe.h"

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
	/* sorted in place */
	assert_float_equal(v[0], 1.0, 0);
	assert_float_equal(v[2], 7.0, 0);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_odd),
		cmocka_unit_test(test_even_and_one),
		cmocka_unit_test(test_cmp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
