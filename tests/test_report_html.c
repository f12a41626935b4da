/* test_report_html.c - the perf report as one HTML page: the sample
 * trace's numbers and charts, hostile names escaped, several traces in one
 * page, any table rendered, no external resource. */
#include "testutil.h"

#include "../core/analysis/report.h"
#include "../render/report_html.h"
#include "../render/report_html_streams.h"
#include "../util/tg.h"

/* A trace whose names try to break out of HTML text and attributes, with
 * control characters (C0 and C1) and a kernel name too long for a label. */
static const char hostile_trace[] =
	"{\"traceEvents\": [\n"
	"{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"<b>op</b> & \\\"x\\\"\", \"pid\": 1, \"tid\": 1,"
	" \"ts\": 100, \"dur\": 100, \"args\": {\"External id\": 5}},\n"
	"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1,"
	" \"ts\": 110, \"dur\": 5, \"args\": {\"External id\": 5, \"correlation\": 42}},\n"
	"{\"ph\": \"X\", \"cat\": \"kernel\","
	" \"name\": \"<script>alert(1)</script> & \\\"q\\\" 'a' `b` \\u0001 \\u0085 end\","
	" \"pid\": 0, \"tid\": 7, \"ts\": 150, \"dur\": 20,"
	" \"args\": {\"External id\": 5, \"correlation\": 42, \"device\": 0, \"stream\": 7}},\n"
	"{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1,"
	" \"ts\": 120, \"dur\": 5, \"args\": {\"External id\": 5, \"correlation\": 43}},\n"
	"{\"ph\": \"X\", \"cat\": \"kernel\","
	" \"name\": \"void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<Functor<float>>>"
	"(int, float const*, float*) \\u00e9\\u00e9 tail\","
	" \"pid\": 0, \"tid\": 7, \"ts\": 180, \"dur\": 40,"
	" \"args\": {\"External id\": 5, \"correlation\": 43, \"device\": 0, \"stream\": 7}}\n"
	"]}\n";

struct loaded {
	tg_trace *trace;
	tg_tree *tree;
	tg_report report;
};

static void load_file(struct loaded *l, const char *path)
{
	if (tg_trace_read_file(&l->trace, path, NULL))
		fail_msg("%s", tg_error_last());
	assert_int_equal(tg_tree_build(&l->tree, l->trace), 0);
	tg_report_opts o = {.step = -1};
	assert_int_equal(tg_report_build(&l->report, l->tree, &o), 0);
}

static void load_str(struct loaded *l, const char *json)
{
	l->trace = tg_test_read_str(json);
	assert_int_equal(tg_tree_build(&l->tree, l->trace), 0);
	tg_report_opts o = {.step = -1};
	assert_int_equal(tg_report_build(&l->report, l->tree, &o), 0);
}

static void unload(struct loaded *l)
{
	tg_report_free(&l->report);
	tg_tree_free(l->tree);
	tg_trace_free(l->trace);
}

/* The page of n reports, as a string the caller frees. */
static char *render(const tg_report *const *reports, const char *const *names, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(tg_report_write_html(f, reports, names, n), 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(strlen(buf), len);
	return buf;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* What every page must be: a complete HTML5 document that loads nothing
 * from anywhere and carries no raw control character. */
static void assert_self_contained(const char *html)
{
	assert_memory_equal(html, "<!DOCTYPE html>\n", 16);
	assert_non_null(strstr(html, "</html>\n"));
	assert_null(strstr(html, "http://"));
	assert_null(strstr(html, "https://"));
	assert_null(strstr(html, "<script"));
	assert_null(strstr(html, "<link"));
	assert_null(strstr(html, "<img"));
	assert_null(strstr(html, "url("));
	assert_null(strstr(html, "@import"));
	assert_non_null(strstr(html, "Content-Security-Policy\" content=\"default-src 'none'"));
	for (const unsigned char *p = (const unsigned char *)html; *p; p++) {
		if (*p < 0x20 && *p != '\n')
			fail_msg("raw control character 0x%02x at byte %zu", *p, (size_t)(p - (const unsigned char *)html));
		if (*p == 0x7f || (*p == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F))
			fail_msg("raw DEL or C1 control at byte %zu", (size_t)(p - (const unsigned char *)html));
	}
	assert_int_equal(count(html, "<svg"), count(html, "</svg>"));
	assert_int_equal(count(html, "<details"), count(html, "</details>"));
	assert_int_equal(count(html, "<table>"), count(html, "</table>"));
	assert_int_equal(count(html, "<section"), count(html, "</section>"));
}

static void test_sample(void **state)
{
	(void)state;
	struct loaded s;
	load_file(&s, "tests/fixtures/sample.json");
	const tg_report *reps[] = {&s.report};
	const char *names[] = {"tests/fixtures/sample.json"};
	char *html = render(reps, names, 1);
	assert_self_contained(html);
	assert_int_equal(count(html, "<svg"), 3);
	assert_non_null(strstr(html, "<h2>tests/fixtures/sample.json</h2>"));
	assert_non_null(strstr(html, "<title>Perf report: tests/fixtures/sample.json</title>"));
	/* every table, by name, as an HTML table in a <details>, and the
	 * findings' table (findings.h) */
	assert_non_null(s.report.findings);
	assert_int_equal(count(html, "<details"), s.report.n + 1);
	assert_int_equal(count(html, "<table>"), s.report.n + 1);
	assert_non_null(strstr(html, "<code>findings</code>"));
	assert_non_null(strstr(html, "<h3>Findings <small>("));
	for (size_t i = 0; i < s.report.n; i++) {
		char code[256];
		snprintf(code, sizeof(code), "<code>%s</code>", tg_table_name(s.report.tables[i]));
		assert_non_null(strstr(html, code));
	}
	/* the numbers of the sample (see test_report.c): busy 0.265 ms of
	 * 0.775, computation 0.235 (30.323 %), idle 0.510 (65.806 %) */
	assert_non_null(strstr(html, "<td class=\"s\">busy_time</td><td class=\"n\">0.265</td><td class=\"n\">34.194</td>"));
	assert_non_null(strstr(html, "<td class=\"s\">computation_time</td><td class=\"n\">0.235</td>"));
	assert_non_null(strstr(html, "<b>0.775 ms</b><span>total time</span>"));
	assert_non_null(strstr(html, "<b>34.2 %</b><span>busy</span>"));
	assert_non_null(strstr(html, "Computation 0.235 ms (30.3 %)"));
	assert_non_null(strstr(html, "Idle 0.510 ms (65.8 %)"));
	assert_non_null(strstr(html, ">30.3 %</text>"));
	/* op categories, largest first: GEMM 0.105 ms (39.6 %), SDPA_fwd 0.100 */
	const char *gemm = strstr(html, ">GEMM</text>"), *sdpa = strstr(html, ">SDPA_fwd</text>");
	assert_non_null(gemm);
	assert_non_null(sdpa);
	assert_true(gemm < sdpa);
	assert_non_null(strstr(html, "0.105 ms \xc2\xb7 39.6 %"));
	/* top kernels: gemm_kernel summed over its two launches, 105 us of 305 */
	assert_non_null(strstr(html, "<title>gemm_kernel&#10;0.105 ms, 34.4 % of kernel time, 2 calls</title>"));
	assert_non_null(strstr(html, ">flow_linked_kernel</text>"));
	/* integers stay integers, empty cells stay empty */
	assert_non_null(strstr(html, "<td class=\"s\">GEMM</td><td class=\"n\">2</td><td class=\"n\">0.105</td>"));
	assert_non_null(strstr(html, "<td></td>"));
	/* every time column says its unit: TraceLens's unit-less names get it
	 * in the header (microseconds), names that say it are left alone */
	assert_non_null(strstr(html, "<th class=\"n\">total_direct_kernel_time_sum <span class=\"u\">(\xc2\xb5s)</span></th>"));
	assert_non_null(strstr(html, "<th class=\"n\">total_direct_kernel_time_ms</th>"));
	assert_non_null(strstr(html, "<th class=\"n\">busy_time <span class=\"u\">(ms)</span></th>"));
	assert_non_null(strstr(html, "<th class=\"n\">Kernel duration (\xc2\xb5s)_sum</th>"));
	assert_null(strstr(html, "times in ms unless"));
	/* 105 us of direct kernel time for aten::addmm, 0.105 ms in the _ms column */
	assert_non_null(strstr(html, "<tr><td class=\"w\">aten::addmm</td><td class=\"n\">105.000</td>"));
	/* short tables open, the 100-bin histogram folded */
	assert_non_null(strstr(html, "<details class=\"tbl\" id=\"t0-gpu_timeline\" open>"));
	assert_non_null(strstr(html, "<details class=\"tbl\" id=\"t0-short_kernel_histogram\"><summary>"));
	assert_non_null(strstr(html, "<a href=\"#t0-kernel_summary\">"));
	free(html);
	unload(&s);
}

static void test_hostile_names(void **state)
{
	(void)state;
	struct loaded h;
	load_str(&h, hostile_trace);
	const tg_report *reps[] = {&h.report};
	const char *names[] = {"<img src=x onerror=alert(2)>\"'.json"};
	char *html = render(reps, names, 1);
	assert_self_contained(html);
	assert_int_equal(count(html, "<svg"), 3);
	assert_null(strstr(html, "<script>alert"));
	assert_null(strstr(html, "<img"));
	assert_null(strstr(html, "<b>op"));
	assert_non_null(strstr(html, "&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot; &#39;a&#39; "
	                             "&#96;b&#96; \\x01 \\u0085 end"));
	assert_non_null(strstr(html, "&lt;b&gt;op&lt;/b&gt; &amp; &quot;x&quot;"));
	assert_non_null(strstr(html, "<h2>&lt;img src=x onerror=alert(2)&gt;&quot;&#39;.json</h2>"));
	/* the long name: cut to 60 code points in the label, whole in the
	 * tooltip and in the tables */
	assert_non_null(strstr(html, ">void at::native::elementwise_kernel&lt;128, 4, at::native::gpu\xe2\x80\xa6</text>"));
	assert_non_null(strstr(html, "<title>void at::native::elementwise_kernel&lt;128, 4, "
	                             "at::native::gpu_kernel_impl&lt;Functor&lt;float&gt;&gt;&gt;(int, float const*, "
	                             "float*) \xc3\xa9\xc3\xa9 tail&#10;0.040 ms, 66.7 % of kernel time, 1 call</title>"));
	assert_true(count(html, "float*) \xc3\xa9\xc3\xa9 tail</td>") >= 2);
	free(html);
	unload(&h);
}

static void test_several_traces(void **state)
{
	(void)state;
	struct loaded s, h;
	load_file(&s, "tests/fixtures/sample.json");
	load_str(&h, hostile_trace);
	const tg_report *reps[] = {&s.report, &h.report};
	const char *names[] = {"sample.json", NULL};
	char *html = render(reps, names, 2);
	assert_self_contained(html);
	assert_int_equal(count(html, "<svg"), 6);
	assert_int_equal(count(html, "<section class=\"trace\""), 2);
	assert_non_null(strstr(html, "<title>Perf report: 2 traces</title>"));
	assert_non_null(strstr(html, "<h2>sample.json</h2>"));
	assert_non_null(strstr(html, "<h2>trace 2</h2>")); /* no name given */
	assert_non_null(strstr(html, "<a href=\"#trace-1\">trace 2</a>"));
	/* ids of the second trace's tables do not clash with the first's */
	assert_non_null(strstr(html, "id=\"t0-gpu_timeline\""));
	assert_non_null(strstr(html, "id=\"t1-gpu_timeline\""));
	free(html);
	unload(&h);
	unload(&s);
}

/* A report of other tables (as the across-ranks section): no charts, every
 * kind of cell, a long table folded. */
static void test_any_table(void **state)
{
	(void)state;
	tg_table *t = tg_table_new("custom table/x", "A <custom> table");
	assert_non_null(t);
	assert_int_equal(tg_table_add_column(t, "name"), 0);
	assert_int_equal(tg_table_add_column(t, "count"), 1);
	assert_int_equal(tg_table_add_column(t, "time (us)"), 2);
	for (int i = 0; i < 30; i++) {
		int64_t r = tg_table_add_row(t);
		assert_true(r >= 0);
		if (i != 3)
			assert_int_equal(tg_table_set_str(t, (size_t)r, 0, i ? "k" : "tab\there"), 0);
		tg_table_set_int(t, (size_t)r, 1, (int64_t)i * 1000000007LL);
		if (i != 5)
			tg_table_set_num(t, (size_t)r, 2, i + 0.0625);
	}
	tg_table *empty = tg_table_new("empty", "Nothing");
	assert_non_null(empty);
	assert_int_equal(tg_table_add_column(empty, "a"), 0);
	tg_table *tabs[] = {t, empty};
	tg_report r = {.tables = tabs, .n = 2};
	const tg_report *reps[] = {&r};
	const char *names[] = {"Across ranks"};
	char *html = render(reps, names, 1);
	assert_self_contained(html);
	assert_int_equal(count(html, "<svg"), 0);
	assert_non_null(strstr(html, "<details class=\"tbl\" id=\"t0-custom_table_x\"><summary>"));
	assert_non_null(strstr(html, "<span class=\"tt\">A &lt;custom&gt; table</span> <code>custom table/x</code>"));
	assert_non_null(strstr(html, "<th>name</th><th class=\"n\">count</th><th class=\"n\">time (us)</th>"));
	assert_non_null(strstr(html, "<td class=\"s\">tab\\x09here</td><td class=\"n\">0</td><td class=\"n\">0.062</td>"));
	assert_non_null(strstr(html, "<tr><td></td><td class=\"n\">3000000021</td><td class=\"n\">3.062</td></tr>"));
	assert_non_null(strstr(html, "<td class=\"n\">5000000035</td><td></td></tr>"));
	assert_non_null(strstr(html, "<details class=\"tbl\" id=\"t0-empty\" open>"));
	assert_non_null(strstr(html, "colspan=\"1\">no rows</td>"));
	free(html);
	tg_table_free(t);
	tg_table_free(empty);
}

static void test_write_error(void **state)
{
	(void)state;
	FILE *f = fopen("/dev/full", "w");
	if (!f)
		skip();
	struct loaded s;
	load_file(&s, "tests/fixtures/sample.json");
	const tg_report *reps[] = {&s.report};
	assert_int_equal(tg_report_write_html(f, reps, NULL, 1), TG_EIO);
	fclose(f);
	unload(&s);
}

/* The GPU timeline per stream: a row per stream up to 24 (the rest named
 * in a line), a bin busy a quarter of its time drawn at a quarter's
 * opacity in its kind's colour, runs of like bins as one rect, nothing for
 * no stream. */
static void test_streams_picture(void **state)
{
	(void)state;
	tg_stream_timeline s = {.start_ns = 0, .span_ns = 4e6, .bin_ns = 4e6 / TG_STREAM_BINS};
	s.nrows = 30;
	s.rows = calloc(s.nrows, sizeof(tg_stream_row));
	assert_non_null(s.rows);
	for (size_t i = 0; i < s.nrows; i++) {
		s.rows[i].device = 0;
		s.rows[i].stream = (int64_t)i + 7;
		s.rows[i].events = 3;
		s.rows[i].busy_ns = 1e6; /* 25 % of the span */
	}
	/* stream 7: bins 0-99 busy all of the time (computation), bin 200 a
	 * quarter (communication), bin 300 a tenth (memcpy: shown at a quarter) */
	for (size_t b = 0; b < 100; b++)
		s.rows[0].bins[b][TG_STREAM_COMPUTE] = (float)s.bin_ns;
	s.rows[0].bins[200][TG_STREAM_COMM] = (float)(s.bin_ns / 4);
	s.rows[0].bins[300][TG_STREAM_MEMCPY] = (float)(s.bin_ns / 10);
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	tg_report_html_streams(f, &s, 1180);
	fclose(f);
	assert_int_equal(count(out, "<g><title>GPU 0, stream "), 24);
	assert_non_null(strstr(out, "<g><title>GPU 0, stream 7: busy 25.0 % of 4.000 ms, 3 events</title>"));
	assert_non_null(strstr(out, ">GPU 0 \xc2\xb7 stream 30</text>"));
	assert_null(strstr(out, "stream 31:"));
	assert_non_null(strstr(out, "<p class=\"sub\">6 more streams are not drawn"));
	/* 1180 px: 130 of labels, 64 of shares, 986 for 400 bins */
	assert_non_null(strstr(out,
	                       "<rect x=\"130.00\" y=\"10.0\" width=\"246.50\" height=\"14\" fill=\"#0072B2\" "
	                       "fill-opacity=\"1.00\"/>"));
	assert_non_null(strstr(out, "fill=\"#D55E00\" fill-opacity=\"0.25\"/>"));
	assert_non_null(strstr(out, "fill=\"#E69F00\" fill-opacity=\"0.25\"/>"));
	assert_int_equal(count(out, "fill-opacity="), 3); /* the other rows are idle */
	assert_non_null(strstr(out, ">4</text>"));        /* the axis reaches 4 ms */
	free(out);
	/* no stream: nothing */
	s.nrows = 0;
	out = NULL;
	f = open_memstream(&out, &len);
	tg_report_html_streams(f, &s, 1180);
	fclose(f);
	assert_int_equal(len, 0);
	free(out);
	free(s.rows);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample),         cmocka_unit_test(test_hostile_names),
		cmocka_unit_test(test_several_traces), cmocka_unit_test(test_any_table),
		cmocka_unit_test(test_write_error),    cmocka_unit_test(test_streams_picture),
	};
	return cmocka_run_group_tests_name("report_html", tests, NULL, NULL);
}
