/*
 * test_data_cache.c - daemon/data_cache.c, the run data the daemon keeps
 * for its jobs: found by digest, trusted entries only for a trusted job,
 * an untrusted entry replaced by a trusted one (never the other way), the
 * least recently used dropped to stay under the size, one larger than the
 * whole cache not kept; each entry read for a baseline with the tree
 * diff's view of its skeleton, counted in its bytes, and kept without it
 * when only the run data fits; an entry read for a pull request's own
 * side without one until a job reads it for a baseline.
 */
#include "gentrace.h"

#include "../daemon/data_cache.h"

#define D1 "1111111111111111111111111111111111111111111111111111111111111111"
#define D2 "2222222222222222222222222222222222222222222222222222222222222222"
#define D3 "3333333333333333333333333333333333333333333333333333333333333333"

static tg_rundata *one(void)
{
	tg_rundata *rd;
	assert_int_equal(tg_rundata_build(&rd, gt_trace("--steps 1 --layers 1 --seq 256")->tree, NULL), 0);
	return rd;
}

/* The bytes rd counts in a cache, and those of its skeleton's view. */
static void bytes_of(uint64_t *data, uint64_t *view, const tg_rundata *rd)
{
	tg_tree_diff_side *v;
	assert_int_equal(tg_tree_diff_side_new(&v, tg_rundata_skeleton(rd), NULL), 0);
	*data = tg_rundata_mem_bytes(rd);
	*view = tg_tree_diff_side_bytes(v);
	tg_tree_diff_side_free(v);
}

static void test_cache(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	tg_rundata *a = one();
	uint64_t data, view;
	bytes_of(&data, &view, a);
	uint64_t each = data + view;
	assert_true(data > 1000);
	assert_true(view > 1000);
	tg_data_cache *c;
	assert_int_equal(tg_data_cache_new(&c, 2 * each + each / 2), 0); /* room for two */
	assert_null(tg_data_cache_get(c, D1, 0));
	assert_int_equal(tg_data_cache_put(c, D1, 0, 1, a), 0);
	assert_ptr_equal(tg_data_cache_get(c, D1, 0), a);
	const tg_tree_diff_side *av = tg_data_cache_view(c, a);
	assert_non_null(av); /* the view of its skeleton, made once */
	assert_ptr_equal(tg_tree_diff_side_skeleton(av), tg_rundata_skeleton(a));
	assert_null(tg_data_cache_view(c, NULL));
	assert_null(tg_data_cache_get(c, D1, 1)); /* untrusted: not for a trusted job */
	tg_rundata *t = one();
	assert_int_equal(tg_data_cache_put(c, D1, 1, 1, t), 0); /* replaced by trusted data */
	assert_ptr_equal(tg_data_cache_get(c, D1, 1), t);
	assert_int_equal(tg_data_cache_put(c, D1, 0, 1, one()), 0); /* never replaced by untrusted data */
	assert_ptr_equal(tg_data_cache_get(c, D1, 0), t);
	size_t n;
	assert_int_equal(tg_data_cache_bytes(c, &n), each);
	assert_int_equal(n, 1);
	tg_rundata *b = one(), *d = one();
	assert_int_equal(tg_data_cache_put(c, D2, 0, 1, b), 0);
	assert_ptr_equal(tg_data_cache_get(c, D1, 1), t); /* D1 used last: D2 goes first */
	assert_int_equal(tg_data_cache_put(c, D3, 0, 1, d), 0);
	assert_true(tg_data_cache_has(c, D1, 1));
	assert_false(tg_data_cache_has(c, D2, 0));
	assert_true(tg_data_cache_has(c, D3, 0));
	assert_int_equal(tg_data_cache_bytes(c, &n), 2 * each);
	assert_int_equal(n, 2);
	tg_data_cache_free(c);
	/* room for the run data alone: kept without its view */
	assert_int_equal(tg_data_cache_new(&c, data + view / 2), 0);
	tg_rundata *e = one();
	assert_int_equal(tg_data_cache_put(c, D1, 0, 1, e), 0);
	assert_ptr_equal(tg_data_cache_get(c, D1, 0), e);
	assert_null(tg_data_cache_view(c, e));
	assert_int_equal(tg_data_cache_bytes(c, NULL), data);
	tg_data_cache_free(c);
	/* larger than the whole cache: not kept (and freed) */
	assert_int_equal(tg_data_cache_new(&c, each / 2), 0);
	assert_int_equal(tg_data_cache_put(c, D1, 1, 1, one()), 0);
	assert_false(tg_data_cache_has(c, D1, 0));
	assert_int_equal(tg_data_cache_bytes(c, NULL), 0);
	tg_data_cache_free(c);
	assert_null(tg_data_cache_get(NULL, D1, 0));
}

/* Run data kept from a side that is no baseline's gets no view (the
 * single-threaded daemon builds none for a pull request's own runs); a
 * later job that reads it for a baseline has it made, counted, once,
 * dropping older entries for room, and never when it cannot fit. */
static void test_view_for_bases_only(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	tg_rundata *a = one();
	uint64_t data, view;
	bytes_of(&data, &view, a);
	tg_data_cache *c;
	assert_int_equal(tg_data_cache_new(&c, 2 * data + view + view / 2), 0);
	assert_int_equal(tg_data_cache_put(c, D1, 0, 0, a), 0);
	assert_ptr_equal(tg_data_cache_get(c, D1, 0), a);
	assert_null(tg_data_cache_view(c, a)); /* a pull request's own: no view */
	assert_int_equal(tg_data_cache_bytes(c, NULL), data);
	tg_rundata *b = one();
	assert_int_equal(tg_data_cache_put(c, D2, 0, 0, b), 0);
	assert_int_equal(tg_data_cache_bytes(c, NULL), 2 * data);
	tg_data_cache_make_view(c, D3); /* no such entry: nothing */
	tg_data_cache_make_view(c, D1); /* now read for a baseline */
	const tg_tree_diff_side *av = tg_data_cache_view(c, a);
	assert_non_null(av);
	assert_ptr_equal(tg_tree_diff_side_skeleton(av), tg_rundata_skeleton(a));
	assert_int_equal(tg_data_cache_bytes(c, NULL), 2 * data + view);
	tg_data_cache_make_view(c, D1); /* made once */
	assert_ptr_equal(tg_data_cache_view(c, a), av);
	assert_int_equal(tg_data_cache_bytes(c, NULL), 2 * data + view);
	/* D2's view does not fit beside both: D1, used less recently, goes */
	tg_data_cache_make_view(c, D2);
	assert_non_null(tg_data_cache_view(c, b));
	assert_false(tg_data_cache_has(c, D1, 0));
	size_t n;
	assert_int_equal(tg_data_cache_bytes(c, &n), data + view);
	assert_int_equal(n, 1);
	tg_data_cache_free(c);
	/* room for the run data alone: the view is never made */
	assert_int_equal(tg_data_cache_new(&c, data + view / 2), 0);
	tg_rundata *e = one();
	assert_int_equal(tg_data_cache_put(c, D1, 1, 0, e), 0);
	tg_data_cache_make_view(c, D1);
	assert_null(tg_data_cache_view(c, e));
	assert_ptr_equal(tg_data_cache_get(c, D1, 1), e);
	assert_int_equal(tg_data_cache_bytes(c, NULL), data);
	tg_data_cache_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_cache), cmocka_unit_test(test_view_for_bases_only)};
	return cmocka_run_group_tests(tests, NULL, gt_teardown);
}
