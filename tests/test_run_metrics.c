/*
 * test_run_metrics.c - the numbers of a run kept in the history
 * (daemon/history/run_metrics.h): every series is measured over the profiled steps
 * as the rules are, so that a category's series is no noisier than the rule
 * on the same kernels (issue 20: over same-code runs the category series
 * spread 4-7x more than their rules, because they counted the kernels
 * outside the steps). Hand-written runs with a warm-up kernel before the
 * first step whose duration moves from run to run (an autotuning first
 * call), and the real h200-dev runs.
 */
#include "testutil.h"
#include "../daemon/history/run_metrics.h"
#include "../rules/rules.h"

#include <math.h>

/* One run: two profiled steps of one flash forward kernel each (about
 * 100 us, x f), and a warm-up flash kernel of warm us before the first
 * step. */
static tg_trace *run_trace(double f, double warm)
{
	char json[4096];
	snprintf(json, sizeof(json),
	         "{\"traceEvents\":["
	         "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::_flash_attention_forward\",\"pid\":1,\"tid\":1,"
	         "\"ts\":0,\"dur\":10,\"args\":{\"External id\":1}},"
	         "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":1,"
	         "\"dur\":2,\"args\":{\"correlation\":1,\"External id\":1}},"
	         "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"flash_fwd_kernel\",\"pid\":0,\"tid\":7,\"ts\":5,"
	         "\"dur\":%.3f,\"args\":{\"correlation\":1,\"stream\":7}},"
	         "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,"
	         "\"ts\":1000,\"dur\":1000},"
	         "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::_flash_attention_forward\",\"pid\":1,\"tid\":1,"
	         "\"ts\":1010,\"dur\":10,\"args\":{\"External id\":2}},"
	         "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
	         "\"ts\":1011,\"dur\":2,\"args\":{\"correlation\":2,\"External id\":2}},"
	         "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"flash_fwd_kernel\",\"pid\":0,\"tid\":7,\"ts\":1020,"
	         "\"dur\":%.3f,\"args\":{\"correlation\":2,\"stream\":7}},"
	         "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":1,"
	         "\"ts\":2000,\"dur\":1000},"
	         "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::_flash_attention_forward\",\"pid\":1,\"tid\":1,"
	         "\"ts\":2010,\"dur\":10,\"args\":{\"External id\":3}},"
	         "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
	         "\"ts\":2011,\"dur\":2,\"args\":{\"correlation\":3,\"External id\":3}},"
	         "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"flash_fwd_kernel\",\"pid\":0,\"tid\":7,\"ts\":2020,"
	         "\"dur\":%.3f,\"args\":{\"correlation\":3,\"stream\":7}}"
	         "]}",
	         warm, 100.0 * f, 101.0 * f);
	return tg_test_read_str(json);
}

/* The value of metric name in m, NAN when absent. */
static double metric(const tg_metric *m, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(m[i].name, name))
			return m[i].value;
	return NAN;
}

/* The metrics of one run (a side of the traces trees). */
static void run_metrics(tg_metric **out, size_t *n, const tg_tree *const *trees, size_t nt, const tg_rules *rules)
{
	tg_atoms *keys = tg_atoms_new();
	tg_measure *m;
	assert_non_null(keys);
	assert_int_equal(tg_measure_build(&m, trees, nt, keys), 0);
	assert_int_equal(tg_run_metrics(out, n, m, keys, rules), 0);
	tg_measure_free(m);
	tg_atoms_free(keys);
}

/* The relative sd of v (n values), in percent. */
static double rel_sd(const double *v, size_t n)
{
	double mean = 0, ss = 0;
	for (size_t i = 0; i < n; i++)
		mean += v[i] / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	return 100 * sqrt(ss / (double)(n - 1)) / mean;
}

/* Six same-code runs whose warm-up call moves (50 to 900 us) and whose
 * steps move by +-1 %: the category series spreads as its rule does, and
 * holds the steps' kernels only. */
static void test_category_series_over_steps(void **state)
{
	(void)state;
	static const double f[6] = {1.00, 1.01, 0.99, 1.005, 0.995, 1.0}, warm[6] = {50, 900, 300, 720, 120, 480};
	tg_rules *rules;
	assert_int_equal(tg_rules_load_default(&rules), 0);
	double cat[6], rule[6];
	for (int r = 0; r < 6; r++) {
		tg_trace *t = run_trace(f[r], warm[r]);
		tg_tree *tree;
		assert_int_equal(tg_tree_build(&tree, t), 0);
		const tg_tree *trees[1] = {tree};
		tg_metric *m;
		size_t n;
		run_metrics(&m, &n, trees, 1, rules);
		cat[r] = metric(m, n, "kernel_time_ms:SDPA_fwd");
		rule[r] = metric(m, n, "rule:sdpa-forward");
		/* the mean of the two steps, the warm-up left out */
		assert_true(fabs(cat[r] - 0.1005 * f[r]) < 1e-9);
		assert_true(fabs(cat[r] - rule[r]) < 1e-12);
		assert_true(fabs(metric(m, n, "steps") - 2) < 1e-12);
		tg_run_metrics_free(m, n);
		tg_tree_free(tree);
		tg_trace_free(t);
	}
	double sc = rel_sd(cat, 6), sr = rel_sd(rule, 6);
	print_message("six runs: kernel_time_ms:SDPA_fwd sd %.2f %%, rule:sdpa-forward sd %.2f %% (ratio %.2f)\n", sc,
	              sr, sc / sr);
	assert_true(sr > 0.4 && sr < 1.5);
	assert_true(sc <= 1.5 * sr);
	tg_rules_free(rules);
}

/* The real h200-dev runs (compiled_r2 has three kernels outside its steps):
 * each category series of a rule's category equals the rule's value. */
static void test_h200_series_equal_rules(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	static const char *const runs[] = {"base_r1", "base_r2", "base_r3", "compiled_r1", "compiled_r2"};
	static const char *const pairs[][2] = {
		{"kernel_time_ms:SDPA_fwd", "rule:sdpa-forward"},
		{"kernel_time_ms:SDPA_bwd", "rule:sdpa-backward"},
		{"kernel_time_ms:GEMM", "rule:gemm"},
	};
	tg_rules *rules;
	assert_int_equal(tg_rules_load_default(&rules), 0);
	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		char rel[256];
		snprintf(rel, sizeof(rel), "h200-dev/%s/rank0.pt.trace.json.gz", runs[r]);
		tg_trace *t;
		tg_tree *tree = tg_test_load_shared(&t, rel);
		const tg_tree *trees[1] = {tree};
		tg_metric *m;
		size_t n;
		run_metrics(&m, &n, trees, 1, rules);
		for (size_t p = 0; p < 3; p++) {
			double c = metric(m, n, pairs[p][0]), v = metric(m, n, pairs[p][1]);
			if (!(fabs(c - v) <= 1e-9 * v))
				fail_msg("%s: %s %.9f ms, %s %.9f ms", runs[r], pairs[p][0], c, pairs[p][1], v);
		}
		tg_run_metrics_free(m, n);
		tg_tree_free(tree);
		tg_trace_free(t);
	}
	tg_rules_free(rules);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_category_series_over_steps),
		cmocka_unit_test(test_h200_series_equal_rules),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
