/* test_critical_path.c - the critical path (core/analysis/critical_path.h): two
 * hand-made traces whose graphs are worked out in the comments, the
 * failures (a cycle, an annotation that matches nothing), the merge of
 * edges added twice (networkx's DiGraph), HTA's last-step filter (compact
 * and scattered correlation ids), and the summary alone
 * (tg_cp_opts.summary_only) against the full result. HTA's four
 * critical-path test traces are test_critical_path_hta.c's. */
#include "cputil.h"

#include "../core/analysis/critical_path_impl.h"
#include "../util/big.h"
#include "../render/critical_path_render.h"

#define US INT64_C(1000)

#define X(cat, name, pid, tid, ts, dur, args)                                                          \
	"{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":" #pid ",\"tid\":" #tid ",\"ts\":" #ts \
	",\"dur\":" #dur ",\"args\":{" args "}}"

/* Thread 1/1, times in us:
 *   A aten::linear [0,100): L1 cudaLaunchKernel [10,20) -> K1 gemm s7 [30,50)
 *                           L2 cudaLaunchKernel [25,30) -> K2 relu s7 [52,60)
 *   S cudaStreamSynchronize [100,150)   (Stream Sync s7 [60,150))
 *   B aten::add [150,160): L3 cudaLaunchKernel [151,155) -> K3 ncclKernel_AllReduce s9 [170,200)
 *   D cudaDeviceSynchronize [160,210)   (Context Sync, stream -1, [205,210))
 * Queue lengths: L1 1, L2 2, K1 1, K2 0, L3 1, K3 0: K1 and K2 get no
 * launch edge (queue 2 at L2), K2 a kernel gap of 2 from K1, K3 a launch
 * delay of 19. Syncs: K2 end -> S end, K2 and K3 ends -> D end.
 * Longest path: A(10) L1(10) A(5) L2(5) A(70) dep S(0: blocking) dep
 * B(1) launch(19) K3(30): 150 us = cpu 101 + launch 19 + comm 30. */
static const char *const TRACE1 =
	"{\"traceEvents\":["
	X("cpu_op", "aten::linear", 1, 1, 0, 100, "") ","
	X("cuda_runtime", "cudaLaunchKernel", 1, 1, 10, 10, "\"correlation\":1") ","
	X("cuda_runtime", "cudaLaunchKernel", 1, 1, 25, 5, "\"correlation\":2") ","
	X("cuda_runtime", "cudaStreamSynchronize", 1, 1, 100, 50, "\"correlation\":3") ","
	X("cpu_op", "aten::add", 1, 1, 150, 10, "") ","
	X("cuda_runtime", "cudaLaunchKernel", 1, 1, 151, 4, "\"correlation\":4") ","
	X("cuda_runtime", "cudaDeviceSynchronize", 1, 1, 160, 50, "\"correlation\":5") ","
	X("kernel", "gemm", 0, 7, 30, 20, "\"correlation\":1,\"stream\":7") ","
	X("kernel", "relu", 0, 7, 52, 8, "\"correlation\":2,\"stream\":7") ","
	X("cuda_sync", "Stream Sync", 0, 7, 60, 90, "\"correlation\":3,\"stream\":7") ","
	X("kernel", "ncclKernel_AllReduce", 0, 9, 170, 30, "\"correlation\":4,\"stream\":9") ","
	X("cuda_sync", "Context Sync", 0, -1, 205, 5, "\"correlation\":5,\"stream\":-1")
	"]}";

static const char *ev_name(const tg_critical_path *cp, uint32_t ev)
{
	const tg_trace *t = tg_critical_path_trace(cp);
	size_t n;
	return tg_trace_str(t, tg_trace_events(t, &n)[ev].name);
}

static void test_nesting_launch_and_syncs(void **state)
{
	(void)state;
	tg_trace *t;
	tg_tree *tree;
	tg_critical_path *cp = cp_test_build(&t, &tree, TRACE1, NULL);
	const tg_cp_stats *s = tg_cp_stats_get(cp);
	assert_string_equal(tg_cp_annotation(cp), ""); /* no steps: the whole trace */
	assert_int_equal(s->window_start, 0);
	assert_int_equal(s->window_end, 210 * US);
	/* 7 host events and 4 device ones (Stream Sync has a stream, Context
	 * Sync has none) have nodes */
	assert_int_equal(s->nodes, 22);
	assert_int_equal(s->edges_by_type[TG_CP_EDGE_OPERATOR], 3 + 7 + 3);
	assert_int_equal(s->edges_by_type[TG_CP_EDGE_DEPENDENCY], 3);
	assert_int_equal(s->edges_by_type[TG_CP_EDGE_LAUNCH], 1);
	assert_int_equal(s->edges_by_type[TG_CP_EDGE_KERNEL_KERNEL], 1);
	assert_int_equal(s->edges_by_type[TG_CP_EDGE_SYNC], 3);
	assert_int_equal(tg_cp_length_ns(cp), 150 * US);
	const int64_t *b = tg_cp_breakdown(cp);
	assert_int_equal(b[TG_CP_CPU], 101 * US);
	assert_int_equal(b[TG_CP_LAUNCH], 19 * US);
	assert_int_equal(b[TG_CP_GPU_COMM], 30 * US);
	assert_int_equal(b[TG_CP_GPU_COMPUTE], 0);
	assert_int_equal(b[TG_CP_KERNEL_KERNEL], 0);
	/* the path ends at K3's end: D's end is as far, and networkx keeps the
	 * first node of its order with the greatest distance */
	assert_int_equal(s->path_nodes, 12);
	assert_int_equal(s->path_events, 7);
	size_t n;
	const tg_cp_step *st = tg_cp_steps(cp, &n);
	assert_int_equal(n, 11);
	assert_int_equal(st[0].type, TG_CP_EDGE_OPERATOR);
	assert_string_equal(ev_name(cp, st[0].event), "aten::linear"); /* A start -> L1 start: A's */
	assert_string_equal(ev_name(cp, st[2].event), "aten::linear"); /* L1 end -> L2 start: the parent's */
	assert_int_equal(st[9].type, TG_CP_EDGE_LAUNCH);
	assert_int_equal(st[9].ns, 19 * US);
	assert_int_equal(st[9].event, TG_NONE);
	assert_int_equal(st[10].type, TG_CP_EDGE_OPERATOR);
	assert_int_equal(st[10].bound, TG_CP_GPU_COMM);
	const tg_cp_op *ops = tg_cp_ops(cp, &n);
	assert_int_equal(n, 6);
	assert_string_equal(ev_name(cp, ops[0].event), "aten::linear");
	assert_int_equal(ops[0].ns, 85 * US);
	assert_string_equal(ev_name(cp, ops[1].event), "ncclKernel_AllReduce");
	assert_int_equal(ops[1].bound, TG_CP_GPU_COMM);
	assert_string_equal(ev_name(cp, ops[5].event), "cudaStreamSynchronize"); /* blocking: 0 */
	assert_int_equal(ops[5].ns, 0);
	cp_test_done(t, tree, cp);
}

/* HTA's zero-weight launch edges: K1 and K2 keep an edge from their
 * launch (weight 0); the path stays. Data loading: A's time moves there. */
static void test_zero_weight_and_data_load(void **state)
{
	(void)state;
	tg_trace *t;
	tg_tree *tree;
	tg_cp_opts o = {.annotation = "", .zero_weight_launch = 1};
	tg_critical_path *cp = cp_test_build(&t, &tree, TRACE1, &o);
	assert_int_equal(tg_cp_stats_get(cp)->edges_by_type[TG_CP_EDGE_LAUNCH], 3);
	assert_int_equal(tg_cp_length_ns(cp), 150 * US);
	cp_test_done(t, tree, cp);
	const char *const dl[] = {"linear"};
	tg_cp_opts o2 = {.annotation = "", .data_load = dl, .ndata_load = 1};
	cp = cp_test_build(&t, &tree, TRACE1, &o2);
	assert_int_equal(tg_cp_breakdown(cp)[TG_CP_DATA_LOADING], 85 * US);
	assert_int_equal(tg_cp_breakdown(cp)[TG_CP_CPU], 16 * US);
	cp_test_done(t, tree, cp);
}

/* Events across streams, thread 1/1, us, all in an annotation [0,140):
 *   L1 cudaLaunchKernel [0,5) -> K1 s7 [10,100)
 *   R  cudaEventRecord [6,8) corr 2 (recorded on s7: the Stream Wait Event says so)
 *   W  cudaStreamWaitEvent [9,11) -> Stream Wait Event s20 [11,12) waits on corr 2
 *   L2 cudaLaunchKernel [12,15) -> K2 s20 [105,120)
 *   R2 cudaEventRecord [16,18) corr 6 (on s20)
 *   E  cudaEventSynchronize [20,130) -> Event Sync [125,130) waits on corr 6
 * R's previous launch on s7 is L1 (K1); W's next launch onto s20 is L2
 * (K2): K1 end -> K2 start. K2 gets no launch edge (K1 ends after L2),
 * E waits for K2. Path: L1 launch(10) K1(90) sync K2(15): 115. */
static const char *const TRACE2 =
	"{\"traceEvents\":["
	X("user_annotation", "iteration", 1, 1, 0, 140, "") ","
	X("cuda_runtime", "cudaLaunchKernel", 1, 1, 0, 5, "\"correlation\":1") ","
	X("cuda_runtime", "cudaEventRecord", 1, 1, 6, 2, "\"correlation\":2") ","
	X("cuda_runtime", "cudaStreamWaitEvent", 1, 1, 9, 2, "\"correlation\":3") ","
	X("cuda_runtime", "cudaLaunchKernel", 1, 1, 12, 3, "\"correlation\":4") ","
	X("cuda_runtime", "cudaEventRecord", 1, 1, 16, 2, "\"correlation\":6") ","
	X("cuda_runtime", "cudaEventSynchronize", 1, 1, 20, 110, "\"correlation\":5") ","
	X("kernel", "gemm", 0, 7, 10, 90, "\"correlation\":1,\"stream\":7") ","
	X("cuda_sync", "Stream Wait Event", 0, 20, 11, 1,
	  "\"correlation\":3,\"stream\":20,\"wait_on_stream\":7,\"wait_on_cuda_event_record_corr_id\":2") ","
	X("kernel", "softmax", 0, 20, 105, 15, "\"correlation\":4,\"stream\":20") ","
	X("cuda_sync", "Event Sync", 0, -1, 125, 5,
	  "\"correlation\":5,\"stream\":-1,\"wait_on_stream\":20,\"wait_on_cuda_event_record_corr_id\":6")
	"]}";

static void test_cross_stream_events(void **state)
{
	(void)state;
	tg_trace *t;
	tg_tree *tree;
	tg_critical_path *cp = cp_test_build(&t, &tree, TRACE2, NULL);
	const tg_cp_stats *s = tg_cp_stats_get(cp);
	assert_int_equal(s->edges_by_type[TG_CP_EDGE_SYNC], 2);
	assert_int_equal(s->edges_by_type[TG_CP_EDGE_LAUNCH], 1);
	assert_int_equal(tg_cp_length_ns(cp), 115 * US);
	const int64_t *b = tg_cp_breakdown(cp);
	assert_int_equal(b[TG_CP_GPU_COMPUTE], 105 * US);
	assert_int_equal(b[TG_CP_LAUNCH], 10 * US);
	assert_int_equal(b[TG_CP_CPU], 0);
	size_t n;
	const uint32_t *pe = tg_cp_path_events(cp, &n);
	assert_int_equal(n, 5);
	const char *const want[] = {"cudaLaunchKernel", "gemm", "gemm", "softmax", "softmax"};
	for (size_t i = 0; i < n; i++)
		assert_string_equal(ev_name(cp, pe[i]), want[i]);
	cp_test_done(t, tree, cp);
}

/* A kernel that ran before its launch (clock skew) and a stream sync that
 * waited for it close a cycle once the launch edge is kept: S end -> L
 * start (thread order) -> K start (zero-weight launch) -> K end -> S end. */
static const char *const CYCLE =
	"{\"traceEvents\":["
	X("cuda_runtime", "cudaStreamSynchronize", 1, 1, 0, 10, "\"correlation\":1") ","
	X("cuda_runtime", "cudaLaunchKernel", 1, 1, 20, 5, "\"correlation\":2") ","
	X("cuda_sync", "Stream Sync", 0, 7, 0, 10, "\"correlation\":1,\"stream\":7") ","
	X("kernel", "gemm", 0, 7, 5, 3, "\"correlation\":2,\"stream\":7")
	"]}";

static void test_failures(void **state)
{
	(void)state;
	tg_trace *t = tg_test_read_str(CYCLE);
	tg_tree *tree;
	tg_critical_path *cp = (tg_critical_path *)1;
	tg_test_must(tg_tree_build(&tree, t));
	tg_cp_opts o = {.annotation = "", .zero_weight_launch = 1};
	assert_int_equal(tg_critical_path_build(&cp, tree, &o), TG_EFORMAT);
	assert_null(cp);
	assert_non_null(strstr(tg_error_last(), "cycle of dependencies"));
	o.zero_weight_launch = 0; /* without the launch edge there is no cycle */
	tg_test_must(tg_critical_path_build(&cp, tree, &o));
	tg_critical_path_free(cp);
	o.annotation = "ProfilerStep";
	assert_int_equal(tg_critical_path_build(&cp, tree, &o), TG_ENOTFOUND);
	assert_string_equal(tg_error_last(), "critical path: no event whose name contains 'ProfilerStep' in the trace");
	o.annotation = "cuda";
	o.first = o.last = 2; /* cudaStreamSynchronize, cudaLaunchKernel: 2 instances */
	assert_int_equal(tg_critical_path_build(&cp, tree, &o), TG_ENOTFOUND);
	assert_string_equal(tg_error_last(), "critical path: 'cuda': 2 instances in the trace, asked for 2 to 2");
	o.first = o.last = 1;
	tg_test_must(tg_critical_path_build(&cp, tree, &o));
	assert_int_equal(tg_cp_stats_get(cp)->window_start, 20 * US);
	tg_critical_path_free(cp);
	tg_tree_free(tree);
	tg_trace_free(t);
	/* two steps: HTA keeps what starts before the last one */
	static const char steps[] = "{\"traceEvents\":["
		X("user_annotation", "ProfilerStep#1", 1, 1, 0, 50, "") ","
		X("user_annotation", "ProfilerStep#2", 1, 1, 50, 50, "") ","
		X("cpu_op", "aten::add", 1, 1, 10, 20, "") ","
		X("cpu_op", "aten::mul", 1, 1, 60, 20, "") "]}";
	t = tg_test_read_str(steps);
	tg_test_must(tg_tree_build(&tree, t));
	tg_test_must(tg_critical_path_build(&cp, tree, NULL));
	assert_string_equal(tg_cp_annotation(cp), "ProfilerStep");
	assert_int_equal(tg_cp_stats_get(cp)->instances, 1);
	assert_int_equal(tg_cp_stats_get(cp)->steps, 1);
	assert_int_equal(tg_cp_length_ns(cp), 20 * US); /* aten::add; aten::mul is in the last step */
	tg_critical_path_free(cp);
	tg_cp_opts so = {.annotation = "ProfilerStep#2", .annotation_exact = 1, .all_instances = 1};
	assert_int_equal(tg_critical_path_build(&cp, tree, &so), TG_ENOTFOUND);
	assert_string_equal(tg_error_last(), "critical path: no event named 'ProfilerStep#2' in the trace "
	                                     "(HTA leaves out its last ProfilerStep)");
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* Whether the event named name is in HTA's trace after its last-step
 * filter (CP_KEPT). */
static int kept(const tg_critical_path *cp, const char *name)
{
	for (uint32_t i = 0; i < cp->nev; i++)
		if (!strcmp(ev_name(cp, i), name))
			return (cp->evf[i] & CP_KEPT) != 0;
	fail_msg("no event %s", name);
	return -1;
}

/* HTA's _filter_irrelevant_gpu_kernels with two steps: a kernel is kept
 * when a host event before the last step has its correlation id, with the
 * ids compact (the filter's dense map) and far apart (its hash table):
 * gemm (launched in step 1) kept, relu (launched in the last step) and an
 * orphan kernel (no host event) left out, as are the last step's host
 * events. */
static void test_last_step_filter(void **state)
{
	(void)state;
	static const long long ids[2][3] = {{1, 2, 3}, {7, 9000000000000LL, 4000000000000LL}};
	for (int k = 0; k < 2; k++) {
		char json[2048];
		snprintf(json, sizeof(json),
		         "{\"traceEvents\":["
		         "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,\"tid\":1,"
		         "\"ts\":0,\"dur\":50},"
		         "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#2\",\"pid\":1,\"tid\":1,"
		         "\"ts\":50,\"dur\":50},"
		         "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"launch_a\",\"pid\":1,\"tid\":1,\"ts\":10,"
		         "\"dur\":5,\"args\":{\"correlation\":%lld}},"
		         "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"launch_b\",\"pid\":1,\"tid\":1,\"ts\":60,"
		         "\"dur\":5,\"args\":{\"correlation\":%lld}},"
		         "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"gemm\",\"pid\":0,\"tid\":7,\"ts\":20,\"dur\":10,"
		         "\"args\":{\"correlation\":%lld,\"stream\":7}},"
		         "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"relu\",\"pid\":0,\"tid\":7,\"ts\":70,\"dur\":5,"
		         "\"args\":{\"correlation\":%lld,\"stream\":7}},"
		         "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"orphan\",\"pid\":0,\"tid\":7,\"ts\":35,\"dur\":5,"
		         "\"args\":{\"correlation\":%lld,\"stream\":7}}]}",
		         ids[k][0], ids[k][1], ids[k][0], ids[k][1], ids[k][2]);
		tg_trace *t;
		tg_tree *tree;
		tg_critical_path *cp = cp_test_build(&t, &tree, json, NULL);
		assert_int_equal(kept(cp, "launch_a"), 1);
		assert_int_equal(kept(cp, "gemm"), 1);
		assert_int_equal(kept(cp, "launch_b"), 0);
		assert_int_equal(kept(cp, "relu"), 0);
		assert_int_equal(kept(cp, "orphan"), 0);
		assert_int_equal(tg_cp_stats_get(cp)->steps, 1);
		cp_test_done(t, tree, cp);
	}
}

/* Microsecond rounding as HTA's loader does it: a kernel at
 * [30.4, 50.6) us is [31, 50) = 19 us; exactly 20.2 us with exact_ns. */
static void test_rounding(void **state)
{
	(void)state;
	static const char json[] =
		"{\"traceEvents\":["
		X("cuda_runtime", "cudaLaunchKernel", 1, 1, 10, 10, "\"correlation\":1") ","
		X("kernel", "gemm", 0, 7, 30.4, 20.2, "\"correlation\":1,\"stream\":7")
		"]}";
	tg_trace *t;
	tg_tree *tree;
	tg_critical_path *cp = cp_test_build(&t, &tree, json, NULL);
	assert_int_equal(tg_cp_length_ns(cp), 40 * US);           /* launch 31 - 10 + kernel 19 */
	assert_int_equal(tg_cp_breakdown(cp)[TG_CP_GPU_COMPUTE], 19 * US);
	cp_test_done(t, tree, cp);
	tg_cp_opts o = {.exact_ns = 1, .annotation = ""};
	cp = cp_test_build(&t, &tree, json, &o);
	assert_int_equal(tg_cp_breakdown(cp)[TG_CP_GPU_COMPUTE], 20200);
	assert_int_equal(tg_cp_breakdown(cp)[TG_CP_LAUNCH], 20400);
	cp_test_done(t, tree, cp);
}

/* The nodes' times in 32 bits of their unit from the first node (whole
 * microseconds with HTA's rounding, ns without) when the span fits, else
 * whole: the same lengths either way, 5 s apart (over 2^32 ns) and 5,000 s
 * apart (over 2^32 us). */
static void test_node_times_wide(void **state)
{
	(void)state;
	static const char json5[] =
		"{\"traceEvents\":["
		X("cuda_runtime", "cudaLaunchKernel", 1, 1, 10, 10, "\"correlation\":1") ","
		X("kernel", "gemm", 0, 7, 5000030.4, 20.2, "\"correlation\":1,\"stream\":7")
		"]}";
	static const char json5000[] =
		"{\"traceEvents\":["
		X("cuda_runtime", "cudaLaunchKernel", 1, 1, 10, 10, "\"correlation\":1") ","
		X("kernel", "gemm", 0, 7, 5000000030.4, 20.2, "\"correlation\":1,\"stream\":7")
		"]}";
	tg_trace *t;
	tg_tree *tree;
	tg_cp_opts o = {.annotation = "", .keep_graph = 1};
	tg_critical_path *cp = cp_test_build(&t, &tree, json5, &o);
	assert_true(cp->t_narrow); /* 5 s: 5,000,041 us */
	assert_int_equal(tg_cp_breakdown(cp)[TG_CP_LAUNCH], (5000031 - 10) * US);
	assert_int_equal(tg_cp_breakdown(cp)[TG_CP_GPU_COMPUTE], 19 * US);
	assert_int_equal(tg_cp_length_ns(cp), (5000031 - 10 + 19) * US);
	assert_int_equal(cp_node_ts(cp, 3), 5000050 * US);
	cp_test_done(t, tree, cp);
	o.exact_ns = 1;
	cp = cp_test_build(&t, &tree, json5, &o);
	assert_false(cp->t_narrow); /* 5e9 ns do not fit 32 bits */
	assert_int_equal(tg_cp_breakdown(cp)[TG_CP_LAUNCH], INT64_C(5000020400));
	assert_int_equal(tg_cp_breakdown(cp)[TG_CP_GPU_COMPUTE], 20200);
	cp_test_done(t, tree, cp);
	o.exact_ns = 0;
	cp = cp_test_build(&t, &tree, json5000, &o);
	assert_false(cp->t_narrow); /* 5e9 us do not either */
	assert_int_equal(tg_cp_breakdown(cp)[TG_CP_LAUNCH], INT64_C(5000000021) * US);
	assert_int_equal(tg_cp_length_ns(cp), INT64_C(5000000040) * US);
	cp_test_done(t, tree, cp);
}

/* Distances held in 32 bits of the nodes' unit, started again in 64 when
 * one outgrows them: two ops one after the other on a thread, A [0, T) and
 * B [T, 2T), make a path of 2T (A's span, the dependency edge of 0, B's).
 * T = 1,500 s: 3,000 s = 3e9 us, past INT32_MAX us and 2^32 ns, while the
 * nodes' span fits 32 bits of us; T = 1.5 s with --exact-ns: 3e9 ns past
 * INT32_MAX, the span in 32 bits of ns; T = 3 s with --exact-ns: the nodes
 * themselves 64-bit (test_node_times_wide), so the distances from the
 * start. */
static void check_long_path(const char *json, int exact, int64_t want_ns, int t32)
{
	tg_trace *t;
	tg_tree *tree;
	tg_cp_opts o = {.annotation = "", .exact_ns = exact, .keep_graph = 1};
	tg_critical_path *cp = cp_test_build(&t, &tree, json, &o);
	assert_int_equal(cp->t_narrow, t32);
	assert_int_equal(tg_cp_length_ns(cp), want_ns);
	assert_int_equal(tg_cp_breakdown(cp)[TG_CP_CPU], want_ns);
	assert_int_equal(tg_cp_stats_get(cp)->path_nodes, 4);
	cp_test_done(t, tree, cp);
}

static void test_long_path(void **state)
{
	(void)state;
	static const char us[] = "{\"traceEvents\":[" X("cpu_op", "A", 1, 1, 0, 1500000000, "") ","
	                         X("cpu_op", "B", 1, 1, 1500000000, 1500000000, "") "]}";
	static const char ns15[] = "{\"traceEvents\":[" X("cpu_op", "A", 1, 1, 0, 1500000, "") ","
	                           X("cpu_op", "B", 1, 1, 1500000, 1500000, "") "]}";
	static const char ns3[] = "{\"traceEvents\":[" X("cpu_op", "A", 1, 1, 0, 3000000, "") ","
	                          X("cpu_op", "B", 1, 1, 3000000, 3000000, "") "]}";
	check_long_path(us, 0, INT64_C(3000000000) * US, 1);
	check_long_path(ns15, 1, INT64_C(3000000000), 1);
	check_long_path(ns15, 0, INT64_C(3000000000), 1); /* 3e6 us: 32 bits */
	check_long_path(ns3, 1, INT64_C(6000000000), 0);
}

/* A thread's starts sorted on keys packed with their position: P [0, S)
 * holds X [100, 200), Y [100, 150) (simultaneous: the longer X first, Y
 * nested in it), Z [300, 400) and W [500, 600) (us). The path runs
 * through every node in nesting order: P 100 + 100 + 100 + (S - 600),
 * X 50, Y 50, Z and W 100. S = 1,000 us packs (time, longer, position) in
 * one key; S = 5,000 s (33 bits of us each) sorts twice, by longer then
 * time; with --exact-ns, S = 2e15 us and an event E [-4e15, -4e15 + 1) us
 * before P (early: 1 us more on the path, before a dependency edge into
 * P) make a span of 63 bits of ns that does not pack: the wide pairs. */
static void check_nesting(const char *json, int exact, int64_t s_us, int early)
{
	tg_trace *t;
	tg_tree *tree;
	tg_cp_opts o = {.annotation = "", .exact_ns = exact};
	tg_critical_path *cp = cp_test_build(&t, &tree, json, &o);
	assert_int_equal(tg_cp_length_ns(cp), (s_us + early) * US);
	assert_int_equal(tg_cp_stats_get(cp)->path_nodes, 10 + 2 * early);
	size_t n;
	const tg_cp_op *op = tg_cp_ops(cp, &n);
	assert_int_equal(n, 5 + early);
	const char *names[] = {"P", "Z", "W", "X", "Y", "E"}; /* longest first, then by event */
	const int64_t ns[] = {(s_us - 300) * US, 100 * US, 100 * US, 50 * US, 50 * US, US};
	for (size_t k = 0; k < n; k++) {
		assert_string_equal(ev_name(cp, op[k].event), names[k]);
		assert_int_equal(op[k].ns, ns[k]);
	}
	cp_test_done(t, tree, cp);
}

#define NEST_JSON(S)                                                                                     \
	"{\"traceEvents\":[" X("cpu_op", "P", 1, 1, 0, S, "") "," X("cpu_op", "X", 1, 1, 100, 100, "") ","   \
	X("cpu_op", "Y", 1, 1, 100, 50, "") "," X("cpu_op", "Z", 1, 1, 300, 100, "") ","                     \
	X("cpu_op", "W", 1, 1, 500, 100, "") "]}"

static void test_nesting_keys(void **state)
{
	(void)state;
	static const char wide[] = "{\"traceEvents\":[" X("cpu_op", "E", 1, 1, -4000000000000000, 1, "") ","
	                           X("cpu_op", "P", 1, 1, 0, 2000000000000000, "") ","
	                           X("cpu_op", "X", 1, 1, 100, 100, "") "," X("cpu_op", "Y", 1, 1, 100, 50, "") ","
	                           X("cpu_op", "Z", 1, 1, 300, 100, "") "," X("cpu_op", "W", 1, 1, 500, 100, "") "]}";
	check_nesting(NEST_JSON(1000), 0, 1000, 0);
	check_nesting(NEST_JSON(1000), 1, 1000, 0);
	check_nesting(NEST_JSON(5000000000), 0, INT64_C(5000000000), 0);
	check_nesting(wide, 1, INT64_C(2000000000000000), 1);
}

/* The queue lengths' rows (launches and device events) ordered by their
 * times packed with the row in 64 bits, or, when they do not fit (63 bits
 * of ns between the first launch and the last kernel with --exact-ns, and
 * four rows), by a wide sort: L1 at -4e15 us launches K1 at 2e15 us
 * (queue 1 at the launch, 0 at its start: a launch delay of 6e15 us), L2
 * at 2e15 + 25 K2 at 2e15 + 30 (once K1 has ended: a launch delay edge
 * too). The path L1 K1 (6e15 + 20 us); the same with microsecond
 * rounding, where the times pack. Main's wide sort gave these figures. */
static void test_queue_rows_wide(void **state)
{
	(void)state;
	static const char json[] =
		"{\"traceEvents\":["
		X("cuda_runtime", "cudaLaunchKernel", 1, 1, -4000000000000000, 10, "\"correlation\":1") ","
		X("cuda_runtime", "cudaLaunchKernel", 1, 1, 2000000000000025, 2, "\"correlation\":2") ","
		X("kernel", "gemm", 0, 7, 2000000000000000, 20, "\"correlation\":1,\"stream\":7") ","
		X("kernel", "relu", 0, 7, 2000000000000030, 10, "\"correlation\":2,\"stream\":7")
		"]}";
	for (int exact = 0; exact < 2; exact++) {
		tg_trace *t;
		tg_tree *tree;
		tg_cp_opts o = {.annotation = "", .exact_ns = exact};
		tg_critical_path *cp = cp_test_build(&t, &tree, json, &o);
		const int64_t *b = tg_cp_breakdown(cp);
		assert_int_equal(tg_cp_length_ns(cp), INT64_C(6000000000000020000));
		assert_int_equal(b[TG_CP_LAUNCH], INT64_C(6000000000000000000));
		assert_int_equal(b[TG_CP_GPU_COMPUTE], 20 * US);
		assert_int_equal(b[TG_CP_KERNEL_KERNEL], 0);
		assert_int_equal(tg_cp_stats_get(cp)->edges_by_type[TG_CP_EDGE_LAUNCH], 2);
		cp_test_done(t, tree, cp);
	}
}

/* The ops sorted on 64-bit keys (the time below the longest, then the
 * position in event order), or by wide pairs when the two do not fit: P
 * [0, S) holds C0..C8 [1000 + 100 k, +100) us; P has S - 900 us, each C
 * 100, the Cs tied and in event order. S = 2e15 us with --exact-ns: 61
 * bits of ns beside 4 of position (ten ops), the pairs; S = 2,000 us: the
 * keys. */
static void test_ops_order(void **state)
{
	(void)state;
#define C(k) X("cpu_op", "C" #k, 1, 1, 1##k##00, 100, "")
	static const char wide[] = "{\"traceEvents\":[" X("cpu_op", "P", 1, 1, 0, 2000000000000000, "") ","
		C(0) "," C(1) "," C(2) "," C(3) "," C(4) "," C(5) "," C(6) "," C(7) "," C(8) "]}";
	static const char narrow[] = "{\"traceEvents\":[" X("cpu_op", "P", 1, 1, 0, 2000, "") ","
		C(0) "," C(1) "," C(2) "," C(3) "," C(4) "," C(5) "," C(6) "," C(7) "," C(8) "]}";
#undef C
	const char *const json[] = {wide, narrow};
	const int64_t s_us[] = {INT64_C(2000000000000000), 2000};
	for (int w = 0; w < 2; w++) {
		tg_trace *t;
		tg_tree *tree;
		tg_cp_opts o = {.annotation = "", .exact_ns = !w ? 1 : 0};
		tg_critical_path *cp = cp_test_build(&t, &tree, json[w], &o);
		assert_int_equal(tg_cp_length_ns(cp), s_us[w] * US);
		size_t n;
		const tg_cp_op *op = tg_cp_ops(cp, &n);
		assert_int_equal(n, 10);
		assert_string_equal(ev_name(cp, op[0].event), "P");
		assert_int_equal(op[0].ns, (s_us[w] - 900) * US);
		for (size_t k = 1; k < n; k++) {
			char name[24];
			snprintf(name, sizeof(name), "C%zu", k - 1);
			assert_string_equal(ev_name(cp, op[k].event), name);
			assert_int_equal(op[k].ns, 100 * US);
		}
		cp_test_done(t, tree, cp);
	}
}

/* A device-side thread whose events do not all last once rounded (an
 * Event Sync on a negative stream, 0.5 us, in the window through its host
 * call) is nested with HTA's comparison, walked as it is nested: main's
 * graph and path, pinned. */
static void test_zero_duration_thread(void **state)
{
	(void)state;
	static const char json[] =
		"{\"traceEvents\":["
		X("cpu_op", "aten::mm", 1, 1, 0, 100, "") ","
		X("cuda_runtime", "cudaEventSynchronize", 1, 1, 40, 10, "\"correlation\":8") ","
		X("cuda_runtime", "cudaEventSynchronize", 1, 1, 55, 20, "\"correlation\":9") ","
		X("cuda_sync", "Event Sync", 0, 3, 44, 30, "\"correlation\":8,\"stream\":-3") ","
		X("cuda_sync", "Event Sync", 0, 3, 60, 2, "\"correlation\":9,\"stream\":-3") ","
		X("cuda_sync", "Event Sync", 0, 3, 60.2, 0.5, "\"correlation\":9,\"stream\":-3") ","
		X("cpu_op", "aten::add", 1, 1, 120, 10, "")
		"]}";
	tg_trace *t;
	tg_tree *tree;
	tg_cp_opts o = {.annotation = ""};
	tg_critical_path *cp = cp_test_build(&t, &tree, json, &o);
	const tg_cp_stats *st = tg_cp_stats_get(cp);
	assert_int_equal(st->events, 6);
	assert_int_equal(st->nodes, 12);
	assert_int_equal(st->edges, 10);
	assert_int_equal(st->edges_by_type[TG_CP_EDGE_OPERATOR], 9);
	assert_int_equal(st->edges_by_type[TG_CP_EDGE_DEPENDENCY], 1);
	assert_int_equal(st->path_nodes, 8);
	assert_int_equal(st->path_events, 4);
	assert_int_equal(tg_cp_length_ns(cp), 80 * US);
	assert_int_equal(tg_cp_breakdown(cp)[TG_CP_CPU], 80 * US);
	cp_test_done(t, tree, cp);
}

/* Sub-microsecond events vanish in HTA's rounding: said so. */
static void test_all_rounded_away(void **state)
{
	(void)state;
	static const char json[] = "{\"traceEvents\":[" X("cpu_op", "op", 1, 1, 10.2, 0.5, "") "]}";
	tg_trace *t = tg_test_read_str(json);
	tg_tree *tree;
	tg_critical_path *cp;
	tg_test_must(tg_tree_build(&tree, t));
	assert_int_equal(tg_critical_path_build(&cp, tree, NULL), TG_ENOTFOUND);
	assert_string_equal(tg_error_last(), "critical path: every event lasts under a microsecond once rounded as HTA "
	                                     "rounds times (--exact-ns keeps nanoseconds)");
	tg_cp_opts o = {.exact_ns = 1};
	tg_test_must(tg_critical_path_build(&cp, tree, &o));
	assert_int_equal(tg_cp_length_ns(cp), 500);
	tg_critical_path_free(cp);
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* The renderers: numbers and escaping. */
static void test_render(void **state)
{
	(void)state;
	tg_trace *t;
	tg_tree *tree;
	tg_critical_path *cp = cp_test_build(&t, &tree, TRACE1, NULL);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	tg_test_must(tg_cp_write_json(f, cp, "a\"b.json", NULL, 2));
	fclose(f);
	assert_non_null(strstr(buf, "\"file\":\"a\\\"b.json\""));
	assert_non_null(strstr(buf, "\"length_ms\":0.150000"));
	assert_non_null(
		strstr(buf, "{\"bound_by\":\"gpu_kernel_launch_overhead\",\"ms\":0.019000,\"percent\":12.666667}"));
	assert_non_null(strstr(buf, "\"path_nodes\":12"));
	free(buf);
	f = open_memstream(&buf, &len);
	tg_test_must(tg_cp_write_text(f, cp, "x.json", NULL, 20));
	fclose(f);
	assert_non_null(strstr(buf, "cpu_bound                           0.101   67.33%"));
	assert_non_null(strstr(buf, "Length 0.150 ms"));
	free(buf);
	f = open_memstream(&buf, &len);
	tg_test_must(tg_cp_write_html(f, cp, "<x>.json", NULL, 20));
	fclose(f);
	assert_non_null(strstr(buf, "Critical path of &lt;x&gt;.json"));
	assert_non_null(strstr(buf, "<title>gpu_communication_bound 0.030 ms</title>"));
	free(buf);
	cp_test_done(t, tree, cp);
}

/* alexnet's forward annotation in HTA's traces (test_summary_only) */
static const char ALEX_FWD[] = "[param|pytorch.model.alex_net|0|0|0|measure|forward]";

/* Edges added twice are merged into the first: it keeps its place and
 * takes the last type and weight, and the attribution of the last
 * operator or kernel-gap edge (a dependency edge added after keeps it);
 * a source's earlier edges scanned (scan 32) or found through a map
 * (scan 0: cp_merge_scan). */
static void edge_merge(uint32_t scan)
{
	cp_merge_scan = scan;
	/* four nodes at 0, 11, 15 and 20 us (A's start, B's, A's end, B's),
	 * their times read from the events; the graph's own edges replaced */
	static const char json[] = "{\"traceEvents\":[" X("cpu_op", "A", 1, 1, 0, 15, "") ","
	                           X("cpu_op", "B", 1, 2, 11, 9, "") "]}";
	tg_trace *t;
	tg_tree *tree;
	tg_cp_opts o = {.annotation = "", .keep_graph = 1};
	tg_critical_path *g = cp_test_build(&t, &tree, json, &o), cp = *g;
	assert_int_equal(cp.nnodes, 4); /* the weights: 0 -> 1 11, 1 -> 2 4, 0 -> 2 15, 2 -> 3 5 */
	assert_int_equal(cp_node_ts(&cp, 3), 20 * US);
	tg_big_free(g->edges); /* the graph's arrays are tg_big's */
	tg_big_free(g->soff);
	g->edges = NULL;
	g->soff = NULL;
	cp.soff = NULL;
#define E(s, d, t, zr, c) ((cp_edge){.key = (s), .cls = (c), .zero = (zr), .dst = (d), .type = (t)})
	const cp_edge added[] = {
		E(0, 1, TG_CP_EDGE_OPERATOR, 0, TG_CP_CPU),             /* 0 */
		E(1, 2, TG_CP_EDGE_DEPENDENCY, 1, 0),                   /* 1 */
		E(0, 2, TG_CP_EDGE_OPERATOR, 0, TG_CP_CPU),             /* 2 */
		E(0, 1, TG_CP_EDGE_DEPENDENCY, 1, 0),                   /* 0 again: type and weight, not the attribution */
		E(2, 3, TG_CP_EDGE_KERNEL_KERNEL, 0, 0),                /* 3 */
		E(1, 2, TG_CP_EDGE_OPERATOR, 0, TG_CP_DATA_LOADING),    /* 1 again: all of it */
		E(2, 3, TG_CP_EDGE_SYNC, 1, 0),                         /* 3 again */
		E(0, 1, TG_CP_EDGE_OPERATOR, 0, TG_CP_GPU_COMPUTE),     /* 0 a third time */
	};
	const uint32_t added_attr[] = {7, TG_NONE, 8, TG_NONE, 9, 6, TG_NONE, 5};
	cp.nedges = cp.cap = sizeof(added) / sizeof(added[0]);
	cp.edges = tg_big_alloc(sizeof(added));
	memcpy(cp.edges, added, sizeof(added));
	cp.attr = tg_big_alloc(sizeof(added_attr));
	memcpy(cp.attr, added_attr, sizeof(added_attr));
	tg_test_must(cp_merge_edges(&cp));
	assert_int_equal(cp.nedges, 4);
	/* 8 bytes an edge: its event beside it, by rank */
	assert_int_equal(sizeof(cp_edge), 8);
	/* sorted by source, each source's in the order added; the rank is
	 * the first one's place as added, the event and class the last
	 * operator or kernel-gap one's */
	const cp_edge want[] = {
		E(0, 1, TG_CP_EDGE_OPERATOR, 0, TG_CP_GPU_COMPUTE),
		E(2, 2, TG_CP_EDGE_OPERATOR, 0, TG_CP_CPU),
		E(1, 2, TG_CP_EDGE_OPERATOR, 0, TG_CP_DATA_LOADING),
		E(4, 3, TG_CP_EDGE_SYNC, 1, 0),
	};
	const uint32_t want_src[] = {0, 0, 1, 2}, want_off[] = {0, 2, 3, 4, 4}, want_attr[] = {5, 8, 6, 9};
	const int64_t want_w[] = {11, 15, 4, 0};
	for (size_t k = 0; k < 4; k++) {
		assert_int_equal(cp.edges[k].key, want[k].key);
		assert_int_equal(cp.edges[k].dst, want[k].dst);
		assert_int_equal(cp_edge_attr(&cp, &cp.edges[k]), want_attr[k]);
		assert_int_equal(cp.edges[k].type, want[k].type);
		assert_int_equal(cp.edges[k].zero, want[k].zero);
		if (want[k].type == TG_CP_EDGE_OPERATOR)
			assert_int_equal(cp.edges[k].cls, want[k].cls);
		assert_int_equal(cp_edge_w(&cp, want_src[k], &cp.edges[k]), want_w[k] * US);
		for (uint32_t hint = 0; hint < 6; hint++) /* from any node, past the last too */
			assert_int_equal(cp_edge_src(&cp, (uint32_t)k, hint), want_src[k]);
	}
	for (size_t v = 0; v < 5; v++)
		assert_int_equal(cp.soff[v], want_off[v]);
	assert_true(cp.cap <= cp.nedges + 1); /* the room past the edges given back */
	assert_int_equal(cp_find_edge(&cp, 0, 2), 1);
	assert_int_equal(cp_find_edge(&cp, 2, 3), 3);
	assert_int_equal(cp_find_edge(&cp, 2, 0), TG_NONE);
	assert_int_equal(cp_find_edge(&cp, 9, 0), TG_NONE);
	tg_big_free(cp.soff);
	tg_big_free(cp.edges);
	tg_big_free(cp.spare); /* the merge's scratch, held for the next array */
	uint32_t *attr = cp.attr;
	cp.attr = NULL; /* a summary's edges have no events */
	assert_int_equal(cp_edge_attr(&cp, &want[0]), TG_NONE);
	tg_big_free(attr);
	cp_test_done(t, tree, g);
	cp_merge_scan = 32;
}

static void test_edge_merge(void **state)
{
	(void)state;
	edge_merge(32);
	edge_merge(0);
	/* nothing added twice: sorted all the same, the ranks kept */
	tg_critical_path one = {0};
	one.nnodes = 3;
	one.nedges = one.cap = 2;
	one.edges = tg_big_alloc(2 * sizeof(cp_edge));
	one.edges[0] = E(1, 2, TG_CP_EDGE_DEPENDENCY, 1, 0);
	one.edges[1] = E(0, 2, TG_CP_EDGE_OPERATOR, 0, TG_CP_CPU);
	tg_test_must(cp_merge_edges(&one));
	assert_int_equal(one.nedges, 2);
	assert_non_null(one.soff);
	assert_int_equal(cp_find_edge(&one, 0, 2), 0);
	assert_int_equal(cp_find_edge(&one, 1, 2), 1);
	assert_int_equal(one.edges[0].key, 1);
	assert_int_equal(one.edges[1].key, 0);
	tg_big_free(one.soff);
	tg_big_free(one.edges);
	tg_big_free(one.spare);
#undef E
}

/* Launches that share a correlation id (a malformed trace): each counts
 * once per device event of its id in the queue lengths (3 queued when the
 * kernel starts: no launch edge), and their rows fit (they overran the
 * rows' array before). The kernel's 20 us is the path. */
static void test_shared_correlation(void **state)
{
	(void)state;
	static const char *const json =
		"{\"traceEvents\":["
		X("cuda_runtime", "cudaLaunchKernel", 1, 1, 0, 5, "\"correlation\":7") ","
		X("cuda_runtime", "cudaLaunchKernel", 1, 1, 10, 5, "\"correlation\":7") ","
		X("cuda_runtime", "cudaLaunchKernel", 1, 1, 20, 5, "\"correlation\":7") ","
		X("kernel", "gemm", 0, 7, 30, 20, "\"correlation\":7,\"stream\":7")
		"]}";
	tg_trace *t;
	tg_tree *tree;
	tg_cp_opts o = {0};
	tg_critical_path *cp = cp_test_build(&t, &tree, json, &o);
	assert_int_equal(tg_cp_length_ns(cp), 20 * US);
	assert_int_equal(tg_cp_breakdown(cp)[TG_CP_GPU_COMPUTE], 20 * US);
	assert_int_equal(tg_cp_stats_get(cp)->edges_by_type[TG_CP_EDGE_LAUNCH], 0);
	cp_test_done(t, tree, cp);
}

/* The summary alone (what a diff and run data keep) equals the full
 * result's figures, without the path's steps, ops and events. */
static void check_summary(tg_tree *tree, const tg_cp_opts *opts)
{
	tg_cp_opts o = *opts;
	tg_critical_path *full, *sum;
	tg_test_must(tg_critical_path_build(&full, tree, &o));
	o.summary_only = 1;
	tg_test_must(tg_critical_path_build(&sum, tree, &o));
	assert_int_equal(tg_cp_length_ns(sum), tg_cp_length_ns(full));
	assert_memory_equal(tg_cp_breakdown(sum), tg_cp_breakdown(full), TG_CP_NBOUND * sizeof(int64_t));
	assert_memory_equal(tg_cp_stats_get(sum), tg_cp_stats_get(full), sizeof(tg_cp_stats));
	size_t n;
	assert_true(tg_cp_steps(full, &n) && n > 0);
	tg_cp_steps(sum, &n);
	assert_int_equal(n, 0);
	tg_cp_ops(sum, &n);
	assert_int_equal(n, 0);
	tg_cp_path_events(sum, &n);
	assert_int_equal(n, 0);
	tg_critical_path_free(full);
	tg_critical_path_free(sum);
}

static void test_summary_only(void **state)
{
	(void)state;
	tg_trace *t;
	tg_tree *tree;
	tg_cp_opts o = {0};
	tg_critical_path_free(cp_test_build(&t, &tree, TRACE1, &o));
	check_summary(tree, &o);
	tg_tree_free(tree);
	tg_trace_free(t);
	TG_SKIP_WITHOUT_SHARED();
	tree = tg_test_load_shared(&t, "hta/hta_critical_path_simple_add_A100_cuda_sync_rank0.json.gz");
	check_summary(tree, &o);
	o.annotation = ALEX_FWD;
	o.first = o.last = 1;
	o.zero_weight_launch = 1;
	check_summary(tree, &o);
	tg_tree_free(tree);
	tg_trace_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nesting_launch_and_syncs),
		cmocka_unit_test(test_zero_weight_and_data_load),
		cmocka_unit_test(test_cross_stream_events),
		cmocka_unit_test(test_failures),
		cmocka_unit_test(test_last_step_filter),
		cmocka_unit_test(test_rounding),
		cmocka_unit_test(test_node_times_wide),
		cmocka_unit_test(test_long_path),
		cmocka_unit_test(test_nesting_keys),
		cmocka_unit_test(test_queue_rows_wide),
		cmocka_unit_test(test_ops_order),
		cmocka_unit_test(test_zero_duration_thread),
		cmocka_unit_test(test_all_rounded_away),
		cmocka_unit_test(test_render),
		cmocka_unit_test(test_edge_merge),
		cmocka_unit_test(test_summary_only),
		cmocka_unit_test(test_shared_correlation),
	};
	return cmocka_run_group_tests_name("critical_path", tests, NULL, NULL);
}
