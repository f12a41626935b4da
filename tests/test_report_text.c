/*
 * test_report_text.c - the text report for a terminal: the one-screen
 * summary (render/report_summary.c) with the numbers of the hand-made sample
 * trace (tests/fixtures/sample.json, whose tables test_report.c checks by
 * hand), its top findings, the views with readable headings
 * (render/report_text.c), and every line within 120 columns.
 */
#include "testutil.h"

#include "../render/report_summary.h"
#include "../render/report_text.h"
#include "../render/table_fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define STARTS(s, lit) (!strncmp((s), (lit), strlen(lit)))

static void load(tg_trace **t, tg_tree **tree, tg_report *r, int32_t step)
{
	if (tg_trace_read_file(t, "tests/fixtures/sample.json", NULL))
		fail_msg("%s", tg_error_last());
	assert_int_equal(tg_tree_build(tree, *t), 0);
	tg_report_opts o = {.step = step};
	assert_int_equal(tg_report_build(r, *tree, &o), 0);
}

static void unload(tg_trace *t, tg_tree *tree, tg_report *r)
{
	tg_report_free(r);
	tg_tree_free(tree);
	tg_trace_free(t);
}

static int near(double a, double b)
{
	return fabs(a - b) < 1e-9;
}

/* The summary's numbers are the tables' (test_report.c): busy 0.265 ms of
 * 0.775, GEMM 0.105 ms first (addmm x2), two steps of 500 us. */
static void test_summary_numbers(void **state)
{
	(void)state;
	tg_trace *t;
	tg_tree *tree;
	tg_report r;
	load(&t, &tree, &r, -1);
	tg_report_summary s;
	tg_report_summary_build(&s, &r, tree, -1);
	assert_string_equal(s.gpu, "NVIDIA H100 80GB HBM3");
	assert_int_equal(s.ndevices, 1);
	assert_int_equal(s.nsteps, 2);
	assert_int_equal(s.first_step, 1);
	assert_int_equal(s.last_step, 2);
	assert_true(near(s.step_mean_ms, 0.5) && near(s.step_min_ms, 0.5) && near(s.step_max_ms, 0.5));
	assert_true(s.has_timeline);
	assert_true(near(s.total_ms, 0.775) && near(s.busy_ms, 0.265) && near(s.idle_ms, 0.510));
	assert_true(near(s.computation_ms, 0.235) && near(s.exposed_memcpy_ms, 0.030) && near(s.exposed_comm_ms, 0));
	assert_true(fabs(s.busy_pct - 34.194) < 1e-3);
	assert_int_equal(s.ncategories, 4);
	assert_string_equal(s.categories[0].name, "GEMM");
	assert_true(near(s.categories[0].ms, 0.105));
	assert_string_equal(s.categories[1].name, "SDPA_fwd");
	assert_int_equal(s.nops, 5);
	assert_string_equal(s.ops[0].name, "aten::addmm");
	assert_int_equal(s.ops[0].calls, 2);
	assert_true(near(s.ops[0].ms, 0.105));

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_int_equal(tg_report_summary_write_text(f, &s, 120), 0);
	fclose(f);
	assert_true(STARTS(text,
	                   "Summary\n  GPU        NVIDIA H100 80GB HBM3, 1 device\n"
	                   "  steps      2 (ProfilerStep#1 to #2): 0.500 ms mean, 0.500 min, 0.500 max\n"
	                   "  GPU time   0.775 ms from the first kernel to the last: busy 0.265 ms (34.2 %), "
	                   "idle 0.510 ms (65.8 %)\n"));
	assert_non_null(strstr(text, "\n    GEMM              0.105 ms   39.6 %\n"));
	assert_non_null(strstr(text,
	                       "\n    aten::addmm                                GEMM                       2 calls"
	                       "       0.105 ms   39.6 %\n"));
	free(text);
	unload(t, tree, &r);

	/* --step 1 (index 0): that step alone */
	load(&t, &tree, &r, 0);
	tg_report_summary_build(&s, &r, tree, 0);
	assert_int_equal(s.nsteps, 1);
	assert_int_equal(s.first_step, 1);
	assert_true(near(s.busy_ms, 0.180)); /* test_report.c: 50 + 100 + 30 us */
	unload(t, tree, &r);
}

/* The findings (issue 22) in the summary: the fired ones of the sample
 * (launch-bound 295 us a step, 59 %; pageable-memcpy 20 us, 4 %), the
 * costliest first, one line each with the fix, cut at the end; then the
 * findings section with their evidence, before the tables. */
static void test_summary_findings(void **state)
{
	(void)state;
	tg_trace *t;
	tg_tree *tree;
	tg_report r;
	load(&t, &tree, &r, -1);
	assert_non_null(r.findings);
	tg_report_summary s;
	tg_report_summary_build(&s, &r, tree, -1);
	assert_int_equal(s.nfired, 2);
	assert_int_equal(s.nfindings, 2);
	assert_int_equal(s.findings[0]->id, tg_finding_parse("launch-bound"));
	assert_int_equal(s.findings[1]->id, tg_finding_parse("pageable-memcpy"));
	assert_true(fabs(s.findings[0]->cost_ns - 295000) < 1 && fabs(s.findings[1]->cost_ns - 20000) < 1);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_int_equal(tg_report_write_text(f, &r, &s, 0), 0);
	fclose(f);
	assert_non_null(strstr(text, "\n  Top findings (2 fired; evidence below, docs/findings.md)\n"
	                             "    launch-bound: 295.0 us a step (59.0 %); fix: launch less often: "));
	assert_non_null(strstr(text, "\n    pageable-memcpy: 20.0 us a step (4.0 %); fix: pin the host memory"));
	/* each line of the summary within 120 columns, cut at its end */
	const char *top = strstr(text, "    launch-bound: ");
	size_t n = strcspn(top, "\n");
	char line[512];
	snprintf(line, sizeof(line), "%.*s", (int)n, top);
	assert_int_equal(tg_text_width(line), 120);
	assert_true(n > 3 && !strncmp(top + n - 3, "\xe2\x80\xa6", 3));
	/* the findings section after the summary, the tables after it */
	const char *sec = strstr(text, "\nFindings: 2 fired, ");
	assert_non_null(sec);
	assert_true(sec > strstr(text, "Top findings"));
	assert_true(strstr(text, "\nGPU timeline\n") > sec);
	free(text);
	unload(t, tree, &r);
}

/* Readable headings where the csv keeps TraceLens's names; the perf
 * sheets' parameters joined; every line of the text report within 120
 * columns, and --wide as tg_table_write_text writes. */
static void test_views(void **state)
{
	(void)state;
	tg_trace *t;
	tg_tree *tree;
	tg_report r;
	load(&t, &tree, &r, -1);
	tg_table *v;
	assert_int_equal(tg_report_text_view(&v, tg_report_find(&r, "ops_summary")), 0);
	static const char *const want[] = {"op", "category", "calls", "kernel ms", "subtree ms", "%", "cum %"};
	assert_int_equal(tg_table_ncols(v), 7);
	for (size_t c = 0; c < 7; c++)
		assert_string_equal(tg_table_column(v, c), want[c]);
	assert_string_equal(tg_table_cell(v, 0, 0)->v.s, "aten::addmm");
	assert_string_equal(tg_table_cell(v, 0, 1)->v.s, "GEMM"); /* not ['GEMM'] */
	assert_int_equal(tg_table_cell(v, 0, 2)->v.i, 2);
	tg_table_free(v);
	/* the csv's names are untouched */
	assert_int_equal(tg_table_find_column(tg_report_find(&r, "ops_summary"), "total_direct_kernel_time_ms"), 3);

	assert_int_equal(tg_report_text_view(&v, tg_report_find(&r, "GEMM")), 0);
	assert_string_equal(tg_table_column(v, 1), "parameters");
	assert_true(STARTS(tg_table_cell(v, 0, 1)->v.s, "M=64 N=128 K=32 bias=True "));
	assert_string_equal(tg_table_column(v, 2), "calls");
	tg_table_free(v);

	assert_int_equal(tg_report_text_view(&v, tg_report_find(&r, "temporal_breakdown")), 0);
	assert_string_equal(tg_table_column(v, 1), "idle time us"); /* idle_time(us) */
	assert_string_equal(tg_table_column(v, 5), "idle time %");  /* idle_time_pctg */
	tg_table_free(v);

	for (int wide = 0; wide < 2; wide++) {
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		assert_int_equal(tg_report_write_text(f, &r, NULL, wide), 0);
		fclose(f);
		size_t longest = 0;
		for (char *p = text; *p;) {
			size_t n = strcspn(p, "\n");
			char save = p[n];
			p[n] = 0;
			if (tg_text_width(p) > longest)
				longest = tg_text_width(p);
			p[n] = save;
			p += n + (save == '\n');
		}
		if (wide) {
			assert_true(longest > 120); /* every column, TraceLens's names */
			assert_non_null(strstr(text, "total_direct_kernel_time_ms"));
		} else {
			assert_true(longest <= 120);
			assert_null(strstr(text, "total_direct_kernel_time_ms"));
			assert_non_null(strstr(text, "kernel ms"));
		}
		free(text);
	}
	unload(t, tree, &r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary_numbers),
		cmocka_unit_test(test_summary_findings),
		cmocka_unit_test(test_views),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
