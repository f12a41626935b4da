/* test_skeleton.c - the op skeleton's orders and the tree diff's view built
 * from it: tg_skeleton_sort_nodes against a comparison sort by (start,
 * index) on lists with many equal starts (the insertion sort of a few, the
 * radix sort of many) and with starts too far apart to pack; and a diff of
 * a tree deeper than the view's first frames (the depth-first numbering
 * grows its path), which must pair every node with its counterpart; the
 * 16-byte node's start and event read back through their compact forms;
 * the nodes held compact (skeleton_hold.c) and given back byte for byte;
 * each built node's parent, its nearest held ancestor past python frames. */
#include "testutil.h"

#include "../core/diff/skeleton.h"
#include "../core/diff/tree_diff.h"

/* A skeleton of n cpu_op nodes starting at ts[i], parentless. */
static tg_skeleton *skeleton_of(const int64_t *ts, size_t n)
{
	tg_atoms *atoms = tg_atoms_new();
	assert_non_null(atoms);
	uint32_t name;
	assert_int_equal(tg_atoms_intern(&name, atoms, "aten::mm", 8), 0);
	tg_skel_entry *nodes = calloc(n, sizeof(*nodes));
	assert_non_null(nodes);
	for (size_t i = 0; i < n; i++)
		nodes[i] = (tg_skel_entry){.ts = ts[i], .dur = 1, .event = (uint32_t)i, .parent = TG_NONE,
		                           .name = name, .kind = TG_KIND_CPU_OP};
	tg_skeleton *sk = NULL;
	assert_int_equal(tg_skeleton_adopt(&sk, nodes, n, (uint32_t)n, atoms, 0, "test"), 0);
	return sk;
}

static const int64_t *g_ts; /* the starts cmp_start orders by */

static int cmp_start(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	if (g_ts[x] != g_ts[y])
		return g_ts[x] < g_ts[y] ? -1 : 1;
	return (x > y) - (x < y);
}

/* Sorts the nodes idx[0..m) of a skeleton of n nodes by
 * tg_skeleton_sort_nodes and by qsort, and compares; the full list also
 * against the skeleton's own order (tg_skeleton_by_start). */
static void check_sort(const int64_t *ts, size_t n, const uint32_t *idx, size_t m)
{
	tg_skeleton *sk = skeleton_of(ts, n);
	uint32_t *got = malloc((m + 1) * sizeof(uint32_t)), *want = malloc((m + 1) * sizeof(uint32_t));
	uint64_t *keys = malloc((m + 1) * sizeof(uint64_t));
	assert_true(got && want && keys);
	memcpy(got, idx, m * sizeof(uint32_t));
	memcpy(want, idx, m * sizeof(uint32_t));
	g_ts = ts;
	qsort(want, m, sizeof(uint32_t), cmp_start);
	assert_int_equal(tg_skeleton_sort_nodes(sk, got, m, keys), 0);
	for (size_t q = 0; q < m; q++)
		assert_int_equal(got[q], want[q]);
	if (m == n) {
		const uint32_t *by = tg_skeleton_by_start(sk);
		for (size_t q = 0; q < n; q++)
			assert_int_equal(got[q], by[q]);
	}
	free(got);
	free(want);
	free(keys);
	tg_skeleton_free(sk);
}

static void test_sort_nodes(void **state)
{
	(void)state;
	enum { N = 1000 };
	int64_t ts[N];
	uint32_t idx[N];
	/* many equal starts, a negative one; every node given backwards */
	for (size_t i = 0; i < N; i++) {
		ts[i] = (int64_t)((i * 7919) % 97) - 3;
		idx[i] = (uint32_t)(N - 1 - i);
	}
	check_sort(ts, N, idx, N); /* radix */
	check_sort(ts, N, idx, 40); /* insertion */
	check_sort(ts, N, idx + 500, 300);
	check_sort(ts, N, idx, 1);
	check_sort(ts, N, idx, 0);
	/* starts too far apart to pack beside a 10-bit index */
	ts[3] = INT64_MIN;
	ts[700] = INT64_MAX;
	ts[701] = INT64_MIN;
	check_sort(ts, N, idx, N);
	check_sort(ts, N, idx + 200, 502);
}

/* The order of every node of a skeleton large enough for the in-place
 * sort of its keys (65,536 keys and more): starts spread over 2^40 ns
 * with runs of equal ones and two far from the rest (buckets of a few
 * keys, sorted by insertion), then most starts in one bucket of the top
 * digit (sorted by tg_sort_u64), against qsort. */
static void test_order_in_place(void **state)
{
	(void)state;
	enum { N = 70000 };
	int64_t *ts = malloc(N * sizeof(int64_t));
	uint32_t *idx = malloc(N * sizeof(uint32_t));
	assert_true(ts && idx);
	uint64_t x = 88172645463325252ULL;
	for (size_t i = 0; i < N; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		ts[i] = i % 5 == 0 && i ? ts[i - 1] : (int64_t)(x >> 24);
		idx[i] = (uint32_t)i;
	}
	ts[17] = ts[N - 1] = (int64_t)1 << 41;
	check_sort(ts, N, idx, N);
	for (size_t i = 0; i < N; i++) /* most in one bucket of the top digit */
		ts[i] = i % 100 ? (int64_t)(i % 977) : (int64_t)i << 20;
	check_sort(ts, N, idx, N);
	free(ts);
	free(idx);
}

/* A trace of depth nested cpu_ops, the innermost launching one kernel. */
static tg_trace *deep_trace(int depth, const char *kernel)
{
	size_t cap = (size_t)depth * 160 + 2048, n = 0;
	char *s = malloc(cap);
	assert_non_null(s);
	n += (size_t)snprintf(s + n, cap - n, "{\"traceEvents\": [\n");
	for (int i = 0; i < depth; i++)
		n += (size_t)snprintf(s + n, cap - n,
		                      "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op%d\", \"pid\": 1, \"tid\": 1, "
		                      "\"ts\": %d, \"dur\": %d},\n",
		                      i % 7, 1000 + i, 2 * (depth - i) + 20);
	n += (size_t)snprintf(s + n, cap - n,
	                      "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, "
	                      "\"tid\": 1, \"ts\": %d, \"dur\": 2, \"args\": {\"correlation\": 1}},\n"
	                      "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, \"ts\": 90000, "
	                      "\"dur\": 10, \"args\": {\"correlation\": 1, \"stream\": 7}},\n"
	                      "{\"ph\": \"s\", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"id\": 1, \"pid\": 1, \"tid\": 1, "
	                      "\"ts\": %d},\n"
	                      "{\"ph\": \"f\", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"id\": 1, \"pid\": 0, \"tid\": 7, "
	                      "\"ts\": 90000, \"bp\": \"e\"}\n]}\n",
	                      1000 + depth, kernel, 1000 + depth);
	assert_true(n < cap);
	tg_trace *t = tg_test_read_str(s);
	free(s);
	return t;
}

/* Two chains 300 deep (past the view's 64 first frames): every op pairs
 * with its counterpart down the chain, each merged node the child of the
 * one before; the kernels match when their names do, else the innermost
 * op is the one LCA. */
static void test_deep_chain(void **state)
{
	(void)state;
	enum { DEPTH = 300 };
	for (int same = 0; same < 2; same++) {
		tg_trace *t[2] = {deep_trace(DEPTH, "gemm"), deep_trace(DEPTH, same ? "gemm" : "conv")};
		tg_tree *tree[2];
		for (int k = 0; k < 2; k++)
			assert_int_equal(tg_tree_build(&tree[k], t[k]), 0);
		tg_tree_diff *d;
		assert_int_equal(tg_tree_diff_build(&d, tree[0], tree[1], NULL), 0);
		size_t nn, nl;
		const tg_diff_node *nodes = tg_tree_diff_nodes(d, &nn);
		const tg_diff_lca *lcas = tg_tree_diff_lcas(d, &nl);
		const tg_tree_diff_stats *st = tg_tree_diff_stats_get(d);
		assert_int_equal(st->gpu[0], 1);
		assert_int_equal(st->roots[0], 1);
		if (same) {
			/* the root, the ops, the launch, the kernel: one chain */
			assert_int_equal(nn, DEPTH + 3);
			for (size_t i = 1; i < nn; i++) {
				assert_int_equal(nodes[i].parent, i - 1);
				assert_int_equal(nodes[i].side, TG_DIFF_BOTH);
				assert_int_equal(nodes[i].base_ev, nodes[i].new_ev);
			}
			assert_int_equal(nl, 0);
			assert_int_equal(st->matched[0], 1);
			assert_int_equal(tg_tree_diff_match(d, TG_DIFF_SIDE_BASE, DEPTH + 1), DEPTH + 1);
		} else {
			/* the launches differ by their kernels: the innermost op
			 * holds both one-sided launches */
			assert_int_equal(nl, 1);
			assert_int_equal(lcas[0].node, DEPTH);
			assert_int_equal(nodes[DEPTH].base_ev, DEPTH - 1);
			assert_int_equal(lcas[0].nbase, 1);
			assert_int_equal(lcas[0].nnew, 1);
			assert_int_equal(lcas[0].base_busy_ns, 10000);
			assert_int_equal(tg_tree_diff_lca_of(d, TG_DIFF_SIDE_NEW, lcas[0].new_gpu[0]), 0);
			assert_int_equal(tg_tree_diff_match(d, TG_DIFF_SIDE_NEW, lcas[0].new_gpu[0]), TG_NONE);
		}
		tg_tree_diff_free(d);
		for (int k = 0; k < 2; k++) {
			tg_tree_free(tree[k]);
			tg_trace_free(t[k]);
		}
	}
}

/* A chain of depth nested events on one thread, python_function at two
 * levels of three (runs of python frames between ops, a python root),
 * each level with a leaf after its inner level, a python leaf every other
 * one. */
static tg_trace *mixed_trace(int depth)
{
	size_t cap = (size_t)depth * 360 + 256, n = 0;
	char *s = malloc(cap);
	assert_non_null(s);
	n += (size_t)snprintf(s + n, cap - n, "{\"traceEvents\": [\n");
	for (int i = 0; i < depth; i++) {
		int inner_end = 1090 + 20 * depth - 10 * i;
		n += (size_t)snprintf(s + n, cap - n,
		                      "{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"f%d\", \"pid\": 1, \"tid\": 1, "
		                      "\"ts\": %d, \"dur\": %d},\n"
		                      "{\"ph\": \"X\", \"cat\": \"%s\", \"name\": \"leaf%d\", \"pid\": 1, \"tid\": 1, "
		                      "\"ts\": %d, \"dur\": 3},\n",
		                      i % 3 ? "python_function" : "cpu_op", i % 5, 1000 + 10 * i, 20 * (depth - i) + 100,
		                      i % 2 ? "python_function" : "cpu_op", i % 4, inner_end + 2);
	}
	n += (size_t)snprintf(s + n, cap - n, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"last\", "
	                                      "\"pid\": 1, \"tid\": 1, \"ts\": 999999, \"dur\": 1}\n]}\n");
	assert_true(n < cap);
	tg_trace *t = tg_test_read_str(s);
	free(s);
	return t;
}

/* tg_skeleton_build: each node's parent is the node of its event's nearest
 * ancestor that the skeleton holds (found here by walking the tree), past
 * runs of python frames it does not hold, TG_NONE under none; with python
 * held, its tree parent's. */
static void test_build_parents(void **state)
{
	(void)state;
	tg_trace *t = mixed_trace(61);
	tg_tree *tree;
	assert_int_equal(tg_tree_build(&tree, t), 0);
	for (unsigned with = 0; with <= TG_SKEL_PYTHON; with++) {
		tg_skeleton *sk;
		assert_int_equal(tg_skeleton_build(&sk, tree, with), 0);
		size_t n, ne;
		const tg_skel_node *x = tg_skeleton_nodes(sk, &n);
		tg_trace_events(t, &ne);
		assert_int_equal(n, with ? ne : ne - 40 - 30); /* 40 python levels, 30 python leaves */
		size_t under_one = 0;
		for (size_t i = 0; i < n; i++) {
			uint32_t p = tg_tree_parent(tree, tg_skeleton_event(sk, i));
			while (p != TG_NONE && tg_skeleton_find(sk, p) == TG_NONE)
				p = tg_tree_parent(tree, p);
			assert_int_equal(x[i].parent, p == TG_NONE ? TG_NONE : tg_skeleton_find(sk, p));
			under_one += p != TG_NONE;
		}
		assert_int_equal(under_one, n - 2); /* the chain's root and the last op */
		tg_skeleton_free(sk);
	}
	tg_tree_free(tree);
	tg_trace_free(t);
}

/* Events dense in their words of bits (every bit of a word set, a word
 * with one bit in each byte, runs broken by gaps): each node's event
 * selected back, the rank of every bit of every byte, and each found. */
static void test_skeleton_events_dense(void **state)
{
	(void)state;
	enum { N = 400, NEV = 1000 };
	tg_atoms *a = tg_atoms_new();
	uint32_t id;
	assert_int_equal(tg_atoms_intern(&id, a, "aten::mm", 8), 0);
	tg_skel_entry *x = calloc(N, sizeof(*x));
	uint32_t ev[N];
	size_t n = 0;
	for (uint32_t e = 0; e < NEV && n < N; e++) {
		int held = e < 128 || (e < 192 && e % 8 == 7) || (e >= 192 && e % 5 != 2 && e % 13 != 0);
		if (held)
			ev[n++] = e;
	}
	assert_int_equal(n, N);
	for (size_t i = 0; i < N; i++)
		x[i] = (tg_skel_entry){.ts = (int64_t)i, .dur = 1, .event = ev[i], .parent = TG_NONE, .kind = TG_KIND_CPU_OP};
	tg_skeleton *s;
	assert_int_equal(tg_skeleton_adopt(&s, x, N, NEV, a, 0, "t"), 0);
	for (size_t i = 0; i < N; i++) {
		assert_int_equal(tg_skeleton_event(s, i), ev[i]);
		assert_int_equal(tg_skeleton_find(s, ev[i]), i);
	}
	assert_int_equal(tg_skeleton_event(s, 63), 63);
	assert_int_equal(tg_skeleton_event(s, 128), 135);
	assert_int_equal(tg_skeleton_event(s, 135), 191);
	tg_skeleton_free(s);
}

/* Starts and events of a skeleton read back through their compact forms:
 * a start 2^32 - 1 ns or more past its block's least start held whole (in
 * the first block and in the second, negative starts too), the events
 * sparse over several words of bits and selected past a block of 64 nodes,
 * an event that is not held not found. */
static void test_skeleton_starts_events(void **state)
{
	(void)state;
	enum { N = 200, NEV = 5000 };
	tg_atoms *a = tg_atoms_new();
	uint32_t id;
	assert_int_equal(tg_atoms_intern(&id, a, "aten::mm", 8), 0);
	tg_skel_entry *x = calloc(N, sizeof(*x));
	int64_t ts[N];
	uint32_t ev[N];
	for (int i = 0; i < N; i++) {
		ts[i] = (int64_t)i * 1000 - 50000;
		ev[i] = (uint32_t)(i * 23 + (i % 7));
	}
	ts[3] = (int64_t)1 << 40;           /* wide in block 0 */
	ts[70] = -((int64_t)1 << 35);        /* block 1's base: its others wide */
	ts[199] = INT64_MAX - 5;             /* wide in the last block */
	for (int i = 0; i < N; i++)
		x[i] = (tg_skel_entry){.ts = ts[i], .dur = 1, .event = ev[i], .parent = TG_NONE, .kind = TG_KIND_CPU_OP};
	tg_skeleton *s;
	tg_test_must(tg_skeleton_adopt(&s, x, N, NEV, a, 0, "t"));
	size_t n;
	const tg_skel_node *y = tg_skeleton_nodes(s, &n);
	assert_int_equal(n, N);
	for (size_t i = 0; i < N; i++) {
		assert_int_equal(tg_skeleton_ts(s, i), ts[i]);
		assert_int_equal(tg_skeleton_event(s, i), ev[i]);
		assert_int_equal(tg_skeleton_find(s, ev[i]), i);
		assert_int_equal(tg_skeleton_find(s, ev[i] + 1), TG_NONE);
	}
	assert_int_equal(y[3].ts, TG_SKEL_WIDE_TS);
	assert_int_equal(y[70].ts, 0);
	assert_int_equal(y[71].ts, TG_SKEL_WIDE_TS);
	assert_int_equal(y[199].ts, TG_SKEL_WIDE_TS);
	assert_int_equal(y[5].ts, 5000);
	/* the order by start sees the whole starts */
	const uint32_t *by = tg_skeleton_by_start(s);
	assert_int_equal(by[0], 70);
	assert_int_equal(by[1], 0);
	assert_int_equal(by[N - 2], 3);
	assert_int_equal(by[N - 1], 199);
	tg_skeleton_free(s);
}

/* Nodes of every shape the coding predicts or escapes: host chains deeper
 * than its steps up (a parent 20 up), parents later than their node, roots,
 * device nodes (linked or not) whose launches go back and forth, starts 2^32
 * ns or more from their block's (held whole) and negative, durations past
 * 32 bits (held whole), names repeating with a period and
 * breaking it. */
static tg_skel_entry *odd_nodes(size_t n, tg_atoms *a)
{
	tg_skel_entry *x = calloc(n, sizeof(*x));
	assert_non_null(x);
	const char *names[] = {"aten::mm", "aten::add", "cudaLaunchKernel", "gemm_kernel", "nccl", "aten::linear"};
	uint32_t id[6];
	for (int k = 0; k < 6; k++)
		assert_int_equal(tg_atoms_intern(&id[k], a, names[k], strlen(names[k])), 0);
	for (size_t i = 0; i < n; i++) {
		int dev = i % 7 == 6;
		x[i].event = (uint32_t)(i * 3 + i % 3);
		x[i].kind = dev ? TG_KIND_KERNEL : i % 5 == 2 ? TG_KIND_RUNTIME : TG_KIND_CPU_OP;
		x[i].linked = dev && i % 3 == 0;
		x[i].name = id[(i * 7 / 5 + (i % 97 == 0)) % 6];
		x[i].ts = (int64_t)i * 9000 + (int64_t)(i * 2654435761u % 7000) - 300000;
		x[i].dur = (int64_t)(i * 40503u % 20000);
		x[i].parent = i % 4 == 0 ? TG_NONE : (uint32_t)(i - 1 - i % 3);
		if (dev)
			x[i].parent = (uint32_t)(i % 2 ? i - 3 : i > 50 ? i - 50 : TG_NONE);
	}
	for (size_t i = 0; i < 30; i++) /* a chain of 30 host nodes: a parent 20 steps up */
		x[600 + i].parent = (uint32_t)(600 + i - 1);
	for (size_t i = 600; i < 630; i++)
		x[i].kind = TG_KIND_CPU_OP;
	x[630].kind = TG_KIND_CPU_OP;
	x[630].parent = 609;
	x[700].parent = 900; /* later than its node */
	x[701].parent = 702;
	x[702].parent = 900;
	x[700].kind = x[701].kind = x[702].kind = TG_KIND_CPU_OP;
	x[10].ts = (int64_t)1 << 40;      /* held whole */
	x[130].ts = -((int64_t)1 << 36);  /* block 2's base: the others in it whole */
	x[20].dur = (int64_t)1 << 35;     /* held whole */
	x[22].dur = UINT32_MAX;
	x[n - 1].ts = INT64_MAX - 10;
	return x;
}

/* A skeleton held compact (tg_skeleton_compact) and given back
 * (tg_skeleton_expand): the same node bytes, starts, durations and events;
 * its nodes NULL and its bytes under half while compact (the
 * generated trace's: test_rundata); an empty
 * skeleton; a skeleton compact already, or not compact, left as it is. */
static void test_compact(void **state)
{
	(void)state;
	enum { N = 1000, NEV = 3100 };
	tg_atoms *a = tg_atoms_new();
	tg_skel_entry *x = odd_nodes(N, a);
	tg_skel_entry *keep = malloc(N * sizeof(*keep));
	memcpy(keep, x, N * sizeof(*keep));
	tg_skeleton *s;
	tg_test_must(tg_skeleton_adopt(&s, x, N, NEV, a, 0, "t"));
	size_t n;
	const tg_skel_node *y = tg_skeleton_nodes(s, &n);
	tg_skel_node *copy = malloc(N * sizeof(*copy));
	memcpy(copy, y, N * sizeof(*copy));
	assert_int_equal(y[10].ts, TG_SKEL_WIDE_TS);
	assert_int_equal(y[20].dur, TG_SKEL_WIDE_DUR);
	assert_int_equal(tg_skeleton_mem_bytes(s), N * sizeof(tg_skel_node));
	assert_int_equal(tg_skeleton_expand(s), 0); /* not compact: as it is */
	assert_ptr_equal(tg_skeleton_nodes(s, &n), y);
	assert_false(tg_skeleton_compacted(s));
	for (int round = 0; round < 2; round++) {
		assert_int_equal(tg_skeleton_compact(s), 0);
		assert_true(tg_skeleton_compacted(s));
		assert_null(tg_skeleton_nodes(s, &n));
		assert_int_equal(n, N);
		uint64_t held = tg_skeleton_mem_bytes(s);
		assert_true(held * 2 < N * sizeof(tg_skel_node)); /* starts and durations of 13-15 random bits */
		assert_int_equal(tg_skeleton_compact(s), 0); /* compact already */
		assert_int_equal(tg_skeleton_mem_bytes(s), held);
		assert_int_equal(tg_skeleton_find(s, keep[5].event), 5); /* its events read as before */
		assert_int_equal(tg_skeleton_expand(s), 0);
		assert_false(tg_skeleton_compacted(s));
		y = tg_skeleton_nodes(s, &n);
		assert_memory_equal(y, copy, N * sizeof(*copy));
		for (size_t i = 0; i < N; i++) {
			assert_int_equal(tg_skeleton_ts(s, i), keep[i].ts);
			assert_int_equal(tg_skeleton_dur(s, i), keep[i].dur);
			assert_int_equal(tg_skeleton_event(s, i), keep[i].event);
			assert_int_equal(y[i].parent, keep[i].parent);
		}
	}
	assert_int_equal(tg_skeleton_compact(s), 0);
	tg_skeleton_free(s); /* compact: its stream freed */
	tg_atoms *b = tg_atoms_new();
	assert_int_equal(tg_skeleton_adopt(&s, calloc(1, sizeof(tg_skel_entry)), 0, 0, b, 0, "t"), 0);
	assert_int_equal(tg_skeleton_compact(s), 0);
	assert_int_equal(tg_skeleton_expand(s), 0);
	tg_skeleton_nodes(s, &n);
	assert_int_equal(n, 0);
	tg_skeleton_free(s);
	free(keep);
	free(copy);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sort_nodes),
		cmocka_unit_test(test_order_in_place),
		cmocka_unit_test(test_deep_chain),
		cmocka_unit_test(test_build_parents),
		cmocka_unit_test(test_skeleton_events_dense),
		cmocka_unit_test(test_skeleton_starts_events),
		cmocka_unit_test(test_compact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
