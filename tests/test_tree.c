/* test_tree.c - the event tree: nesting with equal timestamps and
 * sub-microsecond overlaps, Python parent ids, launch linking by
 * correlation, flow and External id, CUDA-graph launches, orphans, steps. */
#include "testutil.h"
#include "../core/tree/tree_pack.h"
#include "../util/atoms.h"
#include "../util/buf.h"

#include <pthread.h>

struct fixture {
	tg_trace *t;
	tg_tree *tree;
};

static int load_sample(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	if (tg_trace_read_file(&f->t, "tests/fixtures/sample.json", NULL) || tg_tree_build(&f->tree, f->t))
		return -1;
	*state = f;
	return 0;
}

static int unload(void **state)
{
	struct fixture *f = *state;
	tg_tree_free(f->tree);
	tg_trace_free(f->t);
	free(f);
	return 0;
}

static const char *name_of(const tg_trace *t, uint32_t ev)
{
	size_t n;
	return ev == TG_NONE ? "(none)" : tg_trace_str(t, tg_trace_events(t, &n)[ev].name);
}

static void test_sample_structure(void **state)
{
	struct fixture *f = *state;
	const tg_trace *t = f->t;
	uint32_t gemm = tg_test_find(t, "gemm_kernel", TG_KIND_KERNEL);
	uint32_t launch = tg_tree_parent(f->tree, gemm);
	assert_string_equal(name_of(t, launch), "cudaLaunchKernel");
	assert_int_equal(tg_tree_launch(f->tree, gemm), launch);
	assert_string_equal(name_of(t, tg_tree_parent(f->tree, launch)), "aten::addmm");
	uint32_t addmm = tg_tree_parent(f->tree, launch);
	assert_string_equal(name_of(t, tg_tree_parent(f->tree, addmm)), "aten::linear");
	uint32_t linear = tg_tree_parent(f->tree, addmm);
	assert_string_equal(name_of(t, tg_tree_parent(f->tree, linear)), "nn.Module: Linear_0");
	uint32_t mod = tg_tree_parent(f->tree, linear);
	assert_string_equal(name_of(t, tg_tree_parent(f->tree, mod)), "nn.Module: Net_0");
	uint32_t net = tg_tree_parent(f->tree, mod);
	assert_string_equal(name_of(t, tg_tree_parent(f->tree, net)), "ProfilerStep#1");
	uint32_t step = tg_tree_parent(f->tree, net);
	assert_string_equal(name_of(t, tg_tree_parent(f->tree, step)), "train.py(10): main");
	uint32_t root = tg_tree_parent(f->tree, step);
	assert_int_equal(tg_tree_parent(f->tree, root), TG_NONE);

	/* children in time order, across streams */
	size_t n;
	uint32_t sdpa = tg_test_find(t, "aten::_scaled_dot_product_flash_attention", TG_KIND_CPU_OP);
	assert_int_equal(tg_tree_child_count(f->tree, sdpa), 2);
	assert_string_equal(name_of(t, tg_tree_child(f->tree, tg_tree_child(f->tree, sdpa, 0), 0)), "flash_fwd_kernel");
	assert_string_equal(name_of(t, tg_tree_child(f->tree, tg_tree_child(f->tree, sdpa, 1), 0)), "softmax_aux");
	assert_int_equal(tg_tree_child(f->tree, sdpa, 2), TG_NONE);

	/* roots: the python main on the host track, then the orphan kernel */
	const uint32_t *roots = tg_tree_roots(f->tree, &n);
	assert_int_equal(n, 2);
	assert_int_equal(roots[0], root);
	assert_string_equal(name_of(t, roots[1]), "orphan_kernel");
	/* the instant and the Trace span are not part of the tree */
	assert_false(tg_tree_contains(f->tree, tg_test_find(t, "[memory]", -1)));
	assert_false(tg_tree_contains(f->tree, tg_test_find(t, "PyTorch Profiler (0)", -1)));
}

static void test_sample_linking(void **state)
{
	struct fixture *f = *state;
	const tg_trace *t = f->t;
	const tg_tree_stats *s = tg_tree_stats_get(f->tree);
	assert_int_equal(s->gpu_events, 11);
	assert_int_equal(s->gpu_by_correlation, 8);
	assert_int_equal(s->gpu_by_flow, 1);
	assert_int_equal(s->gpu_by_external_id, 1);
	assert_int_equal(s->gpu_orphans, 1);
	assert_int_equal(s->graph_launches, 1);
	assert_int_equal(s->bleeds, 0);
	assert_int_equal(s->python_reparented, 0);
	/* flow: the kernel without correlation hangs under the launch the ac2g flow names */
	uint32_t fk = tg_test_find(t, "flow_linked_kernel", TG_KIND_KERNEL);
	uint32_t fl = tg_tree_parent(f->tree, fk);
	size_t n;
	assert_int_equal(tg_event_corr(t, &tg_trace_events(t, &n)[fl]), 401);
	/* External id fallback: directly under the cpu_op with that id */
	uint32_t ek = tg_test_find(t, "ext_linked_kernel", TG_KIND_KERNEL);
	assert_string_equal(name_of(t, tg_tree_parent(f->tree, ek)), "aten::addmm");
	assert_int_equal(tg_tree_launch(f->tree, ek), TG_NONE);
	/* the graph launch owns its three kernels in start order */
	uint32_t gl = tg_test_find(t, "cudaGraphLaunch", TG_KIND_RUNTIME);
	static const char *const graph_k[3] = {"graph_k_a", "graph_k_c", "graph_k_b"};
	tg_tree_child_iter it;
	uint32_t c;
	n = 0;
	for (tg_tree_child_iter_init(&it, f->tree, gl); tg_tree_child_next(&it, &c); n++) {
		assert_true(n < 3);
		assert_string_equal(name_of(t, c), graph_k[n]);
	}
	assert_int_equal(n, 3);
	assert_false(tg_tree_child_next(&it, &c)); /* stays at its end */
	uint32_t ok = tg_test_find(t, "orphan_kernel", TG_KIND_KERNEL);
	assert_int_equal(tg_tree_parent(f->tree, ok), TG_NONE);
}

static void test_sample_steps(void **state)
{
	struct fixture *f = *state;
	const tg_trace *t = f->t;
	size_t n;
	const tg_step *st = tg_tree_steps(f->tree, &n);
	assert_int_equal(n, 2);
	assert_int_equal(st[0].number, 1);
	assert_int_equal(st[1].number, 2);
	assert_int_equal(st[0].ts, 1000000);
	assert_int_equal(st[1].dur, 500000);
	size_t ne;
	const tg_event *ev = tg_trace_events(t, &ne);
	for (size_t i = 0; i < ne; i++) {
		const char *nm = tg_trace_str(t, ev[i].name);
		int32_t s = tg_tree_step_of(f->tree, (uint32_t)i);
		if (!strcmp(nm, "Memcpy HtoD (Pageable -> Device)") || !strcmp(nm, "flash_fwd_kernel"))
			assert_int_equal(s, 0);
		if (!strncmp(nm, "graph_k_", 8) || !strcmp(nm, "flow_linked_kernel"))
			assert_int_equal(s, 1);
		if (!strcmp(nm, "orphan_kernel") || !strcmp(nm, "train.py(10): main"))
			assert_int_equal(s, -1);
	}
	/* the gemm of step 2 ran after... step 2 started: step by launch, not by GPU time */
	assert_int_equal(tg_tree_step_of(f->tree, tg_test_find(t, "ext_linked_kernel", -1)), 1);
}

static tg_tree *build(tg_trace **t, const char *json)
{
	*t = tg_test_read_str(json);
	tg_tree *tree;
	assert_int_equal(tg_tree_build(&tree, *t), 0);
	return tree;
}

static void test_equal_timestamps_and_tolerance(void **state)
{
	(void)state;
	tg_trace *t;
	/* annotation, python, cpu_op and runtime all start together with the
	 * same length: outer kinds first; a child may end 0.5 us late; a
	 * sibling may start 0.4 us before its predecessor ends; zero-length
	 * events nest */
	tg_tree *tree = build(&t,
		"{\"traceEvents\":["
		"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"rt\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":10},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":10},"
		"{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"py\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":10,\"args\":{\"Python id\":5}},"
		"{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ann\",\"pid\":1,\"tid\":1,\"ts\":100,\"dur\":10},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"late_child\",\"pid\":1,\"tid\":1,\"ts\":105,\"dur\":5.5},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":10},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":209.6,\"dur\":10},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"zero\",\"pid\":1,\"tid\":1,\"ts\":209.6,\"dur\":0},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":300,\"dur\":10},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"bleeder\",\"pid\":1,\"tid\":1,\"ts\":302,\"dur\":30},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"other_thread\",\"pid\":1,\"tid\":2,\"ts\":100,\"dur\":1}"
		"]}");
	assert_string_equal(name_of(t, tg_tree_parent(tree, tg_test_find(t, "py", -1))), "ann");
	assert_string_equal(name_of(t, tg_tree_parent(tree, tg_test_find(t, "op", -1))), "py");
	assert_string_equal(name_of(t, tg_tree_parent(tree, tg_test_find(t, "rt", -1))), "op");
	assert_string_equal(name_of(t, tg_tree_parent(tree, tg_test_find(t, "late_child", -1))), "rt");
	assert_int_equal(tg_tree_parent(tree, tg_test_find(t, "b", -1)), TG_NONE);
	assert_string_equal(name_of(t, tg_tree_parent(tree, tg_test_find(t, "zero", -1))), "b");
	assert_string_equal(name_of(t, tg_tree_parent(tree, tg_test_find(t, "bleeder", -1))), "c");
	assert_int_equal(tg_tree_parent(tree, tg_test_find(t, "other_thread", -1)), TG_NONE);
	assert_int_equal(tg_tree_stats_get(tree)->bleeds, 1);
	size_t n;
	tg_tree_roots(tree, &n);
	assert_int_equal(n, 5); /* ann, a, b, c on thread 1; other_thread */
	tg_tree_free(tree);
	tg_trace_free(t);
}

static void test_python_parent_ids(void **state)
{
	(void)state;
	tg_trace *t;
	/* two python threads logged on one tid (as Kineto does for tid 0):
	 * time nesting alone would put t2_inner under t1_outer */
	tg_tree *tree = build(&t,
		"{\"traceEvents\":["
		"{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"t1_outer\",\"pid\":1,\"tid\":0,\"ts\":0,\"dur\":100,\"args\":{\"Python id\":1,\"Python parent id\":null}},"
		"{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"t2_outer\",\"pid\":1,\"tid\":0,\"ts\":10,\"dur\":200,\"args\":{\"Python id\":2,\"Python parent id\":null}},"
		"{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"t2_inner\",\"pid\":1,\"tid\":0,\"ts\":20,\"dur\":30,\"args\":{\"Python id\":3,\"Python parent id\":2}},"
		"{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"same_b\",\"pid\":1,\"tid\":0,\"ts\":300,\"dur\":5,\"args\":{\"Python id\":11,\"Python parent id\":10}},"
		"{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"same_a\",\"pid\":1,\"tid\":0,\"ts\":300,\"dur\":5,\"args\":{\"Python id\":10,\"Python parent id\":null}}"
		"]}");
	assert_string_equal(name_of(t, tg_tree_parent(tree, tg_test_find(t, "t2_inner", -1))), "t2_outer");
	/* t2_outer bleeds out of t1_outer but has no Python parent: a root */
	assert_int_equal(tg_tree_parent(tree, tg_test_find(t, "t2_outer", -1)), TG_NONE);
	/* equal start and length: the lower Python id is the caller */
	assert_string_equal(name_of(t, tg_tree_parent(tree, tg_test_find(t, "same_b", -1))), "same_a");
	assert_int_equal(tg_tree_parent(tree, tg_test_find(t, "same_a", -1)), TG_NONE);
	assert_int_equal(tg_tree_stats_get(tree)->python_reparented, 1);
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* Ids beyond 32 bits (kept in the trace's wide ids) link and nest as
 * narrow ones do: a kernel by a 64-bit correlation, one by a negative
 * External id, a python frame under a parent with a 64-bit Python id. */
static void test_wide_ids_link(void **state)
{
	(void)state;
	tg_trace *t;
	tg_tree *tree = build(&t,
		"{\"traceEvents\":["
		"{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"caller\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1000,\"args\":{\"Python id\":8589934592,\"Python parent id\":null}},"
		"{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"other\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":900,\"args\":{\"Python id\":3,\"Python parent id\":null}},"
		"{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"callee\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":10,\"args\":{\"Python id\":4,\"Python parent id\":8589934592}},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":2,\"ts\":100,\"dur\":50,\"args\":{\"External id\":-5}},"
		"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":2,\"ts\":110,\"dur\":10,\"args\":{\"correlation\":6000000000}},"
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k_corr\",\"pid\":0,\"tid\":7,\"ts\":200,\"dur\":5,\"args\":{\"device\":0,\"stream\":7,\"correlation\":6000000000}},"
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k_ext\",\"pid\":0,\"tid\":7,\"ts\":300,\"dur\":5,\"args\":{\"device\":0,\"stream\":7,\"correlation\":1704067200,\"External id\":-5}}"
		"]}");
	assert_string_equal(name_of(t, tg_tree_parent(tree, tg_test_find(t, "callee", -1))), "caller");
	assert_string_equal(name_of(t, tg_tree_parent(tree, tg_test_find(t, "k_corr", -1))), "cudaLaunchKernel");
	assert_string_equal(name_of(t, tg_tree_parent(tree, tg_test_find(t, "k_ext", -1))), "aten::mm");
	const tg_tree_stats *s = tg_tree_stats_get(tree);
	assert_int_equal(s->gpu_by_correlation, 1);
	assert_int_equal(s->gpu_by_external_id, 1);
	assert_int_equal(s->python_reparented, 2); /* callee to caller; other, a first frame, out of caller */
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* Which device events TraceLens links (tree_links.c): both ends of the
 * launch flow with the kernel's correlation, at any id (32-bit, at
 * UINT32_MAX, 64-bit), or a graph launch; one end is not enough. Flow ids
 * 5 and 2^62 span a range no dense map may be sized by: the build must
 * still succeed (a map of the range would be 2^63 keys). */
#define TL_LAUNCH(ts, corr) \
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":" #ts \
	",\"dur\":2,\"args\":{\"correlation\":" #corr "}},"
#define TL_KERNEL(name, ts, corr) \
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"" name "\",\"pid\":0,\"tid\":7,\"ts\":" #ts \
	",\"dur\":5,\"args\":{\"device\":0,\"stream\":7,\"correlation\":" #corr "}},"
#define TL_FLOW(ph, id, pid, tid, ts) \
	"{\"ph\":\"" ph "\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":" #id ",\"pid\":" #pid ",\"tid\":" #tid \
	",\"ts\":" #ts ",\"bp\":\"e\"},"
/* The trace of test_tracelens_links, with far and max as k_far's and
 * k_max's correlation ids. */
#define TL_JSON(far, max) \
	"{\"traceEvents\":[" \
	"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100}," \
	TL_LAUNCH(10, 5) TL_KERNEL("k_both", 200, 5) TL_FLOW("s", 5, 1, 1, 10) TL_FLOW("f", 5, 0, 7, 200) \
	TL_LAUNCH(20, far) TL_KERNEL("k_far", 210, far) TL_FLOW("s", far, 1, 1, 20) TL_FLOW("f", far, 0, 7, 210) \
	TL_LAUNCH(30, max) TL_KERNEL("k_max", 220, max) TL_FLOW("s", max, 1, 1, 30) TL_FLOW("f", max, 0, 7, 220) \
	TL_LAUNCH(40, 7) TL_KERNEL("k_start_only", 230, 7) TL_FLOW("s", 7, 1, 1, 40) \
	"{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaGraphLaunch\",\"pid\":1,\"tid\":1," \
	"\"ts\":50,\"dur\":2,\"args\":{\"correlation\":9}}," \
	TL_KERNEL("k_graph", 240, 9) \
	"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k_alone\",\"pid\":0,\"tid\":7,\"ts\":250,\"dur\":5," \
	"\"args\":{\"device\":0,\"stream\":7}}" \
	"]}"

/* test_tracelens_links on the trace of ids far and max, its tree built
 * with tg_tree_build, or with tg_tree_build_dropping when drop is
 * set (the trace then has no flows left). */
static void check_tracelens_links(const char *json, int drop)
{
	tg_trace *t = tg_test_read_str(json);
	tg_tree *tree = NULL;
	size_t nf;
	tg_trace_flows(t, &nf);
	assert_int_equal(nf, 7);
	assert_int_equal(drop ? tg_tree_build_dropping(&tree, t, NULL) : tg_tree_build(&tree, t), 0);
	tg_trace_flows(t, &nf);
	assert_int_equal(nf, drop ? 0 : 7);
	static const struct {
		const char *name;
		int linked;
	} want[] = {{"k_both", 1}, {"k_far", 1}, {"k_max", 1}, {"k_start_only", 0}, {"k_graph", 1}, {"k_alone", 0}};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		uint32_t k = tg_test_find(t, want[i].name, TG_KIND_KERNEL);
		assert_int_not_equal(k, TG_NONE);
		if (tg_tree_linked_like_tracelens(tree, k) != want[i].linked)
			fail_msg("%s: linked %d, want %d", want[i].name, tg_tree_linked_like_tracelens(tree, k),
			         want[i].linked);
	}
	/* every kernel but the lone one hangs under its launch all the same */
	assert_string_equal(name_of(t, tg_tree_parent(tree, tg_test_find(t, "k_start_only", TG_KIND_KERNEL))),
	                    "cudaLaunchKernel");
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* TraceLens's links by both ends of the launch flow: the ends kept as a
 * map of their keys when the ids spread (k_far's 2^62), as a bitmap of
 * the keys' range when they are dense; the same when the build drops the
 * flows before its peak. */
static void test_tracelens_links(void **state)
{
	(void)state;
	for (int drop = 0; drop < 2; drop++) {
		check_tracelens_links(TL_JSON(4611686018427387904, 4294967295), drop);
		check_tracelens_links(TL_JSON(11, 13), drop);
	}
}

/* The ends of a launch flow are matched on the whole 64-bit id: the start
 * of id 7 and the finish of id 7 + 2^63 are two flows' halves, and do not
 * link k_start_only (a key id << 1 | finish once made them one). */
static void test_tracelens_links_top_bit(void **state)
{
	(void)state;
	static const char *json = "{\"traceEvents\":["
		TL_LAUNCH(40, 7) TL_KERNEL("k_start_only", 230, 7) TL_FLOW("s", 7, 1, 1, 40)
		TL_FLOW("f", 9223372036854775815, 0, 7, 230)
		TL_LAUNCH(50, 9223372036854775816) TL_KERNEL("k_top", 240, 9223372036854775816)
		TL_FLOW("s", 9223372036854775816, 1, 1, 50) TL_FLOW("f", 9223372036854775816, 0, 7, 240)
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100}"
		"]}";
	for (int drop = 0; drop < 2; drop++) {
		tg_trace *t = tg_test_read_str(json);
		tg_tree *tree = NULL;
		assert_int_equal(drop ? tg_tree_build_dropping(&tree, t, NULL) : tg_tree_build(&tree, t), 0);
		assert_false(tg_tree_linked_like_tracelens(tree, tg_test_find(t, "k_start_only", TG_KIND_KERNEL)));
		assert_true(tg_tree_linked_like_tracelens(tree, tg_test_find(t, "k_top", TG_KIND_KERNEL)));
		tg_tree_free(tree);
		tg_trace_free(t);
	}
}

static void test_gpu_only_trace(void **state)
{
	(void)state;
	tg_trace *t;
	tg_tree *tree = build(&t,
		"{\"traceEvents\":["
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k1\",\"pid\":2,\"tid\":0,\"ts\":10,\"dur\":5,\"args\":{\"stream\":0,\"correlation\":1}},"
		"{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k2\",\"pid\":2,\"tid\":0,\"ts\":1,\"dur\":5,\"args\":{\"stream\":0,\"correlation\":2}},"
		"{\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":\"m\",\"pid\":2,\"tid\":1,\"ts\":3,\"dur\":1}"
		"]}");
	size_t n;
	const uint32_t *r = tg_tree_roots(tree, &n);
	assert_int_equal(n, 3);
	assert_string_equal(name_of(t, r[0]), "k2"); /* by track, then time */
	assert_string_equal(name_of(t, r[1]), "k1");
	assert_string_equal(name_of(t, r[2]), "m");
	assert_int_equal(tg_tree_stats_get(tree)->gpu_orphans, 3);
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* A trace of nsteps ProfilerStep#k (k from 0), 10 us apart, with a launch
 * and its kernel under the first, every 1000th and the last step (every
 * 2000th with its launch flow), and an instant and a sync event. */
/* The JSON of n parents with a child each on thread 1 (in file order, or
 * reversed when reversed) and on thread 2 (in order): parent pK at K * 100
 * for 50 us, its child cK at K * 100 + 10 for 20 us; qK, dK on thread 2. */
static char *order_json(int n, int reversed)
{
	tg_buf b = TG_BUF_INIT;
	tg_buf_puts(&b, "{\"traceEvents\":[");
	for (int i = 0; i < n; i++) {
		int k = reversed ? n - 1 - i : i;
		const char *first = reversed ? "c" : "p", *second = reversed ? "p" : "c";
		int t1 = reversed ? k * 100 + 10 : k * 100, d1 = reversed ? 20 : 50;
		int t2 = reversed ? k * 100 : k * 100 + 10, d2 = reversed ? 50 : 20;
		tg_buf_appendf(&b,
		              "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s%d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d},"
		              "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"%s%d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":%d},"
		              "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"q%d\",\"pid\":1,\"tid\":2,\"ts\":%d,\"dur\":50},"
		              "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"d%d\",\"pid\":1,\"tid\":2,\"ts\":%d,\"dur\":20}",
		              i ? "," : "", first, k, t1, d1, second, k, t2, d2, i, i * 100, i, i * 100 + 10);
	}
	tg_buf_puts(&b, "]}");
	assert_int_equal(b.err, 0);
	return b.data;
}

/* A thread whose events come out of order in the file is sorted (its
 * bucket found out of order while filling), one in order beside it is
 * taken as it is: both nest every child under its parent, the roots in
 * time order. */
static void test_out_of_order_thread(void **state)
{
	(void)state;
	for (int reversed = 0; reversed < 2; reversed++) {
		char *json = order_json(300, reversed);
		tg_trace *t;
		tg_tree *tree = build(&t, json);
		char name[16];
		for (int k = 0; k < 300; k++) {
			snprintf(name, sizeof(name), "c%d", k);
			uint32_t c = tg_test_find(t, name, -1);
			snprintf(name, sizeof(name), "p%d", k);
			assert_int_equal(tg_tree_parent(tree, c), tg_test_find(t, name, -1));
			snprintf(name, sizeof(name), "d%d", k);
			uint32_t d = tg_test_find(t, name, -1);
			snprintf(name, sizeof(name), "q%d", k);
			assert_int_equal(tg_tree_parent(tree, d), tg_test_find(t, name, -1));
		}
		size_t n;
		const uint32_t *roots = tg_tree_roots(tree, &n);
		assert_int_equal(n, 600);
		size_t ne;
		const tg_event *ev = tg_trace_events(t, &ne);
		assert_int_equal(ne, 1200);
		for (size_t i = 1; i < n; i++) /* thread 1's roots, then thread 2's: each in time order */
			assert_true(ev[roots[i - 1]].ts < ev[roots[i]].ts || ev[roots[i - 1]].track != ev[roots[i]].track);
		tg_tree_free(tree);
		tg_trace_free(t);
		free(json);
	}
}

static char *many_steps_json(int nsteps)
{
	size_t cap = (size_t)nsteps * 128 + 4096, k = 0;
	char *s = malloc(cap);
	assert_non_null(s);
	k += (size_t)sprintf(s + k, "{\"traceEvents\":[");
	for (int i = 0; i < nsteps; i++) {
		k += (size_t)sprintf(s + k, "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"ProfilerStep#%d\","
		                     "\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":9}", i ? "," : "", i, i * 10);
		if (i % 1000 == 0 || i == nsteps - 1)
			k += (size_t)sprintf(s + k,
			                     ",{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
			                     "\"tid\":1,\"ts\":%d,\"dur\":2,\"args\":{\"correlation\":%d}}"
			                     ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"pid\":2,\"tid\":7,"
			                     "\"ts\":%d,\"dur\":50,\"args\":{\"correlation\":%d,\"stream\":7}}",
			                     i * 10 + 1, i + 1, i, i * 10 + 5, i + 1);
		if (i % 2000 == 0) /* both ends of the launch flow: TraceLens links it */
			k += (size_t)sprintf(s + k,
			                     ",{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":%d,\"pid\":1,\"tid\":1,"
			                     "\"ts\":%d}"
			                     ",{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":%d,\"pid\":2,\"tid\":7,"
			                     "\"ts\":%d,\"bp\":\"e\"}",
			                     i + 1, i * 10 + 1, i + 1, i * 10 + 5);
	}
	k += (size_t)sprintf(s + k, ",{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"name\":\"mark\",\"pid\":1,"
	                     "\"tid\":1,\"ts\":3,\"s\":\"t\"}"
	                     ",{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Stream Sync\",\"pid\":2,\"tid\":7,"
	                     "\"ts\":4,\"dur\":1}]}");
	return s;
}

/* Steps are kept 16-bit while they fit (up to 32,766 of them) and 32-bit
 * from 32,767 on: every event reads the same step either way; whether an
 * event is in the tree comes from its kind; TraceLens's link marks (a bit
 * an event) read back for events far into the trace. */
static void test_many_steps(void **state)
{
	(void)state;
	for (int nsteps = 32766; nsteps <= 32768; nsteps++) {
		char *json = many_steps_json(nsteps);
		tg_trace *t;
		tg_tree *tree = build(&t, json);
		free(json);
		size_t ns;
		tg_tree_steps(tree, &ns);
		assert_int_equal(ns, (size_t)nsteps);
		char name[32];
		for (int i = 0; i < nsteps; i++) {
			if (i % 1000 && i != nsteps - 1)
				continue;
			snprintf(name, sizeof(name), "k%d", i);
			uint32_t kernel = tg_test_find(t, name, -1);
			assert_int_equal(tg_tree_step_of(tree, kernel), i);
			assert_int_equal(tg_tree_step_of(tree, tg_tree_parent(tree, kernel)), i);
			assert_true(tg_tree_contains(tree, kernel));
			assert_int_equal(tg_tree_linked_like_tracelens(tree, kernel), i % 2000 == 0);
		}
		snprintf(name, sizeof(name), "ProfilerStep#%d", nsteps - 1);
		assert_int_equal(tg_tree_step_of(tree, tg_test_find(t, name, -1)), nsteps - 1);
		assert_false(tg_tree_contains(tree, tg_test_find(t, "mark", -1)));
		assert_int_equal(tg_tree_step_of(tree, tg_test_find(t, "mark", -1)), -1);
		assert_true(tg_tree_contains(tree, tg_test_find(t, "Stream Sync", -1)));
		tg_tree_free(tree);
		tg_trace_free(t);
	}
}

/* nblocks steps of 100 us on host track (1, 1), each with a python frame
 * (Python id 2i + 1) and its child frame (parent id 2i + 1), a cpu_op
 * (External id i + 1) holding three launches, and three kernels on
 * (2, 7): one linked by correlation, one whose correlation no launch has
 * but whose ac2g flow starts in the second launch, one with the cpu_op's
 * External id only. A second python track (1, 2) runs beside it. */
static char *blocks_json(int nblocks)
{
	size_t cap = (size_t)nblocks * 2048 + 4096, k = 0;
	char *s = malloc(cap);
	assert_non_null(s);
	k += (size_t)sprintf(s + k, "{\"traceEvents\":[");
	for (int i = 0; i < nblocks; i++) {
		int ts = i * 100;
		k += (size_t)sprintf(
		    s + k,
		    "%s{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#%d\",\"pid\":1,\"tid\":1,"
		    "\"ts\":%d,\"dur\":99}"
		    ",{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"f%d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":90,"
		    "\"args\":{\"Python id\":%d,\"Python parent id\":null}}"
		    ",{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"g%d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":80,"
		    "\"args\":{\"Python id\":%d,\"Python parent id\":%d}}"
		    ",{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op%d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":70,"
		    "\"args\":{\"External id\":%d}}",
		    i ? "," : "", i, ts, i, ts + 1, 2 * i + 1, i, ts + 2, 2 * i + 2, 2 * i + 1, i, ts + 3, i + 1);
		k += (size_t)sprintf(
		    s + k,
		    ",{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":%d,"
		    "\"dur\":5,\"args\":{\"correlation\":%d}}"
		    ",{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":%d,"
		    "\"dur\":5,\"args\":{\"correlation\":%d}}"
		    ",{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":%d,\"pid\":1,\"tid\":1,\"ts\":%d}"
		    ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kc%d\",\"pid\":2,\"tid\":7,\"ts\":%d,\"dur\":3,"
		    "\"args\":{\"correlation\":%d,\"stream\":7}}"
		    ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"kf%d\",\"pid\":2,\"tid\":7,\"ts\":%d,\"dur\":3,"
		    "\"args\":{\"correlation\":%d,\"stream\":7}}"
		    ",{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":%d,\"pid\":2,\"tid\":7,\"ts\":%d,\"bp\":\"e\"}"
		    ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"ke%d\",\"pid\":2,\"tid\":7,\"ts\":%d,\"dur\":3,"
		    "\"args\":{\"External id\":%d,\"stream\":7}}"
		    ",{\"ph\":\"X\",\"cat\":\"python_function\",\"name\":\"h%d\",\"pid\":1,\"tid\":2,\"ts\":%d,\"dur\":50}",
		    ts + 4, 3 * i + 1, ts + 20, 3 * i + 2, 1000000 + i, ts + 21, i, ts + 40, 3 * i + 1, i, ts + 50,
		    5000000 + i, 1000000 + i, ts + 50, i, ts + 60, i + 1, i, ts + 5);
	}
	k += (size_t)sprintf(s + k, "]}");
	return s;
}

/* The tree of blocks_json(n), built one of six ways (way 0: tg_tree_build,
 * 1: with a parked helper, 2: with none, on one thread; 3 and 4: the same
 * dropping the flows once linked, which leaves t none; 5: dropping them
 * with a thread the build starts, the daemon's), as it should be. */
static void check_blocks(tg_trace *t, int n, int way)
{
	tg_tree *tree;
	size_t nf;
	if (way == 0)
		assert_int_equal(tg_tree_build(&tree, t), 0);
	else if (way < 3)
		assert_int_equal(tg_tree_build_with(&tree, t, way == 1 ? tg_tree_helper_start() : NULL), 0);
	else
		assert_int_equal(way == 5 ? tg_tree_build_dropping_spawn(&tree, t)
		                          : tg_tree_build_dropping(&tree, t, way == 3 ? tg_tree_helper_start() : NULL),
		                 0);
	tg_trace_flows(t, &nf);
	assert_int_equal(nf, way < 3 ? 2 * (size_t)n : 0);
	const tg_tree_stats *st = tg_tree_stats_get(tree);
	assert_int_equal(st->gpu_events, 3 * n);
	assert_int_equal(st->gpu_by_correlation, n);
	assert_int_equal(st->gpu_by_flow, n);
	assert_int_equal(st->gpu_by_external_id, n);
	assert_int_equal(st->gpu_orphans, 0);
	size_t ns;
	tg_tree_steps(tree, &ns);
	assert_int_equal(ns, (size_t)n);
	char name[32];
	for (int i = 0; i < n; i += (i < 5 || i > n - 5) ? 1 : 97) {
		snprintf(name, sizeof(name), "ProfilerStep#%d", i);
		uint32_t step = tg_test_find(t, name, -1);
		snprintf(name, sizeof(name), "f%d", i);
		uint32_t f = tg_test_find(t, name, -1);
		snprintf(name, sizeof(name), "g%d", i);
		uint32_t g = tg_test_find(t, name, -1);
		snprintf(name, sizeof(name), "op%d", i);
		uint32_t op = tg_test_find(t, name, -1);
		snprintf(name, sizeof(name), "kc%d", i);
		uint32_t kc = tg_test_find(t, name, -1);
		snprintf(name, sizeof(name), "kf%d", i);
		uint32_t kf = tg_test_find(t, name, -1);
		snprintf(name, sizeof(name), "ke%d", i);
		uint32_t ke = tg_test_find(t, name, -1);
		snprintf(name, sizeof(name), "h%d", i);
		uint32_t h = tg_test_find(t, name, -1);
		/* a thread's first frame is no python frame's child; its child by parent id */
		assert_int_equal(tg_tree_parent(tree, f), step);
		assert_int_equal(tg_tree_parent(tree, g), f);
		assert_int_equal(tg_tree_parent(tree, op), g);
		uint32_t c[3];
		assert_int_equal(tg_tree_child_count(tree, op), 3); /* the two launches, then the kernel by External id */
		for (size_t k = 0; k < 3; k++)
			c[k] = tg_tree_child(tree, op, k);
		assert_int_equal(tg_tree_child(tree, op, 3), TG_NONE);
		tg_tree_child_iter it; /* the iterator reads the same children, in order */
		uint32_t x;
		size_t nx = 0;
		for (tg_tree_child_iter_init(&it, tree, op); tg_tree_child_next(&it, &x); nx++)
			assert_int_equal(x, c[nx]);
		assert_int_equal(nx, 3);
		assert_int_equal(tg_tree_child_count(tree, c[0]), 1); /* the launch's kernel */
		assert_int_equal(tg_tree_child(tree, c[0], 0), kc);
		assert_int_equal(c[2], ke);
		assert_int_equal(tg_tree_parent(tree, kc), c[0]);
		assert_int_equal(tg_tree_parent(tree, kf), c[1]);
		assert_int_equal(tg_tree_launch(tree, kf), c[1]);
		assert_int_equal(tg_tree_parent(tree, ke), op);
		assert_int_equal(tg_tree_parent(tree, h), TG_NONE);
		assert_int_equal(tg_tree_step_of(tree, kc), i);
		assert_int_equal(tg_tree_step_of(tree, kf), i);
		assert_int_equal(tg_tree_step_of(tree, ke), i);
		assert_int_equal(tg_tree_step_of(tree, h), i);
		assert_false(tg_tree_linked_like_tracelens(tree, kc));
		assert_false(tg_tree_linked_like_tracelens(tree, kf));
	}
	size_t nr;
	tg_tree_roots(tree, &nr);
	assert_int_equal(nr, 2 * (size_t)n); /* the steps, then track (1, 2)'s frames */
	tg_tree_free(tree);
}

/* The same links, nesting and steps whether the tree is built on one
 * thread (a few hundred events, or no helper) or on two (more than 8,192
 * events: a thread started by the build, or a parked helper), keeping the
 * trace's flows or dropping them once linked. */
static void test_one_and_two_threads(void **state)
{
	(void)state;
	const int sizes[] = {20, 1200};
	for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
		int n = sizes[z];
		char *json = blocks_json(n);
		tg_trace *t = tg_test_read_str(json);
		for (int way = 0; way < 3; way++)
			check_blocks(t, n, way);
		check_blocks(t, n, 3); /* the flows linked by (kf), then dropped */
		tg_trace_free(t);
		t = tg_test_read_str(json);
		check_blocks(t, n, 4);
		tg_trace_free(t);
		t = tg_test_read_str(json);
		check_blocks(t, n, 5); /* the daemon's: a thread started by the build */
		free(json);
		tg_tree_helper_free(tg_tree_helper_start()); /* started, never used */
		tg_trace_free(t);
	}
}

/* A digest of what tree says of each of its ne events (parent, children,
 * first child, step) and of its links' counts: tg_hash_bytes of them; 0
 * when out of memory (no tree's digest is expected to be 0). */
static uint64_t tree_digest(const tg_tree *tree, size_t ne)
{
	uint64_t *v = malloc((4 * ne + 4) * sizeof(uint64_t));
	if (!v) /* no assertion: the workers call it off the test's thread */
		return 0;
	for (uint32_t i = 0; i < ne; i++) {
		v[4 * i] = tg_tree_parent(tree, i);
		v[4 * i + 1] = tg_tree_child_count(tree, i);
		v[4 * i + 2] = tg_tree_child(tree, i, 0);
		v[4 * i + 3] = (uint64_t)(int64_t)tg_tree_step_of(tree, i);
	}
	const tg_tree_stats *st = tg_tree_stats_get(tree);
	v[4 * ne] = st->gpu_by_correlation;
	v[4 * ne + 1] = st->gpu_by_flow;
	v[4 * ne + 2] = st->gpu_by_external_id;
	v[4 * ne + 3] = st->gpu_orphans;
	uint64_t h = tg_hash_bytes(v, (4 * ne + 4) * sizeof(uint64_t));
	free(v);
	return h;
}

/* One of test_concurrent_builds' workers: rounds builds of its own read of
 * json, the daemon's way (dropping, the second thread found by the build)
 * or tg_tree_build's, each tree's digest into digests[]; no cmocka
 * assertion off the test's thread (rc says what failed). */
struct build_worker {
	const char *json;
	int rounds;
	uint64_t digests[8];
	int rc;
};

static void *build_worker_run(void *arg)
{
	struct build_worker *w = arg;
	for (int r = 0; r < w->rounds && !w->rc; r++) {
		tg_trace *t = NULL;
		if (tg_trace_read_mem(&t, w->json, strlen(w->json), "test.json", NULL)) {
			w->rc = 1;
			break;
		}
		size_t ne;
		tg_trace_events(t, &ne);
		tg_tree *tree = NULL;
		if ((r % 2 ? tg_tree_build(&tree, t) : tg_tree_build_dropping_spawn(&tree, t)) != 0)
			w->rc = 2;
		else
			w->digests[r] = tree_digest(tree, ne);
		tg_tree_free(tree);
		tg_trace_free(t);
	}
	return NULL;
}

/* The daemon's workers build trees at once, each build handing its second
 * thread's part to a parked thread (util/park.h: an idle one, else one
 * created then, parked again after): four workers, four rounds each, on
 * traces large enough for two threads, give the trees a build on one
 * thread gives. */
static void test_concurrent_builds(void **state)
{
	(void)state;
	enum { WORKERS = 4, ROUNDS = 4 };
	char *json = blocks_json(1200); /* 12,000 events: two threads */
	tg_trace *t = tg_test_read_str(json);
	size_t ne;
	tg_trace_events(t, &ne);
	assert_true(ne >= 8192);
	tg_tree *tree;
	assert_int_equal(tg_tree_build_with(&tree, t, NULL), 0); /* one thread */
	uint64_t want = tree_digest(tree, ne);
	tg_tree_free(tree);
	tg_trace_free(t);
	struct build_worker w[WORKERS];
	pthread_t th[WORKERS];
	for (int i = 0; i < WORKERS; i++) {
		w[i] = (struct build_worker){.json = json, .rounds = ROUNDS};
		assert_int_equal(pthread_create(&th[i], NULL, build_worker_run, &w[i]), 0);
	}
	for (int i = 0; i < WORKERS; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	for (int i = 0; i < WORKERS; i++) {
		assert_int_equal(w[i].rc, 0);
		for (int r = 0; r < ROUNDS; r++)
			assert_true(w[i].digests[r] == want);
	}
	free(json);
}

/* A tree from TG_TREE_PACK_MIN events on reads its parents, children (the
 * iterator, tg_tree_child), child offsets and steps from the packs (tree_pack.h) the same as a smaller one from its
 * whole arrays: 14,000 blocks of ten events, each its own step. */
static void test_packed_tree(void **state)
{
	(void)state;
	int n = 14000;
	char *json = blocks_json(n);
	tg_trace *t = tg_test_read_str(json);
	size_t ne;
	tg_trace_events(t, &ne);
	assert_true(ne >= TG_TREE_PACK_MIN);
	check_blocks(t, n, 0);
	check_blocks(t, n, 1);
	tg_trace_free(t);
	free(json);
}

/* n blocks of a cpu_op, its launch and the launch's kernel, each kernel
 * linked by its correlation id (no fallback needed), with an ac2g flow
 * start and finish for every block but each fifth's (no finish). */
static char *corr_json(int n)
{
	size_t cap = (size_t)n * 640 + 64, k = 0;
	char *s = malloc(cap);
	assert_non_null(s);
	k += (size_t)sprintf(s + k, "{\"traceEvents\":[");
	for (int i = 0; i < n; i++) {
		int ts = i * 100, c = i + 1;
		k += (size_t)sprintf(
		    s + k,
		    "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op%d\",\"pid\":1,\"tid\":1,\"ts\":%d,\"dur\":50}"
		    ",{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,"
		    "\"ts\":%d,\"dur\":5,\"args\":{\"correlation\":%d}}"
		    ",{\"ph\":\"s\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":%d,\"pid\":1,\"tid\":1,\"ts\":%d}"
		    ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"pid\":2,\"tid\":7,\"ts\":%d,\"dur\":3,"
		    "\"args\":{\"correlation\":%d,\"stream\":7}}",
		    i ? "," : "", i, ts, ts + 10, c, c, ts + 11, i, ts + 20, c);
		if (i % 5)
			k += (size_t)sprintf(s + k,
			                     ",{\"ph\":\"f\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"id\":%d,\"pid\":2,"
			                     "\"tid\":7,\"ts\":%d,\"bp\":\"e\"}",
			                     c, ts + 20);
	}
	k += (size_t)sprintf(s + k, "]}");
	assert_true(k < cap);
	return s;
}

/* When every device event has its launch by correlation id, the flows go
 * as soon as the links by correlation and the launch flows' ends are done
 * (on whichever thread finishes the second), before the host part ends:
 * the tree is the same, TraceLens's links too, on one thread or two, the
 * columns whole or packed (from TG_TREE_PACK_MIN events). */
static void test_flows_dropped_early(void **state)
{
	(void)state;
	const int sizes[] = {3000, 44000}; /* 9,000 events (two threads), 132,000 (packed) */
	for (size_t z = 0; z < sizeof(sizes) / sizeof(sizes[0]); z++) {
		int n = sizes[z];
		char *json = corr_json(n);
		for (int way = 0; way < 3; way++) {
			tg_trace *t = tg_test_read_str(json);
			size_t ne, nf;
			const tg_event *ev = tg_trace_events(t, &ne);
			assert_int_equal(ne, 3 * (size_t)n);
			tg_trace_flows(t, &nf);
			assert_int_equal(nf, 2 * (size_t)n - (size_t)(n + 4) / 5); /* a start each, a finish but each fifth */
			tg_tree *tree;
			int rc = way == 0 ? tg_tree_build_dropping(&tree, t, tg_tree_helper_start())
			         : way == 1 ? tg_tree_build_dropping_spawn(&tree, t)
			                    : tg_tree_build_dropping(&tree, t, NULL);
			assert_int_equal(rc, 0);
			tg_trace_flows(t, &nf);
			assert_int_equal(nf, 0);
			const tg_tree_stats *st = tg_tree_stats_get(tree);
			assert_int_equal(st->gpu_by_correlation, n);
			assert_int_equal(st->gpu_by_flow, 0);
			assert_int_equal(st->gpu_orphans, 0);
			size_t nr;
			tg_tree_roots(tree, &nr);
			assert_int_equal(nr, (size_t)n);
			for (int i = 0; i < n; i++) {
				uint32_t op = (uint32_t)(3 * i), launch = op + 1, kernel = op + 2;
				assert_int_equal(ev[kernel].kind, TG_KIND_KERNEL);
				assert_int_equal(tg_tree_parent(tree, kernel), launch);
				assert_int_equal(tg_tree_parent(tree, launch), op);
				assert_int_equal(tg_tree_parent(tree, op), TG_NONE);
				assert_int_equal(tg_tree_child_count(tree, op), 1);
				assert_int_equal(tg_tree_child(tree, op, 0), launch);
				assert_int_equal(tg_tree_child(tree, launch, 0), kernel);
				assert_int_equal(tg_tree_child_count(tree, kernel), 0);
				assert_int_equal(tg_tree_linked_like_tracelens(tree, kernel), i % 5 != 0);
			}
			tg_tree_free(tree);
			tg_trace_free(t);
		}
		free(json);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sample_structure, load_sample, unload),
		cmocka_unit_test_setup_teardown(test_sample_linking, load_sample, unload),
		cmocka_unit_test_setup_teardown(test_sample_steps, load_sample, unload),
		cmocka_unit_test(test_equal_timestamps_and_tolerance),
		cmocka_unit_test(test_python_parent_ids),
		cmocka_unit_test(test_gpu_only_trace),
		cmocka_unit_test(test_wide_ids_link),
		cmocka_unit_test(test_tracelens_links),
		cmocka_unit_test(test_tracelens_links_top_bit),
		cmocka_unit_test(test_many_steps),
		cmocka_unit_test(test_out_of_order_thread),
		cmocka_unit_test(test_one_and_two_threads),
		cmocka_unit_test(test_concurrent_builds),
		cmocka_unit_test(test_packed_tree),
		cmocka_unit_test(test_flows_dropped_early),
	};
	return cmocka_run_group_tests_name("tree", tests, NULL, NULL);
}
