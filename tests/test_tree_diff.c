/* test_tree_diff.c - the morphological alignment of two event trees: small
 * traces written here for each kind of change (identical, swapped kernel,
 * split kernel, new op, removed op, reordered ops, same-name ops, hex
 * addresses, CUDA graph launches), name normalization, the printed merged
 * tree, and the real reference pairs against TraceLens's TraceDiff outputs
 * (LCA count, rows per side, busy time and kernels per LCA, the merged
 * tree byte for byte); a diff from a base side made beforehand
 * (tg_tree_diff_build_from) is the diff built from both skeletons. */
#include "testutil.h"

#include "../core/diff/skeleton.h"
#include "../core/diff/tree_diff.h"

#include <time.h>
#include <zlib.h>

/* ------------------------------------------------------------------ */
/* a small trace builder: host time advances as events are added; each   */
/* kernel gets a launch call, a correlation id and an ac2g flow           */

struct tb {
	char *s;
	size_t n, cap;
	int64_t t;     /* host cursor, us */
	int64_t gpu_t; /* device cursor, us */
	int corr;
	int pyid;
	int64_t st_ts[32];
	char st_name[32][96];
	int st_py[32];
	int st_id[32];
	int depth;
};

static void tb_put(struct tb *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int need = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (b->n + (size_t)need + 1 > b->cap) {
		b->cap = (b->n + (size_t)need + 1) * 2;
		b->s = realloc(b->s, b->cap);
		assert_non_null(b->s);
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->n, (size_t)need + 1, fmt, ap);
	va_end(ap);
	b->n += (size_t)need;
}

static void tb_init(struct tb *b, int step)
{
	memset(b, 0, sizeof(*b));
	b->t = 1000;
	b->gpu_t = 5000;
	b->corr = 100;
	tb_put(b, "{\"traceEvents\": [\n");
	tb_put(b, "{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%d\", \"pid\": 1, \"tid\": 1, "
	          "\"ts\": 900, \"dur\": 100000},\n",
	       step);
}

/* A cpu_op (py = 0) or python_function (py = 1) opens. */
static void tb_begin(struct tb *b, const char *name, int py)
{
	assert_true(b->depth < 32);
	b->st_ts[b->depth] = b->t;
	snprintf(b->st_name[b->depth], sizeof(b->st_name[0]), "%s", name);
	b->st_py[b->depth] = py;
	if (py)
		b->st_id[b->depth] = ++b->pyid;
	b->depth++;
	b->t += 1;
}

static void tb_end(struct tb *b)
{
	b->depth--;
	int d = b->depth;
	b->t += 1;
	if (b->st_py[d]) {
		int parent = 0;
		for (int k = d - 1; k >= 0 && !parent; k--)
			if (b->st_py[k])
				parent = b->st_id[k];
		char pp[16];
		if (parent)
			snprintf(pp, sizeof(pp), "%d", parent);
		else
			snprintf(pp, sizeof(pp), "null");
		tb_put(b, "{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"%s\", \"pid\": 1, \"tid\": 1, "
		          "\"ts\": %lld, \"dur\": %lld, \"args\": {\"Python id\": %d, \"Python parent id\": %s}},\n",
		       b->st_name[d], (long long)b->st_ts[d], (long long)(b->t - b->st_ts[d]), b->st_id[d], pp);
	} else {
		tb_put(b, "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"%s\", \"pid\": 1, \"tid\": 1, \"ts\": %lld, "
		          "\"dur\": %lld},\n",
		       b->st_name[d], (long long)b->st_ts[d], (long long)(b->t - b->st_ts[d]));
	}
	b->t += 1;
}

/* A launch of one kernel of dur us at device time at (< 0: after the
 * previous one) on stream. */
static void tb_kernel_at(struct tb *b, const char *name, int64_t at, int64_t dur, int stream)
{
	int c = ++b->corr;
	int64_t ts = at >= 0 ? at : b->gpu_t;
	tb_put(b, "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1, \"tid\": 1, "
	          "\"ts\": %lld, \"dur\": 2, \"args\": {\"correlation\": %d}},\n",
	       (long long)b->t, c);
	tb_put(b, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": %d, \"ts\": %lld, "
	          "\"dur\": %lld, \"args\": {\"correlation\": %d, \"stream\": %d}},\n",
	       name, stream, (long long)ts, (long long)dur, c, stream);
	tb_put(b, "{\"ph\": \"s\", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"id\": %d, \"pid\": 1, \"tid\": 1, \"ts\": %lld},\n", c,
	       (long long)b->t);
	tb_put(b, "{\"ph\": \"f\", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"id\": %d, \"pid\": 0, \"tid\": %d, \"ts\": %lld, "
	          "\"bp\": \"e\"},\n",
	       c, stream, (long long)ts);
	if (ts + dur + 1 > b->gpu_t)
		b->gpu_t = ts + dur + 1;
	b->t += 3;
}

static void tb_kernel(struct tb *b, const char *name, int64_t dur) { tb_kernel_at(b, name, -1, dur, 7); }

/* A cpu_op launching one kernel. */
static void tb_op(struct tb *b, const char *op, const char *kernel, int64_t dur)
{
	tb_begin(b, op, 0);
	tb_kernel(b, kernel, dur);
	tb_end(b);
}

/* A cudaGraphLaunch of n kernels of 10 us each, all with its correlation. */
static void tb_graph(struct tb *b, const char *const *kernels, int n)
{
	int c = ++b->corr;
	tb_put(b, "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaGraphLaunch\", \"pid\": 1, \"tid\": 1, "
	          "\"ts\": %lld, \"dur\": 5, \"args\": {\"correlation\": %d}},\n",
	       (long long)b->t, c);
	for (int k = 0; k < n; k++) {
		tb_put(b, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"%s\", \"pid\": 0, \"tid\": 7, \"ts\": %lld, "
		          "\"dur\": 10, \"args\": {\"correlation\": %d, \"stream\": 7}},\n",
		       kernels[k], (long long)b->gpu_t, c);
		b->gpu_t += 11;
	}
	b->t += 6;
}

static tg_trace *tb_finish(struct tb *b)
{
	assert_int_equal(b->depth, 0);
	tb_put(b, "{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"name\": \"end\", \"pid\": 1, \"tid\": 1, \"ts\": 1}\n]}\n");
	tg_trace *t = tg_test_read_str(b->s);
	free(b->s);
	b->s = NULL;
	return t;
}

/* Both sides of a diff, built and aligned. */
struct pair {
	tg_trace *t[2];
	tg_tree *tree[2];
	tg_tree_diff *d;
};

static void pair_diff(struct pair *p, struct tb *base, struct tb *next, const tg_tree_diff_opts *o)
{
	p->t[0] = tb_finish(base);
	p->t[1] = tb_finish(next);
	for (int s = 0; s < 2; s++)
		assert_int_equal(tg_tree_build(&p->tree[s], p->t[s]), 0);
	assert_int_equal(tg_tree_diff_build(&p->d, p->tree[0], p->tree[1], o), 0);
}

static void pair_free(struct pair *p)
{
	tg_tree_diff_free(p->d);
	for (int s = 0; s < 2; s++) {
		tg_tree_free(p->tree[s]);
		tg_trace_free(p->t[s]);
	}
}

static const char *ev_name(const struct pair *p, int side, uint32_t ev)
{
	size_t n;
	return tg_trace_str(p->t[side], tg_trace_events(p->t[side], &n)[ev].name);
}

static char *label(const struct pair *p, uint32_t node)
{
	static char buf[512];
	tg_tree_diff_label(buf, sizeof(buf), p->d, node);
	return buf;
}

/* Every device event matched or in exactly one LCA. */
static void assert_accounted(const struct pair *p)
{
	const tg_tree_diff_stats *s = tg_tree_diff_stats_get(p->d);
	for (int k = 0; k < 2; k++) {
		assert_int_equal(s->unaccounted[k], 0);
		assert_int_equal(s->matched[k] + s->in_lca[k], s->gpu[k]);
	}
	size_t nl;
	const tg_diff_lca *L = tg_tree_diff_lcas(p->d, &nl);
	for (size_t l = 0; l < nl; l++) {
		for (size_t k = 0; k < L[l].nbase; k++) {
			assert_int_equal(tg_tree_diff_lca_of(p->d, TG_DIFF_SIDE_BASE, L[l].base_gpu[k]), l);
			assert_int_equal(tg_tree_diff_match(p->d, TG_DIFF_SIDE_BASE, L[l].base_gpu[k]), TG_NONE);
		}
		for (size_t k = 0; k < L[l].nnew; k++)
			assert_int_equal(tg_tree_diff_lca_of(p->d, TG_DIFF_SIDE_NEW, L[l].new_gpu[k]), l);
	}
}

/* A layer of four ops, as in a transformer block. */
static void block(struct tb *b, int variant)
{
	tb_begin(b, "aten::linear", 0);
	tb_op(b, "aten::addmm", "gemm_kernel", 50);
	tb_end(b);
	switch (variant) {
	case 0: tb_op(b, "aten::_flash_attention_forward", "flash_fwd_kernel", 100); break;
	case 1: tb_op(b, "aten::_flash_attention_forward", "flash_fwd_kernel_v2", 80); break;
	case 2:
		tb_begin(b, "aten::_flash_attention_forward", 0);
		tb_kernel(b, "flash_fwd_splitkv_kernel", 60);
		tb_kernel(b, "flash_fwd_combine_kernel", 30);
		tb_end(b);
		break;
	case 3:
		/* split, the two halves overlapping on two streams */
		tb_begin(b, "aten::_flash_attention_forward", 0);
		tb_kernel_at(b, "flash_fwd_splitkv_kernel", b->gpu_t, 60, 7);
		tb_kernel_at(b, "flash_fwd_combine_kernel", b->gpu_t - 61 + 40, 30, 8);
		tb_end(b);
		break;
	default: break;
	}
	tb_op(b, "aten::add", "add_kernel", 10);
}

/* ------------------------------------------------------------------ */

static void test_normalize(void **state)
{
	(void)state;
	char buf[256];
	tg_diff_normalize_name(buf, sizeof(buf), "void k<0x7f3a12>(float*) at 0xDEADbeef", 0);
	assert_string_equal(buf, "void k<0xXXXX>(float*) at 0xXXXX");
	tg_diff_normalize_name(buf, sizeof(buf), "models/x.py(123): forward", 0);
	assert_string_equal(buf, "models/x.py: forward");
	tg_diff_normalize_name(buf, sizeof(buf), "models/x.py(123): forward", 1);
	assert_string_equal(buf, "x.py");
	tg_diff_normalize_name(buf, sizeof(buf), "a: b: c", 1);
	assert_string_equal(buf, "a: b");
	tg_diff_normalize_name(buf, sizeof(buf), "0x", 0);
	assert_string_equal(buf, "0x");
	tg_diff_normalize_name(buf, sizeof(buf), "f.py(): g", 0);
	assert_string_equal(buf, "f.py(): g");
	tg_diff_normalize_name(buf, sizeof(buf), "cuLaunchKernel", 0);
	assert_string_equal(buf, "__kernel_launch__");
	tg_diff_normalize_name(buf, sizeof(buf), "hipModuleLaunchKernel", 1);
	assert_string_equal(buf, "__kernel_launch__");
	assert_int_equal(tg_diff_normalize_name(buf, 4, "abcdef", 0), 6);
	assert_string_equal(buf, "abc");
}

static void test_identical(void **state)
{
	(void)state;
	struct tb a, b;
	tb_init(&a, 5);
	tb_init(&b, 12); /* other step numbers: annotations are not compared */
	for (int i = 0; i < 3; i++) {
		block(&a, 0);
		block(&b, 0);
	}
	struct pair p;
	pair_diff(&p, &a, &b, NULL);
	size_t nl, nn;
	tg_tree_diff_lcas(p.d, &nl);
	assert_int_equal(nl, 0);
	const tg_tree_diff_stats *s = tg_tree_diff_stats_get(p.d);
	assert_int_equal(s->gpu[0], 9);
	assert_int_equal(s->matched[0], 9);
	assert_int_equal(s->matched[1], 9);
	assert_accounted(&p);
	/* every kernel's counterpart has its name, in the same order */
	size_t ne;
	const tg_event *ev = tg_trace_events(p.t[0], &ne);
	int64_t prev_ts = -1;
	for (size_t i = 0; i < ne; i++) {
		if (!tg_kind_is_gpu(ev[i].kind))
			continue;
		uint32_t m = tg_tree_diff_match(p.d, TG_DIFF_SIDE_BASE, (uint32_t)i);
		assert_int_not_equal(m, TG_NONE);
		assert_string_equal(ev_name(&p, 1, m), ev_name(&p, 0, (uint32_t)i));
		assert_int_equal(tg_tree_diff_match(p.d, TG_DIFF_SIDE_NEW, m), i);
		assert_int_equal(tg_tree_diff_lca_of(p.d, TG_DIFF_SIDE_BASE, (uint32_t)i), TG_NONE);
		size_t n2;
		int64_t ts = tg_trace_events(p.t[1], &n2)[m].ts;
		assert_true(ts > prev_ts);
		prev_ts = ts;
	}
	/* no node diverges, none is one-sided */
	const tg_diff_node *nodes = tg_tree_diff_nodes(p.d, &nn);
	for (size_t i = 0; i < nn; i++) {
		assert_int_equal(nodes[i].side, TG_DIFF_BOTH);
		assert_false(nodes[i].diverges);
	}
	/* roots: 3 blocks of 3 top-level ops */
	assert_int_equal(s->roots[0], 9);
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	tg_diff_print_opts po = {.only_diffs = 1};
	assert_int_equal(tg_tree_diff_print(f, p.d, &po), 0);
	fclose(f);
	assert_string_equal(out, "(no divergence: every GPU event matched)\n");
	free(out);
	/* made lean (the gate's, tg_tree_diff_lean): no merged tree, no
	 * skeletons; the matches, LCAs and stats as before */
	uint32_t k0 = TG_NONE, m0 = TG_NONE;
	for (size_t i = 0; i < ne && k0 == TG_NONE; i++)
		if (tg_kind_is_gpu(ev[i].kind))
			m0 = tg_tree_diff_match(p.d, TG_DIFF_SIDE_BASE, k0 = (uint32_t)i);
	assert_int_not_equal(tg_tree_diff_event_node(p.d, TG_DIFF_SIDE_BASE, k0), TG_NONE);
	assert_int_equal(tg_tree_diff_lean(p.d), 1);
	assert_int_equal(tg_tree_diff_lean(p.d), 1); /* twice: nothing left to free */
	tg_tree_diff_nodes(p.d, &nn);
	assert_int_equal(nn, 0);
	assert_null(tg_tree_diff_skeleton(p.d, TG_DIFF_SIDE_BASE));
	assert_null(tg_tree_diff_skeleton(p.d, TG_DIFF_SIDE_NEW));
	assert_int_equal(tg_tree_diff_event_node(p.d, TG_DIFF_SIDE_BASE, k0), TG_NONE);
	assert_int_equal(tg_tree_diff_match(p.d, TG_DIFF_SIDE_BASE, k0), m0);
	assert_int_equal(tg_tree_diff_match(p.d, TG_DIFF_SIDE_NEW, m0), k0);
	assert_int_equal(tg_tree_diff_stats_get(p.d)->matched[0], 9);
	tg_tree_diff_lcas(p.d, &nl);
	assert_int_equal(nl, 0);
	f = open_memstream(&out, &len);
	assert_int_equal(tg_tree_diff_print(f, p.d, &po), TG_EINVAL);
	fclose(f);
	free(out);
	pair_free(&p);
}

static void test_swapped_kernel(void **state)
{
	(void)state;
	struct tb a, b;
	tb_init(&a, 1);
	tb_init(&b, 1);
	block(&a, 0);
	block(&b, 1);
	struct pair p;
	pair_diff(&p, &a, &b, NULL);
	size_t nl;
	const tg_diff_lca *L = tg_tree_diff_lcas(p.d, &nl);
	assert_int_equal(nl, 1);
	/* the launch names its kernel: the divergence is at the op */
	assert_string_equal(label(&p, L[0].node), "aten::_flash_attention_forward");
	assert_int_equal(L[0].nbase, 1);
	assert_int_equal(L[0].nnew, 1);
	assert_string_equal(ev_name(&p, 0, L[0].base_gpu[0]), "flash_fwd_kernel");
	assert_string_equal(ev_name(&p, 1, L[0].new_gpu[0]), "flash_fwd_kernel_v2");
	assert_int_equal(L[0].base_busy_ns, 100000);
	assert_int_equal(L[0].new_busy_ns, 80000);
	assert_int_equal(L[0].base_sum_ns, 100000);
	assert_accounted(&p);
	assert_int_equal(tg_tree_diff_stats_get(p.d)->matched[0], 2);
	/* a diff with LCAs is not made lean: its merged tree stays */
	size_t n0, n1;
	tg_tree_diff_nodes(p.d, &n0);
	assert_int_equal(tg_tree_diff_lean(p.d), 0);
	assert_non_null(tg_tree_diff_nodes(p.d, &n1));
	assert_int_equal(n1, n0);
	assert_non_null(tg_tree_diff_skeleton(p.d, TG_DIFF_SIDE_BASE));
	assert_string_equal(label(&p, L[0].node), "aten::_flash_attention_forward");
	pair_free(&p);

	/* TraceLens pairs the two launches and then the two kernels: the LCA
	 * is the kernel pair itself */
	tb_init(&a, 1);
	tb_init(&b, 1);
	block(&a, 0);
	block(&b, 1);
	tg_tree_diff_opts o = tg_tree_diff_opts_tracelens();
	pair_diff(&p, &a, &b, &o);
	L = tg_tree_diff_lcas(p.d, &nl);
	assert_int_equal(nl, 1);
	assert_string_equal(label(&p, L[0].node), "combined: flash_fwd_kernel | flash_fwd_kernel_v2");
	size_t nn;
	const tg_diff_node *nodes = tg_tree_diff_nodes(p.d, &nn);
	assert_true(nodes[L[0].node].diverges);
	assert_string_equal(label(&p, nodes[L[0].node].parent), "cudaLaunchKernel");
	assert_int_equal(L[0].nbase, 1);
	assert_int_equal(L[0].nnew, 1);
	assert_accounted(&p);
	pair_free(&p);
}

static void test_split_kernel(void **state)
{
	(void)state;
	for (int variant = 2; variant <= 3; variant++) {
		struct tb a, b;
		tb_init(&a, 1);
		tb_init(&b, 1);
		block(&a, 0);
		block(&a, 0);
		block(&b, 0);
		block(&b, variant);
		struct pair p;
		pair_diff(&p, &a, &b, NULL);
		size_t nl;
		const tg_diff_lca *L = tg_tree_diff_lcas(p.d, &nl);
		assert_int_equal(nl, 1);
		assert_string_equal(label(&p, L[0].node), "aten::_flash_attention_forward");
		assert_int_equal(L[0].nbase, 1);
		assert_int_equal(L[0].nnew, 2);
		assert_string_equal(ev_name(&p, 1, L[0].new_gpu[0]), "flash_fwd_splitkv_kernel");
		assert_string_equal(ev_name(&p, 1, L[0].new_gpu[1]), "flash_fwd_combine_kernel");
		assert_int_equal(L[0].base_busy_ns, 100000);
		assert_int_equal(L[0].new_sum_ns, 90000);
		/* back to back: 90 us busy; overlapping by 20 us: 70 us */
		assert_int_equal(L[0].new_busy_ns, variant == 2 ? 90000 : 70000);
		/* the second block's op, not the first's */
		size_t nn;
		const tg_diff_node *nodes = tg_tree_diff_nodes(p.d, &nn);
		uint32_t first_fa = tg_test_find(p.t[0], "aten::_flash_attention_forward", TG_KIND_CPU_OP);
		assert_int_not_equal(nodes[L[0].node].base_ev, first_fa);
		assert_accounted(&p);
		assert_int_equal(tg_tree_diff_stats_get(p.d)->matched[0], 5);
		pair_free(&p);
	}
}

static void layer(struct tb *b, int variant)
{
	tb_begin(b, "nn.Module: Block_0", 1);
	tb_op(b, "aten::mm", "gemm_kernel", 40);
	if (variant == 1)
		tb_op(b, "aten::gelu", "gelu_kernel", 7);
	tb_op(b, "aten::add", "add_kernel", 10);
	tb_end(b);
}

static void test_new_and_removed_op(void **state)
{
	(void)state;
	for (int dir = 0; dir < 2; dir++)
		for (int py = 0; py < 2; py++) {
			struct tb a, b;
			tb_init(&a, 1);
			tb_init(&b, 1);
			layer(&a, 0);
			layer(&a, dir == 0 ? 0 : 1);
			layer(&b, 0);
			layer(&b, dir == 0 ? 1 : 0);
			tg_tree_diff_opts o = {.keep_python = py};
			struct pair p;
			pair_diff(&p, &a, &b, &o);
			size_t nl;
			const tg_diff_lca *L = tg_tree_diff_lcas(p.d, &nl);
			assert_int_equal(nl, 1);
			/* with python frames the layer is the LCA; without, the ops
			 * are roots and the virtual root is */
			assert_string_equal(label(&p, L[0].node), py ? "nn.Module: Block_0" : "(root)");
			assert_int_equal(L[0].nbase, dir == 0 ? 0 : 1);
			assert_int_equal(L[0].nnew, dir == 0 ? 1 : 0);
			const uint32_t *g = dir == 0 ? L[0].new_gpu : L[0].base_gpu;
			assert_string_equal(ev_name(&p, dir == 0 ? 1 : 0, g[0]), "gelu_kernel");
			assert_int_equal(dir == 0 ? L[0].new_busy_ns : L[0].base_busy_ns, 7000);
			assert_int_equal(dir == 0 ? L[0].base_busy_ns : L[0].new_busy_ns, 0);
			if (py) {
				/* the second layer, not the first */
				size_t nn;
				const tg_diff_node *nodes = tg_tree_diff_nodes(p.d, &nn);
				uint32_t first = tg_test_find(p.t[0], "nn.Module: Block_0", TG_KIND_PYTHON);
				assert_int_not_equal(nodes[L[0].node].base_ev, first);
			}
			assert_accounted(&p);
			assert_int_equal(tg_tree_diff_stats_get(p.d)->matched[0], 4);
			pair_free(&p);
		}
}

static void test_reordered_ops(void **state)
{
	(void)state;
	struct tb a, b;
	tb_init(&a, 1);
	tb_init(&b, 1);
	tb_begin(&a, "aten::layer_norm", 0);
	tb_op(&a, "aten::mm", "gemm_kernel", 40);
	tb_op(&a, "aten::add", "add_kernel", 10);
	tb_end(&a);
	tb_begin(&b, "aten::layer_norm", 0);
	tb_op(&b, "aten::add", "add_kernel", 12);
	tb_op(&b, "aten::mm", "gemm_kernel", 41);
	tb_end(&b);
	struct pair p;
	pair_diff(&p, &a, &b, NULL);
	size_t nl;
	tg_tree_diff_lcas(p.d, &nl);
	/* both kernels found again: no divergence */
	assert_int_equal(nl, 0);
	uint32_t mm = tg_test_find(p.t[0], "gemm_kernel", TG_KIND_KERNEL);
	uint32_t m = tg_tree_diff_match(p.d, TG_DIFF_SIDE_BASE, mm);
	assert_int_not_equal(m, TG_NONE);
	assert_string_equal(ev_name(&p, 1, m), "gemm_kernel");
	assert_accounted(&p);
	pair_free(&p);

	/* TraceLens pairs the ops by position: two LCAs, each op against the
	 * other */
	tb_init(&a, 1);
	tb_init(&b, 1);
	tb_begin(&a, "aten::layer_norm", 0);
	tb_op(&a, "aten::mm", "gemm_kernel", 40);
	tb_op(&a, "aten::add", "add_kernel", 10);
	tb_end(&a);
	tb_begin(&b, "aten::layer_norm", 0);
	tb_op(&b, "aten::add", "add_kernel", 12);
	tb_op(&b, "aten::mm", "gemm_kernel", 41);
	tb_end(&b);
	tg_tree_diff_opts o = tg_tree_diff_opts_tracelens();
	pair_diff(&p, &a, &b, &o);
	const tg_diff_lca *L = tg_tree_diff_lcas(p.d, &nl);
	assert_int_equal(nl, 2);
	assert_string_equal(label(&p, L[0].node), "combined: gemm_kernel | add_kernel");
	assert_string_equal(label(&p, L[1].node), "combined: add_kernel | gemm_kernel");
	assert_accounted(&p);
	pair_free(&p);
}

static void test_same_name_disambiguated(void **state)
{
	(void)state;
	/* base: two aten::copy_ (a memcpy-like kernel, then a cast); new: only
	 * the first. The edit distance alone pairs the new copy_ with the
	 * base's last; the subtree signature pairs it with the first. */
	struct tb a, b;
	tb_init(&a, 1);
	tb_init(&b, 1);
	tb_begin(&a, "aten::to", 0);
	tb_op(&a, "aten::copy_", "copy_kernel", 20);
	tb_op(&a, "aten::copy_", "cast_kernel", 5);
	tb_end(&a);
	tb_begin(&b, "aten::to", 0);
	tb_op(&b, "aten::copy_", "copy_kernel", 21);
	tb_end(&b);
	struct pair p;
	pair_diff(&p, &a, &b, NULL);
	size_t nl;
	const tg_diff_lca *L = tg_tree_diff_lcas(p.d, &nl);
	assert_int_equal(nl, 1);
	assert_string_equal(label(&p, L[0].node), "aten::to");
	assert_int_equal(L[0].nbase, 1);
	assert_int_equal(L[0].nnew, 0);
	assert_string_equal(ev_name(&p, 0, L[0].base_gpu[0]), "cast_kernel");
	uint32_t copy = tg_test_find(p.t[0], "copy_kernel", TG_KIND_KERNEL);
	assert_int_not_equal(tg_tree_diff_match(p.d, TG_DIFF_SIDE_BASE, copy), TG_NONE);
	assert_accounted(&p);
	pair_free(&p);

	/* the same in TraceLens's mode (launches by name): the signature looks
	 * two levels down, at the kernels */
	tb_init(&a, 1);
	tb_init(&b, 1);
	tb_begin(&a, "aten::to", 0);
	tb_op(&a, "aten::copy_", "copy_kernel", 20);
	tb_op(&a, "aten::copy_", "cast_kernel", 5);
	tb_end(&a);
	tb_begin(&b, "aten::to", 0);
	tb_op(&b, "aten::copy_", "copy_kernel", 21);
	tb_end(&b);
	tg_tree_diff_opts o = tg_tree_diff_opts_tracelens();
	pair_diff(&p, &a, &b, &o);
	L = tg_tree_diff_lcas(p.d, &nl);
	assert_int_equal(nl, 1);
	assert_string_equal(label(&p, L[0].node), "aten::to");
	assert_string_equal(ev_name(&p, 0, L[0].base_gpu[0]), "cast_kernel");
	pair_free(&p);
}

static void test_hex_names(void **state)
{
	(void)state;
	struct tb a, b;
	tb_init(&a, 1);
	tb_init(&b, 1);
	tb_op(&a, "triton_op at 0x7f3a00", "triton_poi_fused_0x7f3a12", 30);
	tb_op(&a, "aten::add", "add_kernel", 10);
	tb_op(&b, "triton_op at 0x55ab00", "triton_poi_fused_0x55ab99", 35);
	tb_op(&b, "aten::add", "add_kernel", 10);
	struct pair p;
	pair_diff(&p, &a, &b, NULL);
	size_t nl;
	tg_tree_diff_lcas(p.d, &nl);
	assert_int_equal(nl, 0);
	uint32_t k = tg_test_find(p.t[0], "triton_poi_fused_0x7f3a12", TG_KIND_KERNEL);
	uint32_t m = tg_tree_diff_match(p.d, TG_DIFF_SIDE_BASE, k);
	assert_int_not_equal(m, TG_NONE);
	assert_string_equal(ev_name(&p, 1, m), "triton_poi_fused_0x55ab99");
	/* printed with both raw names */
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	assert_int_equal(tg_tree_diff_print(f, p.d, NULL), 0);
	fclose(f);
	assert_non_null(strstr(out, "combined: triton_op at 0x7f3a00 | triton_op at 0x55ab00\n"));
	assert_non_null(strstr(out, "combined: triton_poi_fused_0x7f3a12 | triton_poi_fused_0x55ab99\n"));
	free(out);
	size_t nn;
	const tg_diff_node *nodes = tg_tree_diff_nodes(p.d, &nn);
	for (size_t i = 0; i < nn; i++)
		assert_false(nodes[i].diverges);
	pair_free(&p);
}

/* Names from a trace with control characters: the printed drawing shows
 * them as \xNN (a newline would break the one-node-a-line drawing, an
 * escape sequence would reach a terminal or a comment); labels stay raw. */
static void test_print_control_chars(void **state)
{
	(void)state;
	struct tb a, b;
	tb_init(&a, 1);
	tb_init(&b, 1);
	tb_op(&a, "aten::add", "add_kernel", 10);
	tb_op(&b, "aten::add", "add_kernel", 10);
	tb_op(&b, "evil\\u001b[31m\\nop\\u007f", "k\\u0007", 5);
	struct pair p;
	pair_diff(&p, &a, &b, NULL);
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	tg_diff_print_opts po = {.only_diffs = 1, .ascii = 1};
	assert_int_equal(tg_tree_diff_print(f, p.d, &po), 0);
	fclose(f);
	assert_non_null(strstr(out, "new:  evil\\x1b[31m\\x0aop\\x7f"));
	assert_non_null(strstr(out, "new:  k\\x07"));
	for (size_t i = 0; i < len; i++)
		assert_true(((unsigned char)out[i] >= 0x20 && (unsigned char)out[i] != 0x7f) || out[i] == '\n');
	free(out);
	size_t nn;
	tg_tree_diff_nodes(p.d, &nn);
	int raw = 0;
	for (size_t i = 0; i < nn; i++)
		raw |= !strcmp(label(&p, (uint32_t)i), "<< trace2: evil\x1b[31m\nop\x7f");
	assert_true(raw);
	pair_free(&p);
}

static void test_graph_launch(void **state)
{
	(void)state;
	static const char *const k3[] = {"graph_gemm", "graph_attn", "graph_norm"};
	static const char *const k3b[] = {"graph_gemm", "graph_attn_v2", "graph_norm"};
	static const char *const k4[] = {"graph_gemm", "graph_attn", "graph_norm", "graph_extra"};
	/* one kernel replaced inside the graph: the kernel pair diverges */
	struct tb a, b;
	tb_init(&a, 1);
	tb_init(&b, 1);
	tb_begin(&a, "vllm::forward", 0);
	tb_graph(&a, k3, 3);
	tb_end(&a);
	tb_begin(&b, "vllm::forward", 0);
	tb_graph(&b, k3b, 3);
	tb_end(&b);
	struct pair p;
	pair_diff(&p, &a, &b, NULL);
	size_t nl, nn;
	const tg_diff_lca *L = tg_tree_diff_lcas(p.d, &nl);
	const tg_diff_node *nodes = tg_tree_diff_nodes(p.d, &nn);
	assert_int_equal(nl, 1);
	assert_string_equal(label(&p, L[0].node), "combined: graph_attn | graph_attn_v2");
	assert_true(nodes[L[0].node].diverges);
	assert_string_equal(label(&p, nodes[L[0].node].parent), "cudaGraphLaunch");
	assert_int_equal(L[0].nbase, 1);
	assert_int_equal(L[0].nnew, 1);
	assert_int_equal(L[0].base_busy_ns, 10000);
	assert_int_equal(tg_tree_diff_stats_get(p.d)->matched[0], 2);
	assert_accounted(&p);
	pair_free(&p);

	/* one kernel more in the graph: the LCA is the graph launch */
	tb_init(&a, 1);
	tb_init(&b, 1);
	tb_begin(&a, "vllm::forward", 0);
	tb_graph(&a, k3, 3);
	tb_end(&a);
	tb_begin(&b, "vllm::forward", 0);
	tb_graph(&b, k4, 4);
	tb_end(&b);
	pair_diff(&p, &a, &b, NULL);
	L = tg_tree_diff_lcas(p.d, &nl);
	assert_int_equal(nl, 1);
	assert_string_equal(label(&p, L[0].node), "cudaGraphLaunch");
	assert_int_equal(L[0].nbase, 0);
	assert_int_equal(L[0].nnew, 1);
	assert_string_equal(ev_name(&p, 1, L[0].new_gpu[0]), "graph_extra");
	assert_int_equal(tg_tree_diff_stats_get(p.d)->matched[0], 3);
	assert_accounted(&p);

	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	assert_int_equal(tg_tree_diff_print(f, p.d, NULL), 0);
	fclose(f);
	/* the root descends into its single child when that is a graph launch
	 * (TraceLens's _get_top_level_root) */
	assert_string_equal(out, "└── cudaGraphLaunch\n"
	                         "    ├── graph_gemm\n"
	                         "    ├── graph_attn\n"
	                         "    ├── graph_norm\n"
	                         "    └── << trace2: graph_extra\n");
	free(out);
	pair_free(&p);
}

/* The comment's drawing: device events no op launched (the profiler window
 * cut their launch off) are one summary line at the top, not a line each,
 * and one-sided nodes read base / new. */
static void test_print_orphans_summarised(void **state)
{
	(void)state;
	struct tb a, b;
	tb_init(&a, 1);
	tb_init(&b, 1);
	block(&a, 0);
	block(&b, 0);
	for (int i = 0; i < 3; i++) {
		/* a kernel with no launch call and no flow: an orphan */
		tb_put(&b, "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"orphan_kernel\", \"pid\": 0, \"tid\": 7, "
		           "\"ts\": %lld, \"dur\": 10, \"args\": {\"stream\": 7}},\n",
		       (long long)(b.gpu_t + 20 * i));
	}
	struct pair p;
	pair_diff(&p, &a, &b, NULL);
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	tg_diff_print_opts po = {.only_diffs = 1, .context = 1, .ascii = 1};
	assert_int_equal(tg_tree_diff_print(f, p.d, &po), 0);
	fclose(f);
	assert_null(strstr(out, "orphan_kernel"));
	assert_null(strstr(out, "trace2"));
	assert_non_null(strstr(out, "`-- ... no launching op (launched before the profiled window, or GPU-only): "
	                            "base 0 device events 0.000 us, new 3 30.000 us\n"));
	free(out);
	pair_free(&p);
}

static void test_print_only_diffs(void **state)
{
	(void)state;
	struct tb a, b;
	tb_init(&a, 1);
	tb_init(&b, 1);
	for (int i = 0; i < 6; i++) {
		block(&a, 0);
		block(&b, i == 3 ? 2 : 0);
	}
	struct pair p;
	pair_diff(&p, &a, &b, NULL);
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	tg_diff_print_opts po = {.only_diffs = 1, .context = 1, .ascii = 1, .max_name = 16};
	assert_int_equal(tg_tree_diff_print(f, p.d, &po), 0);
	fclose(f);
	assert_string_equal(out, "|-- ... 9 matching\n"
	                         "|-- aten::linear\n"
	                         "|-- aten::_flash_att...  [LCA: base 1 kernel 100.000 us busy, new 2 kernels "
	                         "90.000 us busy]\n"
	                         "|   |-- base: cudaLaunchKernel\n"
	                         "|   |   `-- base: flash_fwd_kernel\n"
	                         "|   |-- new:  cudaLaunchKernel\n"
	                         "|   |   `-- new:  flash_fwd_splitk...\n"
	                         "|   `-- new:  cudaLaunchKernel\n"
	                         "|       `-- new:  flash_fwd_combin...\n"
	                         "|-- aten::add\n"
	                         "`-- ... 6 matching\n");
	free(out);
	/* line cap */
	out = NULL;
	f = open_memstream(&out, &len);
	po.max_lines = 2;
	assert_int_equal(tg_tree_diff_print(f, p.d, &po), 0);
	fclose(f);
	assert_non_null(strstr(out, "... 9 more lines\n"));
	free(out);
	pair_free(&p);
}

static void test_positional_roots(void **state)
{
	(void)state;
	/* an extra op at the top: aligned roots find everything else again;
	 * TraceLens's positional roots pair every later root with the wrong one */
	struct tb a, b;
	for (int positional = 0; positional < 2; positional++) {
		tb_init(&a, 1);
		tb_init(&b, 1);
		tb_op(&b, "aten::zero_", "fill_kernel", 3);
		for (int i = 0; i < 3; i++) {
			block(&a, 0);
			block(&b, 0);
		}
		tg_tree_diff_opts o = {.positional_roots = positional};
		struct pair p;
		pair_diff(&p, &a, &b, &o);
		size_t nl;
		const tg_diff_lca *L = tg_tree_diff_lcas(p.d, &nl);
		if (!positional) {
			assert_int_equal(nl, 1);
			assert_int_equal(L[0].node, 0);
			assert_int_equal(L[0].nnew, 1);
			assert_int_equal(tg_tree_diff_stats_get(p.d)->matched[0], 9);
		} else {
			assert_true(nl > 1);
			assert_true(tg_tree_diff_stats_get(p.d)->matched[0] < 9);
		}
		assert_accounted(&p);
		pair_free(&p);
	}
}


static void wrapper_case(struct tb *b, int wrapped, int direct_launch)
{
	tb_begin(b, "aten::layer", 0);
	tb_op(b, "aten::mm", "gemm_kernel", 40);
	if (direct_launch)
		tb_kernel(b, "bias_kernel", 2);
	if (wrapped)
		tb_begin(b, "custom::fused_softmax", 0);
	tb_op(b, "aten::softmax", "softmax_kernel", wrapped ? 9 : 10);
	if (wrapped)
		tb_end(b);
	tb_end(b);
}

static void test_wrapper_reconciled(void **state)
{
	(void)state;
	/* the new trace wraps an op in another (a new module or dispatch
	 * layer). Among children aligned by name, phase 3 opens the wrapper
	 * and finds the op again: no divergence */
	struct tb a, b;
	tb_init(&a, 1);
	tb_init(&b, 1);
	wrapper_case(&a, 0, 1);
	wrapper_case(&b, 1, 1);
	struct pair p;
	pair_diff(&p, &a, &b, NULL);
	size_t nl;
	tg_tree_diff_lcas(p.d, &nl);
	assert_int_equal(nl, 0);
	uint32_t sm = tg_test_find(p.t[0], "softmax_kernel", TG_KIND_KERNEL);
	assert_int_equal(tg_tree_diff_match(p.d, TG_DIFF_SIDE_BASE, sm),
	                 tg_test_find(p.t[1], "softmax_kernel", TG_KIND_KERNEL));
	assert_accounted(&p);
	pair_free(&p);

	/* lists of equal length without a launch pair by position (TraceLens's
	 * rule): the op and its wrapper pair, their children do not, and the
	 * pair is the LCA */
	tb_init(&a, 1);
	tb_init(&b, 1);
	wrapper_case(&a, 0, 0);
	wrapper_case(&b, 1, 0);
	pair_diff(&p, &a, &b, NULL);
	const tg_diff_lca *L = tg_tree_diff_lcas(p.d, &nl);
	assert_int_equal(nl, 1);
	assert_string_equal(label(&p, L[0].node), "combined: aten::softmax | custom::fused_softmax");
	assert_int_equal(L[0].nbase, 1);
	assert_int_equal(L[0].nnew, 1);
	assert_int_equal(L[0].base_busy_ns, 10000);
	assert_int_equal(L[0].new_busy_ns, 9000);
	assert_accounted(&p);
	pair_free(&p);
}

static void test_bounded_alignment(void **state)
{
	(void)state;
	/* 40 top-level ops, one more in the middle of the new trace; tables
	 * capped at 16 cells and quadratic steps at 1 pair: the linear
	 * alignment still finds the one new op */
	struct tb a, b;
	tb_init(&a, 1);
	tb_init(&b, 1);
	for (int i = 0; i < 40; i++) {
		char op[32], k[32];
		snprintf(op, sizeof(op), "aten::op%d", i % 7);
		snprintf(k, sizeof(k), "kernel_%d", i % 7);
		tb_op(&a, op, k, 5);
		if (i == 20)
			tb_op(&b, "aten::gelu", "gelu_kernel", 3);
		tb_op(&b, op, k, 5);
	}
	tg_tree_diff_opts o = {.max_dp_cells = 16, .max_pairs = 1};
	struct pair p;
	pair_diff(&p, &a, &b, &o);
	size_t nl;
	const tg_diff_lca *L = tg_tree_diff_lcas(p.d, &nl);
	assert_int_equal(nl, 1);
	assert_int_equal(L[0].node, 0);
	assert_int_equal(L[0].nbase, 0);
	assert_int_equal(L[0].nnew, 1);
	assert_string_equal(ev_name(&p, 1, L[0].new_gpu[0]), "gelu_kernel");
	const tg_tree_diff_stats *s = tg_tree_diff_stats_get(p.d);
	assert_int_equal(s->matched[0], 40);
	assert_true(s->dp_fallback > 0);
	assert_accounted(&p);
	pair_free(&p);
}

/* ------------------------------------------------------------------ */
/* real traces against TraceLens's outputs                               */

/* A file (gzip or not) into memory, NUL-terminated; NULL when absent. */
static char *slurp_gz(const char *path, size_t *len)
{
	gzFile g = gzopen(path, "rb");
	if (!g)
		return NULL;
	size_t cap = 1 << 20, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (n + 65536 + 1 > cap) {
			cap *= 2;
			buf = realloc(buf, cap);
		}
		int r = gzread(g, buf + n, 65536);
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	gzclose(g);
	buf[n] = 0;
	*len = n;
	return buf;
}

/* One CSV record (RFC 4180 quoting) from *p: fields into f[] (pointers into
 * the buffer, which is modified), returns the count; 0 at the end. */
static int csv_record(char **p, char **f, int maxf)
{
	char *s = *p;
	if (!*s)
		return 0;
	int nf = 0;
	for (;;) {
		char *w = s, *start = s;
		if (*s == '"') {
			s++;
			for (;;) {
				if (*s == '"' && s[1] == '"') {
					*w++ = '"';
					s += 2;
				} else if (*s == '"') {
					s++;
					break;
				} else if (!*s) {
					break;
				} else {
					*w++ = *s++;
				}
			}
		} else {
			while (*s && *s != ',' && *s != '\n' && *s != '\r')
				*w++ = *s++;
		}
		char end = *s;
		if (end == ',')
			s++;
		else if (end == '\r')
			s += s[1] == '\n' ? 2 : 1;
		else if (end == '\n')
			s++;
		*w = 0; /* w <= the delimiter, already passed */
		if (nf < maxf)
			f[nf++] = start;
		if (end == ',')
			continue;
		break;
	}
	*p = s;
	return nf;
}

struct ref_row {
	const char *name;
	int side; /* 0 trace1, 1 trace2 */
	double kernel_time, busy;
	long lca;
	const char *lca_name;
};

struct kd {
	const char *name;
	double us;
};

static int cmp_kd(const void *a, const void *b)
{
	const struct kd *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	if (c)
		return c;
	return (x->us > y->us) - (x->us < y->us);
}

/* name with "(digits)" removed, as TraceLens names its LCAs */
static void strip_digit_parens(char *s)
{
	char *w = s;
	for (char *r = s; *r;) {
		if (*r == '(') {
			char *q = r + 1;
			while (*q >= '0' && *q <= '9')
				q++;
			if (q > r + 1 && *q == ')') {
				r = q + 1;
				continue;
			}
		}
		*w++ = *r++;
	}
	*w = 0;
}

static void check_reference(const char *name, const char *trace1, const char *trace2, const char *refdir,
                            size_t want_lcas, size_t want_rows1, size_t want_rows2)
{
	const char *root = tg_test_shared_traces();
	char p1[8192], p2[8192], pr[8192];
	snprintf(p1, sizeof(p1), "%s/tracelens/tests/traces/%s", root, trace1);
	snprintf(p2, sizeof(p2), "%s/tracelens/tests/traces/%s", root, trace2);
	struct pair p;
	assert_int_equal(tg_trace_read_file(&p.t[0], p1, NULL), 0);
	assert_int_equal(tg_trace_read_file(&p.t[1], p2, NULL), 0);
	for (int s = 0; s < 2; s++)
		assert_int_equal(tg_tree_build(&p.tree[s], p.t[s]), 0);
	tg_tree_diff_opts o = tg_tree_diff_opts_tracelens();
	assert_int_equal(tg_tree_diff_build(&p.d, p.tree[0], p.tree[1], &o), 0);
	assert_accounted(&p);
	size_t nl, nn;
	const tg_diff_lca *L = tg_tree_diff_lcas(p.d, &nl);
	const tg_diff_node *nodes = tg_tree_diff_nodes(p.d, &nn);

	/* diff_stats.csv: one row per device event under an LCA */
	size_t len;
	snprintf(pr, sizeof(pr), "%s/../reference/tracelens/tracediff/%s/diff_stats.csv", root, refdir);
	char *csv = slurp_gz(pr, &len);
	if (!csv) {
		snprintf(pr, sizeof(pr), "%s/../reference/tracelens/tracediff/%s/diff_stats.csv.gz", root, refdir);
		csv = slurp_gz(pr, &len);
	}
	assert_non_null(csv);
	char *cur = csv, *f[20];
	int nf = csv_record(&cur, f, 20);
	assert_int_equal(nf, 15);
	assert_string_equal(f[0], "name");
	assert_string_equal(f[9], "busy_time");
	assert_string_equal(f[11], "lowest_common_ancestor_id");
	size_t cap = 4096, nrows = 0, rows[2] = {0, 0};
	struct ref_row *R = malloc(cap * sizeof(*R));
	long maxlca = 0;
	while ((nf = csv_record(&cur, f, 20)) > 0) {
		assert_int_equal(nf, 15);
		if (nrows == cap)
			R = realloc(R, (cap *= 2) * sizeof(*R));
		struct ref_row *r = &R[nrows++];
		r->name = f[0];
		r->side = !strcmp(f[3], "trace2");
		r->kernel_time = strtod(f[8], NULL);
		r->busy = strtod(f[9], NULL);
		r->lca_name = f[10];
		r->lca = strtol(f[11], NULL, 10);
		rows[r->side]++;
		if (r->lca > maxlca)
			maxlca = r->lca;
	}
	assert_int_equal(rows[0], want_rows1);
	assert_int_equal(rows[1], want_rows2);
	/* no combined kernel pairs here (hip* and cuda* launches never pair):
	 * every row belongs to an LCA of ours */
	const tg_tree_diff_stats *st = tg_tree_diff_stats_get(p.d);
	assert_int_equal(st->in_lca[0], want_rows1);
	assert_int_equal(st->in_lca[1], want_rows2);
	assert_int_equal(st->matched[0], 0);
	assert_int_equal(nl, want_lcas);

	/* per LCA: TraceLens's merged_id is our node id - 1 (same preorder,
	 * without the virtual root); kernels, their times and the busy time
	 * per side agree */
	size_t *first = calloc((size_t)maxlca + 2, sizeof(size_t));
	size_t *count = calloc((size_t)maxlca + 2, sizeof(size_t));
	for (size_t i = 0; i < nrows; i++)
		count[R[i].lca]++;
	size_t acc = 0;
	for (long l = 0; l <= maxlca; l++) {
		first[l] = acc;
		acc += count[l];
		count[l] = 0;
	}
	struct ref_row **byl = malloc((nrows + 1) * sizeof(*byl));
	for (size_t i = 0; i < nrows; i++)
		byl[first[R[i].lca] + count[R[i].lca]++] = &R[i];
	size_t seen_lcas = 0;
	for (long l = 0; l <= maxlca; l++)
		seen_lcas += count[l] > 0;
	assert_int_equal(seen_lcas, want_lcas);
	double maxdiff = 0;
	struct kd *a = malloc((nrows + 1) * sizeof(*a)), *b = malloc((nrows + 1) * sizeof(*b));
	for (size_t l = 0; l < nl; l++) {
		long id = (long)L[l].node - 1;
		assert_true(id >= 0 && id <= maxlca);
		assert_int_equal(count[id], L[l].nbase + L[l].nnew);
		char lname[1100];
		const tg_diff_node *x = &nodes[L[l].node];
		const char *n1 = ev_name(&p, 0, x->base_ev), *n2 = ev_name(&p, 1, x->new_ev);
		char s1[512], s2[512];
		snprintf(s1, sizeof(s1), "%s", n1);
		snprintf(s2, sizeof(s2), "%s", n2);
		strip_digit_parens(s1);
		strip_digit_parens(s2);
		if (!strcmp(s1, s2))
			snprintf(lname, sizeof(lname), "%s", s1);
		else
			snprintf(lname, sizeof(lname), "%s | %s", s1, s2);
		for (int side = 0; side < 2; side++) {
			size_t na = 0, nb = 0;
			double busy = -1;
			for (size_t k = 0; k < count[id]; k++) {
				const struct ref_row *r = byl[first[id] + k];
				assert_string_equal(r->lca_name, lname);
				if (r->side != side)
					continue;
				a[na++] = (struct kd){r->name, r->kernel_time};
				busy = r->busy;
			}
			size_t ng = side ? L[l].nnew : L[l].nbase;
			const uint32_t *g = side ? L[l].new_gpu : L[l].base_gpu;
			size_t ne;
			const tg_event *ev = tg_trace_events(p.t[side], &ne);
			for (size_t k = 0; k < ng; k++)
				b[nb++] = (struct kd){tg_trace_str(p.t[side], ev[g[k]].name),
				                      tg_event_dur(p.t[side], &ev[g[k]]) / 1000.0};
			assert_int_equal(na, nb);
			qsort(a, na, sizeof(*a), cmp_kd);
			qsort(b, nb, sizeof(*b), cmp_kd);
			for (size_t k = 0; k < na; k++) {
				assert_string_equal(a[k].name, b[k].name);
				assert_true(fabs(a[k].us - b[k].us) < 1e-6);
			}
			if (na) {
				double ours = (side ? L[l].new_busy_ns : L[l].base_busy_ns) / 1000.0;
				double dd = fabs(ours - busy);
				if (dd > maxdiff)
					maxdiff = dd;
				assert_true(dd <= 1e-3 + 1e-9);
			}
		}
	}
	print_message("%s: %zu LCAs, rows %zu + %zu, max |busy - TraceLens| %.6f us\n", name, nl, rows[0], rows[1],
	              maxdiff);
	free(a);
	free(b);
	free(byl);
	free(first);
	free(count);
	free(R);
	free(csv);

	/* merged_tree_output.txt, byte for byte */
	snprintf(pr, sizeof(pr), "%s/../reference/tracelens/tracediff/%s/merged_tree_output.txt", root, refdir);
	char *ref = slurp_gz(pr, &len);
	if (!ref) {
		snprintf(pr, sizeof(pr), "%s/../reference/tracelens/tracediff/%s/merged_tree_output.txt.gz", root,
		         refdir);
		ref = slurp_gz(pr, &len);
	}
	assert_non_null(ref);
	char *out = NULL;
	size_t olen = 0;
	FILE *fo = open_memstream(&out, &olen);
	assert_int_equal(tg_tree_diff_print(fo, p.d, NULL), 0);
	fclose(fo);
	assert_int_equal(olen, len);
	assert_memory_equal(out, ref, len);
	free(out);
	free(ref);
	pair_free(&p);
}

static void test_tracelens_timesformer(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	check_reference("timesformer mi300 vs h100", "mi300/facebook_timesformer-base-finetuned-k400__1016002.json.gz",
	                "h100/facebook_timesformer-base-finetuned-k400__1016002.json.gz", "timesformer_mi300_vs_h100",
	                445, 449, 534);
}

static void test_tracelens_qwen(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	check_reference("Qwen1.5 mi300 vs h100", "mi300/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
	                "h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz", "qwen1.5_mi300_vs_h100", 1030, 1054, 1198);
}

/* A trace against itself, in both modes: no LCA, every event matched. */
static void test_real_self(void **state)
{
	(void)state;
	TG_SKIP_WITHOUT_SHARED();
	static const char *const files[] = {
		"tracelens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
		"tracelens/tests/traces/inference/xdit_sd_3.5/profile_trace_rank_0.json.gz",
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[8192];
		snprintf(path, sizeof(path), "%s/%s", tg_test_shared_traces(), files[i]);
		tg_trace *t;
		tg_tree *tree;
		assert_int_equal(tg_trace_read_file(&t, path, NULL), 0);
		assert_int_equal(tg_tree_build(&tree, t), 0);
		for (int mode = 0; mode < 2; mode++) {
			tg_tree_diff_opts o = mode ? tg_tree_diff_opts_tracelens() : (tg_tree_diff_opts){0};
			tg_tree_diff *d;
			struct timespec t0, t1;
			clock_gettime(CLOCK_MONOTONIC, &t0);
			assert_int_equal(tg_tree_diff_build(&d, tree, tree, &o), 0);
			clock_gettime(CLOCK_MONOTONIC, &t1);
			size_t nl;
			tg_tree_diff_lcas(d, &nl);
			assert_int_equal(nl, 0);
			const tg_tree_diff_stats *s = tg_tree_diff_stats_get(d);
			assert_int_equal(s->matched[0], s->gpu[0]);
			assert_true(s->gpu[0] > 1000);
			print_message("%s vs itself (%s): %llu GPU events matched, %llu nodes, %.1f ms\n", files[i],
			              mode ? "tracelens" : "default", (unsigned long long)s->gpu[0],
			              (unsigned long long)s->nodes,
			              (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
			tg_tree_diff_free(d);
		}
		tg_tree_free(tree);
		tg_trace_free(t);
	}
}

/* The whole printed merged tree and the drawing of the diffs of d. */
static char *printed(const tg_tree_diff *d)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	tg_diff_print_opts po = {.only_diffs = 1, .context = 1, .max_depth = 4, .max_lines = 20, .ascii = 1};
	assert_int_equal(tg_tree_diff_print(f, d, NULL), 0);
	assert_int_equal(tg_tree_diff_print(f, d, &po), 0);
	fclose(f);
	return out;
}

/* a and b are the same diff: nodes, LCAs, every event's match and LCA,
 * the counts and the printed trees. */
static void assert_same_diff(const tg_tree_diff *a, const tg_tree_diff *b, size_t nev0, size_t nev1)
{
	size_t na, nb;
	const tg_diff_node *x = tg_tree_diff_nodes(a, &na), *y = tg_tree_diff_nodes(b, &nb);
	assert_int_equal(na, nb);
	assert_memory_equal(x, y, na * sizeof(*x));
	const tg_diff_lca *la = tg_tree_diff_lcas(a, &na), *lb = tg_tree_diff_lcas(b, &nb);
	assert_int_equal(na, nb);
	for (size_t l = 0; l < na; l++) {
		assert_int_equal(la[l].node, lb[l].node);
		assert_int_equal(la[l].nbase, lb[l].nbase);
		assert_int_equal(la[l].nnew, lb[l].nnew);
		assert_int_equal(la[l].base_busy_ns, lb[l].base_busy_ns);
		assert_int_equal(la[l].new_busy_ns, lb[l].new_busy_ns);
		assert_memory_equal(la[l].base_gpu, lb[l].base_gpu, la[l].nbase * sizeof(uint32_t));
		assert_memory_equal(la[l].new_gpu, lb[l].new_gpu, la[l].nnew * sizeof(uint32_t));
	}
	for (int s = 0; s < 2; s++)
		for (uint32_t ev = 0; ev < (s ? nev1 : nev0); ev++) {
			assert_int_equal(tg_tree_diff_match(a, s, ev), tg_tree_diff_match(b, s, ev));
			assert_int_equal(tg_tree_diff_lca_of(a, s, ev), tg_tree_diff_lca_of(b, s, ev));
		}
	assert_memory_equal(tg_tree_diff_stats_get(a), tg_tree_diff_stats_get(b), sizeof(tg_tree_diff_stats));
	char *pa = printed(a), *pb = printed(b);
	assert_string_equal(pa, pb);
	free(pa);
	free(pb);
}

/* Trees base and next diffed from a base side made beforehand, twice
 * from the same side (it is only read), and under other options than
 * the side's (its view is then built): each the diff from the two
 * skeletons. Returns the LCAs found. */
static size_t same_from_side(const tg_tree *base, const tg_tree *next)
{
	tg_skeleton *sb, *sn;
	assert_int_equal(tg_skeleton_build(&sb, base, 0), 0);
	assert_int_equal(tg_skeleton_build(&sn, next, 0), 0);
	size_t nev0 = tg_skeleton_events(sb), nev1 = tg_skeleton_events(sn), nl = 0;
	tg_tree_diff_side *side;
	assert_int_equal(tg_tree_diff_side_new(&side, sb, NULL), 0);
	assert_ptr_equal(tg_tree_diff_side_skeleton(side), sb);
	assert_true(tg_tree_diff_side_bytes(side) > nev0 * sizeof(uint32_t));
	tg_tree_diff *want, *got;
	assert_int_equal(tg_tree_diff_build_skeletons(&want, sb, sn, NULL), 0);
	tg_tree_diff_lcas(want, &nl);
	for (int k = 0; k < 2; k++) {
		assert_int_equal(tg_tree_diff_build_from(&got, side, sn, NULL), 0);
		assert_same_diff(want, got, nev0, nev1);
		tg_tree_diff_free(got);
	}
	tg_tree_diff_free(want);
	tg_tree_diff_opts o = tg_tree_diff_opts_tracelens();
	assert_int_equal(tg_tree_diff_build_skeletons(&want, sb, sn, &o), 0);
	assert_int_equal(tg_tree_diff_build_from(&got, side, sn, &o), 0);
	assert_same_diff(want, got, nev0, nev1);
	tg_tree_diff_free(want);
	tg_tree_diff_free(got);
	tg_tree_diff_side_free(side);
	tg_skeleton_free(sb);
	tg_skeleton_free(sn);
	return nl;
}

/* Trees base and next diffed lean (tg_tree_diff_opts.lean, the gate's)
 * and whole, under the default options and TraceLens's: a diff with LCAs
 * is the same diff (merged again, whole, at its first point of
 * divergence), one without comes back lean, its matches, LCAs and counts
 * (the merged tree's nodes too) those of the whole one. Returns the LCAs
 * found. */
static size_t same_lean(const tg_tree *base, const tg_tree *next)
{
	tg_skeleton *sb, *sn;
	assert_int_equal(tg_skeleton_build(&sb, base, 0), 0);
	assert_int_equal(tg_skeleton_build(&sn, next, 0), 0);
	size_t nev0 = tg_skeleton_events(sb), nev1 = tg_skeleton_events(sn), nl = 0;
	for (int mode = 0; mode < 2; mode++) {
		tg_tree_diff_opts o = mode ? tg_tree_diff_opts_tracelens() : (tg_tree_diff_opts){0};
		tg_tree_diff *want, *got;
		assert_int_equal(tg_tree_diff_build_skeletons(&want, sb, sn, &o), 0);
		o.lean = 1;
		if (mode) {
			assert_int_equal(tg_tree_diff_build_skeletons(&got, sb, sn, &o), 0);
		} else { /* from a base side made beforehand (the daemon's stored views) */
			tg_tree_diff_side *side;
			assert_int_equal(tg_tree_diff_side_new(&side, sb, NULL), 0);
			assert_int_equal(tg_tree_diff_build_from(&got, side, sn, &o), 0);
			tg_tree_diff_side_free(side);
		}
		size_t n, nodes;
		tg_tree_diff_lcas(want, &n);
		nl += n;
		if (n) {
			assert_same_diff(want, got, nev0, nev1);
		} else {
			tg_tree_diff_nodes(want, &nodes);
			assert_int_equal(tg_tree_diff_stats_get(want)->nodes, nodes);
			assert_int_equal(tg_tree_diff_lean(want), 1);
			assert_null(tg_tree_diff_nodes(got, &nodes));
			assert_int_equal(nodes, 0);
			assert_null(tg_tree_diff_skeleton(got, TG_DIFF_SIDE_BASE));
			tg_tree_diff_lcas(got, &n);
			assert_int_equal(n, 0);
			for (int sd = 0; sd < 2; sd++)
				for (uint32_t ev = 0; ev < (sd ? nev1 : nev0); ev++) {
					assert_int_equal(tg_tree_diff_match(want, sd, ev), tg_tree_diff_match(got, sd, ev));
					assert_int_equal(tg_tree_diff_lca_of(got, sd, ev), TG_NONE);
				}
			assert_memory_equal(tg_tree_diff_stats_get(want), tg_tree_diff_stats_get(got),
			                    sizeof(tg_tree_diff_stats));
		}
		tg_tree_diff_free(want);
		tg_tree_diff_free(got);
	}
	tg_skeleton_free(sb);
	tg_skeleton_free(sn);
	return nl;
}

/* The shared Qwen1.5 traces of one model on two GPUs (mi300, h100) read
 * and built into t[] and tree[]: 1, or 0 (saying so) without the shared
 * folder. Freed with qwen_pair_free. */
static int qwen_pair(tg_trace *t[2], tg_tree *tree[2])
{
	if (!tg_test_shared_traces()) {
		print_message("real traces skipped: no shared folder (TG_SHARED)\n");
		return 0;
	}
	static const char *const files[] = {"tracelens/tests/traces/mi300/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
	                                    "tracelens/tests/traces/h100/Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz"};
	for (int s = 0; s < 2; s++) {
		char path[8192];
		snprintf(path, sizeof(path), "%s/%s", tg_test_shared_traces(), files[s]);
		assert_int_equal(tg_trace_read_file(&t[s], path, NULL), 0);
		assert_int_equal(tg_tree_build(&tree[s], t[s]), 0);
	}
	return 1;
}

static void qwen_pair_free(tg_trace *t[2], tg_tree *tree[2])
{
	for (int s = 0; s < 2; s++) {
		tg_tree_free(tree[s]);
		tg_trace_free(t[s]);
	}
}

/* The lean build: pairs without a point of divergence, with one inside
 * the first pair of roots, and with the root's (an op added or removed
 * at the top, after a pair of roots already dropped); real traces
 * against themselves and across two GPUs when the shared folder is
 * there. */
static void test_lean_build(void **state)
{
	(void)state;
	for (int variant = 0; variant < 4; variant++) {
		struct tb a, b;
		tb_init(&a, 1);
		tb_init(&b, 1);
		if (variant < 2) {
			block(&a, 0);
			block(&b, variant); /* 1: a kernel swapped */
		} else {
			layer(&a, 0);
			layer(&a, variant == 2 ? 0 : 1);
			layer(&b, 0);
			layer(&b, variant == 2 ? 1 : 0);
		}
		struct pair p;
		pair_diff(&p, &a, &b, NULL);
		assert_int_equal(same_lean(p.tree[0], p.tree[1]) > 0, variant > 0);
		pair_free(&p);
	}
	tg_trace *t[2];
	tg_tree *tree[2];
	if (!qwen_pair(t, tree))
		return;
	assert_int_equal(same_lean(tree[1], tree[1]), 0);
	assert_true(same_lean(tree[0], tree[1]) > 0);
	qwen_pair_free(t, tree);
}

/* A diff from a base side made beforehand: small pairs that diverge (an
 * op added, one removed), and real traces of two GPUs when the shared
 * folder is there. */
/* A skeleton's nodes by (start, index): ties kept in index order, both
 * when the starts' span fits beside the index (the packed radix sort) and
 * when it does not (the pairs' sort). */
static void check_by_start(const int64_t *ts, size_t n, const uint32_t *want)
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
	const uint32_t *by = tg_skeleton_by_start(sk), *rank = tg_skeleton_start_rank(sk);
	for (size_t q = 0; q < n; q++) {
		assert_int_equal(by[q], want[q]);
		assert_int_equal(rank[want[q]], q);
	}
	tg_skeleton_free(sk);
}

static void test_skeleton_by_start(void **state)
{
	(void)state;
	const int64_t narrow[] = {30, 10, 10, 20, -5};
	const uint32_t narrow_want[] = {4, 1, 2, 3, 0};
	check_by_start(narrow, 5, narrow_want);
	const int64_t wide[] = {INT64_MAX, INT64_MIN, 0, INT64_MIN};
	const uint32_t wide_want[] = {1, 3, 2, 0};
	check_by_start(wide, 4, wide_want);
	const int64_t one[] = {7};
	const uint32_t one_want[] = {0};
	check_by_start(one, 1, one_want);
}

static void test_from_side(void **state)
{
	(void)state;
	for (int dir = 0; dir < 2; dir++) {
		struct tb a, b;
		tb_init(&a, 1);
		tb_init(&b, 1);
		layer(&a, 0);
		layer(&a, dir == 0 ? 0 : 1);
		layer(&b, 0);
		layer(&b, dir == 0 ? 1 : 0);
		struct pair p;
		pair_diff(&p, &a, &b, NULL);
		assert_int_equal(same_from_side(p.tree[0], p.tree[1]), 1);
		pair_free(&p);
	}
	tg_trace *t[2];
	tg_tree *tree[2];
	if (!qwen_pair(t, tree))
		return;
	assert_true(same_from_side(tree[0], tree[1]) > 0);
	qwen_pair_free(t, tree);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normalize),
		cmocka_unit_test(test_identical),
		cmocka_unit_test(test_swapped_kernel),
		cmocka_unit_test(test_split_kernel),
		cmocka_unit_test(test_new_and_removed_op),
		cmocka_unit_test(test_reordered_ops),
		cmocka_unit_test(test_same_name_disambiguated),
		cmocka_unit_test(test_hex_names),
		cmocka_unit_test(test_print_control_chars),
		cmocka_unit_test(test_graph_launch),
		cmocka_unit_test(test_print_only_diffs),
		cmocka_unit_test(test_print_orphans_summarised),
		cmocka_unit_test(test_positional_roots),
		cmocka_unit_test(test_wrapper_reconciled),
		cmocka_unit_test(test_bounded_alignment),
		cmocka_unit_test(test_tracelens_timesformer),
		cmocka_unit_test(test_tracelens_qwen),
		cmocka_unit_test(test_real_self),
		cmocka_unit_test(test_from_side),
		cmocka_unit_test(test_lean_build),
		cmocka_unit_test(test_skeleton_by_start),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
