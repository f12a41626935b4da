/* test_critical_path_scratch.c - the critical path's compact scratch
 * (core/analysis/critical_path*.c) past its narrow cases: the stream slots
 * in a byte an event until a 256th stream (then 4), the longest path's
 * in-degrees in a byte until a node has 255 predecessors (then counted
 * aside), the call stacks' open events grown as deep as the nesting goes,
 * and the node's start flag kept in its event's top bit. Generated traces
 * whose graphs are worked out in the comments. */
#include "testutil.h"

#include "../core/analysis/critical_path_impl.h"

#include <stdio.h>

#define US INT64_C(1000)

static tg_critical_path *build(tg_trace **t, tg_tree **tree, const char *json, const tg_cp_opts *o)
{
	*t = tg_test_read_str(json);
	tg_test_must(tg_tree_build(tree, *t));
	tg_critical_path *cp;
	tg_test_must(tg_critical_path_build(&cp, *tree, o));
	return cp;
}

static void done(tg_trace *t, tg_tree *tree, tg_critical_path *cp)
{
	tg_critical_path_free(cp);
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* Appends one complete event to buf (at *len, of cap bytes). */
static void add_x(char *buf, size_t cap, size_t *len, const char *cat, const char *name, int pid, int tid,
                  int64_t ts, int64_t dur, const char *args)
{
	int n = snprintf(buf + *len, cap - *len,
	                 "%s{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":%lld,"
	                 "\"dur\":%lld,\"args\":{%s}}",
	                 *len > 16 ? "," : "", cat, name, pid, tid, (long long)ts, (long long)dur, args);
	assert_true(n > 0 && (size_t)n < cap - *len);
	*len += (size_t)n;
}

/* NK launches on thread 1/1, L_k cudaLaunchKernel [10k, 10k + 2) us, each
 * of a kernel K_k [10k + 5, 10k + 8) on a stream of its own (k + 1: 300
 * streams, past a byte's slots), then D cudaDeviceSynchronize [3000,
 * 4000) and its Context Sync [3990, 4000). Every kernel was alone in its
 * queue and its stream idle: a launch delay of 5 us each, no kernel gap;
 * the Context Sync takes a sync edge from each stream's last kernel into
 * D's end, which has 301 predecessors (past a byte's in-degree) with D's
 * own span (a cycle error if its count went wrong). Longest path: the
 * launches' spans and dependencies to L_299's start (598 us), its launch
 * delay (5) and K_299 (3): 606 us = cpu 598 + launch 5 + compute 3, ending
 * at K_299's end, the first node of that distance (D's end, after the
 * sync of 0, comes later in Kahn's order). */
#define NK 300

static char *many_streams_json(void)
{
	size_t cap = 512 * NK + 1024, len = 0;
	char *buf = tg_malloc(cap), args[96];
	assert_non_null(buf);
	len = (size_t)snprintf(buf, cap, "{\"traceEvents\":[");
	for (int k = 0; k < NK; k++) {
		snprintf(args, sizeof(args), "\"correlation\":%d", k + 1);
		add_x(buf, cap, &len, "cuda_runtime", "cudaLaunchKernel", 1, 1, 10 * k, 2, args);
		snprintf(args, sizeof(args), "\"correlation\":%d,\"stream\":%d", k + 1, k + 1);
		add_x(buf, cap, &len, "kernel", "gemm", 0, k + 1, 10 * k + 5, 3, args);
	}
	add_x(buf, cap, &len, "cuda_runtime", "cudaDeviceSynchronize", 1, 1, 3000, 1000, "\"correlation\":9999");
	add_x(buf, cap, &len, "cuda_sync", "Context Sync", 0, 9999, 3990, 10, "\"correlation\":9999,\"stream\":-1");
	snprintf(buf + len, cap - len, "]}");
	return buf;
}

static void test_many_streams(void **state)
{
	(void)state;
	char *json = many_streams_json();
	tg_trace *t;
	tg_tree *tree;
	tg_cp_opts o = {.annotation = "", .keep_graph = 1};
	tg_critical_path *cp = build(&t, &tree, json, &o);
	const tg_cp_stats *s = tg_cp_stats_get(cp);
	assert_int_equal(s->nodes, 4 * NK + 2); /* the Context Sync, of no stream, has none */
	assert_int_equal(s->edges_by_type[TG_CP_EDGE_LAUNCH], NK);
	assert_int_equal(s->edges_by_type[TG_CP_EDGE_KERNEL_KERNEL], 0);
	assert_int_equal(s->edges_by_type[TG_CP_EDGE_SYNC], NK);
	assert_int_equal(tg_cp_length_ns(cp), 606 * US);
	assert_int_equal(tg_cp_breakdown(cp)[TG_CP_CPU], 598 * US);
	assert_int_equal(tg_cp_breakdown(cp)[TG_CP_LAUNCH], 5 * US);
	assert_int_equal(tg_cp_breakdown(cp)[TG_CP_GPU_COMPUTE], 3 * US);
	/* the path: L_0 .. L_298 (2 nodes each), L_299's start, K_299's two */
	assert_int_equal(s->path_nodes, 2 * NK + 1);
	size_t n;
	const tg_cp_step *st = tg_cp_steps(cp, &n);
	const tg_event *ev = tg_trace_events(t, &n);
	assert_string_equal(tg_trace_str(t, ev[st[2 * NK - 1].to].name), "gemm");
	assert_false(st[2 * NK - 1].to_start);
	assert_int_equal(st[2 * NK - 2].type, TG_CP_EDGE_LAUNCH);
	done(t, tree, cp);
	free(json);
}

/* Thread 1/1 nests DEPTH ops, N_k [k, 1000 - k) us: the walk goes down
 * the starts (1 us each), across the innermost (1000 - 2 * (DEPTH - 1)),
 * and up the ends (1 us each), a path of every node and 1000 us. */
#define DEPTH 200

static void test_deep_nesting(void **state)
{
	(void)state;
	size_t cap = 256 * DEPTH + 64, len = 0;
	char *json = tg_malloc(cap), name[16];
	assert_non_null(json);
	len = (size_t)snprintf(json, cap, "{\"traceEvents\":[");
	for (int k = 0; k < DEPTH; k++) {
		snprintf(name, sizeof(name), "N%d", k);
		add_x(json, cap, &len, "cpu_op", name, 1, 1, k, 1000 - 2 * k, "");
	}
	snprintf(json + len, cap - len, "]}");
	tg_trace *t;
	tg_tree *tree;
	tg_cp_opts o = {.annotation = ""};
	tg_critical_path *cp = build(&t, &tree, json, &o);
	assert_int_equal(tg_cp_length_ns(cp), 1000 * US);
	assert_int_equal(tg_cp_breakdown(cp)[TG_CP_CPU], 1000 * US);
	assert_int_equal(tg_cp_stats_get(cp)->path_nodes, 2 * DEPTH);
	assert_int_equal(tg_cp_stats_get(cp)->edges_by_type[TG_CP_EDGE_OPERATOR], 2 * DEPTH - 1);
	size_t n;
	const tg_cp_op *op = tg_cp_ops(cp, &n);
	assert_int_equal(n, DEPTH);
	assert_int_equal(op[0].ns, (1000 - 2 * (DEPTH - 1)) * US); /* the innermost */
	done(t, tree, cp);
	free(json);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_many_streams),
		cmocka_unit_test(test_deep_nesting),
	};
	return cmocka_run_group_tests_name("critical_path_scratch", tests, NULL, NULL);
}
