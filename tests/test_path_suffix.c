/*
 * test_path_suffix.c - util/path_suffix.c: the shortest distinguishing
 * suffix of each of a diff's trace paths (the comment's "traces" row).
 */
#include "testutil.h"

#include "../util/path_suffix.h"

#include <string.h>

/* Runs tg_path_unique_suffixes on the n paths and compares with want. */
static void expect(const char *const *paths, const char *const *want, size_t n)
{
	const char *out[8];
	assert_true(n <= 8);
	tg_path_unique_suffixes(out, paths, n);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(out[i], want[i]))
			fail_msg("path %zu (%s): '%s', want '%s'", i, paths[i], out[i], want[i]);
		/* a suffix of its own path, starting at a component */
		size_t lp = strlen(paths[i]), lo = strlen(out[i]);
		assert_ptr_equal(out[i], paths[i] + lp - lo);
		assert_true(lo == lp || paths[i][lp - lo - 1] == '/');
	}
}

static void test_suffixes(void **state)
{
	(void)state;
	/* the case: both sides' base names are rank0.pt.trace.json.gz */
	const char *h200[] = {"../shared/traces/h200-dev/base_r1/rank0.pt.trace.json.gz",
	                      "../shared/traces/h200-dev/dropout2_r1/rank0.pt.trace.json.gz"};
	const char *h200_want[] = {"base_r1/rank0.pt.trace.json.gz", "dropout2_r1/rank0.pt.trace.json.gz"};
	expect(h200, h200_want, 2);
	/* base names that differ stay base names */
	const char *plain[] = {"/tmp/x/base.json", "/tmp/x/new.json"};
	const char *plain_want[] = {"base.json", "new.json"};
	expect(plain, plain_want, 2);
	/* ranks of two runs: each needs its run folder, no more */
	const char *ranks[] = {"runs/a/r0.json", "runs/a/r1.json", "runs/b/r0.json", "runs/b/r1.json"};
	const char *ranks_want[] = {"a/r0.json", "a/r1.json", "b/r0.json", "b/r1.json"};
	expect(ranks, ranks_want, 4);
	/* differing deep down: as many components as it takes */
	const char *deep[] = {"x/one/t/rank0.json", "x/two/t/rank0.json", "x/one/u/rank0.json"};
	const char *deep_want[] = {"one/t/rank0.json", "two/t/rank0.json", "u/rank0.json"};
	expect(deep, deep_want, 3);
	/* one path the tail of another: the shorter is whole */
	const char *tail[] = {"a/rank0.json", "x/a/rank0.json"};
	const char *tail_want[] = {"a/rank0.json", "x/a/rank0.json"};
	expect(tail, tail_want, 2);
	/* the same file on both sides: its base name */
	const char *same[] = {"d/t.json", "d/t.json"};
	const char *same_want[] = {"t.json", "t.json"};
	expect(same, same_want, 2);
	/* no folder, a trailing slash, one path, none */
	const char *odd[] = {"t.json", "d/t.json", "e/"};
	const char *odd_want[] = {"t.json", "d/t.json", "e/"};
	expect(odd, odd_want, 3);
	const char *one[] = {"/a/b/c.json"};
	const char *one_want[] = {"c.json"};
	expect(one, one_want, 1);
	expect(NULL, NULL, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_suffixes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
