/* test_launchers.c - kernel launchers (core/analysis/launchers.c): each
 * device event to the leaf cpu_op above its launch, the launchers numbered
 * by their first device event in the file, the direct time as the union of
 * a launcher's own kernels and the subtree time as the union of every
 * kernel under it, with kernels out of start order in the file and
 * overlapping on two streams; the ops tables grouped by name and category. */
#include "testutil.h"
#include "../core/analysis/launchers.h"

/* outer_op launches k3 itself and holds aten::mm, which launches k1 and k2
 * (overlapping, on streams 7 and 8). The file gives k3, then k2, then k1:
 * outer_op's subtree kernels come in reverse start order. Times in us. */
static const char *const trace_json =
	"{\"traceEvents\":["
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k3\",\"pid\":0,\"tid\":7,\"ts\":1200,\"dur\":50,"
	"\"args\":{\"device\":0,\"stream\":7,\"correlation\":3}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\",\"pid\":0,\"tid\":8,\"ts\":1050,\"dur\":100,"
	"\"args\":{\"device\":0,\"stream\":8,\"correlation\":2}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":1000,\"dur\":100,"
	"\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}},"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"outer_op\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1000},"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":300},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":110,\"dur\":10,"
	"\"args\":{\"correlation\":1}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":10,"
	"\"args\":{\"correlation\":2}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":500,\"dur\":10,"
	"\"args\":{\"correlation\":3}}"
	"]}";

static void test_direct_and_subtree_times(void **state)
{
	(void)state;
	tg_trace *t = tg_test_read_str(trace_json);
	tg_tree *tree;
	assert_int_equal(tg_tree_build(&tree, t), 0);
	tg_launchers_opts o = {.tb = {.tracelens_float = 0, .base_ns = 0}, .step = -1};
	tg_launchers *l;
	assert_int_equal(tg_launchers_build(&l, tree, &o), 0);
	size_t n, nk;
	const tg_launcher *list = tg_launchers_list(l, &n);
	assert_int_equal(n, 2);
	/* numbered by their first device event in the file: k3, then k2 */
	assert_string_equal(tg_trace_str(t, tg_trace_events(t, &nk)[list[0].event].name), "outer_op");
	assert_string_equal(tg_trace_str(t, tg_trace_events(t, &nk)[list[1].event].name), "aten::mm");
	/* outer_op: k3 directly (50 us); under it k1, k2, k3: [1000, 1150] and [1200, 1250] */
	assert_int_equal(list[0].nkernels, 1);
	assert_true(list[0].direct_us == 50.0);
	assert_true(list[0].subtree_us == 200.0);
	assert_true(list[0].kernel_sum_us == 50.0);
	/* aten::mm: k1 and k2, overlapping: [1000, 1150] */
	assert_int_equal(list[1].nkernels, 2);
	assert_true(list[1].direct_us == 150.0);
	assert_true(list[1].subtree_us == 150.0);
	assert_true(list[1].kernel_sum_us == 200.0);
	/* its kernels in start order, whatever the file's */
	const uint32_t *k = tg_launchers_kernels(l, 1, &nk);
	assert_int_equal(nk, 2);
	assert_int_equal(k[0], tg_test_find(t, "k1", TG_KIND_KERNEL));
	assert_int_equal(k[1], tg_test_find(t, "k2", TG_KIND_KERNEL));
	const uint32_t *own = tg_launchers_owners(l);
	assert_int_equal(own[tg_test_find(t, "k3", TG_KIND_KERNEL)], 0);
	assert_int_equal(own[tg_test_find(t, "k2", TG_KIND_KERNEL)], 1);
	assert_int_equal(own[tg_test_find(t, "outer_op", TG_KIND_CPU_OP)], TG_NONE);
	/* ops_summary: one row per op name, by direct time */
	tg_table *s;
	assert_int_equal(tg_launchers_ops_summary(&s, l), 0);
	assert_int_equal(tg_table_nrows(s), 2);
	assert_string_equal(tg_test_cell(s, 0, "name")->v.s, "aten::mm");
	assert_true(tg_test_num(s, 0, "total_direct_kernel_time_sum") == 150.0);
	assert_true(tg_test_num(s, 0, "total_subtree_kernel_time_sum") == 150.0);
	assert_true(tg_test_num(s, 1, "total_subtree_kernel_time_sum") == 200.0);
	tg_table_free(s);
	tg_launchers_free(l);
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* A trace whose device events no op launched (GPU-only, or its launches
 * outside the profiled window) has no launchers: every table of them is
 * empty, and none sorts or reads an array it never allocated (qsort of a
 * NULL array, even of 0 elements, is undefined: UBSan stops there). */
static void test_no_launchers(void **state)
{
	(void)state;
	tg_trace *t = tg_test_read_str(
		"{\"traceEvents\":["
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":5,"
		"\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}}"
		"]}");
	tg_tree *tree;
	assert_int_equal(tg_tree_build(&tree, t), 0);
	tg_launchers_opts o = {.tb = {.tracelens_float = 0, .base_ns = 0}, .step = -1};
	tg_launchers *l;
	assert_int_equal(tg_launchers_build(&l, tree, &o), 0);
	size_t n;
	tg_launchers_list(l, &n);
	assert_int_equal(n, 0);
	tg_table *tab;
	assert_int_equal(tg_launchers_unique_args(&tab, l), 0);
	assert_int_equal(tg_table_nrows(tab), 0);
	tg_table_free(tab);
	assert_int_equal(tg_launchers_ops_summary(&tab, l), 0);
	assert_int_equal(tg_table_nrows(tab), 0);
	tg_table_free(tab);
	assert_int_equal(tg_launchers_ops_by_category(&tab, l), 0);
	assert_int_equal(tg_table_nrows(tab), 0);
	tg_table_free(tab);
	tg_launchers_free(l);
	tg_tree_free(tree);
	tg_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_direct_and_subtree_times),
		cmocka_unit_test(test_no_launchers),
	};
	return cmocka_run_group_tests_name("launchers", tests, NULL, NULL);
}
