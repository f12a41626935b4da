/* test_interval.c - interval unions (the peers' subtract/union test cases:
 * overlap counted once, touching intervals merge, unsorted input). */
#include "testutil.h"

#include "../util/interval.h"

static void test_union(void **state)
{
	(void)state;
	tg_interval a[] = {{200, 250}, {0, 100}, {50, 120}, {120, 130}, {300, 300}, {10, 20}};
	assert_int_equal(tg_interval_union(a, 6), 130 + 50);
	assert_int_equal(a[0].start, 0); /* sorted in place */
	tg_interval b[] = {{5, 10}};
	assert_int_equal(tg_interval_union(b, 1), 5);
	assert_int_equal(tg_interval_union(NULL, 0), 0);
	/* TraceLens test_treeperf: kernel [0,100) + memcpy [200,250) -> busy 150 */
	tg_interval c[] = {{0, 100}, {200, 250}};
	assert_int_equal(tg_interval_union(c, 2), 150);
	/* nested and identical intervals */
	tg_interval d[] = {{0, 1000}, {100, 200}, {0, 1000}, {999, 1001}};
	assert_int_equal(tg_interval_union(d, 4), 1001);
}

static void test_large_unsorted(void **state)
{
	(void)state;
	size_t n = 100000;
	tg_interval *v = malloc(n * sizeof(*v));
	for (size_t i = 0; i < n; i++) {
		size_t j = (i * 7919) % n; /* a permutation */
		v[i] = (tg_interval){(int64_t)j * 10, (int64_t)j * 10 + 5};
	}
	assert_int_equal(tg_interval_union(v, n), (int64_t)n * 5);
	for (size_t i = 1; i < n; i++)
		assert_true(v[i - 1].start <= v[i].start);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_union),
		cmocka_unit_test(test_large_unsorted),
	};
	return cmocka_run_group_tests_name("interval", tests, NULL, NULL);
}
