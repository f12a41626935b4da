/* test_breakdown.c - temporal, idle, overlap and kernel-type breakdowns:
 * a hand-made trace whose every number is worked out in the comments, and
 * the shared traces against HTA's values (hta_golden_values.json). */
#include "testutil.h"

#include "../core/analysis/breakdown.h"
#include "../core/analysis/timeline.h"
#include "../core/trace/kernel_class.h"

#include <math.h>

/* ---- table helpers ---- */

static const char *str(const tg_table *t, size_t row, const char *col)
{
	const tg_cell *c = tg_test_cell(t, row, col);
	return c->type == TG_CELL_STR ? c->v.s : "";
}

/* The row whose column col holds string s, and whose column col2 (if not
 * NULL) holds the integer v2. */
static size_t row_of(const tg_table *t, const char *col, const char *s, const char *col2, int64_t v2)
{
	for (size_t r = 0; r < tg_table_nrows(t); r++)
		if (!strcmp(str(t, r, col), s) && (!col2 || (int64_t)tg_test_num(t, r, col2) == v2))
			return r;
	fail_msg("%s: no row with %s = %s", tg_table_name(t), col, s);
	return 0;
}

/* ---- hand-made trace ----
 *
 * Times in us. Host thread 1/1: three steps [0,100) [100,200) [200,300).
 * Launch -> device event (device 0):
 *   L1 cudaLaunchKernel  ts 10  dur 5  -> gemm        stream 7  [20, 50)     COMPUTATION
 *   L2 cudaLaunchKernel  ts 16  dur 4  -> ncclKernel  stream 8  [40, 80)     COMMUNICATION
 *   L3 cudaMemcpyAsync   ts 21  dur 2  -> Memcpy HtoD stream 7  [60, 70)     MEMORY
 *   L4 cudaLaunchKernel  ts 110 dur 5  -> gemm        stream 7  [120.5, 140.5)
 *   L5 cudaLaunchKernel  ts 150 dur 5  -> relu        stream 7  [150.25, 160)
 *   L6 cudaLaunchKernel  ts 210 dur 5  -> gemm        stream 7  [220, 230)
 *   (no launch)                           orphan_k    stream 7  [300, 305)
 * plus a cudaStreamSynchronize at 229 and its "Stream Sync" [230, 290) on
 * stream 7, which is not device work and must change nothing. */
static const char *const TRACE =
	"{\"distributedInfo\": {\"rank\": 3, \"world_size\": 8}, \"traceEvents\": ["
	"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
	"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":100},"
	"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#3\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":100},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":5,\"args\":{\"correlation\":1}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":16,\"dur\":4,\"args\":{\"correlation\":2}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemcpyAsync\",\"pid\":1,\"tid\":1,\"ts\":21,\"dur\":2,\"args\":{\"correlation\":3}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":110,\"dur\":5,\"args\":{\"correlation\":4}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":150,\"dur\":5,\"args\":{\"correlation\":5}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":210,\"dur\":5,\"args\":{\"correlation\":6}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaStreamSynchronize\",\"pid\":1,\"tid\":1,\"ts\":229,\"dur\":62,\"args\":{\"correlation\":7}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":30,\"args\":{\"correlation\":1,\"stream\":7}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclKernel_AllReduce_RING_LL_Sum_float\",\"pid\":0,\"tid\":8,\"ts\":40,\"dur\":40,\"args\":{\"correlation\":2,\"stream\":8}},"
	"{\"ph\":\"X\",\"cat\":\"gpu_memcpy\",\"name\":\"Memcpy HtoD (Pageable -> Device)\",\"pid\":0,\"tid\":7,\"ts\":60,\"dur\":10,\"args\":{\"correlation\":3,\"stream\":7,\"bytes\":1000000}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":120.5,\"dur\":20,\"args\":{\"correlation\":4,\"stream\":7}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"relu\",\"pid\":0,\"tid\":7,\"ts\":150.25,\"dur\":9.75,\"args\":{\"correlation\":5,\"stream\":7}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":220,\"dur\":10,\"args\":{\"correlation\":6,\"stream\":7}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Stream Sync\",\"pid\":0,\"tid\":7,\"ts\":230,\"dur\":60,\"args\":{\"correlation\":7,\"stream\":7}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"orphan_k\",\"pid\":0,\"tid\":7,\"ts\":300,\"dur\":5,\"args\":{\"stream\":7}}"
	"]}";

struct fx {
	tg_trace *t;
	tg_tree *tree;
};

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	f->t = tg_test_read_str(TRACE);
	if (tg_tree_build(&f->tree, f->t))
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	tg_tree_free(f->tree);
	tg_trace_free(f->t);
	free(f);
	return 0;
}

static void test_temporal_whole_trace(void **state)
{
	struct fx *f = *state;
	tg_temporal tp;
	assert_int_equal(tg_breakdown_temporal(&tp, f->tree, TG_STEP_ALL), 0);
	assert_int_equal(tp.events, 7);
	assert_int_equal(tp.start_ns, 20000);
	assert_int_equal(tp.end_ns, 305000);
	assert_int_equal(tp.kernel_time_ns, 285000);
	/* union: [20,80) 60 + [120.5,140.5) 20 + [150.25,160) 9.75 + [220,230) 10 + [300,305) 5 */
	assert_int_equal(tp.busy_ns, 104750);
	assert_int_equal(tp.idle_ns, 180250);
	/* gemm 30 + 20 + 10, relu 9.75, orphan_k 5 (the Stream Sync adds nothing) */
	assert_int_equal(tp.compute_ns, 74750);
	assert_int_equal(tp.non_compute_ns, 30000); /* [50,80): nccl (and the memcpy) alone */
	assert_int_equal(tp.comm_ns, 40000);
	assert_int_equal(tp.overlap_ns, 10000); /* [40,50) */
}

static void test_temporal_steps(void **state)
{
	struct fx *f = *state;
	tg_temporal tp;
	/* step index 1 = ProfilerStep#2: gemm [120.5,140.5) and relu [150.25,160) */
	assert_int_equal(tg_breakdown_temporal(&tp, f->tree, 1), 0);
	assert_int_equal(tp.events, 2);
	assert_int_equal(tp.kernel_time_ns, 39500);
	assert_int_equal(tp.busy_ns, 29750);
	assert_int_equal(tp.idle_ns, 9750);
	assert_int_equal(tp.compute_ns, 29750);
	assert_int_equal(tp.non_compute_ns, 0);
	/* HTA's window: launches before ProfilerStep#3 starts (200): L1..L5; the
	 * last step's gemm and the orphan are left out */
	assert_int_equal(tg_breakdown_temporal(&tp, f->tree, TG_STEP_HTA), 0);
	assert_int_equal(tp.events, 5);
	assert_int_equal(tp.kernel_time_ns, 140000);
	assert_int_equal(tp.busy_ns, 89750);
	assert_int_equal(tp.idle_ns, 50250);
	assert_int_equal(tp.compute_ns, 59750);
	assert_int_equal(tp.non_compute_ns, 30000);
	/* with HTA's rounding: gemm [121,140), relu [151,160) */
	assert_int_equal(tg_breakdown_temporal(&tp, f->tree, TG_STEP_HTA_ROUNDED), 0);
	assert_int_equal(tp.kernel_time_ns, 140000);
	assert_int_equal(tp.busy_ns, 88000);
	assert_int_equal(tp.idle_ns, 52000);
	assert_int_equal(tp.compute_ns, 58000);
	/* bad steps */
	assert_int_equal(tg_breakdown_temporal(&tp, f->tree, 3), TG_EINVAL);
	assert_int_equal(tg_breakdown_temporal(&tp, f->tree, -4), TG_EINVAL);
	tg_table **tabs = (tg_table **)1;
	size_t n = 7;
	assert_int_equal(tg_breakdown_tables(&tabs, &n, f->tree, 3), TG_EINVAL);
	assert_null(tabs);
	assert_int_equal(n, 0);
}

static void test_tables(void **state)
{
	struct fx *f = *state;
	tg_table **tabs;
	size_t n;
	assert_int_equal(tg_breakdown_tables(&tabs, &n, f->tree, TG_STEP_ALL), 0);
	assert_int_equal(n, 5);

	const tg_table *t = tg_test_table(tabs, n, "temporal_breakdown");
	assert_int_equal(tg_table_nrows(t), 1);
	assert_int_equal(tg_test_num(t, 0, "rank"), 3);
	NEAR(tg_test_num(t, 0, "idle_time(us)"), 180.25, 1e-9);
	NEAR(tg_test_num(t, 0, "compute_time(us)"), 74.75, 1e-9);
	NEAR(tg_test_num(t, 0, "non_compute_time(us)"), 30, 1e-9);
	NEAR(tg_test_num(t, 0, "kernel_time(us)"), 285, 1e-9);
	NEAR(tg_test_num(t, 0, "idle_time_pctg"), 100 * 180.25 / 285, 1e-9);
	NEAR(tg_test_num(t, 0, "compute_time_pctg"), 100 * 74.75 / 285, 1e-9);
	NEAR(tg_test_num(t, 0, "non_compute_time_pctg"), 100 * 30 / 285.0, 1e-9);

	t = tg_test_table(tabs, n, "comm_comp_overlap");
	NEAR(tg_test_num(t, 0, "comm_time(us)"), 40, 1e-9);
	NEAR(tg_test_num(t, 0, "overlap_time(us)"), 10, 1e-9);
	NEAR(tg_test_num(t, 0, "comp_comm_overlap_pctg"), 25, 1e-9);

	/* COMP alone [20,40)+20+9.75+10+5 = 64.75; COMP+COMM [40,50) 10;
	 * COMM alone [50,60)+[70,80) 20; COMM+MEM [60,70) 10; of 104.75 */
	t = tg_test_table(tabs, n, "kernel_type_breakdown");
	assert_int_equal(tg_table_nrows(t), 4);
	assert_string_equal(str(t, 0, "kernel_type"), "COMPUTATION");
	NEAR(tg_test_num(t, 0, "sum(us)"), 64.75, 1e-9);
	NEAR(tg_test_num(t, 0, "percentage"), 100 * 64.75 / 104.75, 1e-9);
	assert_string_equal(str(t, 1, "kernel_type"), "COMMUNICATION");
	NEAR(tg_test_num(t, 1, "sum(us)"), 20, 1e-9);
	/* ties by time: the smaller set of types first */
	assert_string_equal(str(t, 2, "kernel_type"), "COMPUTATION overlapping COMMUNICATION");
	NEAR(tg_test_num(t, 2, "sum(us)"), 10, 1e-9);
	assert_string_equal(str(t, 3, "kernel_type"), "COMMUNICATION overlapping MEMORY");
	NEAR(tg_test_num(t, 3, "percentage"), 100 * 10 / 104.75, 1e-9);

	/* stream 7: memcpy gap 10 launched before gemm ended -> kernel_wait;
	 * gemm2 50.5, relu 9.75, gemm3 60 launched after the previous ended ->
	 * host_wait 120.25; orphan gap 70 without a launch -> other */
	t = tg_test_table(tabs, n, "idle_time_breakdown");
	assert_int_equal(tg_table_nrows(t), 6);
	size_t r = row_of(t, "idle_category", "host_wait", "stream", 7);
	assert_int_equal(tg_test_num(t, r, "device"), 0);
	NEAR(tg_test_num(t, r, "idle_time(us)"), 120.25, 1e-9);
	assert_int_equal(tg_test_num(t, r, "gaps"), 3);
	NEAR(tg_test_num(t, r, "idle_time_ratio"), 120.25 / 200.25, 1e-12);
	r = row_of(t, "idle_category", "kernel_wait", "stream", 7);
	NEAR(tg_test_num(t, r, "idle_time(us)"), 10, 1e-9);
	assert_int_equal(tg_test_num(t, r, "gaps"), 1);
	r = row_of(t, "idle_category", "other", "stream", 7);
	NEAR(tg_test_num(t, r, "idle_time(us)"), 70, 1e-9);
	NEAR(tg_test_num(t, r, "idle_time_ratio"), 70 / 200.25, 1e-12);
	/* stream 8 has one kernel: no gaps, no ratio */
	r = row_of(t, "idle_category", "host_wait", "stream", 8);
	assert_int_equal(tg_test_num(t, r, "idle_time(us)"), 0);
	assert_true(isnan(tg_test_num(t, r, "idle_time_ratio")));

	/* every name its own row with its own statistics */
	t = tg_test_table(tabs, n, "kernel_duration_distribution");
	assert_int_equal(tg_table_nrows(t), 5);
	assert_string_equal(str(t, 0, "kernel_type"), "COMPUTATION");
	assert_string_equal(str(t, 0, "name"), "gemm");
	assert_int_equal(tg_test_num(t, 0, "count"), 3);
	NEAR(tg_test_num(t, 0, "sum(us)"), 60, 1e-9);
	NEAR(tg_test_num(t, 0, "mean(us)"), 20, 1e-9);
	NEAR(tg_test_num(t, 0, "min(us)"), 10, 1e-9);
	NEAR(tg_test_num(t, 0, "max(us)"), 30, 1e-9);
	NEAR(tg_test_num(t, 0, "std(us)"), 10, 1e-9); /* sample std of 30, 20, 10 */
	assert_string_equal(str(t, 1, "name"), "relu");
	assert_int_equal(tg_test_num(t, 1, "std(us)"), 0);
	assert_string_equal(str(t, 2, "name"), "orphan_k");
	assert_string_equal(str(t, 3, "kernel_type"), "COMMUNICATION");
	assert_string_equal(str(t, 4, "kernel_type"), "MEMORY");
	NEAR(tg_test_num(t, 4, "sum(us)"), 10, 1e-9);
	tg_tables_free(tabs, n);
}

static void test_empty(void **state)
{
	(void)state;
	tg_trace *t = tg_test_read_str(
		"{\"traceEvents\": [{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,"
		"\"tid\":1,\"ts\":1,\"dur\":2}]}");
	tg_tree *tree;
	assert_int_equal(tg_tree_build(&tree, t), 0);
	tg_temporal tp;
	assert_int_equal(tg_breakdown_temporal(&tp, tree, TG_STEP_ALL), 0);
	assert_int_equal(tp.events, 0);
	assert_int_equal(tp.kernel_time_ns, 0);
	tg_table **tabs;
	size_t n;
	assert_int_equal(tg_breakdown_tables(&tabs, &n, tree, TG_STEP_HTA), 0);
	const tg_table *tt = tg_test_table(tabs, n, "temporal_breakdown");
	assert_true(isnan(tg_test_num(tt, 0, "rank")));
	assert_true(isnan(tg_test_num(tt, 0, "idle_time_pctg")));
	assert_true(isnan(tg_test_num(tg_test_table(tabs, n, "comm_comp_overlap"), 0, "comp_comm_overlap_pctg")));
	assert_int_equal(tg_table_nrows(tg_test_table(tabs, n, "idle_time_breakdown")), 0);
	assert_int_equal(tg_table_nrows(tg_test_table(tabs, n, "kernel_type_breakdown")), 0);
	tg_tables_free(tabs, n);
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* ---- shared traces: HTA's numbers ---- */

/* HTA's temporal breakdown (hta_golden_values.json runs.*.temporal, ns
 * rounding on), reproduced exactly with TG_STEP_HTA_ROUNDED: the same
 * events (HTA's window), the same rounded timestamps, integer microseconds,
 * so every sum is exact on both sides. */
struct golden_temporal {
	const char *trace;
	double idle, compute, non_compute, kernel_time, idle_pct, compute_pct, non_compute_pct;
	double overlap_pct; /* NAN: no communication */
};

static const struct golden_temporal GOLDEN_TEMPORAL[] = {
	{"hta/hta_nccl_resnet_A100_nccl2.17_rank0_of2.json.gz", 338781, 75169, 21636, 435586, 77.78,
	 17.26, 4.97, 14.31},
	{"hta/hta_trace_diff_control_A100_rank3_of8.json.gz", 62119, 234760, 86525, 383404, 16.2,
	 61.23, 22.57, 47.03},
	{"hta/hta_trace_diff_test_V100_rank1_of2.json.gz", 46910, 429216, 152245, 628371, 7.47, 68.31,
	 24.23, 68.8},
	{"hta/hta_df_index_resolver_V100_nccl_rank1_of2.json.gz", 643612, 496485, 256572, 1396669,
	 46.08, 35.55, 18.37, 0.0},
	{"hta/hta_negative_queue_len_A100-80GB_triton_rank0_of16.json.gz", 705853, 143836, 166865,
	 1016554, 69.44, 14.15, 16.41, 1.37},
	/* loaded by HTA together with rank-1; each rank's numbers are its own */
	{"hta/hta_sampled_128rank_job_rank-0.json.gz", 321378, 106252, 172428, 600058, 53.56, 17.71,
	 28.74, 11.81},
	{"hta/hta_sampled_128rank_job_rank-1.json.gz", 328671, 135548, 136455, 600674, 54.72, 22.57,
	 22.72, 20.05},
	{"hta/hta_gpu_user_annotation_QuadroGP100_rank0.json.gz", 7446, 290, 1, 7737, 96.24, 3.75,
	 0.01, NAN},
	{"hta/hta_amd_mi250_rocm6.2_minitoy_train.json.gz", 8780, 96, 35, 8911, 98.53, 1.08, 0.39, NAN},
	/* 2021 schema: whole-microsecond timestamps, so exact = rounded */
	{"kineto/kineto_tbplugin_resnet50_V100_num_workers_0_worker0.1623143089861.pt.trace.json.gz",
	 327463, 492891, 10140, 830494, 39.43, 59.35, 1.22, NAN},
};

/* HTA's percentages are rounded to 2 decimals: ours must round to them. */
#define ROUNDS_TO(x, r) NEAR(x, r, 0.005 + 1e-9)

static void test_golden_temporal(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	for (size_t i = 0; i < sizeof(GOLDEN_TEMPORAL) / sizeof(GOLDEN_TEMPORAL[0]); i++) {
		const struct golden_temporal *g = &GOLDEN_TEMPORAL[i];
		tg_trace *t;
		tg_tree *tree = tg_test_load_shared(&t, g->trace);
		tg_table **tabs;
		size_t n;
		assert_int_equal(tg_breakdown_tables(&tabs, &n, tree, TG_STEP_HTA_ROUNDED), 0);
		const tg_table *tt = tg_test_table(tabs, n, "temporal_breakdown");
		print_message("%s\n", g->trace);
		assert_true(tg_test_num(tt, 0, "idle_time(us)") == g->idle);
		assert_true(tg_test_num(tt, 0, "compute_time(us)") == g->compute);
		assert_true(tg_test_num(tt, 0, "non_compute_time(us)") == g->non_compute);
		assert_true(tg_test_num(tt, 0, "kernel_time(us)") == g->kernel_time);
		ROUNDS_TO(tg_test_num(tt, 0, "idle_time_pctg"), g->idle_pct);
		ROUNDS_TO(tg_test_num(tt, 0, "compute_time_pctg"), g->compute_pct);
		ROUNDS_TO(tg_test_num(tt, 0, "non_compute_time_pctg"), g->non_compute_pct);
		double ov = tg_test_num(tg_test_table(tabs, n, "comm_comp_overlap"), 0, "comp_comm_overlap_pctg");
		if (isnan(g->overlap_pct))
			assert_true(isnan(ov));
		else
			ROUNDS_TO(ov, g->overlap_pct);
		tg_tables_free(tabs, n);
		tg_tree_free(tree);
		tg_trace_free(t);
	}
}

/* hta_golden_values.json ns_rounding_disabled_temporal (nccl_data): HTA
 * with HTA_DISABLE_NS_ROUNDING=1 computes in float64 microseconds. This
 * trace's timestamps are ~4.4e12 us, where float64 values are 2^-10 us
 * (0.00098 us) apart, so each of HTA's endpoints is off by up to half that
 * and its sums by a few such steps; the differences seen are 0.00069 us
 * (idle, kernel_time), 0.000008 us (non_compute) and 0 (compute). We compute
 * on exact integer nanoseconds: 0.002 us (two float steps) is the
 * tolerance, far below the 1 ns resolution of the trace's own timestamps. */
static void test_golden_temporal_exact(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	tg_trace *t;
	tg_tree *tree = tg_test_load_shared(&t, "hta/hta_nccl_resnet_A100_nccl2.17_rank0_of2.json.gz");
	tg_temporal tp;
	assert_int_equal(tg_breakdown_temporal(&tp, tree, TG_STEP_HTA), 0);
	/* our exact values, also from an independent Python re-implementation
	 * on Decimal timestamps */
	assert_int_equal(tp.idle_ns, 336419714);
	assert_int_equal(tp.compute_ns, 76935828);
	assert_int_equal(tp.non_compute_ns, 22232019);
	assert_int_equal(tp.kernel_time_ns, 435587561);
	NEAR(tp.idle_ns / 1000.0, 336419.714688, 0.002);
	NEAR(tp.compute_ns / 1000.0, 76935.828, 0.002);
	NEAR(tp.non_compute_ns / 1000.0, 22232.018992, 0.002);
	NEAR(tp.kernel_time_ns / 1000.0, 435587.56168, 0.002);
	ROUNDS_TO(100.0 * (double)tp.idle_ns / (double)tp.kernel_time_ns, 77.23);
	ROUNDS_TO(100.0 * (double)tp.compute_ns / (double)tp.kernel_time_ns, 17.66);
	ROUNDS_TO(100.0 * (double)tp.non_compute_ns / (double)tp.kernel_time_ns, 5.1);
	/* exact overlap: 3585.679 of 24289.050 us (the rounded run gives 14.31) */
	assert_int_equal(tp.comm_ns, 24289050);
	assert_int_equal(tp.overlap_ns, 3585679);
	/* the whole trace includes the last step, which HTA drops */
	tg_temporal all;
	assert_int_equal(tg_breakdown_temporal(&all, tree, TG_STEP_ALL), 0);
	assert_int_equal(all.events, 3774);
	assert_int_equal(tp.events, 2516);
	assert_int_equal(all.kernel_time_ns, 660551005);
	/* the steps together hold HTA's window but for what ran before the first */
	size_t ns;
	tg_tree_steps(tree, &ns);
	assert_int_equal(ns, 3);
	uint64_t sum = 0;
	for (int32_t s = 0; s < 3; s++) {
		tg_temporal st;
		assert_int_equal(tg_breakdown_temporal(&st, tree, s), 0);
		assert_true(st.kernel_time_ns > 0 && st.kernel_time_ns < all.kernel_time_ns);
		sum += st.events;
	}
	assert_true(sum <= all.events);
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* HTA's idle time breakdown per stream (runs.*.idle_time_breakdown_rank0)
 * and kernel type breakdown (runs.*.kernel_breakdown.kernel_type), exact
 * with TG_STEP_HTA_ROUNDED. */
struct golden_idle {
	const char *trace;
	int64_t stream;
	double host, kernel, other;
};

static const struct golden_idle GOLDEN_IDLE[] = {
	{"hta/hta_nccl_resnet_A100_nccl2.17_rank0_of2.json.gz", 7, 357247, 2155, 0},
	{"hta/hta_nccl_resnet_A100_nccl2.17_rank0_of2.json.gz", 40, 381499, 0, 0},
	{"hta/hta_trace_diff_control_A100_rank3_of8.json.gz", 7, 102154, 14226, 32183},
	{"hta/hta_trace_diff_control_A100_rank3_of8.json.gz", 20, 346996, 621, 7470},
	{"hta/hta_trace_diff_control_A100_rank3_of8.json.gz", 21, 237710, 71, 0},
	{"hta/hta_trace_diff_control_A100_rank3_of8.json.gz", 22, 271786, 1253, 0},
	{"hta/hta_df_index_resolver_V100_nccl_rank1_of2.json.gz", 7, 791330, 16727, 73829},
	{"hta/hta_df_index_resolver_V100_nccl_rank1_of2.json.gz", 14, 933139, 5568, 4444},
	/* alexnet: HTA excludes cuda_sync here too (PR #149), so it agrees */
	{"hta/hta_critical_path_alexnet_A100_cuda_sync_rank0.json.gz", 7, 12855007, 104, 0},
	{"hta/hta_critical_path_alexnet_A100_cuda_sync_rank0.json.gz", 20, 12011718, 3, 0},
	{"kineto/kineto_tbplugin_resnet50_V100_num_workers_0_worker0.1623143089861.pt.trace.json.gz",
	 7, 318934, 8529, 0},
};

static void test_golden_idle(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	const char *loaded = NULL;
	tg_trace *t = NULL;
	tg_tree *tree = NULL;
	tg_table **tabs = NULL;
	size_t n = 0;
	for (size_t i = 0; i < sizeof(GOLDEN_IDLE) / sizeof(GOLDEN_IDLE[0]); i++) {
		const struct golden_idle *g = &GOLDEN_IDLE[i];
		if (!loaded || strcmp(loaded, g->trace)) {
			tg_tables_free(tabs, n);
			tg_tree_free(tree);
			tg_trace_free(t);
			tree = tg_test_load_shared(&t, g->trace);
			assert_int_equal(tg_breakdown_tables(&tabs, &n, tree, TG_STEP_HTA_ROUNDED), 0);
			loaded = g->trace;
		}
		const tg_table *it = tg_test_table(tabs, n, "idle_time_breakdown");
		print_message("%s stream %lld\n", g->trace, (long long)g->stream);
		assert_true(tg_test_num(it, row_of(it, "idle_category", "host_wait", "stream", g->stream),
		                "idle_time(us)") == g->host);
		assert_true(tg_test_num(it, row_of(it, "idle_category", "kernel_wait", "stream", g->stream),
		                "idle_time(us)") == g->kernel);
		assert_true(tg_test_num(it, row_of(it, "idle_category", "other", "stream", g->stream),
		                "idle_time(us)") == g->other);
	}
	tg_tables_free(tabs, n);
	tg_tree_free(tree);
	tg_trace_free(t);
}

struct golden_type {
	const char *label;
	double sum, pct;
};

static void check_types(const char *trace, const struct golden_type *g, size_t ng)
{
	tg_trace *t;
	tg_tree *tree = tg_test_load_shared(&t, trace);
	tg_table **tabs;
	size_t n;
	assert_int_equal(tg_breakdown_tables(&tabs, &n, tree, TG_STEP_HTA_ROUNDED), 0);
	const tg_table *kt = tg_test_table(tabs, n, "kernel_type_breakdown");
	print_message("%s\n", trace);
	assert_int_equal(tg_table_nrows(kt), ng);
	for (size_t i = 0; i < ng; i++) {
		assert_string_equal(str(kt, i, "kernel_type"), g[i].label);
		assert_true(tg_test_num(kt, i, "sum(us)") == g[i].sum);
		NEAR(tg_test_num(kt, i, "percentage"), g[i].pct, 0.05 + 1e-9); /* HTA: 1 decimal */
	}
	tg_tables_free(tabs, n);
	tg_tree_free(tree);
	tg_trace_free(t);
}

static void test_golden_kernel_types(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	static const struct golden_type nccl[] = {
		{"COMPUTATION", 71696, 74.1},
		{"COMMUNICATION", 20621, 21.3},
		{"COMPUTATION overlapping COMMUNICATION", 3473, 3.6},
		{"MEMORY", 831, 0.9},
		{"COMMUNICATION overlapping MEMORY", 184, 0.2},
	};
	check_types("hta/hta_nccl_resnet_A100_nccl2.17_rank0_of2.json.gz", nccl, 5);
	static const struct golden_type control[] = {
		{"COMPUTATION", 151685, 47.2},
		{"COMMUNICATION", 69110, 21.5},
		{"COMPUTATION overlapping COMMUNICATION", 55152, 17.2},
		{"COMPUTATION overlapping MEMORY", 20762, 6.5},
		{"MEMORY", 16328, 5.1},
		{"COMPUTATION overlapping COMMUNICATION overlapping MEMORY", 7161, 2.2},
		{"COMMUNICATION overlapping MEMORY", 1087, 0.3},
	};
	check_types("hta/hta_trace_diff_control_A100_rank3_of8.json.gz", control, 7);
	/* HTA also lists "COMPUTATION overlapping MEMORY" with 0 us: we list
	 * only combinations that last */
	static const struct golden_type df[] = {
		{"COMPUTATION", 496485, 65.9},
		{"COMMUNICATION", 238274, 31.6},
		{"MEMORY", 18298, 2.4},
	};
	check_types("hta/hta_df_index_resolver_V100_nccl_rank1_of2.json.gz", df, 3);
	/* alexnet: HTA's temporal breakdown counts 186 us of Stream Sync as busy
	 * non-compute time (55,697 us); without cuda_sync it is exactly the
	 * MEMORY time of HTA's own kernel type breakdown */
	static const struct golden_type alexnet[] = {
		{"MEMORY", 55511, 83.9},
		{"COMPUTATION", 10630, 16.1},
	};
	check_types("hta/hta_critical_path_alexnet_A100_cuda_sync_rank0.json.gz", alexnet, 2);
	tg_trace *t;
	tg_tree *tree = tg_test_load_shared(&t, "hta/hta_critical_path_alexnet_A100_cuda_sync_rank0.json.gz");
	tg_temporal tp;
	assert_int_equal(tg_breakdown_temporal(&tp, tree, TG_STEP_HTA_ROUNDED), 0);
	assert_int_equal(tp.compute_ns, 10630000);
	assert_int_equal(tp.non_compute_ns, (55697 - 186) * INT64_C(1000));
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* HTA's kernel duration distribution keeps true statistics only for types
 * with at most 10 kernel names; nccl_data's COMMUNICATION type has 3, and
 * its top kernel (golden top3[1]): 10 calls, sum 24204, mean 2420.4, max
 * 3306, min 1689 (rounded). */
static void test_golden_distribution(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	tg_trace *t;
	tg_tree *tree = tg_test_load_shared(&t, "hta/hta_nccl_resnet_A100_nccl2.17_rank0_of2.json.gz");
	tg_table **tabs;
	size_t n;
	assert_int_equal(tg_breakdown_tables(&tabs, &n, tree, TG_STEP_HTA_ROUNDED), 0);
	const tg_table *d = tg_test_table(tabs, n, "kernel_duration_distribution");
	size_t r = row_of(d, "kernel_type", "COMMUNICATION", NULL, 0);
	assert_string_equal(str(d, r, "name"),
	                    "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)");
	assert_int_equal(tg_test_num(d, r, "count"), 10);
	assert_true(tg_test_num(d, r, "sum(us)") == 24204);
	NEAR(tg_test_num(d, r, "mean(us)"), 2420.4, 1e-9);
	assert_true(tg_test_num(d, r, "max(us)") == 3306);
	assert_true(tg_test_num(d, r, "min(us)") == 1689);
	/* HTA's row for nchwToNhwcKernel says sum = mean = max = min = 8063
	 * (its "others" bug); ours keeps the per-call statistics */
	r = row_of(d, "name", "void cudnn::ops::nchwToNhwcKernel<float, float, float, false, true, "
	                      "(cudnnKernelDataType_t)2>(cudnn::ops::nchw2nhwc_params_t<float>, float "
	                      "const*, float*)",
	           NULL, 0);
	assert_true(tg_test_num(d, r, "sum(us)") == 8063);
	assert_int_equal(tg_test_num(d, r, "count"), 316);
	assert_true(tg_test_num(d, r, "min(us)") == 2);
	assert_true(tg_test_num(d, r, "max(us)") == 153);
	tg_tables_free(tabs, n);
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* HTA's own tests on the MTIA training trace (tests/test_trace_analysis.py:
 * test_get_mtia_kernel_breakdown, test_get_mtia_idle_time_breakdown):
 * COMPUTATION 7305597 us, stream 1 host_wait 417937 us (ratio 0.07), streams
 * {1, 102}. The trace also has 137 "dma_request" events on the device's
 * thread 801 without a "stream" argument: HTA takes them for CPU events
 * (stream -1) and leaves them out; we count them as device memory work on
 * stream 801. That adds stream 801 to the idle breakdown, and 1019 us where
 * they overlap computation, which HTA's kernel type table has as
 * COMPUTATION alone; HTA's idle and kernel times differ for that reason and
 * because HTA filters MTIA traces by its own rules. */
static void test_golden_mtia(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	tg_trace *t;
	tg_tree *tree = tg_test_load_shared(&t, "hta/hta_mtia_train_rank0_of1.json.gz");
	tg_table **tabs;
	size_t n;
	assert_int_equal(tg_breakdown_tables(&tabs, &n, tree, TG_STEP_HTA_ROUNDED), 0);
	assert_true(tg_test_num(tg_test_table(tabs, n, "temporal_breakdown"), 0, "compute_time(us)") == 7305597);
	const tg_table *kt = tg_test_table(tabs, n, "kernel_type_breakdown");
	assert_string_equal(str(kt, 0, "kernel_type"), "COMPUTATION");
	assert_string_equal(str(kt, 2, "kernel_type"), "COMPUTATION overlapping MEMORY");
	assert_true(tg_test_num(kt, 0, "sum(us)") + tg_test_num(kt, 2, "sum(us)") == 7305597);
	assert_true(tg_test_num(kt, 2, "sum(us)") == 1019);
	const tg_table *it = tg_test_table(tabs, n, "idle_time_breakdown");
	assert_int_equal(tg_table_nrows(it), 9);
	row_of(it, "idle_category", "other", "stream", 801);
	size_t r = row_of(it, "idle_category", "host_wait", "stream", 1);
	assert_true(tg_test_num(it, r, "idle_time(us)") == 417937);
	ROUNDS_TO(tg_test_num(it, r, "idle_time_ratio"), 0.07);
	row_of(it, "idle_category", "host_wait", "stream", 102);
	tg_tables_free(tabs, n);
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* The GPU timeline of the hand-made trace (timeline.c; the report's first
 * table, here for its unions of three lists): computation gemm [20,50),
 * [120.5,140.5), relu [150.25,160), gemm [220,230) = 69.75 us;
 * communication [40,80), 10 of it under gemm: 30 exposed; the memcpy
 * [60,70) under the communication: none exposed; busy, the union of all,
 * [20,80) + 20 + 9.75 + 10 = 99.75; total 20..230. With the unlinked
 * orphan [300,305) too: computation 74.75, busy 104.75, total 285. */
static void test_timeline(void **state)
{
	struct fx *f = *state;
	for (int unlinked = 0; unlinked < 2; unlinked++) {
		tg_timeline_opts o = {.tb = {.base_ns = 0}, .step = -1, .device = -1, .include_unlinked = unlinked};
		tg_gpu_timeline tl;
		assert_int_equal(tg_gpu_timeline_compute(&tl, f->tree, &o), 0);
		NEAR(tl.computation_us, unlinked ? 74.75 : 69.75, 1e-9);
		NEAR(tl.total_comm_us, 40, 1e-9);
		NEAR(tl.exposed_comm_us, 30, 1e-9);
		NEAR(tl.total_memcpy_us, 10, 1e-9);
		NEAR(tl.exposed_memcpy_us, 0, 1e-9);
		NEAR(tl.busy_us, unlinked ? 104.75 : 99.75, 1e-9);
		NEAR(tl.total_us, unlinked ? 285 : 210, 1e-9);
		NEAR(tl.idle_us, unlinked ? 285 - 104.75 : 210 - 99.75, 1e-9);
		assert_int_equal(tl.events, unlinked ? 7 : 6);
	}
}

/* The timeline per device: the fixture's device events are all on device
 * 0 (their tracks' pid), so its one row is the pooled timeline, given
 * (tg_gpu_timeline_by_device_table takes it rather than computing it
 * again) or not; with the relu kernel moved to device 1, the pooled one
 * given is not used: each device's row is its own events'. */
static void test_timeline_by_device(void **state)
{
	struct fx *f = *state;
	tg_timeline_opts o = {.tb = {.base_ns = 0}, .step = -1, .device = -1};
	tg_gpu_timeline tl;
	assert_int_equal(tg_gpu_timeline_compute(&tl, f->tree, &o), 0);
	static const char *const cols[] = {"computation_time", "exposed_comm_time", "exposed_memcpy_time",
	                                   "busy_time", "idle_time", "total_time", "total_comm_time",
	                                   "total_memcpy_time"};
	const double want[] = {tl.computation_us, tl.exposed_comm_us, tl.exposed_memcpy_us, tl.busy_us,
	                       tl.idle_us, tl.total_us, tl.total_comm_us, tl.total_memcpy_us};
	for (int given = 0; given < 2; given++) {
		tg_table *t;
		assert_int_equal(tg_gpu_timeline_by_device_table(&t, f->tree, &o, given ? &tl : NULL), 0);
		assert_int_equal(tg_table_nrows(t), 1);
		assert_int_equal(tg_test_num(t, 0, "device"), 0);
		for (size_t c = 0; c < 8; c++)
			assert_true(tg_test_num(t, 0, cols[c]) == want[c] / 1e3);
		tg_table_free(t);
	}
	/* the row is the one given, not computed again */
	tg_gpu_timeline marked = tl;
	marked.busy_us = 12345;
	tg_table *m;
	assert_int_equal(tg_gpu_timeline_by_device_table(&m, f->tree, &o, &marked), 0);
	assert_true(tg_test_num(m, 0, "busy_time") == 12.345);
	tg_table_free(m);
	/* relu [150.25, 160) on device 1: device 0 keeps 60 us of computation
	 * (gemm 30 + 20 + 10), device 1 has 9.75 */
	char *two = strdup(TRACE);
	char *relu = strstr(two, "\"name\":\"relu\",\"pid\":0");
	assert_non_null(relu);
	relu[strlen("\"name\":\"relu\",\"pid\":")] = '1';
	tg_trace *t2 = tg_test_read_str(two);
	tg_tree *tree2;
	assert_int_equal(tg_tree_build(&tree2, t2), 0);
	tg_gpu_timeline pooled;
	assert_int_equal(tg_gpu_timeline_compute(&pooled, tree2, &o), 0);
	NEAR(pooled.computation_us, 69.75, 1e-9);
	tg_table *t;
	assert_int_equal(tg_gpu_timeline_by_device_table(&t, tree2, &o, &pooled), 0);
	assert_int_equal(tg_table_nrows(t), 2);
	assert_int_equal(tg_test_num(t, 0, "device"), 0);
	NEAR(tg_test_num(t, 0, "computation_time"), 60e-3, 1e-12);
	assert_int_equal(tg_test_num(t, 1, "device"), 1);
	NEAR(tg_test_num(t, 1, "computation_time"), 9.75e-3, 1e-12);
	NEAR(tg_test_num(t, 1, "total_comm_time"), 0, 1e-12);
	tg_table_free(t);
	tg_tree_free(tree2);
	tg_trace_free(t2);
	free(two);
}

/* ---- device events out of the file's order ----
 *
 * 40 kernels on stream 7, kernel k at [20k + 10, 20k + 20) launched at
 * 20k + 5, after the kernel before it ended: each gap of 10 us is
 * host_wait (38 of them), but kernel 20's, launched at 395, before kernel
 * 19 ended (400): kernel_wait (a gap under the queue delay). Written to
 * the file in start order, with two swapped, or reversed. The idle table
 * sorts the device events
 * by (stream, start): the same rows whatever the file's order, whether the
 * sort finishes by insertion (a few out of place) or gives up to qsort
 * (reversed: more moves than events). */
static tg_table **idle_of_order(size_t *n, tg_trace **t, tg_tree **tree, int reversed, int swap)
{
	enum { K = 40 };
	char *json = malloc(64 * 1024);
	assert_non_null(json);
	size_t len = (size_t)sprintf(json, "{\"traceEvents\": [");
	for (int k = 0; k < K; k++)
		len += (size_t)sprintf(json + len, "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\","
		                                   "\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":2,\"args\":{\"correlation\":%d}},",
		                       k == 20 ? 395 : 20 * k + 5, k + 1);
	for (int i = 0; i < K; i++) {
		int k = reversed ? K - 1 - i : i;
		if (swap && (i == 10 || i == 11))
			k = i == 10 ? 11 : 10;
		len += (size_t)sprintf(json + len, "%s{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"pid\":0,\"tid\":7,"
		                                   "\"ts\":%d,\"dur\":10,\"args\":{\"correlation\":%d,\"stream\":7}}",
		                       i ? "," : "", k, 20 * k + 10, k + 1);
	}
	sprintf(json + len, "]}");
	*t = tg_test_read_str(json);
	free(json);
	assert_int_equal(tg_tree_build(tree, *t), 0);
	tg_table **tabs;
	assert_int_equal(tg_breakdown_tables(&tabs, n, *tree, TG_STEP_ALL), 0);
	return tabs;
}

static void test_idle_file_order(void **state)
{
	(void)state;
	for (int c = 0; c < 3; c++) {
		tg_trace *t;
		tg_tree *tree;
		size_t n;
		tg_table **tabs = idle_of_order(&n, &t, &tree, c == 2, c == 1);
		const tg_table *it = tg_test_table(tabs, n, "idle_time_breakdown");
		size_t r = row_of(it, "idle_category", "host_wait", "stream", 7);
		NEAR(tg_test_num(it, r, "idle_time(us)"), 380, 1e-9);
		assert_int_equal(tg_test_num(it, r, "gaps"), 38);
		r = row_of(it, "idle_category", "kernel_wait", "stream", 7);
		assert_int_equal(tg_test_num(it, r, "gaps"), 1);
		NEAR(tg_test_num(it, r, "idle_time(us)"), 10, 1e-9);
		r = row_of(it, "idle_category", "other", "stream", 7);
		assert_int_equal(tg_test_num(it, r, "gaps"), 0);
		tg_tables_free(tabs, n);
		tg_tree_free(tree);
		tg_trace_free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_temporal_whole_trace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_temporal_steps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tables, setup, teardown),
		cmocka_unit_test(test_idle_file_order),
		cmocka_unit_test_setup_teardown(test_timeline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timeline_by_device, setup, teardown),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_golden_temporal),
		cmocka_unit_test(test_golden_temporal_exact),
		cmocka_unit_test(test_golden_idle),
		cmocka_unit_test(test_golden_kernel_types),
		cmocka_unit_test(test_golden_distribution),
		cmocka_unit_test(test_golden_mtia),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
