/* test_report.c - the perf report against TraceLens's own reports.
 *
 * For every trace of ../shared that has a TraceLens perf report (CSV files
 * next to the trace, or under ../shared/reference/tracelens), the report in
 * TraceLens mode (--tracelens) must give the same tables: gpu_timeline,
 * ops_summary_by_category, ops_summary, kernel_summary,
 * short_kernel_histogram and short_kernels_summary, with the same
 * rows (matched by their key columns), counts and strings exactly, times
 * and percentages to 1e-6 relative. Then the default mode's deliberate
 * differences, and the tables on the hand-made sample trace. */
#include "../util/fmt_double.h"
#include "testutil.h"

#include "../core/trace/categorize.h"
#include "../core/analysis/report.h"

#include <math.h>

static int csv_col(const struct csv *c, const char *name)
{
	for (size_t i = 0; i < c->ncols; i++)
		if (!strcmp(c->rows[0][i], name))
			return (int)i;
	return -1;
}

/* ------------------------------------------------------------ comparison */

static int near(double a, double b)
{
	return fabs(a - b) <= 1e-6 * fmax(fabs(a), fabs(b)) || fabs(a - b) < 1e-9;
}

/* The text of cell c of our table as the key part of a row. */
static void cell_key(char *buf, size_t cap, const tg_cell *c)
{
	switch (c->type) {
	case TG_CELL_INT: snprintf(buf, cap, "%lld", (long long)c->v.i); break;
	case TG_CELL_STR: snprintf(buf, cap, "%s", c->v.s); break;
	case TG_CELL_NUM: {
		char num[32];
		tg_format_double(num, c->v.d);
		snprintf(buf, cap, "%s", num);
		break;
	}
	default: buf[0] = 0;
	}
}

/* Compares our table t with the reference CSV; key: the columns identifying
 * a row. Returns the number of mismatches (each printed). */
static int compare_table(const tg_table *t, const struct csv *ref, const char *const *key, const char *where)
{
	int bad = 0;
	size_t nref = ref->nrows - 1;
	if (tg_table_nrows(t) != nref) {
		print_message("%s: %zu rows, reference %zu\n", where, tg_table_nrows(t), nref);
		bad++;
	}
	int kc_ref[12], kc_our[12], nk = 0;
	for (; key[nk]; nk++) {
		kc_ref[nk] = csv_col(ref, key[nk]);
		kc_our[nk] = tg_table_find_column(t, key[nk]);
		if (kc_ref[nk] < 0 || kc_our[nk] < 0) {
			print_message("%s: key column %s missing\n", where, key[nk]);
			return bad + 1;
		}
	}
	for (size_t r = 1; r < ref->nrows; r++) {
		/* find our row with the same key */
		size_t found = (size_t)-1;
		for (size_t o = 0; o < tg_table_nrows(t) && found == (size_t)-1; o++) {
			int same = 1;
			for (int k = 0; k < nk && same; k++) {
				static char buf[1 << 17]; /* kernel names run to 5 KB, shapes further */
				cell_key(buf, sizeof(buf), tg_table_cell(t, o, (size_t)kc_our[k]));
				same = !strcmp(buf, ref->rows[r][kc_ref[k]]);
			}
			if (same)
				found = o;
		}
		if (found == (size_t)-1) {
			print_message("%s: no row for reference row %zu (%.80s)\n", where, r, ref->rows[r][kc_ref[nk - 1]]);
			bad++;
			continue;
		}
		for (size_t c = 0; c < ref->ncols; c++) {
			int oc = tg_table_find_column(t, ref->rows[0][c]);
			if (oc < 0 && (!strcmp(ref->rows[0][c], "ex_UID") || !strcmp(ref->rows[0][c], "kernel_details_summary") ||
			               !strcmp(ref->rows[0][c], "trunc_kernel_details")))
				continue; /* not given (documented in launchers.h) */
			if (oc < 0) {
				print_message("%s: column %s missing\n", where, ref->rows[0][c]);
				bad++;
				continue;
			}
			const tg_cell *x = tg_table_cell(t, found, (size_t)oc);
			const char *want = ref->rows[r][c];
			if (x->type == TG_CELL_STR) {
				if (strcmp(x->v.s, want)) {
					print_message("%s row %zu %s: '%.60s' != '%.60s'\n", where, r, ref->rows[0][c], x->v.s, want);
					bad++;
				}
			} else if (x->type == TG_CELL_EMPTY) {
				if (*want) {
					print_message("%s row %zu %s: empty != %s\n", where, r, ref->rows[0][c], want);
					bad++;
				}
			} else {
				double v = x->type == TG_CELL_INT ? (double)x->v.i : x->v.d;
				if (!*want || !near(v, strtod(want, NULL))) {
					print_message("%s row %zu %s: %.17g != %s\n", where, r, ref->rows[0][c], v, want);
					bad++;
				}
			}
		}
	}
	return bad;
}

struct pair {
	const char *trace, *ref; /* under $TG_SHARED */
};

#define TL "traces/tracelens/tests/traces/"
#define REF "reference/tracelens/"
static const struct pair pairs[] = {
	{TL "h100/gaunernst_bert-small-uncased__1016001.json.gz", TL "h100/gaunernst_bert-small-uncased__1016001_perf_report_csvs"},
	{TL "mi300/gaunernst_bert-small-uncased__1016001.json.gz", TL "mi300/gaunernst_bert-small-uncased__1016001_perf_report_csvs"},
	{TL "h100/Falconsai_nsfw_image_detection__1016002.json.gz", TL "h100/Falconsai_nsfw_image_detection__1016002_perf_report_csvs"},
	{TL "mi300/Falconsai_nsfw_image_detection__1016002.json.gz", TL "mi300/Falconsai_nsfw_image_detection__1016002_perf_report_csvs"},
	{TL "h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", TL "h100/Qwen_Qwen1.5-0.5B-Chat__1016005_perf_report_csvs"},
	{TL "mi300/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", TL "mi300/Qwen_Qwen1.5-0.5B-Chat__1016005_perf_report_csvs"},
	{TL "h100/facebook_timesformer-base-finetuned-k400__1016002.json.gz", TL "h100/facebook_timesformer-base-finetuned-k400__1016002_perf_report_csvs"},
	{TL "mi300/facebook_timesformer-base-finetuned-k400__1016002.json.gz", TL "mi300/facebook_timesformer-base-finetuned-k400__1016002_perf_report_csvs"},
	{TL "torch_compile_triton/trace.json.gz", TL "torch_compile_triton/trace_perf_report_csvs"},
	{TL "mi210/gpu_only_trace/gpu_only_trace.json.gz", TL "mi210/gpu_only_trace/gpu_only_trace_perf_report_csvs"},
	{TL "perf_model/normalization/normalization_layer_test.json.gz", TL "perf_model/normalization/normalization_layer_test_perf_report_csvs"},
	{TL "inference/xdit_sd_3.5/profile_trace_rank_0.json.gz", REF "xdit_sd_3.5_profile_perf_report_csvs"},
	{TL "b200/eager_trace.json.gz", REF "b200_eager_trace_perf_report_csvs"},
	{TL "mi300/resnet_act_checkpoint.json.gz", REF "mi300_resnet_act_checkpoint_perf_report_csvs"},
	{TL "inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz", REF "sglang_Qwen3-8B_decode_perf_report_csvs"},
	{TL "inference/sglang_prefilldecode/sglang_Qwen3-8B_prefilldecode.json.gz", REF "sglang_Qwen3-8B_prefilldecode_perf_report_csvs"},
	{TL "inference/vllm_decode_full/graph_execution.json.gz", REF "vllm_decode_full_graph_execution_perf_report_csvs"},
	{TL "inference/vllm_prefilldecode_piecewise/graph_execution.json.gz", REF "vllm_prefilldecode_piecewise_graph_execution_perf_report_csvs"},
	/* TraceLens's default options (its xlsx), with unified_perf_summary and
	 * Normalization.csv, which we leave out; and the perf reports behind its
	 * compare_perf_reports end-to-end test. Not compared, on purpose
	 * (docs/report.md): inference/xdit_sd_3.5/perf_csvs (grouped by parent
	 * nn.Module), resnet_act_checkpoint_recompute (detect_recompute),
	 * llama_70b_fsdp/nccl_analysis_report_csvs (its 8 traces are missing). */
	{TL "inference/xdit_sd_3.5/profile_trace_rank_0.json.gz", REF "xdit_sd_3.5_default_csvs"},
	{TL "mi300/gaunernst_bert-small-uncased__1016001.json.gz", REF "mi300_bert_default_csvs"},
	{TL "h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", TL "compare_test_e2e/reference/h100_perf_report_csvs"},
	{TL "mi300/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", TL "compare_test_e2e/reference/mi300_perf_report_csvs"},
	{"traces/tracelens/hist/86d615a3/tests/traces/mi300/ddp_resnet18_no_pool/train_resnet18.json.gz", REF "hist_ddp_resnet18_perf_report_csvs"},
	{"traces/tracelens/hist/1018b587/agent_evals/Analysis/partial_tests/semantic_purity_qwen3_30b_a3b/MI300/1782859605.7198358-TP-0-DECODE.trace.json.gz", REF "sp_qwen3_30b_MI300_perf_report_csvs"},
	{"traces/tracelens/hist/1018b587/agent_evals/Analysis/partial_tests/semantic_purity_qwen3_30b_a3b/B300/1782799835.6885648-TP-0-DECODE.trace.json.gz", REF "sp_qwen3_30b_B300_perf_report_csvs"},
	{"traces/tracelens/hist/1018b587/agent_evals/Analysis/partial_tests/semantic_purity_deepseek_r1/MI300/1782841132.2905657-TP-0-DECODE.trace.json.gz", REF "sp_deepseek_r1_MI300_perf_report_csvs"},
	{"traces/tracelens/hist/1018b587/agent_evals/Analysis/partial_tests/semantic_purity_deepseek_r1/B300/1782843274.7730265-TP-0-DECODE.trace.json.gz", REF "sp_deepseek_r1_B300_perf_report_csvs"},
};

static const char *shared_base(void)
{
	const char *b = getenv("TG_SHARED");
	return b && *b ? b : "../shared";
}

static void load(tg_trace **t, tg_tree **tree, const char *path)
{
	if (tg_trace_read_file(t, path, NULL))
		fail_msg("%s", tg_error_last());
	assert_int_equal(tg_tree_build(tree, *t), 0);
}

static void test_tracelens_parity(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	static const char *const k_timeline[] = {"type", NULL};
	static const char *const k_cat[] = {"op category", NULL};
	static const char *const k_ops[] = {"name", NULL};
	static const char *const k_kern[] = {"Parent op category", "Parent cpu_op", "Kernel name", "Kernel stream", NULL};
	static const char *const k_kern_gpu_only[] = {"Parent op category", "Kernel name", "Kernel stream", NULL};
	static const char *const k_hist[] = {"bin_start", NULL};
	static const char *const k_unique[] = {"name", "op category", "process_name", "process_label", "thread_name",
	                                       "Input Dims", "Input type", "Input Strides", "Concrete Inputs", NULL};
	static const char *const k_short[] = {"Parent cpu_op", "Input dims", "Input strides", "Concrete Inputs",
	                                      "Kernel name", NULL};
	static const char *const k_short_gpu_only[] = {"Kernel name", NULL};
	static const struct {
		const char *name;
		const char *const *key;
	} tables[] = {{"gpu_timeline", k_timeline}, {"ops_summary_by_category", k_cat},
	              {"ops_summary", k_ops}, {"kernel_summary", k_kern},
	              {"short_kernel_histogram", k_hist}, {"short_kernels_summary", k_short},
	              {"ops_unique_args", k_unique}};
	int bad = 0, compared = 0;
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", shared_base(), pairs[i].trace);
		tg_trace *t;
		tg_tree *tree;
		load(&t, &tree, path);
		tg_report_opts o = {.tracelens = 1, .step = -1};
		tg_report r;
		assert_int_equal(tg_report_build(&r, tree, &o), 0);
		for (size_t k = 0; k < sizeof(tables) / sizeof(tables[0]); k++) {
			char csvpath[4096], where[512];
			snprintf(csvpath, sizeof(csvpath), "%s/%s/%s.csv", shared_base(), pairs[i].ref, tables[k].name);
			struct csv ref;
			if (csv_read(&ref, csvpath))
				continue; /* this report has no such table (GPU-only traces) */
			if (ref.nrows == 0 || ref.ncols <= 1) {
				/* TraceLens wrote an empty file (torch_compile_triton's
				 * short_kernels_summary): nothing to compare */
				csv_free(&ref);
				continue;
			}
			const tg_table *ours = tg_report_find(&r, tables[k].name);
			assert_non_null(ours);
			const char *const *key = tables[k].key;
			if (key == k_kern && csv_col(&ref, "Parent cpu_op") < 0)
				key = k_kern_gpu_only;
			if (key == k_short && csv_col(&ref, "Parent cpu_op") < 0)
				key = k_short_gpu_only;
			snprintf(where, sizeof(where), "%.60s/%s", strrchr(pairs[i].ref, '/') ? strrchr(pairs[i].ref, '/') + 1 : pairs[i].ref, tables[k].name);
			bad += compare_table(ours, &ref, key, where);
			compared++;
			csv_free(&ref);
		}
		tg_report_free(&r);
		tg_tree_free(tree);
		tg_trace_free(t);
	}
	print_message("compared %d TraceLens tables\n", compared);
	assert_int_equal(bad, 0);
	assert_true(compared >= 150);
}

/* Default mode: exact times, and SDPA where it belongs. */
static void test_default_mode_differences(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", shared_base(), pairs[0].trace);
	tg_trace *t;
	tg_tree *tree;
	load(&t, &tree, path);
	tg_report_opts o = {.step = -1};
	tg_report r;
	assert_int_equal(tg_report_build(&r, tree, &o), 0);
	const tg_table *cat = tg_report_find(&r, "ops_summary_by_category");
	int found = 0;
	for (size_t i = 0; i < tg_table_nrows(cat); i++) {
		const char *name = tg_table_cell(cat, i, 0)->v.s;
		if (!strcmp(name, "SDPA_fwd")) {
			found = 1;
			/* TraceLens: aten::_flash_attention_forward, 4 calls, 37.408203125 us in "other" */
			assert_int_equal(tg_table_cell(cat, i, 1)->v.i, 4);
			assert_true(fabs(tg_table_cell(cat, i, 2)->v.d - 0.037408) < 1e-9); /* exact: 37.408 us */
		}
		if (!strcmp(name, "other"))
			assert_int_equal(tg_table_cell(cat, i, 1)->v.i, 4); /* 8 in TraceLens, minus the 4 */
	}
	assert_true(found);
	/* exact time base: busy time is a whole number of ns, TraceLens's is not */
	const tg_table *tl = tg_report_find(&r, "gpu_timeline");
	assert_string_equal(tg_table_cell(tl, 3, 0)->v.s, "busy_time");
	double busy_ms = tg_table_cell(tl, 3, 1)->v.d;
	assert_true(fabs(busy_ms * 1e6 - round(busy_ms * 1e6)) < 1e-6);
	/* exact 309.437 us; TraceLens's float64 sum 309.437744140625 us: its
	 * endpoints at ~1.4e12 us are rounded to 2^-12 us */
	assert_true(fabs(busy_ms - 0.309437) < 1e-12);
	assert_true(fabs(busy_ms - 0.309437744140625) < 1e-6);
	tg_report_free(&r);
	tg_tree_free(tree);
	tg_trace_free(t);
}

static double cell_num(const tg_table *t, size_t r, size_t c)
{
	const tg_cell *x = tg_table_cell(t, r, c);
	return x->type == TG_CELL_INT ? (double)x->v.i : x->v.d;
}

/* The sample trace, by hand (tests/fixtures/sample.json). */
static void test_sample_report(void **state)
{
	(void)state;
	tg_trace *t;
	tg_tree *tree;
	load(&t, &tree, "tests/fixtures/sample.json");
	tg_report_opts o = {.step = -1};
	tg_report r;
	assert_int_equal(tg_report_build(&r, tree, &o), 0);
	const tg_table *tl = tg_report_find(&r, "gpu_timeline");
	/* linked device events: all but the orphan. comp: gemm [1100,1150),
	 * flash [1160,1240) + softmax [1200,1260), gemm [1600,1655), flow
	 * [1700,1705), ext-linked has no launch: out; graph [1850,1875);
	 * memcpy [1420,1450). span 1100..1875 = 775 us */
	assert_true(fabs(cell_num(tl, 0, 1) - 0.235) < 1e-12); /* computation: 50+100+55+5+25 */
	assert_true(fabs(cell_num(tl, 2, 1) - 0.030) < 1e-12); /* exposed memcpy */
	assert_true(fabs(cell_num(tl, 3, 1) - 0.265) < 1e-12); /* busy */
	assert_true(fabs(cell_num(tl, 5, 1) - 0.775) < 1e-12); /* total */
	assert_true(fabs(cell_num(tl, 4, 1) - 0.510) < 1e-12); /* idle */
	const tg_table *cat = tg_report_find(&r, "ops_summary_by_category");
	/* GEMM: addmm x2 (50 + 55); SDPA_fwd: the flash op (100); elementwise:
	 * copy_ (30); other: CUDAGraph::replay (25) and the bare launch (5) */
	assert_string_equal(tg_table_cell(cat, 0, 0)->v.s, "GEMM");
	assert_int_equal(tg_table_cell(cat, 0, 1)->v.i, 2);
	assert_true(fabs(cell_num(cat, 0, 2) - 0.105) < 1e-12);
	assert_string_equal(tg_table_cell(cat, 1, 0)->v.s, "SDPA_fwd");
	assert_true(fabs(cell_num(cat, 1, 2) - 0.100) < 1e-12);
	const tg_table *ops = tg_report_find(&r, "ops_summary");
	int ci = tg_table_find_column(ops, "total_subtree_kernel_time_sum");
	for (size_t i = 0; i < tg_table_nrows(ops); i++)
		if (!strcmp(tg_table_cell(ops, i, 0)->v.s, "CUDAGraph::replay")) {
			assert_true(fabs(cell_num(ops, i, 1) - 25.0) < 1e-12);
			assert_true(fabs(cell_num(ops, i, (size_t)ci) - 25.0) < 1e-12);
		}
	/* per step: step index 0 holds gemm, attention and the memcpy */
	tg_report r0;
	o.step = 0;
	assert_int_equal(tg_report_build(&r0, tree, &o), 0);
	tl = tg_report_find(&r0, "gpu_timeline");
	assert_true(fabs(cell_num(tl, 3, 1) - 0.180) < 1e-12); /* 50 + 100 + 30 */
	assert_true(fabs(cell_num(tl, 5, 1) - 0.350) < 1e-12); /* 1100..1450 */
	tg_report_free(&r0);
	tg_report_free(&r);
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* The tables in the report's order, whichever thread ran which part and
 * in whatever order the parts finished (core/analysis/report.c takes them
 * by priority, the launchers' after the sheets', the timeline's, the
 * breakdown's and the findings'): forty builds, every other one in
 * TraceLens's mode (no kernel_categories), each the same names, the
 * findings there. */
static void test_tables_order(void **state)
{
	(void)state;
	static const char *const names[] = {
		"gpu_timeline", "gpu_timeline_by_device", "ops_summary_by_category", "ops_summary",
		"ops_unique_args", "kernel_summary", "kernel_categories", "short_kernel_histogram",
		"short_kernels_summary", "GEMM", "temporal_breakdown", "idle_time_breakdown",
		"comm_comp_overlap", "kernel_type_breakdown", "kernel_duration_distribution",
		"kernel_launch_summary", "queue_length_summary", "memory_bandwidth",
		"frequent_kernel_sequences", "host_syncs", "memory_peaks"};
	tg_trace *t;
	tg_tree *tree;
	load(&t, &tree, "tests/fixtures/sample.json");
	for (int k = 0; k < 40; k++) {
		tg_report_opts o = {.step = -1, .tracelens = k % 2};
		tg_report r;
		assert_int_equal(tg_report_build(&r, tree, &o), 0);
		assert_int_equal(r.n, sizeof(names) / sizeof(names[0]) - (size_t)o.tracelens);
		for (size_t i = 0, j = 0; i < r.n; i++, j++) {
			if (o.tracelens && !strcmp(names[j], "kernel_categories"))
				j++;
			assert_string_equal(tg_table_name(r.tables[i]), names[j]);
		}
		assert_non_null(r.findings);
		tg_report_free(&r);
	}
	tg_tree_free(tree);
	tg_trace_free(t);
}

static void test_categories(void **state)
{
	(void)state;
	assert_int_equal(tg_categorize_self_check(), 0);
	assert_string_equal(tg_op_category("aten::mm", NULL, 1), "GEMM");
	assert_string_equal(tg_op_category("aten::_flash_attention_forward", NULL, 1), "other");
	assert_string_equal(tg_op_category("aten::_flash_attention_forward", NULL, 0), "SDPA_fwd");
	assert_string_equal(tg_op_category("aten::_flash_attention_backward", NULL, 0), "SDPA_bwd");
	assert_string_equal(tg_op_category("vllm::unified_attention_with_output", NULL, 1), "InferenceAttention");
	assert_string_equal(tg_op_category("triton_poi_fused_add_0", NULL, 1), "triton");
	assert_string_equal(tg_op_category("aten::gelu", "void at::native::vectorized_elementwise_kernel<4>", 1), "elementwise");
	assert_string_equal(tg_op_category("aten::argmax", "void at::native::reduce_kernel<512, 1>", 1), "reduce");
	assert_string_equal(tg_op_category("aten::_foreach_add_", "void at::native::(anonymous namespace)::multi_tensor_apply_kernel", 1), "multi_tensor_apply");
	assert_string_equal(tg_op_category("aten::gelu", "cutlass_kernel", 1), "other");
	assert_true(tg_kernel_is_comm("ncclDevKernel_Generic(x)"));
	assert_true(tg_kernel_is_comm("void vllm::cross_device_reduce_1stage<x>"));
	assert_true(tg_kernel_is_comm("RCCL_ALLREDUCE"));
	assert_false(tg_kernel_is_comm("multimem_all_reduce_kernel")); /* as TraceLens (documented gap) */
	assert_true(tg_kernel_is_copy("__amd_rocclr_copyBufferAligned.kd"));
	assert_true(tg_kernel_is_copy("MEMORY_COPY_HOST_TO_DEVICE"));
	assert_false(tg_kernel_is_copy("__amd_rocclr_fillBuffer.kd"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_categories),
		cmocka_unit_test(test_sample_report),
		cmocka_unit_test(test_tables_order),
		cmocka_unit_test(test_default_mode_differences),
		cmocka_unit_test(test_tracelens_parity),
	};
	return cmocka_run_group_tests_name("report", tests, NULL, NULL);
}
