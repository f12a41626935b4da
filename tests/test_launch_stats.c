/* test_launch_stats.c - per-launch statistics, queue length, memory
 * bandwidth and frequent kernel sequences: a hand-made trace worked out in
 * the comments, and the shared traces against HTA's values
 * (hta_golden_values.json). */
#include "testutil.h"

#include "../core/trace/kernel_class.h"
#include "../core/analysis/launch_stats.h"

#include <math.h>

static const char *str(const tg_table *t, size_t row, const char *col)
{
	const tg_cell *c = tg_test_cell(t, row, col);
	return c->type == TG_CELL_STR ? c->v.s : "";
}

/* The row whose integer column col is v. */
static size_t row_int(const tg_table *t, const char *col, int64_t v)
{
	for (size_t r = 0; r < tg_table_nrows(t); r++)
		if (tg_test_num(t, r, col) == (double)v)
			return r;
	fail_msg("%s: no row with %s = %lld", tg_table_name(t), col, (long long)v);
	return 0;
}

/* Times in us, host thread 1/1, device 0.
 *   aten::linear [0,30):   L1 cudaLaunchKernel [1,5)   -> gemm  s7 [10,15)
 *                          L2 cudaLaunchKernel [6,10)  -> bias  s7 [16,18)
 *   aten::linear [40,70):  L3 [41,45) -> gemm s7 [50,55);  L4 [46,50) -> bias s7 [56,58)
 *   aten::linear [80,180): L5 [81,141) -> gemm s7 [300,305)
 *   L6 cudaGraphLaunch [200,210)      -> graph_a s8 [215,218), graph_b s8 [218,222)
 *   L7 cuLaunchKernel (driver) [230,233) -> triton_poi s7 [234,235)
 *   L8 cudaMemcpyAsync [240,242) -> Memcpy HtoD s7 [250,254) 4000 bytes
 *   L9 cudaMemsetAsync [242,244) -> Memset     s7 [255,256) 3000 bytes
 *   L10 cudaMemcpyAsync [243,244) -> Memcpy DtoH s7 [260,262) 8000 bytes
 *   L11 cudaMemcpyAsync [244,245) -> Memcpy HtoD s7 [262,264) 6000 bytes
 *   orphan s7 [400,401), no launch
 * Rows (cpu, gpu, delay = max(0, start - launch end)):
 *   gemm 4 5 5 | bias 4 2 6 | gemm 4 5 5 | bias 4 2 6 | gemm 60 5 159 |
 *   graph_a 10 3 5 | graph_b 10 4 8 | triton 3 1 1 | HtoD 2 4 8 |
 *   memset 2 1 11 | DtoH 1 2 16 | HtoD 1 2 17 */
static const char *const TRACE =
	"{\"traceEvents\": ["
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::linear\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":30},"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::linear\",\"pid\":1,\"tid\":1,\"ts\":40,\"dur\":30},"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::linear\",\"pid\":1,\"tid\":1,\"ts\":80,\"dur\":100},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":4,\"args\":{\"correlation\":1}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":6,\"dur\":4,\"args\":{\"correlation\":2}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":41,\"dur\":4,\"args\":{\"correlation\":3}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":46,\"dur\":4,\"args\":{\"correlation\":4}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":81,\"dur\":60,\"args\":{\"correlation\":5}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaGraphLaunch\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":10,\"args\":{\"correlation\":6}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_driver\",\"name\":\"cuLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":230,\"dur\":3,\"args\":{\"correlation\":7}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\",\"pid\":1,\"tid\":1,\"ts\":240,\"dur\":2,\"args\":{\"correlation\":8}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemsetAsync\",\"pid\":1,\"tid\":1,\"ts\":242,\"dur\":2,\"args\":{\"correlation\":9}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\",\"pid\":1,\"tid\":1,\"ts\":243,\"dur\":1,\"args\":{\"correlation\":10}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\",\"pid\":1,\"tid\":1,\"ts\":244,\"dur\":1,\"args\":{\"correlation\":11}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":5,\"args\":{\"correlation\":1,\"stream\":7}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"bias\",\"pid\":0,\"tid\":7,\"ts\":16,\"dur\":2,\"args\":{\"correlation\":2,\"stream\":7}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":50,\"dur\":5,\"args\":{\"correlation\":3,\"stream\":7}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"bias\",\"pid\":0,\"tid\":7,\"ts\":56,\"dur\":2,\"args\":{\"correlation\":4,\"stream\":7}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":300,\"dur\":5,\"args\":{\"correlation\":5,\"stream\":7}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"graph_a\",\"pid\":0,\"tid\":8,\"ts\":215,\"dur\":3,\"args\":{\"correlation\":6,\"stream\":8}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"graph_b\",\"pid\":0,\"tid\":8,\"ts\":218,\"dur\":4,\"args\":{\"correlation\":6,\"stream\":8}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"triton_poi\",\"pid\":0,\"tid\":7,\"ts\":234,\"dur\":1,\"args\":{\"correlation\":7,\"stream\":7}},"
	"{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pageable -> Device)\",\"pid\":0,\"tid\":7,\"ts\":250,\"dur\":4,\"args\":{\"correlation\":8,\"stream\":7,\"bytes\":4000}},"
	"{\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":\"Memset (Device)\",\"pid\":0,\"tid\":7,\"ts\":255,\"dur\":1,\"args\":{\"correlation\":9,\"stream\":7,\"bytes\":3000}},"
	"{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy DtoH (Device -> Pageable)\",\"pid\":0,\"tid\":7,\"ts\":260,\"dur\":2,\"args\":{\"correlation\":10,\"stream\":7,\"bytes\":8000}},"
	"{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pinned -> Device)\",\"pid\":0,\"tid\":7,\"ts\":262,\"dur\":2,\"args\":{\"correlation\":11,\"stream\":7,\"bytes\":6000}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"orphan\",\"pid\":0,\"tid\":7,\"ts\":400,\"dur\":1,\"args\":{\"stream\":7}}"
	"]}";

struct fx {
	tg_trace *t;
	tg_tree *tree;
	tg_table **tabs;
	size_t n;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	f->t = tg_test_read_str(TRACE);
	if (tg_tree_build(&f->tree, f->t) || tg_launch_stats_tables(&f->tabs, &f->n, f->tree, TG_STEP_ALL))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	tg_tables_free(f->tabs, f->n);
	tg_tree_free(f->tree);
	tg_trace_free(f->t);
	free(f);
	return 0;
}

static void test_summary(void **state)
{
	struct fx *f = *state;
	tg_launch_summary s;
	assert_int_equal(tg_launch_stats_summary(&s, f->tree, TG_STEP_ALL), 0);
	assert_int_equal(s.launches, 12);
	/* cpu <= 50 and gpu < cpu: bias, bias, graph_a, graph_b, triton, memset */
	assert_int_equal(s.short_kernels, 6);
	assert_int_equal(s.runtime_outliers, 1); /* the 60 us launch */
	assert_int_equal(s.delay_outliers, 1);   /* its 159 us delay */
	assert_int_equal(s.sum_cpu_ns, 105000);
	assert_int_equal(s.sum_gpu_ns, 36000);
	assert_int_equal(s.sum_delay_ns, 247000);
	/* delays sorted: 1 5 5 5 6 6 | 8 8 11 16 17 159 */
	assert_true(s.median_delay_ns == 7000.0);
	assert_int_equal(s.max_delay_ns, 159000);

	const tg_table *t = tg_test_table(f->tabs, f->n, "kernel_launch_summary");
	assert_int_equal(tg_test_num(t, 0, "launches"), 12);
	assert_int_equal(tg_test_num(t, 0, "short_kernels"), 6);
	assert_int_equal(tg_test_num(t, 0, "runtime_outliers"), 1);
	assert_int_equal(tg_test_num(t, 0, "launch_delay_outliers"), 1);
	NEAR(tg_test_num(t, 0, "sum_cpu_duration(us)"), 105, 1e-9);
	NEAR(tg_test_num(t, 0, "sum_gpu_duration(us)"), 36, 1e-9);
	NEAR(tg_test_num(t, 0, "sum_launch_delay(us)"), 247, 1e-9);
	NEAR(tg_test_num(t, 0, "mean_launch_delay(us)"), 247 / 12.0, 1e-9);
	NEAR(tg_test_num(t, 0, "median_launch_delay(us)"), 7, 1e-9);
	NEAR(tg_test_num(t, 0, "max_launch_delay(us)"), 159, 1e-9);
}

static void test_rows(void **state)
{
	struct fx *f = *state;
	const tg_table *t = tg_test_table(f->tabs, f->n, "kernel_launches");
	assert_int_equal(tg_table_nrows(t), 12);
	/* by launch start */
	assert_string_equal(str(t, 0, "launch"), "cudaLaunchKernel");
	assert_string_equal(str(t, 0, "kernel"), "gemm");
	assert_int_equal(tg_test_num(t, 0, "correlation"), 1);
	assert_int_equal(tg_test_num(t, 0, "device"), 0);
	assert_int_equal(tg_test_num(t, 0, "stream"), 7);
	assert_true(isnan(tg_test_num(t, 0, "step")));
	NEAR(tg_test_num(t, 0, "cpu_duration(us)"), 4, 1e-9);
	NEAR(tg_test_num(t, 0, "gpu_duration(us)"), 5, 1e-9);
	NEAR(tg_test_num(t, 0, "launch_delay(us)"), 5, 1e-9);
	size_t r = row_int(t, "correlation", 5);
	NEAR(tg_test_num(t, r, "cpu_duration(us)"), 60, 1e-9);
	NEAR(tg_test_num(t, r, "launch_delay(us)"), 159, 1e-9);
	/* a graph launch: one row per kernel, same launch */
	r = row_int(t, "correlation", 6);
	assert_string_equal(str(t, r, "launch"), "cudaGraphLaunch");
	assert_string_equal(str(t, r, "kernel"), "graph_a");
	assert_string_equal(str(t, r + 1, "kernel"), "graph_b");
	assert_int_equal(tg_test_num(t, r + 1, "stream"), 8);
	NEAR(tg_test_num(t, r + 1, "cpu_duration(us)"), 10, 1e-9);
	NEAR(tg_test_num(t, r + 1, "launch_delay(us)"), 8, 1e-9);
	/* driver launches count (HTA lists only cudaLaunchKernel(ExC) and the
	 * async memcpy/memset) */
	r = row_int(t, "correlation", 7);
	assert_string_equal(str(t, r, "launch"), "cuLaunchKernel");
	assert_string_equal(str(t, r, "kernel"), "triton_poi");
	/* the orphan has no row */
	for (size_t i = 0; i < tg_table_nrows(t); i++)
		assert_string_not_equal(str(t, i, "kernel"), "orphan");
}

static void test_queue(void **state)
{
	struct fx *f = *state;
	const tg_table *t = tg_test_table(f->tabs, f->n, "queue_length_summary");
	assert_int_equal(tg_table_nrows(t), 2);
	/* stream 7, +1 at launches, -1 at kernel starts:
	 * t  1 6 10 16 41 46 50 56 81 230 234 240 242 243 244 250 255 260 262 300
	 * q  1 2  1  0  1  2  1  0  1   2   1   2   3   4   5   4   3   2   1   0
	 * sum 36 over 20 points; area 319 over 299 us */
	size_t r = row_int(t, "stream", 7);
	assert_int_equal(tg_test_num(t, r, "device"), 0);
	assert_int_equal(tg_test_num(t, r, "queue_length_count"), 20);
	NEAR(tg_test_num(t, r, "queue_length_mean"), 1.8, 1e-12);
	NEAR(tg_test_num(t, r, "queue_length_std"), 1.399247918291146, 1e-12);
	assert_int_equal(tg_test_num(t, r, "queue_length_min"), 0);
	assert_int_equal(tg_test_num(t, r, "queue_length_max"), 5);
	NEAR(tg_test_num(t, r, "time_weighted_mean"), 319.0 / 299.0, 1e-12);
	assert_int_equal(tg_test_num(t, r, "time_at_max_queue(us)"), 0);
	/* stream 8: both graph kernels queued at 200: 1 2 1 0 at 200 200 215 218;
	 * area 0*1 + 15*2 + 3*1 = 33 over 18 */
	r = row_int(t, "stream", 8);
	assert_int_equal(tg_test_num(t, r, "queue_length_count"), 4);
	NEAR(tg_test_num(t, r, "queue_length_mean"), 1, 1e-12);
	NEAR(tg_test_num(t, r, "queue_length_std"), 0.816496580927726, 1e-12);
	assert_int_equal(tg_test_num(t, r, "queue_length_max"), 2);
	NEAR(tg_test_num(t, r, "time_weighted_mean"), 33.0 / 18.0, 1e-12);
}

/* A stream whose launches started in another order than their kernels
 * (kernel k2, launched at 10, ran before k1, launched at 0): its launch
 * starts, read in the kernels' order, are out of order, which the queue's
 * first walk finds; the lists are then sorted, as the points always were:
 * +1 at 0 and 10, -1 at 30 and 50: q 1 2 1 0, mean 1, std sqrt(2/3),
 * area 1*10 + 2*20 + 1*20 = 70 over 50 us. */
static void test_queue_out_of_order(void **state)
{
	(void)state;
	tg_trace *t = tg_test_read_str(
		"{\"traceEvents\":["
		"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":0,"
		"\"dur\":5,\"args\":{\"correlation\":1}},"
		"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":2,\"ts\":10,"
		"\"dur\":5,\"args\":{\"correlation\":2}},"
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\",\"pid\":0,\"tid\":7,\"ts\":30,\"dur\":10,"
		"\"args\":{\"device\":0,\"stream\":7,\"correlation\":2}},"
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":50,\"dur\":10,"
		"\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}}"
		"]}");
	tg_tree *tree;
	tg_table **tabs;
	size_t n;
	assert_int_equal(tg_tree_build(&tree, t), 0);
	assert_int_equal(tg_launch_stats_tables(&tabs, &n, tree, TG_STEP_ALL), 0);
	const tg_table *q = tg_test_table(tabs, n, "queue_length_summary");
	assert_int_equal(tg_table_nrows(q), 1);
	assert_int_equal(tg_test_num(q, 0, "queue_length_count"), 4);
	NEAR(tg_test_num(q, 0, "queue_length_mean"), 1, 1e-12);
	NEAR(tg_test_num(q, 0, "queue_length_std"), sqrt(2.0 / 3.0), 1e-12);
	assert_int_equal(tg_test_num(q, 0, "queue_length_min"), 0);
	assert_int_equal(tg_test_num(q, 0, "queue_length_max"), 2);
	NEAR(tg_test_num(q, 0, "time_weighted_mean"), 70.0 / 50.0, 1e-12);
	tg_tables_free(tabs, n);
	tg_tree_free(tree);
	tg_trace_free(t);
}

static void test_bandwidth(void **state)
{
	struct fx *f = *state;
	const tg_table *t = tg_test_table(f->tabs, f->n, "memory_bandwidth");
	assert_int_equal(tg_table_nrows(t), 3);
	/* by name: DtoH, HtoD, Memset */
	assert_string_equal(str(t, 0, "memory_kind"), "Memcpy DtoH");
	assert_int_equal(tg_test_num(t, 0, "count"), 1);
	assert_int_equal(tg_test_num(t, 0, "bytes"), 8000);
	NEAR(tg_test_num(t, 0, "time(us)"), 2, 1e-9);
	NEAR(tg_test_num(t, 0, "achieved_gbps"), 4, 1e-12); /* 8000 B / 2000 ns */
	assert_string_equal(str(t, 1, "memory_kind"), "Memcpy HtoD");
	assert_int_equal(tg_test_num(t, 1, "count"), 2);
	assert_int_equal(tg_test_num(t, 1, "bytes"), 10000);
	NEAR(tg_test_num(t, 1, "time(us)"), 6, 1e-9);
	NEAR(tg_test_num(t, 1, "achieved_gbps"), 10000.0 / 6000.0, 1e-12);
	NEAR(tg_test_num(t, 1, "max_gbps"), 3, 1e-12); /* 6000 B in 2 us */
	assert_string_equal(str(t, 2, "memory_kind"), "Memset");
	NEAR(tg_test_num(t, 2, "achieved_gbps"), 3, 1e-12);
}

static void test_sequences(void **state)
{
	struct fx *f = *state;
	const tg_table *t = tg_test_table(f->tabs, f->n, "frequent_kernel_sequences");
	assert_int_equal(tg_table_nrows(t), 2);
	/* aten::linear: [gemm, bias] twice, [gemm] once */
	assert_string_equal(str(t, 0, "op"), "aten::linear");
	assert_int_equal(tg_test_num(t, 0, "rank"), 1);
	assert_int_equal(tg_test_num(t, 0, "count"), 2);
	assert_int_equal(tg_test_num(t, 0, "calls"), 3);
	assert_int_equal(tg_test_num(t, 0, "num_kernels"), 2);
	NEAR(tg_test_num(t, 0, "gpu_time(us)"), 14, 1e-9);
	NEAR(tg_test_num(t, 0, "gpu_time_mean(us)"), 7, 1e-9);
	NEAR(tg_test_num(t, 0, "cpu_time(us)"), 60, 1e-9);
	assert_string_equal(str(t, 0, "kernels"), "gemm | bias");
	assert_int_equal(tg_test_num(t, 1, "rank"), 2);
	assert_int_equal(tg_test_num(t, 1, "count"), 1);
	NEAR(tg_test_num(t, 1, "gpu_time(us)"), 5, 1e-9);
	NEAR(tg_test_num(t, 1, "cpu_time(us)"), 100, 1e-9);
	assert_string_equal(str(t, 1, "kernels"), "gemm");
}

static void test_bad_step(void **state)
{
	struct fx *f = *state;
	tg_table **tabs = (tg_table **)1;
	size_t n = 3;
	assert_int_equal(tg_launch_stats_tables(&tabs, &n, f->tree, 0), TG_EINVAL); /* no steps */
	assert_null(tabs);
	assert_int_equal(n, 0);
	tg_launch_summary s;
	assert_int_equal(tg_launch_stats_summary(&s, f->tree, -5), TG_EINVAL);
	/* without steps, HTA's window is the whole trace */
	assert_int_equal(tg_launch_stats_summary(&s, f->tree, TG_STEP_HTA), 0);
	assert_int_equal(s.launches, 12);
}

/* ---- shared traces: HTA's numbers ---- */

/* runs.*.cuda_launch_stats_rank0, HTA's microsecond rounding on:
 * reproduced exactly with TG_STEP_HTA_ROUNDED (same launches, same rounded
 * whole microseconds). These traces launch only through HTA's four calls. */
struct golden_launch {
	const char *trace;
	uint64_t rows, short_k, rt_out, delay_out;
	int64_t sum_cpu, sum_gpu, sum_delay; /* us */
};

static const struct golden_launch GOLDEN_LAUNCH[] = {
	{"hta/hta_nccl_resnet_A100_nccl2.17_rank0_of2.json.gz", 2516, 1347, 0, 180, 21289, 100462,
	 70623},
	{"hta/hta_trace_diff_control_A100_rank3_of8.json.gz", 7875, 3042, 25, 5111, 115050, 413947,
	 15865017},
	{"hta/hta_df_index_resolver_V100_nccl_rank1_of2.json.gz", 17832, 9686, 2, 6605, 156892, 753057,
	 10280212},
	{"hta/hta_critical_path_alexnet_A100_cuda_sync_rank0.json.gz", 98, 23, 11, 43, 3113616, 66203,
	 39283},
	{"hta/hta_gpu_user_annotation_QuadroGP100_rank0.json.gz", 140, 140, 0, 0, 1216, 291, 182},
	{"hta/hta_sampled_128rank_job_rank-0.json.gz", 602, 140, 0, 469, 5109, 302241, 9880122},
	{"kineto/kineto_tbplugin_resnet50_V100_num_workers_0_worker0.1623143089861.pt.trace.json.gz",
	 7580, 4788, 5, 6048, 83728, 503031, 81929231},
};

static void test_golden_launch(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	for (size_t i = 0; i < sizeof(GOLDEN_LAUNCH) / sizeof(GOLDEN_LAUNCH[0]); i++) {
		const struct golden_launch *g = &GOLDEN_LAUNCH[i];
		tg_trace *t;
		tg_tree *tree = tg_test_load_shared(&t, g->trace);
		tg_launch_summary s;
		assert_int_equal(tg_launch_stats_summary(&s, tree, TG_STEP_HTA_ROUNDED), 0);
		print_message("%s\n", g->trace);
		assert_int_equal(s.launches, g->rows);
		assert_int_equal(s.short_kernels, g->short_k);
		assert_int_equal(s.runtime_outliers, g->rt_out);
		assert_int_equal(s.delay_outliers, g->delay_out);
		assert_int_equal(s.sum_cpu_ns, g->sum_cpu * 1000);
		assert_int_equal(s.sum_gpu_ns, g->sum_gpu * 1000);
		assert_int_equal(s.sum_delay_ns, g->sum_delay * 1000);
		tg_tree_free(tree);
		tg_trace_free(t);
	}
}

/* Traces with CUDA-graph launches, which HTA leaves out: our launches hold
 * HTA's, picked out of the per-launch table by launch name (HTA's four:
 * cudaLaunchKernel, cudaLaunchKernelExC, cudaMemcpyAsync, cudaMemsetAsync). */
struct golden_subset {
	struct golden_launch g;
	uint64_t ours, graph; /* all our launches; the cudaGraphLaunch ones */
};

static const struct golden_subset GOLDEN_SUBSET[] = {
	{{"hta/hta_negative_queue_len_A100-80GB_triton_rank0_of16.json.gz", 5224, 1643, 110, 5083,
	  684500, 233886, 635597575},
	 5500, 276},
	{{"hta/hta_trace_diff_test_V100_rank1_of2.json.gz", 8310, 4551, 65, 8142, 297921, 533840,
	  316928263},
	 12515, 4205},
};

static void test_golden_launch_subset(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	for (size_t i = 0; i < sizeof(GOLDEN_SUBSET) / sizeof(GOLDEN_SUBSET[0]); i++) {
		const struct golden_subset *gs = &GOLDEN_SUBSET[i];
		tg_trace *t;
		tg_tree *tree = tg_test_load_shared(&t, gs->g.trace);
		tg_table **tabs;
		size_t n;
		assert_int_equal(tg_launch_stats_tables(&tabs, &n, tree, TG_STEP_HTA_ROUNDED), 0);
		print_message("%s\n", gs->g.trace);
		assert_int_equal(tg_test_num(tg_test_table(tabs, n, "kernel_launch_summary"), 0, "launches"), gs->ours);
		const tg_table *rows = tg_test_table(tabs, n, "kernel_launches");
		uint64_t cnt = 0, short_k = 0, rt_out = 0, delay_out = 0, graph = 0;
		double cpu = 0, gpu = 0, delay = 0;
		for (size_t r = 0; r < tg_table_nrows(rows); r++) {
			const char *l = str(rows, r, "launch");
			if (!strcmp(l, "cudaGraphLaunch"))
				graph++;
			if (strcmp(l, "cudaLaunchKernel") && strcmp(l, "cudaLaunchKernelExC") &&
			    strcmp(l, "cudaMemcpyAsync") && strcmp(l, "cudaMemsetAsync"))
				continue;
			double c = tg_test_num(rows, r, "cpu_duration(us)"), g = tg_test_num(rows, r, "gpu_duration(us)"),
			       d = tg_test_num(rows, r, "launch_delay(us)");
			cnt++;
			short_k += c <= 50 && g < c;
			rt_out += c > 50;
			delay_out += d > 100;
			cpu += c;
			gpu += g;
			delay += d;
		}
		assert_int_equal(graph, gs->graph);
		assert_int_equal(cnt, gs->g.rows);
		assert_int_equal(short_k, gs->g.short_k);
		assert_int_equal(rt_out, gs->g.rt_out);
		assert_int_equal(delay_out, gs->g.delay_out);
		/* whole microseconds: the double sums are exact */
		assert_true(cpu == (double)gs->g.sum_cpu);
		assert_true(gpu == (double)gs->g.sum_gpu);
		assert_true(delay == (double)gs->g.sum_delay);
		tg_tables_free(tabs, n);
		tg_tree_free(tree);
		tg_trace_free(t);
	}
}

/* runs.*.queue_length_summary_rank0. The change points (count) and the
 * maximum are exact. The mean and std are over the queue length after each
 * change, so they depend on the order of a launch and a kernel start that
 * share a (rounded) microsecond: HTA sorts with pandas' unstable quicksort,
 * we put launches first. The differences seen are 0 to 1.1 % (nccl_data
 * stream 7: 0.8229 vs 0.8137); 2 % is the tolerance. */
struct golden_queue {
	const char *trace;
	int64_t stream;
	int64_t count, max;
	double mean, std;
};

static const struct golden_queue GOLDEN_QUEUE[] = {
	{"hta/hta_nccl_resnet_A100_nccl2.17_rank0_of2.json.gz", 7, 5004, 10, 0.8137, 1.0573},
	{"hta/hta_nccl_resnet_A100_nccl2.17_rank0_of2.json.gz", 40, 28, 1, 0.5, 0.5092},
	{"hta/hta_trace_diff_control_A100_rank3_of8.json.gz", 7, 14940, 287, 35.4317, 52.2261},
	{"hta/hta_trace_diff_control_A100_rank3_of8.json.gz", 20, 470, 10, 2.5681, 2.6683},
	{"hta/hta_trace_diff_control_A100_rank3_of8.json.gz", 21, 100, 2, 0.76, 0.6685},
	{"hta/hta_trace_diff_control_A100_rank3_of8.json.gz", 22, 240, 22, 10.5917, 6.5033},
	{"hta/hta_df_index_resolver_V100_nccl_rank1_of2.json.gz", 7, 32432, 73, 8.0947, 13.7546},
	{"hta/hta_df_index_resolver_V100_nccl_rank1_of2.json.gz", 14, 3232, 20, 2.073, 3.3189},
	{"hta/hta_critical_path_alexnet_A100_cuda_sync_rank0.json.gz", 7, 182, 18, 3.3462, 4.6994},
	{"hta/hta_critical_path_alexnet_A100_cuda_sync_rank0.json.gz", 20, 14, 2, 0.6429, 0.6333},
	/* stream 7 of this trace also queues the cudaGraphLaunch launches HTA
	 * leaves out; the other streams agree */
	{"hta/hta_negative_queue_len_A100-80GB_triton_rank0_of16.json.gz", 25, 56, 4, 1.3571, 1.2421},
	{"hta/hta_negative_queue_len_A100-80GB_triton_rank0_of16.json.gz", 27, 592, 17, 3.5743, 3.9985},
	{"hta/hta_negative_queue_len_A100-80GB_triton_rank0_of16.json.gz", 84, 56, 3, 1.4643, 0.8937},
	{"hta/hta_negative_queue_len_A100-80GB_triton_rank0_of16.json.gz", 285, 32, 4, 2.75, 0.9837},
	/* AMD: HTA queues hip launches (it has no launch statistics for them) */
	{"hta/hta_amd_mi250_rocm6.2_minitoy_train.json.gz", 0, 32, 1, 0.5, 0.508},
	{"kineto/kineto_tbplugin_resnet50_V100_num_workers_0_worker0.1623143089861.pt.trace.json.gz", 7,
	 15160, 567, 153.6299, 166.0719},
};

static void test_golden_queue(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	const char *loaded = NULL;
	tg_trace *t = NULL;
	tg_tree *tree = NULL;
	tg_table **tabs = NULL;
	size_t n = 0;
	for (size_t i = 0; i < sizeof(GOLDEN_QUEUE) / sizeof(GOLDEN_QUEUE[0]); i++) {
		const struct golden_queue *g = &GOLDEN_QUEUE[i];
		if (!loaded || strcmp(loaded, g->trace)) {
			tg_tables_free(tabs, n);
			tg_tree_free(tree);
			tg_trace_free(t);
			tree = tg_test_load_shared(&t, g->trace);
			assert_int_equal(tg_launch_stats_tables(&tabs, &n, tree, TG_STEP_HTA_ROUNDED), 0);
			loaded = g->trace;
		}
		const tg_table *q = tg_test_table(tabs, n, "queue_length_summary");
		size_t r = row_int(q, "stream", g->stream);
		print_message("%s stream %lld: mean %.4f std %.4f\n", g->trace, (long long)g->stream,
		              tg_test_num(q, r, "queue_length_mean"), tg_test_num(q, r, "queue_length_std"));
		assert_int_equal(tg_test_num(q, r, "queue_length_count"), g->count);
		assert_int_equal(tg_test_num(q, r, "queue_length_max"), g->max);
		assert_int_equal(tg_test_num(q, r, "queue_length_min"), 0);
		NEAR(tg_test_num(q, r, "queue_length_mean"), g->mean, 0.02 * g->mean);
		NEAR(tg_test_num(q, r, "queue_length_std"), g->std, 0.02 * g->std);
		assert_int_equal(tg_test_num(q, r, "time_at_max_queue(us)"), 0); /* never 1024 deep */
	}
	tg_tables_free(tabs, n);
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* Exact (unrounded) launch statistics of nccl_data, from an independent
 * Python re-implementation on Decimal timestamps (which also reproduces
 * every rounded golden value above when it rounds like HTA). */
static void test_exact(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	tg_trace *t;
	tg_tree *tree = tg_test_load_shared(&t, "hta/hta_nccl_resnet_A100_nccl2.17_rank0_of2.json.gz");
	tg_launch_summary s;
	assert_int_equal(tg_launch_stats_summary(&s, tree, TG_STEP_HTA), 0);
	assert_int_equal(s.launches, 2516);
	assert_int_equal(s.short_kernels, 1380);
	assert_int_equal(s.runtime_outliers, 0);
	assert_int_equal(s.delay_outliers, 180);
	assert_int_equal(s.sum_cpu_ns, 23787895);
	assert_int_equal(s.sum_gpu_ns, 102977881);
	assert_int_equal(s.sum_delay_ns, 68120684);
	assert_true(s.median_delay_ns == 1971.5);
	assert_int_equal(s.max_delay_ns, 943883);
	tg_table **tabs;
	size_t n;
	assert_int_equal(tg_launch_stats_tables(&tabs, &n, tree, TG_STEP_HTA), 0);
	const tg_table *q = tg_test_table(tabs, n, "queue_length_summary");
	size_t r = row_int(q, "stream", 7);
	NEAR(tg_test_num(q, r, "queue_length_mean"), 0.8114, 0.00005);
	NEAR(tg_test_num(q, r, "queue_length_std"), 1.058, 0.00005);
	NEAR(tg_test_num(q, r, "time_weighted_mean"), 0.20823491922655485, 1e-9);
	r = row_int(q, "stream", 40);
	NEAR(tg_test_num(q, r, "time_weighted_mean"), 0.003009331366509657, 1e-12);
	tg_tables_free(tabs, n);
	/* the per-step samples add up to no more than the whole trace */
	tg_launch_summary all, st;
	assert_int_equal(tg_launch_stats_summary(&all, tree, TG_STEP_ALL), 0);
	uint64_t sum = 0;
	for (int32_t i = 0; i < 3; i++) {
		assert_int_equal(tg_launch_stats_summary(&st, tree, i), 0);
		assert_true(st.launches > 0);
		sum += st.launches;
	}
	assert_true(sum <= all.launches);
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* Frequent sequences on a real trace: every cudaMemcpyAsync under
 * aten::copy_ in nccl_data is one Memcpy DtoD (960 calls). */
static void test_real_sequences(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	tg_trace *t;
	tg_tree *tree = tg_test_load_shared(&t, "hta/hta_nccl_resnet_A100_nccl2.17_rank0_of2.json.gz");
	tg_table **tabs;
	size_t n;
	assert_int_equal(tg_launch_stats_tables(&tabs, &n, tree, TG_STEP_ALL), 0);
	const tg_table *s = tg_test_table(tabs, n, "frequent_kernel_sequences");
	size_t r = 0;
	while (r < tg_table_nrows(s) && strcmp(str(s, r, "op"), "aten::copy_"))
		r++;
	assert_true(r < tg_table_nrows(s));
	assert_int_equal(tg_test_num(s, r, "rank"), 1);
	assert_int_equal(tg_test_num(s, r, "count"), 960);
	assert_int_equal(tg_test_num(s, r, "calls"), 960);
	assert_string_equal(str(s, r, "kernels"), "Memcpy DtoD (Device -> Device)");
	/* at most five sequences per op, ranks 1.. in order */
	for (size_t i = 1; i < tg_table_nrows(s); i++)
		if (!strcmp(str(s, i, "op"), str(s, i - 1, "op"))) {
			assert_int_equal(tg_test_num(s, i, "rank"), tg_test_num(s, i - 1, "rank") + 1);
			assert_true(tg_test_num(s, i, "count") <= tg_test_num(s, i - 1, "count"));
			assert_true(tg_test_num(s, i, "rank") <= 5);
		}
	/* 960 DtoD copies in the whole trace, 640 in HTA's window: HTA's
	 * memory_bw_gbps_count (the positive points of its bandwidth step
	 * function, one per copy when copies do not overlap) */
	const tg_table *b = tg_test_table(tabs, n, "memory_bandwidth");
	assert_string_equal(str(b, 0, "memory_kind"), "Memcpy DtoD");
	assert_int_equal(tg_test_num(b, 0, "count"), 960);
	tg_tables_free(tabs, n);
	assert_int_equal(tg_launch_stats_tables(&tabs, &n, tree, TG_STEP_HTA), 0);
	b = tg_test_table(tabs, n, "memory_bandwidth");
	assert_int_equal(tg_test_num(b, 0, "count"), 640);
	assert_string_equal(str(b, 1, "memory_kind"), "Memset");
	assert_int_equal(tg_test_num(b, 1, "count"), 76);
	tg_tables_free(tabs, n);
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* HTA's own test on the MTIA training trace
 * (test_get_mtia_kernel_launch_stats_inference_single_rank): correlation
 * 423, a runFunction launch: cpu 435.200 us, gpu 124.768 us, delay 0
 * (HTA's tolerance is 2 us; ours is exact, in nanoseconds). */
static void test_golden_mtia(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	tg_trace *t;
	tg_tree *tree = tg_test_load_shared(&t, "hta/hta_mtia_train_rank0_of1.json.gz");
	tg_table **tabs;
	size_t n;
	assert_int_equal(tg_launch_stats_tables(&tabs, &n, tree, TG_STEP_HTA), 0);
	const tg_table *rows = tg_test_table(tabs, n, "kernel_launches");
	size_t r = row_int(rows, "correlation", 423);
	assert_string_equal(str(rows, r, "launch"), "runFunction - job_prep_and_submit_for_execution");
	NEAR(tg_test_num(rows, r, "cpu_duration(us)"), 435.2, 1e-9);
	NEAR(tg_test_num(rows, r, "gpu_duration(us)"), 124.768, 1e-9);
	assert_true(tg_test_num(rows, r, "launch_delay(us)") == 0);
	tg_tables_free(tabs, n);
	tg_tree_free(tree);
	tg_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_summary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queue, setup, teardown),
		cmocka_unit_test(test_queue_out_of_order),
		cmocka_unit_test_setup_teardown(test_bandwidth, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sequences, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_step, setup, teardown),
		cmocka_unit_test(test_golden_launch),
		cmocka_unit_test(test_golden_launch_subset),
		cmocka_unit_test(test_golden_queue),
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_real_sequences),
		cmocka_unit_test(test_golden_mtia),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
