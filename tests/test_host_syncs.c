/* test_host_syncs.c - blocking runtime calls, where they come from (cpu_op,
 * python source line), grouping and steps; counts on shared traces. */
#include "testutil.h"

#include "../core/analysis/host_syncs.h"
#include "../core/trace/kernel_class.h"

#include <math.h>

/* A string cell; "" when empty. */
static const char *str(const tg_table *t, size_t row, const char *col)
{
	const tg_cell *c = tg_test_cell(t, row, col);
	return c->type == TG_CELL_STR ? c->v.s : "";
}

static void test_is_sync(void **state)
{
	(void)state;
	const int R = TG_KIND_RUNTIME, D = TG_KIND_DRIVER;
	assert_true(tg_host_syncs_is_sync("cudaStreamSynchronize", R));
	assert_true(tg_host_syncs_is_sync("cudaDeviceSynchronize", R));
	assert_true(tg_host_syncs_is_sync("cudaEventSynchronize", R));
	assert_true(tg_host_syncs_is_sync("hipStreamSynchronize", R));
	assert_true(tg_host_syncs_is_sync("hipDeviceSynchronize", R));
	assert_true(tg_host_syncs_is_sync("hipEventSynchronize", R));
	assert_true(tg_host_syncs_is_sync("cuCtxSynchronize", D));
	assert_true(tg_host_syncs_is_sync("cudaMemcpy", R));
	assert_true(tg_host_syncs_is_sync("cudaMemcpy2D", R));
	assert_true(tg_host_syncs_is_sync("cuMemcpyDtoH_v2", D));
	assert_true(tg_host_syncs_is_sync("hipMemcpy", R));
	assert_true(tg_host_syncs_is_sync("hipMemcpyWithStream", R));
	assert_true(tg_host_syncs_is_sync("Stream Sync", TG_KIND_SYNC));
	assert_true(tg_host_syncs_is_sync("Event Sync", TG_KIND_SYNC));
	assert_true(tg_host_syncs_is_sync("Context Sync", TG_KIND_SYNC));
	assert_false(tg_host_syncs_is_sync("Stream Wait Event", TG_KIND_SYNC));
	assert_false(tg_host_syncs_is_sync("cudaMemcpyAsync", R));
	assert_false(tg_host_syncs_is_sync("hipMemcpyAsync", R));
	assert_false(tg_host_syncs_is_sync("cuMemcpyDtoHAsync_v2", D));
	assert_false(tg_host_syncs_is_sync("cudaStreamWaitEvent", R));
	assert_false(tg_host_syncs_is_sync("cudaEventQuery", R));
	assert_false(tg_host_syncs_is_sync("cudaLaunchKernel", R));
	/* only runtime and driver calls */
	assert_false(tg_host_syncs_is_sync("cudaDeviceSynchronize", TG_KIND_CPU_OP));
	assert_false(tg_host_syncs_is_sync("cudaMemcpy", TG_KIND_KERNEL));
	assert_false(tg_host_syncs_is_sync(NULL, R));
}

/* Times in us, thread 1/1; steps [0,100) [100,200).
 *   train.py(20): step [0,100)
 *     <built-in method item> [5,30) > aten::item [6,29) > aten::_local_scalar_dense [7,28)
 *       cudaMemcpyAsync [8,10) -> DtoH copy; cudaStreamSynchronize [10,27) (17)
 *         with its "Stream Sync" (linked by correlation: counted once)
 *     <built-in method item> [40,60) > aten::item > aten::_local_scalar_dense
 *       cudaStreamSynchronize [45,57) (12)
 *     torch/cuda/__init__.py(975): synchronize [70,90)
 *       <built-in function _cuda_synchronize> [71,89) > cudaDeviceSynchronize [72,88) (16)
 *   cudaEventQuery [110,111) (not a sync)
 *   cudaMemcpy [120,125) (5)
 *   aten::copy_ [149,155) > hipMemcpyWithStream [150,154) (4), hipMemcpyAsync [154,155) (no)
 *   device: "Event Sync" [130,133) without a call (3); "Stream Wait Event" (no) */
static const char *const TRACE =
	"{\"traceEvents\": ["
	"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
	"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":100},"
	"{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"train.py(20): step\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100,\"args\":{\"Python id\":1,\"Python parent id\":null}},"
	"{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"<built-in method item of Tensor object at 0x7f00>\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":25,\"args\":{\"Python id\":2,\"Python parent id\":1}},"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::item\",\"pid\":1,\"tid\":1,\"ts\":6,\"dur\":23},"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::_local_scalar_dense\",\"pid\":1,\"tid\":1,\"ts\":7,\"dur\":21},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\",\"pid\":1,\"tid\":1,\"ts\":8,\"dur\":2,\"args\":{\"correlation\":1}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaStreamSynchronize\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":17,\"args\":{\"correlation\":2}},"
	"{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy DtoH (Device -> Pageable)\",\"pid\":0,\"tid\":7,\"ts\":12,\"dur\":1,\"args\":{\"correlation\":1,\"stream\":7,\"bytes\":4}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Stream Sync\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":17,\"args\":{\"correlation\":2,\"stream\":7}},"
	"{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"<built-in method item of Tensor object at 0x7f00>\",\"pid\":1,\"tid\":1,\"ts\":40,\"dur\":20,\"args\":{\"Python id\":3,\"Python parent id\":1}},"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::item\",\"pid\":1,\"tid\":1,\"ts\":41,\"dur\":18},"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::_local_scalar_dense\",\"pid\":1,\"tid\":1,\"ts\":42,\"dur\":16},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaStreamSynchronize\",\"pid\":1,\"tid\":1,\"ts\":45,\"dur\":12,\"args\":{\"correlation\":3}},"
	"{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"torch/cuda/__init__.py(975): synchronize\",\"pid\":1,\"tid\":1,\"ts\":70,\"dur\":20,\"args\":{\"Python id\":4,\"Python parent id\":1}},"
	"{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"<built-in function _cuda_synchronize>\",\"pid\":1,\"tid\":1,\"ts\":71,\"dur\":18,\"args\":{\"Python id\":5,\"Python parent id\":4}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaDeviceSynchronize\",\"pid\":1,\"tid\":1,\"ts\":72,\"dur\":16,\"args\":{\"correlation\":4}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaEventQuery\",\"pid\":1,\"tid\":1,\"ts\":110,\"dur\":1,\"args\":{\"correlation\":5}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpy\",\"pid\":1,\"tid\":1,\"ts\":120,\"dur\":5,\"args\":{\"correlation\":6}},"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::copy_\",\"pid\":1,\"tid\":1,\"ts\":149,\"dur\":6},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"hipMemcpyWithStream\",\"pid\":1,\"tid\":1,\"ts\":150,\"dur\":4,\"args\":{\"correlation\":7}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"hipMemcpyAsync\",\"pid\":1,\"tid\":1,\"ts\":154,\"dur\":1,\"args\":{\"correlation\":8}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Event Sync\",\"pid\":0,\"tid\":7,\"ts\":130,\"dur\":3,\"args\":{\"stream\":-1}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Stream Wait Event\",\"pid\":0,\"tid\":7,\"ts\":140,\"dur\":1,\"args\":{\"stream\":7}}"
	"]}";

static void test_groups(void **state)
{
	(void)state;
	tg_trace *t = tg_test_read_str(TRACE);
	tg_tree *tree;
	assert_int_equal(tg_tree_build(&tree, t), 0);
	tg_table **tabs;
	size_t n;
	assert_int_equal(tg_host_syncs_tables(&tabs, &n, tree, TG_STEP_ALL), 0);
	assert_int_equal(n, 1);
	const tg_table *h = tabs[0];
	assert_string_equal(tg_table_name(h), "host_syncs");
	assert_int_equal(tg_table_nrows(h), 5);
	/* the two .item() calls of one line: one row; the source line, not the
	 * built-in method frame */
	assert_string_equal(str(h, 0, "sync"), "cudaStreamSynchronize");
	assert_string_equal(str(h, 0, "op"), "aten::_local_scalar_dense");
	assert_string_equal(str(h, 0, "python_frame"), "train.py(20): step");
	assert_int_equal(tg_test_num(h, 0, "count"), 2);
	NEAR(tg_test_num(h, 0, "total_time(us)"), 29, 1e-9);
	NEAR(tg_test_num(h, 0, "max_time(us)"), 17, 1e-9);
	NEAR(tg_test_num(h, 0, "mean_time(us)"), 14.5, 1e-9);
	/* torch.cuda.synchronize(): no cpu_op */
	assert_string_equal(str(h, 1, "sync"), "cudaDeviceSynchronize");
	assert_int_equal(tg_test_cell(h, 1, "op")->type, TG_CELL_EMPTY);
	assert_string_equal(str(h, 1, "python_frame"), "torch/cuda/__init__.py(975): synchronize");
	NEAR(tg_test_num(h, 1, "total_time(us)"), 16, 1e-9);
	assert_string_equal(str(h, 2, "sync"), "cudaMemcpy");
	assert_int_equal(tg_test_cell(h, 2, "python_frame")->type, TG_CELL_EMPTY);
	NEAR(tg_test_num(h, 2, "total_time(us)"), 5, 1e-9);
	assert_string_equal(str(h, 3, "sync"), "hipMemcpyWithStream");
	assert_string_equal(str(h, 3, "op"), "aten::copy_");
	NEAR(tg_test_num(h, 3, "total_time(us)"), 4, 1e-9);
	/* a cuda_sync event without its runtime call */
	assert_string_equal(str(h, 4, "sync"), "Event Sync");
	NEAR(tg_test_num(h, 4, "total_time(us)"), 3, 1e-9);
	tg_tables_free(tabs, n);

	tg_host_sync_summary s;
	assert_int_equal(tg_host_syncs_summary(&s, tree, TG_STEP_ALL), 0);
	assert_int_equal(s.count, 6);
	assert_int_equal(s.total_ns, 57000);
	assert_int_equal(s.max_ns, 17000);
	/* steps: the first holds the python-side syncs; the orphan Event Sync
	 * has no step */
	assert_int_equal(tg_host_syncs_summary(&s, tree, 0), 0);
	assert_int_equal(s.count, 3);
	assert_int_equal(s.total_ns, 45000);
	assert_int_equal(tg_host_syncs_summary(&s, tree, 1), 0);
	assert_int_equal(s.count, 2);
	assert_int_equal(s.total_ns, 9000);
	assert_int_equal(tg_host_syncs_summary(&s, tree, 2), TG_EINVAL);
	tabs = (tg_table **)1;
	assert_int_equal(tg_host_syncs_tables(&tabs, &n, tree, 2), TG_EINVAL);
	assert_null(tabs);
	assert_int_equal(n, 0);
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* Expected numbers from a Python count of the same calls in the JSON. */
static void test_real_traces(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	tg_trace *t;
	tg_host_sync_summary s;
	/* 2021 schema: 12 cudaStreamSynchronize (551 us, max 86) under
	 * aten::copy_ (.cpu()), one cudaDeviceSynchronize (16194 us) */
	tg_tree *tree = tg_test_load_shared(&t, "kineto/kineto_tbplugin_resnet50_V100_num_workers_0_worker0.1623143089861.pt.trace.json.gz");
	tg_table **tabs;
	size_t n;
	assert_int_equal(tg_host_syncs_tables(&tabs, &n, tree, TG_STEP_ALL), 0);
	const tg_table *h = tabs[0];
	assert_int_equal(tg_table_nrows(h), 2);
	assert_string_equal(str(h, 0, "sync"), "cudaDeviceSynchronize");
	NEAR(tg_test_num(h, 0, "total_time(us)"), 16194, 1e-9);
	assert_string_equal(str(h, 1, "sync"), "cudaStreamSynchronize");
	assert_string_equal(str(h, 1, "op"), "aten::copy_");
	assert_int_equal(tg_test_num(h, 1, "count"), 12);
	NEAR(tg_test_num(h, 1, "total_time(us)"), 551, 1e-9);
	NEAR(tg_test_num(h, 1, "max_time(us)"), 86, 1e-9);
	tg_tables_free(tabs, n);
	tg_tree_free(tree);
	tg_trace_free(t);

	/* H100 Qwen: the one .item() sync comes from transformers' mask code */
	tree = tg_test_load_shared(&t, "tracelens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz");
	assert_int_equal(tg_host_syncs_tables(&tabs, &n, tree, TG_STEP_ALL), 0);
	h = tabs[0];
	assert_int_equal(tg_table_nrows(h), 2);
	assert_string_equal(str(h, 0, "sync"), "cudaDeviceSynchronize");
	assert_int_equal(tg_test_num(h, 0, "count"), 2);
	NEAR(tg_test_num(h, 0, "total_time(us)"), 16269.809, 1e-9);
	NEAR(tg_test_num(h, 0, "max_time(us)"), 14102.53, 1e-9);
	assert_string_equal(str(h, 1, "sync"), "cudaStreamSynchronize");
	assert_string_equal(str(h, 1, "op"), "aten::_local_scalar_dense");
	assert_string_equal(str(h, 1, "python_frame"),
	                    "transformers/modeling_attn_mask_utils.py(243): _ignore_causal_mask_sdpa");
	NEAR(tg_test_num(h, 1, "total_time(us)"), 7.69, 1e-9);
	tg_tables_free(tabs, n);
	tg_tree_free(tree);
	tg_trace_free(t);

	/* alexnet: 16 cudaStreamSynchronize (559 us) + 5 cudaDeviceSynchronize
	 * (938 us); their 16 Stream Sync and 5 Context Sync cuda_sync events
	 * hang under them and are not counted again */
	tree = tg_test_load_shared(&t, "hta/hta_critical_path_alexnet_A100_cuda_sync_rank0.json.gz");
	assert_int_equal(tg_host_syncs_summary(&s, tree, TG_STEP_ALL), 0);
	assert_int_equal(s.count, 21);
	assert_int_equal(s.total_ns, (559 + 938) * INT64_C(1000));
	assert_int_equal(s.max_ns, 884000);
	tg_tree_free(tree);
	tg_trace_free(t);

	/* nccl_data: 24 cudaEventSynchronize (78.736 us) + 1
	 * cudaDeviceSynchronize (31.052 us) */
	tree = tg_test_load_shared(&t, "hta/hta_nccl_resnet_A100_nccl2.17_rank0_of2.json.gz");
	assert_int_equal(tg_host_syncs_summary(&s, tree, TG_STEP_ALL), 0);
	assert_int_equal(s.count, 25);
	assert_int_equal(s.total_ns, 78736 + 31052);
	assert_int_equal(s.max_ns, 31052);
	tg_tree_free(tree);
	tg_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_is_sync),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_real_traces),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
