/* test_launchers.c - kernel launchers (core/analysis/launchers.c): each
 * device event to the leaf cpu_op above its launch, the launchers numbered
 * by their first device event in the file, the direct time as the union of
 * a launcher's own kernels and the subtree time as the union of every
 * kernel under it, with kernels out of start order in the file and
 * overlapping on two streams; the ops tables grouped by name and category;
 * the subtree times of a 3,000-deep chain of launchers against a brute-force
 * union, in both time bases. */
#include "testutil.h"
#include "../core/analysis/launchers.h"
#include "../util/buf.h"

/* outer_op launches k3 itself and holds aten::mm, which launches k1 and k2
 * (overlapping, on streams 7 and 8). The file gives k3, then k2, then k1:
 * outer_op's subtree kernels come in reverse start order. Times in us. */
static const char *const trace_json =
	"{\"traceEvents\":["
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k3\",\"pid\":0,\"tid\":7,\"ts\":1200,\"dur\":50,"
	"\"args\":{\"device\":0,\"stream\":7,\"correlation\":3}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\",\"pid\":0,\"tid\":8,\"ts\":1050,\"dur\":100,"
	"\"args\":{\"device\":0,\"stream\":8,\"correlation\":2}},"
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":0,\"tid\":7,\"ts\":1000,\"dur\":100,"
	"\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}},"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"outer_op\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1000},"
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":300},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":110,\"dur\":10,"
	"\"args\":{\"correlation\":1}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":10,"
	"\"args\":{\"correlation\":2}},"
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":500,\"dur\":10,"
	"\"args\":{\"correlation\":3}}"
	"]}";

static void test_direct_and_subtree_times(void **state)
{
	(void)state;
	tg_trace *t = tg_test_read_str(trace_json);
	tg_tree *tree;
	assert_int_equal(tg_tree_build(&tree, t), 0);
	tg_launchers_opts o = {.tb = {.tracelens_float = 0, .base_ns = 0}, .step = -1, .keep_kernels = 1};
	tg_launchers *l;
	assert_int_equal(tg_launchers_build(&l, tree, &o), 0);
	size_t n, nk;
	const tg_launcher *list = tg_launchers_list(l, &n);
	assert_int_equal(n, 2);
	/* numbered by their first device event in the file: k3, then k2 */
	assert_string_equal(tg_trace_str(t, tg_trace_events(t, &nk)[list[0].event].name), "outer_op");
	assert_string_equal(tg_trace_str(t, tg_trace_events(t, &nk)[list[1].event].name), "aten::mm");
	/* outer_op: k3 directly (50 us); under it k1, k2, k3: [1000, 1150] and [1200, 1250] */
	const uint32_t *k = tg_launchers_kernels(l, 0, &nk);
	assert_int_equal(nk, 1);
	assert_true(list[0].direct_us == 50.0);
	assert_true(list[0].subtree_us == 200.0);
	assert_string_equal(tg_launchers_category(l, &list[0]), "other");
	/* aten::mm: k1 and k2, overlapping: [1000, 1150] */
	assert_true(list[1].direct_us == 150.0);
	assert_true(list[1].subtree_us == 150.0);
	assert_string_equal(tg_launchers_category(l, &list[1]), "GEMM");
	assert_int_not_equal(list[0].category, list[1].category);
	/* its kernels in start order, whatever the file's */
	k = tg_launchers_kernels(l, 1, &nk);
	assert_int_equal(nk, 2);
	assert_int_equal(k[0], tg_test_find(t, "k1", TG_KIND_KERNEL));
	assert_int_equal(k[1], tg_test_find(t, "k2", TG_KIND_KERNEL));
	assert_int_equal(tg_launchers_owner(l, tg_test_find(t, "k3", TG_KIND_KERNEL)), 0);
	assert_int_equal(tg_launchers_owner(l, tg_test_find(t, "k2", TG_KIND_KERNEL)), 1);
	assert_int_equal(tg_launchers_owner(l, tg_test_find(t, "outer_op", TG_KIND_CPU_OP)), TG_NONE);
	/* ops_summary: one row per op name, by direct time */
	tg_table *s;
	assert_int_equal(tg_launchers_ops_summary(&s, l), 0);
	assert_int_equal(tg_table_nrows(s), 2);
	assert_string_equal(tg_test_cell(s, 0, "name")->v.s, "aten::mm");
	assert_true(tg_test_num(s, 0, "total_direct_kernel_time_sum") == 150.0);
	assert_true(tg_test_num(s, 0, "total_subtree_kernel_time_sum") == 150.0);
	assert_true(tg_test_num(s, 1, "total_subtree_kernel_time_sum") == 200.0);
	tg_table_free(s);
	/* without keep_kernels: the same launchers, times, categories and
	 * owners, the kernels' groups freed after the build */
	tg_launchers *l2;
	o.keep_kernels = 0;
	assert_int_equal(tg_launchers_build(&l2, tree, &o), 0);
	size_t n2;
	const tg_launcher *list2 = tg_launchers_list(l2, &n2);
	assert_int_equal(n2, n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(list2[i].event, list[i].event);
		assert_true(list2[i].direct_us == list[i].direct_us && list2[i].subtree_us == list[i].subtree_us);
		assert_string_equal(tg_launchers_category(l2, &list2[i]), tg_launchers_category(l, &list[i]));
		assert_null(tg_launchers_kernels(l2, i, &nk));
		assert_int_equal(nk, 0);
	}
	assert_int_equal(tg_launchers_owner(l2, tg_test_find(t, "k2", TG_KIND_KERNEL)), 1);
	tg_launchers_free(l2);
	tg_launchers_free(l);
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* A trace whose device events no op launched (GPU-only, or its launches
 * outside the profiled window) has no launchers: every table of them is
 * empty, and none sorts or reads an array it never allocated (qsort of a
 * NULL array, even of 0 elements, is undefined: UBSan stops there). */
static void test_no_launchers(void **state)
{
	(void)state;
	tg_trace *t = tg_test_read_str(
		"{\"traceEvents\":["
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":10,\"dur\":5,"
		"\"args\":{\"device\":0,\"stream\":7,\"correlation\":1}}"
		"]}");
	tg_tree *tree;
	assert_int_equal(tg_tree_build(&tree, t), 0);
	tg_launchers_opts o = {.tb = {.tracelens_float = 0, .base_ns = 0}, .step = -1};
	tg_launchers *l;
	assert_int_equal(tg_launchers_build(&l, tree, &o), 0);
	size_t n;
	tg_launchers_list(l, &n);
	assert_int_equal(n, 0);
	tg_table *tab;
	assert_int_equal(tg_launchers_unique_args(&tab, l), 0);
	assert_int_equal(tg_table_nrows(tab), 0);
	tg_table_free(tab);
	assert_int_equal(tg_launchers_ops_summary(&tab, l), 0);
	assert_int_equal(tg_table_nrows(tab), 0);
	tg_table_free(tab);
	assert_int_equal(tg_launchers_ops_by_category(&tab, l), 0);
	assert_int_equal(tg_table_nrows(tab), 0);
	tg_table_free(tab);
	tg_launchers_free(l);
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* A chain of depth nested cpu_ops, each launching one kernel (their spans
 * from a fixed pseudo-random sequence, in microseconds with three decimals:
 * overlapping, nested in a long one, disjoint, touching, zero-length); every
 * 97th op also holds a side op launching two kernels, the second a
 * collective (not a direct kernel, but in the subtree times). */
static char *deep_chain_json(int depth)
{
	tg_buf b = TG_BUF_INIT;
	uint32_t x = 12345;
	long prev_end = 0;
	int corr = 0, rc = tg_buf_puts(&b, "{\"traceEvents\":[");
	for (int i = 0; i < depth && !rc; i++) {
		rc |= tg_buf_appendf(&b, "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op%d\",\"pid\":1,\"tid\":1,"
		                     "\"ts\":%d,\"dur\":%d}", i ? "," : "", i, 10 * i, 10 * (2 * depth - 2 * i));
		int nk = i % 97 ? 1 : 3;
		if (nk == 3)
			rc |= tg_buf_appendf(&b, ",{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"side%d\",\"pid\":1,\"tid\":1,"
			                     "\"ts\":%d,\"dur\":5}", i, 10 * i + 4);
		for (int k = 0; k < nk; k++) {
			x = x * 1103515245u + 12345u;
			uint32_t r = x >> 8;
			long start = 1000000000L + (long)(r % (uint32_t)(depth * 40)) * 1000 + (long)(r % 7 == 3 ? 0 : r % 1000);
			long dur = r % 7 == 0 ? 0 : r % 61 == 1 ? 200000 + (long)(r % 997) : 1000 + (long)(r % 30011);
			if (k == 2) /* the collective starts where the side op's first kernel ends: they touch */
				start = prev_end;
			prev_end = start + dur;
			corr++;
			rc |= tg_buf_appendf(&b, ",{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\","
			                     "\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":1,\"args\":{\"correlation\":%d}}",
			                     10 * i + (k == 0 ? 1 : k == 1 ? 5 : 7), corr);
			rc |= tg_buf_appendf(&b, ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"%s\",\"pid\":0,\"tid\":%d,"
			                     "\"ts\":%ld.%03ld,\"dur\":%ld.%03ld,\"args\":{\"device\":0,\"stream\":%d,"
			                     "\"correlation\":%d}}", k == 2 ? "ncclDevKernel_AllReduce_Sum_f32_RING_LL" : "k",
			                     7 + (int)(r % 3), start / 1000, start % 1000, dur / 1000, dur % 1000,
			                     7 + (int)(r % 3), corr);
		}
	}
	rc |= tg_buf_puts(&b, "]}");
	assert_int_equal(rc, 0);
	return b.data;
}

/* The brute force: every linked device event's span tagged to each
 * launcher above its launch, each launcher's tags merged; each launcher's
 * subtree time must be that, to the bit. */
static void check_subtrees_brute(const tg_tree *tree, const tg_launchers *l, const tg_timebase *tb)
{
	const tg_trace *t = tg_tree_trace(tree);
	size_t ne, n;
	const tg_event *ev = tg_trace_events(t, &ne);
	const tg_launcher *list = tg_launchers_list(l, &n);
	uint32_t *idx = malloc(ne * sizeof(uint32_t));
	size_t *at = calloc(n + 1, sizeof(size_t));
	assert_non_null(idx);
	assert_non_null(at);
	memset(idx, 0xff, ne * sizeof(uint32_t));
	for (size_t w = 0; w < n; w++)
		idx[list[w].event] = (uint32_t)w;
	tg_span *v = NULL;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < ne; i++) {
			uint32_t r = tg_tree_parent(tree, (uint32_t)i);
			if (!tg_kind_is_gpu(ev[i].kind) || r == TG_NONE || !tg_kind_is_launch(ev[r].kind))
				continue;
			for (uint32_t p = r; p != TG_NONE; p = tg_tree_parent(tree, p))
				if (idx[p] != TG_NONE) {
					if (pass)
						v[at[idx[p]]++] = tg_span_of(tb, t, &ev[i]);
					else
						at[idx[p] + 1]++;
				}
		}
		if (!pass) {
			for (size_t w = 0; w < n; w++)
				at[w + 1] += at[w];
			v = malloc((at[n] + 1) * sizeof(*v));
			assert_non_null(v);
		}
	}
	for (size_t w = 0, s = 0; w < n; s = at[w++]) {
		double want = tg_timebase_us(tb, tg_span_union(v + s, at[w] - s));
		if (list[w].subtree_us != want)
			fail_msg("launcher %zu: subtree %.17g, brute force %.17g", w, list[w].subtree_us, want);
	}
	free(v);
	free(at);
	free(idx);
}

/* After the build the owners name device events' launchers only: the
 * host events' room, which held the launchers' indexes and the subtree
 * walk's memo while they were built, is TG_NONE again, as are the
 * collectives'; kernel_summary still names each collective's launcher (a
 * side op), read from the launchers' indexes before the memo shared them.
 * The compact owners (a bit an event, a count per 64) agree with each
 * launcher's kernels over the trace's thousands of events, and name
 * nothing past its end. */
static void check_owners_and_comm(const tg_trace *t, const tg_launchers *l)
{
	size_t ne, ncomm = 0, nl, linked = 0;
	const tg_event *ev = tg_trace_events(t, &ne);
	for (size_t i = 0; i < ne; i++) {
		int comm = ev[i].kind == TG_KIND_KERNEL && !strncmp(tg_trace_str(t, ev[i].name), "nccl", 4);
		if (!tg_kind_is_gpu(ev[i].kind) || comm) {
			assert_int_equal(tg_launchers_owner(l, (uint32_t)i), TG_NONE);
		} else {
			assert_int_not_equal(tg_launchers_owner(l, (uint32_t)i), TG_NONE);
			linked++;
		}
	}
	tg_launchers_list(l, &nl);
	for (size_t w = 0; w < nl; w++) {
		size_t nk;
		const uint32_t *k = tg_launchers_kernels(l, w, &nk);
		for (size_t j = 0; j < nk; j++)
			assert_int_equal(tg_launchers_owner(l, k[j]), w);
		linked -= nk;
	}
	assert_int_equal(linked, 0);
	assert_int_equal(tg_launchers_owner(l, (uint32_t)ne), TG_NONE);
	assert_int_equal(tg_launchers_owner(l, (uint32_t)ne + 64), TG_NONE);
	assert_int_equal(tg_launchers_owner(l, UINT32_MAX), TG_NONE);
	tg_table *s;
	assert_int_equal(tg_launchers_kernel_summary(&s, l, 1.0), 0);
	for (size_t r = 0; r < tg_table_nrows(s); r++) {
		if (strncmp(tg_test_cell(s, r, "Kernel name")->v.s, "nccl", 4))
			continue;
		assert_memory_equal(tg_test_cell(s, r, "Parent cpu_op")->v.s, "side", 4);
		ncomm += (size_t)tg_test_num(s, r, "Kernel duration (\xc2\xb5s)_count");
	}
	assert_int_equal(ncomm, (3000 + 96) / 97);
	tg_table_free(s);
}

static void test_deep_chain_subtrees(void **state)
{
	(void)state;
	enum { DEPTH = 3000 };
	char *json = deep_chain_json(DEPTH);
	tg_trace *t = tg_test_read_str(json);
	free(json);
	tg_tree *tree;
	assert_int_equal(tg_tree_build(&tree, t), 0);
	/* both time bases: exact nanoseconds, TraceLens's rounded float64 us
	 * (the kernels are linked by correlation only, no flows: not as
	 * TraceLens links them, so tracelens_compat stays off) */
	for (int tracelens = 0; tracelens < 2; tracelens++) {
		tg_launchers_opts o = {.tb = {.tracelens_float = tracelens, .base_ns = tracelens ? 0 : 1000},
		                       .step = -1, .keep_kernels = 1};
		tg_launchers *l;
		assert_int_equal(tg_launchers_build(&l, tree, &o), 0);
		size_t n;
		const tg_launcher *list = tg_launchers_list(l, &n);
		/* every op of the chain, and the side ops */
		assert_int_equal(n, DEPTH + (DEPTH + 96) / 97);
		check_subtrees_brute(tree, l, &o.tb);
		/* the outermost op holds every kernel: more than its own */
		assert_string_equal(tg_trace_str(t, tg_trace_events(t, &n)[list[0].event].name), "op0");
		assert_true(list[0].subtree_us > list[0].direct_us);
		check_owners_and_comm(t, l);
		tg_launchers_free(l);
	}
	tg_tree_free(tree);
	tg_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_direct_and_subtree_times),
		cmocka_unit_test(test_no_launchers),
		cmocka_unit_test(test_deep_chain_subtrees),
	};
	return cmocka_run_group_tests_name("launchers", tests, NULL, NULL);
}
