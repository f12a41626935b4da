/*
 * test_history_render.c - `tracegate history`'s renderings (computed by
 * daemon/history/history_page.c, written by render/history_*.c) from
 * points made here, not from a store: the
 * grouping into series, the exact text and csv, the json's numbers, and the
 * html page: self-contained, one SVG chart per series with one point per
 * run at the right place, names from the store escaped.
 */
#include "testutil.h"

#include "../util/tg.h"
#include "../daemon/history/history_render.h"

#include <jansson.h>

#define C1 "1111111111111111111111111111111111111111"
#define C2 "2222222222222222222222222222222222222222"
#define C3 "3333333333333333333333333333333333333333"
#define EVIL "<script>alert(1)</script>"

/* 2023-11-14 22:13:20 UTC, then one hour apart */
#define T0 INT64_C(1700000000)

/* Two series, given interleaved and out of series order: train/gpu_busy_ms
 * 10, 20, 30 over three runs; "a,\"b\"" / kernel_time_ms:gemm 4, 3. */
static const tg_history_point points[] = {
	{1, T0, C1, "train", "gpu_busy_ms", 10, 0},
	{1, T0, C1, "a,\"b\"", "kernel_time_ms:gemm", 4, 0},
	{2, T0 + 3600, C2, "train", "gpu_busy_ms", 20, 0},
	{2, T0 + 3600, C2, "a,\"b\"", "kernel_time_ms:gemm", 3, 0},
	{3, T0 + 7200, C3, "train", "gpu_busy_ms", 30, 0},
};
#define NPOINTS (sizeof(points) / sizeof(points[0]))

/* Renders into a string the caller frees. */
static char *render(tg_history_format fmt, const char *repo, const char *branch, const tg_history_point *p,
                    size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	if (tg_history_write(f, fmt, repo, branch, p, n))
		fail_msg("tg_history_write: %s", tg_error_last());
	fclose(f);
	return buf;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;
	for (const char *p = strstr(s, what); p; p = strstr(p + 1, what))
		n++;
	return n;
}

static void test_format_parse(void **state)
{
	(void)state;
	tg_history_format f = TG_HISTORY_TEXT;
	assert_int_equal(tg_history_format_parse(&f, "html"), 0);
	assert_int_equal(f, TG_HISTORY_HTML);
	assert_int_equal(tg_history_format_parse(&f, "csv"), 0);
	assert_int_equal(f, TG_HISTORY_CSV);
	assert_int_equal(tg_history_format_parse(&f, "md"), TG_EINVAL);
	assert_string_equal(tg_error_last(), "--format: 'md' is not one of text, csv, json, html");
}

static void test_text(void **state)
{
	(void)state;
	char *t = render(TG_HISTORY_TEXT, "acme/llm", "main", points, NPOINTS);
	/* series sorted by workload ('a' < 't'), points in order, change from the previous run */
	assert_string_equal(t, "history of acme/llm on main: 2 series\n"
	                       "\n"
	                       "a,\"b\"  kernel_time_ms:gemm  (ms)\n"
	                       "  2023-11-14 22:13  111111111111               4 ms\n"
	                       "  2023-11-14 23:13  222222222222               3 ms      -25.00 %\n"
	                       "\n"
	                       "train  gpu_busy_ms  (ms)\n"
	                       "  2023-11-14 22:13  111111111111              10 ms\n"
	                       "  2023-11-14 23:13  222222222222              20 ms     +100.00 %\n"
	                       "  2023-11-15 00:13  333333333333              30 ms      +50.00 %\n");
	free(t);
}

static void test_csv(void **state)
{
	(void)state;
	char *t = render(TG_HISTORY_CSV, "acme/llm", "main", points, NPOINTS);
	assert_string_equal(t, "workload,metric,run,time,commit,value\n"
	                       "\"a,\"\"b\"\"\",kernel_time_ms:gemm,1,1700000000," C1 ",4\n"
	                       "\"a,\"\"b\"\"\",kernel_time_ms:gemm,2,1700003600," C2 ",3\n"
	                       "train,gpu_busy_ms,1,1700000000," C1 ",10\n"
	                       "train,gpu_busy_ms,2,1700003600," C2 ",20\n"
	                       "train,gpu_busy_ms,3,1700007200," C3 ",30\n");
	free(t);
	/* nothing recorded: the header alone */
	t = render(TG_HISTORY_CSV, "acme/llm", "main", NULL, 0);
	assert_string_equal(t, "workload,metric,run,time,commit,value\n");
	free(t);
}

static void test_json(void **state)
{
	(void)state;
	const tg_history_point evil[] = {{7, T0, C1, EVIL, "m\"\n", 1.5, 0}};
	char *t = render(TG_HISTORY_JSON, "acme/llm", "feat/" EVIL, points, NPOINTS);
	json_error_t e;
	json_t *j = json_loads(t, 0, &e);
	if (!j)
		fail_msg("not JSON: %s\n%s", e.text, t);
	assert_int_equal(json_integer_value(json_object_get(j, "tracegate_history")), 1);
	assert_string_equal(json_string_value(json_object_get(j, "repo")), "acme/llm");
	assert_string_equal(json_string_value(json_object_get(j, "branch")), "feat/" EVIL);
	json_t *s = json_object_get(j, "series");
	assert_int_equal(json_array_size(s), 2);
	json_t *s0 = json_array_get(s, 0), *s1 = json_array_get(s, 1);
	assert_string_equal(json_string_value(json_object_get(s0, "workload")), "a,\"b\"");
	assert_string_equal(json_string_value(json_object_get(s1, "metric")), "gpu_busy_ms");
	assert_string_equal(json_string_value(json_object_get(s1, "unit")), "ms");
	json_t *pts = json_object_get(s1, "points");
	assert_int_equal(json_array_size(pts), 3);
	for (size_t k = 0; k < 3; k++) {
		json_t *pt = json_array_get(pts, k);
		assert_int_equal(json_integer_value(json_object_get(pt, "run")), (int64_t)k + 1);
		assert_int_equal(json_integer_value(json_object_get(pt, "time")), T0 + 3600 * (int64_t)k);
		assert_true(json_real_value(json_object_get(pt, "value")) == 10.0 * (double)(k + 1));
	}
	assert_string_equal(json_string_value(json_object_get(json_array_get(pts, 2), "commit")), C3);
	assert_int_equal(json_array_size(json_object_get(s0, "points")), 2);
	json_decref(j);
	free(t);
	/* names round-trip through the escaping */
	t = render(TG_HISTORY_JSON, "acme/llm", "main", evil, 1);
	j = json_loads(t, 0, &e);
	assert_non_null(j);
	json_t *p0 = json_array_get(json_object_get(j, "series"), 0);
	assert_string_equal(json_string_value(json_object_get(p0, "workload")), EVIL);
	assert_string_equal(json_string_value(json_object_get(p0, "metric")), "m\"\n");
	json_decref(j);
	free(t);
}

/* The part of the page from the n-th "<svg" to its "</svg>", a copy. */
static char *nth_svg(const char *html, size_t n)
{
	const char *p = strstr(html, "<svg");
	for (size_t i = 0; p && i < n; i++)
		p = strstr(p + 1, "<svg");
	assert_non_null(p);
	const char *e = strstr(p, "</svg>");
	assert_non_null(e);
	return strndup(p, (size_t)(e - p));
}

static void test_html(void **state)
{
	(void)state;
	char *t = render(TG_HISTORY_HTML, "acme/llm", "main", points, NPOINTS);
	assert_true(!strncmp(t, "<!DOCTYPE html>\n", 16));
	assert_non_null(strstr(t, "</body></html>\n"));
	/* self-contained: nothing fetched, no script */
	assert_null(strstr(t, "<script"));
	assert_null(strstr(t, "src="));
	assert_null(strstr(t, "href="));
	assert_null(strstr(t, "<link"));
	assert_null(strstr(t, "url("));
	assert_null(strstr(t, "@import"));
	assert_int_equal(count(t, "http"), 2); /* the SVG namespace, once per chart */
	assert_int_equal(count(t, "xmlns=\"http://www.w3.org/2000/svg\""), 2);
	/* one chart per series, in series order; one point per run */
	assert_int_equal(count(t, "<svg"), 2);
	assert_int_equal(count(t, "</svg>"), 2);
	assert_non_null(strstr(t, "<p>2 series, 0 of them flat (one run, or one value)."));
	assert_non_null(strstr(t, "<h2>a,&quot;b&quot;: <code>kernel_time_ms:gemm</code> (2 runs, ms)</h2>"));
	assert_non_null(strstr(t, "<h2>train: <code>gpu_busy_ms</code> (3 runs, ms)</h2>"));
	assert_true(strstr(t, "kernel_time_ms:gemm") < strstr(t, "gpu_busy_ms"));
	/* train/gpu_busy_ms 10, 20, 30: percent of the median (20 ms), -50, 0,
	 * +50; the noise band: run-to-run differences 10 and 10, sigma 1.4826 *
	 * 10 / sqrt 2 = 10.48, two of them in percent of 20: +-104.8 % */
	assert_non_null(strstr(t, "the median of the series: 20 ms. Noise band (grey): &#177;105 %."));
	char *svg = nth_svg(t, 1);
	assert_int_equal(count(svg, "<circle"), 3);
	/* the plot is x 64..740, y 20..200; 0 % in the middle (the range is
	 * symmetric: the band) */
	assert_non_null(strstr(svg, "<circle cx=\"64.0\" cy=\"147.0\" r=\"3.5\" fill=\"#0969da\"><title>run 1 &#183; "
	                            "2023-11-14 22:13 UTC &#183; 111111111111&#10;10 ms (-50.00 % against the reference)"
	                            "</title>"));
	assert_non_null(strstr(svg, "<circle cx=\"402.0\" cy=\"110.0\" r=\"3.5\" fill=\"#0969da\"><title>run 2 &#183; "
	                            "2023-11-14 23:13 UTC &#183; 222222222222&#10;20 ms (+0.00 % against the reference)"));
	assert_non_null(strstr(svg, "<circle cx=\"740.0\" cy=\"73.0\" "));
	assert_non_null(strstr(svg, "points=\"64.0,147.0 402.0,110.0 740.0,73.0 \""));
	assert_non_null(strstr(svg, "<rect class=\"band\""));
	assert_non_null(strstr(svg, ">1111111</text>")); /* the commits under the axis */
	assert_non_null(strstr(svg, ">3333333</text>"));
	assert_null(strstr(svg, "stroke-dasharray")); /* no rule, no threshold */
	free(svg);
	svg = nth_svg(t, 0);
	assert_int_equal(count(svg, "<circle"), 2);
	free(svg);
	free(t);

	/* one run: nothing to chart yet, in the folded table */
	t = render(TG_HISTORY_HTML, "acme/llm", "main", points, 1);
	assert_int_equal(count(t, "<svg"), 0);
	assert_non_null(strstr(t, "<p>1 series, 1 of them flat"));
	assert_non_null(strstr(t, "<tr><td>train</td><td><code>gpu_busy_ms</code></td><td>10 ms</td><td>1</td></tr>"));
	assert_null(strstr(t, "nan"));
	assert_null(strstr(t, "inf"));
	free(t);
}

/* Flat series (constant, zero included) are folded into one table, not
 * charted; 1 % of noise is drawn as 1 %, on an axis of at least +-2 %. */
static void test_html_flat_and_noise(void **state)
{
	(void)state;
	const tg_history_point pts[] = {
		{1, T0, C1, "train", "exposed_comm_ms", 0, 0},    {2, T0 + 60, C2, "train", "exposed_comm_ms", 0, 0},
		{3, T0 + 120, C3, "train", "exposed_comm_ms", 0, 0}, {1, T0, C1, "train", "steps", 8, 0},
		{2, T0 + 60, C2, "train", "steps", 8, 0},          {1, T0, C1, "train", "gpu_busy_ms", 100, 0},
		{2, T0 + 60, C2, "train", "gpu_busy_ms", 101, 0},  {3, T0 + 120, C3, "train", "gpu_busy_ms", 99.5, 0},
	};
	char *t = render(TG_HISTORY_HTML, "acme/llm", "main", pts, sizeof(pts) / sizeof(pts[0]));
	assert_non_null(strstr(t, "<p>3 series, 2 of them flat (one run, or one value)."));
	assert_int_equal(count(t, "<svg"), 1);
	assert_non_null(strstr(t, "<summary>2 flat series (one run, or the same value in every run; not charted)</summary>"));
	assert_non_null(strstr(t, "<tr><td>train</td><td><code>exposed_comm_ms</code></td><td>0 ms</td><td>3</td></tr>"));
	assert_non_null(strstr(t, "<tr><td>train</td><td><code>steps</code></td><td>8 steps</td><td>2</td></tr>"));
	char *svg = nth_svg(t, 0);
	/* 100, 101, 99.5 against 100: 0, +1, -0.5 %; the axis spans -2..+2 %
	 * padded by 8 % (-2.32..+2.32), labelled at round values */
	assert_non_null(strstr(svg, ">-2 %</text>"));
	assert_non_null(strstr(svg, ">+2 %</text>"));
	assert_non_null(strstr(svg, ">+0 %</text>"));
	assert_int_equal(count(svg, " %</text>"), 3);
	assert_non_null(strstr(svg, "101 ms (+1.00 % against the reference)"));
	free(svg);
	free(t);
}

/* A regression that stays (a step of 6 %) moves the line, not the noise
 * band: the band comes from run-to-run differences (median 0.5 ms). */
static void test_html_band_ignores_a_step(void **state)
{
	(void)state;
	static const double v[] = {100, 100.5, 99.5, 100, 106, 106.5, 105.5, 106};
	tg_history_point pts[8];
	for (int k = 0; k < 8; k++)
		pts[k] = (tg_history_point){k + 1, T0 + 60 * k, C1, "train", "gpu_busy_ms", v[k], 0};
	char *t = render(TG_HISTORY_HTML, "r", "main", pts, 8);
	/* median 103; sigma 1.4826 * 0.5 / sqrt 2 = 0.524; 2 sigma / 103 = 1.02 % */
	assert_non_null(strstr(t, "the median of the series: 103 ms. Noise band (grey): &#177;1 %."));
	assert_non_null(strstr(t, "<title>noise band &#177;1.02 %</title>"));
	free(t);
}

static void info_sdpa(tg_history_series_info *out, const char *workload, const char *metric, void *ctx)
{
	(void)workload;
	assert_string_equal((const char *)ctx, "ctx");
	if (strcmp(metric, "rule:sdpa"))
		return;
	out->unit = "ms";
	out->rule = "sdpa";
	out->warn_pct = 2;
	out->block_pct = 5;
}

static void info_tflops(tg_history_series_info *out, const char *workload, const char *metric, void *ctx)
{
	(void)workload;
	(void)metric;
	(void)ctx;
	out->unit = "TFLOPS/s";
	out->rule = "gemm-throughput";
	out->block_pct = 3;
	out->higher_is_worse = 0;
}

/* The rule's thresholds drawn where a regression would cross them, and
 * the unit the caller knows for a rule's series. */
static void test_html_thresholds(void **state)
{
	(void)state;
	const tg_history_point pts[] = {
		{1, T0, C1, "train", "rule:sdpa", 10, 0},
		{2, T0 + 60, C2, "train", "rule:sdpa", 10.1, 0},
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(tg_history_write_with(f, TG_HISTORY_HTML, "r", "main", pts, 2, info_sdpa, "ctx"), 0);
	fclose(f);
	assert_non_null(strstr(buf, "(2 runs, ms)"));
	assert_non_null(strstr(buf, "Thresholds of rule <code>sdpa</code> dashed."));
	assert_non_null(strstr(buf, ">warn +2 %</text>"));
	assert_non_null(strstr(buf, ">block +5 %</text>"));
	assert_int_equal(count(buf, "stroke-dasharray"), 2);
	free(buf);
	/* text says the unit the caller gives */
	f = open_memstream(&buf, &len);
	assert_int_equal(tg_history_write_with(f, TG_HISTORY_TEXT, "r", "main", pts, 2, info_sdpa, "ctx"), 0);
	fclose(f);
	assert_non_null(strstr(buf, "train  rule:sdpa  (ms)\n  2023-11-14 22:13  111111111111              10 ms\n"));
	free(buf);
	/* a rate: lower is worse, the block line is below */
	f = open_memstream(&buf, &len);
	assert_int_equal(tg_history_write_with(f, TG_HISTORY_HTML, "r", "main", pts, 2, info_tflops, NULL), 0);
	fclose(f);
	assert_non_null(strstr(buf, ">block -3 %</text>"));
	assert_non_null(strstr(buf, "10.1 TFLOPS/s ("));
	free(buf);
}

static void test_html_escapes_names(void **state)
{
	(void)state;
	const tg_history_point evil[] = {
		{1, T0, C1, EVIL, "rule:<img onerror=x>&'", 1, 0},
		{2, T0 + 60, C2, EVIL, "rule:<img onerror=x>&'", 2, 0},
	};
	char *t = render(TG_HISTORY_HTML, "acme/<b>llm</b>", "feat/" EVIL, evil, 2);
	assert_null(strstr(t, "<script"));
	assert_null(strstr(t, "<img"));
	assert_null(strstr(t, "<b>"));
	assert_non_null(strstr(t, "<title>tracegate history: acme/&lt;b&gt;llm&lt;/b&gt; "
	                          "feat/&lt;script&gt;alert(1)&lt;/script&gt;</title>"));
	assert_non_null(strstr(t, "<h1>History of <code>acme/&lt;b&gt;llm&lt;/b&gt;</code> on "
	                          "<code>feat/&lt;script&gt;alert(1)&lt;/script&gt;</code></h1>"));
	assert_non_null(strstr(t, "<h2>&lt;script&gt;alert(1)&lt;/script&gt;: "
	                          "<code>rule:&lt;img onerror=x&gt;&amp;&#39;</code> (2 runs)</h2>"));
	assert_int_equal(count(t, "<circle"), 2);
	free(t);
	/* the text rendering is for a terminal and csv is data: names as they are */
	t = render(TG_HISTORY_CSV, "r", "b", evil, 2);
	assert_non_null(strstr(t, "\n" EVIL ",rule:<img onerror=x>&',1,1700000000," C1 ",1\n"));
	free(t);
}

/* --changes: a 40-run series with a +6 % step at run 25 (index 24): the
 * text names it by commit and runs ago, the json has it, the html marks
 * it; a flat series and a short one have none. */
/* The published page links back to the index; tracegate history's does
 * not. */
static void test_html_index_link(void **state)
{
	(void)state;
	char *plain = render(TG_HISTORY_HTML, "acme/llm", "main", points, NPOINTS);
	assert_null(strstr(plain, "every repository and branch"));
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	tg_history_opts o = {.index_href = "../../index.html"};
	tg_test_must(tg_history_write_ex(f, TG_HISTORY_HTML, "acme/llm", "main", points, NPOINTS, &o));
	fclose(f);
	const char *link = "<p><a href=\"../../index.html\">&larr; every repository and branch</a></p>\n<h1>";
	assert_non_null(strstr(buf, link));
	/* otherwise the same page */
	char *at = strstr(buf, link);
	size_t cut = strlen(link) - strlen("<h1>");
	assert_int_equal(strlen(buf) - cut, strlen(plain));
	assert_int_equal(memcmp(buf, plain, (size_t)(at - buf)), 0);
	assert_string_equal(at + cut, plain + (at - buf));
	free(buf);
	free(plain);
}

static void test_changes(void **state)
{
	(void)state;
	tg_history_point p[40 + 5];
	static char commits[45][41];
	for (int i = 0; i < 45; i++) {
		snprintf(commits[i], sizeof(commits[i]), "%02u%038u", (unsigned)i % 100u, 0u);
		p[i].run = i + 1;
		p[i].run_time = T0 + 3600 * i;
		memcpy(p[i].commit, commits[i], 41);
		p[i].workload = (char *)"train";
		p[i].metric = (char *)(i < 40 ? "rule:sdpa-forward" : "rule:gemm");
		/* +-0.5 % alternating noise, +6 % from index 24 */
		p[i].value = 1000 * (1 + 0.005 * ((i * 7) % 3 - 1)) * (i >= 24 && i < 40 ? 1.06 : 1);
	}
	tg_history_opts o = {.changes = 1};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(tg_history_write_ex(f, TG_HISTORY_TEXT, "o/r", "main", p, 45, &o), 0);
	fclose(f);
	assert_non_null(strstr(buf, "  change: +6.0 % since 2400000, 16 runs ago (p 0.002)"));
	assert_int_equal(count(buf, "change:"), 1);
	assert_int_equal(count(buf, "<- change"), 1);
	free(buf);
	f = open_memstream(&buf, &len);
	assert_int_equal(tg_history_write_ex(f, TG_HISTORY_JSON, "o/r", "main", p, 45, &o), 0);
	fclose(f);
	json_error_t e;
	json_t *root = json_loads(buf, 0, &e);
	assert_non_null(root);
	json_t *se = json_array_get(json_object_get(root, "series"), 1);
	assert_string_equal(json_string_value(json_object_get(se, "metric")), "rule:sdpa-forward");
	json_t *ch = json_array_get(json_object_get(se, "changes"), 0);
	assert_int_equal(json_integer_value(json_object_get(ch, "index")), 24);
	assert_int_equal(json_integer_value(json_object_get(ch, "run")), 25);
	assert_int_equal(json_integer_value(json_object_get(ch, "runs_ago")), 16);
	assert_true(fabs(json_real_value(json_object_get(ch, "pct")) - 6.0) < 0.05);
	/* the short series (5 points) has none */
	assert_int_equal(json_array_size(json_object_get(json_array_get(json_object_get(root, "series"), 0), "changes")), 0);
	json_decref(root);
	free(buf);
	f = open_memstream(&buf, &len);
	assert_int_equal(tg_history_write_ex(f, TG_HISTORY_HTML, "o/r", "main", p, 45, &o), 0);
	fclose(f);
	assert_int_equal(count(buf, "stroke-dasharray=\"4 3\""), 1);
	assert_non_null(strstr(buf, "<title>change +6.0 %"));
	free(buf);
	/* without --changes: nothing */
	buf = render(TG_HISTORY_TEXT, "o/r", "main", p, 45);
	assert_int_equal(count(buf, "change"), 0);
	free(buf);
}

/* The pull requests' runs into the branch (tg_history_opts.prs): on the
 * chart, purple diamonds placed by run time among the branch's runs (0.5:
 * halfway between runs 1 and 2), in percent of the same reference, the
 * axis made room for them, a tooltip and a legend; listed in text, in
 * json; csv unchanged; one of a series the branch lacks left out; a flat
 * series says it has some. */
static void test_pull_requests(void **state)
{
	(void)state;
#define C4 "4444444444444444444444444444444444444444"
	static const tg_history_point br[] = {
		{1, T0, C1, "train", "gpu_busy_ms", 100, 0},         {2, T0 + 3600, C2, "train", "gpu_busy_ms", 102, 0},
		{3, T0 + 7200, C3, "train", "gpu_busy_ms", 98, 0},   {4, T0 + 10800, C1, "train", "gpu_busy_ms", 100, 0},
		{1, T0, C1, "train", "steps", 8, 0},                 {2, T0 + 3600, C2, "train", "steps", 8, 0},
	};
	static const tg_history_point prs[] = {
		{13, T0 - 100, C4, "train", "gpu_busy_ms", 100, 9},  /* before the first run: half a slot before it */
		{11, T0 + 1800, C4, "train", "gpu_busy_ms", 110, 7}, /* halfway between runs 1 and 2, +10 % */
		{15, T0 + 1900, C4, "infer", "gpu_busy_ms", 1, 5},   /* no such series: left out */
		{16, T0 + 2000, C4, "train", "steps", 9, 6},         /* a flat series' */
		{12, T0 + 9000, C4, "train", "gpu_busy_ms", 95, 8},  /* halfway between runs 3 and 4, -5 % */
		{14, T0 + 20000, C4, "train", "gpu_busy_ms", 101, 9}, /* after the last run: half a slot after it */
	};
	tg_history_opts o = {.prs = prs, .nprs = 6};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(tg_history_write_ex(f, TG_HISTORY_HTML, "acme/llm", "main", br, 6, &o), 0);
	fclose(f);
	assert_non_null(strstr(buf, "<h2>train: <code>gpu_busy_ms</code> (4 runs, 4 pull request runs, ms)</h2>"));
	assert_non_null(strstr(buf, "<td>2 (and 1 pull request run, not shown)</td>"));
	char *svg = nth_svg(buf, 0);
	assert_int_equal(count(svg, "<circle"), 4);
	assert_int_equal(count(svg, "<path class=\"pr\""), 4);
	/* x: a run before the first and one after the last add half a slot on
	 * each side: 3 + 1 slots of 676 / 4 = 169 px, the first run at
	 * 64 + 84.5; y: the axis spans -5..+10 % (the marks), padded by 8 %:
	 * -6.2..+11.2 % over y 20..200; each diamond's top 5 px above its value */
	assert_non_null(strstr(svg, "<path class=\"pr\" d=\"M233.0 27.4l5 5l-5 5l-5 -5z\" fill=\"#8250df\" "
	                            "stroke=\"#fff\"><title>pull request 7 &#183; run 11 &#183; 2023-11-14 22:43 UTC "
	                            "&#183; 444444444444&#10;110 ms (+10.00 % against the reference)</title></path>"));
	assert_non_null(strstr(svg, "d=\"M571.0 182.6l5 5l-5 5l-5 -5z\" fill=\"#8250df\" stroke=\"#fff\"><title>pull "
	                            "request 8 &#183; run 12 &#183; 2023-11-15 00:43 UTC"));
	assert_non_null(strstr(svg, "d=\"M64.0 130.9l5 5"));
	assert_non_null(strstr(svg, "d=\"M740.0 120.5l5 5"));
	assert_non_null(strstr(svg, "run 14 &#183; 2023-11-15 03:46 UTC &#183; 444444444444&#10;101 ms (+1.00 % against"));
	/* the branch's runs between the half slots: 0 % at y 135.9 */
	assert_non_null(strstr(svg, "<circle cx=\"148.5\" cy=\"135.9\" "));
	assert_non_null(strstr(svg, "<circle cx=\"655.5\" cy=\"135.9\" "));
	assert_non_null(strstr(svg, ">+10 %</text>")); /* the axis reaches the +10 % mark */
	assert_non_null(strstr(svg, "<text class=\"legend\" x=\"64\" y=\"236\" font-size=\"11\" fill=\"#424a53\"><tspan "
	                            "fill=\"#0969da\">&#9679;</tspan> runs of main   <tspan fill=\"#8250df\">&#9670;"
	                            "</tspan> 4 pull request runs into main, placed by run time</text>"));
	free(svg);
	free(buf);
	/* without pull requests: no mark, no legend */
	buf = render(TG_HISTORY_HTML, "acme/llm", "main", br, 6);
	assert_int_equal(count(buf, "class=\"pr\""), 0);
	assert_int_equal(count(buf, "class=\"legend\""), 0);
	/* and no half slots: the first and last runs on the plot's edges */
	assert_non_null(strstr(buf, "<circle cx=\"64.0\" "));
	assert_non_null(strstr(buf, "<circle cx=\"740.0\" "));
	free(buf);

	f = open_memstream(&buf, &len);
	assert_int_equal(tg_history_write_ex(f, TG_HISTORY_TEXT, "acme/llm", "main", br, 6, &o), 0);
	fclose(f);
	assert_non_null(strstr(buf, "  2023-11-15 01:13  111111111111             100 ms       +2.04 %\n"
	                            "  pull requests' runs into main (against the median, 100 ms):\n"
	                            "  2023-11-14 22:11  444444444444             100 ms       +0.00 %  pull request 9, run 13\n"
	                            "  2023-11-14 22:43  444444444444             110 ms      +10.00 %  pull request 7, run 11\n"
	                            "  2023-11-15 00:43  444444444444              95 ms       -5.00 %  pull request 8, run 12\n"
	                            "  2023-11-15 03:46  444444444444             101 ms       +1.00 %  pull request 9, run 14\n"));
	assert_non_null(strstr(buf, "  pull requests' runs into main (against the median, 8 steps):\n"
	                            "  2023-11-14 22:46  444444444444               9 steps   +12.50 %  pull request 6, run 16\n"));
	assert_int_equal(count(buf, "pull request 5"), 0);
	free(buf);

	f = open_memstream(&buf, &len);
	assert_int_equal(tg_history_write_ex(f, TG_HISTORY_JSON, "acme/llm", "main", br, 6, &o), 0);
	fclose(f);
	json_error_t e;
	json_t *root = json_loads(buf, 0, &e);
	assert_non_null(root);
	json_t *se = json_array_get(json_object_get(root, "series"), 0);
	assert_string_equal(json_string_value(json_object_get(se, "metric")), "gpu_busy_ms");
	assert_int_equal(json_array_size(json_object_get(se, "points")), 4);
	json_t *pr = json_object_get(se, "pull_requests");
	assert_int_equal(json_array_size(pr), 4);
	json_t *p1 = json_array_get(pr, 1);
	assert_int_equal(json_integer_value(json_object_get(p1, "pr")), 7);
	assert_int_equal(json_integer_value(json_object_get(p1, "run")), 11);
	assert_int_equal(json_integer_value(json_object_get(p1, "time")), T0 + 1800);
	assert_string_equal(json_string_value(json_object_get(p1, "commit")), C4);
	assert_true(json_real_value(json_object_get(p1, "value")) == 110);
	json_decref(root);
	free(buf);

	/* csv: the branch's rows only */
	f = open_memstream(&buf, &len);
	assert_int_equal(tg_history_write_ex(f, TG_HISTORY_CSV, "acme/llm", "main", br, 6, &o), 0);
	fclose(f);
	assert_int_equal(count(buf, "\n"), 7);
	assert_int_equal(count(buf, C4), 0);
	free(buf);
#undef C4
}

/* The comparability fingerprint each run stores (a metric of value 1 named
 * fingerprint:GPU|DRIVER|RUNTIME|WORLD, the runtime "CUDA 13000") is said in words, the runtime as
 * people write it (CUDA 13.0, not 13000), and is no series (issue 23). */
static void test_fingerprint_in_words(void **state)
{
	(void)state;
	static char fp[] = "fingerprint:NVIDIA H200|580.65.06|CUDA 13000|1";
	const tg_history_point pts[] = {
		{1, T0, C1, "train", "gpu_busy_ms", 10, 0},
		{1, T0, C1, "train", fp, 1, 0},
		{2, T0 + 3600, C2, "train", "gpu_busy_ms", 12, 0},
		{2, T0 + 3600, C2, "train", fp, 1, 0},
	};
	char *html = render(TG_HISTORY_HTML, "acme/llm", "main", pts, 4);
	assert_non_null(strstr(html,
	                       "<p class=\"ref\">train ran on NVIDIA H200, driver 580.65.06, CUDA 13.0, world size 1 "
	                       "(2 runs)</p>"));
	assert_null(strstr(html, "fingerprint"));
	assert_null(strstr(html, "13000"));
	assert_non_null(strstr(html, "<p>1 series, 0 of them flat"));
	assert_int_equal(count(html, "<svg"), 1); /* gpu_busy_ms alone */
	free(html);
	char *text = render(TG_HISTORY_TEXT, "acme/llm", "main", pts, 4);
	assert_true(!strncmp(text, "history of acme/llm on main: 1 series\n", 38));
	assert_non_null(
		strstr(text, "\ntrain  ran on NVIDIA H200, driver 580.65.06, CUDA 13.0, world size 1 (2 runs)\n"));
	assert_null(strstr(text, "fingerprint"));
	free(text);
}

/* Renders with the options o into a string the caller frees. */
static char *render_ex(tg_history_format fmt, const tg_history_opts *o)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	if (tg_history_write_ex(f, fmt, "acme/llm", "main", points, NPOINTS, o))
		fail_msg("tg_history_write_ex: %s", tg_error_last());
	fclose(f);
	return buf;
}

/* A run recorded as tampered (a baseline whose trace no longer matches):
 * listed after the series in text, "tampered" in json, a table on the page
 * (its reason escaped), csv unchanged. */
static void test_tampered(void **state)
{
	(void)state;
	tg_job t = {.id = 2, .commit = (char *)C2, .workload = (char *)"train", .run_id = (char *)"ci-2",
	            .run_time = T0 + 3600,
	            .tampered = (char *)"rank0.json: does not match the sha256 its manifest gives " EVIL};
	tg_history_opts o = {.tampered = &t, .ntampered = 1};
	char *x = render_ex(TG_HISTORY_TEXT, &o);
	assert_non_null(strstr(x, "\ntampered runs of main (their files no longer match what was judged; never a "
	                          "baseline again):\n  2023-11-14 23:13  222222222222  train run ci-2: rank0.json: does "
	                          "not match the sha256 its manifest gives " EVIL "\n"));
	free(x);
	x = render_ex(TG_HISTORY_JSON, &o);
	json_error_t e;
	json_t *j = json_loads(x, 0, &e);
	assert_non_null(j);
	json_t *a = json_object_get(j, "tampered");
	assert_int_equal(json_array_size(a), 1);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(a, 0), "run")), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(a, 0), "run_id")), "ci-2");
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(a, 0), "why")), "sha256"));
	json_decref(j);
	free(x);
	x = render_ex(TG_HISTORY_HTML, &o);
	assert_non_null(strstr(x, "<h2>Tampered runs (1)</h2>"));
	assert_null(strstr(x, EVIL));
	assert_non_null(strstr(x, "&lt;script&gt;"));
	free(x);
	x = render_ex(TG_HISTORY_CSV, &o);
	assert_null(strstr(x, "tampered"));
	free(x);
	/* none: nothing added */
	o.ntampered = 0;
	x = render_ex(TG_HISTORY_JSON, &o);
	assert_null(strstr(x, "tampered"));
	free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_parse),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_csv),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_html),
		cmocka_unit_test(test_html_escapes_names),
		cmocka_unit_test(test_html_flat_and_noise),
		cmocka_unit_test(test_html_thresholds),
		cmocka_unit_test(test_html_band_ignores_a_step),
		cmocka_unit_test(test_html_index_link),
		cmocka_unit_test(test_changes),
		cmocka_unit_test(test_pull_requests),
		cmocka_unit_test(test_fingerprint_in_words),
		cmocka_unit_test(test_tampered),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
