/* test_critical_path_summary.c - the proof that a summary
 * (tg_cp_summarize, critical_path_summary.c: the lean build) is the full
 * builder's (tg_critical_path_build: its length, breakdown and steps),
 * field for field (cputil.h: cp_test_same_summary), on every trace of
 * $TG_SHARED/traces (skipped, saying so, without it) in HTA's default
 * settings, with --exact-ns and with zero-weight launch edges; on
 * generated traces (build/tg-gen: training, python frames, host syncs,
 * NCCL ranks, distinct ops, no steps); and on hand-made ones (many
 * streams, stream waits, event and context syncs, nesting, events of no
 * duration, equal times, a cycle, a path of more than 2^32 ns, a queue
 * 300 launches deep). The
 * hand-made traces of test_critical_path*.c are checked too, as each
 * builds through cp_test_build. */
#include "cputil.h"
#include "gentrace.h"

#include <ftw.h>

#define X(cat, name, pid, tid, ts, dur, args)                                                          \
	"{\"ph\":\"X\",\"cat\":\"" cat "\",\"name\":\"" name "\",\"pid\":" #pid ",\"tid\":" #tid ",\"ts\":" #ts \
	",\"dur\":" #dur ",\"args\":{" args "}}"

/* The summary against the full builder in the three settings a user can
 * ask of HTA: the defaults, exact nanoseconds, zero-weight launch edges
 * (the whole trace for the last two, every step for the first). Returns
 * 1 when the defaults give a path. */
static int check_settings(const tg_tree *tree)
{
	int ok = cp_test_same_summary(tree, NULL);
	tg_cp_opts o = {.exact_ns = 1};
	cp_test_same_summary(tree, &o);
	o = (tg_cp_opts){.annotation = "", .zero_weight_launch = 1};
	cp_test_same_summary(tree, &o);
	o = (tg_cp_opts){.annotation = "", .exact_ns = 1};
	cp_test_same_summary(tree, &o);
	return ok;
}

/* check_settings on the trace of the JSON text json: 1 when the defaults
 * give a path. */
static int check_json(const char *json)
{
	tg_trace *t = tg_test_read_str(json);
	tg_tree *tree;
	tg_test_must(tg_tree_build(&tree, t));
	int ok = check_settings(tree);
	tg_tree_free(tree);
	tg_trace_free(t);
	return ok;
}

static size_t shared_traces, shared_paths;

/* The tree of the shared trace at path (an nftw entry of flag), into
 * *tree and *t (the caller frees both); 0 when path is no trace or one
 * the reader refuses (it has no critical path), else 1. */
static int shared_tree(tg_tree **tree, tg_trace **t, const char *path, int flag)
{
	size_t n = strlen(path);
	if (flag != FTW_F || !((n > 5 && !strcmp(path + n - 5, ".json")) || (n > 8 && !strcmp(path + n - 8, ".json.gz"))))
		return 0;
	if (tg_trace_read_file(t, path, NULL))
		return 0;
	tg_test_must(tg_tree_build(tree, *t));
	shared_traces++;
	return 1;
}

static int visit(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	tg_trace *t;
	tg_tree *tree;
	if (!shared_tree(&tree, &t, path, flag))
		return 0;
	shared_paths += check_settings(tree);
	tg_tree_free(tree);
	tg_trace_free(t);
	return 0;
}

static void test_shared_traces(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	shared_traces = shared_paths = 0;
	uint64_t fallbacks = tg_cp_summary_fallbacks();
	assert_int_equal(nftw(tg_test_shared_traces(), visit, 16, FTW_PHYS), 0);
	fallbacks = tg_cp_summary_fallbacks() - fallbacks;
	print_message("%zu shared traces, %zu with a path in HTA's defaults: summaries equal in four settings; "
	              "%llu built twice (a cycle)\n",
	              shared_traces, shared_paths, (unsigned long long)fallbacks);
	assert_true(shared_traces >= 40);
	assert_true(shared_paths >= 20);
}

static void test_generated(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	static const char *const args[] = {
		"--steps 3 --layers 2 --batch 1 --seq 256",
		"--steps 2 --layers 2 --batch 1 --seq 256 --train --python",
		"--steps 3 --layers 1 --batch 1 --seq 128 --host-sync 3 --jitter 20",
		"--steps 2 --layers 2 --batch 1 --seq 128 --ranks 4 --rank 1 --straggler 1 --skew-us 300",
		"--steps 0 --layers 2 --batch 1 --seq 128",
		"--steps 2 --distinct-ops 200 --reverse-ops",
		"--steps 2 --layers 1 --batch 1 --seq 128 --train --split-attention 1.3 --sdpa-math 1.1",
		"--steps 2 --layers 2 --batch 1 --seq 128 --seed 7 --noise 30 --extra-op aten::gelu",
	};
	for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++) {
		gt_side s;
		gt_load(&s, args[i]);
		assert_true(check_settings(s.tree));
		gt_unload(&s);
	}
	gt_cache_free();
}

/* 40 streams, each kernel launched from one of two threads, a stream
 * wait from stream 3 onto stream 4, event, stream and context syncs,
 * nested ops, events of no duration and simultaneous starts and ends:
 * many edges of equal weight, so that the ties decide the path. */
static void test_hand_made(void **state)
{
	(void)state;
	char *json = malloc(1 << 20);
	assert_non_null(json);
	size_t n = (size_t)sprintf(json, "{\"traceEvents\":[" X("user_annotation", "ProfilerStep#1", 1, 1, 0, 5000, "")
	                                 "," X("user_annotation", "ProfilerStep#2", 1, 1, 5000, 5000, ""));
	for (int k = 0; k < 80; k++) {
		int tid = 1 + k % 2, stream = 7 + k % 40, ts = 10 + k * 100, corr = 100 + k;
		n += (size_t)sprintf(json + n,
		                     ",{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::op%d\",\"pid\":1,\"tid\":%d,"
		                     "\"ts\":%d,\"dur\":60,\"args\":{}}"
		                     ",{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::inner\",\"pid\":1,\"tid\":%d,"
		                     "\"ts\":%d,\"dur\":%d,\"args\":{}}"
		                     ",{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
		                     "\"tid\":%d,\"ts\":%d,\"dur\":10,\"args\":{\"correlation\":%d}}"
		                     ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k%d\",\"pid\":0,\"tid\":%d,\"ts\":%d,"
		                     "\"dur\":%d,\"args\":{\"correlation\":%d,\"stream\":%d}}",
		                     k % 7, tid, ts, tid, ts, k % 3 ? 20 : 0, tid, ts + 20, corr, k % 5, stream,
		                     ts + 40 + (k % 4) * 30, k % 6 ? 50 : 0, corr, stream);
		if (k % 10 == 9)
			n += (size_t)sprintf(json + n,
			                     ",{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaStreamSynchronize\","
			                     "\"pid\":1,\"tid\":%d,\"ts\":%d,\"dur\":30,\"args\":{\"correlation\":%d}}"
			                     ",{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"Stream Sync\",\"pid\":0,"
			                     "\"tid\":%d,\"ts\":%d,\"dur\":20,\"args\":{\"correlation\":%d,\"stream\":%d}}",
			                     tid, ts + 65, 1000 + k, stream, ts + 70, 1000 + k, stream);
	}
	n += (size_t)sprintf(
		json + n,
		"," X("cuda_runtime", "cudaEventRecord", 1, 1, 8500, 2, "\"correlation\":5001") ","
		X("cuda_runtime", "cudaStreamWaitEvent", 1, 1, 8503, 2, "\"correlation\":5002") ","
		X("cuda_runtime", "cudaLaunchKernel", 1, 1, 8506, 3, "\"correlation\":5003") ","
		X("kernel", "waited", 0, 3, 8600, 40, "\"correlation\":5003,\"stream\":3") ","
		X("cuda_sync", "Stream Wait Event", 0, 3, 8505, 1,
		  "\"correlation\":5002,\"stream\":3,\"wait_on_stream\":4,\"wait_on_cuda_event_record_corr_id\":5001") ","
		X("cuda_runtime", "cudaEventSynchronize", 1, 2, 8700, 100, "\"correlation\":5004") ","
		X("cuda_sync", "Event Sync", 0, -1, 8790, 5,
		  "\"correlation\":5004,\"stream\":-1,\"wait_on_stream\":3,\"wait_on_cuda_event_record_corr_id\":5001") ","
		X("cuda_runtime", "cudaDeviceSynchronize", 1, 1, 8900, 200, "\"correlation\":5005") ","
		X("cuda_sync", "Context Sync", 0, -1, 9090, 5, "\"correlation\":5005,\"stream\":-1") "]}");
	assert_true(check_json(json));
	free(json);
}

/* A cycle: the lean build cannot name its event, so the summary is built
 * again and says what the full builder says (test_critical_path.c's
 * CYCLE, with zero-weight launch edges). */
static void test_cycle_fallback(void **state)
{
	(void)state;
	static const char json[] =
		"{\"traceEvents\":["
		X("cuda_runtime", "cudaStreamSynchronize", 1, 1, 0, 10, "\"correlation\":1") ","
		X("cuda_runtime", "cudaLaunchKernel", 1, 1, 20, 5, "\"correlation\":2") ","
		X("cuda_sync", "Stream Sync", 0, 7, 0, 10, "\"correlation\":1,\"stream\":7") ","
		X("kernel", "gemm", 0, 7, 5, 3, "\"correlation\":2,\"stream\":7") "]}";
	tg_trace *t = tg_test_read_str(json);
	tg_tree *tree;
	tg_test_must(tg_tree_build(&tree, t));
	uint64_t before = tg_cp_summary_fallbacks();
	tg_cp_opts o = {.annotation = "", .zero_weight_launch = 1};
	assert_int_equal(cp_test_same_summary(tree, &o), 0);
	assert_int_equal(tg_cp_summary_fallbacks(), before + 1);
	tg_cp_summary s;
	tg_test_must(tg_cp_summarize_opts(&s, tree, &o));
	assert_non_null(strstr(s.why, "cycle of dependencies (through '"));
	o.zero_weight_launch = 0; /* no cycle: no second build */
	assert_int_equal(cp_test_same_summary(tree, &o), 1);
	assert_int_equal(tg_cp_summary_fallbacks(), before + 2);
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* A graph over cp_max_edges edges is refused (TG_ELIMIT) by the summary
 * exactly where the full builder refuses it, the chains implied counted:
 * every limit from 1 to past the generated trace's edges agrees. */
static void test_edge_limit(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	gt_side g;
	gt_load(&g, "--steps 1 --layers 1 --batch 1 --seq 128");
	size_t refused = 0, found = 0;
	for (uint32_t max = 1; max <= 400; max++) {
		cp_max_edges = max;
		int ok = cp_test_same_summary(g.tree, NULL);
		refused += !ok;
		found += ok;
		if (!ok) {
			tg_cp_summary s;
			tg_test_must(tg_cp_summarize(&s, g.tree));
			assert_non_null(strstr(s.why, "more than"));
		}
	}
	cp_max_edges = CP_MAX_EDGES;
	print_message("edge limits: %zu refused, %zu found\n", refused, found);
	assert_true(refused > 0);
	assert_true(found > 0);
	assert_int_equal(cp_test_same_summary(g.tree, NULL), 1);
	gt_unload(&g);
	gt_cache_free();
}

/* opts.scratch_freed (the command's heap policy, `diff` trims there) is
 * called three times in a summary's lean build (narrow times: the chains
 * implied): before the GPU stage's kernel edges, after the stage and
 * before the merge; it changes nothing of the summary. */
static int scratch_calls;
static void count_scratch_freed(void)
{
	scratch_calls++;
}
static void test_scratch_freed(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	gt_side g;
	gt_load(&g, "--steps 3 --layers 2 --batch 1 --seq 256");
	tg_cp_summary a, b;
	tg_test_must(tg_cp_summarize_opts(&a, g.tree, NULL));
	scratch_calls = 0;
	tg_cp_opts o = {.scratch_freed = count_scratch_freed};
	tg_test_must(tg_cp_summarize_opts(&b, g.tree, &o));
	assert_int_equal(scratch_calls, 3);
	assert_true(a.ok && b.ok);
	assert_int_equal(a.length_ns, b.length_ns);
	assert_memory_equal(a.bound_ns, b.bound_ns, sizeof(a.bound_ns));
	assert_int_equal(a.steps, b.steps);
	gt_unload(&g);
	gt_cache_free();
}

/* Nodes spanning more than 2^32 ns with --exact-ns: the longest path reads
 * the times from the events (no 32-bit times), and the lean build keeps
 * the nodes' events; in microseconds the same trace is narrow. */
static void test_wide_times(void **state)
{
	(void)state;
	static const char json[] =
		"{\"traceEvents\":["
		X("cpu_op", "aten::a", 1, 1, 0, 3000000, "") ","
		X("cuda_runtime", "cudaLaunchKernel", 1, 1, 10, 5, "\"correlation\":1") ","
		X("kernel", "gemm", 0, 7, 2000000, 2500000, "\"correlation\":1,\"stream\":7") ","
		X("cpu_op", "aten::b", 1, 1, 3000001.5, 4000000, "") ","
		X("cpu_op", "aten::c", 1, 2, 3000001.5, 0.5, "") "]}";
	assert_true(check_json(json));
}

/* A stream 300 launches deep (the queue lengths kept saturate at a
 * byte's 127, and only whether one is 0 or 1 is read): kernel 299 starts
 * on an empty queue but was launched on a full one, so no launch edge;
 * the last launch, on an idle stream, gets one of 100 us. */
static void test_deep_queue(void **state)
{
	(void)state;
	char *json = malloc(1 << 20);
	assert_non_null(json);
	size_t n = (size_t)sprintf(json, "{\"traceEvents\":[");
	for (int k = 0; k < 300; k++)
		n += (size_t)sprintf(json + n,
		                     "%s{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
		                     "\"tid\":1,\"ts\":%d,\"dur\":0.5,\"args\":{\"correlation\":%d}}"
		                     ",{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":%d,"
		                     "\"dur\":1,\"args\":{\"correlation\":%d,\"stream\":7}}",
		                     k ? "," : "", k, k + 1, 1000 + 2 * k, k + 1);
	n += (size_t)sprintf(json + n, "," X("cuda_runtime", "cudaLaunchKernel", 1, 1, 2000, 5, "\"correlation\":999")
	                     "," X("kernel", "last", 0, 7, 2100, 10, "\"correlation\":999,\"stream\":7") "]}");
	tg_trace *t = tg_test_read_str(json);
	tg_tree *tree;
	tg_test_must(tg_tree_build(&tree, t));
	assert_true(check_settings(tree));
	tg_cp_opts o = {.annotation = ""};
	tg_critical_path *cp;
	tg_test_must(tg_critical_path_build(&cp, tree, &o));
	assert_int_equal(tg_cp_stats_get(cp)->edges_by_type[TG_CP_EDGE_LAUNCH], 1);
	assert_int_equal(tg_cp_breakdown(cp)[TG_CP_LAUNCH], 100000);
	tg_critical_path_free(cp);
	tg_tree_free(tree);
	tg_trace_free(t);
	free(json);
}

/* A runtime call with a child that ends with it: into the call's end come
 * the lock's edge from its start (10 us) and the chain's from the child's
 * end (2 + 8 + 0 us), tied; the lock's edge ranks first, so the path
 * skips the child (a chain ranked first would take it: cp_test_same_lean
 * compares the path's nodes). Twice over, a kernel launched between. */
static void test_chain_lock_tie(void **state)
{
	(void)state;
	static const char json[] =
		"{\"traceEvents\":[" X("user_annotation", "ProfilerStep#1", 1, 1, 0, 1000, "") ","
		X("user_annotation", "ProfilerStep#2", 1, 1, 1000, 1000, "") ","
		X("cpu_op", "aten::mm", 1, 1, 50, 40, "") ","
		X("cuda_runtime", "cudaLaunchKernel", 1, 1, 100, 10, "\"correlation\":1") ","
		X("cpu_op", "aten::inner", 1, 1, 102, 8, "") ","
		X("kernel", "gemm", 0, 7, 115, 20, "\"correlation\":1,\"stream\":7") ","
		X("cpu_op", "aten::add", 1, 1, 120, 380, "") ","
		X("cuda_runtime", "cudaLaunchKernel", 1, 1, 1100, 10, "\"correlation\":2") ","
		X("cpu_op", "aten::inner", 1, 1, 1102, 8, "") ","
		X("cpu_op", "aten::add", 1, 1, 1120, 380, "") "]}";
	assert_true(check_json(json));
}

/* The chains' successors farther than cp_chain_reach held in
 * cp->chain_far: every one of them there (reach 0), and those past one
 * node (reach 1), on the hand-made and generated traces. */
static void test_chains_far(void **state)
{
	for (int32_t reach = 0; reach <= 1; reach++) {
		cp_chain_reach = reach;
		test_hand_made(state);
		test_deep_queue(state);
		test_generated(state); /* last: skips without the generator */
	}
	cp_chain_reach = INT16_MAX;
}

/* The full builder's path, its figures and its steps, the same with
 * every thread's starts sorted (cp_starts_unsorted 0), every source's
 * duplicate edges found through a map (cp_merge_scan 0) and the longest
 * path's distances in an array by node (cp_dist_limit 0) and every end
 * node held apart (cp_chain_reach 0: cp->efar) as with the threads
 * already in order walked unsorted, a source's few edges scanned, the
 * distances of the frontier in a table and the end nodes as distances. */
static void check_unsorted_same(const tg_tree *tree)
{
	tg_cp_opts o = {.annotation = ""};
	tg_critical_path *a, *b;
	cp_starts_unsorted = 0;
	cp_merge_scan = 0;
	cp_dist_limit = 0;
	cp_chain_reach = 0; /* every end node in cp->efar */
	int ra = tg_critical_path_build(&a, tree, &o);
	cp_starts_unsorted = 1;
	cp_merge_scan = 32;
	cp_dist_limit = -1;
	cp_chain_reach = INT16_MAX;
	int rb = tg_critical_path_build(&b, tree, &o);
	assert_int_equal(ra, rb);
	if (ra)
		return;
	const tg_cp_stats *x = tg_cp_stats_get(a), *y = tg_cp_stats_get(b);
	assert_int_equal(x->nodes, y->nodes);
	assert_int_equal(x->path_nodes, y->path_nodes);
	assert_memory_equal(x->edges_by_type, y->edges_by_type, sizeof(x->edges_by_type));
	assert_int_equal(tg_cp_length_ns(a), tg_cp_length_ns(b));
	assert_memory_equal(tg_cp_breakdown(a), tg_cp_breakdown(b), TG_CP_NBOUND * sizeof(int64_t));
	size_t na, nb;
	const tg_cp_step *sa = tg_cp_steps(a, &na), *sb = tg_cp_steps(b, &nb);
	assert_int_equal(na, nb);
	for (size_t i = 0; i < na; i++) {
		assert_int_equal(sa[i].from, sb[i].from);
		assert_int_equal(sa[i].to, sb[i].to);
		assert_int_equal(sa[i].type, sb[i].type);
	}
	tg_critical_path_free(a);
	tg_critical_path_free(b);
}

static int visit_unsorted(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	tg_trace *t;
	tg_tree *tree;
	if (!shared_tree(&tree, &t, path, flag))
		return 0;
	check_unsorted_same(tree);
	tg_tree_free(tree);
	tg_trace_free(t);
	return 0;
}

/* The call stacks' threads walked unsorted where their events are in
 * order (critical_path_stack.c starts_in_order) give the path sorting
 * them gives: on the generated traces (whose threads are in order), a
 * thread that lists a child before its parent of the same start, and the
 * shared traces. */
static void test_starts_in_order(void **state)
{
	(void)state;
	GT_SKIP_WITHOUT_GEN();
	static const char *const args[] = {
		"--steps 3 --layers 2 --batch 1 --seq 256",
		"--steps 2 --layers 2 --batch 1 --seq 256 --train --python",
		"--steps 3 --layers 1 --batch 1 --seq 128 --host-sync 3 --jitter 20",
	};
	for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++) {
		gt_side s;
		gt_load(&s, args[i]);
		check_unsorted_same(s.tree);
		gt_unload(&s);
	}
	gt_cache_free();
	/* a child before its parent of the same start: out of order */
	static const char json[] = "{\"traceEvents\":["
		X("cpu_op", "aten::inner", 1, 1, 10, 20, "") ","
		X("cpu_op", "aten::outer", 1, 1, 10, 60, "") ","
		X("cpu_op", "aten::next", 1, 1, 40, 10, "") ","
		X("cpu_op", "aten::last", 1, 1, 80, 10, "") "]}";
	tg_trace *t = tg_test_read_str(json);
	tg_tree *tree;
	tg_test_must(tg_tree_build(&tree, t));
	check_unsorted_same(tree);
	tg_tree_free(tree);
	tg_trace_free(t);
	TG_SKIP_WITHOUT_SHARED();
	shared_traces = 0;
	assert_int_equal(nftw(tg_test_shared_traces(), visit_unsorted, 16, FTW_PHYS), 0);
	assert_true(shared_traces >= 40);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hand_made),
		cmocka_unit_test(test_cycle_fallback),
		cmocka_unit_test(test_wide_times),
		cmocka_unit_test(test_deep_queue),
		cmocka_unit_test(test_generated),
		cmocka_unit_test(test_shared_traces),
		cmocka_unit_test(test_chain_lock_tie),
		cmocka_unit_test(test_chains_far),
		cmocka_unit_test(test_scratch_freed),
		cmocka_unit_test(test_edge_limit),
		cmocka_unit_test(test_starts_in_order),
	};
	return cmocka_run_group_tests_name("critical_path_summary", tests, NULL, NULL);
}
