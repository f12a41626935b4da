/* test_ranks.c - kernel statistics across ranks, on two hand-made rank
 * traces and on the real 2-rank pair of a 128-rank job. */
#include "testutil.h"

#include "../core/analysis/ranks.h"

static tg_tree *tree_of(tg_trace **t, const char *json)
{
	*t = tg_test_read_str(json);
	tg_tree *tree;
	assert_int_equal(tg_tree_build(&tree, *t), 0);
	return tree;
}

static double num(const tg_table *t, size_t r, size_t c)
{
	const tg_cell *x = tg_table_cell(t, r, c);
	return x->type == TG_CELL_INT ? (double)x->v.i : x->v.d;
}

static void test_two_ranks(void **state)
{
	(void)state;
	tg_trace *t0, *t1;
	/* rank 0: gemm 10 + 20, ar 5; rank 1: gemm 40, ar 5 + 5 */
	tg_tree *a = tree_of(&t0,
		"{\"distributedInfo\":{\"rank\":0,\"world_size\":2},\"traceEvents\":["
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":10},"
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":20},"
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclAllReduce\",\"pid\":0,\"tid\":8,\"ts\":50,\"dur\":5}]}");
	tg_tree *b = tree_of(&t1,
		"{\"distributedInfo\":{\"rank\":1,\"world_size\":2},\"traceEvents\":["
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclAllReduce\",\"pid\":1,\"tid\":8,\"ts\":50,\"dur\":5},"
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":1,\"tid\":7,\"ts\":0,\"dur\":40},"
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclAllReduce\",\"pid\":1,\"tid\":8,\"ts\":60,\"dur\":5}]}");
	const tg_tree *trees[2] = {b, a}; /* ranks come from distributedInfo, not the order */
	tg_table *out[2];
	assert_int_equal(tg_ranks_kernel_tables(out, trees, 2, 0, -1), 0);
	const tg_table *d = out[0], *s = out[1];
	assert_int_equal(tg_table_nrows(d), 4);
	assert_string_equal(tg_table_cell(d, 0, 0)->v.s, "gemm"); /* 70 us in all */
	assert_int_equal(num(d, 0, 1), 1);                        /* first trace given: rank 1 */
	assert_int_equal(num(d, 0, 2), 1);
	assert_true(num(d, 0, 3) == 40.0);
	assert_int_equal(num(d, 1, 1), 0);
	assert_int_equal(num(d, 1, 2), 2);
	assert_true(num(d, 1, 4) == 15.0);
	assert_true(num(d, 1, 5) == 10.0 && num(d, 1, 6) == 20.0);
	assert_string_equal(tg_table_cell(s, 0, 0)->v.s, "gemm");
	assert_true(num(s, 0, 2) == 30.0 && num(s, 0, 3) == 35.0 && num(s, 0, 4) == 40.0);
	assert_true(num(s, 0, 5) == 40.0 / 35.0);
	assert_int_equal(num(s, 0, 6), 1); /* slowest rank */
	assert_string_equal(tg_table_cell(s, 1, 0)->v.s, "ncclAllReduce");
	assert_int_equal(num(s, 1, 6), 1);
	tg_table_free(out[0]);
	tg_table_free(out[1]);
	tg_tree_free(a);
	tg_tree_free(b);
	tg_trace_free(t0);
	tg_trace_free(t1);
}

/* The JSON of one rank for test_steps: two steps, [0, 30) and [30, 100)
 * us, on the host and on the kernel streams 7 and 8; kernels (without
 * launches) take their step from the GPU annotations. */
#define STEPS_JSON(rank, kernels)                                                                   \
	"{\"distributedInfo\":{\"rank\":" #rank ",\"world_size\":2},\"traceEvents\":["              \
	"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":" #rank    \
	",\"tid\":1,\"ts\":0,\"dur\":30},"                                                          \
	"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":" #rank    \
	",\"tid\":1,\"ts\":30,\"dur\":70},"                                                         \
	"{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":" #rank \
	",\"tid\":7,\"ts\":0,\"dur\":30},"                                                          \
	"{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":" #rank \
	",\"tid\":8,\"ts\":30,\"dur\":70}," kernels "]}"

/* With a step, only the kernels that fall in it on each rank. */
static void test_steps(void **state)
{
	(void)state;
	tg_trace *t0, *t1;
	/* step 1: gemm 10 + 20 on rank 0, 40 on rank 1; step 2: ar 5 on rank 0, 5 + 5 on rank 1 */
	tg_tree *a = tree_of(&t0, STEPS_JSON(0,
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":10},"
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":20},"
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclAllReduce\",\"pid\":0,\"tid\":8,\"ts\":50,\"dur\":5}"));
	tg_tree *b = tree_of(&t1, STEPS_JSON(1,
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclAllReduce\",\"pid\":1,\"tid\":8,\"ts\":50,\"dur\":5},"
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":1,\"tid\":7,\"ts\":0,\"dur\":40},"
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ncclAllReduce\",\"pid\":1,\"tid\":8,\"ts\":60,\"dur\":5}"));
	const tg_tree *trees[2] = {a, b};
	tg_table *out[2];
	assert_int_equal(tg_ranks_kernel_tables(out, trees, 2, 0, 1), 0);
	assert_int_equal(tg_table_nrows(out[0]), 2); /* gemm on 2 ranks */
	assert_string_equal(tg_table_cell(out[0], 0, 0)->v.s, "gemm");
	assert_true(num(out[0], 0, 3) == 30.0 && num(out[0], 1, 3) == 40.0);
	assert_int_equal(tg_table_nrows(out[1]), 1);
	assert_int_equal(num(out[1], 0, 6), 1);
	tg_table_free(out[0]);
	tg_table_free(out[1]);
	assert_int_equal(tg_ranks_kernel_tables(out, trees, 2, 0, 2), 0);
	assert_int_equal(tg_table_nrows(out[0]), 2); /* the all-reduce on 2 ranks */
	assert_string_equal(tg_table_cell(out[0], 0, 0)->v.s, "ncclAllReduce");
	assert_int_equal(num(out[0], 0, 2), 1);
	assert_int_equal(num(out[0], 1, 2), 2);
	assert_true(num(out[0], 0, 3) == 5.0 && num(out[0], 1, 3) == 10.0);
	tg_table_free(out[0]);
	tg_table_free(out[1]);
	/* a step no rank has: no kernels */
	assert_int_equal(tg_ranks_kernel_tables(out, trees, 2, 0, 3), 0);
	assert_int_equal(tg_table_nrows(out[0]), 0);
	assert_int_equal(tg_table_nrows(out[1]), 0);
	tg_table_free(out[0]);
	tg_table_free(out[1]);
	tg_tree_free(a);
	tg_tree_free(b);
	tg_trace_free(t0);
	tg_trace_free(t1);
}

static void test_real_pair(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	char p0[8192], p1[8192];
	snprintf(p0, sizeof(p0), "%.4000s/hta/hta_sampled_128rank_job_rank-0.json.gz", tg_test_shared_traces());
	snprintf(p1, sizeof(p1), "%.4000s/hta/hta_sampled_128rank_job_rank-1.json.gz", tg_test_shared_traces());
	tg_trace *t0, *t1;
	tg_tree *a, *b;
	assert_int_equal(tg_trace_read_file(&t0, p0, NULL), 0);
	assert_int_equal(tg_trace_read_file(&t1, p1, NULL), 0);
	assert_int_equal(tg_tree_build(&a, t0), 0);
	assert_int_equal(tg_tree_build(&b, t1), 0);
	const tg_tree *trees[2] = {a, b};
	tg_table *out[2];
	assert_int_equal(tg_ranks_kernel_tables(out, trees, 2, 10, -1), 0);
	assert_int_equal(tg_table_nrows(out[0]), 20);
	assert_int_equal(tg_table_nrows(out[1]), 10);
	/* every kernel count per rank adds up to the trace's kernels at most */
	double total = 0;
	for (size_t r = 0; r < tg_table_nrows(out[0]); r++)
		total += num(out[0], r, 2);
	assert_true(total <= 1154 + 1104);
	assert_int_equal(num(out[0], 0, 1), 0);
	assert_int_equal(num(out[0], 1, 1), 1);
	tg_table_free(out[0]);
	tg_table_free(out[1]);
	tg_tree_free(a);
	tg_tree_free(b);
	tg_trace_free(t0);
	tg_trace_free(t1);
}

/* A trace's rank: distributedInfo, else the manifest's hint, else its file
 * name; what a name gives. */
static void test_rank_of(void **state)
{
	(void)state;
	assert_int_equal(tg_rank_from_name("rank0.pt.trace.json.gz"), 0);
	assert_int_equal(tg_rank_from_name("/runs/x/rank12.pt.trace.json.gz"), 12);
	assert_int_equal(tg_rank_from_name("profile_trace_rank_3.json"), 3);
	assert_int_equal(tg_rank_from_name("hta_sampled_128rank_job_rank-1.json.gz"), 1);
	assert_int_equal(tg_rank_from_name("Trace_RANK7.json"), 7);
	assert_int_equal(tg_rank_from_name("hta_df_index_resolver_V100_nccl_rank1_of2.json.gz"), 1);
	assert_int_equal(tg_rank_from_name("/rank4/trace.json"), -1); /* the folder is not the file */
	assert_int_equal(tg_rank_from_name("ranking.json"), -1);
	assert_int_equal(tg_rank_from_name("trace.json"), -1);
	tg_trace *t = NULL;
	const char *named = "{\"traceEvents\": []}";
	assert_int_equal(tg_trace_read_mem(&t, named, strlen(named), "d/rank5.json", NULL), 0);
	assert_int_equal(tg_rank_of(t, -1), 5);
	assert_int_equal(tg_rank_of(t, 2), 2); /* the manifest before the name */
	tg_trace_free(t);
	const char *dist = "{\"distributedInfo\": {\"rank\": 1, \"world_size\": 2}, \"traceEvents\": []}";
	assert_int_equal(tg_trace_read_mem(&t, dist, strlen(dist), "rank5.json", NULL), 0);
	assert_int_equal(tg_rank_of(t, 2), 1); /* distributedInfo first */
	tg_trace_free(t);
	assert_int_equal(tg_trace_read_mem(&t, named, strlen(named), "trace.json", NULL), 0);
	assert_int_equal(tg_rank_of(t, -1), -1);
	tg_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_ranks),
		cmocka_unit_test(test_real_pair),
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_rank_of),
	};
	return cmocka_run_group_tests_name("ranks", tests, NULL, NULL);
}
