/*
 * test_report_text.c - the text report for a terminal: the one-screen
 * summary (core/report_summary.c) with the numbers of the hand-made sample
 * trace (tests/fixtures/sample.json, whose tables test_report.c checks by
 * hand), the findings slot, the views with readable headings
 * (core/report_text.c), and every line within 120 columns.
 */
#include "testutil.h"

#include "../core/report_summary.h"
#include "../core/report_text.h"
#include "../core/table_fit.h"

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
	assert_null(s.findings); /* the report has none (yet): nothing is said */

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
	assert_null(strstr(text, "findings"));
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

/* The findings slot: a report with a "findings" table (issue 22 adds one)
 * gets its first rows in the summary, by its id, cost and fix columns. */
static void test_summary_findings(void **state)
{
	(void)state;
	tg_trace *t;
	tg_tree *tree;
	tg_report r;
	load(&t, &tree, &r, -1);
	static const char *const cols[] = {"id", "evidence", "cost", "fix", NULL};
	tg_table *fi = tg_table_new_cols("findings", "Findings", cols);
	for (int i = 0; i < 7; i++) {
		tg_table_add_row(fi);
		char id[32];
		snprintf(id, sizeof(id), "host-sync-%d", i);
		tg_table_set_str(fi, (size_t)i, 0, id);
		tg_table_set_str(fi, (size_t)i, 1, "aten::item, 8 per step");
		tg_table_set_str(fi, (size_t)i, 2, "4.4 % of the step");
		tg_table_set_str(fi, (size_t)i, 3, "keep the tensor on the GPU");
	}
	tg_table **more = realloc(r.tables, (r.n + 1) * sizeof(*more));
	assert_non_null(more);
	r.tables = more;
	r.tables[r.n++] = fi;
	tg_report_summary s;
	tg_report_summary_build(&s, &r, tree, -1);
	assert_ptr_equal(s.findings, fi);
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_int_equal(tg_report_summary_write_text(f, &s, 120), 0);
	fclose(f);
	assert_non_null(
		strstr(text, "\n  Top findings\n    host-sync-0  4.4 % of the step  keep the tensor on the GPU\n"));
	assert_non_null(strstr(text, "\n    (2 more in the table findings below)\n"));
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
