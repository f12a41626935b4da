/* test_perf_sheets.c - the per-category perf sheets (GEMM, SDPA_fwd,
 * CONV_fwd, CONV_bwd, UnaryElementwise, BinaryElementwise, Normalization,
 * Reduce_fwd) against TraceLens's own CSVs, for every trace of ../shared
 * that has them, with the float64 TraceLens time base. Rows are matched by
 * name and the param columns (minus those TraceLens writes inconsistently
 * between its versions); numbers to 1e-6 relative. Prints, per sheet and
 * column, how many reference cells match. */
#include "../util/fmt_double.h"
#include "testutil.h"

#include "../core/analysis/perf_sheets.h"
#include "../core/analysis/perf_sheets_impl.h"

#include <math.h>

/* ------------------------------------------------------------ comparison */

static int near(double a, double b)
{
	return fabs(a - b) <= 1e-6 * fmax(fabs(a), fabs(b)) || fabs(a - b) < 1e-9;
}

static const char *shared_base(void)
{
	const char *b = getenv("TG_SHARED");
	return b && *b ? b : "../shared";
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
	{"traces/tracelens/hist/86d615a3/tests/traces/mi300/ddp_resnet18_no_pool/train_resnet18.json.gz", REF "hist_ddp_resnet18_perf_report_csvs"},
	{"traces/tracelens/hist/1018b587/agent_evals/Analysis/partial_tests/semantic_purity_qwen3_30b_a3b/MI300/1782859605.7198358-TP-0-DECODE.trace.json.gz", REF "sp_qwen3_30b_MI300_perf_report_csvs"},
	{"traces/tracelens/hist/1018b587/agent_evals/Analysis/partial_tests/semantic_purity_qwen3_30b_a3b/B300/1782799835.6885648-TP-0-DECODE.trace.json.gz", REF "sp_qwen3_30b_B300_perf_report_csvs"},
	{"traces/tracelens/hist/1018b587/agent_evals/Analysis/partial_tests/semantic_purity_deepseek_r1/MI300/1782841132.2905657-TP-0-DECODE.trace.json.gz", REF "sp_deepseek_r1_MI300_perf_report_csvs"},
	{"traces/tracelens/hist/1018b587/agent_evals/Analysis/partial_tests/semantic_purity_deepseek_r1/B300/1782843274.7730265-TP-0-DECODE.trace.json.gz", REF "sp_deepseek_r1_B300_perf_report_csvs"},
};


/* param columns not used as keys: TraceLens writes them differently from
 * one version to the next ('' / 'None' / 'nan', 128 / 128.0), or derives
 * them from kernel names or details we do not reproduce */
static int unstable_param(const char *col)
{
	static const char *const cols[] = {"param: stride_output", "param: num_channels", "param: input_shape",
	                                   "param: output_shape", "param: output_mask", "param: transpose", NULL};
	for (int i = 0; cols[i]; i++)
		if (!strcmp(col, cols[i]))
			return 1;
	return 0;
}

#define NSTAT 64
struct tally {
	char col[NSTAT][48];
	int ok[NSTAT], all[NSTAT], n;
};

static void count(struct tally *t, const char *col, int ok)
{
	int i = 0;
	for (; i < t->n; i++)
		if (!strcmp(t->col[i], col))
			break;
	if (i == t->n) {
		if (t->n == NSTAT)
			return;
		snprintf(t->col[t->n++], sizeof(t->col[0]), "%s", col);
	}
	t->all[i]++;
	t->ok[i] += ok;
}

static int cell_str(char *buf, size_t cap, const tg_cell *c)
{
	switch (c->type) {
	case TG_CELL_INT: snprintf(buf, cap, "%lld", (long long)c->v.i); return 1;
	case TG_CELL_STR: snprintf(buf, cap, "%s", c->v.s); return 1;
	case TG_CELL_NUM: tg_format_double(buf, c->v.d); return 1;
	default: buf[0] = 0; return 0;
	}
}

/* Compares one sheet; counts into tally; returns rows of the reference
 * that have no row of ours. */
static int compare_sheet(const tg_table *t, const struct csv *ref, struct tally *tal, const char *where, int verbose)
{
	int kc_ref[32], kc_our[32], nk = 0, missing = 0;
	for (size_t c = 0; c < ref->ncols && nk < 32; c++) {
		const char *col = ref->rows[0][c];
		if (strcmp(col, "name") && (strncmp(col, "param: ", 7) || unstable_param(col)))
			continue;
		int oc = tg_table_find_column(t, col);
		if (oc < 0)
			continue;
		kc_ref[nk] = (int)c;
		kc_our[nk++] = oc;
	}
	for (size_t r = 1; r < ref->nrows; r++) {
		if (ref->ncols < 2 || !ref->rows[r][0][0])
			continue;
		size_t found = (size_t)-1;
		for (size_t o = 0; o < tg_table_nrows(t) && found == (size_t)-1; o++) {
			int same = 1;
			for (int k = 0; k < nk && same; k++) {
				char buf[512];
				cell_str(buf, sizeof(buf), tg_table_cell(t, o, (size_t)kc_our[k]));
				const char *want = ref->rows[r][kc_ref[k]];
				same = !strcmp(buf, want) || (!*buf && !strcmp(want, "nan")); /* pandas NaN */
			}
			if (same)
				found = o;
		}
		count(tal, "(row found)", found != (size_t)-1);
		if (found == (size_t)-1) {
			if (verbose)
				print_message("%s: no row for %s %s %s\n", where, ref->rows[r][0], ref->rows[r][1],
				              ref->ncols > 2 ? ref->rows[r][2] : "");
			missing++;
			continue;
		}
		for (size_t c = 1; c < ref->ncols; c++) {
			const char *col = ref->rows[0][c];
			int oc = tg_table_find_column(t, col);
			if (oc < 0)
				continue;
			const tg_cell *x = tg_table_cell(t, found, (size_t)oc);
			const char *want = ref->rows[r][c];
			int ok;
			if (x->type == TG_CELL_NUM || x->type == TG_CELL_INT) {
				double v = x->type == TG_CELL_INT ? (double)x->v.i : x->v.d;
				ok = *want && near(v, strtod(want, NULL));
			} else {
				char buf[512];
				cell_str(buf, sizeof(buf), x);
				ok = !strcmp(buf, want) || (!*buf && !strcmp(want, "nan"));
			}
			count(tal, col, ok);
			if (!ok && verbose) {
				char buf[512];
				cell_str(buf, sizeof(buf), x);
				print_message("%s row %zu (%s) %s: ours '%s' ref '%s'\n", where, r, ref->rows[r][0], col, buf, want);
			}
		}
	}
	return missing;
}

static const char *const sheets[] = {"GEMM", "SDPA_fwd", "SDPA_bwd", "CONV_fwd", "CONV_bwd", "UnaryElementwise",
                                     "BinaryElementwise", "Normalization", "Reduce_fwd", NULL};

static void test_tracelens_sheets(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	int verbose = getenv("TG_VERBOSE") != NULL;
	struct tally tal[9];
	memset(tal, 0, sizeof(tal));
	int compared = 0;
	for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", shared_base(), pairs[i].trace);
		tg_trace *t;
		tg_tree *tree;
		if (tg_trace_read_file(&t, path, NULL))
			fail_msg("%s", tg_error_last());
		assert_int_equal(tg_tree_build(&tree, t), 0);
		tg_timebase tb = {.tracelens_float = 1};
		tg_table **tabs;
		size_t n;
		assert_int_equal(tg_perf_sheets(&tabs, &n, tree, &tb, -1, NULL), 0);
		for (int s = 0; sheets[s]; s++) {
			char csvpath[4096], where[512];
			snprintf(csvpath, sizeof(csvpath), "%s/%s/%s.csv", shared_base(), pairs[i].ref, sheets[s]);
			struct csv ref;
			if (csv_read(&ref, csvpath))
				continue;
			const tg_table *ours = NULL;
			for (size_t k = 0; k < n; k++)
				if (!strcmp(tg_table_name(tabs[k]), sheets[s]))
					ours = tabs[k];
			snprintf(where, sizeof(where), "%.50s/%s", strrchr(pairs[i].ref, '/') + 1, sheets[s]);
			if (ref.nrows > 1 && ref.ncols > 1) {
				compared++;
				if (!ours) {
					print_message("%s: no sheet of ours\n", where);
					count(&tal[s], "(row found)", 0);
				} else {
					if (tg_table_nrows(ours) != ref.nrows - 1 && verbose) {
						print_message("%s: %zu rows, reference %zu\n", where, tg_table_nrows(ours), ref.nrows - 1);
						for (size_t o = 0; o < tg_table_nrows(ours); o++) {
							char a[256], b[256];
							cell_str(a, sizeof(a), tg_table_cell(ours, o, 0));
							cell_str(b, sizeof(b), tg_table_cell(ours, o, 1));
							print_message("    ours: %s %s\n", a, b);
						}
					}
					compare_sheet(ours, &ref, &tal[s], where, verbose);
				}
			}
			csv_free(&ref);
		}
		tg_tables_free(tabs, n);
		/* the default mode (exact times, tracegate's models) on the same trace */
		tg_timebase exact = {0};
		assert_int_equal(tg_perf_sheets(&tabs, &n, tree, &exact, -1, NULL), 0);
		tg_tables_free(tabs, n);
		tg_tree_free(tree);
		tg_trace_free(t);
	}
	print_message("compared %d TraceLens perf sheets\n", compared);
	for (int s = 0; sheets[s]; s++)
		for (int c = 0; c < tal[s].n; c++)
			print_message("  %-18s %-32s %5d / %5d%s\n", sheets[s], tal[s].col[c], tal[s].ok[c], tal[s].all[c],
			              tal[s].ok[c] == tal[s].all[c] ? "" : "  (differs)");
	/* sheets that must match TraceLens in every row and every column we
	 * give, but the param strings TraceLens itself writes inconsistently */
	static const char *const strict[] = {"GEMM", "SDPA_fwd", "CONV_fwd", "CONV_bwd", "BinaryElementwise",
	                                     "Reduce_fwd", NULL};
	int bad = 0;
	for (int s = 0; sheets[s]; s++) {
		int is_strict = 0;
		for (int k = 0; strict[k]; k++)
			is_strict |= !strcmp(strict[k], sheets[s]);
		for (int c = 0; c < tal[s].n; c++) {
			double rate = (double)tal[s].ok[c] / tal[s].all[c];
			if (unstable_param(tal[s].col[c]))
				continue;
			/* the others: at least 80 % (group norm, upsample, custom ops unmodelled) */
			if (is_strict ? rate < 1 : rate < 0.8) {
				print_message("%s %s: %d / %d\n", sheets[s], tal[s].col[c], tal[s].ok[c], tal[s].all[c]);
				bad++;
			}
		}
	}
	assert_int_equal(bad, 0);
	assert_true(compared >= 80);
}

/* ------------------------------------------------------------ hand-made trace */

/* Times in us. Step 1 [0,100): aten::mm [10,40) launching two overlapping
 * kernels [20,30) and [25,35) (busy 15 us). Step 2 [100,200): aten::mm
 * with one kernel [120,125) (5 us), and aten::add without device work. */
static const char *const TRACE =
	"{\"traceEvents\": ["
	"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100},"
	"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":100},"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":30,\"args\":{"
	"\"Input Dims\":[[64, 128], [128, 256]],\"Input type\":[\"c10::BFloat16\", \"c10::BFloat16\"],"
	"\"Input Strides\":[[128, 1], [256, 1]],\"Concrete Inputs\":[\"\", \"\"]}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":12,\"dur\":3,\"args\":{\"correlation\":1}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":16,\"dur\":3,\"args\":{\"correlation\":2}},"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":110,\"dur\":30,\"args\":{"
	"\"Input Dims\":[[64, 128], [128, 256]],\"Input type\":[\"c10::BFloat16\", \"c10::BFloat16\"],"
	"\"Input Strides\":[[128, 1], [256, 1]],\"Concrete Inputs\":[\"\", \"\"]}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":112,\"dur\":3,\"args\":{\"correlation\":3}},"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":150,\"dur\":5,\"args\":{"
	"\"Input Dims\":[[4], [4], []],\"Input type\":[\"float\", \"float\", \"Scalar\"],"
	"\"Input Strides\":[[1], [1], []],\"Concrete Inputs\":[\"\", \"\", \"1\"]}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"Cijk_Alik_Bljk_BBS_MT64x64x64\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":10,\"args\":{\"correlation\":1,\"stream\":7}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"Cijk_Alik_Bljk_BBS_MT64x64x64\",\"pid\":0,\"tid\":8,\"ts\":25,\"dur\":10,\"args\":{\"correlation\":2,\"stream\":8}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"Cijk_Alik_Bljk_BBS_MT64x64x64\",\"pid\":0,\"tid\":7,\"ts\":120,\"dur\":5,\"args\":{\"correlation\":3,\"stream\":7}}"
	"]}";

static const tg_table *sheet(tg_table **tabs, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(tg_table_name(tabs[i]), name))
			return tabs[i];
	return NULL;
}

static double num(const tg_table *t, size_t r, const char *col)
{
	int c = tg_table_find_column(t, col);
	if (c < 0)
		fail_msg("no column %s", col);
	const tg_cell *x = tg_table_cell(t, r, (size_t)c);
	return x->type == TG_CELL_INT ? (double)x->v.i : x->type == TG_CELL_NUM ? x->v.d : NAN;
}

static const char *str(const tg_table *t, size_t r, const char *col)
{
	int c = tg_table_find_column(t, col);
	if (c < 0)
		fail_msg("no column %s", col);
	const tg_cell *x = tg_table_cell(t, r, (size_t)c);
	return x->type == TG_CELL_STR ? x->v.s : "";
}

static void close_to(double a, double b)
{
	if (!(fabs(a - b) <= 1e-9 * fmax(1, fabs(b))))
		fail_msg("got %.17g, want %.17g", a, b);
}
#define CLOSE(a, b) close_to((a), (double)(b))

/* The sheets with MI300X's roofline against TraceLens's roofline reports
 * (generated with its bundled MI300X arch file): every shared column,
 * roofline time, bound and percent of roofline included. */
static void test_tracelens_roofline_sheets(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	static const struct pair rpairs[] = {
		{TL "inference/xdit_sd_3.5/profile_trace_rank_0.json.gz", REF "xdit_sd_3.5_roofline_MI300X_csvs"},
		{TL "mi300/gaunernst_bert-small-uncased__1016001.json.gz", REF "gaunernst_bert-small-uncased__1016001_roofline_MI300X_csvs"},
		{TL "mi300/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", REF "Qwen_Qwen1.5-0.5B-Chat__1016005_roofline_MI300X_csvs"},
	};
	int verbose = getenv("TG_VERBOSE") != NULL;
	tg_gpu_specs *specs;
	const tg_gpu_spec *mi = NULL;
	assert_int_equal(tg_gpu_specs_new(&specs), 0);
	assert_int_equal(tg_gpu_specs_find(&mi, specs, "MI300X"), 0);
	struct tally tal[9];
	memset(tal, 0, sizeof(tal));
	for (size_t i = 0; i < sizeof(rpairs) / sizeof(rpairs[0]); i++) {
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", shared_base(), rpairs[i].trace);
		tg_trace *t;
		tg_tree *tree;
		if (tg_trace_read_file(&t, path, NULL))
			fail_msg("%s", tg_error_last());
		assert_int_equal(tg_tree_build(&tree, t), 0);
		tg_timebase tb = {.tracelens_float = 1};
		tg_table **tabs;
		size_t n;
		assert_int_equal(tg_perf_sheets(&tabs, &n, tree, &tb, -1, mi), 0);
		for (int s = 0; sheets[s]; s++) {
			char csvpath[4096], where[512];
			snprintf(csvpath, sizeof(csvpath), "%s/%s/%s.csv", shared_base(), rpairs[i].ref, sheets[s]);
			struct csv ref;
			if (csv_read(&ref, csvpath))
				continue;
			for (size_t k = 0; k < n; k++)
				if (!strcmp(tg_table_name(tabs[k]), sheets[s])) {
					snprintf(where, sizeof(where), "%.50s/%s", strrchr(rpairs[i].ref, '/') + 1, sheets[s]);
					compare_sheet(tabs[k], &ref, &tal[s], where, verbose);
				}
			csv_free(&ref);
		}
		tg_tables_free(tabs, n);
		tg_tree_free(tree);
		tg_trace_free(t);
	}
	static const char *const roof[] = {"Roofline Time (\xc2\xb5s)_first", "Roofline Bound_first",
	                                   "Pct Roofline_mean", "Pct Roofline_max", "Pct Roofline_min", NULL};
	/* the strict sheets: every row found and every roofline value equal */
	static const char *const strict[] = {"GEMM", "SDPA_fwd", "CONV_fwd", "BinaryElementwise", "Reduce_fwd", NULL};
	int checked = 0;
	for (int s = 0; sheets[s]; s++) {
		int is_strict = 0;
		for (int k = 0; strict[k]; k++)
			is_strict |= !strcmp(strict[k], sheets[s]);
		for (int c = 0; c < tal[s].n; c++) {
			int is_roof = !strcmp(tal[s].col[c], "(row found)");
			for (int k = 0; roof[k]; k++)
				is_roof |= !strcmp(roof[k], tal[s].col[c]);
			if (!is_roof)
				continue;
			print_message("  %-18s %-32s %5d / %5d\n", sheets[s], tal[s].col[c], tal[s].ok[c], tal[s].all[c]);
			if (is_strict) {
				assert_int_equal(tal[s].ok[c], tal[s].all[c]);
				checked += tal[s].all[c];
			}
		}
	}
	assert_true(checked >= 200);
	tg_gpu_specs_free(specs);
}

static void test_hand_made(void **state)
{
	(void)state;
	tg_trace *t = tg_test_read_str(TRACE);
	tg_tree *tree;
	assert_int_equal(tg_tree_build(&tree, t), 0);
	tg_timebase tb = {0};
	tg_table **tabs;
	size_t n;
	assert_int_equal(tg_perf_sheets(&tabs, &n, tree, &tb, -1, NULL), 0);
	assert_int_equal(n, 2);
	assert_string_equal(tg_table_name(tabs[0]), "GEMM");
	const tg_table *g = sheet(tabs, n, "GEMM");
	assert_int_equal(tg_table_nrows(g), 1);
	assert_string_equal(str(g, 0, "name"), "aten::mm");
	assert_string_equal(str(g, 0, "param: M"), "64");
	assert_string_equal(str(g, 0, "param: N"), "256");
	assert_string_equal(str(g, 0, "param: K"), "128");
	assert_string_equal(str(g, 0, "param: bias"), "False");
	assert_string_equal(str(g, 0, "param: stride_A"), "(128, 1)");
	assert_string_equal(str(g, 0, "param: dtype_A_B"), "('c10::BFloat16', 'c10::BFloat16')");
	assert_string_equal(str(g, 0, "param: transpose"), "(True, False)");
	assert_string_equal(str(g, 0, "Compute Spec"), "matrix_bf16");
	CLOSE(num(g, 0, "GFLOPS_first"), 0.004194304);         /* 2*64*256*128 */
	CLOSE(num(g, 0, "Data Moved (MB)_first"), 0.109375);  /* (8192 + 32768 + 16384) * 2 / 2^20 */
	CLOSE(num(g, 0, "FLOPS/Byte_first"), 4194304.0 / 114688);
	CLOSE(num(g, 0, "Kernel Time (\xc2\xb5s)_sum"), 20);      /* 15 (overlap counted once) + 5 */
	CLOSE(num(g, 0, "Kernel Time (\xc2\xb5s)_mean"), 10);
	CLOSE(num(g, 0, "Kernel Time (\xc2\xb5s)_median"), 10);
	CLOSE(num(g, 0, "Kernel Time (\xc2\xb5s)_std"), sqrt(50));
	CLOSE(num(g, 0, "Kernel Time (\xc2\xb5s)_min"), 5);
	CLOSE(num(g, 0, "Kernel Time (\xc2\xb5s)_max"), 15);
	CLOSE(num(g, 0, "name_count"), 2);
	double tf15 = 0.004194304 / 1e3 / 15e-6, tf5 = 0.004194304 / 1e3 / 5e-6;
	CLOSE(num(g, 0, "TFLOPS/s_mean"), (tf15 + tf5) / 2);
	CLOSE(num(g, 0, "TFLOPS/s_max"), tf5);
	CLOSE(num(g, 0, "TB/s_min"), 114688 / 1e12 / 15e-6);
	/* the add without device work: kernel time 0, no rates */
	const tg_table *b = sheet(tabs, n, "BinaryElementwise");
	assert_non_null(b);
	assert_int_equal(tg_table_nrows(b), 1);
	CLOSE(num(b, 0, "Kernel Time (\xc2\xb5s)_sum"), 0);
	assert_true(isnan(num(b, 0, "TB/s_mean")));
	CLOSE(num(b, 0, "Data Moved (MB)_first"), 48.0 / (1 << 20));
	assert_string_equal(str(b, 0, "Compute Spec"), "vector_fp32");
	tg_tables_free(tabs, n);

	/* step 1 only: one mm, 15 us */
	assert_int_equal(tg_perf_sheets(&tabs, &n, tree, &tb, 0, NULL), 0);
	assert_int_equal(n, 1);
	CLOSE(num(tabs[0], 0, "name_count"), 1);
	CLOSE(num(tabs[0], 0, "Kernel Time (\xc2\xb5s)_sum"), 15);
	assert_true(isnan(num(tabs[0], 0, "Kernel Time (\xc2\xb5s)_std")));
	tg_tables_free(tabs, n);
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* The "param: ..." column names of a family (perf_sheets_params.c), NULL
 * past its last and for a kind out of range. */
static void test_param_cols(void **state)
{
	(void)state;
	assert_string_equal(tg_perf_sheets_param_col(TG_PERF_GEMM, 0), "M");
	assert_string_equal(tg_perf_sheets_param_col(TG_PERF_GEMM, 8), "transpose");
	assert_null(tg_perf_sheets_param_col(TG_PERF_GEMM, 9));
	assert_string_equal(tg_perf_sheets_param_col(TG_PERF_REDUCE, 3), "reduce_type");
	assert_null(tg_perf_sheets_param_col(TG_PERF_REDUCE, 4));
	assert_null(tg_perf_sheets_param_col(TG_PERF_GEMM, MAXP + 1));
	assert_null(tg_perf_sheets_param_col(TG_PERF_KIND_COUNT, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_made),
		cmocka_unit_test(test_param_cols),
		cmocka_unit_test(test_tracelens_sheets),
		cmocka_unit_test(test_tracelens_roofline_sheets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
