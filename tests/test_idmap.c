/* test_idmap.c - the id map in dense and hash modes, keys outside a dense
 * range, negative and huge keys, first value wins, growth. */
#include "testutil.h"

#include "../util/idmap.h"

static void check_map(tg_idmap *m, int64_t base, int64_t stride, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(tg_idmap_put(m, base + stride * i, i), 0);
	assert_int_equal(tg_idmap_put(m, base, 999), 1); /* first wins */
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(tg_idmap_get(m, base + stride * i), i);
	assert_int_equal(tg_idmap_get(m, base - 1), TG_NONE);
	assert_int_equal(tg_idmap_get(m, base + stride * n), TG_NONE);
}

static void test_dense(void **state)
{
	(void)state;
	tg_idmap *m = tg_idmap_new_range(100000, 1, 100000);
	check_map(m, 1, 1, 100000);
	/* keys outside the range still work */
	assert_int_equal(tg_idmap_put(m, -5, 7), 0);
	assert_int_equal(tg_idmap_put(m, INT64_MAX, 8), 0);
	assert_int_equal(tg_idmap_get(m, -5), 7);
	assert_int_equal(tg_idmap_get(m, INT64_MAX), 8);
	tg_idmap_free(m);
}

static void test_sparse_and_growth(void **state)
{
	(void)state;
	tg_idmap *m = tg_idmap_new_range(1000, INT64_MIN, INT64_MAX);
	check_map(m, -4611686018427387904LL, 1099511627776LL, 50000); /* grows past its size */
	tg_idmap_free(m);
	m = tg_idmap_new(0);
	check_map(m, 1610366387140599LL, 4096, 20000);
	tg_idmap_free(m);
	m = tg_idmap_new_range(0, 1, 0); /* no keys: an empty hash map */
	assert_int_equal(tg_idmap_get(m, 1), TG_NONE);
	tg_idmap_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dense),
		cmocka_unit_test(test_sparse_and_growth),
	};
	return cmocka_run_group_tests_name("idmap", tests, NULL, NULL);
}
