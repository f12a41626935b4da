/* test_critical_path_scratch.c - the critical path's compact scratch
 * (core/analysis/critical_path*.c) past its narrow cases: the stream slots
 * in a byte an event until a 256th stream (then 4), the longest path's
 * in-degrees in a byte until a node has 255 predecessors (then counted
 * aside), the call stacks' open events grown as deep as the nesting goes,
 * the node's start flag kept in its event's top bit, the call stacks'
 * ends sorted in place, and the longest path's offsets packed (a node of
 * 300 edges out). Generated traces
 * whose graphs are worked out in the comments. */
#include "cputil.h"

#include "../core/analysis/critical_path_impl.h"
#include "../util/big.h"

#include <stdio.h>
#include <string.h>

#define US INT64_C(1000)

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
	tg_critical_path *cp = cp_test_build(&t, &tree, json, &o);
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
	cp_test_done(t, tree, cp);
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
	tg_critical_path *cp = cp_test_build(&t, &tree, json, &o);
	assert_int_equal(tg_cp_length_ns(cp), 1000 * US);
	assert_int_equal(tg_cp_breakdown(cp)[TG_CP_CPU], 1000 * US);
	assert_int_equal(tg_cp_stats_get(cp)->path_nodes, 2 * DEPTH);
	assert_int_equal(tg_cp_stats_get(cp)->edges_by_type[TG_CP_EDGE_OPERATOR], 2 * DEPTH - 1);
	size_t n;
	const tg_cp_op *op = tg_cp_ops(cp, &n);
	assert_int_equal(n, DEPTH);
	assert_int_equal(op[0].ns, (1000 - 2 * (DEPTH - 1)) * US); /* the innermost */
	cp_test_done(t, tree, cp);
	free(json);
}

/* NOPS ops one after the other on thread 1/1, O_k [10k, 10k + 5) us, and
 * as many on thread 1/2 a microsecond later: 4 * NOPS nodes and edges
 * past the 2,048 places of a block, so that the edges sorted by source
 * move by blocks first (critical_path_edges.c, permute) and the two
 * threads' edges interleave in node order. The path runs along one
 * thread: every op's 5 us, 5 * NOPS us, 2 * NOPS nodes, thread 1/1's
 * (the first of equal lengths). */
#define NOPS 3000

static void many_edges(int nops)
{
	size_t cap = 160 * 2 * (size_t)nops + 64, len = 0;
	char *json = tg_malloc(cap);
	assert_non_null(json);
	len = (size_t)snprintf(json, cap, "{\"traceEvents\":[");
	for (int k = 0; k < nops; k++) {
		add_x(json, cap, &len, "cpu_op", "A", 1, 1, 10 * k, 5, "");
		add_x(json, cap, &len, "cpu_op", "B", 1, 2, 10 * k + 1, 5, "");
	}
	snprintf(json + len, cap - len, "]}");
	tg_trace *t;
	tg_tree *tree;
	tg_cp_opts o = {.annotation = ""};
	tg_critical_path *cp = cp_test_build(&t, &tree, json, &o);
	const tg_cp_stats *st = tg_cp_stats_get(cp);
	assert_int_equal(st->nodes, 4 * nops);
	assert_int_equal(st->edges, 4 * nops - 2);
	assert_int_equal(tg_cp_length_ns(cp), 5 * nops * US);
	assert_int_equal(st->path_nodes, 2 * nops);
	size_t n;
	const tg_cp_op *op = tg_cp_ops(cp, &n);
	assert_int_equal(n, nops);
	assert_string_equal(tg_trace_str(t, tg_trace_events(t, &n)[op[0].event].name), "A");
	cp_test_done(t, tree, cp);
	free(json);
}

static void test_many_edges(void **state)
{
	(void)state;
	many_edges(NOPS);
}

/* Over 2^19 edges (4 * 140,000 - 2): the merge's permutation takes two
 * levels of flag passes (18 heads, then 16 in each bucket) before its
 * blocks of 2^11, where NOPS ops' edges take one level: the same path. */
static void test_many_edges_two_passes(void **state)
{
	(void)state;
	many_edges(140000);
}

/* Ties in the longest path go by the order the edges were added, not by
 * their sources' (the edges are sorted by source, each keeping its rank):
 * A [0, 15) on thread 1 and B [11, 20) on thread 2 make nodes 0 (A's
 * start), 1 (B's), 2 (A's end), 3 (B's) at 0, 11, 15, 20 us; the edges
 * 0 -> 1, 0 -> 2, 2 -> 3, 1 -> 3 added in that order make two paths of 20
 * us into 3. Kahn's queue visits 1 before 2, but networkx takes 3's first
 * predecessor in the order added, 2 (2 -> 3 came first): the path is 0, 2,
 * 3. Added with 1 -> 3 before 2 -> 3, it is 0, 1, 3. */
static void check_tie(int one_first, uint32_t want_mid)
{
	static const char json[] =
		"{\"traceEvents\":["
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"A\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":15},"
		"{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"B\",\"pid\":1,\"tid\":2,\"ts\":11,\"dur\":9}]}";
	tg_trace *t;
	tg_tree *tree;
	tg_cp_opts o = {.annotation = "", .keep_graph = 1, .summary_only = 1};
	tg_critical_path *cp = cp_test_build(&t, &tree, json, &o);
	assert_int_equal(cp->nnodes, 4);
	tg_big_free(cp->edges); /* the graph's arrays are tg_big's */
	tg_big_free(cp->soff);
	tg_big_free(cp->path);
	tg_big_free(cp->attr); /* the edges below are attributed to no event */
	cp->soff = cp->path = cp->attr = NULL;
	memset(cp->bound_ns, 0, sizeof(cp->bound_ns));
	memset(&cp->stats.edges_by_type, 0, sizeof(cp->stats.edges_by_type));
	const cp_edge a = {.key = 2, .dst = 3, .type = TG_CP_EDGE_DEPENDENCY},
		      b = {.key = 1, .dst = 3, .type = TG_CP_EDGE_DEPENDENCY};
	const cp_edge added[] = {{.key = 0, .dst = 1, .type = TG_CP_EDGE_DEPENDENCY},
	                         {.key = 0, .dst = 2, .type = TG_CP_EDGE_DEPENDENCY},
	                         one_first ? b : a,
	                         one_first ? a : b};
	cp->nedges = cp->cap = 4;
	cp->edges = tg_big_alloc(sizeof(added));
	assert_non_null(cp->edges);
	memcpy(cp->edges, added, sizeof(added));
	tg_test_must(cp_solve(cp));
	assert_int_equal(cp->length, 20 * US); /* weights are the times between nodes (no zero flag) */
	assert_int_equal(cp->npath, 3);
	/* the path's edges once the breakdown has run: into want_mid, then 3 */
	assert_int_equal(cp->edges[cp->path[0]].dst, want_mid);
	assert_int_equal(cp->edges[cp->path[1]].dst, 3);
	cp_test_done(t, tree, cp);
}

static void test_rank_ties(void **state)
{
	(void)state;
	check_tie(0, 2);
	check_tie(1, 1);
}

/* One kernel that 300 threads wait for (cudaStreamSynchronize, each with
 * its Stream Sync): its end has a sync edge to each of their ends, 300
 * edges out of one node, past the byte the longest path packs an
 * out-degree in (cp_offs: that node's block keeps its offsets aside).
 * The packed offsets give every node's edges as cp->soff does and make
 * it again whole. */
static void test_packed_offsets(void **state)
{
	(void)state;
	size_t cap = 256 * NK + 1024, len = 0;
	char *json = tg_malloc(cap), args[64];
	assert_non_null(json);
	len = (size_t)snprintf(json, cap, "{\"traceEvents\":[");
	add_x(json, cap, &len, "cuda_runtime", "cudaLaunchKernel", 1, 1, 0, 5, "\"correlation\":1");
	add_x(json, cap, &len, "kernel", "gemm", 0, 7, 10, 50, "\"correlation\":1,\"stream\":7");
	for (int k = 0; k < NK; k++) {
		snprintf(args, sizeof(args), "\"correlation\":%d", k + 2);
		add_x(json, cap, &len, "cuda_runtime", "cudaStreamSynchronize", 1, k + 2, 20 + k, 100, args);
		snprintf(args, sizeof(args), "\"correlation\":%d,\"stream\":7", k + 2);
		add_x(json, cap, &len, "cuda_sync", "Stream Sync", 0, 7, 20 + k, 100, args);
	}
	snprintf(json + len, cap - len, "]}");
	tg_trace *t;
	tg_tree *tree;
	tg_cp_opts o = {.annotation = "", .keep_graph = 1};
	tg_critical_path *cp = cp_test_build(&t, &tree, json, &o);
	size_t nn = cp->nnodes;
	uint32_t *want = malloc((nn + 1) * sizeof(uint32_t)), most = 0;
	assert_non_null(want);
	memcpy(want, cp->soff, (nn + 1) * sizeof(uint32_t));
	for (size_t u = 0; u < nn; u++)
		most = want[u + 1] - want[u] > most ? want[u + 1] - want[u] : most;
	assert_true(most >= NK);
	struct cp_offs packed;
	uint32_t *spare = NULL;
	tg_test_must(cp_offs_pack(&packed, cp, &spare));
	assert_null(cp->soff);
	assert_non_null(spare); /* soff's block, handed back */
	tg_big_free(spare);
	assert_non_null(packed.big);
	for (uint32_t u = 0; u < nn; u++) {
		uint32_t lo, hi;
		cp_offs_range(&packed, u, &lo, &hi);
		assert_int_equal(lo, want[u]);
		assert_int_equal(hi, want[u + 1]);
	}
	tg_test_must(cp_offs_unpack(&packed, cp));
	assert_memory_equal(cp->soff, want, (nn + 1) * sizeof(uint32_t));
	free(want);
	cp_test_done(t, tree, cp);
	free(json);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

/* The call stacks' ends sorted in place (cp_sort_u32, no scratch) as
 * qsort sorts them: random values over the whole 32 bits, few distinct
 * ones, values that share their top digits (times from a thread's first),
 * already sorted, reversed, and the short lists insertion takes. */
static void test_sort_u32(void **state)
{
	(void)state;
	const size_t n = 100000;
	uint32_t *v = malloc(n * sizeof(uint32_t)), *w = malloc(n * sizeof(uint32_t));
	assert_non_null(v);
	assert_non_null(w);
	uint64_t x = 88172645463325252ull;
	for (int kind = 0; kind < 6; kind++) {
		size_t m = kind == 5 ? 31 : n;
		for (size_t i = 0; i < m; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			uint32_t r = (uint32_t)x;
			v[i] = kind == 0 ? r : kind == 1 ? r % 7 : kind == 2 ? 1000000 + r % 65536
			       : kind == 3 ? (uint32_t)i * 3 : kind == 4 ? (uint32_t)(m - i) : r;
		}
		memcpy(w, v, m * sizeof(uint32_t));
		qsort(w, m, sizeof(uint32_t), cmp_u32);
		cp_sort_u32(v, m, 24);
		assert_memory_equal(v, w, m * sizeof(uint32_t));
	}
	free(v);
	free(w);
}

/* cp_sort_u64 (in place) against tg_sort_u64, and cp_sort_pairs_inc
 * against tg_sort_pairs (stable), on random, few distinct, narrow, sorted,
 * reversed, wide (top bits only, bottom bits only) and small inputs; the
 * pairs' keys past what packs beside their idx (random 64-bit keys) and
 * idx that go down take tg_sort_pairs. */
static void test_sort_u64(void **state)
{
	(void)state;
	const size_t n = 600000; /* the pairs packed in place from 4 MiB of keys (TG_BIG_MIN) */
	uint64_t *v = malloc(n * sizeof(uint64_t)), *w = malloc(n * sizeof(uint64_t));
	tg_sort_pair *p = malloc(n * sizeof(*p)), *q = malloc(n * sizeof(*q));
	assert_non_null(v);
	assert_non_null(w);
	assert_non_null(p);
	assert_non_null(q);
	uint64_t x = 88172645463325252ull;
	for (int kind = 0; kind < 9; kind++) {
		size_t m = kind == 8 ? 31 : n;
		for (size_t i = 0; i < m; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			v[i] = kind == 0 ? x : kind == 1 ? x % 7 : kind == 2 ? 1000000 + x % 65536
			       : kind == 3 ? (uint64_t)i * 3 : kind == 4 ? (uint64_t)(m - i)
			       : kind == 5 ? x & UINT64_C(0xff00000000000000) : kind == 6 ? x % 300 : x;
			p[i] = (tg_sort_pair){kind == 7 ? x >> 20 : v[i], kind == 1 ? (uint32_t)(m - i) : (uint32_t)(3 * i + (kind == 6 ? x % 3 : 0))};
		}
		memcpy(w, v, m * sizeof(uint64_t));
		tg_test_must(tg_sort_u64(w, m));
		cp_sort_u64(v, m);
		assert_memory_equal(v, w, m * sizeof(uint64_t));
		memcpy(q, p, m * sizeof(*p));
		tg_test_must(tg_sort_pairs(q, m));
		tg_test_must(cp_sort_pairs_inc(p, m));
		for (size_t i = 0; i < m; i++) {
			assert_int_equal(p[i].key, q[i].key);
			assert_int_equal(p[i].idx, q[i].idx);
		}
	}
	free(v);
	free(w);
	free(p);
	free(q);
}

/* The longest path's distances of the frontier (critical_path_dist.c):
 * 300 k random sets, updates and takes of 6,000 nodes (the table grown,
 * entries shifted back over the holes, wrapping past its end) against an
 * array; then past the limit, moved to an array by node. */
static void test_dist_table(void **state)
{
	(void)state;
	enum { NN = 6000 };
	static int64_t ref[NN];
	static unsigned char held[NN];
	memset(held, 0, sizeof(held));
	struct cp_dist d;
	tg_test_must(cp_dist_init(&d, NN));
	uint64_t x = 88172645463325252u;
	size_t n = 0;
	for (int i = 0; i < 300000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint32_t v = (uint32_t)(x % (i < 150000 ? 200 : NN)); /* a small frontier, then a wide one */
		if (held[v] && (x >> 40) % 3 == 0) {
			assert_int_equal(cp_dist_take(&d, v), ref[v]);
			held[v] = 0;
			n--;
		} else {
			if (held[v])
				assert_int_equal(cp_dist_get(&d, v), ref[v]);
			ref[v] = (int64_t)(x >> 20) - (1ll << 40);
			n += !held[v];
			held[v] = 1;
			tg_test_must(cp_dist_set(&d, v, ref[v]));
		}
		if (!d.arr)
			assert_int_equal(d.n, n);
	}
	assert_non_null(d.arr); /* 6,000 held at most, past 6,000 / 16 + 1,024 */
	for (uint32_t v = 0; v < NN; v++)
		if (held[v])
			assert_int_equal(cp_dist_take(&d, v), ref[v]);
	cp_dist_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_many_streams),
		cmocka_unit_test(test_sort_u32),
		cmocka_unit_test(test_sort_u64),
		cmocka_unit_test(test_packed_offsets),
		cmocka_unit_test(test_deep_nesting),
		cmocka_unit_test(test_rank_ties),
		cmocka_unit_test(test_many_edges),
		cmocka_unit_test(test_many_edges_two_passes),
		cmocka_unit_test(test_dist_table),
	};
	return cmocka_run_group_tests_name("critical_path_scratch", tests, NULL, NULL);
}
