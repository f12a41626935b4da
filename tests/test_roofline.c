/* test_roofline.c - the roofline of one op row and the compute-spec naming:
 * hand-computed cases, then every row of TraceLens's roofline reports on
 * MI300X (../shared/reference/tracelens/..._roofline_MI300X_csvs), recomputed
 * from the row's GFLOPS, Data Moved and kernel times with the built-in
 * MI300X spec and compared with the row's roofline columns to 1e-6. */
#include "testutil.h"

#include "../core/models/gpu_specs.h"
#include "../core/models/roofline.h"

#include <dirent.h>
#include <math.h>

static int near(double a, double b)
{
	if (isnan(a) || isnan(b))
		return isnan(a) && isnan(b);
	return fabs(a - b) <= 1e-6 * fmax(fabs(a), fabs(b)) || fabs(a - b) < 1e-12;
}

#define assert_near(a, b)                                                                  \
	do {                                                                                   \
		double a_ = (a), b_ = (b);                                                         \
		if (!near(a_, b_))                                                                 \
			fail_msg("%s = %.17g, want %.17g", #a, a_, b_);                                \
	} while (0)

static const tg_gpu_spec *spec_named(tg_gpu_specs *s, const char *name)
{
	const tg_gpu_spec *g = NULL;
	assert_int_equal(tg_gpu_specs_find(&g, s, name), 0);
	return g;
}

/* ------------------------------------------------------------ by hand */

static void test_hand_cases(void **state)
{
	(void)state;
	tg_gpu_specs *s = NULL;
	assert_int_equal(tg_gpu_specs_new(&s), 0);
	const tg_gpu_spec *mi = spec_named(s, "MI300X");
	tg_roofline r;

	/* 7.08e9 flops at 708 TFLOPS = 10 us; 2.12e7 bytes at 5300 GB/s = 4 us;
	 * a 20 us kernel: 50 % of the roofline, 354 TFLOPS/s, 1.06 TB/s */
	assert_int_equal(tg_roofline_compute(&r, 7.08e9, 2.12e7, "matrix_bf16", 20, mi), 0);
	assert_near(r.compute_us, 10);
	assert_near(r.memory_us, 4);
	assert_near(r.roofline_us, 10);
	assert_int_equal(r.bound, TG_BOUND_COMPUTE);
	assert_string_equal(tg_roofline_bound_name(r.bound), "COMPUTE_BOUND");
	assert_near(r.pct_roofline, 50);
	assert_near(r.tflops_s, 354);
	assert_near(r.tb_s, 1.06);
	assert_near(r.flops_per_byte, 7.08e9 / 2.12e7);

	/* the same op as elementwise fp32: 7.08e9 / 163e12 s = 43.435... us */
	assert_int_equal(tg_roofline_compute(&r, 7.08e9, 2.12e7, "vector_fp32", 100, mi), 0);
	assert_near(r.compute_us, 7.08e9 / 163e6);
	assert_near(r.pct_roofline, 7.08e9 / 163e6);

	/* memory bound: 1e6 flops (1.412 ns at bf16), 5.3e7 bytes = 10 us; 12.5 us */
	assert_int_equal(tg_roofline_compute(&r, 1e6, 5.3e7, "vector_bf16", 12.5, mi), 0);
	assert_near(r.compute_us, 1e6 / 163e6);
	assert_near(r.memory_us, 10);
	assert_near(r.roofline_us, 10);
	assert_int_equal(r.bound, TG_BOUND_MEMORY);
	assert_string_equal(tg_roofline_bound_name(r.bound), "MEMORY_BOUND");
	assert_near(r.pct_roofline, 80);
	assert_near(r.tb_s, 4.24);

	/* a tie is compute bound (TraceLens: compute_us >= memory_us) */
	assert_int_equal(tg_roofline_compute(&r, 7.08e9, 5.3e7, "matrix_bf16", 10, mi), 0);
	assert_true(r.compute_us == r.memory_us);
	assert_int_equal(r.bound, TG_BOUND_COMPUTE);
	assert_near(r.pct_roofline, 100);

	/* faster than the roofline (a wrong model, or a measured peak): > 100 % */
	assert_int_equal(tg_roofline_compute(&r, 7.08e9, 0, "matrix_bf16", 5, mi), 0);
	assert_near(r.pct_roofline, 200);
	assert_true(isnan(r.flops_per_byte));
	assert_near(r.memory_us, 0);

	/* H100 SXM: 989.4 TFLOPS bf16, 3350 GB/s */
	const tg_gpu_spec *h = spec_named(s, "H100 SXM");
	assert_int_equal(tg_roofline_compute(&r, 989.4e9, 3.35e9, "matrix_bf16", 2000, h), 0);
	assert_near(r.compute_us, 1000);
	assert_near(r.memory_us, 1000);
	assert_int_equal(r.bound, TG_BOUND_COMPUTE);
	assert_near(r.pct_roofline, 50);

	/* no kernel time: roofline without achieved numbers */
	assert_int_equal(tg_roofline_compute(&r, 7.08e9, 2.12e7, "matrix_bf16", 0, mi), 0);
	assert_near(r.roofline_us, 10);
	assert_true(isnan(r.pct_roofline) && isnan(r.tflops_s) && isnan(r.tb_s));

	/* no peak for the spec: achieved numbers, no roofline */
	const tg_gpu_spec *a100 = spec_named(s, "A100 40GB");
	assert_int_equal(tg_roofline_compute(&r, 1e9, 1e6, "matrix_fp8", 10, a100), TG_ENOTFOUND);
	assert_non_null(strstr(tg_error_last(), "matrix_fp8"));
	assert_true(isnan(r.roofline_us) && isnan(r.pct_roofline) && isnan(r.compute_us));
	assert_int_equal(r.bound, TG_BOUND_UNKNOWN);
	assert_string_equal(tg_roofline_bound_name(r.bound), "");
	assert_near(r.memory_us, 1e6 / 1555e3);
	assert_near(r.tflops_s, 100);
	/* a TraceLens name no GPU has a peak for */
	assert_int_equal(tg_roofline_compute(&r, 1e9, 1e6, "vector_fp8", 10, mi), TG_ENOTFOUND);
	/* unknown bytes (TraceLens: NaN for unknown dtypes) */
	assert_int_equal(tg_roofline_compute(&r, 1e9, NAN, "vector_bf16", 10, mi), TG_ENOTFOUND);
	assert_true(isnan(r.roofline_us) && isnan(r.tb_s));
	assert_near(r.tflops_s, 100);
	/* caller mistakes */
	assert_int_equal(tg_roofline_compute(&r, 1e9, 1e6, "bf16", 10, mi), TG_EINVAL);
	assert_int_equal(tg_roofline_compute(&r, 1e9, 1e6, NULL, 10, mi), TG_EINVAL);
	assert_int_equal(tg_roofline_compute(&r, 1e9, 1e6, "matrix_bf16", 10, NULL), TG_EINVAL);
	assert_int_equal(tg_roofline_compute(&r, -1, 1e6, "matrix_bf16", 10, mi), TG_EINVAL);
	tg_gpu_specs_free(s);
}

static void test_compute_spec_names(void **state)
{
	(void)state;
	static const struct {
		const char *dtype, *prec;
	} cases[] = {
		{"float", "fp32"},
		{"double", "fp64"},
		{"c10::Half", "fp16"},
		{"c10::BFloat16", "bf16"},
		{"c10::Float8_e4m3fnuz", "fp8"},
		{"c10::Float8_e4m3fn", "fp8"},
		{"c10::Float8_e5m2", "fp8"},
		{"c10::Float8_e5m2fnuz", "fp8"},
		{"unsigned char", "fp8"},
		{"c10::Float4_e2m1fn_x2", "fp4"},
		{"torch.bfloat16", "bf16"},
		{"torch.float32", "fp32"},
		{"FLOAT", "fp32"},
		{"long int", NULL},
		{"int", NULL},
		{"bool", NULL},
		{"Scalar", NULL},
		{"c10::complex<float>", NULL},
		{"", NULL},
		{NULL, NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *p = tg_roofline_precision(cases[i].dtype);
		if (cases[i].prec ? !p || strcmp(p, cases[i].prec) : p != NULL)
			fail_msg("%s: got %s, want %s", cases[i].dtype ? cases[i].dtype : "(null)",
			         p ? p : "none", cases[i].prec ? cases[i].prec : "none");
	}
	char buf[32];
	assert_int_equal(tg_roofline_compute_spec(buf, sizeof(buf), 1, "c10::BFloat16"), 0);
	assert_string_equal(buf, "matrix_bf16");
	assert_int_equal(tg_roofline_compute_spec(buf, sizeof(buf), 0, "float"), 0);
	assert_string_equal(buf, "vector_fp32");
	assert_int_equal(tg_roofline_compute_spec(buf, sizeof(buf), 1, "c10::Float8_e4m3fnuz"), 0);
	assert_string_equal(buf, "matrix_fp8");
	assert_int_equal(tg_roofline_compute_spec(buf, sizeof(buf), 0, "unsigned char"), 0);
	assert_string_equal(buf, "vector_fp8"); /* as TraceLens names it */
	assert_int_equal(tg_roofline_compute_spec(buf, sizeof(buf), 0, "long int"), TG_ENOTFOUND);
	assert_string_equal(buf, "");
	assert_int_equal(tg_roofline_compute_spec(buf, 5, 1, "float"), TG_EINVAL);
	assert_string_equal(buf, "");
}

/* ------------------------------------------------------------ TraceLens's reports */

/* Index of the first of the column names (NULL-terminated) present, or -1. */
static int col(const struct csv *c, const char *a, const char *b)
{
	for (size_t i = 0; i < c->ncols; i++)
		if (!strcmp(c->rows[0][i], a) || (b && !strcmp(c->rows[0][i], b)))
			return (int)i;
	return -1;
}

static double num(const struct csv *c, size_t r, int k)
{
	if (k < 0)
		fail_msg("missing column");
	const char *s = c->rows[r][k];
	if (!*s)
		return NAN;
	char *end;
	double v = strtod(s, &end);
	if (*end)
		fail_msg("'%s' is not a number", s);
	return v;
}

/* The first element of a Python list of strings: "['c10::BFloat16', ...]". */
static void first_type(char *dst, size_t cap, const char *s)
{
	dst[0] = 0;
	const char *q = strchr(s, '\'');
	if (!q)
		return;
	const char *e = strchr(q + 1, '\'');
	if (!e || (size_t)(e - q - 1) >= cap)
		return;
	memcpy(dst, q + 1, (size_t)(e - q - 1));
	dst[e - q - 1] = 0;
}

struct tally {
	size_t rows, roofline_rows, norooflines, values, spec_checks;
};

/* Checks one CSV; returns the number of mismatches (each printed). */
static int check_csv(const char *path, const char *file, const tg_gpu_spec *mi, struct tally *t)
{
	struct csv c;
	if (csv_read(&c, path))
		fail_msg("cannot read %s", path);
	int k_spec = col(&c, "Compute Spec", NULL);
	if (k_spec < 0) { /* not a perf sheet */
		csv_free(&c);
		return 0;
	}
	int k_gf = col(&c, "GFLOPS_first", "GFLOPS"), k_mb = col(&c, "Data Moved (MB)_first", "Data Moved (MB)");
	int k_fpb = col(&c, "FLOPS/Byte_first", "FLOPS/Byte");
	int k_rt = col(&c, "Roofline Time (µs)_first", NULL);
	int k_bound = col(&c, "Roofline Bound_first", "Roofline Bound");
	int k_count = col(&c, "name_count", "operation_count");
	int k_type = col(&c, "Input type_first", NULL);
	int k_ktmean = col(&c, "Kernel Time (µs)_mean", NULL), k_ktmed = col(&c, "Kernel Time (µs)_median", NULL);
	int k_ktmin = col(&c, "Kernel Time (µs)_min", NULL), k_ktmax = col(&c, "Kernel Time (µs)_max", NULL);
	/* value column, kernel time column, what: TraceLens computes per event and
	 * aggregates, so max of a rate comes from the min kernel time, etc. */
	struct {
		const char *value;
		int kt;
		int which; /* 0 pct, 1 tflops/s, 2 tb/s */
		int only_single; /* the mean of ratios equals the ratio of the mean only for one event */
		int only_odd;    /* the median likewise for an odd count */
	} checks[] = {
		{"Pct Roofline_max", k_ktmin, 0, 0, 0},   {"Pct Roofline_min", k_ktmax, 0, 0, 0},
		{"Pct Roofline_median", k_ktmed, 0, 0, 1}, {"Pct Roofline_mean", k_ktmean, 0, 1, 0},
		{"TFLOPS/s_max", k_ktmin, 1, 0, 0},       {"TFLOPS/s_min", k_ktmax, 1, 0, 0},
		{"TFLOPS/s_median", k_ktmed, 1, 0, 1},     {"TFLOPS/s_mean", k_ktmean, 1, 1, 0},
		{"TB/s_max", k_ktmin, 2, 0, 0},           {"TB/s_min", k_ktmax, 2, 0, 0},
		{"TB/s_median", k_ktmed, 2, 0, 1},         {"TB/s_mean", k_ktmean, 2, 1, 0},
	};
	int nchecks = (int)(sizeof(checks) / sizeof(checks[0]));
	int kv[16];
	for (int i = 0; i < nchecks; i++)
		kv[i] = col(&c, checks[i].value, NULL);
	int matrix = !strncmp(file, "GEMM", 4) || !strncmp(file, "CONV", 4) || !strncmp(file, "SDPA", 4);
	int bad = 0;
	for (size_t r = 1; r < c.nrows; r++) {
		if (c.rows[r][0][0] == 0 && r + 1 == c.nrows)
			continue; /* a trailing empty line */
		t->rows++;
		const char *cs = c.rows[r][k_spec];
		/* the compute spec from the first input's dtype (category sheets,
		 * which say whether the op is matrix or vector) */
		if (k_type >= 0) {
			char dtype[64], ours[32];
			first_type(dtype, sizeof(dtype), c.rows[r][k_type]);
			tg_roofline_compute_spec(ours, sizeof(ours), matrix, dtype);
			if (strcmp(ours, cs)) {
				print_error("%s row %zu: dtype '%s': compute spec '%s', TraceLens '%s'\n", path, r,
				            dtype, ours, cs);
				bad++;
			}
			t->spec_checks++;
		}
		double flops = num(&c, r, k_gf) * 1e9, bytes = num(&c, r, k_mb) * 1048576.0;
		tg_roofline rf;
		int rc = tg_roofline_compute(&rf, flops, bytes, *cs ? cs : "vector_fp32", num(&c, r, k_ktmean), mi);
		if (!*cs || isnan(bytes) || (rc == TG_ENOTFOUND && tg_compute_spec_parse(cs) < 0)) {
			/* no precision, no byte count, or a spec name no arch file has
			 * (the triton rows' "vector_bfloat16"): no roofline in TraceLens
			 * either */
			if ((k_rt >= 0 && *c.rows[r][k_rt]) || *c.rows[r][k_bound]) {
				print_error("%s row %zu: TraceLens has a roofline for an op without one\n", path, r);
				bad++;
			}
			t->norooflines++;
			continue;
		}
		if (rc) {
			print_error("%s row %zu: %s\n", path, r, tg_error_last());
			bad++;
			continue;
		}
		t->roofline_rows++;
		if (k_rt >= 0 && !near(rf.roofline_us, num(&c, r, k_rt))) {
			print_error("%s row %zu: roofline %.17g us, TraceLens %s\n", path, r, rf.roofline_us,
			            c.rows[r][k_rt]);
			bad++;
		}
		t->values += k_rt >= 0;
		if (strcmp(tg_roofline_bound_name(rf.bound), c.rows[r][k_bound])) {
			print_error("%s row %zu: %s, TraceLens %s\n", path, r, tg_roofline_bound_name(rf.bound),
			            c.rows[r][k_bound]);
			bad++;
		}
		t->values++;
		if (k_fpb >= 0 && *c.rows[r][k_fpb]) {
			if (!near(rf.flops_per_byte, num(&c, r, k_fpb))) {
				print_error("%s row %zu: FLOPS/Byte %.17g, TraceLens %s\n", path, r,
				            rf.flops_per_byte, c.rows[r][k_fpb]);
				bad++;
			}
			t->values++;
		}
		double count = num(&c, r, k_count);
		/* an event without kernel time has NaN rates in TraceLens, left
		 * out of the aggregates: only the min (from the max time) is exact */
		int zero_kt = k_ktmin >= 0 && num(&c, r, k_ktmin) == 0 && num(&c, r, k_ktmax) > 0;
		for (int i = 0; i < nchecks; i++) {
			if (kv[i] < 0 || checks[i].kt < 0)
				continue;
			if (zero_kt && checks[i].kt != k_ktmax)
				continue;
			if (checks[i].only_single && count != 1)
				continue;
			if (checks[i].only_odd && fmod(count, 2) != 1)
				continue;
			tg_roofline one;
			double kt = num(&c, r, checks[i].kt);
			assert_int_equal(tg_roofline_compute(&one, flops, bytes, cs, kt, mi), 0);
			double ours = checks[i].which == 0 ? one.pct_roofline
			            : checks[i].which == 1 ? one.tflops_s : one.tb_s;
			double theirs = num(&c, r, kv[i]);
			if (!near(ours, theirs)) {
				print_error("%s row %zu: %s %.17g, TraceLens %.17g (kernel %.17g us)\n", path, r,
				            checks[i].value, ours, theirs, kt);
				bad++;
			}
			t->values++;
		}
	}
	csv_free(&c);
	return bad;
}

static void test_tracelens_mi300x_rooflines(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	static const char *const dirs[] = {
		"xdit_sd_3.5_roofline_MI300X_csvs",
		"gaunernst_bert-small-uncased__1016001_roofline_MI300X_csvs",
		"Qwen_Qwen1.5-0.5B-Chat__1016005_roofline_MI300X_csvs",
	};
	const char *base = getenv("TG_SHARED");
	if (!base || !*base)
		base = "../shared";
	tg_gpu_specs *s = NULL;
	assert_int_equal(tg_gpu_specs_new(&s), 0);
	const tg_gpu_spec *mi = spec_named(s, "MI300X");
	struct tally t = {0};
	int bad = 0;
	size_t files = 0;
	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		char dir[4096];
		snprintf(dir, sizeof(dir), "%s/reference/tracelens/%s", base, dirs[d]);
		DIR *dh = opendir(dir);
		if (!dh)
			fail_msg("cannot open %s", dir);
		struct dirent *de;
		while ((de = readdir(dh))) {
			size_t len = strlen(de->d_name);
			if (len < 5 || strcmp(de->d_name + len - 4, ".csv"))
				continue;
			char path[8192];
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			bad += check_csv(path, de->d_name, mi, &t);
			files++;
		}
		closedir(dh);
	}
	print_message("%zu CSVs: %zu rows, %zu with a roofline, %zu without; %zu values and %zu "
	              "compute specs compared\n",
	              files, t.rows, t.roofline_rows, t.norooflines, t.values, t.spec_checks);
	assert_int_equal(bad, 0);
	/* the reports as of writing: 244 rows with a roofline over the category
	 * sheets and the unified summaries */
	assert_true(t.roofline_rows >= 200);
	assert_true(t.values >= 1000);
	tg_gpu_specs_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_cases),
		cmocka_unit_test(test_compute_spec_names),
		cmocka_unit_test(test_tracelens_mi300x_rooflines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
