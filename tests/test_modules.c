/* test_modules.c - GPU time per nn.Module path on the sample trace, where
 * every number was computed by hand (see tests/fixtures/sample.json). */
#include "testutil.h"

#include "../core/tree/modules.h"

static void test_sample_modules(void **state)
{
	(void)state;
	tg_trace *t;
	tg_tree *tree;
	tg_modules *m;
	assert_int_equal(tg_trace_read_file(&t, "tests/fixtures/sample.json", NULL), 0);
	assert_int_equal(tg_tree_build(&tree, t), 0);
	assert_int_equal(tg_modules_build(&m, tree), 0);
	/* gemm 50 + attention 100 + memcpy 30 + gemm 55 + flow 5 + ext 5 +
	 * graph 25 (three overlapping kernels) + orphan 10 */
	assert_int_equal(tg_modules_gpu_busy_ns(m), 280000);
	size_t n;
	const tg_module_row *r = tg_modules_rows(m, &n);
	assert_int_equal(n, 3);
	assert_string_equal(tg_trace_str(t, r[0].name), "nn.Module: Net_0");
	assert_int_equal(r[0].parent, TG_NONE);
	assert_int_equal(r[0].calls, 2);
	assert_int_equal(r[0].gpu_ns, 215000); /* 110 + 100 + the flow-linked 5 */
	assert_int_equal(r[0].self_gpu_ns, 5000);
	assert_int_equal(r[0].gpu_events, 6);
	assert_int_equal(r[0].cpu_ns, 500000);
	assert_string_equal(tg_trace_str(t, r[1].name), "nn.Module: Linear_0");
	assert_int_equal(r[1].parent, 0);
	assert_int_equal(r[1].depth, 1);
	assert_int_equal(r[1].calls, 2);
	assert_int_equal(r[1].gpu_ns, 110000); /* 50 + 55 + the External-id-linked 5 */
	assert_int_equal(r[1].self_gpu_ns, 110000);
	assert_string_equal(tg_trace_str(t, r[2].name), "nn.Module: Attention_0");
	assert_int_equal(r[2].calls, 1);
	assert_int_equal(r[2].gpu_ns, 100000); /* [1160,1240) u [1200,1260) */
	assert_int_equal(r[2].gpu_events, 2);
	tg_modules_free(m);
	tg_tree_free(tree);
	tg_trace_free(t);
}

static void test_no_modules(void **state)
{
	(void)state;
	tg_trace *t = tg_test_read_str(
		"{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":1,\"dur\":2}]}");
	tg_tree *tree;
	tg_modules *m;
	assert_int_equal(tg_tree_build(&tree, t), 0);
	assert_int_equal(tg_modules_build(&m, tree), 0);
	size_t n;
	tg_modules_rows(m, &n);
	assert_int_equal(n, 0);
	assert_int_equal(tg_modules_gpu_busy_ns(m), 2000);
	tg_modules_free(m);
	tg_tree_free(tree);
	tg_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample_modules),
		cmocka_unit_test(test_no_modules),
	};
	return cmocka_run_group_tests_name("modules", tests, NULL, NULL);
}
