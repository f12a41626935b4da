/* test_rules_load.c - the rules loader (rules/rules_load.c, rules/units.c):
 * every field of a full example, the defaults, the default grouping, glob
 * and regex patterns, the units, each error message with its exact
 * file:line:column, and the built-in rules, which must equal
 * contrib/rules/default.yaml byte for byte. */
#include "testutil.h"

#include "../rules/default_rules.h"
#include "../rules/rules.h"
#include "../rules/units.h"

#define FIX "tests/fixtures/rules/"

static tg_rules *must_load(const char *path)
{
	tg_rules *r = NULL;
	if (tg_rules_load_file(&r, path))
		fail_msg("%s", tg_error_last());
	assert_non_null(r);
	return r;
}

static tg_rules *must_load_str(const char *yaml)
{
	tg_rules *r = NULL;
	if (tg_rules_load_mem(&r, yaml, strlen(yaml), "m.yaml"))
		fail_msg("%s", tg_error_last());
	assert_non_null(r);
	return r;
}

static const tg_rule *must_find(const tg_rules *rs, const char *name)
{
	const tg_rule *r = tg_rules_find(rs, name);
	if (!r)
		fail_msg("no rule %s", name);
	return r;
}

static void assert_unset(const tg_pattern *p)
{
	assert_null(p->text);
	assert_int_equal(p->is_regex, 0);
}

static void assert_glob(const tg_pattern *p, const char *text)
{
	assert_non_null(p->text);
	assert_string_equal(p->text, text);
	assert_int_equal(p->is_regex, 0);
}

static void assert_regex(const tg_pattern *p, const char *text)
{
	assert_non_null(p->text);
	assert_string_equal(p->text, text);
	assert_int_equal(p->is_regex, 1);
}

/* ------------------------------------------------------------ full example */

static void test_full_example(void **state)
{
	(void)state;
	tg_rules *rs = must_load(FIX "full.yaml");
	assert_string_equal(tg_rules_source(rs), FIX "full.yaml");
	const tg_rules_settings *s = tg_rules_settings_get(rs);
	assert_true(s->confidence == 0.9);
	assert_int_equal(s->min_samples, 8);
	assert_true(s->fdr == 0.1);
	assert_int_equal(s->allow_hardware_change, 1);

	size_t n;
	const tg_rule *list = tg_rules_list(rs, &n);
	assert_int_equal(n, 11);
	static const char *const order[] = {"sdpa-forward", "gemm.time_2", "memory",   "syncs",
	                                    "mm_tflops",    "by-shape",    "by-module", "by-category",
	                                    "any-op",       "idle",        "memcpy"};
	for (size_t i = 0; i < n; i++) {
		assert_string_equal(list[i].name, order[i]);
		assert_ptr_equal(tg_rules_find(rs, order[i]), &list[i]);
	}

	const tg_rule *r = &list[0];
	assert_int_equal(r->line, 9);
	assert_int_equal(r->column, 5);
	assert_glob(&r->category, "SDPA_fwd");
	assert_glob(&r->op, "aten::*attention*");
	assert_regex(&r->kernel, "flash_(fwd|bwd)/v[0-9]+");
	assert_glob(&r->module, "*Attention*");
	assert_glob(&r->shape, "*(4, 8, 1024, 64)*");
	assert_int_equal(r->stream, 7);
	assert_int_equal(r->rank, 0);
	assert_int_equal(r->metric, TG_METRIC_KERNEL_TIME);
	assert_int_equal(r->aggregate, TG_AGG_EACH);
	assert_int_equal(r->by, TG_BY_OP);
	assert_true(r->block_above == 5.0);
	assert_true(r->warn_above == 2.0);
	assert_true(r->min_delta == 20000.0);
	assert_true(r->improvement_below == 2.5);

	r = &list[1];
	assert_int_equal(r->line, 26);
	assert_int_equal(r->column, 5);
	assert_glob(&r->kernel, "void gemm<float|half, 128>*");
	assert_unset(&r->category);
	assert_unset(&r->op);
	assert_int_equal(r->stream, -1);
	assert_int_equal(r->rank, -1);
	assert_int_equal(r->aggregate, TG_AGG_EACH);
	assert_int_equal(r->by, TG_BY_KERNEL);
	assert_true(isnan(r->block_above));
	assert_true(r->warn_above == 1.5);
	assert_true(r->min_delta == 1500000.0);
	assert_true(isnan(r->improvement_below));

	r = &list[2];
	assert_int_equal(r->metric, TG_METRIC_PEAK_MEMORY);
	assert_int_equal(r->rank, 3);
	assert_int_equal(r->stream, -1);
	assert_int_equal(r->aggregate, TG_AGG_TOTAL);
	assert_true(r->block_above == 10.0);
	assert_true(isnan(r->warn_above));
	assert_true(r->min_delta == 536870912.0);

	r = &list[3];
	assert_int_equal(r->metric, TG_METRIC_HOST_SYNCS);
	assert_true(r->warn_above == 0.0);
	assert_true(isnan(r->block_above));
	assert_true(r->min_delta == 1.0);

	r = &list[4];
	assert_glob(&r->op, "aten::mm");
	assert_int_equal(r->metric, TG_METRIC_TFLOPS);
	assert_int_equal(r->aggregate, TG_AGG_TOTAL);
	assert_int_equal(r->by, TG_BY_OP);
	assert_true(r->block_above == 3.0 && r->warn_above == 3.0); /* equal is allowed */
	assert_true(r->min_delta == 2.5);

	r = &list[5];
	assert_int_equal(r->metric, TG_METRIC_TBS);
	assert_int_equal(r->by, TG_BY_OP_SHAPE);
	assert_true(r->warn_above == 4.0);
	assert_true(r->min_delta == 0.0);

	r = &list[6];
	assert_int_equal(r->metric, TG_METRIC_COUNT);
	assert_regex(&r->module, "^Net_0/Attention_[0-9]+$");
	assert_int_equal(r->by, TG_BY_MODULE);
	assert_true(r->block_above == 0.0);
	assert_true(r->min_delta == 2.0);

	r = &list[7];
	assert_int_equal(r->metric, TG_METRIC_LAUNCH_OVERHEAD);
	assert_int_equal(r->by, TG_BY_CATEGORY);
	assert_true(r->min_delta == 500.0);

	r = &list[8];
	assert_int_equal(r->by, TG_BY_OP); /* no selector */
	assert_true(r->min_delta == 0.0);

	r = &list[9];
	assert_int_equal(r->metric, TG_METRIC_GPU_IDLE);
	assert_true(r->min_delta == 5e8);

	r = &list[10];
	assert_int_equal(r->metric, TG_METRIC_EXPOSED_MEMCPY);
	assert_int_equal(r->aggregate, TG_AGG_TOTAL);
	assert_true(r->block_above == 20.0);
	assert_true(r->min_delta == 1e6);

	assert_null(tg_rules_find(rs, "nope"));
	assert_null(tg_rules_find(rs, NULL));
	assert_null(tg_rules_find(NULL, "memory"));
	tg_rules_free(rs);
	tg_rules_free(NULL);
}

/* ------------------------------------------------------------ defaults */

static void test_defaults(void **state)
{
	(void)state;
	tg_rules *rs = must_load(FIX "ok_minimal.yaml");
	const tg_rules_settings *s = tg_rules_settings_get(rs);
	assert_true(s->confidence == 0.95);
	assert_int_equal(s->min_samples, 5);
	assert_true(s->fdr == 0.05);
	assert_int_equal(s->allow_hardware_change, 0);
	assert_true(s->history_confidence == 0.98);
	size_t n;
	const tg_rule *r = tg_rules_list(rs, &n);
	assert_int_equal(n, 1);
	assert_string_equal(r->name, "minimal");
	assert_int_equal(r->line, 3);
	assert_int_equal(r->column, 5);
	assert_unset(&r->category);
	assert_unset(&r->op);
	assert_unset(&r->kernel);
	assert_unset(&r->module);
	assert_unset(&r->shape);
	assert_int_equal(r->stream, -1);
	assert_int_equal(r->rank, -1);
	assert_int_equal(r->metric, TG_METRIC_KERNEL_TIME);
	assert_int_equal(r->aggregate, TG_AGG_TOTAL);
	assert_int_equal(r->by, TG_BY_OP);
	assert_true(r->block_above == 5.0); /* a bare number is a percent */
	assert_true(isnan(r->warn_above));
	assert_true(isnan(r->improvement_below));
	assert_true(r->min_delta == 0.0);
	tg_rules_free(rs);

	/* no rules at all: an empty list, a null list, or no list */
	static const char *const empty[] = {"version: 1\nrules: []\n", "version: 1\nrules:\n",
	                                    "version: 1\nsettings:\nrules: ~\n", "version: 1\n"};
	for (size_t i = 0; i < sizeof(empty) / sizeof(empty[0]); i++) {
		rs = must_load_str(empty[i]);
		assert_null(tg_rules_list(rs, &n));
		assert_int_equal(n, 0);
		assert_true(tg_rules_settings_get(rs)->confidence == 0.95);
		tg_rules_free(rs);
	}
	rs = must_load(FIX "ok_empty_rules.yaml");
	tg_rules_list(rs, &n);
	assert_int_equal(n, 0);
	tg_rules_free(rs);

	/* booleans */
	static const struct {
		const char *v;
		int want;
	} bools[] = {{"true", 1}, {"yes", 1}, {"True", 1}, {"YES", 1}, {"false", 0}, {"no", 0}, {"No", 0}};
	for (size_t i = 0; i < sizeof(bools) / sizeof(bools[0]); i++) {
		char y[128];
		snprintf(y, sizeof(y), "version: 1\nsettings:\n  allow_hardware_change: %s\n", bools[i].v);
		rs = must_load_str(y);
		assert_int_equal(tg_rules_settings_get(rs)->allow_hardware_change, bools[i].want);
		tg_rules_free(rs);
	}
}

/* The generated rules of tracegate diff's top-regressions table (cli/cmd_diff.c). */
static void test_generated_ops_rules(void **state)
{
	(void)state;
	static const char yaml[] = "version: 1\nsettings:\n  confidence: 0.950000\n  min_samples: 5\n"
	                           "  allow_hardware_change: true\nrules:\n  - name: ops\n    metric: kernel_time\n"
	                           "    aggregate: each\n    by: op\n    warn_above: 0\n";
	tg_rules *rs = must_load_str(yaml);
	const tg_rule *r = must_find(rs, "ops");
	assert_int_equal(r->aggregate, TG_AGG_EACH);
	assert_int_equal(r->by, TG_BY_OP);
	assert_true(r->warn_above == 0.0);
	assert_true(isnan(r->block_above));
	assert_int_equal(tg_rules_settings_get(rs)->allow_hardware_change, 1);
	assert_true(tg_rules_settings_get(rs)->confidence == 0.95);
	tg_rules_free(rs);
}

/* ------------------------------------------------------------ by */

static void test_by_default(void **state)
{
	(void)state;
	static const struct {
		const char *select;
		tg_rule_by want;
	} cases[] = {
		{"{}", TG_BY_OP},
		{"{category: GEMM}", TG_BY_CATEGORY},
		{"{category: GEMM, module: \"*Mlp*\"}", TG_BY_MODULE},
		{"{module: \"*Mlp*\", op: \"aten::mm\"}", TG_BY_OP},
		{"{op: \"aten::mm\", shape: \"*bf16*\"}", TG_BY_OP_SHAPE},
		{"{shape: \"*bf16*\", kernel: \"*gemm*\"}", TG_BY_KERNEL},
		{"{category: GEMM, kernel: /sm90/}", TG_BY_KERNEL},
		{"{stream: 7, rank: 1}", TG_BY_OP},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char y[256];
		snprintf(y, sizeof(y),
		         "version: 1\nrules:\n  - name: r\n    select: %s\n    metric: kernel_time\n"
		         "    aggregate: each\n    warn_above: 5%%\n",
		         cases[i].select);
		tg_rules *rs = must_load_str(y);
		const tg_rule *r = must_find(rs, "r");
		if (r->by != cases[i].want)
			fail_msg("case %zu: by %s, want %s", i, tg_rule_by_name(r->by), tg_rule_by_name(cases[i].want));
		tg_rules_free(rs);
	}
	/* an explicit by wins */
	tg_rules *rs = must_load_str("version: 1\nrules:\n  - name: r\n    select: {kernel: \"*gemm*\"}\n"
	                             "    metric: count\n    aggregate: each\n    by: category\n    warn_above: 5%\n");
	assert_int_equal(must_find(rs, "r")->by, TG_BY_CATEGORY);
	tg_rules_free(rs);
}

/* ------------------------------------------------------------ patterns */

static void test_patterns(void **state)
{
	(void)state;
	tg_rules *rs = must_load(FIX "full.yaml");
	const tg_rule *sdpa = must_find(rs, "sdpa-forward");
	const tg_rule *gemm = must_find(rs, "gemm.time_2");
	const tg_rule *mod = must_find(rs, "by-module");
	const tg_rule *cat = must_find(rs, "by-category");

	/* regex: unanchored ERE, alternation, \/ is a slash */
	assert_true(tg_pattern_match(&sdpa->kernel, "flash_fwd/v2_kernel"));
	assert_true(tg_pattern_match(&sdpa->kernel, "void pytorch_flash::flash_bwd/v10<Flash_bwd_params>(int)"));
	assert_false(tg_pattern_match(&sdpa->kernel, "flash_fwd_v2_kernel"));
	assert_false(tg_pattern_match(&sdpa->kernel, "flash_fwd/"));
	assert_false(tg_pattern_match(&sdpa->kernel, NULL));
	assert_true(tg_pattern_match(&mod->module, "Net_0/Attention_12"));
	assert_false(tg_pattern_match(&mod->module, "Net_0/Attention_12/Linear_0"));
	assert_false(tg_pattern_match(&mod->module, "xNet_0/Attention_1"));

	/* glob: fnmatch without flags; |, <, > are literal, * crosses them */
	assert_true(tg_pattern_match(&gemm->kernel, "void gemm<float|half, 128>(int, float*)"));
	assert_true(tg_pattern_match(&gemm->kernel, "void gemm<float|half, 128>"));
	assert_false(tg_pattern_match(&gemm->kernel, "void gemm<float, 128>(int)"));
	assert_false(tg_pattern_match(&gemm->kernel, "void gemm<half, 128>(int)"));
	assert_true(tg_pattern_match(&sdpa->op, "aten::_scaled_dot_product_flash_attention"));
	assert_false(tg_pattern_match(&sdpa->op, "aten::mm"));
	assert_true(tg_pattern_match(&sdpa->shape, "((4, 8, 1024, 64), (4, 8, 1024, 64))"));
	assert_true(tg_pattern_match(&sdpa->category, "SDPA_fwd"));
	assert_false(tg_pattern_match(&sdpa->category, "SDPA_fwd2"));
	assert_false(tg_pattern_match(&sdpa->category, "sdpa_fwd"));
	assert_true(tg_pattern_match(&cat->category, ""));
	assert_true(tg_pattern_match(&cat->category, NULL));

	/* unset matches everything */
	assert_true(tg_pattern_match(&gemm->op, "anything"));
	assert_true(tg_pattern_match(&gemm->op, NULL));
	assert_true(tg_pattern_match(NULL, "x"));
	tg_rules_free(rs);

	/* more kernel names with <, >, | and slashes; escaped brackets in a glob */
	static const struct {
		const char *pattern, *name;
		int want;
	} cases[] = {
		{"\"*elementwise_kernel<128, 4*>*\"",
		 "void at::native::elementwise_kernel<128, 4, at::native::gpu_kernel_impl<F>(at::TensorIteratorBase&)"
		 "::{lambda(int)#1}>(int, F)",
		 1},
		{"/elementwise_kernel<128, [0-9]+,/", "void at::native::elementwise_kernel<128, 4, F>(int)", 1},
		{"/elementwise_kernel<128, [0-9]+,/", "void at::native::elementwise_kernel<64, 4, F>(int)", 0},
		{"'/^ncclDevKernel_(AllReduce|AllGather)_/'", "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgs)", 1},
		{"'/^ncclDevKernel_(AllReduce|AllGather)_/'", "ncclDevKernel_ReduceScatter_Sum_f32", 0},
		{"/a\\/b|c>d/", "x a/b y", 1},
		{"/a\\/b|c>d/", "c>d", 1},
		{"/a\\/b|c>d/", "a\\/b", 0},
		{"'/a\\\\/'", "a\\", 1}, /* an escaped backslash before the closing slash */
		{"\"*\\\\[4\\\\]*\"", "float[4]", 1}, /* glob *\[4\]* */
		{"\"*\\\\[4\\\\]*\"", "float4", 0},
		{"\"*[4]*\"", "float4", 1},           /* a bracket expression */
		{"\"a|b\"", "a", 0},
		{"\"a|b\"", "a|b", 1},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char y[512];
		snprintf(y, sizeof(y),
		         "version: 1\nrules:\n  - name: r\n    select:\n      kernel: %s\n    metric: count\n"
		         "    warn_above: 5%%\n",
		         cases[i].pattern);
		rs = must_load_str(y);
		const tg_rule *r = must_find(rs, "r");
		if (tg_pattern_match(&r->kernel, cases[i].name) != cases[i].want)
			fail_msg("case %zu: pattern %s on '%s': want %d", i, cases[i].pattern, cases[i].name, cases[i].want);
		tg_rules_free(rs);
	}
}

/* ------------------------------------------------------------ units */

static void test_units(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		tg_rule_unit unit;
		double want;
	} ok[] = {
		{"20us", TG_UNIT_TIME, 20000},       {"1.5ms", TG_UNIT_TIME, 1500000}, {"1.5 ms", TG_UNIT_TIME, 1500000},
		{"250ns", TG_UNIT_TIME, 250},        {"2s", TG_UNIT_TIME, 2e9},        {"0.5s", TG_UNIT_TIME, 5e8},
		{"2\xc2\xb5s", TG_UNIT_TIME, 2000},  {".5us", TG_UNIT_TIME, 500},      {"1e3 us", TG_UNIT_TIME, 1e6},
		{"0.3ms", TG_UNIT_TIME, 300000},     {"0", TG_UNIT_TIME, 0},           {"512MiB", TG_UNIT_BYTES, 536870912},
		{"1GiB", TG_UNIT_BYTES, 1073741824}, {"1.5KiB", TG_UNIT_BYTES, 1536},  {"2GB", TG_UNIT_BYTES, 2e9},
		{"3 KB", TG_UNIT_BYTES, 3000},       {"4MB", TG_UNIT_BYTES, 4e6},      {"100B", TG_UNIT_BYTES, 100},
		{"0", TG_UNIT_BYTES, 0},             {"7", TG_UNIT_COUNT, 7},          {"0.5", TG_UNIT_COUNT, 0.5},
		{"2.5", TG_UNIT_RATE, 2.5},          {"5.", TG_UNIT_RATE, 5},
	};
	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		double v = -1;
		const char *why = NULL;
		if (tg_units_parse_quantity(&v, ok[i].s, ok[i].unit, &why))
			fail_msg("'%s': %s", ok[i].s, why);
		if (v != ok[i].want)
			fail_msg("'%s': %.17g, want %.17g", ok[i].s, v, ok[i].want);
	}
	static const struct {
		const char *s;
		tg_rule_unit unit;
		const char *why;
	} bad[] = {
		{"20", TG_UNIT_TIME, "needs a time unit (ns, us, ms, s), e.g. 20us"},
		{"20 sec", TG_UNIT_TIME, "has an unknown time unit (expected ns, us, ms or s)"},
		{"20US", TG_UNIT_TIME, "has an unknown time unit (expected ns, us, ms or s)"},
		{"ms", TG_UNIT_TIME, "is not a time (write 20us or 1.5ms)"},
		{"-1ms", TG_UNIT_TIME, "must not be negative"},
		{"512", TG_UNIT_BYTES, "needs a byte unit (B, KB, MB, GB, KiB, MiB, GiB), e.g. 512MiB"},
		{"512mb", TG_UNIT_BYTES, "has an unknown byte unit (expected B, KB, MB, GB, KiB, MiB or GiB)"},
		{"5us", TG_UNIT_COUNT, "takes a bare number (a count), without a unit"},
		{"5%", TG_UNIT_COUNT, "takes a bare number (a count), without a unit"},
		{"1.5 TB/s", TG_UNIT_RATE, "takes a bare number in the metric's unit (TFLOPS/s or TB/s)"},
		{"abc", TG_UNIT_COUNT, "is not a number"},
		{"0x10", TG_UNIT_COUNT, "takes a bare number (a count), without a unit"},
		{"nan", TG_UNIT_COUNT, "is not a number"},
		{"inf", TG_UNIT_RATE, "is not a number"},
		{"1e999", TG_UNIT_RATE, "is too large"},
		{"", TG_UNIT_COUNT, "is not a number"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		double v = -1;
		const char *why = NULL;
		if (!tg_units_parse_quantity(&v, bad[i].s, bad[i].unit, &why))
			fail_msg("'%s' parsed as %g", bad[i].s, v);
		if (strcmp(why, bad[i].why))
			fail_msg("'%s': '%s', want '%s'", bad[i].s, why, bad[i].why);
	}

	static const struct {
		const char *s;
		double want;
	} pct[] = {{"5%", 5}, {"5 %", 5}, {"5", 5}, {"0.5%", 0.5}, {"0", 0}, {"2.5", 2.5}, {"150%", 150}, {"-0", 0}};
	for (size_t i = 0; i < sizeof(pct) / sizeof(pct[0]); i++) {
		double v = -1;
		const char *why = NULL;
		if (tg_units_parse_percent(&v, pct[i].s, &why))
			fail_msg("'%s': %s", pct[i].s, why);
		assert_true(v == pct[i].want);
	}
	static const char *const bad_pct[] = {"-5%", "five", "5%%", "%", "5 percent", "", "1e999%"};
	for (size_t i = 0; i < sizeof(bad_pct) / sizeof(bad_pct[0]); i++) {
		double v = -1;
		const char *why = NULL;
		if (!tg_units_parse_percent(&v, bad_pct[i], &why))
			fail_msg("'%s' parsed as %g", bad_pct[i], v);
		assert_non_null(why);
	}

	/* the number grammar */
	double v;
	const char *end;
	assert_int_equal(tg_units_parse_number(&v, "12.25e2x", &end), 0);
	assert_true(v == 1225);
	assert_string_equal(end, "x");
	assert_int_equal(tg_units_parse_number(&v, "3e", &end), 0); /* "e" is not an exponent */
	assert_true(v == 3);
	assert_string_equal(end, "e");
	assert_int_equal(tg_units_parse_number(&v, "0.1", &end), 0);
	assert_true(v == 0.1);
	assert_int_equal(tg_units_parse_number(&v, "123456789012345678901234", &end), 0);
	assert_true(fabs(v - 1.23456789012345678901234e23) < 1e9);
	assert_int_equal(tg_units_parse_number(&v, ".", &end), -1);
	assert_int_equal(tg_units_parse_number(&v, "+1", &end), -1);
	assert_int_equal(tg_units_parse_number(&v, "-1", &end), -1);
}

static void test_metric_tables(void **state)
{
	(void)state;
	static const char *const names[] = {"kernel_time", "count",  "gpu_busy", "gpu_idle",
	                                    "exposed_comm", "exposed_memcpy", "tflops", "tbs",
	                                    "launch_overhead", "host_syncs", "peak_memory", "finding_cost"};
	static const tg_rule_unit units[] = {TG_UNIT_TIME, TG_UNIT_COUNT, TG_UNIT_TIME, TG_UNIT_TIME,
	                                     TG_UNIT_TIME, TG_UNIT_TIME,  TG_UNIT_RATE, TG_UNIT_RATE,
	                                     TG_UNIT_TIME, TG_UNIT_COUNT, TG_UNIT_BYTES, TG_UNIT_TIME};
	assert_int_equal(TG_METRIC_COUNT_, 12);
	for (int m = 0; m < TG_METRIC_COUNT_; m++) {
		assert_string_equal(tg_rule_metric_name((tg_rule_metric)m), names[m]);
		assert_int_equal(tg_rule_metric_unit((tg_rule_metric)m), units[m]);
		assert_int_equal(tg_rule_metric_higher_is_worse((tg_rule_metric)m),
		                 m != TG_METRIC_TFLOPS && m != TG_METRIC_TBS);
	}
	assert_null(tg_rule_metric_name(TG_METRIC_COUNT_));
	assert_null(tg_rule_metric_name((tg_rule_metric)-1));
	assert_string_equal(tg_rule_by_name(TG_BY_CATEGORY), "category");
	assert_string_equal(tg_rule_by_name(TG_BY_OP), "op");
	assert_string_equal(tg_rule_by_name(TG_BY_OP_SHAPE), "op_shape");
	assert_string_equal(tg_rule_by_name(TG_BY_KERNEL), "kernel");
	assert_string_equal(tg_rule_by_name(TG_BY_MODULE), "module");
	assert_null(tg_rule_by_name((tg_rule_by)5));

	/* every metric name loads as itself */
	for (int m = 0; m < TG_METRIC_COUNT_; m++) {
		char y[256];
		snprintf(y, sizeof(y), "version: 1\nrules:\n  - name: r\n    metric: %s\n%s    warn_above: 1%%\n",
		         names[m], m == TG_METRIC_FINDING_COST ? "    select: {finding: host-sync}\n" : "");
		tg_rules *rs = must_load_str(y);
		assert_int_equal(must_find(rs, "r")->metric, m);
		tg_rules_free(rs);
	}
}

/* decide: likely by default, surely when said. */
static void test_decide(void **state)
{
	(void)state;
	const char *y = "version: 1\nrules:\n  - name: a\n    metric: kernel_time\n    block_above: 5%\n"
	                "  - name: b\n    metric: kernel_time\n    block_above: 5%\n    decide: surely\n"
	                "  - name: c\n    metric: kernel_time\n    block_above: 5%\n    decide: likely\n";
	tg_rules *r;
	assert_int_equal(tg_rules_load_mem(&r, y, strlen(y), "t.yaml"), 0);
	size_t n;
	const tg_rule *l = tg_rules_list(r, &n);
	assert_int_equal(n, 3);
	assert_int_equal(l[0].decide, TG_DECIDE_LIKELY);
	assert_int_equal(l[1].decide, TG_DECIDE_SURELY);
	assert_int_equal(l[2].decide, TG_DECIDE_LIKELY);
	assert_string_equal(tg_rule_decide_name(l[1].decide), "surely");
	tg_rules_free(r);
}

/* ------------------------------------------------------------ errors */

/* Each error message of a rules file is a fixture of tests/data/bad/rules/
 * (test_bad_input.c); here: a file that cannot be read, bad arguments. */
static void test_io(void **state)
{
	(void)state;
	/* a file that cannot be read, bad arguments */
	tg_rules *rs = (tg_rules *)1;
	assert_int_equal(tg_rules_load_file(&rs, FIX "no_such_file.yaml"), TG_EIO);
	assert_null(rs);
	assert_string_equal(tg_error_last(), FIX "no_such_file.yaml: cannot open: No such file or directory");
	assert_int_equal(tg_rules_load_file(&rs, FIX), TG_EIO);
	assert_string_equal(tg_error_last(), FIX ": cannot read: Is a directory");
	assert_int_equal(tg_rules_load_mem(NULL, "", 0, "x"), TG_EINVAL);
	assert_int_equal(tg_rules_load_mem(&rs, NULL, 3, "x"), TG_EINVAL);
	assert_int_equal(tg_rules_load_mem(&rs, NULL, 0, NULL), TG_EFORMAT);
	assert_string_equal(tg_error_last(), "<rules>:1:1: empty rules file (expected version: 1, settings, rules)");
}

/* Nesting: 32 levels reach the loader, 33 are refused at the 33rd
 * collection, and a megabyte of '[' is refused in the first pass (libyaml
 * alone would take hours: its scanner is quadratic in the depth). */
static void test_deep_nesting(void **state)
{
	(void)state;
	size_t n = 1u << 20;
	char *s = malloc(n + 16);
	assert_non_null(s);
	/* root mapping + 31 lists = 32 levels: the validation speaks */
	int len = snprintf(s, n, "settings: ");
	memset(s + len, '[', 31);
	memset(s + len + 31, ']', 31);
	s[len + 62] = 0;
	tg_rules *rs = (tg_rules *)1;
	assert_int_equal(tg_rules_load_mem(&rs, s, strlen(s), "m.yaml"), TG_EFORMAT);
	assert_null(rs);
	assert_string_equal(tg_error_last(), "m.yaml:1:1: missing 'version: 1' (the version of the rules format)");
	/* 33 levels */
	memset(s + len, '[', 32);
	memset(s + len + 32, ']', 32);
	s[len + 64] = 0;
	assert_int_equal(tg_rules_load_mem(&rs, s, strlen(s), "m.yaml"), TG_EFORMAT);
	assert_string_equal(tg_error_last(), "m.yaml:1:42: nested deeper than 32 levels");
	/* block collections count too */
	len = 0;
	for (int d = 0; d < 40; d++)
		len += snprintf(s + len, n - (size_t)len, "%*sk%d:\n", 2 * d, "", d);
	assert_int_equal(tg_rules_load_mem(&rs, s, (size_t)len, "m.yaml"), TG_EFORMAT);
	assert_string_equal(tg_error_last(), "m.yaml:33:65: nested deeper than 32 levels");
	/* a megabyte of '[' */
	memset(s, '[', n);
	assert_int_equal(tg_rules_load_mem(&rs, s, n, "m.yaml"), TG_EFORMAT);
	assert_string_equal(tg_error_last(), "m.yaml:1:33: nested deeper than 32 levels");
	assert_null(rs);
	free(s);
}

/* ------------------------------------------------------------ built-in rules */

static void test_default_rules(void **state)
{
	(void)state;
	/* identical to the file users copy */
	size_t len;
	char *file = tg_test_slurp("contrib/rules/default.yaml", &len);
	assert_non_null(file);
	assert_int_equal(tg_rules_default_yaml_len, len);
	assert_int_equal(strlen(tg_rules_default_yaml), len);
	if (memcmp(file, tg_rules_default_yaml, len)) {
		size_t i = 0;
		while (file[i] == tg_rules_default_yaml[i])
			i++;
		fail_msg("rules/default_rules.c differs from contrib/rules/default.yaml at byte %zu", i);
	}
	free(file);

	tg_rules *rs = NULL;
	assert_int_equal(tg_rules_load_default(&rs), 0);
	assert_string_equal(tg_rules_source(rs), "<default>");
	const tg_rules_settings *s = tg_rules_settings_get(rs);
	assert_true(s->confidence == 0.95);
	assert_int_equal(s->min_samples, 5);
	assert_true(s->fdr == 0.05);
	assert_int_equal(s->allow_hardware_change, 0);
	size_t n;
	const tg_rule *list = tg_rules_list(rs, &n);
	assert_int_equal(n, 6);

	static const struct {
		const char *name, *category;
		tg_rule_metric metric;
		double block, warn, min_delta, share;
	} want[] = {
		/* the time floors are a share of the base's GPU time a step */
		{"sdpa-forward", "SDPA_fwd", TG_METRIC_KERNEL_TIME, 5, 2, 0, 0.1},
		{"sdpa-backward", "SDPA_bwd", TG_METRIC_KERNEL_TIME, 5, 2, 0, 0.1},
		{"gemm", "GEMM", TG_METRIC_KERNEL_TIME, 5, 2, 0, 0.1},
		{"gpu-busy", NULL, TG_METRIC_GPU_BUSY, 3, 2, 0, 0.1},
		{"exposed-comm", NULL, TG_METRIC_EXPOSED_COMM, NAN, 5, 0, 0.1},
		{"host-syncs", NULL, TG_METRIC_HOST_SYNCS, NAN, 0, 1, 0},
	};
	for (size_t i = 0; i < n; i++) {
		const tg_rule *r = &list[i];
		assert_string_equal(r->name, want[i].name);
		if (want[i].category)
			assert_glob(&r->category, want[i].category);
		else
			assert_unset(&r->category);
		assert_unset(&r->op);
		assert_unset(&r->kernel);
		assert_int_equal(r->metric, want[i].metric);
		assert_int_equal(r->aggregate, TG_AGG_TOTAL);
		if (isnan(want[i].block))
			assert_true(isnan(r->block_above));
		else
			assert_true(r->block_above == want[i].block);
		assert_true(r->warn_above == want[i].warn);
		assert_true(r->min_delta == want[i].min_delta);
		assert_true(r->min_delta_share == want[i].share);
		assert_true(isnan(r->improvement_below));
	}
	tg_rules_free(rs);

	/* the file loads the same, under its own name */
	rs = must_load("contrib/rules/default.yaml");
	assert_string_equal(tg_rules_source(rs), "contrib/rules/default.yaml");
	tg_rules_list(rs, &n);
	assert_int_equal(n, 6);
	assert_true(must_find(rs, "gpu-busy")->block_above == 3.0);
	tg_rules_free(rs);
}

/* The built-in defaults are those of contrib/rules/default.yaml. */
static void test_defaults_match_rules(void **state)
{
	(void)state;
	tg_findings_opts d;
	tg_findings_opts_default(&d);
	tg_rules *r;
	tg_test_must(tg_rules_load_default(&r));
	const tg_findings_opts *o = tg_rules_findings(r);
	for (int i = 0; i < TG_FINDING_COUNT; i++) {
		assert_int_equal(o->limits[i].enabled, 1);
		assert_true(o->limits[i].min_cost == d.limits[i].min_cost);
		assert_true(o->limits[i].param == d.limits[i].param);
	}
	assert_true(o->worse_above == d.worse_above);
	tg_rules_free(r);
	/* the values themselves */
	assert_true(d.limits[TG_FINDING_HOST_SYNC].min_cost == 1);
	assert_true(d.limits[TG_FINDING_LAUNCH_BOUND].param == 200e3);
	assert_true(d.limits[TG_FINDING_IDLE_GAP].param == 1e6);
	assert_true(d.limits[TG_FINDING_GEMM_ALIGNMENT].param == 16);
	assert_true(d.worse_above == 25);
}

/* A rules file's findings: section, over the defaults. */
static void test_rules_section(void **state)
{
	(void)state;
	static const char y[] = "version: 1\n"
	                        "findings:\n"
	                        "  worse_above: 10%\n"
	                        "  host-sync: {min_cost: 0.5%}\n"
	                        "  idle-gap: {min_gap: 300us, min_cost: 2%}\n"
	                        "  launch-bound: {max_gap: 50us}\n"
	                        "  first-step-slow: {min_ratio: 2}\n"
	                        "  gemm-alignment: {align_bytes: 32}\n"
	                        "  low-efficiency: off\n"
	                        "  straggler: {enabled: false}\n"
	                        "  all-ranks-idle: on\n";
	tg_rules *r;
	tg_test_must(tg_rules_load_mem(&r, y, strlen(y), "f.yaml"));
	const tg_findings_opts *o = tg_rules_findings(r);
	assert_true(o->worse_above == 10);
	assert_true(o->limits[TG_FINDING_HOST_SYNC].min_cost == 0.5);
	assert_true(o->limits[TG_FINDING_IDLE_GAP].param == 300e3);
	assert_true(o->limits[TG_FINDING_IDLE_GAP].min_cost == 2);
	assert_true(o->limits[TG_FINDING_LAUNCH_BOUND].param == 50e3);
	assert_true(o->limits[TG_FINDING_LAUNCH_BOUND].min_cost == 20); /* untouched */
	assert_true(o->limits[TG_FINDING_FIRST_STEP_SLOW].param == 2);
	assert_true(o->limits[TG_FINDING_GEMM_ALIGNMENT].param == 32);
	assert_int_equal(o->limits[TG_FINDING_LOW_EFFICIENCY].enabled, 0);
	assert_int_equal(o->limits[TG_FINDING_STRAGGLER].enabled, 0);
	assert_int_equal(o->limits[TG_FINDING_ALL_RANKS_IDLE].enabled, 1);
	tg_rules_free(r);
}

/* A rule on a finding: metric finding_cost implied, the glob kept, each
 * allowed (one item per finding). */
static void test_finding_rule(void **state)
{
	(void)state;
	static const char y[] = "version: 1\n"
	                        "rules:\n"
	                        "  - name: no-new-sync\n"
	                        "    select: {finding: host-sync}\n"
	                        "    block_above: 0%\n"
	                        "    min_delta: 50us\n"
	                        "  - name: any\n"
	                        "    metric: finding_cost\n"
	                        "    select: {finding: \"*\"}\n"
	                        "    aggregate: each\n"
	                        "    warn_above: 10%\n";
	tg_rules *r;
	tg_test_must(tg_rules_load_mem(&r, y, strlen(y), "f.yaml"));
	const tg_rule *a = tg_rules_find(r, "no-new-sync"), *b = tg_rules_find(r, "any");
	assert_int_equal(a->metric, TG_METRIC_FINDING_COST);
	assert_string_equal(a->finding.text, "host-sync");
	assert_true(a->min_delta == 50e3);
	assert_true(a->block_above == 0);
	assert_int_equal(b->aggregate, TG_AGG_EACH);
	assert_true(tg_pattern_match(&b->finding, "straggler"));
	assert_int_equal(tg_rule_metric_unit(TG_METRIC_FINDING_COST), TG_UNIT_TIME);
	tg_rules_free(r);
}

/* min_delta as a percent: a share of the base's GPU time a step, for the
 * time metrics. */
static void test_min_delta_share(void **state)
{
	(void)state;
	const char *y = "version: 1\nrules:\n  - name: a\n    metric: kernel_time\n    block_above: 5%\n"
	                "    min_delta: 0.25 %\n  - name: b\n    metric: gpu_idle\n    warn_above: 5%\n"
	                "    min_delta: 0%\n";
	tg_rules *rs = NULL;
	assert_int_equal(tg_rules_load_mem(&rs, y, strlen(y), "t.yaml"), 0);
	size_t n;
	const tg_rule *r = tg_rules_list(rs, &n);
	assert_int_equal(n, 2);
	assert_true(r[0].min_delta == 0 && r[0].min_delta_share == 0.25);
	assert_true(r[1].min_delta == 0 && r[1].min_delta_share == 0);
	tg_rules_free(rs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_example),   cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_min_delta_share),
		cmocka_unit_test(test_generated_ops_rules), cmocka_unit_test(test_by_default),
		cmocka_unit_test(test_patterns),       cmocka_unit_test(test_units),
		cmocka_unit_test(test_metric_tables),  cmocka_unit_test(test_decide),
		cmocka_unit_test(test_io),     cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_default_rules),
		cmocka_unit_test(test_defaults_match_rules), cmocka_unit_test(test_rules_section),
		cmocka_unit_test(test_finding_rule),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
