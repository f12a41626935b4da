/* test_cp_diff.c - how the critical path moved between two sides
 * (rules/cp_diff.h): ten launches, each followed by a stream sync; in the
 * base the kernel starts 6 us after its launch and runs 40 us (a path of
 * 10 x (6 + 40) us, GPU-compute-bound), in the new one it starts 40 us
 * after and runs 5 us (10 x (40 + 5) us, launch-bound). */
#include "testutil.h"

#include "../rules/cp_diff.h"

static char *trace_json(int kstart, int kdur)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	fputs("{\"traceEvents\":[", f);
	for (int i = 0; i < 10; i++) {
		int t = i * 100, c = i * 2 + 1;
		fprintf(f,
		        "%s{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
		        "\"ts\":%d,\"dur\":5,\"args\":{\"correlation\":%d}},",
		        i ? "," : "", t, c);
		fprintf(f,
		        "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaStreamSynchronize\",\"pid\":1,\"tid\":1,"
		        "\"ts\":%d,\"dur\":45,\"args\":{\"correlation\":%d}},",
		        t + 5, c + 1);
		fprintf(f,
		        "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":%d,\"dur\":%d,"
		        "\"args\":{\"correlation\":%d,\"stream\":7}},",
		        t + kstart, kdur, c);
		fprintf(f,
		        "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Stream Sync\",\"pid\":0,\"tid\":7,\"ts\":%d,"
		        "\"dur\":2,\"args\":{\"correlation\":%d,\"stream\":7}}",
		        t + 48, c + 1);
	}
	fputs("]}", f);
	fclose(f);
	return buf;
}

static void test_became_launch_bound(void **state)
{
	(void)state;
	char *jb = trace_json(6, 40), *jn = trace_json(40, 5);
	tg_trace *tb = tg_test_read_str(jb), *tn = tg_test_read_str(jn);
	tg_tree *b, *n;
	tg_test_must(tg_tree_build(&b, tb));
	tg_test_must(tg_tree_build(&n, tn));
	tg_cp_diff d;
	tg_test_must(tg_cp_diff_build(&d, (const tg_tree *const *)&b, 1, (const tg_tree *const *)&n, 1));
	assert_true(d.base.ok && d.next.ok);
	assert_int_equal(d.base.dominant, TG_CP_GPU_COMPUTE);
	assert_int_equal(d.next.dominant, TG_CP_LAUNCH);
	assert_true(d.base.length_ns == 460000 && d.next.length_ns == 450000);
	assert_true(d.base.bound_ns[TG_CP_LAUNCH] == 60000 && d.next.bound_ns[TG_CP_LAUNCH] == 400000);
	assert_int_equal(d.moved, TG_CP_LAUNCH); /* the new dominant bound */
	char s[512];
	tg_cp_diff_sentence(s, sizeof(s), &d, "->");
	assert_string_equal(s,
	                    "the step became launch-bound: +0.340 ms of gpu_kernel_launch_overhead (critical path "
	                    "0.460 ms -> 0.450 ms a step)");
	/* the same side twice: nothing moved */
	tg_test_must(tg_cp_diff_build(&d, (const tg_tree *const *)&b, 1, (const tg_tree *const *)&b, 1));
	tg_cp_diff_sentence(s, sizeof(s), &d, "->");
	assert_string_equal(s, "the critical path did not move (0.460 ms a step, GPU-compute-bound)");
	/* the two as one side of two runs (the mean: launch 230 us, compute
	 * 225 us, launch-bound) against the base alone */
	const tg_tree *both[] = {b, n};
	tg_test_must(tg_cp_diff_build(&d, both, 2, both, 1));
	assert_true(d.base.length_ns == 455000 && d.base.traces == 2);
	tg_cp_diff_sentence(s, sizeof(s), &d, "->");
	assert_string_equal(s,
	                    "the step became GPU-compute-bound: +0.175 ms of gpu_compute_bound (critical path 0.455 "
	                    "ms -> 0.460 ms a step)");
	json_t *j = tg_cp_diff_json(&d);
	assert_string_equal(json_string_value(json_object_get(j, "became")), "gpu_compute_bound");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "base"), "traces")), 2);
	json_decref(j);
	/* longer kernels: still compute-bound, the path 100 us longer */
	char *jl = trace_json(6, 50);
	tg_trace *tl = tg_test_read_str(jl);
	tg_tree *l;
	tg_test_must(tg_tree_build(&l, tl));
	tg_test_must(tg_cp_diff_build(&d, (const tg_tree *const *)&b, 1, (const tg_tree *const *)&l, 1));
	tg_cp_diff_sentence(s, sizeof(s), &d, "->");
	assert_string_equal(s,
	                    "the step stays GPU-compute-bound; critical path 0.460 ms -> 0.560 ms a step (+21.7 %), "
	                    "most of the move +0.100 ms of gpu_compute_bound");
	tg_tree_free(l);
	tg_trace_free(tl);
	free(jl);
	tg_tree_free(b);
	tg_tree_free(n);
	tg_trace_free(tb);
	tg_trace_free(tn);
	free(jb);
	free(jn);
}

/* The bound the sentence names is chosen when the diff is built: the
 * largest move by absolute value while the dominant bound stays (here
 * launch -3 ms against compute +1 ms), the new dominant one when it
 * changes, TG_CP_CPU when a side has no path. */
static void test_moved_chosen_when_built(void **state)
{
	(void)state;
	tg_cp_summary b = {.ok = 1, .steps = 1, .length_ns = 20000000}, n = b, none = {.ok = 0};
	b.bound_ns[TG_CP_GPU_COMPUTE] = 10000000;
	b.bound_ns[TG_CP_LAUNCH] = 5000000;
	n.bound_ns[TG_CP_GPU_COMPUTE] = 11000000;
	n.bound_ns[TG_CP_LAUNCH] = 2000000;
	n.length_ns = 18000000;
	const char *names[] = {"base.json"};
	tg_cp_diff d;
	tg_cp_diff_from(&d, &b, names, 1, &n, names, 1);
	assert_int_equal(d.base.dominant, TG_CP_GPU_COMPUTE);
	assert_int_equal(d.next.dominant, TG_CP_GPU_COMPUTE);
	assert_int_equal(d.moved, TG_CP_LAUNCH);
	char s[512];
	tg_cp_diff_sentence(s, sizeof(s), &d, "->");
	assert_non_null(strstr(s, "most of the move -3.00 ms of gpu_kernel_launch_overhead"));
	n.bound_ns[TG_CP_LAUNCH] = 12000000;
	tg_cp_diff_from(&d, &b, names, 1, &n, names, 1);
	assert_int_equal(d.next.dominant, TG_CP_LAUNCH);
	assert_int_equal(d.moved, TG_CP_LAUNCH);
	snprintf(none.why, sizeof(none.why), "no events");
	tg_cp_diff_from(&d, &b, names, 1, &none, names, 1);
	assert_int_equal(d.moved, TG_CP_CPU);
}

/* A side without a path says why. */
static void test_not_compared(void **state)
{
	(void)state;
	tg_trace *t = tg_test_read_str("{\"traceEvents\":[]}");
	tg_tree *tree;
	tg_test_must(tg_tree_build(&tree, t));
	tg_cp_diff d;
	tg_test_must(tg_cp_diff_build(&d, (const tg_tree *const *)&tree, 1, (const tg_tree *const *)&tree, 1));
	assert_false(d.base.ok);
	char s[512];
	tg_cp_diff_sentence(s, sizeof(s), &d, "->");
	assert_string_equal(s, "critical path not compared: test.json: the trace has no events");
	tg_tree_free(tree);
	tg_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_became_launch_bound),
		cmocka_unit_test(test_not_compared),
		cmocka_unit_test(test_moved_chosen_when_built),
	};
	return cmocka_run_group_tests_name("cp_diff", tests, NULL, NULL);
}
