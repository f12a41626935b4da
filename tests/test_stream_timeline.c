/*
 * test_stream_timeline.c - core/analysis/stream_timeline.c on the hand-made sample
 * trace (tests/fixtures/sample.json; test_report.c has its GPU timeline by
 * hand): the streams, their events and busy time, the bins summing to it,
 * the kinds, a step, and the events without a launch.
 */
#include "testutil.h"

#include "../core/analysis/stream_timeline.h"

#include <math.h>

static double bins_sum(const tg_stream_row *r, int kind)
{
	double s = 0;
	for (size_t i = 0; i < TG_STREAM_BINS; i++)
		for (int k = 0; k < TG_STREAM_KINDS; k++)
			if (kind < 0 || k == kind)
				s += r->bins[i][k];
	return s;
}

static void test_sample(void **state)
{
	(void)state;
	tg_trace *t;
	tg_tree *tree;
	if (tg_trace_read_file(&t, "tests/fixtures/sample.json", NULL))
		fail_msg("%s", tg_error_last());
	assert_int_equal(tg_tree_build(&tree, t), 0);
	tg_stream_timeline *s;
	assert_int_equal(tg_stream_timeline_build(&s, tree, -1, 0), 0);
	/* the linked device events span 1100..1875 us, as the GPU timeline's */
	assert_true(fabs(s->span_ns - 775000) < 1e-6);
	assert_true(fabs(s->bin_ns - 775000.0 / TG_STREAM_BINS) < 1e-9);
	assert_int_equal(s->nrows, 2);
	/* stream 7: gemm 50, flash 80, the memcpy 30, gemm 55, flow-linked 5,
	 * graph kernels 10 and 15 (us); stream 8: softmax 60, graph 15; the
	 * orphan and the kernel with no launch are not counted */
	assert_int_equal(s->rows[0].device, 0);
	assert_int_equal(s->rows[0].stream, 7);
	assert_int_equal(s->rows[0].events, 7);
	assert_true(fabs(s->rows[0].busy_ns - 245000) < 1e-6);
	assert_int_equal(s->rows[1].stream, 8);
	assert_int_equal(s->rows[1].events, 2);
	assert_true(fabs(s->rows[1].busy_ns - 75000) < 1e-6);
	/* every ns of an event lands in the bins, of its kind */
	for (size_t i = 0; i < s->nrows; i++)
		assert_true(fabs(bins_sum(&s->rows[i], -1) - s->rows[i].busy_ns) < 1);
	assert_true(fabs(bins_sum(&s->rows[0], TG_STREAM_MEMCPY) - 30000) < 1);
	assert_true(fabs(bins_sum(&s->rows[0], TG_STREAM_COMM)) < 1e-9);
	/* the first gemm starts the timeline: bin 0 is busy, computation */
	assert_true(s->rows[0].bins[0][TG_STREAM_COMPUTE] > 0);
	tg_stream_timeline_free(s);

	/* step index 0: gemm, flash and the memcpy on 7, softmax on 8 */
	assert_int_equal(tg_stream_timeline_build(&s, tree, 0, 0), 0);
	assert_int_equal(s->nrows, 2);
	assert_true(fabs(s->rows[0].busy_ns - 160000) < 1e-6);
	assert_true(fabs(s->rows[1].busy_ns - 60000) < 1e-6);
	assert_true(fabs(s->span_ns - 350000) < 1e-6); /* 1100..1450, test_report.c */
	tg_stream_timeline_free(s);

	/* with the events without a launch: the orphan on 8, the other on 7 */
	assert_int_equal(tg_stream_timeline_build(&s, tree, -1, 1), 0);
	assert_int_equal(s->rows[0].events, 8);
	assert_int_equal(s->rows[1].events, 3);
	tg_stream_timeline_free(s);
	tg_stream_timeline_free(NULL);
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* A trace without device events: no rows, nothing to draw. */
static void test_empty(void **state)
{
	(void)state;
	tg_trace *t = tg_test_read_str(
		"{\"traceEvents\":[{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\","
		"\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2}]}");
	tg_tree *tree;
	assert_int_equal(tg_tree_build(&tree, t), 0);
	tg_stream_timeline *s;
	assert_int_equal(tg_stream_timeline_build(&s, tree, -1, 1), 0);
	assert_int_equal(s->nrows, 0);
	tg_stream_timeline_free(s);
	tg_tree_free(tree);
	tg_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sample),
		cmocka_unit_test(test_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
