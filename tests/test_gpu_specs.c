/* test_gpu_specs.c - the built-in GPU table, the recognition of devices
 * (by hand, and every deviceProperties entry of the shared traces), and the
 * YAML override file with each of its error messages. */
#include "testutil.h"

#include "../core/models/gpu_specs.h"

#include <ftw.h>
#include <unistd.h>

static tg_gpu_specs *new_specs(void)
{
	tg_gpu_specs *s = NULL;
	assert_int_equal(tg_gpu_specs_new(&s), 0);
	assert_non_null(s);
	return s;
}

static const tg_gpu_spec *must_find(const tg_gpu_specs *s, const char *name)
{
	const tg_gpu_spec *g = NULL;
	if (tg_gpu_specs_find(&g, s, name))
		fail_msg("%s", tg_error_last());
	return g;
}

/* The name of the spec recognised for these properties, or NULL. */
static const char *recognise(const tg_gpu_specs *s, const char *name, int64_t mem, int maj, int min,
                             int sms)
{
	const tg_gpu_spec *g = NULL;
	int rc = tg_gpu_specs_match(&g, s, name, mem, maj, min, sms);
	if (rc) {
		assert_int_equal(rc, TG_ENOTFOUND);
		assert_null(g);
		return NULL;
	}
	return g->name;
}

/* ------------------------------------------------------------ built-ins */

static void test_builtin_table(void **state)
{
	(void)state;
	tg_gpu_specs *s = new_specs();
	static const char *const required[] = {
		"H100 SXM", "H100 PCIe", "H100 NVL", "H200", "A100 40GB", "A100 SXM4 80GB",
		"A100 PCIe 80GB", "B200", "B300", "V100 SXM2", "V100 PCIe", "Quadro GP100",
		"MI300X", "MI325X", "MI355X", "MI250X", "MI250", "MI210"};
	assert_int_equal(tg_gpu_specs_count(s), sizeof(required) / sizeof(required[0]));
	for (size_t i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
		const tg_gpu_spec *g = must_find(s, required[i]);
		/* every entry can judge the common cases */
		assert_true(g->mem_bw_gbps > 0);
		assert_true(g->tflops[TG_CS_MATRIX_FP32] > 0);
		assert_true(g->tflops[TG_CS_MATRIX_BF16] > 0);
		assert_true(g->tflops[TG_CS_MATRIX_FP16] > 0);
		assert_true(g->tflops[TG_CS_VECTOR_FP32] > 0);
		assert_true(g->tflops[TG_CS_VECTOR_BF16] > 0);
		assert_string_equal(g->match, "");
		/* matrix half-precision never slower than vector */
		assert_true(g->tflops[TG_CS_MATRIX_FP16] >= g->tflops[TG_CS_VECTOR_FP16]);
	}
	/* case-insensitive lookup; unknown names */
	assert_string_equal(must_find(s, "mi300x")->name, "MI300X");
	const tg_gpu_spec *g;
	assert_int_equal(tg_gpu_specs_find(&g, s, "MI999"), TG_ENOTFOUND);
	assert_null(g);
	assert_non_null(strstr(tg_error_last(), "MI999"));
	assert_null(tg_gpu_specs_at(s, 1000));

	/* TraceLens's arch values, exactly */
	g = must_find(s, "MI300X");
	assert_true(g->mem_bw_gbps == 5300);
	assert_true(g->tflops[TG_CS_MATRIX_BF16] == 708 && g->tflops[TG_CS_MATRIX_FP16] == 654);
	assert_true(g->tflops[TG_CS_MATRIX_FP32] == 163 && g->tflops[TG_CS_MATRIX_FP8] == 1273);
	assert_true(g->tflops[TG_CS_VECTOR_BF16] == 163);
	g = must_find(s, "MI325X");
	assert_true(g->mem_bw_gbps == 6000 && g->tflops[TG_CS_MATRIX_BF16] == 843 &&
	            g->tflops[TG_CS_MATRIX_FP16] == 794 && g->tflops[TG_CS_MATRIX_FP32] == 194 &&
	            g->tflops[TG_CS_MATRIX_FP8] == 1519);
	g = must_find(s, "B200");
	assert_true(g->mem_bw_gbps == 7476 && g->tflops[TG_CS_MATRIX_BF16] == 1401 &&
	            g->tflops[TG_CS_MATRIX_FP16] == 1347 && g->tflops[TG_CS_MATRIX_FP32] == 66 &&
	            g->tflops[TG_CS_MATRIX_FP8] == 2816);
	g = must_find(s, "MI355X");
	assert_true(g->mem_bw_gbps == 8000 && g->tflops[TG_CS_MATRIX_BF16] == 1686 &&
	            g->tflops[TG_CS_MATRIX_FP16] == 1686 && g->tflops[TG_CS_MATRIX_FP32] == 137 &&
	            g->tflops[TG_CS_MATRIX_FP8] == 3567);
	/* a datasheet value */
	g = must_find(s, "H100 SXM");
	assert_true(g->mem_bw_gbps == 3350 && g->tflops[TG_CS_MATRIX_BF16] == 989.4);
	assert_true(tg_gpu_spec_tflops(g, TG_CS_MATRIX_FP8) == 1978.9);
	assert_true(tg_gpu_spec_tflops(g, TG_CS_MATRIX_FP4) == 0); /* unknown */
	assert_true(tg_gpu_spec_tflops(g, -1) == 0 && tg_gpu_spec_tflops(g, TG_CS_COUNT) == 0);

	/* compute spec names round-trip */
	for (int i = 0; i < TG_CS_COUNT; i++)
		assert_int_equal(tg_compute_spec_parse(tg_compute_spec_name(i)), i);
	assert_int_equal(tg_compute_spec_parse("matrix_int8"), -1);
	assert_int_equal(tg_compute_spec_parse("MATRIX_BF16"), -1);
	assert_int_equal(tg_compute_spec_parse(NULL), -1);
	assert_null(tg_compute_spec_name(TG_CS_COUNT));
	tg_gpu_specs_free(s);
	tg_gpu_specs_free(NULL);
}

/* ------------------------------------------------------------ recognition */

#define GB (1000LL * 1000 * 1000)

static void test_recognise_by_hand(void **state)
{
	(void)state;
	tg_gpu_specs *s = new_specs();
	static const struct {
		const char *name;
		int64_t mem;
		int maj, min, sms;
		const char *want;
	} cases[] = {
		{"NVIDIA H100 80GB HBM3", 85 * GB, 9, 0, 132, "H100 SXM"},
		{"NVIDIA H100 PCIe", 85 * GB, 9, 0, 114, "H100 PCIe"},
		{"NVIDIA H100 NVL", 100 * GB, 9, 0, 132, "H100 NVL"},
		{"NVIDIA H100", 102 * GB, 9, 0, 132, "H100 SXM"},
		{"NVIDIA H200", 150 * GB, 9, 0, 132, "H200"},
		{"NVIDIA B200", 191 * GB, 10, 0, 148, "B200"},
		{"NVIDIA B300 SXM6 AC", 287 * GB, 10, 3, 148, "B300"},
		{"NVIDIA A100-SXM4-80GB", 85 * GB, 8, 0, 108, "A100 SXM4 80GB"},
		{"NVIDIA A100-SXM4-40GB", 42 * GB, 8, 0, 108, "A100 40GB"},
		{"NVIDIA A100-PG509-200", 42 * GB, 8, 0, 108, "A100 40GB"},
		{"NVIDIA A100 80GB PCIe", 85 * GB, 8, 0, 108, "A100 PCIe 80GB"},
		{"NVIDIA A100-PCIE-40GB", 42 * GB, 8, 0, 108, "A100 40GB"},
		{"NVIDIA A100-SXM4-80GB", 0, -1, -1, -1, "A100 SXM4 80GB"}, /* no memory given */
		{"Tesla V100-SXM2-16GB", 17 * GB, 7, 0, 80, "V100 SXM2"},
		{"Tesla V100-PCIE-32GB", 34 * GB, 7, 0, 80, "V100 PCIe"},
		{"Quadro GP100", 17 * GB, 6, 0, 56, "Quadro GP100"},
		{"AMD Instinct MI300X", 206 * GB, 9, 4, 304, "MI300X"},
		{"AMD Instinct MI300X VF", 205 * GB, 9, 4, 304, "MI300X"},
		{"AMD Instinct MI325X", 274 * GB, 9, 4, 304, "MI325X"},
		{"AMD Instinct MI355X", 309 * GB, 9, 5, 256, "MI355X"},
		{"AMD Instinct MI250X", 68 * GB, 9, 0, 110, "MI250X"},
		{"AMD Instinct MI250X / MI250", 68 * GB, 9, 0, 110, "MI250X"},
		{"AMD Instinct MI210", 68 * GB, 9, 0, 104, "MI210"},
		/* generic or empty names: by the properties */
		{"AMD Radeon Graphics", 68702699520LL, 9, 0, 104, "MI250"},
		{"AMD Radeon Graphics", 68 * GB, 9, 0, 110, "MI250X"},
		{"", 206141652992LL, 9, 4, 304, "MI300X"},
		{"", 274 * GB, 9, 4, 304, "MI325X"},
		{NULL, 206 * GB, 9, 4, 304, "MI300X"},
		{"", 85 * GB, 9, 0, 132, "H100 SXM"},
		{"", 191 * GB, 10, 0, 148, "B200"},
		{"", 85 * GB, 8, 0, 108, "A100 SXM4 80GB"},
		/* unknown */
		{"ARTEMIS", 0, 0, 0, 0, NULL},
		{"AMD Radeon RX 7900 XTX", 25 * GB, 11, 0, 96, NULL},
		{"", 0, -1, -1, -1, NULL},
		{"AMD Radeon Graphics", 68 * GB, 9, 0, 104 + 1, NULL},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = recognise(s, cases[i].name, cases[i].mem, cases[i].maj, cases[i].min,
		                            cases[i].sms);
		if (!cases[i].want ? got != NULL : (!got || strcmp(got, cases[i].want)))
			fail_msg("'%s' %d.%d %d SMs: got %s, want %s", cases[i].name ? cases[i].name : "(null)",
			         cases[i].maj, cases[i].min, cases[i].sms, got ? got : "none",
			         cases[i].want ? cases[i].want : "none");
	}
	/* the message of an unknown GPU names it */
	const tg_gpu_spec *g;
	assert_int_equal(tg_gpu_specs_match(&g, s, "ARTEMIS", 0, 0, 0, 0), TG_ENOTFOUND);
	assert_non_null(strstr(tg_error_last(), "ARTEMIS"));
	tg_gpu_specs_free(s);
}

/* Every deviceProperties entry of every shared trace: the name (and, for
 * anonymous devices, the properties) and the spec it must give. */
static const struct {
	const char *name;
	const char *want; /* NULL: not recognised */
} expected[] = {
	{"AMD Instinct MI210", "MI210"},
	{"AMD Instinct MI300X", "MI300X"},
	{"AMD Instinct MI300X VF", "MI300X"},
	{"AMD Radeon Graphics", "MI250"},         /* hta_amd_mi250_rocm6.2: gfx90a, 104 CUs, 64 GB */
	{"", "MI300X"},                           /* vLLM traces: gfx942, 304 CUs, 192 GB */
	{"ARTEMIS", NULL},                        /* MTIA: no public peaks */
	{"NVIDIA A100-PG509-200", "A100 40GB"},   /* the SXM4 40 GB board */
	{"NVIDIA A100-SXM4-80GB", "A100 SXM4 80GB"},
	{"NVIDIA B200", "B200"},
	{"NVIDIA B300 SXM6 AC", "B300"},
	{"NVIDIA H100 80GB HBM3", "H100 SXM"},
	{"NVIDIA H100", "H100 SXM"},              /* Kineto's mock: 132 SMs, 95 GiB */
	{"NVIDIA H200", "H200"},                  /* h200-dev: 132 SMs, 141 GB HBM3e */
	{"Quadro GP100", "Quadro GP100"},
	{"Tesla V100-DGXS-32GB", "V100 SXM2"},
	{"Tesla V100-SXM2-16GB", "V100 SXM2"},
	{"Tesla V100-SXM2-32GB", "V100 SXM2"},
};
#define NEXPECTED (sizeof(expected) / sizeof(expected[0]))

static void test_recognise_shared_traces(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	tg_gpu_specs *s = new_specs();
	size_t nfound;
	char **paths = tg_test_shared_trace_files(&nfound);
	assert_true(nfound > 0);
	size_t traces_with_devices = 0, devices = 0, seen[NEXPECTED] = {0};
	for (size_t i = 0; i < nfound; i++) {
		tg_trace *t = NULL;
		if (tg_trace_read_file(&t, paths[i], NULL))
			continue; /* a few files under traces/ are not traces (configs, results) */
		size_t nd;
		const tg_device *d = tg_trace_devices(t, &nd);
		traces_with_devices += nd > 0;
		for (size_t k = 0; k < nd; k++, devices++) {
			const char *name = d[k].name == TG_NONE ? "" : tg_trace_str(t, d[k].name);
			size_t e = 0;
			while (e < NEXPECTED && strcmp(expected[e].name, name))
				e++;
			if (e == NEXPECTED)
				fail_msg("%s: device '%s' is not in the expected table", paths[i], name);
			seen[e]++;
			const tg_gpu_spec *g = NULL;
			int rc = tg_gpu_specs_match_device(&g, s, t, &d[k]);
			const char *got = rc ? NULL : g->name;
			if (!expected[e].want ? got != NULL : (!got || strcmp(got, expected[e].want)))
				fail_msg("%s: device '%s' (%d.%d, %d SMs, %lld bytes): got %s, want %s",
				         paths[i], name, d[k].compute_major, d[k].compute_minor,
				         d[k].num_sms, (long long)d[k].total_memory, got ? got : "none",
				         expected[e].want ? expected[e].want : "none");
			if (got && !strcmp(got, "H200")) {
				/* the roofline of an H200 run uses the H200's own peaks
				 * (HBM3e 4.8 TB/s), not the H100 SXM's (3.35 TB/s) */
				assert_int_equal((int)g->mem_bw_gbps, 4800);
				assert_true(tg_gpu_spec_tflops(g, TG_CS_MATRIX_BF16) == 989.5);
			}
		}
		tg_trace_free(t);
	}
	tg_test_paths_free(paths, nfound);
	print_message("%zu files, %zu with deviceProperties, %zu devices\n", nfound,
	              traces_with_devices, devices);
	/* the corpus as of writing: 48 traces with deviceProperties; every
	 * expected name occurs */
	assert_true(traces_with_devices >= 45);
	for (size_t e = 0; e < NEXPECTED; e++)
		if (!seen[e])
			fail_msg("no shared trace has device '%s'", expected[e].name);
	tg_gpu_specs_free(s);
}

/* ------------------------------------------------------------ YAML overrides */

static void test_yaml_override(void **state)
{
	(void)state;
	tg_gpu_specs *s = new_specs();
	size_t n0 = tg_gpu_specs_count(s);
	static const char yaml[] =
		"# site overrides\n"
		"gpus:\n"
		"  - match: \"MI300X\"        # substring of the device name\n"
		"    name: MI300X\n"
		"    mem_bw_gbps: 5000\n"
		"    tflops: {matrix_bf16: 700, matrix_fp8: 1.3e3}\n"
		"  - name: My Accelerator\n"
		"    match: ACME X1\n"
		"    mem_bw_gbps: 1234.5\n"
		"    tflops:\n"
		"      matrix_bf16: 100\n"
		"      vector_fp32: 12.5\n"
		"  - name: H100 SXM\n"
		"    tflops: {matrix_fp4: 0}\n"
		"  - name: Late\n"
		"    match: H100 80GB\n";
	assert_int_equal(tg_gpu_specs_load_mem(s, yaml, strlen(yaml), "o.yaml"), 0);
	assert_int_equal(tg_gpu_specs_count(s), n0 + 2);

	/* changed values; the others kept */
	const tg_gpu_spec *g = must_find(s, "MI300X");
	assert_true(g->mem_bw_gbps == 5000);
	assert_true(g->tflops[TG_CS_MATRIX_BF16] == 700 && g->tflops[TG_CS_MATRIX_FP8] == 1300);
	assert_true(g->tflops[TG_CS_MATRIX_FP16] == 654 && g->tflops[TG_CS_VECTOR_BF16] == 163);
	assert_string_equal(g->match, "MI300X");

	/* a new GPU, recognised by its match */
	g = must_find(s, "my accelerator");
	assert_true(g->mem_bw_gbps == 1234.5 && g->tflops[TG_CS_MATRIX_BF16] == 100 &&
	            g->tflops[TG_CS_VECTOR_FP32] == 12.5 && g->tflops[TG_CS_MATRIX_FP16] == 0);
	assert_string_equal(recognise(s, "ACME X1 Pro", 0, 1, 0, 10), "My Accelerator");

	/* overrides win over the built-in recognition, the last entry first */
	assert_string_equal(recognise(s, "NVIDIA H100 80GB HBM3", 85 * GB, 9, 0, 132), "Late");
	assert_string_equal(recognise(s, "NVIDIA H100 PCIe", 85 * GB, 9, 0, 114), "H100 PCIe");
	assert_string_equal(recognise(s, "AMD Instinct MI300X VF", 0, 9, 4, 304), "MI300X");
	/* an anonymous MI300X still finds the changed entry */
	g = NULL;
	assert_int_equal(tg_gpu_specs_match(&g, s, "", 206 * GB, 9, 4, 304), 0);
	assert_true(g->mem_bw_gbps == 5000);

	/* empty files change nothing */
	assert_int_equal(tg_gpu_specs_load_mem(s, "", 0, "e.yaml"), 0);
	assert_int_equal(tg_gpu_specs_load_mem(s, "# nothing\n", 10, "e.yaml"), 0);
	assert_int_equal(tg_gpu_specs_count(s), n0 + 2);

	/* from a file */
	char path[] = "/tmp/tg_gpu_specs_XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	static const char f[] = "gpus:\n  - name: V100 SXM2\n    mem_bw_gbps: 897\n";
	assert_int_equal(write(fd, f, strlen(f)), (ssize_t)strlen(f));
	close(fd);
	assert_int_equal(tg_gpu_specs_load_file(s, path), 0);
	assert_true(must_find(s, "V100 SXM2")->mem_bw_gbps == 897);
	unlink(path);
	assert_int_equal(tg_gpu_specs_load_file(s, path), TG_EIO);
	assert_non_null(strstr(tg_error_last(), path));
	tg_gpu_specs_free(s);
}

/* Each error message of a GPU specs file is a fixture of
 * tests/data/bad/gpu-specs/ (test_bad_input.c); here: all or nothing, and
 * bad arguments. */
static void test_yaml_errors(void **state)
{
	(void)state;
	tg_gpu_specs *s = new_specs();
	size_t n0 = tg_gpu_specs_count(s);
	/* all or nothing: a good entry before a bad one is not applied */
	static const char half[] = "gpus:\n  - name: MI300X\n    mem_bw_gbps: 1\n  - name: New\n"
	                           "    colour: red\n";
	assert_int_equal(tg_gpu_specs_load_mem(s, half, strlen(half), "h.yaml"), TG_EFORMAT);
	assert_string_equal(tg_error_last(),
	                    "h.yaml:5:5: unknown key 'colour' (expected match, name, mem_bw_gbps, tflops)");
	assert_true(must_find(s, "MI300X")->mem_bw_gbps == 5300);
	assert_int_equal(tg_gpu_specs_count(s), n0);
	assert_int_equal(tg_gpu_specs_load_mem(s, NULL, 3, "x"), TG_EINVAL);
	tg_gpu_specs_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin_table),
		cmocka_unit_test(test_recognise_by_hand),
		cmocka_unit_test(test_recognise_shared_traces),
		cmocka_unit_test(test_yaml_override),
		cmocka_unit_test(test_yaml_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
